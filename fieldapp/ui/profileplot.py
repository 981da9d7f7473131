"""The live transect profile: ground, segment slopes, the threshold, the base and the bank.

Two stacked pyqtgraph plots sharing the distance axis (horizontal feet from the OHWM): the
ground profile above (elevation from the segments), the slope of each segment below as steps
against the 12 % / 10 % threshold (NR 341.035(1)(a)). Vertical lines mark the base distance
(75 / 300 ft) and the bank as determined so far. Redrawn on a timer when dirty.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtWidgets import QVBoxLayout, QWidget

STEEP = "#cc0000"
GENTLE = "#0a6b1f"


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
        self.ground = pg.PlotDataItem(pen=pg.mkPen("#000000", width=3), symbol="o",
                                      symbolSize=7, symbolBrush="#000000")
        self.ground_plot.addItem(self.ground)
        self.steep_bars = pg.PlotDataItem(pen=pg.mkPen(STEEP, width=4), connect="finite")
        self.gentle_bars = pg.PlotDataItem(pen=pg.mkPen(GENTLE, width=4), connect="finite")
        self.slope_plot.addItem(self.gentle_bars)
        self.slope_plot.addItem(self.steep_bars)
        self.threshold = pg.InfiniteLine(angle=0, pen=pg.mkPen("#cc0000", width=2,
                                                               style=Qt.DashLine),
                                         label="12 %", labelOpts={"color": "#cc0000",
                                                                  "position": 0.05})
        self.slope_plot.addItem(self.threshold)
        self.base_lines = []
        self.bank_lines = []
        for p in (self.ground_plot, self.slope_plot):
            base = pg.InfiniteLine(angle=90, pen=pg.mkPen("#0b4f8a", width=2, style=Qt.DashLine))
            bank = pg.InfiniteLine(angle=90, pen=pg.mkPen("#cc0000", width=3))
            p.addItem(base)
            p.addItem(bank)
            bank.hide()
            self.base_lines.append(base)
            self.bank_lines.append(bank)
        self.base_lines[0].label = pg.InfLineLabel(self.base_lines[0], "base 75 ft",
                                                   position=0.9, color="#0b4f8a")
        self.bank_lines[0].label = pg.InfLineLabel(self.bank_lines[0], "bank", position=0.15,
                                                   color="#cc0000")
        self.slope_labels: list[pg.TextItem] = []
        self._data: tuple | None = None
        self.timer = QTimer(self)
        self.timer.setInterval(max(10, int(1000 / redraw_hz)))
        self.timer.timeout.connect(self.redraw)
        self.timer.start()

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
            12 or 10 (priority waterway).
        base_ft : float
            75 or 300.
        bank_ft, bank_at_least_ft : float or None
            The bank when determined; the lower bound so far otherwise.
        """
        self._data = (list(segments), threshold_pct, base_ft, bank_ft, bank_at_least_ft,
                      origin_elevation_ft)

    def redraw(self) -> None:
        if self._data is None:
            return
        segments, threshold, base, bank, at_least, z0 = self._data
        self._data = None
        d = [0.0]
        z = [z0]
        for h, s in segments:
            d.append(d[-1] + h)
            z.append(z[-1] + h * s / 100.0)
        self.ground.setData(d, z)
        steep_x, steep_y, gentle_x, gentle_y = [], [], [], []
        for label in self.slope_labels:
            self.ground_plot.removeItem(label)
        self.slope_labels = []
        for i, (h, s) in enumerate(segments):
            x0, x1 = d[i], d[i + 1]
            tx, ty = (steep_x, steep_y) if s >= threshold - 1e-6 else (gentle_x, gentle_y)
            tx += [x0, x1, np.nan]
            ty += [s, s, np.nan]
            label = pg.TextItem(f"{s:.1f} %", color=STEEP if s >= threshold - 1e-6 else GENTLE,
                                anchor=(0.5, 1.2))
            label.setPos((x0 + x1) / 2, (z[i] + z[i + 1]) / 2)
            self.ground_plot.addItem(label)
            self.slope_labels.append(label)
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
        xmax = max(d[-1], base, where or 0.0) * 1.08 + 5
        self.ground_plot.setXRange(0, xmax, padding=0)
        zmin, zmax = min(z), max(z)
        span = max(zmax - zmin, 1.0)
        self.ground_plot.setYRange(zmin - 0.1 * span, zmax + 0.3 * span, padding=0)
        smax = max([abs(s) for _, s in segments] + [threshold * 1.5])
        self.slope_plot.setYRange(min(0.0, min([s for _, s in segments] + [0.0])), smax * 1.1)
