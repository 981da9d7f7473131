"""The visit's state and plumbing, under every command mixin of :class:`~fieldapp.survey.visit.Visit`.

:class:`VisitCore` holds the site, the records by layer, the journal, the listeners and the undo
stacks, and does what every command shares: stamping a new record, committing changes (validate,
journal, memory, events, undo), reading records back, the site frame and positions from fixes.
The command mixins (:class:`~fieldapp.survey.shoreline.ShorelineCommands`,
:class:`~fieldapp.survey.editing.EditCommands`, :class:`~fieldapp.survey.stake.StakeCommands`,
:class:`~fieldapp.survey.attach.PhotoCommands`, :class:`~fieldapp.survey.standcanopy.StandQueries`)
derive from it, and :class:`~fieldapp.survey.visit.Visit` composes them: every part imports this
module, and this module none of them, so the parts of the visit import in one direction.
"""

from __future__ import annotations

import getpass
import logging
import socket
import uuid as uuidlib
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any, Protocol, TypedDict, TypeVar

from ..geo import SiteFrame
from . import values as V
from .errors import InvalidValue, NotFound, StateError
from .features import LAYER_OF, Action, Change, Feature, Layer, Site, TrackPoint, WalkVertex
from .gnss import DEFAULT_GATE, FixLike, QualityGate
from .tracklog import TrackLog
from .validation import PARENTS, ms, validate

__all__ = ["VisitCore", "Journal", "Stamp", "as_layer", "crs_text", "default_who", "new_of", "utc_now"]

log = logging.getLogger(__name__)

GEOMETRY_LAYERS = {layer for layer in Layer if layer is not Layer.SITE}

F = TypeVar("F", bound=Feature)


class Journal(Protocol):
    """Where commands are made durable before memory changes (``fieldapp.store.VisitStore``)."""

    def apply(self, changes: Sequence[Change]) -> None:
        """Commit all ``changes`` atomically or raise and commit none."""


class Stamp(TypedDict):
    """The fields every new record gets (:meth:`VisitCore._stamp`)."""

    uuid: str
    created_utc: datetime
    modified_utc: datetime
    created_by: str


def default_who() -> str:
    """``user@laptop`` for ``created_by``."""
    try:
        user = getpass.getuser()
    except Exception:  # noqa: BLE001 - no login name in some service contexts
        user = "unknown"
    return f"{user}@{socket.gethostname() or 'unknown'}"


def utc_now() -> datetime:
    return datetime.now(UTC)


def as_layer(layer: Layer | str) -> Layer:
    try:
        return Layer(layer)
    except ValueError as exc:
        raise InvalidValue("layer", f"unknown layer {layer!r}") from exc


def new_of(cls: type[F], change: Change) -> F:
    """The record ``change`` brings (its ``new``), checked to be a ``cls`` (TypeError if not)."""
    rec = change.new
    if not isinstance(rec, cls):
        raise TypeError(f"a {change.layer.value} change brings a {type(rec).__name__}, not a {cls.__name__}")
    return rec


def crs_text(frame: SiteFrame) -> str:
    """``AUTHORITY:CODE`` of the frame's CRS (``EPSG:3070``), else its WKT."""
    auth = frame.crs.to_authority()
    return f"{auth[0]}:{auth[1]}" if auth else str(frame.crs.to_wkt())


class VisitCore:
    """State and plumbing of a visit (see module docstring); ``Visit`` is the class to use.

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
        self._clock = clock or utc_now
        self.gate = gate
        self._site = site
        self._frame = SiteFrame(site.crs) if site.crs else None
        self._data: dict[Layer, dict[str, Any]] = {layer: {} for layer in GEOMETRY_LAYERS
                                                  if layer is not Layer.TRACK}
        self._track = TrackLog()  # the receiver's log, as columns
        self._children: dict[tuple[Layer, str], dict[str, Any]] = {}
        self._listeners: list[Callable[[tuple[Change, ...]], None]] = []
        self._journal: Journal | None = None
        self._undo: list[tuple[Change, ...]] = []
        self._redo: list[tuple[Change, ...]] = []
        self.recycle_bin: dict[str, Change] = {}
        self.recording_track = False
        # Highest tree tag seen in this session (loaded, added, restored or updated); never
        # lowered by a delete or an undo, so a deleted tree brought back by undo / restore can
        # never share its tag with one tallied since. Kept by _apply_memory: O(1) per tree.
        self._max_tag = 0
        # The office's tag block for this laptop copy (first, last), and the highest tag seen in
        # it: new trees are numbered inside the block, so laptops never number two trees alike.
        self._tag_range: tuple[int, int] | None = None
        self._max_in_range = 0
        self._tree_rev = 0      # counts tree changes: a stand's canopy asked twice looks once

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

    def _stamp(self) -> Stamp:
        now = ms(self._clock())
        return Stamp(uuid=str(uuidlib.uuid4()), created_utc=now, modified_utc=now, created_by=self.who)

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
            self._redo.clear()  # a new command: what was undone stays undone
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
            if parent not in self._table(parent_layer) or parent in removed.get(parent_layer, ()):
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
            if ch.new.crs and (self._frame is None or crs_text(self._frame) != ch.new.crs):
                self._frame = SiteFrame(ch.new.crs)
            return
        table = self._table(ch.layer)
        if ch.layer is Layer.TRACK and ch.action is Action.ADDED:
            self._track.append(ch.new)  # a new fix: O(1), whatever the track's length
            return
        pf = PARENTS[ch.layer].field if ch.layer in PARENTS else None
        if ch.layer is Layer.TREE:
            self._tree_rev += 1
        if ch.layer is Layer.TREE and ch.new is not None:
            self._max_tag = max(self._max_tag, ch.new.tag)
            if self._tag_range and self._tag_range[0] <= ch.new.tag <= self._tag_range[1]:
                self._max_in_range = max(self._max_in_range, ch.new.tag)
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

    def get(self, layer: Layer | str, uuid: str) -> Any:
        """The feature ``uuid`` of ``layer`` (a record of that layer's class); raises NotFound.

        Typed as ``Any``: the class follows the layer given at run time; :meth:`record` is
        the typed form (``visit.record(Tree, uuid)``).
        """
        layer = as_layer(layer)
        if layer is Layer.SITE:
            return self._site
        try:
            return self._table(layer)[uuid]
        except KeyError:
            raise NotFound(f"no {layer.value} with uuid {uuid!r}") from None

    def features(self, layer: Layer | str) -> list[Any]:
        """All features of ``layer`` (in insertion order; children also by ``seq``).

        Typed as ``list[Any]``, as :meth:`get`; :meth:`records` is the typed form.
        """
        layer = as_layer(layer)
        if layer is Layer.SITE:
            return [self._site]
        return list(self._table(layer).values())

    def children(self, layer: Layer | str, parent_uuid: str) -> list[Any]:
        """Children of a parent (stations of a transect, points of a line …) sorted by seq."""
        layer = as_layer(layer)
        return sorted(self._children.get((layer, parent_uuid), {}).values(), key=lambda f: f.seq)

    def record(self, cls: type[F], uuid: str) -> F:
        """The record ``uuid`` of class ``cls`` (``visit.record(Tree, uuid)``); raises NotFound."""
        rec = self.get(LAYER_OF[cls], uuid)
        if not isinstance(rec, cls):
            raise NotFound(f"no {LAYER_OF[cls].value} with uuid {uuid!r}")
        return rec

    def records(self, cls: type[F]) -> list[F]:
        """Every record of class ``cls`` (``visit.records(Tree)``), as :meth:`features`."""
        return [r for r in self.features(LAYER_OF[cls]) if isinstance(r, cls)]

    def _table(self, layer: Layer) -> dict[str, Any] | TrackLog:
        """The records of ``layer`` by uuid (the track's: its :class:`TrackLog`, which answers
        the same mapping calls)."""
        return self._track if layer is Layer.TRACK else self._data[layer]

    def _walk_vertices(self, walk_uuid: str) -> list[WalkVertex]:
        return self.children(Layer.WALK_VERTEX, walk_uuid)

    def __len__(self) -> int:
        return sum(len(t) for t in self._data.values()) + len(self._track)

    # ---------------------------------------------------------------- generic commands
    def _referred(self, name: str, layer: Layer, uuid: object) -> None:
        """A reference ``name`` to ``uuid`` of ``layer``: a UUID of a record in the visit."""
        V.uuid_text(name, uuid)
        if uuid not in self._table(layer):
            raise InvalidValue(name, f"no {layer.value} with uuid {uuid!r} in the visit")

    def _update(self, layer: Layer | str, uuid: str, **fields: Any) -> Any:
        layer = as_layer(layer)
        old = self.get(layer, uuid)
        new = validate(replace(old, modified_utc=ms(self._clock()), **fields))
        return self._commit([Change(Action.UPDATED, layer, new, old)])[0].new

    def _update_as(self, cls: type[F], uuid: str, **fields: Any) -> F:
        """:meth:`_update` of the record ``uuid`` of class ``cls``; returns the new version."""
        rec = self._update(LAYER_OF[cls], uuid, **fields)
        if not isinstance(rec, cls):
            raise TypeError(f"{uuid}: a {type(rec).__name__}, not a {cls.__name__}")
        return rec

    def _follow_delete(self, layer: Layer, old: Feature) -> list[Change]:
        """The changes that follow deleting ``old`` of ``layer`` besides its children (an OHWM
        point's line, a station's transect: :class:`~fieldapp.survey.shoreline.ShorelineCommands`
        says); none here."""
        return []

    def delete(self, layer: Layer | str, uuid: str) -> tuple[Change, ...]:
        """Delete a feature (and its children); recoverable with ``undo`` / ``restore``."""
        layer = as_layer(layer)
        old = self.get(layer, uuid)
        changes = [Change(Action.REMOVED, layer, None, old)]
        for child_layer, ref in PARENTS.items():
            if ref.layer is layer:
                changes = [Change(Action.REMOVED, child_layer, None, c)
                           for c in self.children(child_layer, uuid)] + changes
        changes += self._follow_delete(layer, old)
        return self._commit(changes)

    def undo(self) -> tuple[Change, ...] | None:
        """Revert the last undoable command; returns the changes applied (None if nothing).

        The reverted command goes on the redo stack (:meth:`redo`); a new command clears it.
        A revert the journal refuses leaves both stacks and the model as they were.
        """
        if not self._undo:
            return None
        last = self._undo.pop()
        try:
            applied = self._commit(self._reverting(last), undoable=False)
        except BaseException:
            self._undo.append(last)
            raise
        self._redo.append(applied)
        return applied

    def redo(self) -> tuple[Change, ...] | None:
        """Do again the command the last :meth:`undo` reverted; None if nothing to redo."""
        if not self._redo:
            return None
        last = self._redo.pop()
        try:
            applied = self._commit(self._reverting(last), undoable=False)
        except BaseException:
            self._redo.append(last)
            raise
        self._undo.append(applied)
        return applied

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    def next_undo(self) -> tuple[Change, ...] | None:
        """The changes :meth:`undo` would revert (None if nothing)."""
        return self._undo[-1] if self._undo else None

    def next_redo(self) -> tuple[Change, ...] | None:
        """The changes :meth:`redo` would revert (the last undo's; None if nothing)."""
        return self._redo[-1] if self._redo else None

    def _reverting(self, changes: Sequence[Change]) -> list[Change]:
        """The inverse of ``changes`` (last first), with the children added since by commands
        off the undo stack (a walk's vertices) removed along with their parent: undoing
        start_walk removes the walk and every vertex taken."""
        inverse = [ch.inverse() for ch in reversed(changes)]
        leaving = {(ch.layer, ch.old.uuid) for ch in inverse if ch.action is Action.REMOVED}
        orphans = [Change(Action.REMOVED, child_layer, None, c)
                   for ch in inverse if ch.action is Action.REMOVED
                   for child_layer, ref in PARENTS.items() if ref.layer is ch.layer
                   for c in self.children(child_layer, ch.old.uuid)
                   if (child_layer, c.uuid) not in leaving]
        return orphans + inverse

    def restore(self, uuid: str) -> Feature:
        """Bring back a feature deleted in this session (same uuid)."""
        ch = self.recycle_bin.get(uuid)
        if ch is None:
            raise NotFound(f"nothing deleted with uuid {uuid!r} in this session")
        self._commit([ch.inverse()])
        old: Feature = ch.old
        return old

    # ---------------------------------------------------------------- CRS and positions
    def set_crs(self, crs: Any) -> SiteFrame:
        """Choose the site CRS (EPSG code, ``"EPSG:3070"``, WKT …) before geometry exists.

        Raises ``StateError`` once any geometry is recorded, ``UnsuitableCRS`` for a bad CRS.
        """
        frame = SiteFrame(crs)
        if len(self):
            raise StateError("the site CRS cannot change once features are recorded")
        old = self._site
        new = replace(old, crs=crs_text(frame), modified_utc=ms(self._clock()))
        self._commit([Change(Action.UPDATED, Layer.SITE, new, old)], undoable=False)
        self._frame = frame
        return frame

    def ensure_frame(self, fix: FixLike | None = None) -> SiteFrame:
        """The site frame, picking the UTM zone of ``fix`` if none is set yet."""
        if self._frame is None:
            if fix is None or not self.gate.usable(fix) or fix.lat_deg is None or fix.lon_deg is None:
                raise StateError("the site CRS is not set yet and no usable fix was given")
            self.set_crs(SiteFrame.for_position(fix.lat_deg, fix.lon_deg).crs)
        return self.frame

    def _xy(self, x: float | None = None, y: float | None = None, fix: FixLike | None = None, *,
            name: str = "position") -> tuple[float, float]:
        if fix is not None:
            reason = self.gate.explain(fix)
            if reason is not None:
                raise InvalidValue("fix", f"not usable ({reason})")
            if fix.lon_deg is None or fix.lat_deg is None:  # the gate refuses these: for the checker
                raise InvalidValue("fix", "not usable (no position in the fix)")
            frame = self.ensure_frame(fix)
            fx, fy = frame.to_local(fix.lon_deg, fix.lat_deg)
            return float(fx), float(fy)
        if x is None or y is None:
            raise InvalidValue(name, "give x and y (site CRS units) or a fix")
        self.frame  # noqa: B018 - a position needs a CRS (StateError before one is set)
        return V.finite("x", x), V.finite("y", y)

    # ---------------------------------------------------------------- track
    def track(self) -> list[TrackPoint]:
        """The raw track as records (slow for a day's track: read :attr:`track_log`)."""
        return self.features(Layer.TRACK)

    @property
    def track_log(self) -> TrackLog:
        """The raw track as columns (x, y, fix quality, HDOP ...: :mod:`.tracklog`)."""
        return self._track
