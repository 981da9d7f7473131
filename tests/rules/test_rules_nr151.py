"""NR 151.125 protective areas and vegetative cover: hand-worked cases at every threshold."""

import pytest

from fieldapp.rules import Feature, RuleInputError, Status, protective_area, vegetative_cover
from fieldapp.rules.nr151 import susceptibility_of


def width(*features, **kw):
    return protective_area(list(features), **kw)


def test_contract_example_less_susceptible_wetland():
    # 10 % of 260 ft = 26 ft, between 10 and 30.
    r = width(Feature("wetland", susceptibility="less", average_width_ft=260))
    assert r.width_ft == pytest.approx(26.0) and r.citation == "NR 151.125(1)(f)"
    assert r.governing_feature == "wetland" and r.average_width_ft == 260.0


@pytest.mark.parametrize("average, expected", [
    (100.0, 10.0),   # 10 % of 100 = 10: exactly the lower limit
    (99.0, 10.0),    # 9.9 clamped up to 10
    (50.0, 10.0),    # 5 clamped up to 10
    (300.0, 30.0),   # 30: exactly the upper limit
    (301.0, 30.0),   # 30.1 clamped down to 30
    (150.0, 15.0),   # inside: 15
])
def test_wetland_width_clamp_limits(average, expected):
    feature = Feature("wetland", susceptibility="less", average_width_ft=average)
    assert width(feature).width_ft == pytest.approx(expected)


@pytest.mark.parametrize("kind, ft, cite", [
    ("outstanding_resource_water", 75.0, "NR 151.125(1)(a)"),
    ("exceptional_resource_water", 75.0, "NR 151.125(1)(a)"),
    ("stream", 50.0, "NR 151.125(1)(b)"),
    ("lake", 50.0, "NR 151.125(1)(c)"),
])
def test_fixed_widths(kind, ft, cite):
    r = width(Feature(kind))
    assert (r.width_ft, r.citation, r.status) == (ft, cite, Status.DETERMINED)


def test_wetland_susceptibility_from_type():
    # sedge meadows are in (1)(e): 75 ft; a marsh is in neither list: its susceptibility must be
    # chosen (needs_data), never silently (1)(d); with "other" chosen, (1)(d) 50 ft.
    assert width(Feature("wetland", wetland_type="Sedge meadows")).width_ft == 75.0
    assert width(Feature("wetland", wetland_type="marsh")).status is Status.NEEDS_DATA
    assert width(Feature("wetland", wetland_type="marsh", susceptibility="other")).width_ft == 50.0
    assert width(Feature("wetland")).width_ft == 50.0
    assert susceptibility_of("cultivated hydric soils") == "less"


def test_average_from_transects_first():
    # (200 + 250 + 300) / 3 = 250 -> 25 ft; transects win over the stated 100.
    r = width(Feature("wetland", susceptibility="less", width_transects_ft=[200, 250, 300], average_width_ft=100))
    assert r.width_ft == pytest.approx(25.0) and "average-wetland-width" in r.interpretations


def test_two_transects_are_not_enough():
    r = width(Feature("wetland", susceptibility="less", width_transects_ft=[200, 250]))
    assert r.status is Status.NEEDS_DATA and r.width_ft is None
    assert "3 or more" in r.next_step and "2 so far" in r.next_step


def test_average_from_polygon():
    # a 400 x 100 ft rectangle turned 30°: area 40,000 ÷ long axis 400 = 100 ft -> 10 ft.
    import math
    c, s = math.cos(math.radians(30)), math.sin(math.radians(30))
    ring = [(x * c - y * s, x * s + y * c) for x, y in [(0, 0), (400, 0), (400, 100), (0, 100)]]
    r = protective_area([{"type": "wetland", "susceptibility": "less", "polygon_ft": ring}])
    assert r.average_width_ft == pytest.approx(100.0) and r.width_ft == pytest.approx(10.0)


def test_contiguous_features_take_the_greatest():
    # stream 50 beside a less susceptible wetland of 26: contiguous, 50 governs (1)(j).
    r = width(Feature("stream"), Feature("wetland", susceptibility="less", average_width_ft=260), contiguous=True)
    assert r.widths_ft == pytest.approx((50.0, 26.0))
    assert (r.width_ft, r.governing_feature, r.citation) == (50.0, "stream", "NR 151.125(1)(j)")
    assert "stream-keeps-width" in r.interpretations


def test_governing_feature_is_first_of_equal_widths():
    r = width(Feature("lake"), Feature("stream"), contiguous=True)
    assert r.governing_feature == "lake" and r.governing_index == 0


def test_contiguous_with_unknown_wetland_settled_by_stream():
    # the unknown wetland gives at most 30 ft; the stream's 50 governs anyway.
    r = width(Feature("stream"), Feature("wetland", susceptibility="less"), contiguous=True)
    assert r.status is Status.DETERMINED and r.width_ft == 50.0 and r.widths_ft == (50.0, None)


def test_not_contiguous_with_unknown_wetland_needs_data():
    r = width(Feature("stream"), Feature("wetland", susceptibility="less"), contiguous=False)
    assert r.status is Status.NEEDS_DATA and "feature 1 (wetland)" in r.next_step


def test_piped_stream_gives_zero():
    r = width(Feature("stream", piped=True), Feature("wetland", susceptibility="less", average_width_ft=120))
    # piped 0; wetland 10 % of 120 = 12.
    assert r.widths_ft == pytest.approx((0.0, 12.0)) and r.governing_feature == "wetland"


@pytest.mark.parametrize("area, expected", [(130.0, 0.0), (130.0000005, 0.0), (130.5, 10.0)])
def test_concentrated_flow_channel(area, expected):
    # "greater than 130 acres": 130 (and within tolerance of it) gives none, 130.5 gives 10 ft.
    assert width(Feature("concentrated_flow_channel", drainage_area_ac=area)).width_ft == expected


def test_channel_without_drainage_area_needs_data():
    r = width(Feature("concentrated_flow_channel"))
    assert r.status is Status.NEEDS_DATA and "drainage area" in r.next_step


def test_exemption():
    r = width(Feature("stream"), exemption="infill_under_5_ac")
    assert (r.status, r.width_ft, r.citation) == (Status.EXEMPT, None, "NR 151.125(4)(b)")


def test_unknown_type_names_key():
    with pytest.raises(RuleInputError) as e:
        protective_area([{"type": "river"}])
    assert e.value.key == "features[0].type"


def test_vegetative_cover_at_70():
    assert vegetative_cover(70.0).meets_requirement is True
    assert vegetative_cover(69.9).meets_requirement is False
    assert vegetative_cover(10.0, land_disturbing=False).meets_requirement is True
