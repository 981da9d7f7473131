"""The OHWM panel says why the quality gate skips epochs -- before Average point is pressed and
for every skipped epoch while averaging (issue 15 item 6); held GST is marked on the strip."""

from __future__ import annotations

import dataclasses
import time

import pytest

pytest.importorskip("pytestqt")

from devices.nmea import Fix, FixMode, FixQuality
from tests.ui.ui_support import WAIT_MS, close_window, key, make_window


def fix_with(sats: int, hdop: float = 0.9, **kw) -> Fix:
    return Fix(lat_deg=43.30, lon_deg=-91.79, alt_msl_m=260.0, quality=FixQuality.RTK_FIXED,
               mode=FixMode.THREE_D, sats_used=sats, hdop=hdop, horizontal_accuracy_m=0.01,
               accuracy_source="GST", t_monotonic_s=time.monotonic(), **kw)


def test_ohwm_panel_shows_the_gate_reason_for_skipped_epochs(qtbot, private_dirs):
    w = make_window(qtbot, private_dirs)
    try:
        qtbot.waitUntil(lambda: w.startup_done and w.visit is not None, timeout=WAIT_MS)
        key(qtbot, w, "Ctrl+1")
        panel = w.panels["ohwm"]
        label = panel.skipped_label
        # a receiver sending 0 satellites (GGA 00 and nothing else to count from): the reason
        # is on the panel at once, without pressing Average point
        w.on_fix(fix_with(0))
        assert label.isVisibleTo(panel)
        assert label.text() == "Epochs are skipped: 0 satellites, fewer than 4"
        w.on_fix(fix_with(11))
        assert label.text() == "" and not label.isVisibleTo(panel)
        # while averaging: each skipped epoch counted under its reason
        panel.epochs.setValue(2)
        # no receiver is connected here: the fixes are handed in, so the latest is recordable
        w.devices.usable_fix = lambda: w.latest_fix   # the panels ask the device feed
        panel.start_average()
        assert panel.averaging()
        w.on_fix(fix_with(0))
        w.on_fix(fix_with(11, hdop=6.2))
        w.on_fix(fix_with(0))
        assert label.text() == ("3 unusable epochs skipped: 0 satellites, fewer than 4 (2); "
                                "HDOP 6.2 over the limit 5 (1)")
        w.on_fix(fix_with(11))
        w.on_fix(fix_with(11))
        qtbot.waitUntil(lambda: len(w.visit.ohwm_points()) == 1, timeout=WAIT_MS)
        assert w.visit.ohwm_points()[0].rejected_count == 3
    finally:
        close_window(w)


def test_status_strip_marks_held_gst(qtbot, private_dirs):
    w = make_window(qtbot, private_dirs)
    try:
        strip = w.status_strip
        fresh = fix_with(11)
        strip.show_fix(fresh, time.monotonic())
        assert strip.accuracy_label.text() == "H ±0.01 m"
        held = dataclasses.replace(fresh, gst_held_epochs=1, accuracy_source="GST held 1 epoch")
        strip.show_fix(held, time.monotonic())
        assert strip.accuracy_label.text() == "H ±0.01 m (held)"
        assert "held 1 epoch" in strip.accuracy_label.toolTip()
    finally:
        close_window(w)
