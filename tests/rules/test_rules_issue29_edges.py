"""Woodlands D.2.b: a driveway edge drawn as an open line is buffered as a line (issue 29)."""

from __future__ import annotations

import math

import pytest

from fieldapp.rules import evaluate
from fieldapp.rules.city import development_area

SQUARE = [[0, 0], [30, 0], [30, 30], [0, 30]]
# an open driveway edge of 3 points, an L: (100,0) -> (200,0) -> (200,100), far from the house
DRIVE = [[100, 0], [200, 0], [200, 100]]
HOUSE = 900 + 2400 + 400 * math.pi


def test_open_driveway_of_three_points_is_a_line_not_a_triangle():
    # Two 100 ft legs, 5 ft each side: as test_bent_utility_trench_is_a_line, 1975 + 31.25π.
    # The triangle (100,0)-(200,0)-(200,100) closed would be 5000 sq ft + its 5 ft rim.
    r = development_area([SQUARE], edges=[{"kind": "driveway", "coordinates": DRIVE}],
                         test_points=[[180, 50], [200, 105], [200, 105.01]])
    assert r.envelope_area_sqft == pytest.approx(HOUSE + 1975 + 31.25 * math.pi, abs=0.01)
    assert r.edge_shapes == ("line",)
    # (180, 50) is inside the triangle but 20 ft from the drive: outside the development area
    assert r.inside == (False, True, False)
    assert r.distances_ft[0] == pytest.approx(20.0)


def test_shape_polygon_is_kept_as_an_area():
    r = development_area([SQUARE], edges=[{"kind": "driveway", "shape": "polygon", "coordinates": DRIVE}],
                         test_points=[[180, 50]])
    # triangle 5000 sq ft, perimeter 200 + 100√2, buffered 5 ft: + 5·perimeter + π·25
    assert r.envelope_area_sqft == pytest.approx(HOUSE + 5000 + 5 * (200 + 100 * math.sqrt(2)) + 25 * math.pi,
                                                 abs=0.01)
    assert r.edge_shapes == ("polygon",) and r.inside == (True,)


def test_closed_driveway_ring_and_parking_default_to_polygons():
    ring = DRIVE + [DRIVE[0]]
    r = development_area([], edges=[{"kind": "driveway", "coordinates": ring},
                                    {"kind": "parking", "coordinates": [[0, 0], [10, 0], [10, 10], [0, 10]]}])
    assert r.edge_shapes == ("polygon", "polygon")


def test_contract_reports_edge_shapes_and_refuses_an_unknown_shape():
    res = evaluate({"rule": "development_area", "input": {"foundations": [SQUARE], "edges": [
        {"kind": "driveway", "coordinates": DRIVE}]}})
    assert res["edge_shapes"] == ["line"] and "edge-shape" in res["interpretations"]
    bad = evaluate({"rule": "development_area", "input": {"foundations": [SQUARE], "edges": [
        {"kind": "driveway", "shape": "ring", "coordinates": DRIVE}]}})
    assert bad["status"] == "error" and bad["key"] == "input.edges[0].shape"
    two = evaluate({"rule": "development_area", "input": {"foundations": [SQUARE], "edges": [
        {"kind": "parking", "shape": "polygon", "coordinates": [[0, 0], [1, 1]]}]}})
    assert two["status"] == "error" and two["key"] == "input.edges[0].coordinates"
