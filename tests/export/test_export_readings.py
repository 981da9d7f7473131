"""Exports keep the trail to the instrument: a tree recorded from the caliper and a station
shot with the rangefinder carry the id of their kept device reading (``caliper_reading_id``,
``reading_id``) into every attribute table written."""

from __future__ import annotations

from datetime import UTC, datetime

import pyogrio
import pyogrio.raw
import pytest

from devices.readings import CaliperReading, LengthUnit, RangefinderShot, ShotKind
from fieldapp.store import create_visit
from fieldapp.survey.features import Layer
from fieldapp.survey.visit import Visit

T0 = datetime(2024, 6, 3, 15, 0, 0, tzinfo=UTC)
X, Y = 500_000.0, 4_800_000.0


@pytest.mark.parametrize("fmt", ["geojson", "csv"])
def test_the_exported_tree_and_station_keep_their_reading_ids(tmp_path, fmt):
    from fieldapp.export import export_visit

    v = Visit.new("Trail lot", crs="EPSG:32616", who="crew@laptop", clock=lambda: T0)
    tree = v.add_tree(x=X, y=Y, caliper=CaliperReading(dbh_in=12.3, dbh_cm=31.2, species_number=3,
                                                       species_label="RO", raw=b"$PHGF,DIA,M,312,*1A"))
    p = v.add_ohwm_offset_point((X, Y), 90.0, horizontal_ft=10.0)
    t = v.add_transect(0.0, ohwm_point_uuid=p.uuid, label="T1")
    st = v.add_station(t.uuid, shot=RangefinderShot.build(kind=ShotKind.HV, protocol="trupulse",
                                                          units=LengthUnit.FEET, horizontal=30.0,
                                                          inclination_deg=2.0, raw=b"$PLTIT,HV,30.00,F*00"))
    kept = {r.raw: r.uuid for r in v.features(Layer.DEVICE_READING)}
    assert (tree.caliper_reading_id, st.reading_id) == (kept[b"$PHGF,DIA,M,312,*1A"], kept[b"$PLTIT,HV,30.00,F*00"])
    path = tmp_path / "v.gpkg"
    create_visit(path, v).close()
    out = tmp_path / "out"
    export_visit(path, out, fmt)
    assert column(out / f"tree.{fmt}", "caliper_reading_id") == [tree.caliper_reading_id]
    assert column(out / f"station.{fmt}", "reading_id") == [st.reading_id]


def column(path, name: str) -> list:
    """The values of one attribute column, read through GDAL."""
    meta, _, _, fields = pyogrio.raw.read(str(path), read_geometry=False)
    return list(fields[list(meta["fields"]).index(name)])
