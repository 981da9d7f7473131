"""Record tree [T]'s reason in view under the button (gloved and touch users cannot hover for
its tooltip), and the key legend's refusal of T ending when the user moves on."""

from __future__ import annotations

import pytest

from devices.readings import CaliperReading

pytest.importorskip("pytestqt")

from tests.ui.ui_support import WAIT_MS, close_window, key, make_window, wait_fix

OFF = "Record tree is off: type the DBH first (it reads 0.0 in)"
REFUSED = "Record tree [T] refused: type the DBH first (it reads 0.0 in)."


def test_the_reason_is_shown_under_record_tree_until_the_dbh_is_typed(qtbot, private_dirs):
    w = make_window(qtbot, private_dirs, simulate=True)
    try:
        wait_fix(qtbot, w)
        tally = w.panels["tally"]
        w.tabs.setCurrentWidget(tally)
        tally.dbh.setValue(0.0)
        reason = tally.add_reason
        assert not tally.add_button.isEnabled()
        assert reason.isVisible() and reason.text() == OFF
        assert reason.property("role") == "reason"          # the theme's bold dark red
        # right under the button, not somewhere down the panel
        below = tally.add_button.geometry().bottom()
        assert 0 <= reason.geometry().top() - below <= 12
        key(qtbot, w, "T")
        assert w.key_legend.text() == REFUSED
        tally.dbh.setValue(12.5)                         # typed: the button is live
        assert tally.add_button.isEnabled()
        assert reason.isHidden() and reason.text() == ""
        # ... and the legend's refusal of T is over (the rule again)
        assert w.key_legend.text().startswith("Keys T, C act wherever the focus is.")
        # the buttons below did not move when the reason went
        assert tally.delete_button.geometry().top() > reason.geometry().bottom()
        tally.dbh.setValue(0.0)
        assert reason.isVisible() and reason.text() == OFF
    finally:
        close_window(w)


def test_a_refusal_in_the_legend_clears_at_a_tab_change(qtbot, private_dirs):
    w = make_window(qtbot, private_dirs, simulate=True)
    try:
        wait_fix(qtbot, w)
        tally = w.panels["tally"]
        w.tabs.setCurrentWidget(tally)
        tally.dbh.setValue(0.0)
        key(qtbot, w, "T")
        assert w.key_legend.text() == REFUSED
        key(qtbot, w, "Ctrl+1")                          # on to the OHWM tab
        qtbot.waitUntil(lambda: w.tabs.currentWidget() is w.panels["ohwm"], timeout=WAIT_MS)
        assert "refused" not in w.key_legend.text()
        assert w.key_legend.text().startswith("Keys A, O, S act wherever the focus is.")
        assert w.key_legend.property("role") == ""
        key(qtbot, w, "Ctrl+3")                          # and back: still the rule, not T's refusal
        qtbot.waitUntil(lambda: w.tabs.currentWidget() is tally, timeout=WAIT_MS)
        assert w.key_legend.text().startswith("Keys T, C act wherever the focus is.")
    finally:
        close_window(w)


def test_after_a_caliper_reading_the_reason_says_the_caliper_records_its_own(qtbot, private_dirs):
    from fieldapp.ui.workflows.tally import CALIPER_REASON

    w = make_window(qtbot, private_dirs, simulate=True)
    try:
        wait_fix(qtbot, w)
        tally = w.panels["tally"]
        w.tabs.setCurrentWidget(tally)
        tally.dbh.setValue(0.0)
        assert tally.add_reason.text() == OFF
        tally.on_caliper(CaliperReading(dbh_in=14.2, dbh_cm=36.07, species_number=None,
                                        species_label=""))
        assert [t.dbh_in for t in w.visit.trees()] == [14.2]
        assert tally.add_reason.isVisible()
        assert tally.add_reason.text() == f"Record tree is off: {CALIPER_REASON}"
        assert not tally.add_button.isEnabled()           # T still needs a typed DBH (tooltip)
        assert "type the DBH first" in tally.add_button.toolTip()
    finally:
        close_window(w)


def test_a_new_visit_shows_the_reason_again(qtbot, private_dirs):
    """The next visit's form starts with the DBH at 0.0 in (set without a signal): Record tree
    is off again with its reason, even after a caliper reading in the last visit."""
    from fieldapp.app import visit as visit_mod

    w = make_window(qtbot, private_dirs)
    try:
        qtbot.waitUntil(lambda: w.startup_done and w.visit is not None, timeout=WAIT_MS)
        tally = w.panels["tally"]
        tally.on_caliper(CaliperReading(dbh_in=14.2, dbh_cm=36.07, species_number=None,
                                        species_label=""))     # no fix: held
        assert "caliper reading records its tree" in tally.add_reason.text()
        tally.dbh.setValue(14.0)
        visit_mod.switch_to(w, visit_mod.open_visit(w.visit.path.with_name("next.gpkg")))
        assert tally.dbh.value() == 0.0
        assert tally.add_reason.text() == OFF
        assert "type the DBH first" in tally.add_button.toolTip()
    finally:
        close_window(w)
