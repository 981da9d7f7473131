"""Tap targets of at least 9 mm on the screen itself (issue 28, gloves): the theme's sizes come
from the screen's physical density, with the 40 px floor when the screen reports none."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QStyle,
    QStyleOptionSpinBox,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)


class Screen:
    """What the theme asks of a QScreen: densities in device-independent dots per inch."""

    def __init__(self, physical: float, logical: float = 96.0) -> None:
        self.physical, self.logical = physical, logical

    def physicalDotsPerInch(self) -> float:  # noqa: N802 - Qt name
        return self.physical

    def logicalDotsPerInch(self) -> float:  # noqa: N802 - Qt name
        return self.logical


@pytest.mark.parametrize("screen, px", [
    # 8" 1280 x 800 tablet at 100 %: 188.7 dpi; 9 mm = 66.9 px
    (Screen(188.7), 67),
    # 10.1" 1920 x 1200 at 100 %: 224.2 dpi; 9 mm = 79.4 px
    (Screen(224.2), 80),
    # 10.1" 1920 x 1200 at 200 % (112.1 device-independent dpi): 39.7 px, the 40 px floor
    (Screen(112.1), 40),
    # 13.3" 1920 x 1080 at 150 % (110.4): the floor
    (Screen(110.4), 40),
    # no screen size reported (a remote desktop): infinite / zero density -> the logical 96
    (Screen(float("inf")), 40),
    (Screen(0.0), 40),
    (Screen(float("nan"), logical=144.0), 52),      # 9 mm at 144 dpi = 51.0 px
])
def test_tap_target_is_9_mm_at_the_screens_density(screen, px):
    from fieldapp.ui import theme

    assert theme.tap_px(screen) == px


@pytest.fixture
def dense_theme(qapp):
    """The app's theme applied for an 8" 1280 x 800 tablet at 100 % (188.7 dpi); the plain
    style and the 40 px sizes again after."""
    from fieldapp.ui import theme

    before = (qapp.styleSheet(), qapp.palette(), qapp.font(), qapp.style().name())
    theme.apply(qapp, screen=Screen(188.7))
    yield theme
    theme.use_tap_px(theme.TOUCH_PX_LEAST)
    sheet, palette, font, style = before
    qapp.setStyleSheet(sheet)
    qapp.setPalette(palette)
    qapp.setFont(font)
    qapp.setStyle(style)


def test_a_dense_screen_gets_larger_targets(qtbot, dense_theme):
    from fieldapp.ui.checkspanel import ChecksPanel
    from fieldapp.ui.workflows.base import big_button

    theme = dense_theme
    assert theme.TOUCH_PX == 67 and theme.BIG_BUTTON_HEIGHT_PX == 75
    assert theme.STYLE_SHEET == theme.style_sheet(False)
    assert "width: 67px; height: 67px" in theme.STYLE_SHEET
    w = QWidget()
    qtbot.addWidget(w)
    lay = QVBoxLayout(w)
    spin = QDoubleSpinBox()
    button = big_button("Average point", "A")
    checks = ChecksPanel()
    table = QTableWidget(3, 2)
    theme.touch_rows(table)
    for x in (spin, button, checks, table):
        lay.addWidget(x)
    w.show()
    qtbot.waitExposed(w)
    opt = QStyleOptionSpinBox()
    spin.initStyleOption(opt)
    for sc in (QStyle.SC_SpinBoxUp, QStyle.SC_SpinBoxDown):
        r = spin.style().subControlRect(QStyle.CC_SpinBox, opt, sc, spin)
        assert r.width() >= 67 and r.height() >= 67, r
    assert button.height() >= 75
    assert table.rowHeight(0) >= 67
    assert checks.table.verticalHeader().defaultSectionSize() == 67


def test_the_offscreen_screen_keeps_the_40_px_floor(qapp):
    from fieldapp.ui import theme

    # offscreen Qt reports 100 dpi: 9 mm = 35.4 px, under the floor
    assert theme.tap_px() == 40
