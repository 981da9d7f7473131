"""The city chapter, General D and Woodlands D, D.1, D.4: rules ``resources.overlap`` and
``development_area.limit`` (issue 29).

General D
    "If two or more resources subject to protection are present on the same area of land, only
    the most restrictive provisions of this chapter shall apply." :func:`resource_overlap`
    finds, from the recorded polygons, every piece of land shared by two or more resources and
    names the provision that governs it, with the piece's area.
Woodlands D, D.1, D.4
    The development area is the land disturbed by construction and the adjoining street
    right-of-way; all rights-of-way are in it; woodland inside a right-of-way is not counted as
    protected; the development area is limited by the protection level of the whole parcel
    (Woodlands C: 75 % of mature, 50 % of young woodland kept). :func:`development_limit`.

Coordinates are [x_ft, y_ft] rings in a projected CRS in the site's foot (see
:mod:`fieldapp.rules`); areas are square feet; shapely does the geometry.

Readings (named in :mod:`fieldapp.rules.readings`):

``most-restrictive-overlap``
    Each provision's share: wetland 100 % undisturbed (Wetlands C), Sr / SsF land over 30 %
    100 % undisturbed (Erosion control D), mature woodland 75 % and young woodland 50 % left
    undisturbed (Woodlands C), drainageway 75 % open space (Drainageways C). The larger share
    governs the shared land; at equal shares "left undisturbed" is more restrictive than "open
    space" (Drainageways D lets open space be disturbed for an approved storm water system), so
    mature woodland governs a drainageway; wetland and steep land, both 100 % undisturbed, are
    both named. The land is cut into the pieces covered by the same set of resources (a piece
    under three resources is one overlap of three, never counted in three pairs).
``all-rights-of-way``
    Every right-of-way polygon given is in the development area whole (D.1 "all rights-of-way");
    the limit is the area of the parcel with its rights-of-way, less 75 % of its mature and 50 %
    of its young woodland; each class must keep that share outside the development area (so
    woodland in a right-of-way is never counted as kept).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Any

import shapely

from fieldapp.rules.city_tables import CITE, PROTECTION
from fieldapp.rules.compare import at_least, at_most
from fieldapp.rules.results import RuleInputError, RuleResult, Status, from_request
from fieldapp.rules.validate import choice, finite_result, join, mapping, points_ft, polygon_ft, sequence

__all__ = [
    "DevelopmentLimitResult",
    "OverlapResult",
    "PROVISIONS",
    "development_limit",
    "development_limit_from_request",
    "resource_overlap",
    "resource_overlap_from_request",
]

MOST_RESTRICTIVE_OVERLAP = "most-restrictive-overlap"
ALL_RIGHTS_OF_WAY = "all-rights-of-way"

#: Resource kind -> (share kept %, "undisturbed" | "open space", the provision).
PROVISIONS: dict[str, tuple[float, str, str]] = {
    "wetland": (100.0, "undisturbed", f"{CITE}, Wetlands C"),
    "steep_slope": (100.0, "undisturbed", f"{CITE}, Erosion control D"),
    "woodland_mature": (PROTECTION["mature"][0], "undisturbed", f"{CITE}, Woodlands C"),
    "drainageway": (75.0, "open space", f"{CITE}, Drainageways C"),
    "woodland_young": (PROTECTION["young"][0], "undisturbed", f"{CITE}, Woodlands C"),
}
#: Overlaps smaller than this (sq ft) are slivers of two boundaries drawn along each other.
SLIVER_SQFT = 1e-6


@dataclasses.dataclass(frozen=True, kw_only=True)
class OverlapResult(RuleResult):
    """Result of ``resources.overlap`` (General D; ``most-restrictive-overlap``).

    Attributes
    ----------
    overlaps : tuple of dict
        One per set of resources sharing land: ``resources`` (their input indices), ``kinds``,
        ``labels``, ``area_sqft`` (the shared land), ``governing`` (the kinds whose provision
        applies), ``provision`` (their citation), ``required_pct`` and ``requirement``
        (``undisturbed`` / ``open space``) of the governing provision.
    overlap_area_sqft : float
        All the land under two or more resources, sq ft.
    """

    overlaps: tuple[dict[str, Any], ...]
    overlap_area_sqft: float


@dataclasses.dataclass(frozen=True, kw_only=True)
class DevelopmentLimitResult(RuleResult):
    """Result of ``development_area.limit`` (Woodlands D, D.1, D.4; ``all-rights-of-way``).

    Attributes
    ----------
    development_area_sqft : float
        Union of the disturbed areas and every right-of-way, sq ft.
    right_of_way_sqft : float
        Union of the rights-of-way, sq ft.
    parcel_area_sqft : float
        The parcel with its rights-of-way, sq ft.
    max_development_area_sqft : float
        Parcel area less the woodland each class must keep, sq ft.
    within_limit : bool
        ``development_area_sqft`` at most ``max_development_area_sqft``.
    woodland : tuple of dict
        Per class present: ``class``, ``woodland_sqft``, ``in_right_of_way_sqft`` (not counted
        as protected), ``kept_sqft`` (outside the development area), ``kept_pct``,
        ``required_pct``, ``meets`` (bool).
    complies : bool
        Within the limit and every class keeps its share.
    """

    development_area_sqft: float
    right_of_way_sqft: float
    parcel_area_sqft: float
    max_development_area_sqft: float
    within_limit: bool
    woodland: tuple[dict[str, Any], ...]
    complies: bool


def _ring(m: Mapping[str, Any], key: str, where: str) -> shapely.Polygon:
    if key not in m:
        raise RuleInputError(join(where, key), f"missing required key '{key}'")
    return polygon_ft(points_ft(m[key], join(where, key)), join(where, key))


def _rank(kind: str) -> tuple[float, int]:
    pct, what, _ = PROVISIONS[kind]
    return pct, 1 if what == "undisturbed" else 0


def _resource_overlap(m: Mapping[str, Any], where: str) -> OverlapResult:
    rw = join(where, "resources")
    items = sequence(m, "resources", where)
    kinds: list[str] = []
    labels: list[str] = []
    polys: list[shapely.Polygon] = []
    for i, item in enumerate(items):
        w = join(rw, i)
        r = mapping(item, w)
        kinds.append(choice(r, "kind", w, tuple(PROVISIONS)))
        label = r.get("label")
        if label is not None and not isinstance(label, str):
            raise RuleInputError(join(w, "label"), "label must be a string")
        labels.append(label or f"{kinds[-1].replace('_', ' ')} {i + 1}")
        polys.append(_ring(r, "polygon_ft", w))
    pieces: dict[tuple[int, ...], float] = {}
    if len(polys) > 1:
        # the arrangement of every boundary: each face lies under one fixed set of resources
        faces = shapely.get_parts(shapely.polygonize([shapely.union_all([p.boundary for p in polys])]))
        for face in faces:
            inside = face.representative_point()
            under = tuple(i for i, p in enumerate(polys) if p.contains(inside))
            if len(under) > 1 and face.area > SLIVER_SQFT:
                pieces[under] = pieces.get(under, 0.0) + float(face.area)
    overlaps = []
    for under, area in sorted(pieces.items()):
        best = max(_rank(kinds[i]) for i in under)
        governing = sorted({kinds[i] for i in under if _rank(kinds[i]) == best}, key=list(PROVISIONS).index)
        pct, what, _ = PROVISIONS[governing[0]]
        overlaps.append({
            "resources": list(under), "kinds": [kinds[i] for i in under], "labels": [labels[i] for i in under],
            "area_sqft": finite_result(area, rw, "an overlap area"),
            "governing": governing,
            "provision": "; ".join(dict.fromkeys(PROVISIONS[k][2] for k in governing)),
            "required_pct": pct, "requirement": what,
        })
    total = math.fsum(pieces.values())
    return OverlapResult(
        rule="resources.overlap", status=Status.DETERMINED, citation=f"{CITE}, General D",
        interpretations=(MOST_RESTRICTIVE_OVERLAP,),
        overlaps=tuple(overlaps), overlap_area_sqft=float(total),
    )


def resource_overlap(resources: Sequence[Mapping[str, Any]]) -> OverlapResult:
    """Rule ``resources.overlap``: where resources share land, the provision that governs it
    (General D: "only the most restrictive provisions ... shall apply";
    ``most-restrictive-overlap``).

    Parameters
    ----------
    resources : sequence of mapping
        ``{"kind": one of PROVISIONS, "label"?: str, "polygon_ft": ring of [x_ft, y_ft]}``.

    Returns
    -------
    OverlapResult

    Raises
    ------
    RuleInputError
        Unknown kind, an invalid polygon, non-finite coordinates.

    Examples
    --------
    >>> r = resource_overlap([
    ...     {"kind": "woodland_young", "polygon_ft": [[0, 0], [100, 0], [100, 100], [0, 100]]},
    ...     {"kind": "drainageway", "polygon_ft": [[50, 0], [150, 0], [150, 100], [50, 100]]}])
    >>> r.overlaps[0]["area_sqft"], r.overlaps[0]["governing"], r.overlaps[0]["required_pct"]
    (5000.0, ['drainageway'], 75.0)
    """
    return _resource_overlap({"resources": list(resources)}, "")


#: ``resources.overlap`` from the contract's ``input``.
resource_overlap_from_request = from_request(_resource_overlap, "resources.overlap")


def _polys(m: Mapping[str, Any], key: str, where: str, required: bool = False) -> list[shapely.Polygon]:
    items = sequence(m, key, where, required=required) or []
    kw = join(where, key)
    return [polygon_ft(points_ft(r, join(kw, i)), join(kw, i)) for i, r in enumerate(items)]


def _area(geom: Any) -> float:
    return float(geom.area) if geom is not None else 0.0


def _development_limit(m: Mapping[str, Any], where: str) -> DevelopmentLimitResult:
    parcel = _ring(m, "parcel_ft", where)
    rows = _polys(m, "rights_of_way", where)
    disturbed = _polys(m, "disturbed", where)
    ww = join(where, "woodlands")
    woods: dict[str, list[shapely.Polygon]] = {"mature": [], "young": []}
    for i, item in enumerate(sequence(m, "woodlands", where, required=False) or []):
        w = join(ww, i)
        r = mapping(item, w)
        cls = choice(r, "class", w, ("mature", "young", "none"))
        poly = _ring(r, "polygon_ft", w)
        if cls != "none":
            woods[cls].append(poly)
    row = shapely.union_all(rows) if rows else shapely.Polygon()
    development = shapely.union_all(disturbed + rows) if (disturbed or rows) else shapely.Polygon()
    land = shapely.union_all([parcel, *rows])
    rows_out = []
    required_total = 0.0
    meets_all = True
    for cls, polys in woods.items():
        if not polys:
            continue
        wood = shapely.intersection(shapely.union_all(polys), land)
        wood_sqft = _area(wood)
        pct = PROTECTION[cls][0]
        required = pct / 100.0 * wood_sqft
        kept = _area(shapely.difference(wood, development))
        kept_pct = 100.0 * kept / wood_sqft if wood_sqft > 0 else 100.0
        meets = at_least(kept_pct, pct)
        meets_all = meets_all and meets
        required_total += required
        rows_out.append({"class": cls, "woodland_sqft": wood_sqft,
                         "in_right_of_way_sqft": _area(shapely.intersection(wood, row)),
                         "kept_sqft": kept, "kept_pct": kept_pct, "required_pct": pct,
                         "required_sqft": required, "meets": meets})
    dev_sqft = finite_result(_area(development), join(where, "disturbed"), "the development area")
    land_sqft = finite_result(_area(land), join(where, "parcel_ft"), "the parcel area")
    max_dev = land_sqft - required_total
    within = at_most(dev_sqft, max_dev)
    return DevelopmentLimitResult(
        rule="development_area.limit", status=Status.DETERMINED,
        citation=f"{CITE}, Woodlands D, D.1, D.4", interpretations=(ALL_RIGHTS_OF_WAY,),
        development_area_sqft=dev_sqft, right_of_way_sqft=_area(row), parcel_area_sqft=land_sqft,
        max_development_area_sqft=max_dev, within_limit=within, woodland=tuple(rows_out),
        complies=within and meets_all,
    )


def development_limit(parcel_ft: Sequence[Sequence[float]], *,
                      rights_of_way: Sequence[Sequence[Sequence[float]]] = (),
                      disturbed: Sequence[Sequence[Sequence[float]]] = (),
                      woodlands: Sequence[Mapping[str, Any]] = ()) -> DevelopmentLimitResult:
    """Rule ``development_area.limit``: the development area (land disturbed by construction
    and every right-of-way) against what the parcel's woodland protection leaves (Woodlands D,
    D.1, D.4 with C; ``all-rights-of-way``).

    Parameters
    ----------
    parcel_ft : ring of [x_ft, y_ft]
        The parcel boundary.
    rights_of_way : sequence of rings
        The street rights-of-way adjoining (and within) the development.
    disturbed : sequence of rings
        The land disturbed by construction (graded areas, buildings, drives, parking, septic).
    woodlands : sequence of mapping
        ``{"class": "mature" | "young" | "none", "polygon_ft": ring}``.

    Returns
    -------
    DevelopmentLimitResult

    Raises
    ------
    RuleInputError
        An invalid polygon, an unknown class, non-finite coordinates.

    Examples
    --------
    >>> r = development_limit([[0, 0], [200, 0], [200, 100], [0, 100]],
    ...     disturbed=[[[0, 0], [50, 0], [50, 100], [0, 100]]],
    ...     woodlands=[{"class": "mature", "polygon_ft": [[0, 0], [200, 0], [200, 100], [0, 100]]}])
    >>> r.development_area_sqft, r.max_development_area_sqft, r.within_limit
    (5000.0, 5000.0, True)
    """
    return _development_limit({"parcel_ft": parcel_ft, "rights_of_way": list(rights_of_way),
                               "disturbed": list(disturbed), "woodlands": list(woodlands)}, "")


#: ``development_area.limit`` from the contract's ``input``.
development_limit_from_request = from_request(_development_limit, "development_area.limit")
