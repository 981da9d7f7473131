"""Device readings kept (store schema 5): the caliper's and the rangefinder's sentences behind a
tree or a station, in the visit GeoPackage's ``device_reading`` table, and the migration of an
older visit to it."""

from __future__ import annotations

import math
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pyogrio
import pytest

from devices.readings import CaliperReading, LengthUnit, RangefinderShot, ShotKind
from fieldapp.store import create_visit, inspect, open_visit
from fieldapp.store import schema as S
from fieldapp.survey.features import Instrument, Layer
from fieldapp.survey.visit import Visit
from tests.gpkgtools import st_connect, validate_gpkg

V1 = Path(__file__).resolve().parents[1] / "data" / "visit_schema1.gpkg"

CALIPER_RAW = b"$PHGF,SPC,3,RO*49\n$PHGF,DIA,312*5D"
SHOT_RAW = b"$PLTIT,HV,30.00,F,0.00,D,2.29,D,30.02,F*6A"
T0 = datetime(2024, 6, 3, 15, 0, 0, tzinfo=UTC)
X, Y = 500_000.0, 4_800_000.0


def meta_version(path: Path) -> str:
    conn = st_connect(path)
    try:
        return conn.execute("SELECT value FROM fieldapp_meta WHERE key = 'schema_version'").fetchone()[0]
    finally:
        conn.close()


def table_info(path: Path, table: str) -> list[tuple]:
    """(name, type, notnull, default, pk) of every column, in order."""
    conn = st_connect(path)
    try:
        return [r[1:] for r in conn.execute(f'PRAGMA table_info("{table}")')]
    finally:
        conn.close()


def schema_4_copy(path: Path) -> None:
    """Make ``path`` (a new visit, no device readings) what schema 4 wrote: no device_reading
    table, no gpkg_contents row for it, schema_version 4 (nor what later schemas added)."""
    from tests.store.test_store_migration import schema_4_copy as copy

    copy(path)


def caliper(t_monotonic_s: float = 0.0) -> CaliperReading:
    return CaliperReading(dbh_in=312 / 25.4, dbh_cm=31.2, species_number=3, species_label="RO",
                          protocol="digitech", raw=CALIPER_RAW, t_monotonic_s=t_monotonic_s)


def shot() -> RangefinderShot:
    return RangefinderShot.build(kind=ShotKind.HV, protocol="trupulse", units=LengthUnit.FEET,
                                 horizontal=30.0, slope=30.02, inclination_deg=2.29, raw=SHOT_RAW)


def visit_with_readings() -> tuple[Visit, str, str]:
    """A visit (EPSG:32616, clock at T0) with a caliper tree and a rangefinder station."""
    v = Visit.new("Readings lot", crs="EPSG:32616", who="crew@laptop", clock=lambda: T0)
    tree = v.add_tree(x=X, y=Y, caliper=caliper())
    p = v.add_ohwm_offset_point((X, Y), 90.0, horizontal_ft=10.0)
    t = v.add_transect(0.0, ohwm_point_uuid=p.uuid)
    st = v.add_station(t.uuid, shot=shot())
    return v, tree.uuid, st.uuid


def test_a_caliper_tree_and_a_rangefinder_station_point_at_their_kept_sentences(tmp_path):
    path = tmp_path / "visit.gpkg"
    v, tree_uuid, station_uuid = visit_with_readings()
    create_visit(path, v).close()
    with open_visit(path, readonly=True) as store:
        back = store.visit
        tree = back.get(Layer.TREE, tree_uuid)
        station = back.get(Layer.STATION, station_uuid)
        kept = {r.uuid: r for r in back.features(Layer.DEVICE_READING)}
    assert set(kept) == {tree.caliper_reading_id, station.reading_id}
    cal = kept[tree.caliper_reading_id]
    assert (cal.device, cal.protocol, cal.raw, cal.received_utc) == (Instrument.CALIPER, "digitech",
                                                                    CALIPER_RAW, T0)
    rf = kept[station.reading_id]
    assert (rf.device, rf.protocol, rf.raw) == (Instrument.RANGEFINDER, "trupulse", SHOT_RAW)
    assert station.segment_ft == pytest.approx(30.0)
    assert station.slope_pct == pytest.approx(100 * math.tan(math.radians(2.29)))
    # in SQLite and through GDAL: a plain attribute table, the bytes as the instrument sent them
    conn = st_connect(path)
    assert conn.execute("SELECT data_type, srs_id FROM gpkg_contents WHERE table_name = 'device_reading'"
                        ).fetchone() == ("attributes", None)
    assert conn.execute("SELECT device, received_utc, raw FROM device_reading WHERE uuid = ?",
                        (tree.caliper_reading_id,)).fetchone() == ("caliper", "2024-06-03T15:00:00.000Z",
                                                                   CALIPER_RAW)
    assert conn.execute("SELECT caliper_reading_id FROM tree").fetchone() == (cal.uuid,)
    conn.close()
    info = pyogrio.read_info(path, layer="device_reading")
    assert info["features"] == 2 and info["geometry_type"] is None
    assert list(info["fields"])[-4:] == ["device", "protocol", "received_utc", "raw"]
    validate_gpkg(path)


def test_the_receive_time_is_when_the_sentence_came_not_when_the_tree_was_recorded():
    # a caliper reading that waited 42.5 s for a usable fix keeps the time it came in
    import time

    v = Visit.new("Wait lot", crs="EPSG:32616", who="crew@laptop", clock=lambda: T0)
    tree = v.add_tree(x=X, y=Y, caliper=caliper(t_monotonic_s=time.monotonic() - 42.5))
    kept = v.get(Layer.DEVICE_READING, tree.caliper_reading_id)
    assert T0 - kept.received_utc == pytest.approx(timedelta(seconds=42.5), abs=timedelta(seconds=1))


def test_undo_takes_the_reading_with_its_tree_and_a_typed_tree_keeps_none():
    v = Visit.new("Undo lot", crs="EPSG:32616", who="crew@laptop", clock=lambda: T0)
    v.add_tree(x=X, y=Y, caliper=caliper())
    assert len(v.features(Layer.DEVICE_READING)) == 1
    v.undo()
    assert v.features(Layer.DEVICE_READING) == [] and v.trees() == []
    typed = v.add_tree(x=X, y=Y, dbh_in=10.0)
    assert typed.caliper_reading_id is None and v.features(Layer.DEVICE_READING) == []


def test_a_schema_4_visit_migrates_to_the_device_reading_table_and_records_readings(tmp_path):
    fresh = tmp_path / "new.gpkg"
    create_visit(fresh, Visit.new("new", crs="EPSG:32616", who="t")).close()
    p = tmp_path / "four.gpkg"
    v = Visit.new("four", crs="EPSG:32616", who="t")
    typed = v.add_tree(x=X, y=Y, dbh_in=11.0, species_code="QURU")
    create_visit(p, v).close()
    schema_4_copy(p)
    assert inspect(p)["schema_version"] == "4"
    conn = st_connect(p)
    assert conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'device_reading'").fetchone() == (0,)
    conn.close()
    with open_visit(p, readonly=True) as store:     # read as it is: no readings, not migrated
        assert store.visit.features(Layer.DEVICE_READING) == []
        assert store.counts()["device_reading"] == 0
    assert meta_version(p) == "4"
    with open_visit(p) as store:                    # opened for recording: migrated to 5
        assert meta_version(p) == str(S.SCHEMA_VERSION)
        tree = store.visit.add_tree(x=X + 5, y=Y, caliper=caliper())
    assert table_info(p, "device_reading") == table_info(fresh, "device_reading")
    validate_gpkg(p)
    with open_visit(p, readonly=True) as store:
        (kept,) = store.visit.features(Layer.DEVICE_READING)
        assert kept.raw == CALIPER_RAW and store.visit.get(Layer.TREE, tree.uuid).caliper_reading_id == kept.uuid
        assert store.visit.get(Layer.TREE, typed.uuid).caliper_reading_id is None


def test_the_schema_1_visit_migrates_to_6_and_passes_the_validator(tmp_path):
    p = tmp_path / "old.gpkg"
    shutil.copyfile(V1, p)
    with open_visit(p) as store:
        store.visit.add_tree(x=X, y=Y, caliper=caliper())
    assert meta_version(p) == str(S.SCHEMA_VERSION)
    assert pyogrio.read_info(p, layer="device_reading")["features"] == 1
    validate_gpkg(Path(p))
