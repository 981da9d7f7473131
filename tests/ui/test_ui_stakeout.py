"""The Stake-out panel over the simulated receiver: walk away from OHWM point 1 and back,
the distance on the panel follows each fix, ON THE LINE at the point, F flags it (stored)."""

from __future__ import annotations

import sqlite3

import pytest

pytest.importorskip("pytestqt")

from shapely.geometry import Point

from tests.ui.test_ui_workflows import average_point
from tests.ui.ui_support import WAIT_MS, close_window, key, make_window


def test_stakeout_panel_walks_to_a_recorded_point_and_flags_it(qtbot, private_dirs):
    w = make_window(qtbot, private_dirs, simulate=True)
    try:
        average_point(qtbot, w)
        p = w.visit.ohwm_points()[0]
        key(qtbot, w, "Ctrl+6")
        panel = w.panels["stake-out"]
        assert w.tabs.currentWidget() is panel
        i = panel.target_box.findData(f"point:ohwm_point:{p.uuid}")
        assert i > 0
        # no target yet: Flag here is off, and F says what to do
        assert panel.target_box.currentData() is None and not panel.flag_button.isEnabled()
        key(qtbot, w, "F")
        assert w.key_legend.text() == "Flag here [F] refused: choose a target first."
        assert w.visit.model.stake_points() == []
        panel.target_box.setCurrentIndex(i)
        panel.tolerance.setValue(0.5)
        gnss = w.session.simulator("gnss")
        f = w.visit.model.frame
        lon, lat = f.to_lonlat(p.x + f.from_ft(40.0), p.y)        # 40 ft east of the point
        gnss.walk_to(float(lat), float(lon))
        qtbot.waitUntil(lambda: panel.stake.guidance is not None
                        and panel.stake.guidance.distance_ft > 35.0, timeout=WAIT_MS)
        g = panel.stake.guidance
        fix = panel.stake._last[0]
        x, y = f.to_local(fix.lon_deg, fix.lat_deg)
        ref = Point(f.to_ft(p.x), f.to_ft(p.y)).distance(Point(f.to_ft(x), f.to_ft(y)))
        assert g.distance_ft == pytest.approx(ref, abs=0.01)
        assert panel.distance.text() == f"{g.distance_ft:,.2f} ft"
        assert panel.on_line.text() == "not on the line"
        lon, lat = f.to_lonlat(p.x, p.y)
        gnss.walk_to(float(lat), float(lon))
        qtbot.waitUntil(lambda: panel.on_line.text() == "ON THE LINE" and gnss.arrived,
                        timeout=WAIT_MS)
        qtbot.waitUntil(panel.flag_button.isEnabled, timeout=WAIT_MS)
        key(qtbot, w, "F")          # Flag here on this panel (Follow me elsewhere)
        qtbot.waitUntil(lambda: len(w.visit.model.stake_points()) == 1, timeout=WAIT_MS)
        (sp,) = w.visit.model.stake_points()
        assert sp.target_key == f"point:ohwm_point:{p.uuid}" and 0.0 <= sp.offset_ft <= 0.5
        assert panel.flag_list.count() == 1 and "within ±0.5" in panel.flag_list.item(0).text()
        with sqlite3.connect(f"file:{w.visit.path}?mode=ro", uri=True) as conn:
            assert conn.execute("SELECT count(*) FROM stake_point").fetchone()[0] == 1
        follow = w.map.follow
        key(qtbot, w, "Ctrl+1")
        key(qtbot, w, "F")          # elsewhere F is still Follow me
        assert w.map.follow is (not follow) and len(w.visit.model.stake_points()) == 1
    finally:
        close_window(w)


def test_a_hidden_stake_out_panel_rebuilds_no_targets_and_shows_the_current_ones(qtbot, private_dirs,
                                                                              monkeypatch):
    """Fixes and model changes while another tab is shown build no stake-out target at all
    (no flags, no target chosen); showing the panel lists the targets as they are now (a note
    placed while it was hidden is there) and gives the live distance again."""
    from PySide6.QtWidgets import QApplication

    import fieldapp.app.stakeout as so_mod

    built = []
    real = so_mod.targets
    monkeypatch.setattr(so_mod, "targets", lambda v, keys=None: (built.append(keys), real(v, keys))[1])
    w = make_window(qtbot, private_dirs, simulate=True)
    try:
        average_point(qtbot, w)
        key(qtbot, w, "Ctrl+1")
        panel = w.panels["stake-out"]
        assert not panel.isVisible()
        refreshed = []
        real_refresh = panel.refresh
        panel.refresh = lambda: (refreshed.append(1), real_refresh())
        built.clear()
        start = w.fix_count
        qtbot.waitUntil(lambda: w.fix_count >= start + 10, timeout=WAIT_MS)
        f = w.visit.model.frame
        p = w.visit.ohwm_points()[0]
        note = w.visit.model.add_note("flag the oak", x=p.x + f.from_ft(25.0), y=p.y)
        qtbot.waitUntil(lambda: len(refreshed) >= 1, timeout=WAIT_MS)     # the model refresh ran
        start = w.fix_count
        qtbot.waitUntil(lambda: w.fix_count >= start + 10, timeout=WAIT_MS)
        assert built == []                                  # hidden: no target built per fix
        assert panel.stake.guidance is None
        key(qtbot, w, "Ctrl+6")
        qtbot.waitUntil(lambda: built != [], timeout=WAIT_MS)
        QApplication.processEvents()                         # anything queued by the show
        assert panel.isVisible() and built == [None]         # shown: the full list, once
        i = panel.target_box.findData(f"point:note:{note.uuid}")
        assert i > 0 and panel.target_box.itemText(i) == "Note: flag the oak"
        assert panel.target_box.findData(f"point:ohwm_point:{p.uuid}") > 0
        panel.target_box.setCurrentIndex(i)
        qtbot.waitUntil(lambda: panel.stake.guidance is not None, timeout=WAIT_MS)
        fix = panel.stake._last[0]
        x, y = f.to_local(fix.lon_deg, fix.lat_deg)
        ref = Point(f.to_ft(p.x) + 25.0, f.to_ft(p.y)).distance(Point(f.to_ft(x), f.to_ft(y)))
        assert panel.stake.guidance.distance_ft == pytest.approx(ref, abs=0.01)
    finally:
        close_window(w)
