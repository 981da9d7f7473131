"""The map's point layers keep their bounds between repaints (fieldapp.ui.mapscatter), and give
pyqtgraph's own answer after every change of data, symbols or view."""

from __future__ import annotations

import pyqtgraph as pg

from fieldapp.ui.mapscatter import MapScatter
from fieldapp.ui.mapview import MapView, set_points


def _fresh(item):
    """pyqtgraph's bounds of ``item``, worked out now."""
    return pg.ScatterPlotItem.boundingRect(item)


def test_bounds_are_kept_and_follow_data_symbols_and_view(qtbot):
    view = MapView(redraw_hz=50)
    qtbot.addWidget(view)
    view.resize(700, 450)
    view.show()
    qtbot.waitExposed(view)
    item = view.ohwm_points
    assert isinstance(item, MapScatter)
    vb = view.plot.getPlotItem().getViewBox()
    vb.setRange(xRange=(-100.0, 100.0), yRange=(-100.0, 100.0), padding=0)
    set_points(item, [0.0, 40.0], [0.0, 30.0])
    first = item.boundingRect()
    assert first == _fresh(item) and first.width() > 40.0      # padded by half a diamond
    item._bounds_kept.setWidth(-1.0)                             # not worked out again ...
    assert item.boundingRect().width() == -1.0
    item._bounds_kept.setWidth(first.width())
    set_points(item, [0.0, 80.0], [0.0, 30.0])                  # ... until the data change
    assert item.boundingRect() == _fresh(item) and item.boundingRect().right() > 80.0
    pad = item.boundingRect().right() - 80.0
    vb.setRange(xRange=(-400.0, 400.0), yRange=(-400.0, 400.0), padding=0)    # zoomed out: a
    qtbot.waitUntil(lambda: _fresh(item).right() - 80.0 > 3.0 * pad)          # pixel is more feet
    assert item.boundingRect() == _fresh(item)
    pad = item.boundingRect().right() - 80.0
    item.setSize(60)                                            # bigger symbols, more padding
    assert item.boundingRect() == _fresh(item)
    assert item.boundingRect().right() - 80.0 > 2.0 * pad
    pad = item.boundingRect().right() - 80.0
    vb.setRange(xRange=(-50.0, 150.0), yRange=(-100.0, 100.0), padding=0)     # zoomed in again
    qtbot.waitUntil(lambda: _fresh(item).right() - 80.0 < pad / 2.0)
    assert item.boundingRect() == _fresh(item)
    item.clear()
    assert item.boundingRect() == _fresh(item)
