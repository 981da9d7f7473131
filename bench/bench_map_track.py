"""The day's GNSS track on the map: pan / zoom frame time with the whole track shown, and the cost
of one more fix appended and drawn, at 1/4, 1/2 and the whole of a day.

``python bench/bench_map_track.py [STEPS] [FIXES] [SIZE]`` (default 120 pan / zoom steps, 150
fixes per size; SIZE "full day" runs that size alone) builds 8 h of 10 Hz track (288,000 positions)
in the site frame (UTM 16N, a crew walking
transects 10 m apart at 1 m/s with 5 cm of GNSS noise), and for each size shows that much of it
as the visit's stored track in a 1366 x 768 map zoomed to the whole track, then:

* **frame**: pans (3 % of the view) and zooms (x 1.25 in and out) at 30 steps a second; a frame
  is all the UI thread's event-loop work for one step (the pan or zoom, every queued event -- a
  decimated track from the worker being put in place -- and the one paint of the map);
* **per fix**: one more position appended and drawn (``MapView.update_position``, the draw timer and the paint of
  the map), at 10 Hz.

Each figure is printed as wall clock and the UI thread's own CPU time (which the other users of a
shared machine do not inflate) beside its target (frame p95 <= 33 ms, per fix median <= 5 ms),
then how it grew from 1/4 of the day, and the machine's load.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_basemap_pan import PaintCounter

DAY = 8 * 3600 * 10          # positions in a day at 10 Hz


def day_track(n: int = DAY):
    """``n`` positions (site feet, UTM 16N about 43.07 N 89.40 W) of a crew walking 300 m
    transects 10 m apart at 1 m/s, 10 Hz, with 5 cm of noise; site CRS metres -> feet."""
    import numpy as np

    from fieldapp.geo import SiteFrame

    frame = SiteFrame("EPSG:32616")
    e0, n0 = frame.to_local(-89.40, 43.07)
    s = np.arange(n) / 10.0                       # metres walked
    line = (s // 300).astype(int)
    along = s % 300
    x = np.where(line % 2 == 0, along, 300 - along)
    y = (line % 30) * 10.0 + (line // 30) * 3.3
    rng = np.random.default_rng(1)
    x = e0 + x + rng.normal(0, 0.05, n)
    y = n0 + y + rng.normal(0, 0.05, n)
    return frame.to_ft(x), frame.to_ft(y)


def summary(name: str, ms: list[float], what: str = "p95") -> str:
    q = statistics.quantiles(ms, n=20)
    return f"{name}: median {statistics.median(ms):6.2f} ms, p95 {q[18]:6.2f} ms, max {max(ms):6.2f} ms"


def settle(app, mv, limit_s: float = 60.0) -> None:
    """Wait until the worker has drawn the history for the view (bench set-up, not timed)."""
    t_end = time.time() + limit_s
    while time.time() < t_end:
        app.processEvents()
        tl = mv.track
        if tl.history_draws and not tl._busy and tl._wanted is None:
            return
        time.sleep(0.01)


def frames(app, mv, steps: int) -> dict[str, list[float]]:
    painted = PaintCounter(mv.plot)
    out: dict[str, list[float]] = {"frame": [], "cpu": [], "paint": []}
    next_at = time.perf_counter()
    for i in range(steps):
        delay = next_at - time.perf_counter()
        if delay > 0:
            time.sleep(delay)                 # pacing between frames, not synchronisation
        next_at = max(next_at + 1 / 30, time.perf_counter())
        before, painted.ms = painted.count, 0.0
        t0, c0 = time.perf_counter(), time.thread_time()
        k = i % 40
        if k < 10:
            mv.pan(0.03, 0.0)
        elif k < 20:
            mv.zoom(0.8)
        elif k < 30:
            mv.pan(-0.03, 0.0)
        else:
            mv.zoom(1.25)
        app.processEvents()
        if painted.count == before:
            mv.plot.viewport().repaint()
        out["frame"].append((time.perf_counter() - t0) * 1000)
        out["cpu"].append((time.thread_time() - c0) * 1000)
        out["paint"].append(painted.ms)
    mv.plot.viewport().removeEventFilter(painted)
    return out


def per_fix(app, mv, xs, ys, fixes: int) -> dict[str, list[float]]:
    """One more fix appended and drawn, paced at 10 Hz (events between fixes are not timed)."""
    painted = PaintCounter(mv.plot)
    out: dict[str, list[float]] = {"fix": [], "cpu": [], "paint": []}
    x, y = float(xs[-1]) - mv.origin[0], float(ys[-1]) - mv.origin[1]
    # 2 pixels east a fix at the map's zoom: every fix moves the marker (one that would not
    # move a pixel is on screen already and is not drawn)
    vb = mv.plot.getPlotItem().getViewBox()
    (x0, x1) = vb.viewRange()[0]
    step = 2.0 * (x1 - x0) / max(vb.width(), 1.0)
    draws = mv.draws
    for i in range(fixes):
        t_next = time.perf_counter() + 0.1
        while time.perf_counter() < t_next:
            app.processEvents()
            time.sleep(0.005)
        before, painted.ms = painted.count, 0.0
        t0, c0 = time.perf_counter(), time.thread_time()
        mv.update_position(mv.origin[0] + x + step * i, mv.origin[1] + y, 0.05, True)
        # as the event loop does: the draw timer, the scene's queued update, then the paint of
        # the region that changed (a viewport repaint() would paint the whole map instead)
        give_up = time.perf_counter() + 0.25
        while painted.count == before and time.perf_counter() < give_up:
            app.processEvents()
        if painted.count == before:
            mv.plot.viewport().repaint()
        out["fix"].append((time.perf_counter() - t0) * 1000)
        out["cpu"].append((time.thread_time() - c0) * 1000)
        out["paint"].append(painted.ms)
    mv.plot.viewport().removeEventFilter(painted)
    assert mv.draws - draws == fixes, f"{mv.draws - draws} of {fixes} fixes drawn"
    return out


def main() -> None:
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 120
    fixes = int(sys.argv[2]) if len(sys.argv) > 2 else 150
    from PySide6.QtWidgets import QApplication, QMainWindow

    app = QApplication([])
    from fieldapp.ui.mapview import MapView

    xs, ys = day_track()
    results = {}
    sizes = (("1/4 day", 0.25), ("1/2 day", 0.5), ("full day", 1.0))
    if len(sys.argv) > 3:                 # e.g. "full day" alone, to profile
        sizes = tuple(s for s in sizes if s[0] == sys.argv[3])
    for label, frac in sizes:
        n = int(DAY * frac)
        win = QMainWindow()
        mv = MapView()
        win.setCentralWidget(mv)
        win.resize(1366, 768)
        win.show()
        app.processEvents()
        t0 = time.perf_counter()
        mv.show_stored_track(xs[:n], ys[:n])
        shown_ms = (time.perf_counter() - t0) * 1000
        mv.zoom_to_all()
        settle(app, mv)
        f = frames(app, mv, steps)
        mv.zoom_to_all()
        settle(app, mv)
        p = per_fix(app, mv, xs[:n], ys[:n], fixes)
        results[label] = (n, shown_ms, f, p, mv.track.history_draws)
        win.close()
        win.deleteLater()
        app.processEvents()
    for label, (n, shown_ms, f, p, draws) in results.items():
        print(f"{label}: {n:,} positions (shown in {shown_ms:.0f} ms; {draws} decimated histories drawn)")
        q_frame = statistics.quantiles(f["frame"], n=20)[18]
        print("  " + summary("pan / zoom frame (wall)", f["frame"])
              + f"   target p95 <= 33 ms: {'meets' if q_frame <= 33 else 'MISSES'}")
        print("  " + summary("pan / zoom frame, UI CPU", f["cpu"]))
        print("  " + summary("  of which the paint   ", f["paint"]))
        med_fix = statistics.median(p["fix"])
        print("  " + summary("one more fix (wall)    ", p["fix"])
              + f"   target median <= 5 ms: {'meets' if med_fix <= 5 else 'MISSES'}")
        print("  " + summary("one more fix, UI CPU   ", p["cpu"]))
        print("  " + summary("  of which the paint   ", p["paint"]))
    base = results[sizes[0][0]]
    for label, (n, _, f, p, _) in results.items():
        grow_f = statistics.quantiles(f["cpu"], n=20)[18] / statistics.quantiles(base[2]["cpu"], n=20)[18]
        grow_p = statistics.median(p["cpu"]) / statistics.median(base[3]["cpu"])
        print(f"growth from {sizes[0][0]} to {label} ({n / base[0]:.0f}x the track): "
              f"frame CPU p95 x{grow_f:.2f}, per-fix CPU median x{grow_p:.2f}")
    load = os.getloadavg()
    print(f"machine load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
