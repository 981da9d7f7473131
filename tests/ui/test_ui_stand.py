"""The Tally tab's retained area and Tally complete are stored with the stand: a reopened
visit shows them and gives the same verdicts; an open tally says "provisional"."""

from __future__ import annotations

import sqlite3

import pytest

pytest.importorskip("pytestqt")

from tests.ui.ui_support import WAIT_MS, close_window, make_window, wait_fix


def test_retained_area_and_tally_complete_survive_a_reopen(qtbot, private_dirs, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    from fieldapp.app import visit as visit_mod

    asked: list[str] = []       # 3 trees of a demo stand of 25: asked first (issue 35 item 10)
    monkeypatch.setattr(QMessageBox, "warning",
                        lambda _p, _t, text, *_a: asked.append(text) or QMessageBox.StandardButton.Yes)

    w = make_window(qtbot, private_dirs, simulate=True)
    try:
        wait_fix(qtbot, w)
        qtbot.waitUntil(lambda: w.visit.model.has_frame, timeout=WAIT_MS)
        fix = w.usable_fix()
        x, y = (float(v) for v in w.visit.model.frame.to_local(fix.lon_deg, fix.lat_deg))
        # a 180 m square stand round the surveyor, in site units (the demo's WISCRS Vernon: US ft)
        d = float(w.visit.model.frame.from_ft(90.0 / 0.3048))
        stand = w.visit.model.add_area("woodland_stand", [(x - d, y - d), (x + d, y - d),
                                                          (x + d, y + d), (x - d, y + d)],
                                       label="Oaks")
        tally = w.panels["tally"]
        w.tabs.setCurrentWidget(tally)
        for dbh in (6.0, 8.0, 12.0):
            tally.dbh.setValue(dbh)
            tally.add_button.click()
        assert len(w.visit.trees()) == 3, tally.state.text()
        qtbot.waitUntil(lambda: "provisional — 3 trees so far" in tally.summary.text(),
                        timeout=WAIT_MS)
        check = w.visit.checks.get(f"woodland:{stand.uuid}")
        assert check.status == "provisional"
        row = w.checks_panel.row_of(check.check_id)
        assert w.checks_panel.table.item(row, 1).text() == "provisional"
        tally.retained.setValue(0.5)
        assert w.visit.current_stand().retained_area_ac == 0.5
        tally.complete.click()
        assert asked and "3 of the stand's 25 trees are tallied" in asked[0]
        qtbot.waitUntil(lambda: w.visit.checks.get(f"woodland:{stand.uuid}").status
                        == "determined", timeout=WAIT_MS)
        field = {c.check_id: (c.status, c.result.get("retained_pct"))
                 for c in w.visit.checks.all() if c.check_id.endswith(stand.uuid)}
        assert field[f"mitigation:{stand.uuid}"][0] == "determined"
        path = w.visit.path
        conn = sqlite3.connect(path)
        assert conn.execute("SELECT retained_area_ac, tally_complete FROM area_feature"
                            " WHERE label = 'Oaks'").fetchall() == [(0.5, 1)]
        conn.close()
        # another visit, then this one again: the panel and the verdicts come from the file
        visit_mod.switch_to(w, visit_mod.open_visit(path.with_name("other.gpkg")))
        qtbot.waitUntil(lambda: tally.retained.value() == 0.0, timeout=WAIT_MS)
        visit_mod.choose_and_open(w, path)
        qtbot.waitUntil(lambda: tally.retained.value() == 0.5, timeout=WAIT_MS)
        assert tally.complete.isChecked()
        w.visit.refresh_checks()
        again = {c.check_id: (c.status, c.result.get("retained_pct"))
                 for c in w.visit.checks.all() if c.check_id.endswith(stand.uuid)}
        assert again == field
    finally:
        close_window(w)
