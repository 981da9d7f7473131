"""The README's --simulate walkthrough with the pty backend switched off: the simulators serve
socket:// on loopback and the app connects to those -- the path a Windows laptop takes
(issue 15 item 13)."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from fieldapp.checks import requests as R
from fieldapp.rules import evaluate
from tests.ui.test_ui_workflows import (
    average_point,
    stored_count,
    surveyor_at_transect_origin,
    walk_scenario_boundary,
)
from tests.ui.ui_support import WAIT_MS, close_window, key, make_window


def test_simulate_walkthrough_over_tcp_without_ptys(qtbot, private_dirs, monkeypatch):
    from devices.sim.endpoint import PTY_ENV, TcpEndpoint
    from fieldapp.ui import simsupport

    monkeypatch.setenv(PTY_ENV, "0")
    sc = simsupport.load_scenario()
    w = make_window(qtbot, private_dirs, simulate=True, time_scale=15.0, rate_hz=10.0)
    try:
        # every simulator is a TCP server on loopback and the app opened exactly those URLs
        qtbot.waitUntil(lambda: w.session.gnss is not None, timeout=WAIT_MS)
        ports = w.session.sim_ports
        assert set(ports) == {"gnss", "rangefinder", "caliper"}
        assert all(url.startswith("socket://127.0.0.1:") for url in ports.values()), ports
        assert all(isinstance(s.endpoint, TcpEndpoint) for s in w.session.simulators)
        assert w.session.gnss.settings.url == ports["gnss"]
        # 1. status strip: the receiver's fix arrives over the socket
        qtbot.waitUntil(lambda: w.status_strip.device_state("gnss") == "connected",
                        timeout=WAIT_MS)
        # 2. OHWM: one averaged point
        average_point(qtbot, w)
        # 3. transect: ten rangefinder shots over TCP, the bank determined at 120 ft
        key(qtbot, w, "Ctrl+2")
        panel = w.panels["transect"]
        surveyor_at_transect_origin(qtbot, w)
        key(qtbot, w, "N")
        qtbot.waitUntil(lambda: w.visit.current_transect is not None, timeout=WAIT_MS)
        qtbot.waitUntil(panel.shoot_button.isVisible, timeout=WAIT_MS)
        for n in range(1, 11):
            key(qtbot, w, "S")
            qtbot.waitUntil(lambda n=n: len(w.visit.stations()) == n, timeout=WAIT_MS)
        qtbot.waitUntil(lambda: "determined" in panel.state.text(), timeout=WAIT_MS)
        assert panel.state.text().startswith("Bank 120.0 ft — determined")
        t = w.visit.current_transect
        bank = evaluate({"rule": "nr341.bank", "input": R.bank_input(w.visit.model, t.uuid)})
        assert bank["bank_ft"] == pytest.approx(120.0, abs=0.05)
        # 4. the stand walked and closed (the demo stand is 210 x 220 ft = 46,200 sq ft)
        _boundary, stand = walk_scenario_boundary(qtbot, w, "woodland_stand", "Stand 1")
        assert stand["area_sqft"] == pytest.approx(46_200, rel=0.02)
        # 5. tally: caliper squeezes over TCP, each tree's scripted DBH
        key(qtbot, w, "Ctrl+3")
        tally = w.panels["tally"]
        qtbot.waitUntil(tally.squeeze_button.isVisible, timeout=WAIT_MS)
        scripted = sc["stand"]["trees"][:3]
        for n in range(1, len(scripted) + 1):
            key(qtbot, w, "C")
            qtbot.waitUntil(lambda n=n: len(w.visit.trees()) == n, timeout=WAIT_MS)
        assert [t.dbh_in for t in w.visit.trees()] == pytest.approx(
            [s["dbh_in"] for s in scripted], abs=0.05)
        # stored in the GeoPackage
        path = w.visit.path
        assert (stored_count(path, "ohwm_point"), stored_count(path, "station"),
                stored_count(path, "tree")) == (1, 10, 3)
        # unplug / replug over TCP: the reader reconnects to the same socket:// URL
        gnss = w.session.simulator("gnss")
        gnss.unplug()
        qtbot.waitUntil(lambda: w.status_strip.device_state("gnss") == "disconnected",
                        timeout=WAIT_MS)
        gnss.replug()
        qtbot.waitUntil(lambda: w.status_strip.device_state("gnss") == "connected",
                        timeout=WAIT_MS)
        qtbot.waitUntil(lambda: w.usable_fix() is not None, timeout=WAIT_MS)
    finally:
        close_window(w)
