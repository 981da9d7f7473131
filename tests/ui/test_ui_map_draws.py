"""The map draws the position at most ``redraw_hz`` times a second, the newest fix winning: a
burst of fixes is one draw showing the last of them, every fix is still on the track, and an
idle map runs no timer. Through the window: the marker is where the fix it drew says, and the
strip's HDOP and fix quality follow the newest fix."""

from __future__ import annotations

import dataclasses
import time

import pytest
from PySide6.QtCore import QCoreApplication

pytest.importorskip("pytestqt")

from fieldapp.ui.mapview import MapView
from tests.ui.ui_support import WAIT_MS, close_window, make_window, wait_fix

X0, Y0 = 1_500_000.0, 15_000_000.0   # a UTM-sized site position, feet


def _view(qtbot, hz: float = 10.0) -> MapView:
    view = MapView(redraw_hz=hz)
    qtbot.addWidget(view)
    view.resize(700, 450)
    view.show()
    qtbot.waitExposed(view)
    qtbot.waitUntil(lambda: not view.timer.isActive(), timeout=WAIT_MS)   # the first draw
    return view


def test_a_burst_of_fixes_is_one_draw_of_the_newest_and_all_are_on_the_track(qtbot):
    view = _view(qtbot)
    draws = view.draws
    for i in range(5):      # five fixes with no turn of the event loop between them
        view.update_position(X0 + 3.0 * i, Y0 + 1.0 * i, 2.0 + i, stamp=i)
    assert view.draws == draws and view.timer.isActive()     # not drawn fix by fix
    qtbot.waitUntil(lambda: view.drawn_stamp == 4, timeout=WAIT_MS)
    assert view.draws == draws + 1
    # the marker at the last fix in display feet (origin: the first fix), the accuracy circle
    # 6 ft in radius around it
    assert (view.position_item.pos().x(), view.position_item.pos().y()) == (12.0, 4.0)
    assert (view.accuracy_item.pos().x(), view.accuracy_item.pos().y()) == (12.0, 4.0)
    r = view.accuracy_item.rect()
    assert (r.x(), r.y(), r.width(), r.height()) == (-6.0, -6.0, 12.0, 12.0)
    assert view.position_item.isVisible() and view.accuracy_item.isVisible()
    # every fix is on the track, drawn or not
    assert view.track.n == 5
    assert list(view.track.x[:5]) == [0.0, 3.0, 6.0, 9.0, 12.0]
    assert list(view.track.y[:5]) == [0.0, 1.0, 2.0, 3.0, 4.0]
    # idle: the draw timer is single-shot and nothing restarted it
    assert view.timer.isSingleShot() and not view.timer.isActive()


def test_each_fix_of_a_slow_receiver_is_drawn(qtbot):
    view = _view(qtbot, hz=10.0)
    for i in range(3):
        view.update_position(X0 - 10.0 * i, Y0, 1.0, stamp=("fix", i))
        qtbot.waitUntil(lambda i=i: view.drawn_stamp == ("fix", i), timeout=WAIT_MS)
        assert view.position_item.pos().x() == -10.0 * i
    assert not view.timer.isActive()


def test_the_marker_is_grey_while_the_fix_cannot_be_recorded(qtbot):
    view = _view(qtbot)
    view.update_position(X0, Y0, 1.0, usable=False, stamp="stale")
    qtbot.waitUntil(lambda: view.drawn_stamp == "stale", timeout=WAIT_MS)
    assert view.position_item.brush().color().name() == "#9a9a9a"
    assert view.accuracy_item.pen().color().name() == "#9a9a9a"
    view.set_usable(True)        # the window's age check: usable again, no new fix needed
    qtbot.waitUntil(lambda: view.position_item.brush().color().name() == "#0050ff",
                    timeout=WAIT_MS)
    assert view.accuracy_item.pen().color().name() == "#0050ff"


def test_an_empty_point_layer_is_hidden_and_shown_with_its_points(qtbot):
    import pyqtgraph as pg

    from fieldapp.ui.mapview import set_points

    view = _view(qtbot)
    item = pg.ScatterPlotItem(size=10)
    view.plot.getPlotItem().addItem(item)
    set_points(item, [], [])
    assert not item.isVisible()
    set_points(item, [1.0, 2.0], [3.0, 4.0])
    assert item.isVisible() and list(item.getData()[0]) == [1.0, 2.0]
    set_points(item, [], [])
    assert not item.isVisible()


def test_the_window_draws_the_newest_of_a_burst_and_the_strip_follows_it(qtbot, private_dirs):
    w = make_window(qtbot, private_dirs, simulate=True)
    try:
        wait_fix(qtbot, w)
        qtbot.waitUntil(lambda: w.map.drawn_stamp is not None, timeout=WAIT_MS)
        # the marker is where the fix it drew is
        drawn = w.map.drawn_stamp
        x, y = w.visit.project(drawn.lat_deg, drawn.lon_deg)
        ox, oy = w.map.origin
        assert w.map.position_item.pos().x() == pytest.approx(x - ox, abs=1e-6)
        assert w.map.position_item.pos().y() == pytest.approx(y - oy, abs=1e-6)
        # the receiver stops; three more fixes arrive at once, the last one 10 ft north with
        # HDOP 3.7
        w.session.stop()
        QCoreApplication.sendPostedEvents()   # the fixes the readers queued before they stopped
        last = w.latest_fix
        burst = [dataclasses.replace(last, lat_deg=last.lat_deg + k * 10.0 / 364_000.0,
                                     hdop=3.4 + 0.1 * k, t_monotonic_s=time.monotonic())
                 for k in (1, 2, 3)]
        for fix in burst:
            w.on_fix(fix)
        qtbot.waitUntil(lambda: w.map.drawn_stamp is burst[-1], timeout=WAIT_MS)
        x, y = w.visit.project(burst[-1].lat_deg, burst[-1].lon_deg)
        assert w.map.position_item.pos().x() == pytest.approx(x - ox, abs=1e-6)
        assert w.map.position_item.pos().y() == pytest.approx(y - oy, abs=1e-6)
        # the strip shows the newest fix's HDOP within its age timer's tick
        qtbot.waitUntil(lambda: w.status_strip.hdop_label.text() == "HDOP 3.7", timeout=WAIT_MS)
    finally:
        close_window(w)


def _at_range(qtbot, half_w_ft: float, half_h_ft: float):
    """A map with a fix "a" drawn at the origin, then zoomed to +-half_w_ft x +-half_h_ft:
    (view, its ViewBox)."""
    view = _view(qtbot)
    view.update_position(X0, Y0, 1.0, stamp="a")
    qtbot.waitUntil(lambda: view.drawn_stamp == "a", timeout=WAIT_MS)
    vb = view.plot.getPlotItem().getViewBox()
    vb.setRange(xRange=(-half_w_ft, half_w_ft), yRange=(-half_h_ft, half_h_ft), padding=0)
    qtbot.waitUntil(lambda: not view.timer.isActive(), timeout=WAIT_MS)
    return view, vb


def test_a_fix_that_would_not_move_a_pixel_is_on_screen_already_and_not_drawn(qtbot):
    view, vb = _at_range(qtbot, 300.0, 200.0)                  # ~1 ft a pixel
    (x0, x1), (y0, y1) = vb.viewRange()
    ft_per_px = max((x1 - x0) / vb.width(), (y1 - y0) / vb.height())
    assert 0.5 < ft_per_px < 2.0
    draws, unchanged = view.draws, view.unchanged
    # a tenth of a pixel east, accuracy a tenth of a pixel wider: the screen shows it already
    view.update_position(X0 + 0.1 * ft_per_px, Y0, 1.0 + 0.1 * ft_per_px, stamp="b")
    qtbot.waitUntil(lambda: view.drawn_stamp == "b", timeout=WAIT_MS)
    assert (view.draws, view.unchanged) == (draws, unchanged + 1)
    assert view.position_item.pos().x() == 0.0                  # the marker did not move
    assert view.track.n == 2                                    # but the fix is on the track
    # two pixels north: drawn
    view.update_position(X0 + 0.1 * ft_per_px, Y0 + 2.0 * ft_per_px, 1.0, stamp="c")
    qtbot.waitUntil(lambda: view.drawn_stamp == "c", timeout=WAIT_MS)
    assert view.draws == draws + 1
    assert view.position_item.pos().y() == pytest.approx(2.0 * ft_per_px)
    # a fix unusable now: the colour changes, so it is drawn however little it moved
    view.update_position(X0 + 0.1 * ft_per_px, Y0 + 2.0 * ft_per_px, 1.0, usable=False, stamp="d")
    qtbot.waitUntil(lambda: view.drawn_stamp == "d", timeout=WAIT_MS)
    assert view.draws == draws + 2


def test_zooming_in_draws_the_newest_position_a_zoomed_out_map_left_out(qtbot):
    view, vb = _at_range(qtbot, 3000.0, 2000.0)                # ~10 ft a pixel
    view.update_position(X0 + 2.0, Y0, 1.0, stamp="b")          # 2 ft: a fifth of a pixel
    qtbot.waitUntil(lambda: view.drawn_stamp == "b", timeout=WAIT_MS)
    assert view.position_item.pos().x() == 0.0
    vb.setRange(xRange=(-30.0, 30.0), yRange=(-20.0, 20.0), padding=0)   # 2 ft is ~20 pixels now
    qtbot.waitUntil(lambda: view.position_item.pos().x() == 2.0, timeout=WAIT_MS)
