"""Issue 32 through the window: the simulated surveyor walks the demo wetland, then stands inside
it and outside it; a data point is placed at each GNSS fix, its form typed with the species
picker and the checklists, the determination shown as it is typed; the two are paired across
the boundary and the Checks rows say the boundary is supported and cite them.
FIELDAPP_DATAPOINT_SHOTS=1 saves the screenshots in docs/screenshots/ (datapoint-*.png)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt  # noqa: E402

from fieldapp.survey.features import Layer  # noqa: E402
from tests.ui.test_ui_workflows import walk_scenario_boundary  # noqa: E402
from tests.ui.ui_support import WAIT_MS, close_window, key, make_window  # noqa: E402

SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
#: A TEST list (statuses as the contract's example has them), not a real plant list.
TEST_PLANTS = [("Acer rubrum", "red maple", "FAC"), ("Typha latifolia", "broadleaf cattail", "OBL"),
               ("Poa pratensis", "Kentucky bluegrass", "FACU"), ("Solidago canadensis", "Canada goldenrod", "FACU")]


def _walk_to(qtbot, w, latlon, words):
    from fieldapp.ui.simsupport import Step

    walker = w.sim_surveyor
    walker.go([Step(list(latlon), lambda _fix: walker.say(f"at {words}."), words)], "datapoint")
    qtbot.waitUntil(lambda: not walker.busy, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: w.devices.usable_fix() is not None, timeout=WAIT_MS)


def _add(qtbot, w, panel, stratum, search, cover):
    panel.stratum.setCurrentIndex(panel.stratum.findData(stratum))
    qtbot.mouseClick(panel.search, Qt.MouseButton.LeftButton)     # a click in it: typing (fieldapp.ui.keys)
    qtbot.keyClicks(panel.search, search)
    qtbot.waitUntil(lambda: panel.picker.count() >= 1, timeout=WAIT_MS)
    item = panel.picker.item(0)
    panel.picker.setCurrentItem(item)
    panel.picker.itemClicked.emit(item)
    panel.cover.setValue(cover)
    key(qtbot, w, "Ctrl+Return")


def _tick(panel, lists, code):
    lists[panel.region.currentData()][code].setChecked(True)


def test_two_paired_data_points_and_the_boundary_between_them(qtbot, private_dirs):
    from fieldapp.app import paths
    from fieldapp.app.plantlist import from_rows
    from fieldapp.ui import simsupport

    from_rows(TEST_PLANTS, "test list (not a real plant list)").save(paths.config_dir() / "plantlist.json")
    sc = simsupport.load_scenario()
    ring = sc["wetland"]["boundary"]
    lat = sum(p[0] for p in ring[:-1]) / (len(ring) - 1)
    lon = sum(p[1] for p in ring[:-1]) / (len(ring) - 1)
    inside = (lat, lon)
    outside = (lat + 1.6 * (ring[0][0] - lat), lon + 1.6 * (ring[0][1] - lon))
    w = make_window(qtbot, private_dirs, simulate=True, time_scale=10.0, rate_hz=10.0)
    try:
        _boundary, area = walk_scenario_boundary(qtbot, w, "wetland", "Wetland A", wetland_type="shallow marsh")
        key(qtbot, w, "Ctrl+7")
        panel = w.panels["plot"]
        assert w.tabs.currentWidget() is panel
        # no data point yet: the wetland's support row asks for a pair
        sup_id = f"wetland_support:{area['uuid']}"
        qtbot.waitUntil(lambda: w.visit.checks.get(sup_id) is not None, timeout=WAIT_MS)
        assert w.visit.checks.get(sup_id).status == "needs_data"

        # DP-1, inside, at the GNSS fix
        _walk_to(qtbot, w, inside, "the middle of the wetland")
        panel.new_role.setCurrentIndex(panel.new_role.findData("wetland"))
        panel.setFocus()
        key(qtbot, w, "G")
        qtbot.waitUntil(lambda: len(w.visit.model.features(Layer.DATA_POINT)) == 1, timeout=WAIT_MS)
        (dp1,) = w.visit.model.features(Layer.DATA_POINT)
        assert dp1.name == "DP-1" and dp1.quality is not None and dp1.hdop is not None
        _add(qtbot, w, panel, "tree", "maple", 40)
        _add(qtbot, w, panel, "herb", "cattail", 60)
        assert panel.species.rowCount() == 2 and panel.species.item(1, 2).text() == "OBL"
        _tick(panel, panel.primary, "A2")
        _tick(panel, panel.secondary, "D2")
        panel.depths["water_table_in"].setText("6")
        _tick(panel, panel.soil, "F6")
        qtbot.waitUntil(lambda: "DP-1: WETLAND" in panel.determination.text(), timeout=WAIT_MS)
        assert "Prevalence Index" in panel.determination.text() and "1.80" in panel.determination.text()
        qtbot.waitUntil(lambda: w.visit.model.get(Layer.DATA_POINT, dp1.uuid).wetland is True, timeout=WAIT_MS)

        # DP-2, outside, at the GNSS fix
        _walk_to(qtbot, w, outside, "the upland beside it")
        assert panel.new_role.currentData() == "upland"       # the pair's other side comes next
        panel.setFocus()
        key(qtbot, w, "G")
        qtbot.waitUntil(lambda: len(w.visit.model.features(Layer.DATA_POINT)) == 2, timeout=WAIT_MS)
        dp2 = next(d for d in w.visit.model.features(Layer.DATA_POINT) if d.uuid != dp1.uuid)
        assert dp2.name == "DP-2" and dp2.role.value == "upland"
        assert panel.picker.item(0).data(0x0100) == "Typha latifolia"      # recent species first
        _add(qtbot, w, panel, "herb", "bluegrass", 70)
        _add(qtbot, w, panel, "herb", "golden", 20)
        qtbot.waitUntil(lambda: "DP-2: NOT wetland" in panel.determination.text(), timeout=WAIT_MS)
        qtbot.waitUntil(lambda: w.visit.model.get(Layer.DATA_POINT, dp2.uuid).wetland is False, timeout=WAIT_MS)

        # pair them across Wetland A
        assert panel.boundary.currentText() == "Wetland A"
        panel.partner.setCurrentIndex(panel.partner.findData(dp1.uuid))
        key(qtbot, w, "Ctrl+P")
        qtbot.waitUntil(lambda: w.visit.model.get(Layer.DATA_POINT, dp2.uuid).pair_uuid == dp1.uuid,
                        timeout=WAIT_MS)
        qtbot.waitUntil(lambda: w.visit.checks.get(sup_id).result.get("support") == "partial", timeout=WAIT_MS)
        # one pair supports the stretch it crosses (100 ft either side): the far side has none
        words = ("Partly supported (200 of 398 ft) by DP-1 (wetland, inside), DP-2 (upland, outside):"
                 " the north-west 99 ft and the south-west 99 ft of Wetland A have no pair")
        assert w.visit.checks.get(sup_id).result["summary"] == words
        city = w.visit.checks.get(f"wetland:{area['uuid']}")
        assert city.cites == ("boundary supported in part (200 of 398 ft) by DP-1 (wetland, inside),"
                              " DP-2 (upland, outside)")

        def shown(tips=True):
            """The checks' cells (and, with ``tips``, their tooltips: the whole summaries)."""
            tables = w.checks_panel.findChildren(type(panel.species))
            return " ".join(t.item(r, c).text() + (" " + t.item(r, c).toolTip() if tips else "")
                            for t in tables for r in range(t.rowCount())
                            for c in range(t.columnCount()) if t.item(r, c) is not None)
        qtbot.waitUntil(lambda: words in shown(), timeout=WAIT_MS)
        assert city.cites in shown()
        # the support row's details list the stretches without a pair
        key(qtbot, w, "Ctrl+K")
        w.checks_panel.table.selectRow(w.checks_panel.row_of(sup_id))
        details = w.checks_panel.details.toPlainText()
        assert ("unsupported stretches: the north-west 99 ft (100 to 199 ft along the boundary from its"
                " first walked point), the south-west 99 ft (199 to 298 ft along the boundary from its first"
                " walked point)") in details
        assert "Partly supported (200 of 398 ft) by DP-1, DP-2" in shown(tips=False)   # the cell's short verdict
        assert "paired with DP-1" in panel.state.text()

        if os.environ.get("FIELDAPP_DATAPOINT_SHOTS") == "1":
            SHOTS.mkdir(parents=True, exist_ok=True)
            w.grab().save(str(SHOTS / "datapoint-window.png"))
            panel.body.grab().save(str(SHOTS / "datapoint-form.png"))
            w.checks_panel.grab().save(str(SHOTS / "datapoint-checks.png"))
    finally:
        close_window(w)


def test_the_plant_list_import_asks_which_column_is_which(qtbot, private_dirs, tmp_path):
    """A CSV with its own column names (semicolons, Windows cp1252): the dialog lists them, the
    crew picks the status column, Load; the picker then finds species by common name."""
    from fieldapp.app.plantlist import PlantList, saved_path
    from fieldapp.rules.plantlist import SAMPLE_PATH

    csv = tmp_path / "my list.csv"
    csv.write_bytes("Taxon;Vernacular;Wet status\nTypha ×glauca;hybrid cattail;OBL\nAcer rubrum;red maple;FAC\n"
                    .encode("cp1252"))
    w = make_window(qtbot, private_dirs, simulate=True, time_scale=10.0, rate_hz=10.0)
    try:
        qtbot.waitUntil(lambda: w.startup_done and w.visit is not None, timeout=WAIT_MS)
        key(qtbot, w, "Ctrl+7")
        panel = w.panels["plot"]
        # the demo (simulated devices) offers its SAMPLE list until one is loaded
        assert panel.list_words.text().startswith("Plant list: SAMPLE list, not the National Wetland Plant List")
        dlg = panel.load_plant_list(str(csv))
        assert [dlg.scientific.itemText(i) for i in range(dlg.scientific.count())] == \
            ["Taxon", "Vernacular", "Wet status"]
        # a first guess: "taxon" is a name, "... status" the status; "Vernacular" is not recognised
        assert (dlg.scientific.currentText(), dlg.status.currentText()) == ("Taxon", "Wet status")
        assert dlg.common.currentText() == "(no common name column)"
        dlg.common.setCurrentText("Vernacular")         # the crew says which column is which
        if os.environ.get("FIELDAPP_DATAPOINT_SHOTS") == "1":
            SHOTS.mkdir(parents=True, exist_ok=True)
            dlg.grab().save(str(SHOTS / "datapoint-plantlist-import.png"))
        qtbot.mouseClick(dlg.load_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not dlg.isVisible(), timeout=WAIT_MS)
        assert len(panel.plants) == 2 and panel.plants.status("Typha ×glauca") == "OBL"
        assert "my list.csv, status column Wet status (2 species)" in panel.list_words.text()
        assert PlantList.load_saved(saved_path()).status("Acer rubrum") == "FAC"     # kept for the next run
        panel.search.setText("hybrid")
        assert panel.picker.item(0).text() == "Typha ×glauca — hybrid cattail  (OBL)"
        # the demo's SAMPLE list says it is a sample wherever it is used
        dlg = panel.load_plant_list(str(SAMPLE_PATH))
        qtbot.mouseClick(dlg.load_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not dlg.isVisible(), timeout=WAIT_MS)
        assert panel.list_words.text().startswith("Plant list: SAMPLE list, not the National Wetland Plant List")
    finally:
        close_window(w)
