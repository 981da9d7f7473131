"""The satellites view (issue 15 item 12): sky plot and table from the receiver's GSV / GSA,
opened by clicking the GNSS badge."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from tests.ui.ui_support import WAIT_MS, close_window, key, make_window, wait_fix


def test_gnss_badge_opens_the_sky_of_the_simulated_receiver(qtbot, private_dirs):
    w = make_window(qtbot, private_dirs, simulate=True)
    try:
        wait_fix(qtbot, w)
        QTest.mouseClick(w.status_strip.device_labels["gnss"], Qt.LeftButton)
        dlg = w.satellites_dialog
        assert dlg is not None and dlg.isVisible()
        qtbot.waitUntil(lambda: dlg.table.rowCount() == 10, timeout=WAIT_MS)
        rows = {dlg.table.item(r, 1).text(): [dlg.table.item(r, c).text() for c in range(6)]
                for r in range(dlg.table.rowCount())}
        # devices/sim/gnss.py's sky: PRN 2 at 64° elevation, 45° azimuth, 44 dB-Hz; its GSA
        # lists the first 10 (all) as used
        assert rows["2"] == ["GPS", "2", "64", "45", "44", "yes"]
        assert rows["29"] == ["GPS", "29", "28", "335", "38", "yes"]
        assert dlg.summary.text() == "10 satellites in view, 10 used (GPS)"
        # the sky plot puts PRN 20 (70° up, azimuth 280°) west of and a little above the centre
        sky = dlg.sky
        sat = next(s for s in sky.satellites if s.prn == 20)
        at = sky.position(sat, 100.0, 100.0, 90.0)
        # r = 90 x (90 - 70) / 90 = 20; x = 100 + 20 sin 280° = 80.30, y = 100 - 20 cos 280° = 96.53
        assert (round(at.x(), 2), round(at.y(), 2)) == (80.3, 96.53)
        # Ctrl+G raises the same view
        key(qtbot, w, "Ctrl+G")
        assert w.satellites_dialog is dlg
        dlg.close()
        assert not w.devices.listens_to_fix(dlg.on_fix)
    finally:
        close_window(w)
