"""Offer the last demo visit again at ``fieldapp --simulate`` (issue 35 item 16: each run
opened a new empty demo visit, and the crew's practice records seemed lost)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QMessageBox, QWidget


def reopen_question(path: Path) -> str:
    """The question, with the visit's file name and when it was last changed (local time)."""
    when = dt.datetime.fromtimestamp(path.stat().st_mtime).strftime("%Y-%m-%d %H:%M")
    return (f"Reopen the last demo visit {path.name} (last changed {when})?\n\n"
            "Yes goes on with it; No starts a new, empty demo visit (the last one stays in"
            f" {path.parent}).")


def ask_reopen_visit(parent: QWidget, path: Any) -> bool:
    """Ask whether to reopen the visit at ``path``; True for Yes (the default)."""
    answer = QMessageBox.question(
        parent, "Demo visit", reopen_question(Path(path)),
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
        QMessageBox.StandardButton.Yes)
    return answer == QMessageBox.StandardButton.Yes


__all__ = ["ask_reopen_visit", "reopen_question"]
