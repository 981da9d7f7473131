"""Which stretches of a wetland boundary its paired data points support (no Qt).

The Corps places a wetland boundary between paired data points, one in the wetland and one in
the upland (Corps of Engineers Wetland Delineation Manual, 1987, routine determination; the
Regional Supplements' data form is filled in at each point). One pair does not speak for the
whole of a long boundary, so support is judged along the boundary, not per boundary.

The reading used here (stated so a reviewer can check it):

- A pair *supports* the boundary where the straight line between its two points crosses it:
  the whole boundary segment crossed (the straight piece between two walked vertices) and
  :data:`REACH_FT` (100 ft) of boundary either side of the crossing, measured along the
  boundary, whichever reaches further. 100 ft either side gives a pair every 200 ft of
  boundary, a spacing often asked of delineations; it is a field practice, not a number of
  the Manual or the Supplements.
- Only a *good* pair supports: the wetland point inside with a form determining wetland,
  the upland point outside with a form determining not wetland
  (:func:`fieldapp.checks.support.support_of` names the ones that contradict the boundary).
- Only the outer boundary is judged (an upland island inside the wetland is not).
- The rest of the boundary is listed as *unsupported stretches*, each by the compass side it
  faces (outward, by grid north of the site CRS: ``north-east``) and its ground length in feet,
  with where it starts and ends measured along the boundary from the walk's first vertex, in
  the direction walked.
  A run that turns a corner is split at the corner (a square's three bare sides are three
  stretches); a piece shorter than :data:`MIN_PIECE_FT` facing another way (GNSS jitter on a
  walked line) joins its neighbour, and a curving shore (neighbours one compass sector apart)
  stays one stretch named by the way it faces overall.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from shapely.geometry import LineString, Point, Polygon
from shapely.geometry.polygon import orient

__all__ = ["REACH_FT", "MIN_PIECE_FT", "Stretch", "SegmentSupport", "segment_support", "ft_per_unit", "FACINGS"]

#: Boundary supported either side of a pair's crossing, measured along the boundary (ft).
REACH_FT = 100.0
#: A piece of an unsupported run shorter than this (ft) facing another way joins its neighbour.
MIN_PIECE_FT = 15.0
#: The eight compass sides, clockwise from north (45 degree sectors).
FACINGS = ("north", "north-east", "east", "south-east", "south", "south-west", "west", "north-west")


@dataclass(frozen=True)
class Stretch:
    """A stretch of boundary with no pair: the side it faces, its ground length (ft), where it
    starts and ends along the boundary from the walk's first vertex (ft), and its points
    (site CRS units, for the map)."""

    facing: str
    length_ft: float
    from_ft: float
    to_ft: float
    coords: tuple[tuple[float, float], ...]

    def words(self) -> str:
        """``the north-east 180 ft``."""
        return f"the {self.facing} {self.length_ft:,.0f} ft"


@dataclass(frozen=True)
class SegmentSupport:
    """The boundary's ground length (ft), how much of it the good pairs support (ft), and the
    unsupported stretches in order along the boundary."""

    perimeter_ft: float
    supported_ft: float
    unsupported: tuple[Stretch, ...]


def _facing(dx: float, dy: float) -> str:
    """The compass side faced by a counter-clockwise boundary piece running (dx, dy): its
    outward normal is (dy, -dx)."""
    az = math.degrees(math.atan2(dy, -dx)) % 360.0    # azimuth of (nx, ny) = atan2(nx, ny)
    return FACINGS[int(((az + 22.5) % 360.0) // 45.0)]


def _union(intervals: list[tuple[float, float]], perim: float) -> list[tuple[float, float]]:
    """Intervals along a ring of length ``perim`` (may run past 0 or ``perim``), wrapped into
    [0, perim] and merged."""
    flat: list[tuple[float, float]] = []
    for a, b in intervals:
        if b - a >= perim:
            return [(0.0, perim)]
        a_mod = a % perim
        b_mod = a_mod + (b - a)
        if b_mod <= perim:
            flat.append((a_mod, b_mod))
        else:
            flat += [(a_mod, perim), (0.0, b_mod - perim)]
    flat.sort()
    out: list[tuple[float, float]] = []
    for a, b in flat:
        if out and a <= out[-1][1] + 1e-9:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _pieces(coords: Sequence[tuple[float, float]], cum: Sequence[float], a: float, b: float
            ) -> list[tuple[str, float, float, list[tuple[float, float]]]]:
    """The ring between distances ``a`` < ``b`` (grid) cut at its vertices: (facing, start, end,
    points) per segment it crosses."""
    out = []
    for i in range(len(coords) - 1):
        s0, s1 = cum[i], cum[i + 1]
        lo, hi = max(a, s0), min(b, s1)
        if hi - lo <= 1e-9:
            continue
        (x0, y0), (x1, y1) = coords[i], coords[i + 1]
        seg = s1 - s0

        def at(s: float, x0: float = x0, y0: float = y0, x1: float = x1, y1: float = y1,
               s0: float = s0, seg: float = seg) -> tuple[float, float]:
            t = (s - s0) / seg
            return (x0 + t * (x1 - x0), y0 + t * (y1 - y0))

        out.append((_facing(x1 - x0, y1 - y0), lo, hi, [at(lo), at(hi)]))
    return out


def ft_per_unit(frame: Any, polygon: Polygon) -> float:
    """Ground feet per site CRS unit along ``polygon``'s boundary (:meth:`fieldapp.geo.
    SiteFrame.length_ft`: the CRS unit in feet of the site's foot, over the scale factor)."""
    grid = float(polygon.exterior.length)
    return float(frame.length_ft(polygon.exterior)) / grid if grid > 0 else float(frame.to_ft(1.0))


def _merge_pieces(pieces: list[list[Any]], min_piece: float) -> list[list[Any]]:
    """Pieces ([facing, start, end, points], in order) with neighbours facing the same way
    joined, and the shortest piece under ``min_piece`` (grid units) joined to its longer
    neighbour (taking its facing), until none is left (one piece may stay short)."""
    out: list[list[Any]] = []
    while True:
        out = []
        for p in pieces:
            if out and out[-1][0] == p[0]:
                out[-1] = [p[0], out[-1][1], p[2], out[-1][3] + p[3][1:]]
            else:
                out.append(list(p))
        short = [k for k, p in enumerate(out) if p[2] - p[1] < min_piece]
        if len(out) < 2 or not short:
            return out
        k = min(short, key=lambda i: out[i][2] - out[i][1])
        before = out[k - 1][2] - out[k - 1][1] if k > 0 else -1.0
        after = out[k + 1][2] - out[k + 1][1] if k + 1 < len(out) else -1.0
        out[k][0] = out[k - 1][0] if before >= after else out[k + 1][0]
        pieces = out


def _merge_bends(pieces: list[list[Any]]) -> list[list[Any]]:
    """Neighbouring pieces facing one compass sector apart joined when the joined piece faces
    the way one of them does (its facing: the facing of its chord, which is the facing of its
    length-weighted outward normal): a curving shore reads as one stretch, a square's corner
    (two sectors) stays a split."""
    out = [list(p) for p in pieces]
    k = 0
    while k + 1 < len(out):
        a, b = out[k], out[k + 1]
        ia, ib = FACINGS.index(a[0]), FACINGS.index(b[0])
        if min((ia - ib) % 8, (ib - ia) % 8) == 1:
            pts = a[3] + b[3][1:]
            facing = _facing(pts[-1][0] - pts[0][0], pts[-1][1] - pts[0][1])
            if facing in (a[0], b[0]):
                out[k:k + 2] = [[facing, a[1], b[2], pts]]
                k = max(0, k - 1)
                continue
        k += 1
    return out


def segment_support(polygon: Polygon, pairs: Sequence[tuple[tuple[float, float], tuple[float, float]]],
                    ft_per_unit: float) -> SegmentSupport:
    """The stretches of ``polygon``'s outer boundary that the good ``pairs`` ((wetland x, y),
    (upland x, y), site CRS units) support, and the ones they do not (module docstring).

    ``ft_per_unit`` is ground feet per site CRS unit (the CRS unit in feet, reduced by the
    scale factor at the wetland: :func:`ft_per_unit`). Lengths are rounded by the caller.
    """
    ring_poly = orient(polygon, sign=1.0)          # counter-clockwise: outward normal on the right
    coords = [(float(x), float(y)) for x, y in ring_poly.exterior.coords]
    ring = LineString(coords)
    cum = [0.0]
    for (x0, y0), (x1, y1) in zip(coords, coords[1:], strict=False):
        cum.append(cum[-1] + math.hypot(x1 - x0, y1 - y0))
    perim = cum[-1]
    if perim <= 0.0:
        return SegmentSupport(0.0, 0.0, ())
    per_ft = ft_per_unit
    reach = REACH_FT / per_ft
    # where the walk started (its first vertex), to measure positions from it
    start = ring.project(Point(polygon.exterior.coords[0]))
    walked_cw = not polygon.exterior.is_ccw
    covered: list[tuple[float, float]] = []
    for wet, up in pairs:
        hit = LineString([wet, up]).intersection(ring)
        pts = [hit] if isinstance(hit, Point) else [g for g in getattr(hit, "geoms", []) if isinstance(g, Point)]
        for p in pts:
            s = ring.project(p)
            i = max(0, min(len(cum) - 2, next((k for k in range(len(cum) - 1) if cum[k + 1] >= s), 0)))
            covered.append((min(cum[i], s - reach), max(cum[i + 1], s + reach)))
    have = _union(covered, perim)
    gaps: list[tuple[float, float]] = []
    pos = 0.0
    for a, b in have:
        if a > pos + 1e-9:
            gaps.append((pos, a))
        pos = b
    if pos < perim - 1e-9:
        gaps.append((pos, perim))
    # a gap ending at the ring's end and one starting at 0 are one run (ring coordinates start
    # wherever orient() put them)
    runs = [(a, b) for a, b in gaps]
    if len(runs) >= 2 and runs[0][0] <= 1e-9 and runs[-1][1] >= perim - 1e-9:
        runs = [(runs[-1][0], runs[0][1] + perim)] + runs[1:-1]
    stretches: list[Stretch] = []
    doubled = coords + coords[1:]
    cum2 = cum + [perim + c for c in cum[1:]]
    min_piece = MIN_PIECE_FT / per_ft
    for a, b in sorted(runs, key=lambda r: (r[0] - start) % perim):
        pieces = _pieces(doubled, cum2, a, b)
        merged = _merge_bends(_merge_pieces([[f, lo, hi, list(p)] for f, lo, hi, p in pieces], min_piece))
        for facing, lo, hi, pts2 in merged:
            # from the walk's first point in the direction walked (a clockwise walk runs the
            # counter-clockwise ring backwards)
            begin = (start - hi) % perim if walked_cw else (lo - start) % perim
            if perim - begin < 1e-6:
                begin = 0.0
            stretches.append(Stretch(facing, (hi - lo) * per_ft, begin * per_ft, (begin + hi - lo) * per_ft,
                                     tuple(reversed(pts2)) if walked_cw else tuple(pts2)))
    stretches.sort(key=lambda st: st.from_ft)
    missing = sum(s.length_ft for s in stretches)
    return SegmentSupport(perim * per_ft, perim * per_ft - missing, tuple(stretches))
