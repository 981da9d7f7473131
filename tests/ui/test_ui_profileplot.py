"""The transect profile's slope labels: one per run of equal slopes, never overlapping one
another, the base/bank labels or the ground line, always inside the view (headroom above the
highest point); left out when there is no room."""

from __future__ import annotations

import pytest

from fieldapp.ui.profileplot import label_runs, place_labels

# The demo transect of docs/screenshots/transect.png: 4, 4, 18, 18, 20, 20, 5, 5, 3, 3 %
DEMO = [(20, 4), (20, 4), (20, 18), (20, 18), (20, 20), (20, 20), (30, 5), (30, 5), (35, 3), (35, 3)]


def test_label_runs_merge_equal_slopes_as_shown():
    # 4.0 and 4.001 both read "4.00 %": one label over 0-2; 18 and 18 over 2-4 ...
    assert label_runs([(20, 4.0), (20, 4.001), (20, 18.0), (20, 18.0), (40, 5.0)]) == [
        (0, 1, "4.00 %"), (2, 3, "18.00 %"), (4, 4, "5.00 %")]
    # ... and 17.99 % is not 18 %: shown as the verdict's inputs show it (fieldapp.rules.shown)
    assert label_runs([(20, 17.99), (20, 18.0)]) == [(0, 0, "17.99 %"), (1, 1, "18.00 %")]
    assert [r[2] for r in label_runs(DEMO)] == ["4.00 %", "18.00 %", "20.00 %", "5.00 %", "3.00 %"]
    assert label_runs([]) == []


def test_crowded_labels_are_staggered_then_left_out():
    """Three 50 x 20 px labels over runs 0-20, 20-40, 40-60 px of a flat ground at y = 80 px in
    a 200 x 100 px view (gap 3 px around each)."""
    sizes = [(50.0, 20.0)] * 3
    boxes = [(0.0, 20.0), (20.0, 40.0), (40.0, 60.0)]
    ground = ([0.0, 200.0], [80.0, 80.0])
    spots = place_labels(boxes, sizes, [0, 1, 2], (200.0, 100.0), ground, gap_px=3.0, rows=1)
    # label 0: centre 10 pulled in to 25 + 3 = 28 (inside the view); bottom 80 - 3 = 77
    assert spots[0] == (28.0, 77.0)
    # label 1 (centre 30, rect 2..58 x 54..80 padded, overlapping label 0 at every shift of its
    # row; shifted half a width right (30 + 25 = 55) its padded rect 27..83 still overlaps):
    # raised one row: bottom 77 - (20 + 2 x 3) = 51, at its centre 30
    assert spots[1] == (30.0, 51.0)
    # label 2 (centre 50; tried at 50, 37.5, 62.5, 28, 75): every padded rect of row 0 starts
    # left of 56 (label 0's right edge), every one of row 1 left of 58 (label 1's); below the
    # ground its bottom would be 80 + 3 + 20 = 103 > 100 px: no spot, left out
    assert spots[2] is None


def test_a_label_at_the_top_edge_goes_below_the_line_not_out_of_view():
    # ground at 10 px from the top: above it a 20 px label would stick out (10 - 3 - 20 < 0);
    # below: bottom 10 + 3 + 20 = 33
    spots = place_labels([(80.0, 120.0)], [(40.0, 20.0)], [0], (200.0, 100.0),
                         ([0.0, 200.0], [10.0, 10.0]), gap_px=3.0)
    assert spots == [(100.0, 33.0)]


def test_obstacles_are_kept_clear_of():
    # a vertical line at x = 100 px (98..102) across the whole view: the 40 px label of the run
    # 90..110 is tried at 100, 90, 110, 80, 120; padded (+-23 px) every one crosses 98..102, at
    # every row and below the line -> left out
    line = [(98.0, 0.0, 102.0, 100.0)]
    assert place_labels([(90.0, 110.0)], [(40.0, 20.0)], [0], (200.0, 100.0),
                        ([0.0, 200.0], [80.0, 80.0]), line, gap_px=3.0) == [None]
    # the line at 150 instead: the label at the run's centre (100, padded 77..123) is clear,
    # on the ground's row 0: bottom 80 - 3 = 77
    line = [(148.0, 0.0, 152.0, 100.0)]
    assert place_labels([(60.0, 140.0)], [(40.0, 20.0)], [0], (200.0, 100.0),
                        ([0.0, 200.0], [80.0, 80.0]), line, gap_px=3.0) == [(100.0, 77.0)]


def _ink_rect(label):
    m = label.textItem.document().documentMargin()
    return label.sceneBoundingRect().adjusted(m, m, -m, -m)


@pytest.mark.parametrize("size", [(620, 240), (480, 220)])
def test_demo_profile_labels_are_legible(qtbot, size):
    from fieldapp.ui.profileplot import ProfilePlot

    plot = ProfilePlot()
    qtbot.addWidget(plot)
    plot.resize(*size)
    plot.show()
    qtbot.waitExposed(plot)
    plot.set_profile(DEMO, 12.0, 75.0, 120.0, None)
    plot.redraw()
    qtbot.wait(100)
    labels = plot.slope_labels
    # one label per run of equal slopes: 5, not 10 ("4.0 %4.0 %" no more)
    assert [lab.toPlainText() for lab in labels] == ["4.00 %", "18.00 %", "20.00 %", "5.00 %", "3.00 %"]
    shown = [lab for lab in labels if lab.isVisible()]
    assert shown, "no slope label shown at all"
    view = plot.ground_plot.getViewBox().sceneBoundingRect()
    others = [plot.base_lines[0].label, plot.bank_lines[0].label]
    rects = [_ink_rect(lab) for lab in shown]
    for lab, r in zip(shown, rects, strict=True):
        assert view.contains(r), (lab.toPlainText(), r, view)  # nothing cut at the top edge
        for o in others:
            assert not r.intersects(_ink_rect(o)), (lab.toPlainText(), o.toPlainText())
    for i, a in enumerate(rects):
        for b in rects[i + 1:]:
            assert not a.intersects(b)
    if size == (620, 240):
        # room for all five at the screenshot's size (seen in the rendered PNG)
        assert len(shown) == 5
    # headroom: the view top is at least one label height above the highest point (22 ft)
    (_x0, _x1), (_y0, y1) = plot.ground_plot.getViewBox().viewRange()
    px_per_ft = plot.ground_plot.getViewBox().height() / (y1 - _y0)
    assert (y1 - 22.0) * px_per_ft >= plot._label_height_px()


@pytest.mark.parametrize("base, threshold, bank", [(75.0, 12.0, None), (300.0, 10.0, None),
                                                   (75.0, 12.0, 300.0)])
def test_empty_profile_shows_a_frame_and_a_hint(qtbot, base, threshold, bank):
    from fieldapp.ui.profileplot import EMPTY_HINT, ProfilePlot

    plot = ProfilePlot()
    qtbot.addWidget(plot)
    plot.resize(620, 240)
    plot.show()
    qtbot.waitExposed(plot)
    # before any data: the default frame (75 ft base, 12 %), not pyqtgraph's -0.4..0.4 ft
    (x0, x1), (y0, y1) = plot.ground_plot.getViewBox().viewRange()
    assert (x0, x1, y0, y1) == pytest.approx((0.0, 100.0, 0.0, 10.0))  # 75 + 25 ft; 10 ft up
    assert plot.empty_hint.isVisible() and plot.empty_hint.toPlainText() == EMPTY_HINT
    assert plot.threshold.value() == pytest.approx(12.0)
    plot.set_profile([], threshold, base, bank, bank)
    plot.redraw()
    (x0, x1), (y0, y1) = plot.ground_plot.getViewBox().viewRange()
    # base + 25 ft across (the stipulated 300 ft bank + 25 ft when known), 0..10 ft up
    assert (x0, x1, y0, y1) == pytest.approx((0.0, max(base, bank or 0.0) + 25.0, 0.0, 10.0))
    assert plot.threshold.value() == pytest.approx(threshold)
    assert plot.empty_hint.isVisible()
    # centred: the hint's middle at the middle of the view (in view coordinates)
    assert (plot.empty_hint.pos().x(), plot.empty_hint.pos().y()) == pytest.approx(
        ((x0 + x1) / 2.0, 5.0))
    assert tuple(plot.empty_hint.anchor) == (0.5, 0.5)
    # the first station hides the hint and fits the data (20 ft at 4 %: 0.8 ft up)
    plot.set_profile([(20.0, 4.0)], threshold, base, None, 20.0)
    plot.redraw()
    assert not plot.empty_hint.isVisible()
    assert list(plot.ground.getData()[0]) == [0.0, 20.0]
    # and no stations again (last station removed): the empty frame comes back
    plot.set_profile([], threshold, base, None, None)
    plot.redraw()
    xs = plot.ground.getData()[0]
    assert plot.empty_hint.isVisible() and (xs is None or len(xs) == 0)
    assert plot.ground_plot.getViewBox().viewRange()[0] == pytest.approx([0.0, base + 25.0])


def test_ranges_grow_in_round_steps_not_with_every_station(qtbot):
    from fieldapp.ui.profileplot import ProfilePlot, snap_out, snap_up

    assert [snap_up(v) for v in (1.0, 1.2, 7.0, 96.0, 102.0, 131.0, 160.0, 0.0)] == [
        1.0, 1.5, 8.0, 100.0, 150.0, 150.0, 200.0, 0.0]
    # span 23 ft: a fifth is 4.6 ft, the round step 2 ft: 98.3 .. 121.3 -> 98 .. 122
    assert snap_out(98.3, 121.3) == pytest.approx((98.0, 122.0))
    assert snap_out(5.0, 5.0) == (5.0, 5.0)
    plot = ProfilePlot()
    qtbot.addWidget(plot)
    plot.resize(620, 240)
    plot.show()
    qtbot.waitExposed(plot)
    stations = [(10.0, 8.0), (10.0, 9.0), (10.0, 7.0)]
    plot.set_profile(stations, 12.0, 75.0, None, 30.0)
    plot.redraw()
    vb = plot.ground_plot.getViewBox()
    first = [v for pair in vb.viewRange() for v in pair]
    # 75 ft base x 1.08 + 5 = 86 ft -> 100 ft across; one more 10 ft station, lower than the
    # highest, keeps the view
    assert first[:2] == pytest.approx([0.0, 100.0])
    plot.set_profile(stations + [(10.0, -5.0)], 12.0, 75.0, None, 40.0)   # 2.4 ft -> 1.9 ft up
    plot.redraw()
    assert [v for pair in vb.viewRange() for v in pair] == pytest.approx(first)
