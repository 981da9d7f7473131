"""Rule requests: every builder of rule input, from numbers or from the survey model (no Qt).

Why here
--------
This is the one place where the survey model meets ``rules-contract.md``. A rule request is
the checks' business, not the model's: the model (:class:`fieldapp.survey.visit.Visit`) keeps
the data and the commands, and this layer reads it (never writes it) together with what the
rules publish (citations: :data:`fieldapp.rules.city.CITE`) to build the contract JSON, so
the checks panel, the report, the tests and ``fieldapp rules evaluate`` all get their input
from the same builders (``bank_input``, ``segments``, ``stations_input``,
``wetland_size_input``, ``woodland_input``, ``woodland_class_input`` were methods of the visit
and of ``survey.canopy`` before). The dependency points one way: checks read the survey and
the rules; neither imports this module (the layer contract in pyproject.toml).

Three kinds of builder:

- *request builders* (``bank_request`` …): a request from plain numbers;
- *model inputs* (:func:`bank_input`, :func:`wetland_size_input`, :func:`woodland_input` …):
  the ``input`` of one request for one record of the model;
- *check builders* (:func:`bank_checks`, :func:`wetland_checks` …, one per kind of check):
  ``{check id: (title, request)}`` for every applicable record, gathered by
  :func:`requests_for_model`.

A check may wait for data before any rule can read it: a woodland stand in which no tree has
been recorded yet gets no ``woodland.class`` request (the rule would class the empty tally as
"none", a verdict on nothing) but an :class:`AwaitingData` in its place.

Examples
--------
>>> req = bank_request(False, [(0.0, 0.0), (30.0, 1.2)])
>>> req["rule"], req["input"]["stations"][1]
('nr341.bank', {'distance_ft': 30.0, 'elevation_ft': 1.2})
>>> drainageway_request("swale", 200.0)
{'rule': 'drainageway', 'input': {'kind': 'swale', 'length_ft': 200.0}}
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import shapely
from shapely.geometry import LineString

from fieldapp.checks.citychecks import add_city_inputs
from fieldapp.checks.siteft import ring_ft as _ring_ft
from fieldapp.checks.siteft import value_of as _v
from fieldapp.rules.city_tables import CITE as CITE_CITY
from fieldapp.survey.features import Layer

from .support import Derived, support_checks

__all__ = [
    "AwaitingData", "CITE_CITY", "RECORD_STAND_TREES", "RETAINED_ROUNDING_AC",
    "enter_retained_area", "bank_request", "protective_area_request", "infill_input",
    "woodland_class_request", "mitigation_request", "wetland_size_request",
    "development_area_request", "graded_area_request", "drainageway_request", "clamp_pct",
    "segments", "stations_input", "bank_input", "wetland_size_input", "woodland_class_input",
    "woodland_input", "wetland_feature", "graded_slope_pct", "stands_with_trees",
    "bank_checks", "wetland_checks", "woodland_checks", "protection_check", "graded_area_checks",
    "drainageway_checks", "development_area_checks", "requests_for_model",
]

#: Next step of a woodland stand with no tree recorded inside it.
RECORD_STAND_TREES = "record the trees of this stand (caliper tally)"
#: How far a typed retained area (acres) may pass its stand's area and still count as the
#: whole stand: half the 0.01 ac the Tally tab's figure is typed to (a 1.0551 ac stand shown
#: as 1.06 ac, all of it retained, is 1.06 ac typed). Beyond it the figure is refused.
RETAINED_ROUNDING_AC = 0.005


def enter_retained_area(stand_ac: float) -> str:
    """The next step of a mature or young stand with no retained-area plan (City Woodlands C):
    the protection check cannot be decided without the area the plan leaves undisturbed.

    >>> enter_retained_area(1.0604)[:59]
    "enter the area to be retained (ac, at most the stand's 1.06"
    """
    return (f"enter the area to be retained (ac, at most the stand's {stand_ac:,.2f} ac): Tally tab,"
            " Retained woodland area (plan), or fieldapp report --retained-ac")


#: The next step of a stand's woodland verdicts while its tally is not marked complete.
MARK_TALLY_COMPLETE = ("tally every tree of the stand, then tick Tally complete (Tally tab):"
                       " until then the class is from the trees so far")


# --------------------------------------------------------------------------- request builders
def _num(value: float) -> float:
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"non-finite value {value!r} in a rule request")
    return v


def bank_request(priority: bool, stations: Sequence[tuple[float, float]] | None = None, *,
                 segments: Sequence[dict[str, Any]] | None = None, interruption_at_ft: float | None = None,
                 stipulated: bool = False) -> dict[str, Any]:
    """An ``nr341.bank`` request (NR 341.035(1)(a)).

    Parameters
    ----------
    priority : bool
        Priority waterway or not (the base distance and slope threshold of each are
        :func:`fieldapp.rules.nr341.bank_parameters`).
    stations : sequence of (distance_ft, elevation_ft), optional
        Horizontal distance from the OHWM (first station 0) and elevation, international feet.
    segments : sequence of dict, optional
        Contract segments (``horizontal_ft`` or ``slope_distance_ft``; ``slope_pct`` or
        ``slope_deg``), used instead of stations.
    interruption_at_ft : float, optional
        A complete interruption marked by the surveyor at this distance.
    stipulated : bool
        Bank distance stipulated (NR 341.035(2)(c)1.).

    Raises
    ------
    ValueError
        A non-finite distance or elevation.
    """
    inp: dict[str, Any] = {"priority": bool(priority)}
    if segments is not None:
        inp["segments"] = [dict(s) for s in segments]
    else:
        inp["stations"] = [{"distance_ft": _num(d), "elevation_ft": _num(e)}
                           for d, e in (stations or [])]
    if interruption_at_ft is not None:
        inp["interruption_at_ft"] = _num(interruption_at_ft)
    if stipulated:
        inp["stipulated"] = True
    return {"rule": "nr341.bank", "input": inp}


def protective_area_request(features: Sequence[dict[str, Any]], contiguous: bool = False,
                            exemption: str | None = None,
                            infill: dict[str, Any] | None = None) -> dict[str, Any]:
    """An ``nr151.protective_area`` request (NR 151.125); ``features`` as in the contract;
    ``infill`` ``{"area_ac", "within_existing_development"}`` for (4)(b) (:func:`infill_input`)."""
    inp: dict[str, Any] = {"contiguous": bool(contiguous), "features": [dict(f) for f in features]}
    if exemption:
        inp["exemption"] = exemption
    if infill:
        inp["infill"] = dict(infill)
    return {"rule": "nr151.protective_area", "input": inp}


def infill_input(site: Any) -> dict[str, Any] | None:
    """The site's in-fill facts for NR 151.125(4)(b) (``infill``), or None until both the area
    and whether it is within existing development are entered."""
    area = getattr(site, "infill_area_ac", None)
    within = getattr(site, "infill_within_development", None)
    if area is None or within is None:
        return None
    return {"area_ac": _num(area), "within_existing_development": bool(within)}


def clamp_pct(value: float | None) -> float | None:
    """A percentage clamped to [0, 100] (None stays None).

    Canopy cover computed from crown unions can come out a few ulps over 100 % (or under 0)
    through floating point; the ``woodland.class`` rule refuses such values.

    Raises
    ------
    ValueError
        NaN or infinity (never clamped: it is a defect upstream).
    """
    if value is None:
        return None
    return min(100.0, max(0.0, _num(value)))


def woodland_class_request(canopy_10in_pct: float, deciduous_share_pct: float | None,
                           canopy_3in_pct: float, trees: Iterable[dict[str, Any]] = ()) -> dict[str, Any]:
    """A ``woodland.class`` request (Decorah resource protection, Woodlands).

    ``trees`` are those inside the grove polygon (``dbh_in``, ``leaf_habit``, ``species``).
    A null deciduous share (no >= 10 in canopy) is sent as 0. Percentages are clamped to
    [0, 100] (:func:`clamp_pct`).
    """
    return {"rule": "woodland.class", "input": {
        "canopy_10in_pct": clamp_pct(canopy_10in_pct),
        "deciduous_share_pct": clamp_pct(deciduous_share_pct or 0.0),
        "canopy_3in_pct": clamp_pct(canopy_3in_pct),
        "trees": [dict(t) for t in trees],
    }}


def _clamped_woodland_input(inp: dict[str, Any]) -> dict[str, Any]:
    """A ``woodland.class`` input with its canopy percentages clamped to [0, 100]."""
    out = dict(inp)
    for k in ("canopy_10in_pct", "canopy_3in_pct", "deciduous_share_pct"):
        if out.get(k) is not None:
            out[k] = clamp_pct(out[k])
    return out


def mitigation_request(woodland_class: str, woodland_area_ac: float,
                       retained_area_ac: float) -> dict[str, Any]:
    """A ``woodland.mitigation`` request for a planned retained area (acres)."""
    return {"rule": "woodland.mitigation", "input": {
        "class": woodland_class, "woodland_area_ac": _num(woodland_area_ac),
        "retained_area_ac": _num(retained_area_ac)}}


def wetland_size_request(area_sqft: float, periodic_standing_water: bool,
                         hydric_vegetation: bool) -> dict[str, Any]:
    """A ``wetland.size`` request (Decorah resource protection, Wetlands)."""
    return {"rule": "wetland.size", "input": {
        "area_sqft": _num(area_sqft), "periodic_standing_water": bool(periodic_standing_water),
        "hydric_vegetation": bool(hydric_vegetation)}}


def development_area_request(foundations: Sequence[Sequence[Sequence[float]]],
                             edges: Sequence[dict[str, Any]] = (),
                             test_points: Sequence[tuple[float, float]] = ()) -> dict[str, Any]:
    """A ``development_area`` request; rings of (x, y) pairs in site feet."""
    inp: dict[str, Any] = {"foundations": [[[_num(x), _num(y)] for x, y in ring]
                                           for ring in foundations]}
    if edges:
        inp["edges"] = [dict(e) for e in edges]
    if test_points:
        inp["test_points"] = [[_num(x), _num(y)] for x, y in test_points]
    return {"rule": "development_area", "input": inp}


def graded_area_request(horizontal_area_sqft: float, slope_pct: float) -> dict[str, Any]:
    """An ``nr341.graded_area`` request (surface area on the bank)."""
    return {"rule": "nr341.graded_area", "input": {
        "horizontal_area_sqft": _num(horizontal_area_sqft), "slope_pct": _num(slope_pct)}}


def drainageway_request(kind: str, length_ft: float, *, tributary_area_ac: float | None = None,
                        mapped_stream: bool | None = None,
                        channel_width_ft: float | None = None) -> dict[str, Any]:
    """A ``drainageway`` request (Decorah resource protection, Drainageways A.1 / A.2).

    ``kind`` is ``stream`` (a drainageway centreline) or ``swale``; unknown values (a swale's
    tributary area, whether a stream is mapped) are left out so the rule says what to measure.
    """
    inp: dict[str, Any] = {"kind": kind, "length_ft": _num(length_ft)}
    if tributary_area_ac is not None:
        inp["tributary_area_ac"] = _num(tributary_area_ac)
    if mapped_stream is not None:
        inp["mapped_stream"] = bool(mapped_stream)
    if channel_width_ft is not None:
        inp["channel_width_ft"] = _num(channel_width_ft)
    return {"rule": "drainageway", "input": inp}


@dataclass(frozen=True)
class AwaitingData:
    """A check that waits for data the model does not hold yet: no rule request is built.

    Stands in for a request in :func:`requests_for_model`'s mapping;
    :class:`fieldapp.checks.Checks` makes it a :class:`~fieldapp.checks.Check` whose result is
    :meth:`result` (status ``needs_data``) and whose request is empty.

    Attributes
    ----------
    rule : str
        The rule that will be asked once the data is there (e.g. ``woodland.class``).
    next_step : str
        What to record, in the surveyor's words.
    citation : str
        Where the rule is (the rule's own citations are more precise once it has decided).
    awaiting : str
        Why no rule is asked yet, in words (what is missing).
    """

    rule: str
    next_step: str
    citation: str = ""
    awaiting: str = "nothing recorded that the rule reads"

    def result(self) -> dict[str, Any]:
        """The result shown for the check: ``needs_data`` with ``next_step``, and a note and
        ``awaiting`` saying why no rule is asked yet."""
        return {"rule": self.rule, "status": "needs_data", "citation": self.citation,
                "interpretations": [], "interpretation_text": {}, "next_step": self.next_step,
                "note": f"no rule request yet: {self.awaiting}", "awaiting": self.awaiting}


@dataclass(frozen=True)
class Provisional:
    """A rule request whose verdict is provisional: the stand's tally is not marked complete.

    Stands in for a request in :func:`requests_for_model`'s mapping; :class:`fieldapp.checks.
    Checks` evaluates :attr:`request` and shows a ``determined`` result as ``provisional``
    with ``trees_so_far`` and the ``next_step`` (:data:`MARK_TALLY_COMPLETE`): a class read
    from 3 of 25 trees is no verdict yet.
    """

    request: dict[str, Any]
    trees_so_far: int

    def result(self, evaluated: dict[str, Any]) -> dict[str, Any]:
        """``evaluated`` (the rule's result) as shown while the tally is open."""
        if evaluated.get("status") != "determined":
            return evaluated
        return {**evaluated, "status": "provisional", "trees_so_far": self.trees_so_far,
                "next_step": MARK_TALLY_COMPLETE}


#: What stands for one check: its rule request (the JSON of ``rules-contract.md``), or the
#: request held as provisional, or the data it waits for.
RuleInput = dict[str, Any] | Provisional | AwaitingData | Derived
#: ``{check id: (title, RuleInput)}``, what the check builders return.
Requests = dict[str, tuple[str, RuleInput]]


# --------------------------------------------------------------------------- model inputs
def segments(model: Any, transect_uuid: str) -> list[dict[str, Any]]:
    """``nr341.bank`` ``segments``: [{"horizontal_ft", "slope_pct"}] from the OHWM landward
    (horizontal ft of the segment ending at each station, its slope percent)."""
    return [{"horizontal_ft": s.segment_ft, "slope_pct": s.slope_pct} for s in model.stations(transect_uuid)]


def stations_input(model: Any, transect_uuid: str) -> list[dict[str, Any]] | None:
    """``nr341.bank`` ``stations``: [{"distance_ft", "elevation_ft"}] starting with the OHWM at 0,
    or None when an elevation is missing (ft, international foot)."""
    t = model.get(Layer.TRANSECT, transect_uuid)
    sts = model.stations(transect_uuid)
    if t.origin_elevation_ft is None or any(s.elevation_ft is None for s in sts):
        return None
    return [{"distance_ft": 0.0, "elevation_ft": t.origin_elevation_ft}] + [
        {"distance_ft": s.distance_ft, "elevation_ft": s.elevation_ft} for s in sts
    ]


def bank_input(model: Any, transect_uuid: str, *, stipulated: bool | None = None) -> dict[str, Any]:
    """The ``input`` of an ``nr341.bank`` request for a transect (rules-contract.md).

    ``priority`` from the site; ``segments`` per station; ``interruption_at_ft`` at the
    first station marked as a complete interruption (NR 341.035(1)(c)); ``stipulated: true``
    when the transect is marked stipulated (``Visit.set_stipulated``, NR 341.035(2)(c); left
    out otherwise, the rule's default being false). ``stipulated`` given here overrides the
    transect's mark and is always written (a what-if for the report).

    Raises
    ------
    fieldapp.survey.errors.NotFound
        No such transect.
    """
    t = model.get(Layer.TRANSECT, transect_uuid)
    out: dict[str, Any] = {"priority": bool(model.site.priority_waterway), "segments": segments(model, transect_uuid)}
    cut = [s.distance_ft for s in model.stations(transect_uuid) if s.interruption]
    if cut:
        out["interruption_at_ft"] = cut[0]
    if stipulated is not None:
        out["stipulated"] = bool(stipulated)
    elif t.stipulated:
        out["stipulated"] = True
    return out


def wetland_size_input(model: Any, area_uuid: str) -> dict[str, Any]:
    """The ``input`` of a ``wetland.size`` request for a wetland polygon (ground sq ft)."""
    a = model.get(Layer.AREA, area_uuid)
    return {"area_sqft": model.frame.area_sqft(a.geometry),
            "periodic_standing_water": bool(a.standing_water),
            "hydric_vegetation": bool(a.hydric_vegetation)}


def woodland_class_input(stand: Any, trees: Sequence[Any], frame: Any, grove: Any = None,
                         measures: Any = None) -> dict[str, Any]:
    """The ``input`` of a ``woodland.class`` rule request for a stand polygon (rules-contract.md).

    Canopy percentages from ``measures`` (the stand's
    :class:`~fieldapp.survey.canopy.StandMeasures` for ``trees``) or, without it, from
    :func:`fieldapp.survey.canopy.stand_measures`. ``trees`` in the
    request are the live trees inside the grove polygon (empty without one), each
    ``{"dbh_in", "leaf_habit", "species"}``; the rule decides whether they make a grove.
    """
    from fieldapp.survey import canopy

    m = measures if measures is not None else canopy.stand_measures(stand, trees, frame)
    grove_trees = canopy.trees_inside(grove, trees) if grove is not None else []
    return {
        "canopy_10in_pct": m.canopy_10in_pct,
        "deciduous_share_pct": m.deciduous_share_pct,
        "canopy_3in_pct": m.canopy_3in_pct,
        "trees": [
            {
                "dbh_in": float(t.dbh_in),
                "leaf_habit": t.leaf_habit.value,
                "species": t.species_name or t.species_code,
            }
            for t in grove_trees
        ],
    }


def woodland_input(model: Any, stand_uuid: str, grove_uuid: str | None = None) -> dict[str, Any]:
    """The ``input`` of a ``woodland.class`` request for a stand (and optional grove) of the
    model (:func:`woodland_class_input` with the model's trees, frame and its kept-up-to-date
    ``stand_measures``, which reflect every tree)."""
    stand = model.get(Layer.AREA, stand_uuid)
    grove = model.get(Layer.AREA, grove_uuid).geometry if grove_uuid else None
    return woodland_class_input(stand.geometry, model.trees(), model.frame, grove,
                                measures=model.stand_measures(stand_uuid))




def wetland_feature(area: Any, model: Any) -> dict[str, Any]:
    """An ``nr151.protective_area`` wetland feature from a walked wetland polygon."""
    feat: dict[str, Any] = {"type": "wetland", "polygon_ft": _ring_ft(model, area.geometry)}
    if area.susceptibility is not None:
        feat["susceptibility"] = _v(area.susceptibility)
    if area.wetland_type:
        feat["wetland_type"] = area.wetland_type
    if getattr(area, "fill", None):   # NR 151.125(1)(h)
        feat["fill"] = area.fill
        if area.fill_permit:
            feat["fill_permit"] = area.fill_permit
    return feat


def graded_slope_pct(model: Any, polygon: Any, transects: Sequence[Any]) -> float | None:
    """The slope of a graded polygon on the bank: the steepest (absolute) slope of the
    transect segments that cross it, percent; None when no surveyed segment crosses it.

    A segment runs from the previous station (the transect origin for the first) to its
    station, in site CRS units; slopes are per segment, never averaged
    (interpretation ``per-segment-slope``).
    """
    steepest: float | None = None
    for t in transects:
        prev = (t.origin_x, t.origin_y)
        for st in model.stations(t.uuid):
            seg = LineString([prev, (st.x, st.y)])
            prev = (st.x, st.y)
            if seg.length > 0 and seg.intersects(polygon):
                s = abs(float(st.slope_pct))
                steepest = s if steepest is None else max(steepest, s)
    return steepest


def trees_in_stand(stand: Any, trees: Sequence[Any]) -> int:
    """How many of ``trees`` stand inside ``stand`` (on the boundary counts)."""
    if not trees:
        return 0
    pts = shapely.points([(float(t.x), float(t.y)) for t in trees])
    return int(shapely.covers(stand.geometry, pts).sum())


def stands_with_trees(stands: Sequence[Any], trees: Sequence[Any]) -> set[str]:
    """The uuids of the woodland ``stands`` with at least one recorded tree standing inside
    (on the boundary counts), whatever its status (live, dead or removed: a tally was made).

    A stand without one has not been tallied yet: its canopy cover (0 %) says nothing. Trees
    outside whose crowns reach in do not count as the stand's tally.
    """
    if not trees:
        return set()
    n = len(trees)
    pts = shapely.points(np.fromiter((t.x for t in trees), float, n),
                         np.fromiter((t.y for t in trees), float, n))
    return {a.uuid for a in stands if bool(shapely.covers(a.geometry, pts).any())}


def check_name(prefix: str, label: str, number: int) -> str:
    """A check's name: ``prefix`` and the feature's ``label``, never a word twice; an
    unlabelled feature is called by its ``number`` among its kind (from 1).

    >>> check_name("Ordinance wetland", "", 1)
    'Ordinance wetland #1'
    >>> check_name("Ordinance wetland", "Wetland A", 1)
    'Ordinance wetland A'
    >>> check_name("Protective area", "Wetland A", 1)
    'Protective area Wetland A'
    """
    label = (label or "").strip()
    if not label:
        return f"{prefix} #{number}"
    last = prefix.split()[-1].lower()
    words = label.split()
    if words[0].lower() == last:
        words = words[1:]
    return f"{prefix} {' '.join(words)}" if words else prefix


# --------------------------------------------------------------------------- check builders
def bank_checks(model: Any) -> Requests:
    """``bank:<transect>`` for each transect with a station, or marked stipulated (a stipulated
    bank, NR 341.035(2)(c), needs no slope survey: checked from the start)."""
    out: Requests = {}
    for t in model.features(Layer.TRANSECT):
        if model.stations(t.uuid) or getattr(t, "stipulated", False):
            out[f"bank:{t.uuid}"] = (f"Bank {t.label} (NR 341.035)",
                                     {"rule": "nr341.bank", "input": bank_input(model, t.uuid)})
    return out


def wetland_checks(model: Any, areas: Sequence[Any]) -> Requests:
    """``wetland:<area>`` and ``protective_area:<area>`` for each wetland polygon, then
    ``protective_area`` for the site's water features with every wetland (not contiguous)."""
    out: Requests = {}
    wetland_features = []
    infill = infill_input(model.site)
    for n, a in enumerate((a for a in areas if _v(a.kind) == "wetland"), start=1):
        out[f"wetland:{a.uuid}"] = (f"{check_name('Ordinance wetland', a.label, n)} (city)",
                                    wetland_size_request(**wetland_size_input(model, a.uuid)))
        feat = wetland_feature(a, model)
        wetland_features.append(feat)
        out[f"protective_area:{a.uuid}"] = (
            f"{check_name('Protective area', a.label, n)} (NR 151.125)",
            protective_area_request([feat], infill=infill))
    site_features = [{k: v for k, v in (("type", _v(w.type)),
                                        ("susceptibility", _v(w.susceptibility)),
                                        ("wetland_type", w.wetland_type),
                                        ("mapped_on", getattr(w, "mapped_on", None)),
                                        ("map_name", getattr(w, "map_name", None)),
                                        ("drainage_area_ac", getattr(w, "drainage_area_ac", None))) if v is not None}
                     for w in getattr(model.site, "water_features", ())]
    if site_features:
        out["protective_area"] = ("Protective area, all features (NR 151.125)",
                                  protective_area_request(site_features + wetland_features, infill=infill))
    return out


def woodland_checks(model: Any, areas: Sequence[Any], retained_ac: float = 0.0,
                    woodland_class: Callable[[dict[str, Any]], str | None] | None = None) -> Requests:
    """``woodland:<stand>`` for each woodland stand (with the first grove drawn inside it) and
    ``mitigation:<stand>`` (:func:`protection_check`), citing the city chapter
    (:data:`CITE_CITY`); an :class:`AwaitingData` for the class (and the protection check when
    a retained area is set) while no tree is recorded inside the stand (``model.stand_tally``,
    as :func:`stands_with_trees`); both :class:`Provisional` while the stand's tally is not
    marked complete."""
    out: Requests = {}
    groves = [a for a in areas if _v(a.kind) == "grove"]
    stands = [a for a in areas if _v(a.kind) == "woodland_stand"]
    # the stand's kept count (Visit.stand_tally): a squeeze does not test every tree again
    tallied = {a.uuid for a in stands if model.stand_tally(a.uuid)}
    for n, a in enumerate(stands, start=1):
        name = check_name("Woodland", a.label, n)[len("Woodland "):]
        own = getattr(a, "retained_area_ac", None)
        # the stand's own figure, even 0 ("retain nothing": when mitigation matters most);
        # without one, the visit-wide figure, where 0 means no plan was given
        retained = own if own is not None else (retained_ac if retained_ac > 0 else None)
        complete = bool(getattr(a, "tally_complete", False))

        def hold(request: dict[str, Any], a: Any = a, complete: bool = complete) -> RuleInput:
            return request if complete else Provisional(request, model.stand_tally(a.uuid))
        if a.uuid not in tallied:
            # nothing tallied inside: the class would be "none" on no data; wait for the tally
            out[f"woodland:{a.uuid}"] = (f"Woodland class {name} (city)", AwaitingData(
                "woodland.class", RECORD_STAND_TREES, f"{CITE_CITY}, Woodlands A"))
            if retained is not None:
                out[f"mitigation:{a.uuid}"] = (f"Woodland protection {name} (city)", AwaitingData(
                    "woodland.mitigation", RECORD_STAND_TREES, f"{CITE_CITY}, Woodlands C"))
            continue
        grove = next((g for g in groves if g.geometry.intersects(a.geometry)), None)
        inp = _clamped_woodland_input(woodland_input(model, a.uuid, grove.uuid if grove else None))
        wreq = {"rule": "woodland.class", "input": inp}
        out[f"woodland:{a.uuid}"] = (f"Woodland class {name} (city)", hold(wreq))
        cls = woodland_class(wreq) if woodland_class else None
        check = protection_check(cls, model.frame.area_ac(a.geometry), retained)
        if check is not None:
            out[f"mitigation:{a.uuid}"] = (f"Woodland protection {name} (city)",
                                           check if isinstance(check, AwaitingData) else hold(check))
    return out


def protection_check(woodland_class: str | None, stand_ac: float,
                     retained_ac: float | None) -> dict[str, Any] | AwaitingData | None:
    """A tallied stand's protection / mitigation check (City Woodlands C, E).

    Parameters
    ----------
    woodland_class : {"mature", "young", "none"} or None
        The stand's class (None: the class rule gave none, e.g. an error).
    stand_ac : float
        The stand's ground area, acres.
    retained_ac : float or None
        The plan's retained area, acres (None: no plan).

    Returns
    -------
    dict, AwaitingData or None
        The ``woodland.mitigation`` request when a plan is given. A retained area within
        :data:`RETAINED_ROUNDING_AC` above the stand's area counts as the whole stand; beyond
        it the figure is sent as it is and the rule refuses it (status ``error``, key
        ``input.retained_area_ac``): never capped into a "permitted" verdict. With no plan, a
        mature or young stand gets an :class:`AwaitingData` asking for the retained area
        (:func:`enter_retained_area`): "not checked" is never shown as "nothing to check";
        class none, or no class, gets no check (None).

    >>> protection_check("mature", 1.06, None).next_step.startswith("enter the area to be retained")
    True
    >>> protection_check("mature", 1.06, 1.064)["input"]["retained_area_ac"]
    1.06
    >>> protection_check("mature", 1.06, 6.0)["input"]["retained_area_ac"]
    6.0
    >>> protection_check("none", 1.06, None) is None
    True
    """
    if not woodland_class:
        return None
    if retained_ac is None:
        if woodland_class not in ("mature", "young"):
            return None
        return AwaitingData("woodland.mitigation", enter_retained_area(stand_ac),
                            f"{CITE_CITY}, Woodlands C",
                            awaiting="no retained area entered for the stand")
    if stand_ac < retained_ac <= stand_ac + RETAINED_ROUNDING_AC:
        retained_ac = stand_ac
    return mitigation_request(woodland_class, stand_ac, retained_ac)


def graded_area_checks(model: Any, areas: Sequence[Any]) -> Requests:
    """``graded_area:<area>`` for each disturbed (graded) polygon crossed by a transect
    segment: its horizontal area (sq ft) with the steepest crossing segment's slope
    (:func:`graded_slope_pct`); with two or more such patches, ``graded_area:all``: all of
    them added up, each on its own surface (NR 341.035(2)(d), ``all-disturbed-area``)."""
    out: Requests = {}
    transects = [t for t in model.features(Layer.TRANSECT) if model.stations(t.uuid)]
    patches: list[dict[str, Any]] = []
    for a in areas:
        if _v(a.kind) != "disturbed":
            continue
        slope = graded_slope_pct(model, a.geometry, transects)
        if slope is not None:
            req = graded_area_request(model.frame.area_sqft(a.geometry), slope)
            out[f"graded_area:{a.uuid}"] = (
                f"Graded area {a.label or 'disturbed'} on the bank (NR 341.035)", req)
            patches.append(dict(req["input"]))
    if len(patches) > 1:
        # (2)(d): all the disturbed area within the bank counts; the patches add up
        out["graded_area:all"] = (f"Graded area on the bank, all {len(patches)} patches (NR 341.035(2)(d))",
                                  {"rule": "nr341.graded_area", "input": {"patches": patches}})
    return out


def drainageway_checks(model: Any) -> Requests:
    """``drainageway:<line>`` for each drainageway centreline (``stream``, with the line's
    ``mapped_stream`` and channel width once set) and swale line (length in ground ft)."""
    out: Requests = {}
    for line in model.features(Layer.LINE):
        kind = {"drainageway_centreline": "stream", "swale": "swale"}.get(_v(line.kind))
        if kind is None:
            continue
        stream = kind == "stream"
        out[f"drainageway:{line.uuid}"] = (
            f"Drainageway {line.label or kind} (city)",
            drainageway_request(kind, model.frame.length_ft(line.geometry),
                                tributary_area_ac=line.tributary_area_ac,
                                mapped_stream=getattr(line, "mapped_stream", None) if stream else None,
                                channel_width_ft=line.channel_width_ft if stream else None))
    return out


#: Area kinds that are development-area edges, and their contract ``kind``.
EDGE_KINDS = {"drive": "driveway", "parking": "parking", "septic_field": "septic",
              "utility_trench": "utility"}


def development_area_checks(model: Any, areas: Sequence[Any]) -> Requests:
    """``development_area`` when a foundation is drawn (rings in site feet, with the drives,
    parking, septic fields and utility trenches as edges: areas as ``shape`` polygon, drive
    and utility-trench lines as ``shape`` line, never closed into a polygon)."""
    foundations = [a for a in areas if _v(a.kind) == "foundation"]
    if not foundations:
        return {}
    edges = [{"kind": EDGE_KINDS[_v(a.kind)], "shape": "polygon", "coordinates": _ring_ft(model, a.geometry)}
             for a in areas if _v(a.kind) in EDGE_KINDS]
    # drive edges and utility trenches drawn as lines stay lines (Woodlands D.2.b, edge-shape)
    f = model.frame
    edges += [{"kind": EDGE_KINDS[_v(ln.kind)], "shape": "line",
               "coordinates": [[float(f.to_ft(x)), float(f.to_ft(y))] for x, y in ln.geometry.coords]}
              for ln in model.features(Layer.LINE) if _v(ln.kind) in EDGE_KINDS]
    return {"development_area": ("Development area (city)", development_area_request(
        [_ring_ft(model, f.geometry) for f in foundations], edges))}


def requests_for_model(model: Any, *, retained_ac: float = 0.0,
                       woodland_class: Callable[[dict[str, Any]], str | None] | None = None,
                       ) -> Requests:
    """Every applicable rule request for the visit ``model`` ({check id: (title, request)}).

    In this order: :func:`bank_checks`, :func:`wetland_checks`, :func:`woodland_checks`
    (``retained_ac`` and ``woodland_class`` feed the mitigation request),
    :func:`graded_area_checks`, :func:`drainageway_checks`, :func:`development_area_checks`;
    then :func:`fieldapp.checks.citychecks.add_city_inputs` (tributary stations, floodplain and
    disturbed polygons, the site's scope, the erosion plan); :meth:`fieldapp.checks.Checks.refresh`
    adds :func:`fieldapp.checks.city_land.city_land_checks`. Nothing before the site CRS is
    known. Steep slope (``steep_slope``) is not built: the model holds no soil units.
    """
    out: Requests = {}
    if not model.has_frame:
        return out
    areas = model.features(Layer.AREA)
    out.update(bank_checks(model))
    out.update(wetland_checks(model, areas))
    out.update(support_checks(model, out, check_name))      # the data points behind each wetland
    out.update(woodland_checks(model, areas, retained_ac, woodland_class))
    out.update(graded_area_checks(model, areas))
    out.update(drainageway_checks(model))
    out.update(development_area_checks(model, areas))
    for key, step in add_city_inputs(model, areas, out).items():
        out[key] = (out[key][0], AwaitingData("drainageway", step, f"{CITE_CITY}, Drainageways A.2",
                                              awaiting="the tributary stations cannot be read"))
    return out
