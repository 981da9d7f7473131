"""The main window: map, workflow panels, checks panel, status strip; every action has a key.

The window is a thin view: fixes and readings arrive from the bridge as queued signals, the
survey model (through :class:`fieldapp.app.visit.VisitController`) holds the data, and the
window renders and sends commands.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QSignalBlocker, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QLabel,
    QMainWindow,
    QMenu,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QTabWidget,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from fieldapp.app import antenna
from fieldapp.app.config import AppConfig
from fieldapp.app.devicefeed import DeviceFeed
from fieldapp.app.recording import Recording
from fieldapp.app.settings import Settings
from fieldapp.ui import status as status_mod
from fieldapp.ui.bridge import DeviceBridge
from fieldapp.ui.mapview import MapView
from fieldapp.ui.notices import Notices
from fieldapp.ui.recordgate import RecordGate
from fieldapp.ui.status import StatusStrip
from fieldapp.ui.toolbar import ToolbarLabel, app_icon, short_title, toolbar_sheet
from fieldapp.ui.workflows.base import PanelParts

if TYPE_CHECKING:
    from fieldapp.ui.simsupport import SimulatedSurveyor
    from fieldapp.ui.workflows import EditingPages, WorkflowParts

log = logging.getLogger(__name__)

FT_PER_M = 1.0 / 0.3048

#: A window narrower than this (logical px) gets the compact toolbar and tabs
#: (:meth:`MainWindow.fit_to_width`): a 1024 x 600 tablet; 1280 x 720 (1920 x 1080 at 150 %)
#: and 1366 x 768 keep the full ones.
COMPACT_BELOW_PX = 1200


class MainWindow(QMainWindow):
    """The field app window.

    Signals
    -------
    sigUsableChanged(bool, str)
        Whether a fix can be recorded now, and the reason when not.
    """

    sigUsableChanged = Signal(bool, str)

    def __init__(self, config: AppConfig, bridge: DeviceBridge, session: Any = None,
                 visit: Any = None) -> None:
        super().__init__()
        # the app layer the panels are given (never the window): the visit being recorded,
        # the devices, the settings; and the window's own services to them
        self.recording = Recording(visit)
        self.devices = DeviceFeed(session)
        self.settings = Settings(config)
        self.gate = RecordGate(self.devices)
        self.bridge = bridge
        self.last_position_fix: Any = None
        self.fix_count = 0
        self.latest_site_xy: tuple[float, float] | None = None
        self._quality_shown = ""          # the fix quality the strip shows (quality_name)
        self._stats_shown_at = -1e9
        # filled as the window is built and started (fieldapp.ui.workflows, .photos, .app,
        # .simsupport; fieldapp.app.visit): declared here, so the window says all it holds
        self.panels: Any = {}                   # the workflow panels by name (workflows.Panels)
        self.panel_actions: dict[str, QAction] = {}     # a panel key's one window action
        self._tab_pages: dict[str, QWidget] = {}        # a workflow tab's page until it is built
        self.checks_panel: Any = None           # fieldapp.ui.checkspanel.ChecksPanel
        self.editor: Any = None                 # fieldapp.ui.editing.Editor
        self.photos: Any = None                 # fieldapp.ui.photos.PhotosView
        self._editing_pages: list[QWidget] = []
        self._editing_actions: list[QAction] = []
        self.key_guard: Any = None              # fieldapp.ui.keys.KeyGuard
        self._show_legend: Callable[[], None] = lambda: None
        self._remember_form: Callable[[Any], None] = lambda _panel: None
        self.startup_done = False               # visit opened (or failed), devices, panels
        self.visit_open_started_s: float | None = None  # perf_counter (bench_ui_startup)
        self.devices_starting_s: float | None = None    # perf_counter (bench_ui_startup)
        self.open_job: Any = None               # the visit being opened (fieldapp.ui.app)
        self.sim_surveyor: SimulatedSurveyor | None = None   # the walker of --simulate (_surveyor)
        self.onedrive_said = False              # the OneDrive warning shown (fieldapp.app.visit)
        self.keepsafe: Any = None               # fieldapp.ui.keepsafe.KeepSafe
        self.closing = False                    # closeEvent: a visit still opening is closed

        self.compact = False                  # fit_to_width: a narrow window
        self._tab_titles: list[tuple[str, str]] = []   # each workflow tab's (full, short)
        self._tab_widths: tuple[int, int] | tuple[()] = ()   # the tabs with each (px)
        self._lower_titles: dict[Any, str] = {}        # the full titles under the map
        self.setWindowTitle("fieldapp")
        self.setWindowIcon(app_icon())
        # fits a 1366x768 field laptop (Toughbook, Getac) and a 1280x800 tablet: the panels
        # scroll vertically when the screen is low, nothing is clipped sideways
        self.resize(1366, 740)
        central = QWidget()
        self.setCentralWidget(central)
        outer = QVBoxLayout(central)
        outer.setContentsMargins(4, 4, 4, 0)
        outer.setSpacing(4)

        self.banner = QLabel("")
        self.banner.setObjectName("banner")
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet("background: #fff3b0; border: 2px solid #8a6d00; padding: 6px;"
                                  " font-weight: bold;")
        self.banner.hide()
        outer.addWidget(self.banner)
        self.notices = Notices(self.banner)

        # The map at the window's whole height on the left (issue 35 item 11: it is the
        # screen); beside it the workflow panel over the checks / conflicts / records / photos,
        # which fold to their tab bar (fieldapp.ui.fold).
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("mainSplitter")
        outer.addWidget(self.splitter, 1)
        self.map = MapView(redraw_hz=config.redraw_hz)
        self.splitter.addWidget(self.map)
        side = QSplitter(Qt.Orientation.Vertical)
        side.setObjectName("sideSplitter")
        side.setChildrenCollapsible(False)
        self.side_splitter = side
        self.tabs = QTabWidget()
        self.tabs.setObjectName("workflows")
        right = QWidget()
        right_lay = QVBoxLayout(right)
        right_lay.setContentsMargins(0, 0, 0, 0)
        right_lay.setSpacing(2)
        right_lay.addWidget(self.tabs, 1)
        # what the letter keys do here, and whether a text field is typing (fieldapp.ui.keys)
        self.key_legend = QLabel("")
        self.key_legend.setObjectName("keyLegend")
        self.key_legend.setWordWrap(True)
        right_lay.addWidget(self.key_legend)
        side.addWidget(right)
        self.lower_tabs = QTabWidget()
        self.lower_tabs.setObjectName("lowerTabs")
        self._conflicts_page = QWidget()     # the Conflicts view is built when first shown
        self.conflicts_view: Any = None
        self.lower_tabs.addTab(self._conflicts_page, "Conflicts [Ctrl+J]")
        self.lower_tabs.currentChanged.connect(self._lower_tab_changed)
        side.addWidget(self.lower_tabs)
        from fieldapp.ui.fold import LowerFold

        self.lower_fold = LowerFold(side, self.lower_tabs)
        side.setSizes([640, 40])
        self.splitter.addWidget(side)
        self.splitter.setChildrenCollapsible(False)
        # a wider window gives the map the room; the workflow column keeps its width
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 0)
        self.splitter.setSizes([720, 640])
        self.panel_parts = PanelParts(
            recording=self.recording, devices=self.devices, settings=self.settings,
            gate=self.gate, notices=self.notices, shown=self.current_panel, map=self.map,
            surveyor=self._surveyor, parent=self._panel_parent)

        from fieldapp.ui.jobs import JobBar
        from fieldapp.ui.officeactions import OfficeActions, OfficeParts

        self.job_bar = JobBar()
        outer.addWidget(self.job_bar)
        self.office = OfficeActions(OfficeParts(
            recording=self.recording, settings=self.settings, job_bar=self.job_bar, parent=self,
            jobs_enabled=self.set_jobs_enabled, pause=self.pause_recording,
            resume=self.resume_recording, reopen=self.reopen_visit,
            conflicts_changed=self.refresh_conflicts, show_conflicts=self.show_conflicts,
            conflicts_view=lambda: self.conflicts_view))
        self.paused_reason: str | None = None

        self.status_strip = StatusStrip()
        self.status_strip.gnss_clicked.connect(self.open_satellites)
        self.satellites_dialog: Any = None
        outer.addWidget(self.status_strip)

        self._build_toolbar()
        bridge.sigFix.connect(self.on_fix)
        bridge.sigStatus.connect(self.on_status)
        bridge.sigReading.connect(self.on_reading)

        self.model_refreshes = 0
        self.refresh_timer = QTimer(self)
        self.refresh_timer.setSingleShot(True)
        self.refresh_timer.setInterval(20)
        self.refresh_timer.timeout.connect(self.refresh_from_model)

        self.age_timer = QTimer(self)
        self.age_timer.setInterval(250)
        self.age_timer.timeout.connect(self.refresh_usable)
        self.age_timer.start()
        self.refresh_usable()

    # ------------------------------------------------------------------ the app layer's state
    # (read here by the window itself and by tests; panels are given the objects themselves)
    @property
    def config(self) -> AppConfig:
        """This run's settings (:attr:`settings`)."""
        return self.settings.config

    @property
    def session(self) -> Any:
        """The :class:`fieldapp.app.session.DeviceSession` (None until the devices start)."""
        return self.devices.session

    @property
    def visit(self) -> Any:
        """The open :class:`fieldapp.app.visit.VisitController` (None: no visit)."""
        return self.recording.visit

    @property
    def latest_fix(self) -> Any:
        return self.devices.latest_fix

    @property
    def problem(self) -> str | None:
        """Why a fix cannot be recorded now (None: it can)."""
        return self.devices.problem

    @problem.setter
    def problem(self, problem: str | None) -> None:
        self.devices.problem = problem

    @property
    def record_buttons(self) -> list[QPushButton]:
        return self.gate.buttons

    # ------------------------------------------------------------------ building
    def _action(self, text: str, keys: str | list[str], slot: Callable[[], Any],
                toolbar: QToolBar | None = None, tip: str = "") -> QAction:
        act = QAction(text, self)
        seqs = [keys] if isinstance(keys, str) else keys
        act.setShortcuts([QKeySequence(k) for k in seqs])
        act.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        shown = ", ".join(QKeySequence(k).toString(QKeySequence.SequenceFormat.NativeText) for k in seqs)
        act.setToolTip(f"{tip or text} ({shown})")
        act.triggered.connect(slot)
        self.addAction(act)
        if toolbar is not None:
            toolbar.addAction(act)
        return act

    def _build_toolbar(self) -> None:
        tb = QToolBar("Main")
        tb.setObjectName("mainToolbar")
        tb.setMovable(False)
        tb.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        tb.setStyleSheet(toolbar_sheet(False))
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, tb)
        self.toolbar = tb
        self.visit_label = ToolbarLabel("  no visit  ")
        self.visit_label.setObjectName("visitLabel")
        self.visit_label.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.visit_label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        visit_menu = QMenu(self)
        self.visit_menu = visit_menu
        self.new_visit_action = self._action("New visit…", "Ctrl+N", self.new_visit_dialog,
                                             tip="Start a new site visit")
        self.open_visit_action = self._action("Open visit…", "Ctrl+O", self.open_visit_dialog,
                                              tip="Open a site visit GeoPackage")
        visit_menu.addAction(self.new_visit_action)
        visit_menu.addAction(self.open_visit_action)
        from fieldapp.ui import theme

        tb.addWidget(theme.menu_button("visitButton", "Visit ▾",
                                       "New visit (Ctrl+N) or open one (Ctrl+O)", visit_menu))
        self._action("Devices…", "Ctrl+D", self.open_device_dialog, tb, "Ports and simulators")
        self._action("Satellites", "Ctrl+G", self.open_satellites,
                     tip="Sky plot and table of the satellites (or click the GNSS badge)")
        tb.addSeparator()
        self.report_action = self._action("Report", "Ctrl+R", lambda: self.office.start_report(),
                                          tb, "Site report PDF")
        self.export_action = self._action("Export", "Ctrl+E", lambda: self.office.start_export(),
                                          tb, "GeoJSON, KML, Shapefile, CSV or DXF")
        self.sync_action = self._action("Sync", "Ctrl+Y", lambda: self.office.start_sync(), tb,
                                        "Sync with the office folder")
        self._action("Conflicts", "Ctrl+J", self.show_conflicts, tip="Sync conflicts")
        tb.addSeparator()
        self.follow_action = self._action("Follow me", "F", lambda: self.map.set_follow(
            not self.map.follow), tb, "Keep the position in view")
        self.follow_action.setCheckable(True)
        self.follow_action.setChecked(True)
        self.map.sigFollowChanged.connect(self.follow_action.setChecked)
        self.zoom_in_action = self._action("Zoom +", ["+", "="], lambda: self.map.zoom(0.7), tb)
        self.zoom_out_action = self._action("Zoom −", "-", lambda: self.map.zoom(1.0 / 0.7), tb)
        self._action("All", "Home", self.map.zoom_to_all, tb, "Zoom to everything recorded")
        self._action("Pan left", "Alt+Left", lambda: self.map.pan(-0.2, 0))
        self._action("Pan right", "Alt+Right", lambda: self.map.pan(0.2, 0))
        self._action("Pan up", "Alt+Up", lambda: self.map.pan(0, 0.2))
        self._action("Pan down", "Alt+Down", lambda: self.map.pan(0, -0.2))
        self.contrast_action = self._action("High contrast", "Ctrl+Shift+H",
                                            self.toggle_high_contrast,
                                            tip="High-contrast theme for direct sun")
        self.contrast_action.setCheckable(True)
        self.contrast_action.setChecked(bool(getattr(self.config, "high_contrast", False)))
        self._action("Quit", "Ctrl+Q", self.close)
        from fieldapp.ui.basemaplayer import install_basemap_menu

        basemap = install_basemap_menu(self)
        self.basemap = basemap.layer
        self.basemap_add_action, self.basemap_button = basemap.add_action, basemap.button
        self.reference_lines, self.reference_add = basemap.reference_lines, basemap.reference_add
        self.basemap_show = basemap.show
        from fieldapp.ui.helpmenu import install_help_menu

        help_menu = install_help_menu(self)
        self.help_button, self.help_menu = help_menu.help_button, help_menu.help_menu
        self.about_action, self.open_visits_action = help_menu.about_action, help_menu.open_visits_action
        self.open_log_action = help_menu.open_log_action
        self.open_settings_action = help_menu.open_settings_action
        self.help_tool_action = tb.addWidget(self.help_button)
        tb.addSeparator()
        tb.addWidget(self.visit_label)

    def add_workflow(self, panel: QWidget, title: str, key: str) -> None:
        """Add a workflow tab reachable with ``key`` (e.g. ``Ctrl+1``)."""
        # the tab says its key short ("OHWM ^1"; the tooltip says it in full): six tabs with
        # "[Ctrl+1]" each made the workflow pane ~970 px wide, squeezing the map and the checks
        full = (f"{title} ^{key.removeprefix('Ctrl+')}" if key.startswith("Ctrl+")
                else f"{title} [{key}]")
        index = self.tabs.addTab(panel, full)
        self._tab_titles.append((full, title))
        self.tabs.setTabToolTip(index, f"{title}: {key}")
        def go(_checked: bool = False) -> None:
            self._goto(index)

        self._action(f"Go to {title}", key, go)

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 - Qt name
        self.fit_to_width(event.size().width())
        super().resizeEvent(event)

    def eventFilter(self, obj: Any, event: Any) -> bool:  # noqa: N802 - Qt name
        if obj is self.tabs and event.type() == QEvent.Type.Resize:
            self._fit_tab_titles(event.size().width())
        elif (obj is self.lower_tabs and event.type() == QEvent.Type.Resize) or \
                (obj is self.lower_tabs.tabBar() and event.type() == QEvent.Type.LayoutRequest):
            self._fit_lower_titles()
        return super().eventFilter(obj, event)

    def _fit_lower_titles(self) -> None:
        """The tabs under the map without their keys (``Checks`` for ``Checks [Ctrl+K]``)
        when the full titles do not fit: every tab in view, no scroll arrows. A title set since
        (``Conflicts (2) [Ctrl+J]``) is taken as the new full one."""
        bar = self.lower_tabs.tabBar()
        full = []
        for i in range(bar.count()):
            page = self.lower_tabs.widget(i)
            text, known = bar.tabText(i), self._lower_titles.get(page)
            if known is None or text not in (known, short_title(known)):
                self._lower_titles[page] = known = text
            full.append(known)
        short = [short_title(t) for t in full]
        fm = bar.fontMetrics()
        # the full titles' width from the tab bar's own measure when they are shown, else
        # from the short titles' tabs plus the keys' text
        shown = [bar.tabText(i) for i in range(bar.count())]
        width = sum(bar.tabSizeHint(i).width() for i in range(bar.count()))
        if shown == short:
            width += sum(fm.horizontalAdvance(f) - fm.horizontalAdvance(t)
                         for f, t in zip(full, short, strict=True)) + 8 * len(full)
        want = full if width <= self.lower_tabs.width() - 4 else short
        if want != shown:
            with QSignalBlocker(bar):
                for i, text in enumerate(want):
                    bar.setTabText(i, text)

    def fit_to_width(self, width_px: int | None = None) -> None:
        """Full or compact toolbar for a window ``width_px`` wide (logical px; default: its
        width now); the workflow column at its least width, the map gets the rest.

        Below :data:`COMPACT_BELOW_PX` (a 1024 x 600 tablet; a 1280 x 720 screen, 1920 x 1080
        at 150 %, is not) the toolbar's buttons are narrower (the same height: gloves) and the
        zoom buttons say ``+`` and ``−``, *Help ▾* moves into *Visit ▾*: nothing folds into the
        toolbar's » menu. The workflow column is never widened for its tabs' full titles
        (``OHWM ^1``; the short ones show when they do not fit): the map is the screen. The
        window's least size never depends on this (it is the compact one), so a window
        maximised on a small screen is never wider than the screen.
        """
        width = self.width() if width_px is None else width_px
        if not self._tab_widths and self._tab_titles:
            self._tab_widths = self._measure_tabs()
            self.tabs.installEventFilter(self)
            self.lower_tabs.installEventFilter(self)
            self.lower_tabs.tabBar().installEventFilter(self)
        if self._tab_widths:
            # never narrower than the short titles nor than the widest panel (the panels'
            # own least width is what the tab widget would take without this)
            from PySide6.QtWidgets import QStackedWidget

            stack = self.tabs.findChild(QStackedWidget)
            pages = stack.minimumSizeHint().width() + 4 if stack is not None else 0
            self.tabs.setMinimumWidth(max(self._tab_widths[1], pages))
        compact = width < COMPACT_BELOW_PX
        if compact != self.compact:
            self.compact = compact
            sizes = self.splitter.sizes()
            pane = self.splitter.widget(1)
            right = pane.minimumSizeHint().width() if pane is not None else 0
            if compact and sum(sizes) > 0 and sizes[1] > right:   # the map gets the rest
                self.splitter.setSizes([sum(sizes) - right, right])
            self.toolbar.setStyleSheet(toolbar_sheet(compact))
            self.zoom_in_action.setIconText("+" if compact else "Zoom +")
            self.zoom_out_action.setIconText("−" if compact else "Zoom −")
            # no room for Help ▾ on a tablet's toolbar: its menu is in Visit ▾ there (F1 too)
            self.help_tool_action.setVisible(not compact)
            self.help_menu.menuAction().setVisible(compact)
            layout = self.toolbar.layout()
            if layout is not None:
                layout.activate()               # laid out now: a hidden action defers it

    def _measure_tabs(self) -> tuple[int, int]:
        """Widths (px) of the workflow tab widget with the full and with the short titles."""
        bar = self.tabs.tabBar()
        widths = []
        for k in (0, 1):
            for i, titles in enumerate(self._tab_titles):
                bar.setTabText(i, titles[k])
            widths.append(bar.sizeHint().width() + 6)
        for i, (full, _short) in enumerate(self._tab_titles):
            bar.setTabText(i, full)
        return widths[0], widths[1]

    def _fit_tab_titles(self, width_px: int) -> None:
        """The tabs' full titles (``OHWM ^1``) when they fit ``width_px``, else the short ones
        (``OHWM``; Ctrl+1 still goes there): every tab in view, no scroll arrows."""
        if not self._tab_widths:
            return
        k = 0 if width_px >= self._tab_widths[0] else 1
        for i, titles in enumerate(self._tab_titles):
            if self.tabs.tabText(i) != titles[k]:
                self.tabs.setTabText(i, titles[k])

    def _goto(self, index: int) -> None:
        self.tabs.setCurrentIndex(index)
        w: Any = self.tabs.widget(index)
        if hasattr(w, "focus_first"):
            w.focus_first()

    # ------------------------------------------------------------------ for the app layer
    # (fieldapp.app.visit and the simulated surveyor call these instead of widgets)
    def current_panel(self) -> Any:
        """The workflow panel shown (None before the panels are installed)."""
        return self.tabs.currentWidget()

    def _panel_parent(self) -> QWidget | None:
        """Where workflow panels are made: the tab widget's page stack."""
        from PySide6.QtWidgets import QStackedWidget

        return self.tabs.findChild(QStackedWidget, options=Qt.FindChildOption.FindDirectChildrenOnly)

    def _surveyor(self) -> SimulatedSurveyor | None:
        """The simulated surveyor of ``--simulate`` (:func:`fieldapp.ui.simsupport.surveyor`),
        kept in :attr:`sim_surveyor`; None without a route-following simulated receiver."""
        from fieldapp.ui import simsupport

        walker = simsupport.surveyor(self.sim_surveyor, self.recording, self.devices,
                                     simsupport.PanelTabs(self.tabs, lambda: self.panels), self)
        if walker is not None:
            self.sim_surveyor = walker
        return walker

    # ------------------------------------------------------------------ parts kept
    # (the installers build them and hand them here: only the window sets its attributes)
    def keep_workflows(self, parts: WorkflowParts) -> None:
        """Hold what :func:`fieldapp.ui.workflows.install_workflows` built."""
        self.panels = parts.panels
        self.checks_panel = parts.checks_panel
        self.key_guard = parts.key_guard
        self._show_legend = parts.show_legend
        self._remember_form = parts.remember_form

    def keep_editing_pages(self, pages: EditingPages) -> None:
        """Hold the Records and Photos placeholder pages and their keys until
        :func:`fieldapp.ui.workflows.install_editing` builds the tabs."""
        self._editing_pages = pages.pages
        self._editing_actions = pages.actions

    def keep_editing(self, editor: Any, photos: Any) -> None:
        """Hold the :class:`fieldapp.ui.editing.Editor` and the
        :class:`fieldapp.ui.photos.PhotosView` once built."""
        self.editor = editor
        self.photos = photos

    def keep_keepsafe(self, keep: Any) -> None:
        """Hold the :class:`fieldapp.ui.keepsafe.KeepSafe` (``-wal`` folds, stop signals)."""
        self.keepsafe = keep

    def keep_open_job(self, job: Any) -> None:
        """Keep the visit being opened on a worker thread alive (not a Qt child of the window:
        :func:`fieldapp.ui.app.open_in_background`)."""
        self.open_job = job

    def mark_visit_opening(self) -> None:
        """The start-up visit begins to open now (:attr:`visit_open_started_s`, a
        ``time.perf_counter()`` in s that bench/bench_ui_startup.py reads)."""
        self.visit_open_started_s = time.perf_counter()

    def mark_devices_starting(self) -> None:
        """The start-up visit opened (or failed); the devices start now, a fix can come
        (:attr:`devices_starting_s`, a ``time.perf_counter()`` in s, bench_ui_startup)."""
        self.devices_starting_s = time.perf_counter()

    def mark_started(self) -> None:
        """The start-up visit opened (or failed), the devices started, every panel built."""
        self.startup_done = True

    def note_onedrive_warning(self, shown: bool) -> None:
        """Whether the banner now shows the OneDrive warning (cleared for the next visit)."""
        self.onedrive_said = shown

    def show_key_refusal(self, text: str) -> None:
        """``text`` in the key legend ("" ends the refusal shown)."""
        self.notices.key_refusal(text)

    def on_panel_shown(self, fn: Callable[[Any], None]) -> None:
        """Call ``fn(panel)`` whenever another workflow panel is shown."""
        self.tabs.currentChanged.connect(lambda index: fn(self.tabs.widget(index)))

    def ask_new_visit_spec(self) -> Any:
        """The New visit dialog (:func:`fieldapp.ui.newvisit.ask_new_visit`)."""
        from fieldapp.ui.newvisit import ask_new_visit

        return ask_new_visit(self)

    def ask_reopen_visit(self, path: Any) -> bool:
        """Whether to reopen the visit at ``path`` (the last demo visit, at start): a question
        (:func:`fieldapp.ui.reopen.ask_reopen_visit`)."""
        from fieldapp.ui.reopen import ask_reopen_visit

        return ask_reopen_visit(self, path)

    def ask_visit_path(self, start_folder: str) -> str:
        """A file dialog for a visit GeoPackage; the path, or "" when cancelled."""
        path, _ = QFileDialog.getOpenFileName(self, "Open a site visit", start_folder,
                                              "Site visits (*.gpkg)")
        return path

    @staticmethod
    def platform_name() -> str:
        """The Qt platform (``xcb``, ``windows``, ``offscreen`` ...)."""
        return QGuiApplication.platformName()

    def register_record_button(self, button: QPushButton) -> None:
        """A button that records a position: disabled with the reason while the fix is unusable."""
        self.gate.register(button)

    # ------------------------------------------------------------------ device events
    def on_fix(self, fix: Any) -> None:
        """A new fix (GUI thread): project, buffer for the map, update the strip."""
        self.devices.latest_fix = fix
        self.fix_count += 1
        lat = getattr(fix, "lat_deg", None)
        lon = getattr(fix, "lon_deg", None)
        if lat is not None and lon is not None and \
                status_mod.quality_name(fix) not in ("NO_FIX", "INVALID", "0", ""):
            self.last_position_fix = fix       # STALE says how old this one is
        usable = status_mod.fix_problem(
            fix, self.status_strip.device_state("gnss"), self.config.max_fix_age_s) is None
        if lat is not None and lon is not None and self.visit is not None:
            try:
                if usable and self.paused_reason is None:
                    self.visit.on_fix(fix)      # frame from the first fix, track, walks
                xy = self.visit.project(lat, lon)
            except Exception as exc:  # noqa: BLE001 - shown, never fatal
                log.warning("fix not used: %s", exc)
                self.show_banner(f"Fix not recorded: {exc}")
                xy = None
            if xy is not None:
                self.latest_site_xy = xy
                acc_m = getattr(fix, "horizontal_accuracy_m", None) or 0.0
                self.map.update_position(xy[0], xy[1], acc_m * FT_PER_M, usable, stamp=fix)
        self.devices.fix(fix)
        # A new fix quality, or a fix making recording possible or impossible, is shown at
        # once; otherwise the strip's figures (sats, HDOP, H ±, age) are the 4 Hz age timer's:
        # ten new figures a second cannot be read, and each costs a relayout of the strip.
        quality = status_mod.quality_name(fix)
        usable_now = usable and self.paused_reason is None
        if quality != self._quality_shown or (self.problem is None) != usable_now:
            self._quality_shown = quality
            self.refresh_usable()

    def on_status(self, kind: str, status: Any) -> None:
        stats = self.session.gnss_stats() if (kind == "gnss" and self.session) else None
        self.status_strip.show_device(kind, status, stats)
        self.refresh_usable()

    def on_reading(self, kind: str, reading: Any) -> None:
        if self._tab_pages:         # a panel still to build at start: every panel hears it
            from fieldapp.ui.workflows import finish_workflows

            finish_workflows(self)
        self.devices.reading(kind, reading)

    # ------------------------------------------------------------------ usability
    def refresh_usable(self) -> None:
        """Re-decide from the fix age whether recording is allowed; update strip and buttons."""
        now = time.monotonic()
        problem = status_mod.fix_problem(self.latest_fix, self.status_strip.device_state("gnss"),
                                         self.config.max_fix_age_s, now)
        if problem is None and self.paused_reason is not None:
            problem = self.paused_reason
        # the site's length unit (known from the visit's first usable fix or chosen CRS)
        self.status_strip.show_length_unit(self.recording.frame)
        if self.latest_fix is not None:
            self.status_strip.show_fix(self.latest_fix, now, stale=problem is not None,
                                       last_position=self.last_position_fix)
        else:
            self.status_strip.show_fix(None)
        self.map.set_usable(problem is None)
        if (self.session is not None and self.session.gnss is not None
                and now - self._stats_shown_at >= 1.0):   # a hover tooltip: 1 Hz is plenty
            self._stats_shown_at = now
            self.status_strip.set_stats_tooltip("gnss", self.session.gnss_stats())
        corrections = getattr(self.session, "corrections_status", None)
        if callable(corrections):
            self.status_strip.show_corrections(corrections(), self.latest_fix, now)
        if problem != self.problem:
            self.problem = problem
            self.status_strip.show_problem(problem)
            self.gate.apply_all()
            self.sigUsableChanged.emit(problem is None, problem or "")
            self.devices.usable_changed()

    def set_extra_ok(self, button: QPushButton, ok: bool | None, reason: str = "") -> None:
        """A panel's own condition for a record button (:meth:`RecordGate.set_extra_ok`)."""
        self.gate.set_extra_ok(button, ok, reason)

    def button_off_reason(self, button: QPushButton) -> str:
        """Why ``button`` is off, in words ("" when it is on or no reason is known)."""
        return self.gate.off_reason(button)

    def usable_fix(self) -> Any:
        """The latest fix if it can be recorded now, else None."""
        return self.devices.usable_fix()

    def set_visit(self, visit: Any) -> None:
        """Show ``visit`` (a :class:`fieldapp.app.visit.VisitController`)."""
        self.recording.visit = visit
        self.map.to_lat_lon = visit.unproject if visit is not None else None
        self.map.to_site_crs = visit.site_coords if visit is not None else None
        if visit is not None and self.paused_reason is not None \
                and self.paused_reason.startswith("No visit open"):
            self.show_banner("")
            self.resume_recording()     # the start-up New visit dialog was cancelled before
        if visit is not None:
            self.map.show_stored_track(*visit.track_ft())     # the day's walking so far
            visit.change_listeners.append(self._model_changed)
            self._model_changed(False)
        self.sync_antenna()
        self.visit_label.setText(f"  Visit: {visit.name}  " if visit else "  no visit  ")
        self.setWindowTitle(f"fieldapp — {visit.name}" if visit else "fieldapp")
        self.visit_label.setToolTip(str(getattr(visit, "path", "")))
        from fieldapp.ui.undowords import forget_undo_offers

        forget_undo_offers(self)                # a visit (re)opened: its undo history is empty
        self.recording.shown()

    def _model_changed(self, only_track: bool) -> None:
        """The model changed: schedule one refresh (coalesces a burst of changes)."""
        if not only_track and not self.refresh_timer.isActive():
            self.refresh_timer.start()

    def refresh_from_model(self) -> None:
        """Re-evaluate the checks and redraw panels and overlays (well within 100 ms)."""
        v = self.visit
        if v is None:
            return
        try:
            v.refresh_checks()
        except Exception as exc:  # noqa: BLE001 - a check that cannot be built is shown
            log.exception("checks")
            self.show_banner(f"Checks could not be built: {exc}")
        panel = getattr(self, "checks_panel", None)
        if panel is not None:
            panel.show_checks(v.checks.all())
        for p in getattr(self, "panels", {}).values():
            p.refresh()
        ov = v.overlays()
        for name, lines in ov["lines"].items():
            self.map.set_lines(name, lines)
        for kind in set(ov["polygons"]) | set(self.map.polygon_items):
            self.map.set_polygons(kind, ov["polygons"].get(kind, []))
        self.map.set_trees(ov["trees"])
        for name, pts in ov.get("markers", {}).items():    # before the labels: theirs go beside them
            self.map.set_markers(name, pts)
        self.map.set_labels(ov.get("labels", []))
        self.model_refreshes += 1

    def on_devices_started(self) -> None:
        """Called once the device session has started (simulator ports are known)."""
        self.sync_antenna()
        self.devices.started()

    def sync_antenna(self) -> None:
        """The visit's one antenna height to the receiver and the status strip."""
        antenna.apply_to_receiver(self.visit, self.session)
        self.status_strip.show_antenna(antenna.height_text(self.visit))

    # ------------------------------------------------------------------ dialogs
    def show_banner(self, text: str) -> None:
        self.notices.show_banner(text)

    def open_satellites(self) -> None:
        """Show the satellites view (sky plot and table); one, raised again if open."""
        from fieldapp.ui.satellites import SatellitesDialog

        if self.satellites_dialog is None or not self.satellites_dialog.isVisible():
            self.satellites_dialog = SatellitesDialog(self.devices, self)
        self.satellites_dialog.show()
        self.satellites_dialog.raise_()

    def show_refusal(self, text: str) -> None:
        """A refused value or command in the banner, until the next command succeeds."""
        self.notices.show_refusal(text)

    def clear_refusal(self) -> None:
        """Hide the banner if it shows a refusal (other banners stay)."""
        self.notices.clear_refusal()

    def open_device_dialog(self) -> None:
        from fieldapp.ui.devicedialog import DeviceDialog

        fix = self.latest_fix
        near = None
        if getattr(fix, "lat_deg", None) is not None and getattr(fix, "lon_deg", None) is not None:
            near = (fix.lat_deg, fix.lon_deg)
        dlg = DeviceDialog(self.config, self, near=near, visit_antenna=antenna.visit_height(self.visit))
        if dlg.exec():
            words = ""
            if self.visit is not None and dlg.antenna_changed():
                antenna.change_height(self.visit, self.session, *dlg.chosen_antenna())
                self.sync_antenna()
                words = f"The visit's antenna height is {antenna.height_text(self.visit)} from now on. "
            QMessageBox.information(self, "Devices", words + "Device settings saved. Ports take"
                                    " effect the next time the app starts.")

    def open_visit_dialog(self) -> None:
        """Open a visit GeoPackage chosen in a file dialog."""
        from fieldapp.app import visit as visit_mod

        visit_mod.choose_and_open(self)

    def new_visit_dialog(self) -> None:
        """The New visit dialog; the new visit replaces the open one."""
        from fieldapp.app import visit as visit_mod

        visit_mod.create_from_dialog(self)

    # ------------------------------------------------------------------ office jobs
    def set_jobs_enabled(self, on: bool) -> None:
        """Report / Export / Sync / resolving / visit switching only while no job runs."""
        for act in (self.report_action, self.export_action, self.sync_action,
                    self.new_visit_action, self.open_visit_action):
            act.setEnabled(on)
        if self.conflicts_view is not None:
            self.conflicts_view.set_enabled_buttons(on)

    def pause_recording(self, reason: str) -> None:
        """Stop feeding the visit (its store is about to close); record buttons say why."""
        self.paused_reason = reason
        self.problem = "__paused__"          # force the buttons to be re-decided
        self.refresh_usable()

    def resume_recording(self) -> None:
        self.paused_reason = None
        self.problem = "__paused__"
        self.refresh_usable()

    def reopen_visit(self, path: Any, *, current_transect: str | None = None,
                     retained_ac: float = 0.0) -> bool:
        """Open ``path`` again (after a sync changed the file) and show it; False on failure."""
        from fieldapp.app import visit as visit_mod

        try:
            visit = visit_mod.open_visit(path)
        except Exception as exc:  # noqa: BLE001 - shown; recording stays paused
            log.warning("reopening %s failed: %s", path, exc)
            self.paused_reason = f"Visit could not be reopened: {exc}"
            self.refresh_usable()
            self.show_banner(f"The visit {path} could not be reopened: {exc}")
            return False
        if current_transect is not None:
            visit.current_transect_uuid = current_transect
            if visit.current_transect is None:
                visit.current_transect_uuid = None
        visit.retained_ac = float(retained_ac)
        self.set_visit(visit)
        return True

    def toggle_high_contrast(self) -> None:
        """Ctrl+Shift+H: the high-contrast theme on or off, remembered in the settings."""
        from PySide6.QtWidgets import QApplication

        from fieldapp.ui import theme

        app = QApplication.instance()
        if not isinstance(app, QApplication):
            return
        on = not theme.is_high_contrast(app)
        theme.set_high_contrast(app, on)
        from fieldapp.ui.mapcontrast import apply_contrast

        apply_contrast(self.map, on)                 # the map is what is read in the sun
        self.contrast_action.setChecked(on)
        self.remember_setting(high_contrast=on)

    def remember_setting(self, **changes: Any) -> None:
        """Keep ``changes`` in this run's config and in the settings file."""
        self.settings.remember(**changes)

    def show_checks(self) -> None:
        self.lower_tabs.setCurrentWidget(self.checks_panel)
        self.lower_fold.unfold()
        self.checks_panel.focus_table()

    def _ensure_conflicts_view(self) -> Any:
        if self.conflicts_view is None:
            from fieldapp.ui.conflictsview import ConflictsView

            self.conflicts_view = ConflictsView()
            self.conflicts_view.sigResolve.connect(self.office.start_resolve)
            lay = QVBoxLayout(self._conflicts_page)
            lay.setContentsMargins(0, 0, 0, 0)
            lay.addWidget(self.conflicts_view)
            self.conflicts_view.load(self.visit.path if self.visit else None)
        return self.conflicts_view

    def _lower_tab_changed(self, index: int) -> None:
        if self.lower_tabs.widget(index) is self._conflicts_page:
            self._ensure_conflicts_view()

    def show_conflicts(self) -> None:
        """Show the Conflicts view (read again from the visit)."""
        view = self._ensure_conflicts_view()
        self.lower_tabs.setCurrentWidget(self._conflicts_page)
        self.lower_fold.unfold()
        view.load(self.visit.path if self.visit else None)
        view.table.setFocus()

    def refresh_conflicts(self) -> None:
        """Re-read the conflicts (after a sync); the tab title carries the count."""
        n = None
        if self.conflicts_view is not None:
            n = self.conflicts_view.load(self.visit.path if self.visit else None)
        elif self.visit is not None:
            try:
                from fieldapp.sync import read_conflicts

                n = len(read_conflicts(self.visit.path))
            except Exception:  # noqa: BLE001 - the view says it when opened
                n = None
        i = self.lower_tabs.indexOf(self._conflicts_page)
        self.lower_tabs.setTabText(i, f"Conflicts ({n}) [Ctrl+J]" if n else
                                   "Conflicts [Ctrl+J]")

    # ------------------------------------------------------------------ closing
    def closeEvent(self, event: Any) -> None:  # noqa: N802 - Qt name
        self.closing = True              # a visit still opening is closed when it arrives
        self.office.shutdown()
        self.age_timer.stop()
        self.map.timer.stop()
        if self.session is not None:
            self.session.stop()
        if self.visit is not None:
            try:
                self.visit.close()
            except Exception:  # noqa: BLE001
                log.exception("closing the visit")
        super().closeEvent(event)
