"""Workflow keys and text fields keep one rule everywhere (fieldapp.ui.keys): a letter key acts
wherever the focus is, a text field takes letters only after a click or F2, Esc leaves it, and
the key legend says which is which; a key never records from a walking receiver."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QLineEdit

from tests.ui.ui_support import WAIT_MS, close_window, key, make_window, wait_fix

PANELS = ("ohwm", "transect", "tally", "boundary", "lines")


def show(qtbot, w, name: str):
    """Show the ``name`` workflow tab (the window exposed first: a key needs it)."""
    qtbot.waitExposed(w)
    w.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is w, timeout=WAIT_MS)
    w.tabs.setCurrentWidget(w.panels[name])
    return w.panels[name]


def letter_keys(panel) -> list[str]:
    return sorted(k for k in panel.keys if len(k) == 1)


def press(widget, letter: str) -> None:
    QTest.keyClick(widget, getattr(Qt, f"Key_{letter}"))


def fields(panel) -> tuple[list[QLineEdit], list[QAbstractSpinBox]]:
    text = [f for f in panel.body.findChildren(QLineEdit)
            if not isinstance(f.parent(), QAbstractSpinBox) and f.isVisibleTo(panel.body)]
    numbers = [f for f in panel.body.findChildren(QAbstractSpinBox)
               if f.isVisibleTo(panel.body) and f.isEnabled()]  # e.g. Declination until Override
    return text, numbers


def test_the_panels_have_their_documented_letter_keys_and_text_fields(qtbot, private_dirs):
    w = make_window(qtbot, private_dirs)
    try:
        assert {p: letter_keys(w.panels[p]) for p in PANELS} == {
            "ohwm": ["A", "O", "S"], "transect": ["I", "N", "S"], "tally": ["C", "T"],
            "boundary": ["P", "R", "V", "W"], "lines": ["D", "K", "M", "V", "W"]}
        names = {p: [f.accessibleName() for f in fields(w.panels[p])[0]] for p in PANELS}
        assert names == {"ohwm": [], "transect": [], "tally": ["Species"],
                         "boundary": ["Label", "Wetland type", "Fill permit"],
                         "lines": ["Label", "Tributary area (ac)", "Note"]}
    finally:
        close_window(w)


def test_every_letter_key_in_every_field_acts_unless_the_field_is_typing(qtbot, private_dirs):
    """Each panel, each text and number field, each of the panel's letter keys and the
    window's F (Follow me): with the focus in the field the key runs its workflow command and
    types nothing; after F2 or a click a text field types the letter and the command does not
    run, the legend says "Typing in <field>"; Esc leaves the field, and the key acts again."""
    w = make_window(qtbot, private_dirs)
    try:
        for name in PANELS:
            panel = w.panels[name]
            show(qtbot, w, name)
            ran: list[str] = []
            for k in letter_keys(panel):
                panel.keys[k] = lambda k=k, ran=ran: ran.append(k)
            text_fields, number_fields = fields(panel)
            for field in text_fields + number_fields:
                for k in letter_keys(panel) + ["F"]:
                    field.setFocus()
                    qtbot.waitUntil(field.hasFocus, timeout=WAIT_MS)
                    before = field.text()
                    follow = w.map.follow
                    ran.clear()
                    press(field, k)
                    acted = (w.map.follow != follow) if k == "F" else ran == [k]
                    assert acted, (name, field.accessibleName(), k)
                    assert field.text() == before, (name, field.accessibleName(), k)
                    assert not w.key_legend.text().startswith("Typing")
                for k in letter_keys(panel) if isinstance(field, QLineEdit) else []:
                    for start in ("F2", "click"):
                        field.setFocus()
                        if start == "F2":
                            QTest.keyClick(field, Qt.Key_F2)
                        else:
                            QTest.mouseClick(field, Qt.LeftButton)
                        field.end(False)
                        before = field.text()
                        ran.clear()
                        press(field, k)
                        assert field.text() == before + k.lower(), (name, k, start)
                        assert ran == []
                        assert w.key_legend.text().startswith(
                            f"Typing in {field.accessibleName()}: letter keys type here")
                        QTest.keyClick(field, Qt.Key_Escape)
                        assert QApplication.focusWidget() is not field
                        assert not w.key_legend.text().startswith("Typing")
                        assert field.isReadOnly()
                        press(field, k)         # the focus is back on the panel
                        assert ran == [k], (name, k, start)
                        field.clear()
    finally:
        close_window(w)


def test_a_text_field_not_typing_refuses_other_keys_and_enter_ends_typing(qtbot, private_dirs):
    w = make_window(qtbot, private_dirs)
    try:
        species = show(qtbot, w, "tally").species
        species.setFocus()
        QTest.keyClicks(species, "xyz")
        assert species.text() == ""
        assert w.key_legend.text() == ("Species is not taking keys: click it or press F2 to"
                                       " type in it.")
        QTest.keyClick(species, Qt.Key_F2)
        QTest.keyClicks(species, "box elder")        # no T or C in it, but typed all the same
        assert species.text() == "box elder"
        QTest.keyClick(species, Qt.Key_Return)
        assert species.text() == "box elder" and species.isReadOnly()
        assert not species.hasFocus()
        assert w.key_legend.text().startswith("Keys T, C act wherever the focus is")
        QTest.mouseClick(species, Qt.LeftButton)
        QTest.keyClicks(species, "tc")
        assert species.text().endswith("tc")
    finally:
        close_window(w)


def test_esc_in_a_text_field_leaves_it_and_does_not_cancel_the_averaging(qtbot, private_dirs):
    w = make_window(qtbot, private_dirs)
    try:
        panel = show(qtbot, w, "boundary")
        QTest.mouseClick(panel.label, Qt.LeftButton)
        cancelled: list[bool] = []
        w.panels["boundary"].keys["Esc"] = lambda: cancelled.append(True)
        QTest.keyClick(panel.label, Qt.Key_Escape)
        assert cancelled == [] and not panel.label.hasFocus()
    finally:
        close_window(w)


def test_p_during_a_walk_with_the_focus_left_in_label_pauses_the_walk(qtbot, private_dirs):
    from fieldapp.survey import AreaKind

    w = make_window(qtbot, private_dirs, simulate=True)
    try:
        wait_fix(qtbot, w)
        key(qtbot, w, "Ctrl+4")
        panel = w.panels["boundary"]
        panel.kind.setCurrentIndex(panel.kind.findData(AreaKind.DISTURBED.value))
        QTest.mouseClick(panel.label, Qt.LeftButton)
        QTest.keyClicks(panel.label, "Pad")
        QTest.keyClick(panel.label, Qt.Key_Return)
        panel.start_button.click()
        assert w.visit.walk_state() == "walking"
        panel.label.setFocus()                 # the cursor left in Label (Tab, or a stray tap)
        press(panel.label, "P")
        assert w.visit.walk_state() == "paused"
        assert panel.label.text() == "Pad"
        QTest.mouseClick(panel.label, Qt.LeftButton)   # typing: R types, the walk stays paused
        panel.label.end(False)
        press(panel.label, "R")
        assert panel.label.text() == "Padr" and w.visit.walk_state() == "paused"
        assert w.key_legend.text().startswith("Typing in Label")
        QTest.keyClick(panel.label, Qt.Key_Escape)
        key(qtbot, w, "R")
        assert w.visit.walk_state() == "walking"
    finally:
        close_window(w)


class _Walker:
    busy, paused, mode, walking_to = True, False, "ohwm", "OHWM point 3"


def test_offset_key_while_the_surveyor_walks_is_refused_with_the_reason(qtbot, private_dirs):
    w = make_window(qtbot, private_dirs, simulate=True)
    try:
        wait_fix(qtbot, w)
        key(qtbot, w, "Ctrl+1")
        panel = w.panels["ohwm"]
        panel.distance.setValue(12.5)
        panel.walker_changed(_Walker())
        n = len(w.visit.ohwm_points())
        key(qtbot, w, "O")
        assert len(w.visit.ohwm_points()) == n
        assert w.key_legend.text() == ("Record offset point [O] refused: walking to OHWM"
                                       " point 3…")
        key(qtbot, w, "A")
        assert w.key_legend.text() == "Average point [A] refused: walking to OHWM point 3…"
        assert not panel.averaging()
        arrived = _Walker()
        arrived.busy = False
        panel.walker_changed(arrived)
        panel.bank.setCurrentIndex(1)       # the target is on this bank
        key(qtbot, w, "O")
        qtbot.waitUntil(lambda: len(w.visit.ohwm_points()) == n + 1, timeout=WAIT_MS)
        assert w.key_legend.text().startswith("Keys A, O, S act")   # the refusal is over
    finally:
        close_window(w)


def test_offset_with_no_distance_or_from_a_moving_receiver_is_refused():
    from fieldapp.ui.workflows.ohwm import offset_refusal

    class Fix:
        speed_mps = 1.3             # walking pace

    assert offset_refusal(Fix(), 0.0).startswith("no horizontal distance yet")
    assert offset_refusal(Fix(), 20.0) == ("the receiver is moving (1.3 m/s); stand still at"
                                           " the point")
    Fix.speed_mps = 0.05            # standing: receiver noise
    assert offset_refusal(Fix(), 20.0) == ""
    Fix.speed_mps = None            # GGA only: no speed
    assert offset_refusal(Fix(), 20.0) == ""


def test_a_key_with_no_usable_fix_says_why(qtbot, private_dirs):
    w = make_window(qtbot, private_dirs)       # no receiver at all
    try:
        qtbot.waitUntil(lambda: w.startup_done and w.visit is not None, timeout=WAIT_MS)  # opens after the first frame
        show(qtbot, w, "tally")
        key(qtbot, w, "T")
        assert w.key_legend.text() == ("Record tree [T] refused: No receiver connected"
                                       " (Devices…, Ctrl+D); type the DBH first (it reads 0.0 in).")
        assert w.visit.trees() == []
    finally:
        close_window(w)


def test_a_tally_cell_being_edited_types_letters_and_esc_reverts_it(qtbot, private_dirs):
    """A table cell opened with F2 (or a double click) is typing: T and C type, Esc reverts
    the cell and leaves it, Enter stores it; neither runs a workflow command."""
    w = make_window(qtbot, private_dirs, simulate=True)
    try:
        wait_fix(qtbot, w)
        tally = show(qtbot, w, "tally")
        tally.dbh.setValue(14.0)
        tally.add_button.click()
        qtbot.waitUntil(lambda: tally.table.rowCount() == 1, timeout=WAIT_MS)
        ran: list[str] = []
        for k in ("T", "C", "Esc"):
            tally.keys[k] = lambda k=k: ran.append(k)
        table = tally.table
        for text, end, stored in (("tc", Qt.Key_Escape, ""), ("ash", Qt.Key_Return, "ash")):
            table.setFocus()
            table.setCurrentCell(0, 1)
            QTest.keyClick(table, Qt.Key_F2)
            qtbot.waitUntil(lambda: isinstance(QApplication.focusWidget(), QLineEdit),
                            timeout=WAIT_MS)
            editor = QApplication.focusWidget()
            editor.selectAll()
            QTest.keyClicks(editor, text)
            assert editor.text() == text
            QTest.keyClick(editor, end)
            assert ran == []
            qtbot.waitUntil(lambda stored=stored: w.visit.trees()[0].species_name == stored, timeout=WAIT_MS)
    finally:
        close_window(w)


def test_record_tree_key_while_the_surveyor_walks_is_refused_with_the_reason(qtbot,
                                                                            private_dirs):
    w = make_window(qtbot, private_dirs, simulate=True)
    try:
        wait_fix(qtbot, w)
        tally = show(qtbot, w, "tally")
        walker = _Walker()
        walker.walking_to = "tree 4"
        tally.walker_changed(walker)
        tally.dbh.setValue(12.0)
        key(qtbot, w, "T")
        assert w.visit.trees() == []
        assert w.key_legend.text() == "Record tree [T] refused: walking to tree 4…"
        walker.busy = False
        tally.walker_changed(walker)
        key(qtbot, w, "T")
        assert len(w.visit.trees()) == 1
    finally:
        close_window(w)


def test_a_key_with_modifiers_leaves_none_held_for_the_next_test(qtbot):
    """``key`` releases Ctrl and Shift as a keyboard does: nothing stays held in the process
    (``QTest.keyClick`` left Shift held, and a later test's ``QTableWidget.selectRow`` extended
    a selection from no anchor: it selected nothing)."""
    from PySide6.QtGui import QAction, QKeySequence
    from PySide6.QtWidgets import QMainWindow, QTableWidget

    win = QMainWindow()
    table = QTableWidget(3, 1)
    win.setCentralWidget(table)
    hits = []
    act = QAction("Redo", win)
    act.setShortcut(QKeySequence("Ctrl+Shift+Z"))
    act.triggered.connect(lambda: hits.append(QApplication.keyboardModifiers()))
    win.addAction(act)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    win.activateWindow()                            # a window shortcut needs the active window
    qtbot.waitUntil(win.isActiveWindow, timeout=WAIT_MS)
    key(qtbot, win, "Ctrl+Shift+Z")
    shift_ctrl = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    assert hits == [shift_ctrl]                     # held while the key went down ...
    assert QApplication.keyboardModifiers() == Qt.KeyboardModifier.NoModifier   # ... not after
    table.selectRow(2)
    assert [i.row() for i in table.selectionModel().selectedRows()] == [2]
