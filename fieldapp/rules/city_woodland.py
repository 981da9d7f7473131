"""The city chapter, Woodlands A, C and E: rules ``woodland.class`` and ``woodland.mitigation``.

A.2 mature woodland: 30 % or more largely deciduous canopy of trees of 10 in caliper or
greater, or a grove of 8 or more deciduous trees of 18 in caliper or greater. A.3 young
woodland: 70 % or more canopy of trees of 3 in caliper or greater. C protection 75 % / 50 %.
E mitigation: protection not below 55 % / 25 % (E.1); plantings per acre (E.4 a-e).

Readings: ``largely-deciduous``, ``dbh-for-standing-trees``, ``grove``, ``canopy-sample-proportion``
(woodland class); ``mitigation-area`` (mitigation). See :mod:`fieldapp.rules.city`, where the
rules and results are importable as before.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from decimal import ROUND_CEILING, Decimal
from typing import Any

from fieldapp.rules.city_tables import (
    CANOPY_SAMPLE_PROPORTION,
    CITE,
    DBH_FOR_STANDING_TREES,
    DEFAULT_LARGELY_DECIDUOUS_PCT,
    GROVE,
    GROVE_DBH_IN,
    GROVE_TREES,
    LARGELY_DECIDUOUS,
    MATURE_CANOPY_PCT,
    MITIGATION_AREA,
    PLANTINGS_PER_ACRE,
    PROTECTION,
    YOUNG_CANOPY_PCT,
)
from fieldapp.rules.compare import at_least, less_than, more_than
from fieldapp.rules.results import RuleInputError, RuleResult, Status, from_request, ordered
from fieldapp.rules.validate import choice, finite_result, join, mapping, number, one_of, sequence

__all__ = [
    "MitigationResult",
    "Plantings",
    "WoodlandClassResult",
    "woodland_class",
    "woodland_class_from_request",
    "woodland_mitigation",
    "woodland_mitigation_from_request",
]


@dataclasses.dataclass(frozen=True, kw_only=True)
class WoodlandClassResult(RuleResult):
    """Result of ``woodland.class`` (Woodlands A.2, A.3, C).

    Attributes
    ----------
    class_ : str or None
        ``mature``, ``young`` or ``none`` (JSON key ``class``); None while ``needs_data``.
    basis : str or None
        ``canopy`` or ``grove`` for a mature woodland, ``canopy`` for a young one (Woodlands
        A.3 is a canopy test); None for class none or while ``needs_data``.
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


def _count(m: Mapping[str, Any], key: str, where: str) -> int:
    """A dot-grid count: a whole number ≥ 0 (``3.0`` is accepted; ``3.5`` is an error)."""
    v = number(m, key, where)
    if v != int(v):
        raise RuleInputError(join(where, key), f"{key} must be a whole number of points, got {v:g}")
    return int(v)


def _canopy_sample(m: Mapping[str, Any], where: str) -> tuple[float, float | None, float]:
    """``canopy-sample-proportion``: (canopy_10in_pct, deciduous_share_pct, canopy_3in_pct)."""
    method = choice(m, "method", where, ("dot_grid", "line_intercept"))
    total: float  # points (whole numbers) or ft
    c10: float
    dec: float
    c3: float
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


def _canopy_percentages(m: Mapping[str, Any], where: str) -> tuple[float, float | None, float, bool]:
    """The canopy as given: (canopy_10in_pct, deciduous_share_pct or None, canopy_3in_pct,
    from a sample), from the three percentages or from ``canopy_sample``
    (``canopy-sample-proportion``)."""
    if one_of(m, ("canopy_10in_pct", "canopy_sample"), where) == "canopy_sample":
        c10, share, c3 = _canopy_sample(mapping(m["canopy_sample"], join(where, "canopy_sample")),
                                        join(where, "canopy_sample"))
        return c10, share, c3, True
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
    return c10, share, c3, False


def _grove_trees(trees: Sequence[Any], where: str) -> int:
    """``grove``, ``dbh-for-standing-trees``: how many of the grove's trees are deciduous with
    a DBH of 18.0 in or more; ``where`` is the key of the list."""
    qualifying = 0
    for i, t in enumerate(trees):
        t = mapping(t, join(where, i))
        dbh = number(t, "dbh_in", join(where, i), unit=" in")
        habit = choice(t, "leaf_habit", join(where, i), ("deciduous", "evergreen"))
        if habit == "deciduous" and at_least(dbh, GROVE_DBH_IN):
            qualifying += 1
    return qualifying


def _woodland_class(m: Mapping[str, Any], where: str, settings: Mapping[str, Any]) -> WoodlandClassResult:
    """``woodland.class`` on a request mapping (see :func:`woodland_class`); ``where`` is "" for
    the typed API (settings keys then have no prefix) or ``"input"``."""
    sw = "settings" if where else ""
    largely = number(settings, "largely_deciduous_pct", sw, required=False, maximum=100.0, unit=" %")
    if largely is None:
        largely = DEFAULT_LARGELY_DECIDUOUS_PCT
    c10, share, c3, sampled = _canopy_percentages(m, where)
    used: set[str] = {CANOPY_SAMPLE_PROPORTION} if sampled else set()
    trees = sequence(m, "trees", where)
    qualifying = _grove_trees(trees, join(where, "trees"))

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
        if trees:  # no trees given: the grove reading played no part
            used.update((GROVE, DBH_FOR_STANDING_TREES))
        if qualifying >= GROVE_TREES:
            cls, basis, cite = "mature", "grove", f"{CITE}, Woodlands A.2"
        elif canopy_unknown:
            cls, basis, cite = None, None, f"{CITE}, Woodlands A.2"
            status = Status.NEEDS_DATA
            step = "estimate the deciduous share of the canopy of trees of 10 in caliper or greater"
        elif at_least(c3, YOUNG_CANOPY_PCT):
            cls, basis, cite = "young", "canopy", f"{CITE}, Woodlands A.3"
        else:
            cls, basis, cite = "none", None, f"{CITE}, Woodlands A.2, A.3"
    return WoodlandClassResult(
        rule="woodland.class",
        status=status,
        citation=cite,
        interpretations=ordered(used, (LARGELY_DECIDUOUS, CANOPY_SAMPLE_PROPORTION, DBH_FOR_STANDING_TREES, GROVE)),
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


def woodland_class_from_request(input: Mapping[str, Any], settings: Mapping[str, Any]) -> WoodlandClassResult:
    """``woodland.class`` from the contract's ``input`` (settings: ``largely_deciduous_pct``).

    Raises
    ------
    RuleInputError
        As :func:`woodland_class`; keys start ``input.`` or ``settings.``.
    """
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
        The planting for ``mitigation_area_ac`` (E.4); below the floor it does not make the
        disturbance permitted.
    protection_pct, floor_pct : float
    retain_more_ac : float
        Below the floor (E.1): acres more to retain to reach it, ac; else 0.
    note : str or None
        Below the floor: that the disturbance is not permitted and how much more to retain.
    """

    retained_pct: float | None
    permitted: bool
    mitigation_required: bool
    mitigation_area_ac: float
    plantings: Plantings
    protection_pct: float
    floor_pct: float
    retain_more_ac: float = 0.0
    note: str | None = None


def _dec(x: float) -> Decimal:
    """The decimal the number was written as (shortest round-trip repr: 1.6 -> Decimal('1.6'))."""
    return Decimal(repr(float(x)))


def _woodland_mitigation(m: Mapping[str, Any], where: str) -> MitigationResult:
    cls = choice(m, "class", where, ("mature", "young", "none"))
    area = number(m, "woodland_area_ac", where, positive=cls != "none", unit=" ac")
    retained = number(m, "retained_area_ac", where, unit=" ac")
    if more_than(retained, area):
        raise RuleInputError(join(where, "retained_area_ac"),
                             f"the retained area ({retained:g} ac) is more than the woodland's own area "
                             f"({area:g} ac): a plan cannot retain more woodland than there is")
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
    assert retained_pct is not None  # the area is more than 0 (positive) for a mature or young woodland
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
    more_ac, note = 0.0, None
    if not permitted:
        # E.1: "not below 55 % / 25 %": the floor in acres less what is retained (exact decimals).
        more_ac = float(Decimal(repr(floor)) / 100 * _dec(area) - _dec(retained))
        note = (f"Retaining {retained_pct:.1f} % of the {cls} woodland is below the {floor:g} % floor "
                f"(Woodlands E.1): the disturbance is not permitted, and mitigation planting does not "
                f"make it so. Retain {more_ac:.2f} ac more (at least {more_ac + retained:.2f} ac of "
                f"{area:g} ac).")
    return MitigationResult(
        rule="woodland.mitigation",
        status=Status.DETERMINED,
        citation=(f"{CITE}, Woodlands E.1" if not permitted
                  else f"{CITE}, Woodlands E" if required else f"{CITE}, Woodlands C"),
        interpretations=(MITIGATION_AREA,),
        retained_pct=retained_pct,
        permitted=permitted,
        mitigation_required=required,
        mitigation_area_ac=mit_ac,
        plantings=plantings,
        protection_pct=protection,
        floor_pct=floor,
        retain_more_ac=more_ac,
        note=note,
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
    return _woodland_mitigation({"class": woodland_class, "woodland_area_ac": woodland_area_ac,
                        "retained_area_ac": retained_area_ac}, "")


#: ``woodland.mitigation`` from the contract's ``input``.
woodland_mitigation_from_request = from_request(_woodland_mitigation, "woodland.mitigation")
