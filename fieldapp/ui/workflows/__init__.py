"""The field workflows as panels of the main window: OHWM, Transect, Tally, Boundary, Lines,
Stake-out (:mod:`fieldapp.ui.stakeout`) and Plot (wetland determination data points)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QSignalBlocker, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QLineEdit,
    QSpinBox,
    QWidget,
)

#: The workflow tabs in order (Ctrl+1 ... Ctrl+7): name in ``window.panels``, tab title, class.
#: The titles are the classes' ``title`` (tests/ui/test_ui_startup_lazy.py checks it); the
#: classes are imported when their panel is built.
WORKFLOWS = (
    ("ohwm", "OHWM", "fieldapp.ui.workflows.ohwm:OhwmPanel"),
    ("transect", "Transect", "fieldapp.ui.workflows.transect:TransectPanel"),
    ("tally", "Tally", "fieldapp.ui.workflows.tally:TallyPanel"),
    ("boundary", "Boundary", "fieldapp.ui.workflows.boundary:BoundaryPanel"),
    ("lines", "Lines", "fieldapp.ui.workflows.lines:LinesPanel"),
    ("stake-out", "Stake-out", "fieldapp.ui.stakeout:StakeoutPanel"),
    ("plot", "Plot", "fieldapp.ui.workflows.datapoint:DataPointPanel"),
)

#: What each panel keeps in view under its controls (WorkflowPanel.dock_below): the attribute,
#: its least and its first height (px): the OHWM points and the tally (the header and a row at
#: least, four or five at first), the live profile, the live area of a boundary walked and a
#: wetland's verdicts under it (as tall as its lines: BoundaryPanel.fit_readout).
DOCKED = {"ohwm": ("table", 80, 200), "transect": ("profile", 80, 230),
          "tally": ("table", 80, 230), "boundary": ("readout", 30, 30)}


class Panels(dict[str, Any]):
    """``window.panels``: the workflow panels by name, as they are built. The tab shown at start
    (OHWM) is built with the window; the others one per turn of the event loop once the window's
    first frame is painted (:func:`finish_in_turns`: while the visit opens and after the devices
    start; a panel built after either is told it, :func:`_caught_up`), all at once when a
    device reading comes first (every panel hears readings), or at once when their tab is
    opened (a click, its Ctrl+N) or a panel is asked for here by name."""

    def __init__(self, window: Any) -> None:
        super().__init__()
        self.window = window

    def __missing__(self, name: str) -> Any:
        if name not in {n for n, _t, _c in WORKFLOWS}:
            raise KeyError(name)
        return _build_panel(self.window, name)


@dataclass(frozen=True)
class WorkflowParts:
    """What :func:`install_workflows` builds for the window to hold
    (:meth:`fieldapp.ui.mainwindow.MainWindow.keep_workflows`)."""

    panels: Panels                      # the workflow panels by name, built lazily
    checks_panel: Any                   # fieldapp.ui.checkspanel.ChecksPanel
    key_guard: Any                      # fieldapp.ui.keys.KeyGuard
    show_legend: Callable[[], None]     # the key legend says the keys of the panel shown
    remember_form: Callable[[Any], None]    # a panel's form as built (reset on a new visit)


@dataclass(frozen=True)
class EditingPages:
    """The Records and Photos tabs' placeholder pages and their keys' actions until
    :func:`install_editing` builds them (:meth:`~fieldapp.ui.mainwindow.MainWindow.keep_editing_pages`)."""

    pages: list[QWidget]
    actions: list[QAction]


def install_workflows(window: Any) -> None:
    """Add the workflow tabs and the checks panel to ``window``; bind every tab key and the
    keys of the panel shown. The other panels are built by :func:`finish_workflows`.

    A panel key (``A``, ``Ctrl+Z`` ...) is one window action that runs the handler of the
    panel currently shown, so the same key can mean "undo" in two panels; a panel's keys are
    bound when it is built (they act only while it is shown, and it is built before that).
    """
    from fieldapp.ui.checkspanel import ChecksPanel

    panels = Panels(window)
    for n, (name, title, _cls) in enumerate(WORKFLOWS, start=1):
        page = QWidget()                 # until the panel is built (never shown empty)
        window._tab_pages[name] = page
        window.add_workflow(page, title, f"Ctrl+{n}")
    # first, so that every other listener of a tab change sees the built panel
    window.tabs.currentChanged.connect(lambda i: _build_tab(window, i))
    # every workflow tab in view (no scroll arrows): the panel is never narrower than its tabs
    window.fit_to_width()
    checks_panel = ChecksPanel()
    window.lower_tabs.insertTab(0, checks_panel, "Checks [Ctrl+K]")
    window.lower_tabs.setCurrentIndex(0)
    window._action("Checks", "Ctrl+K", window.show_checks)
    # Esc also cancels a running report / export / sync; Ctrl+Z, Del and Backspace are also the
    # editor's (install_editing points these actions to it: two actions on one key would be
    # ambiguous and neither would fire), so they are bound before any panel is built
    _bind_keys(window, ["Esc", "Ctrl+Z", "Del", "Backspace"])
    window.tabs.currentChanged.connect(lambda _i: _refresh_current(window))
    _share_f_key(window)
    key_guard, show_legend = _install_key_guard(window)
    window.keep_workflows(WorkflowParts(
        panels=panels, checks_panel=checks_panel, key_guard=key_guard, show_legend=show_legend,
        remember_form=_install_reset_on_new_visit(window)))
    _build_panel(window, WORKFLOWS[0][0])          # the tab shown at start
    window.keep_editing_pages(_early_editing(window))


#: the editor's keys (Records tab, edit, redo) and the Photos tab's, bound with the window
EDITING_KEYS = (("Records", "Ctrl+T"), ("Edit selected", "F4"), ("Redo", "Ctrl+Shift+Z"),
                ("Attach photos…", "Ctrl+Shift+P"))


def _early_editing(window: Any) -> EditingPages:
    """The Records and Photos tabs as empty pages, and their keys, until :func:`install_editing`
    builds them (on the turn after the first frame; at once when a key or a click on either
    tab comes first). Their modules bring in the whole model (~0.1 s on a 2-core laptop)."""
    pages: list[QWidget] = [QWidget(), QWidget()]
    window.lower_tabs.addTab(pages[0], "Records [Ctrl+T]")
    window.lower_tabs.addTab(pages[1], "Photos")
    actions: list[QAction] = []
    for text, key in EDITING_KEYS:
        def run(_checked: bool = False, key: str = key) -> None:
            install_editing(window)
            for act in window.actions():        # the editor's own action for the key
                if key in [k.toString() for k in act.shortcuts()]:
                    act.trigger()
                    return
        actions.append(window._action(text, key, run))
    window.lower_tabs.currentChanged.connect(
        lambda _i: install_editing(window)
        if window.lower_tabs.currentWidget() in window._editing_pages else None)
    return EditingPages(pages=pages, actions=actions)


def install_editing(window: Any) -> None:
    """Build the Records tab, the editor (Ctrl+Z / Ctrl+Shift+Z / Del / F4, map selection) and
    the Photos tab (Ctrl+Shift+P, image files dropped on the map) in place of their pages;
    nothing the second time."""
    if window.editor is not None:
        return
    with _caught_up(window):
        _install_editing(window)


def _install_editing(window: Any) -> None:
    from fieldapp.ui.editing import install_editing as editing
    from fieldapp.ui.photos import install_photos

    tabs = window.lower_tabs
    pages = window._editing_pages
    current = pages.index(tabs.currentWidget()) if tabs.currentWidget() in pages else None
    for act in window._editing_actions:
        window.removeAction(act)
        act.deleteLater()
    with QSignalBlocker(tabs):          # the tabs are appended again in the same order
        for page in pages:
            tabs.removeTab(tabs.indexOf(page))
            page.deleteLater()
        editor = editing(window)
        photos = install_photos(window, editor)
        window.keep_editing(editor, photos)
        if current is not None:
            tabs.setCurrentWidget((editor.records, photos)[current])
    if current is not None:             # the tab's own listeners (a view refreshed when shown)
        tabs.currentChanged.emit(tabs.currentIndex())


def finish_workflows(window: Any) -> None:
    """Build every workflow panel not built yet, the editor and the Photos tab, now (a device
    reading that comes before :func:`finish_in_turns` has built them all: no panel misses it)."""
    for name, _title, _cls in WORKFLOWS:
        if name not in window.panels:
            _build_panel(window, name)
    install_editing(window)


#: How long (ms) after a map draw or model refresh due the next panel is built (the draw and
#: the paint of what it drew come first; a draw takes a few ms)
PAINT_FIRST_MS = 10


def finish_in_turns(window: Any, then: Callable[[], None]) -> None:
    """Build the workflow panels not built yet one per turn of the event loop, then the editor
    and the Photos tab; then ``then()``. Started once the window's first frame is painted
    (:func:`fieldapp.ui.app.create_window`): the visit opens and the first fix is drawn between
    two panels, not after all of them (issue 33: the first fix on screen), and a panel waits
    while the map has a draw due or the window a model refresh (a fix, a change: at most
    1 / ``redraw_hz`` s); a panel's tab opened meanwhile builds it at once."""

    def step() -> None:
        waiting = [t for t in (window.map.timer, window.refresh_timer) if t.isActive()]
        if waiting:         # a fix or a change waits to be drawn (within 1 / redraw_hz): it
            # goes first, and its paint (the turn after the draw) too
            QTimer.singleShot(max(t.remainingTime() for t in waiting) + PAINT_FIRST_MS, window,
                              step)
            return
        for name, _title, _cls in WORKFLOWS:
            if name not in window.panels:
                _build_panel(window, name)
                QTimer.singleShot(0, window, step)
                return
        install_editing(window)
        then()

    QTimer.singleShot(0, window, step)


@contextmanager
def _caught_up(window: Any) -> Iterator[None]:
    """What is built inside is told the visit shown and the devices started if the window got
    there first (:meth:`fieldapp.app.recording.Recording.catch_up`,
    :meth:`fieldapp.app.devicefeed.DeviceFeed.catch_up`), as if built before them."""
    shown, started = window.recording.listener_count, window.devices.started_listener_count
    yield
    window.recording.catch_up(shown)
    window.devices.catch_up(started)


def _build_tab(window: Any, index: int) -> None:
    page = window.tabs.widget(index)
    for name, other in list(window._tab_pages.items()):
        if other is page:
            _build_panel(window, name)


def _build_panel(window: Any, name: str) -> Any:
    """Build the panel ``name`` into its tab (in place of the page that held it) and wire it:
    its keys, the key guard, the form reset of a new visit, map clicks; told the visit shown
    and the devices started if they came first."""
    with _caught_up(window):
        panel = _make_panel(window, name)
    if window.visit is not None:        # built after the visit was shown: its figures now
        panel.refresh()
    return panel


def _make_panel(window: Any, name: str) -> Any:
    import importlib

    index = [n for n, _t, _c in WORKFLOWS].index(name)
    module, cls_name = WORKFLOWS[index][2].split(":")
    cls = getattr(importlib.import_module(module), cls_name)
    panel = cls(**window.panel_parts.for_panel(cls))
    if name in DOCKED:
        attr, least_px, want_px = DOCKED[name]
        panel.dock_below(getattr(panel, attr), least_px, want_px)
    dict.__setitem__(window.panels, name, panel)
    tabs = window.tabs
    page = window._tab_pages.pop(name)
    at, current = tabs.indexOf(page), tabs.currentIndex()
    text, tip = tabs.tabText(at), tabs.tabToolTip(at)
    with QSignalBlocker(tabs):          # the same tab, now holding its panel
        tabs.removeTab(at)
        tabs.insertTab(at, panel, text)
        tabs.setTabToolTip(at, tip)
        tabs.setCurrentIndex(current)
    page.deleteLater()
    window.fit_to_width()               # the tabs never narrower than the new panel
    _bind_keys(window, [k for k in panel.keys if k != "F"])
    window.key_guard.guard_all(panel, _field_names(panel))
    window._remember_form(panel)
    editor = getattr(window, "editor", None)
    if editor is not None:              # built after the editor: map clicks, table selection
        editor.panel_built(name, panel)
    if tabs.currentWidget() is panel:
        window._show_legend()
    return panel


def _bind_keys(window: Any, keys: list[str]) -> None:
    """One window action per key, dispatched to the panel shown (:func:`_dispatch`)."""
    for key in sorted(set(keys) - set(window.panel_actions)):
        act = QAction(key, window)
        act.setShortcut(QKeySequence(key))
        act.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        act.triggered.connect(lambda _=False, k=key: _dispatch(window, k))
        window.addAction(act)
        window.panel_actions[key] = act


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


def _install_reset_on_new_visit(window: Any) -> Callable[[Any], None]:
    """Another visit shown: every panel's form back to how the window started (labels,
    wetland type and ticks, typed distances; the Kind combo), an averaging dropped, the
    check details cleared. The same visit shown again (after a sync) keeps what is typed.
    Returns the function that remembers a panel's form as built."""
    start: dict[Any, Any] = {}
    shown: list[Any] = [None]

    def remember(panel: Any) -> None:
        start.update({w: _form_value(w) for w in panel.body.findChildren(QWidget)
                      if isinstance(w, _FORM_WIDGETS)
                      and not isinstance(w.parent(), QAbstractSpinBox)})

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
        for p in window.panels.values():
            if getattr(p, "collecting", None) is not None:    # its epochs: the last visit's
                p.drop_averaging("another visit was shown before it ended")
            kind_changed = getattr(p, "_kind_changed", None)
            if kind_changed is not None:
                kind_changed()
        window.checks_panel.clear_selection()

    window.recording.on_shown(reset)
    return remember


def _install_key_guard(window: Any) -> tuple[Any, Callable[[], None]]:
    """One rule for workflow keys and text fields in every panel (:mod:`fieldapp.ui.keys`);
    the key legend under the tabs says it, and says when a field is typing. Returns the
    :class:`fieldapp.ui.keys.KeyGuard` (each panel's fields are guarded as it is built) and
    the function that shows the legend of the panel shown."""
    from fieldapp.ui import keys as keys_mod

    def give_back_focus() -> None:
        panel = window.tabs.currentWidget()
        if panel is not None:
            panel.focus_first()
            if QApplication.focusWidget() is guard.last_field:   # e.g. the button is off
                panel.setFocus()

    guard = keys_mod.KeyGuard(give_back_focus, window)
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

    def tab_changed(_i: int) -> None:
        guard.hint = ""             # a refused key's reason was the other tab's: moved on
        if guard.typing:
            guard.end_typing()
        else:
            show_legend()

    guard.sigChanged.connect(show_legend)
    window.tabs.currentChanged.connect(tab_changed)
    def key_refusal(text: str) -> None:
        guard.hint = text
        show_legend()

    window.notices.attach_key_legend(key_refusal, lambda: guard.hint)
    show_legend()
    return guard, show_legend


def _field_names(panel: Any) -> dict[QWidget, str]:
    """The field words of ``panel``'s unlabelled fields for the key guard (the Boundary
    panel's wetland type: an editable list of the statute's types, its line edit types)."""
    field = getattr(panel, "wetland_type", None)
    if field is None:
        return {}
    typed = field.lineEdit() if isinstance(field, QComboBox) and field.isEditable() else field
    return {} if typed is None else {typed: "Wetland type"}


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
