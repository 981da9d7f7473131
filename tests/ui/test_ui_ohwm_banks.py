"""Issue 35 items 5 and 6 through the window: an offset shot says which bank it is on (a far-bank
shot starts the far bank's own OHWM line, never joins this bank's), the rangefinder fires from
the OHWM tab (demo), every azimuth field names its north, and the point keeps the magnetic
azimuth the compass measured and the declination applied."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fieldapp.app.ohwmbanks import is_far_bank
from fieldapp.survey.features import Layer
from tests.ui.ui_support import WAIT_MS, close_window, key, make_window, wait_fix

SHOTS = Path(os.environ.get("FIELDAPP_SHOTS", "/tmp"))


def ready(qtbot, w, button):
    """Wait until ``button`` is on and the receiver stands still (the simulated surveyor may be
    walking to its next OHWM point on a loaded machine)."""
    from fieldapp.ui.workflows.ohwm import offset_refusal

    qtbot.waitUntil(lambda: button.isEnabled() and w.usable_fix() is not None
                    and offset_refusal(w.usable_fix(), 1.0) == "", timeout=WAIT_MS * 2)


def state_lines(panel):
    """Every text the panel's state line is given from now on (a message stands there only
    until the next one: on a loaded machine the simulated surveyor's guidance can replace it
    before a check sees it)."""
    said = []
    set_text = panel.state.setText

    def record(text):
        said.append(text)
        set_text(text)
    panel.state.setText = record
    return said


def lines_of(w):
    model = w.visit.model
    return {ln.label: [p for p in w.visit.ohwm_points() if p.line_uuid == ln.uuid]
            for ln in model.features(Layer.OHWM_LINE)}


def test_far_bank_shot_starts_its_own_line_and_keeps_the_magnetic_azimuth(qtbot, private_dirs):
    w = make_window(qtbot, private_dirs, simulate=True)
    try:
        wait_fix(qtbot, w)
        key(qtbot, w, "Ctrl+1")
        panel = w.panels["ohwm"]
        assert panel.azimuth.suffix() == " ° true"
        assert w.panels.get("transect") is None or w.panels["transect"].azimuth.suffix() == " ° true"
        # this bank: an averaged point
        ready(qtbot, w, panel.average_button)
        key(qtbot, w, "A")
        qtbot.waitUntil(lambda: len(w.visit.ohwm_points()) == 1, timeout=WAIT_MS)
        qtbot.waitUntil(lambda: w.visit.model.site.declination_source is not None, timeout=WAIT_MS)
        # the shot fired from the OHWM tab fills the fields; with no bank said, nothing is recorded
        assert panel.shoot_button.isVisible()
        # the shot goes down the rangefinder's line: only once the app has that port open (on a
        # loaded machine the reader may still be connecting, and a shot sent before is lost)
        qtbot.waitUntil(lambda: w.status_strip.device_state("rangefinder") == "connected", timeout=WAIT_MS)
        said = state_lines(panel)
        key(qtbot, w, "S")
        qtbot.waitUntil(lambda: any(t.startswith("Shot received") for t in said), timeout=WAIT_MS)
        assert any("° magnetic = " in t for t in said if t.startswith("Shot received")), said
        magnetic = panel.magnetic_shot()
        assert magnetic is not None
        ready(qtbot, w, panel.offset_button)
        key(qtbot, w, "O")
        assert len(w.visit.ohwm_points()) == 1
        assert "say which bank the target is on" in panel.state.text()
        panel.bank.setCurrentIndex(2)                 # across the channel: the far bank
        panel.grab().save(str(SHOTS / "ohwm_offset_bank.png"))
        ready(qtbot, w, panel.offset_button)
        key(qtbot, w, "O")
        qtbot.waitUntil(lambda: len(w.visit.ohwm_points()) == 2, timeout=WAIT_MS)
        lines = lines_of(w)
        assert sorted(lines) == ["OHWM 1", "OHWM 1 far bank"]
        assert [p.method.value for p in lines["OHWM 1"]] == ["averaged"]      # not joined to it
        far = lines["OHWM 1 far bank"][0]
        decl = w.visit.model.site.declination_deg
        assert far.azimuth_mag_deg == pytest.approx(magnetic)
        assert far.declination_deg == pytest.approx(decl)
        assert far.azimuth_true_deg == pytest.approx((magnetic + decl) % 360.0)
        assert "far bank's line" in panel.state.text() and "° magnetic = " in panel.state.text()
        # an averaged point afterwards goes to this bank's line, not to the far bank's (the last)
        ready(qtbot, w, panel.average_button)
        key(qtbot, w, "A")
        qtbot.waitUntil(lambda: len(w.visit.ohwm_points()) == 3, timeout=WAIT_MS)
        lines = lines_of(w)
        assert len(lines["OHWM 1"]) == 2 and len(lines["OHWM 1 far bank"]) == 1
        # a typed azimuth is true as typed: no magnetic reading kept
        panel.bank.setCurrentIndex(1)
        panel.azimuth.setValue(90.0)
        panel.distance.setValue(6.0)
        ready(qtbot, w, panel.offset_button)
        key(qtbot, w, "O")
        qtbot.waitUntil(lambda: len(w.visit.ohwm_points()) == 4, timeout=WAIT_MS)
        typed = lines_of(w)["OHWM 1"][-1]
        assert (typed.azimuth_true_deg, typed.azimuth_mag_deg, typed.declination_deg) == (90.0, None, None)
        assert not any(is_far_bank(w.visit.model.get(Layer.OHWM_LINE, p.line_uuid))
                       for p in lines_of(w)["OHWM 1"])
    finally:
        close_window(w)


def test_the_ohwm_table_says_which_points_are_the_far_banks(sample_window, qtbot):
    """Seen walking the demo: after a far-bank shot the table read "1 averaged, 2 averaged,
    1 offset" (the far bank's line numbers its points from 1 too): its rows say "far bank"."""
    from tests.app.test_app_stakeout import X0, Y0, walk

    w, _path, _info = sample_window
    panel = w.panels["ohwm"]
    w.tabs.setCurrentWidget(panel)
    w.refresh_from_model()
    qtbot.waitUntil(lambda: panel.table.rowCount() == len(w.visit.ohwm_points()) >= 1, timeout=WAIT_MS)
    before = panel.table.rowCount()
    fix = walk((X0, Y0), (X0, Y0 + 2.0), 4, quality="rtk_fixed")[-1]
    w.visit.add_offset_point(fix, 180.0, 60.0, far_bank=True)
    w.refresh_from_model()
    qtbot.waitUntil(lambda: panel.table.rowCount() == before + 1, timeout=WAIT_MS)
    rows = [(panel.table.item(r, 0).text(), panel.table.item(r, 1).text())
            for r in range(panel.table.rowCount())]
    assert rows.count(("1", "offset, far bank")) == 1, rows
    assert all("far bank" not in method for n, method in rows if (n, method) != ("1", "offset, far bank"))


def test_the_simulated_surveyor_stays_on_its_bank_after_a_far_bank_shot(qtbot, private_dirs):
    """Seen walking the demo: after points 1 and 2 and a far-bank shot the surveyor walked on
    to "point 4 of the scenario" (the shot counted as a point of its bank): it goes to point 3."""
    w = make_window(qtbot, private_dirs, simulate=True, time_scale=10.0, rate_hz=10.0)
    try:
        wait_fix(qtbot, w)
        key(qtbot, w, "Ctrl+1")
        panel = w.panels["ohwm"]
        panel.epochs.setValue(5)
        for n in (1, 2):
            ready(qtbot, w, panel.average_button)
            qtbot.waitUntil(lambda: not w.sim_surveyor.busy, timeout=WAIT_MS * 2)
            key(qtbot, w, "A")
            qtbot.waitUntil(lambda n=n: len(w.visit.ohwm_points()) == n, timeout=WAIT_MS)
        qtbot.waitUntil(lambda: "point 3 of the scenario" in w.sim_surveyor.words, timeout=WAIT_MS * 2)
        qtbot.waitUntil(lambda: w.status_strip.device_state("rangefinder") == "connected", timeout=WAIT_MS)
        said = state_lines(panel)
        key(qtbot, w, "S")
        qtbot.waitUntil(lambda: any(t.startswith("Shot received") for t in said), timeout=WAIT_MS)
        panel.bank.setCurrentIndex(2)                 # across the channel: the far bank
        ready(qtbot, w, panel.offset_button)
        key(qtbot, w, "O")
        qtbot.waitUntil(lambda: len(w.visit.ohwm_points()) == 3, timeout=WAIT_MS)
        qtbot.wait(500)
        assert "point 3 of the scenario" in w.sim_surveyor.words, w.sim_surveyor.words
        assert "point 4" not in w.sim_surveyor.words
    finally:
        close_window(w)


def test_the_maps_ohwm_label_stays_on_the_walked_line(sample_window, qtbot):
    """Seen walking the demo: after a far-bank shot the map's "OHWM" label sat on the far bank's
    lone point (the first line drawn), away from the line the crew walked."""
    from tests.app.test_app_stakeout import X0, Y0, walk

    w, _path, _info = sample_window
    m = w.map
    assert len(w.visit.ohwm_points()) >= 2
    fix = walk((X0, Y0), (X0, Y0 + 2.0), 4, quality="rtk_fixed")[-1]
    w.visit.add_offset_point(fix, 180.0, 60.0, far_bank=True)
    w.refresh_from_model()
    m.redraw()
    qtbot.waitUntil(m.ohwm_label.isVisible, timeout=WAIT_MS)
    lines = {ln.uuid: ln for ln in w.visit.model.features(Layer.OHWM_LINE)}
    walked = next(ln for ln in lines.values() if not is_far_bank(ln))
    first = w.visit.ft(*walked.geometry.coords[0])          # the map draws grid ft
    ox, oy = m.origin
    pos = m.ohwm_label.pos()
    assert (pos.x(), pos.y()) == pytest.approx((first[0] - ox, first[1] - oy), abs=0.01)
