"""Exports and reports over a file Windows holds open (issue 28, item 6): a CSV open in Excel, a
PDF open in a viewer. Windows refuses to replace such a file ("Access is denied"); the export
names the file ("close tree.csv in the program that has it open, then export again") and refuses
before anything is written: nothing half-replaced.

Windows is simulated: ``fieldapp.report.guard.WINDOWS`` is set and the write probe
(``_try_write_open``, ``open(p, "r+b")`` on Windows, which fails for a file opened with share
mode 0) or ``os.replace`` is made to fail as Windows fails (PermissionError 13, WinError 32).
"""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
from pathlib import Path

import pytest

from fieldapp.export import ExportRefused, ExportWriteFailed, export_visit
from fieldapp.report import guard
from tests.report.sample_visit import build_sample_visit


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    path = tmp_path_factory.mktemp("export-held") / "fresh.gpkg"
    build_sample_visit(path, conflict=False)
    return path


@pytest.fixture
def visit(fresh, tmp_path):
    path = tmp_path / "visit.gpkg"
    shutil.copyfile(fresh, path)
    return path


def tree_of(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def hold(monkeypatch, *names: str):
    """Windows, with the files called ``names`` open in another program (share mode 0)."""
    monkeypatch.setattr(guard, "WINDOWS", True)
    real = guard._try_write_open

    def probe(path):
        if Path(path).name in names:
            raise PermissionError(errno.EACCES, "Permission denied", path)
        return real(path)

    monkeypatch.setattr(guard, "_try_write_open", probe)


def test_csv_open_in_excel_is_refused_naming_it_before_anything_is_written(visit, tmp_path, monkeypatch):
    out = tmp_path / "csv"
    export_visit(visit, out, "csv")
    before = tree_of(tmp_path)
    read = []
    monkeypatch.setattr("fieldapp.report.content.load_visit", lambda p: read.append(p))
    hold(monkeypatch, "tree.csv")
    with pytest.raises(ExportRefused) as e:
        export_visit(visit, out, "csv", force=True)
    assert str(e.value) == (f"{out / 'tree.csv'} is open in another program: close tree.csv in the"
                            " program that has it open, then export again; nothing was written")
    assert read == []                   # refused at once: the visit was not even read
    assert tree_of(tmp_path) == before  # every file as it was, no temporary left


def test_held_file_found_again_just_before_the_move(visit, tmp_path, monkeypatch):
    """Opened in Excel while the export was writing: the check before the move refuses it, and
    no file of the folder is replaced (not the ones sorted before tree.csv either)."""
    out = tmp_path / "csv"
    export_visit(visit, out, "csv")
    before = tree_of(tmp_path)
    monkeypatch.setattr(guard, "WINDOWS", True)

    def progress(_f, message):
        if message == "saving":
            hold(monkeypatch, "tree.csv")

    with pytest.raises(ExportRefused, match="close tree.csv in the program that has it open, then export again"):
        export_visit(visit, out, "csv", force=True, progress=progress)
    assert tree_of(tmp_path) == before


def test_every_format_is_checked_before_any_is_moved(visit, tmp_path, monkeypatch):
    out = tmp_path / "all"
    export_visit(visit, out, "all")
    before = tree_of(tmp_path)
    monkeypatch.setattr(guard, "WINDOWS", True)

    def progress(_f, message):
        if message == "saving":
            hold(monkeypatch, "visit.kml")     # kml/ comes after csv/, dxf/, geojson/

    with pytest.raises(ExportRefused, match="close visit.kml in the program that has it open"):
        export_visit(visit, out, "all", force=True, progress=progress)
    assert tree_of(tmp_path) == before


def test_one_file_format_open_elsewhere(visit, tmp_path, monkeypatch):
    out = tmp_path / "site.kml"
    export_visit(visit, out, "kml")
    before = tree_of(tmp_path)
    hold(monkeypatch, "site.kml")
    with pytest.raises(ExportRefused, match="close site.kml in the program that has it open"):
        export_visit(visit, out, "kml", force=True)
    assert tree_of(tmp_path) == before


def test_replace_refused_by_windows_names_the_file(visit, tmp_path, monkeypatch):
    """Opened between the check and the move: os.replace fails as on Windows (WinError 32 is a
    PermissionError, errno 13); the message names the file, not only the folder."""
    out = tmp_path / "csv"
    export_visit(visit, out, "csv")
    monkeypatch.setattr(guard, "WINDOWS", True)
    real = os.replace

    def replace(src, dst):
        if Path(dst).name == "tree.csv":
            err = PermissionError(errno.EACCES, "The process cannot access the file because it is"
                                  " being used by another process", str(src), None, str(dst))
            err.winerror = 32
            raise err
        return real(src, dst)

    monkeypatch.setattr("fieldapp.export.os.replace", replace)
    with pytest.raises(ExportWriteFailed) as e:
        export_visit(visit, out, "csv", force=True)
    assert f"cannot write {out}: {out / 'tree.csv'} is open in another program: close tree.csv" in str(e.value)
    assert not [p for p in tmp_path.rglob("*.tmp")]


def test_read_only_file_is_named_as_read_only(visit, tmp_path, monkeypatch):
    out = tmp_path / "site.kml"
    export_visit(visit, out, "kml")
    monkeypatch.setattr(guard, "WINDOWS", True)
    real = os.access
    monkeypatch.setattr(guard.os, "access", lambda p, m: False if Path(p) == out else real(p, m))
    with pytest.raises(ExportRefused, match=r"site.kml is read-only \(the Read-only box of site.kml's"
                                            r" Properties is ticked\): untick it or choose another name"):
        export_visit(visit, out, "kml", force=True)


def test_off_windows_an_open_file_never_stops_an_export(visit, tmp_path, monkeypatch):
    out = tmp_path / "site.kml"
    export_visit(visit, out, "kml")
    hold(monkeypatch, "site.kml")
    monkeypatch.setattr(guard, "WINDOWS", False)   # Linux replaces a file another program reads
    assert export_visit(visit, out, "kml", force=True).files[0] == out
    assert guard.held_file(out) is None


def test_a_file_held_open_is_told_by_a_real_write_open(tmp_path, monkeypatch):
    """The probe itself: open for writing, nothing written; a PermissionError is "held"."""
    f = tmp_path / "tree.csv"
    f.write_bytes(b"a,b\n")
    assert guard.held_file(f, windows=True) is None and f.read_bytes() == b"a,b\n"
    assert guard.held_file(tmp_path, windows=True) is None            # a folder: not a held file
    assert guard.held_file(tmp_path / "nothing.csv", windows=True) is None

    if os.name == "nt":     # Windows asks CreateFile for read, write and delete access
        import _winapi

        def sharing_violation(path, *a, **k):
            raise OSError(0, "The process cannot access the file because it is being used by"
                          " another process", path, 32)   # ERROR_SHARING_VIOLATION

        monkeypatch.setattr(_winapi, "CreateFile", sharing_violation)
    else:
        def share_mode_0(path, *a, **k):
            raise PermissionError(errno.EACCES, "Permission denied", path)

        monkeypatch.setattr("builtins.open", share_mode_0)
    assert guard.held_file(f, windows=True) == "held"


def test_a_full_disk_is_told_on_windows_too(tmp_path, monkeypatch):
    """Windows has no os.statvfs: the export's "the disk is full" asks shutil.disk_usage."""
    import collections

    from fieldapp.export import gdal

    monkeypatch.delattr(os, "statvfs", raising=False)
    usage = collections.namedtuple("usage", "total used free")
    monkeypatch.setattr(gdal.shutil, "disk_usage", lambda p: usage(10**9, 10**9 - 4096, 4096))
    assert gdal._disk_full(tmp_path)
    monkeypatch.setattr(gdal.shutil, "disk_usage", lambda p: usage(10**9, 0, 10**9))
    assert not gdal._disk_full(tmp_path)


@pytest.mark.parametrize("fmt,where", [("csv", "csv/woodland_stand.csv"),
                                       ("all", "all/geojson/woodland_stand.geojson")])
def test_a_folder_where_a_layer_file_goes_is_refused_before_any_file_is_replaced(
        visit, tmp_path, fmt, where):
    """A folder named like one of the layers (sorted last) in an earlier export's folder: os.replace
    cannot put a file over it. Found at its turn, every file sorted before it had already been
    replaced (the export half new, half old) and the message named only the export folder ("Is
    a directory"; on Windows "Access is denied", which would have been told as a file held
    open). Now refused before any move, naming the folder."""
    out = tmp_path / fmt
    export_visit(visit, out, fmt)
    (tmp_path / where).unlink()
    (tmp_path / where).mkdir()
    inodes = {str(p): p.stat().st_ino for p in tmp_path.rglob("*")}
    with pytest.raises(ExportRefused) as e:
        export_visit(visit, out, fmt, force=True)
    assert str(e.value) == (f"{tmp_path / where} is a folder: the export writes a file of that name"
                            " there; move or rename the folder, then export again; nothing was written")
    assert {str(p): p.stat().st_ino for p in tmp_path.rglob("*")} == inodes   # no file replaced, no temp left
