"""A reopened visit's Transect tab shows the newest transect as recorded (it read "No stations
yet" with T1 and T2 in the file: no transect is current until one is started)."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from tests.ui.ui_support import WAIT_MS


def test_reopened_visit_shows_its_newest_transect_until_one_is_started(sample_window, qtbot):
    w, _path, _info = sample_window
    panel = w.panels["transect"]
    w.tabs.setCurrentWidget(panel)
    assert w.visit.current_transect is None
    # T2 (the sample's newest): 30 ft @ 4 %, 60 ft @ 18 %, 45 ft @ 5 % -> 135.0 ft, bank >= 90 ft
    qtbot.waitUntil(lambda: panel.stations_label.text().startswith("Shown: T2"), timeout=WAIT_MS)
    assert panel.stations_label.text() == ("Shown: T2 as recorded (3 stations, 135.0 ft from the OHWM)."
                                           " Start a transect to shoot stations.")
    assert panel.state.text() == "Start a transect at an OHWM point."
    plot = panel.profile.plot
    qtbot.waitUntil(lambda: plot._drawn is not None and len(plot._drawn[0]) == 3, timeout=WAIT_MS)
    segments, _threshold, _base, bank, at_least, _z0 = plot._drawn
    assert segments == [(30.0, 4.0), (60.0, 18.0), (45.0, 5.0)]
    assert bank is None and at_least == pytest.approx(90.0)
