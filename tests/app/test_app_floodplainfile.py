"""A floodplain (F-1) loaded from a file: GeoPackage / Shapefile / GeoJSON polygons reprojected
to the site CRS and added as floodplain areas; files without a CRS or without polygons refused
in field words. Site in UTM 16N; the files in WGS 84 (or the site CRS) as the county gives them."""

from __future__ import annotations

import json

import numpy as np
import pyogrio
import pytest
import shapely
from pyproj import Transformer
from shapely.geometry import LineString, MultiPolygon, Polygon

from fieldapp.app.floodplainfile import FloodplainFileError, load_floodplains
from fieldapp.checks import requests_for_model
from fieldapp.rules import evaluate
from fieldapp.survey import Layer, Visit

X0, Y0 = 500_000.0, 4_983_000.0
FT = 0.3048
TO_LL = Transformer.from_crs("EPSG:32616", "EPSG:4326", always_xy=True)


def box(x0, y0, x1, y1):
    return Polygon([(X0 + x0 * FT, Y0 + y0 * FT), (X0 + x1 * FT, Y0 + y0 * FT),
                    (X0 + x1 * FT, Y0 + y1 * FT), (X0 + x0 * FT, Y0 + y1 * FT)])


def to_ll(g):
    return shapely.transform(g, lambda xy: np.column_stack(TO_LL.transform(xy[:, 0], xy[:, 1])))


def write(path, geoms, crs, driver=None, geometry_type="Polygon"):
    pyogrio.raw.write(str(path), np.array([shapely.to_wkb(g) for g in geoms], dtype=object), [], [],
                      driver=driver, geometry_type=geometry_type, crs=crs)


@pytest.fixture
def visit():
    return Visit.new("Mill Creek lot", crs="EPSG:32616", who="tester@laptop")


def test_a_geopackage_in_wgs84_lands_on_the_site_and_excepts_the_drainageway(visit, tmp_path):
    p = tmp_path / "county_f1.gpkg"
    write(p, [to_ll(box(300, -200, 600, 200)), to_ll(box(800, -50, 900, 50))], "EPSG:4326")
    line = visit.add_line("drainageway_centreline", LineString([(X0, Y0), (X0 + 400 * FT, Y0)]),
                          mapped_stream=True, label="C1")
    added, words = load_floodplains(visit, p, "F-1")
    assert [a.label for a in added] == ["F-1 (1 of 2)", "F-1 (2 of 2)"]
    areas = visit.features(Layer.AREA)
    assert [a.kind.value for a in areas] == ["floodplain", "floodplain"]
    # reprojected back onto the site: the same box within a millimetre
    assert areas[0].geometry.symmetric_difference(box(300, -200, 600, 200)).area < 1e-3
    grid_sqft = (300 * 400 + 100 * 100)
    assert words.startswith(f"Loaded 2 floodplain areas from county_f1.gpkg: {grid_sqft / 0.9996**2 / 43560:,.2f} ac")
    res = evaluate(requests_for_model(visit)[f"drainageway:{line.uuid}"][1])
    assert res["floodplain_excepted_ft"] == pytest.approx(100 / 0.9996, abs=1e-3)


def test_a_geojson_multipolygon_is_split_and_lines_are_skipped(visit, tmp_path):
    p = tmp_path / "f1.geojson"
    mp = to_ll(MultiPolygon([box(0, 0, 10, 10), box(20, 0, 30, 10)]))
    ln = to_ll(LineString([(X0, Y0), (X0 + 10, Y0)]))
    p.write_text(json.dumps({"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {}, "geometry": shapely.geometry.mapping(g)} for g in (mp, ln)]}),
        encoding="utf-8")
    added, words = load_floodplains(visit, p)
    assert [a.label for a in added] == ["f1 (1 of 2)", "f1 (2 of 2)"]
    assert words.endswith("; skipped 1 feature that is not a polygon")


@pytest.mark.filterwarnings("ignore:'crs' was not provided")
def test_refused_in_field_words(visit, tmp_path):
    shp = tmp_path / "noprj.shp"
    write(shp, [box(0, 0, 10, 10)], None, driver="ESRI Shapefile")
    with pytest.raises(FloodplainFileError, match="noprj.shp has no coordinate reference system.*needs its .prj"):
        load_floodplains(visit, shp)
    lines = tmp_path / "lines.gpkg"
    write(lines, [LineString([(X0, Y0), (X0 + 10, Y0)])], "EPSG:32616", geometry_type="LineString")
    with pytest.raises(FloodplainFileError, match="lines.gpkg holds no polygon: a floodplain must be an area"):
        load_floodplains(visit, lines)
    with pytest.raises(FloodplainFileError, match="does not exist"):
        load_floodplains(visit, tmp_path / "gone.gpkg")
    assert visit.features(Layer.AREA) == []
