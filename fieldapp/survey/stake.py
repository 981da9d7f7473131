"""Stake-out: guidance from a fix to a target, and the stake points ("Flag here") it records.

A *target* is a geometry in **grid feet of the site's foot** (``frame.to_ft`` of site-CRS
coordinates, the numbers the map and the rule requests use): a recorded point, a computed line
(the line through the bank points, an OHWM line) or a closed edge (a protective-area edge, the
development envelope, a drainageway buffer edge, a wetland boundary). :func:`guide` turns one fix
into what the crew reads: the distance to the nearest point of the target (ft, grid), its true
bearing (degrees from true north, on the WGS84 ellipsoid, so grid convergence is accounted for),
a turn hint relative to the direction of travel, and whether the fix is "on the line" within the
crew's tolerance.

Signed offset (:attr:`Guidance.offset_ft`, stored in :class:`~fieldapp.survey.features.StakePoint`):

- a closed edge: positive outside the ring, negative inside;
- an open line: positive right of the line's direction (first vertex to last), negative left;
- a point: the distance (>= 0).

:class:`StakeCommands` holds the visit's commands (``add_stake_point``, ``mark_superseded``);
:class:`~fieldapp.survey.visit.Visit` composes it.

Examples
--------
>>> from shapely.geometry import LineString
>>> t = Target("bank_line", "Bank line", LineString([(0, 0), (0, 100)]))
>>> g = guide(t, 3.0, 50.0, tolerance_ft=0.5)
>>> g.distance_ft, g.offset_ft, g.on_line
(3.0, 3.0, False)
>>> guide(t, -0.25, 10.0, tolerance_ft=0.5).on_line
True
>>> turn_hint(90.0, 0.0)
('right', 90.0)
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

import shapely
from shapely.geometry import LinearRing, Point, Polygon
from shapely.ops import nearest_points

from .. import geo
from ..geo import SiteFrame
from . import values as V
from .core import VisitCore, new_of
from .features import Action, Change, Layer, StakePoint
from .validation import ms

__all__ = ["Target", "Guidance", "guide", "turn_hint", "signature", "true_bearing_deg",
           "Heading", "StakeCommands", "AHEAD_DEG", "verdict_of"]

#: Within this many degrees of the direction of travel the hint is "ahead".
AHEAD_DEG = 15.0
#: Beyond this many degrees the hint is "turn around".
BEHIND_DEG = 150.0


def verdict_of(target_key: str) -> str:
    """The check (verdict) a stake-out target comes from, by the target's key: ``bank`` for
    the bank line through all bank points, ``""`` for a recorded point, else the check id.

    >>> verdict_of("protective_area:ohwm:7:0"), verdict_of("envelope:1"), verdict_of("bank_line")
    ('protective_area', 'development_area', 'bank')
    >>> verdict_of("drainageway:9:0"), verdict_of("bank:5"), verdict_of("point:tree:3")
    ('drainageway:9', 'bank:5', '')
    """
    parts = target_key.split(":")
    head = parts[0]
    if head == "bank_line":
        return "bank"
    if head == "point":
        return ""
    if head == "envelope":
        return "development_area"
    if head == "protective_area" and len(parts) > 1 and parts[1] == "ohwm":
        return "protective_area"
    if head in ("protective_area", "drainageway", "wetland") and len(parts) >= 2:
        return f"{head}:{parts[1]}"
    return target_key


def signature(geom: Any) -> str:
    """A fingerprint of a target's geometry: its vertices rounded to 0.01 ft (16 hex digits).

    Two computations of the same line give the same signature; a line moved by more than about
    0.005 ft gives another (the stake point's target is then superseded).
    """
    rounded = shapely.set_precision(geom, 0.01)
    return hashlib.sha1(shapely.to_wkb(rounded, hex=False, byte_order=1)).hexdigest()[:16]


@dataclass(frozen=True)
class Target:
    """A stake-out target: ``key`` (stable across edits: which verdict and which part),
    ``label`` in words, ``geometry`` (shapely, grid feet; a closed ring is an edge),
    ``verdict`` the check key whose verdict it comes from ("" for a recorded point)."""

    key: str
    label: str
    geometry: Any
    verdict: str = ""
    signature: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not self.signature:
            object.__setattr__(self, "signature", signature(self.geometry))

    @property
    def kind(self) -> str:
        """``point``, ``edge`` (a closed ring) or ``line``."""
        g = self.geometry
        if g.geom_type == "Point":
            return "point"
        if g.geom_type == "LinearRing" or (g.geom_type == "LineString" and g.is_closed):
            return "edge"
        return "line"


@dataclass(frozen=True)
class Guidance:
    """What one fix says about a target.

    ``distance_ft``: grid distance (ft) to the nearest point of the target (shapely);
    ``offset_ft``: signed, see the module docstring; ``nearest``: that point (grid ft);
    ``bearing_true_deg``: true bearing to it, 0-360 (None when standing on it);
    ``turn``: ``ahead``, ``left``, ``right``, ``around`` or ``""`` (no direction of travel yet),
    ``turn_deg`` the signed angle (positive = turn right); ``on_line``: within the tolerance.
    """

    distance_ft: float
    offset_ft: float
    nearest: tuple[float, float]
    bearing_true_deg: float | None
    turn: str
    turn_deg: float | None
    on_line: bool
    tolerance_ft: float


def true_bearing_deg(frame: SiteFrame, from_ft: tuple[float, float],
                     to_ft: tuple[float, float]) -> float:
    """True bearing (degrees clockwise from true north, 0-360) between two points given in grid
    feet of ``frame``'s foot: the forward azimuth of the WGS84 geodesic (pyproj ``Geod.inv``)."""
    lon1, lat1 = frame.to_lonlat(frame.from_ft(from_ft[0]), frame.from_ft(from_ft[1]))
    lon2, lat2 = frame.to_lonlat(frame.from_ft(to_ft[0]), frame.from_ft(to_ft[1]))
    az, _, _ = geo.WGS84.inv(float(lon1), float(lat1), float(lon2), float(lat2))
    return float(az) % 360.0


def turn_hint(bearing_deg: float | None, heading_deg: float | None) -> tuple[str, float | None]:
    """(hint, signed angle) from the bearing to the target and the direction of travel, both
    degrees true: ``ahead`` within :data:`AHEAD_DEG`, ``around`` beyond :data:`BEHIND_DEG`,
    else ``right`` (positive angle) or ``left``; ``("", None)`` when either is unknown."""
    if bearing_deg is None or heading_deg is None:
        return "", None
    rel = (bearing_deg - heading_deg + 180.0) % 360.0 - 180.0
    if abs(rel) <= AHEAD_DEG:
        return "ahead", rel
    if abs(rel) >= BEHIND_DEG:
        return "around", rel
    return ("right" if rel > 0 else "left"), rel


def _signed_offset(target: Target, p: Point, distance: float) -> float:
    g = target.geometry
    kind = target.kind
    if kind == "point" or distance == 0.0:
        return distance
    if kind == "edge":
        return -distance if Polygon(LinearRing(g.coords)).contains(p) else distance
    s = g.project(p)
    a = g.interpolate(max(s - 0.05, 0.0))
    b = g.interpolate(min(s + 0.05, g.length))
    n = g.interpolate(s)
    cross = (b.x - a.x) * (p.y - n.y) - (b.y - a.y) * (p.x - n.x)
    return -distance if cross > 0 else distance    # left of the direction is negative


def guide(target: Target, x_ft: float, y_ft: float, *, tolerance_ft: float,
          frame: SiteFrame | None = None, heading_true_deg: float | None = None) -> Guidance:
    """Guidance from the position (grid ft) to ``target``; see :class:`Guidance`.

    ``frame`` is needed for the true bearing (None without it); ``heading_true_deg`` is the
    direction of travel (degrees true; :class:`Heading`). Raises InvalidValue for a tolerance
    that is not a positive number of feet.
    """
    tol = V.positive("tolerance_ft", tolerance_ft)
    p = Point(float(x_ft), float(y_ft))
    g = target.geometry
    distance = float(g.distance(p))
    nearest = nearest_points(g, p)[0] if distance > 0 else p
    bearing = None
    if frame is not None and distance > 1e-6:
        bearing = true_bearing_deg(frame, (p.x, p.y), (nearest.x, nearest.y))
    turn, turn_deg = turn_hint(bearing, heading_true_deg)
    return Guidance(distance, _signed_offset(target, p, distance), (nearest.x, nearest.y),
                    bearing, turn, turn_deg, distance <= tol, tol)


class Heading:
    """The direction of travel (degrees true) from the fixes: the receiver's course over ground
    (RMC/VTG) while moving at least ``min_speed_mps``, else the bearing between positions at
    least ``min_move_ft`` apart (a standing crew's jitter gives no heading)."""

    def __init__(self, min_speed_mps: float = 0.3, min_move_ft: float = 2.0) -> None:
        self.min_speed_mps = min_speed_mps
        self.min_move_ft = min_move_ft
        self._anchor: tuple[float, float] | None = None
        self.deg: float | None = None

    def update(self, fix: Any, xy_ft: tuple[float, float], frame: SiteFrame | None) -> float | None:
        """Feed a fix and its grid-ft position; returns the heading (None until known)."""
        course = getattr(fix, "course_deg", None)
        speed = getattr(fix, "speed_mps", None)
        if course is not None and speed is not None and speed >= self.min_speed_mps:
            self.deg = float(course) % 360.0
            self._anchor = xy_ft
            return self.deg
        if self._anchor is None:
            self._anchor = xy_ft
        elif math.dist(self._anchor, xy_ft) >= self.min_move_ft and frame is not None:
            self.deg = true_bearing_deg(frame, self._anchor, xy_ft)
            self._anchor = xy_ft
        return self.deg


class StakeCommands(VisitCore):
    """The stake-out commands of :class:`~fieldapp.survey.visit.Visit` (a mixin)."""

    def add_stake_point(self, *, fix: Any, target: Target, guidance: Guidance,
                        notes: str = "") -> StakePoint:
        """Record a flag at ``fix`` (the gate must accept it) for ``target`` with the signed
        offset of ``guidance`` (ft). One undoable command, journalled before memory changes.

        Raises InvalidValue for an unusable fix or a bad tolerance / offset.
        """
        x, y = self._xy(fix=fix)
        sp = StakePoint(
            **self._stamp(), x=x, y=y, target_key=V.text("target_key", target.key, allow_empty=False),
            target_label=V.text("target_label", target.label), target_signature=target.signature,
            offset_ft=float(guidance.offset_ft), tolerance_ft=float(guidance.tolerance_ft),
            quality=None if getattr(fix, "quality", None) is None else int(fix.quality),
            hdop=getattr(fix, "hdop", None), h_accuracy_m=getattr(fix, "horizontal_accuracy_m", None),
            fix_time_utc=ms(getattr(fix, "time_utc", None)), notes=notes,
        )
        return new_of(StakePoint, self._commit([Change(Action.ADDED, Layer.STAKE_POINT, sp)])[0])

    def stake_points(self) -> list[StakePoint]:
        """Every stake point, in the order flagged."""
        return sorted(self.features(Layer.STAKE_POINT), key=lambda s: s.created_utc)

    def mark_superseded(self, targets: Iterable[Target]) -> tuple[Change, ...]:
        """Mark the stake points whose target is among ``targets`` but has moved (another
        signature) as staked to a superseded line; one command, journalled, not on the undo
        stack (it follows from the edit that moved the verdict: undoing that edit is what the
        crew means by Ctrl+Z), nothing when none moved. A superseded flag whose target is
        back where it was flagged (the edit undone) is marked current again. A target that is
        gone altogether (its transect deleted) is not in ``targets`` and leaves its flags as they
        are."""
        now = {t.key: t.signature for t in targets}
        changes = []
        for sp in self.features(Layer.STAKE_POINT):
            sig = now.get(sp.target_key)
            if sig is None or (sig != sp.target_signature) == sp.superseded:
                continue
            # moved: superseded; back where it was flagged (the edit undone): current again
            new = replace(sp, superseded=sig != sp.target_signature, modified_utc=ms(self._clock()))
            changes.append(Change(Action.UPDATED, Layer.STAKE_POINT, new, sp))
        if not changes:
            return ()
        return self._commit(changes, undoable=False)

