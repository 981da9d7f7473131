"""The map in direct sun (issue 35 item 13: Ctrl+Shift+H changed the panels, not the map,
which is what is read in the sun): with high contrast on, the transects, the walked track,
the bank, buffers and feature lines are drawn thicker and darker, and the polygons' fills
stronger; off, as before.

>>> line_style("transects", False), line_style("transects", True)
(('#aa00aa', 2), ('#6a006a', 5))
>>> fill_alpha(False), fill_alpha(True)
(40, 110)
"""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QColor

#: (colour, width px) of each map line: normal, then high contrast.
LINE_STYLES: dict[str, tuple[tuple[str, int], tuple[str, int]]] = {
    "transects": (("#aa00aa", 2), ("#6a006a", 5)),
    "bank": (("#cc0000", 4), ("#b00000", 6)),
    "buffers": (("#cc0000", 2), ("#b00000", 4)),
    "envelope": (("#000000", 2), ("#000000", 4)),
    "boundary_live": (("#ff6600", 3), ("#d04000", 5)),
    "features": (("#00a0a0", 4), ("#006a6a", 6)),
    "track": (("#5c6470", 1), ("#000000", 3)),
    "data_pairs": (("#6a1b9a", 2), ("#3e0f5c", 4)),
    "unsupported": (("#c2185b", 5), ("#8a0f3e", 7)),
}
#: A polygon's outline width (px), normal and high contrast.
POLYGON_WIDTH = (3, 5)
#: A polygon fill's alpha (0-255), normal and high contrast.
FILL_ALPHA = (40, 110)


def line_style(name: str, high: bool) -> tuple[str, int]:
    """The colour and width of map line ``name``."""
    return LINE_STYLES[name][1 if high else 0]


def fill_alpha(high: bool) -> int:
    return FILL_ALPHA[1 if high else 0]


def apply_contrast(map_view: Any, high: bool) -> None:
    """Restyle ``map_view``'s (a :class:`fieldapp.ui.mapview.MapView`) lines and fills for
    ``high`` contrast, keeping each line's dash style; remembered for polygons drawn later
    (``map_view.high_contrast``)."""
    map_view.high_contrast = bool(high)
    for name, item in map_view.curves.items():
        if name not in LINE_STYLES:
            continue
        colour, width = line_style(name, high)
        pen = item.opts["pen"]
        pen = pen if hasattr(pen, "setWidthF") else None
        if pen is not None:
            pen = type(pen)(pen)
            pen.setColor(QColor(colour))
            pen.setWidthF(width)
            item.setPen(pen)
    colour, width = line_style("track", high)
    map_view.track.set_pen(colour, width)
    for item in map_view.polygon_items.values():
        pen = type(item.opts["pen"])(item.opts["pen"])
        pen.setWidthF(POLYGON_WIDTH[1 if high else 0])
        item.setPen(pen)
    for item in map_view.polygon_fills.values():
        brush = item.brush()
        c = brush.color()
        c.setAlpha(fill_alpha(high))
        brush.setColor(c)
        item.setBrush(brush)
    map_view.plot.update()


__all__ = ["FILL_ALPHA", "LINE_STYLES", "POLYGON_WIDTH", "apply_contrast", "fill_alpha", "line_style"]
