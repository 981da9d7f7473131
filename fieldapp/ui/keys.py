"""Workflow keys and text fields: one rule in every panel, said by the key legend.

The rule (:data:`RULE`, shown under the workflow tabs):

* A workflow key (``A``, ``O``, ``N``, ``S``, ``I``, ``T``, ``C``, ``W``, ``V``, ``P``, ``R``,
  ``F``, ``Del``, ``Home`` ...) acts wherever the focus is: on a button, a table, a list, a
  number field, or a text field you have not started typing in.
* A text field (*Species*, *Label*, *Wetland type*) takes letters only after a click in it or
  ``F2``. It is then *typing*: a thick blue border, and the legend says "Typing in Label".
  ``Enter`` or ``Esc`` ends typing and gives the focus back to the panel, as do ``Tab`` and a
  click elsewhere. ``Esc`` in a text field only leaves the field (a second ``Esc`` cancels).
* A key pressed in a text field that is not typing, and that is no workflow key, is not typed:
  the legend says how to type.
* Number fields never take letters (a letter means nothing there): letters act, digits type.

So ``P`` pressed during a walk with the focus left in *Label* pauses the walk; after a click
in *Label* it types "p", and the legend says so in words while it does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QAbstractSpinBox, QLineEdit, QWidget

RULE = ("act wherever the focus is. To type in a text field, click it or press F2; Enter or Esc"
        " ends typing.")

_EDITING_KEYS = {Qt.Key.Key_Backspace, Qt.Key.Key_Delete}
_END_KEYS = {Qt.Key.Key_Return, Qt.Key.Key_Enter}


def field_name(field: QWidget) -> str:
    """The words a user sees for ``field``: its accessible name, else its placeholder."""
    name = field.accessibleName()
    if name:
        return name
    placeholder = getattr(field, "placeholderText", lambda: "")()
    return placeholder or "the field"


def _is_letter(event: Any) -> bool:
    return (Qt.Key.Key_A <= event.key() <= Qt.Key.Key_Z
            and not event.modifiers() & ~(Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.KeypadModifier))


class KeyGuard(QObject):
    """Keeps the rule for the text and number fields it guards (:meth:`guard`).

    Signals
    -------
    sigChanged()
        Typing started or ended, or a text field that is not typing refused a key: the
        legend should be read again (:meth:`legend`).
    """

    sigChanged = Signal()

    def __init__(self, give_back_focus: Callable[[], None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.typing: QLineEdit | None = None
        self.last_field: QLineEdit | None = None     # the field typing last ended in
        self.hint = ""
        self._give_back_focus = give_back_focus
        self._fields: list[QLineEdit] = []

    def guard(self, widget: QWidget, name: str = "") -> None:
        """Apply the rule to ``widget`` (a QLineEdit or a spin box); ``name``: its field words."""
        if isinstance(widget, QLineEdit):
            if name:
                widget.setAccessibleName(name)
            widget.setReadOnly(True)                 # not typing: no key types
            widget.setProperty("typing", "false")
            self._fields.append(widget)
        widget.installEventFilter(self)

    def guard_all(self, root: QWidget, names: dict[QWidget, str] | None = None) -> None:
        """Guard every line edit and spin box under ``root`` (``names``: field words)."""
        names = names or {}
        for w in root.findChildren(QWidget):
            if isinstance(w, QAbstractSpinBox):
                self.guard(w)
            elif isinstance(w, QLineEdit) and not isinstance(w.parent(), QAbstractSpinBox):
                self.guard(w, names.get(w, ""))

    # ------------------------------------------------------------------ typing
    def start_typing(self, field: QLineEdit) -> None:
        """``field`` takes letters (a click in it, or F2)."""
        if self.typing is field:
            return
        if self.typing is not None:
            self._set(self.typing, False)
        self.typing = field
        self.hint = ""
        self._set(field, True)
        self.sigChanged.emit()

    def end_typing(self, give_back_focus: bool = False) -> None:
        """Typing ends (Enter, Esc, Tab, a click elsewhere); Esc and Enter also give the focus
        back to the panel (``give_back_focus``)."""
        field, self.typing = self.typing, None
        if field is not None:
            self._set(field, False)
        self.hint = ""
        self.last_field = field
        if give_back_focus:
            self._give_back_focus()
        self.sigChanged.emit()

    @staticmethod
    def _set(field: QLineEdit, typing: bool) -> None:
        field.setReadOnly(not typing)
        field.setProperty("typing", "true" if typing else "false")
        field.style().unpolish(field)
        field.style().polish(field)

    def legend(self, panel_keys: str) -> str:
        """The key legend: typing, a hint for a refused key, or the rule; ``panel_keys`` e.g.
        ``"W start walk · P pause"``."""
        if self.typing is not None:
            return (f"Typing in {field_name(self.typing)}: letter keys type here. Enter or Esc"
                    f" ends typing, then the workflow keys act again ({panel_keys}).")
        if self.hint:
            return self.hint
        return f"Keys {panel_keys} {RULE}" if panel_keys else f"Letter keys {RULE}"

    # ------------------------------------------------------------------ events
    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt name
        kind = event.type()
        if isinstance(obj, QAbstractSpinBox):
            # a number field never takes a letter: the workflow key acts
            return kind == QEvent.Type.ShortcutOverride and _is_letter(event)
        if not isinstance(obj, QLineEdit):
            return False
        typing = self.typing is obj
        if kind == QEvent.Type.MouseButtonPress:
            self.start_typing(obj)
        elif kind == QEvent.Type.FocusOut and typing:
            self.end_typing()
        elif kind == QEvent.Type.ShortcutOverride:
            if cast(QKeyEvent, event).key() == Qt.Key.Key_Escape:
                event.accept()                        # Esc leaves the field, nothing more
                return True
            if not typing:
                return True                           # every workflow key acts
        elif kind == QEvent.Type.KeyPress:
            return self._key_press(obj, event, typing)
        return False

    def _key_press(self, field: QLineEdit, event: Any, typing: bool) -> bool:
        key = event.key()
        if key == Qt.Key.Key_Escape:
            if not typing:
                self.typing = field          # leaves the field all the same
            self.end_typing(give_back_focus=True)
            return True
        if key == Qt.Key.Key_F2 and not typing:
            self.start_typing(field)
            return True
        if typing:
            if key in _END_KEYS:
                self.end_typing(give_back_focus=True)
                return True
            return False
        if (event.text() and event.text().isprintable()) or key in _EDITING_KEYS:
            self.hint = (f"{field_name(field)} is not taking keys: click it or press F2 to"
                         " type in it.")
            self.sigChanged.emit()
            return True
        return False
