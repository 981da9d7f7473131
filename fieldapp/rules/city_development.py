"""The city chapter, Woodlands D.2: rule ``development_area``.

D.2.a: 20 ft beyond foundations; D.2.b: 5 ft beyond parking, septic areas, utility trenches and
drives, as true round-cornered buffers (``round-buffer``; edges read as lines or polygons,
``edge-shape``: an edge's ``shape`` says which the crew drew; without it a closed ring, or a
parking or septic area of 3 or more points, is a polygon, and an open driveway or utility line is
a line -- an open driveway edge of 3 points is never closed into a triangle).
Coordinates are [x_ft, y_ft] in a projected CRS in the site's foot (see
:mod:`fieldapp.rules`); shapely does the geometry. The rule and its result are importable
from :mod:`fieldapp.rules.city` as before.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import shapely

from fieldapp.rules.city_tables import CITE, EDGE_LIMIT_FT, EDGE_SHAPE, FOUNDATION_LIMIT_FT, QUAD_SEGS, ROUND_BUFFER
from fieldapp.rules.compare import at_most
from fieldapp.rules.results import RuleInputError, RuleResult, Status, from_request, ordered
from fieldapp.rules.validate import choice, finite_result, join, mapping, point_ft, points_ft, polygon_ft, sequence

__all__ = ["DevelopmentAreaResult", "development_area", "development_area_from_request"]


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
    edge_shapes : tuple of str
        Per edge: ``line`` (buffered 5 ft along it) or ``polygon`` (5 ft around the area), as
        read (``edge-shape``).
    """

    envelope_area_sqft: float
    inside: tuple[bool, ...]
    distances_ft: tuple[float, ...]
    edge_shapes: tuple[str, ...] = ()


#: Edge shapes: what the crew drew (``edges[i].shape``).
EDGE_SHAPES = ("line", "polygon")


def edge_geometry(e: Mapping[str, Any], w: str) -> tuple[str, shapely.LineString | shapely.Polygon]:
    """One D.2.b edge as ("line" | "polygon", geometry) (``edge-shape``).

    ``shape`` given governs (a line needs 2 or more points, a polygon 3 or more). Without it: a
    ring whose first and last points are the same, or a parking or septic area ("parking area",
    "septic system area") of 3 or more points, is a polygon; any other edge (a driveway or
    utility line whose ends differ, or 2 points) is a line.

    Raises
    ------
    RuleInputError
        Unknown kind or shape, too few points, an invalid polygon.
    """
    kind = choice(e, "kind", w, ("driveway", "parking", "septic", "utility"))
    shape = choice(e, "shape", w, EDGE_SHAPES, required=False)
    if "coordinates" not in e:
        raise RuleInputError(join(w, "coordinates"), "missing required key 'coordinates'")
    pts = points_ft(e["coordinates"], join(w, "coordinates"))
    if len(pts) < 2:
        raise RuleInputError(join(w, "coordinates"), f"an edge needs 2 or more points, got {len(pts)}")
    closed = len(pts) > 3 and pts[0] == pts[-1]
    if shape is None:
        shape = "polygon" if len(pts) >= 3 and (closed or kind in ("parking", "septic")) else "line"
    if shape == "line":
        return "line", shapely.LineString(pts)
    if len(pts) < 3:
        raise RuleInputError(join(w, "coordinates"), f"a polygon edge needs 3 or more points, got {len(pts)}")
    return "polygon", polygon_ft(pts[:-1] if closed else pts, join(w, "coordinates"))


def _development_area(m: Mapping[str, Any], where: str) -> DevelopmentAreaResult:
    used = {ROUND_BUFFER}
    fw = join(where, "foundations")
    foundations = [polygon_ft(points_ft(r, join(fw, i)), join(fw, i))
                   for i, r in enumerate(sequence(m, "foundations", where))]
    edges: list[shapely.LineString | shapely.Polygon] = []
    shapes: list[str] = []
    edge_items = sequence(m, "edges", where, required=False) or []
    ew = join(where, "edges")
    for i, e in enumerate(edge_items):
        w = join(ew, i)
        shape, geom = edge_geometry(mapping(e, w), w)
        used.add(EDGE_SHAPE)
        shapes.append(shape)
        edges.append(geom)
    test_points = [
        point_ft(p, join(join(where, "test_points"), i))
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
        interpretations=ordered(used, (ROUND_BUFFER, EDGE_SHAPE)),
        envelope_area_sqft=envelope_area,
        inside=tuple(inside),
        distances_ft=tuple(float(d) for d in distances),
        edge_shapes=tuple(shapes),
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
        ``{"kind": "driveway" | "parking" | "septic" | "utility", "coordinates": [...],
        "shape": "line" | "polygon"}`` (``shape`` optional: :func:`edge_geometry`,
        ``edge-shape``).
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


#: ``development_area`` from the contract's ``input``.
development_area_from_request = from_request(_development_area, "development_area")
