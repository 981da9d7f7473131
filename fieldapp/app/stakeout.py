"""Stake-out in the app: the targets of the open visit, and the live guidance to one (no Qt).

:func:`targets` lists what a crew can stake, in grid feet of the site's foot (the map's units):

- ``bank_line``: the line through the transects' bank points along the OHWM (at least two),
  from the ``bank:<transect>`` verdicts (NR 341.035);
- ``bank:<transect uuid>``: one transect's bank point;
- ``protective_area:<area uuid>:<n>`` / ``protective_area:ohwm:<line uuid>:<n>``: the edges of
  the NR 151.125 protective area (ring ``n`` of the buffer);
- ``envelope:<n>``: the development envelope (city ordinance; foundations 20 ft, drives, parking,
  septic fields and utility trenches 5 ft, united);
- ``drainageway:<line uuid>``: the edge of a drainageway's buffer (half width each side of the
  centreline, City resource protection, Drainageways A.1/A.2);
- ``wetland:<area uuid>``: a wetland boundary as walked;
- ``point:<layer>:<uuid>``: a recorded OHWM point, station, tree or note.

The key stays the same when the verdict behind a target changes; the geometry and its
signature move, and :meth:`StakeOut.refresh` then marks the earlier stake points superseded.
"""

from __future__ import annotations

from typing import Any

from shapely.geometry import LinearRing, LineString, Point

from fieldapp.app import overlays
from fieldapp.survey.features import Layer
from fieldapp.survey.stake import Guidance, Heading, Target, guide

__all__ = ["targets", "StakeOut", "DEFAULT_TOLERANCE_FT"]

#: The "on the line" tolerance a new stake-out starts with (ft).
DEFAULT_TOLERANCE_FT = 0.5


def _v(x: Any) -> Any:
    return getattr(x, "value", x)


def _rings_targets(key: str, label: str, geom: Any, ft: Any, verdict: str) -> list[Target]:
    rings = overlays._rings(geom)
    out = []
    for n, ring in enumerate(rings):
        pts = ft(ring)
        if len(pts) >= 4:
            suffix = f" (ring {n + 1})" if len(rings) > 1 else ""
            out.append(Target(f"{key}:{n}", label + suffix, LinearRing(pts), verdict))
    return out


def targets(visit: Any) -> list[Target]:
    """Every stake-out target of ``visit`` (a :class:`fieldapp.app.visit.VisitController`),
    computed lines first, then recorded points. Empty before the site CRS is known."""
    m = visit.model
    if not m.has_frame:
        return []
    f = m.frame

    def ft(pts: Any) -> list[tuple[float, float]]:
        return [(float(f.to_ft(x)), float(f.to_ft(y))) for x, y in pts]

    out: list[Target] = []
    out += _bank_targets(visit, ft)
    out += _area_targets(visit, ft)
    out += _drainageway_targets(visit, ft)
    out += _point_targets(visit, ft)
    return out


def _bank_targets(visit: Any, ft: Any) -> list[Target]:
    out, banks = [], []
    for t in visit.model.features(Layer.TRANSECT):
        check = visit.checks.get(f"bank:{t.uuid}")
        point = overlays.bank_point(visit.model, t, check.result if check is not None else None, ft)
        if point is not None:
            x, y, text = point
            banks.append((x, y))
            out.append(Target(f"bank:{t.uuid}", f"Bank point of transect {t.label} ({text})",
                              Point(x, y), f"bank:{t.uuid}"))
    if len(banks) >= 2:
        out.insert(0, Target("bank_line", f"Bank line through {len(banks)} bank points",
                             LineString(banks), "bank"))
    return out


def _area_targets(visit: Any, ft: Any) -> list[Target]:
    f = visit.model.frame
    out = []
    for a in visit.areas():
        name = a.label or _v(a.kind)
        pa = visit.checks.get(f"protective_area:{a.uuid}")
        if pa is not None and pa.result.get("width_ft"):
            w = pa.result["width_ft"]
            out += _rings_targets(f"protective_area:{a.uuid}", f"Protective-area edge {w:g} ft — {name}",
                                  a.geometry.buffer(f.from_ft(w), quad_segs=8), ft,
                                  f"protective_area:{a.uuid}")
        if _v(a.kind) == "wetland":
            out += _rings_targets(f"wetland:{a.uuid}", f"Wetland boundary — {name}", a.geometry, ft,
                                  f"wetland:{a.uuid}")
    pa = visit.checks.get("protective_area")
    if pa is not None and pa.result.get("width_ft"):
        w = pa.result["width_ft"]
        by_line: dict[str, list] = {}
        for p in visit.ohwm_points():
            by_line.setdefault(p.line_uuid, []).append((p.x, p.y))
        for line_uuid, pts in by_line.items():
            if len(pts) >= 2:
                out += _rings_targets(f"protective_area:ohwm:{line_uuid}",
                                      f"Protective-area edge {w:g} ft — OHWM",
                                      LineString(pts).buffer(f.from_ft(w)), ft, "protective_area")
    probe: dict = {"lines": {"envelope": []}}
    overlays._add_envelope(probe, visit, ft)      # the map's envelope, in grid ft already
    rings = probe["lines"]["envelope"]
    for n, ring in enumerate(rings):
        if len(ring) >= 4:
            out.append(Target(f"envelope:{n}", "Development envelope" + (f" (ring {n + 1})" if len(rings) > 1 else ""),
                              LinearRing(ring), "development_area"))
    return out


def _drainageway_targets(visit: Any, ft: Any) -> list[Target]:
    f = visit.model.frame
    out = []
    for line in visit.model.features(Layer.LINE):
        check = visit.checks.get(f"drainageway:{line.uuid}")
        half = check.result.get("half_width_ft") if check is not None else None
        if half:
            out += _rings_targets(f"drainageway:{line.uuid}",
                                  f"Drainageway buffer edge {half:g} ft — {line.label or 'centreline'}",
                                  line.geometry.buffer(f.from_ft(half), quad_segs=8), ft,
                                  f"drainageway:{line.uuid}")
    return out


def _point_targets(visit: Any, ft: Any) -> list[Target]:
    m = visit.model
    out = []
    for p in visit.ohwm_points():
        out.append(Target(f"point:ohwm_point:{p.uuid}", f"OHWM point {p.seq + 1}",
                          Point(ft([(p.x, p.y)])[0])))
    for t in m.features(Layer.TRANSECT):
        for s in m.stations(t.uuid):
            out.append(Target(f"point:station:{s.uuid}", f"Station {s.seq + 1} of transect {t.label}"
                              f" ({s.distance_ft:.0f} ft)", Point(ft([(s.x, s.y)])[0])))
    for tree in m.trees():
        out.append(Target(f"point:tree:{tree.uuid}", f"Tree {tree.tag}", Point(ft([(tree.x, tree.y)])[0])))
    for n in m.features(Layer.NOTE):
        if n.x is not None:
            out.append(Target(f"point:note:{n.uuid}", f"Note: {n.text[:30]}", Point(ft([(n.x, n.y)])[0])))
    return out


class StakeOut:
    """Live stake-out to one target of an open visit.

    ``on_fix(fix)`` returns the :class:`~fieldapp.survey.stake.Guidance` of each fix (None
    without a target, a site CRS or a position); ``flag(fix)`` records a stake point there;
    ``refresh()`` rebuilds the targets after a model change, follows the chosen one by key and
    marks stake points of moved targets as superseded.
    """

    def __init__(self, visit: Any, tolerance_ft: float = DEFAULT_TOLERANCE_FT) -> None:
        self.visit = visit
        self.tolerance_ft = float(tolerance_ft)
        self.heading = Heading()
        self.targets: list[Target] = []
        self.target: Target | None = None
        self.guidance: Guidance | None = None
        self._last: tuple[Any, tuple[float, float]] | None = None

    def refresh(self) -> tuple:
        """Targets again from the visit (call after the checks were refreshed); returns the
        superseding changes (empty when no target moved)."""
        self.targets = targets(self.visit)
        by_key = {t.key: t for t in self.targets}
        if self.target is not None:
            self.target = by_key.get(self.target.key, self.target)
        changes = self.visit.model.mark_superseded(self.targets) if self.targets else ()
        if self._last is not None and self.target is not None:
            self.guidance = self._guide(*self._last)
        return changes

    def choose(self, key: str | None) -> Target | None:
        """Stake out the target ``key`` (None: none). Raises KeyError for an unknown key."""
        if key is None:
            self.target = None
            self.guidance = None
            return None
        self.target = {t.key: t for t in self.targets}[key]
        if self._last is not None:
            self.guidance = self._guide(*self._last)
        return self.target

    def _guide(self, fix: Any, xy: tuple[float, float]) -> Guidance:
        return guide(self.target, xy[0], xy[1], tolerance_ft=self.tolerance_ft,
                     frame=self.visit.model.frame, heading_true_deg=self.heading.deg)

    def on_fix(self, fix: Any) -> Guidance | None:
        """Guidance from ``fix`` (WGS84 lat/lon) to the target, in grid ft of the site's foot."""
        lat, lon = getattr(fix, "lat_deg", None), getattr(fix, "lon_deg", None)
        if lat is None or lon is None:
            return None
        xy = self.visit.project(lat, lon)
        if xy is None:
            return None
        self.heading.update(fix, xy, self.visit.model.frame)
        self._last = (fix, xy)
        self.guidance = self._guide(fix, xy) if self.target is not None else None
        return self.guidance

    def flag(self, fix: Any, notes: str = "") -> Any:
        """Record a stake point at ``fix`` for the target (InvalidValue for an unusable fix;
        ValueError without a target)."""
        if self.target is None:
            raise ValueError("choose a stake-out target first")
        g = self.on_fix(fix)
        if g is None:
            raise ValueError("no position to flag: the site CRS is not set yet")
        return self.visit.model.add_stake_point(fix=fix, target=self.target, guidance=g, notes=notes)
