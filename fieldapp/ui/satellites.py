"""The satellites view: a sky plot and a table (system, PRN, elevation, azimuth, SNR, used) of the
receiver's GSV / GSA, opened from the GNSS badge of the status strip (click it, or Ctrl+G).

The sky is read from each fix's sentences (:func:`devices.nmea.sky.sky_of`); a fix without GSV
(receivers send it every few epochs) keeps the sky shown.
"""

from __future__ import annotations

import math
import time
from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPen
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from devices.nmea.sky import SkySatellite, sky_of
from fieldapp.app.devicefeed import DeviceFeed
from fieldapp.ui.theme import touch_rows

#: Colour of each system's dots (colour-blind safe, Okabe-Ito), with its letter in the table.
SYSTEM_COLOURS = {"GPS": "#0072B2", "GLONASS": "#D55E00", "Galileo": "#009E73",
                  "BeiDou": "#CC79A7", "QZSS": "#E69F00", "NavIC": "#56B4E9", "SBAS": "#555555"}
COLUMNS = ["System", "PRN", "Elevation °", "Azimuth °", "SNR dB-Hz", "Used"]


class SkyPlot(QWidget):
    """North up, east right: the horizon is the outer circle, the zenith the centre; rings at
    30° and 60° of elevation. A used satellite is a filled dot, one only in view a ring."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("skyPlot")
        self.setMinimumSize(320, 320)
        self.satellites: list[SkySatellite] = []

    def set_sky(self, satellites: list[SkySatellite]) -> None:
        self.satellites = satellites
        self.update()

    @staticmethod
    def position(sat: SkySatellite, cx: float, cy: float, radius: float) -> QPointF:
        """Where ``sat`` goes: distance from the centre ∝ 90° − elevation, angle = azimuth.

        Raises
        ------
        ValueError
            ``sat`` has no elevation or azimuth (the receiver sent none): it has no place.
        """
        if sat.elevation_deg is None or sat.azimuth_deg is None:
            raise ValueError(f"satellite {sat.prn} has no elevation or azimuth")
        r = radius * (90.0 - max(0.0, min(90.0, sat.elevation_deg))) / 90.0
        a = math.radians(sat.azimuth_deg)
        return QPointF(cx + r * math.sin(a), cy - r * math.cos(a))

    def paintEvent(self, event: Any) -> None:  # noqa: N802 - Qt's name
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.fillRect(self.rect(), QColor("#ffffff"))
        side = min(self.width(), self.height())
        radius = side / 2 - 28
        cx, cy = self.width() / 2, self.height() / 2
        p.setPen(QPen(QColor("#000000"), 2))
        p.drawEllipse(QPointF(cx, cy), radius, radius)
        p.setPen(QPen(QColor("#888888"), 1, Qt.PenStyle.DashLine))
        for elev in (30, 60):
            r = radius * (90 - elev) / 90
            p.drawEllipse(QPointF(cx, cy), r, r)
        p.drawLine(QPointF(cx - radius, cy), QPointF(cx + radius, cy))
        p.drawLine(QPointF(cx, cy - radius), QPointF(cx, cy + radius))
        font = QFont(self.font())
        font.setPointSize(font.pointSize() + 2)
        font.setBold(True)
        p.setFont(font)
        p.setPen(QColor("#000000"))
        for text, dx, dy in (("N", 0, -1), ("E", 1, 0), ("S", 0, 1), ("W", -1, 0)):
            x, y = cx + dx * (radius + 14), cy + dy * (radius + 14)
            p.drawText(QRectF(x - 12, y - 12, 24, 24), Qt.AlignmentFlag.AlignCenter, text)
        small = QFont(self.font())
        small.setBold(True)
        p.setFont(small)
        for sat in self.satellites:
            if sat.elevation_deg is None or sat.azimuth_deg is None:
                continue
            at = self.position(sat, cx, cy, radius)
            colour = QColor(SYSTEM_COLOURS.get(sat.system, "#000000"))
            p.setPen(QPen(colour, 3))
            p.setBrush(QBrush(colour) if sat.used else Qt.BrushStyle.NoBrush)
            p.drawEllipse(at, 9, 9)
            p.setPen(QColor("#000000"))
            p.drawText(QRectF(at.x() + 10, at.y() - 18, 40, 16), Qt.AlignmentFlag.AlignLeft, str(sat.prn))
        p.end()


class SatellitesDialog(QDialog):
    """Sky plot and table of the satellites in view; follows the fixes while open."""

    def __init__(self, devices: DeviceFeed, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("satellitesDialog")
        self.setWindowTitle("Satellites")
        self.devices = devices
        self.resize(1000, 600)
        lay = QHBoxLayout(self)
        left = QVBoxLayout()
        self.sky = SkyPlot()
        left.addWidget(self.sky, 1)
        self.summary = QLabel("No satellites reported yet (the receiver sends no GSV).")
        self.summary.setObjectName("skySummary")
        self.summary.setWordWrap(True)
        left.addWidget(self.summary)
        legend = QLabel("  ".join(f"<span style='color:{c}; font-weight:bold'>●</span> {name}"
                                  for name, c in SYSTEM_COLOURS.items())
                        + "<br>filled: used in the solution; ring: in view only")
        legend.setWordWrap(True)
        left.addWidget(legend)
        lay.addLayout(left, 1)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("skyTable")
        touch_rows(self.table)
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        lay.addWidget(self.table, 1)
        self._sky_at: float | None = None
        devices.on_fix(self.on_fix)
        self.finished.connect(self._detach)
        if devices.latest_fix is not None:
            self.on_fix(devices.latest_fix)

    def _detach(self, *_args: Any) -> None:
        self.devices.remove_fix_listener(self.on_fix)

    def on_fix(self, fix: Any) -> None:
        """A new fix: its GSV / GSA, if it has any, become the sky shown."""
        raw = getattr(fix, "raw", ()) or ()
        if not any(line[3:6] == "GSV" for line in raw):
            return
        self.show_sky(sky_of(raw))

    def show_sky(self, satellites: list[SkySatellite]) -> None:
        self._sky_at = time.monotonic()
        self.sky.set_sky(satellites)
        self.table.setRowCount(len(satellites))
        for r, s in enumerate(satellites):
            cells = [s.system, str(s.prn), _num(s.elevation_deg), _num(s.azimuth_deg),
                     _num(s.snr_dbhz), "yes" if s.used else "–"]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(r, c, item)
        used = sum(s.used for s in satellites)
        systems = sorted({s.system for s in satellites})
        self.summary.setText(f"{len(satellites)} satellites in view, {used} used"
                             + (f" ({', '.join(systems)})" if systems else ""))


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.0f}"
