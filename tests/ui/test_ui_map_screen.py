"""What a walk leaves on the screen: the map repaints only what moved for each fix (the marker's
and the new track segment's rectangles), so these tests read the window's backing store (what
was painted, fix by fix: ``QScreen.grabWindow`` on the offscreen platform) rather than a fresh
render (``QWidget.grab`` paints everything again and would hide a segment a repaint left
out). The readout ends on the last position; it is selectable under the pointer only."""

from __future__ import annotations

import math

import pytest
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QColor, QEnterEvent
from PySide6.QtWidgets import QApplication

pytest.importorskip("pytestqt")

from fieldapp.ui.mapview import MapView
from tests.ui.ui_support import WAIT_MS

X0, Y0 = 1_500_000.0, 15_000_000.0   # a UTM-sized site position, feet
HALF_FT = 100.0                      # the view: +-100 ft around the first fix


def _walk(n: int) -> list[tuple[float, float]]:
    """A zigzag spiral in display feet (turns every few fixes, about 2 ft a fix)."""
    pts = []
    for i in range(n):
        a = 0.35 * i
        r = 10.0 + 0.55 * i
        pts.append((r * math.cos(a), r * math.sin(a)))
    return pts


def _screen(view: MapView):
    """The window as painted so far (its backing store), as a QImage."""
    QApplication.processEvents()
    if view.screen().grabWindow(view.winId()).isNull():
        pytest.skip("this platform cannot read a window's backing store")
    return view.screen().grabWindow(view.winId()).toImage()


def _to_window(view: MapView, x: float, y: float) -> tuple[int, int]:
    """A display point (feet) as a pixel of the window."""
    vb = view.plot.getPlotItem().getViewBox()
    scene = vb.mapViewToScene(QPointF(x, y))
    vp = view.plot.mapFromScene(scene)
    at = view.plot.viewport().mapTo(view, vp)
    return at.x(), at.y()


def _dark_near(img, px: int, py: int, reach: int = 1) -> bool:
    """A pixel within ``reach`` of (px, py) as dark as the track (#5c6470), not the white
    ground or the faint grid."""
    for dx in range(-reach, reach + 1):
        for dy in range(-reach, reach + 1):
            c = QColor(img.pixel(px + dx, py + dy))
            if c.red() < 150 and c.green() < 150 and c.blue() < 160:
                return True
    return False


def test_every_fix_of_a_walk_is_painted_on_the_track_and_the_marker_on_the_last(qtbot):
    view = MapView(redraw_hz=10.0)
    qtbot.addWidget(view)
    view.resize(700, 480)
    view.show()
    qtbot.waitExposed(view)
    view.set_follow(False)              # no pan: every repaint after this is a partial one
    view.update_position(X0, Y0, 0.3, stamp=-1)
    qtbot.waitUntil(lambda: view.drawn_stamp == -1, timeout=WAIT_MS)
    vb = view.plot.getPlotItem().getViewBox()
    vb.setRange(xRange=(-HALF_FT, HALF_FT), yRange=(-HALF_FT, HALF_FT), padding=0)
    qtbot.waitUntil(lambda: not view.timer.isActive(), timeout=WAIT_MS)
    qtbot.wait(50)                       # the zoomed view painted whole, once
    pts = _walk(150)
    for i, (x, y) in enumerate(pts):
        view.update_position(X0 + x, Y0 + y, 0.3, stamp=i)
        if i % 5 == 4:                   # now and then a burst: the newest of three drawn
            continue
        if i % 5 == 3:
            continue
        qtbot.waitUntil(lambda i=i: view.drawn_stamp == i, timeout=WAIT_MS)
        QApplication.processEvents()     # its repaint
    qtbot.waitUntil(lambda: view.drawn_stamp == len(pts) - 1 and not view.timer.isActive(),
                    timeout=WAIT_MS)
    qtbot.wait(50)
    img = _screen(view)
    assert view.track.n == len(pts) + 1
    # the marker (blue, 18 px across) on the last fix
    lx, ly = _to_window(view, *pts[-1])
    assert QColor(img.pixel(lx, ly)).name() == "#0050ff"
    # every fix's position and the middle of every segment to it are painted dark (the
    # track), but those under the marker
    path = [(0.0, 0.0)] + pts
    missing = []
    for k in range(1, len(path)):
        (ax, ay), (bx, by) = path[k - 1], path[k]
        for fx, fy in ((bx, by), ((ax + bx) / 2, (ay + by) / 2)):
            px, py = _to_window(view, fx, fy)
            if math.hypot(px - lx, py - ly) <= 12:
                continue
            if not _dark_near(img, px, py):
                missing.append((k, px, py))
    assert missing == []
    # the screen as painted fix by fix is the map painted whole (the same track pixels)
    fresh = view.grab().toImage()
    for k in range(1, len(path), 7):
        px, py = _to_window(view, *path[k])
        if math.hypot(px - lx, py - ly) > 12:
            assert _dark_near(fresh, px, py) and _dark_near(img, px, py)


def test_the_readout_ends_on_the_last_fix_and_is_selectable_under_the_pointer(qtbot):
    view = MapView(redraw_hz=10.0)
    qtbot.addWidget(view)
    view.resize(700, 480)
    view.show()
    qtbot.waitExposed(view)
    shown: list[str] = []
    real = view.readout.setText
    view.readout.setText = lambda text: (shown.append(text), real(text))   # type: ignore[method-assign]
    for i in range(12):                  # fixes at 10 Hz: the readout's figures twice a second
        view.update_position(X0 + 2.0 * i, Y0 + 1.0 * i, 0.5, stamp=i)
        qtbot.waitUntil(lambda i=i: view.drawn_stamp == i, timeout=WAIT_MS)
        qtbot.wait(100)
    qtbot.waitUntil(lambda: not view._readout_timer.isActive(), timeout=WAIT_MS)
    assert view.readout.text() == "You  E 1,500,022.0 ft  N 15,000,011.0 ft"
    assert 1 <= len(shown) < 12          # not one per fix, and the last one shown
    readout = view.readout
    selectable = Qt.TextInteractionFlag.TextSelectableByMouse
    assert not readout.textInteractionFlags() & selectable
    centre = QPointF(readout.rect().center())
    QApplication.sendEvent(readout, QEnterEvent(centre, centre, readout.mapToGlobal(centre)))
    assert readout.textInteractionFlags() & selectable
    readout.setSelection(0, 3)
    QApplication.sendEvent(readout, QEvent(QEvent.Type.Leave))
    assert readout.selectedText() == "You"       # a selection stays after the pointer left
    readout.setSelection(0, 0)
    QApplication.sendEvent(readout, QEnterEvent(centre, centre, readout.mapToGlobal(centre)))
    QApplication.sendEvent(readout, QEvent(QEvent.Type.Leave))
    assert not readout.textInteractionFlags() & selectable


def test_an_outage_changes_the_strip_s_words_once_a_second_not_at_each_age_tick(qtbot):
    """The age timer asks four times a second; through an outage the age and the reason
    recording is paused are whole seconds, so the strip is relaid and repainted once a
    second, and they still say how old the last fix is."""
    from devices.nmea.fix import Fix, FixQuality
    from fieldapp.ui.status import StatusStrip, fix_problem

    strip = StatusStrip()
    qtbot.addWidget(strip)
    fix = Fix(quality=FixQuality.RTK_FIXED, sats_used=10, hdop=0.8, lat_deg=44.5, lon_deg=-89.5,
              horizontal_accuracy_m=0.01, antenna_height_m=2.0, t_monotonic_s=100.0)
    words = []
    for now in (112.05, 112.30, 112.55, 112.80):         # four ticks of the age timer
        strip.show_fix(fix, now_s=now, stale=True)
        words.append((strip.age_label.text(), strip.quality_label.text(),
                      fix_problem(fix, "connected", 2.0, now)))
    assert words == [("Age 12 s", "STALE 12 s – RTK fixed",
                      "Fix is stale (over 12 s old, limit 2 s)")] * 4
    strip.show_fix(fix, now_s=113.05, stale=True)
    assert strip.age_label.text() == "Age 13 s"
    assert fix_problem(fix, "connected", 2.0, 101.5) is None     # 1.5 s old: usable
    strip.show_fix(fix, now_s=100.4)
    assert strip.age_label.text() == "Age <1 s"
