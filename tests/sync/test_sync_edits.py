"""Corrections travel by sync like any edit (issue 13): laptop A deletes an OHWM point and
corrects a station's slope, syncs to a folder office; laptop B syncs and has the point deleted
(a row delete arrives as a delete) and its bank check evaluated again from the corrected
station."""

from __future__ import annotations

import sqlite3

from fieldapp import checks
from fieldapp.store import create_visit, open_visit
from fieldapp.survey.features import Layer
from fieldapp.survey.visit import Visit
from fieldapp.sync import FolderOffice, checkout, sync

X0, Y0 = 500000.0, 4983000.0  # UTM 16N


def _bank(model, transect_uuid):
    c = checks.Checks()
    c.refresh(model)
    return c.get(f"bank:{transect_uuid}").result


def test_deleted_point_and_corrected_station_reach_the_other_laptop(tmp_path):
    office = FolderOffice(tmp_path / "office", create=True)
    visit = Visit.new("Mill Creek lot", crs="EPSG:32616", who="a@laptop-a")
    path_a = tmp_path / "a.gpkg"
    store = create_visit(path_a, visit)
    points = [visit.add_ohwm_offset_point((X0, Y0 + 10 * i), 90.0, horizontal_ft=5.0) for i in range(6)]
    t = visit.add_transect(90.0, ohwm_point_uuid=points[0].uuid)
    # a steep stretch from 40 to 80 ft (20 %, over the 12 % threshold) past the 75 ft base:
    # the bank is where the slope eases, 80 ft (NR 341.035(1)(a)/(b))
    for seg, pct in [(40, 5), (40, 20), (40, 5), (40, 5)]:
        visit.add_station(t.uuid, horizontal_ft=seg, slope_pct=pct)
    assert _bank(visit, t.uuid)["bank_ft"] == 80.0
    store.close()
    report = sync(path_a, office)
    path_b = checkout(office, report.site_id, tmp_path / "b.gpkg")

    with open_visit(path_a, who="a@laptop-a") as store:
        store.visit.delete_record(Layer.OHWM_POINT, points[5].uuid)   # the stray offset point 6
        s2 = store.visit.stations(t.uuid)[1]
        store.visit.update_station(s2.uuid, slope_pct=5.0)            # mis-read inclination
    sync(path_a, office)
    sync(path_b, office)

    with sqlite3.connect(path_b) as conn:
        kept = {r[0] for r in conn.execute("SELECT uuid FROM ohwm_point")}
        slope = conn.execute("SELECT slope_pct FROM station WHERE uuid = ?", (s2.uuid,)).fetchone()[0]
    conn.close()
    assert kept == {p.uuid for p in points[:5]} and slope == 5.0
    with open_visit(path_b, who="b@laptop-b") as store:
        model = store.visit
        assert len(model.get(Layer.OHWM_LINE, points[0].line_uuid).geometry.coords) == 5
        # no steep stretch any more: the bank is the 75 ft base distance
        result = _bank(model, t.uuid)
        assert (result["bank_ft"], result["basis"]) == (75.0, "base")
