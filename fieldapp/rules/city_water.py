"""The city chapter, Wetlands A, C and Drainageways A, C: rules ``wetland.size`` and ``drainageway``.

Wetlands A: 10,000 sq ft or more, standing water retained periodically, hydric vegetation;
C: 100 % undisturbed. Drainageways A.1: 50 ft from each embankment of a mapped stream
(``mapped-stream-only``); A.2: 25 ft each side of the centreline of a swale with 5 acres or
more tributary; C: 75 % open space. Feet are the site's foot (see :mod:`fieldapp.rules`); the rules
and results are importable from :mod:`fieldapp.rules.city` as before.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from fieldapp.rules.city_tables import CITE, MAPPED_STREAM_ONLY, WETLAND_MIN_SQFT
from fieldapp.rules.compare import at_least
from fieldapp.rules.results import RuleResult, Status, from_request, ordered
from fieldapp.rules.validate import boolean, choice, finite_result, join, number

__all__ = [
    "DrainagewayResult",
    "WetlandSizeResult",
    "drainageway",
    "drainageway_from_request",
    "wetland_size",
    "wetland_size_from_request",
]


@dataclasses.dataclass(frozen=True, kw_only=True)
class WetlandSizeResult(RuleResult):
    """Result of ``wetland.size``: ``is_ordinance_wetland`` (None while ``needs_data``) and
    ``required_undisturbed_pct`` (100 for an ordinance wetland, else 0)."""

    is_ordinance_wetland: bool | None
    required_undisturbed_pct: float | None
    area_sqft: float


def _wetland_size(m: Mapping[str, Any], where: str) -> WetlandSizeResult:
    area = number(m, "area_sqft", where, unit=" sq ft")
    water = boolean(m, "periodic_standing_water", where, nullable=True)
    hydric = boolean(m, "hydric_vegetation", where, nullable=True)
    big = at_least(area, WETLAND_MIN_SQFT)
    step = None
    if not big or water is False or hydric is False:
        verdict: bool | None = False
    elif water is None or hydric is None:
        verdict = None
        missing = [w for w, v in (("whether standing water is retained periodically", water),
                                  ("whether hydric vegetation has adapted to the area", hydric)) if v is None]
        step = "observe " + " and ".join(missing)
    else:
        verdict = True
    return WetlandSizeResult(
        rule="wetland.size",
        status=Status.DETERMINED if verdict is not None else Status.NEEDS_DATA,
        citation=f"{CITE}, Wetlands A, C" if verdict else f"{CITE}, Wetlands A",
        next_step=step,
        is_ordinance_wetland=verdict,
        required_undisturbed_pct=None if verdict is None else (100.0 if verdict else 0.0),
        area_sqft=area,
    )


def wetland_size(area_sqft: float, *, periodic_standing_water: bool | None,
                 hydric_vegetation: bool | None) -> WetlandSizeResult:
    """Rule ``wetland.size``: an area of 10,000 sq ft or more where standing water is retained
    periodically and hydric vegetation has adapted is a wetland, 100 % undisturbed
    (Wetlands A, C). None for an observation not yet made gives ``needs_data`` (unless the
    area or the other observation already rules it out).

    Parameters
    ----------
    area_sqft : float
        The delineated area, sq ft (≥ 0; the site's foot).
    periodic_standing_water, hydric_vegetation : bool or None
        The two observations of Wetlands A; None when not yet made.

    Returns
    -------
    WetlandSizeResult
        ``is_ordinance_wetland`` and ``required_undisturbed_pct`` (100 or 0); both None while
        ``needs_data``, with ``next_step`` naming the observations to make.

    Raises
    ------
    RuleInputError
        A negative, non-finite or non-number area; an observation that is not true, false or
        None.

    >>> wetland_size(10_000, periodic_standing_water=True, hydric_vegetation=True).is_ordinance_wetland
    True
    """
    return _wetland_size({"area_sqft": area_sqft, "periodic_standing_water": periodic_standing_water,
                          "hydric_vegetation": hydric_vegetation}, "")


#: ``wetland.size`` from the contract's ``input``.
wetland_size_from_request = from_request(_wetland_size, "wetland.size")


# ============================================================================================
# Drainageways A, C


@dataclasses.dataclass(frozen=True, kw_only=True)
class DrainagewayResult(RuleResult):
    """Result of ``drainageway`` (Drainageways A.1, A.2, C); widths ft, areas sq ft; zeros for
    a non-drainageway, None while ``needs_data``."""

    is_drainageway: bool | None
    half_width_ft: float | None
    total_width_ft: float | None
    area_sqft: float | None
    min_open_space_sqft: float | None
    #: An unmapped stream: check it as a swale under A.2 (``mapped-stream-only``).
    note: str | None = None


def _drainageway(m: Mapping[str, Any], where: str) -> DrainagewayResult:
    kind = choice(m, "kind", where, ("swale", "stream"))
    length = number(m, "length_ft", where, unit=" ft")
    used: set[str] = set()
    step = note = None
    if kind == "stream":
        used.add(MAPPED_STREAM_ONLY)
        cite = f"{CITE}, Drainageways A.1"
        mapped = boolean(m, "mapped_stream", where, required=False, nullable=True)
        channel = number(m, "channel_width_ft", where, required=False, nullable=True, unit=" ft") or 0.0
        verdict = mapped
        half, total = channel / 2.0 + 50.0, channel + 100.0
        if mapped is None:
            step = ("check whether the stream is shown on the USGS 7.5-minute quadrangle or the "
                    "county soil survey map")
        elif not mapped:
            note = ("The stream is not on the USGS 7.5-minute quadrangle or the county soil survey "
                    "map, so it is no drainageway under Drainageways A.1; check it as a swale under "
                    "Drainageways A.2: measure the area draining to it, and if 5 acres or more drain "
                    "to it, 25 ft each side of its centreline is a drainageway.")
    else:
        cite = f"{CITE}, Drainageways A.2"
        trib = number(m, "tributary_area_ac", where, required=False, nullable=True, unit=" ac")
        verdict = None if trib is None else at_least(trib, 5.0)
        half, total = 25.0, 50.0
        if trib is None:
            step = "measure the upstream area tributary to the swale (acres)"
    if verdict is None:
        return DrainagewayResult(rule="drainageway", status=Status.NEEDS_DATA, citation=cite,
                                 interpretations=ordered(used, (MAPPED_STREAM_ONLY,)), next_step=step,
                                 is_drainageway=None, half_width_ft=None, total_width_ft=None,
                                 area_sqft=None, min_open_space_sqft=None)
    if not verdict:
        half = total = 0.0
    area = finite_result(total * length, join(where, "length_ft"), "the drainageway area")
    return DrainagewayResult(
        rule="drainageway",
        status=Status.DETERMINED,
        citation=f"{cite}, C" if verdict else cite,
        interpretations=ordered(used, (MAPPED_STREAM_ONLY,)),
        note=note,
        is_drainageway=verdict,
        half_width_ft=half,
        total_width_ft=total,
        area_sqft=area,
        min_open_space_sqft=0.75 * area,
    )


def drainageway(kind: str, length_ft: float, *, tributary_area_ac: float | None = None,
                mapped_stream: bool | None = None, channel_width_ft: float | None = None) -> DrainagewayResult:
    """Rule ``drainageway`` (Drainageways A.1, A.2, C).

    A mapped stream: 50 ft beyond each embankment, half width channel/2 + 50, total channel +
    100 (channel width 0 when not given). A swale with 5 acres or more tributary: 25 ft each
    side of the centreline (total 50). Area = total width × ``length_ft``; 75 % of it stays
    open space (C).

    Parameters
    ----------
    kind : {"stream", "swale"}
    length_ft : float
        Length of the drainageway along the site, ft (≥ 0; the site's foot).
    tributary_area_ac : float, optional
        Swales: the upstream area tributary to the swale, acres; None (not measured) gives
        ``needs_data``. Not read for a stream.
    mapped_stream : bool, optional
        Streams: shown on the USGS 7.5-minute quadrangle or the county soil survey map
        (``mapped-stream-only``: an unmapped stream is no drainageway under A.1); None gives
        ``needs_data``. Not read for a swale.
    channel_width_ft : float, optional
        Streams: channel width between the embankments, ft (0 when not given).

    Returns
    -------
    DrainagewayResult
        Half and total width, ft, area and least open space, sq ft (zeros for no drainageway;
        None while ``needs_data``).

    Raises
    ------
    RuleInputError
        Unknown kind, a negative or non-finite number, ``mapped_stream`` not true, false or
        None.

    >>> drainageway("swale", 200, tributary_area_ac=5.0).min_open_space_sqft
    7500.0
    """
    return _drainageway({"kind": kind, "length_ft": length_ft, "tributary_area_ac": tributary_area_ac,
                         "mapped_stream": mapped_stream, "channel_width_ft": channel_width_ft}, "")


#: ``drainageway`` from the contract's ``input``.
drainageway_from_request = from_request(_drainageway, "drainageway")
