"""Render the main window in each workflow offscreen (``python docs/screenshots/make_screenshots.py``).

Drives the app over the demo simulators as a user would (keys), then grabs the window.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
OUT = Path(__file__).resolve().parent
sys.path.insert(0, str(OUT.parent.parent))

from PySide6.QtGui import QKeySequence  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="fieldapp-shots-"))
    os.environ["FIELDAPP_CONFIG_DIR"] = str(tmp / "cfg")
    app = QApplication([])
    from fieldapp.ui import app as appmod
    from fieldapp.ui import config as C
    from fieldapp.ui import simsupport, theme

    theme.apply(app)
    sc = simsupport.load_scenario()
    stand = sc["stand"]["boundary"]
    lats = [p[0] for p in stand[:-1]]
    lons = [p[1] for p in stand[:-1]]
    centre = [sum(lats) / len(lats), sum(lons) / len(lons)]
    visit = tmp / "demo.gpkg"

    def window(route):
        cfg = C.build({"simulate": True, "data_dir": str(tmp), "visit": str(visit)},
                      use_file=False)
        w = appmod.create_window(cfg)
        w.session.sim_gnss_waypoints = route
        w.session.sim_time_scale = 6.0
        w.session.sim_gnss_rate_hz = 10.0
        w.resize(1500, 980)
        w.show()
        return w

    def until(cond, t=120.0):
        end = time.time() + t
        while time.time() < end:
            QTest.qWait(50)
            if cond():
                return True
        raise TimeoutError

    def arrived(w):
        g = w.session.simulator("gnss")
        return g is not None and g.path.position(g._n / g.rate_hz * g.time_scale)[3] == 0

    def key(w, seq):
        ks = QKeySequence(seq)[0]
        QTest.keyClick(w, ks.key(), ks.keyboardModifiers())

    def shot(w, name):
        QTest.qWait(500)
        w.grab().save(str(OUT / name))
        print("wrote", OUT / name)

    # Session 1: walk the stand, stop in it; OHWM, transect and tally there.
    w = window(stand + [centre])
    until(lambda: w.usable_fix() is not None)
    key(w, "Ctrl+4")
    b = w.panels["boundary"]
    b.kind.setCurrentIndex(b.kind.findData("woodland_stand"))
    b.label.setText("Oak stand")
    key(w, "W")
    g = w.session.simulator("gnss")
    boundary_m = sum(leg[3] for leg in g.path._legs[: len(stand) - 1])
    until(lambda: g._n / g.rate_hz * g.time_scale * g.path.speed_m_s > boundary_m)
    key(w, "Ctrl+L")
    until(lambda: bool(w.visit.areas("woodland_stand")))
    until(lambda: arrived(w))
    key(w, "Ctrl+1")
    w.panels["ohwm"].epochs.setValue(5)
    key(w, "A")
    until(lambda: len(w.visit.ohwm_points()) == 1)
    shot(w, "ohwm.png")
    key(w, "Ctrl+2")
    w.panels["transect"].azimuth.setValue(350.0)
    key(w, "N")
    until(lambda: w.visit.current_transect is not None)
    until(w.panels["transect"].shoot_button.isVisible)
    for n in range(1, 11):
        key(w, "S")
        until(lambda n=n: len(w.visit.stations()) == n)
        if n == 6:
            shot(w, "transect_walking.png")
    shot(w, "transect.png")
    key(w, "Ctrl+3")
    t = w.panels["tally"]
    t.crown.setValue(16.0)
    for n in range(1, 13):
        key(w, "C")
        until(lambda n=n: len(w.visit.trees()) == n)
    t.retained.setValue(0.6)
    until(lambda: "Woodland class" in t.summary.text())
    shot(w, "tally.png")
    w.session.stop()
    appmod.dispose(w)

    # Session 2: the same visit reopened; walk the wetland.
    wet = sc["wetland"]["boundary"]
    w = window(wet)
    until(lambda: w.usable_fix() is not None)
    key(w, "Ctrl+4")
    b = w.panels["boundary"]
    b.kind.setCurrentIndex(b.kind.findData("wetland"))
    b.label.setText("Wetland A")
    b.wetland_type.setText("shallow marsh")
    b.standing_water.setChecked(True)
    b.hydric.setChecked(True)
    b.spacing.setValue(5.0)
    key(w, "W")
    until(lambda: w.visit.walk is not None)
    QTest.qWait(3000)
    shot(w, "boundary_walking.png")
    until(lambda: arrived(w))
    key(w, "Ctrl+L")
    until(lambda: w.visit.walk is None)
    w.map.set_follow(False)
    w.map.plot.getPlotItem().getViewBox().autoRange()
    w.checks_panel.table.selectRow(w.checks_panel.row_of(
        f"wetland:{w.visit.last_closed_area['uuid']}"))
    shot(w, "boundary.png")
    w.session.stop()
    appmod.dispose(w)
    print("visit in", tmp)


if __name__ == "__main__":
    main()
