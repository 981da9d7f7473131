"""Erosion control C from the recorded geometry: a disturbed area in the surveyed bank (between
the OHWM and the NR 341.035 bank line) or in the shoreline area (the NR 151.125 protective area
from the OHWM) requires the plan whatever the B quantities, and the verdict names the land.

Site in UTM 16N at the central meridian: the OHWM runs east 200 grid ft along y = 0; transects
T1 (x = 0) and T2 (x = 100 ft) run north with a 75-ft bank (base distance).
"""

from __future__ import annotations

import pytest
from shapely.geometry import Polygon

from fieldapp.checks import requests_for_model, summary_words
from fieldapp.rules import evaluate
from fieldapp.survey import Visit
from fieldapp.survey.features import WaterFeature

X0, Y0 = 500_000.0, 4_983_000.0
FT = 0.3048
CITE = "Decorah resource protection"


def box(x0, y0, x1, y1):
    return Polygon([(X0 + x0 * FT, Y0 + y0 * FT), (X0 + x1 * FT, Y0 + y0 * FT),
                    (X0 + x1 * FT, Y0 + y1 * FT), (X0 + x0 * FT, Y0 + y1 * FT)])


@pytest.fixture
def visit():
    v = Visit.new("Mill Creek lot", crs="EPSG:32616", who="tester@laptop")
    line = v.add_ohwm_line("OHWM", water_feature="Mill Creek")
    for i in range(5):
        v.add_ohwm_offset_point((X0 + i * 50 * FT, Y0), 0.0, horizontal_ft=0.0, line_uuid=line.uuid)
    for x in (0, 100):
        t = v.add_transect(0.0, origin=(X0 + x * FT, Y0))
        for d, s in ((20, 40), (40, 5), (40, 5)):
            v.add_station(t.uuid, horizontal_ft=d, slope_pct=s)
    return v


def erosion(v):
    out = requests_for_model(v)
    if "erosion_plan" not in out:
        return None, None
    title, req = out["erosion_plan"]
    return title, evaluate(req)


def test_the_bank_is_75_ft_on_both_transects(visit):
    out = requests_for_model(visit)
    assert [evaluate(r)["bank_ft"] for k, (_t, r) in out.items() if k.startswith("bank:")] == [75.0, 75.0]


def test_a_pad_between_the_transects_inside_the_bank_needs_a_plan(visit):
    visit.add_area("disturbed", box(40, 50, 60, 70), label="Pad")
    title, res = erosion(visit)
    assert title == "Erosion control plan (city): Pad in the surveyed bank (T1, T2)"
    assert (res["plan_required"], res["triggers"]) == (True, ["water_land"])
    assert res["water_land_disturbed"] == ["stream_bank"]
    assert res["citation"] == f"{CITE}, Erosion control C"
    assert "land disturbed: stream bank (Erosion control C)" in summary_words("erosion_plan", res)


def test_a_pad_landward_of_the_bank_line_needs_none(visit):
    visit.add_area("disturbed", box(40, 80, 60, 100), label="Pad")      # 5 ft beyond the 75-ft bank
    assert erosion(visit) == (None, None)
    visit.add_area("disturbed", box(40, 75, 60, 90), label="Edge")      # touching the bank line only
    assert erosion(visit) == (None, None)


def test_the_shoreline_strip_of_a_mapped_stream(visit):
    visit.update_site(water_features=(WaterFeature("Mill Creek", "stream", mapped_on="usgs_7_5_minute",
                                                   map_name="Decorah"),))
    out = requests_for_model(visit)
    assert evaluate(out["protective_area"][1])["width_ft"] == 50.0
    visit.add_area("disturbed", box(150, 60, 170, 80), label="Shed")    # beyond both: 60 ft out, past T2
    assert erosion(visit) == (None, None)
    visit.add_area("disturbed", box(150, 30, 170, 45), label="Path")    # 30 ft from the OHWM, past T2
    title, res = erosion(visit)
    assert title == "Erosion control plan (city): Path in the shoreline area of Mill Creek"
    assert (res["plan_required"], res["water_land_disturbed"]) == (True, ["stream_bank"])


def test_a_lake_shoreline(visit):
    visit.update_site(water_features=(WaterFeature("Mill Creek", "lake"),))
    visit.add_area("disturbed", box(150, 30, 170, 45), label="Path")
    title, res = erosion(visit)
    assert res["water_land_disturbed"] == ["lake_shoreline"] and title.endswith("shoreline area of Mill Creek")
