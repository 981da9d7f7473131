"""A folder office whose master someone has open in QGIS (issue 17, items 7-8): the master is
read and written through SQLite (backup API) under the office lock, never swapped from under an
open reader; stale temp files are cleaned without following links; a refused sync leaves no
scratch copies on the laptop; a damaged master is refused before the laptop writes anything.

QGIS is played by a plain sqlite3 connection that switches the master to WAL mode, commits an
edit without checkpointing and stays open, as QGIS does while a layer is in edit mode.
"""

from __future__ import annotations

import contextlib
import hashlib
import sqlite3
from pathlib import Path

import pytest

from fieldapp.sync import FolderOffice, InvalidOfficeData, checkout, engine, sync
from tests.links import symlink_or_skip
from tests.sync import sync_sample as S
from tests.sync.sync_site import basics_only


@pytest.fixture(autouse=True)
def generic(monkeypatch):
    monkeypatch.setattr(engine, "check_visit_file", basics_only)
    monkeypatch.setattr(engine, "check_received", lambda gpkg: None)


@pytest.fixture
def office_a(tmp_path):
    office = FolderOffice(tmp_path / "office", create=True)
    a = S.make_visit(tmp_path / "a.gpkg", trees=3)
    sync(a, office)
    return office, a


def qgis_opens(master: Path) -> sqlite3.Connection:
    """A QGIS-like editor: WAL mode, R-tree trigger functions, stays open."""
    conn = S.connect(master)
    assert conn.execute("PRAGMA journal_mode=WAL").fetchone()[0] == "wal"
    conn.execute("PRAGMA wal_autocheckpoint=0")  # nothing folded into the .gpkg behind our back
    return conn


def test_master_open_in_qgis_in_wal_mode_keeps_both_edits(office_a, tmp_path):
    office, a = office_a
    master = office.master_path("site-a")
    qgis = qgis_opens(master)
    try:
        with qgis:  # the office edits tree fid 2 in QGIS and saves: committed, not checkpointed
            qgis.execute("UPDATE tree SET species_code = 'QUMA' WHERE fid = 2")
        assert Path(f"{master}-wal").stat().st_size > 0
        with contextlib.closing(S.connect(a)) as conn, conn:  # the laptop adds a tree
            new = S.add_tree(conn, 500100.0, 4800100.0, 14.0, "QUAL")
        report = sync(a, office)
        assert report.office_seq == 2
        # both edits are in the master, read through QGIS's still-open connection too
        assert qgis.execute("SELECT species_code FROM tree WHERE fid = 2").fetchone() == ("QUMA",)
        assert qgis.execute("SELECT count(*) FROM tree WHERE uuid = ?", (new,)).fetchone() == (1,)
        assert qgis.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        with qgis:  # and QGIS can go on editing the same file
            qgis.execute("UPDATE tree SET status = 'dead' WHERE fid = 1")
    finally:
        qgis.close()
    assert S.integrity(master) == "ok"
    trees = S.by_uuid(master, "tree")
    assert len(trees) == 4 and new in trees
    assert sorted(t["species_code"] for t in trees.values()) == ["ACSA", "ACSA", "QUAL", "QUMA"]
    # the next checkout works and has every edit
    b = checkout(office, "site-a", tmp_path / "b.gpkg")
    assert S.by_uuid(b, "tree") == trees and S.integrity(b) == "ok"


def test_master_qgis_is_writing_is_refused_before_anything_is_written(office_a):
    office, a = office_a
    master = office.master_path("site-a")
    qgis = qgis_opens(master)
    try:
        qgis.execute("BEGIN IMMEDIATE")  # QGIS in the middle of saving: holds the write lock
        qgis.execute("UPDATE tree SET status = 'dead' WHERE fid = 1")
        with contextlib.closing(S.connect(a)) as conn, conn:
            S.add_tree(conn, 1.0, 2.0, 3.0, "X")
        before = _tree(a.parent)
        with pytest.raises(InvalidOfficeData, match="another program"):
            sync(a, office, lock_wait_s=1)
        assert office.head("site-a") == 1
        assert _tree(a.parent) == before
        qgis.execute("COMMIT")
    finally:
        qgis.close()
    assert sync(a, office).office_seq == 2  # once QGIS has saved, the sync goes through


def _tree(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` (the laptop's visit and its .sync) with its SHA-256."""
    out = {}
    for p in sorted(folder.rglob("*")):
        if p.is_file() and "office" not in p.relative_to(folder).parts:
            out[str(p.relative_to(folder))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def test_damaged_master_is_refused_before_the_laptop_writes(office_a):
    office, a = office_a
    master = office.master_path("site-a")
    with contextlib.closing(S.connect(a)) as conn, conn:
        S.add_tree(conn, 1.0, 2.0, 3.0, "X")
    with contextlib.closing(sqlite3.connect(master)) as conn:  # the tree table's page
        (root,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'tree'").fetchone()
        (page_size,) = conn.execute("PRAGMA page_size").fetchone()
    with open(master, "r+b") as fh:  # a damaged sector: the whole page is garbage
        fh.seek((root - 1) * page_size)
        fh.write(b"\x5a" * page_size)
    before = _tree(a.parent)
    with pytest.raises(InvalidOfficeData, match="damaged"):
        sync(a, office)
    assert _tree(a.parent) == before  # nothing written on the laptop: no state, no scratch copies


def test_refused_sync_leaves_no_scratch_copies(office_a, monkeypatch):
    office, a = office_a
    with contextlib.closing(S.connect(a)) as conn, conn:
        S.add_tree(conn, 1.0, 2.0, 3.0, "X")

    def refuse(*args, **kwargs):
        raise InvalidOfficeData("refused for the test")

    monkeypatch.setattr(office, "apply", refuse)
    with pytest.raises(InvalidOfficeData):
        sync(a, office)
    work = a.parent / "a.gpkg.sync" / "work"
    assert not work.exists() or list(work.iterdir()) == []


def test_stale_temp_cleaning_never_follows_a_link_out_of_the_office(office_a, tmp_path):
    office, a = office_a
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    keep = elsewhere / ".tmp-precious.gpkg"
    keep.write_text("not the office's")
    history = office.site_dir("site-a") / "history"
    moved = tmp_path / "history-real"
    history.rename(moved)
    symlink_or_skip(elsewhere, history, target_is_directory=True)
    with contextlib.closing(S.connect(a)) as conn, conn:
        S.add_tree(conn, 1.0, 2.0, 3.0, "X")
    with pytest.raises(InvalidOfficeData, match="symbolic link"):
        sync(a, office)
    assert keep.read_text() == "not the office's"
