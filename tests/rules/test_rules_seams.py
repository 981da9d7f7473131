"""The seams of the rules package: the readers written once, the handler factory, the split
modules' names. Hand-worked values; the messages are the ones the rules gave before the split."""

import math

import pytest

from fieldapp.rules import city, city_water, nr341
from fieldapp.rules.measure import slope_pct_of
from fieldapp.rules.nr341_transect import read_segments, read_stations
from fieldapp.rules.results import RuleInputError, from_request, ordered
from fieldapp.rules.validate import point_ft, points_ft, polygon_ft

# --- measure.slope_pct_of ----------------------------------------------------------------


def test_slope_in_percent_is_taken_as_is():
    assert slope_pct_of({"slope_pct": -12}, "s") == (-12.0, False)


def test_slope_in_degrees_is_100_tan():
    pct, from_degrees = slope_pct_of({"slope_deg": 30.0}, "s")
    assert from_degrees and math.isclose(pct, 100.0 / math.sqrt(3.0), rel_tol=1e-12)  # tan 30° = 1/√3


def test_slope_angle_out_of_range_names_its_key():
    with pytest.raises(RuleInputError) as e:
        slope_pct_of({"slope_deg": 90}, "input.segments[1]")
    assert e.value.key == "input.segments[1].slope_deg"
    assert e.value.message == "slope_deg must be between -90 and 90, got 90"


def test_clinometer_wording_says_degrees():
    with pytest.raises(RuleInputError) as e:
        slope_pct_of({"reading_deg": -95}, "", pct_key="reading_pct", deg_key="reading_deg", unit=" degrees")
    assert e.value.key == "reading_deg"
    assert e.value.message == "reading_deg must be between -90 and 90 degrees, got -95"


def test_both_slopes_is_an_error_on_the_second():
    with pytest.raises(RuleInputError) as e:
        slope_pct_of({"slope_pct": 1, "slope_deg": 1}, "a")
    assert e.value.key == "a.slope_deg"


# --- validate: points and polygons --------------------------------------------------------


def test_points_and_a_triangle():
    pts = points_ft([[0, 0], [30, 0], [0, 40]], "ring")
    assert pts == [(0.0, 0.0), (30.0, 0.0), (0.0, 40.0)]
    assert polygon_ft(pts, "ring").area == 600.0  # 30 × 40 / 2


def test_a_point_that_is_not_a_pair():
    with pytest.raises(RuleInputError) as e:
        point_ft([1, 2, 3], "p[4]")
    assert (e.value.key, e.value.message) == ("p[4]", "each point must be [x_ft, y_ft]")


@pytest.mark.parametrize("points, name, message", [
    ([(0, 0), (1, 0)], None, "a polygon needs 3 or more points, got 2"),
    ([(0, 0), (1, 0)], "polygon_ft", "polygon_ft needs 3 or more points, got 2"),
    ([(0, 0), (10, 10), (10, 0), (0, 10)], None, "not a valid polygon (Self-intersection[5 5])"),
    ([(0, 0), (10, 10), (10, 0), (0, 10)], "polygon_ft", "polygon_ft is not a valid polygon (Self-intersection[5 5])"),
    ([(0, 0), (1e-300, 0), (1e-300, 1e-300), (0, 1e-300)], None,
     "the polygon encloses no area (its points are in a line, or too close together to measure)"),
    ([(0, 0), (1e-300, 0), (1e-300, 1e-300), (0, 1e-300)], "polygon_ft",
     "polygon_ft encloses no area (its points are in a line, or too close together to measure)"),
])
def test_polygon_messages_in_both_wordings(points, name, message):
    with pytest.raises(RuleInputError) as e:
        polygon_ft(points, "k", name=name)
    assert (e.value.key, e.value.message) == ("k", message)


# --- results: ordered, from_request -------------------------------------------------------


def test_ordered_keeps_the_module_order():
    assert ordered({"grove", "largely-deciduous"}, ("largely-deciduous", "x", "grove")) == (
        "largely-deciduous", "grove")


def test_from_request_reads_under_input_and_is_named_after_the_reader():
    def _wetland_thing(m, where):
        return (dict(m), where)

    handler = from_request(_wetland_thing, "wetland.thing", " (area_sqft)")
    assert handler({"a": 1}, {"ignored": True}) == ({"a": 1}, "input")
    assert handler.__name__ == "wetland_thing_from_request"
    assert handler.__doc__ == "``wetland.thing`` from the contract's ``input`` (area_sqft)."


def test_a_city_handler_names_keys_under_input():
    with pytest.raises(RuleInputError) as e:
        city_water.wetland_size_from_request({"area_sqft": -1.0, "periodic_standing_water": True,
                                                    "hydric_vegetation": True}, {})
    assert e.value.key == "input.area_sqft"


# --- nr341_transect ------------------------------------------------------------------------


def test_stations_to_segments():
    # 0 -> 40 ft rising 2 ft (5 %), 40 -> 100 ft level.
    assert read_stations([(0, 0), (40, 2), (100, 2)], "stations") == ([40.0, 60.0], [5.0, 0.0])


def test_a_slope_distance_is_reduced_with_its_own_slope():
    # 50 ft along a 75 % slope: horizontal 50 / 1.25 = 40 ft.
    hs, ps, reduced = read_segments([{"slope_distance_ft": 50.0, "slope_pct": 75.0}], "segments")
    assert (hs, ps, reduced) == ([40.0], [75.0], True)


# --- the old import paths ------------------------------------------------------------------


def test_city_rules_still_importable_from_city():
    # city fronts the chapter's rules and results; the figures are city_tables' own, the request
    # readers their rule module's (the contract imports them there).
    from fieldapp.rules import city_development, city_erosion, city_tables, city_woodland

    homes = {}
    for module in (city_woodland, city_water, city_development, city_erosion):
        homes.update({name: module for name in module.__all__ if not name.endswith("_from_request")})
    assert sorted(city.__all__) == sorted(homes)
    for name, module in homes.items():
        assert getattr(city, name) is getattr(module, name), name
    assert city_tables.CITE == "Decorah resource protection"
    assert (city_tables.FOUNDATION_LIMIT_FT, city_tables.EDGE_LIMIT_FT) == (20.0, 5.0)


def test_nr341_names_still_importable_from_nr341():
    from fieldapp.rules import nr341_graded, nr341_transect

    for module in (nr341_graded, nr341_transect):
        for name in module.__all__:
            assert getattr(nr341, name) is getattr(module, name), name
    assert nr341.GRADED_AREA_SQFT == 10_000.0
