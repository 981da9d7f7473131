"""Issue 35 item 8: one figure in one unit on the screen. At a site whose CRS is in US survey feet
(the demo's WISCRS Vernon) the status strip gave the horizontal accuracy as "H ±0.01 m" while
the OHWM table beside it said "Accuracy ft 0.03"; the strip now gives it in the site's foot, in
metres at a metre CRS, and the antenna height stays in the unit it was entered in (item 1)."""

from __future__ import annotations

import dataclasses
import time

import pytest

pytest.importorskip("pytestqt")

from devices.nmea import Fix, FixMode, FixQuality
from tests.ui.ui_support import WAIT_MS, close_window, make_window


def _fix(lat: float, lon: float, acc_m: float = 0.01) -> Fix:
    return Fix(lat_deg=lat, lon_deg=lon, alt_msl_m=200.0, quality=FixQuality.RTK_FIXED,
               mode=FixMode.THREE_D, sats_used=12, hdop=0.8, horizontal_accuracy_m=acc_m,
               accuracy_source="GST", t_monotonic_s=time.monotonic())


def test_strip_gives_accuracy_in_us_survey_feet_at_a_wiscrs_site(qtbot, private_dirs):
    from fieldapp.app import antenna
    from fieldapp.ui.workflows.ohwm import OHWM_COLUMNS

    w = make_window(qtbot, private_dirs)
    try:
        qtbot.waitUntil(lambda: w.startup_done and w.visit is not None, timeout=WAIT_MS)
        strip = w.status_strip
        strip.show_device("gnss", "connected")           # the receiver's link, as when it connects
        w.on_fix(_fix(43.592, -90.642, acc_m=0.01))       # Vernon County: WISCRS Vernon (ftUS)
        qtbot.waitUntil(lambda: w.visit.model.has_frame, timeout=WAIT_MS)
        assert w.visit.model.site.crs == "EPSG:7637"
        w.refresh_usable()
        # 0.01 m = 0.0328 US survey ft, the OHWM table's 2 decimals
        assert strip.accuracy_label.text() == "H ±0.03 ft"
        assert strip.accuracy_label.toolTip().endswith("in US survey ft")
        assert OHWM_COLUMNS[-1] == "Accuracy ft"
        w.on_fix(_fix(43.592, -90.642, acc_m=0.15))
        w.refresh_usable()
        assert strip.accuracy_label.text() == "H ±0.49 ft"         # 0.15 m = 0.4921 ftUS
        held = dataclasses.replace(w.latest_fix, gst_held_epochs=1)
        strip.show_fix(held, time.monotonic())
        assert strip.accuracy_label.text() == "H ±0.49 ft (held)"
        # the antenna height as it was entered, not converted to the site's unit
        antenna.change_height(w.visit, w.session, 6.5, "ft")
        w.sync_antenna()
        w.refresh_usable()
        assert strip.antenna_label.text() == "Ant 6.50 ft"
        antenna.change_height(w.visit, w.session, 2.0, "m")
        w.sync_antenna()
        w.refresh_usable()
        assert strip.antenna_label.text() == "Ant 2.000 m"
    finally:
        close_window(w)


def test_strip_gives_accuracy_in_metres_at_a_utm_site(qtbot, private_dirs):
    w = make_window(qtbot, private_dirs)
    try:
        qtbot.waitUntil(lambda: w.startup_done and w.visit is not None, timeout=WAIT_MS)
        w.status_strip.show_device("gnss", "connected")
        w.on_fix(_fix(43.30, -91.79, acc_m=0.15))          # Iowa: UTM 15N, metres
        qtbot.waitUntil(lambda: w.visit.model.has_frame, timeout=WAIT_MS)
        assert w.visit.model.site.crs == "EPSG:32615"
        w.refresh_usable()
        assert w.status_strip.accuracy_label.text() == "H ±0.15 m"
        assert w.status_strip.accuracy_label.toolTip().endswith("in metres")
    finally:
        close_window(w)
