"""Check results: the latest result of every rule request built from the model (no Qt).

:class:`Checks` evaluates the requests of :func:`fieldapp.checks.requests.requests_for_model`
whose JSON changed and keeps the latest result of each as a :class:`Check`; a check awaiting
data (:class:`~fieldapp.checks.requests.AwaitingData`) becomes a ``needs_data`` check with no
request. :func:`summary_words` and :func:`status_words` say a result in a few words for the
checks panel and the report.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .requests import RuleInput

__all__ = ["RULE_TITLES", "Check", "Checks", "check_words", "status_words", "summary_words"]

RULE_TITLES = {
    "nr341.bank": "Bank (NR 341.035)",
    "nr341.graded_area": "Graded area on the bank (NR 341.035)",
    "nr151.protective_area": "Protective area (NR 151.125)",
    "woodland.class": "Woodland class (city)",
    "woodland.mitigation": "Woodland protection / mitigation (city)",
    "wetland.size": "Ordinance wetland (city)",
    "development_area": "Development area (city)",
    "drainageway": "Drainageway (city)",
    "wetland.support": "Wetland boundary data points",
    "erosion_plan": "Erosion control plan (city)",
    "city.scope": "Chapter scope, district and use (city)",
    "resources.overlap": "Overlapping resources (city, General D)",
    "development_area.limit": "Development area limit (city, Woodlands D)",
}


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
    cites : str
        What the verdict rests on besides the request, in words: a wetland's city and NR
        151.125 checks cite the data points behind its boundary
        (:class:`fieldapp.checks.support.Cited`); "" for the others.
    """

    check_id: str
    title: str
    request: dict[str, Any]
    result: dict[str, Any]
    cites: str = ""

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
            "error": "error", "provisional": "provisional"}.get(status, status)


def _fmt(v: Any, unit: str = "") -> str:
    if v is None:
        return "–"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:,.1f}{unit}"
    return f"{v}{unit}"


def summary_words(rule: str, result: dict[str, Any]) -> str:
    """The value of a result in a few words for the panel (e.g. ``Bank 120.0 ft``).

    ``rule`` may be empty (a check awaiting data has no request): the result's ``rule`` is used.
    A ``needs_data`` result says its next step (``Needs data: ...``), except the bank's, which
    gives the bank so far and how much further to walk.
    """
    rule = rule or str(result.get("rule") or "")
    st = result.get("status")
    if rule == "wetland.support":
        return str(result.get("summary") or st or "")
    if st == "provisional":
        so_far = result.get("trees_so_far", 0)
        inner = summary_words(rule, {**result, "status": "determined"})
        return (f"Provisional — {so_far} tree{'s' if so_far != 1 else ''} so far"
                f" (tally not complete): {inner}")
    if st == "error":
        return f"Error: {result.get('message', '')}"
    if st == "needs_data" and rule != "nr341.bank" and result.get("next_step"):
        return f"Needs data: {result.get('next_step')}"
    if st == "exempt" and result.get("applies") is False:
        return (f"Exempt: {result.get('use')} use in the {result.get('district')} district is outside the "
                "chapter's standards")
    must = result.get("applicant_must_show") or []
    shows = f"; the applicant must show {len(must)} items (listed)" if must else ""
    if rule == "city.scope":
        return (f"The chapter's standards apply ({result.get('use') or 'use not entered'}, "
                f"{result.get('district') or 'no'} district)")
    if rule == "erosion_plan":
        if st == "exempt":
            return "Exempt: farming or other agricultural use (Erosion control F)"
        land = ", ".join(str(k).replace("_", " ") for k in result.get("water_land_disturbed") or [])
        return (f"Plan required: {_fmt(result.get('plan_required'))}"
                + (f" ({', '.join(result.get('triggers') or [])})" if result.get("triggers") else "")
                + (f"; land disturbed: {land} (Erosion control C)" if land else "") + shows)
    if rule == "nr341.bank":
        if st == "determined":
            return f"Bank {_fmt(result.get('bank_ft'), ' ft')} ({result.get('basis')})"
        if result.get("next_step"):
            return f"Bank at least {_fmt(result.get('bank_ft_at_least'), ' ft')}; {result['next_step']}"
        return (f"Bank at least {_fmt(result.get('bank_ft_at_least'), ' ft')}; walk more than "
                f"{_fmt(result.get('walk_further_ft'), ' ft')} further")
    if rule == "nr151.protective_area":
        if st == "exempt":
            if result.get("infill_area_ac") is not None:   # (4)(b) decided from the area
                return f"Exempt: in-fill area {result['infill_area_ac']:,.2f} ac, less than 5 ac"
            return "Exempt"
        if result.get("note"):
            return (f"Width {_fmt(result.get('width_ft'), ' ft')} ({result.get('citation')}): "
                    f"{result['note']}")
        return (f"Width {_fmt(result.get('width_ft'), ' ft')} "
                f"(governed by {result.get('governing_feature') or '–'})")
    if rule == "woodland.class":
        return (f"Class {result.get('class')} ({result.get('basis') or 'no basis'}); canopy ≥10 in "
                f"{_fmt(result.get('canopy_10in_pct'), ' %')}, ≥3 in "
                f"{_fmt(result.get('canopy_3in_pct'), ' %')}")
    if rule == "woodland.mitigation":
        if result.get("permitted") is False:
            return (f"Not permitted: retained {_fmt(result.get('retained_pct'), ' %')} is below the "
                    f"{result.get('floor_pct', 0):g} % floor; retain "
                    f"{result.get('retain_more_ac', 0):,.2f} ac more")
        return (f"Retained {_fmt(result.get('retained_pct'), ' %')}; permitted "
                f"{_fmt(result.get('permitted'))}; mitigation "
                f"{_fmt(result.get('mitigation_area_ac'), ' ac')}")
    if rule == "wetland.size":
        kept = result.get("undisturbed_complies")
        return (f"Ordinance wetland: {_fmt(result.get('is_ordinance_wetland'))}; undisturbed "
                f"{_fmt(result.get('required_undisturbed_pct'), ' %')}"
                + ("" if kept is None else "; proposal keeps it undisturbed: " + _fmt(kept)) + shows)
    if rule == "development_area":
        shapes = result.get("edge_shapes") or []
        drawn = (f"; edges as drawn: {shapes.count('line')} line(s), {shapes.count('polygon')} area(s)"
                 if shapes else "")
        return f"Envelope {_fmt(result.get('envelope_area_sqft'), ' sq ft')}{drawn}"
    if rule == "resources.overlap":
        laps = result.get("overlaps") or []
        if not laps:
            return "No resources overlap"
        return "; ".join(f"{' + '.join(o['labels'])}: {o['area_sqft']:,.0f} sq ft, "
                         f"{' and '.join(g.replace('_', ' ') for g in o['governing'])} governs "
                         f"({o['required_pct']:g} % {o['requirement']}, {o['provision']})" for o in laps)
    if rule == "development_area.limit":
        kept = "; ".join(f"{w['class']} woodland kept {w['kept_pct']:.1f} % (needs {w['required_pct']:g} %)"
                         for w in result.get("woodland") or [])
        return (f"Development area {_fmt(result.get('development_area_sqft'), ' sq ft')} (rights-of-way "
                f"{_fmt(result.get('right_of_way_sqft'), ' sq ft')}) of at most "
                f"{_fmt(result.get('max_development_area_sqft'), ' sq ft')}: "
                f"{'complies' if result.get('complies') else 'does not comply'}" + (f"; {kept}" if kept else ""))
    if rule == "nr341.graded_area":
        parts = result.get("patch_surface_areas_sqft") or []
        if parts:
            return (f"All {len(parts)} patches on the surface {_fmt(result.get('surface_area_sqft'), ' sq ft')}"
                    f" (more than 10,000 sq ft needs a permit); permit {_fmt(result.get('permit_required'))}")
        return (f"Surface {_fmt(result.get('surface_area_sqft'), ' sq ft')}; permit "
                f"{_fmt(result.get('permit_required'))}")
    if rule == "drainageway":
        if result.get("is_drainageway") is False and result.get("note"):
            return f"Drainageway: no — {result['note']}"
        pct = result.get("open_space_pct")
        kept = "" if pct is None else (f"; proposal leaves {pct:,.1f} % open space (75 % needed): "
                                       + ("complies" if result.get("open_space_complies") else "does not comply"))
        return (f"Drainageway: {_fmt(result.get('is_drainageway'))}; width "
                f"{_fmt(result.get('total_width_ft'), ' ft')}; open space "
                f"{_fmt(result.get('min_open_space_sqft'), ' sq ft')}{kept}{shows}")
    return st or ""


def check_words(c: Check) -> str:
    """A check's value in a few words (:func:`summary_words`) and what it cites (the data
    points behind a wetland's boundary: ``...; boundary supported by DP-1 (wetland, inside)``)."""
    words = summary_words(c.rule, c.result)
    return f"{words}; {c.cites}" if c.cites and c.status != "error" else words


class Checks:
    """The latest result of every check; re-evaluates only requests whose JSON changed.

    Parameters
    ----------
    evaluate : callable(dict) -> dict, optional
        The rules entry point (default :func:`fieldapp.rules.evaluate`).
    """

    def __init__(self, evaluate: Callable[[dict[str, Any]], dict[str, Any]] | None = None) -> None:
        if evaluate is None:
            from fieldapp.rules import evaluate as rules_evaluate

            evaluate = rules_evaluate
        self._evaluate = evaluate
        self._checks: dict[str, Check] = {}
        self._keys: dict[str, str] = {}
        self.listeners: list[Callable[[list[Check]], None]] = []
        self.evaluations = 0

    def refresh(self, model: Any, *, retained_ac: float = 0.0) -> bool:
        """Rebuild every request from the survey ``model`` (:func:`requests_for_model`, then
        :func:`~fieldapp.checks.city_land.city_land_checks`) and evaluate what changed; the
        woodland class feeds the mitigation request."""
        def woodland_class(request: dict[str, Any]) -> str | None:
            result = self._evaluate_cached(request)
            return result.get("class") if result.get("status") != "error" else None

        from .city_land import city_land_checks
        from .requests import requests_for_model

        requests = requests_for_model(model, retained_ac=retained_ac, woodland_class=woodland_class)
        if model.has_frame:   # General D, Woodlands D (issue 29)
            from fieldapp.survey.features import Layer

            requests.update(city_land_checks(model, model.features(Layer.AREA), woodland_class, requests))
        return self.update(requests)

    def _evaluate_cached(self, request: dict[str, Any]) -> dict[str, Any]:
        key = json.dumps(request, sort_keys=True)
        for cid, k in self._keys.items():
            if k == key:
                return self._checks[cid].result
        return self._safe_evaluate(request)

    def _safe_evaluate(self, request: dict[str, Any]) -> dict[str, Any]:
        self.evaluations += 1
        try:
            return self._evaluate(request)
        except Exception as exc:  # noqa: BLE001 - a rule bug shows as an error row
            return {"rule": request.get("rule"), "status": "error",
                    "message": f"{type(exc).__name__}: {exc}"}

    def update(self, requests: dict[str, tuple[str, RuleInput]]) -> bool:
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
        # imported when first needed: the requests module brings the survey model, which the
        # checks panel's words need none of
        from .requests import AwaitingData, Provisional
        from .support import Cited, Derived

        for cid, (title, item) in requests.items():
            key_of: object = item
            if isinstance(item, AwaitingData):
                key_of = {"awaiting": [item.rule, item.next_step, item.citation]}
            elif isinstance(item, Provisional):
                key_of = {"provisional": item.trees_so_far, "r": item.request}
            elif isinstance(item, Derived):
                key_of = {"derived": item.result_dict}
            elif isinstance(item, Cited):
                key_of = {"cited": item.words(), "r": dict(item)}
            key = json.dumps(key_of, sort_keys=True)
            if self._keys.get(cid) == key and self._checks[cid].title == title:
                continue
            if isinstance(item, AwaitingData):
                self._checks[cid] = Check(cid, title, {}, item.result())
            elif isinstance(item, Provisional):
                result = self._safe_evaluate(item.request)
                self._checks[cid] = Check(cid, title, item.request, item.result(result))
            elif isinstance(item, Derived):
                self._checks[cid] = Check(cid, title, {}, item.result())
            elif isinstance(item, Cited):
                request = dict(item)
                self._checks[cid] = Check(cid, title, request, self._safe_evaluate(request), item.words())
            else:
                self._checks[cid] = Check(cid, title, item, self._safe_evaluate(item))
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

    def requests(self) -> list[dict[str, Any]]:
        """Every current request (what the report embeds); checks awaiting data have none."""
        return [c.request for c in self.all() if c.has_request]
