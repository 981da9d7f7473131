"""Issue 35 item 1: one antenna height per visit, used everywhere. A visit made with 6.5 ft
shows "Ant 6.50 ft" on the strip, gives the receiver 1.9812 m (each fix's ground elevation),
the Devices dialog shows and changes that one, and the change is kept with its time."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from fieldapp import store
from fieldapp.survey.antenna import visit_history_words
from fieldapp.survey.features import AntennaHeight
from fieldapp.survey.visit import Visit
from tests.ui.ui_support import WAIT_MS, close_window, make_window, wait_fix

#: where the screenshots go (FIELDAPP_SHOTS=docs/screenshots keeps them)
SHOTS = Path(os.environ.get("FIELDAPP_SHOTS", "/tmp"))


@pytest.fixture
def ft_visit(private_dirs):
    path = private_dirs / "data" / "pole.gpkg"
    path.parent.mkdir(parents=True)
    model = Visit.new("Pole", antenna_height_m=1.9812, antenna_height_unit="ft")
    store.create_visit(path, model).close()
    return path


def test_one_antenna_height_everywhere(qtbot, private_dirs, ft_visit, monkeypatch):
    # the settings' default (2.00 m) is NOT the visit's: the visit's wins everywhere
    w = make_window(qtbot, private_dirs, visit=str(ft_visit), antenna_height_m=2.0, simulate=True)
    try:
        qtbot.waitUntil(lambda: w.startup_done and w.visit is not None, timeout=WAIT_MS)
        wait_fix(qtbot, w)
        assert w.status_strip.antenna_label.text() == "Ant 6.50 ft"
        # the visit's first height is no record with a position: the first fix still sets the CRS
        qtbot.waitUntil(lambda: w.visit.model.has_frame, timeout=WAIT_MS)
        assert "not recorded" not in w.banner.text()
        # fixes after the visit opened carry the visit's height: ground = antenna - 1.9812 m
        qtbot.waitUntil(lambda: abs(w.latest_fix.antenna_height_m - 1.9812) < 1e-9, timeout=WAIT_MS)
        fix = w.latest_fix
        assert fix.ground_alt_msl_m == pytest.approx(fix.alt_msl_m - 1.9812)

        from fieldapp.ui import devicedialog

        shown: dict[str, object] = {}

        def run(dlg):
            shown["value"], shown["unit"] = dlg.antenna.value(), dlg.antenna_unit.currentText()
            dlg.grab().save(str(SHOTS / "devices_antenna_height.png"))
            dlg.antenna.setValue(5.0)                   # the pole shortened to 5 ft
            dlg.save()
            return dlg.result()

        monkeypatch.setattr(devicedialog.DeviceDialog, "exec", run)
        said: list[str] = []
        monkeypatch.setattr(QMessageBox, "information", lambda _p, _t, text: said.append(text))
        w.open_device_dialog()
        assert shown == {"value": pytest.approx(6.5), "unit": "ft"}
        assert "antenna height is 5.00 ft from now on" in said[0]
        assert w.status_strip.antenna_label.text() == "Ant 5.00 ft"
        assert w.visit.model.site.antenna_height_m == pytest.approx(1.524)
        assert w.session.gnss._assembler.antenna_height_m == pytest.approx(1.524)
        w.status_strip.grab().save(str(SHOTS / "status_antenna_height.png"))
    finally:
        close_window(w)
    # the file keeps both heights with their times, and the unit
    st = store.open_visit(ft_visit)
    try:
        v = st.visit
        heights = sorted(v.records(AntennaHeight), key=lambda r: r.created_utc)
        assert [(r.height_m, r.unit) for r in heights] == [(1.9812, "ft"), (1.524, "ft")]
        assert v.site.antenna_height_unit == "ft"
        assert v.antenna_height_at(heights[0].created_utc) == 1.9812
        words = visit_history_words(v)
        assert words.startswith("6.50 ft from ") and ", 5.00 ft from " in words
    finally:
        st.close()


def test_report_prints_the_height_as_entered():
    v = Visit.new("Pole", crs="EPSG:3070", antenna_height_m=1.9812, antenna_height_unit="ft")
    assert visit_history_words(v) == "6.50 ft"
    v.set_antenna_height(1.8, "m")
    assert v.site.antenna_height_unit == "m" and v.site.antenna_height_m == 1.8


def test_new_visit_keeps_the_unit_it_was_entered_in(qtbot, private_dirs):
    from fieldapp.app.visit import open_from_spec
    from fieldapp.ui.newvisit import NewVisitDialog

    dlg = NewVisitDialog(private_dirs / "data", crew="AS")
    qtbot.addWidget(dlg)
    dlg.name.setText("Pole height")
    dlg.antenna_unit.setCurrentIndex(1)          # ft (international)
    dlg.antenna.setValue(6.5)
    spec = dlg.spec()
    assert (spec.antenna_height_m, spec.antenna_height_unit) == (1.9812, "ft")
    visit = open_from_spec(spec)
    try:
        assert visit.model.site.antenna_height_unit == "ft"
        from fieldapp.app.antenna import height_text

        assert height_text(visit) == "6.50 ft"
    finally:
        visit.store.close()
