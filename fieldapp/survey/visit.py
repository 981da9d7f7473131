"""The site visit: the single source of truth in memory, with commands, events and undo.

A :class:`Visit` holds the :class:`~fieldapp.survey.features.Site` and every feature by layer.
The UI sends commands (``add_station``, ``delete_tree``, ``start_walk(...).close()`` …); each
command validates its input, builds the changes, hands them to the *journal* (the GeoPackage
store, if attached) which commits them in one transaction, and only then applies them in memory
and tells the listeners. A journal that fails leaves the model as it was, so memory and file
never disagree and nothing is half-written.

Events
------
``visit.subscribe(listener)`` registers ``listener(changes)``, called after each command with a
tuple of :class:`~fieldapp.survey.features.Change` (``action``, ``layer``, ``new``, ``old``).
It returns a function that unsubscribes. Listener errors are logged, never raised into the
command (the record is already safe).

Undo
----
``visit.undo()`` reverts the last command (adds, updates, deletes; the raw track is not on the
undo stack). Deleted features stay in ``visit.recycle_bin`` for the session and
``visit.restore(uuid)`` brings one back with its uuid (a deleted tree is never lost by a slip).
"""

from __future__ import annotations

import getpass
import logging
import math
import socket
import uuid as uuidlib
from dataclasses import replace
from datetime import date, datetime, timezone
from typing import Callable, Iterable, Protocol, Sequence

import shapely
from shapely.geometry import LineString

from ..geo import FOOT_INTERNATIONAL_M, SiteFrame
from . import canopy
from . import values as V
from .boundary import BoundaryWalk
from .errors import InvalidValue, NotFound, StateError
from .features import (LAYER_OF, Action, AreaFeature, AreaKind, Change, Feature, Layer, LeafHabit,
                       LineFeature, LineKind, Note, OhwmLine, OhwmPoint, PointMethod, Site, Station,
                       Susceptibility, TrackPoint, Transect, Tree, TreeStatus, Walk, WalkState,
                       WalkVertex, WaterFeature)
from .gnss import (DEFAULT_GATE, AveragedPosition, North, QualityGate, average_fixes,
                   horizontal_from_slope_ft, true_azimuth)
from .validation import PARENTS, REFERENCE_FIELD, enum_value, ms, validate, validated_site
from .validation import line as valid_line
from .validation import polygon as valid_polygon

__all__ = ["Visit", "Journal", "default_who", "validate"]

log = logging.getLogger(__name__)

GEOMETRY_LAYERS = {l for l in Layer if l is not Layer.SITE}


class Journal(Protocol):
    """Where commands are made durable before memory changes (``fieldapp.store.VisitStore``)."""

    def apply(self, changes: Sequence[Change]) -> None:
        """Commit all ``changes`` atomically or raise and commit none."""


def default_who() -> str:
    """``user@laptop`` for ``created_by``."""
    try:
        user = getpass.getuser()
    except Exception:  # noqa: BLE001 - no login name in some service contexts
        user = "unknown"
    return f"{user}@{socket.gethostname() or 'unknown'}"


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


def _layer(layer) -> Layer:
    try:
        return Layer(layer)
    except ValueError as exc:
        raise InvalidValue("layer", f"unknown layer {layer!r}") from exc


class Visit:
    """One day's field work at one site (see module docstring).

    Parameters
    ----------
    site : Site
    who : str, optional
        ``created_by`` for new features (default ``user@hostname``).
    clock : callable returning a tz-aware UTC datetime, optional
    gate : QualityGate
        Which fixes are usable (track, walks, averaging).
    """

    def __init__(
        self,
        site: Site,
        *,
        who: str | None = None,
        clock: Callable[[], datetime] | None = None,
        gate: QualityGate = DEFAULT_GATE,
    ) -> None:
        self.who = who or default_who()
        self._clock = clock or _utc_now
        self.gate = gate
        self._site = site
        self._frame = SiteFrame(site.crs) if site.crs else None
        self._data: dict[Layer, dict[str, Feature]] = {l: {} for l in GEOMETRY_LAYERS}
        self._children: dict[tuple[Layer, str], dict[str, Feature]] = {}
        self._listeners: list[Callable] = []
        self._journal: Journal | None = None
        self._undo: list[tuple[Change, ...]] = []
        self.recycle_bin: dict[str, Change] = {}
        self.recording_track = False
        # Highest tree tag seen in this session (loaded, added, restored or updated); never
        # lowered by a delete or an undo, so a deleted tree brought back by undo / restore can
        # never share its tag with one tallied since. Kept by _apply_memory: O(1) per tree.
        self._max_tag = 0

    # ---------------------------------------------------------------- construction
    @classmethod
    def new(
        cls,
        name: str,
        visit_date: date | None = None,
        *,
        crew: Iterable[str] = (),
        device_ids: dict[str, str] | None = None,
        priority_waterway: bool = False,
        water_features: Iterable[WaterFeature] = (),
        crs=None,
        antenna_height_m: float = 0.0,
        declination_deg: float = 0.0,
        notes: str = "",
        who: str | None = None,
        clock: Callable[[], datetime] | None = None,
        gate: QualityGate = DEFAULT_GATE,
    ) -> "Visit":
        """A new visit with a new site record (validated; ``crs`` None = UTM of the first fix)."""
        clock = clock or _utc_now
        who = who or default_who()
        now = ms(clock())
        crs_text = None
        if crs is not None:
            crs_text = _crs_text(SiteFrame(crs))
        site = Site(
            uuid=str(uuidlib.uuid4()),
            created_utc=now,
            modified_utc=now,
            created_by=who,
            name=V.text("name", name, allow_empty=False),
            visit_date=visit_date or now.date(),
            crs=crs_text,
        )
        site = validated_site(
            site,
            crew=crew,
            device_ids=device_ids or {},
            priority_waterway=priority_waterway,
            water_features=water_features,
            antenna_height_m=antenna_height_m,
            declination_deg=declination_deg,
            notes=notes,
        )
        return cls(site, who=who, clock=clock, gate=gate)

    @classmethod
    def from_records(cls, site: Site, records: Iterable[Feature], **kwargs) -> "Visit":
        """Rebuild a visit from stored records (no journal, no events)."""
        visit = cls(site, **kwargs)
        for rec in records:
            visit._apply_memory(Change(Action.ADDED, LAYER_OF[type(rec)], rec))
        return visit

    # ---------------------------------------------------------------- plumbing
    def subscribe(self, listener: Callable[[tuple[Change, ...]], None]) -> Callable[[], None]:
        """Call ``listener(changes)`` after every command; returns an unsubscribe function."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def attach_journal(self, journal: Journal | None) -> None:
        """Make ``journal.apply(changes)`` the first step of every command (None detaches)."""
        self._journal = journal

    @property
    def journal(self) -> Journal | None:
        return self._journal

    def _stamp(self) -> dict:
        now = ms(self._clock())
        return dict(uuid=str(uuidlib.uuid4()), created_utc=now, modified_utc=now, created_by=self.who)

    def _commit(self, changes: Sequence[Change], *, undoable: bool = True) -> tuple[Change, ...]:
        changes = tuple(changes)
        if not changes:
            return changes
        # every record, however it was built, meets the same rules (a coerced one is a copy)
        changes = tuple(self._validated(ch) for ch in changes)
        self._check_parents(changes)
        if self._journal is not None:
            self._journal.apply(changes)  # raises: nothing applied, nothing half-written
        for ch in changes:
            self._apply_memory(ch)
            if ch.action is Action.REMOVED and ch.layer is not Layer.TRACK:
                self.recycle_bin[ch.old.uuid] = ch
            elif ch.action is Action.ADDED:
                self.recycle_bin.pop(ch.new.uuid, None)
        if undoable:
            self._undo.append(changes)
        for listener in list(self._listeners):
            try:
                listener(changes)
            except Exception:  # noqa: BLE001 - a view's bug must not undo a safe record
                log.exception("survey listener %r failed", listener)
        return changes

    def _validated(self, ch: Change) -> Change:
        """``ch`` whose new record passed :func:`validate` (with a corrected copy if need be)."""
        if ch.new is None:
            return ch
        new = validate(ch.new, self._frame)
        return ch if new is ch.new else replace(ch, new=new)

    def _check_parents(self, changes: Sequence[Change]) -> None:
        """Refuse changes that would leave a child without its parent (StateError).

        A station, OHWM point or walk vertex must name an existing transect, OHWM line or walk
        (one the same changes do not remove, or that they add); a removed parent must take its
        children with it. The store refuses a file breaking this, so the model never writes one.
        """
        added: dict[Layer, set[str]] = {}
        removed: dict[Layer, set[str]] = {}
        for ch in changes:
            if ch.new is not None:
                added.setdefault(ch.layer, set()).add(ch.new.uuid)
            if ch.action is Action.REMOVED:
                removed.setdefault(ch.layer, set()).add(ch.old.uuid)
        for ch in changes:
            ref = PARENTS.get(ch.layer)
            if ref is None or ch.new is None:
                continue
            parent_layer, parent = ref.layer, getattr(ch.new, ref.field)
            if parent in added.get(parent_layer, ()):
                continue
            if parent not in self._data[parent_layer] or parent in removed.get(parent_layer, ()):
                raise StateError(f"{ch.layer.value} {ch.new.uuid}: its {parent_layer.value} {parent} "
                                 f"is not in the visit (bring the {parent_layer.value} back first)")
        for child_layer, ref in PARENTS.items():
            gone = removed.get(ref.layer)
            if not gone:
                continue
            leaving = removed.get(child_layer, set())
            for parent in gone:
                for uuid in self._children.get((child_layer, parent), {}):
                    if uuid not in leaving:
                        raise StateError(f"{ref.layer.value} {parent} cannot go while its "
                                         f"{child_layer.value} {uuid} stays")

    def _apply_memory(self, ch: Change) -> None:
        if ch.layer is Layer.SITE:
            self._site = ch.new
            if ch.new.crs and (self._frame is None or _crs_text(self._frame) != ch.new.crs):
                self._frame = SiteFrame(ch.new.crs)
            return
        table = self._data[ch.layer]
        pf = PARENTS[ch.layer].field if ch.layer in PARENTS else None
        if ch.layer is Layer.TREE and ch.new is not None and ch.new.tag > self._max_tag:
            self._max_tag = ch.new.tag
        if ch.action is Action.REMOVED:
            table.pop(ch.old.uuid, None)
            if pf:
                self._children.get((ch.layer, getattr(ch.old, pf)), {}).pop(ch.old.uuid, None)
        else:
            table[ch.new.uuid] = ch.new
            if pf:
                self._children.setdefault((ch.layer, getattr(ch.new, pf)), {})[ch.new.uuid] = ch.new

    # ---------------------------------------------------------------- queries
    @property
    def site(self) -> Site:
        return self._site

    @property
    def frame(self) -> SiteFrame:
        """The site's projected CRS. Raises StateError before the CRS is known."""
        if self._frame is None:
            raise StateError("the site CRS is not set yet (no usable fix and no EPSG chosen)")
        return self._frame

    @property
    def has_frame(self) -> bool:
        return self._frame is not None

    def get(self, layer, uuid: str) -> Feature:
        """The feature ``uuid`` of ``layer``; raises NotFound."""
        layer = _layer(layer)
        if layer is Layer.SITE:
            return self._site
        try:
            return self._data[layer][uuid]
        except KeyError:
            raise NotFound(f"no {layer.value} with uuid {uuid!r}") from None

    def features(self, layer) -> list:
        """All features of ``layer`` (in insertion order; children also by ``seq``)."""
        layer = _layer(layer)
        if layer is Layer.SITE:
            return [self._site]
        return list(self._data[layer].values())

    def children(self, layer, parent_uuid: str) -> list:
        """Children of a parent (stations of a transect, points of a line …) sorted by seq."""
        layer = _layer(layer)
        return sorted(self._children.get((layer, parent_uuid), {}).values(), key=lambda f: f.seq)

    def _walk_vertices(self, walk_uuid: str) -> list[WalkVertex]:
        return self.children(Layer.WALK_VERTEX, walk_uuid)

    def __len__(self) -> int:
        return sum(len(t) for t in self._data.values())

    # ---------------------------------------------------------------- generic commands
    def _referred(self, name: str, layer: Layer, uuid) -> None:
        """A reference ``name`` to ``uuid`` of ``layer``: a UUID of a record in the visit."""
        V.uuid_text(name, uuid)
        if uuid not in self._data[layer]:
            raise InvalidValue(name, f"no {layer.value} with uuid {uuid!r} in the visit")

    def _update(self, layer, uuid: str, **fields) -> Feature:
        layer = _layer(layer)
        old = self.get(layer, uuid)
        new = validate(replace(old, modified_utc=ms(self._clock()), **fields))
        return self._commit([Change(Action.UPDATED, layer, new, old)])[0].new

    def update_feature(self, layer, uuid: str, **fields) -> Feature:
        """Change attributes of a feature (validated like a new one); returns the new version."""
        layer = _layer(layer)
        for banned in ("uuid", "created_utc", "created_by", "modified_utc", PARENTS[layer].field if layer in PARENTS else None):
            if banned in fields:
                raise InvalidValue(banned, "is set by the model")
        for name, value in fields.items():
            target = REFERENCE_FIELD.get((layer, name))
            if target is not None and value is not None:
                self._referred(name, target, value)
        if layer is Layer.TREE:
            return self.update_tree(uuid, **fields)
        if layer is Layer.LINE and fields.get("mapped_stream") is not None:
            kind = enum_value(LineKind, fields.get("kind", self.get(layer, uuid).kind), "kind")
            _check_mapped_stream(kind, fields["mapped_stream"])
        return self._update(layer, uuid, **fields)

    def delete(self, layer, uuid: str) -> tuple[Change, ...]:
        """Delete a feature (and its children); recoverable with ``undo`` / ``restore``."""
        layer = _layer(layer)
        old = self.get(layer, uuid)
        changes = [Change(Action.REMOVED, layer, None, old)]
        for child_layer, ref in PARENTS.items():
            if ref.layer is layer:
                changes = [Change(Action.REMOVED, child_layer, None, c) for c in self.children(child_layer, uuid)] + changes
        if layer is Layer.OHWM_POINT:
            changes += self._line_geometry_change(old.line_uuid, removing=uuid)
        if layer is Layer.STATION:
            changes += self._station_restack(old.transect_uuid, removing=uuid)
        return self._commit(changes)

    def undo(self) -> tuple[Change, ...] | None:
        """Revert the last undoable command; returns the changes applied (None if nothing)."""
        if not self._undo:
            return None
        last = self._undo.pop()
        inverse = [ch.inverse() for ch in reversed(last)]
        # children added since by commands off the undo stack (a walk's vertices) go with
        # their parent: undoing start_walk removes the walk and every vertex taken
        leaving = {(ch.layer, ch.old.uuid) for ch in inverse if ch.action is Action.REMOVED}
        orphans = [Change(Action.REMOVED, child_layer, None, c)
                   for ch in inverse if ch.action is Action.REMOVED
                   for child_layer, ref in PARENTS.items() if ref.layer is ch.layer
                   for c in self.children(child_layer, ch.old.uuid)
                   if (child_layer, c.uuid) not in leaving]
        return self._commit(orphans + inverse, undoable=False)

    def restore(self, uuid: str) -> Feature:
        """Bring back a feature deleted in this session (same uuid)."""
        ch = self.recycle_bin.get(uuid)
        if ch is None:
            raise NotFound(f"nothing deleted with uuid {uuid!r} in this session")
        self._commit([ch.inverse()])
        return ch.old

    # ---------------------------------------------------------------- site and CRS
    def update_site(self, **fields) -> Site:
        """Change site attributes (name, crew, device_ids, priority_waterway, water_features,
        antenna_height_m, declination_deg, notes, visit_date); ``crs`` goes to :meth:`set_crs`."""
        if "crs" in fields:
            self.set_crs(fields.pop("crs"))
        if not fields:
            return self._site
        old = self._site
        new = validated_site(replace(old, modified_utc=ms(self._clock())), **fields)
        return self._commit([Change(Action.UPDATED, Layer.SITE, new, old)])[0].new

    def set_crs(self, crs) -> SiteFrame:
        """Choose the site CRS (EPSG code, ``"EPSG:3070"``, WKT …) before geometry exists.

        Raises ``StateError`` once any geometry is recorded, ``UnsuitableCRS`` for a bad CRS.
        """
        frame = SiteFrame(crs)
        if len(self):
            raise StateError("the site CRS cannot change once features are recorded")
        old = self._site
        new = replace(old, crs=_crs_text(frame), modified_utc=ms(self._clock()))
        self._commit([Change(Action.UPDATED, Layer.SITE, new, old)], undoable=False)
        self._frame = frame
        return frame

    def ensure_frame(self, fix=None) -> SiteFrame:
        """The site frame, picking the UTM zone of ``fix`` if none is set yet."""
        if self._frame is None:
            if fix is None or not self.gate.usable(fix):
                raise StateError("the site CRS is not set yet and no usable fix was given")
            self.set_crs(SiteFrame.for_position(fix.lat_deg, fix.lon_deg).crs)
        return self._frame

    def _xy(self, x=None, y=None, fix=None, *, name="position") -> tuple[float, float]:
        if fix is not None:
            reason = self.gate.explain(fix)
            if reason is not None:
                raise InvalidValue("fix", f"not usable ({reason})")
            frame = self.ensure_frame(fix)
            fx, fy = frame.to_local(fix.lon_deg, fix.lat_deg)
            return float(fx), float(fy)
        if x is None or y is None:
            raise InvalidValue(name, "give x and y (site CRS units) or a fix")
        self.frame  # a position needs a CRS
        return V.finite("x", x), V.finite("y", y)

    # ---------------------------------------------------------------- OHWM
    def add_ohwm_line(self, label: str = "", water_feature: str | None = None) -> OhwmLine:
        """Start a new OHWM line (points are added with ``add_ohwm_point``)."""
        line = OhwmLine(**self._stamp(), label=V.text("label", label), water_feature=water_feature)
        return self._commit([Change(Action.ADDED, Layer.OHWM_LINE, line)])[0].new

    def _line_for(self, line_uuid: str | None) -> tuple[str, list[Change]]:
        if line_uuid is not None:
            self.get(Layer.OHWM_LINE, line_uuid)
            return line_uuid, []
        lines = self.features(Layer.OHWM_LINE)
        if lines:
            return lines[-1].uuid, []
        line = OhwmLine(**self._stamp(), label="OHWM 1")
        return line.uuid, [Change(Action.ADDED, Layer.OHWM_LINE, line)]

    def _line_geometry_change(self, line_uuid, *, adding=None, removing=None, pending=None):
        """The UPDATED change of a line whose points change (geometry follows point order)."""
        pts = [p for p in self.children(Layer.OHWM_POINT, line_uuid) if p.uuid != removing]
        if adding is not None:
            pts.append(adding)
        geom = LineString([(p.x, p.y) for p in pts]) if len(pts) >= 2 else None
        old = pending if pending is not None else self.get(Layer.OHWM_LINE, line_uuid)
        new = replace(old, geometry=geom, modified_utc=ms(self._clock()))
        if pending is not None:
            return [Change(Action.ADDED, Layer.OHWM_LINE, new)]
        return [Change(Action.UPDATED, Layer.OHWM_LINE, new, old)]

    def _add_point(self, line_uuid, **fields) -> OhwmPoint:
        line_uuid, pre = self._line_for(line_uuid)
        pending = pre[0].new if pre else None
        seq = max((p.seq for p in self.children(Layer.OHWM_POINT, line_uuid)), default=-1) + 1
        pt = OhwmPoint(**self._stamp(), line_uuid=line_uuid, seq=seq, **fields)
        pt = validate(pt)
        return self._commit(self._line_geometry_change(line_uuid, adding=pt, pending=pending)
                            + [Change(Action.ADDED, Layer.OHWM_POINT, pt)])[-1].new

    def add_ohwm_point(self, position: AveragedPosition, line_uuid: str | None = None) -> OhwmPoint:
        """Add an averaged OHWM point (from :meth:`average`) to a line (default: the last one)."""
        return self._add_point(line_uuid, **_gnss_fields(position), method=PointMethod.AVERAGED)

    def average(self, fixes: Iterable, *, min_epochs: int = 1) -> AveragedPosition:
        """Average usable epochs (visit gate, site antenna height) into a site-CRS position.

        The site CRS is picked from the first usable fix if not set. Raises NotEnoughEpochs.
        """
        fixes = list(fixes)
        if self._frame is None:
            first = next((f for f in fixes if self.gate.usable(f)), None)
            self.ensure_frame(first)
        return average_fixes(
            fixes, self.frame, min_epochs=min_epochs, gate=self.gate,
            antenna_height_m=self._site.antenna_height_m,
        )

    def add_ohwm_offset_point(
        self,
        standing,
        azimuth_deg: float | None = None,
        *,
        north: North = North.TRUE,
        horizontal_ft: float | None = None,
        slope_distance_ft: float | None = None,
        inclination_deg: float | None = None,
        shot=None,
        reading_id: str | None = None,
        line_uuid: str | None = None,
    ) -> OhwmPoint:
        """Add an OHWM point shot from where the crew stands (offset point).

        Parameters
        ----------
        standing : AveragedPosition, a fix, or (x, y) in site CRS units
            Where the instrument stands.
        azimuth_deg : float
            Bearing to the target, degrees; with ``north=North.MAGNETIC`` the site's
            ``declination_deg`` (east positive) is added.
        horizontal_ft, or slope_distance_ft and inclination_deg, or shot
            Horizontal distance (international ft), or HD = SD·cos(inclination), or a
            rangefinder shot (``horizontal_distance_ft``/``slope_distance_ft``,
            ``inclination_deg``, ``azimuth_deg``).

        The target is solved on the ellipsoid (``Geod.fwd``) and projected.
        """
        gnss = {}
        if isinstance(standing, AveragedPosition):
            sx, sy = standing.x, standing.y
            gnss = _gnss_fields(standing)
        elif isinstance(standing, tuple):
            sx, sy = self._xy(*standing)
        else:
            sx, sy = self._xy(fix=standing)
            gnss = dict(worst_fix_quality=int(standing.quality), sample_count=1,
                        hdop=getattr(standing, "hdop", None),
                        h_accuracy_m=getattr(standing, "horizontal_accuracy_m", None),
                        fix_time_utc=ms(getattr(standing, "time_utc", None)))
        if shot is not None:
            if azimuth_deg is None:
                azimuth_deg = getattr(shot, "azimuth_deg", None)
            horizontal_ft = horizontal_ft if horizontal_ft is not None else getattr(shot, "horizontal_distance_ft", None)
            slope_distance_ft = slope_distance_ft if slope_distance_ft is not None else getattr(shot, "slope_distance_ft", None)
            inclination_deg = inclination_deg if inclination_deg is not None else getattr(shot, "inclination_deg", None)
            reading_id = reading_id or _reading_id(shot)
        if azimuth_deg is None:
            raise InvalidValue("azimuth_deg", "an offset point needs an azimuth")
        az = true_azimuth(azimuth_deg, north, self._site.declination_deg)
        if horizontal_ft is None:
            if slope_distance_ft is None or inclination_deg is None:
                raise InvalidValue("horizontal_ft", "give horizontal_ft, or slope_distance_ft and inclination_deg")
            horizontal_ft = horizontal_from_slope_ft(slope_distance_ft, inclination_deg)
        hd = V.in_range("horizontal_ft", horizontal_ft, 0.0, V.MAX_HORIZONTAL_FT)
        tx, ty = self.frame.forward(sx, sy, az, hd * FOOT_INTERNATIONAL_M / self.frame.foot.metres)
        gnss.pop("x", None), gnss.pop("y", None)
        return self._add_point(
            line_uuid, x=float(tx), y=float(ty), method=PointMethod.OFFSET,
            standing_x=sx, standing_y=sy, azimuth_true_deg=az, horizontal_distance_ft=hd,
            reading_id=reading_id, **gnss,
        )

    def ohwm_geometry(self, line_uuid: str | None = None):
        """The OHWM LineString (site CRS), None below two points."""
        lines = self.features(Layer.OHWM_LINE)
        if line_uuid is None:
            if not lines:
                return None
            line_uuid = lines[-1].uuid
        return self.get(Layer.OHWM_LINE, line_uuid).geometry

    # ---------------------------------------------------------------- transects
    def add_transect(
        self,
        azimuth_deg: float,
        *,
        origin: tuple[float, float] | None = None,
        ohwm_point_uuid: str | None = None,
        line_uuid: str | None = None,
        north: North = North.TRUE,
        label: str = "",
        origin_elevation_ft: float | None = None,
        stipulated: bool = False,
    ) -> Transect:
        """A transect from the OHWM, landward on ``azimuth_deg``.

        The origin is an OHWM point, or ``origin`` (x, y) moved onto the nearest point of the
        OHWM line when there is one. ``origin_elevation_ft`` lets stations carry elevations.
        ``stipulated``: the bank distance is stipulated here (see :meth:`set_stipulated`).
        """
        az = true_azimuth(azimuth_deg, north, self._site.declination_deg)
        if ohwm_point_uuid is not None:
            p = self.get(Layer.OHWM_POINT, ohwm_point_uuid)
            ox, oy, line_uuid = p.x, p.y, p.line_uuid
        elif origin is not None:
            ox, oy = self._xy(*origin, name="origin")
            geom = self.ohwm_geometry(line_uuid)
            if geom is not None:
                snapped = geom.interpolate(geom.project(shapely.Point(ox, oy)))
                ox, oy = snapped.x, snapped.y
                if line_uuid is None:
                    line_uuid = self.features(Layer.OHWM_LINE)[-1].uuid
        else:
            raise InvalidValue("origin", "give origin (x, y) or ohwm_point_uuid")
        t = Transect(
            **self._stamp(), label=V.text("label", label) or f"T{len(self._data[Layer.TRANSECT]) + 1}",
            line_uuid=line_uuid, origin_x=float(ox), origin_y=float(oy), azimuth_true_deg=az,
            origin_elevation_ft=V.optional_finite("origin_elevation_ft", origin_elevation_ft),
            stipulated=V.boolean("stipulated", stipulated),
        )
        return self._commit([Change(Action.ADDED, Layer.TRANSECT, t)])[0].new

    def stations(self, transect_uuid: str) -> list[Station]:
        """Stations of a transect in order (landward)."""
        self.get(Layer.TRANSECT, transect_uuid)
        return self.children(Layer.STATION, transect_uuid)

    def add_station(
        self,
        transect_uuid: str,
        *,
        horizontal_ft: float | None = None,
        slope_pct: float | None = None,
        slope_deg: float | None = None,
        slope_distance_ft: float | None = None,
        inclination_deg: float | None = None,
        shot=None,
        toward_water: bool = False,
        elevation_ft: float | None = None,
        interruption: bool = False,
        reading_id: str | None = None,
    ) -> Station:
        """Add the next station: the segment from the previous station (or the OHWM).

        Give the segment's horizontal length (``horizontal_ft``, or ``slope_distance_ft`` which
        is reduced with the slope: HD = SD·cos(incl) = SD/√(1+(pct/100)²)) and its slope
        (``slope_pct``, ``slope_deg``, or ``inclination_deg``: pct = 100·tan), or a rangefinder
        ``shot``. Slope is positive when the ground rises landward; a shot taken looking back
        toward the water has ``toward_water=True`` and its inclination's sign is flipped.
        Elevation is taken as given, else carried from the previous one by the slope when the
        origin elevation is known.

        Raises
        ------
        InvalidValue
            Non-finite input, slope beyond ±89°, zero or negative horizontal length.
        """
        t = self.get(Layer.TRANSECT, transect_uuid)
        if shot is not None:
            horizontal_ft = horizontal_ft if horizontal_ft is not None else getattr(shot, "horizontal_distance_ft", None)
            slope_distance_ft = slope_distance_ft if slope_distance_ft is not None else getattr(shot, "slope_distance_ft", None)
            if inclination_deg is None and slope_pct is None and slope_deg is None:
                inclination_deg = getattr(shot, "inclination_deg", None)
                if inclination_deg is None:
                    slope_pct = getattr(shot, "slope_pct", None)
            reading_id = reading_id or _reading_id(shot)
        if inclination_deg is not None and slope_pct is None and slope_deg is None:
            slope_deg = V.in_range("inclination_deg", inclination_deg, -V.MAX_SLOPE_DEG, V.MAX_SLOPE_DEG)
        pct = V.slope_pct_from(slope_pct, slope_deg)
        if V.boolean("toward_water", toward_water):
            pct = -pct
        if horizontal_ft is None:
            if slope_distance_ft is None:
                raise InvalidValue("horizontal_ft", "give horizontal_ft or slope_distance_ft")
            sd = V.in_range("slope_distance_ft", slope_distance_ft, 0.0, V.MAX_HORIZONTAL_FT, low_open=True)
            horizontal_ft = sd / math.sqrt(1.0 + (pct / 100.0) ** 2)
        seg = V.in_range("horizontal_ft", horizontal_ft, 0.0, V.MAX_HORIZONTAL_FT, low_open=True)
        prev = self.children(Layer.STATION, transect_uuid)
        last_d = prev[-1].distance_ft if prev else 0.0
        last_e = prev[-1].elevation_ft if prev else t.origin_elevation_ft
        if elevation_ft is None and last_e is not None:
            elevation_ft = last_e + seg * pct / 100.0
        dist = last_d + seg
        x, y = self._station_xy(t, dist)
        st = Station(
            **self._stamp(), transect_uuid=transect_uuid, seq=(prev[-1].seq + 1) if prev else 0,
            distance_ft=dist, segment_ft=seg, slope_pct=pct, x=x, y=y,
            slope_distance_ft=V.optional_finite("slope_distance_ft", slope_distance_ft),
            inclination_deg=V.optional_finite("inclination_deg", inclination_deg),
            elevation_ft=V.optional_finite("elevation_ft", elevation_ft),
            reading_id=reading_id, interruption=V.boolean("interruption", interruption),
        )
        changes = [Change(Action.ADDED, Layer.STATION, st)]
        changes += self._transect_geometry_change(t, [*prev, st])
        return self._commit(changes)[0].new

    def _station_xy(self, t: Transect, distance_ft: float) -> tuple[float, float]:
        x, y = self.frame.forward(t.origin_x, t.origin_y, t.azimuth_true_deg,
                                  distance_ft * FOOT_INTERNATIONAL_M / self.frame.foot.metres)
        return float(x), float(y)

    def _transect_geometry_change(self, t: Transect, stations: list[Station]) -> list[Change]:
        geom = LineString([(t.origin_x, t.origin_y), (stations[-1].x, stations[-1].y)]) if stations else None
        new = replace(t, geometry=geom, modified_utc=ms(self._clock()))
        return [Change(Action.UPDATED, Layer.TRANSECT, new, t)]

    def _station_restack(self, transect_uuid: str, removing: str) -> list[Change]:
        t = self.get(Layer.TRANSECT, transect_uuid)
        keep = [s for s in self.children(Layer.STATION, transect_uuid) if s.uuid != removing]
        changes, d, out = [], 0.0, []
        for s in keep:
            d += s.segment_ft
            if abs(d - s.distance_ft) > 1e-9:
                x, y = self._station_xy(t, d)
                new = replace(s, distance_ft=d, x=x, y=y, modified_utc=ms(self._clock()))
                changes.append(Change(Action.UPDATED, Layer.STATION, new, s))
                s = new
            out.append(s)
        return changes + self._transect_geometry_change(t, out)

    def set_interruption(self, station_uuid: str, interruption: bool = True) -> Station:
        """Mark (or clear) a complete interruption at a station (the surveyor decides)."""
        return self._update(Layer.STATION, station_uuid, interruption=V.boolean("interruption", interruption))

    def set_stipulated(self, transect_uuid: str, stipulated: bool = True) -> Transect:
        """Mark (or clear) a stipulated bank at a transect, NR 341.035(2)(c).

        The landowner stipulates that the slope continues: the bank is 300 ft (1.), 500 ft on a
        priority waterway (2.), from the OHWM, still capped by a complete interruption
        ((1)(c)). One undoable command; listeners get an UPDATED change of the transect, and
        the transect's ``nr341.bank`` request (:meth:`bank_input`) carries ``stipulated``.

        Raises
        ------
        NotFound
            No such transect.
        InvalidValue
            ``stipulated`` is not a bool.
        """
        return self._update(Layer.TRANSECT, transect_uuid, stipulated=V.boolean("stipulated", stipulated))

    # ------------------------------------------------ rule inputs (built in fieldapp.checks.requests)
    def segments(self, transect_uuid: str) -> list[dict]:
        """``nr341.bank`` ``segments`` of a transect (:func:`fieldapp.checks.requests.segments`)."""
        from ..checks import requests

        return requests.segments(self, transect_uuid)

    def stations_input(self, transect_uuid: str) -> list[dict] | None:
        """``nr341.bank`` ``stations`` (:func:`fieldapp.checks.requests.stations_input`)."""
        from ..checks import requests

        return requests.stations_input(self, transect_uuid)

    def bank_input(self, transect_uuid: str, *, stipulated: bool | None = None) -> dict:
        """The ``input`` of a transect's ``nr341.bank`` request
        (:func:`fieldapp.checks.requests.bank_input`)."""
        from ..checks import requests

        return requests.bank_input(self, transect_uuid, stipulated=stipulated)

    # ---------------------------------------------------------------- trees
    def add_tree(
        self,
        *,
        x: float | None = None,
        y: float | None = None,
        fix=None,
        dbh_in: float | None = None,
        caliper=None,
        species_code: str = "",
        species_name: str = "",
        leaf_habit: LeafHabit | str = LeafHabit.DECIDUOUS,
        dbh_height_ft: float = 4.5,
        crown_radius_ft: float | None = None,
        crown=None,
        status: TreeStatus | str = TreeStatus.LIVE,
        caliper_reading_id: str | None = None,
        notes: str = "",
    ) -> Tree:
        """Tally a tree at (x, y) or at a fix; DBH (in) given or from a caliper reading.

        The tree gets the next tag: one more than the highest tag of this session (the trees
        loaded, and every tree added, restored or updated since, deleted ones included), so
        tags stay unique through delete, undo and restore; a tag deleted in an earlier session
        may be given again after reopening the visit.

        Raises InvalidValue for a missing/negative/absurd DBH (> 500 in), bad crown, NaN.
        """
        if caliper is not None:
            dbh_in = dbh_in if dbh_in is not None else getattr(caliper, "dbh_in", None)
            species_name = species_name or (getattr(caliper, "species_label", None) or "")
            caliper_reading_id = caliper_reading_id or _reading_id(caliper)
        px, py = self._xy(x, y, fix)
        tag = self._max_tag + 1
        tree = Tree(
            **self._stamp(), tag=tag, x=px, y=py, dbh_in=dbh_in, species_code=species_code,
            species_name=species_name, leaf_habit=enum_value(LeafHabit, leaf_habit, "leaf_habit"),
            dbh_height_ft=dbh_height_ft, crown_radius_ft=crown_radius_ft,
            crown=valid_polygon("crown", crown) if crown is not None else None,
            caliper_reading_id=caliper_reading_id, status=enum_value(TreeStatus, status, "status"), notes=notes,
        )
        tree = validate(tree)
        return self._commit([Change(Action.ADDED, Layer.TREE, tree)])[0].new

    def update_tree(self, uuid: str, **fields) -> Tree:
        """Change a tree's attributes (validated); e.g. ``status=TreeStatus.REMOVED``."""
        if "leaf_habit" in fields:
            fields["leaf_habit"] = enum_value(LeafHabit, fields["leaf_habit"], "leaf_habit")
        if "status" in fields:
            fields["status"] = enum_value(TreeStatus, fields["status"], "status")
        if fields.get("crown") is not None:
            fields["crown"] = valid_polygon("crown", fields["crown"])
        return self._update(Layer.TREE, uuid, **fields)

    def delete_tree(self, uuid: str) -> Tree:
        """Delete a tree from the tally; ``undo()`` or ``restore(uuid)`` brings it back."""
        old = self.get(Layer.TREE, uuid)
        self.delete(Layer.TREE, uuid)
        return old

    def deleted_trees(self) -> list[Tree]:
        """Trees deleted in this session and not restored."""
        return [ch.old for ch in self.recycle_bin.values() if ch.layer is Layer.TREE]

    # ---------------------------------------------------------------- polygons and lines
    def add_area(self, kind: AreaKind | str, geometry, *, label: str = "", wetland_type=None,
                 susceptibility=None, standing_water=None, hydric_vegetation=None, notes="",
                 walk_uuid=None) -> AreaFeature:
        """Add a polygon of ``kind``: a shapely (Multi)Polygon or a ring of (x, y) in site CRS.

        Raises InvalidValue for fewer than 3 distinct vertices, NaN, or a self-crossing ring
        (walk it with ``start_walk`` to get the lobe-keeping repair).
        """
        self.frame
        if walk_uuid is not None:
            self._referred("walk_uuid", Layer.WALK, walk_uuid)
        feat = AreaFeature(
            **self._stamp(), kind=enum_value(AreaKind, kind, "kind"), geometry=valid_polygon("geometry", geometry),
            label=V.text("label", label), wetland_type=wetland_type,
            susceptibility=None if susceptibility is None else enum_value(Susceptibility, susceptibility, "susceptibility"),
            standing_water=standing_water, hydric_vegetation=hydric_vegetation, notes=notes, walk_uuid=walk_uuid,
        )
        return self._commit([Change(Action.ADDED, Layer.AREA, validate(feat))])[0].new

    def add_line(self, kind: LineKind | str, geometry, *, label: str = "", channel_width_ft=None,
                 tributary_area_ac=None, notes="", mapped_stream: bool | None = None) -> LineFeature:
        """Add a line of ``kind`` (drainageway centreline, swale, utility trench, drive edge).

        ``mapped_stream`` only for a drainageway centreline (see :meth:`set_mapped_stream`).
        """
        self.frame
        kind = enum_value(LineKind, kind, "kind")
        _check_mapped_stream(kind, mapped_stream)
        feat = LineFeature(
            **self._stamp(), kind=kind, geometry=valid_line("geometry", geometry),
            label=V.text("label", label), channel_width_ft=channel_width_ft,
            tributary_area_ac=tributary_area_ac, notes=notes, mapped_stream=mapped_stream,
        )
        return self._commit([Change(Action.ADDED, Layer.LINE, validate(feat))])[0].new

    def set_mapped_stream(self, line_uuid: str, mapped_stream: bool | None) -> LineFeature:
        """Record whether a drainageway centreline's stream is on the USGS 7.5-minute quadrangle
        or the county soil survey map (True / False), or None for "not checked yet".

        City resource protection, Drainageways A.1: only a mapped stream is a drainageway. One
        undoable command (UPDATED change of the line); the line's ``drainageway`` request
        carries ``mapped_stream`` once it is True or False (``needs_data`` while None).

        Raises
        ------
        NotFound
            No such line.
        InvalidValue
            Not a bool or None, or the line is not a drainageway centreline.
        """
        line = self.get(Layer.LINE, line_uuid)
        _check_mapped_stream(line.kind, mapped_stream)
        return self._update(Layer.LINE, line_uuid, mapped_stream=mapped_stream)

    def area_sqft(self, uuid: str) -> float:
        """Ground area of an area feature (sq ft of the site's foot)."""
        return self.frame.area_sqft(self.get(Layer.AREA, uuid).geometry)

    def wetland_size_input(self, area_uuid: str) -> dict:
        """The ``input`` of a ``wetland.size`` request
        (:func:`fieldapp.checks.requests.wetland_size_input`)."""
        from ..checks import requests

        return requests.wetland_size_input(self, area_uuid)

    # ---------------------------------------------------------------- walks
    def start_walk(self, kind: AreaKind | str, *, label: str = "", spacing_ft: float | None = 10.0,
                   interval_s: float | None = None) -> BoundaryWalk:
        """Start walking a boundary; vertices by distance (ft) and/or time (s)."""
        if spacing_ft is None and interval_s is None:
            raise InvalidValue("spacing_ft", "give spacing_ft or interval_s")
        w = Walk(**self._stamp(), kind=enum_value(AreaKind, kind, "kind"), label=V.text("label", label),
                 spacing_ft=None if spacing_ft is None else V.positive("spacing_ft", spacing_ft),
                 interval_s=None if interval_s is None else V.positive("interval_s", interval_s))
        self._commit([Change(Action.ADDED, Layer.WALK, w)])
        return BoundaryWalk(self, w.uuid)

    def walk(self, uuid: str) -> BoundaryWalk:
        self.get(Layer.WALK, uuid)
        return BoundaryWalk(self, uuid)

    def open_walks(self) -> list[BoundaryWalk]:
        return [BoundaryWalk(self, w.uuid) for w in self.features(Layer.WALK) if w.state is not WalkState.CLOSED]

    def _add_walk_vertex(self, walk_uuid: str, x: float, y: float, t_utc=None) -> WalkVertex:
        verts = self._walk_vertices(walk_uuid)
        v = WalkVertex(**self._stamp(), walk_uuid=walk_uuid, seq=(verts[-1].seq + 1) if verts else 0,
                       x=x, y=y, t_utc=ms(t_utc))
        return self._commit([Change(Action.ADDED, Layer.WALK_VERTEX, v)], undoable=False)[0].new

    def _close_walk(self, walk_uuid: str, geometry, attributes: dict) -> AreaFeature:
        w = self.get(Layer.WALK, walk_uuid)
        attributes = dict(attributes)
        attributes.setdefault("label", w.label)
        if "susceptibility" in attributes and attributes["susceptibility"] is not None:
            attributes["susceptibility"] = enum_value(Susceptibility, attributes["susceptibility"], "susceptibility")
        area = AreaFeature(**self._stamp(), kind=w.kind, geometry=valid_polygon("geometry", geometry),
                           walk_uuid=walk_uuid, **attributes)
        area = validate(area)
        new_w = replace(w, state=WalkState.CLOSED, area_uuid=area.uuid, modified_utc=ms(self._clock()))
        return self._commit([Change(Action.ADDED, Layer.AREA, area),
                             Change(Action.UPDATED, Layer.WALK, new_w, w)])[0].new

    # ---------------------------------------------------------------- track and fixes
    def start_track(self) -> None:
        """Record every usable fix into the raw track from now on."""
        self.recording_track = True

    def stop_track(self) -> None:
        self.recording_track = False

    def record_fix(self, fix) -> TrackPoint | None:
        """Add a usable fix to the raw track (committed at once); None if the gate refuses it."""
        if not self.gate.usable(fix):
            return None
        frame = self.ensure_frame(fix)
        x, y = frame.to_local(fix.lon_deg, fix.lat_deg)
        tp = TrackPoint(
            **self._stamp(), t_utc=ms(getattr(fix, "time_utc", None)), x=float(x), y=float(y),
            lon_deg=float(fix.lon_deg), lat_deg=float(fix.lat_deg),
            alt_hae_m=getattr(fix, "alt_hae_m", None), quality=int(fix.quality),
            sats_used=getattr(fix, "sats_used", None), hdop=getattr(fix, "hdop", None),
            h_accuracy_m=getattr(fix, "horizontal_accuracy_m", None),
        )
        return self._commit([Change(Action.ADDED, Layer.TRACK, tp)], undoable=False)[0].new

    def on_fix(self, fix) -> TrackPoint | None:
        """Every fix from the receiver: into the track (if recording) and to walks in progress."""
        tp = self.record_fix(fix) if self.recording_track else None
        for w in self.open_walks():
            if w.state is WalkState.WALKING:
                w.feed(fix)
        return tp

    def track(self) -> list[TrackPoint]:
        return self.features(Layer.TRACK)

    # ---------------------------------------------------------------- notes
    def add_note(self, text: str, *, x: float | None = None, y: float | None = None) -> Note:
        if (x is None) != (y is None):
            raise InvalidValue("x", "give both x and y or neither")
        n = Note(**self._stamp(), text=V.text("text", text, allow_empty=False, max_len=V.MAX_TEXT_LEN, multiline=True),
                 x=V.optional_finite("x", x), y=V.optional_finite("y", y))
        return self._commit([Change(Action.ADDED, Layer.NOTE, n)])[0].new

    # ---------------------------------------------------------------- woodland
    def trees(self, *, status: TreeStatus | None = None) -> list[Tree]:
        ts = self.features(Layer.TREE)
        return ts if status is None else [t for t in ts if t.status is status]

    def stand_measures(self, stand_uuid: str) -> canopy.StandMeasures:
        """Canopy cover, stems and basal area per acre, stand table for a woodland stand."""
        stand = self.get(Layer.AREA, stand_uuid)
        return canopy.stand_measures(stand.geometry, self.trees(), self.frame)

    def grove_candidates(self, grove_uuid: str) -> list[Tree]:
        """Live deciduous trees ≥ 18.0 in DBH inside a grove polygon."""
        return canopy.grove_candidates(self.get(Layer.AREA, grove_uuid).geometry, self.trees())

    def woodland_input(self, stand_uuid: str, grove_uuid: str | None = None) -> dict:
        """The ``input`` of a ``woodland.class`` request for a stand (and optional grove)
        (:func:`fieldapp.checks.requests.woodland_input`)."""
        from ..checks import requests

        return requests.woodland_input(self, stand_uuid, grove_uuid)


# -------------------------------------------------------------------- helpers
def _crs_text(frame: SiteFrame) -> str:
    auth = frame.crs.to_authority()
    return f"{auth[0]}:{auth[1]}" if auth else frame.crs.to_wkt()


def _reading_id(reading) -> str | None:
    for name in ("reading_id", "id", "uuid"):
        v = getattr(reading, name, None)
        if v is not None:
            return str(v)
    return None


def _check_mapped_stream(kind: LineKind, mapped_stream) -> None:
    """``mapped_stream`` is None, or a bool on a drainageway centreline (InvalidValue)."""
    if mapped_stream is None:
        return
    V.boolean("mapped_stream", mapped_stream)
    if kind is not LineKind.DRAINAGEWAY_CENTRELINE:
        raise InvalidValue("mapped_stream", f"only a drainageway centreline is a stream (this line is a "
                                            f"{kind.value}); a swale is classed by its tributary area")


def _gnss_fields(p: AveragedPosition) -> dict:
    return dict(
        x=p.x, y=p.y, ground_hae_m=p.ground_hae_m, sample_count=p.sample_count,
        rejected_count=p.rejected_count, std_dev_x_m=p.std_dev_x_m, std_dev_y_m=p.std_dev_y_m,
        std_dev_h_m=p.std_dev_h_m, worst_fix_quality=p.worst_fix_quality,
        h_accuracy_m=p.h_accuracy_m, v_accuracy_m=p.v_accuracy_m, hdop=p.hdop, fix_time_utc=ms(p.time_utc),
    )


