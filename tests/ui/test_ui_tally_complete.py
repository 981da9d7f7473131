"""Issue 35 item 10: ticking *Tally complete* on a tally that looks incomplete (10 trees on one
side of a stand, a grove drawn with no tree in it) says what is missing and asks first; No leaves
the tally open (the class stays provisional), Yes marks it complete. A tally that covers its
stand is marked complete without a question."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from fieldapp.app.tallyreview import tally_gaps
from tests.ui.ui_support import WAIT_MS, close_window, make_window, wait_fix

SHOTS = Path(os.environ.get("FIELDAPP_SHOTS", "/tmp"))


def site_units_per_metre(model) -> float:
    """Site CRS units in a metre: the demo's first fix picks WISCRS Vernon, in US survey feet."""
    return float(model.frame.from_ft(1.0 / 0.3048))


def test_an_incomplete_tally_is_questioned_with_what_is_missing(qtbot, private_dirs, monkeypatch):
    w = make_window(qtbot, private_dirs, simulate=True)
    try:
        wait_fix(qtbot, w)
        qtbot.waitUntil(lambda: w.visit.model.has_frame, timeout=WAIT_MS)
        model = w.visit.model
        fix = w.usable_fix()
        x, y = (float(v) for v in model.frame.to_local(fix.lon_deg, fix.lat_deg))
        m = site_units_per_metre(model)
        d = 90.0 * m                                     # a 180 m square stand
        stand = model.add_area("woodland_stand", [(x - d, y - d), (x + d, y - d), (x + d, y + d),
                                                  (x - d, y + d)], label="Oaks")
        model.add_area("grove", [(x + 60 * m, y + 60 * m), (x + 80 * m, y + 60 * m), (x + 80 * m, y + 80 * m)],
                       label="Grove NE")
        for i in range(10):                              # all on the west side
            model.add_tree(x=x + (-80 + 3 * i) * m, y=y, dbh_in=12.0, species_code="QURU")
        tally = w.panels["tally"]
        w.tabs.setCurrentWidget(tally)
        gaps = tally_gaps(w.visit)
        assert gaps[0] == "1 crown or grove area drawn inside the stand with no tree record (Grove NE)"
        assert gaps[1].endswith("% of the stand is more than 66 ft from any tallied tree")
        asked: list[str] = []
        answer = [QMessageBox.StandardButton.No]
        monkeypatch.setattr(QMessageBox, "warning",
                            lambda _p, _t, text, *_a: asked.append(text) or answer[0])
        qtbot.waitUntil(tally.complete.isEnabled, timeout=WAIT_MS)
        tally.complete.click()
        assert asked and asked[0].startswith("10 trees tallied in Oaks, but this looks incomplete:")
        assert "Grove NE" in asked[0] and "Mark it complete anyway?" in asked[0]
        assert not tally.complete.isChecked()
        assert not model.get("area_feature", stand.uuid).tally_complete
        # the demo's stand trees stand inside this square: 10 of its 25 are tallied (the case)
        assert tally.state.text().startswith("Tally left open: 10 of the stand's 25 trees are tallied;"
                                             " 1 crown or grove area drawn")
        tally.grab().save(str(SHOTS / "tally_complete_questioned.png"))
        w.visit.refresh_checks()
        assert w.visit.checks.get(f"woodland:{stand.uuid}").status == "provisional"
        answer[0] = QMessageBox.StandardButton.Yes        # the crew knows better: marked
        tally.complete.click()
        assert len(asked) == 2 and tally.complete.isChecked()
        assert model.get("area_feature", stand.uuid).tally_complete
        assert tally.state.text().startswith("Tally marked complete although")
    finally:
        close_window(w)


def test_a_tally_covering_its_stand_is_not_questioned(qtbot, private_dirs, monkeypatch):
    w = make_window(qtbot, private_dirs, simulate=True)
    try:
        wait_fix(qtbot, w)
        qtbot.waitUntil(lambda: w.visit.model.has_frame, timeout=WAIT_MS)
        model = w.visit.model
        fix = w.usable_fix()
        x, y = (float(v) for v in model.frame.to_local(fix.lon_deg, fix.lat_deg))
        d = 20.0 * site_units_per_metre(model)           # a 40 m square: corners and centre
        stand = model.add_area("woodland_stand", [(x - d, y - d), (x + d, y - d), (x + d, y + d),
                                                  (x - d, y + d)], label="Small")
        for dx, dy in ((-d, -d), (d, -d), (d, d), (-d, d), (0.0, 0.0)):
            model.add_tree(x=x + dx, y=y + dy, dbh_in=12.0, species_code="QURU")
        assert tally_gaps(w.visit) == []
        monkeypatch.setattr(QMessageBox, "warning", lambda *_a: pytest.fail("asked"))
        tally = w.panels["tally"]
        w.tabs.setCurrentWidget(tally)
        qtbot.waitUntil(tally.complete.isEnabled, timeout=WAIT_MS)
        tally.complete.click()
        assert model.get("area_feature", stand.uuid).tally_complete
    finally:
        close_window(w)
