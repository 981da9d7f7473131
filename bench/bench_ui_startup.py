"""Start to a usable window: fieldapp vs a bare PySide6 + pyqtgraph window, same run.

``python bench/bench_ui_startup.py [RUNS] [--bytecode] [--visit=PATH]`` prints seconds (median
of RUNS fresh processes each, default 5, the two kinds alternating) for: the bare window shown;
the fieldapp window shown and usable (laid out and painted, the panels in view built, every tab
key and the keys of the panel shown bound; a tab opened before the turn after the first frame
builds its panel at once); and the visit ready (the visit opened, model and checks built, the
devices started and the other workflow panels built, ``window.startup_done``); with
``--visit=PATH`` that visit is the one opened (a visit with a track) and, once the devices
start (a receiver's fix can come from then on), the first fix is handed to the window as the
receiver's reader hands one over (the window's ``on_fix``, the slot of its signal) and drawn
and painted on the map: the first fix on screen from process start, beside QGIS's (issue 33:
0.8 s; the serial port's own start is not counted, the devices are not started); the visit
ready then counts that fix too. Also the peak resident memory of the fieldapp start
(ru_maxrss). Target: window shown <= 1.5x the bare window, <= 250 MiB. With ``--visit`` and
PyQGIS (:data:`QGIS_PYTHON`) the same run also times QGIS's reference (:data:`QGIS`), in
turn with the other two. ``--bytecode``: fieldapp starts from bytecode as an installed app does
(with ``PYTHONDONTWRITEBYTECODE`` set in the shell its modules are otherwise compiled from
source at every start; PySide6's and pyqtgraph's, compiled by pip, are not).
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
import time, resource, sys; t0 = time.perf_counter()
VISIT = sys.argv[1] if len(sys.argv) > 1 else None
from PySide6.QtWidgets import QApplication
app = QApplication([])
from fieldapp.ui import app as appmod, theme
from fieldapp.app import config as C
theme.apply(app)
w = appmod.create_window(C.build({"visit": VISIT} if VISIT else {}, use_file=False), start_devices=False)
w.show()
app.processEvents()
# the devices start once the visit is shown (a receiver's first fix can come from then on;
# a window without fieldapp.ui.mainwindow.MainWindow.devices_starting_s: at startup_done)
while not (w.startup_done or (VISIT and getattr(w, "devices_starting_s", None) is not None)):
    app.processEvents()
t_ready = time.perf_counter() - t0
# shown and usable: the event loop has laid out and painted the window's first frame and
# comes to the turn after it (fieldapp.ui.app.after_first_frame), which builds the other tabs
# and opens the visit
t_shown = w.visit_open_started_s - t0
assert w.visit is not None
t_fix = float("nan")
if VISIT:   # the first fix, as the receiver's reader hands it over (its signal's slot), drawn
    from dataclasses import dataclass
    from datetime import UTC, datetime

    @dataclass(frozen=True)
    class Fix:
        lat_deg: float
        lon_deg: float
        time_utc: datetime
        quality: int = 4
        sats_used: int = 16
        hdop: float = 0.6
        horizontal_accuracy_m: float = 0.015
        vertical_accuracy_m: float = 0.025
        alt_hae_m: float = 251.3
        t_monotonic_s: float = 0.0

    model = w.visit.model
    x, y = model.track_log.columns()["x"][-1:], model.track_log.columns()["y"][-1:]
    lon, lat = model.frame.to_lonlat(x, y)
    drawn = w.map.draws
    w.on_fix(Fix(float(lat[0]), float(lon[0]), datetime.now(UTC), t_monotonic_s=time.monotonic()))
    while w.map.draws == drawn:
        app.processEvents()
    w.map.plot.viewport().repaint()          # painted, not only drawn into the scene
    t_fix = time.perf_counter() - t0
    while not w.startup_done:                # the other panels, built one per turn
        app.processEvents()
    t_ready = time.perf_counter() - t0
print(t_shown, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, t_ready, t_fix)
w.session.stop(); appmod.dispose(w)
"""
#: issue 33: QGIS 3.22 from process start to the first fix on screen, same machine
QGIS_FIRST_FIX_S = 0.8

#: The Python with PyQGIS (Debian's python3-qgis; as bench_qgis_live.py)
QGIS_PYTHON = os.environ.get("FIELDAPP_QGIS_PYTHON", "/usr/bin/python3")

#: The same-run reference with ``--visit``: PyQGIS 3.22 opens every feature layer of the visit
#: GeoPackage on a QgsMapCanvas (1366 x 740, the track's CRS and extent) and shows it rendered;
#: then the first fix, as its GPS panel takes one (WGS 84 to the canvas CRS, a vertex added to
#: the track's rubber band, the GPS marker moved), painted. No QGIS application window, no
#: plugins, no serial port: the lighter side of the comparison.
QGIS = r"""
import time, resource, sys; t0 = time.perf_counter()
import os
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
from qgis.core import (QgsApplication, QgsCoordinateReferenceSystem, QgsCoordinateTransform,
                       QgsPointXY, QgsProject, QgsVectorLayer, QgsWkbTypes)
from qgis.gui import QgsMapCanvas, QgsRubberBand, QgsVertexMarker
from qgis.PyQt.QtCore import QEventLoop
import sqlite3

path = sys.argv[1]
app = QgsApplication([], True)
app.initQgis()
with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
    names = [r[0] for r in db.execute(
        "SELECT table_name FROM gpkg_contents WHERE data_type = 'features' ORDER BY table_name")]
layers = [QgsVectorLayer(f"{path}|layername={n}", n, "ogr") for n in names]
assert all(lay.isValid() for lay in layers), names
QgsProject.instance().addMapLayers(layers)
track = layers[names.index("track_point")]
canvas = QgsMapCanvas()
canvas.resize(1366, 740)
canvas.setDestinationCrs(track.crs())
canvas.setLayers(layers)
canvas.setExtent(track.extent())
band = QgsRubberBand(canvas, QgsWkbTypes.LineGeometry)
marker = QgsVertexMarker(canvas)
marker.setIconType(QgsVertexMarker.ICON_CIRCLE)
loop = QEventLoop()
canvas.mapCanvasRefreshed.connect(loop.quit)
canvas.show()
canvas.refresh()
loop.exec_()                        # the visit's layers rendered and shown
t_shown = time.perf_counter() - t0
last = max(track.getFeatures(), key=lambda f: f.id()).geometry().asPoint()
wgs = QgsCoordinateReferenceSystem("EPSG:4326")
fix = QgsCoordinateTransform(track.crs(), wgs, QgsProject.instance()).transform(last)
xf = QgsCoordinateTransform(wgs, canvas.mapSettings().destinationCrs(), QgsProject.instance())
pt = xf.transform(QgsPointXY(fix.x(), fix.y()))     # the fix, as the GPS panel takes it
band.addPoint(pt)
marker.setCenter(pt)
app.processEvents()
canvas.viewport().repaint()         # painted, as the app's is
t_fix = time.perf_counter() - t0
print(t_shown, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, t_fix)
app.exitQgis()
"""


def have_qgis() -> bool:
    """Whether :data:`QGIS_PYTHON` can import PyQGIS."""
    try:
        return subprocess.run([QGIS_PYTHON, "-c", "import qgis.core"], capture_output=True,
                              timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def run(code: str, env: dict, *args: str, python: str = sys.executable) -> list[float]:
    out = subprocess.run([python, "-c", code, *args], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    return [float(v) for v in out]


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    runs = int(args[0]) if args else 5
    visit = next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--visit=")), "")
    tmp = tempfile.mkdtemp()
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", FIELDAPP_CONFIG_DIR=tmp,
               FIELDAPP_DATA_DIR=tmp)
    if "--bytecode" in sys.argv:
        # as installed: pip and the bundle compile every module, so both windows start from
        # bytecode (fieldapp's written by the warm-up runs, in its __pycache__, as Python does
        # by default). With PYTHONDONTWRITEBYTECODE in the shell, fieldapp is compiled from
        # source at every start, PySide6 and pyqtgraph (compiled by pip) are not.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    extra = (visit,) if visit else ()
    qgis = bool(visit) and have_qgis()
    run(BARE, env), run(APP, env, *extra)  # warm the file cache (and write the bytecode)
    if qgis:
        run(QGIS, env, visit, python=QGIS_PYTHON)
    bare, app, ref = [], [], []
    for _ in range(runs):  # alternate, so machine load hits all alike
        bare.append(run(BARE, env))
        app.append(run(APP, env, *extra))
        if qgis:
            ref.append(run(QGIS, env, visit, python=QGIS_PYTHON))
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
    if visit:
        first = statistics.median(r[3] for r in app)
        print(f"fieldapp first fix on screen, visit {os.path.basename(visit)} open: {first:.3f} s"
              f" (QGIS {QGIS_FIRST_FIX_S} s, issue 33; target <= {QGIS_FIRST_FIX_S} s)")
        if qgis:
            print(f"QGIS reference, same run (PyQGIS canvas, the visit's layers): shown"
                  f" {statistics.median(r[0] for r in ref):.3f} s, first fix on screen"
                  f" {statistics.median(r[2] for r in ref):.3f} s, peak RSS"
                  f" {max(r[1] for r in ref):.0f} MiB")
        else:
            print(f"QGIS reference: no PyQGIS in {QGIS_PYTHON} (FIELDAPP_QGIS_PYTHON)")
    print(f"fieldapp peak RSS: {max(r[1] for r in app):.0f} MiB (target <= 250)")


if __name__ == "__main__":
    main()
