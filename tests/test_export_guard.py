"""Exports never write over a visit (itself by any name, its sidecars, any other visit) even with
--force, leave the visit unchanged (also when read-only), and every failure is one line on
stderr, never a traceback."""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

import pytest

from tests.links import symlink_or_skip
from tests.report.sample_visit import build_sample_visit
from tests.report.test_report_guard import ReadOnly, one_line, sha256
from tests.test_export import EXPECTED


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    path = tmp_path_factory.mktemp("export-guard") / "fresh.gpkg"
    build_sample_visit(path, conflict=False)
    return path


@pytest.fixture
def visit(fresh, tmp_path):
    """A private copy of the sample visit in an empty folder."""
    path = tmp_path / "visit.gpkg"
    shutil.copyfile(fresh, path)
    return path


def run_main(argv, capsys):
    from fieldapp.export import main

    rc = main([str(a) for a in argv])
    return rc, capsys.readouterr().err


# ------------------------------------------------------------------ 1. never over a visit
@pytest.mark.parametrize("fmt", ["csv", "geojson", "shp", "kml", "dxf"])
def test_output_named_as_the_visit_is_refused_even_with_force(visit, tmp_path, fmt, capsys):
    before = sha256(visit)
    rc, err = run_main([visit, "--format", fmt, "-o", visit, "--force"], capsys)
    assert rc == 1 and one_line(err) and "is the visit file" in err and "even with --force" in err
    assert sha256(visit) == before and visit.is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["visit.gpkg"]  # no temporary folder left


@pytest.mark.parametrize("how", ["hard link", "symbolic link", "wal sidecar", "shm sidecar"])
def test_links_and_sidecars_of_the_visit_are_refused(visit, tmp_path, how, capsys):
    out = {"hard link": tmp_path / "drawing.dxf", "symbolic link": tmp_path / "drawing.dxf",
           "wal sidecar": Path(f"{visit}-wal"), "shm sidecar": Path(f"{visit}-shm")}[how]
    if how == "hard link":
        os.link(visit, out)
    elif how == "symbolic link":
        symlink_or_skip(visit, out)
    before = sha256(visit)
    rc, err = run_main([visit, "--format", "dxf", "-o", out, "--force"], capsys)
    assert rc == 1 and one_line(err) and "refusing to write over it" in err
    assert sha256(visit) == before
    if "sidecar" in how:
        assert not out.exists()


def test_another_visit_is_never_overwritten(visit, fresh, tmp_path, capsys):
    other = tmp_path / "last-week.gpkg"
    shutil.copyfile(fresh, other)
    before = sha256(other)
    for fmt in ("kml", "csv"):  # a file format and a folder format over a file
        rc, err = run_main([visit, "--format", fmt, "-o", other, "--force"], capsys)
        assert rc == 1 and one_line(err) and "is a fieldapp visit GeoPackage" in err
        assert sha256(other) == before


def test_shapefiles_into_the_visits_own_folder(visit, tmp_path):
    """The visit's folder is a fine output folder: the layers go beside the visit, untouched."""
    from fieldapp.export import export_visit
    from fieldapp.report.content import load_visit
    from fieldapp.survey import Layer

    r = export_visit(visit, tmp_path, "shp", force=True)
    assert r.layers == EXPECTED
    assert (tmp_path / "tree.shp").is_file() and (tmp_path / "tree.dbf").is_file()
    # the visit is still the whole visit: its 4 trees (test_export.EXPECTED) read back
    assert len(load_visit(visit).features(Layer.TREE)) == EXPECTED["tree"] == 4


def test_a_layer_file_that_is_a_link_to_the_visit_is_refused(visit, tmp_path, capsys):
    """In an existing output folder every file about to be replaced is checked first: one that is
    a hard link to the visit stops the export before anything is moved."""
    out = tmp_path / "csv"
    out.mkdir()
    os.link(visit, out / "tree.csv")
    (out / "mine.txt").write_text("x")
    from fieldapp.report.content import load_visit
    from fieldapp.survey import Layer

    rc, err = run_main([visit, "--format", "csv", "-o", out, "--force"], capsys)
    assert rc == 1 and one_line(err) and "tree.csv is the visit file" in err
    assert sorted(p.name for p in out.iterdir()) == ["mine.txt", "tree.csv"]  # nothing moved
    assert os.path.samefile(visit, out / "tree.csv")  # the link still is the visit, not a CSV
    assert len(load_visit(visit).features(Layer.TREE)) == EXPECTED["tree"] == 4
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # temporaries removed


# ------------------------------------------------------------------ 2. reading changes nothing
def test_export_leaves_the_visit_byte_identical(visit, tmp_path):
    from fieldapp.export import export_visit

    before = sha256(visit)
    export_visit(visit, tmp_path / "v.kml", "kml")
    assert sha256(visit) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["v.kml", "visit.gpkg"]


def test_export_of_a_read_only_visit(visit, tmp_path):
    from fieldapp.export import export_visit

    before = sha256(visit)
    with ReadOnly(visit):
        r = export_visit(visit, tmp_path / "v.dxf", "dxf")
    assert r.layers == EXPECTED and sha256(visit) == before


# ------------------------------------------------------------------ 5. one line, never a traceback
def test_missing_output_folder(visit, tmp_path, capsys):
    rc, err = run_main([visit, "--format", "dxf", "-o", tmp_path / "nope" / "v.dxf"], capsys)
    assert rc == 1 and one_line(err) and "does not exist" in err


def test_file_format_into_a_folder(visit, tmp_path, capsys):
    rc, err = run_main([visit, "--format", "kml", "-o", tmp_path, "--force"], capsys)
    assert rc == 1 and one_line(err) and "is a folder" in err


@pytest.mark.parametrize("fmt", ["csv", "dxf"])
def test_disk_full_while_writing(visit, tmp_path, fmt, capsys, monkeypatch):
    import fieldapp.export

    def full(*a, **k):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(fieldapp.export.gdal, "_write_ogr" if fmt == "csv" else "_dxf", full)
    out = tmp_path / ("out" if fmt == "csv" else "v.dxf")
    rc, err = run_main([visit, "--format", fmt, "-o", out], capsys)
    assert rc == 1 and one_line(err) and f"cannot write {out}: the disk is full" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["visit.gpkg"]  # nothing half-written


def test_gdal_write_failure_is_one_line(visit, tmp_path, capsys, monkeypatch):
    from pyogrio.errors import DataSourceError

    import fieldapp.export

    def fails(*a, **k):
        raise DataSourceError("Failed to create the layer (GDAL)")

    monkeypatch.setattr(fieldapp.export.gdal, "_write_ogr", fails)
    rc, err = run_main([visit, "--format", "geojson", "-o", tmp_path / "g"], capsys)
    assert rc == 1 and one_line(err) and "cannot write" in err and "GDAL" in err


def test_unexpected_failure_is_one_line(visit, tmp_path, capsys, monkeypatch):
    import fieldapp.export

    def broken(visit):
        raise RuntimeError("something nobody foresaw")

    monkeypatch.setattr(fieldapp.export, "layer_records", broken)
    rc, err = run_main([visit, "--format", "csv", "-o", tmp_path / "c"], capsys)
    assert rc == 1 and one_line(err) and "something nobody foresaw" in err


def test_permission_denied_on_the_visit(tmp_path, capsys, monkeypatch):
    bad = tmp_path / "v.gpkg"
    bad.write_text("x")
    real_open = open

    def no_read(path, *a, **k):  # root reads anything: make open() itself say no
        if Path(path) == bad:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        return real_open(path, *a, **k)

    monkeypatch.setattr("builtins.open", no_read)
    rc, err = run_main([bad, "--format", "csv", "-o", tmp_path / "c"], capsys)
    assert rc == 1 and one_line(err) and str(bad) in err and "Permission denied" in err


@pytest.mark.parametrize("fmt", ["kml", "dxf"])
def test_a_file_format_named_without_its_suffix_gets_it(visit, tmp_path, fmt, capsys):
    # "-o site" for a KML failed at the second layer ("Layer 'ohwm_point' could not be opened"):
    # GDAL knows a KML by its name; the file written is site.kml and the command says so
    from fieldapp.export import main

    rc = main([str(visit), "--format", fmt, "-o", str(tmp_path / "site")])
    out = capsys.readouterr().out
    assert rc == 0
    assert (tmp_path / f"site.{fmt}").is_file() and not (tmp_path / "site").exists()
    assert out.startswith(f"{tmp_path / f'site.{fmt}'} ({fmt},")


def test_a_file_format_with_another_suffix_is_refused_in_words(visit, tmp_path, capsys):
    rc, err = run_main([visit, "--format", "kml", "-o", tmp_path / "site.kmz"], capsys)
    assert rc == 1 and one_line(err)
    assert "a KML export is one file whose name ends in .kml, not site.kmz: nothing written" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["visit.gpkg"]


# ------------------------------------------------------------------ 6. a file open in another program
@pytest.mark.parametrize("fmt", ["csv", "all"])
def test_a_file_held_open_elsewhere_is_refused_before_anything_is_replaced(visit, tmp_path, monkeypatch,
                                                                           capsys, fmt):
    """Windows: Excel holds a CSV it has open (no sharing), so replacing it fails; found file
    by file, the files before it would already be replaced. Windows' sharing violation
    (WinError 32) is simulated here; tests/windows runs it with a real hold on Windows."""
    from fieldapp.report import guard

    out = tmp_path / "out"
    assert run_main([visit, "--format", fmt, "-o", out], capsys)[0] == 0
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(out.rglob("*")) if p.is_file()}
    held = max(p for p in before if p.suffix == ".csv")   # the last written: the others go first
    def excel_holds(path):
        if Path(path) == held:
            exc = PermissionError(errno.EACCES, "The process cannot access the file because it"
                                  " is being used by another process", str(path))
            exc.winerror = 32   # ERROR_SHARING_VIOLATION
            raise exc

    monkeypatch.setattr(guard, "WINDOWS", True)
    monkeypatch.setattr(guard, "_try_write_open", excel_holds)
    rc, err = run_main([visit, "--format", fmt, "-o", out, "--force"], capsys)
    monkeypatch.undo()
    assert rc == 1 and one_line(err)
    assert f"close {held.name} in the program that has it open" in err and "nothing was written" in err
    after = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(out.rglob("*")) if p.is_file()}
    assert after == before                                                   # not one file replaced
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "visit.gpkg"]  # no temporary folder
