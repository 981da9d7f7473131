"""Issue 35 item 13, glove targets in the app's theme on the real window: menu rows, the
wetland-type list's rows and check boxes at least 40 px; high contrast also changes the map
(thicker lines, stronger fills)."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtWidgets import QApplication, QCheckBox, QStyle, QStyleOptionButton

from tests.ui.ui_support import WAIT_MS

TOUCH = 40


def test_menu_rows_list_rows_and_check_boxes_take_a_gloved_finger(sample_window, qtbot, themed):
    w, _path, _info = sample_window
    menu = w.visit_menu
    menu.popup(w.mapToGlobal(w.rect().center()))
    qtbot.waitUntil(menu.isVisible, timeout=WAIT_MS)
    rows = [menu.actionGeometry(a).height() for a in menu.actions()
            if a.isVisible() and not a.isSeparator()]
    menu.hide()
    assert rows and min(rows) >= TOUCH, rows
    w.tabs.setCurrentWidget(w.panels["boundary"])
    combo = w.panels["boundary"].wetland_type
    combo.showPopup()
    view = combo.view()
    qtbot.waitUntil(view.isVisible, timeout=WAIT_MS)
    heights = [view.visualRect(view.model().index(r, 0)).height()
               for r in range(1, min(6, combo.count()))]
    combo.hidePopup()
    assert min(heights) >= TOUCH, heights
    boxes = [b for p in w.panels.values() for b in p.body.findChildren(QCheckBox)]
    assert len(boxes) >= 3
    for box in boxes:
        opt = QStyleOptionButton()
        box.initStyleOption(opt)
        ind = box.style().subElementRect(QStyle.SubElement.SE_CheckBoxIndicator, opt, box)
        assert ind.height() >= TOUCH - 4 and box.sizeHint().height() >= TOUCH, box.text()



def test_high_contrast_also_changes_the_map(sample_window, qtbot, themed):
    from PySide6.QtGui import QColor

    from tests.ui.ui_support import key

    w, _path, _info = sample_window
    m = w.map
    qtbot.waitUntil(lambda: bool(m.polygon_fills), timeout=WAIT_MS)

    def looks():
        return (m.curves["transects"].opts["pen"].widthF(), m.track.history.opts["pen"].widthF(),
                QColor(m.track.history.opts["pen"].color()).name(),
                max(f.brush().color().alpha() for f in m.polygon_fills.values()))

    assert looks() == (2, 1, "#5c6470", 40)
    w.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is w, timeout=WAIT_MS)
    key(qtbot, w, "Ctrl+Shift+H")
    assert w.contrast_action.isChecked()
    assert looks() == (5, 3, "#000000", 110)
    assert m.curves["bank"].opts["pen"].style() == m.curves["bank"].opts["pen"].style().DashLine
    key(qtbot, w, "Ctrl+Shift+H")
    assert looks() == (2, 1, "#5c6470", 40)


def test_the_new_visit_dialogs_radio_buttons_take_a_gloved_finger(qtbot, themed, tmp_path):
    """Seen walking the demo: New visit's "Automatic: county system or UTM" / "EPSG code" were
    a 14 px circle on a 25 px row while every check box was 36 px on 40: the same size now, and
    drawn with the check boxes' dark ring."""
    from PySide6.QtWidgets import QRadioButton, QStyleOptionButton

    from fieldapp.ui.newvisit import NewVisitDialog

    dlg = NewVisitDialog(tmp_path)
    qtbot.addWidget(dlg)
    dlg.show()
    radios = dlg.findChildren(QRadioButton)
    assert {r.text() for r in radios} >= {"Automatic: county system or UTM", "EPSG code"}
    for radio in radios:
        opt = QStyleOptionButton()
        radio.initStyleOption(opt)
        ind = radio.style().subElementRect(QStyle.SubElement.SE_RadioButtonIndicator, opt, radio)
        assert ind.height() >= TOUCH - 4 and radio.sizeHint().height() >= TOUCH, radio.text()
    # the ring: dark pixels on the indicator's edge, as on a check box
    radio = radios[0]
    image = radio.grab().toImage()
    opt = QStyleOptionButton()
    radio.initStyleOption(opt)
    ind = radio.style().subElementRect(QStyle.SubElement.SE_RadioButtonIndicator, opt, radio)
    edge = image.pixelColor(ind.left() + 1, ind.center().y())
    assert edge.lightness() < 90, edge.name()
