"""Issue 29, city chapter: Drainageways A.1/A.2 (unmapped channels, floodplain, the 5-acre point
down a swale), C (75 % open space), D/E and Wetlands D/E checklists, Erosion control C and F,
and the chapter's scope (General A). Worked by hand from the text."""

from __future__ import annotations

import pytest

from fieldapp.rules import evaluate
from fieldapp.rules.city_drainage import DRAINAGEWAY_MUST_SHOW, drainageway
from fieldapp.rules.city_scope import city_scope
from fieldapp.rules.city_water import WETLAND_MUST_SHOW, wetland_size
from fieldapp.rules.results import Status

CITE = "Decorah resource protection"


def dw(**inp):
    return evaluate({"rule": "drainageway", "input": {"kind": "swale", "length_ft": 200.0, **inp}})


# --- 1. an unmapped channel with 5 acres or more tributary is an A.2 drainageway -----------------
@pytest.mark.parametrize(("acres", "is_dw"), [(4.99, False), (4.999998, False), (5.0, True), (5.01, True)])
def test_unmapped_channel_at_5_acres(acres, is_dw):
    r = drainageway("stream", 100.0, mapped_stream=False, tributary_area_ac=acres, channel_width_ft=12.0)
    assert r.status is Status.DETERMINED and r.is_drainageway is is_dw
    # A.2: 25 ft each side of the centreline, whatever the channel width: 50 × 100 = 5,000 sq ft
    assert (r.half_width_ft, r.total_width_ft, r.area_sqft) == ((25.0, 50.0, 5000.0) if is_dw else (0.0, 0.0, 0.0))
    assert r.citation == f"{CITE}, Drainageways A.2" + (", C" if is_dw else "")
    assert "unmapped-channel-as-swale" in r.interpretations


def test_unmapped_channel_without_area_asks_for_it():
    r = evaluate({"rule": "drainageway", "input": {"kind": "stream", "mapped_stream": False, "length_ft": 100}})
    assert r["status"] == "needs_data" and "area draining to the channel" in r["next_step"]


def test_mapped_stream_ignores_tributary_area():
    r = drainageway("stream", 100.0, mapped_stream=True, tributary_area_ac=1.0)
    assert r.is_drainageway is True and r.total_width_ft == 100.0


# --- 4. Drainageways C: 75 % open space; exactly 75 % complies -----------------------------------
@pytest.mark.parametrize(("disturbed", "complies"), [(2499.99, True), (2500.0, True), (2500.01, False)])
def test_open_space_75_percent(disturbed, complies):
    # swale 200 ft, 5 ac: 50 × 200 = 10,000 sq ft; 2,500 disturbed leaves 7,500 = 75 %
    r = dw(tributary_area_ac=5.0, disturbed_sqft=disturbed)
    assert r["area_sqft"] == 10_000.0 and r["open_space_pct"] == pytest.approx(100 - disturbed / 100)
    assert r["open_space_complies"] is complies
    assert r["citation"] == f"{CITE}, Drainageways A.2, C, D, E"
    assert ("requires 75 %" in (r["note"] or "")) is (not complies)


def test_no_disturbance_complies_without_checklist():
    r = dw(tributary_area_ac=5.0, disturbed_sqft=0.0)
    assert (r["open_space_pct"], r["open_space_complies"], r["applicant_must_show"]) == (100.0, True, [])
    assert r["citation"] == f"{CITE}, Drainageways A.2, C"


def test_disturbance_from_polygons_on_the_strip():
    # centreline (0,0)-(200,0), strip 25 ft each side; a 40 × 100 ft pad from y = 0 to 100
    # covers 40 × 25 = 1,000 sq ft of the strip: 90 % open space
    r = dw(tributary_area_ac=6.0, centerline=[[0, 0], [200, 0]],
           disturbed=[[[10, 0], [50, 0], [50, 100], [10, 100]]])
    assert r["disturbed_sqft"] == pytest.approx(1000.0) and r["open_space_pct"] == pytest.approx(90.0)


def test_disturbance_beyond_the_area_is_0_percent():
    assert dw(tributary_area_ac=5.0, disturbed_sqft=12_000.0)["open_space_pct"] == 0.0


# --- 7. the checklists ----------------------------------------------------------------------
def test_altered_drainageway_lists_d1_to_d5_and_e():
    r = dw(tributary_area_ac=5.0, disturbed_sqft=100.0)
    assert r["applicant_must_show"] == list(DRAINAGEWAY_MUST_SHOW) and len(DRAINAGEWAY_MUST_SHOW) == 7
    assert [x.split(":")[0] for x in r["applicant_must_show"]] == ["D", "D.1", "D.2", "D.3", "D.4", "D.5", "E"]
    assert "altered-drainageway-checklist" in r["interpretations"]


def test_disturbed_wetland_lists_approvals():
    r = wetland_size(20_000, periodic_standing_water=True, hydric_vegetation=True, disturbed_sqft=1.0)
    assert r.undisturbed_complies is False and r.applicant_must_show == WETLAND_MUST_SHOW
    assert r.citation == f"{CITE}, Wetlands A, C, D, E"
    assert any("Corps of Engineers" in x for x in r.applicant_must_show)
    assert any("Iowa Department of Natural Resources" in x for x in r.applicant_must_show)
    ok = wetland_size(20_000, periodic_standing_water=True, hydric_vegetation=True, disturbed_sqft=0.0)
    assert ok.undisturbed_complies is True and ok.applicant_must_show == () and ok.citation.endswith("A, C")
    # not an ordinance wetland (9,999 sq ft): nothing to show
    small = wetland_size(9_999, periodic_standing_water=True, hydric_vegetation=True, disturbed_sqft=500.0)
    assert small.undisturbed_complies is None and small.applicant_must_show == ()


# --- 2. floodplain exception ------------------------------------------------------------------
def test_reach_partly_in_floodplain_counts_outside_it():
    # 200 ft swale, 60 ft of it in the F-1 floodplain: 140 × 50 = 7,000 sq ft
    r = dw(tributary_area_ac=5.0, floodplain_reaches_ft=[[0, 60]])
    assert (r["counted_length_ft"], r["floodplain_excepted_ft"], r["area_sqft"]) == (140.0, 60.0, 7000.0)
    assert r["citation"] == f"{CITE}, Drainageways A.2 (floodplain excepted), C"
    assert "floodplain-by-reach" in r["interpretations"]


def test_mapped_stream_wholly_in_floodplain_is_none():
    r = evaluate({"rule": "drainageway", "input": {"kind": "stream", "mapped_stream": True, "length_ft": 100,
                                                   "floodplain_reaches_ft": [[0, 50], [40, 100]]}})
    assert r["is_drainageway"] is False and r["area_sqft"] == 0.0 and "F-1" in r["note"]


def test_floodplain_polygon_on_the_centreline():
    # the polygon covers x 150..250 of a 200 ft centreline: 50 ft excepted
    r = dw(tributary_area_ac=5.0, centerline=[[0, 0], [200, 0]],
           floodplain=[[[150, -100], [250, -100], [250, 100], [150, 100]]])
    assert r["floodplain_excepted_ft"] == pytest.approx(50.0) and r["area_sqft"] == pytest.approx(7500.0)


# --- 3. the 5-acre point down a swale --------------------------------------------------------
def test_five_acres_reached_part_way_down():
    # 2 ac at 0 ft, 6 ac at 200 ft, line 400 ft: 5 ac at 0 + (3/4)·200 = 150 ft;
    # 250 ft downstream × 50 = 12,500 sq ft
    r = dw(length_ft=400.0, tributary_stations=[{"station_ft": 0, "tributary_area_ac": 2},
                                                {"station_ft": 200, "tributary_area_ac": 6}])
    assert (r["reach_start_ft"], r["counted_length_ft"], r["area_sqft"]) == (150.0, 250.0, 12_500.0)
    assert "150.0 ft down the swale" in r["note"]
    assert "tributary-linear-between-stations" in r["interpretations"]


def test_station_exactly_at_5_acres_starts_there():
    r = dw(tributary_stations=[{"station_ft": 0, "tributary_area_ac": 3}, {"station_ft": 80, "tributary_area_ac": 5.0},
                               {"station_ft": 200, "tributary_area_ac": 7}])
    assert r["reach_start_ft"] == 80.0 and r["area_sqft"] == 120 * 50.0


def test_first_station_over_5_acres_reaches_the_upstream_end():
    r = dw(tributary_stations=[{"station_ft": 40, "tributary_area_ac": 5.5}])
    assert r["reach_start_ft"] == 0.0 and r["area_sqft"] == 10_000.0


def test_never_5_acres():
    below = [{"station_ft": 0, "tributary_area_ac": 1}, {"station_ft": 200, "tributary_area_ac": 4.99}]
    assert dw(tributary_stations=below)["is_drainageway"] is False
    short = dw(tributary_stations=below[:1] + [{"station_ft": 150, "tributary_area_ac": 4.99}])
    assert short["status"] == "needs_data" and "downstream end" in short["next_step"]


def test_threshold_station():
    assert dw(threshold_station_ft=50.0)["area_sqft"] == 150 * 50.0
    assert dw(threshold_station_ft=200.0)["is_drainageway"] is False


@pytest.mark.parametrize(("inp", "key"), [
    ({"tributary_stations": [{"station_ft": 0, "tributary_area_ac": 6}, {"station_ft": 10, "tributary_area_ac": 5}]},
     "input.tributary_stations[1].tributary_area_ac"),
    ({"tributary_stations": [{"station_ft": 10, "tributary_area_ac": 1}, {"station_ft": 10, "tributary_area_ac": 5}]},
     "input.tributary_stations[1].station_ft"),
    ({"tributary_stations": [{"station_ft": 250, "tributary_area_ac": 6}]}, "input.tributary_stations[0].station_ft"),
    ({"tributary_area_ac": 5, "threshold_station_ft": 3}, "input.threshold_station_ft"),
    ({"tributary_area_ac": 5, "floodplain": [[[0, 0], [1, 0], [1, 1]]]}, "input.centerline"),
])
def test_bad_inputs_name_their_key(inp, key):
    r = dw(**inp)
    assert r["status"] == "error" and r["key"] == key, r


# --- 5. Erosion control C and F --------------------------------------------------------------
B_AT_LIMITS = {"cut_fill_volume_cuyd": 500.0, "max_fill_depth_ft": 3.0, "max_excavation_depth_ft": 4.0,
               "cut_fill_area_sqft": 5000.0, "exposed_soil_sqft": 5000.0}
B_UNKNOWN = dict.fromkeys(B_AT_LIMITS)


def ep(**inp):
    return evaluate({"rule": "erosion_plan", "input": inp})


def test_erosion_c_whatever_the_b_quantities():
    assert ep(**B_AT_LIMITS)["plan_required"] is False  # B alone: every figure exactly at its limit
    for b in (B_AT_LIMITS, B_UNKNOWN):
        r = ep(**b, water_land_disturbed=["drainageway"])
        assert r["status"] == "determined" and r["plan_required"] is True and r["triggers"] == ["water_land"]
        assert r["citation"] == f"{CITE}, Erosion control C"
        assert any("Corps of Engineers" in x for x in r["applicant_must_show"])
    r = ep(**{**B_AT_LIMITS, "max_fill_depth_ft": 3.5}, water_land_disturbed=["stream_bank", "lake_shoreline"])
    assert r["triggers"] == ["fill_depth", "water_land"] and r["citation"] == f"{CITE}, Erosion control B.2, C"


def test_erosion_f_agricultural_use_is_exempt():
    r = ep(**{**B_AT_LIMITS, "cut_fill_volume_cuyd": 900.0}, water_land_disturbed=["stream"], agricultural_use=True)
    assert (r["status"], r["plan_required"], r["citation"]) == ("exempt", False, f"{CITE}, Erosion control F")


def test_erosion_c_unknown_land_kind():
    r = ep(**B_UNKNOWN, water_land_disturbed=["wetland"])
    assert r["status"] == "error" and r["key"] == "input.water_land_disturbed[0]"


# --- 6. scope: agricultural uses in an A-1 district ------------------------------------------
@pytest.mark.parametrize(("district", "use", "status", "applies"), [
    ("A-1", "agricultural", Status.EXEMPT, False), ("a1", "agricultural", Status.EXEMPT, False),
    ("A-1", "residential", Status.DETERMINED, True), ("R-1", "agricultural", Status.DETERMINED, True),
    ("R-1", None, Status.DETERMINED, True), (None, "agricultural", Status.NEEDS_DATA, None),
    ("A-1", None, Status.NEEDS_DATA, None)])
def test_scope(district, use, status, applies):
    r = city_scope(district, use)
    assert (r.status, r.applies, r.citation) == (status, applies, f"{CITE}, General A")


def test_scope_key_exempts_every_city_standard():
    a1 = {"district": "A-1", "use": "agricultural"}
    r = dw(tributary_area_ac=9.0, scope=a1)
    assert (r["rule"], r["status"], r["applies"]) == ("drainageway", "exempt", False)
    assert r["citation"] == f"{CITE}, General A"
    assert ep(**B_UNKNOWN, water_land_disturbed=["drainageway"], scope=a1)["status"] == "exempt"
    r = dw(tributary_area_ac=9.0, scope={"district": "R-2", "use": "agricultural"})
    assert r["status"] == "determined" and r["is_drainageway"] is True
    bad = dw(tributary_area_ac=9.0, scope={"district": "A-1", "use": "farm"})
    assert bad["status"] == "error" and bad["key"] == "input.scope.use"


# --- the documented examples (docs/rules.md, examples/rules/city-issue29.json) -----------------
def test_the_documented_examples():
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "examples/rules/city-issue29.json"
    got = [evaluate(r) for r in json.loads(path.read_text(encoding="utf-8"))]
    assert [(r["status"], r["citation"].removeprefix(f"{CITE}, ")) for r in got] == [
        ("determined", "Drainageways A.2, C"), ("determined", "Drainageways A.2, C, D, E"),
        ("determined", "Erosion control C"), ("exempt", "Erosion control F"), ("exempt", "General A"),
        ("exempt", "General A"), ("determined", "Drainageways A.2 (floodplain excepted), C"),
        ("determined", "Drainageways A.2, C"), ("determined", "Wetlands A, C, D, E")]
    assert (got[0]["total_width_ft"], got[0]["area_sqft"]) == (50.0, 5000.0)
    assert (got[1]["open_space_pct"], got[1]["open_space_complies"]) == (75.0, True)
    assert got[2]["plan_required"] is True and got[3]["plan_required"] is False
    assert (got[6]["counted_length_ft"], got[6]["area_sqft"]) == (140.0, 7000.0)
    assert (got[7]["reach_start_ft"], got[7]["area_sqft"]) == (150.0, 12_500.0)
    assert got[8]["undisturbed_complies"] is False and len(got[8]["applicant_must_show"]) == 3
