"""The Stake-out panel: pick a target (a computed line or a recorded point), walk to it, flag it.

Every fix shows the distance to the nearest point of the target (ft), its true bearing and a
turn hint relative to the direction of travel; inside the crew's tolerance the panel turns
green and says ON THE LINE in large letters. *Flag here* (``F`` while this panel is shown, or
the button) records a stake point; the list below shows the flags, superseded ones marked.
An audible cue (off by default) beeps faster as the distance falls.

The map shows the target as a thick orange line (or ring, or a ring around a point) and the
flags as small triangles (grey once superseded), through :class:`StakeLayer`, which adds its
own items to the map's plot.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
)

from fieldapp.app.devicefeed import DeviceFeed
from fieldapp.app.recording import Recording
from fieldapp.app.stakeout import DEFAULT_TOLERANCE_FT, StakeOut
from fieldapp.ui.mapview import set_points
from fieldapp.ui.notices import Notices
from fieldapp.ui.recordgate import RecordGate
from fieldapp.ui.workflows.base import WorkflowPanel, add_field, big_button, field_grid, state_label

if TYPE_CHECKING:
    from fieldapp.ui.mapview import MapView

TURN_WORDS = {"ahead": "Straight ahead", "left": "Turn left", "right": "Turn right",
              "around": "Turn around", "": "Walk a few steps to get a direction of travel"}


class StakeLayer:
    """The stake-out target and the flags on the map (items of the map's plot, over features)."""

    def __init__(self, map_view: Any) -> None:
        self.map = map_view
        pi = map_view.plot.getPlotItem()
        self.target_item = pg.PlotDataItem(pen=pg.mkPen("#ff7f00", width=6), connect="finite")
        self.target_item.setZValue(18)
        self.point_item = pg.ScatterPlotItem(size=26, symbol="o", brush=pg.mkBrush(0, 0, 0, 0),
                                             pen=pg.mkPen("#ff7f00", width=4))
        self.point_item.setZValue(18)
        self.flags = pg.ScatterPlotItem(size=16, symbol="t1", pen=pg.mkPen("k", width=1))
        self.flags.setZValue(19)
        for item in (self.target_item, self.point_item, self.flags):
            pi.addItem(item)
        for item in (self.point_item, self.flags):
            set_points(item, [], [])          # hidden until there is one

    def _local(self, pts: list[Any]) -> list[Any]:
        return self.map._to_local(pts)

    def show_target(self, target: Any) -> None:
        """Draw ``target`` (grid ft; None clears)."""
        if target is None:
            self.target_item.setData([], [])
            set_points(self.point_item, [], [])
            return
        g = target.geometry
        if g.geom_type == "Point":
            (x, y), = self._local([(g.x, g.y)])
            set_points(self.point_item, [x], [y])
            self.target_item.setData([], [])
        else:
            pts = self._local(list(g.coords))
            self.target_item.setData([p[0] for p in pts], [p[1] for p in pts])
            set_points(self.point_item, [], [])

    def show_flags(self, flags: list[Any], frame: Any) -> None:
        """Draw the stake points (site CRS x, y): orange, grey when superseded."""
        pts = self._local([(frame.to_ft(s.x), frame.to_ft(s.y)) for s in flags])
        set_points(self.flags, [p[0] for p in pts], [p[1] for p in pts],
                   brush=[pg.mkBrush("#9a9a9a" if s.superseded else "#ff7f00") for s in flags])


class StakeoutPanel(WorkflowPanel):
    """Stake-out (see module docstring). ``F`` flags while the panel is shown."""

    title = "Stake-out"

    def __init__(self, *, recording: Recording, devices: DeviceFeed, gate: RecordGate, notices: Notices,
                 map: MapView, surveyor: Callable[[], Any] = lambda: None,
                 parent: Any = None) -> None:
        super().__init__(recording=recording, gate=gate, notices=notices, parent=parent)
        self.devices = devices
        self._surveyor = surveyor
        self._map = map
        self.stake: StakeOut | None = None
        self._stale = True              # the target list needs building when next shown
        self.layer = StakeLayer(map)
        lay = self.body_layout
        grid = field_grid()
        self.target_box = QComboBox()
        self.target_box.setObjectName("stakeTarget")
        self.target_box.setMinimumHeight(36)
        # a long target ("Bank point of transect T2 (bank ≥ 90 ft)") never widens the panel
        # past its dock (its arrow was cut): the list itself shows the whole text
        self.target_box.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.target_box.setMinimumContentsLength(18)
        self.target_box.view().setTextElideMode(Qt.TextElideMode.ElideNone)
        self.target_box.currentIndexChanged.connect(self._target_chosen)
        add_field(grid, 0, 0, "Target (computed line or recorded point)", self.target_box, span=2)
        self.tolerance = QDoubleSpinBox()
        self.tolerance.setRange(0.01, 100.0)
        self.tolerance.setDecimals(2)
        self.tolerance.setSingleStep(0.1)
        self.tolerance.setSuffix(" ft")
        self.tolerance.setValue(DEFAULT_TOLERANCE_FT)
        self.tolerance.setMinimumHeight(36)
        self.tolerance.valueChanged.connect(self._tolerance_changed)
        add_field(grid, 1, 0, "On-the-line tolerance", self.tolerance)
        self.audible = QCheckBox("Audible cue (faster as you close in)")
        self.audible.setChecked(False)
        grid.addWidget(self.audible, 3, 1)
        lay.addLayout(grid)

        self.distance = QLabel("–")
        self.distance.setObjectName("stakeDistance")
        self.distance.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.distance.setStyleSheet("font-size: 34pt; font-weight: bold; padding: 6px;")
        lay.addWidget(self.distance)
        self.direction = QLabel("")
        self.direction.setObjectName("stakeDirection")
        self.direction.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.direction.setStyleSheet("font-size: 16pt; font-weight: bold;")
        self.direction.setWordWrap(True)        # a long hint wraps, never widens the panel
        lay.addWidget(self.direction)
        self.on_line = QLabel("")
        self.on_line.setObjectName("stakeOnLine")
        self.on_line.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._set_on_line(None)
        lay.addWidget(self.on_line)

        self.flag_button = big_button("Flag here", "F", "Record a stake point here: position, fix "
                                      "quality, the target and the signed offset from it")
        self.gate.register(self.flag_button)
        self._update_flag_ok()
        self.bind("F", self.flag, self.flag_button)
        lay.addWidget(self.flag_button)
        self.state = state_label("Choose a target, then walk toward it.")
        lay.addWidget(self.state)
        # --simulate: the simulated surveyor walks to the target, so stake-out can be tried
        self.walk_button = big_button("Walk there (simulator)", "W",
                                      "The simulated surveyor walks to the chosen target")
        self.walk_button.setObjectName("stakeWalkButton")
        self.walk_button.setVisible(False)
        self.bind("W", self.walk_there, self.walk_button)
        lay.addWidget(self.walk_button)
        devices.on_started(lambda: self.walk_button.setVisible(
            self.devices.simulator("gnss") is not None and self._surveyor() is not None))
        lay.addWidget(QLabel("Flags (double-click to edit the note)"))
        self.flag_list = QListWidget()
        self.flag_list.setObjectName("stakeFlags")
        self.flag_list.setMinimumHeight(90)
        self.flag_list.itemDoubleClicked.connect(self._edit_note)
        lay.addWidget(self.flag_list, 1)
        row = QHBoxLayout()
        self.edit_button = QPushButton("Edit note…")
        self.edit_button.clicked.connect(lambda: self._edit_note(self.flag_list.currentItem()))
        row.addWidget(self.edit_button)
        row.addStretch(1)
        lay.addLayout(row)

        self.beeper = QTimer(self)
        self.beeper.timeout.connect(QApplication.beep)
        devices.on_fix(self.on_fix)
        recording.on_shown(lambda _v: self._new_visit())

    # ---------------------------------------------------------------- model
    def _new_visit(self) -> None:
        self.stake = StakeOut(self.visit, self.tolerance.value()) if self.visit is not None else None
        self.refresh()
        self._update_flag_ok()

    def _update_flag_ok(self) -> None:
        """Flag here [F] records the offset from the target: off, with the reason, until one is
        chosen."""
        chosen = self.stake is not None and self.stake.target is not None
        self.gate.set_extra_ok(self.flag_button, None if chosen else False,
                            "" if chosen else "choose a target first")

    def refresh(self) -> None:
        """Targets and flags again from the model (the checks were refreshed before).

        Shown, the whole list of targets is rebuilt. Hidden (another tab), only the targets
        behind the flags and the chosen one are followed (flags of a moved verdict are marked
        superseded, the target on the map moves); the list waits until the panel is shown."""
        if self.visit is None:
            return
        if self.stake is None or self.stake.visit is not self.visit:
            self.stake = StakeOut(self.visit, self.tolerance.value())
        if not self.isVisible():
            self._stale = True
            before = self.stake.target
            changes = self.stake.refresh_staked()
            if changes:
                self._superseded_words(changes)
            if changes or self.stake.target is not before:
                self.layer.show_target(self.stake.target)
                self._fill_flags()
                self._update_flag_ok()
            return
        self._stale = False
        changes = self.stake.refresh()
        if changes:
            self._superseded_words(changes)
        self._fill_targets()
        self.layer.show_target(self.stake.target)
        self._fill_flags()
        self._update_flag_ok()
        self._show(self.stake.guidance)

    def _superseded_words(self, changes: tuple[Any, ...]) -> None:
        self.state.setText(f"The verdict behind the target changed: {len(changes)} flag(s) "
                           "marked as staked to a superseded line — restake them.")

    def showEvent(self, event: Any) -> None:  # noqa: N802 - Qt name
        """Shown: the current targets (rebuilt if the model changed while hidden) and the
        guidance from the last fix."""
        super().showEvent(event)
        # after the event: a tab change refreshes the panel it shows, and once is enough
        QTimer.singleShot(0, self._shown)

    def _shown(self) -> None:
        if self.visit is None or self.stake is None or not self.isVisible():
            return
        if self._stale:
            self.refresh()
        elif self.stake.target is not None and self.stake._last is not None:
            self.stake.guidance = self.stake._guide(*self.stake._last)
            self._show(self.stake.guidance)

    def hideEvent(self, event: Any) -> None:  # noqa: N802 - Qt name
        super().hideEvent(event)
        self.beeper.stop()              # the cue follows the panel's guidance, not a stale one

    def _fill_targets(self) -> None:
        if self.stake is None:
            return
        keep = self.stake.target.key if self.stake.target is not None else None
        self.target_box.blockSignals(True)
        self.target_box.clear()
        self.target_box.addItem("— no target —", None)
        for t in self.stake.targets:
            self.target_box.addItem(t.label, t.key)
        index = self.target_box.findData(keep) if keep is not None else 0
        self.target_box.setCurrentIndex(max(index, 0))
        self.target_box.blockSignals(False)

    def _fill_flags(self) -> None:
        flags = self.recording.stake_points()
        self.flag_list.clear()
        for sp in reversed(flags):
            mark = "SUPERSEDED — " if sp.superseded else ""
            text = (f"{mark}{sp.target_label}: {sp.offset_ft:+.2f} ft"
                    f" ({'within' if abs(sp.offset_ft) <= sp.tolerance_ft else 'outside'} "
                    f"±{sp.tolerance_ft:g}) {sp.created_utc:%H:%M:%S}" + (f" — {sp.notes}" if sp.notes else ""))
            item = QListWidgetItem(text)
            item.setData(Qt.ItemDataRole.UserRole, sp.uuid)
            if sp.superseded:
                item.setForeground(Qt.GlobalColor.darkGray)
            self.flag_list.addItem(item)
        frame = self.recording.frame
        if frame is not None:
            self.layer.show_flags(flags, frame)

    # ---------------------------------------------------------------- input
    def _target_chosen(self, _index: int) -> None:
        if self.stake is None:
            return
        self.stake.choose(self.target_box.currentData())
        self.layer.show_target(self.stake.target)
        self._update_flag_ok()
        self._show(self.stake.guidance)

    def _tolerance_changed(self, value: float) -> None:
        if self.stake is not None:
            self.stake.tolerance_ft = float(value)
            if self.stake.target is not None and self.stake._last is not None:
                self.stake.guidance = self.stake._guide(*self.stake._last)
            self._show(self.stake.guidance)

    def on_fix(self, fix: Any) -> None:
        """Every fix: new guidance while shown (cheap: one shapely distance and one geodesic);
        hidden, only the direction of travel is kept."""
        if self.stake is None or self.visit is None:
            return
        shown = self.isVisible()
        try:
            g = self.stake.on_fix(fix, guide=shown)
            if not shown:
                return
        except Exception as exc:  # noqa: BLE001 - shown, never fatal
            self.state.setText(f"No guidance: {exc}")
            return
        self._show(g)

    def walk_there(self) -> None:
        """Simulator button: the simulated surveyor walks to the chosen target's nearest point
        (its point; on a line, the point of the line nearest to where the receiver is)."""
        walker = self._surveyor()
        target = self.stake.target if self.stake is not None else None
        if walker is None or target is None or self.visit is None:
            self.state.setText("Choose a target first: the simulated surveyor walks to it.")
            return
        from shapely.geometry import Point
        from shapely.ops import nearest_points

        here = self.devices.latest_fix
        geom = target.geometry
        at = (self.visit.project(here.lat_deg, here.lon_deg)
              if here is not None and here.lat_deg is not None and here.lon_deg is not None
              else None)
        if at is not None and geom.geom_type != "Point":
            geom = nearest_points(geom, Point(*at))[0]
        point = geom if geom.geom_type == "Point" else geom.representative_point()
        there = self.visit.unproject(point.x, point.y)
        if there is None:
            self.state.setText("No site coordinates yet: wait for a fix.")
            return
        lat, lon = there
        walker.walk_to(float(lat), float(lon), target.label)

    def flag(self) -> None:
        """Flag here: a stake point at the latest usable fix."""
        fix = self.devices.usable_fix()
        if fix is None or self.stake is None:
            self.error("No usable fix to flag (see the status strip)")
            return
        try:
            sp = self.stake.flag(fix)
        except Exception as exc:  # noqa: BLE001 - refused, nothing lost
            self.error(f"Flag not recorded: {exc}")
            return
        self.state.setText(f"Flag recorded: {sp.offset_ft:+.2f} ft from {sp.target_label}")
        self._fill_flags()

    def _edit_note(self, item: Any) -> None:
        if item is None:
            return
        uuid = item.data(Qt.ItemDataRole.UserRole)
        note = self.recording.stake_note(uuid)
        text, ok = QInputDialog.getText(self, "Stake point note", "Note", text=note)
        if ok:
            try:
                self.recording.set_stake_note(uuid, text)
            except Exception as exc:  # noqa: BLE001
                self.error(f"Note not changed: {exc}")

    # ---------------------------------------------------------------- output
    def _set_on_line(self, on: bool | None) -> None:
        if on:
            self.on_line.setText("ON THE LINE")
            self.on_line.setStyleSheet("font-size: 30pt; font-weight: bold; color: white;"
                                       " background: #1b7a1b; border-radius: 6px; padding: 8px;")
        else:
            self.on_line.setText("not on the line" if on is False else "")
            self.on_line.setStyleSheet("font-size: 14pt; color: #444; padding: 4px;")

    def _show(self, g: Any) -> None:
        if g is None:
            self.distance.setText("–")
            self.direction.setText("" if self.stake is None or self.stake.target is None
                                   else "Waiting for a fix")
            self._set_on_line(None)
            self.beeper.stop()
            return
        self.distance.setText(f"{g.distance_ft:,.2f} ft")
        turn = TURN_WORDS.get(g.turn, "")
        if g.turn in ("left", "right") and g.turn_deg is not None:
            turn += f" {abs(g.turn_deg):.0f}°"
        bearing = "" if g.bearing_true_deg is None else f"Bearing {g.bearing_true_deg:05.1f}° true · "
        self.direction.setText(bearing + (turn if not g.on_line else "Stop here"))
        self._set_on_line(g.on_line)
        self._cue(g)

    def _cue(self, g: Any) -> None:
        """Beep every 2 s far away, down to 0.15 s close in (off unless ticked)."""
        if not self.audible.isChecked():
            self.beeper.stop()
            return
        interval = int(max(150.0, min(2000.0, 40.0 * g.distance_ft)))
        if not self.beeper.isActive() or abs(self.beeper.interval() - interval) > 50:
            self.beeper.start(interval)
