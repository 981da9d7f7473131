"""The live view's reference over a serial port: QGIS's own GNSS stack on a pseudo-terminal,
doing what its GPS panel does each epoch, beside the app in one run (issue 33, goal 1: the app's
live view no more CPU than this).

``python bench/bench_qgis_live.py [SECONDS]`` (default 45) runs ``bench_ui_stream.py`` (the app
on the demo simulators at 10 Hz, offscreen; beside it the bare pyqtgraph window and QGIS's live
view over TCP) and, in one more process over the same window, this reference:

- PyQGIS from Debian's ``python3-qgis`` (QGIS 3.22 on PyQt5; run by :data:`QGIS_PYTHON`,
  ``/usr/bin/python3`` unless ``FIELDAPP_QGIS_PYTHON`` says otherwise), offscreen;
- its own demo GNSS simulator (``python -m devices.sim --only gnss --rate-hz 10``, another
  process) on a pty, as the app reads its receiver (a pty has one reader: the app's cannot be
  shared);
- ``QgsGpsDetector`` on that port, as the GPS panel connects: a ``QgsNmeaConnection`` on a
  ``QSerialPort`` (in C++; Debian's PyQt5 has no QtSerialPort, the detector needs none);
- per epoch (``stateChanged``), as ``QgsGpsInformationWidget`` does with "recenter when
  leaving the extent" and "add track vertices" on: a ``QgsRubberBand`` line gets the fix, a
  ``QgsVertexMarker`` (its GPS marker is an app class, not in the API) moves to it, and the
  ``QgsMapCanvas`` (1366 x 768, no layers) recentres when the fix leaves the middle half of its
  extent. The panel's text fields and satellite plot are not drawn (the app's status strip and
  sky plot are: this reference is the lighter side of the comparison).

It measures its own CPU over the app's window (told on stdin when the app's streaming starts)
and its figure is printed last, under the app's, the bare window's and QGIS-over-TCP's.
``python bench/bench_qgis_live.py --alone [SECONDS]`` runs only this reference. Without PyQGIS
that is said and nothing else is run. Quote ``uptime``: compare only within one run.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

#: The Python with PyQGIS (Debian's python3-qgis installs into the system Python).
QGIS_PYTHON = os.environ.get("FIELDAPP_QGIS_PYTHON", "/usr/bin/python3")

CHILD = r"""
import os, sys, time
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
from qgis.core import QgsApplication, QgsGpsDetector, QgsPointXY, QgsRectangle, QgsWkbTypes
from qgis.gui import QgsMapCanvas, QgsRubberBand, QgsVertexMarker
from qgis.PyQt.QtCore import QSocketNotifier, QTimer
from qgis.PyQt.QtGui import QColor

port, seconds = sys.argv[1], float(sys.argv[2])
app = QgsApplication([], True)
app.initQgis()
canvas = QgsMapCanvas()
canvas.resize(1366, 768)
canvas.setExtent(QgsRectangle(-0.0005, -0.0005, 0.0005, 0.0005))
canvas.show()
band = QgsRubberBand(canvas, QgsWkbTypes.LineGeometry)
band.setColor(QColor("#5c6470"))
band.setWidth(1)
marker = QgsVertexMarker(canvas)
marker.setIconType(QgsVertexMarker.ICON_CIRCLE)
marker.setIconSize(18)
marker.setFillColor(QColor("#0050ff"))
state = {"fixes": 0, "measuring": False, "t0": 0.0, "c0": 0.0, "first": True}
last = [None]

def on_state(info):
    if not info.isValid():
        return
    p = QgsPointXY(info.longitude, info.latitude)
    if last[0] is not None and last[0] == p:
        return
    last[0] = p
    if state["first"]:
        state["first"] = False
        canvas.setExtent(QgsRectangle(p.x() - 0.0005, p.y() - 0.0003, p.x() + 0.0005, p.y() + 0.0003))
        canvas.refresh()
        print("ready", flush=True)
    ext = canvas.extent()
    inner = QgsRectangle(ext)
    inner.scale(0.5)
    if not inner.contains(p):
        canvas.setCenter(p)
        canvas.refresh()
    band.addPoint(p)
    marker.setCenter(p)
    if state["measuring"]:
        state["fixes"] += 1

def detected(conn):
    conn.stateChanged.connect(on_state)
    keep.append(conn)

def failed():
    print("failed", flush=True)
    app.quit()

keep = []
detector = QgsGpsDetector(port)
detector.detected.connect(detected)
detector.detectionFailed.connect(failed)
detector.advance()

def go():
    sys.stdin.readline()
    notifier.setEnabled(False)
    state["measuring"] = True
    state["t0"], state["c0"] = time.monotonic(), time.process_time()
    QTimer.singleShot(int(seconds * 1000), done)

def done():
    wall = time.monotonic() - state["t0"]
    print(f"cpu {100 * (time.process_time() - state['c0']) / wall:.3f} fixes {state['fixes']}", flush=True)
    app.exit(0)

notifier = QSocketNotifier(sys.stdin.fileno(), QSocketNotifier.Read)
notifier.activated.connect(go)
app.exec_()
"""


def qgis_available() -> bool:
    """True when :data:`QGIS_PYTHON` imports ``qgis.core``."""
    try:
        return subprocess.run([QGIS_PYTHON, "-c", "import qgis.core"], capture_output=True,
                              timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


class QgisReference:
    """The QGIS reference's simulator and process: :meth:`start` (returns when it has shown
    its first fix), :meth:`go` when the measured window starts, :meth:`result` after it."""

    def __init__(self, seconds: float, link_dir: Path) -> None:
        self.seconds = seconds
        self.link_dir = link_dir
        self.sim: subprocess.Popen[str] | None = None
        self.proc: subprocess.Popen[str] | None = None

    def start(self) -> None:
        root = Path(__file__).resolve().parent.parent
        self.sim = subprocess.Popen(
            [sys.executable, "-m", "devices.sim", "--only", "gnss", "--rate-hz", "10",
             "--link-dir", str(self.link_dir), "--duration", str(self.seconds + 180)],
            stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, cwd=root)
        assert self.sim.stdout is not None
        port = ""
        while not port:
            line = self.sim.stdout.readline()
            if not line:
                raise SystemExit("the QGIS reference's simulator did not start")
            m = re.match(r"gnss\s+(\S+)\s+\(kind", line)
            if m:
                port = os.path.realpath(m.group(1))      # QSerialPort wants the /dev/pts name
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
        self.proc = subprocess.Popen([QGIS_PYTHON, "-c", CHILD, port, str(self.seconds)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, env=env)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline().strip()
        if line != "ready":
            raise SystemExit(f"the QGIS reference did not show a fix ({line or 'no answer'})")

    def go(self) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        self.proc.stdin.write("go\n")
        self.proc.stdin.flush()

    def result(self) -> tuple[float, int]:
        """(CPU % of one core over the window, fixes drawn in it)."""
        assert self.proc is not None
        out = self.proc.communicate(timeout=self.seconds + 120)[0]
        m = re.search(r"cpu ([\d.]+) fixes (\d+)", out)
        if not m:
            raise SystemExit(f"the QGIS reference gave no figure: {out!r}")
        return float(m.group(1)), int(m.group(2))

    def stop(self) -> None:
        for p in (self.proc, self.sim):
            if p is not None and p.poll() is None:
                p.terminate()
                p.wait(30)


def main() -> None:
    import tempfile

    args = [a for a in sys.argv[1:] if a != "--alone"]
    seconds = float(args[0]) if args else 45.0
    if not qgis_available():
        raise SystemExit(f"no PyQGIS in {QGIS_PYTHON} (apt-get install python3-qgis)")
    ref = QgisReference(seconds, Path(tempfile.mkdtemp()) / "links")
    try:
        ref.start()
        if "--alone" in sys.argv:
            ref.go()
        else:
            sys.path.insert(0, str(Path(__file__).resolve().parent))
            import bench_ui_stream

            start_tcp_reference = bench_ui_stream.start_qgis_reference

            def at_window_start(s: float) -> Any:
                """bench_ui_stream starts its references when its measured window starts."""
                ref.go()
                return start_tcp_reference(s)
            bench_ui_stream.start_qgis_reference = at_window_start
            sys.argv[1:] = [str(seconds)]
            bench_ui_stream.main()
        pct, fixes = ref.result()
        print(f"QGIS's GNSS canvas over a serial pty (QgsGpsDetector -> QgsNmeaConnection,"
              f" canvas recentring, rubber band, marker; {fixes} fixes), same window: {pct:.1f} %"
              " of one core (issue 33 target: the app <= this)")
    finally:
        ref.stop()


if __name__ == "__main__":
    main()
