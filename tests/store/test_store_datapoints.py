"""Wetland data points (store schema 6): the data_point table round trip, pairing, undo, delete,
and a schema 5 file migrated to 6 on opening."""

from __future__ import annotations

import json
from pathlib import Path

import pyogrio
import pytest

from fieldapp.store import create_visit, open_visit
from fieldapp.store import schema as S
from fieldapp.survey import AreaKind, InvalidValue, Layer, Visit
from fieldapp.survey.features import DataPoint, DataPointRole, WetlandRegion
from tests.gpkgtools import st_connect
from tests.store.test_store import Fix

FORM = {"plot": "DP-1", "region": "northcentral-northeast",
        "indicators": {"Acer rubrum": "FAC", "Typha latifolia": "OBL"},
        "vegetation": {"tree": [{"species": "Acer rubrum", "cover": 40}], "sapling_shrub": [],
                       "herb": [{"species": "Typha latifolia", "cover": 60}], "woody_vine": []},
        "hydrology": {"primary": ["A2"], "secondary": ["D2"]}, "soil": {"indicators": ["F6"]}}
YES = {"hydrophytic_vegetation": True, "hydric_soil": True, "wetland_hydrology": True, "wetland": True}


E0, N0 = 500_000.0, 4_982_950.0   # UTM 16N near 45 N 87 W


def wetland_walk(visit: Visit) -> str:
    """A 100 ft x 100 ft wetland walked from (E0, N0); its walk uuid."""
    w = visit.start_walk(AreaKind.WETLAND, spacing_ft=3, label="W1")
    for dx, dy in [(0, 0), (30.48, 0), (30.48, 30.48), (0, 30.48)]:
        w.feed_xy(E0 + dx, N0 + dy)
    w.close()
    return w.uuid


@pytest.fixture
def visit():
    return Visit.new("Marsh lot", crs="EPSG:32616", who="tester@laptop")


def test_a_pair_round_trips_with_form_and_determination_as_columns(tmp_path, visit):
    p = tmp_path / "v.gpkg"
    store = create_visit(p, visit)
    walk = wetland_walk(visit)
    wet = visit.add_data_point(role="wetland", x=E0 + 15.0, y=N0 + 15.0, form=FORM, determination=YES)
    up = visit.add_data_point(role="upland", fix=Fix(45.0, -87.0))  # placed by GNSS
    assert (wet.name, up.name) == ("DP-1", "DP-2")
    visit.pair_data_points(wet.uuid, up.uuid, walk)
    store.close()
    with open_visit(p) as again:
        back = {d.name: d for d in again.visit.features(Layer.DATA_POINT)}
    assert back["DP-1"] == visit.get(Layer.DATA_POINT, wet.uuid)
    assert back["DP-2"] == visit.get(Layer.DATA_POINT, up.uuid)
    assert back["DP-1"].pair_uuid == up.uuid and back["DP-2"].pair_uuid == wet.uuid
    assert back["DP-1"].boundary_uuid == walk == back["DP-2"].boundary_uuid
    assert json.loads(back["DP-1"].form_json)["indicators"] == {"Acer rubrum": "FAC", "Typha latifolia": "OBL"}
    assert back["DP-2"].quality == 1 and back["DP-2"].hdop == 0.9 and back["DP-2"].h_accuracy_m == 0.5
    assert back["DP-1"].quality is None        # placed on the map
    # the office reads plain 0/1 / NULL columns in QGIS
    conn = st_connect(p)
    rows = dict((r[0], r[1:]) for r in conn.execute(
        "SELECT name, role, region, hydrophytic_vegetation, hydric_soil, wetland_hydrology, wetland"
        " FROM data_point"))
    conn.close()
    assert rows == {"DP-1": ("wetland", "northcentral-northeast", 1, 1, 1, 1),
                    "DP-2": ("upland", "northcentral-northeast", None, None, None, None)}
    info = pyogrio.read_info(p, layer="data_point")
    assert info["geometry_type"] == "Point" and info["features"] == 2 and info["crs"] == "EPSG:32616"


def test_form_update_undo_and_delete_unpairs(visit):
    walk = wetland_walk(visit)
    wet = visit.add_data_point(role=DataPointRole.WETLAND, x=E0 + 15.0, y=N0 + 15.0)
    up = visit.add_data_point(role=DataPointRole.UPLAND, x=E0 + 45.0, y=N0 + 15.0, region=WetlandRegion.MIDWEST)
    visit.pair_data_points(wet.uuid, up.uuid, walk)
    new = visit.update_data_point(wet.uuid, form=FORM, determination=YES)
    assert new.wetland is True and json.loads(new.form_json)["plot"] == "DP-1"
    visit.undo()
    assert visit.record(DataPoint, wet.uuid).wetland is None
    visit.delete(Layer.DATA_POINT, up.uuid)
    assert visit.record(DataPoint, wet.uuid).pair_uuid is None    # its partner is gone
    visit.undo()
    assert visit.record(DataPoint, wet.uuid).pair_uuid == up.uuid


def test_refusals_in_words(visit):
    walk = wetland_walk(visit)
    a = visit.add_data_point(role="wetland", x=E0 + 1.0, y=N0 + 1.0)
    b = visit.add_data_point(role="wetland", x=E0 + 2.0, y=N0 + 1.0)
    with pytest.raises(InvalidValue, match="one wetland and one upland"):
        visit.pair_data_points(a.uuid, b.uuid, walk)
    with pytest.raises(InvalidValue, match="role"):
        visit.add_data_point(role="maybe", x=E0 + 1.0, y=N0 + 1.0)
    with pytest.raises(InvalidValue, match="region"):
        visit.add_data_point(role="upland", region="alaska", x=E0 + 1.0, y=N0 + 1.0)
    imp = visit.add_area(AreaKind.IMPERVIOUS, [(E0 + 100, N0), (E0 + 110, N0), (E0 + 110, N0 + 10)])
    with pytest.raises(InvalidValue, match="not a wetland"):
        visit.add_data_point(role="upland", x=E0 + 1.0, y=N0 + 1.0, boundary_uuid=imp.uuid)


def test_a_schema_5_file_migrates_to_6_with_the_data_point_table(tmp_path):
    from tests.store.test_store_migration import schema_5_copy, table_info

    fresh = tmp_path / "fresh.gpkg"
    create_visit(fresh, Visit.new("fresh", crs="EPSG:32616", who="t")).close()
    p = tmp_path / "v5.gpkg"
    create_visit(p, Visit.new("five", crs="EPSG:32616", who="t")).close()
    schema_5_copy(p)
    with open_visit(p) as store:        # opened for recording: migrated
        store.visit.add_data_point(role="upland", x=E0 + 10.0, y=N0 + 10.0)
    conn = st_connect(p)
    version = conn.execute("SELECT value FROM fieldapp_meta WHERE key = 'schema_version'").fetchone()[0]
    assert version == str(S.SCHEMA_VERSION)
    assert conn.execute("SELECT geometry_type_name, srs_id FROM gpkg_geometry_columns"
                        " WHERE table_name = 'data_point'").fetchone() == ("POINT", 32616)
    conn.close()
    assert table_info(p, "data_point") == table_info(fresh, "data_point")
    assert S.ADDED_TABLES[6] == (Layer.DATA_POINT,)


def test_the_migrated_file_passes_the_gdal_validator(tmp_path):
    from tests.store.test_store_migration import schema_5_copy
    from tests.store.test_store_readings import validate_gpkg

    p = tmp_path / "v5.gpkg"
    create_visit(p, Visit.new("five", crs="EPSG:32616", who="t")).close()
    schema_5_copy(p)
    with open_visit(p) as store:
        store.visit.add_data_point(role="wetland", x=E0, y=N0)
    assert pyogrio.read_info(p, layer="data_point")["features"] == 1
    validate_gpkg(Path(p))
