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
