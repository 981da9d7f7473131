"""The sync's visit check runs SQLite's ``quick_check`` on the visit once (issue 33, goal 3: a
day's sync). It ran three times in a row (the basics, the store's inspect, the store's full
read), 0.1 s each for a day's visit; the one left still refuses a visit whose damage the full
read would not meet (an index page no row read goes through)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from fieldapp.sync import FolderOffice, VisitRefused, sync
from fieldapp.sync.visitcheck import check_visit_file
from tests.sync.test_sync_visit_check import make_visit, sha


@pytest.fixture
def statements(monkeypatch):
    """Every SQL statement run on any connection opened from here on."""
    run: list[str] = []
    real = sqlite3.connect

    def tracing(*args, **kwargs):
        conn = real(*args, **kwargs)
        conn.set_trace_callback(run.append)
        return conn

    monkeypatch.setattr(sqlite3, "connect", tracing)
    return run


def test_the_visit_check_runs_quick_check_once_and_still_reads_every_row(tmp_path, statements):
    visit = make_visit(tmp_path / "visit.gpkg")
    statements.clear()
    assert check_visit_file(visit) == sha(visit)     # the full read made: its hash is vouched for
    assert sum("quick_check" in s for s in statements) == 1
    assert any("FROM tree" in s or 'FROM "tree"' in s for s in statements)    # the full read


def _damage_an_index(visit: Path) -> None:
    """Overwrite the page header of the tree table's uuid index: reading the trees by fid does
    not go through it, SQLite's quick_check finds it."""
    with sqlite3.connect(visit) as conn:
        (root,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE type = 'index'"
                               " AND tbl_name = 'tree' AND name LIKE 'sqlite_autoindex%'").fetchone()
        size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    with open(visit, "r+b") as fh:
        fh.seek((root - 1) * size)
        fh.write(b"\x55" * 64)


def test_a_visit_damaged_where_no_row_is_read_is_still_refused(tmp_path):
    from fieldapp.store import open_visit

    visit = make_visit(tmp_path / "visit.gpkg")
    _damage_an_index(visit)
    open_visit(visit, readonly=True, quick_check=False).close()    # the rows themselves read
    before = sha(visit)
    office = FolderOffice(tmp_path / "office", create=True)
    with pytest.raises(VisitRefused, match="is damaged: quick_check says .*Page"):
        sync(visit, office)
    assert sha(visit) == before
