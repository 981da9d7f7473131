"""Exports reopen with GDAL (pyogrio) with the right CRS, layer names and counts, and the DXF
reopens with ezdxf with the site coordinates; nothing is overwritten without --force."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyogrio
import pytest
import shapely
from pyogrio.raw import read

from tests.report.sample_visit import FT, build_sample_visit

REPO = Path(__file__).resolve().parents[1]
# The sample visit: 3 OHWM points on 1 line, 2 transects with 3 stations each, 4 trees,
# a woodland stand, a wetland, a foundation and a note.
EXPECTED = {"ohwm_line": 1, "ohwm_point": 3, "transect": 2, "station": 6, "tree": 4,
            "woodland_stand": 1, "wetland": 1, "foundation": 1, "note": 1,
            # derived: the bank of each transect, the bank line, the wetland and stream buffers, the envelope
            "bank_point": 2, "bank_line": 1, "protective_area": 2, "development_envelope": 1}


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    from fieldapp.report.content import load_visit

    folder = tmp_path_factory.mktemp("export")
    path = folder / "mill-creek.gpkg"
    info = build_sample_visit(path, conflict=False)
    visit = load_visit(path)
    from fieldapp.survey import Layer

    info["trees"] = sorted((t.uuid, t.x, t.y) for t in visit.features(Layer.TREE))
    info["path"] = path
    info["folder"] = folder
    return info


def _tree_xy(path, layer=None):
    meta, _, geoms, fields = read(str(path), layer=layer)
    uuids = fields[list(meta["fields"]).index("uuid")]
    pts = shapely.from_wkb(geoms)
    return meta, sorted(zip(uuids, shapely.get_x(pts), shapely.get_y(pts), strict=True))


@pytest.mark.parametrize("fmt", ["geojson", "csv", "shp"])
def test_folder_formats_reopen_with_gdal(sample, fmt):
    from fieldapp.export import export_visit

    out = sample["folder"] / f"out-{fmt}"
    r = export_visit(sample["path"], out, fmt)
    assert r.layers == EXPECTED
    ext = {"geojson": "geojson", "csv": "csv", "shp": "shp"}[fmt]
    assert sorted(p.stem for p in out.glob(f"*.{ext}")) == sorted(EXPECTED)
    wanted_crs = "EPSG:3070" if fmt == "shp" else "EPSG:4326"
    for name, n in EXPECTED.items():
        info = pyogrio.read_info(out / f"{name}.{ext}")
        assert info["features"] == n, name
        assert info["crs"] == wanted_crs, name
    meta, trees = _tree_xy(out / f"tree.{ext}")
    frame = sample["frame"]
    for (u, x, y), (u2, sx, sy) in zip(trees, sample["trees"], strict=True):
        assert u == u2
        if fmt == "shp":  # site CRS, metres: the same numbers the model holds
            assert (x, y) == pytest.approx((sx, sy), abs=1e-6)
        else:  # lon/lat: WTM inverse by PROJ, checked back by the forward projection
            fx, fy = frame.to_local(x, y)
            assert (float(fx), float(fy)) == pytest.approx((sx, sy), abs=1e-3)
    if fmt != "shp":  # attribute names intact (Shapefile cuts them to 10 characters)
        assert "dbh_in" in meta["fields"] and "crown_radius_ft" in meta["fields"]


def test_kml_has_a_layer_per_kind(sample):
    from fieldapp.export import export_visit

    out = sample["folder"] / "visit.kml"
    export_visit(sample["path"], out, "kml")
    layers = [str(n) for n, _ in pyogrio.list_layers(out)]
    assert sorted(layers) == sorted(EXPECTED)
    for name, n in EXPECTED.items():
        info = pyogrio.read_info(out, layer=name)
        assert info["features"] == n and info["crs"] == "EPSG:4326"
    _, trees = _tree_xy(out, "tree")
    # the first tree is 10 m east and 15 m north of the stand's corner, near 90 W, 44.5 N
    assert all(-90.01 < x < -89.99 and 44.49 < y < 44.51 for _, x, y in trees)


def test_dxf_in_site_coordinates(sample):
    import ezdxf

    from fieldapp.export import export_visit

    out = sample["folder"] / "visit.dxf"
    r = export_visit(sample["path"], out, "dxf")
    assert r.crs == "EPSG:3070" and r.layers == EXPECTED
    doc = ezdxf.readfile(out)
    assert doc.header["$INSUNITS"] == 6  # metres, the unit of EPSG:3070
    assert set(EXPECTED) <= {layer.dxf.name for layer in doc.layers}
    msp = doc.modelspace()
    pts = sorted((e.get_xdata("FIELDAPP")[0].value.removeprefix("uuid="), e.dxf.location.x, e.dxf.location.y)
                 for e in msp.query('POINT[layer=="tree"]'))
    assert [p[0] for p in pts] == [t[0] for t in sample["trees"]]
    for (_, x, y), (_, sx, sy) in zip(pts, sample["trees"], strict=True):
        assert (x, y) == pytest.approx((sx, sy), abs=1e-6)
    # the wetland: a closed 260 ft x 520 ft rectangle = 79.248 m x 158.496 m
    (wet,) = msp.query('LWPOLYLINE[layer=="wetland"]')
    xy = np.array([(p[0], p[1]) for p in wet.get_points()])
    assert wet.closed and len(xy) == 4
    assert np.ptp(xy[:, 0]) == pytest.approx(260 * FT) and np.ptp(xy[:, 1]) == pytest.approx(520 * FT)
    assert len(msp.query('LWPOLYLINE[layer=="transect"]')) == 2
    assert len(msp.query('POINT[layer=="station"]')) == 6


def test_never_overwrites_without_force(sample):
    from fieldapp.export import ExportExists, export_visit

    out = sample["folder"] / "keep.dxf"
    out.write_text("drawing someone made")
    with pytest.raises(ExportExists):
        export_visit(sample["path"], out, "dxf")
    assert out.read_text() == "drawing someone made"
    folder = sample["folder"] / "keep-geojson"
    folder.mkdir()
    (folder / "mine.txt").write_text("x")
    with pytest.raises(ExportExists):
        export_visit(sample["path"], folder, "geojson")
    assert os.listdir(folder) == ["mine.txt"]
    # asked: the layers are written beside the other file, which stays
    export_visit(sample["path"], folder, "geojson", force=True)
    assert (folder / "mine.txt").read_text() == "x" and (folder / "tree.geojson").exists()
    # no temporary folders left behind
    assert not [p for p in sample["folder"].iterdir() if p.name.startswith(".")]


def test_cli_refuses_then_forces(sample):
    out = sample["folder"] / "cli.kml"
    cmd = [sys.executable, "-m", "fieldapp", "export", str(sample["path"]), "--format", "kml", "-o", str(out)]
    first = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, timeout=240)
    assert first.returncode == 0, first.stderr
    again = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, timeout=240)
    assert again.returncode == 1 and "exists" in again.stderr and "--force" in again.stderr
    assert "Traceback" not in again.stderr
    forced = subprocess.run(cmd + ["--force"], capture_output=True, text=True, cwd=REPO, timeout=240)
    assert forced.returncode == 0, forced.stderr


def test_cli_bad_visit_file(tmp_path):
    bad = tmp_path / "notes.gpkg"
    bad.write_text("field notes, not a visit\n")
    run = subprocess.run([sys.executable, "-m", "fieldapp", "export", str(bad), "--format", "dxf", "-o",
                          str(tmp_path / "x.dxf")], capture_output=True, text=True, cwd=REPO, timeout=240)
    assert run.returncode == 1 and "not a GeoPackage" in run.stderr and "Traceback" not in run.stderr
    missing = subprocess.run([sys.executable, "-m", "fieldapp", "export", str(tmp_path / "nope.gpkg"),
                              "--format", "csv", "-o", str(tmp_path / "c")], capture_output=True, text=True,
                             cwd=REPO, timeout=240)
    assert missing.returncode == 1 and "no visit file" in missing.stderr
    assert not (tmp_path / "x.dxf").exists() and not (tmp_path / "c").exists()


def test_all_formats_from_one_read_a_folder_each(sample, monkeypatch):
    """``--format all``: the visit is read once; each format's folder holds what that format
    alone writes (the same layers and counts, the same CRS), the one-file formats named after
    the visit."""
    import fieldapp.report.content as content
    from fieldapp.export import FORMATS, export_visit

    reads = []
    real = content.load_visit
    monkeypatch.setattr(content, "load_visit", lambda p: reads.append(p) or real(p))
    out = sample["folder"] / "out-all"
    r = export_visit(sample["path"], out, "all")
    assert len(reads) == 1 and r.format == "all" and r.layers == EXPECTED
    assert sorted(p.name for p in out.iterdir()) == sorted(FORMATS)
    for fmt, crs in (("geojson", "EPSG:4326"), ("csv", "EPSG:4326"), ("shp", "EPSG:3070")):
        for name, n in EXPECTED.items():
            info = pyogrio.read_info(out / fmt / f"{name}.{fmt}")
            assert (info["features"], info["crs"]) == (n, crs), (fmt, name)
    kml = out / "kml" / "mill-creek.kml"
    assert sorted(pyogrio.list_layers(kml)[:, 0]) == sorted(pyogrio.list_layers(
        export_visit(sample["path"], sample["folder"] / "one.kml", "kml").path)[:, 0])
    import ezdxf

    doc = ezdxf.readfile(out / "dxf" / "mill-creek.dxf")
    assert len(doc.modelspace().query("POINT[layer=='tree']")) == EXPECTED["tree"]
    with pytest.raises(FileExistsError):
        export_visit(sample["path"], out, "all")           # never replaced without force
    assert export_visit(sample["path"], out, "all", force=True).layers == EXPECTED


def test_cli_all_formats(sample):
    out = sample["folder"] / "cli-all"
    run = subprocess.run([sys.executable, "-m", "fieldapp", "export", str(sample["path"]), "--format", "all",
                          "-o", str(out)], capture_output=True, text=True, timeout=600,
                         env={**os.environ, "PYTHONPATH": str(REPO)})
    assert run.returncode == 0, run.stderr
    assert (f"{out} (all, geojson EPSG:4326; kml EPSG:4326; shp EPSG:3070; csv EPSG:4326; dxf EPSG:3070;"
            " gpkg EPSG:3070)") in run.stdout
    assert sorted(p.name for p in out.iterdir()) == ["csv", "dxf", "geojson", "gpkg", "kml", "shp"]


def test_all_formats_onto_a_file_needs_force_then_replaces_it(sample):
    from fieldapp.export import ExportExists, export_visit

    afile = sample["folder"] / "afile"
    afile.write_text("notes")
    with pytest.raises(ExportExists, match="use --force"):
        export_visit(sample["path"], afile, "all")
    assert afile.read_text() == "notes"
    r = export_visit(sample["path"], afile, "ALL", force=True)     # any case, as on the command line
    assert r.format == "all"
    assert sorted(p.name for p in afile.iterdir()) == ["csv", "dxf", "geojson", "gpkg", "kml", "shp"]


def test_force_removes_the_layers_the_visit_no_longer_has_and_keeps_other_files(sample, tmp_path):
    """The tester's case: every tree deleted, then exported again with --force into the same
    folder: tree.geojson is gone (it was still there with 25 trees), a file of the user's stays."""
    import shutil

    from fieldapp.export import MANIFEST, export_visit
    from fieldapp.store import open_visit
    from fieldapp.survey import Layer

    visit = tmp_path / "v.gpkg"
    shutil.copyfile(sample["path"], visit)
    out = tmp_path / "out"
    export_visit(visit, out, "all")
    (out / "geojson" / "mynotes.txt").write_text("keep me")
    assert (out / "geojson" / "tree.geojson").is_file() and (out / "shp" / "tree.dbf").is_file()
    with open_visit(visit) as store:
        for t in store.visit.features(Layer.TREE):
            store.visit.delete(Layer.TREE, t.uuid)
    r = export_visit(visit, out, "all", force=True)
    assert "tree" not in r.layers
    assert not (out / "geojson" / "tree.geojson").exists()
    assert not list((out / "shp").glob("tree.*")) and not (out / "csv" / "tree.csv").exists()
    assert (out / "geojson" / "mynotes.txt").read_text() == "keep me"
    assert (out / "geojson" / "transect.geojson").is_file() and (out / "geojson" / MANIFEST).is_file()
