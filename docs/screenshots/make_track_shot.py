"""The map with a day's stored track, a basemap and features, at 1366x768 (offscreen):
``python docs/screenshots/make_track_shot.py [--out DIR]`` writes map_track.png.

A visit made here (UTM 16N): 2 h of 10 Hz track (72,000 positions: a crew walking transects
10 m apart, 5 cm of noise), a woodland stand with 60 trees, a wetland, three transects of 10
stations and a few notes; an orthophoto generated here (EPSG:4326) at 70 %. The visit is opened
as the crew would (the stored track is drawn when it opens), zoomed to everything recorded.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
OUT = Path(__file__).resolve().parent
sys.path.insert(0, str(OUT.parent.parent))

import numpy as np  # noqa: E402

LON0, LAT0 = -89.40, 43.07
T0 = datetime(2026, 6, 1, 13, 0, tzinfo=UTC)


def make_visit(path: Path) -> None:
    from devices.nmea import Fix, FixMode, FixQuality
    from fieldapp.store import create_visit
    from fieldapp.survey import AreaKind, LeafHabit, Visit

    v = Visit.new("Mill Creek, the whole day", crs="EPSG:32616", who="shots@laptop")
    x0, y0 = (float(c) for c in v.frame.to_local(LON0, LAT0))
    rng = np.random.default_rng(7)
    v.add_area(AreaKind.WOODLAND_STAND, [(x0 + 20, y0 + 120), (x0 + 140, y0 + 120),
                                          (x0 + 140, y0 + 220), (x0 + 20, y0 + 220)], label="Stand 1")
    for i in range(60):
        d = float(rng.gamma(3.0, 4.0))
        v.add_tree(x=x0 + 25 + float(rng.uniform(0, 110)), y=y0 + 125 + float(rng.uniform(0, 90)),
                   dbh_in=max(4.0, d), crown_radius_ft=4 + 0.6 * d,
                   leaf_habit=LeafHabit.DECIDUOUS if i % 4 else LeafHabit.EVERGREEN)
    ring = [(x0 + 230 + 50 * np.cos(a), y0 + 60 + 35 * np.sin(a)) for a in np.linspace(0, 2 * np.pi, 60)[:-1]]
    v.add_area(AreaKind.WETLAND, ring, label="W1", standing_water=True, hydric_vegetation=True)
    for t in range(3):
        tr = v.add_transect(0.0, origin=(x0 + 60.0 + 80.0 * t, y0 - 10.0), label=f"T{t + 1}")
        for k in range(10):
            v.add_station(tr.uuid, horizontal_ft=12.0 * (k + 1), slope_pct=float(4 + (k * 7 + t) % 25))
    for n in range(5):
        v.add_note(f"note {n + 1}", x=x0 + 40 * n, y=y0 - 25)
    v.start_track()
    n = 2 * 3600 * 10                  # two hours (the bench draws the whole day)
    s = np.arange(n) / 10.0
    line = (s // 300).astype(int)
    along = s % 300
    x = x0 + np.where(line % 2 == 0, along, 300 - along) + rng.normal(0, 0.05, n)
    y = y0 + (line % 30) * 10.0 + (line // 30) * 3.3 - 20 + rng.normal(0, 0.05, n)
    lon, lat = v.frame.to_lonlat(x, y)
    for i in range(n):
        v.record_fix(Fix(lat_deg=float(lat[i]), lon_deg=float(lon[i]), alt_msl_m=260.0,
                         quality=FixQuality.RTK_FIXED, mode=FixMode.THREE_D, sats_used=16, hdop=0.7,
                         horizontal_accuracy_m=0.015, accuracy_source="GST",
                         time_utc=T0 + timedelta(seconds=i / 10)))
    create_visit(path, v).close()


def make_ortho(path: Path) -> None:
    import rasterio
    from PIL import Image
    from rasterio.transform import from_origin

    rng = np.random.default_rng(4)
    n, px = 4000, 1.2e-6
    low = rng.random((30, 30, 3))
    base = np.array(Image.fromarray((low * 255).astype(np.uint8)).resize((n, n), Image.BICUBIC)).astype(float)
    green, brown = np.array([70, 110, 50.0]), np.array([150, 130, 95.0])
    t = base[..., 1:2] / 255.0
    img = np.clip((green * t + brown * (1 - t)) + rng.normal(0, 12, (n, n, 1)), 0, 255).astype(np.uint8)
    c = n // 2
    with rasterio.open(path, "w", driver="GTiff", width=n, height=n, count=3, dtype="uint8",
                       crs="EPSG:4326", transform=from_origin(LON0 - c * px, LAT0 + c * px, px, px),
                       tiled=True) as dst:
        dst.write(np.moveaxis(img, -1, 0))
        dst.update_tags(TIFFTAG_IMAGEDESCRIPTION="synthetic orthophoto (screenshot)")
        dst.build_overviews([2, 4, 8, 16])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="fieldapp-track-shot-"))
    os.environ["FIELDAPP_CONFIG_DIR"] = str(tmp / "cfg")
    visit, ortho = tmp / "day.gpkg", tmp / "ortho.tif"
    t0 = time.time()
    make_visit(visit)
    make_ortho(ortho)
    print(f"visit and orthophoto made in {time.time() - t0:.0f} s")
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    app = QApplication([])
    from fieldapp.app import config as C
    from fieldapp.ui import app as appmod
    from fieldapp.ui import theme

    theme.apply(app)
    cfg = C.build({"data_dir": str(tmp), "visit": str(visit)}, use_file=False)
    w = appmod.create_window(cfg, start_devices=False)
    w.show()
    w.resize(1366, 768)
    end = time.time() + 120
    while not w.startup_done and time.time() < end:
        QTest.qWait(50)
    w.basemap_show(ortho, 0.7)
    w.map.zoom_to_all()
    tl = w.map.track
    end = time.time() + 120
    while time.time() < end:
        QTest.qWait(100)
        if (w.basemap.renders >= 1 and not w.basemap._busy and tl.history_draws and not tl._busy
                and tl._wanted is None and not w.basemap._throttle.isActive()):
            break
    QTest.qWait(500)
    args.out.mkdir(parents=True, exist_ok=True)
    w.grab().save(str(args.out / "map_track.png"))
    if os.environ.get("FIELDAPP_SHOT_DEBUG"):
        r = w.basemap.item.mapRectToParent(w.basemap.item.boundingRect())
        print("basemap image rect", r, "view", w.map.plot.getPlotItem().getViewBox().viewRange(),
              "renders", w.basemap.renders, "requests", w.basemap.requests)
        w.map.grab().save(str(args.out / "map_track_map.png"))
    print(f"track: {tl.n:,} positions; map_track.png written to {args.out}")
    w.close()


if __name__ == "__main__":
    main()
