"""The short verdict and citation lines of the checks panel's cells (issue 35 item 13):
whole words, short enough for two lines of the ~200 px Value column at 1366 x 768."""

from __future__ import annotations

import pytest

from fieldapp.checks.results import Check
from fieldapp.checks.verdicts import citation_words, verdict_words

CASES = [
    ("nr341.bank", {"status": "needs_data", "bank_ft_at_least": 90.0, "walk_further_ft": 28.0,
                    "next_step": "keep walking: ... (more than 28.0 ft further)"},
     "Bank at least 90.0 ft; walk 28.0 ft further"),
    ("nr341.bank", {"status": "determined", "bank_ft": 300.0, "basis": "stipulation"},
     "Bank 300.0 ft (stipulation)"),
    ("nr151.protective_area", {"status": "exempt", "infill_area_ac": 3.2},
     "Exempt: in-fill under 5 ac"),
    ("woodland.mitigation", {"status": "determined", "permitted": False, "retain_more_ac": 0.42},
     "Not permitted: retain 0.42 ac more"),
    ("woodland.class", {"status": "provisional", "class": "B", "basis": "canopy",
                        "trees_so_far": 10}, "Class B (canopy); 10 trees so far"),
    ("development_area.limit", {"status": "determined", "complies": False,
                                "development_area_sqft": 52000.0,
                                "max_development_area_sqft": 50000.0},
     "Does not comply: 52,000.0 sq ft of at most 50,000.0 sq ft"),
    ("drainageway", {"status": "determined", "is_drainageway": True, "total_width_ft": 40.0,
                     "open_space_complies": True}, "Drainageway, 40.0 ft wide; complies"),
    ("resources.overlap", {"status": "determined", "overlaps": [{}, {}]},
     "2 overlaps: see the details"),
    ("woodland.class", {"status": "error", "message": "KeyError: 'trees'"},
     "Rule error: see the details"),
    ("wetland.support", {"status": "determined",
                         "summary": "Supported by DP-1 (wetland, inside), DP-2 (upland, outside)"},
     "Supported by DP-1, DP-2"),
]


@pytest.mark.parametrize("rule, result, words", CASES)
def test_verdict_words(rule, result, words):
    c = Check("id", "title", {"rule": rule}, {"rule": rule, **result})
    assert verdict_words(c) == words
    assert len(words) <= 60       # at most three lines of the narrowest Value column


def test_citation_words_name_the_provision():
    assert citation_words("Decorah resource protection, Woodlands A.2, A.3") == "Woodlands A.2, A.3"
    assert citation_words("NR 151.125(1)(b)") == "NR 151.125(1)(b)"
    assert citation_words("Corps of Engineers Wetland Delineation Manual (1987) and Regional"
                          " Supplements: paired data points") == "Corps manual (1987)"
