"""The field workflows as panels of the main window: OHWM, Transect, Tally, Boundary, and
Stake-out (:mod:`fieldapp.ui.stakeout`)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence


def install_workflows(window: Any) -> None:
    """Add the workflow panels and the checks panel to ``window``; bind every panel key.

    A panel key (``A``, ``Ctrl+Z`` ...) is one window action that runs the handler of the
    panel currently shown, so the same key can mean "undo" in two panels.
    """
    from fieldapp.ui.checkspanel import ChecksPanel
    from fieldapp.ui.stakeout import StakeoutPanel
    from fieldapp.ui.workflows.boundary import BoundaryPanel
    from fieldapp.ui.workflows.ohwm import OhwmPanel
    from fieldapp.ui.workflows.tally import TallyPanel
    from fieldapp.ui.workflows.transect import TransectPanel

    window.panels = {}
    for n, cls in enumerate((OhwmPanel, TransectPanel, TallyPanel, BoundaryPanel, StakeoutPanel), start=1):
        panel = cls(window)
        window.panels[cls.title.lower()] = panel
        window.add_workflow(panel, cls.title, f"Ctrl+{n}")
    # every workflow tab in view (no scroll arrows): the panel is never narrower than its tabs
    window.tabs.setMinimumWidth(window.tabs.tabBar().sizeHint().width() + 6)
    window.checks_panel = ChecksPanel()
    window.lower_tabs.insertTab(0, window.checks_panel, "Checks [Ctrl+K]")
    window.lower_tabs.setCurrentIndex(0)
    window._action("Checks", "Ctrl+K", window.show_checks)

    # Esc also cancels a running report / export / sync (before the panel's own Esc)
    keys = sorted({k for p in window.panels.values() for k in p.keys} - {"F"} | {"Esc"})
    window.panel_actions = {}
    for key in keys:
        act = QAction(key, window)
        act.setShortcut(QKeySequence(key))
        act.setShortcutContext(Qt.WindowShortcut)
        act.triggered.connect(lambda _=False, k=key: _dispatch(window, k))
        window.addAction(act)
        window.panel_actions[key] = act
    window.tabs.currentChanged.connect(lambda _i: _refresh_current(window))
    _share_f_key(window)


def _share_f_key(window: Any) -> None:
    """``F`` is the window's Follow me, and Flag here on a panel that binds ``F`` (Stake-out):
    one shortcut (two would be ambiguous and Qt would run neither)."""
    act = getattr(window, "follow_action", None)
    if act is None:
        return
    act.triggered.disconnect()

    def follow_or_flag(_checked: bool = False) -> None:
        fn = getattr(window.tabs.currentWidget(), "keys", {}).get("F")
        if fn is not None:
            fn()
        else:
            window.map.set_follow(not window.map.follow)
        act.setChecked(window.map.follow)

    act.triggered.connect(follow_or_flag)


def _dispatch(window: Any, key: str) -> None:
    office = getattr(window, "office", None)
    if key == "Esc" and office is not None and office.busy():
        office.cancel()
        return
    panel = window.tabs.currentWidget()
    fn = getattr(panel, "keys", {}).get(key)
    if fn is not None:
        fn()


def _refresh_current(window: Any) -> None:
    panel = window.tabs.currentWidget()
    if panel is not None and window.visit is not None:
        panel.refresh()
