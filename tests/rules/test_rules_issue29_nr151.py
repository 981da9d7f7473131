"""NR 151.125 (1)(b) mapped streams, (1)(h) permitted fills, (4)(b) in-fill under 5 acres (issue 29)."""

from __future__ import annotations

import pytest

from fieldapp.rules import evaluate
from fieldapp.rules.nr151 import Feature, protective_area


def pa(*features, **extra):
    return evaluate({"rule": "nr151.protective_area", "input": {"contiguous": False, "features": list(features),
                                                                 **extra}})


# --- (1)(b): "streams identified on a U.S. geological survey 7.5-minute series topographic map, or a
# county soil survey map ... 50 feet"

def test_stream_on_the_usgs_map_is_50_ft_and_names_the_map():
    r = pa({"type": "stream", "mapped_on": "usgs_7_5_minute", "map_name": "Decorah 1994"})
    assert r["width_ft"] == 50.0 and r["feature_citations"] == ["NR 151.125(1)(b)"]
    assert "7.5-minute topographic map 'Decorah 1994'" in r["note"] and "mapped-on" in r["interpretations"]
    r = pa({"type": "stream", "mapped_on": "county_soil_survey"})
    assert r["width_ft"] == 50.0 and "county soil survey map" in r["note"]


@pytest.mark.parametrize(("drainage_ac", "width"), [(130.0, 0.0), (130.01, 10.0), (40.0, 0.0), (600.0, 10.0)])
def test_unmapped_channel_falls_to_concentrated_flow(drainage_ac, width):
    # on neither map: (1)(i), "drainage areas greater than 130 acres, 10 feet": exactly 130 gives none
    r = pa({"type": "stream", "mapped_on": "none", "drainage_area_ac": drainage_ac})
    assert r["status"] == "determined" and r["width_ft"] == width
    assert r["feature_citations"] == ["NR 151.125(1)(i)"] and "not a (1)(b) stream" in r["note"]
    assert (f"{drainage_ac:g} ac drains to it, not more than 130 ac" in r["note"]) == (width == 0.0)


def test_unmapped_channel_without_drainage_area_needs_it():
    r = pa({"type": "stream", "mapped_on": "none"})
    assert r["status"] == "needs_data" and "drainage area" in r["next_step"]


def test_stream_with_no_map_named_keeps_50_ft_and_says_so():
    r = pa({"type": "stream"})
    assert r["width_ft"] == 50.0 and r["citation"] == "NR 151.125(1)(b)" and "no map named" in r["note"]
    assert pa({"type": "stream", "mapped_on": "topo"})["key"] == "input.features[0].mapped_on"


# --- (1)(h): "does not apply to wetlands that have been completely filled in compliance with all
# applicable state and federal regulations ... Where there is a legally authorized wetland fill,
# the protective area standard need not be met in that location."

def test_completely_filled_wetland_under_permit_needs_no_protective_area():
    r = pa({"type": "wetland", "susceptibility": "highly", "fill": "complete", "fill_permit": "DNR IP-2024-117"})
    assert r["width_ft"] == 0.0 and r["feature_citations"] == ["NR 151.125(1)(h)"]
    assert "DNR IP-2024-117" in r["note"] and "permitted-fill" in r["interpretations"]
    # the other features keep theirs: a lake beside it is 50 ft
    r = pa({"type": "lake"}, {"type": "wetland", "fill": "complete", "fill_permit": "GP 12"})
    assert r["widths_ft"] == [50.0, 0.0] and r["width_ft"] == 50.0


def test_fill_without_permit_is_not_legal_and_partial_fill_is_measured_after_fill():
    r = pa({"type": "wetland", "susceptibility": "highly", "fill": "complete"})
    assert r["width_ft"] == 75.0 and "no permit reference" in r["note"]
    r = pa({"type": "wetland", "susceptibility": "less", "average_width_ft": 200, "fill": "partial",
            "fill_permit": "COE 2023-55"})
    assert r["width_ft"] == 20.0 and "after the fill" in r["note"]
    assert pa({"type": "wetland", "fill": "some"})["key"] == "input.features[0].fill"


# --- (4)(b): "In-fill development areas less than 5 acres."

@pytest.mark.parametrize(("area_ac", "exempt"), [(4.99, True), (5.0 - 2e-6, True), (5.0, False),
                                                 (5.0 - 5e-7, False), (5.01, False), (0.3, True)])
def test_infill_under_5_acres_is_decided_from_the_area(area_ac, exempt):
    r = pa({"type": "lake"}, infill={"area_ac": area_ac, "within_existing_development": True})
    assert r["infill_area_ac"] == pytest.approx(area_ac, abs=1e-6)
    assert "infill-area" in r["interpretations"]
    if exempt:
        assert r["status"] == "exempt" and r["citation"] == "NR 151.125(4)(b)" and r["width_ft"] is None
        assert r["exemption"] == "infill_under_5_ac"
    else:
        assert r["status"] == "determined" and r["width_ft"] == 50.0 and "not less than 5 acres" in r["note"]


def test_land_not_within_existing_development_is_not_infill():
    r = pa({"type": "lake"}, infill={"area_ac": 2.0, "within_existing_development": False})
    assert r["status"] == "determined" and r["width_ft"] == 50.0 and "not in-fill" in r["note"]
    bad = pa({"type": "lake"}, infill={"area_ac": 2.0})
    assert bad["status"] == "error" and bad["key"] == "input.infill.within_existing_development"


def test_typed_api_takes_the_new_inputs():
    r = protective_area([Feature("stream", mapped_on="none", drainage_area_ac=200.0)],
                        infill={"area_ac": 6.0, "within_existing_development": True})
    assert r.width_ft == 10.0 and r.infill_area_ac == 6.0
