"""Device readings kept: the instrument's own sentences behind a tree or a station.

A caliper reading that becomes a tree, or a rangefinder shot that becomes a station, is kept
as a :class:`~fieldapp.survey.features.DeviceReading` record in the same command as the record
it made (one transaction in the store, one step of undo), and that record names it by uuid
(``Tree.caliper_reading_id``, ``Station.reading_id``). (An offset OHWM point's
``reading_id`` still takes the shot's own id, if any: the window shoots it from typed values.)
A reading is kept only when it carries the bytes the instrument sent (``raw``, as
``devices.readings.CaliperReading`` and ``RangefinderShot`` do); a typed value, or a test's
stand-in reading without ``raw``, keeps nothing.

The receive time: a device reading carries ``t_monotonic_s``, the ``time.monotonic()`` when
its line came in (0.0 when parsed offline). A caliper reading may wait minutes for a usable
fix, so the time kept is the visit's clock now less the reading's age on the monotonic clock;
a reading with no receive time (0.0), or one whose age is negative or over a day (not of this
process's clock), is taken as received now.

Examples
--------
>>> from datetime import datetime, timezone
>>> from dataclasses import dataclass
>>> @dataclass
... class Cal:
...     dbh_in: float = 12.3
...     species_label: str | None = "RO"
...     protocol: str = "digitech"
...     raw: bytes = b"$PHGF,DIA,312,*4B"
...     t_monotonic_s: float = 95.0
>>> now = datetime(2024, 6, 3, 15, 0, 0, tzinfo=timezone.utc)
>>> stamp = dict(uuid="00000000-0000-4000-8000-000000000001", created_utc=now,
...              modified_utc=now, created_by="crew@laptop")
>>> rec = kept_reading(Cal(), Instrument.CALIPER, stamp, now, now_monotonic_s=100.0)
>>> rec.device.value, rec.raw, rec.received_utc.isoformat()
('caliper', b'$PHGF,DIA,312,*4B', '2024-06-03T14:59:55+00:00')
>>> kept_reading(Cal(raw=b""), Instrument.CALIPER, stamp, now) is None
True
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol, runtime_checkable

from .features import DeviceReading, Instrument

__all__ = ["SentLike", "kept_reading", "MAX_AGE_S"]

#: A reading older than this (s) on the monotonic clock is not of this process: taken as now.
MAX_AGE_S = 86_400.0


@runtime_checkable
class SentLike(Protocol):
    """What is kept of a device reading: the bytes as received (line ends left off) and the
    ``time.monotonic()`` (s) they came in (names of ``devices.readings``)."""

    raw: bytes
    t_monotonic_s: float


def received_utc(t_monotonic_s: float, now_utc: datetime, now_monotonic_s: float) -> datetime:
    """When a line received at ``t_monotonic_s`` (``time.monotonic()``, s) came in, as UTC:
    ``now_utc`` less its age; ``now_utc`` itself without a receive time (0.0) or for an age
    below 0 or above :data:`MAX_AGE_S`."""
    age = now_monotonic_s - t_monotonic_s
    if t_monotonic_s <= 0.0 or not 0.0 <= age <= MAX_AGE_S:
        return now_utc
    return now_utc - timedelta(seconds=age)


def kept_reading(reading: object, device: Instrument, stamp: Mapping[str, Any], now_utc: datetime, *,
                 now_monotonic_s: float | None = None) -> DeviceReading | None:
    """The :class:`DeviceReading` to keep for ``reading`` (None when it carries no raw bytes).

    ``stamp``: the record's ``uuid``, ``created_utc``, ``modified_utc``, ``created_by`` (the
    visit's ``_stamp()``); ``now_utc``: the visit's clock now (tz-aware);
    ``now_monotonic_s``: ``time.monotonic()`` now (taken when not given). The protocol is the
    reading's ``protocol`` (``""`` when it has none).
    """
    if not isinstance(reading, SentLike):
        return None
    raw = reading.raw
    if not isinstance(raw, (bytes, bytearray)) or not raw:
        return None
    t = reading.t_monotonic_s
    mono = time.monotonic() if now_monotonic_s is None else now_monotonic_s
    when = received_utc(float(t) if isinstance(t, (int, float)) else 0.0, now_utc, mono)
    protocol = getattr(reading, "protocol", "")
    when = when.astimezone(UTC)
    return DeviceReading(**stamp, device=device, protocol=protocol if isinstance(protocol, str) else "",
                         received_utc=when.replace(microsecond=when.microsecond // 1000 * 1000),
                         raw=bytes(raw))
