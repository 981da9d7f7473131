"""The raw track exported in bulk (fieldapp.export._track_layer): the same rows the per-record
path gives any layer; every fix in GeoJSON, one path in KML and DXF."""

from __future__ import annotations

import ezdxf
import numpy as np
import pytest
import shapely
from pyogrio.raw import read

from fieldapp.export import _track_layer, export_visit
from fieldapp.report.content import load_visit
from fieldapp.store import schema as S
from fieldapp.survey import Layer
from tests.track_sample import visit_with_track


@pytest.fixture
def track_visit(tmp_path):
    path = tmp_path / "v.gpkg"
    visit_with_track(path)
    return path


def test_bulk_rows_are_the_per_record_rows(track_visit):
    visit = load_visit(track_visit)
    want = [["Track point", f.uuid, S.utc_text(f.created_utc), S.utc_text(f.modified_utc), f.created_by]
            + [S.to_sql(c, getattr(f, c.field)) for c in S.columns(Layer.TRACK)] for f in visit.track()]
    data = _track_layer(visit)
    assert list(data.rows) == want
    assert [c for c, _ in data.columns][5:] == [c.name for c in S.columns(Layer.TRACK)]
    # by hand (columns 5.. t_utc, lon, lat, alt, quality, sats): fid 6 has no quality and no
    # time, fid 3 no satellite count; fix 4 was autonomous
    assert data.rows[5][5] is None and data.rows[5][9] is None and data.rows[4][9] == 1
    assert data.rows[2][10] is None and data.rows[0][10] == 14
    assert data.rows[3][5] == "2024-06-03T15:00:00.400Z"


def test_geojson_has_every_fix_kml_and_dxf_one_path(track_visit, tmp_path):
    visit = load_visit(track_visit)
    xy = np.column_stack([visit.track_log.columns()["x"], visit.track_log.columns()["y"]])
    export_visit(track_visit, tmp_path / "gj", "geojson")
    meta, _, geoms, fields = read(str(tmp_path / "gj" / "track_point.geojson"))
    got = dict(zip(meta["fields"], fields, strict=True))
    assert len(geoms) == 12 and list(got["uuid"]) == list(visit.track_log.columns()["uuid"])
    assert got["quality"][4] == 1 and np.isnan(got["quality"][5])   # fid 6: no quality
    lon, lat = (shapely.get_coordinates(shapely.from_wkb(geoms)).T)
    assert lon == pytest.approx(got["lon_deg"], abs=1e-9) and lat == pytest.approx(got["lat_deg"], abs=1e-9)
    export_visit(track_visit, tmp_path / "v.kml", "kml")
    meta, _, geoms, fields = read(str(tmp_path / "v.kml"), layer="track_point")
    (path,) = shapely.from_wkb(geoms)
    assert path.geom_type == "LineString" and len(path.coords) == 12
    assert int(dict(zip(meta["fields"], fields, strict=True))["fixes"][0]) == 12
    r = export_visit(track_visit, tmp_path / "v.dxf", "dxf")
    assert r.layers["track_point"] == 12
    (line,) = ezdxf.readfile(tmp_path / "v.dxf").modelspace().query('LWPOLYLINE[layer=="track_point"]')
    assert np.array(list(line.get_points("xy"))) == pytest.approx(xy)
