"""The stand canopy kept tree by tree equals the from-scratch union, whatever the edits."""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from fieldapp.survey import AreaKind, LeafHabit, TreeStatus, Visit, canopy
from fieldapp.survey.standcanopy import StandCanopy

X0, Y0 = 500_000.0, 4_983_000.0
SIDE = 30.0  # m: a 30 m square stand (crowns overlap in threes and more); trees also up to 10 m outside


def _frame():
    return Visit.new("t", crs="EPSG:32616", who="t").frame


def _sqft_per_grid(frame, stand) -> float:
    return frame.area_sqft(stand) / float(shapely.area(stand))


def _scratch_sqft(frame, stand, trees):
    """(≥ 10 in, ≥ 3 in, deciduous ≥ 10 in) union areas from scratch, sq ft."""
    k = frame._k_at(stand)
    crowns = canopy._clip(canopy.crown_polygons(trees, frame, k), stand) if trees else \
        np.empty(0, dtype=object)
    _, _, dbh, live, decid = canopy._arrays(trees)
    f = _sqft_per_grid(frame, stand)
    return tuple(a * f for a in canopy.canopy_areas(crowns, dbh, live, decid))


tree_st = st.fixed_dictionaries({
    "x": st.floats(-5, SIDE + 5), "y": st.floats(-5, SIDE + 5),
    "dbh_in": st.sampled_from([2.0, 2.999999, 3.0, 6.0, 9.9999995, 10.0, 14.0, 24.0]),
    "crown_radius_ft": st.one_of(st.floats(6.0, 30.0), st.floats(6.0, 30.0), st.none()),
    "leaf_habit": st.sampled_from([LeafHabit.DECIDUOUS, LeafHabit.EVERGREEN]),
    "status": st.sampled_from([TreeStatus.LIVE, TreeStatus.LIVE, TreeStatus.DEAD]),
})
op_st = st.one_of(
    st.tuples(st.just("add"), tree_st),
    st.tuples(st.just("delete"), st.integers(0, 10_000)),
    st.tuples(st.just("edit"), st.integers(0, 10_000), tree_st),
)


def _add(v, spec):
    return v.add_tree(**{**spec, "x": X0 + spec["x"], "y": Y0 + spec["y"]})


_SPEC = dict(dbh_in=12.0, crown_radius_ft=10.0, leaf_habit=LeafHabit.DECIDUOUS,
             status=TreeStatus.LIVE)
#: A clump: ten crowns in a row, then one over several of them (each crown meets many).
_CLUMP = [dict(_SPEC, x=10.0 + i, y=15.0) for i in range(10)]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(start=_CLUMP, ops=[("add", dict(_SPEC, x=15.0, y=16.0)), ("delete", 3),
                            ("edit", 5, dict(_SPEC, x=12.0, y=17.0, dbh_in=4.0))])
@given(start=st.lists(tree_st, min_size=8, max_size=40),
       ops=st.lists(op_st, min_size=1, max_size=20))
def test_kept_canopy_equals_the_union_after_every_squeeze_edit_and_delete(start, ops):
    v = Visit.new("t", crs="EPSG:32616", who="t")
    stand = shapely.box(X0, Y0, X0 + SIDE, Y0 + SIDE)
    kept = StandCanopy(stand, v.frame)
    for spec in start:
        _add(v, spec)
    f = _sqft_per_grid(v.frame, stand)
    for op in [("none",)] + ops:
        trees = v.trees()
        if op[0] == "add":
            _add(v, op[1])
        elif op[0] == "delete" and trees:
            v.delete_tree(trees[op[1] % len(trees)].uuid)
        elif op[0] == "edit" and trees:
            spec = op[2]
            v.update_tree(trees[op[1] % len(trees)].uuid, **{**spec, "x": X0 + spec["x"],
                                                            "y": Y0 + spec["y"]})
        trees = v.trees()
        m = kept.measures(trees)
        inc = tuple(a * f for a in kept.areas())
        assert inc == pytest.approx(_scratch_sqft(v.frame, stand, trees), abs=1e-6, rel=0)
        ref = canopy.stand_measures(stand, trees, v.frame)
        assert m.stems == ref.stems
        assert m.basal_area_sqft_per_ac == pytest.approx(ref.basal_area_sqft_per_ac, rel=1e-12)
        assert [(c.low_in, c.stems) for c in m.stand_table] == \
            [(c.low_in, c.stems) for c in ref.stand_table]
        assert (m.deciduous_share_pct is None) == (ref.deciduous_share_pct is None)
        inside = shapely.covers(stand, shapely.points([(t.x, t.y) for t in trees])) \
            if trees else []
        assert kept.tallied(trees) == int(np.sum(inside))   # any status, boundary counting
    if start:   # built once from the starting tally, then every edit was applied by itself
        assert kept.rebuilds == 1


def test_a_squeeze_unions_only_the_new_crown_and_its_neighbours():
    """Adding one tree to a built canopy is incremental (no rebuild) and exact by hand: a crown
    half over an existing one of the same radius adds its area minus the lens."""
    v = Visit.new("t", crs="EPSG:32616", who="t")
    stand = shapely.box(X0, Y0, X0 + 200, Y0 + 200)
    kept = StandCanopy(stand, v.frame)
    rng = np.random.default_rng(3)
    for x, y in rng.uniform(20, 180, (300, 2)):
        v.add_tree(x=X0 + x, y=Y0 + y, dbh_in=4.0, crown_radius_ft=3.0)  # ≥ 3 in only
    a = v.add_tree(x=X0 + 100, y=Y0 + 100, dbh_in=12.0, crown_radius_ft=20.0)
    kept.measures(v.trees())
    assert kept.rebuilds == 1
    c10_before = kept.areas()[0]
    d = 20 * 0.3048  # m: the second crown's centre 20 ft east of the first
    v.add_tree(x=a.x + d, y=a.y, dbh_in=12.0, crown_radius_ft=20.0)
    looked_at = kept.update(v.trees())
    assert looked_at == 1 and kept.rebuilds == 1
    r = 20.0
    lens = 2 * r * r * math.acos(20 / (2 * r)) - 10 * math.sqrt(4 * r * r - 400)
    added_sqft = (kept.areas()[0] - c10_before) * _sqft_per_grid(v.frame, stand)
    assert added_sqft == pytest.approx(math.pi * r * r - lens, rel=2e-3)   # 2021.9 - 1256.6


def test_visit_keeps_one_canopy_per_stand_and_rebuilds_when_the_stand_changes():
    v = Visit.new("t", crs="EPSG:32616", who="t")
    ring = [(X0, Y0), (X0 + 60, Y0), (X0 + 60, Y0 + 60), (X0, Y0 + 60)]
    stand = v.add_area(AreaKind.WOODLAND_STAND, ring)
    v.add_tree(x=X0 + 30, y=Y0 + 30, dbh_in=12.0, crown_radius_ft=10.0)
    first = v.stand_measures(stand.uuid)
    kept = v._canopies[stand.uuid]
    v.add_tree(x=X0 + 35, y=Y0 + 30, dbh_in=12.0, crown_radius_ft=10.0)
    second = v.stand_measures(stand.uuid)
    assert v._canopies[stand.uuid] is kept and second.stems == 2 > first.stems
    half = [(X0, Y0), (X0 + 30, Y0), (X0 + 30, Y0 + 60), (X0, Y0 + 60)]
    v.update_feature("area_feature", stand.uuid, geometry=shapely.Polygon(half))
    third = v.stand_measures(stand.uuid)
    assert v._canopies[stand.uuid] is not kept
    assert third == canopy.stand_measures(v.get("area_feature", stand.uuid).geometry,
                                          v.trees(), v.frame)


def test_stand_tally_counts_every_tree_standing_in_the_stand_whatever_its_status():
    """Live, dead and removed trees inside count (a tally was made), one on the boundary too,
    one outside whose crown reaches in does not; a delete or a move out takes one off, and the
    stand's figures asked after the count still see the change."""
    v = Visit.new("t", crs="EPSG:32616", who="t")
    stand = v.add_area(AreaKind.WOODLAND_STAND, [(X0, Y0), (X0 + 60, Y0), (X0 + 60, Y0 + 60),
                                                 (X0, Y0 + 60)])
    assert v.stand_tally(stand.uuid) == 0
    live = v.add_tree(x=X0 + 30, y=Y0 + 30, dbh_in=12.0, crown_radius_ft=10.0)
    v.add_tree(x=X0 + 10, y=Y0 + 10, dbh_in=8.0, status=TreeStatus.DEAD)
    v.add_tree(x=X0 + 20, y=Y0 + 40, dbh_in=8.0, status=TreeStatus.REMOVED)
    edge = v.add_tree(x=X0 + 60, y=Y0 + 20, dbh_in=14.0)                # on the boundary
    v.add_tree(x=X0 + 62, y=Y0 + 30, dbh_in=20.0, crown_radius_ft=20.0)  # outside, crown in
    assert v.stand_tally(stand.uuid) == 4
    assert v.stand_measures(stand.uuid).stems == 2                      # live ones inside
    v.delete_tree(live.uuid)
    assert v.stand_tally(stand.uuid) == 3
    assert v.stand_measures(stand.uuid).stems == 1
    v.update_tree(edge.uuid, x=X0 + 70)
    assert v.stand_tally(stand.uuid) == 2
    assert v.stand_measures(stand.uuid).stems == 0
    v.undo()
    assert (v.stand_tally(stand.uuid), v.stand_measures(stand.uuid).stems) == (3, 1)


def test_crown_circles_are_the_buffered_stems_vertex_for_vertex():
    """canopy.circles builds what shapely.buffer of each stem gives (exactly: same vertices)."""
    rng = np.random.default_rng(5)
    xy = np.stack([rng.uniform(X0, X0 + 600, 500), rng.uniform(Y0, Y0 + 600, 500)], axis=1)
    r = rng.uniform(0.3, 12.0, 500)
    ours = canopy.circles(xy, r)
    buffered = shapely.buffer(shapely.points(xy), r, quad_segs=canopy.QUAD_SEGS)
    assert bool(shapely.equals_exact(ours, buffered, tolerance=0.0).all())
    assert shapely.get_num_coordinates(ours[0]) == 4 * canopy.QUAD_SEGS + 1
