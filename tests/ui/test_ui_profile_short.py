"""The transect profile with the Checks unfolded (issue 35 item 12, seen walking the demo at
1366x768): the panel then leaves the profile about 155 px, and its two plots ran their axis
titles ("Elev. (ft)" over "Slope (%)") and tick numbers into each other. Below
``TWO_PLOTS_MIN_PX`` the ground is drawn alone, its distance axis titled, every title inside
its plot; folded again, the slope plot is back."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from tests.ui.ui_support import WAIT_MS, key  # noqa: E402

SEGMENTS = [(20, 4), (20, 4), (20, 17.99), (20, 17.99), (20, 20), (20, 20), (30, 5), (30, 5),
            (35, 3), (35, 3)]


def _titles_fit(plot) -> bool:
    """Each shown plot's left-axis title (drawn turned, so its width is its height) fits the
    plot's height."""
    for p in (plot.ground_plot, plot.slope_plot):
        if not p.isVisible():
            continue
        axis = p.getAxis("left")
        if axis.label.isVisible() and axis.label.boundingRect().width() > p.height():
            return False
    return True


@pytest.mark.parametrize("size", [(1366, 768), (1280, 720)])
def test_a_short_profile_draws_the_ground_alone_and_legible(sample_window, qtbot, size):
    from fieldapp.ui.profileplot import TWO_PLOTS_MIN_PX

    w, _path, _info = sample_window
    w.resize(*size)
    qtbot.waitUntil(lambda: (w.width(), w.height()) == size, timeout=WAIT_MS)
    w.activateWindow()
    key(qtbot, w, "Ctrl+2")
    panel = w.panels["transect"]
    qtbot.waitUntil(lambda: w.tabs.currentWidget() is panel, timeout=WAIT_MS)
    plot = panel.profile.plot
    plot.set_profile(SEGMENTS, 12.0, 75.0, 120.0, 120.0)
    plot.redraw()
    qtbot.waitUntil(lambda: plot.height() >= TWO_PLOTS_MIN_PX, timeout=WAIT_MS)
    assert plot.slope_plot.isVisible() and _titles_fit(plot)
    key(qtbot, w, "Ctrl+K")                              # the Checks unfold under the panel
    qtbot.waitUntil(lambda: not w.lower_fold.folded(), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: plot.height() < TWO_PLOTS_MIN_PX, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: not plot.slope_plot.isVisible(), timeout=WAIT_MS)
    assert plot.slope_plot.height() < 2
    assert plot.ground_plot.getAxis("bottom").label.isVisible()
    assert plot.ground_plot.getAxis("bottom").labelText == "Horizontal distance from OHWM"
    assert _titles_fit(plot), (plot.height(), plot.ground_plot.height())
    # the slope figures stay on the ground line
    shown = [lab.textItem.toPlainText() for lab in plot.slope_labels if lab.isVisible()]
    assert "17.99 %" in shown, shown
    w.lower_fold.fold()
    qtbot.waitUntil(lambda: plot.slope_plot.isVisible(), timeout=WAIT_MS)
    assert not plot.ground_plot.getAxis("bottom").label.isVisible()
    qtbot.waitUntil(lambda: _titles_fit(plot), timeout=WAIT_MS)     # at the next layout pass
