"""Issue 29 (city chapter) from the survey model to the verdicts: a swale's tributary stations,
a floodplain and a disturbed area drawn, a disturbed wetland, the site's district and use --
in the requests fieldapp.checks builds, in their results, and through the visit file.

Site in UTM 16N at the central meridian (scale factor 0.9996), as in test_checks_fields.py.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from shapely.geometry import LineString, Polygon

from fieldapp.app import editing as E
from fieldapp.checks import requests_for_model, summary_words
from fieldapp.rules import evaluate
from fieldapp.store import create_visit, open_visit
from fieldapp.survey import InvalidValue, Layer, Visit

X0, Y0 = 500_000.0, 4_983_000.0
FT = 0.3048
CITE = "Decorah resource protection"


def clock():
    t = [datetime(2024, 6, 3, 14, 0, tzinfo=UTC)]

    def now():
        t[0] += timedelta(seconds=1)
        return t[0]
    return now


@pytest.fixture
def visit():
    return Visit.new("Mill Creek lot", crs="EPSG:32616", who="tester@laptop", clock=clock())


def box(x0_ft, y0_ft, x1_ft, y1_ft):
    return Polygon([(X0 + x0_ft * FT, Y0 + y0_ft * FT), (X0 + x1_ft * FT, Y0 + y0_ft * FT),
                    (X0 + x1_ft * FT, Y0 + y1_ft * FT), (X0 + x0_ft * FT, Y0 + y1_ft * FT)])


def swale(visit, **kw):
    # 400 grid ft east from the origin, drawn from its upstream end
    return visit.add_line("swale", LineString([(X0, Y0), (X0 + 400 * FT, Y0)]), label="S1", **kw)


def check(visit, key):
    req = requests_for_model(visit)[key][1]
    return req, evaluate(req)


def test_tributary_stations_floodplain_and_disturbance(visit):
    s = swale(visit, tributary_stations="0 : 2;200:6")
    assert s.tributary_stations == "0:2; 200:6"            # normalised as stored
    visit.add_area("floodplain", box(300, -200, 600, 200), label="F-1")
    visit.add_area("disturbed", box(160, 0, 200, 100), label="pad")
    req, res = check(visit, f"drainageway:{s.uuid}")
    inp = req["input"]
    assert inp["tributary_stations"] == [{"station_ft": 0.0, "tributary_area_ac": 2.0},
                                         {"station_ft": 200.0, "tributary_area_ac": 6.0}]
    assert "tributary_area_ac" not in inp and len(inp["floodplain"]) == 1 and len(inp["disturbed"]) == 1
    # ground length 400/0.9996 ft; the 5-acre point 3/4 of the way to station 200: 150 ft;
    # the floodplain from grid 300 ft (ground 300.12 ft) on: counted 150.12 ft × 50 ft
    assert res["reach_start_ft"] == pytest.approx(150.0)
    assert res["counted_length_ft"] == pytest.approx(300 / 0.9996 - 150, abs=1e-6)
    assert res["floodplain_excepted_ft"] == pytest.approx(100 / 0.9996, abs=1e-6)
    # the pad covers 40 grid ft (40 / 0.9996 ground ft) of the strip's 25 ground ft
    assert res["disturbed_sqft"] == pytest.approx(1000 / 0.9996, rel=1e-6)
    assert res["open_space_pct"] == pytest.approx(100 * (1 - res["disturbed_sqft"] / res["area_sqft"]))
    assert res["open_space_complies"] is True and len(res["applicant_must_show"]) == 7
    assert res["citation"] == f"{CITE}, Drainageways A.2 (floodplain excepted), C, D, E"
    assert "75 % needed): complies" in summary_words("drainageway", res)
    # the pad reaches the drainageway: Erosion control C, a plan whatever the quantities
    req, res = check(visit, "erosion_plan")
    assert req["input"]["water_land_disturbed"] == ["drainageway"]
    assert (res["plan_required"], res["citation"]) == (True, f"{CITE}, Erosion control C")


def test_unreadable_stations_wait_for_a_correction(visit):
    with pytest.raises(InvalidValue):
        swale(visit, tributary_stations="0:6; 100:2")      # the area falls downstream
    s = swale(visit)
    visit.update_feature(Layer.LINE, s.uuid, tributary_stations="10:1; 300:9")
    assert check(visit, f"drainageway:{s.uuid}")[1]["reach_start_ft"] == pytest.approx(10 + 4 / 8 * 290)


def test_a_disturbed_wetland_lists_the_approvals(visit):
    w = visit.add_area("wetland", box(0, 200, 120, 320), standing_water=True, hydric_vegetation=True)
    visit.add_area("disturbed", box(110, 200, 130, 320))
    req, res = check(visit, f"wetland:{w.uuid}")
    assert req["input"]["disturbed_sqft"] == pytest.approx(10 * 120 / 0.9996 ** 2, rel=1e-6)
    assert res["undisturbed_complies"] is False and res["citation"] == f"{CITE}, Wetlands A, C, D, E"
    assert any("Iowa Department of Natural Resources" in x for x in res["applicant_must_show"])


def test_site_district_and_use(visit):
    s = swale(visit, tributary_area_ac=9.0)
    assert "city_scope" not in requests_for_model(visit)
    visit.update_site(zoning_district="R-1", land_use="residential")
    req, res = check(visit, f"drainageway:{s.uuid}")
    assert req["input"]["scope"] == {"district": "R-1", "use": "residential"} and res["is_drainageway"] is True
    assert check(visit, "city_scope")[1]["applies"] is True
    visit.update_site(zoning_district="A-1", land_use="agricultural")
    _, res = check(visit, f"drainageway:{s.uuid}")
    assert (res["status"], res["citation"]) == ("exempt", f"{CITE}, General A")
    assert "outside the chapter's standards" in summary_words("drainageway", res)
    _, res = check(visit, "erosion_plan")                  # farming: Erosion control F
    assert res["status"] == "exempt"
    visit.add_area("foundation", box(500, 500, 530, 530))  # every city standard takes the scope
    req, res = check(visit, "development_area")
    assert req["input"]["scope"] == {"district": "A-1", "use": "agricultural"} and res["status"] == "exempt"
    with pytest.raises(InvalidValue):
        visit.update_site(land_use="farm")


def test_the_records_form_edits_the_site_and_the_stations(visit, tmp_path):
    from fieldapp.app.visit import VisitController

    ctl = VisitController(visit, tmp_path / "v.gpkg")
    rows = E.record_rows(ctl)
    sel, words, details = rows[-1]
    assert sel.layer is Layer.SITE and words == "Site Mill Creek lot" and "not entered" in details
    fields = {f.name: f for f in E.form_fields(ctl, sel)}
    assert {"zoning_district", "land_use", "infill_area_ac", "infill_within_development",
            "device:gnss", "device:rangefinder", "device:caliper"} == set(fields)   # + instruments (t35fin)
    E.apply_form(ctl, sel, {"zoning_district": " A-1 ", "land_use": "agricultural"})
    assert (visit.site.zoning_district, visit.site.land_use) == ("A-1", "agricultural")
    s = swale(visit)
    line_sel = E.Selection(Layer.LINE, s.uuid)
    assert "tributary_stations" in {f.name for f in E.form_fields(ctl, line_sel)}
    E.apply_form(ctl, line_sel, {"tributary_stations": "0:1;50:5"})
    assert visit.get(Layer.LINE, s.uuid).tributary_stations == "0:1; 50:5"
    with pytest.raises(E.FieldRefused):
        E.delete_words(ctl, sel)


def test_the_visit_file_keeps_them(tmp_path, visit):
    p = tmp_path / "v.gpkg"
    s = swale(visit, tributary_stations="0:2; 200:6")
    visit.update_site(zoning_district="A-1", land_use="agricultural")
    create_visit(p, visit).close()
    with open_visit(p, readonly=True) as store:
        v = store.visit
        assert (v.site.zoning_district, v.site.land_use) == ("A-1", "agricultural")
        assert v.get(Layer.LINE, s.uuid).tributary_stations == "0:2; 200:6"


def test_the_stake_out_and_export_strip_follow_the_counted_reaches(visit):
    from fieldapp.survey.drainage import drainageway_strip

    s = swale(visit, tributary_stations="0:2; 200:6")
    visit.add_area("floodplain", box(300, -200, 600, 200))
    _, res = check(visit, f"drainageway:{s.uuid}")
    assert res["reaches_ft"] == [[150.0, pytest.approx(300 / 0.9996, abs=1e-6)]]
    strip = drainageway_strip(s.geometry, visit.frame, 25.0, res["reaches_ft"], cap_style="flat")
    # along the line the counted reach (150.12 ground ft), across it 25 ground ft each side: the
    # strip the map, stake-out and export draw is the area the rule counted (before, 25 grid ft
    # each side: 4 parts in 10,000 wider on this central meridian)
    assert visit.frame.area_sqft(strip) == pytest.approx(res["area_sqft"], rel=1e-6)
    whole = drainageway_strip(s.geometry, visit.frame, 25.0, None, cap_style="flat")
    assert visit.frame.area_sqft(whole) == pytest.approx(50 * 400 / 0.9996, rel=1e-6)
