"""Check boxes readable in the sun: a dark 3 px border (Fusion's own is light grey), with the
check mark still drawn (a style-sheet border would drop it). Rendered offscreen and read back
pixel by pixel."""

from __future__ import annotations

import pytest


@pytest.fixture
def boxes(qtbot):
    """An unchecked, a checked and a disabled checked box in the field style (set on the
    widgets, so the session's application style is left alone)."""
    from PySide6.QtWidgets import QCheckBox, QVBoxLayout, QWidget

    from fieldapp.ui import theme

    style = theme.FieldStyle("Fusion")
    w = QWidget()
    qtbot.addWidget(w)
    lay = QVBoxLayout(w)
    out = []
    for checked, enabled in ((False, True), (True, True), (True, False)):
        b = QCheckBox("Stipulated bank")
        b.setStyle(style)
        b.setStyleSheet("QCheckBox::indicator { width: 28px; height: 28px; }")  # as theme's
        b.setChecked(checked)
        b.setEnabled(enabled)
        b.setFocusPolicy(b.focusPolicy().NoFocus)
        lay.addWidget(b)
        out.append(b)
    w.show()
    qtbot.waitExposed(w)
    yield style, out
    # the boxes leave the style before it goes with this fixture: qtbot deletes the widget
    # later, and a widget still pointing at a deleted style crashed the next test that set
    # the application's style (theme.apply in the `themed` fixture: a segmentation fault)
    for b in out:
        b.setStyle(None)


def _indicator(box):
    """The indicator's rectangle as the box's style (the style sheet over FieldStyle) lays it."""
    from PySide6.QtWidgets import QStyle, QStyleOptionButton

    opt = QStyleOptionButton()
    box.initStyleOption(opt)
    return box.style().subElementRect(QStyle.SE_CheckBoxIndicator, opt, box)


def test_border_is_dark_and_the_check_mark_stays(boxes):
    _style, (unchecked, checked, disabled) = boxes
    for box in (unchecked, checked, disabled):
        r = _indicator(box)
        assert r.width() >= 28 and r.height() >= 28  # the theme's size, for gloved fingers
        img = box.grab().toImage()
        # 1 px inside the indicator's left and top edges, at mid-height/width: the border
        edge = [img.pixelColor(r.left() + 1, r.center().y()), img.pixelColor(r.center().x(), r.top() + 1)]
        if box.isEnabled():
            assert all(c.lightness() < 40 for c in edge), [c.name() for c in edge]  # black
        else:
            # grey (#7a7a7a, lightness 122): visibly not the enabled black, still a clear edge
            assert all(100 < c.lightness() < 140 for c in edge), [c.name() for c in edge]
        # the check mark: dark pixels well inside the box (the border is 3 px); black when
        # enabled, grey when disabled (both darker than 160 on the white ground)
        inner = [img.pixelColor(x, y) for x in range(r.left() + 6, r.right() - 5)
                 for y in range(r.top() + 6, r.bottom() - 5)]
        dark = sum(1 for c in inner if c.lightness() < 160)
        if box.isChecked():
            assert dark > 20, dark
        else:
            assert dark == 0, dark

