"""NR 341.035(2)(d), (3): all the disturbed area within the bank counts (issue 29)."""

from __future__ import annotations

import math

import pytest

from fieldapp.rules import evaluate
from fieldapp.rules.nr341 import graded_patches


def patches(*areas_slopes):
    return {"rule": "nr341.graded_area", "input": {"patches": [
        {"horizontal_area_sqft": a, "slope_pct": s} for a, s in areas_slopes]}}


def test_two_patches_each_under_the_trigger_add_up_over_it():
    # 6,000 sq ft at 0 % and 4,000 sq ft at 75 %: the second's surface is 4,000 × 1.25 = 5,000;
    # each alone is under 10,000, together 11,000 sq ft: more than 10,000, permit.
    r = evaluate(patches((6000, 0), (4000, 75)))
    assert r["status"] == "determined" and r["citation"] == "NR 341.035(2)(d), (3)"
    assert r["patch_surface_areas_sqft"] == [6000.0, 5000.0]
    assert r["surface_area_sqft"] == 11000.0 and r["permit_required"] is True
    assert r["interpretations"] == ["surface-area", "all-disturbed-area"]
    assert r["horizontal_area_sqft"] == 10000.0 and r["slope_pct"] == 75.0


@pytest.mark.parametrize(("second", "permit"), [
    (4000.0, False),             # exactly 10,000: "shall exceed" -> no
    (4000.0 + 2e-6, True),       # beyond the 1e-6 tolerance: exceeds
    (3999.99, False),
    (4000.01, True),
])
def test_the_sum_at_exactly_10000_does_not_exceed(second, permit):
    assert evaluate(patches((6000, 0), (second, 0)))["permit_required"] is permit


def test_each_patch_on_its_own_surface_degrees_named():
    # 5,000 sq ft at 45 degrees: surface 5,000·√2 = 7,071.07; + 3,000 flat = 10,071.07 > 10,000
    r = graded_patches([{"horizontal_area_sqft": 5000, "slope_deg": 45}, {"horizontal_area_sqft": 3000,
                                                                          "slope_pct": 0}])
    assert r.surface_area_sqft == pytest.approx(3000 + 5000 * math.sqrt(2))
    assert r.permit_required and "horizontal-distance" in r.interpretations


def test_single_patch_form_keeps_its_answer_and_errors_name_the_patch():
    one = evaluate({"rule": "nr341.graded_area", "input": {"horizontal_area_sqft": 9999.0, "slope_pct": 20.0}})
    assert one["citation"] == "NR 341.035(3)" and one["permit_required"] is True
    assert one["patch_surface_areas_sqft"] == []
    bad = evaluate(patches((6000, 0), (-1, 0)))
    assert bad["status"] == "error" and bad["key"] == "input.patches[1].horizontal_area_sqft"
    empty = evaluate({"rule": "nr341.graded_area", "input": {"patches": []}})
    assert empty["status"] == "error" and empty["key"] == "input.patches"
