"""A check's verdict and citation in a short line for the checks panel's cells (issue 35
item 13: at 1366 x 768 the panel is about 640 px wide and cut the long summaries mid-word).

:func:`verdict_words` says the outcome in a few words (``Bank 90.0 ft (slope)``, ``Bank at
least 90.0 ft; walk 5.0 ft further``); :func:`citation_words` names the provision without the
chapter's long name (``Woodlands D.2``, ``NR 341.035(1)(a)``). The whole summary
(:func:`fieldapp.checks.results.check_words`) and the whole citation stay in the row's tooltip
and the details pane. No Qt.
"""

from __future__ import annotations

import re
from typing import Any

from .results import Check, _fmt

__all__ = ["citation_words", "verdict_words"]

_PAREN = re.compile(r" \([^()]*\)")


def _first_clause(text: str) -> str:
    """``text`` up to its first ``": "`` or ``"; "`` (whole words; the rest is in the details)."""
    return re.split(r": |; | — ", text, maxsplit=1)[0]


def _rule_verdict(rule: str, r: dict[str, Any]) -> str:
    st = r.get("status")
    if rule == "wetland.support":
        # the points' sides go to the details; how much of the boundary is supported stays
        return re.sub(r" \((?:wetland|upland)[^)]*\)", "", _first_clause(str(r.get("summary") or st or "")))
    if st == "error":
        return "Rule error: see the details"
    if st == "needs_data" and rule != "nr341.bank":
        return "Next step: see the details" if r.get("next_step") else "Needs data"
    if st == "exempt" and r.get("applies") is False:
        return f"Exempt: {r.get('use') or 'this'} use"
    if rule == "nr341.bank":
        if st == "determined":
            return f"Bank {_fmt(r.get('bank_ft'), ' ft')} ({r.get('basis')})"
        so_far = f"Bank at least {_fmt(r.get('bank_ft_at_least'), ' ft')}"
        if r.get("walk_further_ft") is not None:
            return f"{so_far}; walk {_fmt(r.get('walk_further_ft'), ' ft')} further"
        return f"{so_far}; see the next step"
    if rule == "nr151.protective_area":
        if st == "exempt":
            return "Exempt: in-fill under 5 ac" if r.get("infill_area_ac") is not None else "Exempt"
        gov = r.get("governing_feature")
        words = f"Width {_fmt(r.get('width_ft'), ' ft')}" + (f" ({gov})" if gov else "")
        return words + ("; see the note" if r.get("note") else "")
    if rule == "woodland.class":
        return f"Class {r.get('class')} ({r.get('basis') or 'no basis'})"
    if rule == "woodland.mitigation":
        if r.get("permitted") is False:
            return f"Not permitted: retain {r.get('retain_more_ac', 0):,.2f} ac more"
        return f"Permitted; mitigation {_fmt(r.get('mitigation_area_ac'), ' ac')}"
    if rule == "wetland.size":
        kept = r.get("undisturbed_complies")
        return (f"Ordinance wetland: {_fmt(r.get('is_ordinance_wetland'))}"
                + ("" if kept is None else f"; kept undisturbed: {_fmt(kept)}"))
    if rule == "development_area":
        return f"Envelope {_fmt(r.get('envelope_area_sqft'), ' sq ft')}"
    if rule == "resources.overlap":
        laps = r.get("overlaps") or []
        if not laps:
            return "No resources overlap"
        return f"{len(laps)} overlap{'s' if len(laps) != 1 else ''}: see the details"
    if rule == "development_area.limit":
        return ("Complies" if r.get("complies") else "Does not comply") + (
            f": {_fmt(r.get('development_area_sqft'), ' sq ft')} of at most"
            f" {_fmt(r.get('max_development_area_sqft'), ' sq ft')}")
    if rule == "nr341.graded_area":
        return f"Surface {_fmt(r.get('surface_area_sqft'), ' sq ft')}; permit {_fmt(r.get('permit_required'))}"
    if rule == "drainageway":
        if r.get("is_drainageway") is False:
            return "Not a drainageway"
        ok = r.get("open_space_complies")
        return (f"Drainageway, {_fmt(r.get('total_width_ft'), ' ft')} wide"
                + ("" if ok is None else ("; complies" if ok else "; does not comply")))
    if rule == "erosion_plan":
        if st == "exempt":
            return "Exempt: agricultural use"
        return f"Plan required: {_fmt(r.get('plan_required'))}"
    if rule == "city.scope":
        return "The chapter's standards apply"
    return str(st or "")


def verdict_words(c: Check) -> str:
    """The verdict of check ``c`` in a short line for a table cell (at most two lines of about
    20 characters each in the panel's Value column at 1366 x 768).

    A provisional verdict (a tally not complete) says how many trees it rests on. What a
    wetland check cites (its boundary's data points) is left to the whole summary,
    :func:`fieldapp.checks.results.check_words`, and to the wetland's own data-points row.
    """
    r = c.result
    if c.status == "provisional":
        n = r.get("trees_so_far", 0)
        inner = _rule_verdict(c.rule, {**r, "status": "determined"})
        return f"{inner}; {n} tree{'s' if n != 1 else ''} so far"
    return _rule_verdict(c.rule, r)


def citation_words(citation: str) -> str:
    """The provision of ``citation`` in a few words: the chapter's name is dropped from a city
    citation (``Decorah resource protection, Woodlands D.2`` -> ``Woodlands D.2``), the Corps
    manual is named short; a state code (``NR 151.125(1)(b)``) stays whole."""
    m = re.match(r"^.+? resource protection, (.+)$", citation)
    if m:
        return m.group(1)
    if citation.startswith("Corps of Engineers"):
        return "Corps manual (1987)"
    return citation
