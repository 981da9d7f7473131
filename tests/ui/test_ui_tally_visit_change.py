"""A caliper reading waiting for a usable fix belongs to the visit it was squeezed in: a visit
change drops it with a message in field words, never records it in the next visit; a visit
shown again (the same file, after a sync) keeps it."""

from __future__ import annotations

import time

import pytest

from devices.readings import CaliperReading

pytest.importorskip("pytestqt")

from devices.nmea import Fix, FixMode, FixQuality
from tests.ui.ui_support import WAIT_MS, close_window, make_window

DROPPED = ("Caliper reading 12.3 in not recorded: the visit changed before a usable fix came"
           " (it was squeezed in test).")


def rtk_fix() -> Fix:
    return Fix(lat_deg=43.30, lon_deg=-91.79, alt_msl_m=260.0, quality=FixQuality.RTK_FIXED,
               mode=FixMode.THREE_D, sats_used=11, hdop=0.9, horizontal_accuracy_m=0.01,
               accuracy_source="GST", t_monotonic_s=time.monotonic())


def squeeze(tally, dbh_in: float) -> None:
    tally.on_caliper(CaliperReading(dbh_in=dbh_in, dbh_cm=round(dbh_in * 2.54, 2),
                                    species_number=None, species_label=""))


def fix_comes(w) -> None:
    """A usable fix arrives (no receiver here: the fix handed in is the recordable one)."""
    w.devices.usable_fix = lambda: w.latest_fix   # the panels ask the device feed
    w.problem = None
    w.on_fix(rtk_fix())


def test_a_reading_waiting_for_a_fix_is_not_recorded_in_the_next_visit(qtbot, private_dirs):
    from fieldapp.app import visit as visit_mod

    w = make_window(qtbot, private_dirs)            # no receiver: no usable fix
    try:
        qtbot.waitUntil(lambda: w.startup_done and w.visit is not None, timeout=WAIT_MS)
        tally = w.panels["tally"]
        w.tabs.setCurrentWidget(tally)
        squeeze(tally, 12.3)                        # at site A: held for a fix
        assert tally.state.text().startswith("1 caliper reading waiting for a usable fix")
        site_a = w.visit.path
        visit_mod.switch_to(w, visit_mod.open_visit(site_a.with_name("site-b.gpkg")))
        assert tally.state.text() == DROPPED
        assert w.key_legend.text() == DROPPED       # in view on any tab
        fix_comes(w)                                # the fix comes, at site B
        assert w.visit.trees() == []
        assert tally.state.text() == DROPPED        # nothing claims a tree was recorded
        # the next reading is site B's own, recorded at once
        squeeze(tally, 9.5)
        assert [t.dbh_in for t in w.visit.trees()] == [9.5]
        # ... and site A's file never got the tree either
        visit_mod.switch_to(w, visit_mod.open_visit(site_a))
        assert w.visit.trees() == []
    finally:
        close_window(w)


def test_two_waiting_readings_are_both_named(qtbot, private_dirs):
    from fieldapp.app import visit as visit_mod

    w = make_window(qtbot, private_dirs)
    try:
        qtbot.waitUntil(lambda: w.startup_done and w.visit is not None, timeout=WAIT_MS)
        tally = w.panels["tally"]
        squeeze(tally, 12.3)
        squeeze(tally, 8.0)
        tally.expect_crown(14.0)                    # the simulated surveyor's next crown
        visit_mod.switch_to(w, visit_mod.open_visit(w.visit.path.with_name("site-b.gpkg")))
        assert tally.state.text() == ("2 caliper readings (12.3 in, 8.0 in) not recorded: the"
                                      " visit changed before a usable fix came (they were"
                                      " squeezed in test).")
        assert tally.pending == [] and not tally.expected_crowns
        fix_comes(w)
        assert w.visit.trees() == []
    finally:
        close_window(w)


def test_the_same_visit_shown_again_keeps_its_waiting_reading(qtbot, private_dirs):
    """After a sync the window shows the same file again: the reading is still this site's
    and is recorded there once the fix comes."""
    w = make_window(qtbot, private_dirs)
    try:
        qtbot.waitUntil(lambda: w.startup_done and w.visit is not None, timeout=WAIT_MS)
        tally = w.panels["tally"]
        squeeze(tally, 12.3)
        path = w.visit.path
        w.visit.close()
        assert w.reopen_visit(path)
        assert len(tally.pending) == 1
        fix_comes(w)
        assert [t.dbh_in for t in w.visit.trees()] == [12.3]
        assert tally.state.text().startswith("Tree 1")
    finally:
        close_window(w)


def test_no_visit_shown_drops_the_waiting_reading_too(qtbot, private_dirs):
    w = make_window(qtbot, private_dirs)
    try:
        qtbot.waitUntil(lambda: w.startup_done and w.visit is not None, timeout=WAIT_MS)
        tally = w.panels["tally"]
        squeeze(tally, 12.3)
        w.visit.close()
        w.set_visit(None)
        assert tally.pending == [] and tally.state.text() == DROPPED
    finally:
        close_window(w)
