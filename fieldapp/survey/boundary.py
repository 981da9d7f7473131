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
from typing import TYPE_CHECKING

import numpy as np
import shapely
from shapely.geometry import LineString, MultiPolygon, Polygon

from ..geo import FOOT_INTERNATIONAL_M
from . import values as V
from .errors import InvalidValue, SelfCrossing, StateError
from .features import WalkState

if TYPE_CHECKING:  # pragma: no cover
    from .visit import Visit

__all__ = ["BoundaryWalk", "ring_crossings", "repair_keep_lobes", "distinct_vertices"]


def distinct_vertices(coords) -> list[tuple[float, float]]:
    """Vertices with consecutive duplicates (and a closing repeat) removed."""
    out: list[tuple[float, float]] = []
    for x, y in coords:
        if not out or (x, y) != out[-1]:
            out.append((float(x), float(y)))
    if len(out) > 1 and out[0] == out[-1]:
        out.pop()
    return out


def ring_crossings(coords) -> list[tuple[float, float]]:
    """Points where the closed ring through ``coords`` crosses or touches itself.

    Non-adjacent segment pairs that intersect (STRtree query), as (x, y) tuples.
    """
    pts = distinct_vertices(coords)
    n = len(pts)
    if n < 4:
        return []
    a = np.array(pts)
    b = np.roll(a, -1, axis=0)
    segs = shapely.linestrings(np.stack([a, b], axis=1))
    tree = shapely.STRtree(segs)
    i, j = tree.query(segs, predicate="intersects")
    keep = (i < j) & ((j - i) != 1) & ~((i == 0) & (j == n - 1))
    out: list[tuple[float, float]] = []
    for p in shapely.intersection(segs[i[keep]], segs[j[keep]]):
        for g in shapely.get_parts(p):
            c = g if g.geom_type == "Point" else g.centroid
            out.append((c.x, c.y))
    return out


def repair_keep_lobes(polygon: Polygon) -> MultiPolygon:
    """A valid MultiPolygon covering every lobe of a self-crossing polygon."""
    parts = []
    for method in ("linework", "structure"):
        g = shapely.make_valid(polygon, method=method) if method == "linework" else \
            shapely.make_valid(polygon, method=method, keep_collapsed=False)
        parts.extend(p for p in shapely.get_parts(g) if p.geom_type in ("Polygon", "MultiPolygon"))
    union = shapely.union_all(parts)
    polys = [p for p in shapely.get_parts(union) if p.geom_type == "Polygon" and p.area > 0]
    return MultiPolygon(polys)


class BoundaryWalk:
    """Handle on a walk in progress. Get one from ``Visit.start_walk`` or ``Visit.walk(uuid)``."""

    def __init__(self, visit: "Visit", walk_uuid: str) -> None:
        self._visit = visit
        self.uuid = walk_uuid
        self._last_t_s: float | None = None

    # -- state ---------------------------------------------------------------------------------
    @property
    def record(self):
        return self._visit.get("walk", self.uuid)

    @property
    def state(self) -> WalkState:
        return self.record.state

    def vertices(self) -> list[tuple[float, float]]:
        """The vertices taken so far, in order (site CRS units)."""
        return [(v.x, v.y) for v in self._visit._walk_vertices(self.uuid)]

    def crossings(self) -> list[tuple[float, float]]:
        """Where the closed ring crosses itself (empty when it does not)."""
        return ring_crossings(self.vertices())

    def polygon(self):
        """The ring closed as a polygon (valid, lobes kept), or None below 3 distinct vertices."""
        pts = distinct_vertices(self.vertices())
        if len(pts) < 3:
            return None
        poly = Polygon(pts)
        return poly if poly.is_valid else repair_keep_lobes(poly)

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
    def feed(self, fix, t_s: float | None = None):
        """Offer a fix while walking; returns the vertex taken or None.

        ``t_s`` (monotonic seconds) defaults to the fix's ``t_monotonic_s``. Unusable fixes
        (visit's quality gate) and fixes while paused are ignored.
        """
        if self.state is not WalkState.WALKING or not self._visit.gate.usable(fix):
            return None
        frame = self._visit.ensure_frame(fix)
        x, y = frame.to_local(fix.lon_deg, fix.lat_deg)
        if t_s is None:
            t_s = getattr(fix, "t_monotonic_s", None)
        return self.feed_xy(float(x), float(y), t_s=t_s, t_utc=getattr(fix, "time_utc", None))

    def feed_xy(self, x: float, y: float, *, t_s: float | None = None, t_utc=None):
        """Offer a position (site CRS units); a vertex is taken by distance or time."""
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
        return self._visit._add_walk_vertex(self.uuid, x, y, t_utc)

    def add_vertex(self, x: float, y: float, t_utc=None):
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

    def close(self, *, repair: bool = False, **attributes):
        """Close the ring into an area feature of the walk's kind; returns the AreaFeature.

        Raises
        ------
        InvalidValue
            Fewer than 3 distinct vertices.
        SelfCrossing
            The ring crosses itself and ``repair`` is False (the exception carries the
            crossings and the lobe-keeping repair to show the user).
        """
        if self.state is WalkState.CLOSED:
            raise StateError("walk is already closed")
        pts = distinct_vertices(self.vertices())
        if len(pts) < 3:
            raise InvalidValue("vertices", f"a boundary needs 3 distinct vertices, got {len(pts)}")
        poly = Polygon(pts)
        crossings = ring_crossings(pts)
        if crossings or not poly.is_valid:
            repaired = repair_keep_lobes(poly)
            if not repair:
                raise SelfCrossing(
                    f"boundary crosses itself at {len(crossings)} place(s); "
                    f"the repair keeps {len(repaired.geoms)} lobe(s)",
                    crossings,
                    repaired,
                )
            poly = repaired
        return self._visit._close_walk(self.uuid, poly, attributes)
