"""Issue 29's last window inputs: the site's NR 151.125 in-fill area and each stream's "mapped
on" corrected on the Records tab's Site form for an existing visit (undoable, and the
protective-area verdict follows). FIELDAPP_SHOTS=DIR saves the screenshots."""

from __future__ import annotations

import pytest

from fieldapp.app import editing as E
from fieldapp.survey.features import Layer, WaterFeature
from tests.ui.ui_support import WAIT_MS, save_shot


@pytest.fixture
def window(utm16_window):
    return utm16_window


def test_infill_and_mapped_on_corrected_on_the_site_form(qtbot, window):
    w = window
    m = w.visit.model
    m.update_site(water_features=(WaterFeature("Mill Creek", "stream"), WaterFeature("Pond", "lake")))
    w.editor.select(E.Selection(Layer.SITE, m.site.uuid))
    form = w.editor.edit_selected()
    # the lake has no "mapped on": only the stream (feature 0) gets its map fields
    assert {"infill_area_ac", "infill_within_development", "mapped_on:0", "map_name:0"} <= set(form.inputs)
    assert "mapped_on:1" not in form.inputs
    form.inputs["infill_area_ac"].setText("3.2")
    form.inputs["infill_within_development"].setCurrentIndex(1)     # yes
    combo = form.inputs["mapped_on:0"]
    combo.setCurrentIndex(combo.findData("usgs_7_5_minute"))
    form.inputs["map_name:0"].setText("Decorah 1994")
    save_shot(form, "site-form-infill-mapped-on.png")
    form.save_button.click()
    site = m.site
    assert (site.infill_area_ac, site.infill_within_development) == (3.2, True)
    assert (site.water_features[0].mapped_on, site.water_features[0].map_name) == ("usgs_7_5_minute", "Decorah 1994")
    assert site.water_features[1].mapped_on is None
    # the protective area now decides (4)(b) from the area: under 5 ac in existing development
    qtbot.waitUntil(lambda: (c := w.visit.checks.get("protective_area")) is not None
                    and c.result.get("infill_area_ac") == 3.2, timeout=WAIT_MS)
    assert w.visit.checks.get("protective_area").result["status"] == "exempt"
    # one undo takes the whole correction back
    w.editor.undo()
    assert (m.site.infill_area_ac, m.site.water_features[0].mapped_on) == (None, None)
    # a sheet without its map is refused in field words; nothing changes
    w.editor.select(E.Selection(Layer.SITE, m.site.uuid))
    form = w.editor.edit_selected()
    form.inputs["map_name:0"].setText("sheet 12")
    form.save_button.click()
    assert "Mill Creek: a map sheet needs the map it is on" in form.error.text()
    assert m.site.water_features[0].map_name is None
    form.reject()


def test_erosion_c_names_the_surveyed_bank_in_the_checks_panel(qtbot, window):
    from shapely.geometry import Polygon

    w = window
    m = w.visit.model
    x0, y0, ft = 500000.0, 4983000.0, 0.3048
    line = m.add_ohwm_line("OHWM", water_feature="Mill Creek")
    for i in range(5):
        m.add_ohwm_offset_point((x0 + i * 50 * ft, y0), 0.0, horizontal_ft=0.0, line_uuid=line.uuid)
    for x in (0, 100):
        t = m.add_transect(0.0, origin=(x0 + x * ft, y0))
        for d, s in ((20, 40), (40, 5), (40, 5)):
            m.add_station(t.uuid, horizontal_ft=d, slope_pct=s)
    m.add_area("disturbed", Polygon([(x0 + 40 * ft, y0 + 50 * ft), (x0 + 60 * ft, y0 + 50 * ft),
                                     (x0 + 60 * ft, y0 + 70 * ft), (x0 + 40 * ft, y0 + 70 * ft)]), label="Pad")
    qtbot.waitUntil(lambda: w.visit.checks.get("erosion_plan") is not None, timeout=WAIT_MS)
    check = w.visit.checks.get("erosion_plan")
    assert check.title == "Erosion control plan (city): Pad in the surveyed bank (T1, T2)"
    assert check.result["water_land_disturbed"] == ["stream_bank"] and check.result["plan_required"] is True
    panel = w.checks_panel
    w.lower_tabs.setCurrentWidget(panel)
    qtbot.waitUntil(lambda: panel.row_of("erosion_plan") >= 0, timeout=WAIT_MS)
    panel.table.selectRow(panel.row_of("erosion_plan"))
    qtbot.waitUntil(lambda: "land disturbed: stream bank" in panel.details.toPlainText(), timeout=WAIT_MS)
    w.resize(1366, 768)
    save_shot(w.map, "map-erosion-c-pad-in-bank.png")
    panel.resize(900, 420)
    save_shot(panel, "checks-erosion-c-surveyed-bank.png")


def test_a_floodplain_loaded_from_a_file_on_the_boundary_tab(qtbot, window, tmp_path):
    import numpy as np
    import pyogrio
    import shapely
    from shapely.geometry import LineString, Polygon

    w = window
    m = w.visit.model
    x0, y0, ft = 500000.0, 4983000.0, 0.3048
    m.add_line("drainageway_centreline", LineString([(x0, y0), (x0 + 400 * ft, y0)]), mapped_stream=True, label="C1")
    f1 = Polygon([(x0 + 300 * ft, y0 - 200 * ft), (x0 + 600 * ft, y0 - 200 * ft),
                  (x0 + 600 * ft, y0 + 200 * ft), (x0 + 300 * ft, y0 + 200 * ft)])
    path = tmp_path / "county F-1.gpkg"
    pyogrio.raw.write(str(path), np.array([shapely.to_wkb(f1)], dtype=object), [], [],
                      geometry_type="Polygon", crs="EPSG:32616")
    panel = w.panels["boundary"]
    w.tabs.setCurrentIndex(next(i for i in range(w.tabs.count()) if w.tabs.tabText(i).startswith("Boundary")))
    shown = panel.floodplain_file.widget
    assert shown.isHidden()                              # only with Kind: Floodplain
    panel.kind.setCurrentIndex(panel.kind.findData("floodplain"))
    assert not shown.isHidden()
    panel.label.setText("F-1 district")
    assert panel.floodplain_file.load(str(path)) is True
    areas = m.features(Layer.AREA)
    assert [(a.kind.value, a.label) for a in areas] == [("floodplain", "F-1 district")]
    assert panel.floodplain_file.outcome.text() == \
        f"Loaded 1 floodplain area from county F-1.gpkg: {300 * 400 / 0.9996**2 / 43560:,.2f} ac"
    line = m.features(Layer.LINE)[0]
    qtbot.waitUntil(lambda: (c := w.visit.checks.get(f"drainageway:{line.uuid}")) is not None
                    and bool(c.result.get("floodplain_excepted_ft")), timeout=WAIT_MS)
    assert w.visit.checks.get(f"drainageway:{line.uuid}").result["floodplain_excepted_ft"] == \
        pytest.approx(100 / 0.9996, abs=1e-3)
    w.resize(1366, 768)
    w.map.zoom_to_all()
    qtbot.wait(50)
    save_shot(w, "boundary-floodplain-from-file.png")
    # a Shapefile without its .prj is refused in field words; nothing added
    bad = tmp_path / "noprj.shp"
    with pytest.warns(UserWarning):
        pyogrio.raw.write(str(bad), np.array([shapely.to_wkb(f1)], dtype=object), [], [],
                          driver="ESRI Shapefile", geometry_type="Polygon", crs=None)
    assert panel.floodplain_file.load(str(bad)) is False
    assert "noprj.shp has no coordinate reference system" in panel.floodplain_file.outcome.text()
    assert len(m.features(Layer.AREA)) == 1


def test_site_facts_refused_in_field_words(window):
    from fieldapp.app.sitefacts import SiteFactRefused

    v = window.visit
    m = v.model
    m.update_site(water_features=(WaterFeature("Mill Creek", "stream"),))
    sel = E.Selection(Layer.SITE, m.site.uuid)
    with pytest.raises(SiteFactRefused) as exc:
        E.apply_form(v, sel, {"infill_area_ac": -1.0})
    assert E.refusal_words(exc.value) == "In-fill development area must be 0 acres or more (not -1 ac)"
    with pytest.raises(SiteFactRefused, match="Mill Creek: the drainage area is for a channel on neither map"):
        E.apply_form(v, sel, {"mapped_on:0": "usgs_7_5_minute", "drainage_area_ac:0": 150.0})
    with pytest.raises(SiteFactRefused, match="needs the in-fill development area"):
        E.apply_form(v, sel, {"infill_within_development": True})
    E.apply_form(v, sel, {"mapped_on:0": "none", "drainage_area_ac:0": 150.0})
    w0 = m.site.water_features[0]
    assert (w0.mapped_on, w0.map_name, w0.drainage_area_ac) == ("none", None, 150.0)
