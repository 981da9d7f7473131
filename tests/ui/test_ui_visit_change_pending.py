"""Work under way at one visit that a visit change ends: an OHWM averaging and a line being
walked are dropped with what was not recorded in words, never carried into the next visit
(the caliper's waiting readings: tests/ui/test_ui_tally_visit_change.py)."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from tests.ui.test_ui_tally_visit_change import rtk_fix
from tests.ui.ui_support import WAIT_MS, close_window, make_window


def usable(w) -> None:
    """No receiver here: the fixes handed in are the recordable ones."""
    w.devices.usable_fix = lambda: w.latest_fix   # the panels ask the device feed
    w.problem = None


def test_an_averaging_under_way_ends_unrecorded_at_a_visit_change(qtbot, private_dirs):
    from fieldapp.app import visit as visit_mod

    w = make_window(qtbot, private_dirs)
    try:
        qtbot.waitUntil(lambda: w.startup_done and w.visit is not None, timeout=WAIT_MS)
        ohwm = w.panels["ohwm"]
        usable(w)
        w.on_fix(rtk_fix())
        ohwm.epochs.setValue(3)
        ohwm.start_average()
        w.on_fix(rtk_fix())
        w.on_fix(rtk_fix())                         # 2 of 3 epochs at site A
        visit_mod.switch_to(w, visit_mod.open_visit(w.visit.path.with_name("site-b.gpkg")))
        said = "Averaging cancelled (another visit was shown before it ended); nothing recorded."
        assert ohwm.state.text() == said and w.key_legend.text() == said
        assert not ohwm.averaging() and not ohwm.cancel_button.isEnabled()
        assert ohwm.progress.value() == 0           # was 2 of 3
        assert "averaging" not in w.button_off_reason(ohwm.average_button)  # usable again
        w.on_fix(rtk_fix())                         # the epoch that would have ended it
        assert w.visit.ohwm_points() == []
    finally:
        close_window(w)


def test_a_line_being_walked_is_not_recorded_in_the_next_visit(qtbot, private_dirs):
    from fieldapp.app import visit as visit_mod

    w = make_window(qtbot, private_dirs)
    try:
        qtbot.waitUntil(lambda: w.startup_done and w.visit is not None, timeout=WAIT_MS)
        lines = w.panels["lines"]
        usable(w)
        w.on_fix(rtk_fix())
        lines.walk_line()
        assert lines.draft is not None
        visit_mod.switch_to(w, visit_mod.open_visit(w.visit.path.with_name("site-b.gpkg")))
        said = ("Line not recorded: the visit was closed (another visit shown, or a sync)"
                " before it was finished.")
        assert lines.state.text() == said and w.key_legend.text() == said
        assert lines.draft is None and not lines.finish_button.isEnabled()
        # Esc with nothing under way says nothing more
        lines.discard()
        assert lines.state.text() == said
    finally:
        close_window(w)
