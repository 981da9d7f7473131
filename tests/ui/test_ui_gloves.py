"""Gloves and sun (issue 13 item 5), in the app's theme: spin-box arrows and table rows at
least 40 px, scroll bars at least 16 px, a high-contrast theme on Ctrl+Shift+H that is
remembered, and at least three verdict rows in view with the check details open at 1366x768."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QScrollBar,
    QStyle,
    QStyleOptionComboBox,
    QStyleOptionSpinBox,
    QTableView,
)

from tests.report.sample_visit import build_sample_visit
from tests.ui.ui_support import WAIT_MS, close_window, key, make_window

TOUCH = 40


def spin_buttons(spin):
    opt = QStyleOptionSpinBox()
    spin.initStyleOption(opt)
    style = spin.style()
    return [style.subControlRect(QStyle.CC_SpinBox, opt, sc, spin)
            for sc in (QStyle.SC_SpinBoxUp, QStyle.SC_SpinBoxDown)]


@pytest.fixture
def window(qtbot, private_dirs, themed):
    path = private_dirs / "data" / "mill-creek.gpkg"
    path.parent.mkdir(parents=True)
    build_sample_visit(path, conflict=False)
    w = make_window(qtbot, private_dirs, visit=str(path))
    w.resize(1366, 768 - 30 - 38)          # maximised on a 1366x768 laptop
    qtbot.waitUntil(lambda: w.startup_done and w.visit is not None and w.checks_panel.table.rowCount() >= 5,
                    timeout=WAIT_MS)
    yield w
    close_window(w)


def test_spin_box_arrows_and_drop_downs_are_40_px(window):
    spins = [s for p in window.panels.values() for s in p.body.findChildren(QAbstractSpinBox)]
    assert len(spins) >= 9
    for spin in spins:
        up, down = spin_buttons(spin)
        assert up.width() >= TOUCH and up.height() >= TOUCH, (spin.accessibleName(), up)
        assert down.width() >= TOUCH and down.height() >= TOUCH, (spin.accessibleName(), down)
        assert not up.intersects(down)
    for combo in [c for p in window.panels.values() for c in p.body.findChildren(QComboBox)]:
        opt = QStyleOptionComboBox()
        combo.initStyleOption(opt)
        arrow = combo.style().subControlRect(QStyle.CC_ComboBox, opt, QStyle.SC_ComboBoxArrow,
                                             combo)
        assert arrow.width() >= TOUCH, combo.objectName()


def test_table_rows_are_40_px_and_scroll_bars_16_px(window, qtbot):
    window.tabs.setCurrentWidget(window.panels["ohwm"])
    tables = [t for p in window.panels.values() for t in p.body.findChildren(QTableView)]
    tables.append(window.checks_panel.table)
    for t in tables:
        assert t.verticalHeader().defaultSectionSize() >= TOUCH, t.objectName()
    checks = window.checks_panel.table
    assert all(checks.rowHeight(r) >= TOUCH for r in range(checks.rowCount()))
    ohwm = window.panels["ohwm"].table
    qtbot.waitUntil(lambda: ohwm.rowCount() >= 3, timeout=WAIT_MS)
    assert all(ohwm.rowHeight(r) >= TOUCH for r in range(ohwm.rowCount()))
    # the style sheet sizes every scroll bar (theme.SCROLL_BAR_PX, 20 px): a panel's and a new one
    bar = window.panels["ohwm"].scroll.verticalScrollBar()
    assert bar.sizeHint().width() >= 16
    assert QScrollBar().sizeHint().width() >= 16
    assert QScrollBar(Qt.Horizontal).sizeHint().height() >= 16


def test_three_verdict_rows_stay_in_view_with_the_details_open(window, qtbot):
    panel = window.checks_panel
    window.show_checks()                 # Ctrl+K: the first row selected, details open
    qtbot.waitUntil(lambda: panel.details.toPlainText() != "", timeout=WAIT_MS)
    qtbot.wait(50)
    view = panel.table.viewport().rect()
    shown = [r for r in range(panel.table.rowCount())
             if view.contains(panel.table.visualRect(panel.table.model().index(r, 0)))]
    assert len(shown) >= 3, (shown, panel.split.sizes())
    assert panel.details.height() >= 60 and panel.details.isVisible()


def test_ctrl_shift_h_switches_the_high_contrast_theme_and_remembers_it(window, qtbot,
                                                                      private_dirs):
    from fieldapp.app import config as C
    from fieldapp.ui import theme

    app = QApplication.instance()
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=WAIT_MS)
    assert not theme.is_high_contrast(app)
    key(qtbot, window, "Ctrl+Shift+H")
    assert theme.is_high_contrast(app)
    assert app.styleSheet().endswith(theme.HIGH_CONTRAST_SHEET)
    assert window.contrast_action.isChecked()
    settings = json.loads(C.config_file().read_text(encoding="utf-8"))
    assert settings["high_contrast"] is True
    assert C.build({}).high_contrast is True          # the next start reads it
    key(qtbot, window, "Ctrl+Shift+H")
    assert not theme.is_high_contrast(app) and app.styleSheet() == theme.STYLE_SHEET
    assert json.loads(C.config_file().read_text(encoding="utf-8"))["high_contrast"] is False
