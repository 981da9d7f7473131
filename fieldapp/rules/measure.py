"""Measurement reduction the rules need: slope distance to horizontal, degrees and percent,
a clinometer reading taken at eye height to a target height.

NR 341.035(2)(a) measures the bank on a horizontal plane; (2)(b) measures slope along the
surface flow path. Field instruments give slope (taped or laser) distances and angles in
degrees; these functions bring them to the horizontal feet and percent slope the rules compare
(interpretation ``horizontal-distance``). Feet are whatever foot the inputs use (the survey
model works in one foot per site); every function is unit-consistent.

Examples
--------
>>> round(pct_from_deg(45.0), 9)
100.0
>>> round(horizontal_from_slope_distance(102.0, 20.0), 6)
100.019229
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

from fieldapp.rules.results import RuleInputError, RuleResult, Status, from_request
from fieldapp.rules.validate import finite_result, join, number, one_of

__all__ = [
    "ClinometerResult",
    "clinometer",
    "clinometer_slope_pct",
    "deg_from_pct",
    "horizontal_from_slope_distance",
    "pct_from_deg",
    "slope_pct_of",
    "surface_from_horizontal",
]

HORIZONTAL_DISTANCE = "horizontal-distance"


def pct_from_deg(slope_deg: float) -> float:
    """Slope in percent from an angle in degrees: 100·tan(angle).

    Raises
    ------
    ValueError
        If the angle is not strictly between -90 and 90 degrees.
    """
    if not -90.0 < slope_deg < 90.0:
        raise RuleInputError("slope_deg", f"slope_deg must be between -90 and 90 degrees, got {slope_deg:g}")
    return 100.0 * math.tan(math.radians(slope_deg))


def slope_pct_of(
    m: Mapping[str, Any], where: str, *, pct_key: str = "slope_pct", deg_key: str = "slope_deg", unit: str = ""
) -> tuple[float, bool]:
    """A slope given as one of ``m[pct_key]`` (percent) or ``m[deg_key]`` (degrees), in percent.

    Parameters
    ----------
    m : mapping
        The request values; exactly one of the two keys is given (not null).
    where : str
        Path of ``m`` for error keys (``"input.segments[2]"``; "" at the top).
    pct_key, deg_key : str
        The two alternative keys.
    unit : str
        Said after "between -90 and 90" in the error for an angle out of range (``" degrees"``).

    Returns
    -------
    slope_pct : float
        Signed percent (100·tan(angle) for degrees).
    from_degrees : bool
        The slope was given in degrees (a reduction the result names, ``horizontal-distance``).

    Raises
    ------
    RuleInputError
        Both or neither key, not a finite number, or an angle not strictly between -90 and 90
        degrees (named by its key).

    Examples
    --------
    >>> slope_pct_of({"slope_pct": -4}, "")
    (-4.0, False)
    >>> pct, from_degrees = slope_pct_of({"slope_deg": 45.0}, "")
    >>> round(pct, 9), from_degrees
    (100.0, True)
    """
    if one_of(m, (pct_key, deg_key), where) == deg_key:
        deg = number(m, deg_key, where, nonnegative=False)
        if not -90.0 < deg < 90.0:
            raise RuleInputError(join(where, deg_key), f"{deg_key} must be between -90 and 90{unit}, got {deg:g}")
        return pct_from_deg(deg), True
    return number(m, pct_key, where, nonnegative=False), False


def deg_from_pct(slope_pct: float) -> float:
    """Angle in degrees from a slope in percent: atan(pct/100).

    >>> round(deg_from_pct(100.0), 9)
    45.0
    """
    return math.degrees(math.atan(slope_pct / 100.0))


def horizontal_from_slope_distance(slope_distance_ft: float, slope_pct: float) -> float:
    """Horizontal length of a segment from its slope (surface) distance and its own slope.

    horizontal = SD / √(1 + (pct/100)²)  (``rules-contract.md``, Precise points;
    NR 341.035(2)(a), ``horizontal-distance``). Same foot in and out; percent signed.
    """
    return slope_distance_ft / math.hypot(1.0, slope_pct / 100.0)


def surface_from_horizontal(horizontal: float, slope_pct: float) -> float:
    """Length (or area, for a plane of uniform slope) on the land surface from its horizontal
    projection: horizontal × √(1 + (pct/100)²) (NR 341.035(2)(d), ``surface-area``).

    Units in = units out (ft, or sq ft for an area); the sign of the slope does not matter.

    >>> round(surface_from_horizontal(100.0, 75.0), 9)
    125.0
    """
    return horizontal * math.hypot(1.0, slope_pct / 100.0)


def clinometer_slope_pct(
    horizontal_ft: float, reading_pct: float, eye_height_ft: float, target_height_ft: float
) -> float:
    """Ground slope from a clinometer sighting taken at eye height to a target on a rod.

    The line of sight rises ``reading_pct`` over ``horizontal_ft`` from the eye (``eye_height_ft``
    above the ground) to the target (``target_height_ft`` above the ground at the far point),
    so the ground rises reading + 100 × (eye − target) ÷ horizontal percent.

    >>> clinometer_slope_pct(50.0, 10.0, 5.5, 5.5)
    10.0
    >>> clinometer_slope_pct(50.0, 10.0, 5.5, 4.5)
    12.0
    """
    return reading_pct + 100.0 * (eye_height_ft - target_height_ft) / horizontal_ft


@dataclasses.dataclass(frozen=True, kw_only=True)
class ClinometerResult(RuleResult):
    """Result of ``slope.clinometer``: the ground slope between the eye and the target.

    Attributes
    ----------
    slope_pct, slope_deg : float
        Ground slope, percent and degrees (signed: positive when the ground rises toward the
        target).
    """

    slope_pct: float
    slope_deg: float


def clinometer(
    horizontal_ft: float,
    *,
    eye_height_ft: float,
    target_height_ft: float,
    reading_pct: float | None = None,
    reading_deg: float | None = None,
) -> ClinometerResult:
    """Rule ``slope.clinometer``: reduce a clinometer reading to the ground slope.

    Parameters
    ----------
    horizontal_ft : float
        Horizontal distance to the target, ft (> 0; reduce a slope distance first).
    eye_height_ft, target_height_ft : float
        Height of the eye and of the sighted mark above the ground, ft (≥ 0).
    reading_pct, reading_deg : float
        The clinometer reading, percent or degrees (give one).

    Returns
    -------
    ClinometerResult
        Cites NR 341.035(2)(b) (slope along the surface flow path).

    Raises
    ------
    RuleInputError
        A missing, negative or non-finite value, or both/neither reading.
    """
    src = {"horizontal_ft": horizontal_ft, "eye_height_ft": eye_height_ft, "target_height_ft": target_height_ft,
           "reading_pct": reading_pct, "reading_deg": reading_deg}
    return _clinometer(src, "")


def _clinometer(m: Mapping[str, Any], where: str) -> ClinometerResult:
    horizontal = number(m, "horizontal_ft", where, positive=True, unit=" ft")
    eye = number(m, "eye_height_ft", where, unit=" ft")
    target = number(m, "target_height_ft", where, unit=" ft")
    reading, from_degrees = slope_pct_of(m, where, pct_key="reading_pct", deg_key="reading_deg", unit=" degrees")
    slope = finite_result(clinometer_slope_pct(horizontal, reading, eye, target), join(where, "horizontal_ft"),
                          "the slope (height difference ÷ horizontal_ft)")
    return ClinometerResult(
        rule="slope.clinometer",
        status=Status.DETERMINED,
        citation="NR 341.035(2)(b)",
        interpretations=(HORIZONTAL_DISTANCE,) if from_degrees else (),
        slope_pct=slope,
        slope_deg=deg_from_pct(slope),
    )


#: ``slope.clinometer`` from the contract's ``input`` mapping.
clinometer_from_request = from_request(_clinometer, "slope.clinometer")
