"""The one QObject bridge between reader threads and the Qt GUI thread.

Reader threads in :mod:`devices` call plain Python callbacks. The bridge's callbacks only emit
Qt signals carrying the frozen readings; because the bridge lives in the GUI thread, Qt queues
each emission to it (``Qt.AutoConnection`` from a foreign thread), so every slot runs on the GUI
thread and nothing in the reader thread touches a widget.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal


class DeviceBridge(QObject):
    """Turn reader callbacks into queued Qt signals.

    Signals
    -------
    sigFix(object)
        A GNSS :class:`devices.nmea.Fix` (frozen).
    sigStatus(str, object)
        The device kind (``"gnss"``, ``"rangefinder"``, ``"caliper"``) and its
        :class:`devices.transport.DeviceStatus`.
    sigReading(str, object)
        The device kind and a frozen instrument reading (rangefinder shot, caliper reading).
    """

    sigFix = Signal(object)
    sigStatus = Signal(str, object)
    sigReading = Signal(str, object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._closed = False

    def close(self) -> None:
        """Stop emitting (called before the readers are stopped and the bridge deleted)."""
        self._closed = True

    # --- callbacks handed to the readers (run on reader threads) ---------------------------
    def on_fix(self, fix: Any) -> None:
        if not self._closed:
            self.sigFix.emit(fix)

    def status_callback(self, kind: str) -> Callable[[Any], None]:
        def on_status(status: Any) -> None:
            if not self._closed:
                self.sigStatus.emit(kind, status)
        return on_status

    def reading_callback(self, kind: str) -> Callable[[Any], None]:
        def on_reading(reading: Any) -> None:
            if not self._closed:
                self.sigReading.emit(kind, reading)
        return on_reading
