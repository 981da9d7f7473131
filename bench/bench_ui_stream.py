"""CPU of the app's own process while streaming, beside a bare window, and fix-to-screen latency.

``python bench/bench_ui_stream.py [SECONDS]`` (default 60):

- the demo simulators run in **another process** (``python -m devices.sim``: GNSS at 10 Hz, a
  caliper tree every 2 s, a rangefinder shot every 2 s), on ptys, as a real receiver would
  (on Windows: ``socket://`` ports; with ``FIELDAPP_BENCH_PORTS`` set, the simulators started
  outside, on the ports it names: bench/bench_windows.py's COM ports under wine);
- the app runs in this process on those ports (offscreen), with an OHWM point averaged and a
  transect started, so shots become stations and caliper readings trees;
- at the same time a **bare PySide6 + pyqtgraph window** moving one point at 10 Hz runs in a
  third process (the same load on the machine for both), and, where the system Python has
  PyQGIS (Debian ``python3-qgis``), **QGIS's own GNSS live view** (:data:`QGIS`) on a GNSS
  simulator of its own: the issue 33 reference (the app should use no more CPU than it);
- printed: the CPU time of each process over wall time (% of one core; target: the app <= 5 %),
  the app's by thread and its UI thread's by part (:data:`UI_PARTS`: a fix, its store commit,
  the map's draw and repaints, the status strip ...; the rest is Qt's own),
  and the latency from a fix's receive time (``t_monotonic_s``, set by the reader thread) to
  the first paint of the map showing it or a newer fix (the map draws at most ``redraw_hz``
  times a second, the newest fix winning; median, p95, p99, max; targets p95 <= 50 ms,
  p99 <= 100 ms), counted once the receiver's cycle is learned (``CYCLE_LEARN_S`` + 2 s after
  the first fixes are left out), and the reader's share of it; then the map's draws and paints
  a second, and the CPU of the same window idle (readers stopped, no fixes) for a tenth of
  SECONDS (at least 5 s).

Quote ``uptime`` with the figures: on a shared machine they are upper bounds.
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

BARE = r"""
import os, sys, time
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
import pyqtgraph as pg
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
app = QApplication([])
w = pg.PlotWidget(); w.resize(1366, 768); w.show()
dot = pg.ScatterPlotItem(size=18); w.addItem(dot)
k = [0]
def step():
    k[0] += 1
    dot.setData([k[0] % 100], [0.0])
t = QTimer(); t.timeout.connect(step); t.start(100)
seconds = float(sys.argv[1])
t0, c0 = time.monotonic(), time.process_time()
QTimer.singleShot(int(seconds * 1000), app.quit)
app.exec()
print(100 * (time.process_time() - c0) / (time.monotonic() - t0))
"""

#: QGIS's own GNSS stack doing the same live view (what its GPS panel does each epoch): a
#: ``QgsNmeaConnection`` reading the receiver, a ``QgsMapCanvas`` that follows the fix, a
#: ``QgsRubberBand`` track and a marker moved per fix. Run by the system Python with PyQGIS
#: (Debian ``python3-qgis``); the receiver is a simulator of its own, read over TCP through a
#: ``QTcpSocket`` (Debian's PyQt5 has no QtSerialPort module; QGIS reads a TCP receiver so too).
QGIS = r"""
import os, sys, time
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
from qgis.core import (QgsApplication, QgsCoordinateReferenceSystem, QgsCoordinateTransform,
                       QgsNmeaConnection, QgsPointXY, QgsProject, QgsRectangle, QgsWkbTypes)
from qgis.gui import QgsMapCanvas, QgsRubberBand, QgsVertexMarker
from PyQt5.QtCore import QTimer
from PyQt5.QtNetwork import QTcpSocket
app = QgsApplication([], True); app.initQgis()
host, port = sys.argv[1].split("://", 1)[1].rsplit(":", 1)
sock = QTcpSocket(); sock.connectToHost(host, int(port))
if not sock.waitForConnected(10000):
    raise SystemExit("no receiver")
conn = QgsNmeaConnection(sock)
canvas = QgsMapCanvas(); canvas.resize(1366, 768)
crs = QgsCoordinateReferenceSystem("EPSG:3857"); canvas.setDestinationCrs(crs); canvas.show()
to_map = QgsCoordinateTransform(QgsCoordinateReferenceSystem("EPSG:4326"), crs, QgsProject.instance())
band = QgsRubberBand(canvas, QgsWkbTypes.LineGeometry); band.setWidth(2)
marker = QgsVertexMarker(canvas); marker.setIconSize(18)
fixes = [0]
def on_state(info):
    if not info.isValid():
        return
    pt = to_map.transform(QgsPointXY(info.longitude, info.latitude))
    fixes[0] += 1
    band.addPoint(pt)
    marker.setCenter(pt)
    if fixes[0] == 1:
        canvas.setExtent(QgsRectangle(pt.x() - 100, pt.y() - 60, pt.x() + 100, pt.y() + 60)); canvas.refresh()
    elif not canvas.extent().contains(pt):      # follow the fix, as the GPS panel does
        canvas.setCenter(pt); canvas.refresh()
conn.stateChanged.connect(on_state)
seconds = float(sys.argv[2])
t0, c0 = time.monotonic(), time.process_time()
QTimer.singleShot(int(seconds * 1000), app.quit)
app.exec_()
print(fixes[0], 100 * (time.process_time() - c0) / (time.monotonic() - t0))
"""
#: the interpreter with PyQGIS (Debian's python3-qgis is for the system Python)
QGIS_PYTHON = "/usr/bin/python3"


def QGIS_QT_VERSION() -> str:  # noqa: N802 - read once, where the figure is printed
    """The PyQGIS version (``3.22.16``), or "" when it cannot be read."""
    out = subprocess.run([QGIS_PYTHON, "-c", "from qgis.core import Qgis; print(Qgis.QGIS_VERSION.split('-')[0])"],
                         capture_output=True, text=True)
    return out.stdout.strip()


def start_qgis_reference(seconds: float) -> tuple[subprocess.Popen, subprocess.Popen] | None:
    """QGIS's live view (:data:`QGIS`) on a GNSS simulator of its own at 10 Hz; None (said
    why) where PyQGIS cannot be imported."""
    if os.name == "nt":  # (under wine, starting a Linux program fails: WinError 6)
        print(f"QGIS reference: not run (on Windows; it is Debian's PyQGIS, run by {QGIS_PYTHON})")
        return None
    probe = subprocess.run([QGIS_PYTHON, "-c", "import qgis.core, qgis.gui"], capture_output=True)
    if probe.returncode != 0:
        print("QGIS reference: not run (no PyQGIS for /usr/bin/python3: apt-get install python3-qgis)")
        return None
    sim = subprocess.Popen(
        [sys.executable, "-m", "devices.sim", "--tcp", "--only", "gnss", "--rate-hz", "10",
         "--duration", str(seconds + 120)], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL,
        text=True, cwd=Path(__file__).resolve().parent.parent)
    line = sim.stdout.readline()
    m = re.match(r"gnss\s+(\S+)", line or "")
    if not m:
        sim.terminate()
        raise SystemExit(f"the QGIS reference's simulator did not start: {line!r}")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    qgis = subprocess.Popen([QGIS_PYTHON, "-c", QGIS, m.group(1), str(seconds)], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env=env)
    return sim, qgis


#: the demo simulators' flags (bench/bench_windows.py starts them so for the Windows run)
SIM_ARGS = ("--rate-hz", "10", "--caliper-every", "2", "--shoot-every", "2")
#: ``gnss=PORT:protocol;rangefinder=...;caliper=...``: the simulators were started outside (by
#: bench/bench_windows.py on COM ports wine maps to their ptys); this bench starts none
PORTS_ENV = "FIELDAPP_BENCH_PORTS"


def given_ports() -> dict[str, tuple[str, str]]:
    """The ports named in :data:`PORTS_ENV` (``{"gnss": ("COM11", "nmea"), ...}``)."""
    ports = {}
    for item in os.environ[PORTS_ENV].split(";"):
        name, _, port = item.partition("=")
        url, _, protocol = port.rpartition(":")
        ports[name] = (url, protocol)
    return ports


def start_simulators(link_dir: Path, seconds: float) -> tuple[subprocess.Popen, dict]:
    sim = subprocess.Popen(
        [sys.executable, "-m", "devices.sim", *SIM_ARGS, "--link-dir", str(link_dir),
         "--duration", str(seconds + 120)],
        stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
        cwd=Path(__file__).resolve().parent.parent)
    ports: dict[str, tuple[str, str]] = {}
    while len(ports) < 3:
        line = sim.stdout.readline()
        if not line:
            raise SystemExit("the simulators did not start")
        m = re.match(r"(\w+)\s+(\S+)\s+\(kind \w+, protocol (\w+)\)", line)
        if m:
            ports[m.group(1)] = (m.group(2), m.group(3))
    return sim, ports


def spin(seconds: float) -> None:
    """Run the Qt event loop for ``seconds``, as ``app.exec()`` does (waiting for events with the
    GIL released). Not ``QTest.qWait``: PySide6 holds the GIL through it, so the reader threads
    could only hand fixes over while some Python slot ran (fixes came in bursts, 250 ms late
    when only the 4 Hz age timer ran), and its 10 ms polling is CPU the app does not spend."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    QTimer.singleShot(max(0, int(seconds * 1000)), loop.quit)
    loop.exec()


def thread_cpu_s() -> dict[str, float]:
    """CPU seconds of each thread of this process by name (Linux ``/proc``; {} elsewhere): a
    Python thread by its Python name (``fieldapp-reader-gnss``), Qt's by the OS's."""
    import threading

    out: dict[str, float] = {}
    if os.name != "posix":  # under wine, /proc/self opens the wineserver's, not this process's
        return out
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    py_names = {str(t.native_id): t.name for t in threading.enumerate()}
    for task in Path("/proc/self/task").glob("*") if Path("/proc/self/task").exists() else []:
        try:
            name = (task / "comm").read_text().strip()
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        name = "UI thread" if task.name == str(os.getpid()) else py_names.get(task.name, name)
        out[name] = out.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / tick
    return out


#: the UI thread's parts timed by :func:`time_ui_parts` (label, class path, method), in the
#: order printed; a part's time includes the parts it calls ("the rest" is the UI thread's
#: time outside every part)
UI_PARTS = (
    ("a fix (MainWindow.on_fix)", "fieldapp.ui.mainwindow:MainWindow", "on_fix"),
    ("  of which its store commit (Visit.on_fix)", "fieldapp.survey.visit:Visit", "on_fix"),
    ("map draw (MapView.redraw)", "fieldapp.ui.mapview:MapView", "redraw"),
    ("pyqtgraph repaints (the map; the transect profile)", "pyqtgraph:GraphicsView", "paintEvent"),
    ("status strip (MainWindow.refresh_usable)", "fieldapp.ui.mainwindow:MainWindow", "refresh_usable"),
    ("tree or station (MainWindow.on_reading)", "fieldapp.ui.mainwindow:MainWindow", "on_reading"),
    ("checks and overlays (MainWindow.refresh_from_model)", "fieldapp.ui.mainwindow:MainWindow", "refresh_from_model"),
)


OUTERMOST = "(outermost)"


def time_ui_parts() -> dict[str, list[float]]:
    """Wrap the :data:`UI_PARTS` methods (before the window is made: Qt binds a Python override
    when an object is made) to add their UI-thread CPU seconds and calls, by label, to the
    dict returned; :func:`time.thread_time` around each call (about a microsecond)."""
    import importlib
    import threading

    spent: dict[str, list[float]] = {label: [0.0, 0] for label, _, _ in UI_PARTS}
    spent[OUTERMOST] = [0.0, 0]          # the parts not called by another part: their sum
    depth = [0]
    for label, where, name in UI_PARTS:
        module, cls_name = where.split(":")
        cls = getattr(importlib.import_module(module), cls_name)
        real = getattr(cls, name)

        def timed(*args, _real=real, _label=label, **kwargs):
            if threading.current_thread() is not threading.main_thread():
                return _real(*args, **kwargs)
            t = time.thread_time()
            depth[0] += 1
            try:
                return _real(*args, **kwargs)
            finally:
                depth[0] -= 1
                took = time.thread_time() - t
                part = spent[_label]
                part[0] += took
                part[1] += 1
                if depth[0] == 0:
                    spent[OUTERMOST][0] += took
        setattr(cls, name, timed)
    return spent


def percentile(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * (len(s) - 1) + 0.5))]


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 60.0  # latency: all but its first 12 s
    tmp = Path(tempfile.mkdtemp())
    os.environ["FIELDAPP_CONFIG_DIR"] = str(tmp)
    print(f"load before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    sim, ports = (None, given_ports()) if os.environ.get(PORTS_ENV) else start_simulators(tmp / "links", seconds)
    try:
        run_app(seconds, tmp, ports)
    finally:
        if sim is not None:
            sim.terminate()
            sim.wait(30)
    print(f"load after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def run_app(seconds: float, tmp: Path, ports: dict) -> None:
    from PySide6.QtCore import QEvent, QObject
    from PySide6.QtWidgets import QApplication

    app = QApplication([])  # noqa: F841
    from devices.nmea import CYCLE_LEARN_S
    from fieldapp.app import config as C
    from fieldapp.ui import app as appmod

    ui_parts = time_ui_parts()
    cfg = C.build({"data_dir": str(tmp), "visit": str(tmp / "stream.gpkg"),
                   "gnss_url": ports["gnss"][0],
                   "rangefinder_url": ports["rangefinder"][0],
                   "rangefinder_protocol": ports["rangefinder"][1],
                   "caliper_url": ports["caliper"][0],
                   "caliper_protocol": ports["caliper"][1]}, use_file=False)
    w = appmod.create_window(cfg)
    # when the reader thread hands each fix over (the readers start on the loop's first turn
    # and take bridge.on_fix then): splits the latency into the reader's share (epoch closed)
    # and the UI thread's (the queued signal waited behind other work)
    published: dict[int, float] = {}
    handover = w.bridge.on_fix

    def on_fix_published(fix) -> None:
        published[id(fix)] = time.monotonic()
        handover(fix)
    w.bridge.on_fix = on_fix_published
    w.resize(1366, 768)
    w.show()
    while w.usable_fix() is None:
        spin(0.05)
    w.panels["ohwm"].epochs.setValue(2)
    w.panels["ohwm"].start_average()
    while not w.visit.ohwm_points():
        spin(0.05)
    w.tabs.setCurrentIndex(1)
    w.visit.start_transect(w.visit.ohwm_points()[0].uuid, 350.0)

    latencies: list[float] = []
    reader_share: list[float] = []
    pending: list = []          # fixes handed to the map, not yet on screen
    paints = [0]
    no_position = [0]
    # the assembler learns the cycle's last sentence over CYCLE_LEARN_S of epochs (until then an
    # epoch closes when the next starts: one epoch, 100 ms, of latency by design)
    learned_at = time.monotonic() + CYCLE_LEARN_S + 2.0

    def on_fix(fix) -> None:
        # fix listeners run in MainWindow.on_fix after the map took the position (to draw)
        out = published.pop(id(fix), None)
        if time.monotonic() >= learned_at:
            if w.map._stamp is not fix:       # no position (an outage): nothing to draw
                no_position[0] += 1
                return
            pending.append(fix)
            if out is not None:
                reader_share.append(out - fix.t_monotonic_s)
    w.devices.on_fix(on_fix)

    def settle() -> None:
        """Every fix up to the one the map drew is on screen now."""
        drawn = w.map.drawn_stamp
        if drawn is not None and pending:
            now = time.monotonic()
            while pending and pending[0].t_monotonic_s <= drawn.t_monotonic_s:
                latencies.append(now - pending.pop(0).t_monotonic_s)

    class OnScreen(QObject):
        """At each paint of the map."""

        def eventFilter(self, obj, event):  # noqa: N802 - Qt's name
            if event.type() == QEvent.Paint:
                paints[0] += 1
                settle()
            return False
    on_screen = OnScreen()
    w.map.plot.viewport().installEventFilter(on_screen)
    real_draw = w.map._draw_position

    def draw_and_look() -> None:
        # standing still (or walking slowly on a zoomed-out map), a fix would not move the
        # marker a pixel: the map draws nothing, nothing is painted, the screen already shows
        # that fix (MapView._on_screen_already)
        m = w.map
        before = (m.position_item.pos(), m.accuracy_item.rect(), m._marker_colour)
        real_draw()
        if (m.position_item.pos(), m.accuracy_item.rect(), m._marker_colour) == before:
            settle()
    w.map._draw_position = draw_and_look

    bare = subprocess.Popen([sys.executable, "-c", BARE, str(seconds)], stdout=subprocess.PIPE,
                            text=True)
    qgis = start_qgis_reference(seconds)
    for part in ui_parts.values():
        part[:] = [0.0, 0]
    ui0 = time.thread_time()
    t0, c0, th0 = time.monotonic(), time.process_time(), thread_cpu_s()
    draws0, paints0 = w.map.draws, paints[0]
    spin(seconds)
    wall, cpu, th1 = time.monotonic() - t0, time.process_time() - c0, thread_cpu_s()
    ui_cpu = time.thread_time() - ui0
    parts_seen = {k: list(v) for k, v in ui_parts.items()}
    draws, painted = w.map.draws - draws0, paints[0] - paints0
    # measured: the window above, not the fixes queued while this thread waits for the bare
    # window's process below
    w.devices.remove_fix_listener(on_fix)
    w.map.plot.viewport().removeEventFilter(on_screen)
    w.map._draw_position = real_draw
    bare_pct = float(bare.communicate(timeout=120)[0].strip().splitlines()[-1])
    qgis_words = ""
    if qgis is not None:
        qsim, qproc = qgis
        try:
            said = qproc.communicate(timeout=120)[0].strip().splitlines()
            q_fixes, q_pct = said[-1].split()
            qgis_words = (f"QGIS {QGIS_QT_VERSION()}'s GNSS canvas (QgsNmeaConnection, QgsMapCanvas following the fix,"
                          f" rubber band and marker per fix; {q_fixes} fixes), same run: {float(q_pct):.1f} %")
        except (IndexError, ValueError):
            qgis_words = "QGIS reference: it printed no figure"
        finally:
            qsim.terminate()
            qsim.wait(30)
    fixes, trees, stations = w.fix_count, len(w.visit.trees()), len(w.visit.stations())
    w.session.stop()
    spin(1.0)                    # the readers' last words (stopped) shown
    idle_s = max(5.0, seconds / 10)
    t1, c1 = time.monotonic(), time.process_time()
    spin(idle_s)
    idle_pct = 100 * (time.process_time() - c1) / (time.monotonic() - t1)
    appmod.dispose(w)
    print(f"{wall:.0f} s streaming (simulators in another process): {fixes} fixes, {trees} trees,"
          f" {stations} stations")
    print(f"CPU of the app's process {100 * cpu / wall:.1f} % of one core (target <= 5 %); "
          f"bare PySide6 + pyqtgraph window, one point at 10 Hz, same run: {bare_pct:.1f} %")
    if qgis_words:
        print(f"  {qgis_words} (issue 33 target: the app <= QGIS)")
    if th1:
        shares = sorted(((th1[k] - th0.get(k, 0.0), k) for k in th1), reverse=True)
        print("  by thread: " + ", ".join(f"{k} {100 * v / wall:.1f} %" for v, k in shares if v > 0))
    print(f"  the UI thread's {100 * ui_cpu / wall:.2f} % by part (% of one core, calls a second, CPU a call):")
    outer = parts_seen.pop(OUTERMOST)[0]
    for label, (spent_s, calls) in parts_seen.items():
        print(f"    {label}: {100 * spent_s / wall:.2f} %, {calls / wall:.1f}/s,"
              f" {1e6 * spent_s / max(calls, 1):.0f} us")
    print(f"    the rest (Qt's event loop, queued signals, timers, other widgets' paints, backing store):"
          f" {100 * (ui_cpu - outer) / wall:.2f} %")
    print(f"the map drew the position {draws / wall:.1f} times a second and painted"
          f" {painted / wall:.1f} times a second")
    print(f"the same window idle (readers stopped, no fixes), {idle_s:.0f} s: {idle_pct:.2f} %"
          " of one core")
    if latencies:
        print(f"fix-to-screen latency: median {1e3 * statistics.median(latencies):.0f} ms, "
              f"p95 {1e3 * percentile(latencies, 0.95):.0f} ms (target <= 50), "
              f"p99 {1e3 * percentile(latencies, 0.99):.0f} ms (target <= 100), "
              f"max {1e3 * max(latencies):.0f} ms; {len(latencies)} fixes"
              f" ({no_position[0]} more without a position, not drawn)")
    if reader_share:
        print(f"  of which in the reader (receive to hand-over): median "
              f"{1e3 * statistics.median(reader_share):.0f} ms, p95 "
              f"{1e3 * percentile(reader_share, 0.95):.0f} ms, p99 "
              f"{1e3 * percentile(reader_share, 0.99):.0f} ms; the rest waited for the UI thread")


if __name__ == "__main__":
    main()
