"""Render the main window in each workflow offscreen (``python docs/screenshots/make_screenshots.py``).

Drives the app over the demo simulators as a user would (keys; the simulated surveyor of
``fieldapp.ui.simsupport`` walks the receiver), then grabs the window. Give shot names
(``... make_screenshots.py tally boundary``) to save only those.

``--size WxH`` sets the window size (default 1366x768, a rugged field laptop's screen; try
``--size 1280x800`` for a tablet), ``--out DIR`` writes the PNGs elsewhere (default: next to
this script, where the README takes them from).
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


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("shots", nargs="*", help="save only these shots (e.g. tally boundary)")
    p.add_argument("--size", default="1366x768", metavar="WxH",
                   help="window size in pixels (default 1366x768)")
    p.add_argument("--out", type=Path, default=OUT, metavar="DIR",
                   help="folder for the PNGs (default: docs/screenshots)")
    args = p.parse_args(argv)
    try:
        w, h = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        p.error(f"--size {args.size!r}: expected WIDTHxHEIGHT, e.g. 1366x768")
    if w < 200 or h < 200:
        p.error(f"--size {args.size!r}: too small")
    args.size = (w, h)
    return args


def main() -> None:
    args = parse_args(sys.argv[1:])
    out_dir = args.out
    out_dir.mkdir(parents=True, exist_ok=True)
    size = args.size
    tmp = Path(tempfile.mkdtemp(prefix="fieldapp-shots-"))
    os.environ["FIELDAPP_CONFIG_DIR"] = str(tmp / "cfg")
    app = QApplication([])
    from fieldapp.app import config as C
    from fieldapp.ui import app as appmod
    from fieldapp.ui import simsupport, theme

    theme.apply(app)
    sc = simsupport.load_scenario()
    visit = tmp / "demo.gpkg"
    wanted = set(args.shots)  # e.g. "tally boundary": save only those shots

    def window():
        cfg = C.build({"simulate": True, "data_dir": str(tmp), "visit": str(visit)},
                      use_file=False)
        w = appmod.create_window(cfg)
        w.session.sim_time_scale = 6.0
        w.session.sim_gnss_rate_hz = 10.0
        w.show()
        w.resize(*size)
        QTest.qWait(100)
        if (w.width(), w.height()) != size:
            print(f"note: the window is {w.width()}x{w.height()}, not {size[0]}x{size[1]}"
                  " (its minimum size)")
        return w

    def until(cond, t=180.0):
        end = time.time() + t
        while time.time() < end:
            QTest.qWait(50)
            if cond():
                return True
        raise TimeoutError

    def walker_idle(w):
        return w.sim_surveyor is not None and not w.sim_surveyor.busy

    def key(w, seq):
        ks = QKeySequence(seq)[0]
        QTest.keyClick(w, ks.key(), ks.keyboardModifiers())

    def shot(w, name):
        QTest.qWait(500)
        try:  # not in one of the scenario's scripted dropouts
            until(lambda: w.usable_fix() is not None, 30)
        except TimeoutError:
            pass
        if wanted and name.removesuffix(".png") not in wanted:
            return
        w.grab().save(str(out_dir / name))
        print("wrote", out_dir / name)

    def dialog_shot(dlg, name):
        QTest.qWait(300)
        if wanted and name.removesuffix(".png") not in wanted:
            return
        dlg.grab().save(str(out_dir / name))
        print("wrote", out_dir / name)

    def close_messages():
        from PySide6.QtWidgets import QDialog

        for top in QApplication.topLevelWidgets():
            if isinstance(top, QDialog) and top.isVisible():
                top.close()

    def walk_boundary(w, kind, label):
        """The simulated surveyor walks the scenario's boundary of ``kind`` (simsupport)."""
        key(w, "Ctrl+4")
        b = w.panels["boundary"]
        b.kind.setCurrentIndex(b.kind.findData(kind))
        b.label.setText(label)
        key(w, "W")
        until(lambda: w.visit.walk is not None)
        return b

    # Session 1: the surveyor walks the stand; OHWM, transect and the tally of every tree.
    w = window()
    until(lambda: w.usable_fix() is not None and getattr(w, "sim_surveyor", None) is not None)
    walk_boundary(w, "woodland_stand", "Oak stand")
    until(lambda: walker_idle(w))
    key(w, "Ctrl+L")
    until(lambda: bool(w.visit.areas("woodland_stand")))
    key(w, "Ctrl+1")  # the surveyor walks to the first OHWM point
    until(lambda: walker_idle(w))
    w.panels["ohwm"].epochs.setValue(5)
    key(w, "A")
    until(lambda: len(w.visit.ohwm_points()) == 1)
    # it walks on to point 2: Average point waits, with the reason shown
    until(lambda: w.sim_surveyor.busy)
    shot(w, "ohwm_walking.png")
    until(lambda: walker_idle(w) and w.panels["ohwm"].average_button.isEnabled())
    key(w, "A")
    until(lambda: len(w.visit.ohwm_points()) == 2)
    until(lambda: walker_idle(w))   # ... and stands at point 3
    shot(w, "ohwm.png")
    key(w, "Ctrl+2")  # ... and to the transect origin, azimuth typed
    until(lambda: walker_idle(w))
    key(w, "N")
    until(lambda: w.visit.current_transect is not None)
    until(w.panels["transect"].shoot_button.isVisible)
    for n in range(1, 11):
        key(w, "S")
        until(lambda n=n: len(w.visit.stations()) == n)
        if n == 6:
            shot(w, "transect_walking.png")
    w.map.set_follow(False)     # as Zoom − would: the whole transect and its bank in view
    w.map.plot.getPlotItem().getViewBox().autoRange()
    shot(w, "transect.png")
    w.map.set_follow(True)
    key(w, "Ctrl+3")
    t = w.panels["tally"]
    for n in range(1, len(sc["stand"]["trees"]) + 1):
        key(w, "C")  # walk to the next scripted tree, squeeze the caliper there
        until(lambda n=n: len(w.visit.trees()) == n)
    t.retained.setValue(0.6)
    t.complete.click()          # every tree of the stand tallied: the class is no longer provisional
    until(lambda: "Woodland class: MATURE" in t.summary.text())
    w.map.set_follow(False)
    w.map.plot.getPlotItem().getViewBox().autoRange()
    w.checks_panel.table.selectRow(w.checks_panel.row_of(
        f"woodland:{w.visit.areas('woodland_stand')[0].uuid}"))
    shot(w, "tally.png")
    # Photos (Ctrl+Shift+P): three camera photos attached to the first tree, as thumbnails
    if not wanted or "photos" in wanted:
        from PIL import Image, ImageDraw

        from fieldapp.app.editing import Selection
        from fieldapp.survey.features import Layer

        tree = sorted(w.visit.trees(), key=lambda tr: tr.tag)[0]
        w.editor.select(Selection(Layer.TREE, tree.uuid))
        files = []
        for i, colour in enumerate(((96, 120, 60), (120, 96, 70), (70, 110, 140))):
            facing = 42.0
            im = Image.new("RGB", (1600, 1200), colour)
            d = ImageDraw.Draw(im)
            d.ellipse((500, 250, 1100, 1150), fill=(80 + 20 * i, 60, 40))     # a trunk, near enough
            exif = Image.Exif()
            exif[0x8769] = {36867: f"2026:06:01 14:0{2 + i}:00"}
            exif[0x8825] = {16: "T", 17: float(facing + 90 * i)}
            files.append(tmp / f"IMG_00{12 + i}.JPG")
            im.save(files[-1], "JPEG", exif=exif.tobytes(), quality=85)
        w.lower_tabs.setCurrentWidget(w.photos)
        w.photos.start_reading([str(f) for f in files], Layer.TREE, tree.uuid)
        until(lambda: w.photos.list.count() == 3, 60)
        shot(w, "photos.png")

    # Report (Ctrl+R): the job bar with its progress while the PDF is built off the UI thread
    w.office.ask_report_path = lambda default: tmp / "demo_report.pdf"
    w.office.ask_office = lambda current, visit_path: tmp / "office"
    w.office.ask_yes_no = lambda title, text: True
    key(w, "Ctrl+R")
    if w.office.busy():
        until(lambda: w.job_bar.bar.value() > 0 or not w.office.busy(), 60)
        if wanted and "report_progress" not in wanted:
            pass
        elif w.office.busy():
            w.grab().save(str(out_dir / "report_progress.png"))  # at once: the job is short
            print("wrote", out_dir / "report_progress.png")
    until(lambda: not w.office.busy())
    close_messages()
    # Sync (Ctrl+Y) with a new office folder: the per-layer result window
    w.activateWindow()              # the keys go to the window again (as after a click)
    until(w.isActiveWindow, 10)
    said = len(w.office.messages)
    key(w, "Ctrl+Y")
    until(lambda: not w.office.busy()
          and (w.office.result_dialog is not None or len(w.office.messages) > said))
    if w.office.result_dialog is None:  # the sync was refused or failed: say why, not a timeout
        raise SystemExit(f"sync gave no result window: {w.office.messages[said:]}")
    QTest.qWait(500)
    dialog_shot(w.office.result_dialog, "sync_result.png")
    close_messages()
    # Visit ▸ New visit… (Ctrl+N): the dialog
    from fieldapp.ui.newvisit import NewVisitDialog

    dlg = NewVisitDialog(tmp, crew="A. Surveyor", parent=w)
    dlg.show()
    QTest.qWait(300)
    dialog_shot(dlg, "new_visit.png")
    dlg.close()
    w.session.stop()
    appmod.dispose(w)

    # Session 2: the same visit reopened; the surveyor walks the wetland.
    w = window()
    until(lambda: w.usable_fix() is not None and getattr(w, "sim_surveyor", None) is not None)
    b = walk_boundary(w, "wetland", "Wetland A")
    b.wetland_type.setCurrentText("sedge meadow")
    b.standing_water.setChecked(True)
    b.hydric.setChecked(True)
    QTest.qWait(3000)
    shot(w, "boundary_walking.png")
    until(lambda: walker_idle(w))
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
