"""Results are the same bytes on every platform (issue 28): floats rounded to 6 places, ASCII
JSON with ``\\n`` line ends, and the examples' outputs stored and compared byte for byte."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fieldapp.rules import development_area, evaluate
from fieldapp.rules.contract import json_bytes
from fieldapp.rules.results import RESULT_DECIMALS, result_float

REPO = Path(__file__).resolve().parents[2]
EXPECTED = Path(__file__).with_name("expected")
#: the development-area example's area as Linux's and Windows' maths libraries give it
LINUX, WINDOWS = 4556.63509011086, 4556.635090110862


def test_the_two_platforms_areas_differ_in_the_last_bit_only():
    assert LINUX != WINDOWS and abs(LINUX - WINDOWS) < 4 * 2 ** -40   # a few ulps of 4556


def test_a_result_one_ulp_apart_serialises_to_the_same_bytes():
    square = development_area([[[0, 0], [30, 0], [30, 30], [0, 30]]])
    linux = dataclasses.replace(square, envelope_area_sqft=LINUX).to_dict()
    windows = dataclasses.replace(square, envelope_area_sqft=WINDOWS).to_dict()
    assert json_bytes([linux]) == json_bytes([windows])
    assert b'"envelope_area_sqft": 4556.63509,\n' in json_bytes([linux])
    # the typed result keeps the unrounded number; only the JSON result is rounded
    assert square.envelope_area_sqft != 4556.63509
    assert abs(square.envelope_area_sqft - 4556.63509) < 0.5 * 10 ** -RESULT_DECIMALS


def test_every_float_of_a_result_is_rounded_ints_and_bools_are_not():
    r = evaluate({"rule": "development_area", "input": {
        "foundations": [[[0, 0], [30, 0], [30, 30], [0, 30]]],
        "test_points": [[0, 50.0000001], [10, 10], [50, 50]]}})
    assert r["inside"] == [True, True, False]     # decided on the distances as shown
    # 20.0000001 from the corner is on the limit within the contract's 1e-6 tolerance
    assert r["distances_ft"][:2] == [20.0, 0.0]
    assert r["distances_ft"][2] == 28.284271      # 20·√2 = 28.2842712474...
    assert all(v == round(v, 6) for v in r["distances_ft"])


def test_result_float_normalises_negative_zero_and_leaves_non_finite_for_evaluate():
    assert str(result_float(-1e-9)) == "0.0"
    assert result_float(1e-7) == 0.0 and result_float(5.1e-7) == 1e-6
    assert result_float(float("inf")) == float("inf")


@pytest.mark.parametrize("name", sorted(p.name for p in (REPO / "examples/rules").glob("*.json")))
def test_examples_print_their_stored_results_byte_for_byte(name):
    """``tests/rules/expected/NAME`` is what ``fieldapp rules evaluate examples/rules/NAME``
    prints: on Windows too (its maths library, its ``\\r\\n``), the same bytes."""
    r = subprocess.run([sys.executable, "-m", "fieldapp", "rules", "evaluate", f"examples/rules/{name}"],
                       cwd=REPO, capture_output=True, timeout=120,
                       env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert r.returncode == 0, r.stderr
    want = (EXPECTED / name).read_bytes()
    assert r.stdout == want
    assert b"\r" not in want and want.isascii() and want.endswith(b"]\n")


def test_stored_results_hold_the_contract_worked_examples():
    """rules-contract.md, "Examples" (worked by hand)."""
    def one(name):
        (result,) = json.loads((EXPECTED / name).read_bytes())
        return result

    bank = one("bank.json")
    assert (bank["status"], bank["bank_ft"], bank["extended"], bank["basis"]) == ("determined", 90.0, True, "slope")
    more = one("bank_needs_data.json")
    assert (more["status"], more["bank_ft"], more["bank_ft_at_least"], more["walk_further_ft"]) == \
        ("needs_data", None, 90.0, 5.0)
    assert one("wetland_protective_area.json")["width_ft"] == 26.0
    wood = one("woodland_class.json")
    assert (wood["class"], wood["basis"]) == ("mature", "canopy")
    mit = one("woodland_mitigation.json")
    assert (mit["retained_pct"], mit["permitted"], mit["mitigation_area_ac"]) == (40.0, True, 0.4)
    assert list(mit["plantings"].values()) == [2, 4, 24, 8, 10]
    assert round(one("development_area.json")["envelope_area_sqft"], 2) == 4556.64


def test_a_verdict_never_contradicts_the_number_it_shows():
    """Near a limit the shown (rounded) number and the verdict must agree: a test point
    20.0000012 ft from a foundation was called outside the 20 ft envelope (more than
    20 + 1e-6) while its distance showed as 20.000001 ft, which the contract calls inside; one
    at 20.0000009 ft, shown the same, was inside. Swept across the limit in 1e-8 ft steps."""
    from fieldapp.rules.compare import TOLERANCE

    seen = set()
    for k in range(-300, 301):
        y = 50.000001 + k * 1e-8
        r = evaluate({"rule": "development_area", "input": {
            "foundations": [[[0, 0], [30, 0], [30, 30], [0, 30]]], "test_points": [[0, y]]}})
        shown = r["distances_ft"][0]
        assert r["inside"] == [shown <= round(20 + TOLERANCE, 6)], (y, shown, r["inside"])
        seen.add((shown, r["inside"][0]))
    assert (20.000001, True) in seen and (20.000002, False) in seen and (20.000001, False) not in seen


def test_a_numpy_float_in_a_result_is_rounded_like_any_float():
    """numpy's float64 is a float (json writes it with all its digits): a rule handing one on
    (a shapely or numpy measure not passed through float()) escaped the rounding."""
    np = pytest.importorskip("numpy")
    square = development_area([[[0, 0], [30, 0], [30, 30], [0, 30]]])
    out = dataclasses.replace(square, envelope_area_sqft=np.float64(4556.635090110862),
                              distances_ft=(np.float64(-1e-9), 1.23456789)).to_dict()
    assert type(out["envelope_area_sqft"]) is float and out["envelope_area_sqft"] == 4556.63509
    assert out["distances_ft"] == [0.0, 1.234568] and str(out["distances_ft"][0]) == "0.0"
    assert b'"envelope_area_sqft": 4556.63509,' in json_bytes([out])
