"""The city resource-protection chapter: hand-worked cases at every threshold."""

import math

import pytest

from fieldapp.rules import (
    RuleInputError,
    Status,
    development_area,
    drainageway,
    erodible_slope,
    erosion_plan,
    steep_slope,
    wetland_size,
    woodland_class,
    woodland_mitigation,
)


def tree(dbh, habit="deciduous", **kw):
    return {"dbh_in": dbh, "leaf_habit": habit, **kw}


# --- woodland class (Woodlands A.2, A.3) --------------------------------------------------


def test_canopy_30_0_is_mature():
    r = woodland_class(canopy_10in_pct=30.0, deciduous_share_pct=80, canopy_3in_pct=40)
    assert (r.class_, r.basis, r.protection_pct) == ("mature", "canopy", 75.0)
    assert r.to_dict()["class"] == "mature"


def test_canopy_29_9_is_not_mature():
    r = woodland_class(canopy_10in_pct=29.9, deciduous_share_pct=80, canopy_3in_pct=40)
    assert r.class_ == "none" and r.basis is None


def test_canopy_29_9_with_70_pct_small_canopy_is_young():
    r = woodland_class(canopy_10in_pct=29.9, deciduous_share_pct=80, canopy_3in_pct=70.0)
    assert (r.class_, r.protection_pct, r.citation) == ("young", 50.0, "Decorah resource protection, Woodlands A.3")


def test_small_canopy_69_9_is_not_young():
    assert woodland_class(canopy_10in_pct=10, deciduous_share_pct=80, canopy_3in_pct=69.9).class_ == "none"


def test_mixed_evergreen_canopy_exactly_half_is_not_largely_deciduous():
    # 40 % canopy but only 50 % of it deciduous: not "largely" (more than 50 %); 80 % ≥ 3 in: young.
    r = woodland_class(canopy_10in_pct=40, deciduous_share_pct=50.0, canopy_3in_pct=80)
    assert r.class_ == "young" and "largely-deciduous" in r.interpretations


def test_mixed_evergreen_canopy_just_over_half_is_mature():
    assert woodland_class(canopy_10in_pct=40, deciduous_share_pct=50.1, canopy_3in_pct=80).class_ == "mature"


def test_largely_deciduous_setting():
    # with the setting at 60 %, a 55 % deciduous canopy is not largely deciduous.
    r = woodland_class(canopy_10in_pct=40, deciduous_share_pct=55, canopy_3in_pct=50, largely_deciduous_pct=60)
    assert r.class_ == "none"


def test_grove_of_exactly_8_trees():
    r = woodland_class(canopy_10in_pct=5, deciduous_share_pct=100, canopy_3in_pct=10, trees=[tree(18.0)] * 8)
    assert (r.class_, r.basis, r.qualifying_grove_trees) == ("mature", "grove", 8)
    assert "grove" in r.interpretations and "dbh-for-standing-trees" in r.interpretations


def test_grove_of_7_trees_is_not_mature():
    # 7 qualifying; an 18 in evergreen, a 17.99 in deciduous and a 20 in caliper on a 17 in DBH
    # tree do not count.
    trees = [tree(18.0)] * 7 + [tree(18.0, "evergreen"), tree(17.99), tree(17.0, caliper_in=20.0)]
    r = woodland_class(canopy_10in_pct=5, deciduous_share_pct=100, canopy_3in_pct=10, trees=trees)
    assert r.class_ == "none" and r.qualifying_grove_trees == 7
    assert isinstance(r.to_dict()["qualifying_grove_trees"], int)


def test_unknown_deciduous_share_needs_data_unless_grove():
    r = woodland_class(canopy_10in_pct=35, canopy_3in_pct=80)
    assert r.status is Status.NEEDS_DATA and r.class_ is None and "deciduous share" in r.next_step
    r = woodland_class(canopy_10in_pct=35, canopy_3in_pct=80, trees=[tree(20)] * 8)
    assert (r.status, r.class_, r.basis) == (Status.DETERMINED, "mature", "grove")


def test_dot_grid_sample():
    # 32/100 points on ≥ 10 in canopy = 32 %; 20/32 deciduous = 62.5 %; 60/100 = 60 %: mature.
    r = woodland_class(canopy_sample={"method": "dot_grid", "points_total": 100, "points_on_canopy_10in": 32,
                                      "points_on_deciduous_canopy_10in": 20, "points_on_canopy_3in": 60})
    assert (r.canopy_10in_pct, r.deciduous_share_pct, r.canopy_3in_pct) == pytest.approx((32.0, 62.5, 60.0))
    assert r.class_ == "mature" and "canopy-sample-proportion" in r.interpretations


def test_line_intercept_sample():
    # 58/200 = 29 % (< 30), 150/200 = 75 % ≥ 70: young.
    r = woodland_class(canopy_sample={"method": "line_intercept", "line_length_ft": 200,
                                      "intercept_canopy_10in_ft": 58, "intercept_deciduous_canopy_10in_ft": 30,
                                      "intercept_canopy_3in_ft": 150})
    assert r.canopy_10in_pct == pytest.approx(29.0) and r.class_ == "young"


def test_small_canopy_below_large_canopy_is_an_error():
    with pytest.raises(RuleInputError) as e:
        woodland_class(canopy_10in_pct=40, deciduous_share_pct=60, canopy_3in_pct=30)
    assert e.value.key == "canopy_3in_pct"


# --- mitigation (Woodlands C, E) ----------------------------------------------------------


def test_contract_mitigation_example():
    # 1.6 / 4 = 40 %; (50 % - 40 %) × 4 ac = 0.4 ac; 4, 8, 60, 20, 25 per acre × 0.4, rounded up.
    r = woodland_mitigation("young", 4.0, 1.6)
    assert r.retained_pct == pytest.approx(40.0) and r.permitted and r.mitigation_required
    assert r.mitigation_area_ac == 0.4
    p = r.plantings
    assert (p.canopy_4in_or_12ft_evergreen, p.canopy_2_5in_or_6ft_evergreen, p.canopy_5ft,
            p.understory_5ft, p.shrubs_11in) == (2, 4, 24, 8, 10)


def test_mature_at_the_floor():
    # 5.5 / 10 = 55 %: the floor is inclusive, permitted; (75 % - 55 %) × 10 = 2.0 ac:
    # 8, 16, 120, 40, 50 plants.
    r = woodland_mitigation("mature", 10.0, 5.5)
    assert r.permitted is True and r.mitigation_area_ac == 2.0
    assert r.to_dict()["plantings"] == {"canopy_4in_or_12ft_evergreen": 8, "canopy_2_5in_or_6ft_evergreen": 16,
                                        "canopy_5ft": 120, "understory_5ft": 40, "shrubs_11in": 50}


def test_mature_just_below_the_floor():
    # 5.49 / 10 = 54.9 %: not permitted; area still reported: 7.5 - 5.49 = 2.01 ac:
    # 4×2.01 = 8.04 -> 9, 16.08 -> 17, 120.6 -> 121, 40.2 -> 41, 50.25 -> 51.
    r = woodland_mitigation("mature", 10.0, 5.49)
    assert r.permitted is False and r.mitigation_area_ac == pytest.approx(2.01)
    p = r.plantings
    assert (p.canopy_4in_or_12ft_evergreen, p.canopy_2_5in_or_6ft_evergreen, p.canopy_5ft,
            p.understory_5ft, p.shrubs_11in) == (9, 17, 121, 41, 51)


def test_young_at_the_floor():
    # 1.0 / 4 = 25 %: permitted; (50 % - 25 %) × 4 = 1.0 ac: 4, 8, 60, 20, 25.
    r = woodland_mitigation("young", 4.0, 1.0)
    assert r.permitted is True and r.mitigation_area_ac == 1.0 and r.plantings.canopy_5ft == 60
    assert woodland_mitigation("young", 4.0, 0.99).permitted is False


def test_exact_decimal_planting_counts():
    # 0.75 × 1.0 - 0.7 = 0.05 ac exactly (floats give 0.05000000000000004, and 20 × that
    # would round up to 2): 20 × 0.05 = 1 understory tree, 4 × 0.05 = 0.2 -> 1.
    r = woodland_mitigation("mature", 1.0, 0.7)
    assert r.plantings.understory_5ft == 1 and r.plantings.canopy_4in_or_12ft_evergreen == 1
    assert r.plantings.canopy_5ft == 3


def test_protection_level_met_needs_no_mitigation():
    r = woodland_mitigation("mature", 10.0, 7.5)
    assert r.mitigation_required is False and r.mitigation_area_ac == 0.0 and r.plantings.canopy_5ft == 0


def test_no_woodland_needs_nothing():
    r = woodland_mitigation("none", 0.0, 0.0)
    assert (r.permitted, r.mitigation_required, r.retained_pct) == (True, False, None)


def test_retained_more_than_woodland_is_an_error():
    with pytest.raises(RuleInputError) as e:
        woodland_mitigation("young", 1.0, 1.5)
    assert e.value.key == "retained_area_ac"
    assert e.value.message == (
        "the retained area (1.5 ac) is more than the woodland's own area (1 ac): a plan cannot "
        "retain more woodland than there is")
    # within the 1e-6 tolerance of the shared comparisons: the whole woodland
    assert woodland_mitigation("young", 1.0, 1.0 + 5e-7).permitted is True


# --- wetland size (Wetlands A, C) ---------------------------------------------------------


def test_wetland_10000_sqft_qualifies():
    r = wetland_size(10_000, periodic_standing_water=True, hydric_vegetation=True)
    assert r.is_ordinance_wetland is True and r.required_undisturbed_pct == 100.0


def test_wetland_9999_sqft_does_not():
    r = wetland_size(9_999, periodic_standing_water=True, hydric_vegetation=True)
    assert r.is_ordinance_wetland is False and r.required_undisturbed_pct == 0.0


def test_wetland_needs_both_conditions():
    assert wetland_size(20_000, periodic_standing_water=True, hydric_vegetation=False).is_ordinance_wetland is False
    r = wetland_size(20_000, periodic_standing_water=None, hydric_vegetation=True)
    assert r.status is Status.NEEDS_DATA and "standing water" in r.next_step


# --- drainageways -------------------------------------------------------------------------


def test_stream_drainageway():
    # channel 12 ft: half 6 + 50 = 56, total 12 + 100 = 112; × 100 ft = 11,200 sq ft; 75 % = 8,400.
    r = drainageway("stream", 100, mapped_stream=True, channel_width_ft=12)
    assert (r.half_width_ft, r.total_width_ft, r.area_sqft, r.min_open_space_sqft) == (56.0, 112.0, 11_200.0, 8_400.0)


def test_stream_without_channel_width():
    assert drainageway("stream", 10, mapped_stream=True).total_width_ft == 100.0


def test_unmapped_stream():
    # Drainageways A: a channel that is no mapped stream is checked as a swale under A.2, so
    # until its tributary area is measured it is needs_data (it was "not a drainageway").
    r = drainageway("stream", 10, mapped_stream=False)
    assert r.status is Status.NEEDS_DATA and "5 acres or more" in r.next_step
    assert drainageway("stream", 10, mapped_stream=False, tributary_area_ac=4.9).area_sqft == 0.0
    assert drainageway("stream", 10).status is Status.NEEDS_DATA


def test_swale_at_5_acres():
    # 5 acres "minimum": a drainageway, 50 ft × 200 ft = 10,000 sq ft.
    r = drainageway("swale", 200, tributary_area_ac=5.0)
    assert (r.is_drainageway, r.half_width_ft, r.area_sqft) == (True, 25.0, 10_000.0)
    r = drainageway("swale", 200, tributary_area_ac=4.99)
    assert (r.is_drainageway, r.half_width_ft, r.total_width_ft, r.area_sqft) == (False, 0.0, 0.0, 0.0)
    assert drainageway("swale", 200).status is Status.NEEDS_DATA


# --- development area (Woodlands D.2) -----------------------------------------------------

SQUARE = [[0, 0], [30, 0], [30, 30], [0, 30]]


def test_contract_development_area_example():
    # 900 + 4·30·20 + π·20² = 4556.637
    r = development_area([SQUARE])
    assert r.envelope_area_sqft == pytest.approx(900 + 2400 + math.pi * 400, abs=0.01)


def test_points_on_and_just_past_the_20_ft_limit():
    d = 20 / math.sqrt(2)  # a corner point 20 ft out on the diagonal
    r = development_area([SQUARE], test_points=[[50, 15], [50.01, 15], [30 + d, 30 + d], [10, 10]])
    assert r.inside == (True, False, True, True)
    assert r.distances_ft == pytest.approx((20.0, 20.01, 20.0, 0.0))


def test_driveway_line_has_5_ft_limit():
    # a driveway from (30, 15) to (100, 15): the stadium outside the foundation's envelope is
    # 50 × 10 + half a 5 ft circle = 500 + 12.5π = 539.27; (100, 20) is 5 ft from the end, inside;
    # (100, 20.01) is not.
    r = development_area([SQUARE], edges=[{"kind": "driveway", "coordinates": [[30, 15], [100, 15]]}],
                         test_points=[[100, 20], [100, 20.01]])
    assert r.envelope_area_sqft == pytest.approx(900 + 2400 + 400 * math.pi + 500 + 12.5 * math.pi, abs=0.01)
    assert r.inside == (True, False)


def test_parking_polygon_edge():
    # a 10 x 10 parking lot far away: 100 + 4·10·5 + π·25 = 378.54 added.
    lot = {"kind": "parking", "coordinates": [[200, 0], [210, 0], [210, 10], [200, 10]]}
    r = development_area([SQUARE], edges=[lot])
    assert r.envelope_area_sqft == pytest.approx(900 + 2400 + 400 * math.pi + 100 + 200 + 25 * math.pi, abs=0.01)


def test_bent_utility_trench_is_a_line():
    # (0,-50) -> (100,-50) -> (100,-150), 5 ft each side: the union of two stadiums, each
    # 2·5·100 + π·25. They share the disc of radius 5 at the bend and the square
    # [95,100]×[-55,-50] (25 sq ft, of which a quarter disc 25π/4 is already in the disc):
    # 2·(1000 + 25π) - (25π + 25 - 25π/4) = 1975 + 31.25π = 2073.17.
    trench = {"kind": "utility", "coordinates": [[0, -50], [100, -50], [100, -150]]}
    r = development_area([], edges=[trench])
    assert r.envelope_area_sqft == pytest.approx(1975 + 31.25 * math.pi, abs=0.01)
    assert "edge-shape" in r.interpretations


def test_invalid_foundation_names_key():
    with pytest.raises(RuleInputError) as e:
        development_area([[[0, 0], [10, 10], [10, 0], [0, 10]]])
    assert e.value.key == "foundations[0]"


# --- erosion control ----------------------------------------------------------------------

LIMITS = dict(cut_fill_volume_cuyd=500.0, max_fill_depth_ft=3.0, max_excavation_depth_ft=4.0,
              cut_fill_area_sqft=5000.0, exposed_soil_sqft=5000.0)


def test_every_erosion_trigger_at_its_limit_is_not_met():
    r = erosion_plan(**LIMITS)
    assert r.plan_required is False and r.triggers == ()


@pytest.mark.parametrize("key, value, trigger", [
    ("cut_fill_volume_cuyd", 500.01, "volume"),
    ("max_fill_depth_ft", 3.01, "fill_depth"),
    ("max_excavation_depth_ft", 4.01, "excavation_depth"),
    ("cut_fill_area_sqft", 5000.1, "area"),
    ("exposed_soil_sqft", 5000.1, "exposed_soil"),
])
def test_each_erosion_trigger_just_over(key, value, trigger):
    r = erosion_plan(**{**LIMITS, key: value})
    assert r.plan_required is True and r.triggers == (trigger,)


def test_volume_in_cubic_feet():
    # 13,500 cu ft ÷ 27 = 500 cu yd: not more; 13,500.5 ÷ 27 = 500.0185: more.
    base = {k: v for k, v in LIMITS.items() if k != "cut_fill_volume_cuyd"}
    r = erosion_plan(cut_fill_volume_cuft=13_500.0, **base)
    assert r.cut_fill_volume_cuyd == 500.0 and r.plan_required is False
    assert erosion_plan(cut_fill_volume_cuft=13_500.5, **base).triggers == ("volume",)


def test_erosion_not_measured():
    r = erosion_plan(**{**LIMITS, "exposed_soil_sqft": None})
    assert r.status is Status.NEEDS_DATA and r.next_step == "measure the area of exposed soil, in square feet"
    r = erosion_plan(**{**LIMITS, "exposed_soil_sqft": None, "max_fill_depth_ft": 5.0})
    assert r.status is Status.DETERMINED and r.plan_required is True


def test_steep_slope():
    assert steep_slope("Sr", 30.0).undisturbed_required is False
    assert steep_slope("Sr", 30.01).undisturbed_required is True
    assert steep_slope("SsF", 45.0).undisturbed_required is True
    assert steep_slope("FaB", 45.0).undisturbed_required is False


def test_erodible_slope():
    assert erodible_slope(4.0).erodible is False
    assert erodible_slope(4.01).erodible is True
    assert erodible_slope(-5.0).erodible is True
