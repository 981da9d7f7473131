"""The map's grid: lines one scale bar apart at round site feet, following the view."""

from __future__ import annotations

import pytest

from fieldapp.ui.mapgrid import MAX_LINES, grid_positions
from fieldapp.ui.mapview import MapView


def test_lines_sit_on_round_site_feet_not_on_the_display_origin():
    # display = site ft - 1,000,010; site ft 999,890 .. 1,000,140 holds 999,900 ... 1,000,100
    assert grid_positions(-120.0, 130.0, 50.0, 1_000_010.0) == [-110.0, -60.0, -10.0, 40.0, 90.0]
    assert grid_positions(0.0, 100.0, 25.0) == [0.0, 25.0, 50.0, 75.0, 100.0]


def test_no_lines_for_a_degenerate_step_or_view():
    assert grid_positions(0.0, 100.0, 0.0) == []
    assert grid_positions(100.0, 0.0, 10.0) == []
    assert grid_positions(0.0, 10.0 * MAX_LINES, 10.0) == []        # 201 lines: none drawn
    assert len(grid_positions(0.0, 10.0 * (MAX_LINES - 1), 10.0)) == MAX_LINES


def test_the_map_has_no_axes_and_its_grid_follows_the_scale_bar(qtbot):
    view = MapView(redraw_hz=50)
    qtbot.addWidget(view)
    view.resize(700, 450)
    view.show()
    qtbot.waitExposed(view)
    pi = view.plot.getPlotItem()
    assert not pi.getAxis("bottom").isVisible() and not pi.getAxis("left").isVisible()
    view.update_position(500_003.0, 4_000_007.0, 1.0)      # the display origin
    view.redraw()
    view.set_follow(False)
    pi.getViewBox().setRange(xRange=(-400.0, 600.0), yRange=(-300.0, 300.0), padding=0)

    def shown():
        (a, b), (c, d) = pi.getViewBox().viewRange()
        r = view.grid.boundingRect()
        return (r.left(), r.right(), r.top(), r.bottom()) == pytest.approx((a, b, c, d))

    qtbot.waitUntil(shown)
    (x0, x1), (y0, y1) = pi.getViewBox().viewRange()
    assert x0 <= -400.0 and 600.0 <= x1 and x1 - x0 < 1100.0    # widened a little to 700 x 450 px
    step = view.scale_widget.length_ft
    assert step == 200.0                       # about a fifth of the 1,000 ft width, rounded
    assert view.grid.step_ft == step
    assert "200 ft apart" in view.scale_widget.toolTip()
    verticals = sorted({ln.x1() for ln in view.grid.lines() if ln.x1() == ln.x2()})
    # site easting 500,003 + x on whole multiples of 200 ft: ... 499,600, 499,800 ... -> x = -403, -203 ...
    assert verticals == [x for x in (-603.0, -403.0, -203.0, -3.0, 197.0, 397.0, 597.0, 797.0)
                         if x0 <= x <= x1]
    horizontals = sorted({ln.y1() for ln in view.grid.lines() if ln.y1() == ln.y2()})
    assert horizontals and all((y + 4_000_007.0) % 200.0 == 0 for y in horizontals)
    assert all(y0 <= y <= y1 for y in horizontals)


def test_the_lines_are_made_again_only_when_the_view_step_or_origin_changed(qtbot):
    # every repaint of the marker repaints the grid under it (ten a second while fixes stream):
    # the same view paints the same lines without making them again
    from PySide6.QtCore import QRectF

    from fieldapp.ui.mapgrid import GridLines

    grid = GridLines()
    grid._rect = QRectF(-100.0, -50.0, 200.0, 100.0)
    grid.set_step(50.0, (0.0, 0.0))
    first = grid.lines()
    assert sorted({ln.x1() for ln in first if ln.x1() == ln.x2()}) == [-100.0, -50.0, 0.0, 50.0, 100.0]
    assert grid.lines() is first                    # nothing changed: not made again
    grid.set_step(25.0, (0.0, 0.0))                 # a new step: new lines
    assert len({ln.x1() for ln in grid.lines() if ln.x1() == ln.x2()}) == 9
    grid.set_step(25.0, (10.0, 0.0))                # a new origin: lines on its round feet
    assert sorted({ln.x1() for ln in grid.lines() if ln.x1() == ln.x2()})[0] == -85.0
    grid._rect = QRectF(0.0, -50.0, 100.0, 100.0)   # the view moved (viewRangeChanged sets it)
    assert sorted({ln.x1() for ln in grid.lines() if ln.x1() == ln.x2()}) == [15.0, 40.0, 65.0, 90.0]
