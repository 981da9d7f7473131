"""Map labels never print over each other or over another bank's X."""

from __future__ import annotations

from fieldapp.ui.maplabels import placement_order, shown_labels
from fieldapp.ui.mapview import MapView


def test_overlapping_labels_after_the_first_are_left_out_checks_before_notes():
    rects = [(0, 0, 100, 20), (50, 10, 150, 30), (200, 0, 300, 20), (90, 0, 120, 20)]
    texts = ["✎ fence corner", "bank 120 ft", "protective area 50 ft", "✎ culvert"]
    order = placement_order(texts)
    assert order == [1, 2, 0, 3]                 # the checks' labels first, then the notes
    # the bank label is placed; the first note meets it, the second meets it too
    assert shown_labels(rects, order) == [False, True, True, False]
    # a gap under 2 px counts as meeting; 2 px does not
    assert shown_labels([(0, 0, 10, 10), (11, 0, 20, 10)], [0, 1]) == [True, False]
    assert shown_labels([(0, 0, 10, 10), (12, 0, 20, 10)], [0, 1]) == [True, True]


def test_a_label_never_covers_another_labels_mark():
    # three banks 40 px apart, each label 110 px to the right of its X (22 px across)
    rects = [(x + 3, -10, x + 113, 10) for x in (0, 40, 80)]
    marks = [(x - 11, -11, x + 11, 11) for x in (0, 40, 80)]
    assert shown_labels(rects, [0, 1, 2], marks) == [False, False, True]


def test_map_shows_two_of_three_crowded_bank_labels_and_all_when_zoomed_in(qtbot):
    view = MapView(redraw_hz=50)
    qtbot.addWidget(view)
    view.resize(700, 450)
    view.show()
    qtbot.waitExposed(view)
    x0, y0 = 1000.0, 2000.0
    view.update_position(x0, y0, 1.0)
    view.set_labels([(x0 + 30.0 * i, y0, "bank 120 ft", "#cc0000") for i in range(3)])
    view.redraw()
    view.set_follow(False)
    vb = view.plot.getPlotItem().getViewBox()
    vb.setRange(xRange=(-1000.0, 1000.0), yRange=(-600.0, 600.0), padding=0)  # 30 ft = 10 px
    # the first left of its X, the last right of its own; the middle one has no free place
    qtbot.waitUntil(lambda: [i.isVisible() for i in view.label_items] == [True, False, True])
    assert tuple(view.label_items[0].anchor) == (1.12, 0.5)
    assert tuple(view.label_items[2].anchor) == (-0.12, 0.5)
    vb.setRange(xRange=(-10.0, 90.0), yRange=(-30.0, 30.0), padding=0)        # 30 ft = 200 px
    qtbot.waitUntil(lambda: all(i.isVisible() for i in view.label_items))


def test_no_label_prints_over_the_ohwm_label(qtbot):
    view = MapView(redraw_hz=50)
    qtbot.addWidget(view)
    view.resize(700, 450)
    view.show()
    qtbot.waitExposed(view)
    x0, y0 = 1000.0, 2000.0
    view.update_position(x0, y0, 1.0)
    view.set_follow(False)
    vb = view.plot.getPlotItem().getViewBox()
    vb.setRange(xRange=(-100.0, 100.0), yRange=(-60.0, 60.0), padding=0)
    # the OHWM starts where a bank label (right of its X) would cover "OHWM" (right, above)
    view.set_lines("ohwm", [[(x0, y0), (x0 + 50.0, y0)]])
    view.set_labels([(x0 - 3.0, y0 + 2.0, "bank 120 ft", "#cc0000"),
                     (x0 - 60.0, y0 - 40.0, "bank 75 ft", "#cc0000")])
    view.redraw()
    qtbot.waitUntil(lambda: view.ohwm_label.isVisible()
                    and [i.isVisible() for i in view.label_items] == [True, True])
    # the first goes left of its X (its right is the OHWM label's), the second where it was
    assert [tuple(i.anchor) for i in view.label_items] == [(1.12, 0.5), (-0.12, 0.5)]


def test_a_label_goes_to_its_next_place_when_the_first_is_taken():
    from fieldapp.ui.maplabels import placed_labels

    taken = [(0, 0, 100, 20)]                               # placed first
    right, left = (90, 0, 190, 20), (-200, 0, -100, 20)     # the bank's two places
    assert placed_labels([taken, [right, left]], [0, 1]) == [0, 1]
    assert placed_labels([taken, [right, (50, 0, 150, 20)]], [0, 1]) == [0, None]


def test_a_bank_label_blocked_on_the_right_by_ohwm_goes_left_of_its_x(qtbot):
    view = MapView(redraw_hz=50)
    qtbot.addWidget(view)
    view.resize(700, 450)
    view.show()
    qtbot.waitExposed(view)
    x0, y0 = 1000.0, 2000.0
    view.update_position(x0, y0, 1.0)
    view.set_follow(False)
    vb = view.plot.getPlotItem().getViewBox()
    vb.setRange(xRange=(-100.0, 100.0), yRange=(-60.0, 60.0), padding=0)
    view.set_lines("ohwm", [[(x0, y0), (x0 + 50.0, y0)]])
    view.set_labels([(x0 - 3.0, y0 + 2.0, "bank 120 ft", "#cc0000")])
    view.redraw()
    qtbot.waitUntil(lambda: view.label_items and view.label_items[0].isVisible())
    assert tuple(view.label_items[0].anchor) == (1.12, 0.5)     # left of its X


def test_data_points_are_diamonds_that_stay_when_their_labels_give_way(qtbot):
    """Five data points within a few feet: four labels take the places beside the diamonds
    (right, left, above, below), the upland point's label gives way, its open diamond stays
    (the wetland ones filled); zoomed in every label shows, none over a diamond."""
    from PySide6.QtCore import QPointF

    from fieldapp.ui.mapview import DATA_POINT_MARK_PX

    view = MapView(redraw_hz=50)
    qtbot.addWidget(view)
    view.resize(700, 450)
    view.show()
    qtbot.waitExposed(view)
    x0, y0 = 1000.0, 2000.0
    view.update_position(x0, y0, 1.0)
    view.set_follow(False)
    wet = [(x0 + 10.0 + 3.0 * i, y0) for i in range(4)]
    up = (x0 + 22.0, y0 + 3.0)
    view.set_markers("data_wetland", wet)
    view.set_markers("data_upland", [up])
    view.set_labels([(*p, f"DP-{i + 1} wetland", "#00639a") for i, p in enumerate(wet)]
                    + [(*up, "DP-5 upland", "#8a4b00")])
    view.redraw()
    vb = view.plot.getPlotItem().getViewBox()
    vb.setRange(xRange=(-1000.0, 1000.0), yRange=(-600.0, 600.0), padding=0)  # 3 ft = 1 px
    qtbot.waitUntil(lambda: [i.isVisible() for i in view.label_items] == [True] * 4 + [False])
    assert view.label_kinds == ["marker"] * 5
    ox, oy = view.origin
    for name, pts, filled in (("data_wetland", wet, True), ("data_upland", [up], False)):
        item = view.marker_items[name]
        assert item.isVisible() and item.zValue() > max(i.zValue() for i in view.label_items)
        xs, ys = item.getData()
        assert (list(xs), list(ys)) == ([x - ox for x, _ in pts], [y - oy for _, y in pts])
        spot = item.points()[0]
        assert spot.symbol() == "d" and spot.size() == DATA_POINT_MARK_PX >= 24
        assert (spot.brush().color().name() != "#ffffff") is filled      # open: white inside

    def clear_of_every_diamond():
        half = DATA_POINT_MARK_PX / 2.0
        for x, y in [*wet, up]:
            c = vb.mapViewToScene(QPointF(x - ox, y - oy))
            for label in view.label_items:
                r = label.mapRectToScene(label.boundingRect())
                if label.isVisible() and (r.left() < c.x() + half and c.x() - half < r.right()
                                          and r.top() < c.y() + half and c.y() - half < r.bottom()):
                    return False
        return True
    assert clear_of_every_diamond()
    vb.setRange(xRange=(-5.0, 45.0), yRange=(-15.0, 15.0), padding=0)         # 3 ft = 42 px
    qtbot.waitUntil(lambda: all(i.isVisible() for i in view.label_items))
    assert clear_of_every_diamond()
