"""The visit being recorded, as the window's panels see it.

:class:`Recording` holds the open :class:`fieldapp.app.visit.VisitController` (or none), tells
whoever listens when another visit is shown, and words what the panels show of the visit that
the controller does not say itself (the laptop's tag block). The panels read the visit here,
never through the window, and never reach the model or the store behind the controller.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fieldapp.app.visit import VisitController
    from fieldapp.geo import SiteFrame

#: Told the visit shown (None: no visit open), after the window shows it.
VisitListener = Callable[["VisitController | None"], None]


class Recording:
    """The visit the crew is recording into (None until one is opened or made).

    >>> r = Recording()
    >>> seen = []
    >>> r.on_shown(seen.append)
    >>> r.visit is None, r.tag_words()
    (True, '')
    >>> r.shown()
    >>> seen
    [None]
    """

    def __init__(self, visit: VisitController | None = None) -> None:
        self.visit: VisitController | None = visit
        self._listeners: list[VisitListener] = []
        self._shown_once = False

    def on_shown(self, fn: VisitListener) -> None:
        """Call ``fn(visit)`` each time a visit is shown (another one, or the same one reopened
        after a sync; None when none is open)."""
        self._listeners.append(fn)

    def shown(self) -> None:
        """The window has shown :attr:`visit`: tell every listener, in the order they came."""
        self._shown_once = True
        for fn in list(self._listeners):
            fn(self.visit)

    @property
    def listener_count(self) -> int:
        """How many listeners :meth:`on_shown` has taken so far (for :meth:`catch_up`)."""
        return len(self._listeners)

    def catch_up(self, since: int) -> None:
        """Tell the listeners that came after the first ``since`` the visit shown, if the
        window has shown one (or shown none) already: a panel built after the start-up visit
        was shown learns it as the panels built before did.

        >>> r = Recording()
        >>> r.on_shown(lambda v: None); n = r.listener_count; seen = []
        >>> r.on_shown(seen.append); r.catch_up(n); seen      # nothing shown yet
        []
        >>> r.shown(); seen.clear(); r.on_shown(seen.append); r.catch_up(2); seen
        [None]
        """
        if self._shown_once:
            for fn in list(self._listeners[since:]):
                fn(self.visit)

    @property
    def has_frame(self) -> bool:
        """Whether the open visit knows the site's coordinates (its CRS and origin: set by the
        first usable fix, or given when the visit was made); False without a visit."""
        return self.visit is not None and bool(self.visit.model.has_frame)

    @property
    def frame(self) -> SiteFrame | None:
        """The open visit's site frame (CRS, origin, feet), or None before it is known or
        without a visit."""
        return self.visit.model.frame if self.has_frame and self.visit is not None else None

    @property
    def declination_entered(self) -> bool:
        """Whether the site's magnetic declination was typed by the crew (else it is the
        model's, from the first usable fix); False without a visit."""
        return self.visit is not None and self.visit.model.site.declination_source == "entered"

    @property
    def declination_deg(self) -> float:
        """The site's magnetic declination (degrees, east positive) as stored; 0.0 without a
        visit or before one is known."""
        if self.visit is None:
            return 0.0
        return float(self.visit.model.site.declination_deg or 0.0)

    def stake_points(self) -> list[Any]:
        """The open visit's stake points (flags) in the order recorded, superseded ones too;
        [] without a visit."""
        return [] if self.visit is None else list(self.visit.model.stake_points())

    def stake_note(self, uuid: str) -> str:
        """The note of the stake point ``uuid``.

        Raises
        ------
        RuntimeError
            No visit is open.
        fieldapp.survey.errors.NotFound
            No stake point ``uuid`` in the visit (a ``KeyError``).
        """
        from fieldapp.survey.features import Layer

        if self.visit is None:
            raise RuntimeError("no visit is open")
        return str(self.visit.model.get(Layer.STAKE_POINT, uuid).notes or "")

    def set_stake_note(self, uuid: str, text: str) -> None:
        """Change the note of the stake point ``uuid`` to ``text`` (one undoable edit).

        Raises
        ------
        RuntimeError
            No visit is open.
        Exception
            The model's refusal of the edit (no such stake point, a note it rejects), in words.
        """
        from fieldapp.survey.features import Layer

        if self.visit is None:
            raise RuntimeError("no visit is open")
        self.visit.model.update_feature(Layer.STAKE_POINT, uuid, notes=text)

    def length_ft(self, geometry: Any) -> float:
        """The ground length (ft of the site's foot: :attr:`fieldapp.geo.SiteFrame.foot`) of
        ``geometry``, a shapely line in the site's CRS units.

        Raises
        ------
        RuntimeError
            No visit is open.
        """
        if self.visit is None:
            raise RuntimeError("no visit is open")
        return float(self.visit.model.frame.length_ft(geometry))

    def tag_words(self) -> str:
        """The open visit's tag block in words (:func:`tag_block_words`); "" without a visit."""
        return "" if self.visit is None else tag_block_words(self.visit.model)


def tag_block_words(model: Any) -> str:
    """"Next tag 1003 (this laptop's tags 1000–1999). " when the office gave this laptop a tag
    block (``model``: a :class:`fieldapp.survey.visit.Visit`); a used-up block says so, and
    what the next tag is (``Visit.next_tag``); "" without a block."""
    block = getattr(model, "tag_block", None)
    if not block:
        return ""
    if getattr(model, "tag_block_used_up", False):
        return (f"This laptop's tags {block[0]}–{block[1]} are used up: next tag"
                f" {model.next_tag()}, one above the highest tag on this laptop. Sync to get a"
                " new block; a tag another laptop also gave is shown under Conflicts to"
                " re-tag. ")
    return f"Next tag {model.next_tag()} (this laptop's tags {block[0]}–{block[1]}). "
