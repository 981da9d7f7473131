"""Tree crowns on the map: one painter path per colour, so a tally of thousands paints in C++.

A ``pyqtgraph.ScatterPlotItem`` in data units (``pxMode=False``) draws its symbols one by one in
Python at every paint (0.1 s for 4,000 crowns, at every pan, zoom and followed fix) and builds a
brush per tree at every change. Here each colour of crown (the stand's woodland class, or small
trees) is one :class:`QGraphicsPathItem` holding a circle per tree: painting and hit-testing
stay in Qt whatever the tally, and a squeeze rebuilds only the paths, never per-tree brushes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QBrush, QColor, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsPathItem

__all__ = ["CrownLayer"]

OUTLINE = "#0a3d0a"
FILL_ALPHA = 110


class CrownLayer:
    """Crown circles of the tally in one plot (``plot_item``: a pyqtgraph PlotItem).

    :meth:`set_crowns` takes ``(x, y, radius, colour)`` in site feet with the plot's origin
    (the map's local feet are site feet less it) and replaces what is drawn; a squeeze adds
    one circle to its colour's path, the others are kept.
    """

    def __init__(self, plot_item: Any, z: float = 0.0) -> None:
        self._plot_item = plot_item
        self._z = z
        self._items: dict[str, QGraphicsPathItem] = {}
        self._shown: list[Any] = []                  # the crowns drawn, as given
        self._origin: tuple[float, float] = (0.0, 0.0)
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

    def set_crowns(self, crowns: Sequence[tuple[float, float, float, str]],
                   origin: tuple[float, float] = (0.0, 0.0)) -> None:
        """Draw ``crowns`` (x, y, radius ≥ 0.5 drawn, colour; the map's site feet) less
        ``origin`` (the map's display origin) instead of the previous ones.

        When ``crowns`` begins with the crowns drawn last (a squeeze appends one tree), only the
        new ones are added to the paths; anything else draws every path again.
        """
        n = len(self._shown)
        more = origin == self._origin and len(crowns) >= n and crowns[:n] == self._shown
        paths: dict[str, QPainterPath] = {}
        ox, oy = origin
        for x, y, r, colour in (crowns[n:] if more else crowns):
            path = paths.get(colour)
            if path is None:
                kept = self._items.get(colour) if more else None
                path = paths[colour] = QPainterPath(kept.path()) if kept is not None else QPainterPath()
                path.setFillRule(Qt.FillRule.WindingFill)   # overlapping crowns stay filled
            r = max(float(r), 0.5)
            path.addEllipse(QPointF(x - ox, y - oy), r, r)
        for colour in set(paths) if more else set(self._items) | set(paths):
            self._item(colour).setPath(paths.get(colour, QPainterPath()))
        self._shown, self._origin = list(crowns), origin
        self.count = len(crowns)

    def paths(self) -> dict[str, QPainterPath]:
        """The path drawn in each colour (for tests: what the map shows)."""
        return {c: i.path() for c, i in self._items.items()}
