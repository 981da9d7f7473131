"""Shared pieces of the workflow panels: big buttons with their key, a panel base class."""

from __future__ import annotations

from typing import Any, Callable

from PySide6.QtWidgets import QLabel, QMessageBox, QPushButton, QWidget


def big_button(text: str, key: str, tip: str = "") -> QPushButton:
    """A large button labelled with its key (``Average point  [A]``)."""
    b = QPushButton(f"{text}  [{key}]")
    b.setToolTip(tip or text)
    b.setMinimumHeight(52)
    return b


def state_label(text: str = "") -> QLabel:
    lab = QLabel(text)
    lab.setProperty("role", "state")
    lab.setWordWrap(True)
    return lab


class WorkflowPanel(QWidget):
    """Base of a workflow tab: keys, the window, refresh on model change."""

    title = "Workflow"

    def __init__(self, window: Any) -> None:
        super().__init__()
        self.w = window
        self.keys: dict[str, Callable[[], None]] = {}

    @property
    def visit(self) -> Any:
        return self.w.visit

    def bind(self, key: str, fn: Callable[[], None], button: QPushButton | None = None) -> None:
        """``key`` runs ``fn`` while this panel is shown (the window dispatches it)."""
        def run() -> None:
            if button is None or button.isEnabled():
                fn()
        self.keys[key] = run
        if button is not None:
            button.clicked.connect(fn)

    def focus_first(self) -> None:
        self.setFocus()

    def refresh(self) -> None:
        """Re-render from the model (called after every model change)."""

    def error(self, text: str) -> None:
        """Show a refused value or failed command; nothing is lost."""
        self.w.show_banner(text)
        if getattr(self.w, "interactive_errors", False):
            QMessageBox.warning(self, self.title, text)
