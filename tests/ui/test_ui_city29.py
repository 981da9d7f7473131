"""Issue 29 in the window: the site's district and use in the Records form (General A), a
swale's tributary stations in the line's form, and the drainageway verdict with the applicant's
checklist in the Checks panel. FIELDAPP_SHOTS=DIR saves the screenshots (docs/screenshots)."""

from __future__ import annotations

import pytest
from shapely.geometry import LineString, Polygon

from fieldapp.app import editing as E
from fieldapp.survey.features import Layer
from tests.ui.ui_support import WAIT_MS, save_shot

X0, Y0 = 500000.0, 4983000.0       # UTM 16N
FT = 0.3048


@pytest.fixture
def window(utm16_window):
    return utm16_window


def test_site_use_and_swale_stations_through_the_forms(qtbot, window):
    w = window
    m = w.visit.model
    s = m.add_line("swale", LineString([(X0, Y0), (X0 + 400 * FT, Y0)]), label="S1")
    m.add_area("disturbed", Polygon([(X0 + 160 * FT, Y0 - 10 * FT), (X0 + 220 * FT, Y0 - 10 * FT),
                                     (X0 + 220 * FT, Y0 + 100 * FT), (X0 + 160 * FT, Y0 + 100 * FT)]),
               label="Pad")
    # the site: district and use in its Records form
    w.editor.select(E.Selection(Layer.SITE, m.site.uuid))
    form = w.editor.edit_selected()
    form.inputs["zoning_district"].setText("R-1")
    form.inputs["land_use"].setCurrentIndex(2)               # residential
    save_shot(form, "site-form-district-use.png")
    form.save_button.click()
    assert (m.site.zoning_district, m.site.land_use) == ("R-1", "residential")
    # the swale: tributary area at stations down the line
    w.editor.select(E.Selection(Layer.LINE, s.uuid))
    form = w.editor.edit_selected()
    form.inputs["tributary_stations"].setText("0:2; 200:6")
    save_shot(form, "line-form-tributary-stations.png")
    form.save_button.click()
    assert m.get(Layer.LINE, s.uuid).tributary_stations == "0:2; 200:6"
    check_id = f"drainageway:{s.uuid}"
    qtbot.waitUntil(lambda: (c := w.visit.checks.get(check_id)) is not None
                    and c.result.get("reach_start_ft") == 150.0, timeout=WAIT_MS)
    res = w.visit.checks.get(check_id).result
    # 250.1 ground ft (400/0.9996 − 150) × 50 ft; the pad takes 60 grid ft along it and, across,
    # its 10 grid ft on one side and the strip's 25 ground ft on the other: 83.2 % open space
    k = 0.9996
    disturbed = 60 * 10 / k**2 + 60 * 25 / k
    assert res["disturbed_sqft"] == pytest.approx(disturbed, rel=1e-6)
    assert res["open_space_pct"] == pytest.approx(100 * (1 - disturbed / res["area_sqft"]), rel=1e-6)
    assert res["open_space_complies"] is True
    panel = w.checks_panel
    w.lower_tabs.setCurrentWidget(panel)
    qtbot.waitUntil(lambda: panel.row_of(check_id) >= 0, timeout=WAIT_MS)
    panel.table.selectRow(panel.row_of(check_id))
    qtbot.waitUntil(lambda: "The applicant must show:" in panel.details.toPlainText(), timeout=WAIT_MS)
    assert "[ ] D.5: no additional water" in panel.details.toPlainText()
    w.resize(1366, 768)
    save_shot(w, "checks-drainageway-checklist.png")
