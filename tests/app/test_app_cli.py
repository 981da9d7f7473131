"""``fieldapp --quit-after``'s verdict: what was true, and FAILED only when something failed."""

from __future__ import annotations

import pytest

from fieldapp.app.cli import SmokeRun, quit_after_verdict


def test_no_receiver_attached_is_said_and_is_no_failure():
    line, rc = quit_after_verdict(SmokeRun("visit_2026-12-01_0930.gpkg", fixes=0, records=0))
    assert line == ("fieldapp: visit visit_2026-12-01_0930.gpkg opened, 0 records stored; no"
                    " receiver attached (no --simulate, --replay or --gnss-url), so no fixes"
                    " -> ok")
    assert rc == 0
    # records typed at the desk (no receiver) are counted, singular said as such
    assert quit_after_verdict(SmokeRun("a.gpkg", 0, 1))[0].startswith(
        "fieldapp: visit a.gpkg opened, 1 record stored; no receiver")


def test_the_simulated_demo_is_ok_with_fixes_and_records():
    assert quit_after_verdict(SmokeRun("demo.gpkg", 36, 38, receiver=True, simulate=True)) == (
        "fieldapp: visit demo.gpkg opened, 36 fixes received, 38 records stored -> ok", 0)
    # a replay or a real receiver: fixes are what counts, nobody records in a smoke run
    assert quit_after_verdict(SmokeRun("r.gpkg", 1, 0, receiver=True)) == (
        "fieldapp: visit r.gpkg opened, 1 fix received, 0 records stored -> ok", 0)


@pytest.mark.parametrize("run, tail", [
    (SmokeRun(None, 0, 0), "-> FAILED: the visit did not open"),
    (SmokeRun("r.gpkg", 0, 0, devices_not_started=1, receiver=True),
     "-> FAILED: 1 device not started"),
    (SmokeRun("g.gpkg", 0, 0, receiver=True), "-> FAILED: the receiver sent no fix"),
    (SmokeRun("d.gpkg", 0, 0, receiver=True, simulate=True), "-> FAILED: the receiver sent no fix"),
    (SmokeRun("d.gpkg", 40, 0, receiver=True, simulate=True),
     "-> FAILED: the simulated surveyor stored no record"),
    (SmokeRun(None, 0, 0, devices_not_started=2, receiver=True),
     "-> FAILED: the visit did not open; 2 devices not started"),
])
def test_failed_only_when_something_failed_and_says_what(run, tail):
    line, rc = quit_after_verdict(run)
    assert line.endswith(tail), line
    assert rc == 1
