"""The report's figures, drawn with QPainter: the site map and transect profiles.

Both functions draw into a rectangle of ``size`` device pixels whose top-left is the painter's
origin, on any paint device; the report draws them into images at :data:`PRINT_DPI`
(:func:`render_image`) that the PDF (reportlab) places. ``px_per_mm`` turns the paper
sizes below (millimetres; fonts in points) into device pixels, so the figures read the same on
paper at any resolution.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from itertools import pairwise
from typing import TYPE_CHECKING, TypeAlias, TypeVar

import shapely
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPainterPath, QPen, QPolygonF
from shapely.geometry import LineString
from shapely.geometry.base import BaseGeometry

from fieldapp.rules.shown import slope_pct_text

from .content import MapLayers, TransectProfile
from .figlabels import Rect, place

if TYPE_CHECKING:
    from PIL.Image import Image as PILImageType

__all__ = ["map_height_mm", "draw_map", "draw_profile", "render_image", "decimated", "PRINT_DPI",
           "nice_scale_ft_per_in", "nice_ticks", "AREA_STYLE", "LEGEND_MM"]

_T = TypeVar("_T")
#: a legend line's colour, width (mm) and pen style
LineSwatch: TypeAlias = tuple[str, float, Qt.PenStyle]
#: (text, swatch style, style argument: a line's :data:`LineSwatch`, a colour or a kind, or None)
LegendItem: TypeAlias = tuple[str, str, LineSwatch | str | None]

#: Fill colour, outline colour of polygons by kind.
AREA_STYLE = {
    "wetland": ("#9fd3e6", "#1f6f8b"),
    "woodland_stand": ("#cfe8c0", "#3b7a2a"),
    "grove": ("#b5dba0", "#2b5e1d"),
    "impervious": ("#d9d9d9", "#666666"),
    "disturbed": ("#f0ddb8", "#9a6b1f"),
    "foundation": ("#bdbdbd", "#303030"),
    "drive": ("#e0e0e0", "#707070"),
    "parking": ("#e0e0e0", "#707070"),
    "septic_field": ("#e8d9f0", "#7a4a94"),
    "utility_trench": ("#f2e0c9", "#8a5a2b"),
    "swale": ("#d4ecf7", "#2c7fb8"),
    "floodplain": ("#dfe7f2", "#4a6fa5"),
    "parcel": ("#ffffff", "#000000"),
    "right_of_way": ("#eeeeee", "#555555"),
    "steep_soil": ("#e6d5c3", "#7b4a1e"),
}
OHWM_COLOUR = "#0b4f9c"
BANK_COLOUR = "#c0161b"
PROTECTIVE_COLOUR = "#e07b00"
ENVELOPE_COLOUR = "#6a2c91"
LEGEND_MM = 30.0
#: Resolution of the map and profile images placed in the PDF (dots per inch).
PRINT_DPI = 200
#: Engineering map scales: feet on the ground per inch on paper.
SCALES_FT_PER_IN = [1, 2, 5, 10, 20, 30, 40, 50, 60, 80, 100, 150, 200, 250, 300, 400, 500, 600,
                    800, 1000, 1500, 2000, 2500, 3000, 4000, 5000, 10000, 20000, 50000]


def nice_scale_ft_per_in(ft_per_in: float) -> float:
    """The smallest engineering scale (ft per inch) at or above ``ft_per_in``.

    >>> nice_scale_ft_per_in(43.2)
    50
    """
    for s in SCALES_FT_PER_IN:
        if s >= ft_per_in - 1e-9:
            return s
    return math.ceil(ft_per_in / 10000.0) * 10000


def _nice_below(value: float) -> float:
    """The largest 1, 2 or 5 × 10^n not above ``value`` (> 0)."""
    mag = 10.0 ** math.floor(math.log10(value))
    return max(m * mag for m in (1, 2, 5) if m * mag <= value * (1 + 1e-9))


def nice_ticks(lo: float, hi: float, target: int = 6) -> list[float]:
    """Round tick values covering [lo, hi] (steps of 1, 2 or 5 × 10^n).

    >>> nice_ticks(0, 100)
    [0, 20, 40, 60, 80, 100]
    """
    span = max(hi - lo, 1e-9)
    raw = span / max(target - 1, 1)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw - 1e-12)
    first = math.floor(lo / step + 1e-9) * step
    out, v = [], first
    while v <= hi + step * 1e-6:
        if v >= lo - step * 1e-6:
            out.append(round(v, 10))
        v += step
    return out


def _font(pt: float, bold: bool = False) -> QFont:
    f = QFont()
    f.setPointSizeF(pt)
    f.setBold(bold)
    for tag in ("liga", "clig", "dlig"):  # the PDF's text as written ("fi" not one glyph)
        f.setFeature(QFont.Tag(tag), 0)
    return f


def _pen(colour: str, width_mm: float, mm: float, style: Qt.PenStyle = Qt.PenStyle.SolidLine) -> QPen:
    p = QPen(QColor(colour), max(width_mm * mm, 0.5))
    p.setStyle(style)
    p.setCapStyle(Qt.PenCapStyle.RoundCap)
    p.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
    return p


# --------------------------------------------------------------------------- map
def decimated(line: LineString, tolerance: float) -> LineString:
    """``line`` (shapely LineString, grid ft) simplified by Douglas-Peucker (GEOS) to within
    ``tolerance`` ft: what a printed line of the map's device pixels can show."""
    if tolerance <= 0 or len(line.coords) < 3:
        return line
    out = shapely.simplify(line, tolerance, preserve_topology=False)
    return line if out.is_empty else out


def render_image(width_mm: float, height_mm: float, draw: Callable[[QPainter, float, float, float], _T],
                 dpi: float = PRINT_DPI) -> tuple[PILImageType, _T]:
    """Draw ``draw(painter, width_px, height_px, px_per_mm)`` on a white image ``width_mm`` by
    ``height_mm`` at ``dpi``; returns (the picture as a Pillow RGB image, what ``draw``
    returned). Handing reportlab the pixels (it compresses them once, Flate) is faster than a
    PNG round trip. Needs a QGuiApplication."""
    from PIL import Image as PILImage
    from PySide6.QtGui import QImage

    px_per_mm = dpi / 25.4
    w, h = max(int(round(width_mm * px_per_mm)), 1), max(int(round(height_mm * px_per_mm)), 1)
    img = QImage(w, h, QImage.Format.Format_RGB888)
    img.setDotsPerMeterX(int(round(dpi / 0.0254)))
    img.setDotsPerMeterY(int(round(dpi / 0.0254)))
    img.fill(QColor("white"))
    p = QPainter(img)
    try:
        result = draw(p, float(w), float(h), px_per_mm)
    finally:
        p.end()
    pil = PILImage.frombuffer("RGB", (w, h), bytes(img.constBits()), "raw", "RGB", img.bytesPerLine(), 1)
    return pil, result



class _MapTransform:
    def __init__(self, bounds: Sequence[float], rect: QRectF, ft_per_px: float) -> None:
        self.cx = (bounds[0] + bounds[2]) / 2
        self.cy = (bounds[1] + bounds[3]) / 2
        self.rect = rect
        self.s = 1.0 / ft_per_px

    def pt(self, x: float, y: float) -> QPointF:
        return QPointF(self.rect.center().x() + (x - self.cx) * self.s,
                       self.rect.center().y() - (y - self.cy) * self.s)

    def line(self, coords: Iterable[Sequence[float]]) -> QPolygonF:
        return QPolygonF([self.pt(x, y) for x, y in coords])

    def path(self, geom: BaseGeometry) -> QPainterPath:
        path = QPainterPath()
        path.setFillRule(Qt.FillRule.OddEvenFill)
        for poly in shapely.get_parts(geom):
            if poly.geom_type == "Polygon":
                for ring in [poly.exterior, *poly.interiors]:
                    path.addPolygon(self.line(ring.coords))
                    path.closeSubpath()
            elif poly.geom_type in ("LineString", "LinearRing"):
                path.addPolygon(self.line(poly.coords))
        return path


def _map_extent(layers: MapLayers) -> tuple[float, float, float, float] | None:
    """(min x, min y, max x, max y) grid ft the map shows: everything drawn, padded, at least 20 ft."""
    b = layers.bounds()
    if b is None:
        return None
    minx, miny, maxx, maxy = (float(v) for v in b)
    span = max(maxx - minx, maxy - miny, 20.0)
    pad = 0.06 * span
    cx, cy = (minx + maxx) / 2, (miny + maxy) / 2
    w, h = max(maxx - minx, 20.0) + 2 * pad, max(maxy - miny, 20.0) + 2 * pad
    return (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)


def map_height_mm(layers: MapLayers, width_mm: float, max_height_mm: float) -> tuple[float, float]:
    """(figure height mm including the legend band, scale in ft per inch) for a map this wide."""
    ext = _map_extent(layers)
    if ext is None:
        return 40.0, 0.0
    w_ft, h_ft = ext[2] - ext[0], ext[3] - ext[1]
    frame_h = max_height_mm - LEGEND_MM
    ft_per_mm = max(w_ft / width_mm, h_ft / frame_h)
    scale = nice_scale_ft_per_in(ft_per_mm * 25.4)
    needed = h_ft / (scale / 25.4)
    return min(max(needed, 60.0), frame_h) + LEGEND_MM, scale


def draw_map(p: QPainter, width: float, height: float, layers: MapLayers, mm: float,
             scale_ft_per_in: float, placed: list[PlacedLabel] | None = None) -> list[str]:
    """Draw the site map: every feature, bank line, protective areas, envelope, legend,
    scale bar and north arrow, at ``scale_ft_per_in`` (feet of the site's foot per inch).
    Returns the basemap notes ("Basemap: source, date") of the basemaps drawn under it;
    ``placed`` gets (text, box) of each map label drawn (inside the frame, apart)."""
    frame = QRectF(0, 0, width, height - LEGEND_MM * mm)
    p.save()
    p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    p.setPen(_pen("#000000", 0.3, mm))
    p.setBrush(Qt.BrushStyle.NoBrush)
    p.drawRect(frame)
    ext = _map_extent(layers)
    if ext is None:
        p.setFont(_font(10))
        p.drawText(frame, Qt.AlignmentFlag.AlignCenter, "Nothing positioned yet")
        p.restore()
        return []
    ft_per_px = scale_ft_per_in / 25.4 / mm
    tf = _MapTransform(ext, frame, ft_per_px)
    p.setClipRect(frame)
    # bottom to top: the basemap, areas and lines, trees, the OHWM and transects, the bank; labels last
    notes = _draw_basemaps(p, tf, frame, layers, mm)
    _draw_map_areas(p, tf, layers, mm)
    _draw_map_trees(p, tf, layers.trees, mm)
    _draw_map_survey(p, tf, layers, mm)
    _draw_map_labels(p, tf, layers, mm, placed)
    p.setClipping(False)
    _north_arrow(p, frame.right() - 12 * mm, frame.top() + 16 * mm, layers.true_north_deg, mm)
    _legend(p, QRectF(0, frame.bottom() + 3 * mm, width, LEGEND_MM * mm - 3 * mm), layers, mm,
            scale_ft_per_in)
    p.restore()
    return notes


def _draw_basemaps(p: QPainter, tf: _MapTransform, frame: QRectF, layers: MapLayers, mm: float) -> list[str]:
    """Each basemap under the features at print resolution (200 dpi, at most 3000 px a side),
    reprojected to the site CRS; returns "Basemap: source, date" of each one drawn (the
    report prints them under the map)."""
    if not layers.basemaps:
        return []
    from PySide6.QtGui import QImage

    from fieldapp.basemap import BasemapError, render

    w_ft, h_ft = frame.width() / tf.s, frame.height() / tf.s
    x0, y0 = tf.cx - w_ft / 2, tf.cy - h_ft / 2
    px_per_mm = 200 / 25.4
    w_px = int(min(frame.width() / mm * px_per_mm, 3000))
    h_px = int(min(frame.height() / mm * px_per_mm, 3000))
    notes = []
    for info, crs, unit, opacity in layers.basemaps:
        try:
            img = render(info.path, crs, (x0 * unit, y0 * unit, (x0 + w_ft) * unit, (y0 + h_ft) * unit),
                         w_px, h_px, info)
        except BasemapError:
            continue
        qimg = QImage(img.data, w_px, h_px, 4 * w_px, QImage.Format.Format_RGBA8888)
        p.setOpacity(opacity)
        p.drawImage(frame, qimg)
        p.setOpacity(1.0)
        notes.append(f"Basemap: {info.source}, {info.date}")
    return notes


def _draw_map_areas(p: QPainter, tf: _MapTransform, layers: MapLayers, mm: float) -> None:
    """Protective areas (under everything), polygons (stands and groves first), the
    development envelope, the GNSS track and the lines by kind."""
    for _, _, g in layers.protective_areas:
        path = tf.path(g)
        p.setPen(_pen(PROTECTIVE_COLOUR, 0.35, mm, Qt.PenStyle.DashLine))
        b = QBrush(QColor(PROTECTIVE_COLOUR), Qt.BrushStyle.BDiagPattern)
        p.setBrush(b)
        p.drawPath(path)
    # polygons
    for kind, _, g in sorted(layers.areas, key=lambda a: a[0] in ("woodland_stand", "grove")
                             and -1 or 0):
        fill, line = AREA_STYLE.get(kind, ("#eeeeee", "#555555"))
        c = QColor(fill)
        c.setAlpha(170)
        p.setBrush(c)
        p.setPen(_pen(line, 0.3, mm))
        p.drawPath(tf.path(g))
    if layers.envelope is not None:
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.setPen(_pen(ENVELOPE_COLOUR, 0.45, mm, Qt.PenStyle.DashDotLine))
        p.drawPath(tf.path(layers.envelope))
    # track, decimated to half a device pixel (a day's 288,000 fixes draw as a few thousand)
    if layers.track is not None:
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.setPen(_pen("#9e9e9e", 0.15, mm))
        p.drawPolyline(tf.line(decimated(layers.track, 0.5 / tf.s).coords))
    for kind, _, g in layers.lines:
        _, line = AREA_STYLE.get(kind, ("", "#555555"))
        p.setPen(_pen(line, 0.4, mm, Qt.PenStyle.DashLine if kind == "utility_trench" else Qt.PenStyle.SolidLine))
        p.drawPolyline(tf.line(g.coords))


def _draw_map_trees(p: QPainter, tf: _MapTransform, trees: Sequence[tuple[float, float, float, float | None, bool]],
                    mm: float) -> None:
    """Trees: crown circle (live: green outline, dead: brown) and stem dot sized by DBH."""
    p.setBrush(Qt.BrushStyle.NoBrush)
    crown_pen = _pen("#2e7d32", 0.12, mm)
    dead_pen = _pen("#8d6e63", 0.12, mm)
    for x, y, _dbh, r, live in trees:
        c = tf.pt(x, y)
        if r:
            p.setPen(crown_pen if live else dead_pen)
            p.drawEllipse(c, r * tf.s, r * tf.s)
    p.setPen(Qt.PenStyle.NoPen)
    for x, y, dbh, _r, live in trees:
        p.setBrush(QColor("#1b5e20") if live else QColor("#8d6e63"))
        rad = (0.35 + min(dbh, 40.0) / 40.0 * 0.5) * mm
        p.drawEllipse(tf.pt(x, y), rad, rad)


def _draw_map_survey(p: QPainter, tf: _MapTransform, layers: MapLayers, mm: float) -> None:
    """The OHWM lines and points, transects with their stations, the bank line and points
    (filled when determined, hollow while the bank needs data)."""
    p.setBrush(Qt.BrushStyle.NoBrush)
    for _, g in layers.ohwm:
        p.setPen(_pen(OHWM_COLOUR, 0.8, mm))
        p.drawPolyline(tf.line(g.coords))
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(QColor(OHWM_COLOUR))
    for x, y in layers.ohwm_points:
        p.drawEllipse(tf.pt(x, y), 0.7 * mm, 0.7 * mm)
    # transects and stations
    for _name, tline, stations in layers.transects:
        if tline is None:
            continue
        p.setPen(_pen("#000000", 0.35, mm))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawPolyline(tf.line(tline.coords))
        p.setPen(_pen("#000000", 0.25, mm))
        p.setBrush(QColor("white"))
        for x, y in stations:
            p.drawEllipse(tf.pt(x, y), 0.45 * mm, 0.45 * mm)
    # bank line and points
    if layers.bank_line is not None:
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.setPen(_pen(BANK_COLOUR, 0.6, mm, Qt.PenStyle.DashLine))
        p.drawPolyline(tf.line(layers.bank_line.coords))
    for _name, x, y, known in layers.bank_points:
        c = tf.pt(x, y)
        p.setPen(_pen(BANK_COLOUR, 0.4, mm))
        p.setBrush(QColor(BANK_COLOUR) if known else QColor("white"))
        p.drawRect(QRectF(c.x() - 0.9 * mm, c.y() - 0.9 * mm, 1.8 * mm, 1.8 * mm))


def _draw_map_labels(p: QPainter, tf: _MapTransform, layers: MapLayers, mm: float,
                     placed: list[PlacedLabel] | None = None) -> None:
    """Labels last, with halos (areas, transects, bank points, notes with their marker), each
    at the first of its places that is free, slid inside the map's frame whole (never cut by
    it, :mod:`.figlabels`); a label with no free place is left out. ``placed`` gets (text, box)
    of each drawn."""
    small = _font(6.5)
    label = _font(7.5, bold=True)
    frame = tf.rect.adjusted(0.4 * mm, 0.4 * mm, -0.4 * mm, -0.4 * mm)
    bounds = (frame.left(), frame.top(), frame.right(), frame.bottom())
    taken: list[Rect] = []

    def put(spec: _LabelSpec) -> None:
        box = _placed_text(p, spec, bounds, taken, mm)
        if box is not None and placed is not None:
            placed.append((spec.text, box))

    for kind, lab, g in layers.areas:
        if lab:
            rp = g.representative_point()
            c = tf.pt(rp.x, rp.y)
            put(_LabelSpec(lab, label, AREA_STYLE.get(kind, ("", "#333333"))[1], [(c.x(), c.y(), "center")], False))
    for name, tline, _stations in layers.transects:
        if tline is None:
            continue
        c = tf.pt(*tline.coords[-1])
        put(_LabelSpec(name, label, "#000000", [(c.x() + 1.2 * mm, c.y() - 1.0 * mm, "left"),
                                                 (c.x() - 1.2 * mm, c.y() - 1.0 * mm, "right")], False))
    for _name, x, y, known in layers.bank_points:
        c = tf.pt(x, y)
        put(_LabelSpec("bank" if known else "bank ≥ (needs data)", small, BANK_COLOUR,
                       [(c.x() + 1.4 * mm, c.y() + 3.2 * mm, "left"), (c.x() - 1.4 * mm, c.y() + 3.2 * mm, "right"),
                        (c.x() + 1.4 * mm, c.y() - 1.6 * mm, "left")], False))
    for i, (x, y, _text) in enumerate(layers.notes, 1):
        c = tf.pt(x, y)
        p.setPen(_pen("#000000", 0.2, mm))
        p.setBrush(QColor("#fff59d"))
        p.drawPolygon(QPolygonF([QPointF(c.x(), c.y() - 1.2 * mm), QPointF(c.x() - 1.0 * mm, c.y() + 0.6 * mm),
                                 QPointF(c.x() + 1.0 * mm, c.y() + 0.6 * mm)]))
        # the number of the note in the report's notes table, where its whole text is
        put(_LabelSpec(f"note {i}", small, "#000000", [(c.x() + 1.4 * mm, c.y() + 1.0 * mm, "left"),
                                                       (c.x() - 1.4 * mm, c.y() + 1.0 * mm, "right")], False))


def _north_arrow(p: QPainter, x: float, y: float, angle_deg: float, mm: float) -> None:
    p.save()
    p.translate(x, y)
    p.setPen(_pen("#000000", 0.25, mm))
    p.setBrush(QColor("white"))
    p.drawEllipse(QPointF(0, 0), 8 * mm, 8 * mm)
    p.rotate(angle_deg)
    p.setBrush(QColor("#000000"))
    p.drawPolygon(QPolygonF([QPointF(0, -6.5 * mm), QPointF(2.4 * mm, 3.5 * mm), QPointF(0, 1.8 * mm)]))
    p.setBrush(QColor("white"))
    p.drawPolygon(QPolygonF([QPointF(0, -6.5 * mm), QPointF(-2.4 * mm, 3.5 * mm), QPointF(0, 1.8 * mm)]))
    p.restore()
    p.setFont(_font(8, bold=True))
    p.drawText(QRectF(x - 8 * mm, y + 8.3 * mm, 16 * mm, 4 * mm), Qt.AlignmentFlag.AlignCenter, "N (true)")


def _legend(p: QPainter, rect: QRectF, layers: MapLayers, mm: float, scale: float) -> None:
    # scale bar: 4 blocks of a round length, under 45 % of the width
    ft_per_mm = scale / 25.4
    max_ft = 0.45 * rect.width() / mm * ft_per_mm
    block = _nice_below(max_ft / 4)
    x0, y0 = rect.left() + 4 * mm, rect.top() + 2 * mm  # room for the "0" under the bar
    p.setFont(_font(7))
    for i in range(4):
        w = block / ft_per_mm * mm
        p.setPen(_pen("#000000", 0.25, mm))
        p.setBrush(QColor("#000000") if i % 2 == 0 else QColor("white"))
        p.drawRect(QRectF(x0 + i * w, y0, w, 1.8 * mm))
    w = block / ft_per_mm * mm
    for i in range(5):
        p.drawText(QRectF(x0 + i * w - 8 * mm, y0 + 2.2 * mm, 16 * mm, 3.5 * mm), Qt.AlignmentFlag.AlignCenter,
                   f"{block * i:g}")
    p.drawText(QRectF(x0 + 4 * w + 9 * mm, y0 - 0.8 * mm, 20 * mm, 3.5 * mm), Qt.AlignmentFlag.AlignLeft, "ft")
    p.setFont(_font(7.5, bold=True))
    p.drawText(QRectF(x0, y0 + 6.5 * mm, 80 * mm, 4 * mm), Qt.AlignmentFlag.AlignLeft,
               f"Scale 1 in = {scale:g} ft (1:{scale * 12:,.0f} printed at 100 %)")
    # swatches
    items = legend_items(layers)
    _legend_swatches(p, rect, items, mm)


def legend_items(layers: MapLayers) -> list[LegendItem]:
    """(text, swatch style, style argument) of every kind of thing the map draws, and nothing
    it does not draw (the map's legend)."""
    items: list[LegendItem] = []
    if layers.ohwm or layers.ohwm_points:
        items.append(("OHWM", "line", (OHWM_COLOUR, 0.8, Qt.PenStyle.SolidLine)))
    if layers.transects:
        items.append(("Transect, stations", "line", ("#000000", 0.35, Qt.PenStyle.SolidLine)))
    if layers.bank_points:
        items.append(("Bank point (open: needs data)", "box", BANK_COLOUR))
    if layers.bank_line is not None:
        items.append(("Bank line (NR 341.035)", "line", (BANK_COLOUR, 0.6, Qt.PenStyle.DashLine)))
    if layers.protective_areas:
        items.append(("Protective area (NR 151.125)", "hatch", PROTECTIVE_COLOUR))
    if layers.envelope is not None:
        items.append(("Development envelope", "line", (ENVELOPE_COLOUR, 0.45, Qt.PenStyle.DashDotLine)))
    if layers.trees:
        items.append(("Tree (stem, crown)", "tree", None))
    kinds = []
    for kind, _, _ in layers.areas:
        if kind not in kinds:
            kinds.append(kind)
    items += [(k.replace("_", " ").capitalize(), "area", k) for k in kinds]
    line_kinds = []
    for kind, _, _ in layers.lines:
        if kind not in line_kinds:
            line_kinds.append(kind)
    items += [(k.replace("_", " ").capitalize(), "line",
               (AREA_STYLE.get(k, ("", "#555555"))[1], 0.4,
                Qt.PenStyle.DashLine if k == "utility_trench" else Qt.PenStyle.SolidLine))
              for k in line_kinds]
    if layers.track is not None:
        items.append(("GNSS track", "line", ("#9e9e9e", 0.15, Qt.PenStyle.SolidLine)))
    if layers.notes:
        items.append(("Note (number: the notes table)", "note", None))
    return items


def _legend_swatches(p: QPainter, rect: QRectF, items: list[LegendItem], mm: float) -> None:
    col_w = 46 * mm
    x_start = rect.left() + rect.width() * 0.47
    cols = max(int((rect.right() - x_start) // col_w), 1)
    row_h = 4.2 * mm
    p.setFont(_font(6.5))
    for i, (text, style, arg) in enumerate(items):
        cx = x_start + (i % cols) * col_w
        cy = rect.top() + (i // cols) * row_h
        sw = QRectF(cx, cy + 0.6 * mm, 7 * mm, 2.6 * mm)
        if isinstance(arg, tuple):   # style "line"
            colour, wmm, pst = arg
            p.setPen(_pen(colour, wmm, mm, pst))
            p.drawLine(QPointF(sw.left(), sw.center().y()), QPointF(sw.right(), sw.center().y()))
        elif style == "hatch" and arg is not None:
            p.setPen(_pen(arg, 0.3, mm, Qt.PenStyle.DashLine))
            p.setBrush(QBrush(QColor(arg), Qt.BrushStyle.BDiagPattern))
            p.drawRect(sw)
        elif style == "box" and arg is not None:
            p.setPen(_pen(arg, 0.4, mm))
            p.setBrush(QColor(arg))
            p.drawRect(QRectF(sw.center().x() - 0.9 * mm, sw.center().y() - 0.9 * mm, 1.8 * mm, 1.8 * mm))
        elif style == "note":
            c = sw.center()
            p.setPen(_pen("#000000", 0.2, mm))
            p.setBrush(QColor("#fff59d"))
            p.drawPolygon(QPolygonF([QPointF(c.x(), c.y() - 1.2 * mm), QPointF(c.x() - 1.0 * mm, c.y() + 0.6 * mm),
                                     QPointF(c.x() + 1.0 * mm, c.y() + 0.6 * mm)]))
        elif style == "area" and arg is not None:
            fill, line = AREA_STYLE.get(arg, ("#eeeeee", "#555555"))
            p.setPen(_pen(line, 0.3, mm))
            p.setBrush(QColor(fill))
            p.drawRect(sw)
        else:
            p.setPen(_pen("#2e7d32", 0.15, mm))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawEllipse(sw.center(), 1.3 * mm, 1.3 * mm)
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(QColor("#1b5e20"))
            p.drawEllipse(sw.center(), 0.5 * mm, 0.5 * mm)
        p.setPen(QColor("#000000"))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawText(QRectF(sw.right() + 1.5 * mm, cy, col_w - 9 * mm, row_h),
                   Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, text)


# --------------------------------------------------------------------------- profile
class _ProfileFrame:
    """The plot rectangle of a transect profile and its scales (device pixels).

    Horizontal ft from the OHWM run 0 .. ``x_max`` (the farthest station, the base distance or
    the bank, + 6 %); elevation ft ``y_lo`` .. ``y_hi`` (at least 4 ft, padded below and more
    above for the labels). ``sx``/``sy`` are pixels per ft; :meth:`pt` maps (ft, ft) to pixels.
    """

    def __init__(self, prof: TransectProfile, width: float, height: float, mm: float) -> None:
        self.left, right, self.top, bottom = 16 * mm, 4 * mm, 9 * mm, 11 * mm
        self.plot = QRectF(self.left, self.top, width - self.left - right, height - self.top - bottom)
        res = prof.result
        self.bank = res.get("bank_ft")
        self.at_least_ft = res.get("bank_ft_at_least")
        xs = [s[0] for s in prof.stations]
        ys = [s[1] for s in prof.stations]
        self.x_max = max(xs + [prof.base_ft, self.bank or 0.0, self.at_least_ft or 0.0]) * 1.06
        y_lo, y_hi = min(ys), max(ys)
        if y_hi - y_lo < 4.0:
            mid = (y_hi + y_lo) / 2
            y_lo, y_hi = mid - 2.0, mid + 2.0
        pad = 0.12 * (y_hi - y_lo)
        self.y_lo, self.y_hi = y_lo - pad, y_hi + pad * 1.8
        self.sx = self.plot.width() / self.x_max
        self.sy = self.plot.height() / (self.y_hi - self.y_lo)

    def pt(self, x: float, y: float) -> QPointF:
        """Device point of horizontal distance ``x`` ft and elevation ``y`` ft."""
        return QPointF(self.plot.left() + x * self.sx, self.plot.bottom() - (y - self.y_lo) * self.sy)


#: A label the profile draws: its whole text and its box (left, top, right, bottom, device
#: pixels, halo included), as :func:`draw_profile` returns them.
PlacedLabel: TypeAlias = tuple[str, Rect]


class _LabelSpec:
    """A label waiting to be placed: text, font, colour, the places it may go (baseline
    ``(x, y, align)``, best first) and whether it must print (a mark's own label)."""

    def __init__(self, text: str, font: QFont, colour: str, anchors: list[tuple[float, float, str]],
                 must: bool) -> None:
        self.text, self.font, self.colour, self.anchors, self.must = text, font, colour, anchors, must


def draw_profile(p: QPainter, width: float, height: float, prof: TransectProfile, mm: float) -> list[PlacedLabel]:
    """Draw a transect's profile: ground by station, each segment's slope (steep segments in
    red), the slope threshold, the base distance and the bank (NR 341.035).

    Returns every label drawn, (text, box in device pixels): the key line above the plot, then
    the plot's labels, placed inside the plot and never on each other (:mod:`.figlabels`): the
    bank, the base distance and the threshold always; a segment's slope or an interruption
    where a place is free (the station table under the figure lists every one).
    """
    p.save()
    p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    f = _ProfileFrame(prof, width, height, mm)
    _profile_axes(p, f, prof, mm)
    p.setClipRect(f.plot.adjusted(-1, -1, 1, 1))
    specs = _profile_marks(p, f, prof, mm)
    specs += _profile_ground(p, f, prof, mm)
    p.setClipping(False)
    # key line above the plot, smaller type until it fits the figure's width
    ve = f.sy / f.sx
    key = (f"Threshold: a segment at or above {prof.threshold_pct:g} % is steep (red). "
           f"{'Priority' if prof.priority else 'Non-priority'} waterway. "
           f"Vertical exaggeration ×{ve:.1f}.")
    labels = [_key_line(p, key, QRectF(f.plot.left(), 0.5 * mm, width - f.plot.left(), f.top - 1 * mm), mm)]
    inner = f.plot.adjusted(0.4 * mm, 0.4 * mm, -0.4 * mm, -0.4 * mm)
    bounds = (inner.left(), inner.top(), inner.right(), inner.bottom())
    taken: list[Rect] = []
    for spec in sorted(specs, key=lambda s: not s.must):
        box = _placed_text(p, spec, bounds, taken, mm)
        if box is not None:
            labels.append((spec.text, box))
    p.restore()
    return labels


def _key_line(p: QPainter, text: str, rect: QRectF, mm: float) -> PlacedLabel:
    """``text`` in ``rect``, wrapped between words, from 7 pt down to 4.5 pt until it fits
    whole; (text, box drawn)."""
    from PySide6.QtGui import QFontMetricsF

    flags = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextWordWrap)
    pt = 7.0
    while True:
        font = _font(pt)
        box = QFontMetricsF(font, p.device()).boundingRect(rect, flags, text)
        if (box.width() <= rect.width() and box.height() <= rect.height()) or pt <= 4.5:
            break
        pt -= 0.25
    p.setFont(font)
    p.setPen(QColor("#000000"))
    p.drawText(rect, flags, text)
    return text, (box.left(), box.top(), box.right(), box.bottom())


def _placed_text(p: QPainter, spec: _LabelSpec, bounds: Rect, taken: list[Rect], mm: float) -> Rect | None:
    """Draw ``spec`` with a white halo at the first of its places free within ``bounds``
    (:func:`.figlabels.place`); returns its box, or None when it was left out."""
    f = QFont(spec.font)  # a path has no device: points -> device pixels here
    f.setPointSizeF(spec.font.pointSizeF() * mm * 25.4 / 72.0)
    path = QPainterPath()
    path.addText(0, 0, f, spec.text)
    br = path.boundingRect()
    halo = 0.45 * mm
    cands = []
    for x, y, align in spec.anchors:
        dx = {"left": 0.0, "center": -br.width() / 2, "right": -br.width()}[align]
        cands.append((x + dx + br.left() - halo, y + br.top() - halo))
    box = place((br.width() + 2 * halo, br.height() + 2 * halo), cands, bounds, taken, 0.3 * mm, spec.must)
    if box is None:
        return None
    path.translate(box[0] + halo - br.left(), box[1] + halo - br.top())
    p.save()
    p.setPen(QPen(QColor("white"), 2 * halo, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap,
                  Qt.PenJoinStyle.RoundJoin))
    p.setBrush(Qt.BrushStyle.NoBrush)
    p.drawPath(path)
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(QColor(spec.colour))
    p.drawPath(path)
    p.restore()
    return box


def _profile_axes(p: QPainter, f: _ProfileFrame, prof: TransectProfile, mm: float) -> None:
    """Grid, tick labels, the plot's frame and the two axis titles."""
    plot, P, x_max, y_lo, y_hi = f.plot, f.pt, f.x_max, f.y_lo, f.y_hi
    p.setFont(_font(7))
    grid = _pen("#d0d0d0", 0.12, mm)
    for t in nice_ticks(0, x_max, 9):
        p.setPen(grid)
        p.drawLine(P(t, y_lo), P(t, y_hi))
        p.setPen(QColor("#000000"))
        p.drawText(QRectF(P(t, y_lo).x() - 10 * mm, plot.bottom() + 0.8 * mm, 20 * mm, 3.5 * mm),
                   Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop, f"{t:g}")
    for t in nice_ticks(y_lo, y_hi, 5):
        p.setPen(grid)
        p.drawLine(P(0, t), P(x_max, t))
        p.setPen(QColor("#000000"))
        p.drawText(QRectF(0, P(0, t).y() - 2 * mm, f.left - 1.2 * mm, 4 * mm),
                   Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, f"{t:g}")
    p.setPen(_pen("#000000", 0.25, mm))
    p.setBrush(Qt.BrushStyle.NoBrush)
    p.drawRect(plot)
    p.drawText(QRectF(plot.left(), plot.bottom() + 5 * mm, plot.width(), 4 * mm), Qt.AlignmentFlag.AlignHCenter,
               "horizontal distance landward from the OHWM (ft)")
    p.save()
    p.translate(2.5 * mm, plot.center().y())
    p.rotate(-90)
    p.drawText(QRectF(-plot.height() / 2, -2.5 * mm, plot.height(), 4 * mm), Qt.AlignmentFlag.AlignCenter,
               "elevation (ft)" if prof.measured_elevations else "elevation rel. OHWM (ft)")
    p.restore()


def _profile_marks(p: QPainter, f: _ProfileFrame, prof: TransectProfile, mm: float) -> list[_LabelSpec]:
    """The base distance, the threshold slope as a reference line from the OHWM (same
    exaggeration as the ground) and the bank (solid when determined, dotted while at least);
    returns their labels (placed after the ground is drawn)."""
    P, x_max, y_lo, y_hi, sts = f.pt, f.x_max, f.y_lo, f.y_hi, prof.stations
    top, bottom = f.plot.top(), f.plot.bottom()
    specs = []
    p.setPen(_pen("#1565c0", 0.35, mm, Qt.PenStyle.DashLine))
    p.drawLine(P(prof.base_ft, y_lo), P(prof.base_ft, y_hi))
    bx = P(prof.base_ft, y_hi).x()
    specs.append(_LabelSpec(f"base {prof.base_ft:g} ft", _font(7), "#1565c0",
                            [(bx - 1 * mm, bottom - 1.5 * mm, "right"), (bx + 1 * mm, bottom - 1.5 * mm, "left")],
                            True))
    run = 0.3 * x_max
    p.setPen(_pen("#7a7a7a", 0.3, mm, Qt.PenStyle.DashLine))
    p.drawLine(P(0, sts[0][1]), P(run, sts[0][1] + run * prof.threshold_pct / 100.0))
    end = P(run, sts[0][1] + run * prof.threshold_pct / 100.0)
    specs.append(_LabelSpec(f"{prof.threshold_pct:g} % threshold", _font(6.5), "#555555",
                            [(end.x() + 1 * mm, end.y(), "left"), (end.x(), end.y() - 1.5 * mm, "right"),
                             (end.x() + 1 * mm, end.y() + 3 * mm, "left")], True))
    bank = f.bank
    mark = bank if bank is not None else f.at_least_ft
    if mark is not None:
        p.setPen(_pen(BANK_COLOUR, 0.6, mm, Qt.PenStyle.SolidLine if bank is not None else Qt.PenStyle.DotLine))
        p.drawLine(P(mark, y_lo), P(mark, y_hi))
        text = f"bank {mark:,.1f} ft" if bank is not None else f"bank ≥ {mark:,.1f} ft (needs data)"
        mx = P(mark, y_hi).x()
        specs.insert(0, _LabelSpec(text, _font(7.5, True), BANK_COLOUR,
                                   [(mx + 1 * mm, top + 6.8 * mm, "left"), (mx - 1 * mm, top + 6.8 * mm, "right")],
                                   True))
    return specs


def _profile_ground(p: QPainter, f: _ProfileFrame, prof: TransectProfile, mm: float) -> list[_LabelSpec]:
    """The ground: each segment, steep ones (NR 341.035 threshold, ``at_least``) red and thick,
    with its slope (:func:`fieldapp.rules.shown.slope_pct_text`); the stations, a complete
    interruption crossed in purple. Returns the slope and interruption labels."""
    from fieldapp.rules.compare import at_least

    P, sts = f.pt, prof.stations
    seg_font = _font(6.5)
    specs = []
    for a, b in pairwise(sts):
        slope = b[2]    # None only at the OHWM, the first station
        steep = slope is not None and at_least(slope, prof.threshold_pct)
        p.setPen(_pen(BANK_COLOUR if steep else "#303030", 0.8 if steep else 0.45, mm))
        pa, pb = P(a[0], a[1]), P(b[0], b[1])
        p.drawLine(pa, pb)
        mid = QPointF((pa.x() + pb.x()) / 2, (pa.y() + pb.y()) / 2)
        if slope is not None and abs(pb.x() - pa.x()) > 5 * mm:
            specs.append(_LabelSpec(f"{slope_pct_text(slope)} %", seg_font, BANK_COLOUR if steep else "#303030",
                                    [(mid.x(), mid.y() - 1.6 * mm, "center"), (mid.x(), mid.y() + 4 * mm, "center")],
                                    False))
    p.setPen(_pen("#000000", 0.25, mm))
    p.setBrush(QColor("white"))
    for s in sts:
        p.drawEllipse(P(s[0], s[1]), 0.6 * mm, 0.6 * mm)
        if s[3]:
            c = P(s[0], s[1])
            p.setPen(_pen("#6a1b9a", 0.5, mm))
            p.drawLine(QPointF(c.x() - 1.5 * mm, c.y() - 1.5 * mm), QPointF(c.x() + 1.5 * mm, c.y() + 1.5 * mm))
            p.drawLine(QPointF(c.x() - 1.5 * mm, c.y() + 1.5 * mm), QPointF(c.x() + 1.5 * mm, c.y() - 1.5 * mm))
            specs.append(_LabelSpec("complete interruption", seg_font, "#6a1b9a",
                                    [(c.x() + 2 * mm, c.y() + 3.5 * mm, "left"),
                                     (c.x() - 2 * mm, c.y() + 3.5 * mm, "right"),
                                     (c.x() + 2 * mm, c.y() - 2.5 * mm, "left")], False))
            p.setPen(_pen("#000000", 0.25, mm))
    return specs
