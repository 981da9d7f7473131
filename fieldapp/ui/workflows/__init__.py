"""The field workflows as panels of the main window: OHWM, Transect, Tally, Boundary, Lines
and Stake-out (:mod:`fieldapp.ui.stakeout`)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractSpinBox, QApplication, QCheckBox, QComboBox, QDoubleSpinBox, QLineEdit, QSpinBox,
    QWidget,
)


def install_workflows(window: Any) -> None:
    """Add the workflow panels and the checks panel to ``window``; bind every panel key.

    A panel key (``A``, ``Ctrl+Z`` ...) is one window action that runs the handler of the
    panel currently shown, so the same key can mean "undo" in two panels.
    """
    from fieldapp.ui.checkspanel import ChecksPanel
    from fieldapp.ui.stakeout import StakeoutPanel
    from fieldapp.ui.workflows.boundary import BoundaryPanel
    from fieldapp.ui.workflows.lines import LinesPanel
    from fieldapp.ui.workflows.ohwm import OhwmPanel
    from fieldapp.ui.workflows.tally import TallyPanel
    from fieldapp.ui.workflows.transect import TransectPanel

    window.panels = {}
    for n, cls in enumerate((OhwmPanel, TransectPanel, TallyPanel, BoundaryPanel, LinesPanel,
                              StakeoutPanel), start=1):
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
    _install_key_guard(window)
    _install_reset_on_new_visit(window)

    from fieldapp.ui.editing import install_editing

    install_editing(window)     # Records tab, Ctrl+Z / Ctrl+Shift+Z / Del / F4, map selection
    from fieldapp.ui.photos import install_photos

    install_photos(window)      # Photos tab, Ctrl+Shift+P, image files dropped on the map



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


_FORM_WIDGETS = (QLineEdit, QAbstractSpinBox, QCheckBox, QComboBox)


def _form_value(w: Any) -> Any:
    if isinstance(w, QLineEdit):
        return w.text()
    if isinstance(w, (QSpinBox, QDoubleSpinBox)):
        return w.value()
    if isinstance(w, QCheckBox):
        return w.isChecked()
    if isinstance(w, QComboBox):    # an editable list (wetland type) keeps what was typed
        return w.currentText() if w.isEditable() else w.currentIndex()
    return None


def _set_form_value(w: Any, value: Any) -> None:
    if isinstance(w, QLineEdit):
        w.setText(value)
    elif isinstance(w, (QSpinBox, QDoubleSpinBox)):
        w.setValue(value)
    elif isinstance(w, QCheckBox):
        w.setChecked(value)
    elif isinstance(w, QComboBox) and isinstance(value, str):
        w.setCurrentText(value)
    elif isinstance(w, QComboBox) and value < w.count():
        w.setCurrentIndex(value)


def _install_reset_on_new_visit(window: Any) -> None:
    """Another visit shown: every panel's form back to how the window started (labels,
    wetland type and ticks, typed distances; the Kind combo), an averaging dropped, the
    check details cleared. The same visit shown again (after a sync) keeps what is typed."""
    panels = list(window.panels.values())
    start = {w: _form_value(w) for p in panels for w in p.body.findChildren(QWidget)
             if isinstance(w, _FORM_WIDGETS) and not isinstance(w.parent(), QAbstractSpinBox)}
    shown: list[Any] = [None]

    def reset(visit: Any) -> None:
        path = getattr(visit, "path", None)
        if path is None or path == shown[0]:
            return
        first, shown[0] = shown[0] is None, path
        if first:
            return
        for w, value in start.items():
            with QSignalBlocker(w):            # a reset is no edit of the new visit
                _set_form_value(w, value)
        for p in panels:
            if getattr(p, "collecting", None) is not None:
                p.collecting = None
            kind_changed = getattr(p, "_kind_changed", None)
            if kind_changed is not None:
                kind_changed()
        window.checks_panel.clear_selection()

    window.visit_listeners.append(reset)


def _install_key_guard(window: Any) -> None:
    """One rule for workflow keys and text fields in every panel (:mod:`fieldapp.ui.keys`);
    the key legend under the tabs says it, and says when a field is typing."""
    from fieldapp.ui import keys as keys_mod

    def give_back_focus() -> None:
        panel = window.tabs.currentWidget()
        if panel is not None:
            panel.focus_first()
            if QApplication.focusWidget() is guard.last_field:   # e.g. the button is off
                panel.setFocus()

    guard = keys_mod.KeyGuard(give_back_focus, window)
    boundary = window.panels.get("boundary")
    names = {}
    if boundary is not None:    # an editable list of the statute's types: its line edit types
        field = boundary.wetland_type
        names[field.lineEdit() if isinstance(field, QComboBox) and field.isEditable() else field] = "Wetland type"
    for panel in window.panels.values():
        guard.guard_all(panel, names)
    window.key_guard = guard
    legend = window.key_legend
    legend.ensurePolished()
    legend.setFixedHeight(2 * legend.fontMetrics().lineSpacing() + 8)  # never moves the tabs

    def show_legend() -> None:
        legend.setText(guard.legend(_panel_keys(window.tabs.currentWidget())))
        role = "typing" if guard.typing is not None else "reason" if guard.hint else ""
        if legend.property("role") != role:
            legend.setProperty("role", role)
            legend.style().unpolish(legend)
            legend.style().polish(legend)

    guard.sigChanged.connect(show_legend)
    window.tabs.currentChanged.connect(lambda _i: guard.end_typing() if guard.typing else
                                       show_legend())
    window.show_key_refusal = lambda text: (setattr(guard, "hint", text), show_legend())
    show_legend()


def _panel_keys(panel: Any) -> str:
    """The letter keys of ``panel``, e.g. ``"W, V, P, R"``."""
    return ", ".join(k for k in getattr(panel, "keys", {}) if len(k) == 1)


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
