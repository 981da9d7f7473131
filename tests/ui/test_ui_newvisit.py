"""The New visit dialog (Visit ▸ New visit…) and Open visit: what is asked, what is refused, what
the new GeoPackage holds."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from tests.ui.ui_support import WAIT_MS, close_window, make_window


def test_epsg_offered_is_the_utm_zone_of_the_fix(qtbot, tmp_path):
    from fieldapp.ui.newvisit import NewVisitDialog, default_epsg

    # Madison, WI (43.07 N, 89.40 W): zone floor((-89.40 + 180) / 6) + 1 = 16, north -> 32616;
    # Portland, OR (45.52 N, 122.68 W): floor(57.32 / 6) + 1 = 10 -> 32610; Sydney 33.87 S,
    # 151.21 E: floor(331.21 / 6) + 1 = 56, south -> 32756
    assert default_epsg((43.07, -89.40)) == 32616
    assert default_epsg((45.52, -122.68)) == 32610
    assert default_epsg((-33.87, 151.21)) == 32756
    assert default_epsg(None) == 0
    assert default_epsg((89.0, 0.0)) == 0        # polar cap: no UTM zone, nothing offered
    dlg = NewVisitDialog(tmp_path, fix_lat_lon=(45.52, -122.68))
    qtbot.addWidget(dlg)
    assert dlg.epsg.value() == 32610


def test_dialog_spec_converts_feet_and_validates(qtbot, tmp_path):
    from fieldapp.ui.newvisit import NewVisitDialog

    dlg = NewVisitDialog(tmp_path, crew="AS")
    qtbot.addWidget(dlg)
    with pytest.raises(ValueError, match="Site name"):
        dlg.spec()
    dlg.name.setText("Mill Creek lot 7")
    dlg.crew.setText("A. Surveyor, B. Forester")
    dlg.priority.setChecked(True)
    r = dlg.add_feature("Mill Creek", "stream")
    dlg.add_feature("W1", "wetland", "less", "wet meadow")
    dlg.crs_epsg.setChecked(True)
    assert dlg.epsg.value() == 0 and dlg.epsg.text() == " "   # no fix: nothing offered
    with pytest.raises(ValueError, match="EPSG code: type"):
        dlg.spec()
    dlg.epsg.setValue(4326)                  # geographic: refused, the site needs a projected CRS
    with pytest.raises(ValueError, match="not a projected CRS"):
        dlg.spec()
    dlg.epsg.setValue(3070)                  # NAD83 / Wisconsin Transverse Mercator
    dlg.antenna.setValue(2.0)                # metres ...
    dlg.antenna_unit.setCurrentIndex(1)      # ... shown as 2 / 0.3048 = 6.562 ft
    assert dlg.antenna.value() == pytest.approx(6.562, abs=1e-3)
    dlg.antenna.setValue(6.0)                # 6 international ft = 1.8288 m
    spec = dlg.spec()
    assert spec.antenna_height_m == pytest.approx(1.8288, abs=1e-6)
    assert spec.crs == "EPSG:3070" and spec.priority_waterway
    assert spec.crew == ["A. Surveyor", "B. Forester"]
    assert [f["type"] for f in spec.water_features] == ["stream", "wetland"]
    assert spec.water_features[1]["susceptibility"] == "less"
    # the site name as typed (store.paths.safe_file_name)
    assert spec.path.parent == tmp_path and spec.path.name.startswith("Mill Creek lot 7_")
    # susceptibility on a stream is refused, naming the feature
    dlg.features.cellWidget(r, 2).setCurrentIndex(1)
    with pytest.raises(ValueError, match="Mill Creek"):
        dlg.spec()


def test_new_visit_from_dialog_replaces_open_visit(qtbot, private_dirs):
    from fieldapp.app import visit as visit_mod
    from fieldapp.store import open_visit as store_open
    from fieldapp.ui.newvisit import NewVisitSpec

    w = make_window(qtbot, private_dirs)
    try:
        qtbot.waitUntil(lambda: w.startup_done and w.visit is not None, timeout=WAIT_MS)
        first = w.visit
        spec = NewVisitSpec(name="North bank", path=private_dirs / "data" / "north.gpkg",
                            crew=["AS"], priority_waterway=True,
                            water_features=[{"name": "Mill Creek", "type": "stream",
                                             "susceptibility": None, "wetland_type": None}],
                            crs="EPSG:3070", antenna_height_m=1.8288)
        monkey = visit_mod.ask_new_visit
        visit_mod.ask_new_visit = lambda window: spec
        try:
            w.new_visit_action.trigger()
        finally:
            visit_mod.ask_new_visit = monkey
        assert w.visit is not first and first.store.closed
        assert w.visit.path == spec.path and "North bank" in w.visit_label.text()
        assert w.visit.model.has_frame            # the EPSG code given: no need to wait for a fix
        assert w.visit.priority_waterway
        # the last visit is remembered for the next start
        from fieldapp.app import config as C
        assert C.read_file()["last_visit"] == str(spec.path)
        w.visit.close()
        store = store_open(spec.path, readonly=True)
        try:
            site = store.visit.site
            assert site.name == "North bank" and site.crew == ("AS",)
            assert site.crs == "EPSG:3070" and site.antenna_height_m == pytest.approx(1.8288)
            assert [(f.name, f.type.value) for f in site.water_features] == [("Mill Creek",
                                                                              "stream")]
        finally:
            store.close()
        # Open visit: back to the first one
        w.set_visit(visit_mod.open_visit(spec.path))
        assert visit_mod.choose_and_open(w, first.path).path == first.path
        assert w.visit.path == first.path
    finally:
        close_window(w)


def test_open_visit_refuses_a_foreign_file_with_a_message(qtbot, private_dirs):
    from fieldapp.app import visit as visit_mod

    bad = private_dirs / "notes.gpkg"
    bad.write_text("not a geopackage")
    w = make_window(qtbot, private_dirs)
    try:
        qtbot.waitUntil(lambda: w.startup_done and w.visit is not None, timeout=WAIT_MS)
        before = w.visit
        assert visit_mod.choose_and_open(w, bad) is None
        assert w.visit is before and "could not be opened" in w.office.messages[-1][1]
        assert bad.read_text() == "not a geopackage"          # never changed
    finally:
        close_window(w)


def test_start_without_last_visit_offscreen_makes_one_without_asking(qtbot, private_dirs):
    from fieldapp.app import config as C
    from fieldapp.ui import app as appmod

    cfg = C.build({"data_dir": str(private_dirs / "data"), "new_visit": True}, use_file=False)
    w = appmod.create_window(cfg, start_devices=False)   # offscreen: no dialog, no block
    try:
        assert w.visit is None                   # opened on the event loop's first turn
        qtbot.waitUntil(lambda: w.startup_done, timeout=WAIT_MS)
        assert w.visit is not None and w.visit.path.name.startswith("visit_")
    finally:
        from fieldapp.ui.app import dispose
        w.session.stop()
        dispose(w)


def test_cancel_in_the_start_up_new_visit_dialog_creates_no_file(qtbot, private_dirs,
                                                                 monkeypatch):
    from fieldapp.app import config as C
    from fieldapp.app import visit as visit_mod
    from fieldapp.ui import app as appmod

    monkeypatch.setattr(visit_mod, "dialogs_allowed", lambda cfg, platform: True)
    monkeypatch.setattr(visit_mod, "ask_new_visit", lambda window: None)     # Cancel
    data = private_dirs / "data"
    cfg = C.build({"data_dir": str(data), "new_visit": True}, use_file=False)
    w = appmod.create_window(cfg, start_devices=False)
    try:
        qtbot.waitUntil(lambda: w.startup_done, timeout=WAIT_MS)
        assert w.visit is None
        assert not data.exists() or list(data.glob("*.gpkg")) == []
        assert w.banner.text() == visit_mod.NO_VISIT
        assert not w.panels["ohwm"].average_button.isEnabled()
        assert w.paused_reason == visit_mod.NO_VISIT      # said once a fix comes
        # New visit afterwards: recording no longer blocked by it, the banner gone
        spec_path = data / "later.gpkg"
        w.set_visit(visit_mod.open_visit(spec_path, name="later"))
        assert w.paused_reason is None and w.banner.isHidden()
        assert [p.name for p in data.glob("*.gpkg")] == ["later.gpkg"]
    finally:
        from fieldapp.ui.app import dispose
        w.session.stop()
        dispose(w)


def test_a_visit_that_cannot_open_leaves_the_record_buttons_saying_why(qtbot, private_dirs):
    """The tester's case: a visit the store refuses is shown as not opened, and the record
    buttons are off with the reason, instead of averaging a point and then losing it."""
    from fieldapp.app import config as C
    from fieldapp.app import visit as visit_mod
    from fieldapp.ui import app as appmod

    junk = private_dirs / "junk.gpkg"
    junk.write_text("not a visit\n")
    cfg = C.build({"data_dir": str(private_dirs / "data"), "visit": str(junk)}, use_file=False)
    w = appmod.create_window(cfg, start_devices=False)
    try:
        qtbot.waitUntil(lambda: w.startup_done, timeout=WAIT_MS)
        assert w.visit is None and w.banner.text().startswith(f"Could not open the visit {junk}")
        assert w.paused_reason == visit_mod.NO_VISIT
        assert not w.panels["ohwm"].average_button.isEnabled()
        assert junk.read_text() == "not a visit\n"
    finally:
        from fieldapp.ui.app import dispose
        w.session.stop()
        dispose(w)


def test_crs_found_by_name_in_projs_database_sets_the_code(qtbot, tmp_path):
    from fieldapp.ui.newvisit import NewVisitDialog

    dlg = NewVisitDialog(tmp_path, fix_lat_lon=(43.07, -89.40))       # Madison, Dane County
    qtbot.addWidget(dlg)
    dlg.name.setText("Lake Wingra lot")
    dlg.crs_find.setText("WISCRS Dane US survey feet")
    # the search's own list replaces the systems offered for the fix (issue 35 item 8)
    qtbot.waitUntil(lambda: dlg.crs_results.itemText(0) == "EPSG:7599  NAD83(2011) / WISCRS Dane (ftUS)",
                    timeout=60_000)
    assert dlg.crs_epsg.isChecked() and dlg.epsg.value() == 7599
    dlg.crs_find.setText("wisconsin south ftus")
    qtbot.waitUntil(lambda: dlg.crs_results.itemData(0) == "EPSG:2289", timeout=60_000)
    dlg.crs_results.setCurrentIndex(3)
    dlg.crs_results.activated.emit(3)
    assert dlg.epsg.value() == int(dlg.crs_results.itemData(3).split(":")[1])
    spec = dlg.spec()
    assert spec.crs == dlg.crs_results.itemData(3)
    from fieldapp.geo import SiteFrame

    assert SiteFrame(spec.crs).foot.value == "us_survey"
    dlg.crs_find.setText("no such coordinate system")
    qtbot.waitUntil(lambda: dlg.crs_results.itemText(0) == "No projected CRS by that name or code", timeout=60_000)


def test_prepare_basemap_fetches_around_the_fix_and_the_visit_keeps_it(qtbot, tmp_path):
    from fieldapp.app.visit import open_from_spec
    from fieldapp.basemap import layers, open_basemap
    from fieldapp.basemap.fetch import bbox_around, tiles_for
    from fieldapp.ui.basemapfetch import BasemapFetchDialog
    from fieldapp.ui.newvisit import NewVisitDialog
    from tests.basemap.test_basemap_fetch import TileServer

    server = TileServer()
    try:
        dlg = NewVisitDialog(tmp_path, fix_lat_lon=(43.07, -89.40))
        qtbot.addWidget(dlg)
        dlg.name.setText("Lake Wingra lot")
        fetch_dlg = BasemapFetchDialog(tmp_path / "wingra.mbtiles", (43.07, -89.40), dlg)
        qtbot.addWidget(fetch_dlg)
        fetch_dlg.url.setText(server.url)
        fetch_dlg.radius.setValue(800.0)
        fetch_dlg.zoom_from.setValue(15)
        fetch_dlg.zoom_to.setValue(16)
        fetch_dlg.rate_per_s = 1000.0
        fetch_dlg.begin()
        qtbot.waitUntil(lambda: fetch_dlg.result_path is not None, timeout=60_000)
        n = len(tiles_for(bbox_around(43.07, -89.40, 800.0), (15, 16)))
        assert fetch_dlg.bar.value() == fetch_dlg.bar.maximum() == n
        assert len(server.requests) == n and f"{n} tiles saved" in fetch_dlg.state.text()
        assert dlg.prepare_basemap(fetch_dlg) == tmp_path / "wingra.mbtiles"
        assert dlg.basemap_label.text() == "Basemap: wingra.mbtiles"
        spec = dlg.spec()
        visit = open_from_spec(spec)
        visit.close()
        assert layers.basemaps(spec.path) == [((tmp_path / "wingra.mbtiles").resolve(), 1.0)]
        assert open_basemap(tmp_path / "wingra.mbtiles").driver == "MBTiles"
        # a refused request says why, nothing fetched
        other = BasemapFetchDialog(tmp_path / "big.mbtiles", (43.07, -89.40), dlg)
        qtbot.addWidget(other)
        other.url.setText(server.url)
        other.zoom_to.setValue(21)
        server.requests.clear()
        other.begin()
        qtbot.waitUntil(lambda: other.start.isEnabled(), timeout=60_000)
        assert "above the limit of 5,000" in other.state.text() and server.requests == []
    finally:
        server.close()


@pytest.mark.parametrize("size", [(1366, 768), (1280, 720), (1024, 600)])
def test_dialog_fits_the_screen_with_start_visit_in_view(qtbot, tmp_path, themed, size):
    """The questions scroll and Start visit stays in view on a laptop or tablet screen less a
    30 px title bar and a 38 px taskbar (the dialog was 758 px tall and could not be made
    lower: Start visit was below the screen even on a 1366x768 laptop)."""
    from PySide6.QtWidgets import QDialogButtonBox

    from fieldapp.ui.newvisit import NewVisitDialog, fit_height
    from tests.ui.test_ui_layout import fully_in_view

    dlg = NewVisitDialog(tmp_path, crew="AS")
    qtbot.addWidget(dlg)
    width, height = size[0], size[1] - 30 - 38
    least = dlg.minimumSizeHint()
    assert least.width() <= width and least.height() <= height, least
    assert dlg.height() <= fit_height(dlg)      # as first shown: inside its own screen
    dlg.resize(min(900, width), height)
    dlg.show()
    qtbot.waitExposed(dlg)
    qtbot.waitUntil(lambda: dlg.height() == height)
    start = dlg.findChild(QDialogButtonBox).buttons()
    assert [b.text() for b in start if fully_in_view(b, dlg)] == ["Start visit", "Cancel"]
    assert fully_in_view(dlg.name, dlg)             # the first question, with no scrolling
    dlg.scroll.ensureWidgetVisible(dlg.where)       # the last line, a scroll away
    qtbot.waitUntil(lambda: fully_in_view(dlg.where, dlg))
    assert dlg.scroll.horizontalScrollBar().maximum() == 0      # never sideways


def test_a_wisconsin_fix_offers_the_countys_wiscrs_in_us_survey_feet(qtbot, tmp_path):
    """Issue 35 item 8: from a fix in Dane County the dialog offers the county's WISCRS and the
    State Plane zone in US survey feet (PROJ's database, by area of use), WISCRS chosen; the
    visit is then in US survey feet (its exports too: they are in the site CRS)."""
    from fieldapp.app.visit import open_from_spec
    from fieldapp.geo import SiteFrame
    from fieldapp.ui.newvisit import NewVisitDialog

    dlg = NewVisitDialog(tmp_path, fix_lat_lon=(43.07, -89.40))       # Madison, Dane County
    qtbot.addWidget(dlg)
    offered = [dlg.crs_results.itemData(i) for i in range(dlg.crs_results.count())]
    assert offered[:4] == ["EPSG:7599", "EPSG:7540", "EPSG:6609", "EPSG:6610"]
    assert offered[-1] == "EPSG:32616"                   # UTM still offered, last
    assert dlg.crs_results.currentText() == "EPSG:7599  NAD83(2011) / WISCRS Dane (ftUS) — county system"
    assert dlg.crs_epsg.isChecked() and dlg.epsg.value() == 7599
    dlg.grab().save(str(tmp_path / "newvisit.png"))
    dlg.name.setText("Lake Wingra lot")
    spec = dlg.spec()
    assert spec.crs == "EPSG:7599" and SiteFrame(spec.crs).foot.value == "us_survey"
    visit = open_from_spec(spec)
    try:
        assert visit.model.frame.foot.value == "us_survey"
    finally:
        visit.store.close()
    # outside Wisconsin nothing changes: the UTM zone, automatic
    other = NewVisitDialog(tmp_path, fix_lat_lon=(45.52, -122.68))
    qtbot.addWidget(other)
    assert other.crs_auto.isChecked() and other.epsg.value() == 32610
