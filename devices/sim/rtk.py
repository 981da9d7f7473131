"""A simulated receiver's RTK engine: it reads the RTCM 3 the app writes to its port and says
which fix quality the receiver has, like a real one converging.

- :class:`RtkTimes`: how long corrections must flow before RTK float and RTK fixed, and how old
  they may grow before fixed falls back to float and float to the base quality (autonomous or
  DGPS/SBAS). Short and configurable so tests are quick; tests wait on the reported quality,
  never on these times.
- :class:`RtkEngine`: fed the bytes the app wrote (:meth:`RtkEngine.feed`); a parser thread
  ``fieldapp-sim-rtcm`` frames and checks them with :class:`pyrtcm.RTCMReader` (CRC 24Q). RTK
  needs the reference station (1005/1006) and observations (1001-1004, 1009-1012, MSM 1071-1137);
  anything else, and bytes that are not RTCM 3, are counted and ignored.
- :func:`station_1005`, :func:`gps_observables_1004`, :func:`text_1029`: RTCM 3 frames built with
  pyrtcm (payload bits packed here, framing and CRC by :meth:`pyrtcm.RTCMMessage.serialize`),
  for the tests' loopback caster and the benches.
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from pyrtcm import RTCMMessage, RTCMReader

__all__ = ["RtkTimes", "RtkEngine", "station_1005", "gps_observables_1004", "text_1029",
           "OBSERVATION_TYPES", "STATION_TYPES"]

log = logging.getLogger(__name__)

STATION_TYPES = frozenset({1005, 1006, 1032})
OBSERVATION_TYPES = frozenset({*range(1001, 1005), *range(1009, 1013), *range(1071, 1138)})


@dataclass(frozen=True)
class RtkTimes:
    """Convergence of the simulated RTK engine, seconds of wall clock.

    Parameters
    ----------
    float_after_s : float
        Corrections flowing this long (station and observations seen) give RTK float.
    fixed_after_s : float
        ... and this long RTK fixed (>= ``float_after_s``).
    fixed_max_age_s : float
        Correction age (since the last observation message) beyond which fixed falls to float
        and the convergence starts again when corrections return.
    float_max_age_s : float
        Correction age beyond which float falls to the base quality (>= ``fixed_max_age_s``).

    Raises
    ------
    ValueError
        A time that is not positive or out of order.
    """

    float_after_s: float = 3.0
    fixed_after_s: float = 10.0
    fixed_max_age_s: float = 5.0
    float_max_age_s: float = 15.0

    def __post_init__(self) -> None:
        if not 0 < self.float_after_s <= self.fixed_after_s:
            raise ValueError(f"RTK float after {self.float_after_s} s must be > 0 and no later "
                             f"than fixed after {self.fixed_after_s} s")
        if not 0 < self.fixed_max_age_s <= self.float_max_age_s:
            raise ValueError(f"fixed max age {self.fixed_max_age_s} s must be > 0 and no more "
                             f"than float max age {self.float_max_age_s} s")


class _ByteFeed:
    """A blocking byte stream for :class:`pyrtcm.RTCMReader`: ``read(n)`` waits for ``n`` bytes
    (b'' once closed), so frames split across writes are read whole."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._cond = threading.Condition()
        self._closed = False

    def push(self, data: bytes) -> None:
        with self._cond:
            self._buf += data
            if len(self._buf) > 1 << 20:  # nobody parsing: keep the newest MiB
                del self._buf[: len(self._buf) - (1 << 20)]
            self._cond.notify_all()

    def read(self, n: int) -> bytes:
        with self._cond:
            while len(self._buf) < n and not self._closed:
                self._cond.wait(0.5)
            if len(self._buf) < n:
                return b""
            out = bytes(self._buf[:n])
            del self._buf[:n]
            return out

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()


class RtkEngine:
    """The fix quality of a receiver given the RTCM 3 it has been fed.

    Parameters
    ----------
    base_quality : str
        Quality without corrections: ``"autonomous"`` or ``"dgps"`` (SBAS).
    times : RtkTimes
    clock : callable() -> float
        Monotonic seconds (tests may pass their own).

    Examples
    --------
    >>> t = [0.0]
    >>> e = RtkEngine("dgps", RtkTimes(1, 2, 3, 5), clock=lambda: t[0])
    >>> e.note_message(1005); e.note_message(1004); e.quality()
    'dgps'
    >>> t[0] = 1.5; e.note_message(1004); e.quality(), e.correction_age_s()
    ('rtk_float', 0.0)
    >>> t[0] = 2.5; e.note_message(1004); e.quality()
    'rtk_fixed'
    >>> t[0] = 6.0; e.quality(), round(e.correction_age_s(), 1)
    ('rtk_float', 3.5)
    >>> t[0] = 8.0; e.quality()
    'dgps'
    """

    def __init__(self, base_quality: str = "dgps", times: RtkTimes | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if base_quality not in ("autonomous", "dgps"):
            raise ValueError(f"base quality {base_quality!r} is not autonomous or dgps")
        self.base_quality = base_quality
        self.times = times or RtkTimes()
        self._clock = clock
        self._lock = threading.Lock()
        self._run_start: float | None = None
        self._last_obs: float | None = None
        self._station_seen = False
        self._fixed = False
        self.station_id: int | None = None
        self.messages: collections.Counter[int] = collections.Counter()
        self.bad_frames = 0
        self.bytes_in = 0
        self._feed: _ByteFeed | None = None
        self._thread: threading.Thread | None = None

    # -- bytes in (simulator thread)

    def feed(self, data: bytes) -> None:
        """Bytes the app wrote to the receiver's port (any thread)."""
        if self._feed is None:
            self._feed = _ByteFeed()
            self._thread = threading.Thread(target=self._parse, name="fieldapp-sim-rtcm",
                                            daemon=True)
            self._thread.start()
        self.bytes_in += len(data)
        self._feed.push(data)

    def close(self) -> None:
        if self._feed is not None:
            self._feed.close()
        if self._thread is not None:
            self._thread.join(2.0)

    def _parse(self) -> None:
        def bad(err: Exception) -> None:
            self.bad_frames += 1

        reader = RTCMReader(self._feed, errorhandler=bad)
        try:
            while True:
                raw, parsed = reader.read()
                if raw is None:
                    return
                msg_type = int(getattr(parsed, "identity", "0")[:4] or 0)
                self.note_message(msg_type, getattr(parsed, "DF003", None))
        except Exception:  # noqa: BLE001 - a simulator must outlive any input
            log.exception("simulated receiver: RTCM parser ended")

    # -- the engine

    def note_message(self, msg_type: int, station_id: int | None = None) -> None:
        """One valid RTCM 3 message of ``msg_type`` arrived now."""
        now = self._clock()
        with self._lock:
            self.messages[msg_type] += 1
            if msg_type in STATION_TYPES:
                self._station_seen = True
                if station_id is not None:
                    self.station_id = int(station_id)
                return
            if msg_type not in OBSERVATION_TYPES or not self._station_seen:
                return
            if self._last_obs is None or now - self._last_obs > self.times.fixed_max_age_s:
                self._run_start = now  # a gap: converge again
                self._fixed = False
            self._last_obs = now

    def correction_age_s(self) -> float | None:
        """Seconds since the last observation message (None before one)."""
        with self._lock:
            return None if self._last_obs is None else max(0.0, self._clock() - self._last_obs)

    def quality(self) -> str:
        """``"rtk_fixed"``, ``"rtk_float"`` or the base quality, now."""
        now = self._clock()
        t = self.times
        with self._lock:
            if self._last_obs is None or self._run_start is None:
                return self.base_quality
            age = now - self._last_obs
            converged = now - self._run_start
            if age > t.float_max_age_s:
                self._fixed = False
                return self.base_quality
            if age > t.fixed_max_age_s:
                self._fixed = False
                return "rtk_float"
            if self._fixed or converged >= t.fixed_after_s:
                self._fixed = True
                return "rtk_fixed"
            if converged >= t.float_after_s:
                return "rtk_float"
            return self.base_quality


# --------------------------------------------------------------------------- building RTCM 3


def _pack(fields: list[tuple[int, int]]) -> bytes:
    """(bits, value) fields, most significant bit first, into bytes (zero-padded); negative
    values as two's complement."""
    acc = 0
    nbits = 0
    for bits, value in fields:
        acc = (acc << bits) | (value & ((1 << bits) - 1))
        nbits += bits
    pad = -nbits % 8
    return (acc << pad).to_bytes((nbits + pad) // 8, "big")


def _frame(payload: bytes) -> bytes:
    frame: bytes = RTCMMessage(payload=payload).serialize()
    return frame


def station_1005(station_id: int = 1, ecef_m: tuple[float, float, float] = (
        200_000.0, -4_650_000.0, 4_340_000.0)) -> bytes:
    """RTCM 1005 (stationary reference station ARP, ECEF in 0.0001 m), framed."""
    x, y, z = (round(v / 0.0001) for v in ecef_m)
    return _frame(_pack([(12, 1005), (12, station_id), (6, 0), (1, 1), (1, 0), (1, 0), (1, 0),
                         (38, x), (1, 0), (1, 0), (38, y), (2, 0), (38, z)]))


def gps_observables_1004(station_id: int = 1, tow_ms: int = 0, sats: int = 8) -> bytes:
    """RTCM 1004 (GPS extended L1 and L2 RTK observables) for ``sats`` satellites, framed.
    The observables are plausible constants (a simulator only needs valid messages)."""
    fields = [(12, 1004), (12, station_id), (30, tow_ms % 604_800_000), (1, 0), (5, sats),
              (1, 0), (3, 0)]
    for prn in range(1, sats + 1):
        fields += [(6, prn), (1, 0), (24, 1_000_000 + prn), (20, 1000), (7, 127), (8, 70),
                   (8, 180), (2, 0), (14, 50), (20, 900), (7, 127), (8, 160)]
    return _frame(_pack(fields))


def text_1029(text: str, station_id: int = 1) -> bytes:
    """RTCM 1029 (Unicode text string, up to 255 UTF-8 bytes), framed: filler for a stream
    of a given byte rate."""
    data = text.encode("utf-8")[:255]
    fields = [(12, 1029), (12, station_id), (16, 60000), (17, 0), (7, len(text[:127])),
              (8, len(data))] + [(8, b) for b in data]
    return _frame(_pack(fields))
