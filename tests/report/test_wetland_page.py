"""The data-form page of a wetland data point (issue 32): laid out like the Corps' form, from a
pure object (the form dict, the determination, words for name/position/pairing)."""

import io

import pytest
from reportlab.lib.pagesizes import letter
from reportlab.lib.units import mm
from reportlab.platypus import SimpleDocTemplate

from fieldapp.report.wetland_page import CHECKED, UNCHECKED, DataFormPage, data_form_story
from fieldapp.rules.wetland_form import FormError, determine

pypdf = pytest.importorskip("pypdf")

FORM = {"plot": "DP-1", "region": "northcentral-northeast",
        "indicators": {"Acer rubrum": "FAC", "Typha latifolia": "OBL"},
        "vegetation": {"tree": [{"species": "Acer rubrum", "cover": 40}],
                       "herb": [{"species": "Typha latifolia", "cover": 60}, {"species": "Carex sp.", "cover": 5}]},
        "hydrology": {"primary": ["A2"], "secondary": ["D2"], "water_table_in": 8},
        "soil": {"indicators": ["F6"], "profile": [{"top_in": 0, "bottom_in": 9, "matrix_color": "10YR 2/1",
                                                    "matrix_pct": 95, "redox_color": "7.5YR 4/6", "redox_pct": 5,
                                                    "redox_type": "C", "redox_loc": "PL", "texture": "Silt loam"}]},
        "header": {"state": "WI", "soil_map_unit": "Houghton muck"}}


def pdf_text(page):
    buf = io.BytesIO()
    doc = SimpleDocTemplate(buf, pagesize=letter, leftMargin=16 * mm, rightMargin=16 * mm)
    doc.build(data_form_story(page, doc.width))
    reader = pypdf.PdfReader(io.BytesIO(buf.getvalue()))
    return [p.extract_text() for p in reader.pages]


def page_of(form, **kw):
    try:
        det, problem = determine(form), ""
    except FormError as err:
        det, problem = None, str(err)
    return DataFormPage(name=form.get("plot", "DP"), form=form, determination=det, problem=problem, role="wetland",
                        site="Demo site", date="2026-06-12", investigators="A. Crew",
                        position="43.073120 N, 89.401230 W", pairing="upland pair: DP-2", **kw)


def test_the_page_carries_every_part_of_the_form_in_the_regions_order():
    text = "\n".join(pdf_text(page_of(FORM)))
    flat = " ".join(text.split())
    assert "WETLAND DETERMINATION DATA FORM – Northcentral and Northeast Region" in flat
    assert "Sampling Point: DP-1 (wetland)" in flat and "Pairing: upland pair: DP-2" in flat
    # Northcentral-Northeast: HYDROLOGY before VEGETATION before SOIL
    assert flat.index("HYDROLOGY") < flat.index("VEGETATION") < flat.index("SOIL")
    # 65 % herb: Typha 60 dominant, Carex sp. 5 not, counted UPL for not being on the list
    assert "Carex sp." in flat and "UPL*" in flat
    # PI = (40*3 + 60*1 + 5*5) / 105 = 205/105 = 1.95
    assert "Prevalence Index = B/A = 1.95" in flat
    assert f"{CHECKED} High Water Table (A2)" in flat and f"{UNCHECKED} Surface Water (A1)" in flat
    assert f"{CHECKED} Redox Dark Surface (F6)" in flat and "7.5YR 4/6" in flat
    assert f"Is the Sampled Area within a Wetland? Yes {CHECKED} No {UNCHECKED}" in flat
    assert "Moss Trim Lines (B16)" in flat and "True Aquatic Plants" not in flat


def test_midwest_order_and_list():
    flat = " ".join("\n".join(pdf_text(page_of({**FORM, "region": "midwest"}))).split())
    assert flat.index("VEGETATION") < flat.index("SOIL") < flat.index("HYDROLOGY")
    assert "True Aquatic Plants (B14)" in flat and "Moss Trim Lines" not in flat


def test_a_form_that_cannot_be_determined_still_prints_with_the_reason():
    bad = {**FORM, "hydrology": {"primary": ["D2"]}}
    flat = " ".join("\n".join(pdf_text(page_of(bad))).split())
    assert "No determination: hydrology.primary: D2 (Geomorphic Position) is a secondary" in flat
    assert "(not decided)" in flat


def test_many_species_stack_the_worksheets_below_and_run_over_pages():
    many = {**FORM, "vegetation": {"herb": [{"species": f"Carex sp. {i}", "cover": 2} for i in range(40)]}}
    pages = pdf_text(page_of(many))
    assert len(pages) >= 3 and "Carex sp. 39" in " ".join(pages)


def test_the_windows_form_shape_prints_too():
    """The Data point tab stores ``plot_sizes_ft``, profile rows of ``depth_in`` / ``matrix`` /
    ``redox`` / ``texture`` text, and a cover or depth kept as typed when it is not a number."""
    form = {**FORM, "plot_sizes_ft": {"tree": 25.0, "sapling_shrub": 15.0, "herb": 5.0, "woody_vine": 25.0},
            "soil": {"indicators": ["F6"], "profile": [{"depth_in": "0-9", "matrix": "10YR 2/1",
                                                        "redox": "7.5YR 4/6, 5 %", "texture": "silt loam"}]},
            "hydrology": {"primary": ["A2"], "water_table_in": "about 8"}}
    flat = " ".join("\n".join(pdf_text(page_of(form))).split())
    assert "Tree Stratum (Plot size: 25 ft radius)" in flat and "Herb Stratum (Plot size: 5 ft radius)" in flat
    assert "0-9" in flat and "10YR 2/1" in flat and "7.5YR 4/6, 5 %" in flat and "silt loam" in flat
    assert "Depth (inches): about 8" in flat
    typed = {**FORM, "vegetation": {"herb": [{"species": "Typha latifolia", "cover": "lots"}]}}
    flat = " ".join("\n".join(pdf_text(page_of(typed))).split())
    assert "lots" in flat and "No determination: vegetation.herb[0].cover: the % cover of Typha latifolia must" in flat
