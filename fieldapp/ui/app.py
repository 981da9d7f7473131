"""Application start-up (placeholder window until the field app lands)."""

from __future__ import annotations

import argparse


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="fieldapp")
    parser.add_argument("--simulate", action="store_true", help="use simulated devices")
    parser.add_argument("--quit-after", type=float, default=None, metavar="SECONDS")
    args = parser.parse_args(argv)

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QLabel

    app = QApplication.instance() or QApplication([])
    label = QLabel("fieldapp — the field app is being built")
    label.resize(480, 160)
    label.show()
    if args.quit_after is not None:
        QTimer.singleShot(int(args.quit_after * 1000), app.quit)
    return app.exec()
