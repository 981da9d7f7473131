"""Issue 35 item 8 (units consistent on screen): New visit offered the antenna height as
2.000 m even when the coordinate system chosen is in feet (the demo's WISCRS Vernon, US survey
ft). Its default now follows the chosen system: 6.562 ft (2.000 m converted) at a feet CRS,
metres at a metre one; a height or unit the crew typed is never changed."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt


def test_feet_crs_offers_the_default_antenna_height_in_feet(qtbot, tmp_path):
    from fieldapp.ui.newvisit import NewVisitDialog

    # a fix in Vernon County: its WISCRS (US survey feet) chosen from the start
    dlg = NewVisitDialog(tmp_path, crew="AS", fix_lat_lon=(43.592, -90.642))
    qtbot.addWidget(dlg)
    assert dlg.crs_epsg.isChecked() and dlg.epsg.value() == 7637
    assert dlg.antenna_unit.currentText().startswith("ft")
    assert dlg.antenna.value() == pytest.approx(6.562, abs=1e-9)       # 2.000 m / 0.3048
    # the crew picks a metre CRS: the default goes back to metres, the same height
    dlg.epsg.setValue(3070)
    assert dlg.antenna_unit.currentText() == "m" and dlg.antenna.value() == pytest.approx(2.0, abs=1e-9)
    dlg.epsg.setValue(7637)
    assert dlg.antenna.value() == pytest.approx(6.562, abs=1e-9)
    dlg.name.setText("Kickapoo bank")
    spec = dlg.spec()
    assert spec.antenna_height_unit == "ft"
    assert spec.antenna_height_m == pytest.approx(round(6.562 * 0.3048, 4))    # 2.0001 m


def test_a_typed_antenna_height_is_never_changed_by_the_crs(qtbot, tmp_path):
    from fieldapp.ui.newvisit import NewVisitDialog

    dlg = NewVisitDialog(tmp_path, crew="AS")            # no fix: automatic, metres
    qtbot.addWidget(dlg)
    dlg.show()
    qtbot.waitExposed(dlg)
    assert dlg.antenna_unit.currentText() == "m" and dlg.antenna.value() == pytest.approx(2.0)
    # the crew types 1.8 (m) ...
    dlg.antenna.setFocus()
    dlg.antenna.selectAll()
    qtbot.keyClicks(dlg.antenna, "1.8")
    qtbot.keyClick(dlg.antenna, Qt.Key.Key_Tab)
    assert dlg.antenna.value() == pytest.approx(1.8)
    # ... then chooses WISCRS Vernon (US survey feet): their 1.8 m stays as typed
    dlg.crs_epsg.setChecked(True)
    dlg.epsg.setValue(7637)
    assert dlg.antenna_unit.currentText() == "m" and dlg.antenna.value() == pytest.approx(1.8)
    dlg.name.setText("Kickapoo bank")
    spec = dlg.spec()
    assert spec.antenna_height_unit == "m" and spec.antenna_height_m == pytest.approx(1.8)


def test_crs_in_feet():
    from fieldapp.ui.newvisit import crs_in_feet

    assert crs_in_feet(7637) and crs_in_feet(2289) and crs_in_feet(7599)     # ftUS
    assert not crs_in_feet(3070) and not crs_in_feet(32615)                   # metres
    assert not crs_in_feet(4326) and not crs_in_feet(999999)                  # geographic, unknown
