"""Walked boundaries with GNSS jitter: no false self-crossings, real ones still reported.

Hand-made vertex sequences in UTM 16N metres (EPSG:32616), vertices every 10 ft (3.048 m),
with the jitter a receiver gives between consecutive vertices: alternating lateral offsets
and occasional small steps back along the line.
"""

from __future__ import annotations

import pytest

from fieldapp.survey import AreaKind, Layer, SelfCrossing, Visit
from fieldapp.survey.boundary import ring_crossings
from tests.survey.test_survey import clock

X0, Y0 = 500000.0, 4983000.0
SPACING_M = 3.048  # 10 international ft


@pytest.fixture
def visit():
    return Visit.new("Oak stand", crs="EPSG:32616", who="tester@laptop", clock=clock(),
                     priority_waterway=False)


def jittered_edge(p, q, jitter_m, back_m, back_every=4):
    """Vertices from p towards q (q excluded) every SPACING_M, offset ±jitter_m sideways
    (alternating), with a vertex back_m behind the previous one every ``back_every``."""
    (px, py), (qx, qy) = p, q
    length = ((qx - px) ** 2 + (qy - py) ** 2) ** 0.5
    ux, uy = (qx - px) / length, (qy - py) / length
    out = []
    n = int(length // SPACING_M)
    for k in range(n):
        s = k * SPACING_M
        off = jitter_m if k % 2 else -jitter_m
        out.append((px + ux * s - uy * off, py + uy * s + ux * off))
        if back_m and k % back_every == back_every - 1:
            s -= back_m
            off = -off
            out.append((px + ux * s - uy * off, py + uy * s + ux * off))
    return out


def test_straight_line_with_rtk_jitter_never_crosses(visit):
    w = visit.start_walk(AreaKind.WOODLAND_STAND, spacing_ft=10.0)
    line = jittered_edge((X0, Y0), (X0 + 100.0, Y0), 0.02, 0.05)
    for k, (x, y) in enumerate(line):
        w.add_vertex(x, y)
        assert w.crossings() == [], f"false crossing after vertex {k}"
    # the cause of the false alarm: the ring's closing segment runs back along the zig-zag and
    # "crosses" it (the old test, closed ring and no tolerance) -- so this test can fail
    assert len(ring_crossings(line)) == 37
    # ... and the 5 cm steps back are loops of ~0.05 m x 0.04 m, far under (10 ft)^2
    assert w.noise_tolerance_m == pytest.approx(SPACING_M)


# area tolerance: 0.5 % for RTK fixed / float; for metre jitter at most perimeter x jitter
# (182.88 m x 1 m = 183 m^2, ~10 %): the band the boundary can wander in
@pytest.mark.parametrize("jitter_m, back_m, rel", [(0.02, 0.05, 0.005),  # RTK fixed: cm
                                                   (0.20, 0.30, 0.005),  # RTK float: dm
                                                   (1.00, 1.50, 0.0985)])  # autonomous-ish
def test_rectangle_walk_with_noise_closes_without_crossing_at_true_area(visit, jitter_m, back_m, rel):
    w = visit.start_walk(AreaKind.WOODLAND_STAND, spacing_ft=10.0)
    corners = [(X0, Y0), (X0 + 60.96, Y0), (X0 + 60.96, Y0 + 30.48), (X0, Y0 + 30.48)]
    ring = []
    for p, q in zip(corners, corners[1:] + corners[:1], strict=True):
        ring += jittered_edge(p, q, jitter_m, back_m)
    for x, y in ring:
        w.add_vertex(x, y)
        assert w.crossings() == []
    area = w.close()  # no SelfCrossing
    # true area 60.96 m x 30.48 m = 1858.06 m^2 (200 ft x 100 ft); the jitter averages out
    assert area.geometry.geom_type == "Polygon"
    assert area.geometry.area == pytest.approx(60.96 * 30.48, rel=rel)
    assert visit.features(Layer.AREA) == [area]


def test_figure_eight_with_jitter_reported_and_repair_keeps_both_lobes(visit):
    w = visit.start_walk(AreaKind.WOODLAND_STAND, spacing_ft=10.0)
    # a bow-tie walked 0,0 -> 60,60 -> 60,0 -> 0,60 -> back to 0,0: two 30 x 60 m triangles
    # meeting at (30, 30), each 0.5 * 60 * 30 = 900 m^2
    corners = [(X0, Y0), (X0 + 60.0, Y0 + 60.0), (X0 + 60.0, Y0), (X0, Y0 + 60.0)]
    ring = []
    for p, q in zip(corners, corners[1:] + corners[:1], strict=True):
        ring += jittered_edge(p, q, 0.02, 0.05)
    for x, y in ring:
        w.add_vertex(x, y)
    got = w.crossings()  # the walked path already crosses its first leg
    assert len(got) == 1 and got[0] == pytest.approx((X0 + 30.0, Y0 + 30.0), abs=0.1)
    with pytest.raises(SelfCrossing) as e:
        w.close()
    assert len(e.value.crossings) == 1
    assert len(e.value.repaired.geoms) == 2
    assert sorted(g.area for g in e.value.repaired.geoms) == pytest.approx([900.0, 900.0], rel=0.01)
    assert visit.features(Layer.AREA) == []
    area = w.close(repair=True)
    assert area.geometry.area == pytest.approx(1800.0, rel=0.01)


def test_ring_crossings_tolerance_keeps_a_lobe_above_it():
    # bow-tie with 10 x 10 lobes (each 0.5 * 10 * 5 = 25 units^2): reported under a 25 tolerance,
    # left out above it
    bow = [(0, 0), (10, 10), (10, 0), (0, 10)]
    assert ring_crossings(bow, min_lobe_area=24.9) == [(5.0, 5.0)]
    assert ring_crossings(bow, min_lobe_area=25.1) == []
    # open path: only the three walked segments, the first and third crossing at (5, 5)
    assert ring_crossings(bow, closed=False) == [(5.0, 5.0)]
    assert ring_crossings([(0, 0), (10, 0), (10, 1), (0, 1)], closed=False) == []
