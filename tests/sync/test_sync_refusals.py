"""What the sync refuses before it touches anything (tester's findings on issue 7).

Every refusal here must leave the visit byte-identical (SHA-256), make no ``VISIT.gpkg.sync/``,
and leave nothing in the office (no marker, no ``sites/<id>``, no folder it created); from the
command line it is one line on stderr, no traceback, exit status 1.

Visits are real store visits (:func:`fieldapp.store.create_visit`), damaged with sqlite3 the way
a bad copy, another tool or a newer fieldapp would.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from pyogrio.raw import write

from fieldapp.store import create_visit
from fieldapp.survey.visit import Visit
from fieldapp.sync import (
    CancelToken,
    FolderOffice,
    InvalidOfficeData,
    LaptopStateError,
    OfficeNotFound,
    SyncCancelled,
    VisitRefused,
    checkout,
    sync,
)
from fieldapp.sync.cli import main as cli_main
from tests.gpkgtools import st_connect

X0, Y0 = 500000.0, 4983000.0  # UTM 16N
REPO = Path(__file__).resolve().parents[2]


def make_visit(path: Path, trees: int = 2) -> Path:
    visit = Visit.new("Mill Creek lot", crs="EPSG:32616", who="a@laptop-a")
    store = create_visit(path, visit)
    for i in range(trees):
        visit.add_tree(x=X0 + 5 * i, y=Y0, dbh_in=10.0 + i, species_code="ACSA")
    store.close()
    return path


def sql(path: Path, *statements: str) -> None:
    with contextlib.closing(st_connect(path)) as conn, conn:
        for s in statements:
            conn.execute(s)


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def sync_dir(visit: Path) -> Path:
    return visit.with_name(visit.name + ".sync")


def tree(path: Path) -> list[str]:
    """Every file and folder under ``path`` (relative), to show nothing was made."""
    return sorted(str(p.relative_to(path)) for p in path.rglob("*")) if path.exists() else []


# ---- 1. the visit file is checked before anything is touched ----------------------------------
def plain_gdal_gpkg(path: Path) -> Path:
    # a GeoPackage made by GDAL, not by fieldapp: one point layer named "tree"
    write(str(path), np.array([], dtype=object), [np.array([], dtype=float)], ["dbh_in"],
          layer="tree", driver="GPKG", geometry_type="Point", crs="EPSG:32616")
    return path


def newer_schema(path: Path) -> Path:
    sql(make_visit(path), "UPDATE fieldapp_meta SET value = '999' WHERE key = 'schema_version'")
    return path


def unreadable_schema(path: Path) -> Path:
    sql(make_visit(path), "UPDATE fieldapp_meta SET value = 'abc' WHERE key = 'schema_version'")
    return path


def no_meta(path: Path) -> Path:
    sql(make_visit(path), "DROP TABLE fieldapp_meta")
    return path


def no_tree_table(path: Path) -> Path:
    sql(make_visit(path), "DROP TABLE tree", "DELETE FROM gpkg_contents WHERE table_name = 'tree'",
        "DELETE FROM gpkg_geometry_columns WHERE table_name = 'tree'")
    return path


def text_dbh(path: Path) -> Path:
    # one tree's DBH stored as text: the REAL column keeps 'abc' as TEXT (SQLite type affinity)
    sql(make_visit(path), "UPDATE tree SET dbh_in = 'abc' WHERE fid = (SELECT min(fid) FROM tree)")
    return path


BAD_VISITS = {
    "plain-gdal-gpkg": (plain_gdal_gpkg, "not a fieldapp visit \\(no fieldapp_meta table\\)"),
    "schema-999": (newer_schema, "newer fieldapp \\(schema 999"),
    "schema-abc": (unreadable_schema, "schema_version 'abc'"),
    "no-fieldapp_meta": (no_meta, "no fieldapp_meta table"),
    "no-tree-table": (no_tree_table, "lacks tables \\['tree'\\]"),
    "dbh-abc": (text_dbh, "holds a value fieldapp refuses: tree [0-9a-f-]+: dbh_in is 'abc' \\(text\\),"
                          " not a real value. Nothing was synced and the visit is unchanged; correct"),
}


@pytest.mark.parametrize("case", list(BAD_VISITS))
def test_bad_visit_is_refused_before_anything_is_touched(tmp_path, case, capsys):
    make, message = BAD_VISITS[case]
    visit = make(tmp_path / "visit.gpkg")
    before = sha(visit)
    office = FolderOffice(tmp_path / "office", create=True)
    with pytest.raises(VisitRefused, match=message):
        sync(visit, office)
    # the same through the command line: one line, exit 1
    assert cli_main(["--init-office", "--office", str(office.root), "-q", str(visit)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("fieldapp sync: ") and "Nothing was synced" in err
    assert sha(visit) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["visit.gpkg"]  # no .sync, no office


def test_bad_row_in_a_visit_synced_before_is_refused_too(tmp_path):
    # a visit that synced fine, then got a value the store cannot read: nothing is sent, and
    # neither the visit nor its sync state nor the office changes
    office = FolderOffice(tmp_path / "office", create=True)
    visit = make_visit(tmp_path / "visit.gpkg")
    sync(visit, office)
    sql(visit, "UPDATE tree SET dbh_in = 'abc' WHERE fid = 1")
    before, state_before, office_before = sha(visit), tree(sync_dir(visit)), tree(office.root)
    master_before = sha(next(office.root.glob("sites/*/master.gpkg")))
    with pytest.raises(VisitRefused, match="dbh_in is 'abc'"):
        sync(visit, office)
    assert sha(visit) == before and tree(sync_dir(visit)) == state_before
    assert tree(office.root) == office_before
    assert sha(next(office.root.glob("sites/*/master.gpkg"))) == master_before


# ---- 2. a synced visit copied without its .sync folder ----------------------------------------
def test_copy_without_sync_state_to_a_new_office_is_refused(tmp_path, capsys):
    visit = make_visit(tmp_path / "a.gpkg")
    sync(visit, FolderOffice(tmp_path / "office1", create=True))
    copy = tmp_path / "copy.gpkg"
    shutil.copyfile(visit, copy)  # its sync log (seq 1) travels with it, its base copy does not
    before = sha(copy)
    new_office = tmp_path / "office2"
    new_office.mkdir()  # a new, empty office folder (e.g. a fresh USB drive)
    with pytest.raises(LaptopStateError, match="copied without its .sync folder.*--checkout"):
        sync(copy, FolderOffice(new_office, create=True))
    assert cli_main(["--init-office", "--office", str(new_office), "-q", str(copy)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--checkout" in err and "Traceback" not in err
    assert tree(new_office) == []  # nothing half-made in the office
    assert sha(copy) == before and not sync_dir(copy).exists()


# ---- 3. a read-only visit ---------------------------------------------------------------------
def test_read_only_visit_is_refused(tmp_path, capsys):
    visit = make_visit(tmp_path / "v.gpkg")
    os.chmod(visit, stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)  # the folder stays writable
    try:
        before = sha(visit)
        office = tmp_path / "office"
        with pytest.raises(VisitRefused, match=re.escape(f"visit {visit} is read-only")):
            sync(visit, FolderOffice(office, create=True))
        assert cli_main(["--init-office", "--office", str(office), "-q", str(visit)]) == 1
        err = capsys.readouterr().err
        assert f"visit {visit} is read-only" in err and err.count("\n") == 1
        assert sha(visit) == before
        assert sorted(p.name for p in tmp_path.iterdir()) == ["v.gpkg"]  # no v.gpkg.sync, no office
    finally:
        os.chmod(visit, stat.S_IRUSR | stat.S_IWUSR)


# ---- 4. the office folder must exist; a new office needs --init-office ---------------------------
def test_missing_office_folder_is_refused_and_not_created(tmp_path, capsys):
    visit = make_visit(tmp_path / "visit.gpkg")
    typo = tmp_path / "nonexistent" / "typo" / "path"
    with pytest.raises(OfficeNotFound, match=re.escape(f"office folder {typo} does not exist")):
        sync(visit, FolderOffice(typo))
    assert cli_main(["--office", str(typo), "-q", str(visit)]) == 1
    err = capsys.readouterr().err
    assert str(typo) in err and "--init-office" in err and err.count("\n") == 1
    # even --init-office does not make the missing parents (an unmounted drive's mount point)
    assert cli_main(["--init-office", "--office", str(typo), "-q", str(visit)]) == 1
    assert f"its parent {typo.parent} does not exist" in capsys.readouterr().err
    assert not (tmp_path / "nonexistent").exists() and not sync_dir(visit).exists()


def test_folder_that_is_not_an_office_needs_init_office(tmp_path, capsys):
    visit = make_visit(tmp_path / "visit.gpkg")
    mount = tmp_path / "usb"
    mount.mkdir()  # an empty mount point: the drive is not mounted
    assert cli_main(["--office", str(mount), "-q", str(visit)]) == 1
    assert "is not a fieldapp office folder" in capsys.readouterr().err
    assert tree(mount) == [] and not sync_dir(visit).exists()
    # asked for explicitly, the office is made, and from then on no flag is needed
    assert cli_main(["--init-office", "--office", str(mount), "-q", str(visit)]) == 0
    capsys.readouterr()
    assert (mount / "fieldapp-office.json").is_file() and len(list(mount.glob("sites/*/master.gpkg"))) == 1
    assert cli_main(["--office", str(mount), "-q", str(visit)]) == 0
    assert "nothing to send or receive" in capsys.readouterr().out


def test_wrong_office_folder_leaves_nothing_behind(tmp_path, capsys):
    visit = make_visit(tmp_path / "visit.gpkg")
    sync(visit, FolderOffice(tmp_path / "office1", create=True))
    state_before = tree(sync_dir(visit))
    # a new office: refused, and the folder is not even created
    with pytest.raises(InvalidOfficeData, match="wrong office folder"):
        sync(visit, FolderOffice(tmp_path / "office2", create=True))
    assert not (tmp_path / "office2").exists()
    # an existing office holding another site: no sites/<id> of this visit's site appears
    other = FolderOffice(tmp_path / "office3", create=True)
    sync(make_visit(tmp_path / "other.gpkg"), other)
    office_before = tree(other.root)
    assert cli_main(["--office", str(other.root), "-q", str(visit)]) == 1
    assert "wrong office folder" in capsys.readouterr().err
    assert tree(other.root) == office_before
    assert tree(sync_dir(visit)) == state_before


def test_sync_stopped_before_the_site_is_created_leaves_no_office_behind(tmp_path):
    # cancelled while holding the lock of a site that does not exist yet: the folders made for
    # the lock (office, sites/, sites/<id>/) go again, and the next sync creates everything
    visit = make_visit(tmp_path / "visit.gpkg")
    office = FolderOffice(tmp_path / "office", create=True)
    token = CancelToken()

    def progress(_fraction, message):
        if message.startswith("taking a snapshot"):
            token.cancel()

    with pytest.raises(SyncCancelled):
        sync(visit, office, progress=progress, cancel=token)
    assert not office.root.exists()
    report = sync(visit, office)
    assert [(c.layer, c.sent) for c in report.layers if c.layer == "tree"] == [("tree", 2)]


def test_checkout_of_a_missing_site_leaves_nothing_behind(tmp_path):
    office = FolderOffice(tmp_path / "office", create=True)
    sync(make_visit(tmp_path / "a.gpkg"), office)
    before = tree(office.root)
    with pytest.raises(Exception, match="has no site nosuchsite"):
        checkout(office, "nosuchsite", tmp_path / "b.gpkg")
    assert tree(office.root) == before
    assert not (tmp_path / "b.gpkg").exists() and not (tmp_path / "b.gpkg.sync").exists()


# ---- 5. no traceback from the command line ---------------------------------------------------
def test_cli_turns_every_failure_into_one_line(tmp_path, capsys, monkeypatch):
    not_sqlite = tmp_path / "notes.gpkg"
    not_sqlite.write_text("not a database\n" * 10)
    office = FolderOffice(tmp_path / "office", create=True)
    visit = make_visit(tmp_path / "visit.gpkg")
    sync(visit, office)
    cases = {
        "sqlite error (--conflicts on a non-SQLite file)":
            (["--office", str(office.root), "--conflicts", str(not_sqlite)], "could not be read"),
        "missing visit": (["--office", str(office.root), "-q", str(tmp_path / "gone.gpkg")],
                          "does not exist"),
        "checkout over an existing file": (["--office", str(office.root), "--checkout", "x", str(visit)],
                                           "already exists"),
    }
    for name, (argv, words) in cases.items():
        assert cli_main(argv) == 1, name
        err = capsys.readouterr().err
        assert words in err and err.count("\n") == 1 and "Traceback" not in err, (name, err)

    import fieldapp.sync.cli as sync_cli

    def boom(*_a, **_k):
        raise RuntimeError("disk said\nno")

    monkeypatch.setattr(sync_cli, "sync", boom)  # anything unforeseen: still one line
    assert cli_main(["--office", str(office.root), "-q", str(visit)]) == 1
    assert capsys.readouterr().err == (
        "fieldapp sync: failed (RuntimeError): disk said no; nothing half-done is left, the next"
        " sync carries on\n")

    def interrupted(*_a, **_k):
        raise KeyboardInterrupt

    monkeypatch.setattr(sync_cli, "sync", interrupted)
    assert cli_main(["--office", str(office.root), "-q", str(visit)]) == 130
    assert "interrupted" in capsys.readouterr().err


def test_fieldapp_command_prints_no_traceback(tmp_path):
    # the real entry point in a child process, with the tester's mistyped office path
    visit = make_visit(tmp_path / "visit.gpkg")
    typo = tmp_path / "nonexistent" / "typo" / "path"
    done = subprocess.run([sys.executable, "-m", "fieldapp.cli", "sync", "--office", str(typo), str(visit)],
                          cwd=REPO, env=dict(os.environ, PYTHONPATH=str(REPO)),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and f"office folder {typo} does not exist" in done.stderr
    assert not (tmp_path / "nonexistent").exists()


@pytest.mark.parametrize("value", ["-1", "nan", "inf", "abc"])
def test_lock_wait_must_be_seconds(tmp_path, capsys, value):
    with pytest.raises(SystemExit) as stop:
        cli_main(["--office", str(tmp_path), "--lock-wait", value, str(tmp_path / "v.gpkg")])
    assert stop.value.code == 2
    assert f"argument --lock-wait: {value!r} must be a number of seconds, 0 or more" in capsys.readouterr().err
