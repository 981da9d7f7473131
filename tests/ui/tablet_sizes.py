"""The main window at a Windows tablet's sizes, checked in a process of its own (issue 28).

Not collected by pytest (no ``test_`` prefix): :mod:`tests.ui.test_ui_tablet` runs
``python -m pytest tests/ui/tablet_sizes.py`` with ``QT_SCALE_FACTOR`` 1.5 and 2 set before
the QApplication exists (offscreen Qt takes the device-pixel ratio from it, once per process).
``FIELDAPP_TABLET_SHOTS=DIR`` also saves a screenshot of each size there.

At 1280 x 720 (1920 x 1080 at 150 %) and 1024 x 600 logical px (a 10" tablet at 200 %) the
window's least size fits, and in every workflow tab and every tab under the map each button
shown is inside the window and not cut off (a scroll area may hold it below its fold: it is
reached by scrolling, never sideways); no widget outside a scroll area reaches past the window;
the toolbar folds nothing into its » menu and every tab title is in view.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractScrollArea,
    QApplication,
    QScrollArea,
    QTabBar,
    QWidget,
)

from tests.report.sample_visit import build_sample_visit
from tests.ui.ui_support import WAIT_MS, close_window, key, make_window, wait_fix

SCALE = float(os.environ.get("QT_SCALE_FACTOR", "1") or 1)
SIZES = [(1280, 720), (1024, 600)]


def rect_in(widget: QWidget, ancestor: QWidget) -> QRect:
    return QRect(widget.mapTo(ancestor, widget.rect().topLeft()), widget.size())


def scroll_viewport_of(widget: QWidget, window: QWidget) -> QWidget | None:
    """The nearest scroll area's viewport ``widget`` is inside (None: not in one)."""
    parent = widget.parentWidget()
    while parent is not None and parent is not window:
        area = parent.parentWidget()
        if isinstance(area, QAbstractScrollArea) and area.viewport() is parent:
            return parent
        parent = parent.parentWidget()
    return None


def clipped_why(button: QAbstractButton, window: QWidget) -> str:
    """Why ``button`` is cut off or out of reach ("" when it is in view or a scroll away)."""
    r = rect_in(button, window)
    parent = button.parentWidget()
    while parent is not None and parent is not window:
        p = rect_in(parent, window)
        area = parent.parentWidget()
        if isinstance(area, QScrollArea) and area.viewport() is parent:
            content = area.widget()
            inner = rect_in(button, content)
            # sideways: in view; up and down: inside the content, a scroll away
            if r.left() < p.left() or r.right() > p.right():
                return f"cut off sideways by {area.objectName() or type(area).__name__}"
            if inner.top() < 0 or inner.bottom() > content.height() - 1:
                return "outside its scroll area's content"
            r = r.intersected(p) if r.intersects(p) else QRect(r.left(), p.top(), r.width(), 1)
        elif isinstance(area, QAbstractScrollArea) and area.viewport() is parent:
            # a button in a table's cell: the table scrolls to it, both ways
            if Qt.ScrollBarAlwaysOff in (area.horizontalScrollBarPolicy(),
                                         area.verticalScrollBarPolicy()):
                return f"cut off by {type(area).__name__}, which does not scroll to it"
            r = r.intersected(p) if r.intersects(p) else QRect(p.left(), p.top(), 1, 1)
        elif not p.contains(r):
            return f"cut off by {type(parent).__name__} {parent.objectName()!r} {p} {r}"
        parent = parent.parentWidget()
    if not window.rect().contains(rect_in(button, window)) and scroll_viewport_of(button, window) is None:
        return "outside the window"
    return ""


def outside_window(window: QWidget) -> list[str]:
    """Widgets shown that reach past the window (those in a scroll area's content excepted:
    the scroll area itself is checked)."""
    bad = []
    for wid in window.findChildren(QWidget):
        if wid.isWindow() or not wid.isVisible() or scroll_viewport_of(wid, window) is not None:
            continue
        if not window.rect().contains(rect_in(wid, window)):
            bad.append(f"{type(wid).__name__} {wid.objectName()!r} {rect_in(wid, window)}")
    return bad


def check_buttons(window: QWidget, where: str) -> list[str]:
    return [f"{where}: {b.text()!r} {why}" for b in window.findChildren(QAbstractButton)
            if b.isVisible() and not b.isWindow() and (why := clipped_why(b, window))]


def tabs_in_view(bar: QTabBar) -> bool:
    return bar.tabRect(bar.count() - 1).right() < bar.width()


@pytest.mark.skipif(SCALE == 1.0, reason="run by tests/ui/test_ui_tablet.py with QT_SCALE_FACTOR")
def test_tablet_sizes_everything_reachable(qtbot, private_dirs, themed):
    from fieldapp.ui.workflows import install_editing

    path = private_dirs / "data" / "mill-creek.gpkg"
    path.parent.mkdir(parents=True)
    build_sample_visit(path, conflict=True)
    w = make_window(qtbot, private_dirs, visit=str(path), simulate=True, time_scale=10.0,
                    rate_hz=10.0)
    shots = os.environ.get("FIELDAPP_TABLET_SHOTS")
    try:
        assert w.devicePixelRatio() == pytest.approx(SCALE)
        qtbot.waitUntil(lambda: w.startup_done and w.visit is not None and w.checks_panel.table.rowCount() >= 5,
                        timeout=WAIT_MS)
        wait_fix(qtbot, w)
        qtbot.waitUntil(lambda: not w.panels["tally"].squeeze_button.isHidden(), timeout=WAIT_MS)
        install_editing(w)
        problems: list[str] = []
        for size in SIZES:
            hint, least = w.minimumSizeHint(), w.minimumSize()
            assert hint.width() <= size[0] and hint.height() <= size[1], (size, hint)
            assert least.width() <= size[0] and least.height() <= size[1], (size, least)
            w.resize(*size)
            qtbot.waitUntil(lambda size=size: (w.width(), w.height()) == size, timeout=WAIT_MS)
            # the toolbar folds nothing into its » menu
            for act in w.toolbar.actions():
                if act.isVisible() and not act.isSeparator():
                    shown = w.toolbar.widgetForAction(act)
                    assert shown is not None and shown.isVisible(), (size, act.text())
                    assert w.rect().contains(rect_in(shown, w)), (size, act.text())
            assert w.status_strip.minimumSizeHint().width() <= w.width()
            # the map's readout (where you are) is never cut: the scale bar goes under it
            readout = w.map.readout
            assert readout.width() >= readout.fontMetrics().horizontalAdvance(
                w.map.READOUT_SAMPLE), (size, readout.width())
            for n in range(w.tabs.count()):
                key(qtbot, w, f"Ctrl+{n + 1}")
                panel = w.tabs.widget(n)
                qtbot.waitUntil(lambda panel=panel: panel.isVisible(), timeout=WAIT_MS)
                for m in range(w.lower_tabs.count()):
                    w.lower_tabs.setCurrentIndex(m)
                    w.lower_fold.unfold()         # folded, they show their tab bar only
                    qtbot.wait(20)
                    where = f"{size} {w.tabs.tabText(n)} / {w.lower_tabs.tabText(m)}"
                    problems += check_buttons(w, where)
                    problems += [f"{where}: {o}" for o in outside_window(w)]
                    if not tabs_in_view(w.lower_tabs.tabBar()):
                        problems.append(f"{where}: the tabs under the map scroll")
                if not tabs_in_view(w.tabs.tabBar()):
                    problems.append(f"{size}: the workflow tabs scroll")
                # a workflow panel never scrolls sideways
                assert panel.scroll.viewport().width() >= panel.body.minimumSizeHint().width(), \
                    (size, n)
            w.lower_tabs.setCurrentIndex(0)
            w.lower_fold.fold()
            key(qtbot, w, "Ctrl+1")
            qtbot.wait(300)
            assert (w.width(), w.height()) == size        # nothing shown since grew it
            if shots:
                name = f"tablet_{size[0]}x{size[1]}_at_{int(SCALE * 100)}pct.png"
                shot = w.grab()
                assert shot.width() == round(size[0] * SCALE)   # the device pixels
                shot.save(str(Path(shots) / name))
        assert not problems, "\n".join(dict.fromkeys(problems))
    finally:
        close_window(w)
        QApplication.processEvents()
