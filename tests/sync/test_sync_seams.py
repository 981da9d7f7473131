"""The seams the sync was cut along (issue 12): the run's outcome, the shared log-row and
changeset helpers, the one "no such site" refusal, the office interface's own module."""

from __future__ import annotations

import contextlib

import pytest

import fieldapp.sync.engine as engine
from fieldapp.sync import changesets as cs
from fieldapp.sync import office, officestore
from fieldapp.sync.errors import InvalidOfficeData
from fieldapp.sync.files import LOG_DDL, LOG_TABLE, log_head_in, record_changeset_file
from fieldapp.sync.preflight import _no_such_site
from fieldapp.sync.results import LayerCounts, SyncOutcome
from tests.gpkgtools import st_connect

ZERO = {"sent": 0, "received": 0, "merged": 0, "conflicts": 0}


def test_outcome_layers_drop_the_log_table_and_all_zero_rows_sorted_by_name():
    outcome = SyncOutcome("a" * 32, 7, {
        "tree": {**ZERO, "sent": 2, "conflicts": 1},
        LOG_TABLE: {**ZERO, "sent": 1},
        "station": dict(ZERO),
        "boundary": {**ZERO, "received": 3, "merged": 1},
    })
    assert outcome.layers() == (LayerCounts("boundary", 0, 3, 1, 0), LayerCounts("tree", 2, 0, 0, 1))
    assert SyncOutcome(None, 0, no_op=True).layers() == ()


def test_log_head_and_changeset_file_recorded_in_the_log_row():
    with contextlib.closing(st_connect(":memory:")) as conn:
        conn.execute(LOG_DDL)
        assert log_head_in(conn) == 0
        for seq in (1, 2):
            conn.execute(f"INSERT INTO {LOG_TABLE} (seq, changeset_id, laptop_id, applied_utc)"
                         " VALUES (?, ?, 'L', '2026-12-01T09:00:00.000Z')", (seq, f"{seq:032x}"))
        record_changeset_file(conn, 2, "f" * 64, 1234)
        assert log_head_in(conn) == 2
        rows = conn.execute(f"SELECT seq, sha256, size_bytes FROM {LOG_TABLE} ORDER BY seq").fetchall()
    assert rows == [(1, None, None), (2, "f" * 64, 1234)]


def test_check_changeset_refuses_an_unreadable_file_naming_it(tmp_path):
    junk = tmp_path / "junk.geodiff"
    junk.write_bytes(b"not a changeset")
    with pytest.raises(InvalidOfficeData, match=r"^office changeset seq 3 \(x\) cannot be read: "):
        cs.check_changeset(cs.new_geodiff(), junk, {}, tmp_path, expected_id="0" * 32,
                           what="office changeset seq 3 (x)")


def test_no_such_site_refusal_is_one_message():
    class Office:
        def describe(self):
            return "office folder /media/usb/office"

    exc = _no_such_site(Office(), "mill-creek", 4)
    assert isinstance(exc, InvalidOfficeData)
    assert str(exc) == ("office folder /media/usb/office has no site mill-creek, yet this visit is a"
                        " laptop copy of that site (synced up to seq 4): wrong office folder?"
                        " Nothing was sent")


def test_office_interface_lives_in_officestore_and_is_the_same_object_everywhere():
    for name in ("OfficeStore", "LogEntry", "SiteSchema", "LockOwner", "SchemaChange",
                 "check_site_id", "utc_now_iso"):
        assert getattr(office, name) is getattr(officestore, name)
    assert issubclass(office.FolderOffice, officestore.OfficeStore)
    assert engine.OfficeStore is officestore.OfficeStore


def test_package_names_load_on_first_use_and_the_cancel_flag_alone_stays_light():
    # the window imports fieldapp.sync.progress for its cancel flag at start-up: that must not
    # load the engine and pygeodiff (about 40 ms); every public name still resolves
    import subprocess
    import sys

    code = ("import sys, fieldapp.sync.progress\n"
            "print(sorted(m for m in sys.modules if m.startswith('fieldapp.sync.') or m == 'pygeodiff'))\n"
            "import fieldapp.sync as S\n"
            "print(all(getattr(S, n).__name__ == n for n in S.__all__), set(S.__all__) <= set(dir(S)))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         timeout=120).stdout.splitlines()
    assert out == ["['fieldapp.sync.errors', 'fieldapp.sync.progress']", "True True"]


def test_every_office_lists_its_sites_through_the_interface(tmp_path):
    # the CLI's --list and checkout by name call office.list_sites() on any office; the interface
    # did not declare it (only PostgisOffice had it, and the CLI listed a folder itself), so an
    # office without it passed as an OfficeStore and failed only when a crew listed its sites
    assert "list_sites" in officestore.OfficeStore.__abstractmethods__
    folder = office.FolderOffice(tmp_path / "office", create=True)
    assert folder.list_sites() == []
