"""Tooltips without hovering (issue 28): a touch screen has no hover, so an explanation kept in
a tooltip (why a record button is off, what a field means) would be out of a gloved crew's
reach.

:class:`TouchHelp`, an application event filter (:func:`install`):

* a press on a control that is off (disabled) shows its tooltip at once: tapping a greyed
  *Average point* says why it is off (the fix, or the panel's own reason);
* a finger held still on any control for :data:`HOLD_S` shows its tooltip (Windows' own
  press-and-hold), and the lift that follows does not click a button (reading the help of
  *Record* records nothing; a button that repeats while held, and any other control, gets
  its lift).

A mouse user keeps hovering. The filter sees every event of the application (a Python call
each), so :func:`install_for_touch` installs it only when the computer has a touch screen.
"""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import QEvent, QObject, QPoint, QTimer
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QAbstractButton, QApplication, QToolTip, QWidget

#: How long a finger is held still before the tooltip shows (s).
HOLD_S = 0.6
#: A finger moving more than this (logical px) while held is a drag, not a press-and-hold.
HOLD_SLOP_PX = 12
#: The same tip asked for again within this (s) at the same place is the same press.
DOUBLE_S = 0.3


def _tip_widget(widget: QWidget | None) -> QWidget | None:
    """``widget`` or its nearest ancestor with a tooltip (not past its window)."""
    while widget is not None:
        if widget.toolTip():
            return widget
        if widget.isWindow():
            return None
        widget = widget.parentWidget()
    return None


class TouchHelp(QObject):
    """Shows a control's tooltip on a press when it is off, and on a touch press held still."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(int(HOLD_S * 1000))
        self._timer.timeout.connect(self._held)
        self._target: QWidget | None = None
        self._at = QPoint()
        self._eat_release = False
        self._pressed: QWidget | None = None
        self.shown: list[str] = []          # the tips shown (for tests and the curious)
        self._last_shown: tuple[Any, ...] | None = None
        self._shown_at = -1e9

    def eventFilter(self, obj: Any, event: Any) -> bool:  # noqa: N802 - Qt name
        kind = event.type()
        if kind not in (QEvent.Type.MouseButtonPress, QEvent.Type.MouseMove, QEvent.Type.MouseButtonRelease) \
                or not isinstance(obj, QWidget) or not isinstance(event, QMouseEvent):
            return False
        if kind == QEvent.Type.MouseButtonPress:
            self._timer.stop()
            self._eat_release = False
            target = _tip_widget(obj)
            if target is None:
                return False
            if not obj.isEnabled():
                self._show(target, event.globalPosition().toPoint())
                return False
            if _from_touch(event):
                self._target, self._at = target, event.globalPosition().toPoint()
                self._pressed = obj
                self._timer.start()
            return False
        if kind == QEvent.Type.MouseMove and self._timer.isActive():
            if (event.globalPosition().toPoint() - self._at).manhattanLength() > HOLD_SLOP_PX:
                self._timer.stop()
            return False
        if kind == QEvent.Type.MouseButtonRelease:
            self._timer.stop()
            if self._eat_release:
                self._eat_release = False
                if isinstance(obj, QAbstractButton):
                    obj.setDown(False)          # let go without clicking it
                return True
        return False

    def _held(self) -> None:
        target = self._target
        if target is not None and target.isVisible():
            self._show(target, self._at)
            # a button's lift is kept from it (no click); any other control gets its lift (a
            # spin box's arrow held down stops repeating)
            pressed = self._pressed
            self._eat_release = isinstance(pressed, QAbstractButton) and not pressed.autoRepeat()

    def _show(self, widget: QWidget, at: QPoint) -> None:
        tip = widget.toolTip()
        now = time.monotonic()
        # Qt hands a press on a control that is off to the filter twice: one tip
        if self._last_shown == (widget, at, tip) and now - self._shown_at < DOUBLE_S:
            return
        self._last_shown, self._shown_at = (widget, at, tip), now
        self.shown.append(tip)
        QToolTip.showText(at, tip, widget)


def _from_touch(event: QMouseEvent) -> bool:
    """True when Qt made ``event`` from a finger on a touch screen."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QInputDevice

    device = event.device()
    return event.source() != Qt.MouseEventSource.MouseEventNotSynthesized or (
        device is not None and device.type() == QInputDevice.DeviceType.TouchScreen)


def install(app: QApplication | None = None) -> TouchHelp:
    """Install one :class:`TouchHelp` on ``app`` (default: the running application); the one
    already installed is returned the second time."""
    if app is None:
        running = QApplication.instance()
        if not isinstance(running, QApplication):
            raise RuntimeError("touch help needs the running QApplication")
        app = running
    helper = app.findChild(TouchHelp)
    if helper is None:
        helper = TouchHelp(app)
        app.installEventFilter(helper)
    return helper


def has_touch_screen() -> bool:
    """True when Qt knows a touch screen on this computer (a rugged tablet's)."""
    from PySide6.QtGui import QInputDevice

    return any(d.type() == QInputDevice.DeviceType.TouchScreen for d in QInputDevice.devices())


def install_for_touch(app: QApplication | None = None) -> TouchHelp | None:
    """:func:`install` on a computer with a touch screen; None (nothing installed) without."""
    return install(app) if has_touch_screen() else None
