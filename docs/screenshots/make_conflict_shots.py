"""Render the Conflicts view offscreen (``python docs/screenshots/make_conflict_shots.py``): a
real DBH conflict made by two laptops through a folder office (the UI test's builder,
tests/ui/test_ui_conflicts_resolve.py), its row's Keep mine / Keep theirs / Other value…
buttons, then the row after Keep theirs. ``--size WxH`` (default 1366x768), ``--out DIR``
(default: next to this script).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
OUT = Path(__file__).resolve().parent
sys.path.insert(0, str(OUT.parent.parent))

from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", default="1366x768")
    p.add_argument("--out", type=Path, default=OUT)
    args = p.parse_args()
    size = tuple(int(v) for v in args.size.lower().split("x"))
    args.out.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="fieldapp-conflictshots-"))
    os.environ["FIELDAPP_CONFIG_DIR"] = str(tmp / "cfg")
    app = QApplication([])
    from fieldapp.app import config as C
    from fieldapp.ui import app as appmod
    from fieldapp.ui import theme
    from tests.ui.test_ui_conflicts_resolve import two_laptops_in_conflict

    _office, _a, b, _tree = two_laptops_in_conflict(tmp)
    theme.apply(app)
    cfg = C.build({"data_dir": str(tmp / "data"), "visit": str(b)}, use_file=False)
    w = appmod.create_window(cfg)
    w.show()
    w.resize(*size)

    def until(cond, t=120.0):
        end = time.time() + t
        while time.time() < end:
            QTest.qWait(50)
            if cond():
                return
        raise TimeoutError

    def shot(name):
        QTest.qWait(600)
        w.grab().save(str(args.out / name))
        print("wrote", args.out / name)

    until(lambda: w.visit is not None)
    w.show_conflicts()
    view = w.conflicts_view
    until(lambda: view.table.rowCount() == 1)
    shot("conflicts_resolve.png")
    n = len(w.office.messages)
    view.buttons[view.conflicts[0].uuid]["keep-theirs"].click()
    until(lambda: not w.office.busy() and len(w.office.messages) > n)
    shot("conflicts_resolved.png")
    w.session.stop()
    w.close()


if __name__ == "__main__":
    main()
