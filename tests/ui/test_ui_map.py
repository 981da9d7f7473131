"""The site map keeps one local origin per visit: a recorded feature keeps its displayed East/
North while the user walks far away (the axes and grid follow the view with follow-me)."""

from __future__ import annotations

from fieldapp.ui.mapview import MapView

# A UTM-sized site position in feet; the map shows feet minus its first position.
X0, Y0 = 1_500_000.0, 15_000_000.0


def _axis_range(view: MapView, name: str) -> list[float]:
    return list(view.plot.getPlotItem().getAxis(name).range)


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
    # the East/North axes show what the view shows (they used to keep the start's range)
    (vx0, vx1), (vy0, vy1) = view.plot.getPlotItem().getViewBox().viewRange()
    assert vx0 < -800.0 < vx1 and vy0 < 400.0 < vy1
    bx = _axis_range(view, "bottom")
    ly = _axis_range(view, "left")
    assert abs(bx[0] - vx0) < 1e-6 and abs(bx[1] - vx1) < 1e-6
    assert abs(ly[0] - vy0) < 1e-6 and abs(ly[1] - vy1) < 1e-6
