"""Kill the sync process at every step (and at random moments): nothing lost, nothing twice.

Scenario: laptop A has already sent an edit of tree t1; laptop B has new trees, an edit of
t1 (a same-field conflict), an edit of t2 and a delete of t3. B's sync runs in a child process
that SIGKILLs itself at its N-th progress report -- the progress callback is reported at every
step, including inside the office write (history stored, master copied, applied, replaced) and
the laptop finalize -- or is SIGKILLed by this process after a random delay. Afterwards:

- the visit, the base copy, the pending files and the office master pass ``integrity_check``;
- the next sync completes;
- the office holds exactly what an uninterrupted run gives (same features by uuid, same
  conflict records, once each), B's changeset is in the office log exactly once, and both
  laptops match the office.
"""

from __future__ import annotations

import contextlib
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

import sync_sample as S
from fieldapp.sync import FolderOffice, checkout, read_conflicts, sync

from test_sync import generic_visits  # noqa: F401  (autouse: sample GeoPackages, not store visits)

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL (POSIX)")

REPO = Path(__file__).resolve().parent.parent
CHILD = """
import os, signal, sys
from pathlib import Path
from fieldapp.sync import FolderOffice, engine, sync
engine.check_visit_file = engine.check_visit_basics  # sample GeoPackages, as in test_sync.py
root, kill_at = Path(sys.argv[1]), int(sys.argv[2])
calls = 0
def progress(fraction, message):
    global calls
    calls += 1
    if calls == kill_at:
        os.kill(os.getpid(), signal.SIGKILL)
sync(root / "b.gpkg", FolderOffice(root / "office"), progress=progress)
print("CALLS", calls)
"""
FEATURES = ("transect", "station", "tree", "metadata")


def make_template(root: Path, *, b_edits: bool = True) -> None:
    office = FolderOffice(root / "office", create=True)
    a = S.make_visit(root / "a.gpkg", trees=3)
    sync(a, office)
    b = checkout(office, "site-a", root / "b.gpkg")
    t1, t2, t3 = sorted(S.by_uuid(a, "tree"), key=lambda u: S.by_uuid(a, "tree")[u]["dbh_in"])
    with contextlib.closing(S.connect(a)) as conn, conn:
        conn.execute("UPDATE tree SET dbh_in = 20 WHERE uuid = ?", (t1,))
        S.add_tree(conn, 7.0, 7.0, 7.0, "AAAA")
    sync(a, office)
    if b_edits:
        with contextlib.closing(S.connect(b)) as conn, conn:
            for i in range(3):
                S.add_tree(conn, 9.0 + i, 9.0, 9.0 + i, "BBBB")
            conn.execute("UPDATE tree SET dbh_in = 21 WHERE uuid = ?", (t1,))
            conn.execute("UPDATE tree SET status = 'dead' WHERE uuid = ?", (t2,))
            conn.execute("DELETE FROM tree WHERE uuid = ?", (t3,))


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
    m = FolderOffice(root / "office").master_path("site-a")
    return {
        "features": {layer: S.by_uuid(m, layer) if layer != "metadata" else S.rows(m, layer, order="key")
                     for layer in FEATURES},
        "conflicts": conflict_keys(m),
    }


@pytest.fixture(scope="module")
def templates(tmp_path_factory):
    """Prepared folders (built once) and the result of an uninterrupted run of each."""
    out = {}
    for name, b_edits in (("push", True), ("pull", False)):
        tpl = tmp_path_factory.mktemp(f"tpl-{name}")
        make_template(tpl, b_edits=b_edits)
        ref = tmp_path_factory.mktemp(f"ref-{name}")
        shutil.copytree(tpl, ref, dirs_exist_ok=True)
        done = run_child(ref, 0)
        assert done.returncode == 0, done.stderr
        calls = int(done.stdout.split("CALLS")[1])
        out[name] = (tpl, state_of(ref), calls)
    return out


def check_after_kill(root: Path, reference: dict) -> None:
    office = FolderOffice(root / "office")
    m = office.master_path("site-a")
    b, a = root / "b.gpkg", root / "a.gpkg"
    sync_dir = root / "b.gpkg.sync"
    files = [m, b, sync_dir / "base.gpkg", *(sync_dir / "pending").glob("*.gpkg")]
    for f in files:
        if f.exists():
            assert S.integrity(f) == "ok", f
    sync(b, office, lock_wait_s=30)  # the stale lock (dead pid) is broken; the sync completes
    assert state_of(root) == reference
    laptop_b = json.loads((sync_dir / "state.json").read_text())["laptop_id"]
    with contextlib.closing(sqlite3.connect(m)) as conn:
        seqs = [s for (s,) in conn.execute("SELECT seq FROM fieldapp_sync_log ORDER BY seq")]
        from_b = conn.execute("SELECT count(*) FROM fieldapp_sync_log WHERE laptop_id = ?", (laptop_b,)).fetchone()[0]
    assert seqs == list(range(1, len(seqs) + 1))
    assert from_b == (1 if reference["conflicts"] else 0)  # B's edits applied exactly once
    hist = sorted(p.name[:8] for p in (office.site_dir("site-a") / "history").iterdir() if not p.name.startswith("."))
    assert hist == [f"{s:08d}" for s in seqs]
    sync(a, office)
    from test_sync import snapshot

    assert snapshot(b) == snapshot(m) == snapshot(a)


def _trial(templates, name, tmp_path, kill_at, kill_after_s=None):
    tpl, reference, _calls = templates[name]
    root = tmp_path / "t"
    shutil.copytree(tpl, root)
    result = run_child(root, kill_at, kill_after_s=kill_after_s)
    if kill_after_s is None:
        assert result.returncode == -signal.SIGKILL, result.stderr
    check_after_kill(root, reference)


# The push sync reports progress 17 times; kill at each of the first 16 (every step, including
# the four inside the office write and the finalize), and at a few points of a pull-only sync.
@pytest.mark.parametrize("kill_at", range(1, 17))
def test_kill_push_sync_at_each_step(templates, tmp_path, kill_at):
    assert kill_at < templates["push"][2]
    _trial(templates, "push", tmp_path, kill_at)


@pytest.mark.parametrize("kill_at", [3, 5, 7, 9])
def test_kill_pull_only_sync(templates, tmp_path, kill_at):
    assert kill_at < templates["pull"][2]
    _trial(templates, "pull", tmp_path, kill_at)


@pytest.mark.parametrize("seed", range(3))
def test_kill_at_random_moments(templates, tmp_path, seed):
    # random delays over the child's life (start-up ~0.5 s + sync); the checks hold wherever it dies
    _trial(templates, "push", tmp_path, 0, kill_after_s=random.Random(seed).uniform(0.3, 1.5))
