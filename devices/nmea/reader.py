"""The reader thread: :class:`GnssReader`, a :class:`~devices.device_reader.DeviceReader` (one
:class:`~devices.transport.PortReader` thread) feeding an :class:`~devices.nmea.assembler.EpochAssembler`.

It keeps only the newest fix (a consumer is never more than one epoch behind, however slowly it
reads) and the statistics for the UI (:class:`GnssStats`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from devices.device_reader import DeviceReader
from devices.nmea.assembler import EpochAssembler, NmeaStats
from devices.nmea.fix import BadKind, Fix, Usability
from devices.transport import DeviceStatus, LineFramer, LinkState, ReaderStats, SerialSettings

__all__ = ["GnssStats", "GnssReader"]

log = logging.getLogger(__name__)

FOOT_M = 0.3048  # international foot


@dataclass(frozen=True)
class GnssStats:
    """Snapshot of a :class:`GnssReader`: NMEA counts, link counts, link state.

    ``bad`` merges the assembler's kinds with runaway lines the framer dropped
    (counted as ``overlong``).
    """

    nmea: NmeaStats
    reader: ReaderStats
    fixes_delivered: int
    last_status: DeviceStatus | None

    @property
    def bad(self) -> dict[str, int]:
        out = dict(self.nmea.bad)
        out[BadKind.OVERLONG.value] += self.reader.dropped_frames
        return out


class GnssReader(DeviceReader):
    """A GNSS receiver on a port: reader thread -> epochs -> newest fix.

    Parameters
    ----------
    settings : SerialSettings
        The port (``autobaud=True`` to find the rate).
    on_fix : callable(Fix) -> None, optional
        Called on the reader thread for each fix; keep it quick (e.g. post to
        the GUI thread).  Exceptions are counted and survived.
    on_status : callable(DeviceStatus) -> None, optional
        Link-state reports (connecting, connected, disconnected, stopped).
    max_age_s : float
        Fix age limit for :meth:`usable_fix`, seconds (default 2).
    antenna_height_m : float
        Antenna phase-centre height above the ground mark, metres; see
        :meth:`set_antenna_height`.
    idle_flush_s : float
        A gap this long after the last sentence closes the epoch early, so a
        1 Hz receiver's fix is delivered within about ``read_timeout_s`` of its
        last sentence rather than at the next epoch.  Once the receiver's cycle
        ender is learned (see :class:`EpochAssembler`) the fix is delivered on
        that line, with no wait; this gap is the fallback.
    name : str
        Thread name suffix (``fieldapp-reader-<name>``).
    no_nmea_timeout_s : float or None
        A link that yields no checksummed NMEA sentence for this long (default 10 s; the
        app's ``gnss_no_nmea_s`` setting) is closed and retried like an unplug: a path that
        now points at another program's terminal is not held.  None: never.

    Notes
    -----
    Latency is bounded: the reader keeps one slot, the newest fix.  Whoever
    calls :meth:`latest_fix` or :meth:`wait_fix` gets the newest complete
    epoch, never a queue of old ones.  Start / stop / ``with`` / ``running`` / ``settings`` are
    :class:`~devices.device_reader.DeviceReader`'s.
    """

    lines_per_call = True

    def __init__(
        self,
        settings: SerialSettings,
        on_fix: Callable[[Fix], None] | None = None,
        on_status: Callable[[DeviceStatus], None] | None = None,
        max_age_s: float = 2.0,
        antenna_height_m: float = 0.0,
        idle_flush_s: float = 0.05,
        name: str = "gnss",
        no_nmea_timeout_s: float | None = 10.0,
    ) -> None:
        if max_age_s <= 0:
            raise ValueError(f"max_age_s {max_age_s!r} must be positive")
        self.max_age_s = max_age_s
        self.idle_flush_s = idle_flush_s
        self._assembler = EpochAssembler(antenna_height_m)
        self._on_fix = on_fix
        # a plain Lock (entered from C) guards the assembler and the slot; waiters use the Condition
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._latest: Fix | None = None
        self._seq = 0
        self._fix_callback_errors = 0
        self._last_status: DeviceStatus | None = None
        super().__init__(settings, on_status, framer_factory=LineFramer, name=name,
                         silence_timeout_s=no_nmea_timeout_s)

    # -- settings

    def set_antenna_height(self, value: float, unit: str = "m") -> None:
        """Set the antenna height for fixes received from now on.

        Parameters
        ----------
        value : float
            Height of the antenna phase centre above the ground mark.
        unit : {"m", "ft", "us_ft"}
            Metres, international feet (0.3048 m) or US survey feet (1200/3937 m).
        """
        factor = {"m": 1.0, "ft": FOOT_M, "us_ft": 1200.0 / 3937.0}.get(unit)
        if factor is None:
            raise ValueError(f"antenna height unit {unit!r} not one of m, ft, us_ft")
        metres = float(value) * factor
        if not 0.0 <= metres < 100.0:
            raise ValueError(f"antenna height {value!r} {unit} outside 0..100 m")
        with self._cond:
            self._assembler.antenna_height_m = metres

    # -- reader-thread callbacks

    def _publish(self, fixes: list[Fix]) -> None:
        if not fixes:
            return
        with self._cond:
            self._latest = fixes[-1]
            self._seq += len(fixes)
            self._cond.notify_all()
        if self._on_fix is not None:
            for fix in fixes:
                try:
                    self._on_fix(fix)
                except Exception:  # noqa: BLE001
                    with self._cond:
                        self._fix_callback_errors += 1
                    log.exception("on_fix callback failed")

    def feed(self, line: bytes, t_monotonic_s: float) -> None:
        """Take one framed line received at ``t_monotonic_s``.

        The reader thread calls this; call it directly (without :meth:`start`)
        to replay a log or simulate a stream with simulated time.
        """
        with self._lock:
            fixes = self._assembler.feed(line, t_monotonic_s)
        if fixes:
            self._publish(fixes)

    def feed_lines(self, lines: list[bytes], t_monotonic_s: float) -> None:
        """:meth:`feed` each of ``lines`` (all received at ``t_monotonic_s``); fixes are published
        as each epoch completes."""
        feed = self._assembler.feed
        for line in lines:
            with self._lock:
                fixes = feed(line, t_monotonic_s)
            if fixes:
                self._publish(fixes)

    def idle(self, t_monotonic_s: float) -> None:
        """A read found no data at ``t_monotonic_s``: close the epoch after a gap of ``idle_flush_s``."""
        self._on_idle(t_monotonic_s)

    _on_lines = feed_lines  # the port thread's hook (lines_per_call)

    def _on_idle(self, t: float) -> None:
        with self._cond:
            since = self._assembler.pending_since_s
            if since is None or t - since < self.idle_flush_s:
                return
            fixes = self._assembler.flush()
        self._publish(fixes)

    def _on_status(self, status: DeviceStatus) -> None:
        with self._cond:
            self._last_status = status
            if status.state is LinkState.CONNECTED:
                self._assembler.forget_cycle()  # another receiver, or set up anew: learn its cycle again
        super()._on_status(status)

    # -- consumer API

    def latest_fix(self) -> Fix | None:
        """The newest fix, or None before the first (never a queued old one)."""
        with self._cond:
            return self._latest

    def wait_fix(self, timeout_s: float, newer_than: Fix | None = None) -> Fix | None:
        """Wait for a fix other than ``newer_than``; return it, or None on timeout.

        Parameters
        ----------
        timeout_s : float
            Longest wait, seconds.
        newer_than : Fix, optional
            A fix already seen; wait for a newer one.  Without it any fix will do.
        """
        deadline = time.monotonic() + timeout_s
        with self._cond:
            while self._latest is None or self._latest is newer_than:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._cond.wait(left)
            return self._latest

    def usable_fix(self, now_monotonic_s: float | None = None) -> tuple[Fix | None, Usability]:
        """The newest fix and whether it may be recorded (age limit ``max_age_s``)."""
        fix = self.latest_fix()
        if fix is None:
            return None, Usability(False, "no fix received yet")
        now = time.monotonic() if now_monotonic_s is None else now_monotonic_s
        return fix, fix.is_usable(now, self.max_age_s)

    def stats(self) -> GnssStats:
        """Snapshot of sentence counts (good and each bad kind), link counts and state."""
        with self._cond:
            nmea = self._assembler.stats
            delivered = self._seq
            status = self._last_status
        reader = self._port.stats
        if self._fix_callback_errors:
            reader = replace(reader, callback_errors=reader.callback_errors + self._fix_callback_errors)
        return GnssStats(nmea, reader, delivered, status)
