"""Each workflow driven end to end with keys and clicks over simulated devices on ptys;
what is stored in the GeoPackage and what the checks panel shows."""

from __future__ import annotations

import sqlite3

import pytest

pytest.importorskip("pytestqt")

from fieldapp.rules import evaluate  # noqa: E402
from tests.ui_support import (  # noqa: E402,F401
    WAIT_MS, close_window, key, make_window, private_dirs, wait_fix,
)


def stored_count(path, table: str) -> int:
    """Rows committed to the visit's GeoPackage (read through SQLite, WAL included)."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        return conn.execute(f'SELECT COUNT(*) FROM "{table}"').fetchone()[0]


def average_point(qtbot, w, epochs=3):
    wait_fix(qtbot, w)
    key(qtbot, w, "Ctrl+1")
    w.panels["ohwm"].epochs.setValue(epochs)
    key(qtbot, w, "A")
    qtbot.waitUntil(lambda: len(w.visit.ohwm_points()) == 1, timeout=WAIT_MS)


def test_transect_over_demo_bank_is_determined(qtbot, private_dirs):
    w = make_window(qtbot, private_dirs, simulate=True)
    try:
        average_point(qtbot, w)
        key(qtbot, w, "Ctrl+2")
        panel = w.panels["transect"]
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
        request = {"rule": "nr341.bank", "input": w.visit.model.bank_input(t.uuid)}
        assert evaluate(request)["bank_ft"] == pytest.approx(120.0, abs=0.05)
        # The panel shows the same verdict with its citation.
        qtbot.waitUntil(lambda: w.checks_panel.table.rowCount() >= 1, timeout=WAIT_MS)
        row = w.checks_panel.row_of(f"bank:{t.uuid}")
        assert w.checks_panel.table.item(row, 1).text() == "determined"
        assert w.checks_panel.table.item(row, 3).text() == "NR 341.035(1)(a)"
        w.checks_panel.table.selectRow(row)
        assert '"rule": "nr341.bank"' in w.checks_panel.details.toPlainText()
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


def test_walked_wetland_shows_area_and_verdict(qtbot, private_dirs):
    from fieldapp.ui import simsupport

    boundary = simsupport.load_scenario()["wetland"]["boundary"]
    w = make_window(qtbot, private_dirs, simulate=True, waypoints=boundary, time_scale=4.0,
                    rate_hz=10.0)
    try:
        wait_fix(qtbot, w)
        key(qtbot, w, "Ctrl+4")
        panel = w.panels["boundary"]
        panel.kind.setCurrentIndex(panel.kind.findData("wetland"))
        panel.label.setText("Wetland A")
        panel.wetland_type.setText("shallow marsh")
        panel.standing_water.setChecked(True)
        panel.hydric.setChecked(True)
        panel.spacing.setValue(5.0)
        key(qtbot, w, "W")
        qtbot.waitUntil(lambda: w.visit.walk is not None, timeout=WAIT_MS)
        gnss = w.session.simulator("gnss")
        # walk until the simulated walker has gone round (the path ends where it began)
        qtbot.waitUntil(lambda: len(w.visit.walk.vertices()) >= 12 and
                        gnss.path.position(gnss._n / gnss.rate_hz * gnss.time_scale)[3] == 0,
                        timeout=WAIT_MS)
        qtbot.waitUntil(lambda: "sq ft" in panel.measures.text(), timeout=WAIT_MS)
        key(qtbot, w, "Ctrl+L")
        qtbot.waitUntil(lambda: w.visit.last_closed_area is not None, timeout=WAIT_MS)
        area = w.visit.last_closed_area
        # The demo wetland is an ellipse of semi-axes 72 x 55 ft: pi*72*55 = 12,441 sq ft;
        # walked with 5 ft vertices on 16 chords it is a little less.
        assert 10_000 < area["area_sqft"] < 12_441
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
    finally:
        close_window(w)


def test_tally_gives_the_class_the_rule_gives(qtbot, private_dirs):
    from fieldapp.ui import simsupport

    stand = simsupport.load_scenario()["stand"]["boundary"]
    w = make_window(qtbot, private_dirs, simulate=True, waypoints=stand, time_scale=15.0,
                    rate_hz=10.0)
    try:
        wait_fix(qtbot, w)
        key(qtbot, w, "Ctrl+4")
        b = w.panels["boundary"]
        b.kind.setCurrentIndex(b.kind.findData("woodland_stand"))
        b.label.setText("Stand 1")
        key(qtbot, w, "W")
        qtbot.waitUntil(lambda: w.visit.walk is not None, timeout=WAIT_MS)
        gnss = w.session.simulator("gnss")
        qtbot.waitUntil(lambda: len(w.visit.walk.vertices()) >= 8 and
                        gnss.path.position(gnss._n / gnss.rate_hz * gnss.time_scale)[3] == 0,
                        timeout=WAIT_MS)
        key(qtbot, w, "Ctrl+L")
        qtbot.waitUntil(lambda: bool(w.visit.areas("woodland_stand")), timeout=WAIT_MS)
        key(qtbot, w, "Ctrl+3")
        tally = w.panels["tally"]
        tally.crown.setValue(12.0)
        qtbot.waitUntil(tally.squeeze_button.isVisible, timeout=WAIT_MS)
        for n in range(1, 6):
            key(qtbot, w, "C")
            qtbot.waitUntil(lambda n=n: len(w.visit.trees()) == n, timeout=WAIT_MS)
        # the demo tally's first trees: bur oak 26.4 in, sugar maple 14.2, red oak 21.8 ...
        assert [t.dbh_in for t in w.visit.trees()][:3] == pytest.approx([26.4, 14.2, 21.8],
                                                                         abs=0.05)
        # delete the second tree, then undo
        tally.table.selectRow(1)
        key(qtbot, w, "Del")
        qtbot.waitUntil(lambda: len(w.visit.trees()) == 4, timeout=WAIT_MS)
        qtbot.waitUntil(tally.undo_button.isEnabled, timeout=WAIT_MS)
        key(qtbot, w, "Ctrl+Z")
        qtbot.waitUntil(lambda: len(w.visit.trees()) == 5, timeout=WAIT_MS)
        assert stored_count(w.visit.path, "tree") == 5
        stand_area = w.visit.areas("woodland_stand")[0]
        expected = evaluate({"rule": "woodland.class",
                             "input": w.visit.model.woodland_input(stand_area.uuid)})
        qtbot.waitUntil(lambda: "Woodland class" in tally.summary.text(), timeout=WAIT_MS)
        assert f"Woodland class: {expected['class'].upper()}" in tally.summary.text()
        check = w.visit.checks.get(f"woodland:{stand_area.uuid}")
        assert check.result["class"] == expected["class"]
    finally:
        close_window(w)
