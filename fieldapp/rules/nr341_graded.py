"""NR 341.035(2)(d) and (3): the graded area on a bank, rule ``nr341.graded_area``.

(2)(d) Disturbed area is calculated on the surface of the land.
(3)    The area exposed by grading must exceed 10,000 sq ft (for the permit the paragraph
       requires).

Readings (``rules-contract.md``): ``surface-area`` (surface = horizontal area × √(1 +
(slope/100)²), for a plane of uniform slope) and, for a slope given in degrees,
``horizontal-distance``. Areas are square feet of the site's foot (see :mod:`fieldapp.rules`).
Everything here is importable from :mod:`fieldapp.rules.nr341` as before.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from fieldapp.rules.compare import more_than
from fieldapp.rules.measure import HORIZONTAL_DISTANCE, slope_pct_of, surface_from_horizontal
from fieldapp.rules.results import RuleResult, Status, from_request, ordered
from fieldapp.rules.validate import finite_result, join, number

__all__ = ["GRADED_AREA_SQFT", "GradedAreaResult", "graded_area", "graded_area_from_request"]

RULE_GRADED_AREA = "nr341.graded_area"
#: (3): the graded area "shall exceed 10,000 square feet".
GRADED_AREA_SQFT = 10_000.0
SURFACE_AREA = "surface-area"
_ORDER = (HORIZONTAL_DISTANCE, SURFACE_AREA)


@dataclasses.dataclass(frozen=True, kw_only=True)
class GradedAreaResult(RuleResult):
    """Result of ``nr341.graded_area``: the graded area on the land surface, sq ft, and whether
    it exceeds 10,000 sq ft (NR 341.035(3))."""

    surface_area_sqft: float
    permit_required: bool
    horizontal_area_sqft: float
    slope_pct: float



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


def _graded_area(m: Mapping[str, Any], where: str) -> GradedAreaResult:
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
