"""Start to a usable window: fieldapp vs a bare PySide6 + pyqtgraph window, same run.

``python bench/bench_ui_startup.py`` prints seconds (median of 3 fresh processes each) and the
peak resident memory of the fieldapp start (ru_maxrss). Target: <= 1.5x the bare window,
<= 250 MiB.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile

BARE = r"""
import time, resource; t0 = time.perf_counter()
from PySide6.QtWidgets import QApplication
import pyqtgraph as pg
app = QApplication([]); w = pg.PlotWidget(); w.show(); app.processEvents()
print(time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""
APP = r"""
import time, resource; t0 = time.perf_counter()
from PySide6.QtWidgets import QApplication
app = QApplication([])
from fieldapp.ui import app as appmod, config as C, theme
theme.apply(app)
w = appmod.create_window(C.build({}, use_file=False), start_devices=False); w.show()
app.processEvents()
print(time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
w.session.stop(); appmod.dispose(w)
"""


def run(code: str, env: dict) -> tuple[float, float]:
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    return float(out[0]), float(out[1])


def main() -> None:
    tmp = tempfile.mkdtemp()
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", FIELDAPP_CONFIG_DIR=tmp,
               FIELDAPP_DATA_DIR=tmp)
    bare = [run(BARE, env) for _ in range(3)]
    app = [run(APP, env) for _ in range(3)]
    b = statistics.median(t for t, _ in bare)
    a = statistics.median(t for t, _ in app)
    print(f"bare PySide6+pyqtgraph window: {b:.3f} s")
    print(f"fieldapp window (visit opened, no devices): {a:.3f} s  ratio {a / b:.2f} (target <= 1.5)")
    print(f"fieldapp peak RSS: {max(m for _, m in app):.0f} MiB (target <= 250)")


if __name__ == "__main__":
    main()
