"""Issue 35 item 5 in the report: a transect's azimuth is printed as typed (true), and each
compass-shot station with what was measured (magnetic), the declination applied and how far the
shot ran off the line; an offset point keeps both azimuths (store schema 7)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from fieldapp.report.content import gather
from fieldapp.report.sections import profile_intro
from fieldapp.store import create_visit, open_visit
from fieldapp.survey.gnss import North
from fieldapp.survey.visit import Visit

X, Y = 500_000.0, 4_800_000.0


def shot(az: float) -> SimpleNamespace:
    return SimpleNamespace(horizontal_distance_ft=30.0, slope_distance_ft=None, inclination_deg=2.0,
                           azimuth_deg=az, raw=None)


def test_report_prints_the_magnetic_shot_the_declination_and_the_offset_from_the_line(tmp_path):
    v = Visit.new("Az", crs="EPSG:32616")
    v.set_declination(-1.18, "entered")
    p = v.add_ohwm_offset_point((X, Y), 350.0, north=North.MAGNETIC, horizontal_ft=20.0)
    assert (p.azimuth_mag_deg, p.declination_deg, p.azimuth_true_deg) == (350.0, -1.18, pytest.approx(348.82))
    t = v.add_transect(350.0, ohwm_point_uuid=p.uuid)
    v.add_station(t.uuid, horizontal_ft=30.0, slope_deg=2.0, shot=shot(350.0))
    path = tmp_path / "az.gpkg"
    create_visit(path, v).close()
    with open_visit(path, readonly=True) as store:     # kept in the file: what was measured and applied
        q = store.visit.features("ohwm_point")[0]
        assert (q.azimuth_mag_deg, q.declination_deg) == (350.0, -1.18)
        content = gather(store.visit, path)
    prof = content.transects[0]
    title, verdict = profile_intro(prof)
    assert title.endswith("(landward azimuth 350.0° true, as typed)")
    text = verdict.text
    assert "shot at 350.0° magnetic + declination -1.18° = 348.8° true, 1.2° off the line (350.0° true)" in text


def test_stations_shot_alike_are_named_together(tmp_path):
    """Seen in the demo's report: ten stations shot along the transect printed "N ft: shot at
    350.0° magnetic + declination -1.18° = 348.8° true, 1.2° off the line (350.0° true)" ten
    times; stations shot alike are named once, together, and one shot otherwise stands apart."""
    v = Visit.new("Az", crs="EPSG:32616")
    v.set_declination(-1.18, "entered")
    p = v.add_ohwm_offset_point((X, Y), 350.0, north=North.MAGNETIC, horizontal_ft=20.0)
    t = v.add_transect(350.0, ohwm_point_uuid=p.uuid)
    for az in (350.0, 350.0, 352.0, 350.0):
        v.add_station(t.uuid, horizontal_ft=30.0, slope_deg=2.0, shot=shot(az))
    path = tmp_path / "az.gpkg"
    create_visit(path, v).close()
    with open_visit(path, readonly=True) as store:
        prof = gather(store.visit, path).transects[0]
    text = " ".join(profile_intro(prof)[1].text.split())
    alike = ("shot at 350.0° magnetic + declination -1.18° = 348.8° true, 1.2° off the line"
             " (350.0° true)")
    assert f"30.0, 60.0 and 120.0 ft: {alike}" in text, text
    assert text.count(alike) == 1
    assert "90.0 ft: shot at 352.0° magnetic" in text
