"""What the window builds later than its start (issue 18, start-up): the Transect tab's live
profile and the Conflicts view are built the first time their tab is shown, by its key or by a
click on the tab, and then work as if they had been built at start."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from tests.ui.ui_support import WAIT_MS, close_window, key, make_window


def click_tab(tabs, title_start: str) -> None:
    """Click the tab whose title starts with ``title_start``, as a user would."""
    bar = tabs.tabBar()
    index = next(i for i in range(tabs.count()) if tabs.tabText(i).startswith(title_start))
    QTest.mouseClick(bar, Qt.LeftButton, pos=bar.tabRect(index).center())


@pytest.fixture
def window(qtbot, private_dirs):
    w = make_window(qtbot, private_dirs)
    qtbot.waitUntil(lambda: w.startup_done, timeout=WAIT_MS)
    w.activateWindow()
    qtbot.waitUntil(w.isActiveWindow, timeout=WAIT_MS)
    yield w
    close_window(w)


def test_the_profile_keeps_the_data_set_before_it_is_built(qtbot):
    from fieldapp.ui.workflows.transect import ProfileOnShow

    holder = ProfileOnShow(10.0)
    qtbot.addWidget(holder)
    # two segments landward: 10 ft at 20 %, then 10 ft at 5 % (kept until the plot exists)
    holder.set_profile([(10.0, 20.0), (10.0, 5.0)], 12.0, 75.0, None, 20.0)
    assert not holder.built
    holder.show()
    qtbot.waitUntil(lambda: holder.built and holder.plot.isVisible(), timeout=WAIT_MS)
    plot = holder.plot
    xs, zs = plot.ground.getData()
    # distance 0, 10, 20 ft; elevation 0, 10 x 0.20 = 2.0, 2.0 + 10 x 0.05 = 2.5 ft
    assert list(xs) == pytest.approx([0.0, 10.0, 20.0])
    assert list(zs) == pytest.approx([0.0, 2.0, 2.5])
    assert plot.threshold.value() == pytest.approx(12.0)
    assert not plot.empty_hint.isVisible()
    # set after the build: straight to the plot, drawn at its next redraw
    holder.set_profile([(5.0, 40.0)], 12.0, 75.0, None, 5.0)
    qtbot.waitUntil(lambda: list(plot.ground.getData()[1]) == pytest.approx([0.0, 2.0]),
                    timeout=WAIT_MS)


def test_ctrl_2_builds_the_profile_in_its_room(window, qtbot):
    panel = window.panels["transect"]
    assert not panel.profile.built                  # not at start: OHWM is the tab shown
    key(qtbot, window, "Ctrl+2")
    qtbot.waitUntil(lambda: panel.profile.built and panel.profile.plot.isVisible(),
                    timeout=WAIT_MS)
    assert panel.profile.height() >= 200            # the panel gives it its room
    qtbot.waitUntil(panel.profile.plot.empty_hint.isVisible, timeout=WAIT_MS)


def test_a_click_on_the_transect_tab_builds_a_working_profile(window, qtbot):
    panel = window.panels["transect"]
    assert not panel.profile.built
    click_tab(window.tabs, "Transect")
    qtbot.waitUntil(lambda: window.tabs.currentWidget() is panel, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: panel.profile.built, timeout=WAIT_MS)
    # the empty frame of the profile: 0 to base + 25 ft across, the hint shown
    plot = panel.profile.plot
    qtbot.waitUntil(plot.empty_hint.isVisible, timeout=WAIT_MS)
    x0, x1 = plot.ground_plot.getViewBox().viewRange()[0]
    assert (x0, x1) == pytest.approx((0.0, 75.0 + 25.0))     # NR 341.035(1)(a): 75 ft base


def test_the_conflicts_view_is_built_by_a_click_on_its_tab(window, qtbot):
    assert window.conflicts_view is None
    click_tab(window.lower_tabs, "Conflicts")
    qtbot.waitUntil(lambda: window.conflicts_view is not None, timeout=WAIT_MS)
    view = window.conflicts_view
    qtbot.waitUntil(view.isVisible, timeout=WAIT_MS)
    assert view.table.rowCount() == 0                # a new visit: nothing to resolve


def test_every_workflow_tab_key_shows_its_panel(window, qtbot):
    for n, name in enumerate(("ohwm", "transect", "tally", "boundary", "lines", "stake-out"),
                             start=1):
        key(qtbot, window, f"Ctrl+{n}")
        panel = window.panels[name]
        qtbot.waitUntil(lambda p=panel: window.tabs.currentWidget() is p and p.isVisible(),
                        timeout=WAIT_MS)


@pytest.fixture
def fresh(qtbot, private_dirs):
    """Make the window just shown, in the test itself: the event loop has not turned yet (the
    panels of the tabs not shown are not built, the visit is not open). (pytest-qt turns the
    loop between a fixture's setup and the test.)"""
    made = []

    def make():
        made.append(make_window(qtbot, private_dirs))
        return made[-1]

    yield make
    for w in made:
        qtbot.waitUntil(lambda w=w: w.startup_done, timeout=WAIT_MS)
        close_window(w)


def built(window) -> list[str]:
    return [name for name in dict(window.panels)]


def test_the_tab_titles_are_the_panels_titles():
    import importlib

    from fieldapp.ui.workflows import WORKFLOWS

    for name, title, where in WORKFLOWS:
        module, cls = where.split(":")
        assert getattr(importlib.import_module(module), cls).title == title
        assert title.lower() == name


def test_at_start_only_the_tab_shown_is_built_then_all_by_the_start_up_s_end(fresh, qtbot):
    w = fresh()
    assert built(w) == ["ohwm"]
    assert w.tabs.currentWidget() is w.panels["ohwm"]
    assert "A" in w.panel_actions and "O" in w.panel_actions     # its keys are bound
    assert w.key_legend.text().startswith("Keys A, O, S act")
    qtbot.waitUntil(lambda: w.startup_done, timeout=WAIT_MS)
    assert sorted(built(w)) == sorted(["ohwm", "transect", "tally", "boundary", "lines",
                                            "stake-out", "plot"])
    for name, panel in w.panels.items():
        assert w.tabs.indexOf(panel) >= 0, name          # each in its own tab
    assert w.tabs.count() == 7


def test_a_tab_clicked_before_the_first_turn_is_built_at_once(fresh, qtbot):
    w = fresh()
    click_tab(w.tabs, "Tally")
    assert "tally" in built(w)
    tally = w.panels["tally"]
    assert w.tabs.currentWidget() is tally
    assert w.tabs.tabText(w.tabs.currentIndex()) == "Tally ^3"
    assert "T" in w.panel_actions and "C" in w.panel_actions
    assert w.key_legend.text().startswith("Keys T, C act")
    qtbot.waitUntil(lambda: w.startup_done, timeout=WAIT_MS)
    assert w.tabs.currentWidget() is tally           # still the tab the user opened
    assert w.panels["tally"] is tally                # built once


def test_ctrl_4_before_the_first_turn_builds_the_boundary_tab(fresh, qtbot):
    from PySide6.QtGui import QKeySequence

    w = fresh()
    # the window's action of the key (a shortcut needs the window active, i.e. a turn of the
    # event loop, which would build every panel first): Ctrl+4 is bound from the start
    go = [a for a in w.actions() if QKeySequence("Ctrl+4") in a.shortcuts()]
    assert [a.text() for a in go] == ["Go to Boundary"]
    assert "boundary" not in built(w)
    go[0].trigger()
    assert "boundary" in built(w)
    boundary = w.panels["boundary"]
    assert w.tabs.currentWidget() is boundary
    # its wetland type field is guarded with its words, as every panel field
    field = boundary.wetland_type
    edit = field.lineEdit() if field.isEditable() else field
    assert edit.isReadOnly() and edit.accessibleName() == "Wetland type"   # not typing yet
    qtbot.waitUntil(boundary.isVisible, timeout=WAIT_MS)


def test_a_panel_asked_for_by_name_is_built(fresh, qtbot):
    w = fresh()
    lines = w.panels["lines"]
    assert "lines" in built(w)
    assert w.tabs.indexOf(lines) == 4
    with pytest.raises(KeyError):
        w.panels["no such tab"]
    qtbot.waitUntil(lambda: w.startup_done, timeout=WAIT_MS)
    assert lines.map_clicked in w.editor.map_click_handlers     # a click on the map


LOWER = ["Checks [Ctrl+K]", "Conflicts [Ctrl+J]", "Records [Ctrl+T]", "Photos"]


def lower_titles(window) -> list[str]:
    return [window.lower_tabs.tabText(i) for i in range(window.lower_tabs.count())]


def test_the_records_and_photos_tabs_are_there_at_start_and_built_by_its_end(fresh, qtbot):
    w = fresh()
    assert w.editor is None and lower_titles(w) == LOWER       # their titles from the start
    qtbot.waitUntil(lambda: w.startup_done, timeout=WAIT_MS)
    assert w.editor is not None and lower_titles(w) == LOWER   # the same tabs, built
    assert w.lower_tabs.indexOf(w.editor.records) == 2 and w.lower_tabs.indexOf(w.photos) == 3
    assert w.tabs.currentWidget() is w.panels["ohwm"]          # nothing else moved


def test_ctrl_t_before_the_first_turn_builds_and_shows_the_records(fresh, qtbot):
    from PySide6.QtGui import QKeySequence

    w = fresh()
    go = [a for a in w.actions() if QKeySequence("Ctrl+T") in a.shortcuts()]
    assert [a.text() for a in go] == ["Records"]                # one action: never ambiguous
    go[0].trigger()
    assert w.editor is not None
    assert w.lower_tabs.currentWidget() is w.editor.records
    assert [a.text() for a in w.actions() if QKeySequence("Ctrl+T") in a.shortcuts()] == ["Records"]
    assert lower_titles(w) == LOWER
    qtbot.waitUntil(lambda: w.startup_done, timeout=WAIT_MS)
    assert w.lower_tabs.currentWidget() is w.editor.records


def test_a_click_on_photos_before_the_first_turn_shows_the_photos(fresh, qtbot):
    w = fresh()
    click_tab(w.lower_tabs, "Photos")
    assert w.editor is not None and w.lower_tabs.currentWidget() is w.photos
    for key_ in ("F4", "Ctrl+Shift+Z", "Ctrl+Shift+P"):       # each key one action, the editor's
        from PySide6.QtGui import QKeySequence

        assert len([a for a in w.actions() if QKeySequence(key_) in a.shortcuts()]) == 1, key_
    qtbot.waitUntil(lambda: w.startup_done, timeout=WAIT_MS)
