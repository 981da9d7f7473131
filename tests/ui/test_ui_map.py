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
