"""The city chapter, Erosion control A.3, B, D: rules ``erosion_plan``, ``steep_slope``, ``erodible_slope``.

A.3 erodible slope: an incline of more than 4 %. B: a soil erosion and sedimentation control
plan is required when any of B.1-B.5 is exceeded (``strictly-more-than``). C: disturbing land
in a drainageway, stream, stream channel, stream bank, lake shoreline or body of water requires
a plan (and DNR and Corps permits) whatever the B quantities (``water-land-disturbed``).
F: farming and other agricultural uses are exempt. D: Sr / SsF land
with slopes greater than 30 % remains undisturbed. Slopes compare by size (``slope-magnitude``).
The rules and results are importable from :mod:`fieldapp.rules.city` as before.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from fieldapp.rules.city_tables import (
    CITE,
    CUFT_PER_CUYD,
    ERODIBLE_SLOPE_PCT,
    EROSION_TRIGGERS,
    SLOPE_MAGNITUDE,
    STEEP_SLOPE_PCT,
    STEEP_SOIL_UNITS,
    STRICTLY_MORE_THAN,
    WATER_LAND_DISTURBED,
)
from fieldapp.rules.compare import more_than
from fieldapp.rules.measure import slope_pct_of
from fieldapp.rules.results import RuleInputError, RuleResult, Status, from_request
from fieldapp.rules.validate import boolean, join, number, sequence

__all__ = [
    "ErodibleSlopeResult",
    "ErosionPlanResult",
    "SteepSlopeResult",
    "erodible_slope",
    "erodible_slope_from_request",
    "erosion_plan",
    "erosion_plan_from_request",
    "steep_slope",
    "steep_slope_from_request",
]


@dataclasses.dataclass(frozen=True, kw_only=True)
class ErosionPlanResult(RuleResult):
    """Result of ``erosion_plan`` (Erosion control B.1-B.5; ``strictly-more-than``).

    Attributes
    ----------
    plan_required : bool or None
        Any trigger is met (None while ``needs_data``).
    triggers : tuple of str
        Met triggers, in the order ``volume``, ``fill_depth``, ``excavation_depth``, ``area``,
        ``exposed_soil``, ``water_land`` (Erosion control C).
    cut_fill_volume_cuyd : float or None
    not_measured : tuple of str
        Input keys given as null (not measured yet).
    """

    plan_required: bool | None
    triggers: tuple[str, ...]
    cut_fill_volume_cuyd: float | None
    not_measured: tuple[str, ...] = ()
    #: Erosion control C: the kinds of land the development disturbs, as given.
    water_land_disturbed: tuple[str, ...] = ()
    #: Erosion control C: the permits the plan needs beside it (DNR, Corps) when C applies.
    applicant_must_show: tuple[str, ...] = ()


#: Erosion control C: the kinds of land whose disturbance requires a plan.
WATER_LAND_KINDS = ("drainageway", "stream", "stream_channel", "stream_bank", "lake_shoreline", "water_body")
#: Erosion control C: what the plan needs beside it.
EROSION_C_MUST_SHOW = (
    "C: a soil erosion and sedimentation control plan",
    "C: a permit by the Department of Natural Resources",
    "C: a permit by the U.S. Corps of Engineers",
)


#: What the crew measures for each erosion-plan input, in field words (for ``next_step``).
_MEASURE_WORDS = {
    "cut_fill_volume_cuyd": "the cut and fill volume, in cubic yards",
    "cut_fill_volume_cuft": "the cut and fill volume, in cubic feet",
    "max_fill_depth_ft": "the deepest fill, in feet",
    "max_excavation_depth_ft": "the deepest excavation, in feet",
    "cut_fill_area_sqft": "the area of cut and fill, in square feet",
    "exposed_soil_sqft": "the area of exposed soil, in square feet",
}


def _erosion_plan(m: Mapping[str, Any], where: str) -> ErosionPlanResult:
    if boolean(m, "agricultural_use", where, required=False, default=False):
        return ErosionPlanResult(rule="erosion_plan", status=Status.EXEMPT,
                                 citation=f"{CITE}, Erosion control F", plan_required=False, triggers=(),
                                 cut_fill_volume_cuyd=None)
    water: list[str] = []
    for i, k in enumerate(sequence(m, "water_land_disturbed", where, required=False) or ()):
        if k not in WATER_LAND_KINDS or not isinstance(k, str):
            raise RuleInputError(join(join(where, "water_land_disturbed"), i),
                                 "water_land_disturbed items must be one of "
                                 + ", ".join(repr(c) for c in WATER_LAND_KINDS) + f", got {k!r}")
        if k not in water:
            water.append(k)
    values: dict[str, float | None] = {}
    # Volume: cubic yards, or cubic feet ÷ 27.
    present = [k for k in ("cut_fill_volume_cuyd", "cut_fill_volume_cuft") if k in m]
    if not present:
        raise RuleInputError(join(where, "cut_fill_volume_cuyd"),
                             "missing required key 'cut_fill_volume_cuyd' (or 'cut_fill_volume_cuft')")
    given = [k for k in present if m[k] is not None]
    if len(given) > 1:
        raise RuleInputError(join(where, given[1]), "give cut_fill_volume_cuyd or cut_fill_volume_cuft, not both")
    if given:
        volume = number(m, given[0], where, unit=" cu yd" if given[0].endswith("cuyd") else " cu ft")
        values["cut_fill_volume_cuyd"] = volume / CUFT_PER_CUYD if given[0].endswith("cuft") else volume
    else:
        values["cut_fill_volume_cuyd"] = None
    for key, _limit, _item in list(EROSION_TRIGGERS.values())[1:]:
        values[key] = number(m, key, where, nullable=True)
    met: list[str] = []
    unknown: list[str] = []
    for name, (key, limit, _item) in EROSION_TRIGGERS.items():
        v = values[key]
        if v is None:
            unknown.append(key if key != "cut_fill_volume_cuyd" else present[0])
        elif more_than(v, limit):
            met.append(name)
    if water:
        met.append("water_land")
    if met:
        required: bool | None = True
    elif unknown:
        required = None
    else:
        required = False
    items = ", ".join(EROSION_TRIGGERS[t][2] if t in EROSION_TRIGGERS else "C" for t in met)
    return ErosionPlanResult(
        rule="erosion_plan",
        status=Status.NEEDS_DATA if required is None else Status.DETERMINED,
        citation=f"{CITE}, Erosion control {items}" if met else f"{CITE}, Erosion control B",
        interpretations=((STRICTLY_MORE_THAN,) if len(unknown) < len(EROSION_TRIGGERS) or not water else ())
        + ((WATER_LAND_DISTURBED,) if water else ()),
        next_step=("measure " + "; ".join(_MEASURE_WORDS[k] for k in unknown)) if required is None else None,
        plan_required=required,
        triggers=tuple(met),
        cut_fill_volume_cuyd=values["cut_fill_volume_cuyd"],
        not_measured=tuple(unknown),
        water_land_disturbed=tuple(water),
        applicant_must_show=EROSION_C_MUST_SHOW if water else (),
    )


def erosion_plan(
    *,
    max_fill_depth_ft: float | None,
    max_excavation_depth_ft: float | None,
    cut_fill_area_sqft: float | None,
    exposed_soil_sqft: float | None,
    cut_fill_volume_cuyd: float | None = None,
    cut_fill_volume_cuft: float | None = None,
    water_land_disturbed: tuple[str, ...] = (),
    agricultural_use: bool = False,
) -> ErosionPlanResult:
    """Rule ``erosion_plan``: is a soil erosion and sedimentation control plan required
    (Erosion control B.1-B.5)? Each trigger is "more than" its limit (``strictly-more-than``):
    volume 500 cu yd (13,500 cu ft), fill depth 3 ft, excavation depth 4 ft, cut/fill area
    5,000 sq ft, exposed soil 5,000 sq ft. A value of None is "not measured yet": the result is
    ``needs_data`` unless another trigger is already met.

    Parameters
    ----------
    max_fill_depth_ft, max_excavation_depth_ft : float or None
        Deepest fill and deepest excavation, ft (≥ 0; B.2, B.3).
    cut_fill_area_sqft, exposed_soil_sqft : float or None
        Area of cut and fill, and of exposed soil, sq ft (≥ 0; B.4, B.5).
    cut_fill_volume_cuyd, cut_fill_volume_cuft : float or None
        Volume of cut and fill (B.1), cubic yards, or cubic feet (÷ 27); when
        ``cut_fill_volume_cuft`` is given it is used, else ``cut_fill_volume_cuyd`` (None: not
        measured).
    water_land_disturbed : tuple of str
        Erosion control C: the kinds of land disturbed among ``drainageway``, ``stream``,
        ``stream_channel``, ``stream_bank``, ``lake_shoreline``, ``water_body``; any one
        requires the plan (trigger ``water_land``) whatever B's quantities, with DNR and Corps
        permits (``applicant_must_show``; reading ``water-land-disturbed``).
    agricultural_use : bool
        Erosion control F: farming or another agricultural use is exempt (status ``exempt``,
        ``plan_required`` False), whatever else is given.

    Returns
    -------
    ErosionPlanResult
        ``plan_required`` (None while ``needs_data``), the met ``triggers`` cited by item
        (``"Erosion control B.1, B.4"``), and the keys ``not_measured``.

    Raises
    ------
    RuleInputError
        A negative, non-finite or non-number value.

    >>> erosion_plan(cut_fill_volume_cuft=13_500.0, max_fill_depth_ft=3.0, max_excavation_depth_ft=4.0,
    ...              cut_fill_area_sqft=5000.0, exposed_soil_sqft=5000.0).plan_required
    False
    """
    m: dict[str, Any] = {"max_fill_depth_ft": max_fill_depth_ft, "max_excavation_depth_ft": max_excavation_depth_ft,
                         "cut_fill_area_sqft": cut_fill_area_sqft, "exposed_soil_sqft": exposed_soil_sqft,
                         "water_land_disturbed": list(water_land_disturbed), "agricultural_use": agricultural_use}
    if cut_fill_volume_cuft is not None:
        m["cut_fill_volume_cuft"] = cut_fill_volume_cuft
    else:
        m["cut_fill_volume_cuyd"] = cut_fill_volume_cuyd
    return _erosion_plan(m, "")


#: ``erosion_plan`` from the contract's ``input``.
erosion_plan_from_request = from_request(_erosion_plan, "erosion_plan")


def _slope(m: Mapping[str, Any], where: str) -> float:
    """The slope, percent, from ``slope_pct`` or ``slope_deg`` (signed; ``slope-magnitude``
    compares its size)."""
    return slope_pct_of(m, where)[0]


@dataclasses.dataclass(frozen=True, kw_only=True)
class SteepSlopeResult(RuleResult):
    """Result of ``steep_slope`` (Erosion control D): ``undisturbed_required``."""

    undisturbed_required: bool
    soil_unit: str
    slope_pct: float


def _steep_slope(m: Mapping[str, Any], where: str) -> SteepSlopeResult:
    unit = m.get("soil_unit")
    if "soil_unit" not in m:
        raise RuleInputError(join(where, "soil_unit"), "missing required key 'soil_unit'")
    if not isinstance(unit, str):
        raise RuleInputError(join(where, "soil_unit"), "soil_unit must be a string (map unit symbol)")
    slope = _slope(m, where)
    steep_unit = unit.strip().lower() in STEEP_SOIL_UNITS
    return SteepSlopeResult(
        rule="steep_slope",
        status=Status.DETERMINED,
        citation=f"{CITE}, Erosion control D",
        interpretations=(SLOPE_MAGNITUDE,),
        undisturbed_required=steep_unit and more_than(abs(slope), STEEP_SLOPE_PCT),
        soil_unit=unit,
        slope_pct=slope,
    )


def steep_slope(soil_unit: str, slope_pct: float) -> SteepSlopeResult:
    """Rule ``steep_slope``: Steep Rock Land (Sr) and Steep Sandy Land (SsF) with slopes
    greater than 30 % remain undisturbed (Erosion control D; ``slope-magnitude``). The map unit
    symbol matches ignoring case and surrounding spaces.

    Parameters
    ----------
    soil_unit : str
        The soil survey map unit symbol, e.g. ``"SsF"``.
    slope_pct : float
        Slope of the land, percent (either sign; its size is compared).

    Returns
    -------
    SteepSlopeResult
        ``undisturbed_required``: a steep unit with a slope of more than 30 %.

    Raises
    ------
    RuleInputError
        ``soil_unit`` not a string; ``slope_pct`` not a finite number.

    >>> steep_slope("SsF", 30.0).undisturbed_required, steep_slope("Sr", 30.01).undisturbed_required
    (False, True)
    """
    return _steep_slope({"soil_unit": soil_unit, "slope_pct": slope_pct}, "")


#: ``steep_slope`` from the contract's ``input`` (``slope_pct`` or ``slope_deg``).
steep_slope_from_request = from_request(_steep_slope, "steep_slope", " (``slope_pct`` or ``slope_deg``)")


@dataclasses.dataclass(frozen=True, kw_only=True)
class ErodibleSlopeResult(RuleResult):
    """Result of ``erodible_slope`` (Erosion control A.3): ``erodible``."""

    erodible: bool
    slope_pct: float


def _erodible_slope(m: Mapping[str, Any], where: str) -> ErodibleSlopeResult:
    slope = _slope(m, where)
    return ErodibleSlopeResult(
        rule="erodible_slope",
        status=Status.DETERMINED,
        citation=f"{CITE}, Erosion control A.3",
        interpretations=(SLOPE_MAGNITUDE,),
        erodible=more_than(abs(slope), ERODIBLE_SLOPE_PCT),
        slope_pct=slope,
    )


def erodible_slope(slope_pct: float) -> ErodibleSlopeResult:
    """Rule ``erodible_slope``: an incline in excess of 4 % is an erodible slope
    (Erosion control A.3; ``slope-magnitude``).

    Parameters
    ----------
    slope_pct : float
        Slope of the land, percent (either sign; its size is compared).

    Returns
    -------
    ErodibleSlopeResult

    Raises
    ------
    RuleInputError
        ``slope_pct`` not a finite number.

    >>> erodible_slope(4.0).erodible, erodible_slope(4.01).erodible
    (False, True)
    """
    return _erodible_slope({"slope_pct": slope_pct}, "")


#: ``erodible_slope`` from the contract's ``input`` (``slope_pct`` or ``slope_deg``).
erodible_slope_from_request = from_request(_erodible_slope, "erodible_slope", " (``slope_pct`` or ``slope_deg``)")
