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
  centreline, Decorah resource protection, Drainageways A.1/A.2);
- ``wetland:<area uuid>``: a wetland boundary as walked;
- ``point:<layer>:<uuid>``: a recorded OHWM point, station, tree or note.

The key stays the same when the verdict behind a target changes; the geometry and its
signature move, and :meth:`StakeOut.refresh` then marks the earlier stake points superseded.
"""

from __future__ import annotations

from typing import Any

from shapely.geometry import LinearRing, LineString, Point

import fieldapp.app.overlays as overlays
from fieldapp.survey.drainage import drainageway_strip
from fieldapp.survey.errors import NotFound
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


#: Which builder makes the targets whose key starts with each word.
_FAMILY = {"bank_line": "bank", "bank": "bank", "protective_area": "area", "wetland": "area",
           "envelope": "area", "drainageway": "drainageway", "point": "point"}


def targets(visit: Any, keys: Any = None) -> list[Target]:
    """Every stake-out target of ``visit`` (a :class:`fieldapp.app.visit.VisitController`),
    computed lines first, then recorded points. Empty before the site CRS is known.

    With ``keys`` (an iterable of target keys) only those targets (those that still exist):
    only the builders of their kinds run, and a recorded point is looked up by its uuid, so
    following a few flagged targets costs what they cost, not what the whole visit does."""
    m = visit.model
    if not m.has_frame:
        return []
    f = m.frame

    def ft(pts: Any) -> list[tuple[float, float]]:
        return [(float(f.to_ft(x)), float(f.to_ft(y))) for x, y in pts]

    wanted = None if keys is None else set(keys)
    families = None if wanted is None else {_FAMILY.get(k.split(":", 1)[0]) for k in wanted}
    out: list[Target] = []
    if families is None or "bank" in families:
        out += _bank_targets(visit, ft)
    if families is None or "area" in families:
        out += _area_targets(visit, ft)
    if families is None or "drainageway" in families:
        out += _drainageway_targets(visit, ft)
    if families is None:
        out += _point_targets(visit, ft)
    elif "point" in families and wanted is not None:  # families is None exactly when wanted is
        out += _point_targets_by_key(visit, ft, [k for k in wanted if k.startswith("point:")])
    return out if wanted is None else [t for t in out if t.key in wanted]


def _point_targets_by_key(visit: Any, ft: Any, keys: list[str]) -> list[Target]:
    """The recorded-point targets ``point:<layer>:<uuid>`` among ``keys`` that still exist,
    labelled as :func:`_point_targets` labels them."""
    m = visit.model
    out = []
    layers = {"ohwm_point": Layer.OHWM_POINT, "station": Layer.STATION, "tree": Layer.TREE,
              "note": Layer.NOTE}
    for key in keys:
        _, layer, uuid = key.split(":", 2)
        try:
            rec = m.get(layers[layer], uuid)
        except NotFound:
            continue                                   # gone: its flags stay as they are
        if getattr(rec, "x", None) is None:
            continue
        label = _point_label(visit, layer, rec)
        out.append(Target(key, label, Point(ft([(rec.x, rec.y)])[0])))
    return out


def _point_label(visit: Any, layer: str, rec: Any) -> str:
    m = visit.model
    if layer == "ohwm_point":
        lines = m.features(Layer.OHWM_LINE)
        if len(lines) < 2:
            return f"OHWM point {rec.seq + 1}"
        # two banks: each line numbers its points from 1 ("OHWM point 1" twice in the list)
        n, line = next(((n, ln) for n, ln in enumerate(lines, 1) if ln.uuid == rec.line_uuid),
                       (0, None))
        return f"OHWM point {rec.seq + 1} of {(line.label if line is not None else '') or f'OHWM line {n}'}"
    if layer == "station":
        t = m.get(Layer.TRANSECT, rec.transect_uuid)
        return f"Station {rec.seq + 1} of transect {t.label} ({rec.distance_ft:.0f} ft)"
    if layer == "tree":
        return f"Tree {rec.tag}"
    return f"Note: {rec.text[:30]}"


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
                                  a.geometry.buffer(f.from_ground_ft(w, a.geometry), quad_segs=8), ft,
                                  f"protective_area:{a.uuid}")
        if _v(a.kind) == "wetland":
            out += _rings_targets(f"wetland:{a.uuid}", f"Wetland boundary — {name}", a.geometry, ft,
                                  f"wetland:{a.uuid}")
    pa = visit.checks.get("protective_area")
    if pa is not None and pa.result.get("width_ft"):
        w = pa.result["width_ft"]
        by_line: dict[str, list[tuple[float, float]]] = {}
        for p in visit.ohwm_points():
            by_line.setdefault(p.line_uuid, []).append((p.x, p.y))
        for line_uuid, pts in by_line.items():
            if len(pts) >= 2:
                line = LineString(pts)
                out += _rings_targets(f"protective_area:ohwm:{line_uuid}",
                                      f"Protective-area edge {w:g} ft — OHWM",
                                      line.buffer(f.from_ground_ft(w, line)), ft, "protective_area")
    probe: dict[str, Any] = {"lines": {"envelope": []}}
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
            # only the reaches the rule counted (the 5-acre point, the floodplain: Drainageways A)
            strip = drainageway_strip(line.geometry, f, half, check.result.get("reaches_ft"))
            out += _rings_targets(f"drainageway:{line.uuid}",
                                  f"Drainageway buffer edge {half:g} ft — {line.label or 'centreline'}",
                                  strip, ft, f"drainageway:{line.uuid}")
    return out


def _point_targets(visit: Any, ft: Any) -> list[Target]:
    m = visit.model
    recs = [("ohwm_point", p) for p in visit.ohwm_points()]
    for t in m.features(Layer.TRANSECT):
        recs += [("station", s) for s in m.stations(t.uuid)]
    recs += [("tree", tree) for tree in m.trees()]
    recs += [("note", n) for n in m.features(Layer.NOTE) if n.x is not None]
    return [Target(f"point:{layer}:{r.uuid}", _point_label(visit, layer, r), Point(ft([(r.x, r.y)])[0]))
            for layer, r in recs]


class StakeOut:
    """Live stake-out to one target of an open visit.

    ``on_fix(fix)`` returns the :class:`~fieldapp.survey.stake.Guidance` of each fix (None
    without a target, a site CRS or a position); ``flag(fix)`` records a stake point there;
    ``refresh()`` rebuilds the targets after a model change, follows the chosen one by key and
    marks stake points of moved targets as superseded; ``refresh_staked()`` does the same for
    the flagged and chosen targets only; ``rebuilds`` counts the full rebuilds.
    """

    def __init__(self, visit: Any, tolerance_ft: float = DEFAULT_TOLERANCE_FT) -> None:
        self.visit = visit
        self.tolerance_ft = float(tolerance_ft)
        self.heading = Heading()
        self.targets: list[Target] = []
        self.target: Target | None = None
        self.guidance: Guidance | None = None
        self._last: tuple[Any, tuple[float, float]] | None = None
        self.rebuilds = 0

    def refresh(self) -> tuple[Any, ...]:
        """Targets again from the visit (call after the checks were refreshed); returns the
        superseding changes (empty when no target moved)."""
        self.rebuilds += 1
        self.targets = targets(self.visit)
        by_key = {t.key: t for t in self.targets}
        if self.target is not None:
            self.target = by_key.get(self.target.key, self.target)
        changes = self.visit.model.mark_superseded(self.targets) if self.targets else ()
        if self._last is not None and self.target is not None:
            self.guidance = self._guide(*self._last)
        return changes

    def refresh_staked(self) -> tuple[Any, ...]:
        """What :meth:`refresh` does for the flags and the chosen target only, while the
        panel is hidden: the targets behind the visit's stake points and the chosen one are
        built again (nothing when there are neither), stake points of moved ones are marked
        superseded (or current again), and the chosen target follows its verdict. The full
        list waits for :meth:`refresh`. Returns the superseding changes."""
        keys = {sp.target_key for sp in self.visit.model.stake_points()}
        if self.target is not None:
            keys.add(self.target.key)
        if not keys:
            return ()
        now = targets(self.visit, keys)
        if self.target is not None:
            self.target = next((t for t in now if t.key == self.target.key), self.target)
        return self.visit.model.mark_superseded(now) if now else ()

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
        """Guidance from ``xy`` (site ft) to the chosen target; every caller has chosen one."""
        target = self.target
        if target is None:
            raise ValueError("no stake-out target chosen: choose one before asking the way to it")
        return guide(target, xy[0], xy[1], tolerance_ft=self.tolerance_ft,
                     frame=self.visit.model.frame, heading_true_deg=self.heading.deg)

    def on_fix(self, fix: Any, guide: bool = True) -> Guidance | None:
        """Guidance from ``fix`` (WGS84 lat/lon) to the target, in grid ft of the site's foot.
        Without ``guide`` only the direction of travel and the last position are kept (the
        panel is hidden) and the guidance is left as it was."""
        lat, lon = getattr(fix, "lat_deg", None), getattr(fix, "lon_deg", None)
        if lat is None or lon is None:
            return None
        xy = self.visit.project(lat, lon)
        if xy is None:
            return None
        self.heading.update(fix, xy, self.visit.model.frame)
        self._last = (fix, xy)
        if not guide:
            return None
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
