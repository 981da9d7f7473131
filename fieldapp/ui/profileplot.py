"""The live transect profile: ground, segment slopes, the threshold, the base and the bank.

Two stacked pyqtgraph plots sharing the distance axis (horizontal feet from the OHWM): the
ground profile above (elevation from the segments), the slope of each segment below as steps
against the slope threshold of NR 341.035(1)(a)/(1)(b). Vertical lines mark the base distance
and the bank as determined so far. The figures are the caller's (the bank result's
``threshold_pct`` / ``base_ft``, or :func:`fieldapp.rules.nr341.bank_parameters`); before any
data the plot shows those of a non-priority waterway. Redrawn on a timer when dirty.

Slope labels: one per run of segments of the same slope (as shown, to 0.01 %, the rule of
:mod:`fieldapp.rules.shown`), placed in screen
pixels so they stay legible on a small plot: each sits just above the ground line over its own
width, inside the view (the elevation range leaves headroom for one label above the highest
point), clear of the other labels and of the base/bank lines and their labels; a label that
would overlap is shifted along its run, raised one row (staggered) or put just below the line,
and failing all that left out (steep runs are placed first, then the longest). Placed again
when the plot is resized or its view changes. The threshold's label sits at the left axis.

With no station yet (and before any data) the plot shows an empty frame, 0 to the base distance
+ 25 ft across (the bank too when already known, e.g. stipulated) and 0 to 10 ft up, with the
threshold line in place and a centred hint (:data:`EMPTY_HINT`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QGraphicsItem, QVBoxLayout, QWidget

from fieldapp.rules.nr341 import bank_parameters
from fieldapp.rules.shown import slope_pct_text

STEEP = "#cc0000"
GENTLE = "#0a6b1f"
#: Pixels between the ground line and a slope label, and around labels.
LABEL_GAP_PX = 3.0
#: Rows a slope label may be raised by to avoid another (0: only its own row).
LABEL_STAGGER_ROWS = 1
#: Shown centred on the ground plot while the transect has no station.
EMPTY_HINT = "No stations yet: shoot [S] or type a station"
#: The empty frame: horizontal ft past the base distance (or bank), and the elevation span ft.
EMPTY_MARGIN_FT = 25.0
EMPTY_HEIGHT_FT = 10.0
#: Shown until the first :meth:`ProfilePlot.set_profile`: the figures of NR 341.035(1)(a).
INITIAL_BANK = bank_parameters(False)
#: The plots' ranges grow along this ladder (times a power of ten), not with every station: the
#: view (and its axes, regenerated on every range change) stays put for most new stations.
#: Below this height (px) the profile shows the ground alone: two plots in less ran their
#: axis titles and tick numbers into each other (Checks unfolded at 1366x768 left 155 px).
#: The slope figures stay, written on each run of the ground line in its colour.
TWO_PLOTS_MIN_PX = 200
RANGE_LADDER = (1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)


def snap_up(value: float) -> float:
    """The smallest ``RANGE_LADDER`` value times a power of ten that is >= ``value`` (> 0)."""
    import math

    if not value > 0:
        return value
    decade = 10.0 ** math.floor(math.log10(value))
    for step in RANGE_LADDER:
        if step * decade >= value * (1 - 1e-12):
            return step * decade
    return 10.0 * decade


def snap_out(low: float, high: float) -> tuple[float, float]:
    """``low`` down and ``high`` up to whole multiples of a round step (a fifth of the span or
    less on the ladder 1, 2, 5 times a power of ten): a new point inside keeps the range."""
    import math

    span = high - low
    if not span > 0:
        return low, high
    decade = 10.0 ** math.floor(math.log10(span / 5.0))
    step = max(m * decade for m in (1.0, 2.0, 5.0) if m * decade <= span / 5.0 * (1 + 1e-12))
    return math.floor(low / step) * step, math.ceil(high / step) * step


def label_runs(segments: list[tuple[float, float]]) -> list[tuple[int, int, str]]:
    """Runs of consecutive segments whose slopes read the same as shown (0.01 %, the report's
    and the verdict's rule, :func:`fieldapp.rules.shown.slope_pct_text`): (first, last, text).

    >>> label_runs([(20, 4.0), (20, 4.001), (20, 17.99), (40, 5.0)])
    [(0, 1, '4.00 %'), (2, 2, '17.99 %'), (3, 3, '5.00 %')]
    """
    runs: list[tuple[int, int, str]] = []
    for i, (_h, s) in enumerate(segments):
        text = f"{slope_pct_text(s)} %"
        if runs and runs[-1][2] == text:
            runs[-1] = (runs[-1][0], i, text)
        else:
            runs.append((i, i, text))
    return runs


def place_labels(boxes: list[tuple[float, float]], sizes: list[tuple[float, float]],
                 order: list[int], view_px: tuple[float, float], ground_px: tuple[Any, ...],
                 obstacles: Any = (), *, gap_px: float = LABEL_GAP_PX,
                 rows: int = LABEL_STAGGER_ROWS) -> list[tuple[float, float] | None]:
    """Place labels without overlap, in screen pixels (x right, y down, view top at 0).

    Each label is tried, in this order, above the ground line (row 0, then raised by up to
    ``rows`` rows), then just below it; at each height centred on its run, then shifted by a
    quarter and a half of its width either way (always inside the view). The first spot inside
    the view that overlaps no placed label and no obstacle is taken; with none, the label is left
    out.

    Parameters
    ----------
    boxes : list of (x_left_px, x_right_px)
        The x extent each label describes (its run of segments).
    sizes : list of (width_px, height_px)
    order : list of int
        Indices in order of priority (earlier ones are placed first).
    view_px : (width_px, height_px)
        The view's size; labels are kept inside it.
    ground_px : (xs, ys)
        The ground polyline in pixels (xs increasing); "above" and "below" are over the
        label's whole width, so a label never crosses the line.
    obstacles : iterable of (left, top, right, bottom)
        Rectangles to keep clear of (the base and bank lines and their labels).

    Returns
    -------
    list of (centre_x_px, bottom_px) or None (left out), by label index.
    """
    xs, ys = ground_px
    placed = [tuple(o) for o in obstacles]
    width_px, height_px = view_px
    out: list[tuple[float, float] | None] = [None] * len(sizes)

    def free(rect: tuple[float, float, float, float]) -> bool:
        return not any(rect[0] < o[2] and o[0] < rect[2] and rect[1] < o[3] and o[1] < rect[3]
                       for o in placed)

    def under(left: float, right: float) -> tuple[float, float]:
        """(highest, lowest) pixel y of the ground between ``left`` and ``right``."""
        inside = [y for x, y in zip(xs, ys, strict=True) if left <= x <= right]
        ends = [float(np.interp(left, xs, ys)), float(np.interp(right, xs, ys))]
        return min(inside + ends), max(inside + ends)

    for i in order:
        w, h = sizes[i]
        centre = (boxes[i][0] + boxes[i][1]) / 2.0
        xs_try = []
        for k in (0.0, -0.25, 0.25, -0.5, 0.5):
            cx = min(max(centre + k * w, w / 2.0 + gap_px), width_px - w / 2.0 - gap_px)
            if cx not in xs_try:
                xs_try.append(cx)
        ground = {cx: under(cx - w / 2.0, cx + w / 2.0) for cx in xs_try}   # once per spot
        spots = []
        for row in range(rows + 1):
            for cx in xs_try:
                spots.append((cx, ground[cx][0] - gap_px - row * (h + 2 * gap_px)))
        for cx in xs_try:
            spots.append((cx, ground[cx][1] + gap_px + h))
        for cx, bottom in spots:
            rect = (cx - w / 2.0 - gap_px, bottom - h - gap_px, cx + w / 2.0 + gap_px,
                    bottom + gap_px)
            if bottom - h < 0 or bottom > height_px:
                continue
            if free(rect):
                placed.append(rect)
                out[i] = (cx, bottom)
                break
    return out


class ProfilePlot(QWidget):
    """Profile of one transect."""

    def __init__(self, redraw_hz: float = 10.0, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.glw = pg.GraphicsLayoutWidget()
        self.glw.setObjectName("profilePlot")
        self.glw.setBackground("w")
        lay.addWidget(self.glw)
        self.ground_plot = self.glw.addPlot(row=0, col=0)
        self.slope_plot = self.glw.addPlot(row=1, col=0)
        self.slope_plot.setXLink(self.ground_plot)
        self.glw.ci.layout.setRowStretchFactor(0, 3)
        self.glw.ci.layout.setRowStretchFactor(1, 2)
        self.ground_plot.setLabel("left", "Elev.", units="ft")
        self.slope_plot.setLabel("left", "Slope", units="%")
        self.slope_plot.setLabel("bottom", "Horizontal distance from OHWM", units="ft")
        for p in (self.ground_plot, self.slope_plot):
            p.showGrid(x=True, y=True, alpha=0.25)
            for ax in ("left", "bottom"):
                p.getAxis(ax).enableAutoSIPrefix(False)
                # axis and grid into a pixmap, painted again only when the range changes
                p.getAxis(ax).setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
            # a fixed room for the tick numbers (up to -9999): a new station's wider number
            # neither shifts the plot sideways nor re-lays out and repaints every axis; the
            # two plots' distance scales line up
            p.getAxis("left").setWidth(QFontMetrics(self.font()).horizontalAdvance("-9999.9") + 8)
        self.ground = pg.PlotDataItem(pen=pg.mkPen("#000000", width=3), symbol="o",
                                      symbolSize=7, symbolBrush="#000000")
        self.ground_plot.addItem(self.ground)
        self.steep_bars = pg.PlotDataItem(pen=pg.mkPen(STEEP, width=4), connect="finite")
        self.gentle_bars = pg.PlotDataItem(pen=pg.mkPen(GENTLE, width=4), connect="finite")
        self.slope_plot.addItem(self.gentle_bars)
        self.slope_plot.addItem(self.steep_bars)
        self.threshold = pg.InfiniteLine(angle=0, pen=pg.mkPen("#cc0000", width=2,
                                                               style=Qt.PenStyle.DashLine),
                                         label=f"{INITIAL_BANK.threshold_pct:g} %",
                                         labelOpts={"color": "#cc0000", "position": 0.0,
                                                    # left edge at the axis, above the line:
                                                    # never cut off
                                                    "anchors": [(0, 1), (0, 1)]})
        self.slope_plot.addItem(self.threshold)
        self.base_lines = []
        self.bank_lines = []
        for p in (self.ground_plot, self.slope_plot):
            base = pg.InfiniteLine(angle=90, pen=pg.mkPen("#0b4f8a", width=2, style=Qt.PenStyle.DashLine))
            bank = pg.InfiniteLine(angle=90, pen=pg.mkPen("#cc0000", width=3))
            p.addItem(base)
            p.addItem(bank)
            bank.hide()
            self.base_lines.append(base)
            self.bank_lines.append(bank)
        self.base_lines[0].label = pg.InfLineLabel(
            self.base_lines[0], f"base {INITIAL_BANK.base_ft:g} ft", position=0.9, color="#0b4f8a")
        self.bank_lines[0].label = pg.InfLineLabel(self.bank_lines[0], "bank", position=0.15,
                                                   color="#cc0000")
        self.slope_labels: list[pg.TextItem] = []
        self._spare_labels: list[pg.TextItem] = []     # made once, hidden, used again
        self._runs: list[tuple[float, float, bool]] = []   # (from_ft, to_ft, steep) per label
        self._ground: tuple[list[float], list[float]] = ([], [])
        self._fit: tuple[Any, ...] | None = None                        # (zmin, zmax) to fit with headroom
        self._fitting = False
        self._data: tuple[Any, ...] | None = None
        self._drawn: tuple[Any, ...] | None = None     # the data on screen (a refresh often repeats it)
        self._slope_shown: bool | None = None           # show_slope_plot's last choice
        self.empty_hint = pg.TextItem(EMPTY_HINT, color="#555555", anchor=(0.5, 0.5))
        self.empty_hint.setZValue(20)
        self.ground_plot.addItem(self.empty_hint, ignoreBounds=True)
        vb = self.ground_plot.getViewBox()
        vb.sigResized.connect(self._refit)
        vb.sigRangeChanged.connect(self._range_changed)
        # single-shot, started by new data: an idle plot runs no timer
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(max(10, int(1000 / redraw_hz)))
        self.timer.timeout.connect(self.redraw)
        # an empty frame until the first data (not pyqtgraph's default -0.4..0.4 ft axes)
        self.set_profile([], INITIAL_BANK.threshold_pct, INITIAL_BANK.base_ft, None, None)
        self.redraw()

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 - Qt name
        super().resizeEvent(event)
        self.show_slope_plot(event.size().height() >= TWO_PLOTS_MIN_PX)

    def show_slope_plot(self, show: bool) -> None:
        """Show the slope plot under the ground (a tall plot), or the ground alone with the
        distance axis titled (a short one: :data:`TWO_PLOTS_MIN_PX`)."""
        if show == self.slope_plot.isVisible() and self._slope_shown is not None:
            return
        self._slope_shown = show
        layout = self.glw.ci.layout
        self.slope_plot.setVisible(show)
        self.slope_plot.setMaximumHeight(1e6 if show else 0)
        self.slope_plot.setMinimumHeight(0)
        layout.setRowStretchFactor(1, 2 if show else 0)
        bottom = self.ground_plot.getAxis("bottom")
        if show:
            bottom.showLabel(False)
        else:
            self.ground_plot.setLabel("bottom", "Horizontal distance from OHWM", units="ft")
        layout.invalidate()

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt name
        """A modest preferred size: the panel's layout gives the plot whatever height is left
        (a 1366x768 screen has little), so it never pushes the panel into scrolling."""
        return QSize(480, 220)

    def set_profile(self, segments: list[tuple[float, float]], threshold_pct: float,
                    base_ft: float, bank_ft: float | None, bank_at_least_ft: float | None,
                    origin_elevation_ft: float = 0.0) -> None:
        """Set the data (drawn at the next redraw).

        Parameters
        ----------
        segments : list of (horizontal_ft, slope_pct)
            Each surveyed segment landward from the OHWM.
        threshold_pct : float
            Slope threshold, percent, of NR 341.035(1)(a)/(1)(b): the bank result's
            ``threshold_pct``, or :func:`fieldapp.rules.nr341.bank_parameters` before one.
        base_ft : float
            Base distance, horizontal ft from the OHWM: the result's ``base_ft`` likewise.
        bank_ft, bank_at_least_ft : float or None
            The bank when determined; the lower bound so far otherwise.
        """
        data = (list(segments), threshold_pct, base_ft, bank_ft, bank_at_least_ft,
                origin_elevation_ft)
        if data == self._drawn:
            self._data = None        # what is drawn already (a tree tallied, a check refreshed)
            return
        self._data = data
        if not self.timer.isActive():
            self.timer.start()

    def redraw(self) -> None:
        if self._data is None:
            return
        segments, threshold, base, bank, at_least, z0 = self._drawn = self._data
        self._data = None
        d = [0.0]
        z = [z0]
        for h, s in segments:
            d.append(d[-1] + h)
            z.append(z[-1] + h * s / 100.0)
        empty = not segments
        self.ground.setData([] if empty else d, [] if empty else z)
        steep_x: list[float] = []
        steep_y: list[float] = []
        gentle_x: list[float] = []
        gentle_y: list[float] = []
        spare = self.slope_labels + self._spare_labels
        self.slope_labels = []
        self._runs = []
        for i, (_h, s) in enumerate(segments):
            x0, x1 = d[i], d[i + 1]
            tx, ty = (steep_x, steep_y) if s >= threshold - 1e-6 else (gentle_x, gentle_y)
            tx += [x0, x1, np.nan]
            ty += [s, s, np.nan]
        for first, last, text in label_runs(segments):
            steep = segments[first][1] >= threshold - 1e-6
            if spare:
                label = spare.pop(0)
                label.setText(text, color=STEEP if steep else GENTLE)
            else:
                label = pg.TextItem(text, color=STEEP if steep else GENTLE, anchor=(0.5, 1.0))
                self.ground_plot.addItem(label)
            label.setVisible(False)  # until placed
            self.slope_labels.append(label)
            self._runs.append((d[first], d[last + 1], steep))
        for label in spare:
            label.setVisible(False)
        self._spare_labels = spare
        self._ground = (d, z)
        self.steep_bars.setData(np.array(steep_x, float), np.array(steep_y, float),
                                connect="finite")
        self.gentle_bars.setData(np.array(gentle_x, float), np.array(gentle_y, float),
                                 connect="finite")
        self.threshold.setValue(threshold)
        self.threshold.label.setFormat(f"{threshold:g} %")
        for line in self.base_lines:
            line.setValue(base)
        self.base_lines[0].label.setFormat(f"base {base:g} ft")
        where = bank if bank is not None else at_least
        for line in self.bank_lines:
            line.setVisible(where is not None)
            if where is not None:
                line.setValue(where)
        self.bank_lines[0].label.setFormat(
            f"bank {bank:.1f} ft" if bank is not None else
            (f"≥ {at_least:.1f} ft" if at_least is not None else ""))
        self.empty_hint.setVisible(empty)
        if empty:
            # the empty frame: 0..base+25 ft across (bank included when known), 0..10 ft up
            xmax = max(base, where or 0.0) + EMPTY_MARGIN_FT
            self.ground_plot.setXRange(0, xmax, padding=0)
            self._fit = None
            self.ground_plot.setYRange(z0, z0 + EMPTY_HEIGHT_FT, padding=0)
            self.empty_hint.setPos(xmax / 2.0, z0 + EMPTY_HEIGHT_FT / 2.0)
            self.slope_plot.setYRange(0.0, threshold * 1.5 * 1.1, padding=0)
            return
        xmax = snap_up(max(d[-1], base, where or 0.0) * 1.08 + 5)
        self._fitting = True            # the labels are placed once, by _refit below
        try:
            self.ground_plot.setXRange(0, xmax, padding=0)
        finally:
            self._fitting = False
        self._fit = (min(z), max(z))
        self._refit()
        smax = max([abs(s) for _, s in segments] + [threshold * 1.5])
        smin = min(0.0, min([s for _, s in segments] + [0.0]))
        self.slope_plot.setYRange(-snap_up(-smin) if smin < 0 else 0.0, snap_up(smax * 1.1),
                                  padding=0)

    # ------------------------------------------------------------------ label layout
    @staticmethod
    def _ink(label: pg.TextItem) -> tuple[float, float, float]:
        """(width, height, margin) of a text item's text in pixels: its bounding rectangle
        less the text document's margin on each side (blank)."""
        br = label.textItem.boundingRect()
        m = float(label.textItem.document().documentMargin())
        return float(br.width()) - 2 * m, float(br.height()) - 2 * m, m

    def _label_height_px(self) -> float:
        return self._ink(self.slope_labels[0])[1] if self.slope_labels else 0.0

    def _refit(self, *_args: Any) -> None:
        """Fit the elevation range with headroom for a label row above the highest point
        (in pixels of the plot's current height), then place the labels."""
        if self._fit is None:
            return
        zmin, zmax = self._fit
        span = max(zmax - zmin, 1.0)
        bottom = zmin - 0.1 * span
        top = zmax + 0.15 * span
        h_px = float(self.ground_plot.getViewBox().height())
        need_px = self._label_height_px() + 3 * LABEL_GAP_PX
        if h_px > 0 and need_px > 0:
            # (top - zmax) / (top - bottom) of the height must be at least need_px / h_px
            frac = min(need_px / h_px, 0.6)
            top = max(top, (zmax - frac * bottom) / (1.0 - frac))
        bottom, top = snap_out(bottom, top)
        self._fitting = True
        try:
            self.ground_plot.setYRange(bottom, top, padding=0)
        finally:
            self._fitting = False
        self.place_slope_labels()

    def _range_changed(self, *_args: Any) -> None:
        if not self._fitting:
            self.place_slope_labels()

    def _line_label_rects(self, to_px: Any) -> list[tuple[float, float, float, float]]:
        """Pixel rectangles of the base and bank lines and their labels (kept clear of), with
        each label put on the side of its line where it fits inside the view."""
        vb = self.ground_plot.getViewBox()
        w_px = float(vb.width())
        rects = []
        shown = [ln for ln in (self.base_lines[0], self.bank_lines[0]) if ln.isVisible()]
        for line in shown:
            lab = line.label
            if not lab.format:
                continue
            w, h, m = self._ink(lab)
            x = to_px(float(line.value()), 0.0)[0]
            others = [to_px(float(o.value()), 0.0)[0] for o in shown if o is not line]
            # right of its line if it fits in the view without crossing the other line
            right_ok = x + w + 2 * m + LABEL_GAP_PX <= w_px and not any(
                x < o < x + w + 2 * m for o in others)
            anchor = (0.0, 0.5) if right_ok or x - w - 2 * m < 0 else (1.0, 0.5)
            lab.anchors = [anchor, anchor]
            lab.setAnchor(anchor)
            yc = (1.0 - lab.orthoPos) * float(vb.height())
            left = x + m if anchor[0] == 0.0 else x - m - w
            rects.append((left, yc - h / 2, left + w, yc + h / 2))
        for line in (self.base_lines[0], self.bank_lines[0]):
            if line.isVisible():  # the line itself: a label never sits across it
                x = to_px(float(line.value()), 0.0)[0]
                rects.append((x - 2.0, 0.0, x + 2.0, float(vb.height())))
        return rects

    def place_slope_labels(self) -> None:
        """Place (or leave out) the slope labels for the current view (see module docstring)."""
        if not self.slope_labels:
            return
        vb = self.ground_plot.getViewBox()
        (vx0, vx1), (vy0, vy1) = vb.viewRange()
        w_px, h_px = float(vb.width()), float(vb.height())
        if w_px < 10 or h_px < 10 or vx1 <= vx0 or vy1 <= vy0:
            for lab in self.slope_labels:
                lab.setVisible(False)
            return
        sx, sy = w_px / (vx1 - vx0), h_px / (vy1 - vy0)

        def to_px(x: float, y: float) -> tuple[float, float]:
            return (x - vx0) * sx, (vy1 - y) * sy

        d, z = self._ground
        xs = [(x - vx0) * sx for x in d]
        ys = [(vy1 - e) * sy for e in z]
        boxes, sizes = [], []
        for (a, b, _steep), lab in zip(self._runs, self.slope_labels, strict=True):
            w, h, _m = self._ink(lab)
            boxes.append((to_px(a, 0)[0], to_px(b, 0)[0]))
            sizes.append((w, h))
        order = sorted(range(len(self._runs)),
                       key=lambda i: (not self._runs[i][2], -(self._runs[i][1] - self._runs[i][0]), i))
        spots = place_labels(boxes, sizes, order, (w_px, h_px), (xs, ys),
                             self._line_label_rects(to_px))
        for lab, spot in zip(self.slope_labels, spots, strict=True):
            lab.setVisible(spot is not None)
            if spot is not None:  # anchored at the bottom centre of the item, margin included
                lab.setPos(vx0 + spot[0] / sx, vy1 - (spot[1] + self._ink(lab)[2]) / sy)
