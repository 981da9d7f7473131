"""Simulated standalone inclinometer: the vendor ASCII format (``X=+00.430`` / ``Y=-00.084``,
9600 8E1) or NMEA ``XDR`` (``PTCH`` / ``ROLL``), at a fixed rate."""

from __future__ import annotations

import time
from typing import Any

from devices.instruments.sentence import with_checksum
from devices.sim.base import Simulator


class InclinometerSim(Simulator):
    """Sends the current tilt ``rate_hz`` times a second; :meth:`set_tilt` changes it.

    Parameters
    ----------
    pitch_deg, roll_deg : float
    rate_hz : float
    dialect : "ascii" (X = pitch, Y = roll) or "xdr"
    """

    kind = "inclinometer"

    def __init__(
        self, pitch_deg: float = 0.0, roll_deg: float = 0.0, *, rate_hz: float = 5.0,
        dialect: str = "ascii", **kw: Any,
    ) -> None:
        if dialect not in ("ascii", "xdr"):
            raise ValueError(f"dialect {dialect!r} is not 'ascii' or 'xdr'")
        if not 0 < rate_hz <= 50:
            raise ValueError(f"rate_hz {rate_hz} outside (0, 50]")
        self.pitch_deg, self.roll_deg = pitch_deg, roll_deg
        self.rate_hz, self.dialect = rate_hz, dialect
        self._due: float | None = None
        kw.setdefault("parity", "E" if dialect == "ascii" else "N")
        super().__init__(**kw)

    def set_tilt(self, pitch_deg: float, roll_deg: float) -> None:
        self.pitch_deg, self.roll_deg = pitch_deg, roll_deg

    def sample(self) -> bytes:
        """The bytes of one sample."""
        if self.dialect == "ascii":
            return f"X={self.pitch_deg:+07.3f}\r\nY={self.roll_deg:+07.3f}\r\n".encode()
        return with_checksum(f"IIXDR,A,{self.pitch_deg:.3f},D,PTCH,A,{self.roll_deg:.3f},D,ROLL")

    def _next_due(self) -> float | None:
        if self._due is None:
            self._due = time.monotonic()
        return self._due

    def _tick(self, now: float) -> None:
        self._due = now + 1.0 / self.rate_hz
        self.send(self.sample())
