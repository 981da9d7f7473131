"""Boundary workflow: walk a wetland / stand / grove / impervious / disturbed boundary with
pause, resume and close; live area; self-crossing warned; a wetland's verdicts at once."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from fieldapp.app.devicefeed import DeviceFeed
from fieldapp.app.recording import Recording
from fieldapp.app.visit import KIND_WORDS
from fieldapp.rules.nr151 import WETLAND_TYPES
from fieldapp.ui.notices import Notices
from fieldapp.ui.recordgate import RecordGate
from fieldapp.ui.workflows.base import (
    DOCKED_CONTROLS_PX,
    WorkflowPanel,
    add_field,
    big_button,
    field_grid,
    state_label,
)
from fieldapp.ui.workflows.floodplainload import FloodplainLoad

if TYPE_CHECKING:
    from fieldapp.ui.simsupport import SimulatedSurveyor

KINDS = [("wetland", "Wetland"), ("woodland_stand", "Woodland stand"), ("grove", "Grove"),
         ("impervious", "Impervious surface"), ("disturbed", "Disturbed / graded area"),
         ("foundation", "Foundation"), ("drive", "Drive"), ("parking", "Parking"),
         ("septic_field", "Septic field"), ("floodplain", "Floodplain (F-1 district)"),
         ("parcel", "Parcel boundary"), ("right_of_way", "Street right-of-way"),
         ("steep_soil", "Sr / SsF land over 30 %")]
#: Label examples by kind (the Label placeholder follows the Kind).
LABEL_EXAMPLES = {"wetland": "e.g. Wetland A", "woodland_stand": "e.g. Oak stand",
                  "grove": "e.g. Hemlock grove", "foundation": "e.g. House",
                  "drive": "e.g. Main drive", "septic_field": "e.g. Drain field",
                  "floodplain": "e.g. F-1 floodplain"}
SUSCEPTIBILITY = [("", "from wetland type"), ("highly", "highly susceptible"),
                  ("less", "less susceptible"), ("other", "other")]

#: A wetland's fill (NR 151.125(1)(h)): value, words.
FILL_CHOICES = (("", "not filled"), ("complete", "completely, under permit"),
                ("partial", "partly, under permit"))



class BoundaryPanel(WorkflowPanel):
    """Walk a boundary."""

    title = "Boundary"

    def __init__(self, *, recording: Recording, devices: DeviceFeed, gate: RecordGate, notices: Notices,
                 surveyor: Callable[[], SimulatedSurveyor | None], parent: Any = None) -> None:
        super().__init__(recording=recording, gate=gate, notices=notices, parent=parent)
        self.devices = devices
        self._sim_surveyor = surveyor
        lay = self.body_layout
        self.state = state_label("Choose what you walk, then start at a corner.")
        self.state.setObjectName("boundaryState")
        lay.addWidget(self.state)

        what = QGroupBox("What")
        form = field_grid()
        form.setContentsMargins(9, 4, 9, 9)
        what.setLayout(form)
        self.kind = QComboBox()
        self.kind.setObjectName("kindCombo")
        for value, text in KINDS:
            self.kind.addItem(text, value)
        self.label = QLineEdit()
        self.label.setObjectName("labelEdit")
        self.label.setPlaceholderText(self.label_example("wetland"))
        self.spacing = QDoubleSpinBox()
        self.spacing.setRange(1.0, 500.0)
        self.spacing.setValue(10.0)
        self.spacing.setSuffix(" ft")
        self.spacing.setToolTip("A vertex is taken every this many feet walked")
        add_field(form, 0, 0, "Kind", self.kind)
        add_field(form, 0, 1, "Label", self.label)
        add_field(form, 1, 0, "Vertex every", self.spacing)   # Label keeps the width
        form.setColumnStretch(1, 1)
        self.wetland_box = QGroupBox("Wetland")
        wf = field_grid()
        wf.setContentsMargins(9, 4, 9, 9)
        self.wetland_box.setLayout(wf)
        # An editable list: the types NR 151.125(1)(e) and (f) name, or any other the crew types
        # (a type in neither list then asks for its susceptibility).
        self.wetland_type = QComboBox()
        self.wetland_type.setEditable(True)
        self.wetland_type.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        # the statute's long names must not widen the panel: the list opens as wide as they need
        self.wetland_type.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.wetland_type.setMinimumContentsLength(14)
        self.wetland_type.setObjectName("wetlandType")
        self.wetland_type.addItem("")
        self.wetland_type.addItems(list(WETLAND_TYPES))
        self.wetland_type.view().setMinimumWidth(self.wetland_type.view().sizeHintForColumn(0) + 24)
        typed = self.wetland_type.lineEdit()
        if typed is not None:                    # editable: it has one
            typed.setPlaceholderText("choose or type, e.g. sedge meadow")
        self.wetland_type.setToolTip("Wetland type: the list is NR 151.125(1)(e) (highly susceptible) then "
                                     "(1)(f) (less susceptible); another type needs its susceptibility")
        self.susceptibility = QComboBox()
        self.susceptibility.setObjectName("susceptibilityCombo")
        for value, text in SUSCEPTIBILITY:
            self.susceptibility.addItem(text, value)
        self.standing_water = QCheckBox("Periodic standing water")
        self.standing_water.setObjectName("standingWater")
        self.hydric = QCheckBox("Hydric vegetation")
        self.hydric.setObjectName("hydricVegetation")
        # NR 151.125(1)(h): a wetland filled under its permits (issue 29)
        self.fill = QComboBox()
        self.fill.setObjectName("wetlandFill")
        for value, text in FILL_CHOICES:
            self.fill.addItem(text, value)
        self.fill.setToolTip("NR 151.125(1)(h): a wetland completely filled under all applicable permits "
                             "needs no protective area; a partly filled one is measured from its boundary "
                             "after the fill (walk that boundary)")
        self.fill_permit = QLineEdit()
        self.fill_permit.setObjectName("wetlandFillPermit")
        self.fill_permit.setPlaceholderText("permit reference, e.g. DNR IP-2024-117")
        add_field(wf, 0, 0, "Type", self.wetland_type)
        add_field(wf, 0, 1, "Susceptibility", self.susceptibility)
        wf.addWidget(self.standing_water, 2, 0)
        wf.addWidget(self.hydric, 2, 1)
        add_field(wf, 3, 0, "Filled", self.fill)
        add_field(wf, 3, 1, "Fill permit", self.fill_permit)
        wf.setColumnStretch(0, 1)
        lay.addWidget(what)
        lay.addWidget(self.wetland_box)
        self._dismissed_uuid: str | None = None    # closed area no longer shown (kind changed)
        self.kind.currentIndexChanged.connect(self._kind_changed)

        self.start_button = big_button("Start walk", "W")
        self.start_button.setObjectName("startWalk")
        self.vertex_button = big_button("Vertex here", "V", "Take a vertex now (a corner)")
        self.vertex_button.setObjectName("vertexButton")
        self.pause_button = big_button("Pause", "P")
        self.pause_button.setObjectName("pauseWalk")
        self.resume_button = big_button("Resume", "R")
        self.resume_button.setObjectName("resumeWalk")
        self.close_button = big_button("Close boundary", "Ctrl+L")
        self.close_button.setObjectName("closeWalk")
        first = QHBoxLayout()
        first.addWidget(self.start_button, 1)
        first.addWidget(self.vertex_button, 1)
        second = QHBoxLayout()
        second.addWidget(self.pause_button, 1)
        second.addWidget(self.resume_button, 1)
        second.addWidget(self.close_button, 2)
        lay.addLayout(first)
        lay.addLayout(second)
        self.floodplain_file = FloodplainLoad(self)        # issue 29: a floodplain from a file
        lay.addWidget(self.floodplain_file.widget)
        # what is read while walking and after a close, together: the live area, a crossing
        # warning and a wetland's verdicts right under the area (issue 35 item 12); the window
        # docks this under the controls, never scrolled away, as tall as its lines need
        self.readout = QWidget()
        self.readout.setObjectName("walkReadout")
        rl = self._readout_lines = QVBoxLayout(self.readout)
        rl.setContentsMargins(6, 0, 6, 0)
        rl.setSpacing(4)
        self.measures = QLabel("")
        self.measures.setObjectName("walkMeasures")
        self.measures.setProperty("role", "state")
        self.measures.setWordWrap(True)
        rl.addWidget(self.measures)
        self.warning = QLabel("")
        self.warning.setObjectName("crossingWarning")
        self.warning.setProperty("role", "reason")
        self.warning.setWordWrap(True)
        rl.addWidget(self.warning)
        self.verdict = QLabel("")
        self.verdict.setObjectName("wetlandVerdict")
        self.verdict.setWordWrap(True)
        rl.addWidget(self.verdict)
        self.warning.hide()                         # until there is a warning or a verdict
        self.verdict.hide()
        rl.addStretch(1)
        lay.addWidget(self.readout)
        lay.addStretch(1)
        self._readout_px: int | None = None     # the docked pane's height last set here
        self._fit_timer = QTimer(self)           # fit_readout once the labels are laid out
        self._fit_timer.setSingleShot(True)     # (the panel's own: it goes with the panel)
        self._fit_timer.setInterval(0)
        self._fit_timer.timeout.connect(self.fit_readout)

        self.bind("W", self.start_walk, self.start_button)
        self.bind("V", self.vertex_here, self.vertex_button)
        self.bind("P", self.pause, self.pause_button)
        self.bind("R", self.resume, self.resume_button)
        self.bind("Ctrl+L", self.close_walk, self.close_button)
        gate.register(self.start_button)
        gate.register(self.vertex_button)
        devices.on_fix(self.on_fix)
        self._update_buttons()

    def focus_first(self) -> None:
        (self.start_button if self.visit is None or self.visit.walk is None
         else self.vertex_button).setFocus()

    def attributes(self) -> dict[str, Any]:
        attrs: dict[str, Any] = {"label": self.label.text().strip()}
        if self.kind.currentData() == "wetland":
            attrs.update(wetland_type=self.wetland_type.currentText().strip() or None,
                         susceptibility=self.susceptibility.currentData() or None,
                         standing_water=self.standing_water.isChecked(),
                         hydric_vegetation=self.hydric.isChecked())
            fill = self.fill.currentData() or None
            permit = self.fill_permit.text().strip() or None
            if fill is not None:
                attrs.update(fill=fill, fill_permit=permit)
        return attrs

    def _surveyor(self) -> Any:
        if not self.devices.simulating:
            return None
        return self._sim_surveyor()

    def start_walk(self) -> None:
        """Start walking here; in simulate mode the simulated surveyor first walks to the
        scenario boundary of this kind and goes round it (:mod:`fieldapp.ui.simsupport`)."""
        fix = self.devices.usable_fix()
        if fix is None:
            return
        walker = self._surveyor()
        if walker is not None:
            from devices.sim.scenario import boundary_for

            ring = boundary_for(walker.scenario, self.kind.currentData())
            if ring is not None:
                def start_there(there: Any) -> None:
                    if not self._begin_walk(there):
                        walker.stop()
                walker.walk_boundary(ring, start_there, self._corner)
                return
        self._begin_walk(fix)

    @staticmethod
    def label_example(kind: str) -> str:
        """The Label placeholder for ``kind`` (e.g. "e.g. Oak stand" for a woodland stand)."""
        if kind in LABEL_EXAMPLES:
            return LABEL_EXAMPLES[kind]
        words = dict(KINDS).get(kind, kind).split(" / ")[0]
        return f"e.g. {words} 1"

    def _kind_changed(self, _index: int = -1) -> None:
        """Another kind chosen: its placeholder and wetland fields; the last closed area's
        name and area are no longer shown (until the next walk)."""
        kind = self.kind.currentData()
        self.wetland_box.setVisible(kind == "wetland")
        self.label.setPlaceholderText(self.label_example(kind))
        v = self.visit
        if v is not None and v.walk is None:
            last = v.last_closed_area
            self._dismissed_uuid = last["uuid"] if last is not None else None
            self.refresh()

    def _corner(self, fix: Any) -> None:
        if self.visit.walk is not None and self.visit.walk_state() == "walking":
            self.visit.walk_vertex(fix)

    def _begin_walk(self, fix: Any) -> bool:
        try:
            self.visit.start_walk(self.kind.currentData(), self.label.text().strip(),
                                  self.spacing.value(), fix)
        except Exception as exc:  # noqa: BLE001
            self.error("Walk not started", exc)
            return False
        self._update_buttons()  # Pause / Close usable at once, not after the deferred refresh
        return True

    def vertex_here(self) -> None:
        fix = self.devices.usable_fix()
        if fix is not None and self.visit.walk is not None:
            try:
                self.visit.walk_vertex(fix)
            except Exception as exc:  # noqa: BLE001
                self.error("Vertex refused", exc)

    def on_fix(self, fix: Any) -> None:
        if self.visit is not None and self.visit.walk is not None and \
                self.devices.usable_fix() is not None:
            self.visit.walk_feed(fix)

    def pause(self) -> None:
        self.visit.pause_walk()
        self._update_buttons()
        walker = self._surveyor()
        if walker is not None and walker.mode == "boundary":
            walker.pause()

    def resume(self) -> None:
        self.visit.resume_walk()
        self._update_buttons()
        walker = self._surveyor()
        if walker is not None and walker.mode == "boundary":
            walker.resume()

    def close_walk(self) -> None:
        try:
            self.visit.close_walk(self.attributes())
        except Exception as exc:  # noqa: BLE001 - e.g. too few vertices; the walk stays open
            self.error("Boundary not closed", exc)
            return
        self._fresh_fields()
        self._update_buttons()
        walker = self._surveyor()
        if walker is not None and walker.mode == "boundary":
            walker.stop()

    def _fresh_fields(self) -> None:
        """After a close, the next boundary starts as the first did: Label empty (its example
        shown), the wetland fields unset. A closed "Stand 1" no longer labels the next wetland,
        nor does one wetland's standing water or type carry into the next one's verdict."""
        self.label.clear()
        self.wetland_type.setCurrentIndex(0)            # the empty entry
        self.wetland_type.setEditText("")
        self.susceptibility.setCurrentIndex(0)          # from the wetland type
        self.standing_water.setChecked(False)
        self.hydric.setChecked(False)
        self.fill.setCurrentIndex(0)
        self.fill_permit.clear()

    def _update_buttons(self) -> None:
        walk = self.visit.walk if self.visit else None
        state = self.visit.walk_state() if walk is not None else None
        self.gate.set_extra_ok(self.start_button, walk is None)
        self.gate.set_extra_ok(self.vertex_button, state == "walking")
        self.pause_button.setEnabled(state == "walking")
        self.resume_button.setEnabled(state == "paused")
        self.close_button.setEnabled(walk is not None)
        self.kind.setEnabled(walk is None)

    def refresh(self) -> None:
        v = self.visit
        if v is None:
            return
        self._update_buttons()
        info = v.walk_info()
        if info is not None:
            self.state.setText(f"Walking {info['kind_words']} ({info['state']}):"
                               f" {info['vertices']} vertices")
            self.measures.setText(f"{info['area_sqft']:,.0f} sq ft  =  {info['area_ac']:.3f} ac"
                                  f"   perimeter {info['perimeter_ft']:,.0f} ft")
            self.warning.setText(info["warning"] or "")
        last = v.last_closed_area
        if last is not None and last["uuid"] == self._dismissed_uuid:
            last = None
        if info is None and last is None:
            kind = self.kind.currentData()
            words = KIND_WORDS.get(kind, self.kind.currentText().lower()) if isinstance(kind, str) else ""
            self.state.setText(f"Choose what you walk ({words}), then start at a corner.")
            self.measures.setText("")
            self.warning.setText("")
        if info is None and last is not None:
            self.state.setText(f"Closed: {last['label'] or last['kind_words']}")
            self.measures.setText(f"{last['area_sqft']:,.0f} sq ft  =  {last['area_ac']:.3f} ac")
            self.warning.setText(last.get("warning") or "")
        self.verdict.setText(v.area_verdict_text(last["uuid"] if (info is None and last)
                                                 else None))
        for line in (self.warning, self.verdict):     # an empty line takes no room
            line.setVisible(bool(line.text()))
        self._fit_timer.start()      # once the labels are laid out anew

    def showEvent(self, event: Any) -> None:  # noqa: N802 - Qt name
        """Shown again (its tab chosen): the readout fits the lines set while it was hidden."""
        super().showEvent(event)
        self._fit_timer.start()

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 - Qt name
        """Narrower or lower: the verdict lines wrap anew; the readout follows them."""
        super().resizeEvent(event)
        self._fit_timer.start()

    def fit_readout(self) -> None:
        """Make the docked readout pane (:attr:`readout`) as tall as its lines need (px: its
        height for its width), so a wetland's verdicts show under the area without scrolling.
        It never takes the controls' last :data:`DOCKED_CONTROLS_PX`; a pane the crew made
        taller by the divider only grows, one this sized follows its lines down again."""
        dock = self.dock
        if dock is None or dock.count() < 2 or dock.widget(dock.count() - 1) is not self.readout:
            return
        sizes = dock.sizes()
        total = sum(sizes)
        if total <= 0:
            return
        width = self.readout.width() or dock.width()
        need = max(self.readout.minimumHeight(), self._readout_lines.totalHeightForWidth(width))
        have = sizes[-1]
        if need > have or (have == self._readout_px and need < have):
            new = max(min(need, total - sum(sizes[1:-1]) - DOCKED_CONTROLS_PX),
                      self.readout.minimumHeight())
            if new != have:
                dock.setSizes([total - sum(sizes[1:-1]) - new] + sizes[1:-1] + [new])
            self._readout_px = dock.sizes()[-1]
