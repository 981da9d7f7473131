"""The Devices dialog's corrections box: the NTRIP caster, its password (kept in the OS keyring or
a user-only file, and the box says which), the GGA interval, an optional second port for RTCM,
and the caster's source table listed off the UI thread, nearest mountpoint first."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QWidget,
)

from fieldapp.app import secrets
from fieldapp.app.wording import plural


class _TableSignal(QObject):
    """Carries the source table (or the error words) from the fetch thread to the GUI thread."""

    sigDone = Signal(object)


class NtripBox(QGroupBox):
    """Caster URL, password, GGA interval, RTCM port, source table.

    Parameters
    ----------
    caster : str or None
        The configured caster (``ntrip://user@host:port/MOUNT``).
    gga_interval_s : float
    rtcm_url : str or None
    near : (lat_deg, lon_deg) or None
        The current fix, to list the nearest mountpoints first.
    """

    def __init__(self, caster: str | None, gga_interval_s: float, rtcm_url: str | None,
                 near: tuple[float, float] | None = None, parent: QWidget | None = None) -> None:
        super().__init__("RTK corrections (NTRIP caster)", parent)
        self.setMinimumWidth(500)
        self.near = near
        form = QFormLayout(self)
        given_password = ""
        if caster:  # a password in the URL (--ntrip) goes in the masked field, not in view
            from devices.ntrip import Caster

            try:
                parsed = Caster.parse(caster)
                caster, given_password = parsed.url(with_password=False), parsed.password
            except ValueError:
                pass
        self.caster = QLineEdit(caster or "")
        self.caster.setObjectName("ntripCaster")
        self.caster.setPlaceholderText("ntrip://user@host:2101/MOUNT   (blank: no corrections)")
        self.caster.setToolTip("gpsd's form; ntrips:// for HTTPS, ?v=1 for an NTRIP 1.0 caster")
        form.addRow("Caster", self.caster)
        self.password = QLineEdit()
        self.password.setObjectName("ntripPassword")
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        self.password.setPlaceholderText("unchanged" if caster else "")
        self.password.setText(given_password)
        form.addRow("Password", self.password)
        self.kept = QLabel(f"Password kept in: {secrets.where_kept()}")
        self.kept.setObjectName("ntripPasswordKept")
        self.kept.setWordWrap(True)
        self.kept.setProperty("role", "hint")
        form.addRow(self.kept)
        self.gga = QDoubleSpinBox()
        self.gga.setRange(1.0, 3600.0)
        self.gga.setDecimals(0)
        self.gga.setSuffix(" s")
        self.gga.setValue(gga_interval_s)
        self.gga.setToolTip("How often the receiver's position (GGA) goes to the caster; "
                            "VRS networks need it")
        self.rtcm_port = QLineEdit(rtcm_url or "")
        self.rtcm_port.setPlaceholderText("blank: the receiver's own port")
        self.rtcm_port.setToolTip("A second port for a receiver that takes RTCM apart from its NMEA")
        pair = QHBoxLayout()
        pair.addWidget(self.gga)
        pair.addWidget(QLabel("RTCM to"))
        pair.addWidget(self.rtcm_port, 1)
        form.addRow("GGA every", pair)
        row = QHBoxLayout()
        self.list_button = QPushButton("&List mountpoints")
        self.list_button.setObjectName("ntripList")
        self.list_button.clicked.connect(self.fetch)
        row.addWidget(self.list_button)
        self.table_label = QLabel("")
        self.table_label.setObjectName("ntripTableStatus")
        self.table_label.setWordWrap(True)
        row.addStretch(1)
        form.addRow(row)
        form.addRow(self.table_label)
        self.mountpoints = QListWidget()
        self.mountpoints.setObjectName("ntripMountpoints")
        self.mountpoints.setMaximumHeight(64)
        self.mountpoints.itemActivated.connect(self._choose)
        self.mountpoints.itemClicked.connect(self._choose)
        form.addRow(self.mountpoints)
        self._signal = _TableSignal(self)
        self._signal.sigDone.connect(self._show_table)

    # ------------------------------------------------------------------ source table
    def _caster_for_table(self) -> Any:
        from devices.ntrip import Caster

        text = self.caster.text().strip()
        caster = Caster.parse(text)
        if not caster.password:
            pw = self.password.text() or secrets.load_password(caster.url()) or ""
            caster = Caster.parse(text, pw)
        return caster

    def fetch(self) -> None:
        """Ask the caster for its source table on a ``fieldapp-ntrip-table`` thread."""
        from devices.ntrip import fetch_sourcetable

        try:
            caster = self._caster_for_table()
        except ValueError as exc:
            self.table_label.setText(str(exc))
            return
        self.list_button.setEnabled(False)
        self.table_label.setText(f"Asking {caster.where} for its mountpoints…")
        fetch_sourcetable(caster, self._signal.sigDone.emit, self._signal.sigDone.emit,
                          near=self.near)

    def _show_table(self, result: Any) -> None:
        self.list_button.setEnabled(True)
        self.mountpoints.clear()
        if isinstance(result, str):
            self.table_label.setText(result)
            return
        self.table_label.setText(f"{plural(len(result), 'mountpoint')}"
                                 + (", nearest first" if self.near else "") + ": click one to use it")
        for m in result:
            dist = f"{m.distance_km:.0f} km" if m.distance_km is not None else "distance unknown"
            gga = ", needs GGA" if m.needs_gga else ""
            item = QListWidgetItem(f"{m.name} — {dist}, {m.format} {m.nav_system}{gga}")
            item.setData(Qt.ItemDataRole.UserRole, m.name)
            self.mountpoints.addItem(item)

    def _choose(self, item: QListWidgetItem) -> None:
        from devices.ntrip import Caster

        try:
            caster = Caster.parse(self.caster.text().strip())
        except ValueError:
            return
        self.caster.setText(caster.with_mountpoint(item.data(Qt.ItemDataRole.UserRole)).url(with_password=False))

    # ------------------------------------------------------------------ saving
    def chosen(self) -> dict[str, Any]:
        """The config fields of the box (``ntrip_caster`` without its password).

        Raises
        ------
        ValueError
            A caster that is not an ``ntrip://`` URL (in the caster's words).
        """
        from devices.ntrip import Caster

        text = self.caster.text().strip()
        url = Caster.parse(text).url(with_password=False) if text else None
        return {"ntrip_caster": url, "ntrip_gga_interval_s": float(self.gga.value()),
                "rtcm_url": self.rtcm_port.text().strip() or None}

    def keep_password(self) -> str | None:
        """Keep the typed password (or one written into the URL) apart from the settings file;
        returns where, or None when there was none to keep."""
        from devices.ntrip import Caster

        text = self.caster.text().strip()
        if not text:
            return None
        caster = Caster.parse(text)
        pw = self.password.text() or caster.password
        if not pw:
            return None
        return secrets.store_password(caster.url(with_password=False), pw)
