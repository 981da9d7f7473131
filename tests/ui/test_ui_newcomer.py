"""What a newcomer hit (issue 13 item 4): refusals in field words that clear at the next
success, a new visit resets every panel, STALE gives the age of the last position and the
"Recording blocked" line never moves the layout, check names and interpretations in words."""

from __future__ import annotations

import time

import pytest

from devices.readings import CaliperReading

pytest.importorskip("pytestqt")

from tests.ui.ui_support import WAIT_MS, close_window, key, make_window, wait_fix


def test_a_refused_tree_says_why_in_field_words_and_clears_at_the_next_tree(qtbot,
                                                                           private_dirs):
    w = make_window(qtbot, private_dirs, simulate=True)
    try:
        wait_fix(qtbot, w)
        tally = w.panels["tally"]
        w.tabs.setCurrentWidget(tally)
        tally.dbh.setValue(0.0)       # nothing typed: Record tree is off and T says why
        assert not tally.add_button.isEnabled()
        key(qtbot, w, "T")
        assert w.key_legend.text() == "Record tree [T] refused: type the DBH first (it reads 0.0 in)."
        assert w.visit.trees() == []
        # a reading the model refuses (a caliper's 600 in): the banner says why in field words
        tally.on_caliper(CaliperReading(dbh_in=600.0, dbh_cm=1524.0, species_number=None,
                                        species_label=""))
        assert w.visit.trees() == []
        assert w.banner.text() == "Tree refused: DBH must be between 0.1 and 500 in"
        assert w.banner.isVisible()
        tally.dbh.setValue(12.0)
        tally.add_button.click()
        assert len(w.visit.trees()) == 1
        assert w.banner.isHidden()
        # an edit to an impossible value: refused in words, the tree keeps its DBH
        qtbot.waitUntil(lambda: tally.table.rowCount() == 1, timeout=WAIT_MS)
        tally.table.item(0, 2).setText("-3")
        assert w.banner.text() == "Edit refused: DBH must be between 0.1 and 500 in"
        assert w.visit.trees()[0].dbh_in == 12.0
        assert tally.table.item(0, 2).text() == "12.0"
    finally:
        close_window(w)


def test_a_new_visit_resets_every_panel_and_the_same_visit_again_keeps_them(qtbot,
                                                                            private_dirs):
    from fieldapp.app import visit as visit_mod

    w = make_window(qtbot, private_dirs)
    try:
        qtbot.waitUntil(lambda: w.startup_done and w.visit is not None, timeout=WAIT_MS)
        b, t, o = w.panels["boundary"], w.panels["tally"], w.panels["ohwm"]
        b.label.setText("Wetland A")
        b.wetland_type.setCurrentText("fen")
        b.standing_water.setChecked(True)
        b.hydric.setChecked(True)
        b.susceptibility.setCurrentIndex(2)
        b.kind.setCurrentIndex(1)
        t.species.setText("red oak")
        t.dbh.setValue(14.0)
        o.distance.setValue(25.0)
        w.checks_panel.details.setPlainText("Bank T1: determined")
        first = w.visit.path
        # the same visit again (as after a sync): what is typed stays
        w.set_visit(w.visit)
        assert b.label.text() == "Wetland A" and t.species.text() == "red oak"
        visit_mod.switch_to(w, visit_mod.open_visit(first.with_name("next.gpkg")))
        assert (b.label.text(), b.wetland_type.currentText(), t.species.text()) == ("", "", "")
        assert not b.standing_water.isChecked() and not b.hydric.isChecked()
        assert b.susceptibility.currentIndex() == 0 and b.kind.currentData() == "wetland"
        assert b.wetland_box.isVisibleTo(b)
        assert (t.dbh.value(), o.distance.value()) == (0.0, 0.0)
        assert w.checks_panel.details.toPlainText() == ""
        assert o.epochs.value() == w.config.average_epochs       # a setting, not a form value
    finally:
        close_window(w)


def test_stale_gives_the_age_of_the_last_position_and_the_layout_stays(qtbot, private_dirs):
    from devices.nmea.fix import Fix, FixQuality

    w = make_window(qtbot, private_dirs)        # no receiver: every fix is "blocked"
    try:
        strip = w.status_strip
        now = time.monotonic()
        w.on_fix(Fix(lat_deg=45.0, lon_deg=-90.0, quality=FixQuality.RTK_FIXED,
                     t_monotonic_s=now - 30.0))
        # the receiver goes on sending epochs with no position: fresh, but no fix
        w.on_fix(Fix(quality=FixQuality.NO_FIX, t_monotonic_s=now))
        w.refresh_usable()
        text = strip.quality_label.text()
        assert text.startswith("STALE ") and text.split()[2] == "s", text
        assert int(text.split()[1]) >= 30                     # not the 0 s of the no-fix epoch
        assert float(strip.age_label.text().split()[1]) >= 30.0
        assert strip.problem_label.text().startswith("Recording blocked: ")
        height = strip.sizeHint().height()
        strip.show_problem(None)                               # the red line goes: nothing moves
        assert strip.sizeHint().height() == height and strip.problem_label.text() == ""
    finally:
        close_window(w)


def test_checks_details_say_the_interpretations_in_words():
    from fieldapp.checks import Check
    from fieldapp.ui.checkspanel import details_text, interpretation_lines

    result = {"rule": "nr341.bank", "status": "determined", "citation": "NR 341.035(1)(a)",
              "interpretations": ["per-segment-slope", "never-below-base"]}
    text = details_text(Check("bank:1", "Bank T1 (NR 341.035)", {"rule": "nr341.bank"}, result))
    assert ("  • Slope is taken per surveyed segment between stations, never averaged or"
            " smoothed; crews put a station at every break in slope.") in text
    assert "  • The bank is never closer than the base distance, unless cut by an" in text
    assert "per-segment-slope," not in text and "Interpretation: per" not in text
    # the rules' own sentences win when the result carries them
    own = dict(result, interpretation_text={"per-segment-slope": "Per segment.",
                                            "never-below-base": "Never below base."})
    assert interpretation_lines(own) == ["Per segment.", "Never below base."]
    assert interpretation_lines({"interpretations": ["new-reading"]}) == ["new reading"]


def test_check_names_never_double_a_word():
    from shapely.geometry import box

    from fieldapp.checks import requests_for_model
    from fieldapp.survey.visit import Visit

    v = Visit.new("n", crs="EPSG:32616", who="t")
    v.ensure_frame()
    x, y = 500_000.0, 4_800_000.0
    v.add_area("wetland", box(x, y, x + 100, y + 100))
    v.add_area("wetland", box(x + 200, y, x + 300, y + 100), label="Wetland B")
    titles = sorted(title for title, _ in requests_for_model(v).values())
    assert titles == ["Data points of wetland #1 (delineation)", "Data points of wetland B (delineation)",
                      "Ordinance wetland #1 (city)", "Ordinance wetland B (city)",
                      "Protective area #1 (NR 151.125)", "Protective area Wetland B (NR 151.125)"]
