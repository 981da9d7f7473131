"""Fingers on the map (issue 28, a Windows tablet): a pinch zooms by its factor about the point
between the fingers, two fingers moving together pan, one finger drags and a tap clicks.
Touch events are synthesized with ``QTest.touchEvent`` on a touch-screen device, as Qt
delivers them from Windows' pointer messages."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QNativeGestureEvent, QPointingDevice
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from fieldapp.ui.mapview import MapView


@pytest.fixture
def touch_map(qtbot):
    view = MapView(redraw_hz=50)
    qtbot.addWidget(view)
    view.resize(600, 500)
    view.show()
    qtbot.waitExposed(view)
    vb = view.plot.getPlotItem().getViewBox()
    vb.setRange(xRange=(-100, 100), yRange=(-100, 100), padding=0)
    QApplication.processEvents()
    dev = QTest.createTouchDevice(QInputDevice_touch())
    # offscreen Qt delivers a synthesized touch a window frame (2 px) from where QTest aims
    # it; a tap first measures that, and the tests aim at what the map is given
    QTest.touchEvent(view.plot.viewport(), dev).press(0, QPoint(100, 100)).commit()
    seen = view.touch._last
    QTest.touchEvent(view.plot.viewport(), dev).release(0, QPoint(100, 100)).commit()
    QApplication.processEvents()
    global OFFSET
    OFFSET = QPoint(round(seen.x()) - 100, round(seen.y()) - 100)
    assert abs(OFFSET.x()) <= 4 and abs(OFFSET.y()) <= 4
    yield view, vb, dev


OFFSET = QPoint(0, 0)


def QInputDevice_touch():  # noqa: N802 - a Qt enum value
    from PySide6.QtGui import QInputDevice

    return QInputDevice.DeviceType.TouchScreen


def ground_at(view, pos: QPoint) -> tuple[float, float]:
    """The map point (display feet) under a touch aimed at ``pos`` (viewport px)."""
    p = view.touch._view_point(QPointF(pos + OFFSET))
    return p.x(), p.y()


def width_ft(vb) -> float:
    (x0, x1), _ = vb.viewRange()
    return x1 - x0


def test_pinch_zooms_by_its_factor_about_the_pinch_centre(touch_map):
    view, vb, dev = touch_map
    vp = view.plot.viewport()
    centre = QPoint(vp.width() // 2 - 60, vp.height() // 2 + 40)    # off the map's middle
    under = ground_at(view, centre)
    before = width_ft(vb)
    QTest.touchEvent(vp, dev).press(0, centre - QPoint(50, 0)).press(1, centre + QPoint(50, 0)).commit()
    # spread the fingers from 100 to 200 px apart in four steps: a pinch factor of 2
    for step in (62, 75, 87, 100):
        QTest.touchEvent(vp, dev).move(0, centre - QPoint(step, 0)).move(1, centre + QPoint(step, 0)).commit()
    QTest.touchEvent(vp, dev).release(0, centre - QPoint(100, 0)).release(1, centre + QPoint(100, 0)).commit()
    QApplication.processEvents()
    assert view.touch.pinches == 4
    assert width_ft(vb) == pytest.approx(before / 2.0, rel=0.02)      # zoomed in 2x
    after = ground_at(view, centre)
    # the ground under the pinch centre is still under it (within a pixel's worth of feet)
    px_ft = width_ft(vb) / vb.sceneBoundingRect().width()
    assert after[0] == pytest.approx(under[0], abs=2 * px_ft)
    assert after[1] == pytest.approx(under[1], abs=2 * px_ft)
    assert view.follow is False


def test_two_fingers_moving_together_pan_the_map(touch_map):
    view, vb, dev = touch_map
    vp = view.plot.viewport()
    a, b = QPoint(200, 200), QPoint(300, 200)
    grabbed = ground_at(view, QPoint(250, 200))
    before = width_ft(vb)
    (start_x0, _x1), (start_y0, _y1) = vb.viewRange()
    QTest.touchEvent(vp, dev).press(0, a).press(1, b).commit()
    shift = QPoint(0, 0)
    for k in range(1, 6):                         # 100 px right and 50 px down, same spread
        shift = QPoint(20 * k, 10 * k)
        QTest.touchEvent(vp, dev).move(0, a + shift).move(1, b + shift).commit()
    QTest.touchEvent(vp, dev).release(0, a + shift).release(1, b + shift).commit()
    QApplication.processEvents()
    assert width_ft(vb) == pytest.approx(before, rel=1e-6)              # no zoom
    # the ground that was between the fingers moved with them
    now = ground_at(view, QPoint(250, 200) + shift)
    px_ft = width_ft(vb) / vb.sceneBoundingRect().width()
    assert now[0] == pytest.approx(grabbed[0], abs=2 * px_ft)
    assert now[1] == pytest.approx(grabbed[1], abs=2 * px_ft)
    (x0, _x1), (y0, _y1) = vb.viewRange()
    assert x0 == pytest.approx(start_x0 - 100 * px_ft, abs=2 * px_ft)   # the view went west
    assert y0 == pytest.approx(start_y0 + 50 * px_ft, abs=2 * px_ft)    # and north


def test_a_tap_is_a_click_and_one_finger_drags(touch_map, qtbot):
    view, vb, dev = touch_map
    vp = view.plot.viewport()
    clicks = []
    view.plot.scene().sigMouseClicked.connect(
        lambda ev: clicks.append(vb.mapSceneToView(ev.scenePos())))
    tap = QPoint(330, 210)
    QTest.touchEvent(vp, dev).press(0, tap).commit()
    QTest.touchEvent(vp, dev).release(0, tap).commit()
    qtbot.waitUntil(lambda: len(clicks) == 1, timeout=5000)
    x, y = ground_at(view, tap)
    assert clicks[0].x() == pytest.approx(x, abs=1.0) and clicks[0].y() == pytest.approx(y, abs=1.0)
    # one finger dragged 120 px left: the map pans like a mouse drag, no click
    (x0, _x1), _ = vb.viewRange()
    start = QPoint(400, 250)
    QTest.touchEvent(vp, dev).press(0, start).commit()
    for k in range(1, 7):
        QTest.touchEvent(vp, dev).move(0, start - QPoint(20 * k, 0)).commit()
    QTest.touchEvent(vp, dev).release(0, start - QPoint(120, 0)).commit()
    QApplication.processEvents()
    (nx0, _nx1), _ = vb.viewRange()
    assert nx0 > x0 + 50                      # the view moved east (the content west)
    assert len(clicks) == 1


def test_a_touchpad_pinch_zooms_about_the_cursor(touch_map):
    view, vb, _dev = touch_map
    vp = view.plot.viewport()
    at = QPointF(150, 120)
    under = ground_at(view, at.toPoint())
    before = width_ft(vb)
    ev = QNativeGestureEvent(Qt.NativeGestureType.ZoomNativeGesture,
                             QPointingDevice.primaryPointingDevice(), 2, at,
                             at, QPointF(vp.mapToGlobal(at.toPoint())), 0.25, QPointF(), 0)
    QApplication.sendEvent(vp, ev)
    assert width_ft(vb) == pytest.approx(before / 1.25, rel=0.01)
    after = ground_at(view, at.toPoint())
    px_ft = width_ft(vb) / vb.sceneBoundingRect().width()
    assert after[0] == pytest.approx(under[0], abs=2 * px_ft)
    assert after[1] == pytest.approx(under[1], abs=2 * px_ft)
