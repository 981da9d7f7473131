"""A new boundary starts with a fresh label (issue 35 item 7): after "Stand 1" was closed, the
next boundary, a wetland, was still labelled "Stand 1". Walked through the window over the
simulated devices (the simulated surveyor walks the demo stand)."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from fieldapp.survey.features import Layer  # noqa: E402
from tests.ui.test_ui_workflows import walk_scenario_boundary  # noqa: E402
from tests.ui.ui_support import (  # noqa: E402,F401 - private_dirs: a fixture
    WAIT_MS,
    close_window,
    key,
    make_window,
)


def test_after_closing_stand_1_a_new_wetland_is_not_labelled_stand_1(qtbot, request):
    w = make_window(qtbot, request.getfixturevalue("private_dirs"), simulate=True,
                    time_scale=15.0, rate_hz=10.0)
    try:
        panel, stand = walk_scenario_boundary(qtbot, w, "woodland_stand", "Stand 1")
        assert stand["label"] == "Stand 1"
        qtbot.waitUntil(lambda: panel.state.text().startswith("Closed: Stand 1"),
                        timeout=WAIT_MS)
        # the Label is fresh at once, whatever kind comes next
        assert panel.label.text() == ""
        panel.kind.setCurrentIndex(panel.kind.findData("wetland"))
        assert panel.label.text() == "" and panel.label.placeholderText() == "e.g. Wetland A"
        assert panel.wetland_type.currentText() == "" and not panel.standing_water.isChecked()
        assert not panel.hydric.isChecked() and panel.susceptibility.currentIndex() == 0
        key(qtbot, w, "W")
        qtbot.waitUntil(lambda: w.visit.walk is not None, timeout=WAIT_MS)
        walk = w.visit.model.get(Layer.WALK, w.visit.walk.uuid)
        assert (getattr(walk.kind, "value", walk.kind), walk.label) == ("wetland", "")
        areas = w.visit.model.features(Layer.AREA)
        assert [a.label for a in areas] == ["Stand 1"]          # the stand keeps its own
        w.sim_surveyor.stop()
    finally:
        close_window(w)
