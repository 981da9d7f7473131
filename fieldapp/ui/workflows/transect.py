"""Transect workflow: start at an OHWM point, set the landward azimuth; each rangefinder shot or
manual entry adds a station; the live profile and the bank state in words (NR 341.035)."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QGridLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from fieldapp.app.devicefeed import DeviceFeed
from fieldapp.app.recording import Recording
from fieldapp.app.settings import Settings
from fieldapp.app.wording import plural
from fieldapp.rules.nr341 import bank_parameters
from fieldapp.survey.azimuths import shot_words
from fieldapp.ui.notices import Notices
from fieldapp.ui.profileplot import ProfilePlot
from fieldapp.ui.recordgate import RecordGate
from fieldapp.ui.workflows.base import (
    TRUE_SUFFIX,
    WorkflowPanel,
    add_field,
    big_button,
    field_grid,
    point_name,
    state_label,
)


class ProfileOnShow(QWidget):
    """The live profile, built the first time the Transect tab is shown, not at start-up.

    The :class:`~fieldapp.ui.profileplot.ProfilePlot` (two pyqtgraph plots) is most of the
    Transect panel's cost, ~40 ms of the window's start on a 2-core laptop, and the tab is not
    the one shown at start. Until the plot is built the data of :meth:`set_profile` is kept
    and handed to it then. Any attribute of the plot (``ground_plot``, ``empty_hint``, ...)
    read here builds it at once.
    """

    def __init__(self, redraw_hz: float) -> None:
        super().__init__()
        self._redraw_hz = redraw_hz
        self._plot: ProfilePlot | None = None
        self._data: tuple[Any, ...] | None = None
        QVBoxLayout(self).setContentsMargins(0, 0, 0, 0)

    @property
    def plot(self) -> ProfilePlot:
        """The profile plot (built now if it was not yet)."""
        if self._plot is None:
            self._plot = ProfilePlot(self._redraw_hz)
            layout = self.layout()
            assert layout is not None           # made with its layout
            layout.addWidget(self._plot)
            if self._data is not None:
                self._plot.set_profile(*self._data[0], **self._data[1])
                self._plot.redraw()
        return self._plot

    @property
    def built(self) -> bool:
        return self._plot is not None

    def set_profile(self, *args: Any, **kwargs: Any) -> None:
        """:meth:`ProfilePlot.set_profile` (kept for the plot until it is built)."""
        if self._plot is None:
            self._data = (args, kwargs)
        else:
            self._plot.set_profile(*args, **kwargs)

    def showEvent(self, event: Any) -> None:  # noqa: N802 - Qt name
        self.plot  # noqa: B018 - builds it
        super().showEvent(event)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt name
        return QSize(480, 220)      # ProfilePlot's: the panel gives it the height left

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.plot, name)


def bank_state_words(result: dict[str, Any] | None, threshold_pct: float) -> str:
    """The bank state in words from an ``nr341.bank`` result.

    ``Bank 120.0 ft — determined`` or ``Steep from 40 to 120 ft: keep walking: more than
    50 ft below 12 % needed: shoot beyond 170 ft (more than 28.0 ft further)`` (the rule's
    ``next_step``).
    """
    if not result:
        return "Add stations landward from the OHWM."
    st = result.get("status")
    if st == "error":
        return f"Cannot evaluate: {result.get('message', '')}"
    if st == "determined":
        return f"Bank {result['bank_ft']:.1f} ft — determined ({result.get('basis')})"
    walk = result.get("walk_further_ft")
    at_least = result.get("bank_ft_at_least")
    steep = steep_stretches(result, threshold_pct)
    if steep:
        a, b = steep[-1]
        where = f"Steep from {a:.0f} to {b:.0f} ft"
    elif at_least is not None:
        where = f"Bank at least {at_least:.1f} ft"
    else:
        where = "Not settled yet"
    if walk is None:
        return f"{where}: needs data"
    if result.get("next_step"):  # the rule's own words: "more than 50 ft below 12 % needed: ..."
        return f"{where}: {result['next_step']}"
    return f"{where}: keep walking, more than {walk:.1f} ft further needed"


def bank_figures(result: dict[str, Any] | None, priority_waterway: bool) -> tuple[float, float]:
    """(base distance ft, slope threshold percent) of NR 341.035(1)(a)/(1)(b) for the profile and
    the words: the bank result's own ``base_ft`` / ``threshold_pct`` when it has them, else the
    rule's table (:func:`fieldapp.rules.nr341.bank_parameters`; no result yet, or an error).

    >>> bank_figures(None, True)
    (300.0, 10.0)
    """
    params = bank_parameters(priority_waterway)
    result = result or {}
    return (result.get("base_ft", params.base_ft), result.get("threshold_pct", params.threshold_pct))


def shot_azimuth_words(station: Any, line_true_deg: float | None = None) -> str:
    """``"; shot at 350.0° magnetic + declination -1.18° = 348.8° true, 1.2° off the line (350.0°
    true)"`` for a station shot with a compass azimuth (:func:`fieldapp.survey.azimuths.shot_words`),
    else ''."""
    words = shot_words(station, line_true_deg)
    return f"; {words}" if words else ""


def stipulation_paragraph() -> str:
    """The paragraph both stipulated distances come from, ``NR 341.035(2)(c)`` (the common
    part of the rule's citations of (2)(c)1. and (2)(c)2.).

    >>> stipulation_paragraph()
    'NR 341.035(2)(c)'
    """
    cites = [bank_parameters(p).cite_stipulated for p in (False, True)]
    return os.path.commonprefix(cites)


def steep_stretches(result: dict[str, Any], threshold_pct: float) -> list[tuple[float, float]]:
    """Contiguous runs of segments at or over the threshold, as (from_ft, to_ft)."""
    out: list[tuple[float, float]] = []
    d = 0.0
    for h, s in zip(result.get("segment_horizontal_ft") or [],
                    result.get("segment_slopes_pct") or [], strict=True):   # one of each a segment
        if s >= threshold_pct - 1e-6:
            if out and abs(out[-1][1] - d) < 1e-9:
                out[-1] = (out[-1][0], d + h)
            else:
                out.append((d, d + h))
        d += h
    return out


class TransectPanel(WorkflowPanel):
    """Walk a slope transect."""

    title = "Transect"

    def __init__(self, *, recording: Recording, devices: DeviceFeed, gate: RecordGate, notices: Notices,
                 settings: Settings, shown: Callable[[], Any], parent: Any = None) -> None:
        super().__init__(recording=recording, gate=gate, notices=notices, parent=parent)
        self.devices = devices
        self.settings = settings
        self._shown = shown
        lay = self.body_layout
        self.state = state_label("Start a transect at an OHWM point.")
        self.state.setObjectName("bankState")
        lay.addWidget(self.state)

        # Start: OHWM point, landward azimuth, Start (labels above the fields: one row)
        start = field_grid()
        self.origin = QComboBox()
        self.origin.setObjectName("originCombo")
        self.origin.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.origin.setMinimumContentsLength(8)
        self.origin.setToolTip("The OHWM point the transect starts at (numbered from 1, as on"
                               " the OHWM tab)")
        add_field(start, 0, 0, "Start at OHWM point", self.origin)
        self.azimuth = QDoubleSpinBox()
        self.azimuth.setObjectName("azimuthSpin")
        self.azimuth.setRange(0.0, 359.9)
        self.azimuth.setDecimals(1)
        self.azimuth.setSuffix(TRUE_SUFFIX)
        self.azimuth.setToolTip("Landward azimuth, degrees from true north (a compass reads"
                                " magnetic: add the declination below)")
        add_field(start, 0, 1, "Landward azimuth", self.azimuth)
        self.start_button = big_button("Start transect", "N")
        self.start_button.setObjectName("startTransect")
        # aligned to the row's foot, a button keeps its preferred width: make that its minimum,
        # so a narrow pane squeezes the fields instead of pushing the button out of view
        self.start_button.setMinimumWidth(self.start_button.sizeHint().width())
        start.addWidget(self.start_button, 0, 2, 2, 1, Qt.AlignmentFlag.AlignBottom)
        start.setColumnStretch(0, 1)
        lay.addLayout(start)
        self.stipulated = QCheckBox(f"&Stipulated bank ({stipulation_paragraph()})")
        self.stipulated.setObjectName("stipulatedBank")
        self.stipulated.setToolTip(
            "The landowner stipulates that the slope continues: the bank is"
            f" {bank_parameters(False).stipulated_ft:g} ft from the OHWM"
            f" ({bank_parameters(True).stipulated_ft:g} ft on a priority waterway), still cut by"
            " a complete interruption; no slope survey needed. Stored with the transect."
            " (Alt+S, or Tab to it and Space)")
        self.stipulated.clicked.connect(self.set_stipulated)
        lay.addWidget(self.stipulated)

        # Magnetic declination applied to the rangefinder's (magnetic) azimuths: the World
        # Magnetic Model's for the site and date, or typed (Override)
        decl = field_grid()
        self.declination_label = QLabel("Magnetic declination: not set yet (needs a fix)")
        self.declination_label.setObjectName("declinationWords")
        self.declination_label.setWordWrap(True)
        decl.addWidget(self.declination_label, 0, 0, 2, 1)
        self.declination = QDoubleSpinBox()
        self.declination.setObjectName("declinationSpin")
        self.declination.setRange(-180.0, 180.0)
        self.declination.setDecimals(2)
        self.declination.setSuffix(" °")      # signed: the label says east is +, west is -
        self.declination.setToolTip("Degrees east of true north (west negative): true azimuth ="
                                    " magnetic azimuth + declination")
        self.declination.setEnabled(False)
        add_field(decl, 0, 1, "Declination (east +, west −)", self.declination)
        self.declination_override = QCheckBox("Override")
        self.declination_override.setObjectName("declinationOverride")
        self.declination_override.setToolTip("Type the declination instead of the World"
                                             " Magnetic Model's (e.g. from a local survey)")
        decl.addWidget(self.declination_override, 1, 2)
        decl.setColumnStretch(0, 1)
        lay.addLayout(decl)
        self.declination_override.toggled.connect(self._override_toggled)
        self.declination.editingFinished.connect(self._declination_typed)

        # Station: distance and slope typed (a rangefinder shot fills a station by itself)
        entry = field_grid()
        self.dist = QDoubleSpinBox()
        self.dist.setObjectName("distanceSpin")
        self.dist.setRange(0.0, 2000.0)
        self.dist.setDecimals(2)
        self.dist.setSuffix(" ft")
        self.dist_kind = QComboBox()
        self.dist_kind.setObjectName("distanceKind")
        self.dist_kind.addItems(["horizontal", "along slope"])
        self.dist_kind.setToolTip("Horizontal distance, or the slope distance (reduced to"
                                  " horizontal with the slope)")
        self.slope = QDoubleSpinBox()
        self.slope.setObjectName("slopeSpin")
        self.slope.setRange(-500.0, 500.0)
        self.slope.setDecimals(2)
        self.slope_unit = QComboBox()
        self.slope_unit.setObjectName("slopeUnit")
        self.slope_unit.addItems(["%", "°"])
        self.slope_unit.setToolTip("Slope in percent or in degrees")
        # one row (the profile keeps its height): the number fields may be narrower than
        # their widest value (2000.00 ft) so that, with 40 px arrows, each row fits 640 px
        for spin in (self.dist, self.slope, self.azimuth):
            spin.setMinimumWidth(170)
        add_field(entry, 0, 0, "Station distance", self.dist)
        add_field(entry, 0, 1, "measured as", self.dist_kind)
        add_field(entry, 0, 2, "Slope", self.slope)
        add_field(entry, 0, 3, "in", self.slope_unit)
        entry.setColumnStretch(0, 1)
        entry.setColumnStretch(2, 1)
        lay.addLayout(entry)

        buttons = QGridLayout()
        buttons.setSpacing(6)
        self.add_button = big_button("Add station", "Ctrl+Enter",
                                     "Add the typed station (distance and slope above)")
        self.add_button.setObjectName("addStation")
        self.shoot_button = big_button("Shoot (simulator)", "S",
                                       "Ask the simulated rangefinder for a shot")
        self.shoot_button.setObjectName("shootButton")
        self.shoot_button.setVisible(False)
        self.interrupt_button = big_button("Complete interruption", "I",
                                           "Mark a complete interruption at the last station"
                                           " (never inferred)")
        self.interrupt_button.setObjectName("interruptButton")
        self.undo_button = big_button("Remove last station", "Ctrl+Z")
        self.undo_button.setObjectName("undoStation")
        buttons.addWidget(self.add_button, 0, 0)
        buttons.addWidget(self.shoot_button, 0, 1)
        buttons.addWidget(self.interrupt_button, 1, 0)
        buttons.addWidget(self.undo_button, 1, 1)
        lay.addLayout(buttons)
        self.stations_label = QLabel("")
        self.stations_label.setObjectName("stationsLabel")
        self.stations_label.setWordWrap(True)
        lay.addWidget(self.stations_label)
        self.profile = ProfileOnShow(settings.config.redraw_hz)
        self.profile.setMinimumHeight(200)
        lay.addWidget(self.profile, 1)

        self.bind("N", self.start_transect, self.start_button)
        self.bind("Ctrl+Return", self.add_manual_station, self.add_button)
        self.bind("Ctrl+Enter", self.add_manual_station)
        self.bind("S", self.shoot, self.shoot_button)
        self.bind("I", self.mark_interruption, self.interrupt_button)
        self.bind("Ctrl+Z", self.remove_last, self.undo_button)
        devices.on_reading("rangefinder", self.on_shot)
        devices.on_started(self._devices_started)
        # a visit shown again (after a sync) keeps its current transect: its controls at once
        recording.on_shown(lambda _visit: self._update_buttons())
        self._update_buttons()

    def _devices_started(self) -> None:
        self.shoot_button.setVisible(self.devices.simulator("rangefinder") is not None)

    def focus_first(self) -> None:
        (self.shoot_button if self.shoot_button.isVisible() and self.visit
         and self.visit.current_transect else self.start_button).setFocus()

    def _update_buttons(self) -> None:
        """Enable the controls for the current transect and show its stipulation.

        Called by every command that starts a transect or changes its stations, right after
        the model change, as well as by :meth:`refresh` (deferred, after a burst of changes):
        a control is usable the moment the transect or station it needs exists (a key or
        click just after Start transect is not lost).
        """
        active = bool(self.visit and self.visit.current_transect)
        self.add_button.setEnabled(active)
        self.interrupt_button.setEnabled(active and bool(self.visit.stations()))
        self.undo_button.setEnabled(active and bool(self.visit.stations()))
        self.start_button.setEnabled(self.origin.count() > 0)
        self.stipulated.setEnabled(active)
        checked = bool(active and getattr(self.visit.current_transect, "stipulated", False))
        if self.stipulated.isChecked() != checked:      # from the model (undo, reopen)
            self.stipulated.setChecked(checked)

    # -------------------------------------------------------------- commands
    def start_transect(self) -> None:
        uuid = self.origin.currentData()
        if uuid is None:
            self.error("Record an OHWM point first (OHWM tab).")
            return
        try:
            self.visit.start_transect(uuid, self.azimuth.value())
        except Exception as exc:  # noqa: BLE001
            self.error("Transect not started", exc)
            return
        self._update_buttons()

    def add_manual_station(self) -> None:
        if not (self.visit and self.visit.current_transect):
            return
        kw: dict[str, Any] = {}
        if self.dist_kind.currentIndex() == 0:
            kw["horizontal_ft"] = self.dist.value()
        else:
            kw["slope_distance_ft"] = self.dist.value()
        if self.slope_unit.currentIndex() == 0:
            kw["slope_pct"] = self.slope.value()
        else:
            kw["slope_deg"] = self.slope.value()
        try:
            self.visit.add_station(**kw)
        except Exception as exc:  # noqa: BLE001
            self.error("Station refused", exc)
            return
        self._update_buttons()
        self.dist.setFocus()
        self.dist.selectAll()

    def on_shot(self, shot: Any) -> None:
        if self._shown() is not self or not (self.visit and
                                                           self.visit.current_transect):
            return
        hd = getattr(shot, "horizontal_distance_ft", None)
        sd = getattr(shot, "slope_distance_ft", None)
        inc = getattr(shot, "inclination_deg", None)
        if inc is None or (hd is None and sd is None):
            self.error("Shot without distance and inclination: not a station.")
            return
        try:
            if hd is not None:
                self.visit.add_station(horizontal_ft=hd, slope_deg=inc,
                                       reading=shot)
            else:
                self.visit.add_station(slope_distance_ft=sd, slope_deg=inc, reading=shot)
        except Exception as exc:  # noqa: BLE001
            self.error("Shot refused as a station", exc)
            return
        self._update_buttons()

    def shoot(self) -> None:
        sim = self.devices.simulator("rangefinder")
        if sim is not None:
            from devices.sim import factory as sim_factory

            sim_factory.shoot(sim, self.visit.current_distance_ft())

    def set_stipulated(self, checked: bool) -> None:
        """The Stipulated bank box was ticked or cleared: stored on the current transect."""
        try:
            self.visit.set_stipulated(checked)
        except Exception as exc:  # noqa: BLE001 - refused; the box shows the stored value
            self.error("Stipulation not recorded", exc)
            self._update_buttons()

    def _override_toggled(self, on: bool) -> None:
        self.declination.setEnabled(on)
        if self.visit is None:
            return
        try:
            self.visit.set_declination(self.declination.value() if on else None)
        except Exception as exc:  # noqa: BLE001 - refused with its message
            self.error(f"Declination not set: {exc}")
        self._show_declination()

    def _declination_typed(self) -> None:
        if self.declination_override.isChecked():
            self._override_toggled(True)

    def _show_declination(self) -> None:
        v = self.visit
        if v is None:
            return
        self.declination_label.setText(f"Magnetic declination: {v.declination_words()}")
        entered = self.recording.declination_entered
        if self.declination_override.isChecked() != entered:
            self.declination_override.blockSignals(True)
            self.declination_override.setChecked(entered)
            self.declination_override.blockSignals(False)
            self.declination.setEnabled(entered)
        if not self.declination.hasFocus():
            self.declination.setValue(self.recording.declination_deg)

    def mark_interruption(self) -> None:
        try:
            self.visit.mark_interruption()
        except Exception as exc:  # noqa: BLE001
            self.error("Interruption not marked", exc)

    def remove_last(self) -> None:
        try:
            self.visit.remove_last_station()
        except Exception as exc:  # noqa: BLE001
            self.error("Nothing removed", exc)
            return
        self._update_buttons()

    # -------------------------------------------------------------- view
    def _last_recorded_transect(self) -> tuple[Any, list[Any]] | None:
        """The newest transect with stations and its stations (none started in this session:
        a reopened visit), or None."""
        from fieldapp.survey.features import Layer

        model = self.visit.model if self.visit is not None else None
        if model is None:
            return None
        for t in sorted(model.features(Layer.TRANSECT), key=lambda t: t.created_utc, reverse=True):
            stations = model.stations(t.uuid)
            if stations:
                return t, stations
        return None

    def refresh(self) -> None:
        v = self.visit
        if v is None:
            return
        current = self.origin.currentData()
        self.origin.blockSignals(True)
        self.origin.clear()
        for p in v.ohwm_points():
            self.origin.addItem(point_name(p), p.uuid)
        if current is not None:
            i = self.origin.findData(current)
            if i >= 0:
                self.origin.setCurrentIndex(i)
        elif self.origin.count():
            self.origin.setCurrentIndex(self.origin.count() - 1)
        self.origin.blockSignals(False)
        self._update_buttons()
        self._show_declination()
        t = v.current_transect
        if t is None:
            self.state.setText("Start a transect at an OHWM point." if self.origin.count()
                               else "Record an OHWM point first (OHWM tab).")
            shown = self._last_recorded_transect()
            if shown is None:
                self.stations_label.setText("")
                base, threshold = bank_figures(None, v.priority_waterway)
                self.profile.set_profile([], threshold, base, None, None)  # the empty frame
                return
            # a reopened visit: its newest transect's profile, so the work done is in view
            t, stations = shown
            check = v.bank_check(t.uuid)
            result = check.result if check else None
            base, threshold = bank_figures(result, v.priority_waterway)
            self.stations_label.setText(
                f"Shown: {getattr(t, 'label', None) or 'the last transect'} as recorded"
                f" ({plural(len(stations), 'station')}, {stations[-1].distance_ft:.1f} ft from the OHWM)."
                " Start a transect to shoot stations.")
            self.profile.set_profile([(s.segment_ft, s.slope_pct) for s in stations], threshold, base,
                                     result.get("bank_ft") if result else None,
                                     result.get("bank_ft_at_least") if result else None)
            return
        check = v.bank_check()
        result = check.result if check else None
        base, threshold = bank_figures(result, v.priority_waterway)
        self.state.setText(bank_state_words(result, threshold))
        stations = v.stations()
        segs = [(s.segment_ft, s.slope_pct) for s in stations]
        self.stations_label.setText(
            f"{getattr(t, 'label', 'Transect')}: {plural(len(stations), 'station')}, "
            f"{stations[-1].distance_ft:.1f} ft from the OHWM"
            f"{shot_azimuth_words(stations[-1], getattr(t, 'azimuth_true_deg', None))}"
            if stations else
            f"{getattr(t, 'label', 'Transect')} started: shoot or type the first station.")
        bank = result.get("bank_ft") if result else None
        at_least = result.get("bank_ft_at_least") if result else None
        self.profile.set_profile(segs, threshold, base, bank, at_least)
