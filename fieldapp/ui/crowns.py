"""Tree crowns on the map: one painter path per colour, so a tally of thousands paints in C++.

A ``pyqtgraph.ScatterPlotItem`` in data units (``pxMode=False``) draws its symbols one by one in
Python at every paint (0.1 s for 4,000 crowns, at every pan, zoom and followed fix) and builds a
brush per tree at every change. Here each colour of crown (the stand's woodland class, or small
trees) is one :class:`QGraphicsPathItem` holding a circle per tree: painting and hit-testing
stay in Qt whatever the tally, and a squeeze rebuilds only the paths, never per-tree brushes.
"""

from __future__ import annotations

from typing import Any, Sequence

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QBrush, QColor, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsPathItem

__all__ = ["CrownLayer"]

OUTLINE = "#0a3d0a"
FILL_ALPHA = 110


class CrownLayer:
    """Crown circles of the tally in one plot (``plot_item``: a pyqtgraph PlotItem).

    :meth:`set_crowns` takes ``(x, y, radius, colour)`` in the plot's units (the map's local
    feet) and replaces what is drawn.
    """

    def __init__(self, plot_item: Any, z: float = 0.0) -> None:
        self._plot_item = plot_item
        self._z = z
        self._items: dict[str, QGraphicsPathItem] = {}
        self.count = 0

    def _item(self, colour: str) -> QGraphicsPathItem:
        item = self._items.get(colour)
        if item is None:
            fill = QColor(colour)
            fill.setAlpha(FILL_ALPHA)
            pen = QPen(QColor(OUTLINE))
            # width 0: Qt's one-pixel cosmetic line at any zoom, as the scatter's pen was; a
            # wider pen makes QGraphicsPathItem stroke the whole path to find its bounds at
            # every paint (40 ms for 4,000 crowns)
            pen.setWidth(0)
            item = QGraphicsPathItem()
            item.setBrush(QBrush(fill))
            item.setPen(pen)
            item.setZValue(self._z)
            self._items[colour] = item
            self._plot_item.addItem(item)
        return item

    def set_crowns(self, crowns: Sequence[tuple[float, float, float, str]]) -> None:
        """Draw ``crowns`` (x, y, radius ≥ 0.5 drawn, colour) instead of the previous ones."""
        paths: dict[str, QPainterPath] = {}
        for x, y, r, colour in crowns:
            path = paths.get(colour)
            if path is None:
                path = paths[colour] = QPainterPath()
                path.setFillRule(Qt.WindingFill)   # overlapping crowns stay filled
            r = max(float(r), 0.5)
            path.addEllipse(QPointF(x, y), r, r)
        for colour in set(self._items) | set(paths):
            self._item(colour).setPath(paths.get(colour, QPainterPath()))
        self.count = len(crowns)

    def paths(self) -> dict[str, QPainterPath]:
        """The path drawn in each colour (for tests: what the map shows)."""
        return {c: i.path() for c, i in self._items.items()}
