"""Issue 35 item 16: New visit says which rule sets the site is checked against (the state's
sections and the local chapter named by its municipality), in view with the questions."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")


def test_new_visit_names_the_rule_sets(qtbot, tmp_path, themed):
    from fieldapp.ui.newvisit import NewVisitDialog
    from tests.ui.test_ui_layout import fully_in_view

    dlg = NewVisitDialog(tmp_path, crew="AS")
    qtbot.addWidget(dlg)
    dlg.resize(900, 768 - 30 - 38)
    dlg.show()
    qtbot.waitExposed(dlg)
    text = dlg.rule_sets.text()
    assert text.startswith("State (Wisconsin): NR 341.035 bank determination; NR 151.125"
                           " protective areas.")
    assert "Local (City of Decorah, Winneshiek County, Iowa): resource protection chapter" in text
    dlg.scroll.ensureWidgetVisible(dlg.rule_sets)
    qtbot.waitUntil(lambda: fully_in_view(dlg.rule_sets, dlg))
    assert dlg.scroll.horizontalScrollBar().maximum() == 0      # it wraps, never sideways
