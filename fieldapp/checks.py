"""Checks: the survey model turned into rule requests, and the latest results (no Qt).

Checks are derived, never stored as truth (DESIGN.md). :func:`requests_for_model` reads the
survey model and builds one rule request per applicable check, exactly the JSON of
``rules-contract.md`` (so the checks panel, the report and ``fieldapp rules evaluate`` see the
same thing); :class:`Checks` evaluates the requests whose JSON changed and keeps the latest
result of each.

A check is identified by a stable id: ``bank:<transect id>``, ``protective_area``,
``woodland:<stand id>``, ``mitigation:<stand id>``, ``wetland:<polygon id>``,
``graded_area:<polygon id>``, ``drainageway:<line id>``, ``development_area``.

A check may wait for data before any rule can read it: a woodland stand in which no tree has
been recorded yet gets no ``woodland.class`` request (the rule would class the empty tally as
"none", a verdict on nothing) but an :class:`AwaitingData` in its place, which :class:`Checks`
turns into a :class:`Check` with status ``needs_data``, a ``next_step`` in words and no rule
request (``Check.has_request`` False). The stand's mitigation check (with a retained area set)
waits likewise. The rules stay pure: this is the model-to-request layer saying there is nothing
to send yet.

Canopy percentages sent to ``woodland.class`` are clamped to [0, 100] (:func:`clamp_pct`). The
survey model already clamps them where they are computed (:func:`fieldapp.survey.canopy.pct`: a
stand covered by crowns gave 100 % plus floating-point excess, which the rule refuses); the clamp
here stays for percentages a caller passes in by hand.

Examples
--------
>>> req = bank_request(False, [(0.0, 0.0), (30.0, 1.2)])
>>> req["rule"], req["input"]["stations"][1]
('nr341.bank', {'distance_ft': 30.0, 'elevation_ft': 1.2})
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

__all__ = [
    "AwaitingData", "Check", "Checks", "bank_request", "protective_area_request", "woodland_class_request",
    "mitigation_request", "wetland_size_request", "development_area_request",
    "graded_area_request", "drainageway_request", "clamp_pct", "requests_for_model",
    "status_words", "summary_words", "stands_with_trees",
]

RULE_TITLES = {
    "nr341.bank": "Bank (NR 341.035)",
    "nr341.graded_area": "Graded area on the bank (NR 341.035)",
    "nr151.protective_area": "Protective area (NR 151.125)",
    "woodland.class": "Woodland class (city)",
    "woodland.mitigation": "Woodland protection / mitigation (city)",
    "wetland.size": "Ordinance wetland (city)",
    "development_area": "Development area (city)",
    "drainageway": "Drainageway (city)",
}

#: How the city's chapter is cited (``fieldapp.rules.city.CITE``).
CITE_CITY = "City resource protection"

#: Next step of a woodland stand with no tree recorded inside it.
RECORD_STAND_TREES = "record the trees of this stand (caliper tally)"


# --------------------------------------------------------------------------- request builders
def _num(value: float) -> float:
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"non-finite value {value!r} in a rule request")
    return v


def bank_request(priority: bool, stations: Sequence[tuple[float, float]] | None = None, *,
                 segments: Sequence[dict] | None = None, interruption_at_ft: float | None = None,
                 stipulated: bool = False) -> dict:
    """An ``nr341.bank`` request (NR 341.035(1)(a)).

    Parameters
    ----------
    priority : bool
        Priority waterway (300 ft base, 10 % threshold) or not (75 ft, 12 %).
    stations : sequence of (distance_ft, elevation_ft), optional
        Horizontal distance from the OHWM (first station 0) and elevation, international feet.
    segments : sequence of dict, optional
        Contract segments (``horizontal_ft`` or ``slope_distance_ft``; ``slope_pct`` or
        ``slope_deg``), used instead of stations.
    interruption_at_ft : float, optional
        A complete interruption marked by the surveyor at this distance.
    stipulated : bool
        Bank distance stipulated (NR 341.035(2)(c)1.).
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


def protective_area_request(features: Sequence[dict], contiguous: bool = False,
                            exemption: str | None = None) -> dict:
    """An ``nr151.protective_area`` request (NR 151.125); ``features`` as in the contract."""
    inp: dict[str, Any] = {"contiguous": bool(contiguous), "features": [dict(f) for f in features]}
    if exemption:
        inp["exemption"] = exemption
    return {"rule": "nr151.protective_area", "input": inp}


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
                           canopy_3in_pct: float, trees: Iterable[dict] = ()) -> dict:
    """A ``woodland.class`` request (City resource protection, Woodlands).

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


def _clamped_woodland_input(inp: dict) -> dict:
    """``Visit.woodland_input`` with its canopy percentages clamped to [0, 100]."""
    out = dict(inp)
    for k in ("canopy_10in_pct", "canopy_3in_pct", "deciduous_share_pct"):
        if out.get(k) is not None:
            out[k] = clamp_pct(out[k])
    return out


def mitigation_request(woodland_class: str, woodland_area_ac: float,
                       retained_area_ac: float) -> dict:
    """A ``woodland.mitigation`` request for a planned retained area (acres)."""
    return {"rule": "woodland.mitigation", "input": {
        "class": woodland_class, "woodland_area_ac": _num(woodland_area_ac),
        "retained_area_ac": _num(retained_area_ac)}}


def wetland_size_request(area_sqft: float, periodic_standing_water: bool,
                         hydric_vegetation: bool) -> dict:
    """A ``wetland.size`` request (City resource protection, Wetlands)."""
    return {"rule": "wetland.size", "input": {
        "area_sqft": _num(area_sqft), "periodic_standing_water": bool(periodic_standing_water),
        "hydric_vegetation": bool(hydric_vegetation)}}


def development_area_request(foundations: Sequence[Sequence[tuple[float, float]]],
                             edges: Sequence[dict] = (),
                             test_points: Sequence[tuple[float, float]] = ()) -> dict:
    """A ``development_area`` request; rings in site feet."""
    inp: dict[str, Any] = {"foundations": [[[_num(x), _num(y)] for x, y in ring]
                                           for ring in foundations]}
    if edges:
        inp["edges"] = [dict(e) for e in edges]
    if test_points:
        inp["test_points"] = [[_num(x), _num(y)] for x, y in test_points]
    return {"rule": "development_area", "input": inp}


def graded_area_request(horizontal_area_sqft: float, slope_pct: float) -> dict:
    """An ``nr341.graded_area`` request (surface area on the bank)."""
    return {"rule": "nr341.graded_area", "input": {
        "horizontal_area_sqft": _num(horizontal_area_sqft), "slope_pct": _num(slope_pct)}}


def drainageway_request(kind: str, length_ft: float, *, tributary_area_ac: float | None = None,
                        mapped_stream: bool | None = None,
                        channel_width_ft: float | None = None) -> dict:
    """A ``drainageway`` request (City resource protection, Drainageways A.1 / A.2).

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


# --------------------------------------------------------------------------- results
@dataclass(frozen=True)
class AwaitingData:
    """A check that waits for data the model does not hold yet: no rule request is built.

    Stands in for a request in :func:`requests_for_model`'s mapping; :class:`Checks` makes it a
    :class:`Check` whose result is :meth:`result` (status ``needs_data``) and whose request is
    empty.

    Attributes
    ----------
    rule : str
        The rule that will be asked once the data is there (e.g. ``woodland.class``).
    next_step : str
        What to record, in the surveyor's words.
    citation : str
        Where the rule is (the rule's own citations are more precise once it has decided).
    """

    rule: str
    next_step: str
    citation: str = ""

    def result(self) -> dict:
        """The result shown for the check: ``needs_data`` with ``next_step`` and a note."""
        return {"rule": self.rule, "status": "needs_data", "citation": self.citation,
                "interpretations": [], "next_step": self.next_step,
                "note": "no rule request yet: nothing is recorded that the rule reads"}


@dataclass(frozen=True)
class Check:
    """One check: its id, a title, the request, and the latest result.

    Attributes
    ----------
    check_id : str
    title : str
    request : dict
        The rule request (contract JSON); empty (``{}``) for a check awaiting data
        (:class:`AwaitingData`), which has no request to send yet.
    result : dict
        ``fieldapp.rules.evaluate(request)``, or :meth:`AwaitingData.result`.
    """

    check_id: str
    title: str
    request: dict
    result: dict

    @property
    def status(self) -> str:
        return str(self.result.get("status", "error"))

    @property
    def rule(self) -> str:
        """The rule id (``woodland.class`` ...), also for a check awaiting data."""
        return str(self.request.get("rule") or self.result.get("rule") or "")

    @property
    def has_request(self) -> bool:
        """False for a check awaiting data: there is no rule request to attach or replay."""
        return bool(self.request)

    def request_json(self) -> str:
        """The request as the JSON ``fieldapp rules evaluate`` takes (``{}`` while the check
        awaits data)."""
        return json.dumps(self.request, indent=2)


def status_words(status: str) -> str:
    return {"determined": "determined", "needs_data": "needs data", "exempt": "exempt",
            "error": "error"}.get(status, status)


def _fmt(v: Any, unit: str = "") -> str:
    if v is None:
        return "–"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:,.1f}{unit}"
    return f"{v}{unit}"


def summary_words(rule: str, result: dict) -> str:
    """The value of a result in a few words for the panel (e.g. ``Bank 120.0 ft``).

    ``rule`` may be empty (a check awaiting data has no request): the result's ``rule`` is used.
    A ``needs_data`` result says its next step (``Needs data: ...``), except the bank's, which
    gives the bank so far and how much further to walk.
    """
    rule = rule or str(result.get("rule") or "")
    st = result.get("status")
    if st == "error":
        return f"Error: {result.get('message', '')}"
    if st == "needs_data" and rule != "nr341.bank" and result.get("next_step"):
        return f"Needs data: {result.get('next_step')}"
    if rule == "nr341.bank":
        if st == "determined":
            return f"Bank {_fmt(result.get('bank_ft'), ' ft')} ({result.get('basis')})"
        return (f"Bank at least {_fmt(result.get('bank_ft_at_least'), ' ft')}; walk more than "
                f"{_fmt(result.get('walk_further_ft'), ' ft')} further")
    if rule == "nr151.protective_area":
        if st == "exempt":
            return "Exempt"
        return (f"Width {_fmt(result.get('width_ft'), ' ft')} "
                f"(governed by {result.get('governing_feature') or '–'})")
    if rule == "woodland.class":
        return (f"Class {result.get('class')} ({result.get('basis') or 'no basis'}); canopy ≥10 in "
                f"{_fmt(result.get('canopy_10in_pct'), ' %')}, ≥3 in "
                f"{_fmt(result.get('canopy_3in_pct'), ' %')}")
    if rule == "woodland.mitigation":
        return (f"Retained {_fmt(result.get('retained_pct'), ' %')}; permitted "
                f"{_fmt(result.get('permitted'))}; mitigation "
                f"{_fmt(result.get('mitigation_area_ac'), ' ac')}")
    if rule == "wetland.size":
        return (f"Ordinance wetland: {_fmt(result.get('is_ordinance_wetland'))}; undisturbed "
                f"{_fmt(result.get('required_undisturbed_pct'), ' %')}")
    if rule == "development_area":
        return f"Envelope {_fmt(result.get('envelope_area_sqft'), ' sq ft')}"
    if rule == "nr341.graded_area":
        return (f"Surface {_fmt(result.get('surface_area_sqft'), ' sq ft')}; permit "
                f"{_fmt(result.get('permit_required'))}")
    if rule == "drainageway":
        return (f"Drainageway: {_fmt(result.get('is_drainageway'))}; width "
                f"{_fmt(result.get('total_width_ft'), ' ft')}; open space "
                f"{_fmt(result.get('min_open_space_sqft'), ' sq ft')}")
    return st or ""


class Checks:
    """The latest result of every check; re-evaluates only requests whose JSON changed.

    Parameters
    ----------
    evaluate : callable(dict) -> dict, optional
        The rules entry point (default :func:`fieldapp.rules.evaluate`).
    """

    def __init__(self, evaluate: Callable[[dict], dict] | None = None) -> None:
        if evaluate is None:
            from fieldapp.rules import evaluate as rules_evaluate

            evaluate = rules_evaluate
        self._evaluate = evaluate
        self._checks: dict[str, Check] = {}
        self._keys: dict[str, str] = {}
        self.listeners: list[Callable[[list[Check]], None]] = []
        self.evaluations = 0

    def refresh(self, model: Any, *, retained_ac: float = 0.0) -> bool:
        """Rebuild every request from the survey ``model`` (:func:`requests_for_model`) and
        evaluate what changed; the woodland class feeds the mitigation request."""
        def woodland_class(request: dict) -> str | None:
            result = self._evaluate_cached(request)
            return result.get("class") if result.get("status") != "error" else None

        return self.update(requests_for_model(model, retained_ac=retained_ac,
                                              woodland_class=woodland_class))

    def _evaluate_cached(self, request: dict) -> dict:
        key = json.dumps(request, sort_keys=True)
        for cid, k in self._keys.items():
            if k == key:
                return self._checks[cid].result
        return self._safe_evaluate(request)

    def _safe_evaluate(self, request: dict) -> dict:
        self.evaluations += 1
        try:
            return self._evaluate(request)
        except Exception as exc:  # noqa: BLE001 - a rule bug shows as an error row
            return {"rule": request.get("rule"), "status": "error",
                    "message": f"{type(exc).__name__}: {exc}"}

    def update(self, requests: dict[str, tuple[str, dict | AwaitingData]]) -> bool:
        """Replace the set of checks by ``requests`` ({id: (title, request)}).

        Evaluates the new or changed requests; drops checks no longer applicable. An
        :class:`AwaitingData` in place of a request is not evaluated: its check has no request
        and the ``needs_data`` result the placeholder gives. Returns True (and tells the
        listeners) when anything changed.
        """
        changed = False
        for cid in list(self._checks):
            if cid not in requests:
                del self._checks[cid]
                self._keys.pop(cid, None)
                changed = True
        for cid, (title, request) in requests.items():
            awaiting = isinstance(request, AwaitingData)
            key = json.dumps({"awaiting": [request.rule, request.next_step, request.citation]}
                             if awaiting else request, sort_keys=True)
            if self._keys.get(cid) == key and self._checks[cid].title == title:
                continue
            if awaiting:
                self._checks[cid] = Check(cid, title, {}, request.result())
            else:
                self._checks[cid] = Check(cid, title, request, self._safe_evaluate(request))
            self._keys[cid] = key
            changed = True
        if changed:
            snapshot = self.all()
            for fn in self.listeners:
                fn(snapshot)
        return changed

    def all(self) -> list[Check]:
        """Every current check, in id order."""
        return [self._checks[k] for k in sorted(self._checks)]

    def get(self, check_id: str) -> Check | None:
        return self._checks.get(check_id)

    def requests(self) -> list[dict]:
        """Every current request (what the report embeds); checks awaiting data have none."""
        return [c.request for c in self.all() if c.has_request]


# --------------------------------------------------------------------------- from the model
def _v(x: Any) -> Any:
    return getattr(x, "value", x)


def _ring_ft(model: Any, geometry: Any) -> list[list[float]]:
    """The exterior ring of a (largest) polygon in site feet (grid feet of the site's foot)."""
    geom = geometry
    if getattr(geom, "geom_type", "") == "MultiPolygon":
        geom = max(geom.geoms, key=lambda g: g.area)
    f = model.frame
    return [[float(f.to_ft(x)), float(f.to_ft(y))] for x, y in list(geom.exterior.coords)[:-1]]


def wetland_feature(area: Any, model: Any) -> dict:
    """An ``nr151.protective_area`` wetland feature from a walked wetland polygon."""
    feat: dict[str, Any] = {"type": "wetland", "polygon_ft": _ring_ft(model, area.geometry)}
    if area.susceptibility is not None:
        feat["susceptibility"] = _v(area.susceptibility)
    if area.wetland_type:
        feat["wetland_type"] = area.wetland_type
    return feat


def graded_slope_pct(model: Any, polygon: Any, transects: Sequence[Any]) -> float | None:
    """The slope of a graded polygon on the bank: the steepest (absolute) slope of the
    transect segments that cross it, percent; None when no surveyed segment crosses it.

    A segment runs from the previous station (the transect origin for the first) to its
    station, in site CRS units; slopes are per segment, never averaged
    (interpretation ``per-segment-slope``).
    """
    from shapely.geometry import LineString

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


def stands_with_trees(stands: Sequence[Any], trees: Sequence[Any]) -> set[str]:
    """The uuids of the woodland ``stands`` with at least one recorded tree standing inside
    (on the boundary counts), whatever its status (live, dead or removed: a tally was made).

    A stand without one has not been tallied yet: its canopy cover (0 %) says nothing. Trees
    outside whose crowns reach in do not count as the stand's tally.
    """
    import shapely

    if not trees:
        return set()
    pts = shapely.points([(float(t.x), float(t.y)) for t in trees])
    return {a.uuid for a in stands if bool(shapely.covers(a.geometry, pts).any())}


def requests_for_model(model: Any, *, retained_ac: float = 0.0,
                       woodland_class: Callable[[dict], str | None] | None = None,
                       ) -> dict[str, tuple[str, dict]]:
    """Every applicable rule request for the visit ``model`` ({check id: (title, request)}).

    - ``bank:<transect>`` for each transect with a station, or marked stipulated
      (``Visit.bank_input``, which carries ``stipulated`` then, NR 341.035(2)(c));
    - ``wetland:<area>`` and ``protective_area:<area>`` for each wetland polygon;
    - ``protective_area`` for the site's water features with every wetland (not contiguous);
    - ``woodland:<stand>`` for each woodland stand (with the first grove drawn inside it);
      an :class:`AwaitingData` ("record the trees of this stand (caliper tally)") instead of
      a request while no tree is recorded inside the stand (:func:`stands_with_trees`);
    - ``mitigation:<stand>`` when a retained area is set and ``woodland_class(request)``
      (the class the woodland request gives) is known; awaiting data like the stand's class
      while the stand has no tree;
    - ``graded_area:<area>`` for each disturbed (graded) polygon crossed by a transect
      segment: its horizontal area with the steepest crossing segment's slope
      (:func:`graded_slope_pct`);
    - ``drainageway:<line>`` for each drainageway centreline (``stream``, with the line's
      ``mapped_stream`` once the surveyor has set it) and swale line;
    - ``development_area`` when a foundation is drawn.

    Steep slope (``steep_slope``) is not built: the model holds no soil units.
    """
    from fieldapp.survey.features import Layer

    out: dict[str, tuple[str, dict]] = {}
    if not model.has_frame:
        return out
    for t in model.features(Layer.TRANSECT):
        # a stipulated bank (NR 341.035(2)(c)) needs no slope survey: checked from the start
        if model.stations(t.uuid) or getattr(t, "stipulated", False):
            out[f"bank:{t.uuid}"] = (f"Bank {t.label} (NR 341.035)",
                                     {"rule": "nr341.bank", "input": model.bank_input(t.uuid)})
    areas = model.features(Layer.AREA)
    wetland_features = []
    for a in areas:
        kind = _v(a.kind)
        if kind == "wetland":
            name = a.label or "wetland"
            inp = model.wetland_size_input(a.uuid)
            out[f"wetland:{a.uuid}"] = (f"Ordinance wetland {name} (city)",
                                        wetland_size_request(**inp))
            feat = wetland_feature(a, model)
            wetland_features.append(feat)
            out[f"protective_area:{a.uuid}"] = (f"Protective area {name} (NR 151.125)",
                                                protective_area_request([feat]))
    site_features = [{k: v for k, v in (("type", _v(w.type)),
                                        ("susceptibility", _v(w.susceptibility)),
                                        ("wetland_type", w.wetland_type)) if v is not None}
                     for w in getattr(model.site, "water_features", ())]
    if site_features:
        out["protective_area"] = ("Protective area, all features (NR 151.125)",
                                   protective_area_request(site_features + wetland_features))
    groves = [a for a in areas if _v(a.kind) == "grove"]
    stands = [a for a in areas if _v(a.kind) == "woodland_stand"]
    tallied = stands_with_trees(stands, model.trees()) if stands else set()
    for a in stands:
        if a.uuid not in tallied:
            # nothing tallied inside: the class would be "none" on no data; wait for the tally
            out[f"woodland:{a.uuid}"] = (f"Woodland class {a.label or 'stand'} (city)", AwaitingData(
                "woodland.class", RECORD_STAND_TREES, f"{CITE_CITY}, Woodlands A"))
            if retained_ac > 0:
                out[f"mitigation:{a.uuid}"] = (
                    f"Woodland protection {a.label or 'stand'} (city)", AwaitingData(
                        "woodland.mitigation", RECORD_STAND_TREES, f"{CITE_CITY}, Woodlands C"))
            continue
        grove = next((g for g in groves if g.geometry.intersects(a.geometry)), None)
        inp = _clamped_woodland_input(model.woodland_input(a.uuid, grove.uuid if grove else None))
        wreq = {"rule": "woodland.class", "input": inp}
        out[f"woodland:{a.uuid}"] = (f"Woodland class {a.label or 'stand'} (city)", wreq)
        cls = woodland_class(wreq) if (woodland_class and retained_ac > 0) else None
        if retained_ac > 0 and cls:
            stand_ac = model.frame.area_ac(a.geometry)
            out[f"mitigation:{a.uuid}"] = (
                f"Woodland protection {a.label or 'stand'} (city)",
                mitigation_request(cls, stand_ac, min(retained_ac, stand_ac)))
    transects = [t for t in model.features(Layer.TRANSECT) if model.stations(t.uuid)]
    for a in areas:
        if _v(a.kind) != "disturbed":
            continue
        slope = graded_slope_pct(model, a.geometry, transects)
        if slope is not None:
            out[f"graded_area:{a.uuid}"] = (
                f"Graded area {a.label or 'disturbed'} on the bank (NR 341.035)",
                graded_area_request(model.frame.area_sqft(a.geometry), slope))
    for line in model.features(Layer.LINE):
        kind = {"drainageway_centreline": "stream", "swale": "swale"}.get(_v(line.kind))
        if kind is None:
            continue
        out[f"drainageway:{line.uuid}"] = (
            f"Drainageway {line.label or kind} (city)",
            drainageway_request(kind, model.frame.length_ft(line.geometry),
                                tributary_area_ac=line.tributary_area_ac,
                                mapped_stream=(getattr(line, "mapped_stream", None)
                                               if kind == "stream" else None),
                                channel_width_ft=line.channel_width_ft if kind == "stream"
                                else None))
    foundations = [a for a in areas if _v(a.kind) == "foundation"]
    if foundations:
        edge_kinds = {"drive": "driveway", "parking": "parking", "septic_field": "septic",
                      "utility_trench": "utility"}
        edges = [{"kind": edge_kinds[_v(a.kind)], "coordinates": _ring_ft(model, a.geometry)}
                 for a in areas if _v(a.kind) in edge_kinds]
        out["development_area"] = ("Development area (city)", development_area_request(
            [_ring_ft(model, f.geometry) for f in foundations], edges))
    return out

