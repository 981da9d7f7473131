"""Issue 35 item 16: the demo lies in Wisconsin, whose sections the app checks (it lay in Iowa).
Through the real window on the demo simulators: the first fix gives the visit Vernon County's
WISCRS in US survey feet, the visit's site notes say the demo chose the Decorah chapter, and the
report's *Rules checked* says the state sections apply at this site and whose text the local
chapter is."""

from __future__ import annotations

import unicodedata

import pytest

from tests.ui.ui_support import WAIT_MS, close_window, make_window


def test_demo_visit_is_in_vernon_county_in_its_wiscrs_and_says_which_rules_apply(qtbot, private_dirs):
    pypdf = pytest.importorskip("pypdf")
    from devices.sim.demo_scenario import SITE_NOTES
    from fieldapp.report import build_report
    from fieldapp.survey.place import site_place

    w = make_window(qtbot, private_dirs, simulate=True, time_scale=10.0, rate_hz=10.0)
    try:
        qtbot.waitUntil(lambda: w.usable_fix() is not None and w.visit.model.has_frame, timeout=WAIT_MS)
        qtbot.waitUntil(lambda: len(w.visit.model.track_log) > 0, timeout=WAIT_MS)
        site = w.visit.model.site
        # Automatic: the county's system where a Wisconsin office expects one (not UTM 15N)
        assert site.crs == "EPSG:7637" and w.visit.model.frame.name == "NAD83(2011) / WISCRS Vernon (ftUS)"
        assert site.notes == SITE_NOTES
        assert "chosen for the demo" in site.notes and "not the law in Vernon County" in site.notes
        assert site_place(w.visit.model) == "Vernon County, Wisconsin"
        # the receiver is at the demo site (origin 43.592 N, 90.642 W; the walk keeps within 0.01°)
        fix = w.usable_fix()
        assert 43.58 < fix.lat_deg < 43.60 and -90.65 < fix.lon_deg < -90.63
        path = w.visit.path
    finally:
        close_window(w)
    out = private_dirs / "demo.pdf"
    build_report(path, out)
    text = unicodedata.normalize("NFKC", " ".join(
        " ".join(p.extract_text() for p in pypdf.PdfReader(out).pages[:2]).split()))
    assert ("Rules checked State (Wisconsin): NR 341.035 bank determination; NR 151.125 protective"
            " areas. They apply: the site is in Vernon County, Wisconsin. Local (City of Decorah,"
            " Winneshiek County, Iowa): resource protection chapter, Ord. 952 (1993): the one local"
            " chapter the app carries") in text
    assert "Site notes Demo site on the Kickapoo River north of La Farge" in text
    assert "Site CRS NAD83(2011) / WISCRS Vernon (ftUS) (EPSG:7637), whose coordinates are in US survey feet" in text
