"""No hover-only explanations on a touch screen (issue 28): a tap on a control that is off shows
why (its tooltip), a finger held still on a control shows its tooltip without clicking it."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QInputDevice, QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QPushButton, QVBoxLayout, QWidget


@pytest.fixture
def helper(qapp):
    from fieldapp.ui import touchhelp

    h = touchhelp.TouchHelp()
    qapp.installEventFilter(h)
    yield h
    qapp.removeEventFilter(h)


@pytest.fixture
def buttons(qtbot):
    w = QWidget()
    qtbot.addWidget(w)
    lay = QVBoxLayout(w)
    off = QPushButton("Average point  [A]")
    off.setToolTip("Average an OHWM point\n— No fix from the receiver yet")
    off.setEnabled(False)
    record = QPushButton("Record tree  [R]")
    record.setToolTip("Record a tree at the caliper's DBH")
    clicks = []
    record.clicked.connect(lambda: clicks.append(1))
    lay.addWidget(off)
    lay.addWidget(record)
    w.resize(300, 200)
    w.show()
    qtbot.waitExposed(w)
    yield off, record, clicks, w
    w.close()                   # kept alive until here (its buttons are used)


def finger(widget, kind, dev):
    """A mouse event as Qt makes it from a finger on ``dev`` (a touch screen) at the middle
    of ``widget``, sent to it (as Qt delivers it from Windows' pointer messages)."""
    at = QPointF(widget.rect().center())
    held = Qt.NoButton if kind == QEvent.MouseButtonRelease else Qt.LeftButton
    ev = QMouseEvent(kind, at, QPointF(widget.mapToGlobal(at.toPoint())), Qt.LeftButton, held,
                     Qt.NoModifier, dev)
    QApplication.sendEvent(widget, ev)


def test_a_tap_on_a_button_that_is_off_says_why(helper, buttons, qtbot):
    off, _record, _clicks, _w = buttons
    dev = QTest.createTouchDevice(QInputDevice.DeviceType.TouchScreen)
    finger(off, QEvent.MouseButtonPress, dev)
    finger(off, QEvent.MouseButtonRelease, dev)
    assert helper.shown == ["Average an OHWM point\n— No fix from the receiver yet"]
    # a mouse click on it too (a moment later: not the same press)
    from fieldapp.ui.touchhelp import DOUBLE_S

    qtbot.wait(int(DOUBLE_S * 1000) + 100)
    QTest.mouseClick(off, Qt.LeftButton)
    assert len(helper.shown) == 2


def test_a_finger_held_still_shows_the_tip_and_does_not_click(helper, buttons, qtbot):
    from fieldapp.ui.touchhelp import HOLD_S

    _off, record, clicks, _w = buttons
    dev = QTest.createTouchDevice(QInputDevice.DeviceType.TouchScreen)
    finger(record, QEvent.MouseButtonPress, dev)
    assert record.isDown()
    qtbot.wait(int(HOLD_S * 1000) + 300)
    assert helper.shown == ["Record a tree at the caliper's DBH"]
    finger(record, QEvent.MouseButtonRelease, dev)
    QApplication.processEvents()
    assert clicks == [] and not record.isDown()
    # a quick tap still clicks, and shows nothing
    finger(record, QEvent.MouseButtonPress, dev)
    finger(record, QEvent.MouseButtonRelease, dev)
    QApplication.processEvents()
    assert clicks == [1] and len(helper.shown) == 1
    # a mouse held as long is a mouse: it clicks (hovering shows the tip)
    QTest.mousePress(record, Qt.LeftButton)
    qtbot.wait(int(HOLD_S * 1000) + 300)
    QTest.mouseRelease(record, Qt.LeftButton)
    assert clicks == [1, 1] and len(helper.shown) == 1
