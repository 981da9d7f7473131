"""City chapter General D (overlapping resources) and Woodlands D, D.1, D.4 (development area
with rights-of-way, limited by the parcel's protection level) -- issue 29."""

from __future__ import annotations

import pytest

from fieldapp.rules import evaluate


def box(x0, y0, x1, y1):
    return [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]


def overlap(*resources):
    return evaluate({"rule": "resources.overlap", "input": {"resources": [
        {"kind": k, "polygon_ft": p} for k, p in resources]}})


# --- General D: "only the most restrictive provisions of this chapter shall apply"

def test_young_woodland_under_a_drainageway_takes_the_75_pct_open_space():
    # young woodland 0-100 x 0-100; drainageway strip 50-150: they share 50 x 100 = 5,000 sq ft
    r = overlap(("woodland_young", box(0, 0, 100, 100)), ("drainageway", box(50, 0, 150, 100)))
    assert r["status"] == "determined" and r["citation"] == "Decorah resource protection, General D"
    (o,) = r["overlaps"]
    assert o["area_sqft"] == 5000.0 and o["governing"] == ["drainageway"]
    assert (o["required_pct"], o["requirement"]) == (75.0, "open space")
    assert o["provision"] == "Decorah resource protection, Drainageways C"
    assert r["interpretations"] == ["most-restrictive-overlap"]


def test_drainageway_over_a_wetland_keeps_the_wetland_100_pct():
    r = overlap(("drainageway", box(0, 0, 100, 50)), ("wetland", box(80, 0, 200, 100)))
    (o,) = r["overlaps"]
    assert o["area_sqft"] == 1000.0 and o["governing"] == ["wetland"] and o["required_pct"] == 100.0


def test_woodland_on_steep_sr_land_stays_undisturbed_and_mature_beats_drainageway_at_75():
    r = overlap(("woodland_mature", box(0, 0, 100, 100)), ("steep_slope", box(0, 0, 40, 100)))
    assert r["overlaps"][0]["governing"] == ["steep_slope"] and r["overlaps"][0]["area_sqft"] == 4000.0
    r = overlap(("woodland_mature", box(0, 0, 100, 100)), ("drainageway", box(0, 0, 100, 10)))
    o = r["overlaps"][0]
    # both 75 %: "left undisturbed" (Woodlands C) is more restrictive than "open space"
    assert o["governing"] == ["woodland_mature"] and o["requirement"] == "undisturbed"


def test_three_resources_on_one_piece_are_one_overlap_and_ties_are_both_named():
    # wetland 0-60, steep land 40-100, young woodland 0-100 (all 100 ft deep):
    # woodland+wetland only 0-40: 4,000; all three 40-60: 2,000; woodland+steep 60-100: 4,000
    r = overlap(("wetland", box(0, 0, 60, 100)), ("steep_slope", box(40, 0, 100, 100)),
                ("woodland_young", box(0, 0, 100, 100)))
    got = {tuple(o["resources"]): (o["area_sqft"], o["governing"]) for o in r["overlaps"]}
    assert got == {(0, 2): (4000.0, ["wetland"]), (0, 1, 2): (2000.0, ["wetland", "steep_slope"]),
                   (1, 2): (4000.0, ["steep_slope"])}
    assert r["overlap_area_sqft"] == 10000.0


def test_touching_resources_do_not_overlap_and_bad_input_is_named():
    assert overlap(("wetland", box(0, 0, 10, 10)), ("drainageway", box(10, 0, 20, 10)))["overlaps"] == []
    bad = overlap(("floodplain", box(0, 0, 10, 10)))
    assert bad["status"] == "error" and bad["key"] == "input.resources[0].kind"


# --- Woodlands D, D.1, D.4 with C (75 % mature / 50 % young kept)

def limit(disturbed=(), rows=(), woodlands=(), parcel=None):
    return evaluate({"rule": "development_area.limit", "input": {
        "parcel_ft": parcel or box(0, 0, 200, 100), "rights_of_way": list(rows), "disturbed": list(disturbed),
        "woodlands": [{"class": c, "polygon_ft": p} for c, p in woodlands]}})


@pytest.mark.parametrize(("cut_ft", "ok"), [(50, True), (50.01, False), (49.99, True)])
def test_mature_woodland_parcel_keeps_exactly_75_pct(cut_ft, ok):
    # a 200 x 100 parcel all mature woodland (20,000 sq ft): 75 % kept leaves 5,000 sq ft to
    # develop: a 50 ft strip is exactly at the limit.
    r = limit(disturbed=[box(0, 0, cut_ft, 100)], woodlands=[("mature", box(0, 0, 200, 100))])
    assert r["max_development_area_sqft"] == 5000.0
    assert r["development_area_sqft"] == pytest.approx(cut_ft * 100)
    assert r["within_limit"] is ok and r["complies"] is ok
    assert r["woodland"][0]["kept_pct"] == pytest.approx(100 - cut_ft / 2)
    assert r["citation"] == "Decorah resource protection, Woodlands D, D.1, D.4"


@pytest.mark.parametrize(("cut_ft", "ok"), [(100, True), (100.01, False)])
def test_young_woodland_keeps_exactly_50_pct(cut_ft, ok):
    r = limit(disturbed=[box(0, 0, cut_ft, 100)], woodlands=[("young", box(0, 0, 200, 100))])
    assert r["max_development_area_sqft"] == 10000.0 and r["complies"] is ok


def test_right_of_way_is_development_area_and_its_woodland_is_not_protected():
    # a 20 ft street right-of-way along the parcel's front (y 100-120), wooded (mature) like
    # the parcel: the woodland is 200 x 120 = 24,000 sq ft; 75 % = 18,000 must be kept. The
    # right-of-way (4,000) is development area; with a 20 x 100 house pad (2,000) the kept
    # woodland is 18,000 -- exactly 75 %; the limit 24,000 - 18,000 = 6,000 = the area.
    wood = [("mature", box(0, 0, 200, 120))]
    r = limit(disturbed=[box(0, 0, 20, 100)], rows=[box(0, 100, 200, 120)], woodlands=wood)
    assert r["right_of_way_sqft"] == 4000.0 and r["parcel_area_sqft"] == 24000.0
    assert r["development_area_sqft"] == 6000.0 and r["max_development_area_sqft"] == 6000.0
    w = r["woodland"][0]
    assert (w["in_right_of_way_sqft"], w["kept_sqft"], w["kept_pct"]) == (4000.0, 18000.0, 75.0)
    assert r["complies"] is True and r["interpretations"] == ["all-rights-of-way"]
    # 1 ft more of pad: over the limit, and the woodland kept falls below 75 %
    r = limit(disturbed=[box(0, 0, 21, 100)], rows=[box(0, 100, 200, 120)], woodlands=wood)
    assert r["within_limit"] is False and r["woodland"][0]["meets"] is False


def test_no_woodland_leaves_the_whole_parcel_and_bad_parcel_is_named():
    r = limit(disturbed=[box(0, 0, 200, 100)])
    assert r["max_development_area_sqft"] == 20000.0 and r["complies"] is True and r["woodland"] == []
    bad = limit(parcel=[[0, 0], [1, 1]])
    assert bad["status"] == "error" and bad["key"] == "input.parcel_ft"


def test_every_example_of_docs_rules_nr_evaluates():
    import json
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "rules-nr.md").read_text(encoding="utf-8")
    requests = []
    for block in re.findall(r"```json\n(.*?)```", text, flags=re.S):
        for part in re.split(r"\n→[^\n]*(?:\n  [^\n]*)*", block):
            dec, s = json.JSONDecoder(), part.strip()
            while s:
                obj, end = dec.raw_decode(s)
                requests.append(obj)
                s = s[end:].strip()
    assert len(requests) == 8
    for req in requests:
        assert evaluate(req)["status"] in ("determined", "exempt"), req
