"""Walked boundaries: vertices streamed while walking, pause / resume / close, self-crossings.

A :class:`BoundaryWalk` is a handle on a ``Walk`` record of a :class:`fieldapp.survey.Visit`;
every vertex it takes is committed through the visit at once (layer ``walk_vertex``), so a walk
survives a crash and can be resumed after :func:`fieldapp.store.open_visit`.

Vertices are taken from fixes when the walker has moved ``spacing_ft`` (ground, international
ft) from the last vertex, or ``interval_s`` has passed, whichever comes first.

A ring that crosses itself is reported (:meth:`BoundaryWalk.crossings`); closing it raises
:class:`~fieldapp.survey.errors.SelfCrossing` unless ``repair=True``. The repair is
``shapely.make_valid`` keeping every lobe: the union of its ``linework`` and ``structure``
results, polygon parts only, so no enclosed area is dropped.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from datetime import datetime
from typing import Any, Protocol

import numpy as np
import shapely
from shapely.geometry import LineString, MultiPolygon, Polygon

from ..geo import FOOT_INTERNATIONAL_M, SiteFrame
from . import values as V
from .errors import InvalidValue, SelfCrossing, StateError
from .features import AreaFeature, Walk, WalkState, WalkVertex
from .gnss import CorrectionFields, FixLike, QualityGate, correction_fields

#: Multiple of the reported horizontal accuracy that a jitter loop can span (see
#: :attr:`BoundaryWalk.noise_tolerance_m`).
NOISE_ACCURACY_FACTOR = 4.0

__all__ = ["BoundaryWalk", "NOISE_ACCURACY_FACTOR", "ring_crossings", "repair_keep_lobes", "distinct_vertices"]


def distinct_vertices(coords: Iterable[tuple[float, float]] | np.ndarray, *,
                      closed: bool = True) -> list[tuple[float, float]]:
    """Vertices with consecutive duplicates (and, when ``closed``, a closing repeat) removed."""
    out: list[tuple[float, float]] = []
    for x, y in coords:
        if not out or (float(x), float(y)) != out[-1]:
            out.append((float(x), float(y)))
    if closed and len(out) > 1 and out[0] == out[-1]:
        out.pop()
    return out


def _loop_area(loop: list[tuple[float, float]]) -> float:
    """Area enclosed by the closed loop through ``loop`` (lobes of a twisted loop added)."""
    if len(loop) < 3:
        return 0.0
    return float(shapely.area(shapely.make_valid(Polygon(loop))))


def ring_crossings(coords: Iterable[tuple[float, float]], *, closed: bool = True,
                   min_lobe_area: float = 0.0) -> list[tuple[float, float]]:
    """Points where the ring (or open path) through ``coords`` crosses or touches itself.

    Parameters
    ----------
    coords : sequence of (x, y)
        Vertices in walking order (site CRS units).
    closed : bool
        True: the closed ring, the segment from the last vertex back to the first included.
        False: the open path walked so far (a walk in progress) -- the implicit closing segment
        runs back along the whole walk and would "cross" every wiggle of it.
    min_lobe_area : float
        Noise tolerance (square site CRS units). A crossing splits the ring into two loops (the
        open path into one loop and two tails); a crossing whose smaller loop encloses less than
        this is GNSS jitter -- a zig-zag or small step back between consecutive vertices -- not
        a crossing, and is left out.

    Returns
    -------
    list of (x, y)
        One point per crossing of two non-adjacent segments (STRtree query, shapely
        intersection; an overlap is represented by its centroid).
    """
    pts = distinct_vertices(coords, closed=closed)
    n = len(pts)
    if n < (4 if closed else 3):
        return []
    a = np.array(pts)
    b = np.roll(a, -1, axis=0)
    if not closed:
        a, b = a[:-1], b[:-1]
    m = len(a)
    segs = np.asarray(shapely.linestrings(np.stack([a, b], axis=1)))
    tree = shapely.STRtree(segs)
    i, j = tree.query(segs, predicate="intersects")
    keep = (i < j) & ((j - i) != 1)
    if closed:
        keep &= ~((i == 0) & (j == m - 1))
    out: list[tuple[float, float]] = []
    crossing = np.asarray(shapely.intersection(segs[i[keep]], segs[j[keep]]))
    for si, sj, p in zip(i[keep], j[keep], crossing, strict=True):
        for g in shapely.get_parts(p):
            c = g if g.geom_type == "Point" else g.centroid
            cxy = (c.x, c.y)
            if min_lobe_area > 0:
                inner = [cxy] + pts[si + 1:sj + 1]
                if _loop_area(inner) < min_lobe_area:
                    continue
                if closed and _loop_area([cxy] + pts[sj + 1:] + pts[:si + 1]) < min_lobe_area:
                    continue
            out.append(cxy)
    return out


def repair_keep_lobes(polygon: Polygon) -> MultiPolygon:
    """A valid MultiPolygon covering every lobe of a self-crossing polygon."""
    parts: list[shapely.Geometry] = []
    for g in (shapely.make_valid(polygon, method="linework"),
              shapely.make_valid(polygon, method="structure", keep_collapsed=False)):
        parts.extend(p for p in shapely.get_parts(g) if p.geom_type in ("Polygon", "MultiPolygon"))
    union = shapely.union_all(parts)
    polys = [p for p in shapely.get_parts(union) if p.geom_type == "Polygon" and p.area > 0]
    return MultiPolygon(polys)


class WalkHost(Protocol):
    """What a :class:`BoundaryWalk` uses of the visit that holds its walk (a
    :class:`~fieldapp.survey.visit.Visit`; named here so this module need not import it)."""

    gate: QualityGate

    @property
    def frame(self) -> SiteFrame: ...

    @property
    def has_frame(self) -> bool: ...

    def ensure_frame(self, fix: FixLike | None = None) -> SiteFrame: ...

    def record(self, cls: type[Walk], uuid: str) -> Walk: ...

    def _walk_vertices(self, walk_uuid: str) -> list[WalkVertex]: ...

    def _update(self, layer: Any, uuid: str, **fields: Any) -> Any: ...

    def _add_walk_vertex(self, walk_uuid: str, x: float, y: float, t_utc: datetime | None = None, *,
                         correction_age_s: float | None = None,
                         correction_mount: str | None = None) -> WalkVertex: ...

    def _close_walk(self, walk_uuid: str, geometry: Polygon | MultiPolygon,
                    attributes: dict[str, Any]) -> AreaFeature: ...


class BoundaryWalk:
    """Handle on a walk in progress. Get one from ``Visit.start_walk`` or ``Visit.walk(uuid)``."""

    def __init__(self, visit: WalkHost, walk_uuid: str) -> None:
        self._visit = visit
        self.uuid = walk_uuid
        self._last_t_s: float | None = None
        self._accuracy_m: float | None = None  # largest horizontal accuracy fed while walking

    # -- state ---------------------------------------------------------------------------------
    @property
    def record(self) -> Walk:
        return self._visit.record(Walk, self.uuid)

    @property
    def state(self) -> WalkState:
        return self.record.state

    def vertices(self) -> list[tuple[float, float]]:
        """The vertices taken so far, in order (site CRS units)."""
        return [(v.x, v.y) for v in self._visit._walk_vertices(self.uuid)]

    @property
    def noise_tolerance_m(self) -> float:
        """Size (m) below which a loop in the walked line is GNSS jitter, not a crossing.

        The larger of the vertex spacing (``spacing_ft``, international ft; for a walk by time
        only, the median distance between vertices) and ``NOISE_ACCURACY_FACTOR`` (4) times the
        largest horizontal accuracy (``Fix.horizontal_accuracy_m``: GST sigmas or HDOP x UERE) of the fixes fed in this
        session. A crossing whose smaller lobe encloses less than the square of this is left
        out (:func:`ring_crossings` ``min_lobe_area``): with vertices every 10 ft that is
        ~9.3 m^2 (100 sq ft), far above any zig-zag of RTK (cm) or float (dm) noise and above
        the loops autonomous noise (a few m) makes, yet below any lobe a surveyor walks.
        """
        rec = self.record
        if rec.spacing_ft is not None:
            spacing_m = rec.spacing_ft * FOOT_INTERNATIONAL_M
        else:
            pts = np.array(distinct_vertices(self.vertices(), closed=False))
            steps = np.hypot(*np.diff(pts, axis=0).T) if len(pts) > 1 else np.zeros(0)
            spacing_m = float(np.median(steps)) * self._unit_m() if len(steps) else 0.0
        return max(spacing_m, NOISE_ACCURACY_FACTOR * (self._accuracy_m or 0.0))

    def _unit_m(self) -> float:
        return self._visit.frame.unit_m if self._visit.has_frame else 1.0

    def _min_lobe_area(self) -> float:
        """``noise_tolerance_m`` squared, in square site CRS units."""
        return (self.noise_tolerance_m / self._unit_m()) ** 2

    def crossings(self) -> list[tuple[float, float]]:
        """Where the boundary crosses itself (empty when it does not), jitter left out.

        While walking (or paused) the path walked so far is tested, not the closing segment
        back to the start (which runs along the whole walk); once closed, the closed ring.
        Loops smaller than ``noise_tolerance_m`` squared are GNSS jitter and not reported.
        """
        return ring_crossings(self.vertices(), closed=self.state is WalkState.CLOSED,
                              min_lobe_area=self._min_lobe_area())

    def _valid_polygon(self, pts: list[tuple[float, float]], min_lobe_area: float) -> Polygon | MultiPolygon:
        """Polygon through ``pts``; when invalid, repaired keeping every lobe except the
        jitter specks under ``min_lobe_area`` (a lone remaining part is a Polygon)."""
        poly = Polygon(pts)
        if poly.is_valid:
            return poly
        repaired = repair_keep_lobes(poly)
        big = [g for g in repaired.geoms if g.area >= min_lobe_area]
        if not big:
            big = [max(repaired.geoms, key=lambda g: g.area)] if repaired.geoms else []
        return big[0] if len(big) == 1 else MultiPolygon(big)

    def polygon(self) -> Polygon | MultiPolygon | None:
        """The ring closed as a polygon (valid, lobes kept), or None below 3 distinct vertices."""
        pts = distinct_vertices(self.vertices())
        if len(pts) < 3:
            return None
        return self._valid_polygon(pts, self._min_lobe_area())

    @property
    def area_sqft(self) -> float:
        """Live ground area of the closed ring (sq ft of the site's foot), lobes kept."""
        poly = self.polygon()
        return 0.0 if poly is None else self._visit.frame.area_sqft(poly)

    @property
    def perimeter_ft(self) -> float:
        """Live ground perimeter of the closed ring (ft of the site's foot)."""
        pts = distinct_vertices(self.vertices())
        if len(pts) < 2:
            return 0.0
        return self._visit.frame.length_ft(LineString(pts + [pts[0]]))

    # -- streaming -----------------------------------------------------------------------------
    def feed(self, fix: FixLike, t_s: float | None = None) -> WalkVertex | None:
        """Offer a fix while walking; returns the vertex taken or None.

        ``t_s`` (monotonic seconds) defaults to the fix's ``t_monotonic_s``. Unusable fixes
        (visit's quality gate) and fixes while paused are ignored.
        """
        if self.state is not WalkState.WALKING or not self._visit.gate.usable(fix):
            return None
        if fix.lon_deg is None or fix.lat_deg is None:
            return None     # (the gate refuses a fix without a position)
        frame = self._visit.ensure_frame(fix)
        acc = fix.horizontal_accuracy_m
        if acc is not None and math.isfinite(acc) and acc > (self._accuracy_m or 0.0):
            self._accuracy_m = float(acc)
        x, y = frame.to_local(fix.lon_deg, fix.lat_deg)
        if t_s is None:
            t_s = getattr(fix, "t_monotonic_s", None)  # not every fix source stamps one (not FixLike)
        return self.feed_xy(float(x), float(y), t_s=t_s, t_utc=fix.time_utc,
                            corrections=correction_fields([fix]))

    def feed_xy(self, x: float, y: float, *, t_s: float | None = None, t_utc: datetime | None = None,
                corrections: CorrectionFields | None = None) -> WalkVertex | None:
        """Offer a position (site CRS units); a vertex is taken by distance or time.
        ``corrections``: ``correction_age_s`` / ``correction_mount`` of the fix, kept with it."""
        x, y = V.finite("x", x), V.finite("y", y)
        if self.state is not WalkState.WALKING:
            return None
        rec = self.record
        verts = self._visit._walk_vertices(self.uuid)
        take = not verts
        if verts:
            last = verts[-1]
            if rec.spacing_ft is not None:
                moved_ft = math.hypot(x - last.x, y - last.y) * self._visit.frame.unit_m / FOOT_INTERNATIONAL_M
                take = moved_ft >= rec.spacing_ft
            if not take and rec.interval_s is not None and t_s is not None and self._last_t_s is not None:
                take = (t_s - self._last_t_s) >= rec.interval_s
        if not take:
            return None
        self._last_t_s = t_s
        if corrections is None:
            return self._visit._add_walk_vertex(self.uuid, x, y, t_utc)
        return self._visit._add_walk_vertex(self.uuid, x, y, t_utc, **corrections)

    def add_vertex(self, x: float, y: float, t_utc: datetime | None = None) -> WalkVertex:
        """Take a vertex now, whatever the spacing (a corner the walker marks)."""
        if self.state is WalkState.CLOSED:
            raise StateError("walk is closed")
        return self._visit._add_walk_vertex(self.uuid, V.finite("x", x), V.finite("y", y), t_utc)

    def pause(self) -> None:
        self._set_state(WalkState.PAUSED)

    def resume(self) -> None:
        self._set_state(WalkState.WALKING)
        self._last_t_s = None

    def _set_state(self, state: WalkState) -> None:
        if self.state is WalkState.CLOSED:
            raise StateError("walk is closed")
        self._visit._update("walk", self.uuid, state=state)

    def close(self, *, repair: bool = False, **attributes: Any) -> AreaFeature:
        """Close the ring into an area feature of the walk's kind; returns the AreaFeature.

        Raises
        ------
        InvalidValue
            Fewer than 3 distinct vertices.
        SelfCrossing
            The ring crosses itself and ``repair`` is False (the exception carries the
            crossings and the lobe-keeping repair to show the user). Loops smaller than
            ``noise_tolerance_m`` squared are GNSS jitter: not a crossing; the specks they
            leave are dropped from the closed polygon.
        """
        if self.state is WalkState.CLOSED:
            raise StateError("walk is already closed")
        pts = distinct_vertices(self.vertices())
        if len(pts) < 3:
            raise InvalidValue("vertices", f"a boundary needs 3 distinct vertices, got {len(pts)}")
        min_lobe_area = self._min_lobe_area()
        crossings = ring_crossings(pts, closed=True, min_lobe_area=min_lobe_area)
        poly: Polygon | MultiPolygon
        if not crossings:
            poly = self._valid_polygon(pts, min_lobe_area)
        else:
            repaired = repair_keep_lobes(Polygon(pts))
            if not repair:
                raise SelfCrossing(
                    f"boundary crosses itself at {len(crossings)} place(s); "
                    f"the repair keeps {len(repaired.geoms)} lobe(s)",
                    crossings,
                    repaired,
                )
            poly = repaired
        return self._visit._close_walk(self.uuid, poly, attributes)
