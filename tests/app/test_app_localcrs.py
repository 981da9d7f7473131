"""Issue 35 item 8: an automatic site CRS is the county's WISCRS in US survey feet when the first
fix is in Wisconsin (an office there expects it), the UTM zone elsewhere."""

from __future__ import annotations

from fieldapp.app.localcrs import local_crs_choices, usual_crs
from fieldapp.app.visit import open_visit
from tests.store.test_store import Fix


def test_first_fix_in_dane_county_makes_the_visit_wiscrs_dane_us_feet(tmp_path):
    visit = open_visit(tmp_path / "wingra.gpkg", name="Wingra")
    try:
        assert not visit.model.has_frame
        visit.on_fix(Fix(43.07, -89.40))
        frame = visit.model.frame
        assert visit.model.site.crs == "EPSG:7599" and frame.foot.value == "us_survey"
    finally:
        visit.store.close()


def test_elsewhere_the_first_fix_picks_the_utm_zone(tmp_path):
    visit = open_visit(tmp_path / "iowa.gpkg", name="Iowa")
    try:
        visit.on_fix(Fix(43.30, -91.79))                 # Iowa: no county system offered
        assert visit.model.site.crs == "EPSG:32615"
    finally:
        visit.store.close()
    assert usual_crs(43.30, -91.79) is None
    # Lincoln County, Wisconsin: its own county system
    assert usual_crs(45.0, -89.0) == local_crs_choices(45.0, -89.0)[0][0]
    assert "WISCRS" in local_crs_choices(45.0, -89.0)[0][1]
