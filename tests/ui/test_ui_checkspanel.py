"""The checks panel's details text for a rule that ran and for a check still awaiting data."""

import json

from fieldapp.checks import AwaitingData, Check
from fieldapp.rules import evaluate
from fieldapp.ui.checkspanel import any_in, details_text


def test_details_of_a_check_awaiting_data_say_there_is_no_request_yet():
    waiting = AwaitingData("woodland.class", "record the trees of this stand (caliper tally)",
                           "City resource protection, Woodlands A")
    c = Check("woodland:s1", "Woodland class Oak stand", {}, waiting.result())
    text = details_text(c)
    assert "Next step: record the trees of this stand (caliper tally)" in text
    assert "Rule request: none yet" in text
    assert "{}" not in text.split("Result:")[0]
    assert any_in([c], "woodland.class") == [c]


def test_details_of_a_rule_that_ran_carry_the_request_json_for_the_cli():
    # The contract's worked example: a less-susceptible wetland 260 ft wide -> 26 ft.
    request = {"rule": "nr151.protective_area", "input": {"contiguous": False, "features": [
        {"type": "wetland", "susceptibility": "less", "average_width_ft": 260}]}}
    c = Check("pa:w1", "Protective area Wetland A", request, evaluate(request))
    text = details_text(c)
    head = text.split("Result:")[0]
    shown = json.loads(head.split("Rule request (fieldapp rules evaluate FILE.json):")[1])
    assert shown == request
    assert json.loads(text.split("Result:")[1])["width_ft"] == 26.0



def test_selecting_a_check_gives_the_details_most_of_the_room(qtbot):
    from fieldapp.ui.checkspanel import ChecksPanel

    panel = ChecksPanel()
    qtbot.addWidget(panel)
    panel.resize(700, 420)
    panel.show()
    qtbot.waitExposed(panel)
    waiting = AwaitingData("woodland.class", "record the trees of this stand (caliper tally)",
                           "City resource protection, Woodlands A")
    panel.show_checks([Check("woodland:s1", "Woodland class Oak stand", {}, waiting.result())])
    before = panel.split.sizes()
    panel.table.selectRow(0)
    table_px, details_px = panel.split.sizes()
    # one row: the table shrinks to at most 45 % of the splitter, the details get the rest
    # (they had 80 of 420 px, a few lines)
    assert sum(before) == table_px + details_px
    assert details_px >= 0.55 * (table_px + details_px) > before[1]
