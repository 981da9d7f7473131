"""Stake-out and basemap screenshots at 1366x768 over the demo simulators (offscreen):
the surveyor averages an OHWM point, shoots the transect, stakes out the bank point of T1
(ON THE LINE, a flag), walks off it, then an orthophoto generated here is added at 70 %.
Writes stakeout_on_line.png, stakeout.png and basemap.png next to this script."""
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
OUT = Path(__file__).resolve().parent
sys.path.insert(0, str(OUT.parent.parent))
from PySide6.QtGui import QKeySequence
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

tmp = Path(tempfile.mkdtemp(prefix="i16shot-"))
os.environ["FIELDAPP_CONFIG_DIR"] = str(tmp / "cfg")
app = QApplication([])
from fieldapp.app import config as C
from fieldapp.ui import app as appmod
from fieldapp.ui import theme

theme.apply(app)
cfg = C.build({"simulate": True, "data_dir": str(tmp), "visit": str(tmp / "demo.gpkg")}, use_file=False)
w = appmod.create_window(cfg)
w.session.sim_time_scale = 6.0
w.session.sim_gnss_rate_hz = 10.0
w.show(); w.resize(1366, 768); QTest.qWait(100)
def until(c, t=240):
    end = time.time() + t
    while time.time() < end:
        QTest.qWait(50)
        if c(): return
    raise TimeoutError
def key(seq):
    ks = QKeySequence(seq)[0]; QTest.keyClick(w, ks.key(), ks.keyboardModifiers())
until(lambda: w.usable_fix() is not None and getattr(w, "sim_surveyor", None) is not None)
key("Ctrl+1"); until(lambda: not w.sim_surveyor.busy)
w.panels["ohwm"].epochs.setValue(3); key("A"); until(lambda: len(w.visit.ohwm_points()) == 1)
key("Ctrl+2"); until(lambda: not w.sim_surveyor.busy and "transect origin" in (w.sim_surveyor.words or ""))
key("N"); until(lambda: w.visit.current_transect is not None)
until(w.panels["transect"].shoot_button.isVisible)
for n in range(1, 11):
    key("S"); until(lambda n=n: len(w.visit.stations()) == n)
key("Ctrl+6")
panel = w.panels["stake-out"]
t = w.visit.current_transect
until(lambda: panel.target_box.findData(f"bank:{t.uuid}") > 0)
panel.target_box.setCurrentIndex(panel.target_box.findData(f"bank:{t.uuid}"))
target = panel.stake.target.geometry
f = w.visit.model.frame
gnss = w.session.simulator("gnss")
lon, lat = f.to_lonlat(f.from_ft(target.x), f.from_ft(target.y))
gnss.walk_to(float(lat), float(lon), 0.3)
until(lambda: gnss.arrived and panel.on_line.text() == "ON THE LINE")
until(panel.flag_button.isEnabled)
key("F"); until(lambda: len(w.visit.model.stake_points()) == 1)
QTest.qWait(600)
w.grab().save(str(OUT / "stakeout_on_line.png"))
# walk off 12 ft west
lon, lat = f.to_lonlat(f.from_ft(target.x - 12), f.from_ft(target.y - 20))
gnss.walk_to(float(lat), float(lon), 0.5)
until(lambda: gnss.arrived)
lon, lat = f.to_lonlat(f.from_ft(target.x - 11), f.from_ft(target.y - 15))
gnss.walk_to(float(lat), float(lon), 0.3)
until(lambda: panel.stake.guidance is not None and 14 < panel.stake.guidance.distance_ft < 21
      and panel.stake.heading.deg is not None)
QTest.qWait(400)
w.grab().save(str(OUT / "stakeout.png"))

import numpy as np
import rasterio
from PIL import Image
from rasterio.transform import from_origin

rng = np.random.default_rng(4)
fx = w.latest_fix
n = 3000; PX = 1.5e-6
low = rng.random((30, 30, 3))
base = np.array(Image.fromarray((low * 255).astype(np.uint8)).resize((n, n), Image.BICUBIC)).astype(float)
green = np.array([70, 110, 50.0]); brown = np.array([150, 130, 95.0])
t = base[..., 1:2] / 255.0
img = (green * t + brown * (1 - t)) + rng.normal(0, 12, (n, n, 1))
c = n // 2
img[:, c - 400:c - 385] = [200, 200, 190]     # a path running north
img = np.clip(img, 0, 255).astype(np.uint8)
p = tmp / "ortho.tif"
with rasterio.open(p, "w", driver="GTiff", width=n, height=n, count=3, dtype="uint8", crs="EPSG:4326",
                   transform=from_origin(fx.lon_deg - c * PX, fx.lat_deg + c * PX, PX, PX), tiled=True) as dst:
    dst.write(np.moveaxis(img, -1, 0))
    dst.update_tags(TIFFTAG_IMAGEDESCRIPTION="synthetic orthophoto (test)", TIFFTAG_DATETIME="2024:04:20 10:00:00")
    dst.build_overviews([2, 4, 8])
w.basemap_show(p, 0.7)
until(lambda: w.basemap.renders >= 1 and not w.basemap._busy)
QTest.qWait(500)
w.grab().save(str(OUT / "basemap.png"))
print("ok")
w.session.stop()
