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
``visit.undo()`` reverts the last command (adds, updates, deletes; the raw track and a walk's
streamed vertices are not on the undo stack) and ``visit.redo()`` does it again (a new command
clears the redo stack). Corrections of every record kind (any station, a transect's azimuth, an
offset point's shot, a boundary's vertices, re-opening a closed boundary, notes, labels) are
:class:`~fieldapp.survey.editing.EditCommands`, undoable like any command. Deleted features stay
in ``visit.recycle_bin`` for the session and ``visit.restore(uuid)`` brings one back with its
uuid (a deleted tree is never lost by a slip).

Where the rest lives
--------------------
The OHWM and transect commands are :class:`~fieldapp.survey.shoreline.ShorelineCommands`,
which :class:`Visit` composes; every record is checked by
:func:`fieldapp.survey.validation.validate`; rule inputs (``bank_input``,
``woodland_input`` …) are built from the visit in :mod:`fieldapp.checks.requests`, which sits
above the model: the visit holds the records and the commands, not rule requests.
"""

from __future__ import annotations

import uuid as uuidlib
from collections.abc import Callable, Iterable
from dataclasses import replace
from datetime import date, datetime
from typing import Any

from ..geo import SiteFrame
from . import antenna
from . import values as V
from .attach import PhotoCommands
from .boundary import BoundaryWalk
from .core import Journal, as_layer, crs_text, default_who, new_of, utc_now
from .datapoints import DataPointCommands
from .devicelog import kept_reading
from .drainage import format_tributary_stations, parse_tributary_stations
from .editing import EditCommands
from .errors import InvalidValue
from .features import (
    LAYER_OF,
    Action,
    AntennaHeight,
    AreaFeature,
    AreaKind,
    Change,
    Feature,
    Instrument,
    Layer,
    LeafHabit,
    LineFeature,
    LineKind,
    Note,
    Site,
    Susceptibility,
    TrackPoint,
    Tree,
    TreeStatus,
    Walk,
    WalkState,
    WaterFeature,
)
from .gnss import DEFAULT_GATE, FixLike, QualityGate
from .readings import CaliperLike
from .readings import reading_id as _reading_id
from .stake import StakeCommands
from .standcanopy import StandQueries
from .tracklog import TrackLog
from .validation import PARENTS, REFERENCE_FIELD, enum_value, ms, validate, validated_site
from .validation import line as valid_line
from .validation import polygon as valid_polygon

__all__ = ["FIRST_BLOCK_TAG", "Visit", "Journal", "default_who", "validate"]

#: The lowest tag the office's tag blocks give out (block 1; :data:`fieldapp.store.tagblock.
#: TAG_BLOCK_SIZE`): tags below it are the crews' own numbers from before a block.
FIRST_BLOCK_TAG = 1000


class Visit(EditCommands, StakeCommands, PhotoCommands, StandQueries, DataPointCommands):
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

    def set_tag_block(self, first: int, last: int) -> None:
        """Number new trees from ``first`` to ``last`` (the office's tag block of this laptop
        copy: :func:`fieldapp.store.tagblock.tag_range_of`), after the highest tag already in it.

        Raises ``ValueError`` unless ``1 <= first <= last``.
        """
        if not (isinstance(first, int) and isinstance(last, int) and 1 <= first <= last):
            raise ValueError(f"tag block {first}..{last} is not a range of whole numbers from 1")
        self._tag_range = (first, last)
        self._max_in_range = max((t.tag for t in self._data[Layer.TREE].values() if first <= t.tag <= last),
                                 default=0)

    @property
    def tag_block(self) -> tuple[int, int] | None:
        """This laptop copy's tag block ``(first, last)``, or ``None`` (tags follow the highest)."""
        return self._tag_range

    @property
    def tag_block_used_up(self) -> bool:
        """Whether the tag block's last tag is on a tree (the next sync gives a new block)."""
        return self._tag_range is not None and self._max_in_range >= self._tag_range[1]

    def next_tag(self) -> int:
        """The tag the next tallied tree gets, counted on from the crew's own numbers: one more
        than the tag of the last tree this laptop's user tallied (``created_by``; the crew nails
        numbered aluminium tags in order), skipping tags already on a tree, while that stays
        below the office's tag blocks (:data:`FIRST_BLOCK_TAG`) or inside this copy's block.
        Otherwise (no tree of this user yet, or counting on would enter another laptop's
        block): the next one of the tag block; a used-up block, or none: one more than the
        highest tag of this session (never one on a known tree).

        (A block given at the first sync no longer makes the 27th tree "1000": the crew's own
        trees carry on from 26.)
        """
        block = self._tag_range
        own = [t for t in self._data[Layer.TREE].values() if t.created_by == self.who]
        if own:
            last = max(own, key=lambda t: (t.created_utc, t.tag))
            tag = self._free_tag(last.tag + 1)
            if block is None or tag < FIRST_BLOCK_TAG or block[0] <= tag <= block[1]:
                return tag
        if block is not None:
            first, last_tag = block
            tag = max(self._max_in_range, first - 1) + 1
            if tag <= last_tag:
                return tag
        return self._max_tag + 1

    def _free_tag(self, tag: int) -> int:
        """``tag``, or the first after it on no tree of the visit nor deleted this session."""
        used = {t.tag for t in self._data[Layer.TREE].values()} | {t.tag for t in self.deleted_trees()}
        while tag in used:
            tag += 1
        return tag

    def _check_tag(self, tag: object, uuid: str | None = None) -> int:
        """A typed tag: a whole number from 1, on no other tree of the visit (InvalidValue)."""
        if isinstance(tag, bool) or not isinstance(tag, int) or tag < 1:
            raise InvalidValue("tag", f"must be a whole number from 1, got {tag!r}")
        for t in self._data[Layer.TREE].values():
            if t.tag == tag and t.uuid != uuid:
                raise InvalidValue("tag", f"{tag} is already on another tree ({t.dbh_in:.1f} in "
                                          f"{t.species_name or t.species_code or 'tree'}); check the tag")
        return tag

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
        crs: Any = None,
        antenna_height_m: float = 0.0,
        antenna_height_unit: str = "m",
        declination_deg: float = 0.0,
        notes: str = "",
        who: str | None = None,
        clock: Callable[[], datetime] | None = None,
        gate: QualityGate = DEFAULT_GATE,
    ) -> Visit:
        """A new visit with a new site record (validated; ``crs`` None = UTM of the first fix)."""
        clock = clock or utc_now
        who = who or default_who()
        now = ms(clock())
        site_crs = None
        if crs is not None:
            site_crs = crs_text(SiteFrame(crs))
        site = Site(
            uuid=str(uuidlib.uuid4()),
            created_utc=now,
            modified_utc=now,
            created_by=who,
            name=V.text("name", name, allow_empty=False),
            visit_date=visit_date or now.date(),
            crs=site_crs,
        )
        site = validated_site(
            site,
            crew=crew,
            device_ids=device_ids or {},
            priority_waterway=priority_waterway,
            water_features=water_features,
            antenna_height_m=antenna_height_m,
            antenna_height_unit=antenna_height_unit,
            declination_deg=declination_deg,
            notes=notes,
        )
        return cls(site, who=who, clock=clock, gate=gate)

    @classmethod
    def from_records(cls, site: Site, records: Iterable[Feature], *, track: TrackLog | None = None,
                     who: str | None = None, clock: Callable[[], datetime] | None = None,
                     gate: QualityGate = DEFAULT_GATE) -> Visit:
        """Rebuild a visit from stored records (no journal, no events) and its raw track."""
        visit = cls(site, who=who, clock=clock, gate=gate)
        if track is not None:
            visit._track = track
        for rec in records:
            visit._apply_memory(Change(Action.ADDED, LAYER_OF[type(rec)], rec))
        return visit

    def update_feature(self, layer: Layer | str, uuid: str, **fields: Any) -> Feature:
        """Change attributes of a feature (validated like a new one); returns the new version."""
        layer = as_layer(layer)
        parent_field = PARENTS[layer].field if layer in PARENTS else None
        for banned in ("uuid", "created_utc", "created_by", "modified_utc", parent_field):
            if banned in fields:
                raise InvalidValue(banned, "is set by the model")
        for name, value in fields.items():
            target = REFERENCE_FIELD.get((layer, name))
            if target is not None and value is not None:
                self._referred(name, target, value)
        if layer is Layer.TREE:
            return self.update_tree(uuid, **fields)
        if layer is Layer.LINE and "tributary_stations" in fields:
            fields["tributary_stations"] = format_tributary_stations(
                parse_tributary_stations(fields["tributary_stations"]))
        if layer is Layer.LINE and fields.get("mapped_stream") is not None:
            kind = enum_value(LineKind, fields.get("kind", self.record(LineFeature, uuid).kind), "kind")
            _check_mapped_stream(kind, fields["mapped_stream"])
        updated: Feature = self._update(layer, uuid, **fields)
        return updated

    # ---------------------------------------------------------------- site and CRS
    def update_site(self, **fields: Any) -> Site:
        """Change site attributes (name, crew, device_ids, priority_waterway, water_features,
        antenna_height_m, declination_deg, notes, visit_date); ``crs`` goes to :meth:`set_crs`."""
        if "crs" in fields:
            self.set_crs(fields.pop("crs"))
        if not fields:
            return self._site
        old = self._site
        new = validated_site(replace(old, modified_utc=ms(self._clock())), **fields)
        return new_of(Site, self._commit([Change(Action.UPDATED, Layer.SITE, new, old)])[0])

    def set_antenna_height(self, value: float, unit: str = "m") -> Site:
        """Set the antenna height to ``value`` in ``unit`` (``"m"``, ``"ft"``, ``"us_ft"``) from
        now on: the site's height and unit change and an
        :class:`~fieldapp.survey.features.AntennaHeight` record keeps the time, so earlier fixes
        keep the height they were taken with. Not an undo step (like the declination); the same
        height again changes nothing.

        Raises
        ------
        InvalidValue
            A height outside 0..10 m or a unit not known.
        """
        height_m = antenna.to_metres(value, unit)
        unit = antenna.checked_unit(unit)
        old = self._site
        if (old.antenna_height_m, old.antenna_height_unit or "m") == (height_m, unit):
            return old
        new = validated_site(replace(old, modified_utc=ms(self._clock())),
                             antenna_height_m=height_m, antenna_height_unit=unit)
        changes = [Change(Action.UPDATED, Layer.SITE, new, old)]
        if not self.records(AntennaHeight):     # the first change: the height it had since the start
            first = replace(AntennaHeight(**self._stamp(), height_m=old.antenna_height_m,
                                          unit=old.antenna_height_unit or "m"),
                            created_utc=old.created_utc, modified_utc=old.created_utc)
            changes.append(Change(Action.ADDED, Layer.ANTENNA_HEIGHT, first))
        rec = AntennaHeight(**self._stamp(), height_m=new.antenna_height_m, unit=unit)
        changes.append(Change(Action.ADDED, Layer.ANTENNA_HEIGHT, rec))
        done = self._commit(changes, undoable=False)
        return new_of(Site, done[0])

    def antenna_height_at(self, when_utc: datetime | None) -> float:
        """The antenna height (m) the pole had at ``when_utc`` (the site's now for None)."""
        return antenna.height_at(self.records(AntennaHeight), when_utc, self._site.antenna_height_m)

    def set_declination(self, declination_deg: float, source: str | None) -> Site:
        """Set the site's magnetic declination (degrees, east positive) and where it came from
        (a WMM model name, or ``"entered"``); applied to magnetic azimuths from then on (each
        station keeps the one it was shot with). Not an undo step, like the CRS.

        Raises
        ------
        InvalidValue
            A declination outside -180..180 degrees or not a number.
        """
        old = self._site
        new = validated_site(replace(old, modified_utc=ms(self._clock())),
                             declination_deg=declination_deg, declination_source=source)
        if (new.declination_deg, new.declination_source) == (old.declination_deg, old.declination_source):
            return old
        return new_of(Site, self._commit([Change(Action.UPDATED, Layer.SITE, new, old)], undoable=False)[0])

    # ---------------------------------------------------------------- trees
    def add_tree(
        self,
        *,
        x: float | None = None,
        y: float | None = None,
        fix: FixLike | None = None,
        dbh_in: float | None = None,
        caliper: CaliperLike | None = None,
        species_code: str = "",
        species_name: str = "",
        leaf_habit: LeafHabit | str = LeafHabit.DECIDUOUS,
        dbh_height_ft: float = 4.5,
        crown_radius_ft: float | None = None,
        crown: object = None,
        status: TreeStatus | str = TreeStatus.LIVE,
        caliper_reading_id: str | None = None,
        notes: str = "",
        tag: int | None = None,
    ) -> Tree:
        """Tally a tree at (x, y) or at a fix; DBH (in) given or from a caliper reading.

        ``tag``: the number on the tree's aluminium tag, as typed (InvalidValue when another
        tree has it); None: :meth:`next_tag`, counted on from the crew's last tree (tags stay
        unique through delete, undo and restore; a tag deleted in an earlier session may be
        given again after reopening the visit).

        Raises InvalidValue for a missing/negative/absurd DBH (> 500 in), bad crown, NaN.
        """
        kept = None
        if caliper is not None:
            dbh_in = dbh_in if dbh_in is not None else caliper.dbh_in
            species_name = species_name or (caliper.species_label or "")
            if caliper_reading_id is None:      # its sentences kept, the tree naming them
                kept = kept_reading(caliper, Instrument.CALIPER, self._stamp(), self._clock())
                caliper_reading_id = kept.uuid if kept is not None else _reading_id(caliper)
        px, py = self._xy(x, y, fix)
        tag = self.next_tag() if tag is None else self._check_tag(tag)
        if dbh_in is None:
            raise InvalidValue("dbh_in", "is required")
        tree = Tree(
            **self._stamp(), tag=tag, x=px, y=py, dbh_in=dbh_in, species_code=species_code,
            species_name=species_name, leaf_habit=enum_value(LeafHabit, leaf_habit, "leaf_habit"),
            dbh_height_ft=dbh_height_ft, crown_radius_ft=crown_radius_ft,
            crown=valid_polygon("crown", crown) if crown is not None else None,
            caliper_reading_id=caliper_reading_id, status=enum_value(TreeStatus, status, "status"), notes=notes,
        )
        tree = validate(tree)
        kept_change = [Change(Action.ADDED, Layer.DEVICE_READING, kept)] if kept is not None else []
        return new_of(Tree, self._commit([Change(Action.ADDED, Layer.TREE, tree), *kept_change])[0])

    def update_tree(self, uuid: str, **fields: Any) -> Tree:
        """Change a tree's attributes (validated); e.g. ``status=TreeStatus.REMOVED``."""
        if "leaf_habit" in fields:
            fields["leaf_habit"] = enum_value(LeafHabit, fields["leaf_habit"], "leaf_habit")
        if "status" in fields:
            fields["status"] = enum_value(TreeStatus, fields["status"], "status")
        if fields.get("crown") is not None:
            fields["crown"] = valid_polygon("crown", fields["crown"])
        old = self.record(Tree, uuid)
        if "tag" in fields:
            fields["tag"] = self._check_tag(fields["tag"], uuid)
        code = fields.get("species_code", old.species_code)
        name = fields.get("species_name", old.species_name)
        if ("species_code" in fields or "species_name" in fields) and not (code or "").strip() \
                and not (name or "").strip() and (old.species_code.strip() or old.species_name.strip()):
            raise InvalidValue("species_code", "must not be empty: a tallied tree keeps its species "
                                               "(type the code or the name)")
        return self._update_as(Tree, uuid, **fields)

    def delete_tree(self, uuid: str) -> Tree:
        """Delete a tree from the tally; ``undo()`` or ``restore(uuid)`` brings it back."""
        old = self.record(Tree, uuid)
        self.delete(Layer.TREE, uuid)
        return old

    def deleted_trees(self) -> list[Tree]:
        """Trees deleted in this session and not restored."""
        return [ch.old for ch in self.recycle_bin.values() if ch.layer is Layer.TREE]

    # ---------------------------------------------------------------- polygons and lines
    def add_area(self, kind: AreaKind | str, geometry: object, *, label: str = "", wetland_type: str | None = None,
                 susceptibility: Susceptibility | str | None = None, standing_water: bool | None = None,
                 hydric_vegetation: bool | None = None, notes: str = "",
                 walk_uuid: str | None = None) -> AreaFeature:
        """Add a polygon of ``kind``: a shapely (Multi)Polygon or a ring of (x, y) in site CRS.

        Raises InvalidValue for fewer than 3 distinct vertices, NaN, or a self-crossing ring
        (walk it with ``start_walk`` to get the lobe-keeping repair).
        """
        self.frame  # noqa: B018 - an area needs the site CRS (StateError before one is set)
        if walk_uuid is not None:
            self._referred("walk_uuid", Layer.WALK, walk_uuid)
        feat = AreaFeature(
            **self._stamp(), kind=enum_value(AreaKind, kind, "kind"), geometry=valid_polygon("geometry", geometry),
            label=V.text("label", label), wetland_type=wetland_type,
            susceptibility=None if susceptibility is None else enum_value(Susceptibility, susceptibility,
                                                                          "susceptibility"),
            standing_water=standing_water, hydric_vegetation=hydric_vegetation, notes=notes, walk_uuid=walk_uuid,
        )
        return new_of(AreaFeature, self._commit([Change(Action.ADDED, Layer.AREA, validate(feat))])[0])

    def add_line(self, kind: LineKind | str, geometry: object, *, label: str = "",
                 channel_width_ft: float | None = None, tributary_area_ac: float | None = None, notes: str = "",
                 mapped_stream: bool | None = None, tributary_stations: str | None = None) -> LineFeature:
        """Add a line of ``kind`` (drainageway centreline, swale, utility trench, drive edge).

        ``mapped_stream`` only for a drainageway centreline (see :meth:`set_mapped_stream`);
        ``tributary_stations`` as the crew types it (``"0:2; 200:6"``, normalised; InvalidValue
        for text that is not stations, :func:`fieldapp.survey.drainage.parse_tributary_stations`).
        """
        self.frame  # noqa: B018 - a line needs the site CRS (StateError before one is set)
        line_kind = enum_value(LineKind, kind, "kind")
        _check_mapped_stream(line_kind, mapped_stream)
        feat = LineFeature(
            **self._stamp(), kind=line_kind, geometry=valid_line("geometry", geometry),
            label=V.text("label", label), channel_width_ft=channel_width_ft,
            tributary_area_ac=tributary_area_ac, notes=notes, mapped_stream=mapped_stream,
            tributary_stations=format_tributary_stations(parse_tributary_stations(tributary_stations)),
        )
        return new_of(LineFeature, self._commit([Change(Action.ADDED, Layer.LINE, validate(feat))])[0])

    def set_mapped_stream(self, line_uuid: str, mapped_stream: bool | None) -> LineFeature:
        """Record whether a drainageway centreline's stream is on the USGS 7.5-minute quadrangle
        or the county soil survey map (True / False), or None for "not checked yet".

        Decorah resource protection, Drainageways A.1: only a mapped stream is a drainageway. One
        undoable command (UPDATED change of the line); the line's ``drainageway`` request
        carries ``mapped_stream`` once it is True or False (``needs_data`` while None).

        Raises
        ------
        NotFound
            No such line.
        InvalidValue
            Not a bool or None, or the line is not a drainageway centreline.
        """
        line = self.record(LineFeature, line_uuid)
        _check_mapped_stream(line.kind, mapped_stream)
        return self._update_as(LineFeature, line_uuid, mapped_stream=mapped_stream)

    def set_wetland_fill(self, area_uuid: str, fill: str | None, fill_permit: str | None) -> AreaFeature:
        """Record a wetland's fill (NR 151.125(1)(h)): ``complete`` or ``partial`` (None: not
        filled) and the permit reference it was placed under (None: none given). One undoable
        command; the wetland's protective-area request carries both.

        Raises
        ------
        NotFound
            No such area.
        InvalidValue
            Not a wetland, an unknown fill, a permit without a fill, or a bad text.
        """
        from fieldapp.survey.validation import FILL_STATES

        area = self.record(AreaFeature, area_uuid)
        if area.kind is not AreaKind.WETLAND:
            raise InvalidValue("fill", f"only a wetland is filled under NR 151.125(1)(h) (this area is a "
                               f"{area.kind.value.replace('_', ' ')})")
        if fill is not None and fill not in FILL_STATES:
            raise InvalidValue("fill", f"must be one of {', '.join(FILL_STATES)} or none, got {fill!r}")
        permit = V.optional_text("fill_permit", fill_permit)
        permit = permit.strip() if permit else None
        if fill is None and permit:
            raise InvalidValue("fill_permit", "a permit reference needs a fill (complete or partial)")
        return self._update_as(AreaFeature, area_uuid, fill=fill, fill_permit=permit or None)

    def area_sqft(self, uuid: str) -> float:
        """Ground area of an area feature (sq ft of the site's foot)."""
        return float(self.frame.area_sqft(self.record(AreaFeature, uuid).geometry))

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
        self.record(Walk, uuid)
        return BoundaryWalk(self, uuid)

    def open_walks(self) -> list[BoundaryWalk]:
        return [BoundaryWalk(self, w.uuid) for w in self.records(Walk) if w.state is not WalkState.CLOSED]

    # ---------------------------------------------------------------- track and fixes
    def start_track(self) -> None:
        """Record every usable fix into the raw track from now on."""
        self.recording_track = True

    def stop_track(self) -> None:
        self.recording_track = False

    def record_fix(self, fix: FixLike) -> TrackPoint | None:
        """Add a usable fix to the raw track (committed at once); None if the gate refuses it."""
        if not self.gate.usable(fix) or fix.lon_deg is None or fix.lat_deg is None:
            return None     # (a usable fix has a position: the gate's first test)
        frame = self.ensure_frame(fix)
        x, y = frame.to_local(fix.lon_deg, fix.lat_deg)
        tp = TrackPoint(
            **self._stamp(), t_utc=ms(fix.time_utc), x=float(x), y=float(y),
            lon_deg=float(fix.lon_deg), lat_deg=float(fix.lat_deg),
            alt_hae_m=fix.alt_hae_m, quality=int(fix.quality),
            sats_used=fix.sats_used, hdop=fix.hdop, h_accuracy_m=fix.horizontal_accuracy_m,
        )
        return new_of(TrackPoint, self._commit([Change(Action.ADDED, Layer.TRACK, tp)], undoable=False)[0])

    def on_fix(self, fix: FixLike) -> TrackPoint | None:
        """Every fix from the receiver: into the track (if recording) and to walks in progress."""
        tp = self.record_fix(fix) if self.recording_track else None
        for w in self.open_walks():
            if w.state is WalkState.WALKING:
                w.feed(fix)
        return tp

    # ---------------------------------------------------------------- notes
    def add_note(self, text: str, *, x: float | None = None, y: float | None = None) -> Note:
        if (x is None) != (y is None):
            raise InvalidValue("x", "give both x and y or neither")
        n = Note(**self._stamp(), text=V.text("text", text, allow_empty=False, max_len=V.MAX_TEXT_LEN, multiline=True),
                 x=V.optional_finite("x", x), y=V.optional_finite("y", y))
        return new_of(Note, self._commit([Change(Action.ADDED, Layer.NOTE, n)])[0])


# -------------------------------------------------------------------- helpers
def _check_mapped_stream(kind: LineKind, mapped_stream: object) -> None:
    """``mapped_stream`` is None, or a bool on a drainageway centreline (InvalidValue)."""
    if mapped_stream is None:
        return
    V.boolean("mapped_stream", mapped_stream)
    if kind is not LineKind.DRAINAGEWAY_CENTRELINE:
        raise InvalidValue("mapped_stream", f"only a drainageway centreline is a stream (this line is a "
                                            f"{kind.value}); a swale is classed by its tributary area")
