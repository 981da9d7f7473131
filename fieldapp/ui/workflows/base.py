"""Shared pieces of the workflow panels: big buttons with their key, a panel base class."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, QRect, QSize, Qt
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QLabel,
    QLayout,
    QLayoutItem,
    QPushButton,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from fieldapp.app.devicefeed import DeviceFeed
from fieldapp.app.recording import Recording
from fieldapp.app.settings import Settings
from fieldapp.ui import theme
from fieldapp.ui.notices import Notices
from fieldapp.ui.recordgate import RecordGate

if TYPE_CHECKING:
    from fieldapp.ui.mapview import MapView
    from fieldapp.ui.simsupport import SimulatedSurveyor

#: A receiver faster than this (m/s, the RMC / VTG speed over ground) is walking, not standing
#: at a point: a tree or an offset shot taken from it would be placed from a moving point.
MOVING_MPS = 0.5


def moving_reason(fix: Any) -> str:
    """Why ``fix`` is from a moving receiver ("" when standing, or the speed is not known).

    >>> moving_reason(None)
    ''
    """
    speed = getattr(fix, "speed_mps", None)
    if speed is not None and speed > MOVING_MPS:
        return f"the receiver is moving ({speed:.1f} m/s); stand still at the point"
    return ""


def big_button(text: str, key: str, tip: str = "") -> QPushButton:
    """A large button labelled with its key (``Average point  [A]``), 48 px high (a gloved
    fingertip; :data:`fieldapp.ui.theme.BIG_BUTTON_HEIGHT_PX`)."""
    b = QPushButton(f"{text}  [{key}]")
    b.setToolTip(tip or text)
    b.setMinimumHeight(theme.BIG_BUTTON_HEIGHT_PX)
    return b


def state_label(text: str = "") -> QLabel:
    lab = QLabel(text)
    lab.setProperty("role", "state")
    lab.setWordWrap(True)
    return lab


def point_number(point: Any) -> int:
    """The number a user sees for an OHWM point: 1 for the first (the model's ``seq`` counts
    from 0; the simulated surveyor and the README say "OHWM point 1, 2, 3")."""
    return int(point.seq) + 1


def point_name(point: Any) -> str:
    """``Point 1`` ... for lists of OHWM points."""
    return f"Point {point_number(point)}"


def field_grid() -> QGridLayout:
    """A grid of fields with their labels above them (compact on a 1366 px wide screen)."""
    g = QGridLayout()
    g.setContentsMargins(0, 0, 0, 0)
    g.setHorizontalSpacing(8)
    g.setVerticalSpacing(2)
    return g


#: The one azimuth convention: every azimuth field says its north (stored azimuths are true; a
#: rangefinder's magnetic reading is kept beside the true one and named "magnetic" wherever shown).
TRUE_SUFFIX = " ° true"
MAGNETIC_SUFFIX = " ° magnetic"


def add_field(grid: QGridLayout, row: int, col: int, label: str, widget: QWidget,
              span: int = 1) -> QLabel:
    """``label`` above ``widget`` in ``grid`` (rows ``2 * row`` and ``2 * row + 1``)."""
    lab = QLabel(label)
    lab.setBuddy(widget)
    if not widget.accessibleName():
        widget.setAccessibleName(label)       # the field's words (screen readers, key legend)
    grid.addWidget(lab, 2 * row, col, 1, span)
    grid.addWidget(widget, 2 * row + 1, col, 1, span)
    return lab


class ButtonColumns(QLayout):
    """Buttons in columns, as many as fit side by side (at most ``columns``), in rows.

    On a wide panel six buttons are two rows of three; on a narrow one (a 1024 px wide tablet)
    three rows of two, or one a row: a button is never cut off and the panel never wider than
    its widest button. Height-for-width, so a scroll area round the panel follows.
    """

    def __init__(self, columns: int = 3, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.columns = max(1, int(columns))
        self._items: list[QLayoutItem] = []
        self.setContentsMargins(0, 0, 0, 0)
        self.setSpacing(6)

    # QLayout's interface
    def addItem(self, item: QLayoutItem) -> None:  # noqa: N802 - Qt name
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:  # noqa: N802 - Qt name
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:  # noqa: N802 - Qt name
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:  # noqa: N802 - Qt name
        return Qt.Orientation.Horizontal

    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt name
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802 - Qt name
        return self._arrange(QRect(0, 0, width, 0), move=False)

    def minimumSize(self) -> QSize:  # noqa: N802 - Qt name
        shown = self._shown()
        m = self.contentsMargins()
        w = max((i.minimumSize().width() for i in shown), default=0)
        h = sum(i.minimumSize().height() for i in shown) + self.spacing() * max(len(shown) - 1, 0)
        return QSize(w + m.left() + m.right(), h + m.top() + m.bottom())

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt name
        shown = self._shown()
        m = self.contentsMargins()
        n = min(self.columns, len(shown)) or 1
        w = max((i.sizeHint().width() for i in shown), default=0)
        width = n * w + (n - 1) * self.spacing() + m.left() + m.right()
        return QSize(width, self.heightForWidth(width))

    def setGeometry(self, rect: QRect) -> None:  # noqa: N802 - Qt name
        super().setGeometry(rect)
        self._arrange(rect, move=True)

    def _widths(self, shown: list[QLayoutItem], n: int) -> list[int]:
        """Each column's least width (px) with ``n`` columns: its widest button's."""
        return [max(i.minimumSize().width() for i in shown[k::n]) for k in range(n)]

    def columns_for(self, width: int) -> int:
        """How many buttons side by side in ``width`` px (1 ... :attr:`columns`)."""
        shown = self._shown()
        m = self.contentsMargins()
        inner = width - m.left() - m.right()
        n = min(self.columns, max(len(shown), 1))
        while n > 1 and sum(self._widths(shown, n)) + (n - 1) * self.spacing() > inner:
            n -= 1
        return n

    def _shown(self) -> list[QLayoutItem]:
        return [i for i in self._items if not i.isEmpty()]

    def _arrange(self, rect: QRect, move: bool) -> int:
        shown = self._shown()
        m = self.contentsMargins()
        n = self.columns_for(rect.width())
        inner = rect.width() - m.left() - m.right()
        widths = self._widths(shown, n) if shown else [inner]
        extra = max(inner - sum(widths) - (n - 1) * self.spacing(), 0)
        widths = [w + extra // n for w in widths]      # the room left shared out
        y = rect.y() + m.top()
        for start in range(0, len(shown), n):
            row = shown[start:start + n]
            h = max(i.sizeHint().height() for i in row)
            x = rect.x() + m.left()
            for k, item in enumerate(row):
                if move:
                    item.setGeometry(QRect(x, y, widths[k], h))
                x += widths[k] + self.spacing()
            y += h + self.spacing()
        return y - (self.spacing() if shown else 0) + m.bottom() - rect.y()


#: The least height (px) of a panel's controls above what it docks below them
#: (:meth:`WorkflowPanel.dock_below`): a row of 40 px buttons; the rest scrolls.
DOCKED_CONTROLS_PX = 60


class PanelScroll(QScrollArea):
    """The scroll area around a panel's body: never narrower than the body (no horizontal
    clipping or scrolling), scrolls vertically only when the window is too low for it."""

    def __init__(self, body: QWidget) -> None:
        super().__init__()
        self.setObjectName("panelScroll")
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setWidget(body)
        body.installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt name
        if obj is self.widget() and event.type() == QEvent.Type.LayoutRequest:
            self.updateGeometry()          # e.g. a simulator button was shown
        return super().eventFilter(obj, event)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt name
        body = self.widget()
        w = body.minimumSizeHint().width() if body is not None else 0
        return QSize(w + self.verticalScrollBar().sizeHint().width() + 2 * self.frameWidth(),
                     160)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt name
        body = self.widget()
        hint = body.sizeHint() if body is not None else QSize(0, 0)
        return QSize(self.minimumSizeHint().width(), hint.height())


@dataclass(frozen=True)
class PanelParts:
    """What the window gives its workflow panels. A panel's constructor names the parts it
    takes (keyword arguments of these names); :meth:`for_panel` picks exactly those. The
    window itself is never given: the app layer (:attr:`recording`, :attr:`devices`,
    :attr:`settings`) and the window's services to panels instead."""

    recording: Recording
    """The visit being recorded."""
    devices: DeviceFeed
    """Fixes, readings, whether a fix can be recorded now, the simulators."""
    settings: Settings
    """This run's settings."""
    gate: RecordGate
    """The record buttons: on only with a usable fix and the panel's own condition."""
    notices: Notices
    """The banner and the key legend's refusals."""
    shown: Callable[[], QWidget | None]
    """The workflow panel shown now."""
    map: MapView
    """The map (a panel's own layers on it)."""
    surveyor: Callable[[], SimulatedSurveyor | None]
    """The simulated surveyor of ``--simulate`` (made on first use), or None."""
    parent: Callable[[], QWidget | None]
    """Where panels are made: the tab widget's page stack (a panel made without a parent
    and added to its tab afterwards has the style sheet resolved over all its widgets a
    second time, ~5 ms a panel)."""

    def for_panel(self, cls: type) -> dict[str, Any]:
        """The parts ``cls``'s constructor takes, by name (``parent`` as the widget)."""
        names = inspect.signature(cls).parameters
        return {n: (self.parent() if n == "parent" else getattr(self, n))
                for n in names if n in self.__dataclass_fields__}


class WorkflowPanel(QWidget):
    """Base of a workflow tab: keys, refresh on model change.

    Subclasses lay out their widgets in :attr:`body` (``self.body_layout``), which sits in a
    vertical scroll area: on a low screen the panel scrolls rather than forcing the window
    taller than the screen. A panel is given the parts of :class:`PanelParts` it needs, never
    the window.
    """

    title = "Workflow"

    def __init__(self, *, recording: Recording, gate: RecordGate, notices: Notices,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.recording = recording
        self.gate = gate
        self.notices = notices
        self.keys: dict[str, Callable[[], None]] = {}
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self.body = QWidget()
        self.body.setObjectName("panelBody")
        self.body_layout = QVBoxLayout(self.body)
        self.body_layout.setContentsMargins(6, 6, 6, 6)
        self.body_layout.setSpacing(6)
        scroll = PanelScroll(self.body)
        # shadows QWidget.scroll(dx, dy) (nothing calls it); the tests and tablet checks read it
        self.scroll = scroll  # type: ignore[method-assign, assignment]
        outer.addWidget(scroll)
        self.dock: QSplitter | None = None      # dock_below: the scroll area over what is read

    def dock_below(self, widget: QWidget, least_px: int, want_px: int) -> None:
        """Move ``widget`` (a table, the live profile, the live area) out of the scrolled body
        to a pane under it that never scrolls away (issue 35 item 12): what the crew reads
        while walking stays in view, the controls above scroll on a low screen. The pane is
        ``want_px`` high at first, never lower than ``least_px``; the divider between them
        moves. The controls keep at least :data:`DOCKED_CONTROLS_PX` (a row of buttons)."""
        if self.dock is None:
            self.scroll.setMinimumHeight(DOCKED_CONTROLS_PX)  # type: ignore[attr-defined]
            self.dock = QSplitter(Qt.Orientation.Vertical)
            self.dock.setObjectName("panelDock")
            self.dock.setChildrenCollapsible(False)
            outer = self.layout()
            if outer is not None:
                outer.removeWidget(self.scroll)  # type: ignore[arg-type]
                outer.addWidget(self.dock)
            self.dock.addWidget(self.scroll)  # type: ignore[arg-type]
            self.dock.setStretchFactor(0, 1)
        widget.setMinimumHeight(least_px)
        self.dock.addWidget(widget)
        self.dock.setStretchFactor(self.dock.count() - 1, 0)
        # before the panel is shown: the controls take what the window gives beyond this
        self.dock.setSizes([400] + [want_px] * (self.dock.count() - 1))

    @property
    def visit(self) -> Any:
        """The open visit (:class:`fieldapp.app.visit.VisitController`), or None."""
        return self.recording.visit

    def bind(self, key: str, fn: Callable[[], None], button: QPushButton | None = None) -> None:
        """``key`` runs ``fn`` while this panel is shown (the window dispatches it)."""
        def act() -> None:
            self.notices.key_refusal("")     # the last refusal is over
            self.notices.clear_refusal()     # a command that fails shows its own again
            fn()

        def run() -> None:
            if button is None or button.isEnabled():
                act()
            else:                       # a key never records silently nothing: it says why
                self.key_refused(key, button)
        self.keys[key] = run
        if button is not None:
            button.clicked.connect(lambda _checked=False: act())

    def key_refused(self, key: str, button: QPushButton) -> None:
        """``key`` was pressed while its ``button`` is off: the reason goes in the key legend
        (the fix problem or the panel's own reason, as in the button's tooltip)."""
        what = button.text().split("  [")[0]
        why = self.gate.off_reason(button) or "not available now"
        self.notices.key_refusal(f"{what} [{key}] refused: {why}"
                                 + ("" if why.endswith(("…", ".")) else "."))

    def focus_first(self) -> None:
        self.setFocus()

    def refresh(self) -> None:
        """Re-render from the model (called after every model change)."""

    # -------------------------------------------------------------- the simulated surveyor
    # (fieldapp.ui.simsupport.SurveyedPanel: all the surveyor may ask of a panel)
    def surveyor_says(self, text: str) -> None:
        """Show what the simulated surveyor does on the panel's state line (if it has one)."""
        state = getattr(self, "state", None)
        if state is not None:
            state.setText(f"Simulated surveyor: {text}")

    def walker_changed(self, walker: Any) -> None:
        """The simulated surveyor started, stopped, paused or arrived (default: nothing)."""

    def averaging(self) -> bool:
        """An OHWM point is being averaged on this panel (default: never)."""
        return False

    def type_azimuth(self, azimuth_deg: float) -> None:
        """The simulated surveyor types ``azimuth_deg`` (degrees true) into the panel's
        azimuth field (the Transect panel's landward azimuth); no field, nothing typed."""
        spin = getattr(self, "azimuth", None)
        if spin is not None:
            spin.setValue(float(azimuth_deg))

    def expect_crown(self, crown_radius_ft: float | None) -> None:
        """The crown radius (ft) typed for the coming caliper reading (Tally only)."""

    def error(self, text: str, exc: BaseException | None = None) -> None:
        """Show a refused value or failed command (``text``, then why: ``exc`` in field words,
        :func:`fieldapp.app.wording.refusal_words`); nothing is lost. The banner clears at the
        next command that succeeds (:meth:`bind`)."""
        if exc is not None:
            from fieldapp.app.wording import refusal_words

            text = f"{text}: {refusal_words(exc)}"
        self.notices.show_refusal(text)
