"""OHWM workflow: averaged points (N usable epochs, progress bar) and offset shots; the points
join into the OHWM line."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from fieldapp.app.devicefeed import DeviceFeed
from fieldapp.app.ohwmbanks import far_line_uuids
from fieldapp.app.recording import Recording
from fieldapp.app.settings import Settings
from fieldapp.app.wording import plural
from fieldapp.ui.notices import Notices
from fieldapp.ui.recordgate import RecordGate
from fieldapp.ui.theme import touch_rows
from fieldapp.ui.workflows.base import (
    TRUE_SUFFIX,
    WorkflowPanel,
    add_field,
    big_button,
    field_grid,
    moving_reason,
    point_number,
    state_label,
)

FT_PER_M = 1.0 / 0.3048
#: The OHWM points table's columns, in the crew's words and the site's feet (issue 35 item 15:
#: "Epochs (skipped)", "σH m" said nothing to a new crew member), and what each means.
OHWM_COLUMNS = ("#", "Method", "Fixes used / rejected", "Spread ft", "Accuracy ft")
OHWM_COLUMN_TIPS = (
    "OHWM point number",
    "averaged (fixes averaged standing on the mark) or offset (shot from a fix)",
    "GNSS fixes averaged into the point / fixes the quality gate rejected",
    "Horizontal spread of the averaged fixes (one standard deviation), feet",
    "The receiver's horizontal accuracy estimate for the point, feet",
)


def offset_refusal(fix: Any, horizontal_ft: float) -> str:
    """Why an offset point cannot be recorded from ``fix`` with ``horizontal_ft`` (ft), or "".

    >>> offset_refusal(None, 0.0)
    'no horizontal distance yet (shoot the rangefinder or type it)'
    """
    if horizontal_ft <= 0.0:
        return "no horizontal distance yet (shoot the rangefinder or type it)"
    return moving_reason(fix)


class OhwmPanel(WorkflowPanel):
    """Record OHWM points."""

    title = "OHWM"

    def __init__(self, *, recording: Recording, devices: DeviceFeed, gate: RecordGate, notices: Notices,
                 settings: Settings, shown: Callable[[], Any], parent: Any = None) -> None:
        super().__init__(recording=recording, gate=gate, notices=notices, parent=parent)
        self.devices = devices
        self.settings = settings
        self._shown = shown
        lay = self.body_layout
        self.state = state_label("Stand on the OHWM and average a point.")
        self.state.setObjectName("ohwmState")
        lay.addWidget(self.state)

        avg = QGroupBox("Averaged point")
        al = QVBoxLayout(avg)
        row = QHBoxLayout()
        epochs_label = QLabel("Epochs")
        row.addWidget(epochs_label)
        self.epochs = QSpinBox()
        self.epochs.setRange(1, 600)
        self.epochs.setValue(settings.config.average_epochs)
        epochs_label.setBuddy(self.epochs)
        row.addWidget(self.epochs)
        row.addStretch(1)
        al.addLayout(row)
        row = QHBoxLayout()       # the buttons under Epochs: 40 px arrows need the width
        self.average_button = big_button("Average point", "A",
                                         "Average N usable epochs at the antenna's position")
        self.average_button.setObjectName("averageButton")
        row.addWidget(self.average_button, 1)
        self.cancel_button = big_button("Cancel", "Esc")
        self.cancel_button.setEnabled(False)
        row.addWidget(self.cancel_button)
        al.addLayout(row)
        self.progress = QProgressBar()
        self.progress.setObjectName("averageProgress")
        self.progress.setFormat("%v / %m usable epochs")
        self.progress.setMaximum(self.epochs.value())
        self.progress.setValue(0)
        # the bar's maximum follows the Epochs box (not while a point is being averaged)
        self.epochs.valueChanged.connect(
            lambda n: self.progress.setMaximum(n) if self.collecting is None else None)
        al.addWidget(self.progress)
        self.skipped_label = QLabel("")
        self.skipped_label.setObjectName("skippedEpochs")
        self.skipped_label.setProperty("role", "reason")
        self.skipped_label.setWordWrap(True)
        self.skipped_label.hide()
        al.addWidget(self.skipped_label)
        # simulate mode: why Average point waits (the simulated surveyor is still walking)
        self.wait_label = QLabel("")
        self.wait_label.setObjectName("averageWaits")
        self.wait_label.setProperty("role", "reason")
        self.wait_label.setWordWrap(True)
        self.wait_label.hide()
        al.addWidget(self.wait_label)
        self.walk_reason = ""
        lay.addWidget(avg)

        off = QGroupBox("Offset shot (e.g. across the channel)")
        grid = field_grid()
        off.setLayout(grid)
        self.azimuth = QDoubleSpinBox()
        self.azimuth.setObjectName("offsetAzimuth")
        self.azimuth.setRange(0.0, 359.99)
        self.azimuth.setDecimals(1)
        self.azimuth.setSuffix(TRUE_SUFFIX)
        self.azimuth.setToolTip("Azimuth from true north; a rangefinder shot's magnetic azimuth is"
                                " turned true with the site's declination (both are kept)")
        self.distance = QDoubleSpinBox()
        self.distance.setRange(0.0, 5000.0)
        self.distance.setDecimals(2)
        self.distance.setSuffix(" ft")
        add_field(grid, 0, 0, "Azimuth", self.azimuth)
        add_field(grid, 0, 1, "Horizontal distance", self.distance)
        self.bank = QComboBox()
        self.bank.setObjectName("offsetBank")
        self.bank.addItem("Which bank is the target on?", None)
        self.bank.addItem("This bank (the OHWM line I walk)", False)
        self.bank.addItem("Far bank (its own OHWM line)", True)
        self.bank.setToolTip("A shot across the channel belongs to the far bank's OHWM line,"
                             " never to this bank's")
        add_field(grid, 1, 0, "Target on", self.bank, 2)
        self.offset_button = big_button("Record offset point", "O",
                                        "From where you stand, the azimuth and the horizontal"
                                        " distance (a rangefinder shot fills them)")
        self.offset_button.setObjectName("offsetButton")
        self.shoot_button = big_button("Shoot (simulator)", "S", "Ask the simulated rangefinder for a shot")
        self.shoot_button.setObjectName("ohwmShootButton")
        self.shoot_button.setVisible(False)
        # under the fields: the 40 px spin-box arrows leave no room beside them in 640 px
        grid.addWidget(self.offset_button, 4, 0)
        grid.addWidget(self.shoot_button, 4, 1)
        grid.setContentsMargins(9, 4, 9, 9)
        #: the last shot's magnetic azimuth and the true one shown for it (None: typed)
        self._shot_azimuth: tuple[float, float] | None = None
        self.wait_shot = False
        lay.addWidget(off)

        self.table = QTableWidget(0, 5)
        self.table.setObjectName("ohwmTable")
        touch_rows(self.table)
        self.table.setHorizontalHeaderLabels(list(OHWM_COLUMNS))
        for c, tip in enumerate(OHWM_COLUMN_TIPS):
            head = self.table.horizontalHeaderItem(c)
            if head is not None:
                head.setToolTip(tip)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.setMinimumHeight(120)
        lay.addWidget(self.table, 1)
        self.order_warning = QLabel("")        # points taken out of order along the bank
        self.order_warning.setObjectName("ohwmOrderWarning")
        self.order_warning.setProperty("role", "reason")
        self.order_warning.setWordWrap(True)
        self.order_warning.hide()
        lay.addWidget(self.order_warning)

        self.collecting: list[Any] | None = None
        self.skipped = 0
        self.skip_reasons: dict[str, int] = {}  # the gate's words -> epochs skipped for it
        self.usable_count = 0
        self.bind("A", self.start_average, self.average_button)
        self.bind("Esc", self.cancel_average, self.cancel_button)
        self.bind("O", self.record_offset, self.offset_button)
        self.bind("S", self.shoot, self.shoot_button)
        devices.on_started(lambda: self.shoot_button.setVisible(devices.simulator("rangefinder") is not None))
        gate.register(self.average_button)
        gate.register(self.offset_button)
        devices.on_fix(self.on_fix)
        devices.on_reading("rangefinder", self.on_shot)

    # -------------------------------------------------------------- averaging
    def start_average(self) -> None:
        if self.collecting is not None or self.devices.usable_fix() is None:
            return
        self.collecting = []
        self.skipped = 0
        self.skip_reasons = {}
        self.usable_count = 0
        self.progress.setMaximum(self.epochs.value())
        self.progress.setValue(0)
        self._show_skipped("")
        self.cancel_button.setEnabled(True)
        self._update_average_button()
        self.state.setText("Averaging… hold the pole still.")

    def cancel_average(self) -> None:
        self._cancel("")

    def drop_averaging(self, why: str) -> None:
        """An averaging under way ends with nothing recorded, ``why`` on the state line and
        in the key legend ("Averaging cancelled (another visit was shown before it ended);
        nothing recorded.")."""
        self._cancel(f" ({why})")
        self.progress.setValue(0)           # none of its epochs count at the next visit
        self.notices.key_refusal(self.state.text())

    def _cancel(self, why: str) -> None:
        self.collecting = None
        self.cancel_button.setEnabled(False)
        self._update_average_button()
        self.state.setText(f"Averaging cancelled{why}; nothing recorded.")

    def _update_average_button(self) -> None:
        """Average point: off while averaging, and (simulate mode) while the simulated
        surveyor walks to the next OHWM point, with that reason shown."""
        if self.collecting is not None:
            self.gate.set_extra_ok(self.average_button, False, "averaging")
        elif self.walk_reason:
            self.gate.set_extra_ok(self.average_button, False, self.walk_reason)
        else:
            self.gate.set_extra_ok(self.average_button, None)
        # an offset shot is taken standing still too: not from a walking receiver
        self.gate.set_extra_ok(self.offset_button, False if self.walk_reason else None,
                            self.walk_reason)
        self.wait_label.setText(f"Average point and offset point wait: {self.walk_reason}"
                                if self.walk_reason else "")
        self.wait_label.setVisible(bool(self.walk_reason))

    def averaging(self) -> bool:
        """An OHWM point is being averaged (the simulated surveyor waits for it)."""
        return self.collecting is not None

    def walker_changed(self, walker: Any) -> None:
        """The simulated surveyor (simulate mode only) started, stopped, paused or arrived.

        While it walks to an OHWM point the receiver moves, so Average point waits until it has
        arrived ("walking to OHWM point 3…"); an averaging under way when it sets off is
        cancelled (its epochs would mix two places)."""
        moving = walker.busy and not walker.paused
        reason = f"walking to {walker.walking_to}…" if moving and walker.mode == "ohwm" else ""
        if moving and self.collecting is not None:
            self._cancel(" (the simulated surveyor walked off)")
        if reason != self.walk_reason:
            self.walk_reason = reason
            self._update_average_button()

    def on_fix(self, fix: Any) -> None:
        why = self.visit.fix_skip_reason(fix) if self.visit is not None else None
        if self.collecting is None:
            # before Average point: say at once why the epochs would be skipped
            self._show_skipped(f"Epochs are skipped: {why}" if why else "")
            return
        self.collecting.append(fix)
        if why is None:
            self.usable_count += 1
        else:
            self.skipped += 1
            self.skip_reasons[why] = self.skip_reasons.get(why, 0) + 1
        self.progress.setValue(min(self.usable_count, self.progress.maximum()))
        if self.skipped:
            reasons = "; ".join(f"{words} ({n})" for words, n in list(self.skip_reasons.items())[-3:])
            self._show_skipped(f"{plural(self.skipped, 'unusable epoch')} skipped: {reasons}")
        else:
            self._show_skipped("")
        if self.usable_count >= self.epochs.value():
            fixes, self.collecting = self.collecting, None
            self.cancel_button.setEnabled(False)
            self._update_average_button()
            try:
                point = self.visit.add_averaged_point(fixes, self.epochs.value())
            except Exception as exc:  # noqa: BLE001 - refused with its message
                self.error("OHWM point not recorded", exc)
                return
            self.state.setText(
                f"OHWM point {point_number(point)} recorded: {point.sample_count} fixes averaged,"
                f" {point.rejected_count} rejected, spread"
                f" {(point.std_dev_h_m or 0) * FT_PER_M:.2f} ft")

    def _show_skipped(self, text: str) -> None:
        """The quality gate's reason for the skipped epochs (hidden when there is none)."""
        if self.skipped_label.text() != text:
            self.skipped_label.setText(text)
        if self.skipped_label.isHidden() == bool(text):
            self.skipped_label.setVisible(bool(text))

    # -------------------------------------------------------------- offset
    def on_shot(self, shot: Any) -> None:
        if self._shown() is not self:
            return
        hd = getattr(shot, "horizontal_distance_ft", None)
        az = getattr(shot, "azimuth_deg", None)
        if hd is not None:
            self.distance.setValue(hd)
        true_az = self.visit.true_azimuth(az) if az is not None and self.visit else None
        self._shot_azimuth = None
        if true_az is not None and az is not None:
            self.azimuth.setValue(true_az)  # the rangefinder's compass is magnetic
            self._shot_azimuth = (float(az), round(true_az, 1))
        at = (f"{az:.1f}° magnetic = {true_az:.1f}° true" if true_az is not None else "–°")
        self.state.setText(f"Shot received: {hd or 0:.2f} ft at {at}."
                           " Press O to record the offset point.")

    def shoot(self) -> None:
        """Fire the simulated rangefinder (demo): its shot fills the offset fields."""
        sim = self.devices.simulator("rangefinder")
        if sim is not None:
            from devices.sim import factory as sim_factory

            sim_factory.shoot(sim, 0.0)

    def magnetic_shot(self) -> float | None:
        """The shot's magnetic azimuth when the field still shows its true azimuth (the crew did
        not type over it), else None (the field's azimuth is true as typed)."""
        shot = self._shot_azimuth
        if shot is not None and abs(self.azimuth.value() - shot[1]) < 0.05:
            return shot[0]
        return None

    def record_offset(self) -> None:
        fix = self.devices.usable_fix()
        if fix is None:
            return
        why = offset_refusal(fix, self.distance.value())
        far = self.bank.currentData()
        if not why and far is None:
            why = "say which bank the target is on (this bank, or the far bank's own line)"
        if why:
            self.notices.key_refusal(f"Offset point not recorded: {why}.")
            self.state.setText(f"Offset point not recorded: {why}.")
            return
        magnetic = self.magnetic_shot()
        try:
            point = self.visit.add_offset_point(fix, self.azimuth.value(), self.distance.value(),
                                                magnetic_deg=magnetic, far_bank=bool(far))
        except Exception as exc:  # noqa: BLE001
            self.error("Offset point not recorded", exc)
            return
        at = (f"{magnetic:.1f}° magnetic = {point.azimuth_true_deg:.1f}° true" if magnetic is not None
              else f"{point.azimuth_true_deg:.1f}° true")
        where = "the far bank's line" if far else "this bank's line"
        self.state.setText(f"OHWM offset point {point_number(point)} recorded on {where}"
                           f" ({self.distance.value():.2f} ft at {at}).")

    # -------------------------------------------------------------- view
    def refresh(self) -> None:
        points = self.visit.ohwm_points() if self.visit else []
        warning = self.visit.ohwm_order_warning() if self.visit else None
        self.order_warning.setText(warning or "")
        self.order_warning.setVisible(bool(warning))
        self.table.setRowCount(len(points))
        far = far_line_uuids(self.visit.model) if self.visit else set()
        for r, p in enumerate(points):
            method = getattr(p.method, "value", str(p.method))
            # a far bank's line numbers its points from 1 too: "1 offset" beside "1 averaged"
            cells = [str(point_number(p)), f"{method}, far bank" if p.line_uuid in far else method,
                     f"{p.sample_count} / {p.rejected_count}" if method == "averaged" else "–",
                     f"{p.std_dev_h_m * FT_PER_M:.2f}" if p.std_dev_h_m is not None else "–",
                     f"{p.h_accuracy_m * FT_PER_M:.2f}" if p.h_accuracy_m is not None else "–"]
            for c, text in enumerate(cells):
                self.table.setItem(r, c, QTableWidgetItem(text))
