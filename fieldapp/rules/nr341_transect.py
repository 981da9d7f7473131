"""NR 341.035(2)(a), (2)(b) for ``nr341.bank``: the transect as surveyed, read into segments.

A transect is walked landward from the OHWM as :class:`Segment` values (one length and one
slope each, as measured) or as :class:`Station` values (distance and elevation). Both are read
here, fully validated, into two lists: each segment's horizontal length, ft ((2)(a): the bank
is measured on a horizontal plane; a slope distance is reduced with the segment's own slope,
``horizontal-distance``) and its slope, percent ((2)(b): along the surface flow path; signed,
positive when the ground rises landward). Feet are the site's foot (see :mod:`fieldapp.rules`).

:mod:`fieldapp.rules.nr341` decides the bank from these lists; ``Segment`` and ``Station`` are
importable from there and from :mod:`fieldapp.rules` as before.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Sequence
from typing import Any

from fieldapp.rules.compare import more_than
from fieldapp.rules.measure import horizontal_from_slope_distance, slope_pct_of
from fieldapp.rules.results import RuleInputError
from fieldapp.rules.validate import MAX_FT, MAX_VALUE, join, mapping, number, one_of

__all__ = ["Segment", "Station", "read_segments", "read_stations"]

_NUM = (float, int)


@dataclasses.dataclass(frozen=True, slots=True)
class Segment:
    """One surveyed transect segment between two stations, as measured.

    Give one length (``horizontal_ft`` or ``slope_distance_ft``, ft, > 0) and one slope
    (``slope_pct`` or ``slope_deg``, signed: positive when the ground rises landward).
    """

    horizontal_ft: float | None = None
    slope_pct: float | None = None
    slope_distance_ft: float | None = None
    slope_deg: float | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class Station:
    """A transect station: horizontal distance from the OHWM (ft) and elevation (ft)."""

    distance_ft: float
    elevation_ft: float





def _one_segment(item: Any, where: str) -> tuple[float, float, bool]:
    """(2)(a), (2)(b): one segment's horizontal length and slope in percent, fully validated."""
    m = mapping(item, where)
    pct, reduced = slope_pct_of(m, where)
    length_key = one_of(m, ("horizontal_ft", "slope_distance_ft"), where)
    length = number(m, length_key, where, positive=True, unit=" ft")
    if length_key == "slope_distance_ft":
        length = horizontal_from_slope_distance(length, pct)
        reduced = True
    return length, pct, reduced


def read_segments(items: Iterable[Any], where: str) -> tuple[list[float], list[float], bool]:
    """(2)(a), (2)(b): segments, seaward first, to horizontal ft and slope percent.

    Parameters
    ----------
    items : iterable of Segment, mapping or (horizontal_ft, slope_pct)
        Each with one length (``horizontal_ft`` or ``slope_distance_ft``, ft, > 0) and one
        slope (``slope_pct``, or ``slope_deg`` strictly between -90 and 90).
    where : str
        Key of the list (``"segments"``, ``"input.segments"``); errors name ``where[i].key``.

    Returns
    -------
    hs, ps : list of float
        Horizontal length, ft, and slope, percent, of each segment.
    reduced : bool
        Some segment was given as a slope distance or in degrees (``horizontal-distance``).

    Raises
    ------
    RuleInputError
        A segment without a length or slope, with both alternatives, a length of 0 or less,
        a value not finite or out of range, or an angle outside (-90, 90) degrees.

    >>> read_segments([(30, 4), {"slope_distance_ft": 50.0, "slope_pct": 0.0}], "segments")
    ([30.0, 50.0], [4.0, 0.0], True)
    """
    hs: list[float] = []
    ps: list[float] = []
    reduced = False
    # The fast path takes only values the validating path accepts (plausibility limits
    # included, so that no sum or product overflows); a huge int goes to the validating path too.
    big_ft, big = MAX_FT, MAX_VALUE
    for i, item in enumerate(items):
        if type(item) is dict:
            # Fast path for well-formed segments; anything else (or any bad value) goes through
            # the validating path, which names the key.
            h = item.get("horizontal_ft")
            sd = item.get("slope_distance_ft")
            p = item.get("slope_pct")
            deg = item.get("slope_deg")
            if (h is None) != (sd is None) and (p is None) != (deg is None):
                length: Any = h if sd is None else sd  # JSON values: the line below checks them
                slope: Any = p if deg is None else deg
                if (type(length) in _NUM and type(slope) in _NUM and 0.0 < length <= big_ft
                        and (-big <= slope <= big if deg is None else -90.0 < slope < 90.0)):
                    if deg is not None:
                        slope = 100.0 * math.tan(math.radians(slope))
                        reduced = True
                    if sd is not None:
                        length = length / math.hypot(1.0, slope / 100.0)
                        reduced = True
                    hs.append(float(length))
                    ps.append(float(slope))
                    continue
        elif type(item) is tuple and len(item) == 2:
            h, p = item
            if type(h) in _NUM and type(p) in _NUM and 0.0 < h <= big_ft and -big <= p <= big:
                hs.append(float(h))
                ps.append(float(p))
                continue
            item = {"horizontal_ft": h, "slope_pct": p}
        elif isinstance(item, Segment):
            item = {k: getattr(item, k) for k in Segment.__slots__ if getattr(item, k) is not None}
        h, p, r = _one_segment(item, join(where, i))
        hs.append(h)
        ps.append(p)
        reduced = reduced or r
    return hs, ps, reduced


def read_stations(items: Sequence[Any], where: str) -> tuple[list[float], list[float]]:
    """Stations -> segments: horizontal = Δdistance, slope = 100·Δelevation/Δdistance
    (``per-segment-slope``; (2)(a), (2)(b)).

    Parameters
    ----------
    items : sequence of Station, mapping or (distance_ft, elevation_ft)
        The first at ``distance_ft`` 0 (the OHWM); distances, horizontal ft from the OHWM,
        strictly increase; elevations ft, either sign.
    where : str
        Key of the list; errors name ``where[i].key``.

    Returns
    -------
    hs, ps : list of float
        One fewer than the stations: horizontal ft and slope percent of each segment.

    Raises
    ------
    RuleInputError
        First station not at 0, a distance not more than the one before, a missing, negative
        (distance) or non-finite value.

    >>> read_stations([(0, 0), (40, 2), (100, 2)], "stations")
    ([40.0, 60.0], [5.0, 0.0])
    """
    hs: list[float] = []
    ps: list[float] = []
    prev_d: float | None = None
    prev_e = 0.0
    for i, item in enumerate(items):
        w = join(where, i)
        if isinstance(item, Station):
            item = {"distance_ft": item.distance_ft, "elevation_ft": item.elevation_ft}
        elif isinstance(item, tuple) and len(item) == 2:
            item = {"distance_ft": item[0], "elevation_ft": item[1]}
        m = mapping(item, w)
        d = number(m, "distance_ft", w, unit=" ft")
        e = number(m, "elevation_ft", w, nonnegative=False, unit=" ft")
        if prev_d is None:
            if more_than(d, 0.0):
                raise RuleInputError(
                    join(w, "distance_ft"),
                    f"the first station is the OHWM and must be at distance_ft 0, got {d:g} ft",
                )
        else:
            if not more_than(d, prev_d):
                raise RuleInputError(
                    join(w, "distance_ft"),
                    f"distance_ft must increase from station to station: {d:g} ft is not more than "
                    f"the previous station's {prev_d:g} ft",
                )
            h = d - prev_d
            hs.append(h)
            ps.append(100.0 * (e - prev_e) / h)
        prev_d, prev_e = d, e
    return hs, ps
