"""The mouse wheel scrolls, it does not change values (issue 35): a crew scrolling the Transect
panel down to the profile switched *measured as* from horizontal to along slope, and the spin
boxes (DBH, azimuth, distance, retained area) stepped as the wheel passed over them.

:class:`WheelGuard`, one application event filter (:func:`install`, once per application), makes
every field widget (spin box, combo box, slider or dial; not a scroll bar) take the wheel only
when it has the keyboard focus, i.e. the user clicked into it or tabbed to it:

* when a field widget is polished, a focus policy of ``Qt.WheelFocus`` (Qt's default for spin
  and combo boxes: the wheel alone would give it the focus, and the value would change) becomes
  ``Qt.StrongFocus`` (a click or Tab);
* a wheel over a field widget without the focus scrolls the nearest scroll area around it (the
  panel) instead; with no scroll area around it the wheel does nothing there.

The filter sees every event of the application (one Python call each, about 3 µs); it acts
only on ``Polish`` and ``Wheel``.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QAbstractSlider,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QScrollBar,
    QWidget,
)

#: Field widgets whose value a wheel would change (a scroll bar is no field: it scrolls).
FIELD_TYPES: tuple[type[QWidget], ...] = (QAbstractSpinBox, QComboBox, QAbstractSlider)

_POLISH = QEvent.Type.Polish
_WHEEL = QEvent.Type.Wheel


def is_field(widget: QObject) -> bool:
    """True for a field widget the wheel would change (not a scroll bar)."""
    return isinstance(widget, FIELD_TYPES) and not isinstance(widget, QScrollBar)


def field_under(widget: QWidget) -> QWidget | None:
    """``widget`` or its nearest ancestor that is a field widget (e.g. the spin box around its
    own line edit), not past its window; None if there is none."""
    w: QWidget | None = widget
    while w is not None:
        if is_field(w):
            return w
        if w.isWindow():
            return None
        w = w.parentWidget()
    return None


def scroll_area_around(widget: QWidget) -> QAbstractScrollArea | None:
    """The nearest scroll area that ``widget`` sits in (not past its window), or None."""
    w = widget.parentWidget()
    while w is not None:
        if isinstance(w, QAbstractScrollArea):
            return w
        if w.isWindow():
            return None
        w = w.parentWidget()
    return None


def has_focus(field: QWidget) -> bool:
    """True when ``field``, or a widget inside it (an editable combo box's line edit), has the
    keyboard focus."""
    focused = QApplication.focusWidget()
    return field.hasFocus() or (focused is not None and field.isAncestorOf(focused))


def no_wheel_focus(widget: QWidget) -> None:
    """A field widget focused by the wheel alone (``Qt.WheelFocus``) is focused by a click or
    Tab instead (``Qt.StrongFocus``); any other widget is left as it is."""
    if is_field(widget) and widget.focusPolicy() == Qt.FocusPolicy.WheelFocus:
        widget.setFocusPolicy(Qt.FocusPolicy.StrongFocus)


class WheelGuard(QObject):
    """Application event filter: the wheel changes a field only while it has the focus."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.redirected = 0         # wheel events turned into a scroll (for tests and the curious)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt name
        kind = event.type()
        if kind == _POLISH:
            if isinstance(obj, QWidget):
                no_wheel_focus(obj)
            return False
        if kind != _WHEEL or not isinstance(obj, QWidget) or not isinstance(event, QWheelEvent):
            return False
        field = field_under(obj)
        if field is None or has_focus(field):
            return False            # not a field, or the user chose it: the wheel is its own
        self.redirected += 1
        area = scroll_area_around(field)
        if area is None:
            event.ignore()          # nothing to scroll: a parent may take it, the field not
            return True
        delta = event.angleDelta()
        horizontal = abs(delta.x()) > abs(delta.y())
        bar = area.horizontalScrollBar() if horizontal else area.verticalScrollBar()
        QCoreApplication.sendEvent(bar, event)   # as QAbstractScrollArea.wheelEvent does
        event.accept()
        return True


def install(app: QApplication | None = None) -> WheelGuard:
    """Install the guard on ``app`` (the running application) once; return it.

    The field widgets that exist already get their focus policy now (:func:`no_wheel_focus`),
    those made later when they are polished; the wheel is guarded from now on. So it can be
    installed once a window is built and shown, as its first frame is painted (its filter then
    does not see the thousands of events of building and showing it, issue 33). Raises
    RuntimeError when there is no application."""
    app = app or QApplication.instance()          # type: ignore[assignment]
    if not isinstance(app, QApplication):
        raise RuntimeError("the wheel guard needs a running QApplication")
    guard = app.findChild(WheelGuard)
    if guard is None:
        guard = WheelGuard(app)
        app.installEventFilter(guard)
        for widget in app.allWidgets():
            no_wheel_focus(widget)
    return guard
