"""Map frame time while panning over a 1 GB orthophoto.

``python bench/bench_basemap_pan.py [GB] [STEPS]`` (default 1.0 GB, 200 pan steps) generates an
RGB GeoTIFF of about GB gigabytes (uncompressed, tiled 512 x 512, overviews 2-64; EPSG:4326, so
every view is reprojected into the UTM site CRS), once, in the temp folder
(``fieldapp-bench-ortho-<GB>.tif``, reused by later runs), then pans the map (1366 x 768
window, a 600 ft view) 3 % of the view per step and repaints. It prints the frame time (pan +
repaint on the UI thread; median, 95th percentile, max) with the basemap and, as the reference
from the same run, without it, plus the worker's render time per view and how many views it
finished. Target: frame time p95 < 50 ms.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

LON0, LAT0 = -89.40, 43.07


def make_ortho(gb: float) -> Path:
    """The generated orthophoto (reused when present): side = sqrt(GB * 2^30 / 3) pixels."""
    import numpy as np
    import rasterio
    from rasterio.transform import from_origin
    from rasterio.windows import Window

    path = Path(tempfile.gettempdir()) / f"fieldapp-bench-ortho-{gb:g}.tif"
    if path.exists():
        return path
    side = int((gb * 2**30 / 3) ** 0.5) // 512 * 512
    px = 0.1 / 111_000                         # about 10 cm pixels
    part = path.with_suffix(".part.tif")
    t0 = time.perf_counter()
    rng = np.random.default_rng(1)
    base = rng.integers(40, 200, (3, 512, 512), dtype=np.uint8)
    with rasterio.open(part, "w", driver="GTiff", width=side, height=side, count=3, dtype="uint8",
                       crs="EPSG:4326", transform=from_origin(LON0, LAT0, px, px), tiled=True,
                       blockxsize=512, blockysize=512, BIGTIFF="YES") as dst:
        for r in range(0, side, 512):
            row = np.roll(base, r // 512 * 37, axis=2)
            for c in range(0, side, 512):
                dst.write(np.roll(row, c // 512 * 11, axis=1), window=Window(c, r, 512, 512))
        dst.build_overviews([2, 4, 8, 16, 32, 64])
    os.replace(part, path)
    print(f"generated {path} ({path.stat().st_size / 2**30:.2f} GiB, {side} x {side} px) in "
          f"{time.perf_counter() - t0:.0f} s")
    return path


def pan_times(app, w, steps: int) -> list[float]:
    vb = w.map.plot.getPlotItem().getViewBox()
    times = []
    for i in range(steps):
        dx = 0.03 if (i // 50) % 2 == 0 else -0.03
        t0 = time.perf_counter()
        w.map.pan(dx, 0.01)
        app.processEvents()
        w.map.plot.viewport().repaint()
        times.append((time.perf_counter() - t0) * 1000.0)
    del vb
    return times


def summary(name: str, ms: list[float]) -> str:
    q = statistics.quantiles(ms, n=20)
    return f"{name}: median {statistics.median(ms):.1f} ms, p95 {q[18]:.1f} ms, max {max(ms):.1f} ms"


def main() -> None:
    gb = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    ortho = make_ortho(gb)
    from PySide6.QtWidgets import QApplication

    app = QApplication([])
    from fieldapp.basemap import render
    from fieldapp.geo import SiteFrame
    from fieldapp.ui.basemaplayer import BasemapLayer
    from fieldapp.ui.mapview import MapView
    from PySide6.QtWidgets import QMainWindow

    frame = SiteFrame("EPSG:32616")
    win = QMainWindow()
    mv = MapView()
    win.setCentralWidget(mv)
    win.resize(1366, 768)
    win.show()
    win.map = mv
    x, y = (float(v) for v in frame.to_local(LON0 + 0.004, LAT0 - 0.004))
    mv.set_origin(frame.to_ft(x), frame.to_ft(y))
    mv.set_follow(False)
    vb = mv.plot.getPlotItem().getViewBox()
    vb.setRange(xRange=(-300, 300), yRange=(-170, 170), padding=0)
    app.processEvents()
    reference = pan_times(app, win, steps)
    vb.setRange(xRange=(-300, 300), yRange=(-170, 170), padding=0)
    layer = BasemapLayer(mv, lambda: frame)
    worker_ms: list[float] = []
    real_render = render

    def timed(*a, **k):
        t0 = time.perf_counter()
        try:
            return real_render(*a, **k)
        finally:
            worker_ms.append((time.perf_counter() - t0) * 1000.0)

    import fieldapp.ui.basemaplayer as bl

    bl.render = timed
    layer.set_source(ortho)
    t_end = time.time() + 60
    while layer.renders < 1 and time.time() < t_end:
        app.processEvents()
        time.sleep(0.01)
    with_map = pan_times(app, win, steps)
    t_end = time.time() + 30
    while layer._busy and time.time() < t_end:
        app.processEvents()
        time.sleep(0.01)
    print(f"{ortho.name}: {ortho.stat().st_size / 2**30:.2f} GiB, {steps} pan steps of 3 % over a 600 ft view")
    print(summary("frame time with the basemap  ", with_map) + "   (target p95 < 50 ms)")
    print(summary("frame time without (reference)", reference))
    if len(worker_ms) >= 2:
        print(summary(f"worker render per view ({len(worker_ms)} views)", worker_ms))
    layer.close()
    load = os.getloadavg()
    print(f"machine load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
