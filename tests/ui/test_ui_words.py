"""The window's words (issue 35 item 15), read off the real window on the sample visit: a stand
named once, the city's chapter named by its city, table headers a new crew member reads, the
check details in words."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from tests.ui.ui_support import WAIT_MS


def headers(table):
    return [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]


def test_the_window_speaks_the_crews_words(sample_window, qtbot):
    w, _path, _info = sample_window
    qtbot.waitUntil(lambda: w.checks_panel.table.rowCount() >= 5, timeout=WAIT_MS)
    # the stand labelled "Stand A" is "Stand A", never "Stand Stand A"
    w.tabs.setCurrentWidget(w.panels["tally"])
    tally = w.panels["tally"]
    qtbot.waitUntil(lambda: "Stand A " in tally.summary.text(), timeout=WAIT_MS)
    assert "Stand Stand" not in tally.summary.text()
    assert headers(tally.table)[-1] == "Crown radius ft"
    # the OHWM points: fixes used / rejected and the spread in the site's feet
    ohwm = w.panels["ohwm"]
    assert headers(ohwm.table) == ["#", "Method", "Fixes used / rejected", "Spread ft",
                                   "Accuracy ft"]
    assert ohwm.table.horizontalHeaderItem(2).toolTip().startswith("GNSS fixes averaged")
    qtbot.waitUntil(lambda: ohwm.table.rowCount() >= 3, timeout=WAIT_MS)
    assert ohwm.table.item(0, 2).text() == "10 / 2"
    # the city chapter by its city (the whole citation is the cell's tooltip; the cell names
    # the provision: issue 35 item 13)
    table = w.checks_panel.table
    citations = [table.item(r, 3).toolTip() for r in range(table.rowCount())]
    assert any(table.item(r, 3).text() == "Woodlands D.2" for r in range(table.rowCount()))
    assert any(c.startswith("Decorah resource protection") for c in citations), citations
    assert not any("City resource" in c for c in citations)
    # the details in words, no JSON
    w.show_checks()
    qtbot.waitUntil(lambda: w.checks_panel.details.toPlainText() != "", timeout=WAIT_MS)
    text = w.checks_panel.details.toPlainText()
    assert "What came out:" in text and "{" not in text and '"rule"' not in text
