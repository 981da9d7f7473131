"""Checks: the survey model turned into rule requests, and the latest results (no Qt).

Checks are derived, never stored as truth (DESIGN.md). :func:`requests_for_model` reads the
survey model and builds one rule request per applicable check, exactly the JSON of
``rules-contract.md`` (so the checks panel, the report and ``fieldapp rules evaluate`` see the
same thing); :class:`Checks` evaluates the requests whose JSON changed and keeps the latest
result of each.

A check is identified by a stable id: ``bank:<transect id>``, ``protective_area``,
``woodland:<stand id>``, ``mitigation:<stand id>``, ``wetland:<polygon id>``,
``graded_area:<polygon id>``, ``development_area``.

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
    "Check", "Checks", "bank_request", "protective_area_request", "woodland_class_request",
    "mitigation_request", "wetland_size_request", "development_area_request",
    "graded_area_request", "requests_for_model", "status_words", "summary_words",
]

RULE_TITLES = {
    "nr341.bank": "Bank (NR 341.035)",
    "nr341.graded_area": "Graded area on the bank (NR 341.035)",
    "nr151.protective_area": "Protective area (NR 151.125)",
    "woodland.class": "Woodland class (city)",
    "woodland.mitigation": "Woodland protection / mitigation (city)",
    "wetland.size": "Ordinance wetland (city)",
    "development_area": "Development area (city)",
}


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


def woodland_class_request(canopy_10in_pct: float, deciduous_share_pct: float | None,
                           canopy_3in_pct: float, trees: Iterable[dict] = ()) -> dict:
    """A ``woodland.class`` request (City resource protection, Woodlands).

    ``trees`` are those inside the grove polygon (``dbh_in``, ``leaf_habit``, ``species``).
    A null deciduous share (no >= 10 in canopy) is sent as 0.
    """
    return {"rule": "woodland.class", "input": {
        "canopy_10in_pct": _num(canopy_10in_pct),
        "deciduous_share_pct": _num(deciduous_share_pct or 0.0),
        "canopy_3in_pct": _num(canopy_3in_pct),
        "trees": [dict(t) for t in trees],
    }}


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


# --------------------------------------------------------------------------- results
@dataclass(frozen=True)
class Check:
    """One check: its id, a title, the request, and the latest result.

    Attributes
    ----------
    check_id : str
    title : str
    request : dict
        The rule request (contract JSON).
    result : dict
        ``fieldapp.rules.evaluate(request)``.
    """

    check_id: str
    title: str
    request: dict
    result: dict

    @property
    def status(self) -> str:
        return str(self.result.get("status", "error"))

    def request_json(self) -> str:
        """The request as the JSON ``fieldapp rules evaluate`` takes."""
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
    """The value of a result in a few words for the panel (e.g. ``Bank 120.0 ft``)."""
    st = result.get("status")
    if st == "error":
        return f"Error: {result.get('message', '')}"
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

    def update(self, requests: dict[str, tuple[str, dict]]) -> bool:
        """Replace the set of checks by ``requests`` ({id: (title, request)}).

        Evaluates the new or changed requests; drops checks no longer applicable. Returns
        True (and tells the listeners) when anything changed.
        """
        changed = False
        for cid in list(self._checks):
            if cid not in requests:
                del self._checks[cid]
                self._keys.pop(cid, None)
                changed = True
        for cid, (title, request) in requests.items():
            key = json.dumps(request, sort_keys=True)
            if self._keys.get(cid) == key and self._checks[cid].title == title:
                continue
            try:
                result = self._evaluate(request)
            except Exception as exc:  # noqa: BLE001 - a rule bug shows as an error row
                result = {"rule": request.get("rule"), "status": "error",
                          "message": f"{type(exc).__name__}: {exc}"}
            self.evaluations += 1
            self._checks[cid] = Check(cid, title, request, result)
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
        """Every current request (what the report embeds)."""
        return [c.request for c in self.all()]
