"""Wis. Adm. Code NR 341.035, Bank determination -- read beside the text, paragraph by paragraph.

(1)(a) Non-priority waterways: the bank is 75 ft landward from the OHWM; if at 75 ft or less
       the slope is 12 % or greater, the bank extends landward to where the slope becomes less
       than 12 %, provided it stays less than 12 % for more than 50 ft.
(1)(b) Priority waterways: the same with 300 ft and 10 %.
(1)(c) Complete interruption: the bank never includes land beyond a topographic break that
       stops runoff reaching the water.
(2)(a) The bank distance is measured on a horizontal plane.
(2)(b) Slope is measured along the surface flow path.
(2)(c) A landowner may stipulate that the slope continues to 300 ft (1.) or 500 ft (2.).
(2)(d) Disturbed area is calculated on the surface of the land.
(3)    Graded area: the area exposed by grading must exceed 10,000 sq ft.

Rules
-----
``nr341.bank``
    :func:`bank_from_segments`, :func:`bank_from_stations` (typed), :func:`bank_from_request`
    (the contract's JSON input). :func:`bank_guidance` renders the field guidance sentence.
    :func:`bank_parameters` gives the figures of (1)(a)/(1)(b)/(2)(c).
``nr341.graded_area``
    :func:`graded_area`, :func:`graded_area_from_request` (in :mod:`fieldapp.rules.nr341_graded`,
    importable from here).

Modules
-------
This module holds the bank: its figures, result types and the determination, step by step
(:func:`_determine`: lay out the transect, stipulation, trigger within the base distance,
extension through runs of 50 ft or less, the bank where a longer run begins or where the
transect still has to go on). Reading segments and stations ((2)(a), (2)(b)) is in
:mod:`fieldapp.rules.nr341_transect`; :class:`Segment` and :class:`Station` are importable here.

Readings taken where the text is silent (ids of ``rules-contract.md``): ``per-segment-slope``,
``trigger-within-base``, ``anchor-last-trigger``, ``never-below-base``, ``interruption-caps``,
``insufficient-transect``, ``horizontal-distance``, ``surface-area``; and one added here:

``run-cut-by-interruption``
    A below-threshold run of 50 ft or less that reaches the marked complete interruption does
    not end the bank (the proviso "less than 12 % for more than 50 feet" is not met before the
    break), so the bank reaches the interruption, where (1)(c) caps it.

Distances are feet along the horizontal, in the site's foot (international or US survey, as
the caller's inputs are; see :mod:`fieldapp.rules`); slopes are percent, signed positive when
the ground rises landward.

Examples
--------
>>> r = bank_from_segments([(30, 4), (60, 18), (120, 5)], priority=False)
>>> r.status.value, r.bank_ft, r.basis.value
('determined', 90.0, 'slope')
>>> r = bank_from_segments([(30, 4), (60, 18), (45, 5)], priority=False)
>>> r.status.value, r.bank_ft_at_least, r.walk_further_ft
('needs_data', 90.0, 5.0)
>>> print(bank_guidance(r))  # doctest: +NORMALIZE_WHITESPACE
Steep from 30 to 90 ft: keep walking, more than 50 ft below 12 % needed:
shoot beyond 140 ft (more than 5.0 ft further).
"""

from __future__ import annotations

import dataclasses
import enum
import math
import reprlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from fieldapp.rules.compare import at_least, at_most, less_than, more_than
from fieldapp.rules.measure import HORIZONTAL_DISTANCE
from fieldapp.rules.nr341_graded import (  # the graded-area rule, re-exported from here as before
    GRADED_AREA_SQFT,
    SURFACE_AREA,
    GradedAreaResult,
    graded_area,
    graded_area_from_request,
    graded_patches,
)
from fieldapp.rules.nr341_transect import Segment, Station, read_segments, read_stations  # (2)(a), (2)(b)
from fieldapp.rules.results import RuleInputError, RuleResult, Status, ordered
from fieldapp.rules.validate import boolean, number, one_of, sequence

__all__ = [
    "GRADED_AREA_SQFT",
    "BankParameters",
    "bank_parameters",
    "Basis",
    "BankResult",
    "GradedAreaResult",
    "Segment",
    "Station",
    "SteepStretch",
    "WalkReason",
    "bank_from_request",
    "bank_from_segments",
    "bank_from_stations",
    "bank_guidance",
    "graded_area",
    "graded_area_from_request",
    "graded_patches",
]

RULE_BANK = "nr341.bank"


@dataclasses.dataclass(frozen=True)
class BankParameters:
    """The figures of NR 341.035(1)(a)/(1)(b) and (2)(c) for one kind of waterway.

    Attributes
    ----------
    base_ft : float
        Horizontal distance landward of the OHWM, ft (the text's feet, compared with inputs in
        the site's foot), within which the bank always extends: 75 ft ((1)(a)), 300 ft on a
        priority waterway ((1)(b)).
    threshold_pct : float
        Slope, percent, below which a run of more than 50 ft ends the bank: 12 % ((1)(a)),
        10 % ((1)(b)).
    stipulated_ft : float
        Bank extent when the landowner stipulates that the slope continues ((2)(c)): 300 ft,
        500 ft on a priority waterway.
    cite_base, cite_stipulated : str
        Citations of the base paragraph and of the stipulation paragraph.

    Examples
    --------
    >>> bank_parameters(False).base_ft, bank_parameters(True).threshold_pct
    (75.0, 10.0)
    """

    base_ft: float
    threshold_pct: float
    stipulated_ft: float
    cite_base: str
    cite_stipulated: str


_BANK_PARAMETERS = {
    False: BankParameters(75.0, 12.0, 300.0, "NR 341.035(1)(a)", "NR 341.035(2)(c)1."),
    True: BankParameters(300.0, 10.0, 500.0, "NR 341.035(1)(b)", "NR 341.035(2)(c)2."),
}


def bank_parameters(priority_waterway: bool) -> BankParameters:
    """The bank figures of NR 341.035(1)(a) (``False``) or (1)(b) (``True``, priority waterway).

    Parameters
    ----------
    priority_waterway : bool
        Any value; its truth picks the table row.

    Returns
    -------
    BankParameters
        Frozen; the same object for every call with the same truth.

    >>> bank_parameters(True).stipulated_ft, bank_parameters(True).cite_base
    (500.0, 'NR 341.035(1)(b)')
    """
    return _BANK_PARAMETERS[bool(priority_waterway)]


#: (1)(a): "provided the slope is less than 12% for more than 50 feet".
RUN_FT = 50.0
CITE_INTERRUPTION = "NR 341.035(1)(c)"

PER_SEGMENT_SLOPE = "per-segment-slope"
TRIGGER_WITHIN_BASE = "trigger-within-base"
ANCHOR_LAST_TRIGGER = "anchor-last-trigger"
NEVER_BELOW_BASE = "never-below-base"
INTERRUPTION_CAPS = "interruption-caps"
INSUFFICIENT_TRANSECT = "insufficient-transect"
RUN_CUT_BY_INTERRUPTION = "run-cut-by-interruption"
_ORDER = (
    PER_SEGMENT_SLOPE, TRIGGER_WITHIN_BASE, ANCHOR_LAST_TRIGGER, NEVER_BELOW_BASE, INTERRUPTION_CAPS,
    RUN_CUT_BY_INTERRUPTION, INSUFFICIENT_TRANSECT, HORIZONTAL_DISTANCE, SURFACE_AREA,
)


class Basis(str, enum.Enum):
    """What sets the bank: the base distance, the slope extension, a stipulation, an interruption."""

    BASE = "base"
    SLOPE = "slope"
    STIPULATION = "stipulation"
    INTERRUPTION = "interruption"


class WalkReason(str, enum.Enum):
    """Why a ``needs_data`` bank asks for more transect (which bound gave ``walk_further_ft``)."""

    BELOW_THRESHOLD_RUN = "below_threshold_run"  #: a below-threshold run of more than 50 ft is needed
    BASE_DISTANCE = "base_distance"  #: the transect has not passed the base distance
    INTERRUPTION = "interruption"  #: walking to the marked interruption settles it


@dataclasses.dataclass(frozen=True, slots=True)
class SteepStretch:
    """Consecutive segments at or above the slope threshold, from ``start_ft`` to ``end_ft``
    (horizontal ft from the OHWM); ``within_bank`` when the stretch starts inside the bank
    (or inside ``bank_ft_at_least`` while the transect is still being walked)."""

    start_ft: float
    end_ft: float
    within_bank: bool


@dataclasses.dataclass(frozen=True, kw_only=True)
class BankResult(RuleResult):
    """Result of ``nr341.bank``.

    Attributes
    ----------
    bank_ft : float or None
        Horizontal distance of the bank from the OHWM, ft; None while ``needs_data``.
    bank_ft_at_least : float
        What the data so far prove: the bank reaches at least this far (= ``bank_ft`` when
        determined).
    extended : bool
        The bank (or its known lower bound) lies beyond the base distance.
    basis : Basis
        ``base``, ``slope``, ``stipulation`` or ``interruption`` (as known so far).
    segment_horizontal_ft, segment_slopes_pct : tuple of float
        Every input segment, reduced to horizontal ft and percent.
    walk_further_ft : float or None
        Strict lower bound: walk *more than* this many ft further landward (None when
        determined); ``walk_reason`` says which bound it is.
    walk_reason : WalkReason or None
    note : str or None
        Asks the surveyor about ground that falls landward (never inferred as an interruption).
    priority, stipulated : bool
    base_ft, threshold_pct : float
        75 ft / 12 % or 300 ft / 10 %.
    transect_end_ft : float
        Horizontal length of the transect as walked.
    interruption_at_ft : float or None
    anchor_ft : float or None
        Landward end of the last steep segment counted (``anchor-last-trigger``); None with no
        trigger.
    run_below_threshold_ft : float or None
        Length of the below-threshold run walked since ``anchor_ft`` when the transect ends in
        it (0 when it ends on steep ground); None otherwise.
    steep_stretches : tuple of SteepStretch
        Every steep stretch before any interruption, seaward first.
    """

    bank_ft: float | None
    bank_ft_at_least: float
    extended: bool
    basis: Basis
    segment_horizontal_ft: tuple[float, ...]
    segment_slopes_pct: tuple[float, ...]
    walk_further_ft: float | None
    walk_reason: WalkReason | None = None
    note: str | None = None
    priority: bool
    stipulated: bool = False
    base_ft: float
    threshold_pct: float
    transect_end_ft: float
    interruption_at_ft: float | None = None
    anchor_ft: float | None = None
    run_below_threshold_ft: float | None = None
    steep_stretches: tuple[SteepStretch, ...] = ()


# --------------------------------------------------------------------------------------------
# The determination


def _fmt(x: float) -> str:
    """Feet for sentences: one decimal, '.0' dropped (40 -> '40', 40.25 -> '40.2')."""
    s = f"{x:.1f}"
    return s[:-2] if s.endswith(".0") else s


def _falling_note(starts: list[float], ends: list[float], ps: list[float]) -> str | None:
    """The ``note`` asking about counted segments whose ground falls landward (slope < 0): a
    complete interruption ((1)(c)) is only ever marked by the surveyor, never inferred."""
    spans = [f"{_fmt(starts[i])} to {_fmt(ends[i])} ft" for i in range(len(starts)) if less_than(ps[i], 0.0)]
    if not spans:
        return None
    return (
        f"The ground falls landward from {', '.join(spans)}. If that is a complete interruption "
        "(a topographic break that stops runoff reaching the water, NR 341.035(1)(c)), mark it; "
        "the app never infers one."
    )


@dataclasses.dataclass(slots=True)
class _Walk:
    """The transect laid out for the determination: what every step of :func:`_determine` reads.

    Attributes
    ----------
    params : BankParameters
        Base distance, threshold and stipulated distance of the waterway ((1)(a) or (1)(b)).
    hs, ps : list of float
        Every input segment, horizontal ft and slope percent, seaward first.
    starts, ends : list of float
        Horizontal ft from the OHWM where each *counted* segment starts and ends ((2)(a)):
        segments starting at or beyond the interruption are not counted, and the last one
        counted ends at it ((1)(c)).
    steep : list of bool
        Per counted segment: its slope is the threshold or more (``per-segment-slope``).
    cap_ft : float
        ``interruption_ft``, or infinity when none is marked.
    interruption_ft : float or None
        Horizontal ft from the OHWM of the marked complete interruption.
    priority, stipulated : bool
        As given.
    used : set of str
        Ids of the readings relied on so far; every step adds to it.
    """

    params: BankParameters
    hs: list[float]
    ps: list[float]
    starts: list[float]
    ends: list[float]
    steep: list[bool]
    cap_ft: float
    interruption_ft: float | None
    priority: bool
    stipulated: bool
    used: set[str]

    @property
    def end_ft(self) -> float:
        """Horizontal ft from the OHWM where the counted transect ends (0 with no segment)."""
        return self.ends[-1] if self.ends else 0.0

    @property
    def reached_cap(self) -> bool:
        """The transect reaches the marked interruption."""
        return self.interruption_ft is not None and at_least(self.end_ft, self.cap_ft)

    @property
    def past_base(self) -> bool:
        """The counted transect ends beyond the base distance (75 ft / 300 ft)."""
        return more_than(self.end_ft, self.params.base_ft)

    @property
    def covered(self) -> bool:
        """Nothing beyond the transect can change the bank: it passes the base distance or
        reaches the interruption."""
        return self.past_base or self.reached_cap

    @property
    def base_walk(self) -> tuple[float, WalkReason]:
        """The walk still needed to pass the base distance, ft, and its reason."""
        return self.params.base_ft - self.end_ft, WalkReason.BASE_DISTANCE


def _lay_out(hs: Sequence[float], cap_ft: float) -> tuple[list[float], list[float]]:
    """(2)(a), (1)(c): where each segment starts and ends, horizontal ft from the OHWM.

    Segments that start at or beyond ``cap_ft`` (the interruption, or infinity) are left out;
    the last one counted ends at ``cap_ft``.

    >>> _lay_out([30.0, 60.0, 45.0], 100.0)
    ([0.0, 30.0, 90.0], [30.0, 90.0, 100.0])
    """
    starts: list[float] = []
    ends: list[float] = []
    pos = 0.0
    for h in hs:
        if not less_than(pos, cap_ft):
            break
        starts.append(pos)
        pos += h
        ends.append(pos if pos < cap_ft else cap_ft)
    return starts, ends


def _walk_of(hs: list[float], ps: list[float], *, priority: bool, interruption: float | None,
             stipulated: bool, reduced: bool) -> _Walk:
    """Validated segments (horizontal ft, slope %) laid out as a :class:`_Walk`; ``reduced``
    says some were reduced from slope distances or degrees (``horizontal-distance``)."""
    params = bank_parameters(priority)
    cap = math.inf if interruption is None else interruption
    starts, ends = _lay_out(hs, cap)
    steep = [at_least(ps[i], params.threshold_pct) for i in range(len(starts))]
    used = {HORIZONTAL_DISTANCE} if reduced else set()
    return _Walk(params, hs, ps, starts, ends, steep, cap, interruption, priority, stipulated, used)


def _steep_stretches(walk: _Walk, at_least_ft: float) -> tuple[SteepStretch, ...]:
    """Runs of consecutive steep counted segments, seaward first; ``within_bank`` when a run
    starts short of ``at_least_ft``."""
    steep, starts, ends, n = walk.steep, walk.starts, walk.ends, len(walk.starts)
    stretches = []
    i = 0
    while i < n:
        if steep[i]:
            j = i
            while j + 1 < n and steep[j + 1]:
                j += 1
            stretches.append(SteepStretch(starts[i], ends[j], less_than(starts[i], at_least_ft)))
            i = j + 1
        else:
            i += 1
    return tuple(stretches)


def _result(walk: _Walk, **kw: Any) -> BankResult:
    """The :class:`BankResult`: ``kw`` gives the verdict fields, ``walk`` the rest."""
    at_least_ft = kw["bank_ft_at_least"]
    return BankResult(
        rule=RULE_BANK,
        interpretations=ordered(walk.used, _ORDER),
        segment_horizontal_ft=tuple(walk.hs),
        segment_slopes_pct=tuple(walk.ps),
        extended=more_than(at_least_ft, walk.params.base_ft),
        note=_falling_note(walk.starts, walk.ends, walk.ps),
        priority=walk.priority,
        stipulated=walk.stipulated,
        base_ft=walk.params.base_ft,
        threshold_pct=walk.params.threshold_pct,
        transect_end_ft=math.fsum(walk.hs),
        interruption_at_ft=walk.interruption_ft,
        steep_stretches=_steep_stretches(walk, at_least_ft),
        **kw,
    )


def _settled(walk: _Walk, bank_ft: float, basis: Basis, **kw: Any) -> BankResult:
    """A ``determined`` bank of ``bank_ft``, citing the paragraph of ``basis``: (1)(c) for an
    interruption, (2)(c) for a stipulation, else (1)(a) or (1)(b)."""
    cite = {Basis.INTERRUPTION: CITE_INTERRUPTION, Basis.STIPULATION: walk.params.cite_stipulated}.get(
        basis, walk.params.cite_base)
    return _result(walk, status=Status.DETERMINED, citation=cite, bank_ft=bank_ft, bank_ft_at_least=bank_ft,
                   basis=basis, walk_further_ft=None, **kw)


def _unsettled(walk: _Walk, at_least_ft: float, walks: list[tuple[float, WalkReason]], **kw: Any) -> BankResult:
    """A ``needs_data`` bank known to reach ``at_least_ft`` (``insufficient-transect``).

    ``walk_further_ft`` is the largest of ``walks`` (ft still to walk, and why), cut to the
    distance left to the interruption, and never negative.
    """
    walk_ft, reason = max(walks, key=lambda w: w[0])
    cap, end = walk.cap_ft, walk.end_ft
    if walk.interruption_ft is not None and less_than(cap - end, walk_ft):
        walk_ft, reason = cap - end, WalkReason.INTERRUPTION
    walk_ft = max(walk_ft, 0.0)
    walk.used.add(INSUFFICIENT_TRANSECT)
    if at_least(at_least_ft, cap):
        basis = Basis.INTERRUPTION
    elif more_than(at_least_ft, walk.params.base_ft):
        basis = Basis.SLOPE
    else:
        basis = Basis.BASE
    cite = CITE_INTERRUPTION if basis is Basis.INTERRUPTION else walk.params.cite_base
    step = _next_step(walk_ft, reason, walk.params.threshold_pct, walk.params.base_ft, cap, end)
    return _result(walk, status=Status.NEEDS_DATA, citation=cite, bank_ft=None, bank_ft_at_least=at_least_ft,
                   basis=basis, walk_further_ft=walk_ft, walk_reason=reason, next_step=step, **kw)


def _stipulated_bank(walk: _Walk) -> BankResult:
    """(2)(c): the stipulated distance (300 ft / 500 ft) replaces the slope survey; (1)(c)
    still caps it (``interruption-caps``)."""
    if less_than(walk.cap_ft, walk.params.stipulated_ft):
        walk.used.add(INTERRUPTION_CAPS)
        return _settled(walk, walk.cap_ft, Basis.INTERRUPTION)
    return _settled(walk, walk.params.stipulated_ft, Basis.STIPULATION)


def _last_trigger(walk: _Walk) -> int | None:
    """(1)(a)/(b): index of the last steep segment that starts at the base distance or less
    (``trigger-within-base``); None when there is none."""
    last = None
    for i in range(len(walk.starts)):
        if walk.steep[i] and at_most(walk.starts[i], walk.params.base_ft):
            last = i
    return last


def _bank_without_trigger(walk: _Walk) -> BankResult:
    """No steep segment starts within the base distance: the bank is the base distance,
    capped by the interruption ((1)(c)); ``needs_data`` until the transect passes it."""
    base = walk.params.base_ft
    capped = less_than(walk.cap_ft, base)
    if capped:
        walk.used.add(INTERRUPTION_CAPS)
    bank = walk.cap_ft if capped else base
    if walk.covered:
        return _settled(walk, bank, Basis.INTERRUPTION if capped else Basis.BASE)
    return _unsettled(walk, bank, [walk.base_walk])


def _anchor_from(walk: _Walk, last: int) -> tuple[float, bool]:
    """``anchor-last-trigger``: extend from the trigger ``last`` through later steep segments
    separated by below-threshold runs of 50 ft or less.

    Returns
    -------
    anchor_ft : float
        Landward end of the last steep segment reached, horizontal ft from the OHWM.
    closed : bool
        A below-threshold run of more than 50 ft follows the anchor within the transect.
    """
    anchor = walk.ends[last]
    for j in range(last + 1, len(walk.starts)):
        if walk.steep[j]:
            anchor = walk.ends[j]
        elif more_than(walk.ends[j] - anchor, RUN_FT):
            return anchor, True
    return anchor, False


def _bank_in_open_run(walk: _Walk, anchor: float) -> BankResult:
    """The transect ends on steep ground or in a below-threshold run of 50 ft or less after
    ``anchor``: the interruption settles it (``run-cut-by-interruption``), else the run must be
    walked on to more than 50 ft (and the base distance passed)."""
    end = walk.end_ft
    if walk.reached_cap:
        walk.used.add(INTERRUPTION_CAPS)
        run = end - anchor
        if more_than(run, 0.0):
            walk.used.add(RUN_CUT_BY_INTERRUPTION)
        return _settled(walk, walk.cap_ft, Basis.INTERRUPTION, anchor_ft=anchor, run_below_threshold_ft=run)
    base = walk.params.base_ft
    run = end - anchor if more_than(end - anchor, 0.0) else 0.0
    walks = [(RUN_FT - run, WalkReason.BELOW_THRESHOLD_RUN)]
    if not walk.past_base:
        walks.append(walk.base_walk)
    if less_than(anchor, base):
        walk.used.add(NEVER_BELOW_BASE)
    at_least_ft = min(max(anchor, base), walk.cap_ft)
    return _unsettled(walk, at_least_ft, walks, anchor_ft=anchor, run_below_threshold_ft=run)


def _bank_at_anchor(walk: _Walk, anchor: float) -> BankResult:
    """A below-threshold run of more than 50 ft begins at ``anchor``: the bank ends there
    (``slope`` basis), never short of the base distance (``never-below-base``), capped by the
    interruption; ``needs_data`` while a segment starting within the base distance is unwalked."""
    base = walk.params.base_ft
    uncapped = anchor
    if less_than(anchor, base):
        walk.used.add(NEVER_BELOW_BASE)
        uncapped = base
    capped = less_than(walk.cap_ft, uncapped)
    if capped:
        walk.used.add(INTERRUPTION_CAPS)
    bank = walk.cap_ft if capped else uncapped
    if walk.covered:
        basis = Basis.INTERRUPTION if capped else (Basis.SLOPE if more_than(bank, base) else Basis.BASE)
        return _settled(walk, bank, basis, anchor_ft=anchor)
    return _unsettled(walk, bank, [walk.base_walk], anchor_ft=anchor)


def _determine(
    hs: list[float],
    ps: list[float],
    *,
    priority: bool,
    interruption: float | None,
    stipulated: bool,
    reduced: bool,
) -> BankResult:
    """Rule ``nr341.bank`` on validated segments (NR 341.035(1), (2)).

    Parameters
    ----------
    hs, ps : list of float
        Horizontal length, ft, and slope, percent, of each segment, seaward first.
    priority : bool
        Priority navigable waterway ((1)(b)) or not ((1)(a)).
    interruption : float or None
        Horizontal ft from the OHWM of the marked complete interruption ((1)(c)).
    stipulated : bool
        The landowner stipulates that the slope continues ((2)(c)).
    reduced : bool
        Some segment was reduced from a slope distance or degrees (``horizontal-distance``).

    Returns
    -------
    BankResult
    """
    walk = _walk_of(hs, ps, priority=priority, interruption=interruption, stipulated=stipulated, reduced=reduced)
    if stipulated:
        return _stipulated_bank(walk)
    walk.used.add(PER_SEGMENT_SLOPE)
    if any(walk.steep):
        walk.used.add(TRIGGER_WITHIN_BASE)
    last = _last_trigger(walk)
    if last is None:
        return _bank_without_trigger(walk)
    walk.used.add(ANCHOR_LAST_TRIGGER)
    anchor, closed = _anchor_from(walk, last)
    if closed:
        return _bank_at_anchor(walk, anchor)
    return _bank_in_open_run(walk, anchor)


def _run_words(walk: float, end: float, thr: float) -> str:
    """What a bank still inside (or just before) a below-threshold run needs: a run of more than
    50 ft, so a station beyond ``end + walk`` ft; with ``walk`` 0 (a run of exactly 50 ft, NR
    341.035(1)(a) "for more than 50 feet") one more station landward settles it."""
    target = _fmt(end + walk)
    if at_most(walk, 0.0):
        return f"more than {RUN_FT:g} ft below {thr:g} % needed: one more station landward, beyond {target} ft"
    return (f"more than {RUN_FT:g} ft below {thr:g} % needed: shoot beyond {target} ft "
            f"(more than {walk:.1f} ft further)")


def _next_step(walk: float, reason: WalkReason, thr: float, base: float, cap: float, end: float) -> str:
    """The result's ``next_step``: what to walk next, ft, for ``reason`` (``end``: the
    transect's landward end, ft)."""
    if reason is WalkReason.BELOW_THRESHOLD_RUN:
        return f"keep walking: {_run_words(walk, end, thr)}"
    if reason is WalkReason.INTERRUPTION:
        return f"keep walking: {walk:.1f} ft further, to the complete interruption marked at {_fmt(cap)} ft"
    if at_most(walk, 0.0):
        return f"keep walking: measure the segment that starts at the {base:g} ft base distance"
    return f"keep walking: more than {walk:.1f} ft further, past the {base:g} ft base distance"


# --------------------------------------------------------------------------------------------
# Public API


def _options(where: str, m: Mapping[str, Any]) -> tuple[float | None, bool]:
    """``interruption_at_ft`` (ft, optional, ≥ 0) and ``stipulated`` (default False) of ``m``."""
    interruption = number(m, "interruption_at_ft", where, required=False, unit=" ft")
    stipulated = boolean(m, "stipulated", where, required=False, default=False)
    return interruption, bool(stipulated)


def bank_from_segments(
    segments: Iterable[Segment | Mapping[str, float] | tuple[float, float]],
    *,
    priority: bool,
    interruption_at_ft: float | None = None,
    stipulated: bool = False,
) -> BankResult:
    """Rule ``nr341.bank`` from transect segments, seaward first (NR 341.035(1), (2)).

    Parameters
    ----------
    segments : iterable of Segment, mapping or (horizontal_ft, slope_pct)
        The transect from the OHWM landward. Each has one length (``horizontal_ft`` or
        ``slope_distance_ft``, ft, > 0; a slope distance is reduced with the segment's own
        slope) and one slope (``slope_pct`` or ``slope_deg``, signed, positive rising landward).
    priority : bool
        Priority navigable waterway ((1)(b): 300 ft, 10 %) or not ((1)(a): 75 ft, 12 %).
    interruption_at_ft : float, optional
        Horizontal ft from the OHWM of a complete interruption the surveyor marked ((1)(c)).
    stipulated : bool
        The landowner stipulates the slope continues ((2)(c): 300 ft / 500 ft).

    Returns
    -------
    BankResult
        ``determined`` with ``bank_ft``, or ``needs_data`` with ``bank_ft_at_least``,
        ``walk_further_ft`` and ``next_step``; render the field sentence with
        :func:`bank_guidance`.

    Raises
    ------
    RuleInputError
        A segment without a length or slope, with both alternatives, with a length of 0 or
        less, a non-finite value, or an angle outside (-90, 90) degrees; ``key`` names it
        (``"segments[2].slope_pct"``).
    """
    hs, ps, reduced = read_segments(segments, "segments")
    return _typed_bank(hs, ps, reduced, priority, interruption_at_ft, stipulated)


def bank_from_stations(
    stations: Sequence[Station | Mapping[str, float] | tuple[float, float]],
    *,
    priority: bool,
    interruption_at_ft: float | None = None,
    stipulated: bool = False,
) -> BankResult:
    """Rule ``nr341.bank`` from transect stations (NR 341.035(1), (2)).

    Parameters
    ----------
    stations : sequence of Station, mapping or (distance_ft, elevation_ft)
        The first station is the OHWM at ``distance_ft`` 0; distances (horizontal ft from the
        OHWM) strictly increase. Each pair of stations is one segment; its slope is
        100·Δelevation/Δdistance (``per-segment-slope``).
    priority, interruption_at_ft, stipulated
        As for :func:`bank_from_segments`.

    Returns
    -------
    BankResult

    Raises
    ------
    RuleInputError
        First station not at 0, distances not increasing, a missing or non-finite value.
    """
    hs, ps = read_stations(list(stations), "stations")
    return _typed_bank(hs, ps, False, priority, interruption_at_ft, stipulated)


def _typed_bank(hs: list[float], ps: list[float], reduced: bool, priority: Any, interruption_at_ft: Any,
                stipulated: Any) -> BankResult:
    """The typed API's options checked (keys without the ``input.`` prefix), then the bank."""
    interruption, stip = _options("", {"interruption_at_ft": interruption_at_ft, "stipulated": stipulated})
    return _determine(hs, ps, priority=_priority(priority, "priority"), interruption=interruption,
                      stipulated=stip, reduced=reduced)


def _priority(value: Any, key: str) -> bool:
    """The typed API's ``priority``, which must be a bool (raises :class:`RuleInputError`)."""
    if not isinstance(value, bool):
        raise RuleInputError(key, f"priority must be true or false, got {reprlib.repr(value)}")
    return value


def bank_from_request(input: Mapping[str, Any], settings: Mapping[str, Any]) -> BankResult:
    """``nr341.bank`` from the contract's ``input`` (NR 341.035(1), (2)); ``settings`` unused.

    Parameters
    ----------
    input : mapping
        ``priority`` (bool), one of ``segments`` or ``stations`` (lists as for
        :func:`bank_from_segments` / :func:`bank_from_stations`; neither is needed when
        ``stipulated``), ``interruption_at_ft`` (ft, optional), ``stipulated`` (bool, optional).

    Returns
    -------
    BankResult

    Raises
    ------
    RuleInputError
        As the typed functions; keys start ``input.`` (``"input.segments[2].slope_pct"``).
    """
    where = "input"
    priority = boolean(input, "priority", where)
    interruption, stip = _options(where, input)
    key = one_of(input, ("segments", "stations"), where, required=not stip)
    reduced = False
    hs: list[float] = []
    ps: list[float] = []
    if key == "segments":
        items = sequence(input, "segments", where)
        hs, ps, reduced = read_segments(items, "input.segments")
    elif key == "stations":
        hs, ps = read_stations(sequence(input, "stations", where), "input.stations")
    return _determine(hs, ps, priority=priority, interruption=interruption, stipulated=stip, reduced=reduced)


def bank_guidance(result: BankResult) -> str:
    """The field guidance sentence for a bank result (plain text, pure).

    Examples: ``"Steep from 40 to 120 ft: keep walking, more than 50 ft below 12 % needed: shoot
    beyond 170 ft (more than 28.0 ft further)."``,
    ``"Bank settled at 90 ft: slope extension, NR 341.035(1)(a)."``

    Parameters
    ----------
    result : BankResult

    Returns
    -------
    str
        One or two sentences, distances in ft to one decimal; the ``note`` about ground falling
        landward is appended.
    """
    thr = f"{result.threshold_pct:g} %"
    base = f"{result.base_ft:g} ft"
    if result.status is Status.DETERMINED:
        why = {
            Basis.BASE: "the base distance",
            Basis.SLOPE: f"slope extension, the first run of more than 50 ft below {thr} starts there",
            Basis.STIPULATION: "stipulated distance",
            Basis.INTERRUPTION: "cut by the complete interruption",
        }[result.basis]
        cite = result.citation if result.citation.endswith(".") else f"{result.citation}."
        assert result.bank_ft is not None  # a determined bank has its distance
        text = f"Bank settled at {_fmt(result.bank_ft)} ft: {why}, {cite}"
    else:
        walk = result.walk_further_ft
        assert walk is not None  # a bank still needing data says how much further to walk
        stretch = None
        if result.anchor_ft is not None:
            for s in result.steep_stretches:
                if at_least(s.end_ft, result.anchor_ft) and at_most(s.end_ft, result.anchor_ft):
                    stretch = s
        lead = (f"Steep from {_fmt(stretch.start_ft)} to {_fmt(stretch.end_ft)} ft" if stretch is not None
                else f"No slope of {thr} or more yet")
        if result.walk_reason is WalkReason.BELOW_THRESHOLD_RUN:
            text = f"{lead}: keep walking, {_run_words(walk, result.transect_end_ft, result.threshold_pct)}."
        elif result.walk_reason is WalkReason.INTERRUPTION and result.interruption_at_ft is not None:
            text = (f"{lead}: keep walking, {walk:.1f} ft further to the complete interruption at "
                    f"{_fmt(result.interruption_at_ft)} ft.")
        elif at_most(walk, 0.0):
            text = f"{lead}: keep walking, measure the segment starting at the {base} base distance."
        else:
            text = f"{lead}: keep walking, more than {walk:.1f} ft further to pass the {base} base distance."
    if result.note:
        text = f"{text} {result.note}"
    return text
