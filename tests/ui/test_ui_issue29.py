"""Issue 29 in the window: a stream's map and the in-fill area on the New visit dialog, a wetland's
fill and permit on the Boundary tab (NR 151.125(1)(b), (1)(h), (4)(b))."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from tests.ui.ui_support import close_window, make_window  # noqa: E402


def test_new_visit_asks_the_stream_map_and_the_infill_area(qtbot, tmp_path):
    from fieldapp.app.visit import open_from_spec
    from fieldapp.checks import requests_for_model
    from fieldapp.ui.newvisit import NewVisitDialog, parse_mapped_on

    dlg = NewVisitDialog(tmp_path)
    qtbot.addWidget(dlg)
    dlg.name.setText("Mill Creek lot 7")
    dlg.add_feature("Mill Creek", "stream", mapped_on="USGS 7.5-minute map: Decorah 1994")
    dlg.add_feature("Back ditch", "stream", mapped_on="On neither map: 150 ac")
    dlg.infill_area.setValue(4.99)
    dlg.infill_within.setChecked(True)
    dlg.crs_epsg.setChecked(True)
    dlg.epsg.setValue(32616)
    dlg.resize(1000, 700)
    dlg.grab().save(str(tmp_path / "newvisit.png"))
    spec = dlg.spec()
    assert spec.water_features[0]["mapped_on"] == "usgs_7_5_minute"
    assert spec.water_features[0]["map_name"] == "Decorah 1994"
    assert spec.water_features[1]["mapped_on"] == "none" and spec.water_features[1]["drainage_area_ac"] == 150.0
    assert (spec.infill_area_ac, spec.infill_within_development) == (4.99, True)
    visit = open_from_spec(spec)
    try:
        site = visit.model.site
        assert site.infill_area_ac == 4.99 and site.water_features[1].mapped_on == "none"
        req = requests_for_model(visit.model)["protective_area"][1]
        assert req["input"]["infill"] == {"area_ac": 4.99, "within_existing_development": True}
        assert req["input"]["features"][1] == {"type": "stream", "mapped_on": "none", "drainage_area_ac": 150.0}
    finally:
        visit.close()
    with pytest.raises(ValueError, match="choose USGS"):
        parse_mapped_on("topo map")
    with pytest.raises(ValueError, match="drainage area in acres"):
        parse_mapped_on("On neither map: lots")
    dlg.add_feature("Pond", "lake", mapped_on="County soil survey map: 12")
    with pytest.raises(ValueError, match="for streams only"):
        dlg.spec()


def test_boundary_tab_records_a_wetland_fill_and_permit(qtbot, request):
    w = make_window(qtbot, request.getfixturevalue("private_dirs"))
    try:
        panel = w.panels["boundary"]
        panel.kind.setCurrentIndex(panel.kind.findData("wetland"))
        panel.fill.setCurrentIndex(panel.fill.findData("complete"))
        panel.fill_permit.setText(" DNR IP-2024-117 ")
        panel.wetland_box.grab().save(str(request.getfixturevalue("tmp_path") / "boundary.png"))
        attrs = panel.attributes()
        assert (attrs["fill"], attrs["fill_permit"]) == ("complete", "DNR IP-2024-117")
        panel.fill.setCurrentIndex(0)
        assert "fill" not in panel.attributes()
    finally:
        close_window(w)


def test_checks_panel_shows_the_overlap_and_the_graded_patches(qtbot, tmp_path):
    from shapely.geometry import LineString

    from fieldapp.checks import Checks
    from fieldapp.ui.checkspanel import ChecksPanel
    from tests.checks_sample import X0, Y0, new_visit, square, two_crown_stand

    v = new_visit()
    two_crown_stand(v)
    v.add_area("wetland", square(v, 60, 0, 100, 100), label="W2", standing_water=True, hydric_vegetation=True)
    v.add_area("foundation", square(v, 300, 0, 30, 30))
    ft = v.frame.from_ft
    v.add_line("drive", LineString([(X0 + ft(400), Y0), (X0 + ft(500), Y0), (X0 + ft(500), Y0 + ft(100))]))
    t = v.add_transect(0.0, origin=(X0 - ft(200), Y0))
    for h, s in ((30, 4), (60, 18), (120, 5)):
        v.add_station(t.uuid, horizontal_ft=h, slope_pct=s)
    v.add_area("disturbed", square(v, -235, 0, 70, 25))
    v.add_area("disturbed", square(v, -235, 40, 70, 40))
    checks = Checks()
    checks.refresh(v)
    panel = ChecksPanel()
    qtbot.addWidget(panel)
    panel.resize(1100, 420)
    panel.show()
    qtbot.waitExposed(panel)
    panel.show_checks(checks.all())
    rows = {panel.table.item(r, 0).text(): r for r in range(panel.table.rowCount()) if panel.table.item(r, 0)}
    # the whole summary is each row's tooltip (the cell shows a short verdict: issue 35 item 13)
    texts = [" | ".join(panel.table.item(r, c).toolTip() for c in range(panel.table.columnCount())
                        if panel.table.item(r, c)) for r in range(panel.table.rowCount())]
    assert any("wetland governs (100 % undisturbed" in t for t in texts), texts
    assert any("edges as drawn: 1 line(s), 0 area(s)" in t for t in texts), texts
    assert any("All 2 patches on the surface" in t for t in texts), texts
    assert rows
    panel.grab().save(str(tmp_path / "checkspanel.png"))
