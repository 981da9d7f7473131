"""NR 341.035(2)(d) and (3): the graded area on a bank, rule ``nr341.graded_area``.

(2)(d) Disturbed area is calculated on the surface of the land.
(3)    The area exposed by grading must exceed 10,000 sq ft (for the permit the paragraph
       requires).

Readings (``rules-contract.md``): ``surface-area`` (surface = horizontal area × √(1 +
(slope/100)²), for a plane of uniform slope) and, for a slope given in degrees,
``horizontal-distance``. Added here (issue 29):

``all-disturbed-area``
    (2)(d) "shall include all the disturbed area within the bank": separate graded patches on
    the same bank add up. Each patch is measured on its own land surface (its own slope) and
    the sum is compared with the 10,000 sq ft of (3); no patch is left out for being small, and
    none counts twice (the crew draws each patch once, not overlapping).

Areas are square feet of the site's foot (see :mod:`fieldapp.rules`).
Everything here is importable from :mod:`fieldapp.rules.nr341` as before.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Any

from fieldapp.rules.compare import more_than
from fieldapp.rules.measure import HORIZONTAL_DISTANCE, slope_pct_of, surface_from_horizontal
from fieldapp.rules.results import RuleInputError, RuleResult, Status, from_request, ordered
from fieldapp.rules.validate import finite_result, join, mapping, number, sequence

__all__ = ["GRADED_AREA_SQFT", "GradedAreaResult", "graded_area", "graded_area_from_request", "graded_patches"]

RULE_GRADED_AREA = "nr341.graded_area"
#: (3): the graded area "shall exceed 10,000 square feet".
GRADED_AREA_SQFT = 10_000.0
SURFACE_AREA = "surface-area"
ALL_DISTURBED_AREA = "all-disturbed-area"
_ORDER = (HORIZONTAL_DISTANCE, SURFACE_AREA, ALL_DISTURBED_AREA)


@dataclasses.dataclass(frozen=True, kw_only=True)
class GradedAreaResult(RuleResult):
    """Result of ``nr341.graded_area``: the graded area on the land surface, sq ft, and whether
    it exceeds 10,000 sq ft (NR 341.035(3))."""

    surface_area_sqft: float
    permit_required: bool
    horizontal_area_sqft: float
    slope_pct: float
    #: With ``patches``: each patch's surface area, sq ft, in input order (sum =
    #: ``surface_area_sqft``); ``slope_pct`` is then the steepest patch's slope.
    patch_surface_areas_sqft: tuple[float, ...] = ()



def graded_area(
    horizontal_area_sqft: float, *, slope_pct: float | None = None, slope_deg: float | None = None
) -> GradedAreaResult:
    """Rule ``nr341.graded_area``: is the area exposed by grading on the bank more than
    10,000 sq ft, measured on the land surface (NR 341.035(2)(d), (3); ``surface-area``)?

    surface = horizontal area × √(1 + (slope/100)²).

    Parameters
    ----------
    horizontal_area_sqft : float
        Graded area as mapped (horizontal projection), sq ft (≥ 0).
    slope_pct, slope_deg : float
        Slope of the graded ground (give one; the sign does not matter).

    Returns
    -------
    GradedAreaResult

    Raises
    ------
    RuleInputError
        Negative or non-finite area, both or neither slope.

    Examples
    --------
    >>> graded_area(9999.0, slope_pct=20.0).permit_required
    True
    """
    m = {"horizontal_area_sqft": horizontal_area_sqft, "slope_pct": slope_pct, "slope_deg": slope_deg}
    return _graded_area(m, "")


def _graded_patches(items: Sequence[Any], where: str) -> GradedAreaResult:
    """(2)(d), (3) over several patches (``all-disturbed-area``)."""
    if not items:
        raise RuleInputError(where, "patches must list at least one graded patch")
    used = {SURFACE_AREA, ALL_DISTURBED_AREA}
    areas: list[float] = []
    surfaces: list[float] = []
    slopes: list[float] = []
    for i, item in enumerate(items):
        w = join(where, i)
        p = mapping(item, w)
        area = number(p, "horizontal_area_sqft", w, unit=" sq ft")
        pct, from_degrees = slope_pct_of(p, w)
        if from_degrees:
            used.add(HORIZONTAL_DISTANCE)
        areas.append(area)
        slopes.append(abs(pct))
        surfaces.append(finite_result(surface_from_horizontal(area, pct), join(w, "horizontal_area_sqft"),
                                      "the surface area"))
    total = finite_result(math.fsum(surfaces), where, "the total surface area")
    return GradedAreaResult(
        rule=RULE_GRADED_AREA,
        status=Status.DETERMINED,
        citation="NR 341.035(2)(d), (3)",
        interpretations=ordered(used, _ORDER),
        surface_area_sqft=total,
        permit_required=more_than(total, GRADED_AREA_SQFT),
        horizontal_area_sqft=math.fsum(areas),
        slope_pct=max(slopes),
        patch_surface_areas_sqft=tuple(surfaces),
    )


def graded_patches(patches: Sequence[Mapping[str, Any]]) -> GradedAreaResult:
    """Rule ``nr341.graded_area`` with ``patches``: all the graded area within the bank, patch
    by patch on the land surface, added up against the 10,000 sq ft of NR 341.035(3)
    ((2)(d); ``all-disturbed-area``, ``surface-area``).

    Parameters
    ----------
    patches : sequence of mapping
        ``{"horizontal_area_sqft": ..., "slope_pct" | "slope_deg": ...}`` per patch.

    Returns
    -------
    GradedAreaResult
        ``surface_area_sqft`` the sum, ``patch_surface_areas_sqft`` each patch's.

    Raises
    ------
    RuleInputError
        No patch; a negative or non-finite area; both or neither slope in a patch.

    Examples
    --------
    >>> r = graded_patches([{"horizontal_area_sqft": 6000, "slope_pct": 0},
    ...                     {"horizontal_area_sqft": 4000.01, "slope_pct": 0}])
    >>> r.surface_area_sqft, r.permit_required
    (10000.01, True)
    """
    return _graded_area({"patches": list(patches)}, "")


def _graded_area(m: Mapping[str, Any], where: str) -> GradedAreaResult:
    patches = sequence(m, "patches", where, required=False)
    if patches is not None:
        return _graded_patches(patches, join(where, "patches"))
    area = number(m, "horizontal_area_sqft", where, unit=" sq ft")
    pct, from_degrees = slope_pct_of(m, where)
    used = {SURFACE_AREA, HORIZONTAL_DISTANCE} if from_degrees else {SURFACE_AREA}
    surface = finite_result(surface_from_horizontal(area, pct), join(where, "horizontal_area_sqft"),
                            "the surface area")
    return GradedAreaResult(
        rule=RULE_GRADED_AREA,
        status=Status.DETERMINED,
        citation="NR 341.035(3)",
        interpretations=ordered(used, _ORDER),
        surface_area_sqft=surface,
        permit_required=more_than(surface, GRADED_AREA_SQFT),
        horizontal_area_sqft=area,
        slope_pct=pct,
    )


#: ``nr341.graded_area`` from the contract's ``input``.
graded_area_from_request = from_request(_graded_area, RULE_GRADED_AREA)
