"""The checks panel's details text for a rule that ran and for a check still awaiting data."""

import json

from fieldapp.checks import AwaitingData, Check
from fieldapp.rules import evaluate
from fieldapp.ui.checkspanel import any_in, details_text


def test_details_of_a_check_awaiting_data_say_there_is_no_request_yet():
    waiting = AwaitingData("woodland.class", "record the trees of this stand (caliper tally)",
                           "Decorah resource protection, Woodlands A")
    c = Check("woodland:s1", "Woodland class Oak stand", {}, waiting.result())
    text = details_text(c)
    assert "Next step: record the trees of this stand (caliper tally)" in text
    assert "What went in: nothing yet (the rule runs once the data above is recorded)" in text
    assert "{" not in text
    assert any_in([c], "woodland.class") == [c]


def test_details_of_a_rule_that_ran_say_it_in_words_and_copy_the_request_json(qtbot):
    # The contract's worked example: a less-susceptible wetland 260 ft wide -> 26 ft. The pane
    # says what went in and came out in words (issue 35 item 15: it showed the JSON); its
    # context menu copies the request for the CLI.
    from PySide6.QtGui import QGuiApplication

    from fieldapp.ui.checkspanel import ChecksPanel

    request = {"rule": "nr151.protective_area", "input": {"contiguous": False, "features": [
        {"type": "wetland", "susceptibility": "less", "average_width_ft": 260}]}}
    c = Check("pa:w1", "Protective area Wetland A", request, evaluate(request))
    text = details_text(c)
    assert "What went in:\n  contiguous: no\n  features 1: type wetland, susceptibility less," \
           " average width 260 ft" in text
    assert "What came out:\n  width: 26 ft" in text
    assert "{" not in text and '"rule"' not in text and "average_width_ft" not in text
    panel = ChecksPanel()
    qtbot.addWidget(panel)
    panel.show_checks([c])
    panel.table.selectRow(0)
    assert panel.details.toPlainText() == text
    assert panel.copy_request_action in panel.details.actions()
    panel.copy_request_action.trigger()
    assert json.loads(QGuiApplication.clipboard().text()) == request


def test_selecting_a_check_gives_the_details_most_of_the_room(qtbot):
    from fieldapp.ui.checkspanel import ChecksPanel

    panel = ChecksPanel()
    qtbot.addWidget(panel)
    panel.resize(700, 420)
    panel.show()
    qtbot.waitExposed(panel)
    waiting = AwaitingData("woodland.class", "record the trees of this stand (caliper tally)",
                           "Decorah resource protection, Woodlands A")
    panel.show_checks([Check("woodland:s1", "Woodland class Oak stand", {}, waiting.result())])
    before = panel.split.sizes()
    panel.table.selectRow(0)
    table_px, details_px = panel.split.sizes()
    # one row: the table shrinks to at most 45 % of the splitter, the details get the rest
    # (they had 80 of 420 px, a few lines)
    assert sum(before) == table_px + details_px
    assert details_px >= 0.55 * (table_px + details_px) > before[1]
