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
    assert "They apply in Wisconsin; the site's county is named from its first fix." in text
    assert "Local (City of Decorah, Winneshiek County, Iowa): resource protection chapter" in text
    # the local chapter is Decorah's text, checked because it was chosen, not the law elsewhere
    assert "(chosen for the app; it is the law only inside the City of Decorah)" in text
    dlg.scroll.ensureWidgetVisible(dlg.rule_sets)
    qtbot.waitUntil(lambda: fully_in_view(dlg.rule_sets, dlg))
    assert dlg.scroll.horizontalScrollBar().maximum() == 0      # it wraps, never sideways


@pytest.mark.parametrize(("fix", "words"), [
    ((43.592, -90.642), "They apply: the site is in Vernon County, Wisconsin."),     # the demo's
    ((43.3035, -91.786), "The site lies outside Wisconsin: they are checked as the app's state"
                         " sections, not as the law there."),                        # Decorah, Iowa
])
def test_with_a_fix_new_visit_says_whether_the_state_sections_apply_here(qtbot, tmp_path, fix, words):
    from fieldapp.ui.newvisit import NewVisitDialog

    dlg = NewVisitDialog(tmp_path, crew="AS", fix_lat_lon=fix)
    qtbot.addWidget(dlg)
    assert words in dlg.rule_sets.text()
