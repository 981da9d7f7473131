"""A new user's bugs in the Plot tab, through the window: a region change keeps the ticks the
new region's form lists and names the ones it drops; a species typed with other capitals or
spaces is the plant list's species, one not on the list says so where it is typed."""

from __future__ import annotations

import json
import os

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt  # noqa: E402

from fieldapp.survey.features import Layer  # noqa: E402
from tests.ui.test_ui_datapoints import SHOTS, TEST_PLANTS, _add  # noqa: E402
from tests.ui.ui_support import WAIT_MS, close_window, key, make_window, wait_fix  # noqa: E402


def _window_with_a_point(qtbot, private_dirs):
    from fieldapp.app import paths
    from fieldapp.app.plantlist import from_rows

    from_rows(TEST_PLANTS, "test list (not a real plant list)").save(paths.config_dir() / "plantlist.json")
    w = make_window(qtbot, private_dirs, simulate=True, time_scale=10.0, rate_hz=10.0)
    wait_fix(qtbot, w)
    key(qtbot, w, "Ctrl+7")
    panel = w.panels["plot"]
    panel.new_role.setCurrentIndex(panel.new_role.findData("wetland"))
    panel.setFocus()
    key(qtbot, w, "G")
    qtbot.waitUntil(lambda: len(w.visit.model.features(Layer.DATA_POINT)) == 1, timeout=WAIT_MS)
    return w, panel, w.visit.model.features(Layer.DATA_POINT)[0]


def test_a_region_change_keeps_the_ticks_the_new_region_lists(qtbot, private_dirs):
    w, panel, dp = _window_with_a_point(qtbot, private_dirs)
    try:
        assert panel.region.currentData() == "northcentral-northeast"
        _add(qtbot, w, panel, "tree", "maple", 40)
        _add(qtbot, w, panel, "herb", "cattail", 60)
        ne = "northcentral-northeast"
        panel.primary[ne]["A2"].setChecked(True)
        panel.secondary[ne]["B16"].setChecked(True)        # Moss Trim Lines: not on the Midwest form
        panel.soil[ne]["F6"].setChecked(True)
        panel.soil_problem[ne]["F19"].setChecked(True)     # Piedmont Floodplain Soils: not either
        assert "DP-1: WETLAND" in panel.verdict.text()
        # switched at once, the ticks not yet kept (the save waits a moment after typing)
        panel.region.setCurrentIndex(panel.region.findData("midwest"))
        mw = "midwest"
        assert panel.primary[mw]["A2"].isChecked() and panel.soil[mw]["F6"].isChecked()
        assert panel.primary[mw]["A2"].isVisible() and not panel.primary[ne]["A2"].isVisible()
        assert "DP-1: WETLAND" in panel.verdict.text()
        assert panel.region_note.text() == (
            "Now Midwest Region: dropped hydrology B16, soil F19 (not on this region's form); the other"
            " ticks kept. Ctrl+Z in the Records tab brings them back.")
        if os.environ.get("FIELDAPP_DATAPOINT_SHOTS") == "1":
            qtbot.wait(100)     # the layout settles
            panel.body.grab().save(str(SHOTS / "datapoint-region-change.png"))
        row = w.visit.model.get(Layer.DATA_POINT, dp.uuid)
        form = json.loads(row.form_json)
        assert (row.region.value, form["region"]) == ("midwest", "midwest")
        assert form["hydrology"]["primary"] == ["A2"] and form["hydrology"]["secondary"] == []
        assert form["soil"]["indicators"] == ["F6"]
        assert row.wetland is True
        # and back: A10 (problematic in the Northcentral form, hydric in the Midwest) crosses both ways
        panel.soil[mw]["A10"].setChecked(True)
        panel.region.setCurrentIndex(panel.region.findData(ne))
        assert panel.soil_problem[ne]["A10"].isChecked() and panel.soil[ne]["F6"].isChecked()
        assert panel.region_note.text() == "Now Northcentral and Northeast Region: ticked indicators kept."
        form = json.loads(w.visit.model.get(Layer.DATA_POINT, dp.uuid).form_json)
        assert form["region"] == ne and form["soil"]["indicators"] == ["A10", "F6"]
    finally:
        close_window(w)


def _type(qtbot, panel, text):
    panel.search.clear()
    qtbot.mouseClick(panel.search, Qt.MouseButton.LeftButton)
    qtbot.keyClicks(panel.search, text)


def test_a_species_typed_matches_the_list_and_one_not_on_it_says_so(qtbot, private_dirs):
    w, panel, dp = _window_with_a_point(qtbot, private_dirs)
    try:
        # other capitals and a double space: the list's Typha latifolia (OBL), written as the list has it
        _type(qtbot, panel, "typha  LATIFOLIA")
        assert panel.match_words.text() == "On the plant list: Typha latifolia (OBL)"
        panel.cover.setValue(80)
        key(qtbot, w, "Ctrl+Return")
        assert [panel.species.item(0, c).text() for c in (1, 2)] == ["Typha latifolia", "OBL"]
        # a typo: said where it is typed, counted UPL, kept out of the recent species
        _type(qtbot, panel, "Typha latifoila")
        assert panel.match_words.text() == ("“Typha latifoila” is not on the plant list: counted UPL"
                                            " (pick it below if the list has it under another name)")
        if os.environ.get("FIELDAPP_DATAPOINT_SHOTS") == "1":
            qtbot.wait(100)     # the layout settles
            panel.body.grab().save(str(SHOTS / "datapoint-species-not-listed.png"))
        panel.cover.setValue(20)
        key(qtbot, w, "Ctrl+Return")
        assert [panel.species.item(1, c).text() for c in (1, 2)] == ["Typha latifoila", "not listed (UPL)"]
        def herb_rows():
            return len(json.loads(w.visit.model.get(Layer.DATA_POINT, dp.uuid).form_json)["vegetation"]["herb"])
        qtbot.waitUntil(lambda: herb_rows() == 2, timeout=WAIT_MS)
        form = json.loads(w.visit.model.get(Layer.DATA_POINT, dp.uuid).form_json)
        assert [r["species"] for r in form["vegetation"]["herb"]] == ["Typha latifolia", "Typha latifoila"]
        assert form["indicators"] == {"Typha latifolia": "OBL"}
        assert "Typha latifoila" not in panel.plants.recent and panel.plants.recent[0] == "Typha latifolia"
        assert "counted UPL as not on the plant list: Typha latifoila" in panel.determination.text()
    finally:
        close_window(w)
