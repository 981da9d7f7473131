"""Kill the sync process at every step (and at random moments): nothing lost, nothing twice.

Scenario (real store visits, edited through the model, so every sync runs the full visit check
and keeps its ``validated.json`` record): laptop A has already sent an edit of tree t1 and a new
tree (in the fast-forward variant it has not: B's base is the master, and the office takes B's
result as its new master instead of applying B's changeset); laptop B has new trees, an edit of t1 (a
same-field conflict), an edit of t2 and a delete
of t3. B's sync runs in a child process that SIGKILLs itself at its N-th progress report -- the
progress callback is reported at every step, including the store's read of what the visit is to
become, inside the office write (history stored, master copied, applied, replaced) and the laptop
finalize -- or is SIGKILLed by this process after a random
delay. Afterwards:

- the visit, the base copy, the pending files and the office master pass ``integrity_check``;
- the next sync completes;
- the office holds exactly what an uninterrupted run gives (same features by uuid, same
  conflict records, once each), B's changeset is in the office log exactly once, and both
  laptops match the office;
- the store still opens B's visit, and B's ``validated.json`` (when there is one) is the hash
  of B's visit as it is.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fieldapp.store import create_visit, open_visit
from fieldapp.survey.features import Layer, TreeStatus
from fieldapp.survey.visit import Visit
from fieldapp.sync import FolderOffice, checkout, read_conflicts, sync
from fieldapp.sync.engine import site_id_of
from fieldapp.sync.files import INTERNAL_TABLES, LOG_TABLE
from tests.gpkgtools import st_connect

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL (POSIX)")

REPO = Path(__file__).resolve().parents[2]
CHILD = """
import os, signal, sys
from pathlib import Path
from fieldapp.sync import FolderOffice, sync
root, kill_at = Path(sys.argv[1]), int(sys.argv[2])
calls = 0
def progress(fraction, message):
    global calls
    calls += 1
    if message.startswith("office: the master is"):
        print(message)
    if calls == kill_at:
        os.kill(os.getpid(), signal.SIGKILL)
sync(root / "b.gpkg", FolderOffice(root / "office"), progress=progress)
print("CALLS", calls)
"""
FEATURES = tuple(layer.value for layer in Layer)
X0, Y0 = 500000.0, 4983000.0  # UTM 16N


def make_template(root: Path, *, b_edits: bool = True, a_again: bool = True) -> None:
    office = FolderOffice(root / "office", create=True)
    visit = Visit.new("Mill Creek lot", crs="EPSG:32616", who="a@laptop-a")
    a = root / "a.gpkg"
    store = create_visit(a, visit)
    t1, t2, t3 = (visit.add_tree(x=X0 + 5 * i, y=Y0, dbh_in=10.0 + i, species_code="ACSA").uuid
                  for i in range(3))
    store.close()
    site = sync(a, office).site_id
    b = checkout(office, site, root / "b.gpkg")
    if a_again:  # else B's base is the master: its push fast-forwards the office
        with open_visit(a, who="a@laptop-a") as store:
            store.visit.update_feature(Layer.TREE, t1, dbh_in=20.0)
            store.visit.add_tree(x=X0 + 7, y=Y0 + 7, dbh_in=7.0, species_code="AAAA")
        sync(a, office)
    if b_edits:
        with open_visit(b, who="b@laptop-b") as store:
            for i in range(3):
                store.visit.add_tree(x=X0 + 9 + i, y=Y0 + 9, dbh_in=9.0 + i, species_code="BBBB")
            store.visit.update_feature(Layer.TREE, t1, dbh_in=21.0)
            store.visit.update_feature(Layer.TREE, t2, status=TreeStatus.DEAD)
            store.visit.delete(Layer.TREE, t3)


def master_of(root: Path) -> Path:
    return FolderOffice(root / "office").master_path(site_id_of(root / "a.gpkg"))


def by_uuid(path: Path, table: str) -> dict[str, dict]:
    """``{uuid: {column: value}}`` of a layer (fid left out: it may be remapped)."""
    with contextlib.closing(st_connect(path)) as conn:
        conn.row_factory = sqlite3.Row
        return {r["uuid"]: {k: r[k] for k in r.keys() if k != "fid"}
                for r in conn.execute(f'SELECT * FROM "{table}"')}


def snapshot(path: Path) -> dict:
    """Everything a laptop and the office must agree on: every layer and both sync tables."""
    out = {layer: by_uuid(path, layer) for layer in (*FEATURES, *INTERNAL_TABLES) if layer != LOG_TABLE}
    with contextlib.closing(st_connect(path)) as conn:
        out[LOG_TABLE] = conn.execute(f"SELECT * FROM {LOG_TABLE} ORDER BY seq").fetchall()
    return out


def integrity(path: Path) -> str:
    with contextlib.closing(st_connect(path)) as conn:
        return conn.execute("PRAGMA integrity_check").fetchone()[0]


def run_child(root: Path, kill_at: int, *, kill_after_s: float | None = None) -> subprocess.CompletedProcess | int:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    cmd = [sys.executable, "-c", CHILD, str(root), str(kill_at)]
    if kill_after_s is None:
        return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(kill_after_s)
    proc.kill()
    proc.communicate(timeout=120)
    return proc.returncode


def conflict_keys(path: Path) -> list:
    return sorted(
        json.dumps([c.layer, c.feature_uuid, c.field, c.kind.value, c.base, c.theirs, c.ours, c.kept], sort_keys=True)
        for c in read_conflicts(path)
    )


def state_of(root: Path) -> dict:
    m = master_of(root)
    return {"features": {layer: by_uuid(m, layer) for layer in FEATURES}, "conflicts": conflict_keys(m)}


@pytest.fixture(scope="module")
def templates(tmp_path_factory):
    """Prepared folders (built once) and the result of an uninterrupted run of each."""
    out = {}
    for name, b_edits, a_again in (("push", True, True), ("pull", False, True), ("ff", True, False)):
        tpl = tmp_path_factory.mktemp(f"tpl-{name}")
        make_template(tpl, b_edits=b_edits, a_again=a_again)
        ref = tmp_path_factory.mktemp(f"ref-{name}")
        shutil.copytree(tpl, ref, dirs_exist_ok=True)
        done = run_child(ref, 0)
        assert done.returncode == 0, done.stderr
        calls = int(done.stdout.split("CALLS")[1])
        if name == "ff":  # the office took B's result as it is
            assert "office: the master is this laptop's base copy" in done.stdout
        out[name] = (tpl, state_of(ref), calls, b_edits)
    return out


def check_after_kill(root: Path, reference: dict, b_sends: bool) -> None:
    office = FolderOffice(root / "office")
    m = master_of(root)
    b, a = root / "b.gpkg", root / "a.gpkg"
    sync_dir = root / "b.gpkg.sync"
    files = [m, b, sync_dir / "base.gpkg", *(sync_dir / "pending").glob("*.gpkg")]
    for f in files:
        if f.exists():
            assert integrity(f) == "ok", f
    sync(b, office, lock_wait_s=30)  # the stale lock (dead pid) is broken; the sync completes
    assert state_of(root) == reference
    laptop_b = json.loads((sync_dir / "state.json").read_text())["laptop_id"]
    with contextlib.closing(st_connect(m)) as conn:
        seqs = [s for (s,) in conn.execute("SELECT seq FROM fieldapp_sync_log ORDER BY seq")]
        from_b = conn.execute("SELECT count(*) FROM fieldapp_sync_log WHERE laptop_id = ?", (laptop_b,)).fetchone()[0]
    assert seqs == list(range(1, len(seqs) + 1))
    assert from_b == (1 if b_sends else 0)  # B's edits applied exactly once
    hist = sorted(p.name[:8] for p in (office.site_dir(site_id_of(a)) / "history").iterdir()
                  if not p.name.startswith("."))
    assert hist == [f"{s:08d}" for s in seqs]
    sync(a, office)
    assert snapshot(b) == snapshot(m) == snapshot(a)
    with open_visit(b, readonly=True) as store:  # the store still reads B's visit
        assert len(store.visit.features(Layer.TREE)) == len(reference["features"]["tree"])
    record = sync_dir / "validated.json"
    assert json.loads(record.read_text())["sha256"] == hashlib.sha256(b.read_bytes()).hexdigest()


def _trial(templates, name, tmp_path, kill_at, kill_after_s=None):
    tpl, reference, _calls, b_sends = templates[name]
    root = tmp_path / "t"
    shutil.copytree(tpl, root)
    result = run_child(root, kill_at, kill_after_s=kill_after_s)
    if kill_after_s is None:
        assert result.returncode == -signal.SIGKILL, result.stderr
    check_after_kill(root, reference, b_sends)


# The push sync reports progress 18 times; kill at each of the first 17 (every step, including
# the store's read of the merged result before anything is written, the four inside the office
# write and the finalize; the end of the sync checks nothing again when the visit hashes as the
# finalize left it, so it reports no step), and at a few points of a pull-only sync
# (snapshot, applying the office's change, the store's read of it, the commit point, the base
# copy).
@pytest.mark.parametrize("kill_at", range(1, 18))
def test_kill_push_sync_at_each_step(templates, tmp_path, kill_at):
    assert kill_at < templates["push"][2]
    _trial(templates, "push", tmp_path, kill_at)


@pytest.mark.parametrize("kill_at", [3, 5, 7, 8, 10])
def test_kill_pull_only_sync(templates, tmp_path, kill_at):
    assert kill_at < templates["pull"][2]
    _trial(templates, "pull", tmp_path, kill_at)


# B's base is the master: the office takes B's result (fast-forward) instead of applying; that
# sync reports progress 16 times: kill at each of the first 15 (as for the push above)
@pytest.mark.parametrize("kill_at", range(1, 16))
def test_kill_fast_forward_push_at_each_step(templates, tmp_path, kill_at):
    assert kill_at < templates["ff"][2]
    _trial(templates, "ff", tmp_path, kill_at)


@pytest.mark.parametrize("seed", range(3))
def test_kill_at_random_moments(templates, tmp_path, seed):
    # random delays over the child's life (start-up ~0.5 s + sync); the checks hold wherever it dies
    _trial(templates, "push", tmp_path, 0, kill_after_s=random.Random(seed).uniform(0.3, 1.5))
