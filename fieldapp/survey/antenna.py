"""The visit's one antenna height: set when the visit is made, changed with its time, shown in
the unit it was entered in.

The site keeps the current height (:attr:`~fieldapp.survey.features.Site.antenna_height_m`,
metres, and ``antenna_height_unit``); each height set is also an
:class:`~fieldapp.survey.features.AntennaHeight` record (store schema 7) whose ``created_utc``
is when the pole was set to it, so a fix of the morning keeps the morning's height.

>>> to_metres(6.5, "ft")
1.9812
>>> height_words(1.9812, "ft"), height_words(1.8, None), height_words(2.0, "us_ft")
('6.50 ft', '1.800 m', '6.56 US ft')
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from .errors import InvalidValue
from .features import ANTENNA_UNITS, AntennaHeight

#: How each unit is written after a height.
UNIT_WORDS = {"m": "m", "ft": "ft", "us_ft": "US ft"}
#: Highest antenna height accepted (m): a survey pole or a tripod, never more.
MAX_ANTENNA_M = 10.0


def checked_unit(unit: str | None) -> str:
    """``unit`` as stored (None -> ``"m"``); InvalidValue for a unit not in :data:`ANTENNA_UNITS`."""
    unit = unit or "m"
    if unit not in ANTENNA_UNITS:
        raise InvalidValue("antenna_height_unit", f"{unit!r} is not one of {', '.join(ANTENNA_UNITS)}")
    return unit


def to_metres(value: float, unit: str | None) -> float:
    """A height ``value`` in ``unit`` as metres, rounded to 0.1 mm (6.5 ft -> 1.9812 m)."""
    return round(float(value) * ANTENNA_UNITS[checked_unit(unit)], 4)


def from_metres(height_m: float, unit: str | None) -> float:
    """``height_m`` metres in ``unit`` (the number the crew typed, give or take 0.1 mm)."""
    return float(height_m) / ANTENNA_UNITS[checked_unit(unit)]


def height_words(height_m: float, unit: str | None) -> str:
    """The height as the crew entered it: ``"6.50 ft"``, ``"1.800 m"`` (metres: 3 decimals)."""
    unit = checked_unit(unit)
    digits = 3 if unit == "m" else 2
    return f"{from_metres(height_m, unit):.{digits}f} {UNIT_WORDS[unit]}"


def height_at(records: Iterable[AntennaHeight], when_utc: datetime | None, default_m: float) -> float:
    """The antenna height (m) in force at ``when_utc``: the last record set at or before it; the
    first record for an earlier time; ``default_m`` (the site's) without records or a time."""
    ordered = sorted(records, key=lambda r: r.created_utc)
    if not ordered or when_utc is None:
        return default_m
    current = ordered[0].height_m
    for r in ordered:
        if r.created_utc <= when_utc:
            current = r.height_m
    return current


def history_words(height_m: float, unit: str | None, records: Iterable[AntennaHeight]) -> str:
    """The visit's antenna height for a report: the one height as entered (``"6.50 ft"``), or
    each one with the time it was set when the pole was changed during the visit
    (``"6.50 ft from 14:02 UTC, 5.00 ft from 15:30 UTC"``)."""
    ordered = sorted(records, key=lambda r: r.created_utc)
    if len(ordered) < 2:
        return height_words(height_m, unit)
    return ", ".join(f"{height_words(r.height_m, r.unit)} from {r.created_utc:%H:%M} UTC" for r in ordered)


def visit_history_words(visit: Any) -> str:
    """:func:`history_words` of a :class:`fieldapp.survey.visit.Visit` (its site and records)."""
    site = visit.site
    return history_words(site.antenna_height_m, site.antenna_height_unit, visit.records(AntennaHeight))


__all__ = ["MAX_ANTENNA_M", "UNIT_WORDS", "checked_unit", "from_metres", "height_at", "height_words",
           "history_words", "to_metres", "visit_history_words"]
