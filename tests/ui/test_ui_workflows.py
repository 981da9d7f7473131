"""Each workflow driven end to end with keys and clicks over simulated devices on ptys;
what is stored in the GeoPackage and what the checks panel shows."""

from __future__ import annotations

import json
import math

import pytest

pytest.importorskip("pytestqt")

from fieldapp.checks import requests as R
from fieldapp.rules import evaluate
from tests.gpkgtools import st_connect
from tests.ui.ui_support import WAIT_MS, close_window, key, make_window, wait_fix


def stored_count(path, table: str) -> int:
    """Rows committed to the visit's GeoPackage (read through SQLite, WAL included)."""
    with st_connect(f"file:{path}?mode=ro", uri=True) as conn:
        return conn.execute(f'SELECT COUNT(*) FROM "{table}"').fetchone()[0]


def average_point(qtbot, w, epochs=3, n=1):
    """OHWM tab, Average point once the button allows it (simulate mode: the simulated
    surveyor has arrived); wait for the ``n``-th point."""
    wait_fix(qtbot, w)
    key(qtbot, w, "Ctrl+1")
    panel = w.panels["ohwm"]
    panel.epochs.setValue(epochs)
    # before averaging the bar reads "0 / <Epochs box>" (it read "0 / 100" with 10 in the box)
    if n == 1:
        assert (panel.progress.value(), panel.progress.maximum()) == (0, epochs)
    qtbot.waitUntil(panel.average_button.isEnabled, timeout=WAIT_MS)
    key(qtbot, w, "A")
    qtbot.waitUntil(lambda: len(w.visit.ohwm_points()) == n, timeout=WAIT_MS)


def surveyor_at_transect_origin(qtbot, w):
    """Simulate mode, Transect tab: wait until the simulated surveyor has walked to the
    transect origin and said so ("... press Start transect [N] then shoot.") on the panel's
    state line. Its arrival comes over the simulated GNSS, seconds later on a loaded machine,
    and it types the scenario's landward azimuth on arrival: a transect started before it would
    keep the panel's default azimuth (and the surveyor then stays quiet, so as not to overwrite
    the transect's state words: tests/ui/test_ui_surveyor.py)."""
    walker = w._surveyor()
    qtbot.waitUntil(lambda: "transect origin" in (walker.words or "") and not walker.busy,
                    timeout=WAIT_MS)


def test_transect_over_demo_bank_is_determined(qtbot, private_dirs):
    w = make_window(qtbot, private_dirs, simulate=True)
    try:
        average_point(qtbot, w)
        key(qtbot, w, "Ctrl+2")
        panel = w.panels["transect"]
        surveyor_at_transect_origin(qtbot, w)
        panel.azimuth.setValue(350.0)
        key(qtbot, w, "N")
        qtbot.waitUntil(lambda: w.visit.current_transect is not None, timeout=WAIT_MS)
        qtbot.waitUntil(panel.shoot_button.isVisible, timeout=WAIT_MS)
        # The demo's scripted stations: 20, 40, ... 250 ft (10 shots).
        for n in range(1, 11):
            key(qtbot, w, "S")
            qtbot.waitUntil(lambda n=n: len(w.visit.stations()) == n, timeout=WAIT_MS)
        qtbot.waitUntil(lambda: "determined" in panel.state.text(), timeout=WAIT_MS)
        # The scripted profile (devices/sim/scenarios/demo.json): 4 % to 40 ft, 18 % to 80,
        # 20 % to 120, then 5 % and 3 %: steep from 40 (inside 75 ft) to 120, followed by
        # 130 ft below 12 % -> the bank ends at 120 ft (NR 341.035(1)(a)).
        assert panel.state.text().startswith("Bank 120.0 ft — determined")
        t = w.visit.current_transect
        request = {"rule": "nr341.bank", "input": R.bank_input(w.visit.model, t.uuid)}
        assert evaluate(request)["bank_ft"] == pytest.approx(120.0, abs=0.05)
        # The panel shows the same verdict with its citation.
        qtbot.waitUntil(lambda: w.checks_panel.table.rowCount() >= 1, timeout=WAIT_MS)
        row = w.checks_panel.row_of(f"bank:{t.uuid}")
        assert w.checks_panel.table.item(row, 1).text() == "determined"
        assert w.checks_panel.table.item(row, 3).text() == "NR 341.035(1)(a)"
        w.checks_panel.table.selectRow(row)
        assert "What went in:" in w.checks_panel.details.toPlainText()
        assert json.loads(w.checks_panel.copy_request())["rule"] == "nr341.bank"
        # Stored: 1 OHWM point, 1 transect, 10 stations.
        path = w.visit.path
        assert stored_count(path, "ohwm_point") == 1
        assert stored_count(path, "transect") == 1
        assert stored_count(path, "station") == 10
        # Manual entry: a typed station in degrees of slope distance adds the 11th.
        panel.dist_kind.setCurrentIndex(1)
        panel.dist.setValue(30.0)
        panel.slope_unit.setCurrentIndex(1)
        panel.slope.setValue(2.0)
        panel.add_button.click()
        qtbot.waitUntil(lambda: len(w.visit.stations()) == 11, timeout=WAIT_MS)
        # 30 ft slope distance at 2 deg: 30 cos 2deg = 29.98 ft horizontal
        assert w.visit.stations()[-1].segment_ft == pytest.approx(29.9817, abs=1e-3)
    finally:
        close_window(w)


def test_unplugged_receiver_disables_recording_and_resumes(qtbot, private_dirs):
    w = make_window(qtbot, private_dirs, simulate=True)
    try:
        average_point(qtbot, w)
        key(qtbot, w, "Ctrl+2")
        gnss = w.session.simulator("gnss")
        button = w.panels["ohwm"].average_button
        assert button.isEnabled()
        gnss.unplug()
        qtbot.waitUntil(lambda: w.status_strip.device_state("gnss") == "disconnected",
                        timeout=WAIT_MS)
        qtbot.waitUntil(lambda: not button.isEnabled(), timeout=WAIT_MS)
        assert all(not b.isEnabled() for b in w.record_buttons)
        assert "disconnected" in w.status_strip.problem_label.text()
        assert "disconnected" in button.toolTip()
        gnss.replug()
        qtbot.waitUntil(lambda: w.status_strip.device_state("gnss") == "connected",
                        timeout=WAIT_MS)
        qtbot.waitUntil(button.isEnabled, timeout=WAIT_MS)
        assert w.status_strip.problem_label.text() == ""
    finally:
        close_window(w)


def tree_points_in_gpkg(path):
    """(x, y) of every tree row committed to the visit GeoPackage (its geometry blobs)."""
    from fieldapp.store.schema import parse_gpkg_blob

    with st_connect(f"file:{path}?mode=ro", uri=True) as conn:
        blobs = [r[0] for r in conn.execute('SELECT geom FROM "tree"')]
    return [(p.x, p.y) for p in map(parse_gpkg_blob, blobs)]


def scenario_ring_sqft(w, ring):
    """Area of a scenario ring ([lat, lon] ...) in the visit's own site frame (sq ft)."""
    from shapely.geometry import Polygon

    frame = w.visit.model.frame
    return frame.area_sqft(Polygon([frame.to_local(lon, lat) for lat, lon in ring]))


def walk_scenario_boundary(qtbot, w, kind, label, **wetland):
    """Boundary tab, ``kind``, Start walk: the simulated surveyor walks the scenario boundary
    and stops back at the start; then Close boundary."""
    wait_fix(qtbot, w)
    key(qtbot, w, "Ctrl+4")
    panel = w.panels["boundary"]
    panel.kind.setCurrentIndex(panel.kind.findData(kind))
    panel.label.setText(label)
    if wetland:
        panel.wetland_type.setCurrentText(wetland["wetland_type"])
        panel.standing_water.setChecked(True)
        panel.hydric.setChecked(True)
    panel.spacing.setValue(5.0)
    key(qtbot, w, "W")
    qtbot.waitUntil(lambda: w.visit.walk is not None, timeout=WAIT_MS)
    walker = w.sim_surveyor
    qtbot.waitUntil(lambda: not walker.busy, timeout=WAIT_MS)
    assert "back at the start" in walker.words
    qtbot.waitUntil(lambda: "sq ft" in panel.measures.text(), timeout=WAIT_MS)
    key(qtbot, w, "Ctrl+L")
    qtbot.waitUntil(lambda: w.visit.last_closed_area is not None and w.visit.walk is None,
                    timeout=WAIT_MS)
    return panel, w.visit.last_closed_area


def test_walked_wetland_closes_at_the_scenario_area_with_its_verdict(qtbot, private_dirs):
    from fieldapp.ui import simsupport

    sc = simsupport.load_scenario()
    w = make_window(qtbot, private_dirs, simulate=True, time_scale=10.0, rate_hz=10.0)
    try:
        panel, area = walk_scenario_boundary(qtbot, w, "wetland", "Wetland A",
                                             wetland_type="shallow marsh")
        # The demo wetland is a 16-gon inscribed in an ellipse of semi-axes 72 x 55 ft:
        # 8 * 72 * 55 * sin(22.5 deg) = 12,122 sq ft. The surveyor takes a vertex at every
        # corner, so the walked polygon is that 16-gon up to the RTK noise (~1 cm).
        expected = scenario_ring_sqft(w, sc["wetland"]["boundary"])
        assert expected == pytest.approx(12_122, rel=0.01)
        assert area["area_sqft"] == pytest.approx(expected, rel=0.02)
        assert f"{area['area_sqft']:,.0f} sq ft" in panel.measures.text()
        qtbot.waitUntil(lambda: "Ordinance wetland" in panel.verdict.text(), timeout=WAIT_MS)
        size = evaluate({"rule": "wetland.size", "input": {
            "area_sqft": area["area_sqft"], "periodic_standing_water": True,
            "hydric_vegetation": True}})
        assert size["is_ordinance_wetland"] is True
        assert "Ordinance wetland: YES" in panel.verdict.text()
        assert "Protective area" in panel.verdict.text()
        assert stored_count(w.visit.path, "area_feature") == 1
        statuses = {c.check_id.split(":")[0]: c.status for c in w.visit.checks.all()}
        assert statuses["wetland"] == "determined"
        # another kind chosen: the wetland's name, area and verdict are no longer shown as if
        # they were the stand's, and the Label example follows the kind
        assert panel.state.text().startswith("Closed: Wetland A")
        assert panel.label.placeholderText() == "e.g. Wetland A"
        panel.kind.setCurrentIndex(panel.kind.findData("woodland_stand"))
        assert "Closed" not in panel.state.text()
        assert "woodland stand" in panel.state.text()
        assert panel.measures.text() == "" and panel.verdict.text() == ""
        assert panel.label.placeholderText() == "e.g. Oak stand"
        w.refresh_from_model()      # a later refresh does not bring the wetland back
        assert "Closed" not in panel.state.text() and panel.measures.text() == ""
    finally:
        close_window(w)


def test_tally_in_simulate_mode_measures_each_scenario_tree_where_it_stands(qtbot,
                                                                           private_dirs):
    from fieldapp.ui import simsupport

    sc = simsupport.load_scenario()
    scripted = sc["stand"]["trees"]
    w = make_window(qtbot, private_dirs, simulate=True, time_scale=15.0, rate_hz=10.0)
    try:
        _panel, stand = walk_scenario_boundary(qtbot, w, "woodland_stand", "Stand 1")
        # The demo stand is 210 x 220 ft = 46,200 sq ft (devices/sim/demo_scenario.py).
        assert stand["area_sqft"] == pytest.approx(46_200, rel=0.02)
        key(qtbot, w, "Ctrl+3")
        tally = w.panels["tally"]
        qtbot.waitUntil(tally.squeeze_button.isVisible, timeout=WAIT_MS)
        for n in range(1, len(scripted) + 1):
            key(qtbot, w, "C")
            qtbot.waitUntil(lambda n=n: len(w.visit.trees()) == n, timeout=WAIT_MS)
        trees = w.visit.trees()
        # each tree as scripted: DBH, species, the crown radius from the scenario, and the
        # position of that tree (RTK fixed: within 0.5 ft)
        for t, s in zip(trees, scripted, strict=True):
            assert t.dbh_in == pytest.approx(s["dbh_in"], abs=0.05)
            assert t.species_name == s["common_name"]
            assert t.crown_radius_ft == pytest.approx(s["crown_radius_ft"])
            x, y = w.visit.project(*s["position"])
            tx, ty = w.visit.ft(t.x, t.y)
            assert math.hypot(tx - x, ty - y) < 0.5
        # stored in the GeoPackage at 25 distinct positions
        points = tree_points_in_gpkg(w.visit.path)
        assert len(points) == len(scripted)
        assert len({(round(x, 1), round(y, 1)) for x, y in points}) == len(scripted)
        # the class the rule gives for the scenario's stand: mature by canopy (the >= 10 in
        # crowns, 3 + 0.8 DBH ft, cover about 44 % of the stand; >= 34 % with a deciduous
        # share over 50 % is mature, Decorah resource protection, Woodlands A.1)
        expected = evaluate({"rule": "woodland.class",
                             "input": R.woodland_input(w.visit.model, stand["uuid"])})
        assert expected["class"] == "mature" and expected["basis"] == "canopy"
        assert 40.0 < expected["canopy_10in_pct"] < 48.0
        # provisional until the crew marks the tally complete, then the class
        qtbot.waitUntil(lambda: "Woodland class: provisional — 25 trees so far"
                        in tally.summary.text(), timeout=WAIT_MS)
        from fieldapp.app.tallyreview import tally_gaps

        assert tally_gaps(w.visit, tally.expected_trees()) == []   # all 25: no question (issue 35 item 10)
        tally.complete.click()
        qtbot.waitUntil(lambda: "Woodland class: MATURE" in tally.summary.text(),
                        timeout=WAIT_MS)
        check = w.visit.checks.get(f"woodland:{stand['uuid']}")
        assert check.result["class"] == "mature"
        # delete the second tree, then undo
        tally.table.selectRow(1)
        key(qtbot, w, "Del")
        qtbot.waitUntil(lambda: len(w.visit.trees()) == len(scripted) - 1, timeout=WAIT_MS)
        qtbot.waitUntil(tally.undo_button.isEnabled, timeout=WAIT_MS)
        key(qtbot, w, "Ctrl+Z")
        qtbot.waitUntil(lambda: len(w.visit.trees()) == len(scripted), timeout=WAIT_MS)
        assert stored_count(w.visit.path, "tree") == len(scripted)
    finally:
        close_window(w)


def test_simulated_surveyor_walks_to_the_ohwm_points_and_the_transect_origin(qtbot,
                                                                              private_dirs):
    from fieldapp.ui import simsupport

    sc = simsupport.load_scenario()
    tour = simsupport.ohwm_tour(sc)
    # the demo's OHWM point nearest the transect origin is the origin itself (offset 0, 0)
    assert tour[0] == sc["transect"]["start"]
    w = make_window(qtbot, private_dirs, simulate=True, time_scale=10.0, rate_hz=10.0)
    try:
        wait_fix(qtbot, w)
        qtbot.waitUntil(lambda: getattr(w, "sim_surveyor", None) is not None, timeout=WAIT_MS)
        walker = w.sim_surveyor

        def app_fix_near(latlon, ft=1.0):
            fix = w.usable_fix()
            if fix is None:
                return False
            x, y = w.visit.project(*latlon)
            fx, fy = w.visit.project(fix.lat_deg, fix.lon_deg)
            return math.hypot(fx - x, fy - y) < ft

        average_point(qtbot, w)  # at the start: the transect origin
        qtbot.waitUntil(lambda: walker.busy, timeout=WAIT_MS)  # walks on to the next point
        assert walker.steps[0].target == tour[1]
        # While it walks, Average point is disabled with the reason shown (the receiver moves:
        # a point averaged now would mix positions); the key does nothing.
        panel = w.panels["ohwm"]
        assert not panel.average_button.isEnabled()
        assert panel.wait_label.text() == ("Average point and offset point wait: walking to OHWM"
                                              " point 2…")
        assert "walking to OHWM point 2…" in panel.average_button.toolTip()
        key(qtbot, w, "A")
        assert panel.collecting is None
        qtbot.waitUntil(lambda: not walker.busy, timeout=WAIT_MS)
        qtbot.waitUntil(lambda: app_fix_near(tour[1]), timeout=WAIT_MS)
        assert "press Average point" in walker.words
        assert panel.wait_label.text() == "" and panel.wait_label.isHidden()
        assert len(w.visit.ohwm_points()) == 1  # the A pressed while walking recorded nothing
        # arrived: averaging is allowed again and the point lands on the scenario's point 2
        # (RTK fixed: within 0.5 ft)
        average_point(qtbot, w, n=2)
        p2 = w.visit.ohwm_points()[1]
        x, y = w.visit.project(*tour[1])
        px, py = w.visit.ft(p2.x, p2.y)
        assert math.hypot(px - x, py - y) < 0.5
        key(qtbot, w, "Ctrl+2")  # back to the transect origin, the azimuth typed
        qtbot.waitUntil(lambda: walker.busy or app_fix_near(sc["transect"]["start"]),
                        timeout=WAIT_MS)
        qtbot.waitUntil(lambda: not walker.busy, timeout=WAIT_MS)
        qtbot.waitUntil(lambda: app_fix_near(sc["transect"]["start"]), timeout=WAIT_MS)
        assert w.panels["transect"].azimuth.value() == pytest.approx(350.0)
    finally:
        close_window(w)


def test_stipulated_bank_box_sets_the_transect_and_the_bank_verdict(qtbot, private_dirs):
    w = make_window(qtbot, private_dirs, simulate=True, time_scale=10.0, rate_hz=10.0)
    try:
        average_point(qtbot, w)
        # OHWM points are numbered from 1 where the user sees them (the model's seq is 0)
        ohwm = w.panels["ohwm"]
        assert w.visit.ohwm_points()[0].seq == 0
        qtbot.waitUntil(lambda: ohwm.table.rowCount() == 1, timeout=WAIT_MS)  # refresh timer
        assert ohwm.table.item(0, 0).text() == "1"
        key(qtbot, w, "Ctrl+2")
        panel = w.panels["transect"]
        qtbot.waitUntil(lambda: panel.origin.count() == 1, timeout=WAIT_MS)
        assert panel.origin.currentText() == "Point 1"
        assert not panel.stipulated.isEnabled()          # no transect yet
        surveyor_at_transect_origin(qtbot, w)
        panel.azimuth.setValue(350.0)
        key(qtbot, w, "N")
        qtbot.waitUntil(lambda: w.visit.current_transect is not None, timeout=WAIT_MS)
        t = w.visit.current_transect
        assert panel.stipulated.isEnabled()  # at once, not after the deferred refresh
        assert not panel.stipulated.isChecked() and t.stipulated is False
        # no station, not stipulated: no bank check yet
        assert w.visit.checks.get(f"bank:{t.uuid}") is None
        # keyboard: Alt+S (the box's mnemonic) ticks it
        key(qtbot, w, "Alt+S")
        qtbot.waitUntil(lambda: w.visit.current_transect.stipulated is True, timeout=WAIT_MS)
        assert panel.stipulated.isChecked()
        # the rule's stipulated result: a landowner's stipulation on a non-priority waterway
        # gives 300 ft, NR 341.035(2)(c)1., no slope survey needed (computed by the rule
        # from the same request the checks panel shows)
        expected = evaluate({"rule": "nr341.bank", "input": {"priority": False, "segments": [],
                                                              "stipulated": True}})
        assert expected["status"] == "determined" and expected["basis"] == "stipulation"
        assert expected["bank_ft"] == pytest.approx(300.0)
        qtbot.waitUntil(lambda: w.checks_panel.row_of(f"bank:{t.uuid}") >= 0, timeout=WAIT_MS)
        row = w.checks_panel.row_of(f"bank:{t.uuid}")
        assert w.checks_panel.table.item(row, 1).text() == "determined"
        assert w.checks_panel.table.item(row, 2).text() == "Bank 300.0 ft (stipulation)"
        assert w.checks_panel.table.item(row, 3).text() == expected["citation"]
        assert "(2)(c)" in expected["citation"]
        assert panel.state.text().startswith("Bank 300.0 ft — determined (stipulation)")
        w.checks_panel.table.selectRow(row)
        assert "  stipulated: yes" in w.checks_panel.details.toPlainText()
        # stored in the GeoPackage
        with st_connect(f"file:{w.visit.path}?mode=ro", uri=True) as conn:
            stored = conn.execute('SELECT stipulated FROM "transect" WHERE uuid = ?',
                                  (t.uuid,)).fetchone()[0]
        assert stored == 1
        # a slope survey after it does not change a stipulated bank (the 10 scripted shots:
        # 120 ft by slope, but the stipulation stands)
        qtbot.waitUntil(lambda: not panel.shoot_button.isHidden(), timeout=WAIT_MS)
        for n in range(1, 4):
            key(qtbot, w, "S")
            qtbot.waitUntil(lambda n=n: len(w.visit.stations()) == n, timeout=WAIT_MS)
        qtbot.waitUntil(lambda: w.visit.bank_check().result.get("bank_ft") == 300.0,
                        timeout=WAIT_MS)
        # cleared from the keyboard (focus and Space): the slope verdict comes back
        panel.stipulated.setFocus()
        key(qtbot, w.focusWidget() or w, "Space")
        qtbot.waitUntil(lambda: w.visit.current_transect.stipulated is False, timeout=WAIT_MS)
        qtbot.waitUntil(lambda: w.visit.bank_check().result.get("basis") != "stipulation",
                        timeout=WAIT_MS)
        with st_connect(f"file:{w.visit.path}?mode=ro", uri=True) as conn:
            assert conn.execute('SELECT stipulated FROM "transect"').fetchone()[0] == 0
    finally:
        close_window(w)


def test_transect_controls_are_usable_the_moment_their_transect_or_station_exists(
        qtbot, private_dirs):
    """No wait for the panel's deferred refresh: Start transect enables Add station and the
    Stipulated box at once; a typed station enables Remove last station and Complete
    interruption at once, and removing it disables them again."""
    w = make_window(qtbot, private_dirs, simulate=True)
    try:
        average_point(qtbot, w)
        key(qtbot, w, "Ctrl+2")
        panel = w.panels["transect"]
        qtbot.waitUntil(lambda: panel.origin.count() == 1, timeout=WAIT_MS)
        assert not panel.add_button.isEnabled() and not panel.stipulated.isEnabled()
        panel.start_button.click()
        assert w.visit.current_transect is not None
        assert panel.add_button.isEnabled() and panel.stipulated.isEnabled()
        assert not panel.undo_button.isEnabled() and not panel.interrupt_button.isEnabled()
        panel.dist.setValue(20.0)
        panel.slope.setValue(4.0)
        panel.add_button.click()
        assert len(w.visit.stations()) == 1
        assert panel.undo_button.isEnabled() and panel.interrupt_button.isEnabled()
        panel.undo_button.click()
        assert w.visit.stations() == []
        assert not panel.undo_button.isEnabled() and not panel.interrupt_button.isEnabled()
    finally:
        close_window(w)


def test_panel_reads_the_bank_figures_from_the_rule():
    """The transect panel's figures: the result's own, else NR 341.035(1)(a)/(1)(b) from the
    rule's table; the Stipulated box cites (2)(c), the paragraph of both 300 and 500 ft."""
    from fieldapp.ui.workflows.transect import bank_figures, stipulation_paragraph

    assert bank_figures(None, False) == (75.0, 12.0)
    assert bank_figures(None, True) == (300.0, 10.0)
    result = evaluate({"rule": "nr341.bank", "input": {"priority": True, "segments": []}})
    assert bank_figures(result, False) == (300.0, 10.0)
    assert bank_figures({"status": "error", "message": "x"}, False) == (75.0, 12.0)
    assert stipulation_paragraph() == "NR 341.035(2)(c)"


def test_walk_and_tally_controls_are_usable_the_moment_their_state_changes(qtbot, private_dirs):
    """Same as the transect: no wait for the deferred refresh. Start walk enables Pause and
    Close at once (a kind the demo scenario has no boundary for, so the walk starts here and
    now); Pause enables Resume; a deleted tree enables Undo at once."""
    from fieldapp.survey import AreaKind

    w = make_window(qtbot, private_dirs, simulate=True)
    try:
        wait_fix(qtbot, w)
        key(qtbot, w, "Ctrl+4")
        panel = w.panels["boundary"]
        panel.kind.setCurrentIndex(panel.kind.findData(AreaKind.DISTURBED.value))
        assert not panel.pause_button.isEnabled() and not panel.close_button.isEnabled()
        panel.start_button.click()
        assert w.visit.walk is not None
        assert panel.pause_button.isEnabled() and panel.close_button.isEnabled()
        assert not panel.resume_button.isEnabled() and not panel.kind.isEnabled()
        panel.pause_button.click()
        assert panel.resume_button.isEnabled() and not panel.pause_button.isEnabled()
        panel.resume_button.click()
        assert panel.pause_button.isEnabled() and not panel.resume_button.isEnabled()

        key(qtbot, w, "Ctrl+3")
        tally = w.panels["tally"]
        tally.dbh.setValue(12.0)
        tally.add_button.click()
        assert len(w.visit.trees()) == 1, tally.state.text()
        qtbot.waitUntil(lambda: tally.table.rowCount() == 1, timeout=WAIT_MS)
        tally.table.selectRow(0)
        assert not tally.undo_button.isEnabled()
        tally.delete_button.click()
        assert w.visit.trees() == []
        assert tally.undo_button.isEnabled()
    finally:
        close_window(w)
