"""The stand's protection / mitigation check (City Woodlands C, E) and its retained area:
a figure above the stand's area is refused, never capped into "permitted" (tryout5 M2); a
mature or young stand with no retained-area plan shows the check as needs data with what to
enter (M3), never nothing at all."""

from __future__ import annotations

import pytest

from fieldapp import checks
from fieldapp.checks import Checks, protection_check
from fieldapp.survey.features import Layer
from tests.checks_sample import new_visit, square, two_crown_stand

#: two_crown_stand: 100 x 100 ft on the ground = 10,000 / 43,560 = 0.229568 ac, mature by canopy
STAND_AC = 10_000 / 43_560


@pytest.fixture
def visit():
    return new_visit()


def _mitigation(c: Checks, stand):
    return c.get(f"mitigation:{stand.uuid}")


def test_a_stored_retained_area_above_the_stand_is_an_error_not_100_percent(visit):
    stand = two_crown_stand(visit)
    # 6 ac typed for 0.6 on a 0.23 ac stand: before, min(6, 0.23) gave "Retained 100.0 %;
    # permitted yes; mitigation 0.0 ac"
    visit.update_feature(Layer.AREA, stand.uuid, retained_area_ac=6.0)
    c = Checks()
    c.refresh(visit)
    k = _mitigation(c, stand)
    assert k.status == "error" and k.title == "Woodland protection Stand 1 (city)"
    assert k.request["input"]["retained_area_ac"] == 6.0          # sent as typed, not capped
    assert k.result["key"] == "input.retained_area_ac"
    assert k.result["message"] == ("the retained area (6 ac) is more than the woodland's own area "
                                   "(0.229568 ac): a plan cannot retain more woodland than there is")
    words = checks.summary_words(k.rule, k.result)
    assert words.startswith("Error: the retained area (6 ac)") and "permitted" not in words
    # a session figure above the stand likewise
    visit.update_feature(Layer.AREA, stand.uuid, retained_area_ac=None)
    c.refresh(visit, retained_ac=0.3)
    assert _mitigation(c, stand).status == "error"


def test_a_retained_area_within_rounding_of_the_stand_is_the_whole_stand(visit):
    stand = two_crown_stand(visit)
    # the stand shown as 0.23 ac in the Tally tab (2 decimals), 0.23 typed: 0.000432 ac over,
    # inside the 0.005 ac rounding: all of it retained, 100 %, permitted, no mitigation
    visit.update_feature(Layer.AREA, stand.uuid, retained_area_ac=0.23)
    c = Checks()
    c.refresh(visit)
    k = _mitigation(c, stand)
    assert k.status == "determined"
    assert k.request["input"]["retained_area_ac"] == pytest.approx(STAND_AC, rel=1e-4)
    assert k.result["retained_pct"] == pytest.approx(100.0)
    assert k.result["permitted"] is True and k.result["mitigation_area_ac"] == 0.0
    # 0.235 is 0.005432 ac over: past the rounding, refused
    visit.update_feature(Layer.AREA, stand.uuid, retained_area_ac=0.235)
    c.refresh(visit)
    assert _mitigation(c, stand).status == "error"


def test_a_mature_stand_with_no_plan_needs_the_retained_area(visit):
    stand = two_crown_stand(visit)
    c = Checks()
    c.refresh(visit)
    k = _mitigation(c, stand)
    assert k is not None, "a mature stand with no plan must show its protection check"
    assert (k.status, k.rule, k.has_request) == ("needs_data", "woodland.mitigation", False)
    assert k.title == "Woodland protection Stand 1 (city)"
    assert k.result["citation"] == "Decorah resource protection, Woodlands C"
    step = ("enter the area to be retained (ac, at most the stand's 0.23 ac): Tally tab, "
            "Retained woodland area (plan), or fieldapp report --retained-ac")
    assert k.result["next_step"] == step
    assert checks.summary_words(k.rule, k.result) == f"Needs data: {step}"
    assert c.requests() == [c.get(f"woodland:{stand.uuid}").request]   # nothing to attach
    # the plan given: the verdict replaces the placeholder (0.1 ac: 43.56 %, test_checks)
    c.refresh(visit, retained_ac=0.1)
    assert _mitigation(c, stand).status == "determined"
    assert _mitigation(c, stand).result["retained_pct"] == pytest.approx(43.56, abs=0.01)


def test_a_stand_of_class_none_with_no_plan_has_nothing_to_protect(visit):
    # one 4 in tree with a 3 ft crown on 10,000 sq ft: 0.28 % canopy, class none
    stand = visit.add_area("woodland_stand", square(visit, 0, 0, 100, 100), label="Scrub")
    visit.add_tree(x=square(visit, 50, 50, 1, 1).bounds[0], y=square(visit, 50, 50, 1, 1).bounds[1],
                   dbh_in=4.0, leaf_habit="deciduous", crown_radius_ft=3.0)
    visit.update_feature(Layer.AREA, stand.uuid, tally_complete=True)
    c = Checks()
    c.refresh(visit)
    assert c.get(f"woodland:{stand.uuid}").result["class"] == "none"
    assert _mitigation(c, stand) is None


def test_protection_check_by_class_and_plan():
    young = protection_check("young", 4.0, None)
    assert young.next_step.startswith("enter the area to be retained (ac, at most the stand's 4.00 ac)")
    assert protection_check(None, 4.0, None) is None            # no class: the class check says why
    assert protection_check("young", 4.0, 1.6)["input"] == {
        "class": "young", "woodland_area_ac": 4.0, "retained_area_ac": 1.6}
    assert protection_check("young", 4.0, 4.004)["input"]["retained_area_ac"] == 4.0
    assert protection_check("young", 4.0, 4.006)["input"]["retained_area_ac"] == 4.006
