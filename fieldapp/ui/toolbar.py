"""The main window's toolbar pieces: its style (full or compact), the visit label that elides
rather than folding into the » menu, the app icon, and a tab title without its key."""

from __future__ import annotations

import re
from typing import Any

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QLabel


def toolbar_sheet(compact: bool) -> str:
    """The toolbar buttons' style: 44 px high (32 + padding + border) with the theme's 40 px
    tap target (:data:`fieldapp.ui.theme.TOUCH_PX`, more on a dense screen), a gloved finger,
    little height spent; ``compact``: the same height, 6 px side padding, 52 px wide at
    least (a narrow window, :meth:`fieldapp.ui.mainwindow.MainWindow.fit_to_width`)."""
    from fieldapp.ui import theme

    height = theme.TOUCH_PX - 8
    if compact:
        return (f"QToolButton {{ min-height: {height}px; min-width: 40px; font-weight: bold;"
                " padding: 4px 6px; }")
    return f"QToolButton {{ min-height: {height}px; min-width: 60px; font-weight: bold; }}"


def app_icon() -> Any:
    """The fieldapp icon (``fieldapp/data/fieldapp.png``, from packaging/fieldapp.svg)."""
    from pathlib import Path

    from PySide6.QtGui import QIcon

    return QIcon(str(Path(__file__).resolve().parent.parent / "data" / "fieldapp.png"))


def short_title(title: str) -> str:
    """``title`` without its key: ``Checks`` for ``Checks [Ctrl+K]``.

    >>> short_title("Conflicts (2) [Ctrl+J]")
    'Conflicts (2)'
    """
    return re.sub(r"\s*\[[^\]]*\]\s*$", "", title)


class ToolbarLabel(QLabel):
    """The toolbar's visit label: it takes the room the buttons leave and, when that is less
    than its text, shows as much as fits with "…" (the window title has the name whole), never
    folding into the toolbar's » menu on a narrow window."""

    LEAST_PX = 120

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt name
        hint = super().sizeHint()
        hint.setWidth(min(hint.width(), self.LEAST_PX))
        return hint

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt name
        return self.sizeHint()

    def paintEvent(self, event: Any) -> None:  # noqa: N802 - Qt name
        from PySide6.QtGui import QPainter

        text = self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight, self.contentsRect().width())
        p = QPainter(self)
        p.setPen(self.palette().windowText().color())
        p.drawText(self.contentsRect(), int(self.alignment()), text)
        p.end()
