"""Corrections of the visit being recorded, as the Records tab and the edit form need them.

:class:`Corrections` wraps :class:`fieldapp.app.recording.Recording`: whether a selected record
is still there, a record in field words, the closed boundary a record lets the crew re-open
and what it had, undo / redo being possible, the last vertex of the boundary being walked
taken back. The widgets ask here; the model stays behind the app layer. The edits themselves
are :mod:`fieldapp.app.editing`'s (they take the open visit).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fieldapp.app.editing import Selection
from fieldapp.survey.features import Layer

if TYPE_CHECKING:
    from fieldapp.app.recording import Recording


@dataclass(frozen=True)
class ReopenedBoundary:
    """What a re-opened boundary's area had, to close it again with the same attributes."""

    kind: str
    """The walk's kind (``wetland``, ``woodland`` ...: :class:`fieldapp.survey.features.WalkKind`)."""
    label: str
    wetland_type: str
    susceptibility: str
    """The susceptibility's value (``""`` when none was given)."""
    standing_water: bool
    hydric_vegetation: bool
    fill: str = ""
    """A wetland's fill (``complete`` / ``partial``; ``""``: none) and its permit reference."""
    fill_permit: str = ""


class Corrections:
    """The open visit's records as the correcting widgets see them (no visit: nothing)."""

    def __init__(self, recording: Recording) -> None:
        self.recording = recording

    def exists(self, sel: Selection) -> bool:
        """Whether the record ``sel`` is still in the open visit (False without a visit)."""
        visit = self.recording.visit
        if visit is None:
            return False
        try:
            visit.model.get(sel.layer, sel.uuid)
        except KeyError:
            return False
        return True

    def words(self, sel: Selection) -> str:
        """The record ``sel`` in field words (``OHWM point 6``, ``tree 12``, ``wetland W1``).

        Raises
        ------
        RuntimeError
            No visit is open.
        fieldapp.survey.errors.NotFound
            No such record (a ``KeyError``).
        """
        from fieldapp.survey.editing import record_words

        model = self._model()
        return str(record_words(model, sel.layer, model.get(sel.layer, sel.uuid)))

    def walk_to_reopen(self, sel: Selection) -> str | None:
        """The uuid of the closed boundary walk the record ``sel`` lets the crew re-open (an
        area: its walk; a walk with an area: itself), None when there is none.

        Raises as :meth:`words`."""
        model = self._model()
        rec = model.get(sel.layer, sel.uuid)
        if sel.layer is Layer.AREA:
            walk_uuid = getattr(rec, "walk_uuid", None)
        elif sel.layer is Layer.WALK and getattr(rec, "area_uuid", None):
            walk_uuid = sel.uuid
        else:
            return None
        return walk_uuid if walk_uuid in {w.uuid for w in model.features(Layer.WALK)} else None

    def reopen_walk(self, walk_uuid: str) -> None:
        """Re-open the closed boundary ``walk_uuid`` to walk on (its area removed, the walk
        paused at its last vertex; one undoable command): it becomes the walk under way.

        Raises
        ------
        RuntimeError
            No visit is open, or a boundary is being walked already (close or delete it first).
        Exception
            The model's refusal, for :func:`fieldapp.app.editing.refusal_words`.
        """
        visit = self.recording.visit
        if visit is None:
            raise RuntimeError("no visit is open")
        if visit.walk is not None:
            raise RuntimeError("Close or delete the boundary being walked first.")
        visit.walk = visit.model.reopen_walk(walk_uuid)
        visit.last_closed_area = None

    def reopened(self, walk_uuid: str) -> ReopenedBoundary:
        """What the re-opened boundary ``walk_uuid``'s area had (its label, else the walk's).

        Raises as :meth:`words`."""
        model = self._model()
        attrs = model.reopened_attributes(walk_uuid)
        walk = model.get(Layer.WALK, walk_uuid)
        sus = attrs.get("susceptibility")
        return ReopenedBoundary(
            kind=str(getattr(walk.kind, "value", walk.kind)),
            label=str(attrs.get("label") or walk.label or ""),
            wetland_type=str(attrs.get("wetland_type") or ""),
            susceptibility=str(getattr(sus, "value", sus) or ""),
            standing_water=bool(attrs.get("standing_water")),
            hydric_vegetation=bool(attrs.get("hydric_vegetation")),
            fill=str(attrs.get("fill") or ""), fill_permit=str(attrs.get("fill_permit") or ""))

    @property
    def can_undo(self) -> bool:
        """Whether Ctrl+Z has something to undo (False without a visit)."""
        visit = self.recording.visit
        return visit is not None and bool(visit.model.can_undo)

    @property
    def can_redo(self) -> bool:
        """Whether Ctrl+Shift+Z has something to redo (False without a visit)."""
        visit = self.recording.visit
        return visit is not None and bool(visit.model.can_redo)

    def remove_last_vertex(self) -> str:
        """Take back the last vertex of the boundary being walked (one undoable command);
        what was done, in words ("Removed boundary vertex 4 — Ctrl+Z brings it back").

        Raises
        ------
        RuntimeError
            No visit is open, or no boundary is being walked.
        Exception
            The model's refusal, for :func:`fieldapp.app.editing.refusal_words`.
        """
        visit = self.recording.visit
        if visit is None or visit.walk is None:
            raise RuntimeError("No boundary is being walked")
        removed = visit.model.remove_last_vertices(visit.walk.uuid)
        return f"Removed boundary vertex {removed[0].seq + 1} — Ctrl+Z brings it back"

    def _model(self) -> Any:
        if self.recording.visit is None:
            raise RuntimeError("no visit is open")
        return self.recording.visit.model
