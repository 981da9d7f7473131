"""The Photos tab (issue 16): Ctrl+Shift+P attaches image files (a file dialog) to the selected
tree, read off the GUI thread, shown as thumbnails; a non-image is refused in the status line;
files dropped on the map with nothing selected are placed by EXIF GPS; the camera clock offset
is set from a photo of the clock; undo takes photos back. Rows read back beside the app."""

from __future__ import annotations

import sqlite3
from datetime import datetime

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QFileDialog

from fieldapp.survey.features import Layer
from tests.photo_sample import jpeg
from tests.ui.ui_support import WAIT_MS, close_window, key, make_window

X0, Y0 = 500000.0, 4983000.0       # UTM 16N


@pytest.fixture
def window(qtbot, private_dirs):
    w = make_window(qtbot, private_dirs)
    qtbot.waitUntil(lambda: w.startup_done and w.visit is not None, timeout=WAIT_MS)
    w.visit.model.set_crs("EPSG:32616")
    yield w
    close_window(w)


def _sel(layer, uuid):
    from fieldapp.app.editing import Selection

    return Selection(layer, uuid)


def test_ctrl_shift_p_attaches_files_to_the_selected_tree_and_refuses_a_non_image(
        qtbot, window, tmp_path, monkeypatch):
    w = window
    tree = w.visit.model.add_tree(x=X0, y=Y0, dbh_in=14.0, species_code="QURU")
    w.editor.select(_sel(Layer.TREE, tree.uuid))
    good = jpeg(tmp_path / "IMG_0001.JPG", when="2024:05:14 10:02:00", direction=312.0)
    bad = tmp_path / "notes.jpg"
    bad.write_text("not a photo")
    asked = []

    def pick(parent, title, folder, filt):
        asked.append((title, filt))
        return [str(good), str(bad)], filt

    monkeypatch.setattr(QFileDialog, "getOpenFileNames", staticmethod(pick))
    key(qtbot, w, "Ctrl+Shift+P")
    qtbot.waitUntil(lambda: len(w.visit.model.photos_of(Layer.TREE, tree.uuid)) == 1, timeout=WAIT_MS)
    assert asked[0][0] == f"Attach photos to tree {tree.tag}" and "*.jpg" in asked[0][1]
    msg = w.statusBar().currentMessage()
    assert msg.startswith(f"1 photo attached to tree {tree.tag}. refused: notes.jpg is not a photo")
    assert w.lower_tabs.currentWidget() is w.photos
    qtbot.waitUntil(lambda: w.photos.list.count() == 1, timeout=WAIT_MS)
    item = w.photos.list.item(0)
    assert not item.icon().isNull() and "312° true" in item.text()
    assert w.photos.title.text().startswith(f"<b>Photos of tree {tree.tag}</b> (1)")
    w.grab().save(str(tmp_path / "photos.png"))
    key(qtbot, w, "Ctrl+Z")
    qtbot.waitUntil(lambda: w.visit.model.photos_of(Layer.TREE, tree.uuid) == [], timeout=WAIT_MS)
    key(qtbot, w, "Ctrl+Shift+Z")
    qtbot.waitUntil(lambda: len(w.visit.model.photos_of(Layer.TREE, tree.uuid)) == 1, timeout=WAIT_MS)
    conn = sqlite3.connect(w.visit.path)     # the committed rows, read beside the app (WAL)
    try:
        rows = conn.execute("SELECT record_table, record_uuid, direction_deg FROM photo").fetchall()
        pairs = conn.execute("SELECT count(*) FROM tree_photo").fetchone()[0]
    finally:
        conn.close()
    assert rows == [("tree", tree.uuid, 312.0)] and pairs == 1


def test_files_dropped_on_the_map_with_nothing_selected_are_placed_by_exif_gps(qtbot, window, tmp_path):
    w = window
    w.editor.select(None)
    f = w.visit.model.frame
    lon, lat = f.to_lonlat(X0 + 20.0, Y0 + 10.0)
    photo = jpeg(tmp_path / "seep.jpg", gps=(float(lat), float(lon)))
    md = QMimeData()
    md.setUrls([QUrl.fromLocalFile(str(photo)), QUrl.fromLocalFile(str(tmp_path / "x.txt"))])
    vp = w.map.plot.viewport()
    pos = QPointF(vp.width() / 2, vp.height() / 2)
    enter = QDragEnterEvent(pos.toPoint(), Qt.CopyAction, md, Qt.LeftButton, Qt.NoModifier)
    QApplication.sendEvent(vp, enter)      # Qt delivers a drop only where the drag entered
    assert enter.isAccepted()
    drop = QDropEvent(pos, Qt.CopyAction, md, Qt.LeftButton, Qt.NoModifier)
    QApplication.sendEvent(vp, drop)
    assert drop.isAccepted()
    qtbot.waitUntil(lambda: len(w.visit.model.unattached_photos()) == 1, timeout=WAIT_MS)
    (p,) = w.visit.model.unattached_photos()
    assert p.placed_by == "exif gps"
    assert (p.x, p.y) == (pytest.approx(X0 + 20.0, abs=0.01), pytest.approx(Y0 + 10.0, abs=0.01))
    assert w.statusBar().currentMessage() == "1 photo kept: 1 by EXIF GPS. Ctrl+Z undoes it."
    # drawn on the map where it was placed (map feet from the map's origin)
    qtbot.waitUntil(lambda: len(w.photos.marks.item.data) == 1, timeout=WAIT_MS)
    ox, oy = w.map.origin
    spot = w.photos.marks.item.data[0]
    assert spot["x"] + ox == pytest.approx(f.to_ft(p.x), abs=1e-6)
    assert spot["y"] + oy == pytest.approx(f.to_ft(p.y), abs=1e-6)


def test_camera_clock_offset_from_a_photo_of_the_clock(qtbot, window, tmp_path):
    from fieldapp.ui.photos import CameraClockDialog

    dlg = CameraClockDialog(window, 0.0)
    qtbot.addWidget(dlg)
    # the clock showed 15:00:00 UTC; the camera wrote 09:57:50: 5 h 2 min 10 s behind
    dlg.shown.setDateTime(datetime(2024, 5, 14, 15, 0, 0))
    dlg.from_photo(str(jpeg(tmp_path / "clock.jpg", when="2024:05:14 09:57:50")))
    assert dlg.offset.value() == -(5 * 3600 + 130) and dlg.problem.text() == ""
    dlg.from_photo(str(jpeg(tmp_path / "no-time.jpg")))
    assert "has no EXIF time" in dlg.problem.text() and dlg.offset.value() == -(5 * 3600 + 130)


def test_the_edit_form_attaches_photos_to_its_record(qtbot, window, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QPushButton

    w = window
    note = w.visit.model.add_note("seep at the toe of slope", x=X0, y=Y0)
    w.editor.select(_sel(Layer.NOTE, note.uuid))
    w.editor.edit_selected()
    qtbot.waitUntil(lambda: w.editor.form is not None and w.editor.form.isVisible(), timeout=WAIT_MS)
    photo = jpeg(tmp_path / "seep.jpg")
    titles = []
    monkeypatch.setattr(QFileDialog, "getOpenFileNames",
                        staticmethod(lambda parent, title, folder, filt: (titles.append(title) or [str(photo)], filt)))
    w.editor.form.findChild(QPushButton, "formAttachPhotos").click()
    qtbot.waitUntil(lambda: len(w.visit.model.photos_of(Layer.NOTE, note.uuid)) == 1, timeout=WAIT_MS)
    assert titles == ["Attach photos to note “seep at the toe of slope”"]
    w.editor.form.reject()
