"""Replay a recorded NMEA log as a receiver: at real time by the log's own time stamps,
faster (``speed`` > 1), or as fast as the port takes it (``speed=None``), once or looping.

Lines starting with ``#`` (gpsd test-log headers) are skipped; CRLF, LF and mixed line ends
are accepted and each line is sent with CRLF. An epoch is the run of lines sharing one UTC
time (GGA/RMC/GLL/GNS/GST/ZDA field 1); the pause before an epoch is the time-stamp step
divided by ``speed`` (capped at ``max_gap_s``, midnight wrap handled).
"""

from __future__ import annotations

import math
import re
import threading
import time
from pathlib import Path
from typing import Any

from devices.sim.base import Simulator

_TIMED = re.compile(rb"^[$!][A-Z]{2}(GGA|RMC|GLL|GNS|GST|ZDA),")


def _utc_seconds(line: bytes) -> float | None:
    m = _TIMED.match(line)
    if not m:
        return None
    fields = line.split(b",")
    index = 5 if m.group(1) == b"GLL" else 1
    if len(fields) <= index:
        return None
    text = fields[index].split(b"*")[0]
    try:
        return int(text[0:2]) * 3600 + int(text[2:4]) * 60 + float(text[4:])
    except (ValueError, IndexError):
        return None


def load_epochs(path: str | Path) -> list[tuple[float | None, list[bytes]]]:
    """Group a log's lines into (utc_seconds or None, lines) epochs, in file order."""
    epochs: list[tuple[float | None, list[bytes]]] = []
    current: float | None = None
    lines: list[bytes] = []
    for raw in Path(path).read_bytes().splitlines():
        line = raw.strip()
        if not line or line.startswith(b"#"):
            continue
        t = _utc_seconds(line)
        if t is not None and current is not None and abs(t - current) > 1e-6 and lines:
            epochs.append((current, lines))
            lines = []
        if t is not None:
            current = t
        lines.append(line)
    if lines:
        epochs.append((current, lines))
    return epochs


class ReplaySim(Simulator):
    """Plays ``path`` into the port.

    Parameters
    ----------
    path : str or Path
    speed : float or None
        1.0 real time, 10 ten times faster, None as fast as the port drains (lossless).
    loop : bool
    max_gap_s : float
        Longest pause between epochs (log gaps are shortened to this, before ``speed``).

    Attributes
    ----------
    finished : threading.Event
        Set when a non-looping replay has sent its last line.
    passes : int
        Completed passes through the log.
    """

    kind = "replay"

    def __init__(
        self, path: str | Path, *, speed: float | None = 1.0, loop: bool = False,
        max_gap_s: float = 5.0, **kw: Any,
    ) -> None:
        if speed is not None and not (math.isfinite(speed) and speed > 0):
            raise ValueError(f"speed {speed} must be a finite number > 0 "
                             "(None = as fast as possible)")
        if not (math.isfinite(max_gap_s) and max_gap_s >= 0):
            raise ValueError(f"max_gap_s {max_gap_s} must be a finite number >= 0")
        self.path = Path(path)
        self.epochs = load_epochs(self.path)
        if not self.epochs:
            raise ValueError(f"{self.path} has no NMEA lines")
        self.speed = speed
        self.loop = loop
        self.max_gap_s = max_gap_s
        self.finished = threading.Event()
        self.passes = 0
        self.lines_sent = 0
        self._i = 0
        self._due: float | None = None
        kw.setdefault("name", "replay")
        super().__init__(**kw)

    def _gap_s(self, i: int) -> float:
        if self.speed is None or i == 0:
            return 0.0
        prev, cur = self.epochs[i - 1][0], self.epochs[i][0]
        if prev is None or cur is None:
            return 0.0
        step = cur - prev
        if step < -43200:  # midnight
            step += 86400
        return max(0.0, min(step, self.max_gap_s)) / self.speed

    def _next_due(self) -> float | None:
        if self.finished.is_set():
            return None
        if self._due is None:
            self._due = time.monotonic()
        return self._due

    def _tick(self, now: float) -> None:
        _, lines = self.epochs[self._i]
        data = b"".join(line + b"\r\n" for line in lines)
        if self.speed is None:
            sent = 0
            while sent < len(data) and not self._stop.is_set():
                sent += self.send(data[sent:], wait_s=0.2, lossless=True)
                if not getattr(self.endpoint, "plugged", True):
                    break
        else:
            self.send(data)
        self.lines_sent += len(lines)
        self._i += 1
        if self._i >= len(self.epochs):
            self.passes += 1
            self._i = 0
            if not self.loop:
                self.finished.set()
                self._due = None
                return
        self._due = now + self._gap_s(self._i)
