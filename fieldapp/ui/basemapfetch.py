"""Prepare a basemap from the New visit dialog, while online: the tiles around a typed position
(latitude, longitude; the current fix by default) out to a radius, fetched into an MBTiles file
beside the visit by :func:`fieldapp.basemap.fetch.fetch` on a worker thread, with a progress bar
and Cancel (the tiles so far are kept; Fetch again resumes).

A ``user:password@`` typed or pasted into the tile URL box is shown masked (``crew:•••@``) as
soon as its ``@`` is there; the dialog keeps the password aside and hands the whole URL to the
fetch only (:meth:`BasemapFetchDialog.tile_url`), so a screenshot or a looking-over shoulder
never reads it."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
)

from fieldapp.basemap.fetch import FetchFailed, FetchRefused, bbox_around, fetch

#: What the tile URL box shows in place of a password.
PASSWORD_MASK = "•••"


def _split_password(url: str) -> tuple[str, str | None]:
    """(``url`` with the password of its ``user:password@`` replaced by :data:`PASSWORD_MASK`,
    the password as typed) -- or (``url``, None) when it holds no password or only the mask."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url, None
    userinfo, at, hostport = parts.netloc.rpartition("@")
    if not at or ":" not in userinfo:
        return url, None
    user, _, password = userinfo.partition(":")
    if not password or password == PASSWORD_MASK:
        return url, None
    shown = parts._replace(netloc=f"{user}:{PASSWORD_MASK}@{hostport}")
    return urlunsplit(shown), password


class _Relay(QObject):
    progress = Signal(int, int)
    finished = Signal(str, str)        # path or "", message


class BasemapFetchDialog(QDialog):
    """The dialog; :attr:`result_path` is the MBTiles file once a fetch finished (else None)."""

    def __init__(self, out_path: Path, lat_lon: tuple[float, float] | None = None,
                 parent: Any = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Prepare a basemap (online)")
        self.result_path: Path | None = None
        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None
        lay = QVBoxLayout(self)
        form = QFormLayout()
        self.url = QLineEdit()
        self.url.setObjectName("tileUrl")
        self.url.setPlaceholderText("https://tiles.example.org/{z}/{x}/{y}.png")
        self._password: str | None = None      # the masked password, never shown
        self.url.textChanged.connect(self._mask_password)
        form.addRow("Tile URL", self.url)
        self.lat = QDoubleSpinBox()
        self.lat.setRange(-85.0, 85.0)
        self.lat.setDecimals(6)
        self.lon = QDoubleSpinBox()
        self.lon.setRange(-180.0, 180.0)
        self.lon.setDecimals(6)
        if lat_lon is not None:
            self.lat.setValue(lat_lon[0])
            self.lon.setValue(lat_lon[1])
        row = QHBoxLayout()
        row.addWidget(self.lat)
        row.addWidget(self.lon)
        form.addRow("Centre (latitude, longitude °)", row)
        self.radius = QDoubleSpinBox()
        self.radius.setRange(50.0, 50_000.0)
        self.radius.setValue(1500.0)
        self.radius.setSuffix(" ft")
        form.addRow("Radius", self.radius)
        self.zoom_from = QSpinBox()
        self.zoom_from.setRange(0, 22)
        self.zoom_from.setValue(15)
        self.zoom_to = QSpinBox()
        self.zoom_to.setRange(0, 22)
        self.zoom_to.setValue(19)
        zr = QHBoxLayout()
        zr.addWidget(self.zoom_from)
        zr.addWidget(QLabel("to"))
        zr.addWidget(self.zoom_to)
        form.addRow("Zoom levels", zr)
        self.out = QLineEdit(str(out_path))
        form.addRow("Save as", self.out)
        lay.addLayout(form)
        self.bar = QProgressBar()
        self.bar.setObjectName("fetchProgress")
        lay.addWidget(self.bar)
        self.state = QLabel("Nothing is fetched in the field: do this before the trip.")
        self.state.setWordWrap(True)
        lay.addWidget(self.state)
        buttons = QDialogButtonBox()
        self.start = QPushButton("Fetch")
        self.start.setObjectName("fetchStart")
        self.stop = QPushButton("Cancel fetch")
        self.stop.setEnabled(False)
        buttons.addButton(self.start, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(self.stop, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)
        self._relay = _Relay(self)
        self._relay.progress.connect(self._progress)
        self._relay.finished.connect(self._finished)
        self.start.clicked.connect(self.begin)
        self.stop.clicked.connect(self._cancel.set)
        self.max_tiles = 5000
        self.rate_per_s = 2.0

    def _mask_password(self, text: str) -> None:
        """Show a password in the box as :data:`PASSWORD_MASK` (kept aside for the fetch); a box
        without the mask forgets the password kept."""
        shown, password = _split_password(text)
        if password is not None:
            self._password = password
            cursor = self.url.cursorPosition() - (len(text) - len(shown))
            self.url.setText(shown)        # comes back here with the mask: nothing to do
            self.url.setCursorPosition(max(0, min(cursor, len(shown))))
        elif f":{PASSWORD_MASK}@" not in text:
            self._password = None

    def tile_url(self) -> str:
        """The URL the fetch gets: the box's text with the masked password put back."""
        text = self.url.text().strip()
        if self._password is None:
            return text
        user_part, sep, rest = text.partition(f":{PASSWORD_MASK}@")
        return f"{user_part}:{self._password}@{rest}" if sep else text

    def begin(self) -> None:
        """Start fetching on a worker thread (refusals are shown at once)."""
        if self._thread is not None and self._thread.is_alive():
            return
        if self.zoom_to.value() < self.zoom_from.value():
            self.state.setText("Zoom levels: the first must not be above the second")
            return
        bbox = bbox_around(self.lat.value(), self.lon.value(), self.radius.value())
        zooms = (self.zoom_from.value(), self.zoom_to.value())
        url, out = self.tile_url(), Path(self.out.text().strip())
        self._cancel.clear()
        self.start.setEnabled(False)
        self.stop.setEnabled(True)
        self.state.setText("Fetching…")

        def work() -> None:
            try:
                r = fetch(url, bbox, zooms, out, max_tiles=self.max_tiles, rate_per_s=self.rate_per_s,
                          progress=self._relay.progress.emit, cancel=self._cancel.is_set)
                self._relay.finished.emit(str(r.path), f"{r.total} tiles saved in {r.path.name}")
            except (FetchRefused, FetchFailed) as exc:
                more = "" if isinstance(exc, FetchRefused) else " (the tiles so far are kept: Fetch resumes)"
                self._relay.finished.emit("", f"{exc}{more}")
            except Exception as exc:  # noqa: BLE001 - shown in words, never lost in a thread
                self._relay.finished.emit("", f"The fetch failed: {exc}")

        self._thread = threading.Thread(target=work, name="basemap-fetch", daemon=True)
        self._thread.start()

    def _progress(self, done: int, total: int) -> None:
        self.bar.setMaximum(total)
        self.bar.setValue(done)

    def _finished(self, path: str, message: str) -> None:
        self.start.setEnabled(True)
        self.stop.setEnabled(False)
        self.state.setText(message)
        if path:
            self.result_path = Path(path)
            self.bar.setValue(self.bar.maximum())

    def reject(self) -> None:  # noqa: D401 - Qt override
        """Close: a fetch in progress is cancelled (its tiles kept)."""
        self._cancel.set()
        super().reject()
