"""What the survey reads from instrument readings: small protocols, no ``devices`` import.

The visit takes readings from the device layer (``devices.readings.RangefinderShot``,
``devices.readings.CaliperReading``, ``devices.nmea.Fix``) or from any object with the same
attribute names (the simulators, the tests). These protocols name the attributes it reads;
a field the instrument did not measure is ``None``, never missing.

Examples
--------
>>> from dataclasses import dataclass
>>> @dataclass
... class Shot:
...     horizontal_distance_ft: float | None = None
...     slope_distance_ft: float | None = 100.0
...     inclination_deg: float | None = 30.0
...     slope_pct: float | None = None
...     azimuth_deg: float | None = 80.0
...     reading_id: str | None = "rf-7"
>>> isinstance(Shot(), ShotLike), reading_id(Shot())
(True, 'rf-7')
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from .gnss import FixLike

__all__ = ["FixLike", "ShotLike", "CaliperLike", "reading_id"]


@runtime_checkable
class ShotLike(Protocol):
    """What the survey reads from a rangefinder shot (the names of
    ``devices.readings.RangefinderShot``): horizontal and slope distance (international ft),
    inclination (degrees, positive up), slope (percent, 100·tan(inclination)) and compass
    azimuth (degrees, as set up on the instrument); ``None`` when not measured."""

    horizontal_distance_ft: float | None
    slope_distance_ft: float | None
    inclination_deg: float | None
    slope_pct: float | None
    azimuth_deg: float | None


@runtime_checkable
class CaliperLike(Protocol):
    """What the survey reads from a caliper reading (the names of
    ``devices.readings.CaliperReading``): DBH (inches) and the caliper's species label."""

    dbh_in: float
    species_label: str | None


def reading_id(reading: object) -> str | None:
    """The id a reading carries (``reading_id``, else ``id``, else ``uuid``), as text; None.

    The one duck-typed look-up left: readings name their id differently (a device reading
    may have none), so each name is tried in turn.
    """
    for name in ("reading_id", "id", "uuid"):
        v = getattr(reading, name, None)
        if v is not None:
            return str(v)
    return None

