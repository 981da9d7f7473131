"""Issue 35 item 12, below the fold at 1366x768: New visit's coordinate system and antenna height
were a scroll below the water features (Start visit pressed without seeing either), and after
Ctrl+L closed a wetland the Boundary panel showed only its area, the verdicts a scroll away.
Measured through the real widgets against what their scroll areas show."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import QRect  # noqa: E402

from tests.ui.test_ui_layout import fully_in_view, rect_in  # noqa: E402
from tests.ui.test_ui_workflows import walk_scenario_boundary  # noqa: E402
from tests.ui.ui_support import WAIT_MS, close_window, key, make_window  # noqa: E402

#: where the screenshots go (looked at by eye; the tests assert the geometry)
SHOTS = Path(os.environ.get("FIELDAPP_SHOTS", "/tmp/fieldapp-shots"))


def in_viewport(widget, scroll) -> bool:
    """``widget`` lies wholly inside ``scroll``'s viewport as scrolled now, and Qt paints it."""
    viewport = scroll.viewport()
    r = QRect(widget.mapTo(viewport, widget.rect().topLeft()), widget.size())
    return viewport.rect().contains(r) and not widget.visibleRegion().isEmpty()


@pytest.mark.parametrize("size", [(1366, 768), (1280, 720)])
def test_new_visit_shows_the_coordinate_system_and_antenna_height_without_scrolling(
        qtbot, tmp_path, themed, size):
    from PySide6.QtWidgets import QDialogButtonBox

    from fieldapp.ui.newvisit import NewVisitDialog

    dlg = NewVisitDialog(tmp_path, crew="AS")
    qtbot.addWidget(dlg)
    # as the dialog opens on that screen: 680 px or the screen less a 30 px title bar and a
    # 38 px taskbar, whichever is lower
    height = min(680, size[1] - 30 - 38)
    dlg.resize(min(dlg.width(), size[0]), height)
    dlg.show()
    qtbot.waitExposed(dlg)
    qtbot.waitUntil(lambda: dlg.height() == height)
    assert dlg.scroll.verticalScrollBar().value() == 0          # as first shown, not scrolled
    for widget in (dlg.name, dlg.crew, dlg.crs_auto, dlg.crs_epsg, dlg.epsg, dlg.crs_find,
                   dlg.antenna, dlg.antenna_unit):
        assert in_viewport(widget, dlg.scroll), (size, widget.objectName())
        assert fully_in_view(widget, dlg), (size, widget.objectName())
    # the antenna height is read before the water features, which start in view too
    assert rect_in(dlg.antenna, dlg).bottom() < rect_in(dlg.features, dlg).top()
    viewport = dlg.scroll.viewport()
    assert dlg.features.mapTo(viewport, dlg.features.rect().topLeft()).y() < viewport.height()
    start = dlg.findChild(QDialogButtonBox).buttons()
    assert [b.text() for b in start if fully_in_view(b, dlg)] == ["Start visit", "Cancel"]
    # glove targets kept: the antenna height and its unit are 40 px high
    assert dlg.antenna.height() >= 40 and dlg.antenna_unit.height() >= 40
    SHOTS.mkdir(parents=True, exist_ok=True)
    assert dlg.grab().save(str(SHOTS / f"newvisit-{size[0]}x{size[1]}.png"))


def test_closing_a_wetland_shows_its_verdicts_under_the_area_without_scrolling(qtbot, private_dirs):
    w = make_window(qtbot, private_dirs, simulate=True, time_scale=15.0, rate_hz=10.0)
    try:
        w.resize(1366, 768)
        qtbot.waitUntil(lambda: (w.width(), w.height()) == (1366, 768), timeout=WAIT_MS)
        # as the README's walk-through: a sedge meadow, highly susceptible (NR 151.125(1)(e))
        panel, area = walk_scenario_boundary(qtbot, w, "wetland", "Wetland A",
                                             wetland_type="sedge meadow")
        qtbot.waitUntil(lambda: "Protective area" in panel.verdict.text(), timeout=WAIT_MS)
        verdict = panel.verdict.text()
        assert "Ordinance wetland: YES — 100 % undisturbed required" in verdict
        assert "Protective area 75.0 ft wide" in verdict
        assert f"{area['area_sqft']:,.0f} sq ft" in panel.measures.text()
        # the verdicts sit right under the area, in the docked pane, all their lines in view
        qtbot.waitUntil(lambda: fully_in_view(panel.verdict, w), timeout=WAIT_MS)
        assert fully_in_view(panel.measures, w)
        assert not panel.verdict.visibleRegion().isEmpty()
        SHOTS.mkdir(parents=True, exist_ok=True)
        assert w.grab().save(str(SHOTS / "boundary-closed-1366x768.png"))
        # the Checks unfolded under the panel (Ctrl+K) leave it lower: the controls scroll,
        # the area and its verdicts stay in view
        key(qtbot, w, "Ctrl+K")
        qtbot.waitUntil(lambda: not w.lower_fold.folded(), timeout=WAIT_MS)
        qtbot.waitUntil(lambda: fully_in_view(w.checks_panel.table, w), timeout=WAIT_MS)
        assert fully_in_view(panel.verdict, w) and fully_in_view(panel.measures, w)
        assert not panel.verdict.visibleRegion().isEmpty()
        assert w.grab().save(str(SHOTS / "boundary-closed-checks-1366x768.png"))
        w.lower_fold.fold()
        assert panel.readout.isAncestorOf(panel.verdict)
        assert panel.dock is not None and panel.dock.widget(1) is panel.readout
        # every line: the label is as tall as its wrapped text needs
        assert panel.verdict.height() >= panel.verdict.heightForWidth(panel.verdict.width())
        assert panel.verdict.height() >= 3 * panel.verdict.fontMetrics().lineSpacing()
        # the controls keep their row of buttons above it
        assert panel.scroll.height() >= 60
        # another kind: the verdicts go, and the pane this sized follows them down again
        panel.kind.setCurrentIndex(panel.kind.findData("woodland_stand"))
        assert panel.verdict.text() == ""
        qtbot.waitUntil(lambda: panel.dock.sizes()[-1] == 30, timeout=WAIT_MS)
        w.sim_surveyor.stop()
    finally:
        close_window(w)
