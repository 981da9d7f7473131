"""The map's crown layer (fieldapp.ui.crowns): a squeeze adds one circle to its colour's path and
leaves the other paths alone; any other change draws what a fresh layer would."""

from __future__ import annotations

import pyqtgraph as pg
import pytest

from fieldapp.ui.crowns import CrownLayer

ELLIPSE = 13   # a move and 4 cubic curves of 3 points: one crown circle in a QPainterPath


def _layer(qtbot):
    plot = pg.PlotWidget()
    qtbot.addWidget(plot)
    layer = CrownLayer(plot.getPlotItem())
    layer.widget = plot       # the plot lives as long as its layer
    return layer


def _elements(path) -> list[tuple[float, float]]:
    return [(path.elementAt(i).x, path.elementAt(i).y) for i in range(path.elementCount())]


def test_a_squeeze_extends_only_its_colours_path(qtbot):
    layer = _layer(qtbot)
    crowns = [(110.0, 220.0, 5.0, "#111111"), (130.0, 220.0, 0.2, "#111111"),
              (100.0, 200.0, 8.0, "#222222")]
    layer.set_crowns(crowns, (100.0, 200.0))
    paths = layer.paths()
    # local feet: site feet less the origin; a radius under 0.5 ft is drawn 0.5 ft
    r = paths["#111111"].boundingRect()
    assert (r.left(), r.right(), r.top(), r.bottom()) == pytest.approx((5.0, 30.5, 15.0, 25.0))
    assert paths["#222222"].boundingRect().center().toTuple() == pytest.approx((0.0, 0.0))
    other = layer._items["#222222"].path()
    layer.set_crowns(crowns + [(150.0, 250.0, 4.0, "#111111")], (100.0, 200.0))
    assert layer.count == 4
    assert layer.paths()["#111111"].elementCount() == 3 * ELLIPSE
    assert layer.paths()["#111111"].boundingRect().right() == pytest.approx(54.0)
    assert layer._items["#222222"].path() == other          # not set again


@pytest.mark.parametrize("change", ["edit", "delete", "origin", "empty"])
def test_any_other_change_draws_what_a_fresh_layer_draws(qtbot, change):
    crowns = [(float(10 * i), 5.0, 3.0 + i, "#111111" if i % 2 else "#222222") for i in range(6)]
    layer = _layer(qtbot)
    layer.set_crowns(crowns, (0.0, 0.0))
    origin = (0.0, 0.0)
    if change == "edit":
        crowns = crowns[:2] + [(20.0, 5.0, 9.0, "#111111")] + crowns[3:]
    elif change == "delete":
        crowns = crowns[:1] + crowns[2:]
    elif change == "origin":
        origin = (7.0, -3.0)
    else:
        crowns = []
    layer.set_crowns(crowns, origin)
    fresh = _layer(qtbot)
    fresh.set_crowns(crowns, origin)
    got = {c: _elements(p) for c, p in layer.paths().items() if p.elementCount()}
    assert got == {c: _elements(p) for c, p in fresh.paths().items()}
    assert layer.count == len(crowns)
