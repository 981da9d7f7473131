"""Wetland data points in the site report (issue 32): one data-form page per data point, with the
determination the rules reach from the stored form, its position, pairing and boundary."""

from __future__ import annotations

import unicodedata

import pytest

from tests.report.datapoint_visit import make_visit

pypdf = pytest.importorskip("pypdf")

@pytest.fixture(scope="module")
def report(tmp_path_factory, qapp):
    from fieldapp.report import build_report

    folder = tmp_path_factory.mktemp("dpreport")
    path = folder / "marsh.gpkg"
    make_visit(path)
    out = folder / "report.pdf"
    build_report(path, out)
    reader = pypdf.PdfReader(out)
    pages = [unicodedata.normalize("NFKC", " ".join(p.extract_text().split())) for p in reader.pages]
    return {"reader": reader, "pages": pages}


def test_one_data_form_per_point_in_name_order(report):
    starts = [i for i, t in enumerate(report["pages"]) if "WETLAND DETERMINATION DATA FORM" in t]
    assert len(starts) == 3
    names = [report["pages"][i].split("Sampling Point: ")[1].split(" ")[0] for i in starts]
    assert names == ["DP-1", "DP-2", "DP-10"]
    outline = [o.title for o in report["reader"].outline if not isinstance(o, list)]
    assert "Wetland data points (routine determination data forms)" in outline


def test_wetland_point_page_holds_the_determination_position_and_pairing(report):
    text = " ".join(report["pages"])
    dp1 = text.split("Sampling Point: DP-1")[1].split("Sampling Point: DP-2")[0]
    assert "(wetland)" in dp1 and "paired with DP-2; supports the boundary of Wetland A" in dp1
    # the pair crosses the west side 32.8 ft (10 m) up: the west side and 100 - 32.8 ft of the south
    assert ("boundary supported 267 of 800 ft by its pairs; the south 133 ft, the east 200 ft and the north"
            " 200 ft of Wetland A have no pair") in dp1
    assert "44.5000" in dp1 and "N, 89.9" in dp1 and "placed on the map" in dp1
    assert "Is the Sampled Area within a Wetland? Yes ■ No □" in dp1
    assert "Prevalence Index = B/A = 1.80" in dp1 and "Depth (inches): 6" in dp1
    dp2 = text.split("Sampling Point: DP-2")[1].split("Sampling Point: DP-10")[0]
    assert "Is the Sampled Area within a Wetland? Yes □ No ■" in dp2 and "paired with DP-1" in dp2
    dp10 = text.split("Sampling Point: DP-10")[1]
    assert "No determination: hydrology.primary: D2 (Geomorphic Position) is a secondary indicator" in dp10


def test_the_checks_section_lists_the_stretches_without_a_pair(report):
    text = " ".join(report["pages"])
    assert ("Data points of wetland A (delineation) needs data Partly supported (267 of 800 ft) by DP-1"
            " (wetland, inside), DP-2 (upland, outside): the south 133 ft, the east 200 ft and the north 200 ft"
            " of Wetland A have no pair") in text
