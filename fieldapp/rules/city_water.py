"""The city chapter, Wetlands A, C, D, E: rule ``wetland.size``; and ``drainageway`` from
:mod:`fieldapp.rules.city_drainage` (importable from here as before).

Wetlands A: 10,000 sq ft or more, standing water retained periodically, hydric vegetation;
C: 100 % undisturbed. D: a proposal that disrupts a wetland must prove the approvals of the
U.S. Corps of Engineers and the Iowa Department of Natural Resources; E: the wetlands open space
is deed restricted (``wetland-disturbance-checklist``). Feet are the site's foot (see
:mod:`fieldapp.rules`); the rules and results are importable from :mod:`fieldapp.rules.city`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from fieldapp.rules.city_drainage import DrainagewayResult, drainageway, drainageway_from_request
from fieldapp.rules.city_tables import CITE, WETLAND_DISTURBANCE_CHECKLIST, WETLAND_MIN_SQFT
from fieldapp.rules.compare import at_least, more_than
from fieldapp.rules.results import RuleResult, Status, from_request
from fieldapp.rules.validate import boolean, number

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
    #: The proposed disturbance of the wetland, sq ft (None: none given).
    disturbed_sqft: float | None = None
    #: Wetlands C: True when an ordinance wetland stays wholly undisturbed (None: no proposal
    #: given, or not an ordinance wetland).
    undisturbed_complies: bool | None = None
    #: Wetlands D, E: what a proposal that disturbs the wetland must show.
    applicant_must_show: tuple[str, ...] = ()
    note: str | None = None


#: What a proposal that disrupts a wetland must show (Wetlands D, E).
WETLAND_MUST_SHOW = (
    "D: proof of approval by the U.S. Corps of Engineers",
    "D: proof of approval by the Iowa Department of Natural Resources",
    "E: the wetlands open space is deed restricted as a wetlands easement, with a protective "
    "easement in favor of the city",
)


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
    disturbed = number(m, "disturbed_sqft", where, required=False, nullable=True, unit=" sq ft")
    cite = f"{CITE}, Wetlands A, C" if verdict else f"{CITE}, Wetlands A"
    complies: bool | None = None
    must: tuple[str, ...] = ()
    note: str | None = None
    if verdict and disturbed is not None:
        complies = not more_than(disturbed, 0.0)
        if not complies:
            must, cite = WETLAND_MUST_SHOW, f"{CITE}, Wetlands A, C, D, E"
            note = (f"The proposal disturbs {disturbed:,.0f} sq ft of the wetland; Wetlands C keeps "
                    "100 % undisturbed, and a proposal that disrupts it must also prove the approvals "
                    "of Wetlands D.")
    return WetlandSizeResult(
        rule="wetland.size",
        status=Status.DETERMINED if verdict is not None else Status.NEEDS_DATA,
        citation=cite,
        interpretations=(WETLAND_DISTURBANCE_CHECKLIST,) if must else (),
        next_step=step,
        is_ordinance_wetland=verdict,
        required_undisturbed_pct=None if verdict is None else (100.0 if verdict else 0.0),
        area_sqft=area,
        disturbed_sqft=disturbed,
        undisturbed_complies=complies,
        applicant_must_show=must,
        note=note,
    )


def wetland_size(area_sqft: float, *, periodic_standing_water: bool | None,
                 hydric_vegetation: bool | None, disturbed_sqft: float | None = None) -> WetlandSizeResult:
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
    disturbed_sqft : float, optional
        The proposed disturbance of the wetland, sq ft. More than 0 on an ordinance wetland:
        ``undisturbed_complies`` False (Wetlands C still holds: ``wetland-disturbance-checklist``)
        and ``applicant_must_show`` lists the approvals of D and the easement of E.

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
                          "hydric_vegetation": hydric_vegetation, "disturbed_sqft": disturbed_sqft}, "")


#: ``wetland.size`` from the contract's ``input``.
wetland_size_from_request = from_request(_wetland_size, "wetland.size")


