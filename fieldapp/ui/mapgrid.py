"""The map's grid: faint lines at round site feet, one scale bar apart, drawn in one call.

The map is a map, not a chart: no East / North axes with tick labels (the readout under the map
gives the cursor's and the crew's coordinates, the scale bar the scale). What is left of the
chart's grid is its use in the field, judging distances by eye: lines every scale-bar length
(:func:`fieldapp.ui.mapview.nice_length_ft` of the view's width: 1, 2, 5, 10, 20, 25, 50 ...
ft), at whole multiples of it in site feet, so a line stays on the same ground as the view
pans. pyqtgraph's axis grid cost 7-10 ms a pan or zoom frame (regenerating tick specs in
Python, painting through a cached pixmap of the whole view); this is one ``drawLines`` of a few
dozen cosmetic lines, under 0.5 ms.
"""

from __future__ import annotations

import math
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QLineF, QRectF
from PySide6.QtGui import QColor, QPen

#: Most lines drawn each way (a degenerate view never asks for thousands).
MAX_LINES = 200


def grid_positions(lo: float, hi: float, step: float, offset: float = 0.0) -> list[float]:
    """Display coordinates in [``lo``, ``hi``] of the lines at whole multiples of ``step`` in
    site feet, where display = site feet - ``offset`` (the map's display origin). Empty when
    ``step`` is not positive or more than :data:`MAX_LINES` would be drawn."""
    if not step > 0 or not hi >= lo:
        return []
    first = math.ceil((lo + offset) / step)
    last = math.floor((hi + offset) / step)
    if last - first + 1 > MAX_LINES:
        return []
    return [k * step - offset for k in range(first, last + 1)]


class GridLines(pg.GraphicsObject):
    """Grid lines over the whole view, ``step_ft`` apart (set by the map with its scale bar),
    at whole multiples of it in site feet; ``offset`` is the map's display origin (site ft)."""

    def __init__(self, colour: Any = (0, 0, 0, 56)) -> None:
        super().__init__()
        self.step_ft = 0.0
        self.offset = (0.0, 0.0)
        self._pen = QPen(QColor(*colour))
        self._pen.setCosmetic(True)
        self._pen.setWidth(1)
        self._rect = QRectF()
        # the lines of the view drawn last and what they were made for: every repaint of the
        # marker repaints the grid under it, ten a second, and the lines only change with the
        # view, the step or the origin (issue 33: 36 -> 7 us a repaint)
        self._lines: list[QLineF] = []
        self._lines_for: tuple[Any, ...] | None = None

    def set_step(self, step_ft: float, offset: tuple[float, float]) -> None:
        """Lines ``step_ft`` apart; ``offset``: the display origin in site feet."""
        if (step_ft, offset) != (self.step_ft, self.offset):
            self.step_ft, self.offset = float(step_ft), (float(offset[0]), float(offset[1]))
            self.update()

    def viewRangeChanged(self) -> None:  # noqa: N802 - pyqtgraph's hook
        vb = self.getViewBox()
        rect = vb.viewRect() if vb is not None else QRectF()
        if rect != self._rect:
            self.prepareGeometryChange()
            self._rect = rect

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt name
        return QRectF(self._rect)

    def lines(self) -> list[QLineF]:
        """The lines of the current view (display coordinates); made again only when the view,
        the step or the origin changed since the last call (the list is the caller's to read,
        not to change)."""
        r, (ox, oy) = self._rect, self.offset
        key = (r.left(), r.right(), r.top(), r.bottom(), self.step_ft, ox, oy)
        if key != self._lines_for:
            xs = grid_positions(r.left(), r.right(), self.step_ft, ox)
            ys = grid_positions(r.top(), r.bottom(), self.step_ft, oy)
            self._lines = ([QLineF(x, r.top(), x, r.bottom()) for x in xs]
                           + [QLineF(r.left(), y, r.right(), y) for y in ys])
            self._lines_for = key
        return self._lines

    def paint(self, p: Any, *_args: Any) -> None:
        lines = self.lines()
        if lines:
            p.setPen(self._pen)
            p.drawLines(lines)
