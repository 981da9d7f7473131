"""The walked GNSS track on the map: a whole day (8 h at 10 Hz, 288,000 positions) drawn as a thin
line under the features, as cheap to pan, zoom and extend as a short one.

Positions go into a preallocated numpy buffer (doubled when full, so appending is amortised
constant time). The buffer is cut into frozen chunks of :data:`CHUNK` positions; what the map
draws is two curves:

* the **history**: the frozen chunks that touch the view (and a view's width around it),
  each simplified with shapely (GEOS Douglas-Peucker) to half a screen pixel of the current zoom
  level (a power of two of feet per pixel), computed on a worker thread and cached per chunk
  and level. Panning and zooming move and scale the drawn curve at once (it sits in map feet);
  a new level or a view that leaves the covered area asks the worker for a new history, the
  newest request winning, and until it comes the old one stays on screen.
* the **tail**: every position after the last history drawn, unsimplified, as two curves: the
  *head*, the last :data:`HEAD` positions or fewer, a segment longer with every fix (made
  again when it restarts), and the body before it,
  redrawn every :data:`HEAD` fixes. One more fix so redraws (and repaints) a few feet of line,
  whatever the length of the day. Both are plain Qt path items (:class:`PathCurve`): their
  bounds and paint run in C++, where a pyqtgraph curve's ran Python at every repaint of the map
  (issue 33: the map's repaint for a fix took 0.75 ms of the UI thread, now 0.52 ms).
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QPainterPath
from PySide6.QtWidgets import QGraphicsItem, QGraphicsPathItem

#: Positions per frozen chunk (the unit of simplification, caching and clipping to the view).
CHUNK = 1024
#: Most positions in the head of the tail (redrawn on every fix).
HEAD = 32
#: Positions the buffer holds before it first grows: a day at 10 Hz.
DAY_CAPACITY = 288_000


def _simplified(xs: np.ndarray, ys: np.ndarray, tolerance_ft: float) -> tuple[np.ndarray, np.ndarray]:
    """One chunk simplified by shapely (Douglas-Peucker, GEOS) within ``tolerance_ft``."""
    import shapely

    line = shapely.linestrings(np.column_stack([xs, ys]))
    coords = shapely.get_coordinates(shapely.simplify(line, tolerance_ft, preserve_topology=False))
    return coords[:, 0], coords[:, 1]


def history_for(x: np.ndarray, y: np.ndarray, boxes: np.ndarray, level: int,
                covered: tuple[float, float, float, float], cache: dict[Any, Any]) -> tuple[np.ndarray, np.ndarray]:
    """The frozen chunks whose box (minx, miny, maxx, maxy rows of ``boxes``) meets ``covered``,
    simplified to half of 2**``level`` ft and joined (NaN between chunks that do not follow
    each other). ``cache`` maps (level, chunk) to a simplified chunk and is filled here; levels
    more than two away from ``level`` are dropped from it (a day at every zoom would otherwise
    be kept many times over). Runs on the worker thread, the only one that touches ``cache``."""
    for stale in [k for k in cache if abs(k[0] - level) > 2]:
        del cache[stale]
    x0, y0, x1, y1 = covered
    hit = np.flatnonzero((boxes[:, 0] <= x1) & (boxes[:, 2] >= x0) & (boxes[:, 1] <= y1) & (boxes[:, 3] >= y0))
    tol = 0.5 * 2.0 ** level
    parts_x: list[np.ndarray] = []
    parts_y: list[np.ndarray] = []
    gap = np.array([np.nan])
    prev = -2
    for k in hit:
        part = cache.get((level, int(k)))
        if part is None:
            a, b = int(k) * CHUNK, (int(k) + 1) * CHUNK + 1      # each chunk ends where the next starts
            part = cache[(level, int(k))] = _simplified(x[a:b], y[a:b], tol)
        if k != prev + 1 and parts_x:
            parts_x.append(gap)
            parts_y.append(gap)
        parts_x.append(part[0])
        parts_y.append(part[1])
        prev = int(k)
    if not parts_x:
        return np.empty(0), np.empty(0)
    return np.concatenate(parts_x), np.concatenate(parts_y)


class PathCurve(QGraphicsPathItem):
    """A polyline in map feet as a plain Qt path item, with a curve's ``setData``/``getData``:
    Qt computes its bounds and strokes it in C++ at each repaint (the pen is cosmetic: its
    width is in pixels whatever the zoom)."""

    def __init__(self, pen: Any) -> None:
        super().__init__()
        self.setPen(pen)
        self._xs = np.empty(0)
        self._ys = np.empty(0)
        self._path = QPainterPath()

    def setData(self, xs: Any, ys: Any) -> None:  # noqa: N802 - pyqtgraph's name
        """The line through ``xs``, ``ys`` (map feet, finite); fewer than two points: none."""
        self._xs = np.array(xs, float)
        self._ys = np.array(ys, float)
        self._path = (pg.arrayToQPath(self._xs, self._ys, connect="all") if len(self._xs) > 1
                      else QPainterPath())
        self.setPath(self._path)

    def extend(self, xs: Any, ys: Any) -> None:
        """The line on through ``xs``, ``ys`` (map feet, finite) from where it ends: a segment
        more a position on the path drawn (in C++), where :meth:`setData` makes the path again
        from every position through numpy (the head of the track, every fix: issue 33)."""
        xs, ys = np.array(xs, float), np.array(ys, float)
        if not len(xs):
            return
        if len(self._xs) < 2:               # no line yet: the path starts with a move
            self.setData(np.concatenate([self._xs, xs]), np.concatenate([self._ys, ys]))
            return
        self._xs = np.concatenate([self._xs, xs])
        self._ys = np.concatenate([self._ys, ys])
        path = self._path
        for x, y in zip(xs.tolist(), ys.tolist(), strict=True):
            path.lineTo(x, y)
        self.setPath(path)

    def getData(self) -> tuple[np.ndarray, np.ndarray]:  # noqa: N802 - pyqtgraph's name
        """The positions drawn (copies of what ``setData`` was given)."""
        return self._xs, self._ys


class _Answer(QObject):
    """The worker's way back to the UI thread: owned by Python, not by the map, so a worker
    finishing after the map is gone emits into a live object (the connection is gone with the
    layer) rather than into a deleted one."""

    sig = Signal(int, object, object, object)


class TrackLayer(QObject):
    """The track of ``plot_item`` (a pyqtgraph PlotItem) in map feet, drawn with ``pen`` at ``z``.

    Attributes: ``x``, ``y`` (the buffer; valid up to ``n``), ``history_draws`` (histories put on
    the map), ``tail_points`` (positions in the tail curve now).
    """

    def __init__(self, plot_item: Any, pen: Any, z: float, capacity: int = DAY_CAPACITY,
                 parent: QObject | None = None) -> None:
        """``parent``: the map widget (the layer goes with it; a late worker answer is dropped)."""
        super().__init__(parent)
        self.plot_item = plot_item
        self.x = np.empty(max(int(capacity), CHUNK + 1))
        self.y = np.empty_like(self.x)
        self.n = 0
        self._boxes = np.empty((len(self.x) // CHUNK + 1, 4))
        self._frozen = 0                 # chunks whose box is known (positions 0 .. frozen*CHUNK)
        self._drawn_upto = 0             # positions the history on screen covers
        self._cache: dict[Any, Any] = {}
        self._generation = 0
        self._busy = False
        self._wanted: tuple[Any, ...] | None = None          # (level, covered) to ask for when idle
        self._shown_key: tuple[Any, ...] | None = None       # (level, covered, frozen) of the history drawn
        self.history_draws = 0
        self.tail_points = 0
        # bare curves (a PlotDataItem's bookkeeping costs more than the few points of a fix)
        self.history = pg.PlotCurveItem(pen=pen, connect="finite", skipFiniteCheck=True)
        self.tail = PathCurve(pen)
        self.head = PathCurve(pen)
        self._body_upto = -1             # the tail's body ends here (the head starts here)
        self._head_drawn = (-1, -1)      # the head drawn: positions [from, to)
        self._body_from = -1
        self.history.setZValue(z)
        plot_item.addItem(self.history)
        for tail in (self.tail, self.head):
            tail.setZValue(z)
            # its bounds are not the view's business (zoom_to_all reads the buffer)
            plot_item.addItem(tail, ignoreBounds=True)
        # the history is painted into a pixmap of the view once per zoom (a pan scrolls it):
        # a fix's repaint of a few feet of map copies pixels instead of stroking the whole day
        self.history.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="track")
        self._answer = _Answer()             # generation, xs, ys, (level, covered, frozen)
        self._answer.sig.connect(self._history_ready)
        plot_item.getViewBox().sigRangeChanged.connect(lambda *_: self.view_changed())

    def set_pen(self, colour: str, width: float) -> None:
        """Draw the track in ``colour``, ``width`` px (the map's high contrast)."""
        pen = pg.mkPen(colour, width=width)
        for item in (self.history, self.tail, self.head):
            item.setPen(pen)

    # ---------------------------------------------------------------- positions
    def clear(self) -> None:
        """No track (another visit)."""
        self.n = self._frozen = self._drawn_upto = 0
        self._cache = {}
        self._generation += 1
        self._busy = False
        self._wanted = self._shown_key = None
        self.history.setData([], [])
        self.tail.setData([], [])
        self.head.setData([], [])
        self._head_drawn = (-1, -1)
        self._body_upto = self._body_from = -1
        self.tail_points = 0

    def append(self, x_ft: float, y_ft: float) -> None:
        """One more position (map feet); :meth:`draw_tail` draws it."""
        if self.n == len(self.x):
            self._grow(2 * len(self.x))
        self.x[self.n] = x_ft
        self.y[self.n] = y_ft
        self.n += 1
        if self._freeze():
            self.view_changed()

    def extend(self, xs: np.ndarray, ys: np.ndarray) -> None:
        """Many positions at once (the visit's stored track), then one redraw."""
        xs = np.asarray(xs, float)
        ys = np.asarray(ys, float)
        need = self.n + len(xs)
        if need > len(self.x):
            self._grow(max(need, 2 * len(self.x)))
        self.x[self.n:need] = xs
        self.y[self.n:need] = ys
        self.n = need
        self._freeze()
        self.view_changed()
        self.draw_tail()

    def _grow(self, size: int) -> None:
        # a new array, not resized in place: a worker may still read the old one
        for name in ("x", "y"):
            old = getattr(self, name)
            new = np.empty(size)
            new[:self.n] = old[:self.n]
            setattr(self, name, new)

    def _freeze(self) -> bool:
        """Freeze every full chunk (its box is then known); True if any was frozen."""
        full = (self.n - 1) // CHUNK          # a chunk is full once the next one has begun
        if full <= self._frozen:
            return False
        if full > len(self._boxes):
            boxes = np.empty((2 * full, 4))
            boxes[:self._frozen] = self._boxes[:self._frozen]
            self._boxes = boxes
        for k in range(self._frozen, full):
            xs, ys = self.x[k * CHUNK:(k + 1) * CHUNK + 1], self.y[k * CHUNK:(k + 1) * CHUNK + 1]
            self._boxes[k] = (xs.min(), ys.min(), xs.max(), ys.max())
        self._frozen = full
        return True

    def draw_tail(self) -> None:
        """The positions after the history on screen, as they are: the body (redrawn when the
        head is full or the history moved on) and the head (the last HEAD positions or fewer)."""
        a = max(self._drawn_upto - 1, 0)
        b = max(a, (self.n - 1) // HEAD * HEAD)          # the head starts at a multiple of HEAD
        if (a, b) != (self._body_from, self._body_upto):
            self._body_from, self._body_upto = a, b
            self.tail.setData(self.x[a:b + 1], self.y[a:b + 1])
        drawn_from, drawn_to = self._head_drawn
        if drawn_from == b and b < drawn_to <= self.n:      # the same head, longer: extend it
            self.head.extend(self.x[drawn_to:self.n], self.y[drawn_to:self.n])
        else:
            self.head.setData(self.x[b:self.n], self.y[b:self.n])
        self._head_drawn = (b, self.n)
        self.tail_points = self.n - a

    # ---------------------------------------------------------------- the view
    def view_changed(self) -> None:
        """Ask for a history fitting the view when the zoom level, the covered area or the
        frozen chunks changed (the drawn curve already moved with the view)."""
        vb = self.plot_item.getViewBox()
        (x0, x1), (y0, y1) = vb.viewRange()
        width_px = max(vb.width(), 1.0)
        if not (x1 > x0 and y1 > y0):
            return
        level = math.floor(math.log2((x1 - x0) / width_px))
        key = self._shown_key if self._wanted is None else self._wanted
        if key is not None:
            lv, (cx0, cy0, cx1, cy1), frozen = key
            inside = cx0 <= x0 and x1 <= cx1 and cy0 <= y0 and y1 <= cy1
            if lv == level and inside and frozen == self._frozen:
                return
        w, h = x1 - x0, y1 - y0
        self._wanted = (level, (x0 - w, y0 - h, x1 + w, y1 + h), self._frozen)
        self._ask()

    def _ask(self) -> None:
        if self._busy or self._wanted is None:
            return
        level, covered, frozen = key = self._wanted
        self._wanted = None
        self._busy = True
        gen, x, y, cache, answer = self._generation, self.x, self.y, self._cache, self._answer
        boxes = self._boxes[:frozen].copy()

        def work() -> None:
            xs: np.ndarray | None
            ys: np.ndarray | None
            try:
                xs, ys = history_for(x, y, boxes, level, covered, cache)
            except Exception:  # noqa: BLE001 - a worker must always answer; the tail stays
                xs = ys = None
            answer.sig.emit(gen, xs, ys, key)

        self._pool.submit(work)

    def _history_ready(self, gen: int, xs: Any, ys: Any, key: tuple[Any, ...]) -> None:
        if gen != self._generation:
            return                      # cleared meanwhile: its answer is for another track
        self._busy = False
        if xs is not None:
            self.history.setData(xs, ys, connect="finite", skipFiniteCheck=True)
            self._shown_key = key
            self._drawn_upto = key[2] * CHUNK + 1 if key[2] else 0
            self.history_draws += 1
            self.draw_tail()
        self._ask()

    def close(self) -> None:
        """Stop the worker."""
        self._pool.shutdown(wait=False, cancel_futures=True)
