"""The folder office's fast-forward (issue 18 item 5): a master that holds, page for page, the
copy the laptop's changeset was made against takes the laptop's result as its new master instead
of replaying every row; any other master gets the changeset applied, as before.

Which path a sync took is read from its progress steps (the office reports each sub-step).
SQLite writes pages deterministically, so a laptop that pulled another laptop's changeset onto a
base that was the master's pages often holds the master's pages again, and fast-forwards too.
"""

from __future__ import annotations

import contextlib
import shutil
import uuid
from pathlib import Path

import pytest

from fieldapp.sync import FolderOffice, checkout, engine, sync
from fieldapp.sync import changesets as cs
from fieldapp.sync.files import LOG_TABLE, page_fingerprint, record_changeset_file, sha256_of, snapshot_sqlite
from fieldapp.sync.laptop import LaptopState
from fieldapp.sync.officestore import FastForward, LogEntry, utc_now_iso
from tests.sync import sync_sample as S
from tests.sync.sync_site import basics_only

TAKEN = "office: the master is this laptop's base copy: its result taken"
APPLIED = "office: master copied"


@pytest.fixture(autouse=True)
def generic(monkeypatch):
    monkeypatch.setattr(engine, "check_visit_file", basics_only)
    monkeypatch.setattr(engine, "check_received", lambda gpkg: None)


def syncing(visit: Path, office: FolderOffice) -> tuple[object, list[str]]:
    steps: list[str] = []
    report = sync(visit, office, progress=lambda _f, message: steps.append(message))
    return report, steps


def path_taken(steps: list[str]) -> str:
    taken, applied = TAKEN in steps, APPLIED in steps
    assert taken != applied, steps  # exactly one of the two
    return "fast-forward" if taken else "applied"


def layer(report, name: str):
    (counts,) = [c for c in report.layers if c.layer == name]
    return counts


def base_of(visit: Path) -> Path:
    return visit.with_name(visit.name + ".sync") / "base.gpkg"


def test_first_sync_takes_the_laptops_copy_as_the_master(tmp_path):
    office = FolderOffice(tmp_path / "office", create=True)
    a = S.make_visit(tmp_path / "a.gpkg", trees=5, transects=2)
    report, steps = syncing(a, office)
    assert path_taken(steps) == "fast-forward"
    assert report.office_seq == 1 and layer(report, "tree").sent == 5
    master = office.master_path("site-a")
    # the master is the laptop's base copy, page for page, and holds every row of the visit
    assert page_fingerprint(master) == page_fingerprint(base_of(a))
    for table in ("tree", "transect", "station"):
        assert S.by_uuid(master, table) == S.by_uuid(a, table)
    assert S.integrity(master) == "ok"
    with contextlib.closing(S.connect(master)) as conn:  # the spatial index holds every tree
        assert conn.execute("SELECT id, minx, miny FROM rtree_tree_geom ORDER BY id").fetchall() == \
            [(i + 1, 500000.0 + i, 4800000.0 + i) for i in range(5)]
        (sha, size), = conn.execute(f"SELECT sha256, size_bytes FROM {LOG_TABLE} WHERE seq = 1")
    history, = (office.site_dir("site-a") / "history").glob("00000001-*.geodiff")
    assert (sha, size) == (sha256_of(history), history.stat().st_size)  # still stored in the log


def test_one_laptop_syncing_again_fast_forwards_again(tmp_path):
    office = FolderOffice(tmp_path / "office", create=True)
    a = S.make_visit(tmp_path / "a.gpkg", trees=3)
    sync(a, office)
    with contextlib.closing(S.connect(a)) as conn, conn:
        new = S.add_tree(conn, 500200.0, 4800200.0, 31.5, "PIST")
        conn.execute("UPDATE tree SET dbh_in = 12.5 WHERE fid = 1")
        conn.execute("DELETE FROM tree WHERE fid = 2")
    report, steps = syncing(a, office)
    assert path_taken(steps) == "fast-forward"
    assert layer(report, "tree").sent == 3
    trees = S.by_uuid(office.master_path("site-a"), "tree")
    assert trees == S.by_uuid(a, "tree") and new in trees and len(trees) == 3
    assert sorted(t["dbh_in"] for t in trees.values()) == [12.0, 12.5, 31.5]  # fid 3 kept its 12.0


def test_a_master_another_laptop_moved_on_gets_the_changeset_applied_and_merges(tmp_path):
    office = FolderOffice(tmp_path / "office", create=True)
    a = S.make_visit(tmp_path / "a.gpkg", trees=3)
    sync(a, office)
    b = checkout(office, "site-a", tmp_path / "b.gpkg")
    with contextlib.closing(S.connect(a)) as conn, conn:
        from_a = S.add_tree(conn, 500300.0, 4800300.0, 8.0, "BEPA")
        mistake = S.add_tree(conn, 500301.0, 4800301.0, 80.0, "BEPA")
    with contextlib.closing(S.connect(a)) as conn, conn:  # deleted again: A's file is not the
        conn.execute("DELETE FROM tree WHERE uuid = ?", (mistake,))  # master plus its changeset
    _, steps = syncing(a, office)
    assert path_taken(steps) == "fast-forward"  # A's base is still the master
    with contextlib.closing(S.connect(b)) as conn, conn:
        from_b = S.add_tree(conn, 500400.0, 4800400.0, 9.0, "TIAM")  # collides with A's fid 4
        conn.execute("UPDATE tree SET species_code = 'ACRU' WHERE fid = 1")
    report, steps = syncing(b, office)
    # B's copy of the master is its base + A's changeset; the master is A's file (whose pages
    # differ: the tree A deleted left its trace), so the changeset is applied
    assert path_taken(steps) == "applied"
    assert layer(report, "tree").received == 1
    master = office.master_path("site-a")
    trees = S.by_uuid(master, "tree")
    assert {from_a, from_b} <= set(trees) and len(trees) == 5
    assert sorted(t["species_code"] for t in trees.values()) == ["ACRU", "ACSA", "ACSA", "BEPA", "TIAM"]
    # the next sync of A (which must pull B's change) applies as well, and everyone agrees
    with contextlib.closing(S.connect(a)) as conn, conn:
        conn.execute("UPDATE tree SET dbh_in = 40.0 WHERE uuid = ?", (from_a,))
    _, steps = syncing(a, office)
    path_taken(steps)  # either: A's base + B's changeset may well be the master page for page
    sync(b, office)
    assert S.by_uuid(a, "tree") == S.by_uuid(b, "tree") == S.by_uuid(master, "tree")
    assert S.by_uuid(master, "tree")[from_a]["dbh_in"] == 40.0
    assert S.integrity(master) == "ok"


def test_a_direct_edit_of_the_master_is_kept(tmp_path):
    office = FolderOffice(tmp_path / "office", create=True)
    a = S.make_visit(tmp_path / "a.gpkg", trees=3)
    sync(a, office)
    master = office.master_path("site-a")
    with contextlib.closing(S.connect(master)) as conn, conn:  # QGIS (rollback journal) saves
        conn.execute("UPDATE tree SET species_code = 'QUMA' WHERE fid = 2")
    with contextlib.closing(S.connect(a)) as conn, conn:
        new = S.add_tree(conn, 500500.0, 4800500.0, 11.0, "QUAL")
    _, steps = syncing(a, office)
    assert path_taken(steps) == "applied"
    trees = S.by_uuid(master, "tree")
    assert new in trees and sorted(t["species_code"] for t in trees.values()) == ["ACSA", "ACSA", "QUAL", "QUMA"]


def _prepared(office: FolderOffice, work: Path) -> tuple[Path, Path, Path, LogEntry]:
    """What a laptop at the office's head would offer: its copy of the master (``m0``, page for
    page the master), that copy with one new tree and the log row (``m1``), and the changeset."""
    work.mkdir()
    m0, m1, changeset = work / "m0.gpkg", work / "m1.gpkg", work / "out.geodiff"
    snapshot_sqlite(office.master_path("site-a"), m0)
    shutil.copyfile(m0, m1)
    cid = uuid.uuid4().hex
    with contextlib.closing(S.connect(m1)) as conn, conn:
        S.add_tree(conn, 500600.0, 4800600.0, 17.0, "ULAM")
        conn.execute(f"INSERT INTO {LOG_TABLE} (seq, changeset_id, laptop_id, applied_utc) VALUES (2, ?, 'l', ?)",
                     (cid, utc_now_iso()))
    cs.new_geodiff().create_changeset(str(m0), str(m1), str(changeset))
    entry = LogEntry(2, cid, "l", None, utc_now_iso(), sha256_of(changeset), changeset.stat().st_size)
    with contextlib.closing(S.connect(m1)) as conn, conn:
        record_changeset_file(conn, 2, entry.sha256, entry.size_bytes)
    return m0, m1, changeset, entry


def _spoil_missing_row(m1: Path) -> None:
    with contextlib.closing(S.connect(m1)) as conn, conn:
        conn.execute("DELETE FROM tree WHERE fid = 1")


def _spoil_log_record(m1: Path) -> None:
    with contextlib.closing(S.connect(m1)) as conn, conn:
        conn.execute(f"UPDATE {LOG_TABLE} SET size_bytes = 1 WHERE seq = 2")


def _spoil_base(m0: Path) -> None:
    with contextlib.closing(S.connect(m0)) as conn, conn:
        conn.execute("UPDATE tree SET dbh_in = 1.0 WHERE fid = 3")


@pytest.mark.parametrize("spoil, expected", [
    (None, "fast-forward"),
    ("result lacks a row", "applied"),
    ("result's log row does not record the changeset", "applied"),
    ("laptop's copy is not the master", "applied"),
])
def test_office_takes_the_result_only_when_it_is_the_master_with_the_changeset(tmp_path, spoil, expected):
    office = FolderOffice(tmp_path / "office", create=True)
    a = S.make_visit(tmp_path / "a.gpkg", trees=3)
    sync(a, office)
    m0, m1, changeset, entry = _prepared(office, tmp_path / "w")
    expect_trees = S.by_uuid(m1, "tree")
    if spoil == "result lacks a row":
        _spoil_missing_row(m1)
    elif spoil == "result's log row does not record the changeset":
        _spoil_log_record(m1)
    elif spoil == "laptop's copy is not the master":
        _spoil_base(m0)
    steps: list[str] = []
    office.apply("site-a", changeset, entry, step=steps.append, fast_forward=FastForward(m0, m1))
    assert path_taken(steps) == expected
    master = office.master_path("site-a")
    assert S.by_uuid(master, "tree") == expect_trees  # 4 trees whichever path: nothing lost
    with contextlib.closing(S.connect(master)) as conn:
        assert conn.execute(f"SELECT sha256, size_bytes FROM {LOG_TABLE} WHERE seq = 2").fetchone() \
            == (entry.sha256, entry.size_bytes)
    assert S.integrity(master) == "ok"


def test_a_sync_killed_just_after_moving_its_base_copy_finishes_at_the_next(tmp_path, monkeypatch):
    # the finalize moves pending/new_master.gpkg to base.gpkg, then removes pending/: a sync
    # dying between the two leaves pending.json without its master; the next one finishes it
    office = FolderOffice(tmp_path / "office", create=True)
    a = S.make_visit(tmp_path / "a.gpkg", trees=3)
    sync(a, office)
    with contextlib.closing(S.connect(a)) as conn, conn:
        new = S.add_tree(conn, 500700.0, 4800700.0, 21.0, "FRAM")
    real = LaptopState.drop_pending

    def die_after_the_move(state):
        if state.pending_json.exists() and not state.pending_master.exists():
            raise KeyboardInterrupt("killed")
        real(state)

    monkeypatch.setattr(LaptopState, "drop_pending", die_after_the_move)
    with pytest.raises(KeyboardInterrupt):
        sync(a, office)
    monkeypatch.setattr(LaptopState, "drop_pending", real)
    state = LaptopState(a)
    assert state.pending_json.exists() and not state.pending_master.exists()
    report = sync(a, office)
    assert len(report.resumed) == 1  # the interrupted sync's changeset, finished
    assert report.no_op and report.office_seq == 2 and not state.pending_dir.exists()
    master = office.master_path("site-a")
    assert new in S.by_uuid(master, "tree") and S.by_uuid(a, "tree") == S.by_uuid(master, "tree")
    with contextlib.closing(S.connect(master)) as conn:
        assert [s for (s,) in conn.execute(f"SELECT seq FROM {LOG_TABLE} ORDER BY seq")] == [1, 2]
    log_rows = ("seq, changeset_id", "seq")
    assert S.rows(base_of(a), LOG_TABLE, *log_rows) == S.rows(master, LOG_TABLE, *log_rows)
