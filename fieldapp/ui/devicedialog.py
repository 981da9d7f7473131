"""The device dialog: ports (scanned off the UI thread), baud, protocol, simulator choice.

Saving writes the settings file (platformdirs) through :func:`fieldapp.app.config.save`.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, QSignalBlocker, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from fieldapp.app import config as config_mod
from fieldapp.app.config import AppConfig
from fieldapp.app.wording import plural
from fieldapp.survey import antenna as survey_antenna
from fieldapp.ui.ntripbox import NtripBox

BAUDS = [4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600]
NONE_TEXT = "(not used)"


def known_protocols(kind: str) -> list[str]:
    """Protocols ``devices.registry`` lists for ``kind`` (fallback: the common ones)."""
    try:
        from devices import registry

        protos = registry.protocols(kind) if hasattr(registry, "protocols") else None
        if protos:
            return [getattr(p, "name", str(p)) for p in protos]
    except Exception:  # noqa: BLE001 - the dialog still works with the fallback list
        pass
    return {"gnss": ["nmea"], "rangefinder": ["trupulse", "laserace-trimble", "laserace-mdl",
                                              "vertex"],
            "caliper": ["digitech"]}.get(kind, [])


class _PortScan(QObject):
    """Receives the port list from the scan thread; re-emits it queued to the GUI thread."""

    sigPorts = Signal(object)


class DeviceDialog(QDialog):
    """Choose each device's port, baud and protocol; or the simulators."""

    def __init__(self, config: AppConfig, parent: QWidget | None = None,
                 near: tuple[float, float] | None = None,
                 visit_antenna: tuple[float, str] | None = None) -> None:
        """``visit_antenna``: the open visit's antenna height (m, unit entered); the dialog shows
        and changes that one (:meth:`chosen_antenna`); without a visit the default a New visit
        offers."""
        super().__init__(parent)
        self.visit_antenna = visit_antenna
        self.setWindowTitle("Devices")
        self.config = config
        self.saved_config: AppConfig | None = None
        lay = QVBoxLayout(self)
        self.simulate = QCheckBox("Use the simulated demo devices (no hardware)")
        self.simulate.setChecked(config.simulate)
        lay.addWidget(self.simulate)
        self.scan_label = QLabel("Scanning ports…")
        lay.addWidget(self.scan_label)
        # two tabs, so the dialog (Save included) fits a 1366x768 laptop and a 1280x800 tablet
        # with glove-sized fields: the ports (the receiver on the left, the two instruments on
        # the right), and the RTK corrections; each tab scrolls on a lower screen (a 1280x720 or
        # 1024x600 tablet), Save and Cancel stay in view below them
        from fieldapp.ui.newvisit import fit_height
        from fieldapp.ui.workflows.base import PanelScroll

        tabs = QTabWidget()
        lay.addWidget(tabs)
        ports = QWidget()
        grid = QGridLayout(ports)
        grid.setHorizontalSpacing(12)
        tabs.addTab(PanelScroll(ports), "&Ports")
        cells = {"gnss": (0, 0, 2, 1), "rangefinder": (0, 1, 1, 1), "caliper": (1, 1, 1, 1)}
        self.port_boxes: dict[str, QComboBox] = {}
        self.baud_boxes: dict[str, QComboBox] = {}
        self.proto_boxes: dict[str, QComboBox] = {}
        for kind, title in (("gnss", "GNSS receiver"), ("rangefinder", "Rangefinder"),
                            ("caliper", "Caliper")):
            box = QGroupBox(title)
            form = QFormLayout(box)
            port = QComboBox()
            port.setEditable(True)
            port.setObjectName(f"port_{kind}")
            port.addItem(NONE_TEXT)
            current = getattr(config, f"{kind}_url")
            if current:
                port.addItem(current)
                port.setCurrentText(current)
            port.setToolTip("A port name or a pyserial URL (socket://host:port, a pty path)")
            form.addRow("Port", port)
            baud = QComboBox()
            baud.addItems([str(b) for b in BAUDS])
            baud.setCurrentText(str(getattr(config, f"{kind}_baud")))
            form.addRow("Baud", baud)
            if kind == "gnss":
                self.autobaud = QCheckBox("Auto-baud (try the common rates)")
                self.autobaud.setChecked(config.gnss_autobaud)
                form.addRow("", self.autobaud)
                self.antenna = QDoubleSpinBox()
                self.antenna.setObjectName("antennaHeight")
                self.antenna.setDecimals(3)
                self.antenna_unit = QComboBox()
                self.antenna_unit.setObjectName("antennaUnit")
                for unit, words in survey_antenna.UNIT_WORDS.items():
                    self.antenna_unit.addItem(words, unit)
                height_m, unit = visit_antenna or (config.antenna_height_m, "m")
                self.antenna_unit.setCurrentIndex(max(0, self.antenna_unit.findData(unit)))
                self.antenna.setRange(0.0, survey_antenna.from_metres(survey_antenna.MAX_ANTENNA_M, unit))
                self.antenna.setValue(survey_antenna.from_metres(height_m, unit))
                self.antenna_unit.currentIndexChanged.connect(self._antenna_unit_changed)
                self._antenna_unit = unit
                ant_row = QHBoxLayout()
                ant_row.addWidget(self.antenna, 1)
                ant_row.addWidget(self.antenna_unit)
                form.addRow("Antenna height (this visit)" if visit_antenna else "Antenna height (new visits)",
                            ant_row)
            else:
                proto = QComboBox()
                proto.addItems(known_protocols(kind))
                proto.setCurrentText(getattr(config, f"{kind}_protocol"))
                form.addRow("Protocol", proto)
                self.proto_boxes[kind] = proto
            self.port_boxes[kind] = port
            self.baud_boxes[kind] = baud
            grid.addWidget(box, *cells[kind])
        self.rescan = QPushButton("&Rescan ports")
        self.rescan.clicked.connect(self.scan)
        grid.addWidget(self.rescan, 2, 0)
        grid.setRowStretch(3, 1)
        self.ntrip = NtripBox(config.ntrip_caster, config.ntrip_gga_interval_s, config.rtcm_url,
                              near=near)
        tabs.addTab(PanelScroll(self.ntrip), "RTK &corrections (NTRIP)")
        self.error_label = QLabel("")
        self.error_label.setProperty("role", "reason")
        self.error_label.setWordWrap(True)
        self.error_label.hide()
        lay.addWidget(self.error_label)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)
        hint = self.sizeHint()
        self.resize(hint.width(), min(hint.height(), fit_height(self)))
        # no parent: the scan thread holds it while it runs, so a dialog closed mid-scan leaves
        # the thread a live sender ("Signal source has been deleted" otherwise, seen in tests)
        self._scan = _PortScan()
        self._scan.sigPorts.connect(self._show_ports)
        self.scan()

    def scan(self) -> None:
        """Scan ports on a ``fieldapp-portscan`` thread; results arrive as a queued signal."""
        self.scan_label.setText("Scanning ports…")
        self.rescan.setEnabled(False)
        try:
            from devices.transport import list_ports_async
        except ImportError:
            self._show_ports([])
            return
        scan = self._scan  # held by the thread's callback (a bound emit does not keep its sender)
        list_ports_async(lambda ports: scan.sigPorts.emit(ports))

    def _show_ports(self, ports: list[Any]) -> None:
        self.rescan.setEnabled(True)
        names = [getattr(p, "device", str(p)) for p in ports]
        self.scan_label.setText(
            f"{plural(len(names), 'port')} found" if names else "No serial ports found (type a URL)")
        for box in self.port_boxes.values():
            current = box.currentText()
            with QSignalBlocker(box):  # unblocked again even if a row fails
                box.clear()
                box.addItem(NONE_TEXT)
                for p in ports:
                    box.addItem(getattr(p, "device", str(p)))
                    desc = getattr(p, "description", "")
                    if desc:
                        box.setItemData(box.count() - 1, desc)
                if current and current != NONE_TEXT and box.findText(current) < 0:
                    box.addItem(current)
                box.setCurrentText(current)

    def chosen_config(self) -> AppConfig:
        """The config with the dialog's choices (validated, frozen)."""
        changes: dict[str, Any] = {"simulate": self.simulate.isChecked(),
                                   "gnss_autobaud": self.autobaud.isChecked(),
                                   "antenna_height_m": survey_antenna.to_metres(*self.chosen_antenna())}
        for kind, box in self.port_boxes.items():
            text = box.currentText().strip()
            changes[f"{kind}_url"] = None if (not text or text == NONE_TEXT) else text
            changes[f"{kind}_baud"] = int(self.baud_boxes[kind].currentText())
        for kind, box in self.proto_boxes.items():
            changes[f"{kind}_protocol"] = box.currentText()
        changes.update(self.ntrip.chosen())
        return config_mod.with_changes(self.config, **changes)

    def _antenna_unit_changed(self) -> None:
        """The same height in the unit just chosen (6.50 ft -> 1.981 m)."""
        unit = str(self.antenna_unit.currentData())
        metres = survey_antenna.to_metres(self.antenna.value(), self._antenna_unit)
        self._antenna_unit = unit
        self.antenna.setRange(0.0, survey_antenna.from_metres(survey_antenna.MAX_ANTENNA_M, unit))
        self.antenna.setValue(survey_antenna.from_metres(metres, unit))

    def chosen_antenna(self) -> tuple[float, str]:
        """(antenna height, unit) as shown: the unit a :data:`~fieldapp.survey.antenna.UNIT_WORDS` key."""
        return float(self.antenna.value()), str(self.antenna_unit.currentData())

    def antenna_changed(self) -> bool:
        """Whether the shown antenna height differs from the visit's by more than 0.5 mm."""
        if self.visit_antenna is None:
            return False
        value, unit = self.chosen_antenna()
        return (unit != self.visit_antenna[1]
                or abs(survey_antenna.to_metres(value, unit) - self.visit_antenna[0]) > 0.0005)

    def save(self) -> None:
        """Save the settings (the caster password apart, :mod:`fieldapp.app.secrets`); a bad
        value is said under the boxes and nothing is saved."""
        try:
            chosen = self.chosen_config()
            self.ntrip.keep_password()
        except (ValueError, OSError) as exc:
            self.error_label.setText(f"Not saved: {exc}")
            self.error_label.show()
            return
        self.saved_config = chosen
        config_mod.save(self.saved_config)
        self.accept()
