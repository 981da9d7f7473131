"""Framing: a byte stream into complete frames (one sentence each).

:class:`Framer` is the interface :class:`~devices.transport.PortReader` takes (through a
``framer_factory``, so a device with another framing, e.g. a BLE stream of checksummed sentences
without line ends, plugs in its own); :class:`LineFramer` frames CR / LF / CRLF lines.
:func:`is_checksummed_nmea` is auto-baud's test of one line.  All importable from
:mod:`devices.transport` as well.
"""

from __future__ import annotations

import abc
from collections.abc import Callable

__all__ = ["MAX_LINE_BYTES", "Framer", "FramerFactory", "LineFramer", "is_checksummed_nmea"]

#: A line without terminator longer than this is a runaway and is dropped.
#: NMEA 0183 says 82 characters; high-precision RTK sentences run to ~120.
MAX_LINE_BYTES = 1024


class Framer(abc.ABC):
    """Turns a byte stream into complete frames (one sentence each).

    Subclasses implement :meth:`feed` and :meth:`reset` and keep the
    ``dropped_frames`` / ``dropped_bytes`` counters current.  A framer is used
    by one thread only; :class:`PortReader` makes a fresh one per connection.
    """

    dropped_frames: int = 0
    dropped_bytes: int = 0

    @abc.abstractmethod
    def feed(self, data: bytes) -> list[bytes]:
        """Add received bytes; return the frames now complete, without terminators."""

    @abc.abstractmethod
    def reset(self) -> None:
        """Forget any partial frame (after a reconnect)."""


FramerFactory = Callable[[], Framer]


class LineFramer(Framer):
    """Frames lines ended by CR, LF or CRLF.

    A line split across reads is joined.  Empty lines are skipped.  A runaway
    line (no terminator within ``max_line_bytes``) is dropped and counted in
    ``dropped_frames`` / ``dropped_bytes``; framing resynchronises on the next
    start character (``$`` or ``!``) or line end.

    Parameters
    ----------
    max_line_bytes : int
        Longest line kept, bytes (default :data:`MAX_LINE_BYTES`, 1 KiB).
    start_chars : bytes
        Characters that may start a sentence, for resynchronisation.

    Examples
    --------
    >>> f = LineFramer()
    >>> f.feed(b"$GPGGA,1*00\\r\\n$GPR")
    [b'$GPGGA,1*00']
    >>> f.feed(b"MC,2*00\\r")
    [b'$GPRMC,2*00']
    """

    def __init__(self, max_line_bytes: int = MAX_LINE_BYTES, start_chars: bytes = b"$!") -> None:
        if max_line_bytes < 16:
            raise ValueError(f"max_line_bytes {max_line_bytes} below 16")
        self.max_line_bytes = max_line_bytes
        self.start_chars = start_chars
        self._pending = b""
        self._discarding = False
        self.dropped_frames = 0
        self.dropped_bytes = 0

    def reset(self) -> None:
        self._pending = b""
        self._discarding = False

    def _find_start(self, data: bytes, begin: int = 0) -> int:
        found = [i for i in (data.find(c, begin) for c in (bytes([b]) for b in self.start_chars)) if i >= 0]
        return min(found) if found else -1

    def feed(self, data: bytes) -> list[bytes]:
        if not data:
            return []
        if self._discarding:
            # throw bytes away until a line end or the next sentence start
            cut = min((i for i in (data.find(b"\r"), data.find(b"\n"), self._find_start(data)) if i >= 0), default=-1)
            if cut < 0:
                self.dropped_bytes += len(data)
                return []
            self.dropped_bytes += cut
            data = data[cut:]
            self._discarding = False
        buf = self._pending + data if self._pending else data
        last_cr, last_lf = buf.rfind(b"\r"), buf.rfind(b"\n")
        end = max(last_cr, last_lf)
        if end < 0:
            lines: list[bytes] = []
            tail = buf
        else:
            lines = buf[:end].splitlines()
            tail = buf[end + 1 :]
        out = []
        cap = self.max_line_bytes
        for line in lines:
            if len(line) > cap:
                line = self._resync(line)
            if line:
                out.append(line)
        if len(tail) > cap:
            tail = self._resync(tail)
            self._discarding = not tail
        self._pending = tail
        return out

    def _resync(self, data: bytes) -> bytes:
        """Drop a runaway head: keep from the next start character on, until it fits the cap."""
        while len(data) > self.max_line_bytes:
            self.dropped_frames += 1
            nxt = self._find_start(data, 1)
            if nxt < 0:
                self.dropped_bytes += len(data)
                return b""
            self.dropped_bytes += nxt
            data = data[nxt:]
        return data


def is_checksummed_nmea(line: bytes) -> bool:
    """True when ``line`` is ``$...*hh`` or ``!...*hh`` with a matching XOR checksum.

    Used by auto-baud: garbage at the wrong rate almost never passes.

    >>> is_checksummed_nmea(b"$GPGGA,,,,,,0,00,,,,,,,*66")
    True
    >>> is_checksummed_nmea(b"$GPGGA,,,,,,0,00,,,,,,,*67")
    False
    """
    if len(line) < 6 or line[:1] not in (b"$", b"!") or line[-3:-2] != b"*":
        return False
    try:
        want = int(line[-2:], 16)
    except ValueError:
        return False
    got = 0
    for b in line[1:-3]:
        got ^= b
    return got == want

