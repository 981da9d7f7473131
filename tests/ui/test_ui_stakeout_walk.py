"""Issue 35 item 12, the Stake-out panel: it fits its dock whatever the target's name or the
hint (the drop-down's arrow and Flag here were cut), and in the demo the simulated surveyor
walks to the chosen target (W) so stake-out can be tried."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from tests.ui.test_ui_layout import fully_in_view, rect_in
from tests.ui.test_ui_workflows import average_point
from tests.ui.ui_support import WAIT_MS, close_window, key, make_window


def test_the_simulated_surveyor_walks_to_the_stakeout_target(qtbot, private_dirs, themed):
    w = make_window(qtbot, private_dirs, simulate=True)
    try:
        w.resize(1366, 768 - 30 - 38)
        average_point(qtbot, w)
        p = w.visit.ohwm_points()[0]
        key(qtbot, w, "Ctrl+6")
        panel = w.panels["stake-out"]
        qtbot.waitUntil(panel.walk_button.isVisible, timeout=WAIT_MS)
        # the longest target name and a long hint: the panel stays inside its dock
        box = panel.target_box
        longest = max(range(box.count()), key=lambda i: len(box.itemText(i)))
        box.setCurrentIndex(longest)
        panel.direction.setText("Turn right 35° — the line is 120.00 ft ahead on your right")
        qtbot.wait(50)
        assert panel.body.minimumSizeHint().width() <= panel.scroll.viewport().width()
        assert rect_in(box, w).right() <= rect_in(panel.scroll.viewport(), w).right()
        for b in (panel.flag_button, panel.walk_button):
            panel.scroll.ensureWidgetVisible(b, 0, 0)
            assert fully_in_view(b, w), b.text()
        # walk 40 ft off the OHWM point, then W: the surveyor walks back onto it
        i = box.findData(f"point:ohwm_point:{p.uuid}")
        box.setCurrentIndex(i)
        panel.tolerance.setValue(0.5)
        gnss = w.session.simulator("gnss")
        f = w.visit.model.frame
        lon, lat = f.to_lonlat(p.x + f.from_ft(40.0), p.y)
        gnss.walk_to(float(lat), float(lon))
        qtbot.waitUntil(lambda: panel.stake.guidance is not None
                        and panel.stake.guidance.distance_ft > 35.0, timeout=WAIT_MS)
        key(qtbot, w, "W")
        assert w.sim_surveyor is not None and w.sim_surveyor.mode == "stake"
        assert w.sim_surveyor.walking_to == box.itemText(i)
        qtbot.waitUntil(lambda: panel.on_line.text() == "ON THE LINE" and gnss.arrived,
                        timeout=WAIT_MS)
        assert panel.stake.guidance.distance_ft <= 0.5
        qtbot.waitUntil(panel.flag_button.isEnabled, timeout=WAIT_MS)
    finally:
        close_window(w)
