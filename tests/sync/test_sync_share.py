"""A folder office on a network share (issue 28): the master is kept in a rollback journal there
(WAL does not work across machines), pygeodiff gets every path in the long form Windows needs
for a share, and a site id Windows cannot make a folder of is refused.

The network drive is simulated: ``fieldapp.sync.inplace.is_remote`` is monkeypatched (the check
itself is tested in ``tests/store/test_store_paths.py``).
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import sqlite3
from pathlib import Path, PureWindowsPath

import pygeodiff
import pytest

from fieldapp.store import paths
from fieldapp.sync import FolderOffice, InvalidOfficeData, engine, inplace, sync
from fieldapp.sync import changesets as cs
from fieldapp.sync.officestore import check_site_id
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


def journal(path: Path) -> str:
    with contextlib.closing(sqlite3.connect(path)) as conn:
        return conn.execute("PRAGMA journal_mode").fetchone()[0]


def put_in_wal(master: Path) -> None:
    """QGIS opened the master once (WAL) and closed it: the header still says WAL."""
    with contextlib.closing(sqlite3.connect(master)) as conn:
        assert conn.execute("PRAGMA journal_mode=WAL").fetchone()[0] == "wal"
    assert master.read_bytes()[18:20] == b"\x02\x02"


def test_master_on_a_share_is_synced_in_a_rollback_journal(office_a, monkeypatch):
    office, a = office_a
    master = office.master_path("site-a")
    put_in_wal(master)
    monkeypatch.setattr(inplace, "is_remote", lambda p: Path(p) == master)
    with contextlib.closing(S.connect(a)) as conn, conn:
        new = S.add_tree(conn, 500100.0, 4800100.0, 14.0, "QUAL")
    assert sync(a, office).office_seq == 2
    assert master.read_bytes()[18:20] == b"\x01\x01" and journal(master) == "delete"
    assert not Path(f"{master}-wal").exists() and not Path(f"{master}-shm").exists()
    assert new in S.by_uuid(master, "tree") and S.integrity(master) == "ok"


def test_master_on_local_disk_keeps_wal(office_a):
    office, a = office_a
    master = office.master_path("site-a")
    put_in_wal(master)
    with contextlib.closing(S.connect(a)) as conn, conn:
        S.add_tree(conn, 500100.0, 4800100.0, 14.0, "QUAL")
    assert sync(a, office).office_seq == 2
    assert journal(master) == "wal"      # QGIS's choice on its own disk is left alone


def test_wal_master_held_open_on_a_share_is_refused_before_anything_is_written(office_a, monkeypatch):
    office, a = office_a
    master = office.master_path("site-a")
    qgis = S.connect(master)
    try:
        assert qgis.execute("PRAGMA journal_mode=WAL").fetchone()[0] == "wal"
        qgis.execute("SELECT count(*) FROM tree").fetchone()   # open, reading: keeps the WAL
        monkeypatch.setattr(inplace, "is_remote", lambda p: True)
        with contextlib.closing(S.connect(a)) as conn, conn:
            S.add_tree(conn, 1.0, 2.0, 3.0, "X")
        before = hashlib.sha256(master.read_bytes()).hexdigest()
        with pytest.raises(InvalidOfficeData, match="on a network drive in WAL mode.*Close it in QGIS"):
            sync(a, office, lock_wait_s=1)
        assert office.head("site-a") == 1
        assert hashlib.sha256(master.read_bytes()).hexdigest() == before
    finally:
        qgis.close()
    assert sync(a, office).office_seq == 2       # closed in QGIS: the sync goes through


def test_qgis_rows_left_in_a_wal_on_a_share_are_kept_when_the_journal_is_switched(office_a, monkeypatch):
    """QGIS on another machine saved an edit into the master's -wal and died (no checkpoint, no
    -shm left): switching the master to a rollback journal folds the -wal in first; the edit is
    in the master after the sync, beside the laptop's tree, and no -wal is left behind."""
    office, a = office_a
    master = office.master_path("site-a")
    qgis = S.connect(master)
    assert qgis.execute("PRAGMA journal_mode=WAL").fetchone()[0] == "wal"
    qgis.execute("PRAGMA wal_autocheckpoint=0")
    with qgis:
        qgis.execute("UPDATE tree SET species_code = 'QUMA' WHERE fid = 2")
    kept = {s: Path(f"{master}{s}").read_bytes() for s in ("", "-wal")}
    qgis.close()                                       # a clean close checkpoints: undo that
    for s, data in kept.items():
        Path(f"{master}{s}").write_bytes(data)
    Path(f"{master}-shm").unlink(missing_ok=True)
    alone = master.with_name("alone.gpkg")
    alone.write_bytes(kept[""])                        # the .gpkg alone has not got the edit
    assert "QUMA" not in [t["species_code"] for t in S.by_uuid(alone, "tree").values()]
    alone.unlink()
    monkeypatch.setattr(inplace, "is_remote", lambda p: Path(p) == master)
    with contextlib.closing(S.connect(a)) as conn, conn:
        mine = S.add_tree(conn, 500100.0, 4800100.0, 14.0, "QUAL")
    assert sync(a, office).office_seq == 2
    trees = S.by_uuid(master, "tree")
    assert sorted(t["species_code"] for t in trees.values()) == ["ACSA", "ACSA", "QUAL", "QUMA"]
    assert mine in trees and S.integrity(master) == "ok"
    assert journal(master) == "delete" and not Path(f"{master}-wal").exists()


def test_a_wal_copy_written_back_leaves_the_share_master_in_a_rollback_journal(office_a, monkeypatch):
    """SQLite's backup copies page 1 as it is, the header's WAL bytes (18-19) included: a copy in
    WAL mode written back over a master in a rollback journal put the master in WAL (on a share,
    where WAL does not work across machines). The copy is taken out of WAL first there."""
    office, _a = office_a
    master = office.master_path("site-a")
    monkeypatch.setattr(inplace, "is_remote", lambda p: Path(p) == master)
    with inplace.MasterWriter(master) as writer:
        copy = writer.snapshot()
        with contextlib.closing(S.connect(copy)) as conn:
            assert conn.execute("PRAGMA journal_mode=WAL").fetchone()[0] == "wal"
            with conn:
                conn.execute("UPDATE tree SET species_code = 'QUMA' WHERE fid = 2")
        writer.write_back(copy)
    assert master.read_bytes()[18:20] == b"\x01\x01" and journal(master) == "delete"
    assert "QUMA" in [t["species_code"] for t in S.by_uuid(master, "tree").values()]
    assert S.integrity(master) == "ok" and not Path(f"{master}-wal").exists()


# ---------------------------------------------------------------- pygeodiff's paths
def test_pygeodiff_gets_the_long_form_of_a_share_path(monkeypatch):
    seen = []
    monkeypatch.setattr(paths, "WINDOWS", True)
    monkeypatch.setattr(pygeodiff.GeoDiff, "apply_changeset", lambda self, *a: seen.append(a))
    monkeypatch.setattr(pygeodiff.GeoDiff, "schema", lambda self, *a: seen.append(a))
    gd = cs.new_geodiff()
    gd.apply_changeset(PureWindowsPath(r"\\server\share\sites\a\master.gpkg"), r"N:\x\c.geodiff")
    gd.schema("sqlite", "", r"\\server\share\m.gpkg", r"C:\t\s.json")
    gd.schema("postgres", "conninfo", "office_schema", r"C:\t\s.json")   # not a file: unchanged
    assert seen == [(r"\\?\UNC\server\share\sites\a\master.gpkg", r"\\?\N:\x\c.geodiff"),
                    ("sqlite", "", r"\\?\UNC\server\share\m.gpkg", r"\\?\C:\t\s.json"),
                    ("postgres", "conninfo", "office_schema", r"C:\t\s.json")]


def test_every_pygeodiff_path_of_a_sync_goes_through_long_path(office_a, monkeypatch):
    office, a = office_a
    seen = []
    monkeypatch.setattr(cs, "long_path", lambda p: seen.append(str(p)) or str(p))
    with contextlib.closing(S.connect(a)) as conn, conn:
        S.add_tree(conn, 500100.0, 4800100.0, 14.0, "QUAL")
    assert sync(a, office).office_seq == 2
    master = str(office.master_path("site-a"))
    assert str(a) in seen                                         # the visit (laptop side)
    assert any(p.startswith(str(office.site_dir("site-a"))) for p in seen)   # the office side
    assert master in seen or any(Path(p).parent == Path(master).parent for p in seen)


# ---------------------------------------------------------------- site ids
@pytest.mark.parametrize("bad", ["CON", "con", "nul.x", "Aux", "COM1", "lpt9.old", "site."])
def test_site_id_windows_cannot_make_a_folder_of_is_refused(bad):
    with pytest.raises(ValueError, match="Windows cannot make a folder of that name"):
        check_site_id(bad)


@pytest.mark.parametrize("good", ["site-a", "COM10", "console", "con-2", "a.b"])
def test_site_ids_windows_accepts(good):
    assert check_site_id(good) == good


# ---------------------------------------------------------------- read-only, tried for real
def test_visit_writing_is_tried_for_real_not_only_os_access(tmp_path, monkeypatch):
    """Windows' os.access says yes when an access list says no: the real attempt refuses."""
    from fieldapp.sync import visitcheck
    from fieldapp.sync.errors import VisitRefused

    visit = S.make_visit(tmp_path / "v.gpkg")
    visitcheck.check_visit_basics(visit)          # writable: passes, and the probe left nothing
    assert sorted(p.name for p in tmp_path.iterdir()) == ["v.gpkg"]
    monkeypatch.setattr(visitcheck, "can_write_file", lambda p: False)
    with pytest.raises(VisitRefused, match=re.escape(f"visit {visit} is read-only: a sync writes")):
        visitcheck.check_visit_basics(visit)
    monkeypatch.setattr(visitcheck, "can_write_file", lambda p: True)
    monkeypatch.setattr(visitcheck, "can_write_folder", lambda p: False)
    with pytest.raises(VisitRefused, match=re.escape(f"the folder of visit {visit} is read-only")):
        visitcheck.check_visit_basics(visit)


# ---------------------------------------------------------------- Windows' path limit
def test_office_too_deep_for_windows_is_refused_naming_the_limit(tmp_path, monkeypatch):
    import functools

    from fieldapp.store.paths import check_path_length
    from fieldapp.sync import SyncError
    from fieldapp.sync import office as office_mod

    monkeypatch.setattr(office_mod, "check_path_length", functools.partial(check_path_length, windows=True))
    a = S.make_visit(tmp_path / "a.gpkg", trees=3)
    before = hashlib.sha256(a.read_bytes()).hexdigest()
    deep = tmp_path / ("o" * 150)
    with pytest.raises(SyncError, match=r"the office folder .* is too deep for Windows: a path in it"
                                         r" would be \d+ characters long, over Windows' limit of 259"):
        sync(a, FolderOffice(deep, create=True))
    assert not (deep / "sites").exists() and not (deep / "fieldapp-office.json").exists()
    assert hashlib.sha256(a.read_bytes()).hexdigest() == before
    shallow = tmp_path / "office"          # the same under a short folder goes through
    assert sync(a, FolderOffice(shallow, create=True)).office_seq == 1
