"""NR 341.035 bank and graded area: hand-worked cases at and around every threshold.

Positions are horizontal ft from the OHWM; each comment works the expected number out from the
segment lengths: a segment (h, pct) spans [start, start + h].
"""

import math

import pytest

from fieldapp.rules import (
    Basis,
    RuleInputError,
    Segment,
    Station,
    Status,
    WalkReason,
    bank_from_segments,
    bank_from_stations,
    bank_guidance,
    graded_area,
)


def bank(segments, priority=False, **kw):
    return bank_from_segments(segments, priority=priority, **kw)


# --- the contract's worked examples -------------------------------------------------------


def test_contract_example_determined():
    # steep 30-90 starts inside 75; the 120 ft run at 5 % (> 50 ft) begins at 90.
    r = bank([(30, 4), (60, 18), (120, 5)])
    assert r.status is Status.DETERMINED
    assert r.bank_ft == 90.0 and r.bank_ft_at_least == 90.0
    assert r.extended is True and r.basis is Basis.SLOPE
    assert r.walk_further_ft is None
    assert r.citation == "NR 341.035(1)(a)"
    assert r.interpretations == ("per-segment-slope", "trigger-within-base", "anchor-last-trigger")


def test_contract_example_needs_data():
    # run after 90 is only 45 ft: more than 50 - 45 = 5 ft still needed.
    r = bank([(30, 4), (60, 18), (45, 5)])
    assert r.status is Status.NEEDS_DATA
    assert r.bank_ft is None and r.bank_ft_at_least == 90.0
    assert r.walk_further_ft == pytest.approx(5.0)
    assert r.walk_reason is WalkReason.BELOW_THRESHOLD_RUN
    assert r.extended is True and r.basis is Basis.SLOPE
    assert r.next_step == ("keep walking: more than 50 ft below 12 % needed: shoot beyond 140 ft "
                           "(more than 5.0 ft further)")
    assert "insufficient-transect" in r.interpretations
    assert r.run_below_threshold_ft == pytest.approx(45.0)


# --- the slope threshold ------------------------------------------------------------------


def test_exactly_12_pct_is_steep():
    # 50-100 at exactly 12 % is "12% or greater": bank at its end, 100; the 100 ft run ends it.
    assert bank([(50, 2), (50, 12), (100, 3)]).bank_ft == 100.0


def test_11_99_pct_is_not_steep():
    # 11.99 % is less than 12 %: no trigger, the bank stays at the 75 ft base distance.
    r = bank([(50, 2), (50, 11.99), (100, 3)])
    assert r.bank_ft == 75.0 and r.basis is Basis.BASE and r.extended is False
    assert r.steep_stretches == ()


def test_12_pct_within_tolerance_is_steep():
    # 11.9999995 is within the 1e-6 tolerance of 12: steep, bank 100 as for exactly 12 %.
    assert bank([(50, 2), (50, 11.9999995), (100, 3)]).bank_ft == 100.0


def test_station_slope_of_12_pct_from_elevations():
    # rise 6.0 ft over 50 ft = 12 %: steep 50-100; then 100 ft with a 3 ft rise (3 %) ends it.
    r = bank_from_stations([(0, 0.0), (50, 1.0), (100, 7.0), (200, 10.0)], priority=False)
    assert r.segment_slopes_pct == pytest.approx((2.0, 12.0, 3.0))
    assert r.bank_ft == 100.0


# --- the below-threshold run --------------------------------------------------------------


def test_run_of_exactly_50_ft_is_absorbed():
    # steep 30-90, run 90-140 = 50 ft (not more than 50) absorbed, steep 140-150,
    # run 150-250 = 100 ft ends it: bank 150.
    r = bank([(30, 4), (60, 18), (50, 5), (10, 20), (100, 0)])
    assert r.bank_ft == 150.0 and r.anchor_ft == 150.0


def test_run_of_50_5_ft_ends_the_bank():
    # run 90-140.5 = 50.5 ft is more than 50 ft: the bank ends where it begins, at 90.
    r = bank([(30, 4), (60, 18), (50.5, 5), (10, 20), (100, 0)])
    assert r.bank_ft == 90.0
    # the steep 140.5-150.5 lies beyond the bank
    assert [s.within_bank for s in r.steep_stretches] == [True, False]


def test_several_steep_stretches_separated_by_short_flats():
    # flat 0-10, steep 10-40, flat 40-60 (20), steep 60-100, flat 100-145 (45), steep 145-160,
    # flat 160-220 (60 > 50): last trigger 60-100 (starts at 60 <= 75), chained to 160.
    r = bank([(10, 2), (30, 20), (20, 3), (40, 25), (45, 8), (15, 30), (60, 1)])
    assert r.bank_ft == 160.0
    spans = [(s.start_ft, s.end_ft, s.within_bank) for s in r.steep_stretches]
    assert spans == [(10.0, 40.0, True), (60.0, 100.0, True), (145.0, 160.0, True)]


def test_anchor_is_last_trigger_not_first_chain():
    # steep 0-10, flat 10-70 (60 > 50 would end a chain at 10), steep 70-80 starts at 70 <= 75:
    # the last trigger anchors the bank at 80; flat 80-200 ends it.
    r = bank([(10, 20), (60, 2), (10, 20), (120, 2)])
    assert r.bank_ft == 80.0 and r.basis is Basis.SLOPE


def test_short_steep_inside_base_never_below_base():
    # steep 0-10 then 110 ft flat: the extension would end at 10, but never below 75.
    r = bank([(10, 20), (110, 2)])
    assert r.bank_ft == 75.0 and r.basis is Basis.BASE and r.extended is False
    assert "never-below-base" in r.interpretations


# --- where the trigger starts -------------------------------------------------------------


def test_steep_stretch_starting_exactly_at_75_ft_triggers():
    # steep 75-100 starts "at 75 feet or less": bank 100, then 100 ft flat.
    r = bank([(75, 5), (25, 15), (100, 2)])
    assert r.bank_ft == 100.0 and r.basis is Basis.SLOPE


def test_steep_stretch_starting_just_past_75_ft_does_not_trigger():
    # steep 75.01-100.01 starts past 75 ft: no trigger, bank 75.
    r = bank([(75.01, 5), (25, 15), (100, 2)])
    assert r.bank_ft == 75.0 and r.basis is Basis.BASE
    assert r.steep_stretches[0].within_bank is False


def test_priority_vs_non_priority():
    # steep-ish 250-310 at 11 %: priority (10 %, 300 ft) triggers, bank 310;
    # non-priority (12 %, 75 ft) does not: bank 75.
    segs = [(250, 5), (60, 11), (100, 2)]
    p = bank(segs, priority=True)
    assert (p.bank_ft, p.base_ft, p.threshold_pct, p.citation) == (310.0, 300.0, 10.0, "NR 341.035(1)(b)")
    n = bank(segs, priority=False)
    assert (n.bank_ft, n.citation) == (75.0, "NR 341.035(1)(a)")


def test_priority_base_is_300():
    # all flat, walked past 300: bank 300.
    assert bank([(301, 2)], priority=True).bank_ft == 300.0


# --- interruption and stipulation ---------------------------------------------------------


def test_interruption_inside_base_caps_the_bank():
    # flat to 110, interruption marked at 40: the bank is cut at 40 (1)(c).
    r = bank([(10, 2), (100, 3)], interruption_at_ft=40)
    assert r.bank_ft == 40.0 and r.basis is Basis.INTERRUPTION
    assert r.citation == "NR 341.035(1)(c)" and "interruption-caps" in r.interpretations


def test_interruption_inside_steep_stretch():
    # steep 30-90 cut at 70: the steep ground reaches the interruption, bank 70.
    r = bank([(30, 4), (60, 18), (120, 5)], interruption_at_ft=70)
    assert r.status is Status.DETERMINED and r.bank_ft == 70.0 and r.basis is Basis.INTERRUPTION
    assert r.extended is False  # 70 < 75


def test_interruption_beyond_bank_is_not_used():
    r = bank([(30, 4), (60, 18), (120, 5)], interruption_at_ft=200)
    assert r.bank_ft == 90.0 and "interruption-caps" not in r.interpretations


def test_short_run_cut_by_interruption_reaches_it():
    # steep 30-90, run 90-120 (30 ft) then the interruption at 120: run-cut-by-interruption, bank 120.
    r = bank([(30, 4), (60, 18), (45, 5)], interruption_at_ft=120)
    assert r.status is Status.DETERMINED and r.bank_ft == 120.0
    assert "run-cut-by-interruption" in r.interpretations


def test_walk_further_capped_at_interruption():
    # end 110 in a 20 ft run: 50 - 20 = 30 needed, but the interruption is 125 - 110 = 15 away.
    r = bank([(30, 4), (60, 18), (20, 5)], interruption_at_ft=125)
    assert r.walk_further_ft == pytest.approx(15.0) and r.walk_reason is WalkReason.INTERRUPTION


@pytest.mark.parametrize("priority, ft, cite", [(False, 300.0, "NR 341.035(2)(c)1."),
                                                 (True, 500.0, "NR 341.035(2)(c)2.")])
def test_stipulation(priority, ft, cite):
    r = bank([], priority=priority, stipulated=True)
    assert (r.status, r.bank_ft, r.basis, r.citation) == (Status.DETERMINED, ft, Basis.STIPULATION, cite)


def test_stipulation_guidance_sentence():
    r = bank([], stipulated=True)
    assert bank_guidance(r) == "Bank settled at 300 ft: stipulated distance, NR 341.035(2)(c)1."


def test_stipulated_bank_capped_by_interruption():
    r = bank([], stipulated=True, interruption_at_ft=250)
    assert r.bank_ft == 250.0 and r.basis is Basis.INTERRUPTION and r.citation == "NR 341.035(1)(c)"


# --- measurement reduction ----------------------------------------------------------------


def test_slopes_in_degrees():
    # 10° = 100·tan(10°) = 17.63 % (steep), 2° = 3.49 %, 1° = 1.75 %: as the contract example, bank 90.
    r = bank([Segment(horizontal_ft=30, slope_deg=2), Segment(horizontal_ft=60, slope_deg=10),
              Segment(horizontal_ft=120, slope_deg=1)])
    assert r.bank_ft == 90.0
    assert r.segment_slopes_pct[1] == pytest.approx(17.6327, abs=1e-4)
    assert "horizontal-distance" in r.interpretations


def test_degrees_at_the_threshold():
    # atan(0.12) = 6.8428° is exactly 12 %: steep; 6.84° is 11.995 %: not.
    at = math.degrees(math.atan(0.12))
    assert bank([{"horizontal_ft": 50, "slope_pct": 2}, {"horizontal_ft": 50, "slope_deg": at},
                 {"horizontal_ft": 100, "slope_pct": 2}]).bank_ft == pytest.approx(100.0)
    assert bank([{"horizontal_ft": 50, "slope_pct": 2}, {"horizontal_ft": 50, "slope_deg": 6.84},
                 {"horizontal_ft": 100, "slope_pct": 2}]).bank_ft == 75.0


def test_taped_slope_distance_is_reduced():
    # 61.0 ft taped at 18 %: horizontal 61 / sqrt(1 + 0.18²) = 61 / 1.016071 = 60.0352 ft.
    r = bank([Segment(horizontal_ft=30, slope_pct=4), Segment(slope_distance_ft=61.0, slope_pct=18),
              Segment(horizontal_ft=120, slope_pct=5)])
    assert r.segment_horizontal_ft[1] == pytest.approx(60.0352, abs=1e-4)
    assert r.bank_ft == pytest.approx(30 + 61 / math.sqrt(1.0324))


def test_taped_run_reduced_below_50_ft_is_absorbed():
    # 50.2 ft taped at 10 % is 50.2 / sqrt(1.01) = 49.951 ft horizontal: not more than 50,
    # absorbed; steep 139.951-149.951; 100 ft flat ends it: bank 149.951.
    r = bank([(30, 4), (60, 18), Segment(slope_distance_ft=50.2, slope_pct=10), (10, 20), (100, 0)])
    assert r.bank_ft == pytest.approx(90 + 50.2 / math.sqrt(1.01) + 10)


# --- a transect still being walked --------------------------------------------------------


def test_ends_short_of_base_without_trigger():
    # 50 ft flat: 75 - 50 = 25 ft more before the base distance is passed.
    r = bank([(50, 5)])
    assert (r.status, r.bank_ft_at_least, r.walk_reason) == (Status.NEEDS_DATA, 75.0, WalkReason.BASE_DISTANCE)
    assert r.walk_further_ft == pytest.approx(25.0)
    assert bank_guidance(r) == ("No slope of 12 % or more yet: keep walking, more than 25.0 ft further "
                                "to pass the 75 ft base distance.")


def test_ends_on_steep_ground():
    # steep to the end at 90: more than 50 ft below 12 % needed.
    r = bank([(30, 4), (60, 18)])
    assert r.bank_ft_at_least == 90.0 and r.walk_further_ft == 50.0 and r.run_below_threshold_ft == 0.0


def test_ends_on_steep_inside_base_takes_the_larger_bound():
    # steep 10-30, end 30: 50 (steep) vs 75 - 30 = 45 (base): 50; the bank is at least 75.
    r = bank([(10, 2), (20, 15)])
    assert r.walk_further_ft == 50.0 and r.walk_reason is WalkReason.BELOW_THRESHOLD_RUN
    assert r.bank_ft_at_least == 75.0


def test_short_run_inside_base_base_bound_wins():
    # steep 0-10, run 10-15 (5 ft): 50 - 5 = 45 vs 75 - 15 = 60: 60 ft more.
    r = bank([(10, 15), (5, 2)])
    assert r.walk_further_ft == pytest.approx(60.0) and r.walk_reason is WalkReason.BASE_DISTANCE


def test_closed_chain_short_of_base_still_needs_data():
    # steep 0-5, run 5-60 (55 > 50) closes at 5, but a segment starting before 75 could still
    # trigger: 75 - 60 = 15 ft more.
    r = bank([(5, 20), (55, 2)])
    assert r.status is Status.NEEDS_DATA and r.walk_further_ft == pytest.approx(15.0)
    assert r.bank_ft_at_least == 75.0


def test_ending_exactly_at_base_needs_data():
    # a segment starting at 75 could trigger: more than 0 ft, i.e. measure the next segment.
    r = bank([(75, 5)])
    assert r.status is Status.NEEDS_DATA and r.walk_further_ft == 0.0
    assert "measure the segment" in bank_guidance(r)


def test_empty_transect():
    r = bank([])
    assert r.status is Status.NEEDS_DATA and r.walk_further_ft == 75.0 and r.transect_end_ft == 0.0


def test_guidance_sentence_while_walking():
    # steep 40-120, then 22 ft at 3 %: 50 - 22 = 28 ft more below 12 %.
    r = bank([(40, 5), (80, 20), (22, 3)])
    assert bank_guidance(r) == ("Steep from 40 to 120 ft: keep walking, more than 50 ft below 12 % needed: "
                                "shoot beyond 170 ft (more than 28.0 ft further).")


def test_guidance_sentence_settled():
    r = bank([(30, 4), (60, 18), (120, 5)])
    assert bank_guidance(r).startswith("Bank settled at 90 ft: slope extension")


def test_falling_segment_note():
    # 40-60 falls landward: never steep, and the note asks about an interruption.
    r = bank([(40, 5), (20, -8), (100, 2)])
    assert r.bank_ft == 75.0
    assert "40 to 60 ft" in r.note and "complete interruption" in r.note
    assert r.note in bank_guidance(r)


# --- stations and bad input ---------------------------------------------------------------


def test_stations_like_contract_example():
    # slopes 1.2/30 = 4 %, 10.8/60 = 18 %, 6/120 = 5 %: the contract example, bank 90.
    r = bank_from_stations([Station(0, 100), Station(30, 101.2), Station(90, 112), Station(210, 118)],
                           priority=False)
    assert r.segment_horizontal_ft == pytest.approx((30, 60, 120))
    assert r.segment_slopes_pct == pytest.approx((4, 18, 5))
    assert r.bank_ft == pytest.approx(90.0)


def test_first_station_must_be_ohwm():
    with pytest.raises(RuleInputError) as e:
        bank_from_stations([(5, 0), (10, 1)], priority=False)
    assert e.value.key == "stations[0].distance_ft"


def test_stations_must_increase():
    with pytest.raises(RuleInputError) as e:
        bank_from_stations([(0, 0), (10, 1), (10, 2)], priority=False)
    assert e.value.key == "stations[2].distance_ft"


@pytest.mark.parametrize("seg, key", [
    ((0, 5), "segments[1].horizontal_ft"),
    ((-3, 5), "segments[1].horizontal_ft"),
    ((10, math.nan), "segments[1].slope_pct"),
    ((math.inf, 5), "segments[1].horizontal_ft"),
    (Segment(horizontal_ft=10), "segments[1].slope_pct"),
    (Segment(horizontal_ft=10, slope_pct=3, slope_deg=2), "segments[1].slope_deg"),
    (Segment(slope_pct=3, slope_deg=95), "segments[1].slope_deg"),
])
def test_bad_segment_names_its_key(seg, key):
    with pytest.raises(RuleInputError) as e:
        bank([(10, 2), seg])
    assert e.value.key == key


# --- NR 341.035(3) graded area ------------------------------------------------------------


def test_graded_area_exactly_10000_is_not_more():
    r = graded_area(10_000.0, slope_pct=0.0)
    assert r.surface_area_sqft == 10_000.0 and r.permit_required is False
    assert r.citation == "NR 341.035(3)" and r.interpretations == ("surface-area",)


def test_graded_area_just_over():
    assert graded_area(10_000.01, slope_pct=0.0).permit_required is True


def test_graded_area_9999_flat_is_not_more():
    assert graded_area(9_999.0, slope_pct=0.0).permit_required is False


def test_graded_area_on_the_surface():
    # 9,999 sq ft mapped on a 20 % bank: 9999 × sqrt(1.04) = 10,197.0 sq ft on the surface > 10,000.
    r = graded_area(9_999.0, slope_pct=20.0)
    assert r.surface_area_sqft == pytest.approx(10_197.0, abs=0.1)
    assert r.permit_required is True


def test_graded_area_in_degrees():
    # 11.3099° = atan(0.2): same surface as 20 %.
    r = graded_area(9_999.0, slope_deg=math.degrees(math.atan(0.2)))
    assert r.slope_pct == pytest.approx(20.0) and "horizontal-distance" in r.interpretations
