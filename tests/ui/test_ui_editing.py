"""Correcting records through the window (issue 13): select on the map or in a table (both
follow), Del with the status line naming what went, Ctrl+Z / Ctrl+Shift+Z, the edit form
(refusals in field words, the record keeping its value), re-opening a boundary. The stored
rows are read back with plain sqlite3 after the window has closed the visit."""

from __future__ import annotations

import sqlite3

import pytest

from fieldapp.survey.features import Layer
from tests.ui.ui_support import WAIT_MS, close_window, key, make_window, wait_fix

X0, Y0 = 500000.0, 4983000.0       # UTM 16N
FT = 0.3048


def _rows(path, sql, *args):
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


@pytest.fixture
def window(qtbot, private_dirs):
    w = make_window(qtbot, private_dirs)
    qtbot.waitUntil(lambda: w.startup_done and w.visit is not None, timeout=WAIT_MS)
    w.visit.model.set_crs("EPSG:32616")
    yield w
    close_window(w)


def _status(w):
    return w.statusBar().currentMessage()


def test_delete_an_ohwm_point_from_its_table_undo_redo_and_stored(qtbot, window):
    w = window
    m = w.visit.model
    pts = [m.add_ohwm_offset_point((X0, Y0 + 20 * i), 90.0, horizontal_ft=5.0) for i in range(6)]
    w._goto(0)                                           # the OHWM tab
    ohwm = w.panels["ohwm"]
    qtbot.waitUntil(lambda: ohwm.table.rowCount() == 6, timeout=WAIT_MS)
    ohwm.table.selectRow(5)                              # OHWM point 6 in its table ...
    assert w.editor.selection.uuid == pts[5].uuid
    records = w.editor.records
    qtbot.waitUntil(lambda: bool(records.rows and records.table.selectedItems()), timeout=WAIT_MS)
    assert "OHWM point 6" in records.table.selectedItems()[0].text()   # ... selected in Records too
    assert w.editor.mark_points.data["x"].size == 1                    # ... and marked on the map
    key(qtbot, w, "Del")
    assert _status(w) == "Deleted OHWM point 6 — Ctrl+Z brings it back"
    assert len(m.features(Layer.OHWM_POINT)) == 5
    qtbot.waitUntil(lambda: ohwm.table.rowCount() == 5, timeout=WAIT_MS)
    key(qtbot, w, "Ctrl+Z")
    assert _status(w).startswith("Undone: OHWM point 6 is back")
    assert len(m.features(Layer.OHWM_POINT)) == 6
    key(qtbot, w, "Ctrl+Shift+Z")
    assert _status(w).startswith("Redone: OHWM point 6 is removed")
    path = w.visit.path
    w.visit.close()
    kept = {r[0] for r in _rows(path, "SELECT uuid FROM ohwm_point")}
    assert kept == {p.uuid for p in pts[:5]}
    (geom_points,) = _rows(path, "SELECT count(*) FROM ohwm_point")[0]
    assert geom_points == 5


def test_map_click_selects_and_the_form_edits_a_station(qtbot, window):
    w = window
    m = w.visit.model
    t = m.add_transect(90.0, origin=(X0, Y0))
    for seg, pct in [(40, 5), (40, 20), (40, 5)]:
        m.add_station(t.uuid, horizontal_ft=seg, slope_pct=pct)
    s2 = m.stations(t.uuid)[1]
    x_ft, y_ft = w.visit.ft(s2.x, s2.y)
    sel = w.editor.click_at(x_ft + 1.0, y_ft, tolerance_ft=5.0)        # a click 1 ft off
    assert (sel.layer, sel.uuid) == (Layer.STATION, s2.uuid)
    assert _status(w).startswith("Selected station 2 of T1")
    qtbot.waitUntil(lambda: bool(w.editor.records.table.selectedItems()), timeout=WAIT_MS)
    assert w.editor.records.table.selectedItems()[0].text() == "Station 2 of T1"
    key(qtbot, w, "F4")
    form = w.editor.form
    assert form is not None and form.isVisible()
    form.inputs["slope_pct"].setText("6000")                            # steeper than 89°
    form.save_button.click()
    assert form.isVisible() and "Slope must be within ±89°" in form.error.text()
    assert m.get(Layer.STATION, s2.uuid).slope_pct == 20.0              # kept its value
    form.inputs["slope_pct"].setText("abc")
    form.save_button.click()
    assert "Slope must be a number" in form.error.text()
    form.inputs["slope_pct"].setText("5")
    form.inputs["segment_ft"].setText("50")
    form.save_button.click()
    assert not form.isVisible()
    assert [s.distance_ft for s in m.stations(t.uuid)] == [40.0, 90.0, 130.0]
    key(qtbot, w, "Ctrl+Z")
    assert [s.distance_ft for s in m.stations(t.uuid)] == [40.0, 80.0, 120.0]
    key(qtbot, w, "Ctrl+Shift+Z")
    path = w.visit.path
    w.visit.close()
    assert _rows(path, "SELECT distance_ft, slope_pct FROM station WHERE uuid = ?", s2.uuid) == [(90.0, 5.0)]


def test_tree_edit_refused_in_field_words_and_boundary_reopened(qtbot, window):
    w = window
    m = w.visit.model
    tree = m.add_tree(x=X0, y=Y0, dbh_in=12.0, species_code="QURU")
    w.editor.records.refresh()
    w.editor.select(next(s for s in w.editor.records.rows if s.uuid == tree.uuid))
    form = w.editor.edit_selected()
    form.inputs["dbh_in"].setText("-3")
    form.save_button.click()
    assert "DBH must be between 0.1 and 500 in (not -3 in)" in form.error.text()
    form.inputs["dbh_in"].setText("12")
    form.inputs["species_code"].setText("")
    form.save_button.click()
    assert "Species code must not be empty" in form.error.text()
    form.reject()
    assert (m.get(Layer.TREE, tree.uuid).dbh_in, m.get(Layer.TREE, tree.uuid).species_code) == (12.0, "QURU")

    walk = m.start_walk("wetland", label="W1", spacing_ft=None, interval_s=1.0)
    for dx, dy in [(0, 0), (30, 0), (30, 30), (0, 30)]:
        walk.add_vertex(X0 + 100 + dx, Y0 + dy)
    area = walk.close(wetland_type="sedge meadow", standing_water=True)
    x_ft, y_ft = w.visit.ft(X0 + 115, Y0 + 15)                          # inside the wetland
    assert w.editor.click_at(x_ft, y_ft, tolerance_ft=1.0).uuid == area.uuid
    form = w.editor.edit_selected()
    assert form.reopen_button.isVisible()
    form.reopen_button.click()
    assert w.visit.walk is not None and w.visit.walk_state() == "paused"
    assert area.uuid not in {a.uuid for a in m.features(Layer.AREA)}
    w.visit.resume_walk()
    key(qtbot, w, "Backspace")                                          # the last corner back
    assert _status(w) == "Removed boundary vertex 4 — Ctrl+Z brings it back"
    assert len(w.visit.walk.vertices()) == 3
    key(qtbot, w, "Ctrl+Z")
    assert len(w.visit.walk.vertices()) == 4
    # the Boundary tab holds the re-opened area's label and attributes: closing keeps them
    boundary = w.panels["boundary"]
    assert (boundary.label.text(), boundary.wetland_type.currentText(), boundary.standing_water.isChecked()) == \
        ("W1", "sedge meadow", True)
    w.panels["boundary"].close_walk()
    (again,) = m.features(Layer.AREA)
    assert (again.label, again.wetland_type, again.standing_water) == ("W1", "sedge meadow", True)
    path = w.visit.path
    w.visit.close()
    assert _rows(path, "SELECT state, area_uuid FROM walk") == [("closed", again.uuid)]
    assert _rows(path, "SELECT label, wetland_type FROM area_feature") == [("W1", "sedge meadow")]


def _click_map(qtbot, w, x_ft, y_ft):
    """A real left click on the map at site feet (x_ft, y_ft), through pyqtgraph's scene."""
    from PySide6.QtCore import QPointF
    from PySide6.QtCore import Qt as QtC
    from PySide6.QtTest import QTest

    vb = w.map.plot.getPlotItem().getViewBox()
    ox, oy = w.map.origin or (0.0, 0.0)
    scene = vb.mapViewToScene(QPointF(x_ft - ox, y_ft - oy))
    pos = w.map.plot.mapFromScene(scene)
    QTest.mouseClick(w.map.plot.viewport(), QtC.LeftButton, QtC.NoModifier, pos)


def test_draw_a_drainageway_and_place_a_note_by_map_clicks(qtbot, window):
    w = window
    m = w.visit.model
    m.add_ohwm_offset_point((X0, Y0), 90.0, horizontal_ft=0.0)    # something to centre the map on
    key(qtbot, w, "Ctrl+5")
    lines = w.panels["lines"]
    assert w.tabs.currentWidget() is lines
    w.map.set_follow(False)
    ox, oy = w.visit.ft(X0, Y0)
    w.map.set_origin(ox, oy)
    w.map.plot.getPlotItem().getViewBox().setRange(xRange=(-100, 100), yRange=(-100, 100), padding=0)
    key(qtbot, w, "D")
    for dx in (-60.0, 0.0, 60.0):
        _click_map(qtbot, w, ox + dx, oy + 40.0)
    qtbot.waitUntil(lambda: len(lines.draft.vertices) == 3, timeout=WAIT_MS)
    assert lines.draft.length_ft() == pytest.approx(120.0, abs=1.0)    # clicks land on pixels
    lines.label.setText("D1")
    lines.mapped.setCurrentIndex(1)              # yes, a mapped stream
    lines.tributary.setText("12")
    key(qtbot, w, "Ctrl+L")
    (line,) = m.features(Layer.LINE)
    assert (line.label, line.mapped_stream, line.tributary_area_ac) == ("D1", True, 12.0)
    check_id = f"drainageway:{line.uuid}"
    qtbot.waitUntil(lambda: w.visit.checks.get(check_id) is not None, timeout=WAIT_MS)
    assert w.visit.checks.get(check_id).result["total_width_ft"] == 100.0   # 50 ft each side, A.1
    # the stream turns out not to be on the map: corrected in the form, the check follows --
    # with 12 acres draining to it, it is a Drainageways A.2 drainageway, 25 ft each side
    w.editor.select(E_sel(Layer.LINE, line.uuid))
    form = w.editor.edit_selected()
    form.inputs["mapped_stream"].setCurrentIndex(2)          # no
    form.save_button.click()
    qtbot.waitUntil(lambda: w.visit.checks.get(check_id).result.get("total_width_ft") == 50.0,
                    timeout=WAIT_MS)
    assert w.visit.checks.get(check_id).result["citation"] == "Decorah resource protection, Drainageways A.2, C"
    # a note at a map click, then edited
    lines.note_text.setText("culvert 18 in")
    key(qtbot, w, "K")
    assert lines.note_pending
    _click_map(qtbot, w, ox + 20.0, oy - 30.0)
    qtbot.waitUntil(lambda: len(m.features(Layer.NOTE)) == 1, timeout=WAIT_MS)
    (note,) = m.features(Layer.NOTE)
    assert w.visit.ft(note.x, note.y) == pytest.approx((ox + 20.0, oy - 30.0), abs=1.0)
    w.editor.select(E_sel(Layer.NOTE, note.uuid))
    form = w.editor.edit_selected()
    form.inputs["text"].setPlainText("culvert 24 in")
    form.save_button.click()
    path = w.visit.path
    w.visit.close()
    assert _rows(path, "SELECT text FROM note") == [("culvert 24 in",)]
    assert _rows(path, "SELECT label, mapped_stream, tributary_area_ac FROM line_feature") == [("D1", 0, 12.0)]


def E_sel(layer, uuid):
    from fieldapp.app.editing import Selection

    return Selection(layer, uuid)


def test_undoing_a_boundary_close_walks_it_on(qtbot, window):
    w = window
    m = w.visit.model
    walk = m.start_walk("wetland", label="W2", spacing_ft=None, interval_s=1.0)
    w.visit.walk = walk
    for dx, dy in [(0, 0), (30, 0), (30, 30), (0, 30)]:
        walk.add_vertex(X0 + dx, Y0 + dy)
    w.visit.close_walk({"label": "W2"})
    assert w.visit.walk is None and w.visit.last_closed_area is not None
    key(qtbot, w, "Ctrl+Z")                       # the close undone: the walk is on again
    assert w.visit.walk is not None and w.visit.walk.uuid == walk.uuid
    assert w.visit.last_closed_area is None and not m.features(Layer.AREA)
    key(qtbot, w, "Ctrl+Shift+Z")                 # closed again
    assert w.visit.walk is None and len(m.features(Layer.AREA)) == 1


def test_with_the_simulators_a_tallied_tree_and_a_note_corrected(qtbot, private_dirs):
    """The demo's simulated receiver and caliper: a tree squeezed (C), its DBH corrected in
    the form (a negative one refused), deleted with Del, undone and redone; a note at the
    receiver's position (M); the file read back with sqlite3."""
    w = make_window(qtbot, private_dirs, simulate=True, time_scale=10.0, rate_hz=10.0)
    try:
        wait_fix(qtbot, w)
        key(qtbot, w, "Ctrl+3")
        tally = w.panels["tally"]
        qtbot.waitUntil(lambda: not tally.squeeze_button.isHidden(), timeout=WAIT_MS)
        key(qtbot, w, "C")
        qtbot.waitUntil(lambda: len(w.visit.trees()) == 1, timeout=WAIT_MS)
        qtbot.waitUntil(lambda: tally.table.rowCount() == 1, timeout=WAIT_MS)
        tally.table.selectRow(0)
        (tree,) = w.visit.trees()
        assert w.editor.selection.uuid == tree.uuid
        key(qtbot, w, "F4")
        form = w.editor.form
        form.inputs["dbh_in"].setText("-3")
        form.save_button.click()
        assert "DBH must be between 0.1 and 500 in (not -3 in)" in form.error.text()
        assert w.visit.model.get(Layer.TREE, tree.uuid).dbh_in == tree.dbh_in
        form.inputs["dbh_in"].setText("14.5")
        form.save_button.click()
        assert w.visit.model.get(Layer.TREE, tree.uuid).dbh_in == 14.5
        w.activateWindow()
        qtbot.waitUntil(w.isActiveWindow, timeout=WAIT_MS)
        tally.table.selectRow(0)
        key(qtbot, w, "Del")
        assert _status(w) == "Deleted tree 1 — Ctrl+Z brings it back"
        assert not w.visit.trees()
        key(qtbot, w, "Ctrl+Z")
        assert [t.dbh_in for t in w.visit.trees()] == [14.5]
        key(qtbot, w, "Ctrl+Z")                                   # the DBH correction undone
        assert [t.dbh_in for t in w.visit.trees()] == [tree.dbh_in]
        key(qtbot, w, "Ctrl+Shift+Z")
        key(qtbot, w, "Ctrl+5")
        lines = w.panels["lines"]
        qtbot.waitUntil(lambda: w.tabs.currentWidget() is lines, timeout=WAIT_MS)
        lines.note_text.setText("blazed corner post")
        fix = w.usable_fix()
        key(qtbot, w, "M")
        (note,) = w.visit.model.features(Layer.NOTE)
        # at the receiver (it walks at most a few feet between the fix read and the key)
        assert abs(w.visit.ft(note.x, note.y)[0] - w.visit.project(fix.lat_deg, fix.lon_deg)[0]) < 20.0
        path = w.visit.path
        w.visit.close()
        assert _rows(path, "SELECT dbh_in FROM tree") == [(14.5,)]
        assert _rows(path, "SELECT text FROM note") == [("blazed corner post",)]
    finally:
        close_window(w)


def test_a_closed_boundarys_form_is_as_wide_as_its_buttons(qtbot, window, themed):
    """Seen walking the demo: a wetland's form (F4) was 533 px wide for 584 px of buttons and
    read "e-open to walk o" and "Attach photos.." (its fixed 420 px minimum overrode its
    layout's): every button shows its whole text."""
    from PySide6.QtWidgets import QPushButton

    w = window
    m = w.visit.model
    walk = m.start_walk("wetland", label="", spacing_ft=None, interval_s=1.0)
    for dx, dy in [(0, 0), (30, 0), (30, 30), (0, 30)]:
        walk.add_vertex(X0 + 100 + dx, Y0 + dy)
    area = walk.close(wetland_type="shallow marsh", standing_water=True)
    w.editor.select(E_sel(Layer.AREA, area.uuid))
    form = w.editor.edit_selected()
    qtbot.waitUntil(form.isVisible, timeout=5000)
    buttons = [b for b in form.findChildren(QPushButton) if b.isVisible()]
    assert {"Re-open to walk on", "Save", "Cancel"} <= {b.text() for b in buttons}
    for b in buttons:
        assert b.width() >= b.sizeHint().width(), (b.text(), b.width(), b.sizeHint().width())
    form.reject()
