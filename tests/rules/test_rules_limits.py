"""Out-of-range inputs: an error naming the key, never a traceback, never a non-finite number.

The plausibility limits (fieldapp/rules/validate.py): any value in feet at most 1e9 ft in size
(more than 7 times round the Earth; projected coordinates in feet stay below 1e8), every other
number at most 1e15. A computed result that would still be infinite (a clinometer distance of
1e-320 ft) is an error naming the input responsible. evaluate() turns any unexpected exception
into an error result with a non-empty key.
"""

import json
import math
import subprocess
import sys

import pytest

from fieldapp.rules import RULES, RuleInputError, bank_from_segments, development_area, evaluate
from fieldapp.rules.contract import evaluate as contract_evaluate
from fieldapp.rules.validate import MAX_FT, MAX_VALUE

REPO_ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]

BIG_INT = 10 ** 400  # 401 digits: float() of it raises OverflowError
SQUARE_30 = [[0, 0], [30, 0], [30, 30], [0, 30]]


def square(side):
    return [[0, 0], [side, 0], [side, side], [0, side]]


def less_wetland(**kw):
    return {"rule": "nr151.protective_area",
            "input": {"contiguous": False, "features": [{"type": "wetland", "susceptibility": "less", **kw}]}}


# Each request the tester reported (and its near relatives), with the key the error must name.
OUT_OF_RANGE = [
    ({"rule": "nr341.graded_area", "input": {"horizontal_area_sqft": 1e308, "slope_pct": 1e308}},
     "input.horizontal_area_sqft"),
    ({"rule": "nr341.graded_area", "input": {"horizontal_area_sqft": 1e4, "slope_pct": 1e308}},
     "input.slope_pct"),
    ({"rule": "drainageway", "input": {"kind": "swale", "tributary_area_ac": 6, "length_ft": 1e308}},
     "input.length_ft"),
    ({"rule": "slope.clinometer", "input": {"horizontal_ft": 1e-320, "reading_pct": 1, "eye_height_ft": 5,
                                            "target_height_ft": 4}},
     "input.horizontal_ft"),
    ({"rule": "development_area", "input": {"foundations": [square(1e200)]}}, "input.foundations[0][1][0]"),
    ({"rule": "development_area", "input": {"foundations": [square(1e308)]}}, "input.foundations[0][1][0]"),
    ({"rule": "development_area", "input": {"foundations": [SQUARE_30], "test_points": [[1e308, 1e308]]}},
     "input.test_points[0][0]"),
    ({"rule": "development_area", "input": {"foundations": [SQUARE_30], "edges": [
        {"kind": "utility", "coordinates": [[0, 0], [0, -1e10]]}]}},
     "input.edges[0].coordinates[1][1]"),
    ({"rule": "nr341.bank", "input": {"priority": False, "segments": [
        {"slope_distance_ft": 1e308, "slope_pct": 1e-300}, {"slope_distance_ft": 1e308, "slope_pct": 1}]}},
     "input.segments[0].slope_distance_ft"),
    ({"rule": "nr341.bank", "input": {"priority": False, "segments": [
        {"horizontal_ft": 1e308, "slope_pct": 1}, {"horizontal_ft": 1e308, "slope_pct": 1}]}},
     "input.segments[0].horizontal_ft"),
    ({"rule": "nr341.bank", "input": {"priority": False, "segments": [
        {"horizontal_ft": 10, "slope_pct": 1}, {"horizontal_ft": 10, "slope_pct": -1e300}]}},
     "input.segments[1].slope_pct"),
    ({"rule": "nr341.bank", "input": {"priority": False, "segments": [{"horizontal_ft": BIG_INT, "slope_pct": 1}]}},
     "input.segments[0].horizontal_ft"),
    ({"rule": "nr341.bank", "input": {"priority": False, "stations": [
        {"distance_ft": 0, "elevation_ft": 0}, {"distance_ft": 10, "elevation_ft": -1e300}]}},
     "input.stations[1].elevation_ft"),
    ({"rule": "nr341.bank", "input": {"priority": False, "interruption_at_ft": 1e300, "segments": []}},
     "input.interruption_at_ft"),
    (less_wetland(width_transects_ft=[1e308, 1e308, 1e308]), "input.features[0].width_transects_ft[0]"),
    (less_wetland(polygon_ft=square(1e308)), "input.features[0].polygon_ft[1][0]"),
    (less_wetland(average_width_ft=BIG_INT), "input.features[0].average_width_ft"),
    ({"rule": "woodland.mitigation", "input": {"class": "young", "woodland_area_ac": BIG_INT,
                                               "retained_area_ac": 1}},
     "input.woodland_area_ac"),
    # tiny positive denominators: the percentage would be infinite
    ({"rule": "woodland.mitigation", "input": {"class": "young", "woodland_area_ac": 1e-320,
                                               "retained_area_ac": 1e-7}},
     "input.woodland_area_ac"),
    ({"rule": "woodland.class", "input": {"trees": [], "canopy_sample": {
        "method": "line_intercept", "line_length_ft": 1e-320, "intercept_canopy_10in_ft": 1e-7,
        "intercept_deciduous_canopy_10in_ft": 0, "intercept_canopy_3in_ft": 1e-7}}},
     "input.canopy_sample.line_length_ft"),
    ({"rule": "erosion_plan", "input": {"cut_fill_volume_cuft": 1e300, "max_fill_depth_ft": 1,
                                        "max_excavation_depth_ft": 1, "cut_fill_area_sqft": 1,
                                        "exposed_soil_sqft": 1}},
     "input.cut_fill_volume_cuft"),
]


@pytest.mark.parametrize("request_, key", OUT_OF_RANGE)
def test_out_of_range_input_is_an_error_naming_the_key(request_, key):
    r = evaluate(request_)
    assert r["status"] == "error" and r["key"] == key, r
    assert set(r) == {"rule", "status", "key", "message"}
    assert "out of range" in r["message"] and "internal error" not in r["message"], r["message"]
    json.dumps(r, allow_nan=False)  # plain JSON


def test_message_says_the_limit_and_the_value():
    r = evaluate(OUT_OF_RANGE[2][0])  # swale 1e308 ft long
    assert r["message"] == ("length_ft is out of range: 1e+308 ft; at most 1e+09 ft in size is accepted "
                            "(more than any site measures; check the units)")
    r = evaluate(OUT_OF_RANGE[11][0])  # a 401-digit integer
    assert "about 401 digits" in r["message"]


def test_limits_are_inclusive_and_results_exact_at_them():
    assert (MAX_FT, MAX_VALUE) == (1e9, 1e15)
    # swale 1e9 ft long: total width 50 ft, area 50 × 1e9 = 5e10 sq ft, open space 0.75 of it.
    r = evaluate({"rule": "drainageway", "input": {"kind": "swale", "tributary_area_ac": 6, "length_ft": 1e9}})
    assert r["status"] == "determined" and r["area_sqft"] == 5e10 and r["min_open_space_sqft"] == 3.75e10
    r = evaluate({"rule": "drainageway", "input": {"kind": "swale", "tributary_area_ac": 6, "length_ft": 1.000001e9}})
    assert r["status"] == "error" and r["key"] == "input.length_ft"
    # 1e15 sq ft flat: surface = horizontal × √(1 + 0²) = 1e15, more than 10,000 sq ft.
    r = evaluate({"rule": "nr341.graded_area", "input": {"horizontal_area_sqft": 1e15, "slope_pct": 0}})
    assert r["surface_area_sqft"] == 1e15 and r["permit_required"] is True
    r = evaluate({"rule": "nr341.graded_area", "input": {"horizontal_area_sqft": 1.1e15, "slope_pct": 0}})
    assert r["key"] == "input.horizontal_area_sqft"
    # The fast path of the bank reader keeps the same limit: a 1e9 ft flat segment is accepted,
    # bank at the 75 ft base; 1.1e9 ft is refused.
    r = evaluate({"rule": "nr341.bank",
                  "input": {"priority": False, "segments": [{"horizontal_ft": 1e9, "slope_pct": 1}]}})
    assert r["status"] == "determined" and r["bank_ft"] == 75.0 and r["segment_horizontal_ft"] == [1e9]
    with pytest.raises(RuleInputError) as exc:
        bank_from_segments([(1.1e9, 1.0)], priority=False)
    assert exc.value.key == "segments[0].horizontal_ft"
    with pytest.raises(RuleInputError) as exc:
        bank_from_segments([(10.0, 1.0), (BIG_INT, 1.0)], priority=False)
    assert exc.value.key == "segments[1].horizontal_ft"


def test_real_projected_coordinates_are_accepted():
    # A 30 ft square foundation gives 900 + 4·30·20 + π·20² = 4556.64 sq ft wherever it stands:
    # at the origin, at Wisconsin state-plane feet, at a UTM northing in feet (1.6e7 ft), at 1e8 ft.
    for x, y in [(0.0, 0.0), (2.0e6, 5.0e5), (1.6e7, 3.0e6), (1.0e8, 1.0e8)]:
        sq = [[x, y], [x + 30, y], [x + 30, y + 30], [x, y + 30]]
        assert development_area([sq]).envelope_area_sqft == pytest.approx(900 + 2400 + math.pi * 400, abs=0.01)


def test_far_test_point_is_measured_not_refused():
    # Regression: a test point far away gave "test_points need at least one foundation or edge".
    # From [1e9, 1e9] the nearest foundation corner is [30, 30]: distance √2 · (1e9 − 30).
    r = evaluate({"rule": "development_area", "input": {"foundations": [SQUARE_30], "test_points": [[1e9, 1e9]]}})
    assert r["status"] == "determined" and r["inside"] == [False]
    assert r["distances_ft"][0] == pytest.approx(math.sqrt(2) * (1e9 - 30), rel=1e-12)
    # With no foundation or edge at all the message is still the right one.
    r = evaluate({"rule": "development_area", "input": {"foundations": [], "test_points": [[0, 0]]}})
    assert r["key"] == "input.foundations" and "need at least one foundation or edge" in r["message"]


@pytest.mark.parametrize("request_, key", [
    ({"rule": "development_area", "input": {"foundations": [square(1e-300)]}}, "input.foundations[0]"),
    (less_wetland(polygon_ft=square(1e-300)), "input.features[0].polygon_ft"),
])
def test_polygon_without_area_says_so(request_, key):
    # Regression: a 1e-300 ft square (area underflows to 0) said "not a valid polygon (Valid Geometry)".
    r = evaluate(request_)
    assert r["status"] == "error" and r["key"] == key
    assert "encloses no area" in r["message"] and "Valid Geometry" not in r["message"]


def test_self_intersecting_polygon_keeps_the_geos_reason():
    bowtie = [[0, 0], [10, 10], [10, 0], [0, 10]]
    r = evaluate({"rule": "development_area", "input": {"foundations": [bowtie]}})
    assert r["key"] == "input.foundations[0]" and "not a valid polygon (Self-intersection" in r["message"]


def test_deeply_nested_value_is_named_not_raised():
    deep: list = []
    cur = deep
    for _ in range(100_000):
        cur.append([])
        cur = cur[0]
    r = evaluate({"rule": "nr151.protective_area", "input": {"contiguous": False, "features": [{"type": deep}]}})
    assert r["status"] == "error" and r["key"] == "input.features[0].type"
    assert len(r["message"]) < 300  # the value is abbreviated, not printed 100,000 levels deep
    assert evaluate({"rule": deep, "input": {}})["key"] == "rule"


# --- evaluate() never raises ---------------------------------------------------------------


def test_unexpected_exception_is_an_error_with_a_key(monkeypatch):
    def broken(input, settings):
        raise ZeroDivisionError("float division by zero")

    monkeypatch.setitem(RULES, "steep_slope", broken)
    r = contract_evaluate({"rule": "steep_slope", "input": {"soil_unit": "Sr", "slope_pct": 31}})
    assert r == {"rule": "steep_slope", "status": "error", "key": "input",
                 "message": "internal error: ZeroDivisionError: float division by zero"}


def test_recursion_error_is_an_error_with_a_key(monkeypatch):
    def deep(input, settings):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setitem(RULES, "steep_slope", deep)
    r = contract_evaluate({"rule": "steep_slope", "input": {}})
    assert r["status"] == "error" and r["key"] == "input" and "nested too deeply" in r["message"]


def test_non_finite_result_becomes_an_error(monkeypatch):
    from fieldapp.rules.city import SteepSlopeResult
    from fieldapp.rules.results import Status

    def infinite(input, settings):
        return SteepSlopeResult(rule="steep_slope", status=Status.DETERMINED, citation="x",
                                undisturbed_required=True, soil_unit="Sr", slope_pct=math.inf)

    monkeypatch.setitem(RULES, "steep_slope", infinite)
    r = contract_evaluate({"rule": "steep_slope", "input": {}})
    assert r["status"] == "error" and r["key"] == "input"
    assert "the result slope_pct would be inf" in r["message"]


# --- the command line ----------------------------------------------------------------------


def run_cli(path):
    return subprocess.run([sys.executable, "-m", "fieldapp", "rules", "evaluate", str(path), "--indent", "-1"],
                          capture_output=True, text=True, cwd=REPO_ROOT, timeout=120)


def test_cli_overflowing_request_does_not_lose_the_batch(tmp_path):
    # Regression: this request killed the whole batch with "Out of range float values are not
    # JSON compliant", exit 1 and nothing printed.
    path = tmp_path / "batch.json"
    path.write_text(json.dumps([
        {"rule": "nr341.graded_area", "input": {"horizontal_area_sqft": 1e308, "slope_pct": 1e308}},
        {"rule": "steep_slope", "input": {"soil_unit": "Sr", "slope_pct": 31}},
        {"rule": "slope.clinometer", "input": {"horizontal_ft": 1e-320, "reading_pct": 1, "eye_height_ft": 5,
                                               "target_height_ft": 4}},
    ]))
    proc = run_cli(path)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    results = json.loads(proc.stdout)
    assert [r["status"] for r in results] == ["error", "determined", "error"]
    assert results[0]["key"] == "input.horizontal_area_sqft" and results[2]["key"] == "input.horizontal_ft"
    assert results[1]["undisturbed_required"] is True  # Sr over 30 %


def test_cli_400_digit_integer_names_the_key(tmp_path):
    # Regression: gave "key": "" with "internal error".
    path = tmp_path / "big.json"
    path.write_text('[{"rule": "nr341.graded_area", "input": {"horizontal_area_sqft": ' + "9" * 400
                    + ', "slope_pct": 3}}]')
    proc = run_cli(path)
    assert proc.returncode == 1, proc.stderr
    (r,) = json.loads(proc.stdout)
    assert r["key"] == "input.horizontal_area_sqft" and "internal error" not in r["message"]


@pytest.mark.parametrize("text, why", [
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ('{"rule": "steep_slope", "input": {"slope_pct": ' + "9" * 5000 + "}}", "digits"),
])
def test_cli_unreadable_json_exits_2(tmp_path, text, why):
    path = tmp_path / "bad.json"
    path.write_text(text)
    proc = run_cli(path)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "Traceback" not in proc.stderr and "cannot read" in proc.stderr and why in proc.stderr, proc.stderr
