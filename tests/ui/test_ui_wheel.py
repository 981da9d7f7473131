"""The mouse wheel scrolls the panel, it does not change a field the user has not chosen
(issue 35 item 3): wheel events go through the real window (QTest.wheelEvent on its QWindow,
delivered as a real wheel is: to the widget under the pointer, focus given by policy)."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import QPoint, Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from tests.ui.ui_support import (  # noqa: E402,F401 - private_dirs: a fixture
    WAIT_MS,
    close_window,
    key,
    make_window,
)

WHEEL_DOWN = QPoint(0, -120)        # one notch towards the user: scroll down, step a value down
WHEEL_UP = QPoint(0, 120)


def wheel_over(w, widget, delta: QPoint) -> None:
    """One wheel notch with the pointer over ``widget``'s middle, through the window."""
    QTest.mouseMove(widget, widget.rect().center())
    at = widget.mapTo(w, widget.rect().center())
    QTest.wheelEvent(w.windowHandle(), at, delta)


@pytest.fixture
def transect_panel(qtbot, request):
    """The window at a 1366x768 laptop's maximised size on the Transect tab, made low enough
    that its panel scrolls; (window, panel)."""
    w = make_window(qtbot, request.getfixturevalue("private_dirs"))
    try:
        w.resize(1366, 768 - 30 - 38)
        qtbot.waitUntil(lambda: w.startup_done and w.visit is not None, timeout=WAIT_MS)
        key(qtbot, w, "Ctrl+2")
        panel = w.panels["transect"]
        qtbot.waitUntil(panel.isVisible, timeout=WAIT_MS)
        bar = panel.scroll.verticalScrollBar()
        if bar.maximum() == 0:      # a tall panel pane: make the window lower until it scrolls
            w.resize(1366, 420)
            qtbot.waitUntil(lambda: bar.maximum() > 0, timeout=WAIT_MS)
        bar.setValue(0)
        yield w, panel
    finally:
        close_window(w)


def test_wheel_over_transect_fields_scrolls_the_panel_and_changes_nothing(qtbot,
                                                                          transect_panel):
    w, panel = transect_panel
    bar = panel.scroll.verticalScrollBar()
    assert panel.dist_kind.currentText() == "horizontal"
    panel.azimuth.setValue(350.0)
    panel.dist.setValue(20.0)
    panel.slope.setValue(4.0)
    panel.scroll.ensureWidgetVisible(panel.dist_kind)
    w.setFocus(Qt.OtherFocusReason)             # the pointer passes by; nothing chosen
    for field in (panel.dist_kind, panel.dist, panel.slope, panel.slope_unit, panel.azimuth):
        panel.scroll.ensureWidgetVisible(field)
        before = bar.value()
        wheel_over(w, field, WHEEL_DOWN if before < bar.maximum() else WHEEL_UP)
        assert bar.value() != before, field.objectName()    # the panel scrolled
        assert not field.hasFocus(), field.objectName()     # the wheel gave it no focus
    assert panel.dist_kind.currentText() == "horizontal"
    assert panel.slope_unit.currentText() == "%"
    assert (panel.azimuth.value(), panel.dist.value(), panel.slope.value()) == (350.0, 20.0, 4.0)


def test_wheel_changes_a_field_the_user_clicked_into(qtbot, transect_panel):
    w, panel = transect_panel
    bar = panel.scroll.verticalScrollBar()
    panel.dist.setValue(20.0)
    panel.scroll.ensureWidgetVisible(panel.dist)
    QTest.mouseClick(panel.dist.lineEdit(), Qt.LeftButton)
    qtbot.waitUntil(panel.dist.hasFocus, timeout=WAIT_MS)
    before = bar.value()
    wheel_over(w, panel.dist, WHEEL_UP)
    assert panel.dist.value() == 21.0                   # one step up, as chosen
    assert bar.value() == before                        # and the panel stayed put

    # the measured-as list: clicked (its list opens), closed with Esc, then the wheel
    panel.scroll.ensureWidgetVisible(panel.dist_kind)
    QTest.mouseClick(panel.dist_kind, Qt.LeftButton)
    qtbot.waitUntil(lambda: panel.dist_kind.view().isVisible(), timeout=WAIT_MS)
    QTest.keyClick(panel.dist_kind.view(), Qt.Key_Escape)
    qtbot.waitUntil(lambda: not panel.dist_kind.view().isVisible(), timeout=WAIT_MS)
    QTest.qWait(50)         # the offscreen platform deactivates the window as the list closes
    w.activateWindow()      # (a desktop gives it back to the window at once)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is panel.dist_kind, timeout=WAIT_MS)
    assert panel.dist_kind.currentText() == "horizontal"
    wheel_over(w, panel.dist_kind, WHEEL_DOWN)
    assert panel.dist_kind.currentText() == "along slope"
