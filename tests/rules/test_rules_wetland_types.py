"""NR 151.125(1)(e)/(f): wetland types by name, unknown types, and a type that disagrees with
the susceptibility given (hand-worked widths)."""

import pytest

from fieldapp.rules import evaluate
from fieldapp.rules.nr151 import WETLAND_TYPES, susceptibility_of


def _wetland(**feature):
    return evaluate({"rule": "nr151.protective_area",
                     "input": {"contiguous": False, "features": [{"type": "wetland", **feature}]}})


# (1)(e) "Highly susceptible wetlands include the following types: calcareous fens, sedge
# meadows, open and coniferous bogs, low prairies, coniferous swamps, lowland hardwood swamps,
# and ephemeral ponds." -> 75 feet.
HIGHLY = ["open and coniferous bogs", "calcareous fens", "calcareous fen", "fen", "Fens", "sedge meadows",
          "sedge meadow", "open bog", "coniferous bog", "bog", "low prairies", "low prairie",
          "coniferous swamps", "coniferous swamp", "lowland hardwood swamps", "lowland hardwood swamp",
          "hardwood swamp", "ephemeral ponds", "ephemeral pond", "Sedge-meadow"]
# (1)(f) "Less susceptible wetlands include: degraded wetlands dominated by invasive species such
# as reed canary grass; cultivated hydric soils; and any gravel pits, or dredged material or fill
# material disposal sites that take on the attributes of a wetland." -> 10 % of the average width.
LESS = ["degraded wetland dominated by reed canary grass", "degraded wetlands dominated by invasive species",
        "reed canary grass", "cultivated hydric soils", "cultivated hydric soil", "gravel pit", "gravel pits",
        "dredged / fill material disposal site", "dredged material disposal site",
        "fill material disposal sites"]


@pytest.mark.parametrize("name", HIGHLY)
def test_highly_susceptible_types_get_75_ft_under_1e(name):
    r = _wetland(wetland_type=name)
    assert (r["status"], r["width_ft"], r["citation"]) == ("determined", 75.0, "NR 151.125(1)(e)")
    assert "wetland-type-names" in r["interpretations"]


@pytest.mark.parametrize("name", LESS)
def test_less_susceptible_types_take_10_pct_of_width_under_1f(name):
    # average width 180 ft: 10 % = 18 ft, inside the 10-30 ft limits of (1)(f).
    r = _wetland(wetland_type=name, average_width_ft=180)
    assert (r["status"], r["citation"]) == ("determined", "NR 151.125(1)(f)")
    assert r["width_ft"] == pytest.approx(18.0)


def test_every_listed_type_of_the_app_list_is_recognised():
    assert [susceptibility_of(t) for t in WETLAND_TYPES] == ["highly"] * 8 + ["less"] * 5


def test_unknown_type_needs_its_susceptibility_in_words():
    r = _wetland(wetland_type="shallow marsh")
    assert r["status"] == "needs_data" and r["width_ft"] is None
    assert ("Wetland type 'shallow marsh' is not in NR 151.125(1)(e) or (f): choose its susceptibility"
            in r["next_step"])


def test_unknown_type_with_a_susceptibility_uses_it():
    # (1)(d) "For wetlands not subject to par. (e) or (f), 50 feet."
    r = _wetland(wetland_type="shallow marsh", susceptibility="other")
    assert (r["status"], r["width_ft"], r["citation"]) == ("determined", 50.0, "NR 151.125(1)(d)")
    assert r["note"] is None and "more-protective-width" not in r["interpretations"]


def test_unknown_type_beside_a_wider_contiguous_feature_is_settled():
    # (1)(j) the greatest width: an outstanding resource water's 75 ft already covers the
    # widest an unknown wetland could need ((1)(e), 75 ft).
    r = evaluate({"rule": "nr151.protective_area", "input": {"contiguous": True, "features": [
        {"type": "outstanding_resource_water"}, {"type": "wetland", "wetland_type": "marsh"}]}})
    assert r["status"] == "determined" and r["width_ft"] == 75.0
    # but a lake's 50 ft does not: the marsh could be a (1)(e) wetland.
    r = evaluate({"rule": "nr151.protective_area", "input": {"contiguous": True, "features": [
        {"type": "lake"}, {"type": "wetland", "wetland_type": "marsh"}]}})
    assert r["status"] == "needs_data"


def test_disagreement_takes_the_more_protective_width_and_says_so():
    # given "less" (at most 30 ft) but a sedge meadow is (1)(e): 75 ft.
    r = _wetland(wetland_type="sedge meadow", susceptibility="less", average_width_ft=200)
    assert (r["width_ft"], r["citation"]) == (75.0, "NR 151.125(1)(e)")
    assert "disagree" in r["note"] and "75 ft" in r["note"]
    assert "more-protective-width" in r["interpretations"]
    assert r["interpretation_text"]["more-protective-width"].startswith("Where the susceptibility")
    # given "highly" for reed canary grass ((1)(f), 20 ft here): the given 75 ft is wider.
    r = _wetland(wetland_type="reed canary grass", susceptibility="highly", average_width_ft=200)
    assert (r["width_ft"], r["citation"]) == (75.0, "NR 151.125(1)(e)")
    # given "other" (50 ft, (1)(d)) for a gravel pit ((1)(f)): 50 ft, no width data needed.
    r = _wetland(wetland_type="gravel pit", susceptibility="other")
    assert (r["status"], r["width_ft"], r["citation"]) == ("determined", 50.0, "NR 151.125(1)(d)")


def test_no_type_and_no_susceptibility_is_other_as_the_contract_says():
    r = _wetland()
    assert (r["width_ft"], r["citation"], r["interpretations"]) == (50.0, "NR 151.125(1)(d)", [])
    assert r["interpretation_text"] == {}
    # ... and the result says it was taken so, never silently (a listed (1)(e) type gives 75 ft)
    assert r["note"] == ("feature 0 (wetland): no wetland type or susceptibility given: taken as a"
                         " wetland not subject to (e) or (f), 50 ft (NR 151.125(1)(d)); a type"
                         " listed in NR 151.125(1)(e) gives 75 ft.")
    for blank in ("", "   ", None):
        assert _wetland(wetland_type=blank)["note"] == r["note"]
