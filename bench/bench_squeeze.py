"""A caliper squeeze at any tally size: one tree added (committed) and every check refreshed.

For tallies of 100, 1,000, 2,000 and 4,000 trees in one woodland stand (about 112 trees per acre,
crowns 4 ft + 0.6 ft per inch of DBH, as ``bench_canopy.py``), the visit is written to a
GeoPackage and opened in the main window (offscreen, no devices), then ``SQUEEZES`` trees are
added one by one, each followed by what a squeeze costs on the UI thread:

- *checks*: ``add_tree`` (committed at once: WAL, synchronous FULL) + ``refresh_checks`` (every
  rule request rebuilt from the model and evaluated if changed) + the stand summary;
- *window*: ``add_tree`` + ``MainWindow.refresh_from_model`` (checks, every panel, the map's
  overlays) + the map's next redraw and paint: the freeze the surveyor sees.

Targets (issue 18, item 3): at 4,000 trees <= 50 ms, and <= 5x the cost at 100 trees.
Prints median and max of each with the ratio to the 100-tree figure; quote ``uptime``.

    QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_squeeze.py [SIZES...]
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np

SQUEEZES = 15
X0, Y0 = 500_000.0, 4_983_000.0
TREES_PER_M2 = 112 / 4046.86



def spin(ms: int) -> None:
    """Turn the Qt event loop for ``ms`` as app.exec() does, waiting with Python's lock released
    (QTest.qWait holds it: a visit opening on a worker thread, as a big one does, would starve)."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()

def build(path: Path, n: int):
    """A visit with one square stand holding ``n`` random trees, written to ``path``."""
    from fieldapp.store import create_visit
    from fieldapp.survey import AreaKind, LeafHabit, Visit

    side = float(np.sqrt(max(n, 100) / TREES_PER_M2))
    rng = np.random.default_rng(n)
    v = Visit.new("bench", crs="EPSG:32616", who="bench")
    v.add_area(AreaKind.WOODLAND_STAND, [(X0, Y0), (X0 + side, Y0), (X0 + side, Y0 + side),
                                         (X0, Y0 + side)], label="A")
    xs, ys = rng.uniform(X0, X0 + side, n), rng.uniform(Y0, Y0 + side, n)
    dbh = rng.gamma(3.0, 4.0, n).clip(1.0, 60.0)
    for i in range(n):
        v.add_tree(x=float(xs[i]), y=float(ys[i]), dbh_in=float(dbh[i]),
                   crown_radius_ft=float(4 + dbh[i] * 0.6),
                   leaf_habit=LeafHabit.DECIDUOUS if i % 4 else LeafHabit.EVERGREEN)
    create_visit(path, v).close()
    return side


def squeezes(window, side: float, n: int, rng) -> tuple[list[float], list[float]]:
    """(checks-only seconds, whole-window seconds) of ``SQUEEZES`` squeezes each."""
    v = window.visit
    checks, whole = [], []
    for k in range(2 * SQUEEZES):
        d = float(rng.gamma(3.0, 4.0))
        x, y = X0 + float(rng.uniform(0, side)), Y0 + float(rng.uniform(0, side))
        t = time.perf_counter()
        v.add_tree(None, x=x, y=y, dbh_in=d, crown_radius_ft=4 + 0.6 * d)
        if k % 2:
            v.refresh_checks()
            v.stand_summary_text()
            checks.append(time.perf_counter() - t)
        else:
            window.refresh_timer.stop()
            window.refresh_from_model()
            window.map.redraw()                     # what the map's frame timer would do
            window.map.plot.viewport().repaint()    # and the paint of that frame
            whole.append(time.perf_counter() - t)
        window.refresh_timer.stop()
    return checks, whole


def main(sizes: list[int]) -> None:
    tmp = Path(tempfile.mkdtemp())
    os.environ["FIELDAPP_CONFIG_DIR"] = str(tmp)
    from PySide6.QtWidgets import QApplication

    app = QApplication([])  # noqa: F841 - kept alive for the windows
    from fieldapp.app import config as C
    from fieldapp.ui import app as appmod

    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    base = None
    rng = np.random.default_rng(1)
    for n in sizes:
        path = tmp / f"tally-{n}.gpkg"
        side = build(path, n)
        cfg = C.build({"data_dir": str(tmp), "visit": str(path)}, use_file=False)
        w = appmod.create_window(cfg, start_devices=False)
        w.resize(1366, 768)
        w.show()
        while not w.startup_done:
            spin(20)
        w.tabs.setCurrentIndex(2)  # the tally tab
        spin(50)
        checks, whole = squeezes(w, side, n, rng)
        appmod.dispose(w)
        mc, mw = statistics.median(checks), statistics.median(whole)
        if base is None:
            base = (mc, mw)
        print(f"{n:5d} trees: checks median {1e3 * mc:6.1f} ms (max {1e3 * max(checks):6.1f}, "
              f"{mc / base[0]:4.1f}x the first); window median {1e3 * mw:6.1f} ms "
              f"(max {1e3 * max(whole):6.1f}, {mw / base[1]:4.1f}x the first)   "
              f"target <= 50 ms at 4,000 and <= 5x at 100")
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [100, 1000, 2000, 4000])
