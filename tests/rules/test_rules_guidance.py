"""Guidance that guides: the bank text at a run of exactly 50 ft, the woodland floor, an
unmapped stream, next steps in field words, young woodland basis, reading sentences."""

import re

import pytest

from fieldapp.rules import evaluate
from fieldapp.rules.nr341 import bank_from_segments, bank_guidance
from fieldapp.rules.readings import READINGS


def test_run_of_exactly_50_ft_asks_for_one_more_station():
    # NR 341.035(1)(a): "provided the slope is less than 12% for more than 50 feet". Steep 40-120,
    # then exactly 50 ft at 3 % to 170: not yet more than 50 ft.
    r = bank_from_segments([(40, 5), (80, 20), (50, 3)], priority=False)
    assert r.status.value == "needs_data" and r.walk_further_ft == 0.0
    assert "more than 50 ft below 12 % needed" in r.next_step and "beyond 170 ft" in r.next_step
    assert "0.0 ft" not in r.next_step and "0.0 ft" not in bank_guidance(r)
    assert bank_guidance(r) == ("Steep from 40 to 120 ft: keep walking, more than 50 ft below 12 % needed: "
                                "one more station landward, beyond 170 ft.")


def test_young_woodland_is_young_by_canopy():
    # Woodlands A.3: 70 % or more canopy of trees of 3 in caliper or greater -> young, by canopy.
    r = evaluate({"rule": "woodland.class", "input": {"canopy_10in_pct": 10, "deciduous_share_pct": 80,
                                                      "canopy_3in_pct": 75, "trees": []}})
    assert (r["class"], r["basis"], r["citation"]) == ("young", "canopy", "Decorah resource protection, Woodlands A.3")
    # no trees were given: the grove reading played no part and is not listed.
    assert "grove" not in r["interpretations"] and "grove" not in r["interpretation_text"]
    r = evaluate({"rule": "woodland.class", "input": {"canopy_10in_pct": 10, "deciduous_share_pct": 80,
                                                      "canopy_3in_pct": 40, "trees": []}})
    assert (r["class"], r["basis"]) == ("none", None)


def test_below_the_floor_is_not_permitted_and_says_how_much_more_to_retain():
    # Woodlands E.1: young woodland floor 25 %: 4.0 ac retaining 0.8 ac (20 %) is below it;
    # 25 % of 4.0 = 1.0 ac, so 0.2 ac more. Mitigation area still (0.50 - 0.20) × 4 = 1.2 ac.
    r = evaluate({"rule": "woodland.mitigation", "input": {"class": "young", "woodland_area_ac": 4.0,
                                                           "retained_area_ac": 0.8}})
    assert r["permitted"] is False and r["retain_more_ac"] == pytest.approx(0.2)
    assert r["mitigation_area_ac"] == pytest.approx(1.2)
    assert r["citation"] == "Decorah resource protection, Woodlands E.1"
    assert "not permitted" in r["note"] and "Retain 0.20 ac more" in r["note"]
    assert "planting does not make it so" in r["note"]


def test_unmapped_stream_points_to_the_swale_rule():
    # Drainageways A.1 is for mapped streams; A.2: swales (and unmapped channels) with 5 acres
    # or more tributary: the rule asks for the tributary area instead of answering "no".
    r = evaluate({"rule": "drainageway", "input": {"kind": "stream", "mapped_stream": False, "length_ft": 100}})
    assert r["status"] == "needs_data" and r["is_drainageway"] is None
    assert r["citation"].endswith("Drainageways A.2") and "5 acres or more" in r["next_step"]


@pytest.mark.parametrize("request_", [
    {"rule": "erosion_plan", "input": {"cut_fill_volume_cuyd": None, "max_fill_depth_ft": None,
                                       "max_excavation_depth_ft": 1, "cut_fill_area_sqft": 100,
                                       "exposed_soil_sqft": None}},
    {"rule": "drainageway", "input": {"kind": "stream", "length_ft": 100}},
    {"rule": "drainageway", "input": {"kind": "swale", "length_ft": 100}},
    {"rule": "woodland.class", "input": {"canopy_10in_pct": 40, "canopy_3in_pct": 60, "trees": []}},
    {"rule": "wetland.size", "input": {"area_sqft": 20000, "periodic_standing_water": None,
                                       "hydric_vegetation": True}},
    {"rule": "nr151.protective_area", "input": {"contiguous": False, "features": [
        {"type": "wetland", "susceptibility": "less"}]}},
])
def test_next_steps_use_field_words_not_key_names(request_):
    r = evaluate(request_)
    assert r["status"] == "needs_data"
    assert not re.search(r"\b[a-z]+_[a-z_]+\b", r["next_step"]), r["next_step"]


def test_erosion_next_step_words():
    r = evaluate({"rule": "erosion_plan", "input": {"cut_fill_volume_cuyd": 10, "max_fill_depth_ft": None,
                                                    "max_excavation_depth_ft": 1, "cut_fill_area_sqft": 100,
                                                    "exposed_soil_sqft": 100}})
    assert r["next_step"] == "measure the deepest fill, in feet"


@pytest.mark.parametrize("rid", ["canopy-sample-proportion", "edge-shape", "mapped-stream-only",
                                 "slope-magnitude", "cover-of-pervious-area", "run-cut-by-interruption"])
def test_added_readings_have_sentences_and_are_in_the_readme(rid):
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    assert READINGS[rid] and f"- `{rid}` — {READINGS[rid]}" in readme


def test_every_reading_in_the_readme():
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    assert all(f"- `{k}` — {v}" in readme for k, v in READINGS.items())


def test_every_id_a_rule_module_names_has_a_sentence():
    from fieldapp.rules import city_tables, measure, nr151, nr341

    ids = {v for mod in (city_tables, measure, nr151, nr341) for k, v in vars(mod).items()
           if k.isupper() and isinstance(v, str) and re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", v)}
    assert ids and ids <= set(READINGS)


def test_result_carries_the_sentence_of_each_reading_it_used():
    r = evaluate({"rule": "nr341.bank", "input": {"priority": False, "segments": [
        {"horizontal_ft": 30, "slope_pct": 4}, {"horizontal_ft": 60, "slope_pct": 18},
        {"horizontal_ft": 120, "slope_pct": 5}]}})
    assert list(r["interpretation_text"]) == r["interpretations"]
    assert r["interpretation_text"]["per-segment-slope"] == READINGS["per-segment-slope"]
