"""Open what a job wrote (issue 35 item 16: after a report there was no way to it but the file
manager): the file in its program, or its folder with the file selected. Windows: the shell
(``os.startfile``, ``explorer /select,``); elsewhere Qt's desktop services."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices

log = logging.getLogger(__name__)


def open_file(path: str | Path) -> bool:
    """Open ``path`` in the program the system gives its kind (a PDF reader); False when
    the system refused (it is logged)."""
    path = Path(path)
    if not path.exists():
        log.warning("cannot open %s: it does not exist", path)
        return False
    startfile = getattr(os, "startfile", None)      # Windows only
    if sys.platform == "win32" and startfile is not None:
        try:
            startfile(str(path))
            return True
        except OSError as exc:
            log.warning("cannot open %s: %s", path, exc)
            return False
    return bool(QDesktopServices.openUrl(QUrl.fromLocalFile(str(path))))


def show_in_folder(path: str | Path) -> bool:
    """Show the folder holding ``path`` (the file selected, on Windows); False when refused."""
    path = Path(path)
    if sys.platform == "win32":
        try:
            # explorer returns 1 even when it opened the window: only a failure to start counts
            subprocess.Popen(["explorer", f"/select,{path}"])  # noqa: S603, S607
            return True
        except OSError as exc:
            log.warning("cannot show %s: %s", path, exc)
            return False
    folder = path if path.is_dir() else path.parent
    return bool(QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder))))


__all__ = ["open_file", "show_in_folder"]
