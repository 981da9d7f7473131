"""Corrections of the visit: edit and delete any record, as undoable commands.

One part of :class:`~fieldapp.survey.visit.Visit` (a mixin, like
:class:`~fieldapp.survey.shoreline.ShorelineCommands`): each command builds the changes of one
correction and hands them to the visit's ``_commit`` (validation, journal, memory, events), so
it is stored in one transaction, undone with ``visit.undo()`` and done again with
``visit.redo()``, and a sync carries it like any edit (a deleted row arrives as a delete).
A refused value raises :class:`~fieldapp.survey.errors.InvalidValue` and the record keeps its
previous value (nothing is committed).

What follows an edit is worked out here: a station whose segment or slope changes moves every
later station of its transect (distances from the OHWM and elevations carried, positions on the
azimuth) and the transect line; a transect turned to another azimuth moves its stations; an
offset OHWM point shot again moves the point and its OHWM line; a walked boundary can lose its
last vertices while walking, and once closed can be re-opened to walk on.

:func:`subject_words` names what a set of changes is about in field words ("OHWM point 6",
"station 3 of T1"), for the status line ("Deleted OHWM point 6 — Ctrl+Z brings it back").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from shapely.geometry import LineString, MultiPolygon, Polygon

from ..geo import FOOT_INTERNATIONAL_M
from . import values as V
from .boundary import BoundaryWalk
from .core import VisitCore, new_of
from .errors import InvalidValue, StateError
from .features import (
    Action,
    AreaFeature,
    Change,
    DataPoint,
    Feature,
    Layer,
    LineFeature,
    Note,
    OhwmLine,
    OhwmPoint,
    PhotoRecord,
    PointMethod,
    Station,
    Susceptibility,
    Transect,
    Tree,
    Walk,
    WalkState,
    WalkVertex,
)
from .gnss import North, true_azimuth
from .shoreline import ShorelineCommands
from .validation import PARENTS, enum_value, ms, validate
from .validation import polygon as valid_polygon

__all__ = ["EditCommands", "subject_words", "record_words", "LABELLED"]

#: Layers whose records carry a ``label`` that :meth:`EditCommands.rename` changes.
LABELLED = frozenset({Layer.OHWM_LINE, Layer.TRANSECT, Layer.AREA, Layer.LINE, Layer.WALK})


class EditCommands(ShorelineCommands):
    """Edit / delete commands of a :class:`~fieldapp.survey.visit.Visit` (a mixin), and the
    walk's vertex and closing commands its :class:`~fieldapp.survey.boundary.BoundaryWalk` calls.
    Corrections of stations and transects move them as the shoreline commands place them."""

    # ---------------------------------------------------------------- undo words
    def undo_subject(self) -> str | None:
        """What :meth:`undo` would revert, in field words (``OHWM point 6``); None if nothing."""
        last = self.next_undo()
        return None if last is None else subject_words(self, last)

    def redo_subject(self) -> str | None:
        """What :meth:`redo` would do again, in field words; None if nothing."""
        last = self.next_redo()
        return None if last is None else subject_words(self, [ch.inverse() for ch in reversed(last)])

    # ---------------------------------------------------------------- stations
    def update_station(self, station_uuid: str, *, horizontal_ft: float | None = None,
                       distance_ft: float | None = None, slope_pct: float | None = None,
                       slope_deg: float | None = None, interruption: bool | None = None) -> Station:
        """Correct any station of a transect (not only the last); one undoable command.

        Parameters
        ----------
        horizontal_ft : float, optional
            The segment's horizontal length, ft (from the previous station, or the OHWM).
        distance_ft : float, optional
            Or the station's horizontal distance from the OHWM, ft (beyond the previous one).
        slope_pct, slope_deg : float, optional
            The segment's slope (positive rising landward), within ±89°.
        interruption : bool, optional
            A complete interruption at this station, NR 341.035(1)(c).

        Later stations keep their segments: their distances from the OHWM, positions and
        (carried) elevations move by the change; the transect line follows. A changed segment
        drops the station's slope distance, a changed slope its inclination reading (they no
        longer say what the station does; the earlier version stays in the history).

        Raises
        ------
        InvalidValue
            Both ``horizontal_ft`` and ``distance_ft``; a length not above 0 (a distance not
            beyond the previous station); a slope steeper than ±89°; not a bool.
        NotFound
            No such station.
        """
        st = self.record(Station, station_uuid)
        t = self.record(Transect, st.transect_uuid)
        stations = self.children(Layer.STATION, t.uuid)
        i = next(k for k, s in enumerate(stations) if s.uuid == station_uuid)
        prev_d = stations[i - 1].distance_ft if i else 0.0
        if horizontal_ft is not None and distance_ft is not None:
            raise InvalidValue("horizontal_ft", "give the segment length or the distance from the OHWM, not both")
        seg = st.segment_ft
        if distance_ft is not None:
            d = V.finite("distance_ft", distance_ft)
            if d <= prev_d:
                raise InvalidValue("distance_ft", f"{d:g} ft is not beyond the previous station "
                                                  f"({prev_d:g} ft from the OHWM)")
            seg = d - prev_d
        elif horizontal_ft is not None:
            seg = V.in_range("horizontal_ft", horizontal_ft, 0.0, V.MAX_HORIZONTAL_FT, low_open=True)
        seg = V.in_range("horizontal_ft", seg, 0.0, V.MAX_HORIZONTAL_FT, low_open=True)
        pct = st.slope_pct
        if slope_pct is not None or slope_deg is not None:
            pct = V.slope_pct_from(slope_pct, slope_deg)
        fields: dict[str, Any] = {"segment_ft": seg, "slope_pct": pct}
        if interruption is not None:
            fields["interruption"] = V.boolean("interruption", interruption)
        if seg != st.segment_ft:
            fields["slope_distance_ft"] = None
        if pct != st.slope_pct:
            fields["inclination_deg"] = None
        rise = (seg * pct - st.segment_ft * st.slope_pct) / 100.0
        now = ms(self._clock())
        changes, out, d = [], list(stations[:i]), prev_d
        for k, s in enumerate(stations[i:]):
            new = replace(s, **fields) if k == 0 else s
            d += new.segment_ft
            x, y = self._station_xy(t, d)
            elev = new.elevation_ft + rise if new.elevation_ft is not None else None
            new = replace(new, distance_ft=d, x=x, y=y, elevation_ft=elev, modified_utc=now)
            if k == 0 or (d, x, y, elev) != (s.distance_ft, s.x, s.y, s.elevation_ft):
                changes.append(Change(Action.UPDATED, Layer.STATION, new, s))
            out.append(new)
        changes += self._transect_geometry_change(t, out)
        return new_of(Station, self._commit(changes)[0])

    # ---------------------------------------------------------------- transects
    def update_transect(self, transect_uuid: str, *, azimuth_deg: float | None = None,
                        north: North = North.TRUE, stipulated: bool | None = None,
                        label: str | None = None) -> Transect:
        """Correct a transect: its landward azimuth (degrees; magnetic with ``north``), its
        stipulation (NR 341.035(2)(c)), its label. One undoable command; a new azimuth moves
        every station along it (same distances from the OHWM) and the transect line.

        Raises
        ------
        InvalidValue
            A non-finite azimuth, an empty label, ``stipulated`` not a bool.
        """
        t = self.record(Transect, transect_uuid)
        fields: dict[str, Any] = {"modified_utc": ms(self._clock())}
        if azimuth_deg is not None:
            fields["azimuth_true_deg"] = true_azimuth(V.finite("azimuth_deg", azimuth_deg), north,
                                                      self._site.declination_deg)
        if stipulated is not None:
            fields["stipulated"] = V.boolean("stipulated", stipulated)
        if label is not None:
            fields["label"] = V.text("label", label, allow_empty=False)
        new_t = replace(t, **fields)
        moved = []
        for s in self.children(Layer.STATION, t.uuid):
            x, y = self._station_xy(new_t, s.distance_ft)
            if (x, y) != (s.x, s.y):
                moved.append(Change(Action.UPDATED, Layer.STATION,
                                    replace(s, x=x, y=y, modified_utc=fields["modified_utc"]), s))
        last = moved[-1].new if moved else None
        if last is not None:
            new_t = replace(new_t, geometry=LineString([(t.origin_x, t.origin_y), (last.x, last.y)]))
        return new_of(Transect, self._commit([Change(Action.UPDATED, Layer.TRANSECT, new_t, t)] + moved)[0])

    # ---------------------------------------------------------------- OHWM
    def update_offset_point(self, point_uuid: str, *, azimuth_deg: float | None = None,
                            horizontal_ft: float | None = None, north: North = North.TRUE) -> OhwmPoint:
        """Correct the shot of an offset OHWM point: its azimuth (degrees true, or magnetic
        with ``north``) and / or horizontal distance (ft, 0 to 5,000). The point is solved
        again from where the crew stood and its OHWM line follows. One undoable command.

        Raises
        ------
        StateError
            An averaged point (it has no shot to correct: delete it and average again).
        InvalidValue
            A non-finite azimuth, a distance outside 0 to 5,000 ft.
        """
        p = self.record(OhwmPoint, point_uuid)
        if p.method is not PointMethod.OFFSET or p.standing_x is None or p.standing_y is None:
            raise StateError(f"OHWM point {p.seq + 1} was averaged, not shot: it has no azimuth or "
                             "distance to correct (delete it and average it again)")
        if p.azimuth_true_deg is None or p.horizontal_distance_ft is None:
            raise StateError(f"OHWM point {p.seq + 1} has no shot kept (its azimuth or distance is "
                             "missing): delete it and shoot it again")
        az = p.azimuth_true_deg if azimuth_deg is None else true_azimuth(
            V.finite("azimuth_deg", azimuth_deg), north, self._site.declination_deg)
        hd = p.horizontal_distance_ft if horizontal_ft is None else V.in_range(
            "horizontal_ft", horizontal_ft, 0.0, V.MAX_HORIZONTAL_FT)
        tx, ty = self.frame.forward(p.standing_x, p.standing_y, az,
                                    hd * FOOT_INTERNATIONAL_M / self.frame.foot.metres)
        new = replace(p, x=float(tx), y=float(ty), azimuth_true_deg=az, horizontal_distance_ft=hd,
                      modified_utc=ms(self._clock()))
        pts = [new if q.uuid == p.uuid else q for q in self.children(Layer.OHWM_POINT, p.line_uuid)]
        line = self.record(OhwmLine, p.line_uuid)
        geom = LineString([(q.x, q.y) for q in pts]) if len(pts) >= 2 else None
        new_line = replace(line, geometry=geom, modified_utc=new.modified_utc)
        return new_of(OhwmPoint, self._commit([Change(Action.UPDATED, Layer.OHWM_POINT, new, p),
                                               Change(Action.UPDATED, Layer.OHWM_LINE, new_line, line)])[0])

    # ---------------------------------------------------------------- notes, labels
    def update_note(self, note_uuid: str, *, text: str | None = None, x: float | None = None,
                    y: float | None = None) -> Note:
        """Correct a note's text (not empty) and / or move it to (x, y) in site CRS units."""
        n = self.record(Note, note_uuid)
        fields: dict[str, Any] = {}
        if text is not None:
            fields["text"] = V.text("text", text, allow_empty=False, max_len=V.MAX_TEXT_LEN, multiline=True)
        if (x is None) != (y is None):
            raise InvalidValue("x", "give both x and y or neither")
        if x is not None:
            fields["x"], fields["y"] = V.finite("x", x), V.finite("y", y)
        return self._update_as(Note, note_uuid, **fields) if fields else n

    def rename(self, layer: Layer | str, uuid: str, label: str) -> Feature:
        """Give a record a new label (OHWM line, transect, area, line, walk); an area a walk
        drew and its walk are renamed together. One undoable command.

        Raises InvalidValue for an empty label or a layer without labels.
        """
        layer = Layer(layer)
        if layer not in LABELLED:
            raise InvalidValue("label", f"a {layer.value} has no label")
        label = V.text("label", label, allow_empty=False)
        rec = self.get(layer, uuid)
        now = ms(self._clock())
        changes = [Change(Action.UPDATED, layer, replace(rec, label=label, modified_utc=now), rec)]
        partner = self._boundary_partner(layer, rec)
        if partner is not None:
            play, prec = partner
            changes.append(Change(Action.UPDATED, play, replace(prec, label=label, modified_utc=now), prec))
        return new_of(Feature, self._commit(changes)[0])

    def _boundary_partner(self, layer: Layer, rec: Any) -> tuple[Layer, Any] | None:
        """The walk of an area it drew, or the area of a closed walk: (layer, record) or None."""
        if layer is Layer.AREA and rec.walk_uuid in self._data[Layer.WALK]:
            return Layer.WALK, self._data[Layer.WALK][rec.walk_uuid]
        if layer is Layer.WALK and rec.area_uuid in self._data[Layer.AREA]:
            return Layer.AREA, self._data[Layer.AREA][rec.area_uuid]
        return None

    # ---------------------------------------------------------------- deleting
    def delete_record(self, layer: Layer | str, uuid: str) -> tuple[Change, ...]:
        """Delete any record as the user means it; one undoable command.

        As :meth:`~fieldapp.survey.visit.Visit.delete` (children go with their parent: a
        transect's stations, an OHWM line's points; an OHWM point's line and a station's
        transect follow), and a walked boundary goes whole: its area, its walk and the walk's
        vertices together.
        """
        layer = Layer(layer)
        rec = self.get(layer, uuid)
        partner = self._boundary_partner(layer, rec)
        if partner is None:
            return self.delete(layer, uuid)
        walk = rec if layer is Layer.WALK else partner[1]
        area = partner[1] if layer is Layer.WALK else rec
        changes = [Change(Action.REMOVED, Layer.WALK_VERTEX, None, v) for v in self._walk_vertices(walk.uuid)]
        changes += [Change(Action.REMOVED, Layer.AREA, None, area), Change(Action.REMOVED, Layer.WALK, None, walk)]
        return self._commit(changes)

    # ---------------------------------------------------------------- walks
    def remove_last_vertices(self, walk_uuid: str, count: int = 1) -> list[WalkVertex]:
        """Take back the last ``count`` vertices of a walk in progress (a vertex walked into a
        ditch); one undoable command. The walk goes on from the vertex before them.

        Raises
        ------
        StateError
            The walk is closed (re-open it first) or has no vertex.
        InvalidValue
            ``count`` not a whole number of at least 1.
        """
        w = self.record(Walk, walk_uuid)
        if w.state is WalkState.CLOSED:
            raise StateError(f"boundary {w.label or ''} is closed; re-open it to change its "
                             "vertices".replace("  ", " "))
        count = V.integer("count", count, 1)
        verts = self._walk_vertices(walk_uuid)
        if not verts:
            raise StateError("the walk has no vertex to remove yet")
        gone = verts[-count:]
        self._commit([Change(Action.REMOVED, Layer.WALK_VERTEX, None, v) for v in reversed(gone)])
        return gone

    def _next_vertex_seq(self, walk_uuid: str) -> int:
        """One more than any vertex of the walk in this session, removed ones too (a vertex
        brought back by undo keeps its place and never shares its seq with a newer one)."""
        seqs = [v.seq for v in self._walk_vertices(walk_uuid)]
        seqs += [ch.old.seq for ch in self.recycle_bin.values()
                 if ch.layer is Layer.WALK_VERTEX and ch.old.walk_uuid == walk_uuid]
        return max(seqs, default=-1) + 1

    def reopen_walk(self, walk_uuid: str) -> BoundaryWalk:
        """Re-open a closed boundary to walk on: its area is removed and the walk is paused
        at its last vertex (resume it to take vertices again; closing it again makes a new
        area with the old one's attributes unless others are given). One undoable command.

        Raises StateError when the walk is not closed.
        """
        w = self.get(Layer.WALK, walk_uuid)
        if w.state is not WalkState.CLOSED:
            raise StateError("the boundary is not closed")
        changes = []
        area = self._data[Layer.AREA].get(w.area_uuid) if w.area_uuid else None
        if area is not None:
            changes.append(Change(Action.REMOVED, Layer.AREA, None, area))
        new_w = replace(w, state=WalkState.PAUSED, area_uuid=None, modified_utc=ms(self._clock()))
        changes.append(Change(Action.UPDATED, Layer.WALK, new_w, w))
        self._commit(changes)
        return BoundaryWalk(self, walk_uuid)

    def _add_walk_vertex(self, walk_uuid: str, x: float, y: float, t_utc: datetime | None = None, *,
                         correction_age_s: float | None = None,
                         correction_mount: str | None = None) -> WalkVertex:
        v = WalkVertex(**self._stamp(), walk_uuid=walk_uuid, seq=self._next_vertex_seq(walk_uuid),
                       x=x, y=y, t_utc=ms(t_utc), correction_age_s=correction_age_s,
                       correction_mount=correction_mount)
        return new_of(WalkVertex, self._commit([Change(Action.ADDED, Layer.WALK_VERTEX, v)], undoable=False)[0])

    def _close_walk(self, walk_uuid: str, geometry: Polygon | MultiPolygon, attributes: dict[str, Any]) -> AreaFeature:
        w = self.record(Walk, walk_uuid)
        attributes = {**self.reopened_attributes(walk_uuid), **attributes}  # a re-opened walk
        attributes.setdefault("label", w.label)
        if "susceptibility" in attributes and attributes["susceptibility"] is not None:
            attributes["susceptibility"] = enum_value(Susceptibility, attributes["susceptibility"], "susceptibility")
        area = AreaFeature(**self._stamp(), kind=w.kind, geometry=valid_polygon("geometry", geometry),
                           walk_uuid=walk_uuid, **attributes)
        area = validate(area)
        new_w = replace(w, state=WalkState.CLOSED, area_uuid=area.uuid, modified_utc=ms(self._clock()))
        return new_of(AreaFeature, self._commit([Change(Action.ADDED, Layer.AREA, area),
                                                 Change(Action.UPDATED, Layer.WALK, new_w, w)])[0])

    def reopened_attributes(self, walk_uuid: str) -> dict[str, Any]:
        """The attributes of the area a re-opened walk had (label, wetland fields, notes), for
        closing it again; {} when it had none."""
        for ch in reversed(list(self.recycle_bin.values())):
            if ch.layer is Layer.AREA and ch.old.walk_uuid == walk_uuid:
                a = ch.old
                return dict(label=a.label, wetland_type=a.wetland_type, susceptibility=a.susceptibility,
                            standing_water=a.standing_water, hydric_vegetation=a.hydric_vegetation,
                            notes=a.notes, fill=a.fill, fill_permit=a.fill_permit)
        return {}


# -------------------------------------------------------------------- words
def _kind(kind: object) -> str:
    return str(getattr(kind, "value", kind)).replace("_", " ")


def record_words(visit: VisitCore, layer: Layer, rec: Feature) -> str:
    """A record in field words: ``OHWM point 6``, ``station 3 of T1``, ``tree 12``,
    ``wetland W1``, ``note “flagged oak”``, ``drainageway centreline D1``."""
    if isinstance(rec, OhwmPoint):
        # with a far bank's line too, each line numbers its points from 1: the line is named
        lines = visit._data[Layer.OHWM_LINE]
        line = lines.get(rec.line_uuid)
        of = f" of {line.label}" if len(lines) > 1 and line is not None and line.label else ""
        return f"OHWM point {rec.seq + 1}{of}"
    if isinstance(rec, Station):
        t = visit._data[Layer.TRANSECT].get(rec.transect_uuid)
        return f"station {rec.seq + 1}" + (f" of {t.label}" if t is not None and t.label else "")
    if isinstance(rec, Tree):
        return f"tree {rec.tag}"
    if isinstance(rec, Transect):
        return f"transect {rec.label}".strip()
    if isinstance(rec, OhwmLine):
        return f"OHWM line {rec.label}".strip()
    if isinstance(rec, AreaFeature):
        return f"{_kind(rec.kind)} {rec.label}".strip()
    if isinstance(rec, LineFeature):
        return f"{_kind(rec.kind)} line {rec.label}".strip()
    if isinstance(rec, Walk):
        return f"{_kind(rec.kind)} boundary walk {rec.label}".strip()
    if isinstance(rec, WalkVertex):
        return f"boundary vertex {rec.seq + 1}"
    if isinstance(rec, Note):
        text = rec.text.strip().splitlines()[0] if rec.text.strip() else ""
        return f"note “{text[:30]}{'…' if len(text) > 30 else ''}”"
    if isinstance(rec, DataPoint):
        return f"{rec.role.value} data point {rec.name}".strip()
    if isinstance(rec, PhotoRecord):
        name = rec.original_path.replace("\\", "/").rsplit("/", 1)[-1]
        return f"photo {name}".strip()
    return layer.value.replace("_", " ")


_ADD_ORDER = (Layer.STATION, Layer.OHWM_POINT, Layer.TREE, Layer.NOTE, Layer.LINE, Layer.AREA,
              Layer.TRANSECT, Layer.OHWM_LINE, Layer.WALK, Layer.WALK_VERTEX, Layer.SITE, Layer.TRACK,
              Layer.STAKE_POINT, Layer.PHOTO, Layer.DEVICE_READING, Layer.DATA_POINT,
              Layer.ANTENNA_HEIGHT)


def subject_words(visit: VisitCore, changes: Sequence[Change]) -> str:
    """What ``changes`` (one command, or its undo) are about, in field words.

    Added: the record added (an OHWM point, not the line it extends); removed: the record the
    others went with (a transect, not its stations; the area of a boundary, not its walk);
    several removed vertices are counted; updated only: the first record changed.
    """
    if not changes:
        return "nothing"
    removed = [ch for ch in changes if ch.action is Action.REMOVED]
    added = [ch for ch in changes if ch.action is Action.ADDED]
    if removed and not added:
        gone = {(ch.layer, ch.old.uuid) for ch in removed}
        roots = [ch for ch in removed if not (ch.layer in PARENTS and
                 (PARENTS[ch.layer].layer, getattr(ch.old, PARENTS[ch.layer].field)) in gone)]
        if len(roots) > 1 and all(ch.layer is Layer.WALK_VERTEX for ch in roots):
            return f"{len(roots)} boundary vertices"
        roots.sort(key=lambda ch: _ADD_ORDER.index(ch.layer) if ch.layer is not Layer.AREA else -1)
        return record_words(visit, roots[0].layer, roots[0].old)
    if added and not removed:
        if len(added) > 1 and all(ch.layer is Layer.WALK_VERTEX for ch in added):
            return f"{len(added)} boundary vertices"
        first = min(added, key=lambda ch: _ADD_ORDER.index(ch.layer))
        return record_words(visit, first.layer, first.new)
    main = (added or changes)[0]
    if added and removed:  # a boundary closed (area added) or re-opened (area removed)
        area = next((ch for ch in changes if ch.layer is Layer.AREA), None)
        if area is not None:
            return record_words(visit, Layer.AREA, area.feature)
    return record_words(visit, main.layer, main.feature)
