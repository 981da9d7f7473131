"""The site map keeps one local origin per visit: a recorded feature keeps its displayed East/
North while the user walks far away (the grid follows the view with follow-me); the readout
under it."""

from __future__ import annotations

import time
from datetime import UTC

import pytest

from fieldapp.ui.mapview import MapView
from tests.ui.ui_support import WAIT_MS

# A UTM-sized site position in feet; the map shows feet minus its first position.
X0, Y0 = 1_500_000.0, 15_000_000.0


def test_feature_keeps_its_coordinates_while_walking_far(qtbot):
    view = MapView(redraw_hz=50)
    qtbot.addWidget(view)
    view.resize(600, 400)
    view.show()
    view.update_position(X0, Y0, 1.0)
    # OHWM from the first position 100 ft east, 20 ft north: shown at (0, 0) - (100, 20)
    view.set_lines("ohwm", [[(X0, Y0), (X0 + 100.0, Y0 + 20.0)]])
    view.redraw()
    # walk 800 ft west, 400 ft north (follow-me re-centres the view several times)
    for i in range(401):
        view.update_position(X0 - 2.0 * i, Y0 + 1.0 * i, 1.0)
        if i % 20 == 0:
            view.redraw()
            qtbot.wait(1)
    view.redraw()
    x, y = view.curves["ohwm"].getData()
    assert list(x[:2]) == [0.0, 100.0] and list(y[:2]) == [0.0, 20.0]
    assert view.origin == (X0, Y0)
    assert view.position == (-800.0, 400.0)
    # the grid shows what the view shows (the old axes once kept the start's range)
    (vx0, vx1), (vy0, vy1) = view.plot.getPlotItem().getViewBox().viewRange()
    assert vx0 < -800.0 < vx1 and vy0 < 400.0 < vy1
    r = view.grid.boundingRect()
    assert (r.left(), r.right()) == pytest.approx((vx0, vx1))
    assert (r.top(), r.bottom()) == pytest.approx((vy0, vy1))


def _view(qtbot):
    view = MapView(redraw_hz=50)
    qtbot.addWidget(view)
    view.resize(700, 450)
    view.show()
    qtbot.waitExposed(view)
    return view


def test_home_zooms_to_everything_recorded(qtbot):
    view = _view(qtbot)
    view.update_position(X0, Y0, 1.0)
    # a wetland 2,000 ft east and a tree 600 ft south-west, both out of the first view
    view.set_polygons("wetland", [[(X0 + 1900.0, Y0), (X0 + 2100.0, Y0),
                                   (X0 + 2100.0, Y0 + 150.0)]])
    view.set_trees([(X0 - 600.0, Y0 - 600.0, 20.0, "#1b7a1b")])
    view.redraw()
    view.zoom_to_all()
    (x0, x1), (y0, y1) = view.plot.getPlotItem().getViewBox().viewRange()
    # local: tree crown from (-620, -620), wetland to (2100, 150), you at (0, 0)
    assert x0 <= -620.0 and x1 >= 2100.0 and y0 <= -620.0 and y1 >= 150.0
    # zoomed to them, not far out: the narrower side (the aspect is locked) within 1.5 x
    # the 2,720 ft they span
    assert min(x1 - x0, y1 - y0) < 1.5 * 2720.0
    assert view.follow is False                       # Follow me off: the view stays


def test_readout_gives_you_or_the_cursor_in_site_feet_and_latitude_longitude(qtbot):
    view = _view(qtbot)
    assert view.readout_text() == ""
    view.to_lat_lon = lambda x, y: (44.5 + (y - Y0) / 364_000.0, -89.5 + (x - X0) / 260_000.0)
    view.update_position(X0 + 26.0, Y0 - 36.4, 1.0)
    # 44.5 - 36.4 / 364,000 = 44.4999; -89.5 + 26 / 260,000 = -89.4999
    assert view.readout_text() == ("You  E 1,500,026.0 ft  N 14,999,963.6 ft\n44.499900° N,"
                                   " 89.499900° W")
    # origin is the first position: the cursor at map (100, 0) is 100 ft east of it
    view.cursor = (100.0, 0.0)
    assert view.readout_text().startswith("Cursor  E 1,500,126.0 ft  N 14,999,963.6 ft\n44.4999")
    view._show_readout()
    assert view.readout.text() == view.readout_text()


def test_readout_gives_the_site_crs_coordinates_in_the_crs_unit(qtbot, tmp_path):
    """A UTM site reads out in metres (never UTM metres / 0.3048), as the report prints them."""
    from fieldapp.app.visit import VisitController
    from fieldapp.survey.visit import Visit

    model = Visit.new("utm", crs="EPSG:32616", who="t")
    model.ensure_frame()
    ctl = VisitController.__new__(VisitController)     # only its coordinate words are used
    ctl.model = model
    view = _view(qtbot)
    view.to_site_crs = ctl.site_coords
    f = model.frame
    x_ft, y_ft = f.to_ft(500_000.0), f.to_ft(4_928_000.0)
    view.update_position(x_ft, y_ft, 1.0)
    # 500,000 m E, 4,928,000 m N of zone 16N: the readout gives them back in metres
    assert view.readout_text() == "You  E 500,000.000 m  N 4,928,000.000 m"


def test_the_scale_bar_sits_beside_the_map_and_is_true_to_scale(qtbot):
    from PySide6.QtCore import QRect

    view = _view(qtbot)
    view.update_position(X0, Y0, 1.0)
    view.redraw()
    vb = view.plot.getPlotItem().getViewBox()
    (x0, x1), _ = vb.viewRange()
    bar = view.scale_widget
    assert bar.length_ft == view.scale_label_len > 0
    assert abs(bar.px - bar.length_ft * vb.width() / (x1 - x0)) < 1e-6
    # outside the plot, so no map label can be under it
    plot = QRect(view.plot.mapTo(view, view.plot.rect().topLeft()), view.plot.size())
    strip = QRect(bar.mapTo(view, bar.rect().topLeft()), bar.size())
    assert not plot.intersects(strip)
    assert bar.width() >= bar.px


def test_the_visit_gives_the_map_latitude_and_longitude(tmp_path):
    """VisitController.unproject is project's inverse (pyproj both ways): 44.5° N 89.5° W."""
    from fieldapp.app.visit import open_visit

    v = open_visit(tmp_path / "ll.gpkg", name="ll")
    try:
        assert v.unproject(0.0, 0.0) is None                 # no site CRS before a fix
        v.model.set_crs("EPSG:32616")                       # UTM 16N: 90° W to 84° W
        x, y = v.project(44.5, -89.5)
        lat, lon = v.unproject(x, y)
        assert abs(lat - 44.5) < 1e-9 and abs(lon + 89.5) < 1e-9
    finally:
        v.close()


# ------------------------------------------------------------------ the day's track
def _zigzag(n: int):
    """n positions 0.3 ft apart along 300 ft lines 10 ft apart (a crew walking transects),
    with a 0.2 ft wiggle every other point, in site feet about (X0, Y0)."""
    import numpy as np

    s = np.arange(n) * 0.3
    line = (s // 300).astype(int)
    along = s % 300
    x = np.where(line % 2 == 0, along, 300 - along)
    y = line * 10.0 + 0.2 * (np.arange(n) % 2)
    return X0 + x, Y0 + y


def _wait_history(qtbot, view):
    tl = view.track
    qtbot.waitUntil(lambda: tl.history_draws > 0 and not tl._busy and tl._wanted is None, timeout=20_000)


def _farthest_from_drawn(view, xs, ys) -> float:
    """The farthest stored position in the view from the drawn track (history, tail, head)."""
    import numpy as np
    import shapely

    tl = view.track
    parts = []
    for item in (tl.history, tl.tail, tl.head):
        x, y = item.getData()
        if x is not None and len(x) > 1:
            ok = np.isfinite(x)
            # NaN splits the history into runs of chunks: each run is its own line
            runs = np.split(np.arange(len(x)), np.flatnonzero(~ok))
            parts += [shapely.linestrings(np.column_stack([x[r[ok[r]]], y[r[ok[r]]]]))
                      for r in runs if ok[r].sum() > 1]
    drawn = shapely.union_all(parts)
    (x0, x1), (y0, y1) = view.plot.getPlotItem().getViewBox().viewRange()
    lx, ly = xs - view.origin[0], ys - view.origin[1]
    inside = (lx >= x0) & (lx <= x1) & (ly >= y0) & (ly <= y1)
    return float(shapely.distance(shapely.points(lx[inside], ly[inside]), drawn).max())


def test_the_stored_track_is_drawn_decimated_within_half_a_pixel_and_whole(qtbot):
    """Every stored position lies within half a screen pixel of the drawn line (the history,
    simplified per zoom level, and the raw tail); the tail is exactly the last positions."""
    import numpy as np

    from fieldapp.ui.tracklayer import CHUNK

    view = _view(qtbot)
    xs, ys = _zigzag(10 * CHUNK + 300)
    view.show_stored_track(xs, ys)
    view.zoom_to_all()
    _wait_history(qtbot, view)
    tl = view.track
    assert view.origin == (X0, Y0) and tl.n == len(xs)
    hx, hy = tl.history.getData()
    assert 0 < len(hx) < 10 * CHUNK              # decimated: the wiggle is below a pixel here
    vb = view.plot.getPlotItem().getViewBox()
    (x0, x1), _ = vb.viewRange()
    level = tl._shown_key[0]
    assert 2.0 ** level <= (x1 - x0) / vb.width() < 2.0 ** (level + 1)
    assert _farthest_from_drawn(view, xs, ys) <= 0.5 * 2.0 ** level + 1e-6
    tail_x, tail_y = tl.tail.getData()
    head_x, head_y = tl.head.getData()
    # the tail is the raw positions from the last one the history covers
    start = 10 * CHUNK
    assert np.array_equal(np.r_[tail_x, head_x[1:]], xs[start:] - X0)


def test_one_more_fix_redraws_only_the_head_of_the_tail_and_keeps_the_buffer(qtbot):
    from fieldapp.ui.tracklayer import CHUNK, HEAD

    view = _view(qtbot)
    xs, ys = _zigzag(5 * CHUNK + 10)
    view.show_stored_track(xs, ys)
    _wait_history(qtbot, view)
    tl = view.track
    buf, draws, body = tl.x, tl.history_draws, (tl._body_from, tl._body_upto)
    head_calls = []
    real, real_extend = tl.head.setData, tl.head.extend
    tl.head.setData = lambda *a, **k: (head_calls.append(("made", len(a[0]))), real(*a, **k))
    tl.head.extend = lambda *a, **k: (head_calls.append(("extended", len(a[0]))), real_extend(*a, **k))
    tail_calls = []
    real_tail = tl.tail.setData
    tl.tail.setData = lambda *a, **k: (tail_calls.append(len(a[0])), real_tail(*a, **k))
    try:
        view.update_position(X0 + 5.0, Y0 + 7.0, 0.1)
        qtbot.waitUntil(lambda: view.drawn_stamp is None and not view.timer.isActive()
                        and view.draws > 0, timeout=5000)      # the draw timer drew it
    finally:
        del tl.head.setData, tl.head.extend
        tl.tail.setData = real_tail
    assert tl.n == len(xs) + 1 and tl.x is buf            # appended in place
    assert tl.x[tl.n - 1] == 5.0 and tl.y[tl.n - 1] == 7.0
    assert tail_calls == [] and (tl._body_from, tl._body_upto) == body
    # the head on screen goes one segment on (issue 33), not made again from its positions
    assert head_calls == [("extended", 1)]
    hx, hy = tl.head.getData()
    assert (hx[-1], hy[-1]) == (5.0, 7.0) and 2 <= len(hx) <= HEAD + 1
    assert tl.history_draws == draws                      # no history rebuilt for a fix


def test_the_head_extended_fix_by_fix_is_the_line_made_anew(qtbot):
    """Fix by fix across the head's restarts (every HEAD positions), the head drawn is the line
    through the positions after its start, as making it from them gives."""
    import numpy as np
    import pyqtgraph as pg

    from fieldapp.ui.tracklayer import HEAD, TrackLayer

    view = _view(qtbot)
    tl = TrackLayer(view.plot.getPlotItem(), pg.mkPen("k"), -10, parent=view)
    extended = 0
    for i in range(3 * HEAD + 5):
        tl.append(3.0 * i, (-1.0) ** i * i)
        before = len(tl.head.getData()[0])
        tl.draw_tail()
        hx, hy = tl.head.getData()
        start = (tl.n - 1) // HEAD * HEAD
        assert np.array_equal(hx, tl.x[start:tl.n]) and np.array_equal(hy, tl.y[start:tl.n])
        made = pg.arrayToQPath(hx, hy, connect="all") if len(hx) > 1 else type(tl.head.path())()
        assert tl.head.path() == made, i
        extended += len(hx) == before + 1 and before > 1
    assert extended >= 3 * (HEAD - 2)            # most fixes went on the line drawn
    tl.clear()
    tl.append(1.0, 2.0)
    tl.append(4.0, 6.0)
    tl.draw_tail()                                # a cleared track starts a new line
    assert tl.head.path() == pg.arrayToQPath(np.array([1.0, 4.0]), np.array([2.0, 6.0]), connect="all")


def test_the_track_buffer_grows_keeping_every_position(qtbot):
    import numpy as np
    import pyqtgraph as pg

    from fieldapp.ui.tracklayer import CHUNK, TrackLayer

    view = _view(qtbot)
    tl = TrackLayer(view.plot.getPlotItem(), pg.mkPen("k"), -10, capacity=CHUNK + 1, parent=view)
    for i in range(3 * CHUNK):
        tl.append(float(i), float(-i))
    tl.draw_tail()
    assert tl.n == 3 * CHUNK and len(tl.x) >= 3 * CHUNK
    assert np.array_equal(tl.x[:tl.n], np.arange(3 * CHUNK, dtype=float))
    assert tl._frozen == 2                                  # the third chunk is still open
    assert tuple(tl._boxes[1]) == (CHUNK, -2 * CHUNK, 2 * CHUNK, -CHUNK)


def test_zooming_in_asks_for_a_finer_history_and_a_cleared_track_drops_late_answers(qtbot):
    from fieldapp.ui.tracklayer import CHUNK

    view = _view(qtbot)
    xs, ys = _zigzag(4 * CHUNK + 5)
    view.show_stored_track(xs, ys)
    view.zoom_to_all()
    _wait_history(qtbot, view)
    tl = view.track
    coarse = tl._shown_key[0]
    n_coarse = len(tl.history.getData()[0])
    assert _farthest_from_drawn(view, xs, ys) > 0.1        # the 0.2 ft wiggle is simplified away
    view.zoom(0.05)
    qtbot.waitUntil(lambda: tl._shown_key[0] <= coarse - 4 and not tl._busy and tl._wanted is None,
                    timeout=20_000)                        # 20x closer: 4 levels finer
    level = tl._shown_key[0]
    assert _farthest_from_drawn(view, xs, ys) <= 0.5 * 2.0 ** level + 1e-6
    assert 0.5 * 2.0 ** level < 0.1                       # and the wiggle is drawn now
    assert len(tl.history.getData()[0]) != n_coarse
    view.zoom(10.0)
    tl.clear()                                             # another visit: the answer is late
    gen = tl._generation
    qtbot.wait(300)               # a late answer for the old track would land in this time
    assert tl._generation == gen
    assert len(tl.history.getData()[0] if tl.history.getData()[0] is not None else []) == 0
    assert tl.n == 0


def test_an_opened_visit_shows_its_stored_track(qtbot, tmp_path):
    """VisitController.track_ft gives the stored track in site feet, in time order; the map
    shows it when the visit is shown."""
    import dataclasses
    import time
    from datetime import datetime, timedelta

    import numpy as np

    from devices.nmea import Fix, FixMode, FixQuality
    from fieldapp.app.visit import open_visit

    v = open_visit(tmp_path / "track.gpkg", name="track")
    try:
        v.model.start_track()
        t0 = datetime(2026, 6, 1, 14, 0, tzinfo=UTC)
        base = Fix(lat_deg=43.30, lon_deg=-91.79, alt_msl_m=260.0, quality=FixQuality.RTK_FIXED,
                   mode=FixMode.THREE_D, sats_used=14, hdop=0.8, horizontal_accuracy_m=0.01,
                   accuracy_source="GST", t_monotonic_s=time.monotonic())
        for i in range(20):
            v.model.on_fix(dataclasses.replace(base, lat_deg=43.30 + i * 1e-6,
                                               time_utc=t0 + timedelta(seconds=i / 10)))
        xs, ys = v.track_ft()
        assert len(xs) == 20
        frame = v.model.frame
        first = v.project(43.30, -91.79)
        assert (xs[0], ys[0]) == pytest.approx(first, abs=1e-6)
        # 1e-6 degree of latitude is 0.111 m north: 0.365 ft a step
        assert np.diff(ys) == pytest.approx(np.full(19, 0.1111 / 0.3048), rel=2e-2)
        del frame
        view = _view(qtbot)
        view.show_stored_track(xs, ys)
        assert view.track_n == 20 and view.origin == pytest.approx(first)
    finally:
        v.close()


def test_readout_follows_streaming_fixes_twice_a_second_and_ends_on_the_newest(qtbot):
    """Ten fixes a second, each drawn: the readout's numbers change at most twice a second
    (each change repaints the strip under the map), and the last fix's numbers are shown within
    half a second when the fixes stop."""
    view = _view(qtbot)
    shown: list[str] = []
    view.readout.setText = (lambda text, real=view.readout.setText: (shown.append(text), real(text)))
    t0 = time.monotonic()
    for i in range(20):                          # 2 s at 10 Hz, 10 ft a fix: every one drawn
        view.update_position(X0 + 10.0 * i, Y0, 1.0)
        view.redraw()
        qtbot.wait(100)
    elapsed = time.monotonic() - t0
    assert view.draws >= 15
    assert 1 <= len(shown) <= 2 * elapsed + 3        # each draw's own: 20
    qtbot.waitUntil(lambda: view.readout.text().startswith("You  E 1,500,190.0 ft"), timeout=WAIT_MS)
