"""fieldapp.checks.segments and the per-stretch support of fieldapp.checks.support: which
stretches of a wetland boundary its paired data points support, worked on a 200 ft square."""

from __future__ import annotations

import pytest
from shapely.geometry import Polygon

from fieldapp.checks.segments import REACH_FT, segment_support

#: a 200 x 200 ft square walked from its south-west corner anticlockwise (grid units = ft)
SQUARE = Polygon([(0, 0), (200, 0), (200, 200), (0, 200)])


def _words(r):
    return [(s.facing, round(s.length_ft, 1), round(s.from_ft, 1), round(s.to_ft, 1)) for s in r.unsupported]


def test_one_pair_on_the_east_side_leaves_three_sides_with_their_lengths():
    r = segment_support(SQUARE, [((150, 100), (250, 100))], 1.0)
    assert r.perimeter_ft == 800.0 and r.supported_ft == 200.0
    assert _words(r) == [("south", 200.0, 0.0, 200.0), ("north", 200.0, 400.0, 600.0),
                         ("west", 200.0, 600.0, 800.0)]
    assert [s.words() for s in r.unsupported] == ["the south 200 ft", "the north 200 ft", "the west 200 ft"]


def test_the_reach_runs_round_a_corner_and_the_whole_crossed_segment_counts():
    # the pair crosses the east side 30 ft from the south-east corner: the east side (the
    # segment crossed) and 100 - 30 = 70 ft of the south side are supported
    r = segment_support(SQUARE, [((150, 30), (250, 30))], 1.0)
    assert r.supported_ft == pytest.approx(200.0 + REACH_FT - 30.0)
    assert _words(r) == [("south", 130.0, 0.0, 130.0), ("north", 200.0, 400.0, 600.0),
                         ("west", 200.0, 600.0, 800.0)]


def test_a_pair_on_each_side_supports_all_of_it_and_none_supports_nothing():
    pairs = [((100, 50), (100, -50)), ((150, 100), (250, 100)), ((100, 150), (100, 250)), ((50, 100), (-50, 100))]
    r = segment_support(SQUARE, pairs, 1.0)
    assert r.supported_ft == 800.0 and r.unsupported == ()
    bare = segment_support(SQUARE, [], 1.0)
    assert bare.supported_ft == 0.0 and [s.facing for s in bare.unsupported] == ["south", "east", "north", "west"]


def test_a_walked_side_with_jitter_stays_one_stretch_and_feet_per_unit_scale_it():
    # the north side walked with a 2 ft kink (a short piece facing north-west): one stretch;
    # the square in metres (0.3048 m per ft): lengths come back in feet
    jag = Polygon([(0, 0), (200, 0), (200, 200), (101, 200), (99, 202), (0, 202)])
    r = segment_support(jag, [((150, 100), (250, 100)), ((100, 50), (100, -50)), ((50, 100), (-50, 100))], 1.0)
    # (the west side is the segment the west pair crosses: all of it is supported)
    assert _words(r) == [("north", round(99 + 2 * 2 ** 0.5 + 99, 1), 400.0, 600.8)]
    m = Polygon([(x * 0.3048, y * 0.3048) for x, y in SQUARE.exterior.coords])
    rm = segment_support(m, [((150 * 0.3048, 100 * 0.3048), (250 * 0.3048, 100 * 0.3048))], 1 / 0.3048)
    assert [(s.facing, round(s.length_ft, 6)) for s in rm.unsupported] == [("south", 200.0), ("north", 200.0),
                                                                          ("west", 200.0)]


def test_a_clockwise_ring_and_a_north_east_face_are_named_by_where_they_face():
    # a diamond walked clockwise: its four faces are the diagonal sides
    diamond = Polygon([(0, 100), (100, 200), (200, 100), (100, 0)])
    r = segment_support(diamond, [], 1.0)
    assert sorted(s.facing for s in r.unsupported) == ["north-east", "north-west", "south-east", "south-west"]
    # positions run from the first vertex the way it was walked: north-west face first
    assert [(s.facing, round(s.from_ft, 1), round(s.to_ft, 1)) for s in r.unsupported] == [
        ("north-west", 0.0, 141.4), ("north-east", 141.4, 282.8), ("south-east", 282.8, 424.3),
        ("south-west", 424.3, 565.7)]
