"""The status strip puts the fix's figures under the badges whenever both no longer fit side by
side, also when the words grow after the window was sized (devices connecting, a fix arriving):
at 1024 px the strip was laid out on one row while it read "GNSS: none ... no fix", and the
receiver's "RTK fixed" then showed as "RTK fix", "H ±0.01 m" as "H ±0.01 r"."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from devices.nmea.fix import Fix, FixQuality


def _uncut(label) -> bool:
    """The label is shown as wide as its words need."""
    return label.width() >= label.fontMetrics().horizontalAdvance(label.text())


def test_figures_go_under_the_badges_when_the_words_grow(qtbot, themed):
    from PySide6.QtWidgets import QVBoxLayout, QWidget

    from fieldapp.ui.status import StatusStrip

    window = QWidget()          # as in the main window: the window's width is the strip's
    qtbot.addWidget(window)
    lay = QVBoxLayout(window)
    lay.setContentsMargins(0, 0, 0, 0)
    lay.addStretch(1)
    strip = StatusStrip()
    lay.addWidget(strip)
    window.show()
    qtbot.waitExposed(window)
    width = strip._one_row_width() + 20     # the start-up words fit on one row, just
    window.setFixedSize(width, 200)
    qtbot.waitUntil(lambda: strip.width() == width)
    assert not strip.two_rows()
    # the devices connect and an RTK fix arrives: the same window, longer words
    for kind in strip.device_labels:
        strip.show_device(kind, "connected")
    strip.show_fix(Fix(quality=FixQuality.RTK_FIXED, sats_used=10, hdop=0.8,
                       horizontal_accuracy_m=0.01, antenna_height_m=2.0, t_monotonic_s=1.0),
                   now_s=1.2)
    # they no longer fit side by side (the layout takes the new words on the event loop)
    qtbot.waitUntil(lambda: strip._one_row_width() > width, timeout=5000)
    qtbot.waitUntil(strip.two_rows, timeout=5000)
    labels = [*strip.device_labels.values(), strip.quality_label, strip.sats_label,
              strip.hdop_label, strip.accuracy_label, strip.age_label, strip.antenna_label]
    qtbot.waitUntil(lambda: all(_uncut(lab) for lab in labels), timeout=5000)
    assert strip.quality_label.text() == "RTK fixed"
    assert strip.accuracy_label.text() == "H ±0.01 m"
    # the wider window of a 1280 px screen: one row again
    window.setFixedSize(strip._one_row_width() + 20, 200)
    qtbot.waitUntil(lambda: not strip.two_rows(), timeout=5000)
    assert all(_uncut(lab) for lab in labels)
