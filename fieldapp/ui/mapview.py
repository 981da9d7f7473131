"""The site map: pyqtgraph, site feet, north up.

Positions, the track and the overlays are kept in buffers and drawn by one single-shot timer,
started only when something changed (an idle map runs no timer): at most ``redraw_hz`` draws a
second, the newest fix winning when several came since the last draw (a receiver faster than
the display, or a burst after the UI thread was busy). A draw moves the marker and accuracy
circle (plain Qt items: moving them repaints only their few pixels), extends the track,
follows and updates the scale bar. Coordinates handed in are projected site coordinates in
feet (easting, northing); the view subtracts a display origin (the first position) so the
numbers on screen stay small and float32 rendering does not jitter.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, QPointF, Qt, QTimer, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QEventPoint,
    QMouseEvent,
    QPainterPath,
    QPen,
    QPixmapCache,
)
from PySide6.QtWidgets import (
    QApplication,
    QBoxLayout,
    QGraphicsEllipseItem,
    QGraphicsItem,
    QGraphicsPathItem,
    QLabel,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from fieldapp.ui.crowns import CrownLayer
from fieldapp.ui.mapcontrast import FILL_ALPHA, POLYGON_WIDTH
from fieldapp.ui.mapgrid import GridLines
from fieldapp.ui.maplabels import placed_labels, placement_order
from fieldapp.ui.mapscatter import MapScatter
from fieldapp.ui.tracklayer import TrackLayer

NICE_STEPS_FT = (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000)

#: Colours of overlays by polygon kind (outline).
KIND_COLOURS = {
    "wetland": "#0077bb", "woodland": "#1b7a1b", "stand": "#1b7a1b", "woodland_stand": "#1b7a1b",
    "grove": "#0f5c0f",
    "impervious": "#555555", "disturbed": "#aa5500", "graded": "#aa5500",
    "foundation": "#000000", "drive": "#6b4e16", "driveway": "#6b4e16", "parking": "#6b4e16",
    "septic": "#8b008b", "utility": "#8b008b", "drainageway": "#00a0a0", "swale": "#00a0a0",
    "floodplain": "#4a6fa5",
}
#: Qt's pixmap cache (KiB) for the map's cached layers: the track's history and the point
#: layers, one view each (a 4K screen at twice the pixels: about 16 MiB a view).
PIXMAP_CACHE_KIB = 64 * 1024
#: A bank's red X on the map (pixels across); no other label prints over it.
BANK_MARK_PX = 22


def nice_length_ft(span_ft: float) -> float:
    """A round scale-bar length about a fifth of ``span_ft`` (feet)."""
    target = max(span_ft / 5.0, 1.0)
    best = NICE_STEPS_FT[0]
    for step in NICE_STEPS_FT:
        if step <= target:
            best = step
    return float(best)


#: A wetland data point's diamond on the map (pixels across): big enough to find in the sun.
DATA_POINT_MARK_PX = 26
#: The marker layers (:meth:`MapView.set_markers`): a filled diamond for a wetland data point,
#: an open one (white inside, a thick rim) for an upland one; (fill, rim colour, rim px).
MARKER_STYLES = {"data_wetland": ("#00639a", "#ffffff", 2.0), "data_upland": ("#ffffff", "#8a4b00", 4.0)}

#: Where a map label may go (pyqtgraph TextItem anchors), best first: a bank's right of its X,
#: else left of it; any other label centred above its point, else below it. A label at a
#: marker (a data point) goes beside the marker: :func:`_label_places`.
_LABEL_PLACES = {"bank": [(-0.12, 0.5), (1.12, 0.5)], "other": [(0.5, 1.0), (0.5, 0.0)]}


def _label_kind(item: Any) -> str:
    return "bank" if item.textItem.toPlainText().startswith("bank") else "other"


def _label_places(kind: str, w: float, h: float) -> list[tuple[float, float]]:
    """The anchors a ``kind`` label ``w`` x ``h`` px may take, best first: a marker's label just
    clear of its diamond, right, left, above, below (the marker stays uncovered)."""
    if kind != "marker":
        return _LABEL_PLACES[kind]
    gap = DATA_POINT_MARK_PX / 2.0 + 3.0
    w, h = max(w, 1.0), max(h, 1.0)
    return [(-gap / w, 0.5), (1.0 + gap / w, 0.5), (0.5, 1.0 + gap / h), (0.5, -gap / h)]


def set_points(item: Any, xs: list[Any], ys: list[Any], **opts: Any) -> None:
    """``item.setData(xs, ys, **opts)`` on a ScatterPlotItem of the map, hidden while empty (an
    empty one still sits at the map's origin, where the walk starts, and was painted again
    with every repaint of the marker near it). Map point layers are also cached as pixmaps."""
    item.setData(xs, ys, **opts)
    item.setVisible(len(xs) > 0)
    if item.cacheMode() != QGraphicsItem.CacheMode.DeviceCoordinateCache:
        item.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)


def _nan_join(rings: list[Any]) -> tuple[np.ndarray, np.ndarray]:
    """Join point lists into x, y arrays separated by NaN (one curve item draws them all)."""
    xs: list[float] = []
    ys: list[float] = []
    for ring in rings:
        for x, y in ring:
            xs.append(x)
            ys.append(y)
        xs.append(np.nan)
        ys.append(np.nan)
    return np.asarray(xs, float), np.asarray(ys, float)


class _Holder(QWidget):
    """A widget whose one child fills it, without a layout (a child's new size hint costs
    nothing above it)."""

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 - Qt name
        for child in self.findChildren(QWidget, options=Qt.FindChildOption.FindDirectChildrenOnly):
            child.setGeometry(self.rect())
        super().resizeEvent(event)


class ReadoutLabel(QLabel):
    """The map's readout: its figures can be selected and copied while the pointer is over it.

    Selectable only then: a selectable QLabel paints twice for every new text (once for the
    text, once more when its text control has laid the text out), and the readout gets new
    figures twice a second all day while fixes stream (issue 33)."""

    def enterEvent(self, event: Any) -> None:  # noqa: N802 - Qt name
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        super().enterEvent(event)

    def leaveEvent(self, event: Any) -> None:  # noqa: N802 - Qt name
        if not self.hasSelectedText():      # a selection stays until the figures change
            self.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
        super().leaveEvent(event)


class ScaleBarWidget(QWidget):
    """The map's scale bar, beside the map rather than on it (it never covers a label): a bar
    ``px`` pixels long with its length in feet."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("scaleBar")
        self.length_ft = 0.0
        self.px = 0.0
        self.setMinimumSize(180, 30)

    def set_scale(self, length_ft: float, px: float) -> None:
        if (length_ft, round(px)) != (self.length_ft, round(self.px)):
            self.length_ft, self.px = length_ft, px
            self.setToolTip(f"Scale bar: {length_ft:g} ft (the map's grid lines are {length_ft:g} ft apart)")
            if self.minimumWidth() < int(px) + 80:      # the bar is drawn true to scale
                self.setMinimumWidth(int(px) + 80)
            self.update()

    def text(self) -> str:
        return f"{self.length_ft:g} ft"

    def paintEvent(self, _event: Any) -> None:  # noqa: N802 - Qt name
        from PySide6.QtGui import QPainter

        if self.px <= 0:
            return
        p = QPainter(self)
        p.setPen(QPen(QColor(self.palette().windowText().color()), 3))
        h = self.height()
        x1 = self.width() - 6
        x0 = x1 - self.px
        y = h - 8
        p.drawLine(int(x0), y, int(x1), y)
        p.drawLine(int(x0), y - 6, int(x0), y)
        p.drawLine(int(x1), y - 6, int(x1), y)
        p.drawText(int(x0) - 64, 0, 60, h, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, self.text())
        p.end()


class TouchNavigator(QObject):
    """Fingers on the map (a Windows tablet's touch screen, issue 28), as an event filter on
    the plot's viewport.

    * Two fingers: the map zooms by the pinch (the fingers' distance now over before) about
      the point between them, and pans with that point: the ground under the fingers stays
      under them. Follow me goes off, as with a drag.
    * One finger: a drag pans as the mouse does; a tap (moved less than :data:`TAP_SLOP_PX`)
      is a click (a vertex, a note placed, a record picked). The press is held back until the
      finger moves or lifts, so a pinch's first finger never clicks.
    * A touchpad's pinch (``QNativeGestureEvent``, zoom) zooms about the cursor.
    """

    #: A finger moving less than this (logical px) before it lifts is a tap.
    TAP_SLOP_PX = 10.0

    def __init__(self, view: MapView) -> None:
        super().__init__(view)
        self.view = view
        self.viewport = view.plot.viewport()
        self.viewport.setAttribute(Qt.WidgetAttribute.WA_AcceptTouchEvents)
        self.viewport.installEventFilter(self)
        self._pinch: tuple[QPointF, float] | None = None   # centre (viewport px), spread
        self._pinched = False          # a pinch in this touch: the last finger does nothing
        self._press: QPointF | None = None                  # one finger down, not sent yet
        self._dragging = False
        self._last = QPointF()
        self.pinches = 0               # pinch steps applied (for tests and the curious)

    def eventFilter(self, obj: Any, event: Any) -> bool:  # noqa: N802 - Qt name
        kind = event.type()
        if kind in (QEvent.Type.TouchBegin, QEvent.Type.TouchUpdate, QEvent.Type.TouchEnd, QEvent.Type.TouchCancel):
            self._touch(event)
            event.accept()
            return True
        if kind == QEvent.Type.NativeGesture and \
                event.gestureType() == Qt.NativeGestureType.ZoomNativeGesture:
            factor = 1.0 + float(event.value())
            if factor > 0:
                self.zoom_about(event.position(), 1.0 / factor)
            event.accept()
            return True
        return False

    # ---------------------------------------------------------------- map moves
    def _view_point(self, pos: QPointF) -> QPointF:
        """The map point (display feet) under viewport position ``pos``."""
        plot = self.view.plot
        return plot.getPlotItem().getViewBox().mapSceneToView(plot.mapToScene(pos.toPoint()))

    def zoom_about(self, pos: QPointF, scale: float, to: QPointF | None = None) -> None:
        """Zoom by ``scale`` (< 1 zooms in: the view's width times ``scale``) keeping the map
        point under ``pos`` (viewport px) fixed, then move it to ``to`` (default: stay)."""
        vb = self.view.plot.getPlotItem().getViewBox()
        centre = self._view_point(pos)
        vb.scaleBy((scale, scale), center=(centre.x(), centre.y()))
        if to is not None:
            # after the zoom: the ground that was under pos goes under to
            (x0, x1), (y0, y1) = vb.viewRange()
            rect = vb.sceneBoundingRect()
            sx = (x1 - x0) / max(rect.width(), 1.0)
            sy = (y1 - y0) / max(rect.height(), 1.0)
            dx, dy = to.x() - pos.x(), to.y() - pos.y()
            vb.translateBy(x=-dx * sx, y=dy * sy)          # screen y grows down, north up
        self.view.set_follow(False)
        self.view._request_draw()

    # ---------------------------------------------------------------- touch
    def _touch(self, event: Any) -> None:
        points = [p for p in event.points()
                  if p.state() != QEventPoint.State.Released]
        if event.type() == QEvent.Type.TouchCancel:
            self._end_drag(self._last)
            self._reset()
            return
        if len(points) >= 2:
            self._end_drag(self._last)
            self._pinched = True
            a, b = self._at(points[0]), self._at(points[1])
            centre = (a + b) / 2.0
            spread = max(((a.x() - b.x()) ** 2 + (a.y() - b.y()) ** 2) ** 0.5, 1.0)
            if self._pinch is not None:
                before, spread0 = self._pinch
                self.zoom_about(before, spread0 / spread, to=centre)
                self.pinches += 1
            self._pinch = (centre, spread)
            return
        self._pinch = None
        if self._pinched:               # the last finger of a pinch: nothing until all lift
            if not points:
                self._reset()
            return
        if not points:                  # the finger lifted
            released = list(event.points())
            pos = self._at(released[0]) if released else self._last
            if self._press is not None:                 # a tap: a click
                self._mouse(QEvent.Type.MouseButtonPress, self._press)
                self._mouse(QEvent.Type.MouseButtonRelease, self._press)
            else:
                self._end_drag(pos)
            self._reset()
            return
        pos = self._at(points[0])
        self._last = pos
        if event.type() == QEvent.Type.TouchBegin or (self._press is None and not self._dragging):
            self._press = pos
            return
        if self._press is not None:
            moved = pos - self._press
            if (moved.x() ** 2 + moved.y() ** 2) ** 0.5 < self.TAP_SLOP_PX:
                return
            self._mouse(QEvent.Type.MouseButtonPress, self._press)
            self._press = None
            self._dragging = True
        self._mouse(QEvent.Type.MouseMove, pos)

    def _at(self, point: Any) -> QPointF:
        """A touch point's position in the viewport (px): from its screen position, as a
        point's own position may be the scroll area's (the viewport's frame apart)."""
        return self.viewport.mapFromGlobal(point.globalPosition())

    def _end_drag(self, pos: QPointF) -> None:
        """Lift the mouse button of a one-finger drag (a pinch began, or the finger lifted)."""
        if self._dragging:
            self._mouse(QEvent.Type.MouseButtonRelease, pos)
        self._dragging = False
        self._press = None

    def _reset(self) -> None:
        self._pinch = None
        self._pinched = False
        self._press = None
        self._dragging = False

    def _mouse(self, kind: QEvent.Type, pos: QPointF) -> None:
        """A left-button mouse event at ``pos`` (viewport px), as Qt makes from a finger."""
        button = Qt.MouseButton.NoButton if kind == QEvent.Type.MouseMove else Qt.MouseButton.LeftButton
        held = Qt.MouseButton.NoButton if kind == QEvent.Type.MouseButtonRelease else Qt.MouseButton.LeftButton
        glob = QPointF(self.viewport.mapToGlobal(pos.toPoint()))
        QApplication.sendEvent(self.viewport, QMouseEvent(kind, pos, glob, button, held,
                                                          Qt.KeyboardModifier.NoModifier))


class MapView(QWidget):
    """Map of the site in feet with the live position.

    Signals
    -------
    sigFollowChanged(bool)
    """

    sigFollowChanged = Signal(bool)

    def __init__(self, redraw_hz: float = 10.0, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        pg.setConfigOptions(antialias=False, background="w", foreground="k", exitCleanup=False)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.plot = pg.PlotWidget()
        self.plot.setObjectName("map")
        lay.addWidget(self.plot)
        # under the map, never over it: where the cursor (or you) are, and the scale bar
        # the scale bar goes under the readout on a narrow map (a 1024 px wide tablet):
        # the readout's figures are never cut (resizeEvent)
        strip = QBoxLayout(QBoxLayout.Direction.LeftToRight)
        strip.setContentsMargins(4, 0, 4, 0)
        self.readout_strip = strip
        # the readout sits in a holder without a layout: its text changes with every draw,
        # and a label's new text asks its parent's layout to be redone (here: nothing to do)
        holder = _Holder()
        self.readout = ReadoutLabel("", holder)
        self.readout.setObjectName("mapReadout")
        self.readout.setStyleSheet("font-size: 11pt;")
        # opaque: its repaint (twice a second while fixes stream) does not repaint the map
        # widget, the splitters and the window under it
        self.readout.setAutoFillBackground(True)
        self.readout.ensurePolished()
        holder.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)  # never widens
        holder.setFixedHeight(2 * self.readout.fontMetrics().lineSpacing() + 2)
        strip.addWidget(holder, 1)
        self.scale_widget = ScaleBarWidget()
        strip.addWidget(self.scale_widget)
        lay.addLayout(strip)
        #: site feet -> (lat, lon) degrees, or None; the window sets it from the visit
        self.to_lat_lon: Callable[[float, float], tuple[float, float] | None] | None = None
        #: site feet -> (easting, northing, unit) in the site CRS's own unit, for the readout
        self.to_site_crs: Callable[[float, float], tuple[float, float, str] | None] | None = None
        # shadows QWidget.cursor() (nothing here calls it); tests/ui/test_ui_map.py sets it
        self.cursor: tuple[float, float] | None = None  # type: ignore[assignment]
        pi = self.plot.getPlotItem()
        pi.setAspectLocked(True, ratio=1.0)
        # a map, not a chart: no East / North axes (the readout gives coordinates); faint
        # grid lines one scale bar apart at round site feet instead (fieldapp/ui/mapgrid.py)
        pi.hideAxis("bottom")
        pi.hideAxis("left")
        self.grid = GridLines()
        self.grid.setZValue(-7)             # over the basemap, under every feature
        pi.addItem(self.grid)
        # room for the cached layers' pixmaps (a view each; Qt's default is 10 MiB)
        QPixmapCache.setCacheLimit(max(QPixmapCache.cacheLimit(), PIXMAP_CACHE_KIB))
        pi.setXRange(-100, 100)
        pi.setYRange(-100, 100)
        self.origin: tuple[float, float] | None = None

        self.position: tuple[float, float] | None = None
        self.accuracy_ft = 0.0
        self.position_usable = False
        self.follow = True
        self._dirty = True
        self.marker_updates = 0
        self._marker_colour = ""
        self._overlay_dirty: dict[str, tuple[Any, ...]] = {}
        self._overlay_shown: dict[str, list[Any]] = {}

        self.curves: dict[str, pg.PlotDataItem] = {}
        self.high_contrast = False          # fieldapp.ui.mapcontrast.apply_contrast
        pens = {
            "ohwm": pg.mkPen("#0033dd", width=7),
            "transects": pg.mkPen("#aa00aa", width=2),
            "bank": pg.mkPen("#cc0000", width=4, style=Qt.PenStyle.DashLine),
            "buffers": pg.mkPen("#cc0000", width=2, style=Qt.PenStyle.DotLine),
            "envelope": pg.mkPen("#000000", width=2, style=Qt.PenStyle.DashDotLine),
            "boundary_live": pg.mkPen("#ff6600", width=3),
            "features": pg.mkPen("#00a0a0", width=4),     # drainageways, swales ... lines
            "data_pairs": pg.mkPen("#6a1b9a", width=2, style=Qt.PenStyle.DashLine),  # wetland data point pairs
            # stretches of a wetland boundary no data point pair supports (fieldapp.checks.segments)
            "unsupported": pg.mkPen("#c2185b", width=5, style=Qt.PenStyle.DashLine),
        }
        # the walked track (the visit's stored track, then every fix): thin, dark enough to show
        # on an orthophoto, under every feature (it crosses the crowns in a tally); decimated
        # for the view
        self.track = TrackLayer(pi, pg.mkPen("#5c6470", width=1), -10, parent=self)
        for name, pen in pens.items():
            item = pg.PlotDataItem(pen=pen, connect="finite")
            self.curves[name] = item
            pi.addItem(item)
        # The OHWM is what everything is measured from: thick blue line, large blue diamonds
        # with a white rim, drawn over the track, transects and polygons; labelled "OHWM".
        self.curves["ohwm"].setZValue(15)
        self.ohwm_points = MapScatter(size=20, symbol="d", brush=pg.mkBrush("#0033dd"),
                                              pen=pg.mkPen("w", width=2))
        self.ohwm_points.setZValue(16)
        self.ohwm_points.hide()
        pi.addItem(self.ohwm_points)
        self.ohwm_label = pg.TextItem("OHWM", color="#0033dd", anchor=(-0.15, 1.1),
                                      fill=pg.mkBrush(255, 255, 255, 200))
        font = self.ohwm_label.textItem.font()
        font.setBold(True)
        font.setPointSize(14)
        self.ohwm_label.setFont(font)
        self.ohwm_label.setZValue(17)
        self.ohwm_label.hide()
        pi.addItem(self.ohwm_label)
        # The bank of each transect (a red X with "bank 120 ft") and labelled buffers.
        self.bank_points = MapScatter(size=BANK_MARK_PX, symbol="x", brush=pg.mkBrush("#cc0000"),
                                              pen=pg.mkPen("w", width=1))
        self.bank_points.setZValue(14)
        self.bank_points.hide()
        pi.addItem(self.bank_points)
        # data points: one diamond each, over every label (a label may give way, the mark never)
        self.marker_items: dict[str, pg.ScatterPlotItem] = {}
        for name, (fill_c, rim_c, rim_px) in MARKER_STYLES.items():
            item = MapScatter(size=DATA_POINT_MARK_PX, symbol="d", brush=pg.mkBrush(fill_c),
                                      pen=pg.mkPen(rim_c, width=rim_px))
            item.setZValue(18)
            item.hide()
            pi.addItem(item)
            self.marker_items[name] = item
        self.label_items: list[pg.TextItem] = []
        self.label_kinds: list[str] = []        # "bank", "marker" (at a data point) or "other"
        self._labels_placed_at: tuple[Any, ...] | None = None     # the zoom the labels were placed at
        self.polygon_items: dict[str, pg.PlotDataItem] = {}
        self.polygon_fills: dict[str, QGraphicsPathItem] = {}
        self.trees = CrownLayer(pi)   # one path per colour: thousands of crowns paint in C++
        # what stays put while you walk is painted once into a pixmap of the view and copied
        # when the marker's repaint crosses it (a pan moves the pixmap; a zoom or new data
        # paints it again); not the track's tail, which every fix changes: a pixmap of it would
        # be painted again and copied with each fix (a fix's paint 1.9 -> 3.5 ms)
        for item in [c.curve for c in self.curves.values()] + [
                self.ohwm_points, self.ohwm_label, self.bank_points]:
            item.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        # the position: a plain Qt ellipse 18 px across (white rim) and the accuracy circle in
        # feet; moving them repaints their few pixels, in C++ (a ScatterPlotItem's Python
        # bounds and paint cost more than the rest of a fix)
        self.accuracy_item = QGraphicsEllipseItem()
        self.accuracy_item.setBrush(pg.mkBrush(0, 90, 255, 40))
        self.position_item = QGraphicsEllipseItem(-9.0, -9.0, 18.0, 18.0)
        self.position_item.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        rim = QPen(QColor("white"), 2)
        rim.setCosmetic(True)
        self.position_item.setPen(rim)
        self._accuracy_shown = -1.0
        for item, z in ((self.accuracy_item, 20), (self.position_item, 21)):
            item.setZValue(z)
            item.hide()
            pi.addItem(item, ignoreBounds=True)

        self.scale_label_len = 0.0
        self.plot.scene().sigMouseMoved.connect(self._mouse_moved)

        self.north = QLabel("▲\nN", self.plot)
        self.north.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.north.setStyleSheet("background: rgba(255,255,255,220); color: #000;"
                                 " font-weight: bold; font-size: 16pt; border: 2px solid #000;"
                                 " border-radius: 4px; padding: 2px 8px;")
        self.north.setToolTip("North is up (grid north of the site CRS)")
        self.north.move(10, 10)

        self.unchanged = 0               # positions on screen already (nothing drawn)
        self._drawn_look: tuple[Any, ...] | None = None    # x, y, accuracy radius (ft), usable drawn
        self._readout_at = -1e9
        self._readout_timer = QTimer(self)
        self._readout_timer.setSingleShot(True)
        self._readout_timer.timeout.connect(self._readout_due)
        pi.getViewBox().sigRangeChangedManually.connect(self._manual_pan)
        # the scale bar follows a zoom by wheel or keys at once, fixes or not
        pi.getViewBox().sigRangeChanged.connect(lambda *_: self._view_moved())
        pi.getViewBox().sigResized.connect(lambda *_: self._update_scale())
        #: the one draw timer: single-shot, started by a change, never running idle
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.timeout.connect(self.redraw)
        self._min_interval_s = 1.0 / redraw_hz
        self._last_draw_at = -1e9
        self.draws = 0                   # draws of the position (not counting the empty ones)
        #: the ``stamp`` of the newest position drawn (the window passes the fix)
        self.drawn_stamp: Any = None
        self._stamp: Any = None
        #: pinch to zoom and two-finger pan on a touch screen, a tap a click
        self.touch = TouchNavigator(self)
        self._request_draw()

    #: The readout's widest usual line (site coordinates in metres, seven digits).
    READOUT_SAMPLE = "Cursor  E 9,999,999.999 m  N 9,999,999.999 m"

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 - Qt name
        """The scale bar beside the readout when both fit, else under it."""
        need = (self.readout.fontMetrics().horizontalAdvance(self.READOUT_SAMPLE) + 12
                + self.scale_widget.minimumWidth() + 8)
        direction = (QBoxLayout.Direction.LeftToRight if event.size().width() >= need
                     else QBoxLayout.Direction.TopToBottom)
        changed = direction != self.readout_strip.direction()
        if changed:
            self.readout_strip.setDirection(direction)
        super().resizeEvent(event)
        lay = self.layout()
        if changed and lay is not None:     # laid out for the old direction already
            lay.activate()

    # ---------------------------------------------------------------- inputs (cheap)
    def set_origin(self, x_ft: float, y_ft: float) -> None:
        """Display origin: screen coordinates are site feet minus this."""
        self.origin = (x_ft, y_ft)
        self.grid.set_step(self.grid.step_ft, self.origin)
        self._request_draw()

    def _request_draw(self) -> None:
        """Mark the position dirty and start the draw timer unless it runs already (then the
        newest position is what it draws): at once when the last draw is 1 / ``redraw_hz``
        old, else when it will be."""
        self._dirty = True
        if not self.timer.isActive():
            wait_s = self._last_draw_at + self._min_interval_s - time.monotonic()
            self.timer.start(max(0, int(wait_s * 1000.0 + 0.999)))

    def _local(self, x_ft: float, y_ft: float) -> tuple[float, float]:
        if self.origin is None:
            self.set_origin(x_ft, y_ft)
        origin = self.origin
        assert origin is not None           # set_origin sets it
        return x_ft - origin[0], y_ft - origin[1]

    def update_position(self, x_ft: float, y_ft: float, accuracy_ft: float,
                        usable: bool = True, track: bool = True, stamp: Any = None) -> None:
        """Record the newest position (site feet; ``accuracy_ft`` the radius of the accuracy
        circle, feet). The marker, accuracy circle, track and follow-me are drawn by the draw
        timer: at once after a quiet spell, else within 1 / ``redraw_hz`` s, the newest
        position winning. ``stamp`` (anything, e.g. the fix) is :attr:`drawn_stamp` once
        drawn."""
        lx, ly = self._local(x_ft, y_ft)
        self.position = (lx, ly)
        self.accuracy_ft = max(float(accuracy_ft), 0.0)
        self.position_usable = usable
        self._stamp = stamp
        if track:
            self.track.append(lx, ly)
        self.marker_updates += 1
        self._request_draw()

    def _draw_marker(self) -> None:
        if self.position is None:
            return
        x, y = self.position
        colour = "#0050ff" if self.position_usable else "#9a9a9a"
        if colour != self._marker_colour:
            self._marker_colour = colour
            self.position_item.setBrush(QBrush(QColor(colour)))
            pen = QPen(QColor(colour), 2)
            pen.setCosmetic(True)
            self.accuracy_item.setPen(pen)
        r = max(self.accuracy_ft, 0.05)
        if r != self._accuracy_shown:
            self._accuracy_shown = r
            self.accuracy_item.setRect(-r, -r, 2.0 * r, 2.0 * r)
        self.position_item.setPos(x, y)
        self.accuracy_item.setPos(x, y)
        if not self.position_item.isVisible():
            self.position_item.show()
            self.accuracy_item.show()

    def _on_screen_already(self) -> bool:
        """True when the newest position would not move a pixel: the marker and the accuracy
        circle within half a pixel of where they are drawn, the same colour (the fix's tail
        positions are then under the marker too). Standing at a point, or walking slowly on a
        zoomed-out map, most fixes are; such a fix is on screen already and nothing is drawn."""
        drawn = self._drawn_look
        if drawn is None or self.position is None or not self.position_item.isVisible():
            return False
        vb = self.plot.getPlotItem().getViewBox()
        (x0, x1), (y0, y1) = vb.viewRange()
        half_px = 0.5 * max((x1 - x0) / max(vb.width(), 1.0), (y1 - y0) / max(vb.height(), 1.0))
        (x, y), r = self.position, max(self.accuracy_ft, 0.05)
        dx, dy, dr = x - drawn[0], y - drawn[1], r - drawn[2]
        return (self.position_usable == drawn[3] and abs(dx) < half_px and abs(dy) < half_px
                and abs(dr) < half_px)

    def _view_moved(self) -> None:
        """A pan or zoom: the scale bar at once, and the newest position if the marker shows an
        older one (to half a pixel of the old view)."""
        self._update_scale()
        if self._drawn_look is not None and self.position is not None and \
                (*self.position, self.position_usable) != (self._drawn_look[0], self._drawn_look[1],
                                                           self._drawn_look[3]):
            self._request_draw()

    def _draw_position(self) -> None:
        """Track, marker, follow-me and scale bar from the buffers (clears the dirty flag);
        nothing when the newest position is on screen already (:meth:`_on_screen_already`), but
        the readout's numbers, at most twice a second."""
        self._dirty = False
        self._last_draw_at = time.monotonic()
        if self._on_screen_already():
            self.drawn_stamp = self._stamp
            self.unchanged += 1
            self._readout_now()
            return
        self.track.draw_tail()
        if self.position is not None:
            x, y = self.position
            self._draw_marker()
            self._drawn_look = (x, y, max(self.accuracy_ft, 0.05), self.position_usable)
            self.drawn_stamp = self._stamp
            self.draws += 1
            if self.follow:
                vb = self.plot.getPlotItem().getViewBox()
                (x0, x1), (y0, y1) = vb.viewRange()
                w, h = x1 - x0, y1 - y0
                if not (x0 + 0.2 * w < x < x1 - 0.2 * w and y0 + 0.2 * h < y < y1 - 0.2 * h):
                    # not with blocked signals: the grid and the scale bar follow the view
                    # through them; setRange does not emit sigRangeChangedManually
                    vb.setRange(xRange=(x - w / 2, x + w / 2), yRange=(y - h / 2, y + h / 2),
                                padding=0)
        self._update_scale(readout=False)
        self._readout_now()

    def _readout_now(self) -> None:
        """The readout's numbers while fixes stream: at most twice a second (ten new figures a
        second cannot be read, and each repaints the strip under the map)."""
        wait_s = self._readout_at + 0.5 - self._last_draw_at
        if wait_s <= 0:
            self._readout_at = self._last_draw_at
            self._show_readout()
        elif not self._readout_timer.isActive():      # the newest numbers, half a second on
            self._readout_timer.start(max(1, int(wait_s * 1000)))

    def _readout_due(self) -> None:
        self._readout_at = time.monotonic()
        self._show_readout()

    @property
    def track_n(self) -> int:
        """Positions in the drawn track."""
        return self.track.n

    def show_stored_track(self, xs_ft: Any, ys_ft: Any) -> None:
        """Draw the visit's stored track (site feet, in time order) as the start of the track;
        the display origin is its first position when none is set yet."""
        xs_ft = np.asarray(xs_ft, float)
        ys_ft = np.asarray(ys_ft, float)
        if not len(xs_ft):
            return
        if self.origin is None:
            self.set_origin(float(xs_ft[0]), float(ys_ft[0]))
        origin = self.origin
        assert origin is not None           # set_origin sets it
        self.track.extend(xs_ft - origin[0], ys_ft - origin[1])
        self._request_draw()

    def clear_track(self) -> None:
        """Forget the drawn track and position (another visit is shown)."""
        self.track.clear()
        self.position = None
        self.origin = None
        self.grid.set_step(self.grid.step_ft, (0.0, 0.0))
        self._drawn_look = None
        self.position_item.hide()
        self.accuracy_item.hide()
        self._overlay_shown.clear()       # drawn against the old origin
        self._request_draw()

    def set_usable(self, usable: bool) -> None:
        if usable != self.position_usable:
            self.position_usable = usable
            self._request_draw()

    def set_lines(self, name: str, lines: list[list[tuple[float, float]]]) -> None:
        """Overlay ``name`` (ohwm, transects, bank, buffers, envelope, boundary_live) as lines
        in site feet."""
        self._queue(name, "lines", lines)

    def set_polygons(self, kind: str, rings: list[list[tuple[float, float]]]) -> None:
        """Closed rings of polygons of ``kind`` in site feet."""
        self._queue("poly:" + kind, "poly", rings)

    def set_labels(self, labels: list[tuple[float, float, str, str]]) -> None:
        """Map labels as (x_ft, y_ft, text, colour); ``bank ...`` labels also get a red X."""
        self._queue("labels", "labels", labels)

    def set_markers(self, name: str, points: list[tuple[float, float]]) -> None:
        """Marker layer ``name`` (:data:`MARKER_STYLES`: data_wetland, data_upland) at these
        points (site feet); a label at a marker's point is placed beside it."""
        self._queue("markers:" + name, "markers", points)

    def set_trees(self, trees: list[tuple[float, float, float, str]]) -> None:
        """Trees as (x_ft, y_ft, crown_radius_ft, colour) crown circles."""
        self._queue("trees", "trees", trees)

    def _queue(self, name: str, what: str, data: list[Any]) -> None:
        """Draw ``data`` at the next redraw unless it is what is drawn already (the model
        changes often; most overlays do not)."""
        if self._overlay_shown.get(name) == data:
            return          # drawn already, or queued to be
        self._overlay_shown[name] = data
        self._overlay_dirty[name] = (what, data)
        if not self.timer.isActive():
            self.timer.start(0)     # overlays are drawn at the next turn of the loop

    def set_follow(self, on: bool) -> None:
        if on != self.follow:
            self.follow = on
            self.sigFollowChanged.emit(on)
            self._request_draw()

    def _manual_pan(self, *_: object) -> None:
        self.set_follow(False)

    # ---------------------------------------------------------------- drawing (timer)
    def _to_local(self, pts: list[tuple[float, float]]) -> list[tuple[float, float]]:
        if self.origin is None and pts:
            self.set_origin(*pts[0])
        ox, oy = self.origin or (0.0, 0.0)
        return [(x - ox, y - oy) for x, y in pts]

    def redraw(self) -> None:
        """Draw what changed since the last redraw."""
        if self._overlay_dirty:
            pending, self._overlay_dirty = self._overlay_dirty, {}
            for name, (what, data) in pending.items():
                if what == "lines":
                    x, y = _nan_join([self._to_local(line) for line in data])
                    self.curves[name].setData(x, y, connect="finite")
                    if name == "ohwm":
                        pts = [p for line in data for p in self._to_local(line)]
                        set_points(self.ohwm_points, [p[0] for p in pts], [p[1] for p in pts])
                        self.ohwm_label.setVisible(bool(pts))
                        if pts:     # on the line walked (the most points), not a far bank's lone shot
                            walked = max(data, key=len)
                            self.ohwm_label.setPos(*self._to_local(walked[:1])[0])
                        self._labels_placed_at = None       # the others keep clear of it
                        self._place_labels()
                elif what == "poly":
                    kind = name.split(":", 1)[1]
                    item = self.polygon_items.get(kind)
                    if item is None:
                        colour = QColor(KIND_COLOURS.get(kind, "#444444"))
                        fill = QColor(colour)
                        fill.setAlpha(45)
                        item = pg.PlotDataItem(pen=pg.mkPen(
                            colour, width=POLYGON_WIDTH[1 if self.high_contrast else 0]),
                            connect="finite")
                        item.curve.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
                        item.setZValue(-5)
                        self.polygon_items[kind] = item
                        self.plot.getPlotItem().addItem(item)
                    closed = [self._to_local(list(r) + [r[0]]) for r in data if r]
                    x, y = _nan_join(closed)
                    item.setData(x, y, connect="finite")
                    self._fill(kind, closed)
                elif what == "labels":
                    self._draw_labels(data)
                elif what == "markers":
                    pts = self._to_local(data)
                    set_points(self.marker_items[name.split(":", 1)[1]], [p[0] for p in pts],
                               [p[1] for p in pts])
                elif what == "trees":   # the crown layer adds only the trees added since
                    if self.origin is None and data:
                        self.set_origin(data[0][0], data[0][1])
                    self.trees.set_crowns(data, self.origin or (0.0, 0.0))
        if self._dirty:
            self._draw_position()

    def _fill(self, kind: str, rings: list[Any]) -> None:
        """A light fill of ``kind``'s polygons (odd-even: holes stay open)."""
        path = QPainterPath()
        path.setFillRule(Qt.FillRule.OddEvenFill)
        for ring in rings:
            if len(ring) >= 3:
                path.moveTo(*ring[0])
                for x, y in ring[1:]:
                    path.lineTo(x, y)
                path.closeSubpath()
        item = self.polygon_fills.get(kind)
        if item is None:
            fill = QColor(KIND_COLOURS.get(kind, "#444444"))
            fill.setAlpha(FILL_ALPHA[1 if self.high_contrast else 0])
            item = QGraphicsPathItem()
            item.setBrush(QBrush(fill))
            item.setPen(QPen(Qt.PenStyle.NoPen))
            item.setZValue(-6)
            self.polygon_fills[kind] = item
            self.plot.getPlotItem().addItem(item)
        item.setPath(path)

    def _draw_labels(self, labels: list[Any]) -> None:
        pi = self.plot.getPlotItem()
        for item in self.label_items:
            pi.removeItem(item)
        self.label_items = []
        self.label_kinds = []
        marked = {tuple(p) for name, pts in self._overlay_shown.items() if name.startswith("markers:")
                  for p in pts}
        banks = []
        for x, y, text, colour in labels:
            lx, ly = self._to_local([(x, y)])[0]
            bank = text.startswith("bank")
            if bank:
                banks.append((lx, ly))
            self.label_kinds.append("bank" if bank else "marker" if (x, y) in marked else "other")
            # a bank label right of its X; others centred just above their point
            item = pg.TextItem(text, color=colour, anchor=(-0.12, 0.5) if bank else (0.5, 1.0),
                               fill=pg.mkBrush(255, 255, 255, 210))
            font = item.textItem.font()
            font.setBold(True)
            font.setPointSize(12)
            item.setFont(font)
            item.setZValue(17)
            item.setPos(lx, ly)
            item.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
            pi.addItem(item)
            self.label_items.append(item)
        set_points(self.bank_points, [p[0] for p in banks], [p[1] for p in banks])
        self._labels_placed_at = None
        self._place_labels()

    def _place_labels(self) -> None:
        """Hide the labels that would print over another at this zoom (fieldapp/ui/maplabels.py);
        again only when the zoom changed (a pan moves every label alike)."""
        vb = self.plot.getPlotItem().getViewBox()
        (x0, x1), (y0, y1) = vb.viewRange()
        zoom = (round((x1 - x0) / max(vb.width(), 1.0), 9), round((y1 - y0) / max(vb.height(), 1.0), 9))
        if zoom == self._labels_placed_at or not self.label_items:
            return
        self._labels_placed_at = zoom
        cands, marks = [], []
        half = {"bank": BANK_MARK_PX / 2.0, "marker": DATA_POINT_MARK_PX / 2.0}
        ohwm = [self.ohwm_label] if self.ohwm_label.isVisible() else []   # always shown, first
        items = ohwm + self.label_items
        kinds = ["ohwm"] * len(ohwm) + (self.label_kinds if len(self.label_kinds) == len(self.label_items)
                                        else [_label_kind(i) for i in self.label_items])
        places: list[list[tuple[float, float]]] = []
        for item, kind in zip(items, kinds, strict=True):
            p = vb.mapViewToScene(item.pos())
            size = item.textItem.boundingRect()
            w, h = size.width(), size.height()
            anchors = [tuple(item.anchor)] if kind == "ohwm" else _label_places(kind, w, h)
            places.append(anchors)
            cands.append([(p.x() - ax * w, p.y() - ay * h, p.x() - ax * w + w, p.y() - ay * h + h)
                          for ax, ay in anchors])
            r = half.get(kind)      # a bank's X, a data point's diamond: no other label covers it
            marks.append((p.x() - r, p.y() - r, p.x() + r, p.y() + r) if r is not None else None)
        texts = [item.textItem.toPlainText() for item in self.label_items]
        order = [0] + [i + 1 for i in placement_order(texts)] if ohwm else placement_order(texts)
        chosen = placed_labels(cands, order, marks, always=frozenset({0}) if ohwm else frozenset())
        for n, item in enumerate(items[len(ohwm):], start=len(ohwm)):
            k = chosen[n]
            item.setVisible(k is not None)
            if k is not None and tuple(item.anchor) != places[n][k]:
                item.setAnchor(places[n][k])

    def _update_scale(self, readout: bool = True) -> None:
        vb = self.plot.getPlotItem().getViewBox()
        (x0, x1), _ = vb.viewRange()
        length = nice_length_ft(x1 - x0)
        px = length * vb.width() / (x1 - x0) if x1 > x0 else 0.0
        self.scale_label_len = length
        self.scale_widget.set_scale(length, px)
        self.grid.set_step(length, self.origin or (0.0, 0.0))
        self._place_labels()
        if readout:
            self._show_readout()

    # ---------------------------------------------------------------- where: cursor, you
    def _mouse_moved(self, scene_pos: Any) -> None:
        vb = self.plot.getPlotItem().getViewBox()
        if vb.sceneBoundingRect().contains(scene_pos):
            p = vb.mapSceneToView(scene_pos)
            self.cursor = (float(p.x()), float(p.y()))
        else:
            self.cursor = None
        self._show_readout()

    def leaveEvent(self, event: Any) -> None:  # noqa: N802 - Qt name
        self.cursor = None
        self._show_readout()
        super().leaveEvent(event)

    def site_xy(self, local: tuple[float, float]) -> tuple[float, float]:
        """A map point (display coordinates) in site feet."""
        ox, oy = self.origin or (0.0, 0.0)
        return local[0] + ox, local[1] + oy

    def readout_text(self) -> str:
        """``Cursor  E … m  N … m`` (the site CRS's coordinates in its own unit: m, ftUS or
        ft) and on a second line ``44.500000° N, 89.500000° W`` (the cursor over the map), else
        the same for ``You`` (the current position), else ""."""
        if self.cursor is not None and self.origin is not None:
            who, local = "Cursor", self.cursor
        elif self.position is not None:
            who, local = "You", self.position
        else:
            return ""
        x, y = self.site_xy(local)
        crs = self.to_site_crs(x, y) if self.to_site_crs is not None else None
        if crs is not None:
            e, n, unit = crs
            nd = 3 if unit == "m" else 2
            text = f"{who}  E {e:,.{nd}f} {unit}  N {n:,.{nd}f} {unit}"
        else:
            text = f"{who}  E {x:,.1f} ft  N {y:,.1f} ft"
        try:
            ll = self.to_lat_lon(x, y) if self.to_lat_lon is not None else None
        except Exception:  # noqa: BLE001 - far outside the CRS: the site feet are enough
            ll = None
        if ll is not None:
            lat, lon = ll
            text += (f"\n{abs(lat):.6f}° {'N' if lat >= 0 else 'S'},"
                     f" {abs(lon):.6f}° {'E' if lon >= 0 else 'W'}")
        return text

    def _show_readout(self) -> None:
        text = self.readout_text()
        if self.readout.text() != text:
            self.readout.setText(text)

    def zoom_to_all(self) -> None:
        """Show everything recorded (overlays, trees, the track and the position); Follow me
        goes off so the view stays."""
        pts: list[tuple[float, float]] = []
        for name, data in self._overlay_shown.items():
            if name == "trees":
                pts += [(t[0] - t[2], t[1] - t[2]) for t in data]
                pts += [(t[0] + t[2], t[1] + t[2]) for t in data]
            elif name == "labels":
                pts += [(t[0], t[1]) for t in data]
            else:
                pts += [p for ring in data for p in ring]
        local = self._to_local(pts) if pts else []
        n = self.track.n
        if n:
            tx, ty = self.track.x[:n], self.track.y[:n]
            local += [(float(tx.min()), float(ty.min())), (float(tx.max()), float(ty.max()))]
        if self.position is not None:
            local.append(self.position)
        if not local:
            return
        xs, ys = [p[0] for p in local], [p[1] for p in local]
        half = max(max(xs) - min(xs), max(ys) - min(ys), 40.0) / 2.0
        cx, cy = (max(xs) + min(xs)) / 2.0, (max(ys) + min(ys)) / 2.0
        self.set_follow(False)
        self.plot.getPlotItem().getViewBox().setRange(
            xRange=(cx - half, cx + half), yRange=(cy - half, cy + half), padding=0.08)
        self._request_draw()

    def zoom(self, factor: float) -> None:
        """Zoom about the centre (factor < 1 zooms in)."""
        self.plot.getPlotItem().getViewBox().scaleBy((factor, factor))
        self._request_draw()

    def pan(self, dx_frac: float, dy_frac: float) -> None:
        """Pan by a fraction of the view (keyboard arrows)."""
        vb = self.plot.getPlotItem().getViewBox()
        (x0, x1), (y0, y1) = vb.viewRange()
        vb.translateBy(x=dx_frac * (x1 - x0), y=dy_frac * (y1 - y0))
        self.set_follow(False)
        self._request_draw()
