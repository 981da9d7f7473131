"""Render the correcting states offscreen (``python docs/screenshots/make_editing_screenshots.py``):
a deleted OHWM point named in the status line, the Records tab with a selection marked on the
map, the edit form refusing an impossible slope, a drainageway being drawn on the Lines tab.

Over the demo simulators (a live position); the records are put in through the model, then
the corrections are made with the keys a user presses. ``--size WxH`` (default 1366x768),
``--out DIR`` (default: next to this script).
"""

from __future__ import annotations

import argparse
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
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", default="1366x768")
    p.add_argument("--out", type=Path, default=OUT)
    args = p.parse_args()
    size = tuple(int(v) for v in args.size.lower().split("x"))
    args.out.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="fieldapp-editshots-"))
    os.environ["FIELDAPP_CONFIG_DIR"] = str(tmp / "cfg")
    app = QApplication([])
    from fieldapp.app import config as C
    from fieldapp.survey.features import Layer
    from fieldapp.ui import app as appmod
    from fieldapp.ui import theme

    theme.apply(app)
    cfg = C.build({"simulate": True, "data_dir": str(tmp), "visit": str(tmp / "edits.gpkg")}, use_file=False)
    w = appmod.create_window(cfg)
    w.session.sim_time_scale = 6.0
    w.show()
    w.resize(*size)

    def until(cond, t=120.0):
        end = time.time() + t
        while time.time() < end:
            QTest.qWait(50)
            if cond():
                return
        raise TimeoutError

    def key(seq):
        ks = QKeySequence(seq)[0]
        QTest.keyClick(w, ks.key(), ks.keyboardModifiers())

    def shot(widget, name):
        QTest.qWait(600)
        widget.grab().save(str(args.out / name))
        print("wrote", args.out / name)

    until(lambda: w.usable_fix() is not None)
    fix = w.usable_fix()
    m = w.visit.model
    x0, y0 = m.frame.to_local(fix.lon_deg, fix.lat_deg)

    def ft(length_ft):
        """Site CRS units of a length in feet (the demo's WISCRS Vernon is in US survey feet)."""
        return float(m.frame.from_ft(length_ft))

    def metres(length_m):
        return ft(length_m / 0.3048)

    pts = [m.add_ohwm_offset_point((x0 + metres(-30 + 12 * i), y0 + metres(-20 + (i % 2) * 3)), 0.0,
                                   horizontal_ft=0.0)
           for i in range(5)]
    pts.append(m.add_ohwm_offset_point((x0 + metres(30), y0 - metres(40)), 0.0, horizontal_ft=0.0))  # stray 6
    t = m.add_transect(0.0, ohwm_point_uuid=pts[2].uuid)
    for seg, pct in [(20, 5), (20, 18), (20, 6)]:
        m.add_station(t.uuid, horizontal_ft=seg, slope_pct=pct)
    w.map.set_follow(False)
    QTest.qWait(300)
    w.map.plot.getPlotItem().getViewBox().autoRange()
    key("Ctrl+1")
    ohwm = w.panels["ohwm"]
    until(lambda: ohwm.table.rowCount() == 6)
    ohwm.table.selectRow(5)
    key("Ctrl+T")
    shot(w, "edit_selected.png")
    w.activateWindow()
    key("Del")
    shot(w, "edit_deleted.png")
    key("Ctrl+Z")
    st = m.stations(t.uuid)[1]
    w.editor.click_at(*w.visit.ft(st.x, st.y), tolerance_ft=3.0)
    form = w.editor.edit_selected()
    form.inputs["slope_pct"].setText("6000")
    form.save_button.click()
    QTest.qWait(300)
    shot(form, "edit_form_refused.png")
    shot(w, "edit_form_window.png")
    form.reject()
    w.activateWindow()
    until(w.isActiveWindow, 10)
    key("Ctrl+5")
    lines = w.panels["lines"]
    lines.label.setText("Drainageway 1")
    key("D")
    for dx, dy in ((-90, -110), (-20, -135), (40, -120)):
        lines.map_clicked(*w.visit.ft(x0 + ft(dx), y0 + ft(dy)))
    lines.mapped.setCurrentIndex(1)
    lines.tributary.setText("12")
    shot(w, "lines_drawing.png")
    key("Ctrl+L")
    lines.note_text.setText("culvert under the drive, 18 in")
    key("K")
    lines.map_clicked(*w.visit.ft(x0 - ft(60), y0 + ft(20)))
    key("Ctrl+K")
    QTest.qWait(600)            # the map draws the new line and note first
    w.map.plot.getPlotItem().getViewBox().autoRange()
    shot(w, "lines_recorded.png")
    # a wetland walked and closed, then re-opened from its form to walk on
    walk = m.start_walk("wetland", label="Wetland A", spacing_ft=None, interval_s=1.0)
    for dx, dy in ((-60, -60), (-20, -60), (-20, -90), (-60, -90)):
        walk.add_vertex(x0 + ft(dx), y0 + ft(dy))
    w.visit.walk = walk
    w.visit.close_walk({"label": "Wetland A", "wetland_type": "shallow marsh"})
    key("Ctrl+4")
    w.editor.click_at(*w.visit.ft(x0 - ft(40), y0 - ft(75)), tolerance_ft=2.0)
    form = w.editor.edit_selected()
    shot(form, "edit_form_wetland.png")
    form.reopen_button.click()
    w.activateWindow()
    until(w.isActiveWindow, 10)
    key("Ctrl+T")
    shot(w, "boundary_reopened.png")
    w.session.stop()
    appmod.dispose(w)
    _ = Layer


if __name__ == "__main__":
    main()
