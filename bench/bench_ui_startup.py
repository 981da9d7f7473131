"""Start to a usable window: fieldapp vs a bare PySide6 + pyqtgraph window, same run.

``python bench/bench_ui_startup.py [RUNS] [--bytecode]`` prints seconds (median of RUNS fresh
processes each, default 5, the two kinds alternating) for: the bare window shown; the fieldapp window shown
and usable (laid out and painted, the panels in view built, every tab key and the keys of the
panel shown bound; a tab opened before the turn after the first frame builds its panel at once);
and the visit ready (on that turn the other workflow panels built, then the visit opened,
model and checks built). Also the peak resident memory of the fieldapp start
(ru_maxrss). Target: window shown <= 1.5x the bare window, <= 250 MiB. ``--bytecode``: fieldapp
starts from bytecode as an installed app does (with ``PYTHONDONTWRITEBYTECODE`` set in the
shell its modules are otherwise compiled from source at every start; PySide6's and pyqtgraph's,
compiled by pip, are not).
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
from fieldapp.ui import app as appmod, theme
from fieldapp.app import config as C
theme.apply(app)
w = appmod.create_window(C.build({}, use_file=False), start_devices=False); w.show()
app.processEvents()
while not w.startup_done:
    app.processEvents()
t_ready = time.perf_counter() - t0
# shown and usable: the event loop has laid out and painted the window's first frame and
# comes to the turn after it (fieldapp.ui.app.after_first_frame), which builds the other tabs
# and opens the visit
t_shown = w.visit_open_started_s - t0
assert w.visit is not None
print(t_shown, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, t_ready)
w.session.stop(); appmod.dispose(w)
"""


def run(code: str, env: dict) -> list[float]:
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    return [float(v) for v in out]


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    runs = int(args[0]) if args else 5
    tmp = tempfile.mkdtemp()
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", FIELDAPP_CONFIG_DIR=tmp,
               FIELDAPP_DATA_DIR=tmp)
    if "--bytecode" in sys.argv:
        # as installed: pip and the bundle compile every module, so both windows start from
        # bytecode (fieldapp's written by the warm-up runs, in its __pycache__, as Python does
        # by default). With PYTHONDONTWRITEBYTECODE in the shell, fieldapp is compiled from
        # source at every start, PySide6 and pyqtgraph (compiled by pip) are not.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    run(BARE, env), run(APP, env)  # warm the file cache (and write the bytecode)
    bare, app = [], []
    for _ in range(runs):  # alternate, so machine load hits both alike
        bare.append(run(BARE, env))
        app.append(run(APP, env))
    b = statistics.median(r[0] for r in bare)
    shown = statistics.median(r[0] for r in app)
    ready = statistics.median(r[2] for r in app)
    print(f"load: {' '.join(f'{a:.2f}' for a in os.getloadavg())}; "
          f"{'fieldapp from bytecode, as installed' if '--bytecode' in sys.argv else 'bytecode as the shell says'}"
          f" (PYTHONDONTWRITEBYTECODE={env.get('PYTHONDONTWRITEBYTECODE', '')!r})")
    print(f"bare PySide6+pyqtgraph window: {b:.3f} s (median of {runs})")
    print(f"fieldapp window shown, usable (no devices): {shown:.3f} s  ratio {shown / b:.2f}"
          " (target <= 1.5)")
    print(f"fieldapp visit ready (opened, checks built): {ready:.3f} s  ratio {ready / b:.2f}")
    print(f"fieldapp peak RSS: {max(r[1] for r in app):.0f} MiB (target <= 250)")


if __name__ == "__main__":
    main()
