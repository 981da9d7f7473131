"""Render the app icon from ``packaging/fieldapp.svg`` with Qt (offscreen, no display needed).

Writes ``packaging/fieldapp.png`` (256 x 256, for the Linux ``.desktop`` entry and the window)
and ``packaging/windows/fieldapp.ico`` (256 x 256, for the Windows executable and installer).
Both are committed; run this again only after changing the SVG::

    QT_QPA_PLATFORM=offscreen .venv/bin/python packaging/make_icon.py
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SIZE_PX = 256


def render(svg: Path, size_px: int):
    """Draw ``svg`` onto a transparent ``size_px`` square image and return it (a ``QImage``).

    Raises
    ------
    ValueError
        If Qt cannot parse the SVG.
    """
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise ValueError(f"Qt cannot read the icon SVG {svg}")
    image = QImage(size_px, size_px, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    return image


def main(argv: list[str] | None = None) -> int:
    """Write the PNG and ICO beside the SVG; return 0, or 1 if Qt could not write one."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841 (kept alive)
    image = render(HERE / "fieldapp.svg", SIZE_PX)
    status = 0
    for path, fmt in ((HERE / "fieldapp.png", "PNG"), (HERE / "windows" / "fieldapp.ico", "ICO")):
        if image.save(str(path), fmt):
            print(f"wrote {path}")
        else:
            print(f"could not write {path} ({fmt})", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    raise SystemExit(main())
