"""The --simulate demo: scripted fix events only where asked, and a caliper squeeze pressed
while the simulated surveyor walks is queued (not ignored)."""

from __future__ import annotations

import math

import pytest

from tests.ui.ui_support import WAIT_MS, close_window, key, make_window


def test_demo_scenario_shows_float_and_dropout_in_the_first_minute():
    from fieldapp.ui import simsupport

    gnss = simsupport.load_scenario()["devices"]["gnss"]
    # devices/sim/demo_scenario.py: RTK float 15-30 s, no fix 40-45 s (README step 1)
    assert [(e["at_s"], e["quality"]) for e in gnss["quality_schedule"]] == [
        (15, "rtk_float"), (30, "rtk_fixed")]
    assert gnss["dropouts"] == [{"at_s": 40, "duration_s": 5, "mode": "nofix"}]


@pytest.mark.parametrize("env, expected", [("1", True), ("0", False), ("", False)])
def test_scripted_events_follow_the_environment(qapp, monkeypatch, env, expected):
    from fieldapp.ui import simsupport

    # offscreen Qt platform in the tests: without the variable the demo keeps a steady fix
    monkeypatch.setenv("FIELDAPP_SIM_EVENTS", env)
    assert simsupport.scripted_events_wanted() is expected


def test_start_demo_steady_or_scripted():
    from devices.sim import factory as simsupport

    for scripted, schedule, drops in ((False, [], []), (True, [15, 30], [40])):
        ports, sims, _sc = simsupport.start_demo(scripted_events=scripted)
        try:
            gnss = simsupport.find(sims, "gnss")
            assert [e["at_s"] for e in gnss.quality_schedule] == schedule
            assert [d["at_s"] for d in gnss.dropouts] == drops
            # steady: RTK fixed at the dropout time; scripted: float at 20 s, no fix at 42 s
            assert gnss.quality_at(20.0) == ("rtk_float" if scripted else "rtk_fixed")
            assert (gnss.dropout_at(42.0) is not None) is scripted
        finally:
            for s in sims:
                s.stop()


def test_squeezes_pressed_while_walking_are_queued(qtbot, private_dirs):
    from fieldapp.ui import simsupport

    sc = simsupport.load_scenario()
    scripted = sc["stand"]["trees"][:3]
    w = make_window(qtbot, private_dirs, simulate=True, time_scale=10.0, rate_hz=10.0)
    try:
        qtbot.waitUntil(lambda: w.usable_fix() is not None, timeout=WAIT_MS)
        key(qtbot, w, "Ctrl+3")
        tally = w.panels["tally"]
        qtbot.waitUntil(tally.squeeze_button.isVisible, timeout=WAIT_MS)
        walker = w._surveyor()
        assert walker.speed_m_s == pytest.approx(5.0)  # 5 x the scenario's 1 m/s
        # three presses at once: the first walks, the other two are queued behind it
        for _ in range(3):
            key(qtbot, w, "C")
        assert len(walker.steps) == 3
        assert "2 more tree(s) queued" in walker.words
        qtbot.waitUntil(lambda: len(w.visit.trees()) == 3, timeout=WAIT_MS)
        qtbot.waitUntil(lambda: not walker.busy and walker.mode is None, timeout=WAIT_MS)
        # each tree recorded where the scenario puts it (RTK fixed: within 0.5 ft), in order
        for t, s in zip(w.visit.trees(), scripted, strict=True):
            assert t.dbh_in == pytest.approx(s["dbh_in"], abs=0.05)
            assert t.crown_radius_ft == pytest.approx(s["crown_radius_ft"])
            x, y = w.visit.project(*s["position"])
            tx, ty = w.visit.ft(t.x, t.y)
            assert math.hypot(tx - x, ty - y) < 0.5
    finally:
        close_window(w)
