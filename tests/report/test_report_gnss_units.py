"""Issue 35 item 8: the report's Units paragraph gives every length in the site's foot, but its
"GNSS quality per recorded point" table gave the receiver's accuracy and σ in metres. At a site
in US survey feet (the demo's WISCRS Vernon) they are now in US survey ft, said so; at a metre
CRS in the international foot the report uses for lengths there."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import replace
from datetime import date, timedelta

import pytest

from fieldapp.geo import FOOT_US_SURVEY_M, SiteFrame
from fieldapp.store import create_visit
from fieldapp.survey import Layer, Visit, WaterFeature, WaterFeatureType
from tests.report.sample_visit import T0, SampleFix, _clock, build_sample_visit


def _pdf_text(path) -> str:
    tool = shutil.which("pdftotext")
    if tool is None:
        pytest.skip("pdftotext is not installed")
    run = subprocess.run([tool, "-raw", str(path), "-"], capture_output=True, text=True, check=True)
    return " ".join(run.stdout.split())


def test_gnss_accuracy_and_sigma_in_us_survey_feet_at_a_wiscrs_site(tmp_path, qapp):
    from fieldapp.report import build_report
    from fieldapp.store import open_visit

    frame = SiteFrame("EPSG:7637")               # WISCRS Vernon, US survey feet
    visit = Visit.new("Kickapoo bank", date(2024, 5, 14), crew=["A. Surveyor"],
                      device_ids={"gnss": "R12i 6012"}, crs="EPSG:7637", antenna_height_m=2.0,
                      who="ann@laptop-1", clock=_clock(),
                      water_features=[WaterFeature("Kickapoo River", WaterFeatureType.STREAM)])
    path = tmp_path / "kickapoo.gpkg"
    store = create_visit(path, visit)
    x0, y0 = (float(v) for v in frame.to_local(-90.642, 43.592))
    # 10 RTK epochs 0.1 ftUS either side of the point in x: σx (sample, n - 1) 0.105 ftUS, σy 0
    fixes = []
    for j in range(10):
        lon, lat = frame.to_lonlat(x0 + (0.1 if j % 2 else -0.1), y0)
        fixes.append(replace(SampleFix(lat, lon, 4, T0 + timedelta(seconds=j)),
                             horizontal_accuracy_m=0.01, vertical_accuracy_m=0.03))
    visit.add_ohwm_point(visit.average(fixes, min_epochs=5))
    store.close()
    with open_visit(path) as st:
        p = st.visit.features(Layer.OHWM_POINT)[0]
        sx_m = p.std_dev_x_m
    assert sx_m == pytest.approx(0.1 * (10 / 9) ** 0.5 * FOOT_US_SURVEY_M, rel=1e-3)
    out = tmp_path / "report.pdf"
    build_report(path, out)
    t = _pdf_text(out)
    assert "every position and length in US survey ft" in t
    assert "H accuracy (ftUS) V accuracy (ftUS) σx, σy (ftUS)" in t
    assert "(m)" not in t.split("GNSS quality per recorded point")[-1].split("Raw track")[0]
    # 0.01 m = 0.033 ftUS, 0.03 m = 0.098 ftUS, σx as stored in metres / 0.3048006 m
    row = f"0.033 0.098 {sx_m / FOOT_US_SURVEY_M:.3f}, 0.000"
    assert row in t and f"{sx_m / FOOT_US_SURVEY_M:.3f}" == "0.105"
    assert "both in US survey ft (0.3048006096 m)" in t


def test_gnss_accuracy_in_international_feet_at_a_metre_crs(tmp_path, qapp):
    from fieldapp.report import build_report

    path = tmp_path / "mill-creek.gpkg"
    build_sample_visit(path)                     # EPSG:3070 (metres); fixes ±0.02 m H, 0.03 m V
    out = tmp_path / "report.pdf"
    build_report(path, out)
    t = _pdf_text(out)
    assert "every position and length in international ft" in t
    assert "H accuracy (ft) V accuracy (ft) σx, σy (ft)" in t
    assert "0.066 0.098" in t                    # 0.02 m / 0.3048, 0.03 m / 0.3048
    assert "both in international ft (0.3048 m)" in t


def test_data_point_fix_accuracy_in_the_sites_foot():
    from types import SimpleNamespace

    from fieldapp.report.datapoints import position_words

    visit = Visit.new("Kickapoo bank", date(2024, 5, 14), crs="EPSG:7637", antenna_height_m=2.0)
    frame = visit.frame
    x, y = (float(v) for v in frame.to_local(-90.642, 43.592))
    dp = SimpleNamespace(x=x, y=y, quality=4, hdop=0.8, h_accuracy_m=0.01)
    words = position_words(visit, dp, {4: "RTK fixed"}, "ftUS")
    assert words.endswith("GNSS fix 4 RTK fixed, HDOP 0.8, ±0.033 ftUS")     # 0.01 m
