"""fieldapp.checks: the survey model turned into rule requests, with hand-worked results.

The visit is in UTM zone 16N (EPSG:32616, metres) at the central meridian (x = 500,000 m), where
the grid scale factor is 0.9996: a ground length of L ft is ``from_ft(L) * k`` grid metres
(:func:`g`), so the stands, wetlands and crowns below have the ground sizes the comments say.
"""

from __future__ import annotations

import math

import pytest
from shapely.geometry import LineString, box

from fieldapp import checks
from fieldapp.checks import Checks, requests_for_model
from fieldapp.checks.results import summary_words
from fieldapp.rules import evaluate
from fieldapp.survey.features import Layer
from tests.checks_sample import X0, Y0, g, new_visit, square, two_crown_stand


@pytest.fixture
def visit():
    return new_visit()


def only(reqs, prefix):
    hits = [r for cid, (_t, r) in reqs.items() if cid.split(":")[0] == prefix]
    assert len(hits) == 1, sorted(reqs)
    return hits[0]


# --------------------------------------------------------------------------- builders
def test_bank_request_from_stations_gives_the_contract_example():
    # (0, 0) (30, 1.2) (90, 12.0) (210, 18.0): segments of 4 %, 18 % and 5 % (rise / run),
    # the contract's first example: steep 30-90 ft, then 120 ft below 12 % -> bank 90 ft.
    req = checks.bank_request(False, [(0, 0), (30, 1.2), (90, 12.0), (210, 18.0)])
    assert req["input"]["stations"][2] == {"distance_ft": 90.0, "elevation_ft": 12.0}
    res = evaluate(req)
    assert res["status"] == "determined" and res["basis"] == "slope"
    assert res["bank_ft"] == pytest.approx(90.0)
    assert res["segment_slopes_pct"] == pytest.approx([4.0, 18.0, 5.0])


def test_bank_request_refuses_non_finite_values():
    with pytest.raises(ValueError, match="non-finite"):
        checks.bank_request(False, [(0, 0), (30, float("nan"))])


def test_clamp_pct():
    assert checks.clamp_pct(100.00000000000003) == 100.0
    assert checks.clamp_pct(-1e-12) == 0.0
    assert checks.clamp_pct(44.2) == 44.2
    assert checks.clamp_pct(None) is None
    with pytest.raises(ValueError):
        checks.clamp_pct(float("inf"))
    req = checks.woodland_class_request(100.00000000000003, 100.0, 100.00000000000003)
    assert req["input"]["canopy_10in_pct"] == 100.0
    assert evaluate(req)["class"] == "mature"


def test_mitigation_request_gives_the_contract_example():
    res = evaluate(checks.mitigation_request("young", 4.0, 1.6))
    # young: 50 % protection; 1.6 / 4 = 40 % retained (>= 25 % floor): (0.50 - 0.40) x 4 = 0.4 ac
    assert res["retained_pct"] == pytest.approx(40.0)
    assert res["permitted"] is True
    assert res["mitigation_area_ac"] == pytest.approx(0.4)
    assert list(res["plantings"].values()) == [2, 4, 24, 8, 10]


def test_development_area_request_gives_the_contract_example():
    res = evaluate(checks.development_area_request([[(0, 0), (30, 0), (30, 30), (0, 30)]]))
    # 900 + 4 * 30 * 20 + pi * 20^2 = 4,556.64 sq ft
    assert res["envelope_area_sqft"] == pytest.approx(900 + 2400 + math.pi * 400, rel=1e-3)


def test_drainageway_request_leaves_unknowns_out():
    req = checks.drainageway_request("swale", 200.0)
    assert req["input"] == {"kind": "swale", "length_ft": 200.0}
    assert evaluate(req)["status"] == "needs_data"


# --------------------------------------------------------------------------- from the model
def test_transect_gives_a_bank_request_with_the_rule_s_bank(visit):
    t = visit.add_transect(0.0, origin=(X0, Y0))
    for h, s in ((30, 4), (60, 18), (120, 5)):
        visit.add_station(t.uuid, horizontal_ft=h, slope_pct=s)
    req = requests_for_model(visit)[f"bank:{t.uuid}"][1]
    assert req["rule"] == "nr341.bank"
    res = evaluate(req)
    # the contract's example: 30 ft at 4 %, 60 ft at 18 % (from 30, inside 75 ft), 120 ft at 5 %
    # (more than 50 ft below 12 %) -> the bank ends at 90 ft
    assert res["status"] == "determined" and res["bank_ft"] == pytest.approx(90.0)


# Two circles r = 30 ft, centres d = 20 ft apart: lens = 2 r^2 acos(d / 2r) - (d / 2) sqrt(4 r^2 - d^2)
# = 1800 acos(1/3) - 10 sqrt(3200) = 2215.73 - 565.69 = 1650.04 sq ft; union = 2 pi 900 - lens
# = 5654.87 - 1650.04 = 4004.83 sq ft, 40.05 % of the 10,000 sq ft stand (both crowns inside).
TWO_CROWNS_PCT = 100 * (2 * math.pi * 900 - (1800 * math.acos(1 / 3) - 10 * math.sqrt(3200))) / 10_000


def test_woodland_class_from_two_overlapping_crowns(visit):
    stand = two_crown_stand(visit)
    req = only(requests_for_model(visit), "woodland")
    inp = req["input"]
    assert TWO_CROWNS_PCT == pytest.approx(40.05, abs=0.01)
    # crowns are drawn as polygons: within 0.5 % of the true circles
    assert inp["canopy_10in_pct"] == pytest.approx(TWO_CROWNS_PCT, rel=5e-3)
    assert inp["canopy_3in_pct"] == pytest.approx(inp["canopy_10in_pct"])
    assert inp["deciduous_share_pct"] == pytest.approx(100.0)
    assert inp["trees"] == []  # no grove drawn
    res = evaluate(req)
    # 40 % of >= 10 in canopy (>= 30 %), all deciduous: mature by canopy
    assert (res["class"], res["basis"]) == ("mature", "canopy")
    assert stand.uuid in [cid.split(":")[1] for cid in requests_for_model(visit)]


def test_mitigation_with_a_retained_area(visit):
    two_crown_stand(visit)
    c = Checks()
    c.refresh(visit, retained_ac=0.1)
    mit = [k for k in c.all() if k.check_id.startswith("mitigation:")]
    assert len(mit) == 1
    req = mit[0].request["input"]
    # 10,000 sq ft = 10,000 / 43,560 = 0.229568 ac of mature woodland; 0.1 ac retained
    assert req["class"] == "mature"
    assert req["woodland_area_ac"] == pytest.approx(10_000 / 43_560, rel=1e-4)
    res = mit[0].result
    # 0.1 / 0.229568 = 43.56 % < the 55 % floor: not permitted; mitigation
    # (0.75 - 0.4356) x 0.229568 = 0.75 x 0.229568 - 0.1 = 0.072176 ac
    assert res["retained_pct"] == pytest.approx(43.56, abs=0.01)
    assert res["permitted"] is False and res["mitigation_required"] is True
    assert res["mitigation_area_ac"] == pytest.approx(0.75 * 10_000 / 43_560 - 0.1, rel=1e-3)
    # no retained area: the check waits for it (test_checks_retained), no rule request
    c.refresh(visit)
    assert c.get(mit[0].check_id).status == "needs_data" and not c.get(mit[0].check_id).has_request


def test_the_stands_own_retained_area_feeds_its_mitigation_check(visit):
    """Stored with the stand (schema 3): the same verdict with no retained_ac passed (a
    reopened visit, the office report) as test_mitigation_with_a_retained_area."""
    stand = two_crown_stand(visit)
    visit.update_feature(Layer.AREA, stand.uuid, retained_area_ac=0.1)
    c = Checks()
    c.refresh(visit)
    res = c.get(f"mitigation:{stand.uuid}").result
    assert res["status"] == "determined"
    assert res["retained_pct"] == pytest.approx(43.56, abs=0.01)
    assert res["mitigation_area_ac"] == pytest.approx(0.75 * 10_000 / 43_560 - 0.1, rel=1e-3)
    # the stand's own value wins over a session value
    c.refresh(visit, retained_ac=0.2)
    assert c.get(f"mitigation:{stand.uuid}").result["retained_pct"] == pytest.approx(43.56,
                                                                                    abs=0.01)
    # the stand's own 0 acres ("retain nothing") is a plan too, the one mitigation matters most
    # for: 0 % retained < 55 %: not permitted; mitigation 0.75 x 0.229568 ac = 0.172176 ac
    visit.update_feature(Layer.AREA, stand.uuid, retained_area_ac=0.0)
    c.refresh(visit)
    res = c.get(f"mitigation:{stand.uuid}").result
    assert res["retained_pct"] == 0.0 and res["permitted"] is False
    assert res["mitigation_area_ac"] == pytest.approx(0.75 * 10_000 / 43_560, rel=1e-3)


def test_a_stand_with_its_tally_open_is_provisional_never_determined(visit):
    """3 trees tallied of a stand not marked complete: "provisional — 3 trees so far", the
    class from them kept but not shown as a determination; complete: determined."""
    stand = visit.add_area("woodland_stand", square(visit, 0, 0, 100, 100), label="Oaks")
    for x_ft in (20.0, 50.0, 80.0):
        visit.add_tree(x=X0 + g(visit, x_ft), y=Y0 + g(visit, 50.0), dbh_in=4.0,
                       crown_radius_ft=2.0)
    c = Checks()
    c.refresh(visit, retained_ac=0.1)
    wc = c.get(f"woodland:{stand.uuid}")
    # 3 crowns of pi 4 = 12.57 sq ft in 10,000 sq ft: 0.38 % canopy -> class none
    assert wc.status == "provisional" and wc.result["class"] == "none"
    assert wc.result["trees_so_far"] == 3
    assert checks.summary_words(wc.rule, wc.result).startswith(
        "Provisional — 3 trees so far (tally not complete): Class none")
    assert checks.status_words(wc.status) == "provisional"
    assert wc.has_request and wc.request["rule"] == "woodland.class"
    visit.update_feature(Layer.AREA, stand.uuid, tally_complete=True)
    assert c.refresh(visit) is True
    wc = c.get(f"woodland:{stand.uuid}")
    assert wc.status == "determined" and "trees_so_far" not in wc.result


def test_dense_stand_canopy_is_clamped_to_100(visit):
    # one crown of 200 ft radius over a 100 x 100 ft stand: the clipped crown is the stand
    stand = visit.add_area("woodland_stand", square(visit, 0, 0, 100, 100))
    visit.add_tree(x=X0 + g(visit, 50), y=Y0 + g(visit, 50), dbh_in=30.0, crown_radius_ft=200.0)
    visit.update_feature(Layer.AREA, stand.uuid, tally_complete=True)
    inp = only(requests_for_model(visit), "woodland")["input"]
    assert 99.9 < inp["canopy_10in_pct"] <= 100.0
    assert 99.9 < inp["canopy_3in_pct"] <= 100.0
    res = evaluate({"rule": "woodland.class", "input": inp})
    assert res["status"] == "determined" and res["class"] == "mature"


def test_wetland_size_and_protective_area_from_a_polygon(visit):
    # 400 x 200 ft: 80,000 sq ft; long axis 400 ft -> average width 80,000 / 400 = 200 ft;
    # less susceptible: 10 % of 200 = 20 ft (between 10 and 30), NR 151.125(1)(f)
    w = visit.add_area("wetland", square(visit, 0, 0, 400, 200), label="W1",
                       susceptibility="less", standing_water=True, hydric_vegetation=True)
    reqs = requests_for_model(visit)
    size = reqs[f"wetland:{w.uuid}"][1]
    assert size["input"]["area_sqft"] == pytest.approx(80_000, rel=1e-4)
    res = evaluate(size)
    # 80,000 >= 10,000 sq ft with standing water and hydric vegetation: ordinance wetland,
    # 100 % undisturbed
    assert res["is_ordinance_wetland"] is True
    assert res["required_undisturbed_pct"] == 100.0
    pa = evaluate(reqs[f"protective_area:{w.uuid}"][1])
    assert pa["status"] == "determined"
    assert pa["average_width_ft"] == pytest.approx(200.0, rel=1e-3)
    assert pa["width_ft"] == pytest.approx(20.0, rel=1e-3)


def test_small_wetland_is_not_an_ordinance_wetland(visit):
    # 90 x 100 ft = 9,000 sq ft < 10,000
    w = visit.add_area("wetland", square(visit, 0, 0, 90, 100), standing_water=True,
                       hydric_vegetation=True)
    res = evaluate(requests_for_model(visit)[f"wetland:{w.uuid}"][1])
    assert res["is_ordinance_wetland"] is False and res["required_undisturbed_pct"] == 0.0


def test_development_area_from_a_foundation_and_a_drive(visit):
    side = visit.frame.from_ft(30.0)  # site feet in the request are grid feet
    visit.add_area("foundation", box(X0, Y0, X0 + side, Y0 + side))
    req = only(requests_for_model(visit), "development_area")
    res = evaluate(req)
    assert res["envelope_area_sqft"] == pytest.approx(900 + 2400 + math.pi * 400, rel=1e-3)
    visit.add_area("drive", box(X0 + side, Y0, X0 + 2 * side, Y0 + visit.frame.from_ft(10.0)))
    req = only(requests_for_model(visit), "development_area")
    assert req["input"]["edges"][0]["kind"] == "driveway"
    assert evaluate(req)["envelope_area_sqft"] > res["envelope_area_sqft"]


def test_graded_area_on_the_bank_takes_the_steepest_crossing_segment(visit):
    t = visit.add_transect(0.0, origin=(X0, Y0))  # due north
    for h, s in ((30, 4), (60, 18), (120, 5)):
        visit.add_station(t.uuid, horizontal_ft=h, slope_pct=s)
    # 100 x 100 ft from 40 to 140 ft up the transect: crosses the 18 % segment (30-90 ft)
    # and the 5 % one; steepest 18 %. Surface = 10,000 x sqrt(1 + 0.18^2) = 10,160.7 sq ft
    # (> 10,000: permit), interpretation surface-area.
    d = visit.add_area("disturbed", square(visit, -50, 40, 100, 100), label="Pad")
    # another one off the transect: no slope known, no request
    visit.add_area("disturbed", square(visit, 300, 40, 50, 50))
    reqs = requests_for_model(visit)
    graded = {k: r for k, (_t, r) in reqs.items() if k.startswith("graded_area:")}
    assert list(graded) == [f"graded_area:{d.uuid}"]
    req = graded[f"graded_area:{d.uuid}"]
    assert req["input"]["slope_pct"] == pytest.approx(18.0)
    assert req["input"]["horizontal_area_sqft"] == pytest.approx(10_000, rel=1e-4)
    res = evaluate(req)
    assert res["surface_area_sqft"] == pytest.approx(10_000 * math.sqrt(1 + 0.18**2), rel=1e-4)
    assert res["permit_required"] is True


def test_drainageways_from_a_swale_and_a_centreline(visit):
    swale = visit.add_line("swale", LineString([(X0, Y0), (X0 + g(visit, 200), Y0)]),
                           tributary_area_ac=5.0, label="S1")
    creek = visit.add_line("drainageway_centreline",
                           LineString([(X0, Y0 + 50), (X0 + g(visit, 300), Y0 + 50)]),
                           channel_width_ft=8.0)
    reqs = requests_for_model(visit)
    s_req = reqs[f"drainageway:{swale.uuid}"][1]
    assert s_req["input"]["length_ft"] == pytest.approx(200.0, rel=1e-4)
    res = evaluate(s_req)
    # a swale with 5 ac tributary (>= 5): 50 ft wide x 200 ft = 10,000 sq ft, 75 % open space
    assert res["is_drainageway"] is True
    assert res["area_sqft"] == pytest.approx(10_000, rel=1e-4)
    assert res["min_open_space_sqft"] == pytest.approx(7_500, rel=1e-4)
    c_req = reqs[f"drainageway:{creek.uuid}"][1]
    assert c_req["input"]["kind"] == "stream" and c_req["input"]["channel_width_ft"] == 8.0
    # whether the stream is mapped is not set yet (mapped_stream None): the rule asks for it
    c_res = evaluate(c_req)
    assert c_res["status"] == "needs_data" and "USGS 7.5-minute quadrangle" in c_res["next_step"]


def test_checks_re_evaluate_only_changed_requests(visit):
    calls = []

    def counting(req):
        calls.append(req["rule"])
        return evaluate(req)

    c = Checks(counting)
    t = visit.add_transect(0.0, origin=(X0, Y0))
    visit.add_station(t.uuid, horizontal_ft=30, slope_pct=4)
    assert c.refresh(visit) is True and calls == ["nr341.bank"]
    assert c.refresh(visit) is False and calls == ["nr341.bank"]
    visit.add_station(t.uuid, horizontal_ft=60, slope_pct=18)
    assert c.refresh(visit) is True and calls == ["nr341.bank", "nr341.bank"]
    assert c.get(f"bank:{t.uuid}").status == "needs_data"


# --------------------------------------------------------------------------- awaiting data
def test_a_stand_with_no_tree_recorded_waits_for_the_tally(visit):
    """No tree in the stand: no woodland.class request (it would say class "none" from 0 %
    canopy, a verdict on nothing) but a needs_data check saying what to record."""
    stand = visit.add_area("woodland_stand", square(visit, 0, 0, 100, 100), label="Oak stand")
    reqs = requests_for_model(visit)
    title, awaiting = reqs[f"woodland:{stand.uuid}"]
    assert title == "Woodland class Oak stand (city)"
    assert awaiting == checks.AwaitingData("woodland.class",
                                           "record the trees of this stand (caliper tally)",
                                           "Decorah resource protection, Woodlands A")
    c = Checks()
    c.refresh(visit)
    k = c.get(f"woodland:{stand.uuid}")
    assert k.status == "needs_data" and k.rule == "woodland.class"
    assert k.has_request is False and k.request == {} and k.request_json() == "{}"
    assert k.result["next_step"] == "record the trees of this stand (caliper tally)"
    assert k.result["citation"] == "Decorah resource protection, Woodlands A"
    assert checks.summary_words(k.request.get("rule", ""), k.result) == (
        "Needs data: record the trees of this stand (caliper tally)")
    assert c.evaluations == 0 and c.requests() == []  # no rule asked, nothing to attach
    assert c.refresh(visit) is False  # unchanged: nothing re-made


def test_mitigation_waits_with_the_stand_and_both_decide_once_trees_are_in(visit):
    stand = visit.add_area("woodland_stand", square(visit, 0, 0, 100, 100), label="Oak stand")
    c = Checks()
    c.refresh(visit, retained_ac=0.1)
    mit = c.get(f"mitigation:{stand.uuid}")
    assert mit.title == "Woodland protection Oak stand (city)"
    assert (mit.status, mit.rule, mit.has_request) == ("needs_data", "woodland.mitigation", False)
    assert mit.result["next_step"] == "record the trees of this stand (caliper tally)"
    # no retained area: no mitigation check at all, waiting or not
    assert not [k for k in requests_for_model(visit) if k.startswith("mitigation:")]
    # the two 12 in trees of two_crown_stand: 40.05 % canopy, all deciduous -> mature by
    # canopy; mitigation as in test_mitigation_with_a_retained_area (43.56 % retained)
    for x_ft in (40.0, 60.0):
        visit.add_tree(x=X0 + g(visit, x_ft), y=Y0 + g(visit, 50.0), dbh_in=12.0,
                       leaf_habit="deciduous", crown_radius_ft=30.0)
    assert c.refresh(visit, retained_ac=0.1) is True
    wood = c.get(f"woodland:{stand.uuid}")
    assert wood.has_request and (wood.result["class"], wood.result["basis"]) == ("mature", "canopy")
    mit = c.get(f"mitigation:{stand.uuid}")
    assert mit.has_request and mit.request["input"]["class"] == "mature"
    assert mit.result["retained_pct"] == pytest.approx(43.56, abs=0.01)
    assert [r["rule"] for r in c.requests()] == ["woodland.mitigation", "woodland.class"]


def test_a_crown_reaching_in_from_outside_is_not_the_stand_s_tally(visit):
    # stem 10 ft west of the stand, crown radius 30 ft: 20 ft of crown over the stand, but no
    # tree of this stand has been recorded
    stand = visit.add_area("woodland_stand", square(visit, 0, 0, 100, 100))
    visit.add_tree(x=X0 - g(visit, 10.0), y=Y0 + g(visit, 50.0), dbh_in=20.0, crown_radius_ft=30.0)
    assert isinstance(requests_for_model(visit)[f"woodland:{stand.uuid}"][1], checks.AwaitingData)
    assert checks.stands_with_trees([stand], visit.trees()) == set()


def test_a_tree_on_the_boundary_or_a_dead_one_is_a_tally(visit):
    # a stem exactly on the west edge counts (covers); the rule then decides
    a = visit.add_area("woodland_stand", square(visit, 0, 0, 100, 100), label="A")
    visit.add_tree(x=X0, y=Y0 + g(visit, 50.0), dbh_in=4.0, crown_radius_ft=5.0)
    # a dead tree alone in stand B: tallied; dead trees give no canopy -> 0 % -> class none
    b = visit.add_area("woodland_stand", square(visit, 300, 0, 100, 100), label="B")
    visit.add_tree(x=X0 + g(visit, 350.0), y=Y0 + g(visit, 50.0), dbh_in=14.0,
                   crown_radius_ft=15.0, status="dead")
    assert checks.stands_with_trees([a, b], visit.trees()) == {a.uuid, b.uuid}
    for stand in (a, b):
        visit.update_feature(Layer.AREA, stand.uuid, tally_complete=True)
    c = Checks()
    c.refresh(visit)
    res_b = c.get(f"woodland:{b.uuid}").result
    assert res_b["status"] == "determined" and res_b["class"] == "none"
    assert res_b["canopy_10in_pct"] == 0.0
    # A: half of the 5 ft crown (pi 25 / 2 = 39.27 sq ft) inside 10,000 sq ft: 0.39 % >= 3 in
    res_a = c.get(f"woodland:{a.uuid}").result
    assert res_a["canopy_3in_pct"] == pytest.approx(100 * math.pi * 25 / 2 / 10_000, rel=1e-2)
    assert res_a["class"] == "none"


def test_city_citation_is_the_rules_own():
    from fieldapp.rules.city_tables import CITE

    assert checks.CITE_CITY == CITE


def test_summary_words_of_a_rule_s_own_needs_data():
    # >= 30 % canopy with an unknown deciduous share: the rule asks for the share
    res = evaluate({"rule": "woodland.class", "input": {
        "canopy_10in_pct": 40.0, "deciduous_share_pct": None, "canopy_3in_pct": 40.0,
        "trees": []}})
    assert res["status"] == "needs_data"
    assert checks.summary_words("woodland.class", res) == f"Needs data: {res['next_step']}"
    # the bank keeps its own words (bank so far and how far to walk): 30 ft at 4 %, then 60 ft
    # at 18 % ending on steep ground: at least 90 ft
    bank = evaluate(checks.bank_request(False, [(0, 0), (30, 1.2), (90, 12.0)]))
    assert bank["status"] == "needs_data"
    assert checks.summary_words("nr341.bank", bank).startswith("Bank at least 90.0 ft")


def test_drive_edge_drawn_as_a_line_is_buffered_as_a_line(visit):
    # issue 29: an open 3-point drive edge (a line feature) was closed into a triangle
    ft = visit.frame.from_ft
    visit.add_area("foundation", box(X0, Y0, X0 + ft(30.0), Y0 + ft(30.0)))
    visit.add_line("drive", LineString([(X0 + ft(100), Y0), (X0 + ft(200), Y0), (X0 + ft(200), Y0 + ft(100))]))
    req = only(requests_for_model(visit), "development_area")
    assert req["input"]["edges"][0]["kind"] == "driveway" and req["input"]["edges"][0]["shape"] == "line"
    res = evaluate(req)
    assert res["edge_shapes"] == ["line"]
    assert res["envelope_area_sqft"] == pytest.approx(900 + 2400 + 400 * math.pi + 1975 + 31.25 * math.pi, rel=1e-4)
    assert "1 line(s), 0 area(s)" in summary_words("development_area", res)


def test_graded_patches_on_the_bank_add_up(visit):
    # issue 29, NR 341.035(2)(d): a 70 x 25 ft patch on the 4 % segment (1,750 sq ft, surface
    # 1,751.40) and a 70 x 40 ft one on the 18 % segment (2,800, surface 2,845.10) add up to
    # 4,596.50 sq ft; a 100 x 60 ft pad on the 5 % segment (6,007.49) brings the bank's total to
    # 10,603.99: more than 10,000, a permit, though no patch alone needs one.
    t = visit.add_transect(0.0, origin=(X0, Y0))
    for h, s in ((30, 4), (60, 18), (120, 5)):
        visit.add_station(t.uuid, horizontal_ft=h, slope_pct=s)
    visit.add_area("disturbed", square(visit, -35, 0, 70, 25))
    visit.add_area("disturbed", square(visit, -35, 40, 70, 40))
    reqs = requests_for_model(visit)
    title, req = reqs["graded_area:all"]
    assert "all 2 patches" in title and len(req["input"]["patches"]) == 2
    one = [evaluate(r)["surface_area_sqft"] for k, (_t, r) in reqs.items() if k.startswith("graded_area:")
           and k != "graded_area:all"]
    res = evaluate(req)
    assert res["surface_area_sqft"] == pytest.approx(sum(one), rel=1e-9)
    assert res["surface_area_sqft"] == pytest.approx(1750 * math.sqrt(1 + 0.04**2) + 2800 * math.sqrt(1 + 0.18**2),
                                                     rel=1e-4)
    visit.add_area("disturbed", square(visit, -50, 100, 100, 60))  # 6,000 at 5 %: 6,007.5
    res = evaluate(requests_for_model(visit)["graded_area:all"][1])
    assert res["permit_required"] is True and len(res["patch_surface_areas_sqft"]) == 3
    assert "All 3 patches" in summary_words("nr341.graded_area", res)
