"""The city's resource protection chapter (Decorah, Iowa; Ord. 952, 1993) -- beside the text.

Our copy has no section numbers, so rules cite the topic and the letter:
``"City resource protection, Woodlands A.2"``.

Woodlands
    A.2 mature woodland: 30 % or more largely deciduous canopy of trees of 10 in caliper or
    greater, or a grove of 8 or more deciduous trees of 18 in caliper or greater. A.3 young
    woodland: 70 % or more canopy of trees of 3 in caliper or greater. C protection 75 % /
    50 %. D development area: 20 ft beyond foundations (D.2.a), 5 ft beyond parking, septic,
    utility trenches and drives (D.2.b). E mitigation: protection not below 55 % / 25 % (E.1);
    plantings per acre (E.4 a-e).
Drainageways
    A.1 50 ft from each embankment of a mapped stream; A.2 25 ft each side of the centreline of
    a swale with 5 acres or more tributary; C 75 % open space.
Wetlands
    A 10,000 sq ft or more, standing water retained periodically, hydric vegetation; C 100 %
    undisturbed.
Erosion control
    A.3 erodible slope: more than 4 %; B plan triggers 1-5; D Sr / SsF land over 30 %
    undisturbed.

Rules: ``woodland.class``, ``woodland.mitigation``, ``wetland.size``, ``drainageway``,
``development_area``, ``erosion_plan``, ``steep_slope``, ``erodible_slope`` (the last added for
A.3; not in the contract table).

Readings (``rules-contract.md``): ``largely-deciduous``, ``dbh-for-standing-trees``, ``grove``,
``mitigation-area``, ``round-buffer``, ``strictly-more-than``; added here:

``canopy-sample-proportion``
    From a dot grid, canopy % = points on that canopy ÷ all points; from a line intercept,
    intercepted length ÷ line length; the deciduous share is the deciduous part of the
    ≥ 10 in canopy points (or intercept) ÷ all ≥ 10 in canopy points (or intercept).
``mapped-stream-only``
    Drainageways A.1 covers streams shown on the USGS quadrangle or county soil survey maps:
    an unmapped stream is not a drainageway under A.1 (a swale is its own request, A.2); a
    stream whose mapping is not stated is ``needs_data``.
``edge-shape``
    An edge with 2 points is a line; with 3 or more it is a polygon ring, except a utility
    trench whose first and last points differ, which is a polyline.
``slope-magnitude``
    "Slopes greater than 30 %" and "inclines in excess of 4 %" compare the slope's size,
    whatever its sign.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from decimal import ROUND_CEILING, Decimal
from typing import Any

import shapely

from fieldapp.rules.compare import at_least, at_most, less_than, more_than
from fieldapp.rules.measure import pct_from_deg
from fieldapp.rules.results import RuleInputError, RuleResult, Status
from fieldapp.rules.validate import (
    boolean, choice, finite_result, join, mapping, number, number_of, one_of, sequence,
)

__all__ = [
    "DevelopmentAreaResult",
    "DrainagewayResult",
    "ErodibleSlopeResult",
    "ErosionPlanResult",
    "MitigationResult",
    "Plantings",
    "SteepSlopeResult",
    "WetlandSizeResult",
    "WoodlandClassResult",
    "development_area",
    "drainageway",
    "erodible_slope",
    "erosion_plan",
    "steep_slope",
    "wetland_size",
    "woodland_class",
    "woodland_mitigation",
]

CITE = "City resource protection"

LARGELY_DECIDUOUS = "largely-deciduous"
DBH_FOR_STANDING_TREES = "dbh-for-standing-trees"
GROVE = "grove"
MITIGATION_AREA = "mitigation-area"
ROUND_BUFFER = "round-buffer"
STRICTLY_MORE_THAN = "strictly-more-than"
CANOPY_SAMPLE_PROPORTION = "canopy-sample-proportion"
MAPPED_STREAM_ONLY = "mapped-stream-only"
EDGE_SHAPE = "edge-shape"
SLOPE_MAGNITUDE = "slope-magnitude"

#: Woodlands A.2 / A.3 thresholds.
MATURE_CANOPY_PCT = 30.0
MATURE_CALIPER_IN = 10.0
GROVE_TREES = 8
GROVE_DBH_IN = 18.0
YOUNG_CANOPY_PCT = 70.0
DEFAULT_LARGELY_DECIDUOUS_PCT = 50.0
#: Woodlands C and E.1: class -> (protection %, floor %).
PROTECTION = {"mature": (75.0, 55.0), "young": (50.0, 25.0), "none": (0.0, 0.0)}
#: Woodlands E.4 a-e: plants per acre of mitigation.
PLANTINGS_PER_ACRE = {
    "canopy_4in_or_12ft_evergreen": 4,
    "canopy_2_5in_or_6ft_evergreen": 8,
    "canopy_5ft": 60,
    "understory_5ft": 20,
    "shrubs_11in": 25,
}
WETLAND_MIN_SQFT = 10_000.0
FOUNDATION_LIMIT_FT = 20.0
EDGE_LIMIT_FT = 5.0
#: Segments per quarter circle of the round-cornered envelope: the area of a 20 ft round
#: corner is then within 0.002 sq ft of π·20².
QUAD_SEGS = 512
STEEP_SOIL_UNITS = {"sr": "Sr", "ssf": "SsF"}
STEEP_SLOPE_PCT = 30.0
ERODIBLE_SLOPE_PCT = 4.0
CUFT_PER_CUYD = 27.0
#: Erosion control B.1-B.5: trigger -> (input key, limit, item).
EROSION_TRIGGERS = {
    "volume": ("cut_fill_volume_cuyd", 500.0, "B.1"),
    "fill_depth": ("max_fill_depth_ft", 3.0, "B.2"),
    "excavation_depth": ("max_excavation_depth_ft", 4.0, "B.3"),
    "area": ("cut_fill_area_sqft", 5000.0, "B.4"),
    "exposed_soil": ("exposed_soil_sqft", 5000.0, "B.5"),
}


def _ordered(used: set[str], order: Sequence[str]) -> tuple[str, ...]:
    return tuple(x for x in order if x in used)


# ============================================================================================
# Woodlands A: class


@dataclasses.dataclass(frozen=True, kw_only=True)
class WoodlandClassResult(RuleResult):
    """Result of ``woodland.class`` (Woodlands A.2, A.3, C).

    Attributes
    ----------
    class_ : str or None
        ``mature``, ``young`` or ``none`` (JSON key ``class``); None while ``needs_data``.
    basis : str or None
        ``canopy`` or ``grove`` for a mature woodland, else None.
    canopy_10in_pct, canopy_3in_pct : float
    deciduous_share_pct : float or None
        Deciduous share of the ≥ 10 in canopy; None when there is none (or not yet estimated).
    qualifying_grove_trees : int
        Deciduous trees of 18.0 in DBH or more.
    protection_pct : float or None
        Woodlands C: 75 (mature), 50 (young), 0 (none).
    """

    class_: str | None
    basis: str | None
    canopy_10in_pct: float
    canopy_3in_pct: float
    deciduous_share_pct: float | None
    qualifying_grove_trees: int
    protection_pct: float | None

    def to_dict(self) -> dict[str, Any]:
        d = super().to_dict()
        return {("class" if k == "class_" else k): v for k, v in d.items()}


def _count(m: Mapping, key: str, where: str) -> int:
    v = number(m, key, where)
    if v != int(v):
        raise RuleInputError(join(where, key), f"{key} must be a whole number of points, got {v:g}")
    return int(v)


def _canopy_sample(m: Mapping, where: str) -> tuple[float, float | None, float]:
    """``canopy-sample-proportion``: (canopy_10in_pct, deciduous_share_pct, canopy_3in_pct)."""
    method = choice(m, "method", where, ("dot_grid", "line_intercept"))
    if method == "dot_grid":
        keys = ("points_total", "points_on_canopy_10in", "points_on_deciduous_canopy_10in", "points_on_canopy_3in")
        total, c10, dec, c3 = (_count(m, k, where) for k in keys)
        if total <= 0:
            raise RuleInputError(join(where, keys[0]), "points_total must be more than 0")
    else:
        keys = ("line_length_ft", "intercept_canopy_10in_ft", "intercept_deciduous_canopy_10in_ft",
                "intercept_canopy_3in_ft")
        total = number(m, keys[0], where, positive=True, unit=" ft")
        c10, dec, c3 = (number(m, k, where, unit=" ft") for k in keys[1:])
    for small, big in ((2, 1), (1, 3), (3, 0)):
        vals = (total, c10, dec, c3)
        if more_than(vals[small], vals[big]):
            raise RuleInputError(join(where, keys[small]), f"{keys[small]} cannot exceed {keys[big]}")
    share = 100.0 * dec / c10 if c10 > 0 else None
    what = "the canopy percentage"
    pcts = [finite_result(100.0 * v / total, join(where, keys[0]), what) for v in (c10, c3)]
    if share is not None:
        share = finite_result(share, join(where, keys[1]), "the deciduous share")
    return pcts[0], share, pcts[1]


def _woodland_class(m: Mapping, where: str, settings: Mapping) -> WoodlandClassResult:
    sw = "settings" if where else ""
    largely = number(settings, "largely_deciduous_pct", sw, required=False, maximum=100.0, unit=" %")
    if largely is None:
        largely = DEFAULT_LARGELY_DECIDUOUS_PCT
    used: set[str] = set()
    if one_of(m, ("canopy_10in_pct", "canopy_sample"), where) == "canopy_sample":
        c10, share, c3 = _canopy_sample(mapping(m["canopy_sample"], join(where, "canopy_sample")),
                                        join(where, "canopy_sample"))
        used.add(CANOPY_SAMPLE_PROPORTION)
    else:
        c10 = number(m, "canopy_10in_pct", where, maximum=100.0, unit=" %")
        c3 = number(m, "canopy_3in_pct", where, maximum=100.0, unit=" %")
        share = number(m, "deciduous_share_pct", where, required=False, nullable=True, maximum=100.0, unit=" %")
        if less_than(c3, c10):
            raise RuleInputError(
                join(where, "canopy_3in_pct"),
                f"canopy_3in_pct includes the ≥ 10 in canopy, so it cannot be less than canopy_10in_pct "
                f"({c3:g} < {c10:g})",
            )
        if share is not None and not more_than(c10, 0.0):
            share = None  # contract: null when there is no ≥ 10 in canopy
    trees = sequence(m, "trees", where)
    tw = join(where, "trees")
    qualifying = 0
    for i, t in enumerate(trees):
        t = mapping(t, join(tw, i))
        dbh = number(t, "dbh_in", join(tw, i), unit=" in")
        habit = choice(t, "leaf_habit", join(tw, i), ("deciduous", "evergreen"))
        if habit == "deciduous" and at_least(dbh, GROVE_DBH_IN):
            qualifying += 1

    by_canopy = False
    canopy_unknown = False
    if at_least(c10, MATURE_CANOPY_PCT):
        used.add(LARGELY_DECIDUOUS)
        if share is None:
            canopy_unknown = True
        else:
            by_canopy = more_than(share, largely)
    status = Status.DETERMINED
    step = None
    if by_canopy:
        cls, basis, cite = "mature", "canopy", f"{CITE}, Woodlands A.2"
    else:
        used.add(GROVE)
        if trees:
            used.add(DBH_FOR_STANDING_TREES)
        if qualifying >= GROVE_TREES:
            cls, basis, cite = "mature", "grove", f"{CITE}, Woodlands A.2"
        elif canopy_unknown:
            cls, basis, cite = None, None, f"{CITE}, Woodlands A.2"
            status = Status.NEEDS_DATA
            step = "estimate the deciduous share of the canopy of trees of 10 in caliper or greater"
        elif at_least(c3, YOUNG_CANOPY_PCT):
            cls, basis, cite = "young", None, f"{CITE}, Woodlands A.3"
        else:
            cls, basis, cite = "none", None, f"{CITE}, Woodlands A.2, A.3"
    return WoodlandClassResult(
        rule="woodland.class",
        status=status,
        citation=cite,
        interpretations=_ordered(used, (LARGELY_DECIDUOUS, CANOPY_SAMPLE_PROPORTION, DBH_FOR_STANDING_TREES, GROVE)),
        next_step=step,
        class_=cls,
        basis=basis,
        canopy_10in_pct=c10,
        canopy_3in_pct=c3,
        deciduous_share_pct=share,
        qualifying_grove_trees=qualifying,
        protection_pct=PROTECTION[cls][0] if cls else None,
    )


def woodland_class(
    *,
    trees: Sequence[Mapping[str, Any]] = (),
    canopy_10in_pct: float | None = None,
    deciduous_share_pct: float | None = None,
    canopy_3in_pct: float | None = None,
    canopy_sample: Mapping[str, Any] | None = None,
    largely_deciduous_pct: float = DEFAULT_LARGELY_DECIDUOUS_PCT,
) -> WoodlandClassResult:
    """Rule ``woodland.class``: mature, young or no woodland (Woodlands A.2, A.3).

    Precedence: mature by canopy (``canopy_10in_pct`` ≥ 30 and ``deciduous_share_pct`` more
    than ``largely_deciduous_pct``, ``largely-deciduous``), then mature by grove (8 or more
    deciduous trees of DBH ≥ 18.0 in, ``grove``, ``dbh-for-standing-trees``), then young
    (``canopy_3in_pct`` ≥ 70), else none.

    Parameters
    ----------
    trees : sequence of mapping
        ``{"dbh_in": float, "leaf_habit": "deciduous" | "evergreen"}`` for the trees inside the
        grove the surveyor drew; ``caliper_in`` is never used to class a standing tree.
    canopy_10in_pct, canopy_3in_pct : float
        Canopy cover of trees ≥ 10 in and ≥ 3 in (the latter includes the former), % (0-100).
    deciduous_share_pct : float, optional
        Deciduous share of the ≥ 10 in canopy, %; None when not estimated.
    canopy_sample : mapping, optional
        Instead of the three percentages: a dot grid or line intercept sample
        (``canopy-sample-proportion``).
    largely_deciduous_pct : float
        The setting of ``largely-deciduous`` (default 50).

    Returns
    -------
    WoodlandClassResult
        ``needs_data`` when the ≥ 10 in canopy reaches 30 % but its deciduous share is unknown
        and no grove settles it.

    Raises
    ------
    RuleInputError
        Missing or out-of-range percentages, ``canopy_3in_pct`` < ``canopy_10in_pct``, bad trees.

    Examples
    --------
    >>> woodland_class(canopy_10in_pct=34, deciduous_share_pct=80, canopy_3in_pct=60).class_
    'mature'
    """
    m: dict[str, Any] = {"trees": list(trees)}
    for k, v in (("canopy_10in_pct", canopy_10in_pct), ("deciduous_share_pct", deciduous_share_pct),
                 ("canopy_3in_pct", canopy_3in_pct), ("canopy_sample", canopy_sample)):
        if v is not None:
            m[k] = v
    return _woodland_class(m, "", {"largely_deciduous_pct": largely_deciduous_pct})


def woodland_class_from_request(input: Mapping, settings: Mapping) -> WoodlandClassResult:
    """``woodland.class`` from the contract's ``input`` (settings: ``largely_deciduous_pct``)."""
    return _woodland_class(input, "input", settings)


# ============================================================================================
# Woodlands C, E: protection and mitigation


@dataclasses.dataclass(frozen=True)
class Plantings:
    """Woodlands E.4 a-e: plants for the mitigation area, each rounded up."""

    canopy_4in_or_12ft_evergreen: int
    canopy_2_5in_or_6ft_evergreen: int
    canopy_5ft: int
    understory_5ft: int
    shrubs_11in: int


@dataclasses.dataclass(frozen=True, kw_only=True)
class MitigationResult(RuleResult):
    """Result of ``woodland.mitigation`` (Woodlands C, E.1, E.4).

    Attributes
    ----------
    retained_pct : float or None
        Retained share of the woodland, % (None for an empty woodland of class none).
    permitted : bool
        Retained share at or above the floor (55 % mature, 25 % young, inclusive).
    mitigation_required : bool
        Retained share below the protection level (75 % / 50 %).
    mitigation_area_ac : float
        (protection − retained fraction) × woodland area, ac (``mitigation-area``).
    plantings : Plantings
    protection_pct, floor_pct : float
    """

    retained_pct: float | None
    permitted: bool
    mitigation_required: bool
    mitigation_area_ac: float
    plantings: Plantings
    protection_pct: float
    floor_pct: float


def _dec(x: float) -> Decimal:
    """The decimal the number was written as (shortest round-trip repr: 1.6 -> Decimal('1.6'))."""
    return Decimal(repr(float(x)))


def _mitigation(m: Mapping, where: str) -> MitigationResult:
    cls = choice(m, "class", where, ("mature", "young", "none"))
    area = number(m, "woodland_area_ac", where, positive=cls != "none", unit=" ac")
    retained = number(m, "retained_area_ac", where, unit=" ac")
    if more_than(retained, area):
        raise RuleInputError(join(where, "retained_area_ac"),
                             f"retained_area_ac ({retained:g} ac) cannot exceed woodland_area_ac ({area:g} ac)")
    protection, floor = PROTECTION[cls]
    retained_pct = 100.0 * retained / area if area > 0 else None
    if retained_pct is not None:
        finite_result(retained_pct, join(where, "woodland_area_ac"), "the retained percentage")
    zero = Plantings(0, 0, 0, 0, 0)
    if cls == "none":
        return MitigationResult(
            rule="woodland.mitigation", status=Status.DETERMINED, citation=f"{CITE}, Woodlands C",
            retained_pct=retained_pct, permitted=True, mitigation_required=False, mitigation_area_ac=0.0,
            plantings=zero, protection_pct=protection, floor_pct=floor,
        )
    required = less_than(retained_pct, protection)
    permitted = at_least(retained_pct, floor)
    if required:
        # Exact decimals: protection/100 × area − retained (= (protection − retained fraction) × area).
        mit = Decimal(repr(protection)) / 100 * _dec(area) - _dec(retained)
        counts = [int((Decimal(rate) * mit).to_integral_value(rounding=ROUND_CEILING))
                  for rate in PLANTINGS_PER_ACRE.values()]
        plantings = Plantings(*counts)
        mit_ac = float(mit)
    else:
        plantings, mit_ac = zero, 0.0
    return MitigationResult(
        rule="woodland.mitigation",
        status=Status.DETERMINED,
        citation=f"{CITE}, Woodlands E" if required else f"{CITE}, Woodlands C",
        interpretations=(MITIGATION_AREA,),
        retained_pct=retained_pct,
        permitted=permitted,
        mitigation_required=required,
        mitigation_area_ac=mit_ac,
        plantings=plantings,
        protection_pct=protection,
        floor_pct=floor,
    )


def woodland_mitigation(woodland_class: str, woodland_area_ac: float, retained_area_ac: float) -> MitigationResult:
    """Rule ``woodland.mitigation``: protection level, floor and mitigation planting
    (Woodlands C, E.1, E.4; ``mitigation-area``).

    Parameters
    ----------
    woodland_class : {"mature", "young", "none"}
    woodland_area_ac, retained_area_ac : float
        The woodland and the part left undisturbed, acres (retained ≤ woodland).

    Returns
    -------
    MitigationResult
        Below the floor ``permitted`` is False and the mitigation area is still reported.
        Plantings use exact decimal arithmetic on the numbers as written, each rounded up.

    Raises
    ------
    RuleInputError
        Unknown class, negative or non-finite areas, retained more than the woodland, a zero
        woodland area for class mature or young.

    Examples
    --------
    >>> r = woodland_mitigation("young", 4.0, 1.6)
    >>> r.retained_pct, r.mitigation_area_ac, r.plantings.canopy_5ft
    (40.0, 0.4, 24)
    """
    return _mitigation({"class": woodland_class, "woodland_area_ac": woodland_area_ac,
                        "retained_area_ac": retained_area_ac}, "")


def woodland_mitigation_from_request(input: Mapping, settings: Mapping) -> MitigationResult:
    """``woodland.mitigation`` from the contract's ``input``."""
    return _mitigation(input, "input")


# ============================================================================================
# Wetlands A, C


@dataclasses.dataclass(frozen=True, kw_only=True)
class WetlandSizeResult(RuleResult):
    """Result of ``wetland.size``: ``is_ordinance_wetland`` (None while ``needs_data``) and
    ``required_undisturbed_pct`` (100 for an ordinance wetland, else 0)."""

    is_ordinance_wetland: bool | None
    required_undisturbed_pct: float | None
    area_sqft: float


def _wetland_size(m: Mapping, where: str) -> WetlandSizeResult:
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

    >>> wetland_size(10_000, periodic_standing_water=True, hydric_vegetation=True).is_ordinance_wetland
    True
    """
    return _wetland_size({"area_sqft": area_sqft, "periodic_standing_water": periodic_standing_water,
                          "hydric_vegetation": hydric_vegetation}, "")


def wetland_size_from_request(input: Mapping, settings: Mapping) -> WetlandSizeResult:
    """``wetland.size`` from the contract's ``input``."""
    return _wetland_size(input, "input")


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


def _drainageway(m: Mapping, where: str) -> DrainagewayResult:
    kind = choice(m, "kind", where, ("swale", "stream"))
    length = number(m, "length_ft", where, unit=" ft")
    used: set[str] = set()
    step = None
    if kind == "stream":
        used.add(MAPPED_STREAM_ONLY)
        cite = f"{CITE}, Drainageways A.1"
        mapped = boolean(m, "mapped_stream", where, required=False, nullable=True)
        channel = number(m, "channel_width_ft", where, required=False, nullable=True, unit=" ft") or 0.0
        verdict = mapped
        half, total = channel / 2.0 + 50.0, channel + 100.0
        if mapped is None:
            step = ("check whether the stream is shown on the USGS 7.5-minute quadrangle or the "
                    "county soil survey map (mapped_stream)")
    else:
        cite = f"{CITE}, Drainageways A.2"
        trib = number(m, "tributary_area_ac", where, required=False, nullable=True, unit=" ac")
        verdict = None if trib is None else at_least(trib, 5.0)
        half, total = 25.0, 50.0
        if trib is None:
            step = "measure the upstream area tributary to the swale (acres)"
    if verdict is None:
        return DrainagewayResult(rule="drainageway", status=Status.NEEDS_DATA, citation=cite,
                                 interpretations=_ordered(used, (MAPPED_STREAM_ONLY,)), next_step=step,
                                 is_drainageway=None, half_width_ft=None, total_width_ft=None,
                                 area_sqft=None, min_open_space_sqft=None)
    if not verdict:
        half = total = 0.0
    area = finite_result(total * length, join(where, "length_ft"), "the drainageway area")
    return DrainagewayResult(
        rule="drainageway",
        status=Status.DETERMINED,
        citation=f"{cite}, C" if verdict else cite,
        interpretations=_ordered(used, (MAPPED_STREAM_ONLY,)),
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
    open space.

    >>> drainageway("swale", 200, tributary_area_ac=5.0).min_open_space_sqft
    7500.0
    """
    return _drainageway({"kind": kind, "length_ft": length_ft, "tributary_area_ac": tributary_area_ac,
                         "mapped_stream": mapped_stream, "channel_width_ft": channel_width_ft}, "")


def drainageway_from_request(input: Mapping, settings: Mapping) -> DrainagewayResult:
    """``drainageway`` from the contract's ``input``."""
    return _drainageway(input, "input")


# ============================================================================================
# Woodlands D.2: development area


@dataclasses.dataclass(frozen=True, kw_only=True)
class DevelopmentAreaResult(RuleResult):
    """Result of ``development_area`` (Woodlands D.2.a, D.2.b; ``round-buffer``).

    Attributes
    ----------
    envelope_area_sqft : float
        Area of the union of 20 ft round buffers of the foundations and 5 ft round buffers of
        the edges, sq ft.
    inside : tuple of bool
        Per test point: inside or on the envelope (within 20 ft of a foundation or 5 ft of an
        edge, inclusive, from exact distances).
    distances_ft : tuple of float
        Per test point: distance to the nearest foundation or edge (0 inside one), ft.
    """

    envelope_area_sqft: float
    inside: tuple[bool, ...]
    distances_ft: tuple[float, ...]


def _point(p: Any, where: str) -> tuple[float, float]:
    """One [x_ft, y_ft] point (projected feet, each at most ``MAX_FT`` in size)."""
    if isinstance(p, (str, bytes)) or not isinstance(p, Sequence) or len(p) != 2:
        raise RuleInputError(where, "each point must be [x_ft, y_ft]")
    return (number_of(p[0], join(where, 0), nonnegative=False, unit=" ft"),
            number_of(p[1], join(where, 1), nonnegative=False, unit=" ft"))


def _points(ring: Any, where: str) -> list[tuple[float, float]]:
    if isinstance(ring, (str, bytes)) or not isinstance(ring, Sequence):
        raise RuleInputError(where, "must be a list of [x_ft, y_ft] points")
    return [_point(p, join(where, i)) for i, p in enumerate(ring)]


def _polygon(pts: list[tuple[float, float]], where: str) -> shapely.Polygon:
    if len(pts) < 3:
        raise RuleInputError(where, f"a polygon needs 3 or more points, got {len(pts)}")
    poly = shapely.Polygon(pts)
    if not poly.is_valid:
        raise RuleInputError(where, f"not a valid polygon ({shapely.is_valid_reason(poly)})")
    if not poly.area > 0.0:
        raise RuleInputError(where, "the polygon encloses no area (its points are in a line, or too close "
                                    "together to measure)")
    return poly


def _development_area(m: Mapping, where: str) -> DevelopmentAreaResult:
    used = {ROUND_BUFFER}
    fw = join(where, "foundations")
    foundations = [_polygon(_points(r, join(fw, i)), join(fw, i)) for i, r in enumerate(sequence(m, "foundations", where))]
    edges = []
    edge_items = sequence(m, "edges", where, required=False) or []
    ew = join(where, "edges")
    for i, e in enumerate(edge_items):
        w = join(ew, i)
        e = mapping(e, w)
        kind = choice(e, "kind", w, ("driveway", "parking", "septic", "utility"))
        if "coordinates" not in e:
            raise RuleInputError(join(w, "coordinates"), "missing required key 'coordinates'")
        pts = _points(e["coordinates"], join(w, "coordinates"))
        used.add(EDGE_SHAPE)
        if len(pts) < 2:
            raise RuleInputError(join(w, "coordinates"), f"an edge needs 2 or more points, got {len(pts)}")
        closed = pts[0] == pts[-1]
        if len(pts) == 2 or (kind == "utility" and not closed):
            edges.append(shapely.LineString(pts))
        else:
            edges.append(_polygon(pts, join(w, "coordinates")))
    test_points = [
        _point(p, join(join(where, "test_points"), i))
        for i, p in enumerate(sequence(m, "test_points", where, required=False) or [])
    ]
    if test_points and not foundations and not edges:
        raise RuleInputError(join(where, "foundations"), "test_points need at least one foundation or edge")
    buffers = [shapely.buffer(g, FOUNDATION_LIMIT_FT, quad_segs=QUAD_SEGS) for g in foundations]
    buffers += [shapely.buffer(g, EDGE_LIMIT_FT, quad_segs=QUAD_SEGS) for g in edges]
    envelope = shapely.union_all(buffers) if buffers else shapely.Polygon()
    envelope_area = finite_result(float(envelope.area), fw, "the envelope area")
    inside = []
    distances = []
    for x, y in test_points:
        pt = shapely.Point(x, y)
        df = [g.distance(pt) for g in foundations]
        de = [g.distance(pt) for g in edges]
        distances.append(min(df + de))
        inside.append(any(at_most(d, FOUNDATION_LIMIT_FT) for d in df) or any(at_most(d, EDGE_LIMIT_FT) for d in de))
    return DevelopmentAreaResult(
        rule="development_area",
        status=Status.DETERMINED,
        citation=f"{CITE}, Woodlands D.2",
        interpretations=_ordered(used, (ROUND_BUFFER, EDGE_SHAPE)),
        envelope_area_sqft=envelope_area,
        inside=tuple(inside),
        distances_ft=tuple(float(d) for d in distances),
    )


def development_area(
    foundations: Sequence[Sequence[Sequence[float]]],
    *,
    edges: Sequence[Mapping[str, Any]] = (),
    test_points: Sequence[Sequence[float]] = (),
) -> DevelopmentAreaResult:
    """Rule ``development_area``: the largest development area the chapter allows
    (Woodlands D.2.a: 20 ft beyond foundations; D.2.b: 5 ft beyond parking, septic areas,
    utility trenches and drives), as true round-cornered buffers (``round-buffer``).

    Parameters
    ----------
    foundations : sequence of rings
        Each a polygon ring of [x_ft, y_ft] (projected CRS, feet; 3 or more points).
    edges : sequence of mapping
        ``{"kind": "driveway" | "parking" | "septic" | "utility", "coordinates": [...]}``
        (``edge-shape``).
    test_points : sequence of [x_ft, y_ft]

    Returns
    -------
    DevelopmentAreaResult

    Raises
    ------
    RuleInputError
        Too few points, an invalid polygon, non-finite coordinates, unknown edge kind.

    Examples
    --------
    >>> round(development_area([[[0, 0], [30, 0], [30, 30], [0, 30]]]).envelope_area_sqft, 2)
    4556.64
    """
    return _development_area({"foundations": list(foundations), "edges": list(edges),
                              "test_points": list(test_points)}, "")


def development_area_from_request(input: Mapping, settings: Mapping) -> DevelopmentAreaResult:
    """``development_area`` from the contract's ``input``."""
    return _development_area(input, "input")


# ============================================================================================
# Erosion control A.3, B, D


@dataclasses.dataclass(frozen=True, kw_only=True)
class ErosionPlanResult(RuleResult):
    """Result of ``erosion_plan`` (Erosion control B.1-B.5; ``strictly-more-than``).

    Attributes
    ----------
    plan_required : bool or None
        Any trigger is met (None while ``needs_data``).
    triggers : tuple of str
        Met triggers, in the order ``volume``, ``fill_depth``, ``excavation_depth``, ``area``,
        ``exposed_soil``.
    cut_fill_volume_cuyd : float or None
    not_measured : tuple of str
        Input keys given as null (not measured yet).
    """

    plan_required: bool | None
    triggers: tuple[str, ...]
    cut_fill_volume_cuyd: float | None
    not_measured: tuple[str, ...] = ()


def _erosion_plan(m: Mapping, where: str) -> ErosionPlanResult:
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
        v = number(m, given[0], where, unit=" cu yd" if given[0].endswith("cuyd") else " cu ft")
        values["cut_fill_volume_cuyd"] = v / CUFT_PER_CUYD if given[0].endswith("cuft") else v
    else:
        values["cut_fill_volume_cuyd"] = None
    for key, _limit, _item in list(EROSION_TRIGGERS.values())[1:]:
        values[key] = number(m, key, where, nullable=True)
    met = []
    unknown = []
    for name, (key, limit, _item) in EROSION_TRIGGERS.items():
        v = values[key]
        if v is None:
            unknown.append(key if key != "cut_fill_volume_cuyd" else present[0])
        elif more_than(v, limit):
            met.append(name)
    if met:
        required: bool | None = True
    elif unknown:
        required = None
    else:
        required = False
    items = ", ".join(EROSION_TRIGGERS[t][2] for t in met)
    return ErosionPlanResult(
        rule="erosion_plan",
        status=Status.NEEDS_DATA if required is None else Status.DETERMINED,
        citation=f"{CITE}, Erosion control {items}" if met else f"{CITE}, Erosion control B",
        interpretations=(STRICTLY_MORE_THAN,),
        next_step=("measure " + ", ".join(unknown)) if required is None else None,
        plan_required=required,
        triggers=tuple(met),
        cut_fill_volume_cuyd=values["cut_fill_volume_cuyd"],
        not_measured=tuple(unknown),
    )


def erosion_plan(
    *,
    max_fill_depth_ft: float | None,
    max_excavation_depth_ft: float | None,
    cut_fill_area_sqft: float | None,
    exposed_soil_sqft: float | None,
    cut_fill_volume_cuyd: float | None = None,
    cut_fill_volume_cuft: float | None = None,
) -> ErosionPlanResult:
    """Rule ``erosion_plan``: is a soil erosion and sedimentation control plan required
    (Erosion control B.1-B.5)? Each trigger is "more than" its limit (``strictly-more-than``):
    volume 500 cu yd (13,500 cu ft), fill depth 3 ft, excavation depth 4 ft, cut/fill area
    5,000 sq ft, exposed soil 5,000 sq ft. A value of None is "not measured yet": the result is
    ``needs_data`` unless another trigger is already met.

    >>> erosion_plan(cut_fill_volume_cuft=13_500.0, max_fill_depth_ft=3.0, max_excavation_depth_ft=4.0,
    ...              cut_fill_area_sqft=5000.0, exposed_soil_sqft=5000.0).plan_required
    False
    """
    m: dict[str, Any] = {"max_fill_depth_ft": max_fill_depth_ft, "max_excavation_depth_ft": max_excavation_depth_ft,
                         "cut_fill_area_sqft": cut_fill_area_sqft, "exposed_soil_sqft": exposed_soil_sqft}
    if cut_fill_volume_cuft is not None:
        m["cut_fill_volume_cuft"] = cut_fill_volume_cuft
    else:
        m["cut_fill_volume_cuyd"] = cut_fill_volume_cuyd
    return _erosion_plan(m, "")


def erosion_plan_from_request(input: Mapping, settings: Mapping) -> ErosionPlanResult:
    """``erosion_plan`` from the contract's ``input``."""
    return _erosion_plan(input, "input")


def _slope(m: Mapping, where: str) -> float:
    if one_of(m, ("slope_pct", "slope_deg"), where) == "slope_deg":
        deg = number(m, "slope_deg", where, nonnegative=False)
        if not -90.0 < deg < 90.0:
            raise RuleInputError(join(where, "slope_deg"), f"slope_deg must be between -90 and 90, got {deg:g}")
        return pct_from_deg(deg)
    return number(m, "slope_pct", where, nonnegative=False)


@dataclasses.dataclass(frozen=True, kw_only=True)
class SteepSlopeResult(RuleResult):
    """Result of ``steep_slope`` (Erosion control D): ``undisturbed_required``."""

    undisturbed_required: bool
    soil_unit: str
    slope_pct: float


def _steep_slope(m: Mapping, where: str) -> SteepSlopeResult:
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

    >>> steep_slope("SsF", 30.0).undisturbed_required, steep_slope("Sr", 30.01).undisturbed_required
    (False, True)
    """
    return _steep_slope({"soil_unit": soil_unit, "slope_pct": slope_pct}, "")


def steep_slope_from_request(input: Mapping, settings: Mapping) -> SteepSlopeResult:
    """``steep_slope`` from the contract's ``input`` (``slope_pct`` or ``slope_deg``)."""
    return _steep_slope(input, "input")


@dataclasses.dataclass(frozen=True, kw_only=True)
class ErodibleSlopeResult(RuleResult):
    """Result of ``erodible_slope`` (Erosion control A.3): ``erodible``."""

    erodible: bool
    slope_pct: float


def _erodible(m: Mapping, where: str) -> ErodibleSlopeResult:
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

    >>> erodible_slope(4.0).erodible, erodible_slope(4.01).erodible
    (False, True)
    """
    return _erodible({"slope_pct": slope_pct}, "")


def erodible_slope_from_request(input: Mapping, settings: Mapping) -> ErodibleSlopeResult:
    """``erodible_slope`` from the contract's ``input`` (``slope_pct`` or ``slope_deg``)."""
    return _erodible(input, "input")
