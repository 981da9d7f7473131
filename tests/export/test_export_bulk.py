"""The day's track written in one call through GDAL's Arrow interface (issue 33, goal 3), and the
DXF's tree attributes made from their definitions once per layer: every row and every field
still in every format. The Arrow path's files are compared byte for byte with the row path's
(the path the track took before), and every fix is read back field by field from each GIS
format; the DXF's ATTRIBs are compared with those ezdxf's ``add_auto_attribs`` makes."""

from __future__ import annotations

import csv
import json
import math
import sys

import ezdxf
import numpy as np
import pytest
import shapely
from pyogrio.raw import read

from fieldapp.export import _track_layer, export_visit, gdal
from fieldapp.report.content import load_visit
from tests.report.test_report_visit import build_sample_visit
from tests.track_sample import visit_with_track

GIS = ("geojson", "csv", "shp")


@pytest.fixture(scope="module")
def track_visit(tmp_path_factory):
    path = tmp_path_factory.mktemp("bulk") / "v.gpkg"
    visit_with_track(path, n=40)
    return path


def _files(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.name.startswith("track_point")}


@pytest.mark.parametrize("fmt", GIS)
def test_the_arrow_path_writes_the_row_paths_file_byte_for_byte(track_visit, tmp_path, monkeypatch, fmt):
    if sys.platform == "win32":
        pytest.skip("the Windows stage, like the Windows bundle (packaging/fieldapp.spec), has no pyarrow:"
                    " the row path is the one used there, and every other export test runs it")
    assert gdal.arrow_available()       # the test extra installs pyarrow
    through_arrow = []
    real = gdal._write_bulk_arrow
    monkeypatch.setattr(gdal, "_write_bulk_arrow", lambda data, *a: through_arrow.append(data.name) or real(data, *a))
    export_visit(track_visit, tmp_path / "arrow", fmt)
    assert through_arrow[:1] == ["track_point"]
    monkeypatch.setattr(gdal, "arrow_available", lambda: False)  # the row path, as without pyarrow
    export_visit(track_visit, tmp_path / "rows", fmt)
    arrow, rows = _files(tmp_path / "arrow"), _files(tmp_path / "rows")
    assert len(arrow) >= (5 if fmt == "shp" else 2 if fmt == "csv" else 1)
    assert arrow == rows


def _gpkg_content(path):
    """Every table's schema and rows of a GeoPackage, but the times each layer and its style
    were written."""
    import sqlite3

    with sqlite3.connect(path) as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        schema = sorted(conn.execute("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"))
        rows = {}
        for t in tables:
            if t != "gpkg_contents" and not t.startswith("rtree_"):
                cur = conn.execute(f'SELECT * FROM "{t}"')
                keep = [i for i, d in enumerate(cur.description) if d[0] != "update_time"]  # layer_styles'
                rows[t] = sorted(repr([r[i] for i in keep]) for r in cur)
        contents = sorted(conn.execute("SELECT table_name, data_type, identifier, min_x, min_y, max_x, max_y,"
                                       " srs_id FROM gpkg_contents"))
        # the R-tree's boxes (its node pages are laid out as the rows came: compared by entry)
        boxes = {t: sorted(conn.execute(f'SELECT * FROM "{t}"')) for t in tables
                 if t.startswith("rtree_") and t.count("_") >= 2 and not t.endswith(("_node", "_parent", "_rowid"))}
    return schema, rows, contents, boxes


def test_the_arrow_path_writes_the_row_paths_geopackage(track_visit, tmp_path, monkeypatch):
    """The GeoPackage gets the track as a layer added through the Arrow interface: every table,
    column, row and R-tree entry is the row path's (the file differs only in the time each
    layer was written)."""
    if sys.platform == "win32":
        pytest.skip("the Windows stage has no pyarrow (as in test_the_arrow_path_writes_the_row_paths_file_...)")
    through_arrow = []
    real = gdal._write_bulk_arrow
    monkeypatch.setattr(gdal, "_write_bulk_arrow", lambda data, *a: through_arrow.append(data.name) or real(data, *a))
    export_visit(track_visit, tmp_path / "arrow.gpkg", "gpkg")
    assert through_arrow == ["track_point"]
    monkeypatch.setattr(gdal, "arrow_available", lambda: False)
    export_visit(track_visit, tmp_path / "rows.gpkg", "gpkg")
    arrow, rows = _gpkg_content(tmp_path / "arrow.gpkg"), _gpkg_content(tmp_path / "rows.gpkg")
    assert len(arrow[1]["track_point"]) == 40
    assert arrow == rows


def _same(want, got):
    if want is None:
        return got is None or got == "" or (isinstance(got, float) and math.isnan(got))
    if isinstance(want, float) or isinstance(got, float):
        return float(got) == pytest.approx(float(want), rel=1e-12)
    return str(got) == str(want)


@pytest.mark.parametrize("fmt", GIS)
def test_every_fix_and_every_field_is_read_back(track_visit, tmp_path, fmt):
    """A dropped row, a dropped column or a value gone null fails here, in each format."""
    data = _track_layer(load_visit(track_visit))
    names = [c for c, _ in data.columns]
    want = list(data.rows)
    export_visit(track_visit, tmp_path / fmt, fmt)
    f = tmp_path / fmt / f"track_point.{fmt}"
    meta, _, geoms, fields = read(str(f), encoding="UTF-8")
    got_names = list(meta["fields"])
    if fmt == "geojson":    # its text as written (GDAL would read the times as datetimes)
        feats = json.loads(f.read_text(encoding="utf-8"))["features"]
        fields = [[ft["properties"].get(n) for ft in feats] for n in got_names]
    if fmt == "shp":        # 10-character names: the map beside the files gives the full ones
        with open(tmp_path / fmt / gdal.FIELD_NAMES_FILE, encoding="utf-8", newline="") as fh:
            full = {r["shapefile_field"]: r["field"] for r in csv.DictReader(fh) if r["layer"] == "track_point"}
        got_names = [full[n] for n in got_names]
    if fmt == "csv":
        got_names = [n for n in got_names if not n.startswith("_WKT_")]
        fields = [v for n, v in zip(meta["fields"], fields, strict=True) if not n.startswith("_WKT_")]
    assert got_names == names
    assert len(geoms) == len(want) == 40
    for i, row in enumerate(want):
        for j, name in enumerate(names):
            assert _same(row[j], fields[j][i]), (fmt, i, name, row[j], fields[j][i])
    xy = shapely.get_coordinates(shapely.from_wkb(geoms))
    if fmt == "shp":        # the site CRS
        assert xy == pytest.approx(shapely.get_coordinates(data.geometries), abs=1e-6)
    else:
        lon = np.array([r[names.index("lon_deg")] for r in want])
        lat = np.array([r[names.index("lat_deg")] for r in want])
        assert xy[:, 0] == pytest.approx(lon, abs=1e-9) and xy[:, 1] == pytest.approx(lat, abs=1e-9)


def test_tree_attributes_are_those_add_auto_attribs_makes(tmp_path):
    path = tmp_path / "demo.gpkg"
    build_sample_visit(path, conflict=False)
    export_visit(path, tmp_path / "v.dxf", "dxf")
    doc = ezdxf.readfile(tmp_path / "v.dxf")
    msp = doc.modelspace()
    refs = [r for r in msp.query("INSERT") if r.dxf.name == "FA_TREE" and r.dxf.layer != "legend"]
    assert refs
    tags = [a.dxf.tag for a in doc.blocks["FA_TREE"].query("ATTDEF")]
    for ref in refs:
        assert [a.dxf.tag for a in ref.attribs] == tags        # one per column, none dropped
        again = msp.add_blockref("FA_TREE", ref.dxf.insert, dxfattribs={"layer": "again"})
        again.add_auto_attribs({a.dxf.tag: a.dxf.text for a in ref.attribs})
        for b in again.attribs:
            b.dxf.layer = ref.dxf.layer
    doc.saveas(tmp_path / "again.dxf")           # both as written: defaults left out alike
    msp = ezdxf.readfile(tmp_path / "again.dxf").modelspace()
    mine = [r for r in msp.query("INSERT") if r.dxf.name == "FA_TREE" and r.dxf.layer not in ("legend", "again")]
    theirs = [r for r in msp.query("INSERT") if r.dxf.layer == "again"]
    assert len(mine) == len(theirs) == len(refs)
    skip = {"handle", "owner"}
    for ref, again in zip(mine, theirs, strict=True):
        assert len(ref.attribs) == len(tags)
        for a, b in zip(ref.attribs, again.attribs, strict=True):
            # a shown attribute (the tag) is where the label placer put it, or hidden where it
            # found no room (test_export_dxf_labels): all else is what add_auto_attribs makes
            placed = skip | ({"insert", "align_point", "flags"} if not b.is_invisible else set())
            assert a.dxfattribs(drop=placed) == b.dxfattribs(drop=placed), a.dxf.tag
