"""Issue 29's last window inputs: the site's NR 151.125 in-fill area and each stream's "mapped
on" corrected on the Records tab's Site form for an existing visit (undoable, and the
protective-area verdict follows). FIELDAPP_SHOTS=DIR saves the screenshots."""

from __future__ import annotations

import os

import pytest

from fieldapp.app import editing as E
from fieldapp.survey.features import Layer, WaterFeature
from tests.ui.ui_support import WAIT_MS, close_window, make_window


@pytest.fixture
def window(qtbot, private_dirs):
    w = make_window(qtbot, private_dirs)
    qtbot.waitUntil(lambda: w.startup_done and w.visit is not None, timeout=WAIT_MS)
    w.visit.model.set_crs("EPSG:32616")
    yield w
    close_window(w)


def _shot(widget, name):
    where = os.environ.get("FIELDAPP_SHOTS")
    if where:
        widget.grab().save(os.path.join(where, name))


def test_infill_and_mapped_on_corrected_on_the_site_form(qtbot, window):
    w = window
    m = w.visit.model
    m.update_site(water_features=(WaterFeature("Mill Creek", "stream"), WaterFeature("Pond", "lake")))
    w.editor.select(E.Selection(Layer.SITE, m.site.uuid))
    form = w.editor.edit_selected()
    # the lake has no "mapped on": only the stream (feature 0) gets its map fields
    assert {"infill_area_ac", "infill_within_development", "mapped_on:0", "map_name:0"} <= set(form.inputs)
    assert "mapped_on:1" not in form.inputs
    form.inputs["infill_area_ac"].setText("3.2")
    form.inputs["infill_within_development"].setCurrentIndex(1)     # yes
    combo = form.inputs["mapped_on:0"]
    combo.setCurrentIndex(combo.findData("usgs_7_5_minute"))
    form.inputs["map_name:0"].setText("Decorah 1994")
    _shot(form, "site-form-infill-mapped-on.png")
    form.save_button.click()
    site = m.site
    assert (site.infill_area_ac, site.infill_within_development) == (3.2, True)
    assert (site.water_features[0].mapped_on, site.water_features[0].map_name) == ("usgs_7_5_minute", "Decorah 1994")
    assert site.water_features[1].mapped_on is None
    # the protective area now decides (4)(b) from the area: under 5 ac in existing development
    qtbot.waitUntil(lambda: (c := w.visit.checks.get("protective_area")) is not None
                    and c.result.get("infill_area_ac") == 3.2, timeout=WAIT_MS)
    assert w.visit.checks.get("protective_area").result["status"] == "exempt"
    # one undo takes the whole correction back
    w.editor.undo()
    assert (m.site.infill_area_ac, m.site.water_features[0].mapped_on) == (None, None)
    # a sheet without its map is refused in field words; nothing changes
    w.editor.select(E.Selection(Layer.SITE, m.site.uuid))
    form = w.editor.edit_selected()
    form.inputs["map_name:0"].setText("sheet 12")
    form.save_button.click()
    assert "Mill Creek: a map sheet needs the map it is on" in form.error.text()
    assert m.site.water_features[0].map_name is None
    form.reject()
