"""The map's point layers: pyqtgraph's ScatterPlotItem with its bounds kept between repaints.

Qt asks every item of the map for its bounds at every repaint, the marker's ten a second
included; a ScatterPlotItem answered in Python each time, working out the size of a screen
pixel in the view (pixelVectors, deviceTransform) to pad its data bounds by half a symbol:
about 30 us an item a repaint, for bounds that only change with the data, the symbols or
the view (issue 33). :class:`MapScatter` keeps the answer until one of those changes:
pyqtgraph calls :meth:`updateSpots` last when the data or the symbols changed, :meth:`clear`
when they went, :meth:`viewTransformChanged` on a pan, zoom or resize.
"""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QRectF


class MapScatter(pg.ScatterPlotItem):
    """A ScatterPlotItem whose :meth:`boundingRect` is worked out once per data, symbols and
    view (the same rectangle pyqtgraph's gives)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._bounds_kept: QRectF | None = None
        super().__init__(*args, **kwargs)

    def _forget_bounds(self) -> None:
        self._bounds_kept = None

    def updateSpots(self, *args: Any, **kwargs: Any) -> None:  # noqa: N802 - pyqtgraph's name
        super().updateSpots(*args, **kwargs)
        self._forget_bounds()           # last step of setData / addPoints / a new size or pen

    def clear(self) -> None:
        super().clear()
        self._forget_bounds()

    def viewTransformChanged(self) -> None:  # noqa: N802 - pyqtgraph's name
        self._forget_bounds()           # a screen pixel is another size in the data now
        super().viewTransformChanged()
        self._forget_bounds()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt name
        kept = self._bounds_kept
        if kept is None:
            kept = self._bounds_kept = QRectF(super().boundingRect())
        return QRectF(kept)
