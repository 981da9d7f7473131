"""Sync across store schema versions (schema 1 -> the current one, ``NEW``: 2 added
``transect.stipulated`` and ``line_feature.mapped_stream``, 3 the correction age and mountpoint
columns and the ``stake_point`` table), the store developer's scenario on one office folder. "Schema 2"
below is the current schema as this was first written.

The site starts from ``data/visit_schema1.gpkg`` (written by fieldapp at schema 1, see
test_store_migration.py): site "Schema 1 lot", transect T1, lines "Creek" and "S1", trees tagged
1-3 with DBH 12, 13, 14 in. A seed laptop syncs it (the office site is schema 1, seq 1) and
laptops A, B, C are checked out at schema 1. C stays a schema-1 file edited with sqlite3 (as
QGIS or an older fieldapp would edit it) and syncs first (seq 2, still schema 1). A opens its
visit for recording -- the store migrates it to schema 2 -- records the new fields and syncs:
the office master is migrated at seq 2 and A's changeset is seq 3. B, a schema-1 file with an
edit and a base at seq 1, behind the migration point, syncs with this fieldapp: it applies
seq 2 at schema 1, migrates, applies seq 3 and sends its edit at schema 2; its visit is migrated.

An older fieldapp is simulated by setting the store's ``SCHEMA_VERSION`` to 1 (in this process
with monkeypatch, and in a child process for the command line).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import fieldapp.store
from fieldapp.store import open_visit
from fieldapp.store import schema as store_schema
from fieldapp.survey import Layer
from fieldapp.sync import (
    ConflictKind,
    FolderOffice,
    InvalidOfficeData,
    NewerSchema,
    SchemaMismatch,
    checkout,
    read_conflicts,
    schemas,
    sync,
)
from fieldapp.sync.files import INTERNAL_TABLES, LOG_TABLE
from tests.gpkgtools import st_connect, validate_gpkg

REPO = Path(__file__).resolve().parents[2]
V1 = Path(__file__).resolve().parents[1] / "data" / "visit_schema1.gpkg"
NEW = store_schema.SCHEMA_VERSION  # what a file opened for recording is migrated to
NEWS = str(NEW)
# rows of the sample (read from it with sqlite3)
TREE = {1: "1d4d15d0-0380-49a9-b097-60b57e1c36ec", 2: "a2f01a5b-d21b-4acc-9dc5-6c4e9532d760",
        3: "8532d0f1-fe73-4ee7-9609-25750bc2774a"}
T1 = "4bcce2f5-a390-4de3-9a05-43142248e5e7"
CREEK = "21e41b0e-54a5-455f-b927-5bee7a5c7789"
S1 = "4416835b-2954-487c-9b64-c7b2b731bdba"
SITE = "d67b2150-5b88-489a-b255-55748d569b9c"
FEATURES = tuple(layer.value for layer in Layer)
#: The schema this fieldapp writes (a migrated visit or office is at it; 2 when this test was
#: written, 3 since area_feature.retained_area_ac / tally_complete).
NOW = store_schema.SCHEMA_VERSION


def version(path: Path) -> str:
    with contextlib.closing(st_connect(path)) as conn:
        return conn.execute("SELECT value FROM fieldapp_meta WHERE key = 'schema_version'").fetchone()[0]


def columns(path: Path, table: str) -> list[str]:
    with contextlib.closing(st_connect(path)) as conn:
        return [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')]


def sql(path: Path, statement: str, *args) -> None:
    with contextlib.closing(st_connect(path)) as conn, conn:
        conn.execute(statement, args)


def by_uuid(path: Path, table: str) -> dict[str, dict]:
    with contextlib.closing(st_connect(path)) as conn:
        conn.row_factory = sqlite3.Row
        return {r["uuid"]: {k: r[k] for k in r.keys() if k != "fid"} for r in conn.execute(f'SELECT * FROM "{table}"')}


def snapshot(path: Path) -> dict:
    """What every copy must agree on: the layers, the conflicts, the log and fieldapp_meta."""
    out = {t: by_uuid(path, t) for t in (*FEATURES, *INTERNAL_TABLES) if t != LOG_TABLE}
    with contextlib.closing(st_connect(path)) as conn:
        out[LOG_TABLE] = conn.execute(f"SELECT * FROM {LOG_TABLE} ORDER BY seq").fetchall()
        out["meta"] = sorted(conn.execute("SELECT key, value FROM fieldapp_meta").fetchall())
    return out


def schema_log(master: Path) -> list[tuple]:
    with contextlib.closing(st_connect(master)) as conn:
        return conn.execute("SELECT schema_version, from_version, after_seq FROM fieldapp_sync_schema").fetchall()


def integrity(path: Path) -> str:
    with contextlib.closing(st_connect(path)) as conn:
        return conn.execute("PRAGMA integrity_check").fetchone()[0]


def files_of(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` with its SHA-256 (to show nothing was written)."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def layer_counts(report) -> dict[str, tuple]:
    return {c.layer: (c.sent, c.received, c.merged, c.conflicts) for c in report.layers}


def build(root: Path) -> dict[str, Path]:
    """Seed synced, A, B, C checked out at schema 1; C's schema-1 edit synced (seq 2); A opened
    for recording (migrated to 2) with its edits; B's schema-1 edit made. Nothing else synced."""
    office = FolderOffice(root / "office", create=True)
    seed = root / "seed.gpkg"
    shutil.copyfile(V1, seed)
    assert sync(seed, office).office_seq == 1
    paths = {"office": root / "office", "seed": seed}
    for name in "abc":
        paths[name] = checkout(office, SITE, root / f"{name}.gpkg")
        assert version(paths[name]) == "1"
    # C, a schema-1 file edited in QGIS / sqlite3: tree 2 from 13.0 to 15.5 in
    sql(paths["c"], "UPDATE tree SET dbh_in = 15.5 WHERE uuid = ?", TREE[2])
    assert sync(paths["c"], office).office_seq == 2
    assert version(office.master_path(SITE)) == "1"
    # A opens for recording: the store migrates it to schema 2; the new fields are recorded
    with open_visit(paths["a"], who="a@laptop-a") as store:
        v = store.visit
        v.set_stipulated(T1)
        v.set_mapped_stream(CREEK, True)
        v.update_feature(Layer.TREE, TREE[1], dbh_in=20.0)
        v.update_feature(Layer.TREE, TREE[2], dbh_in=16.0)  # C set 15.5: a same-field conflict
    assert version(paths["a"]) == NEWS
    # B, still a schema-1 file: species of tree 3 set with sqlite3
    sql(paths["b"], "UPDATE tree SET species_code = 'QURU' WHERE uuid = ?", TREE[3])
    return paths


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    root = tmp_path_factory.mktemp("schema-tpl")
    build(root)
    return root


@pytest.fixture
def site(template, tmp_path):
    root = tmp_path / "site"
    shutil.copytree(template, root)
    paths = {"office": root / "office", "seed": root / "seed.gpkg"}
    paths.update({name: root / f"{name}.gpkg" for name in "abc"})
    return paths


# ---- the scenario end to end -------------------------------------------------------------------
def test_migrated_laptop_syncs_and_migrates_the_office(site):
    office = FolderOffice(site["office"])
    master = office.master_path(SITE)
    report = sync(site["a"], office)
    assert report.office_seq == 3
    assert report.schema_changes == (
        f"office master of site {SITE}: schema 1 -> {NEW} (changesets after seq 2 are at schema {NEW})",)
    # the office master is schema 2, with the columns of a new visit, and says where it changed
    assert version(master) == NEWS
    assert "stipulated" in columns(master, "transect")
    assert columns(master, "line_feature")[-2:] == ["mapped_stream", "tributary_stations"]  # schemas 2, 8
    assert schema_log(master) == [(NEW, 1, 2)]
    assert integrity(master) == "ok"
    validate_gpkg(master)       # left as the store leaves a migrated visit (Req 119 and all)
    # A sent T1.stipulated, Creek.mapped_stream, trees 1 and 2; it received C's tree 2 (seq 2);
    # tree 2: C set 15.5 (synced first), A 16.0 -> a same-field conflict, A's value kept
    # (the conflict record itself is not counted as sent: it is the office's bookkeeping)
    assert layer_counts(report) == {"transect": (1, 0, 0, 0), "line_feature": (1, 0, 0, 0),
                                    "tree": (2, 1, 0, 1)}
    (c,) = read_conflicts(master)
    assert (c.kind, c.feature_uuid, c.field, c.base, c.theirs, c.ours, c.kept) == (
        ConflictKind.SAME_FIELD, TREE[2], "dbh_in", 13.0, 15.5, 16.0, "ours")
    rows = by_uuid(master, "transect")
    assert rows[T1]["stipulated"] == 1
    lines = by_uuid(master, "line_feature")
    assert (lines[CREEK]["mapped_stream"], lines[S1]["mapped_stream"]) == (1, None)
    assert {u: r["dbh_in"] for u, r in by_uuid(master, "tree").items()} == {
        TREE[1]: 20.0, TREE[2]: 16.0, TREE[3]: 14.0}
    # A's base copy is the migrated master as of seq 3 (without the office's schema log)
    base = site["a"].with_name("a.gpkg.sync") / "base.gpkg"
    assert version(base) == NEWS and snapshot(base) == snapshot(master) == snapshot(site["a"])
    # a second sync of A has nothing to do
    again = sync(site["a"], office)
    assert again.no_op and again.schema_changes == () and again.office_seq == 3


def test_schema_1_laptop_behind_the_migration_point_pulls_migrates_and_sends(site):
    office = FolderOffice(site["office"])
    master = office.master_path(SITE)
    sync(site["a"], office)
    b = site["b"]
    assert version(b) == "1" and version(b.with_name("b.gpkg.sync") / "base.gpkg") == "1"
    report = sync(b, office)
    # B's base was at seq 1: seq 2 (schema 1, C's tree 2) was applied before the migration,
    # seq 3 (schema 2, A's) after it; B's species edit went out as seq 4 at schema 2
    assert report.office_seq == 4
    assert report.schema_changes == (f"visit b.gpkg: schema 1 -> {NEW}",)
    # received: T1, Creek, trees 1 and 2 (C's 15.5 then A's 16.0: one row change); the conflict
    # record on a line of its own, not in the layers' totals
    assert layer_counts(report) == {"transect": (0, 1, 0, 0), "line_feature": (0, 1, 0, 0),
                                    "tree": (1, 2, 0, 0)}
    assert (report.conflict_records.sent, report.conflict_records.received) == (0, 1)
    assert report.totals().received == 4
    assert version(b) == NEWS and columns(b, "transect") == columns(master, "transect")
    with open_visit(b, readonly=True) as store:
        v = store.visit
        assert v.get(Layer.TRANSECT, T1).stipulated is True
        assert v.get(Layer.LINE, CREEK).mapped_stream is True
        assert v.get(Layer.LINE, S1).mapped_stream is None
        assert {t.tag: (t.dbh_in, t.species_code) for t in v.trees()} == {
            1: (20.0, ""), 2: (16.0, ""), 3: (14.0, "QURU")}
    assert schema_log(master) == [(NEW, 1, 2)]  # migrated once
    # C (schema 1, base at seq 2 = the migration point) receives everything; A receives B's edit
    report_c = sync(site["c"], office)
    assert report_c.schema_changes == (f"visit c.gpkg: schema 1 -> {NEW}",) and report_c.office_seq == 4
    sync(site["a"], office)
    for name in "abc":
        assert snapshot(site[name]) == snapshot(master), name
        assert version(site[name].with_name(f"{name}.gpkg.sync") / "base.gpkg") == NEWS
    for p in (master, site["a"], site["b"], site["c"]):
        assert integrity(p) == "ok"


def test_checkout_of_a_migrated_master_is_a_schema_2_visit_without_the_office_log(site, tmp_path):
    office = FolderOffice(site["office"])
    sync(site["a"], office)
    d = checkout(office, SITE, tmp_path / "d.gpkg")
    assert version(d) == NEWS
    with contextlib.closing(st_connect(d)) as conn:
        assert conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'fieldapp_sync_schema'").fetchone() == (0,)
    with open_visit(d, readonly=True) as store:
        assert store.visit.get(Layer.TRANSECT, T1).stipulated is True
    assert sync(d, office).no_op


def test_a_migrated_laptop_with_nothing_to_send_still_migrates_the_office(tmp_path):
    office = FolderOffice(tmp_path / "office", create=True)
    seed = tmp_path / "seed.gpkg"
    shutil.copyfile(V1, seed)
    sync(seed, office)
    a = checkout(office, SITE, tmp_path / "a.gpkg")
    open_visit(a).close()  # opened for recording: migrated, nothing recorded
    report = sync(a, office)
    assert report.no_op and report.office_seq == 1
    assert report.schema_changes == (
        f"office master of site {SITE}: schema 1 -> {NEW} (changesets after seq 1 are at schema {NEW})",)
    master = office.master_path(SITE)
    assert version(master) == NEWS and schema_log(master) == [(NEW, 1, 1)]
    assert version(a.with_name("a.gpkg.sync") / "base.gpkg") == NEWS
    # the seed (schema 1, base at the migration point, no edits) has nothing to receive: untouched
    before = files_of(tmp_path / "seed.gpkg.sync"), hashlib.sha256(seed.read_bytes()).hexdigest()
    assert sync(seed, office).no_op
    assert version(seed) == "1"
    assert hashlib.sha256(seed.read_bytes()).hexdigest() == before[1]


# ---- an older fieldapp against a newer office --------------------------------------------------
@pytest.fixture
def old_fieldapp(monkeypatch):
    """This process becomes a fieldapp that knows store schema 1 only."""
    monkeypatch.setattr(store_schema, "SCHEMA_VERSION", 1)
    monkeypatch.setattr(fieldapp.store, "SCHEMA_VERSION", 1)


def test_old_fieldapp_sync_against_a_migrated_office_is_refused_untouched(site, monkeypatch):
    office = FolderOffice(site["office"])
    sync(site["a"], office)
    root = site["office"].parent
    before = files_of(root)
    monkeypatch.setattr(store_schema, "SCHEMA_VERSION", 1)
    monkeypatch.setattr(fieldapp.store, "SCHEMA_VERSION", 1)
    for name in "bc":  # B with an edit, C without: both schema-1 files an old fieldapp reads
        with pytest.raises(NewerSchema) as info:
            sync(site[name], office)
        message = str(info.value)
        assert message.startswith(f"this office site was written by a newer fieldapp (schema {NEW});"
                                  " update fieldapp on this laptop")
        assert "row" not in message and "correct" not in message
    assert files_of(root) == before  # nothing written anywhere: visits, .sync folders, office


def test_old_fieldapp_checkout_of_a_migrated_office_is_refused_untouched(site, old_fieldapp, tmp_path):
    office = FolderOffice(site["office"])
    # the office was migrated by a newer fieldapp (here: the master is made schema 2 directly)
    schemas.migrate_file(office.master_path(SITE), NEW)
    before = files_of(site["office"])
    new = tmp_path / "old.gpkg"
    with pytest.raises(NewerSchema, match=r"^this office site was written by a newer fieldapp"
                                          rf" \(schema {NEW}\); update fieldapp on this laptop"):
        checkout(office, SITE, new)
    assert not new.exists() and not new.with_name("old.gpkg.sync").exists()
    assert files_of(site["office"]) == before


CHILD = """
import sys
import fieldapp.store, fieldapp.store.schema
fieldapp.store.schema.SCHEMA_VERSION = 1   # an older fieldapp
fieldapp.store.SCHEMA_VERSION = 1
from fieldapp.sync.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_old_fieldapp_command_line_says_update_fieldapp(site, tmp_path):
    sync(site["a"], FolderOffice(site["office"]))
    root = site["office"].parent
    before = files_of(root)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    for args in (["--office", str(site["office"]), "-q", str(site["b"])],
                 ["--office", str(site["office"]), "--checkout", SITE, str(tmp_path / "new.gpkg")]):
        done = subprocess.run([sys.executable, "-c", CHILD, *args], env=env, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 1, done.stderr
        (line,) = done.stderr.splitlines()
        assert line.startswith("fieldapp sync: this office site was written by a newer fieldapp"
                               f" (schema {NEW}); update fieldapp on this laptop"), line
        assert done.stdout == ""
    assert files_of(root) == before and not (tmp_path / "new.gpkg").exists()


def test_a_base_copy_newer_than_this_fieldapp_is_refused(site, old_fieldapp):
    # the laptop ran a newer fieldapp, synced (base at schema 2), then fieldapp was downgraded
    base = site["c"].with_name("c.gpkg.sync") / "base.gpkg"
    schemas.migrate_file(base, NEW)
    before = files_of(site["office"].parent)
    with pytest.raises(NewerSchema, match=rf"this laptop's copy of site .* \(schema {NEW}\); update fieldapp"):
        sync(site["c"], FolderOffice(site["office"]))
    assert files_of(site["office"].parent) == before


# ---- the office's schema log is validated ------------------------------------------------------
def test_a_tampered_schema_log_is_refused(site):
    office = FolderOffice(site["office"])
    sync(site["a"], office)
    master = office.master_path(SITE)
    sql(master, "UPDATE fieldapp_sync_schema SET after_seq = 99")  # beyond the head (seq 3)
    with pytest.raises(InvalidOfficeData, match="schema log of site .* is not valid"):
        sync(site["b"], office)


def test_a_master_whose_columns_disagree_is_not_migrated(site):
    # the office master lost a column behind fieldapp's back (QGIS): A's migration of it would
    # not give A's columns, so the master is left as it was and nothing is sent
    office = FolderOffice(site["office"])
    master = office.master_path(SITE)
    sql(master, "ALTER TABLE tree DROP COLUMN notes")
    before = files_of(site["office"])
    with pytest.raises(SchemaMismatch, match=r"does not have the columns of this laptop's copy \(tables \['tree'\]\)"):
        sync(site["a"], office)
    assert files_of(site["office"]) == before


def test_schema_steps_come_from_the_store():
    assert schemas.statements(1, NEW) == store_schema.migration_sql(1)
    assert schemas.statements(NEW, NEW) == [] and schemas.statements(1, 1) == []
    log = [schemas.SchemaChange(2, 1, 5, "t", "l")]
    # changesets 1-5 were written before the change (None: the site's first schema), 6- at 2
    assert [schemas.version_at(log, s) for s in (1, 5, 6, 9)] == [None, None, 2, 2]


# ---- kill the migrating syncs at every step ----------------------------------------------------
KILL_CHILD = """
import os, signal, sys
from pathlib import Path
from fieldapp.sync import FolderOffice, sync
root, name, kill_at, nth = Path(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
seen = []
def progress(fraction, message):
    seen.append(message)
    if seen.count(kill_at) == nth:
        os.kill(os.getpid(), getattr(signal, "SIGKILL", 9))  # Windows: TerminateProcess, exit 9
sync(root / f"{name}.gpkg", FolderOffice(root / "office"), progress=progress)
print("STEPS", *seen, sep="\\n")
"""

#: the exit status of the killed child: -SIGKILL on POSIX; on Windows os.kill(pid, 9) is
#: TerminateProcess with exit code 9
KILLED = -signal.SIGKILL if hasattr(signal, "SIGKILL") else 9


def run_kill_child(root: Path, name: str, kill_at: str = "", nth: int = 1) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-c", KILL_CHILD, str(root), name, kill_at, str(nth)],
                          env=env, capture_output=True, text=True, timeout=120)


def office_state(root: Path) -> dict:
    master = FolderOffice(root / "office").master_path(SITE)
    conflicts = sorted(json.dumps([c.layer, c.feature_uuid, c.field, c.kind.value, c.base, c.theirs, c.ours, c.kept])
                       for c in read_conflicts(master))
    return {"features": {t: by_uuid(master, t) for t in FEATURES}, "conflicts": conflicts,
            "schema_log": schema_log(master), "version": version(master)}


@pytest.fixture(scope="module")
def kill_templates(template, tmp_path_factory):
    """("a": A's office-migrating sync, "b": B's pull-and-migrate sync after it): the folder
    to start from, the office state an uninterrupted run gives, and its progress messages."""
    out = {}
    start = template
    for name in "ab":
        ref = tmp_path_factory.mktemp(f"schema-ref-{name}")
        shutil.copytree(start, ref, dirs_exist_ok=True)
        done = run_kill_child(ref, name)
        assert done.returncode == 0, done.stderr
        out[name] = (start, office_state(ref), done.stdout.split("STEPS\n")[1].splitlines())
        start = ref
    return out


def _kill_trial(kill_templates, name, kill_at, nth, tmp_path):
    start, reference, steps = kill_templates[name]
    assert steps.count(kill_at) >= nth and steps[-1] == "done"  # the step exists (and is not the last)
    root = tmp_path / "k"
    shutil.copytree(start, root)
    done = run_kill_child(root, name, kill_at, nth)
    assert done.returncode == KILLED, done.stderr
    office = FolderOffice(root / "office")
    master = office.master_path(SITE)
    sync_dir = root / f"{name}.gpkg.sync"
    for f in (master, root / f"{name}.gpkg", sync_dir / "base.gpkg", *(sync_dir / "pending").glob("*.gpkg")):
        if f.exists():
            assert integrity(f) == "ok", f
    sync(root / f"{name}.gpkg", office, lock_wait_s=30)  # completes what was interrupted
    assert office_state(root) == reference  # migrated once, every edit once, same conflicts
    with contextlib.closing(st_connect(master)) as conn:
        seqs = [s for (s,) in conn.execute(f"SELECT seq FROM {LOG_TABLE} ORDER BY seq")]
    assert seqs == list(range(1, len(seqs) + 1))
    for other in "abc":
        sync(root / f"{other}.gpkg", office)
    sync(root / "a.gpkg", office)
    for other in "abc":
        assert snapshot(root / f"{other}.gpkg") == snapshot(master), other
        assert version(root / f"{other}.gpkg") == NEWS


# A's sync: the pull of C's schema-1 change, the commit point, the three steps of the office's
# migration (copied, migrated and checked, replaced), the office's apply, the visit's update
# and the base copy (the end of the sync checks nothing again: the visit hashes as vouched).
@pytest.mark.parametrize("kill_at,nth", [
    ("applying office change 2", 1), ("checking the office's changes merged with this laptop's", 1),
    ("sending the changeset to the office", 1), (f"office: migrating the master to store schema {NEW}", 1),
    ("office: master copied for the schema change", 1), ("office: master migrated in a copy", 1),
    ("office: master replaced", 1), ("office: master copied", 1),
    ("office: changeset stored in history", 1), ("office: master replaced", 2), ("office updated", 1),
    ("updating the visit", 1), ("saving the new base copy", 1),
])
def test_kill_the_office_migrating_sync_at_each_step(kill_templates, tmp_path, kill_at, nth):
    _kill_trial(kill_templates, "a", kill_at, nth, tmp_path)


# B's sync: the pulls before and after the migration point, the office write, the visit's
# migration (before it, and after it before the update), the base copy (no end-of-sync check,
# as for A's).
@pytest.mark.parametrize("kill_at", [
    "applying office change 2", "applying office change 3", "sending the changeset to the office",
    "office: master replaced", "office updated", f"migrating the visit to store schema {NEW}",
    "updating the visit", "saving the new base copy",
])
def test_kill_the_pull_and_migrate_sync(kill_templates, tmp_path, kill_at):
    _kill_trial(kill_templates, "b", kill_at, 1, tmp_path)


def test_visit_opened_for_recording_after_an_interrupted_sync(site):
    # C (schema 1, office schema 1 at seq 2) sends an edit and is killed once the office has it;
    # the crew then opens C for recording (the store migrates it to 2) and records the new field
    office = FolderOffice(site["office"])
    c = site["c"]
    sql(c, "UPDATE tree SET dbh_in = 17.0 WHERE uuid = ?", TREE[3])
    done = run_kill_child(c.parent, "c", "office updated")
    assert done.returncode == KILLED, done.stderr
    assert (c.with_name("c.gpkg.sync") / "pending" / "pending.json").exists()
    with open_visit(c, who="c@laptop-c") as store:
        store.visit.set_mapped_stream(CREEK, False)
    assert version(c) == NEWS
    report = sync(c, office)
    # the interrupted sync (seq 3, schema 1) is finished on migrated scratch copies; then C's
    # schema-2 edit migrates the office at seq 3 and goes out as seq 4
    assert len(report.resumed) == 1 and report.office_seq == 4
    master = office.master_path(SITE)
    assert schema_log(master) == [(NEW, 1, 3)]
    assert by_uuid(master, "tree")[TREE[3]]["dbh_in"] == 17.0
    assert by_uuid(master, "line_feature")[CREEK]["mapped_stream"] == 0
    assert snapshot(c) == snapshot(master)
    # A (migrated, base at seq 1) pulls seqs 2-3 at schema 1 and seq 4 at schema 2, then sends;
    # Creek: C set False (synced first), A True -> a conflict on the schema-2 column, A's kept
    report_a = sync(site["a"], office)
    assert report_a.office_seq == 5 and report_a.schema_changes == ()
    creek = [k for k in read_conflicts(master) if k.feature_uuid == CREEK]
    assert [(k.field, k.base, k.theirs, k.ours, k.kept) for k in creek] == [
        ("mapped_stream", None, 0, 1, "ours")]
    sync(c, office)
    assert snapshot(site["a"]) == snapshot(c) == snapshot(master)
