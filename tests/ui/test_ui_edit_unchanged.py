"""Saving the edit form saves only what the user changed (issue 35 item 4): a tree whose DBH came
from the caliper in millimetres (272 mm = 10.7086614… in) is shown as 10.7087; Save with nothing
changed wrote 10.7087, moved the modified time and made the next sync send it. Driven through
the real edit form (F4, Save); the stored row is read back with plain sqlite3."""

from __future__ import annotations

import sqlite3

import pytest

pytest.importorskip("pytestqt")

from fieldapp.survey.features import Layer  # noqa: E402
from tests.ui.ui_support import (  # noqa: E402,F401 - private_dirs: a fixture
    WAIT_MS,
    close_window,
    key,
    make_window,
)

X0, Y0 = 500000.0, 4983000.0       # UTM 16N
DBH_IN = 272 / 25.4                # a caliper reading of 272 mm, in inches


def stored_tree(path, uuid):
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT dbh_in, species_name, modified_utc FROM tree WHERE uuid = ?",
                            (uuid,)).fetchone()
    finally:
        conn.close()


@pytest.fixture
def window(qtbot, request):
    w = make_window(qtbot, request.getfixturevalue("private_dirs"))
    qtbot.waitUntil(lambda: w.startup_done and w.visit is not None, timeout=WAIT_MS)
    w.visit.model.set_crs("EPSG:32616")
    yield w
    close_window(w)


def open_form(qtbot, w, uuid):
    """Select the tree in the Records tab and open its edit form with F4."""
    records = w.editor.records
    records.refresh()
    records.table.selectRow(next(i for i, s in enumerate(records.rows) if s.uuid == uuid))
    assert w.editor.selection.uuid == uuid
    key(qtbot, w, "F4")
    form = w.editor.form
    assert form is not None and form.isVisible()
    return form


def test_saving_an_unchanged_form_writes_nothing(qtbot, window, monkeypatch):
    w = window
    m = w.visit.model
    tree = m.add_tree(x=X0, y=Y0, dbh_in=DBH_IN, species_code="ACSA", species_name="sugar maple")
    before = m.get(Layer.TREE, tree.uuid)
    undo_before = m.next_undo()
    path = w.visit.path
    stored_before = stored_tree(path, tree.uuid)
    assert stored_before[0] == DBH_IN

    journal = m.journal                 # the visit's GeoPackage store: every change goes there
    written: list = []
    real_apply = journal.apply
    monkeypatch.setattr(journal, "apply", lambda changes: (written.append(changes),
                                                           real_apply(changes))[1])

    form = open_form(qtbot, w, tree.uuid)
    assert form.inputs["dbh_in"].text() == "10.7087"          # shown rounded
    form.save_button.click()
    assert not form.isVisible()
    after = m.get(Layer.TREE, tree.uuid)
    assert after.dbh_in == DBH_IN                              # full precision, not 10.7087
    assert after.modified_utc == before.modified_utc           # its modified time unchanged
    assert m.next_undo() is undo_before                        # no command: nothing to undo
    assert written == []                                       # nothing sent to the journal
    assert w.statusBar().currentMessage().startswith("Nothing changed in tree")
    assert stored_tree(path, tree.uuid) == stored_before       # the store: not a byte changed


def test_saving_one_changed_field_keeps_the_others_at_full_precision(qtbot, window):
    w = window
    m = w.visit.model
    tree = m.add_tree(x=X0, y=Y0, dbh_in=DBH_IN, species_code="ACSA", species_name="sugar maple")
    before = m.get(Layer.TREE, tree.uuid)
    form = open_form(qtbot, w, tree.uuid)
    form.inputs["species_name"].setText("black maple")
    form.save_button.click()
    assert not form.isVisible()
    after = m.get(Layer.TREE, tree.uuid)
    assert (after.species_name, after.dbh_in) == ("black maple", DBH_IN)
    assert after.modified_utc >= before.modified_utc
    assert m.next_undo() is not None and {ch.layer for ch in m.next_undo()} == {Layer.TREE}
    path = w.visit.path
    w.visit.close()
    assert stored_tree(path, tree.uuid)[:2] == (DBH_IN, "black maple")
