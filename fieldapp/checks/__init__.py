"""Checks: the survey model turned into rule requests, and the latest results (no Qt).

Two modules: :mod:`fieldapp.checks.requests` holds every builder of rule input (from numbers,
from one record of the model, and one builder per kind of check; its docstring says why they
live there), :mod:`fieldapp.checks.results` the :class:`Checks` that evaluates them and the
words that say a result. Every name is importable from ``fieldapp.checks`` as before.

Checks are derived, never stored as truth (DESIGN.md). :func:`requests_for_model` reads the
survey model and builds one rule request per applicable check, exactly the JSON of
``rules-contract.md`` (so the checks panel, the report and ``fieldapp rules evaluate`` see the
same thing); :class:`Checks` evaluates the requests whose JSON changed and keeps the latest
result of each.

A check is identified by a stable id: ``bank:<transect id>``, ``protective_area``,
``woodland:<stand id>``, ``mitigation:<stand id>``, ``wetland:<polygon id>``,
``graded_area:<polygon id>``, ``graded_area:all`` (the patches on a bank added up),
``drainageway:<line id>``, ``development_area``, and from :mod:`fieldapp.checks.city_land`
``resources_overlap`` and ``development_limit:<parcel id>``.

A check may wait for data before any rule can read it: a woodland stand in which no tree has
been recorded yet gets no ``woodland.class`` request (the rule would class the empty tally as
"none", a verdict on nothing) but an :class:`AwaitingData` in its place, which :class:`Checks`
turns into a :class:`Check` with status ``needs_data``, a ``next_step`` in words and no rule
request (``Check.has_request`` False). The stand's mitigation check (with a retained area set)
waits likewise; a mature or young stand with no retained area at all gets one asking for it
(:func:`~fieldapp.checks.requests.protection_check`: "not checked" is never shown as "nothing to
check"), and a retained area above the stand's area is sent as it is, for the rule to refuse.
The rules stay pure: this is the model-to-request layer saying there is nothing to send yet.

Canopy percentages sent to ``woodland.class`` are clamped to [0, 100] (:func:`clamp_pct`). The
survey model already clamps them where they are computed (:func:`fieldapp.survey.canopy.pct`: a
stand covered by crowns gave 100 % plus floating-point excess, which the rule refuses); the clamp
here stays for percentages a caller passes in by hand.

Examples
--------
>>> from fieldapp.checks import bank_request
>>> req = bank_request(False, [(0.0, 0.0), (30.0, 1.2)])
>>> req["rule"], req["input"]["stations"][1]
('nr341.bank', {'distance_ft': 30.0, 'elevation_ft': 1.2})
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fieldapp.checks.requests import (
        CITE_CITY,
        AwaitingData,
        bank_request,
        clamp_pct,
        development_area_request,
        drainageway_request,
        mitigation_request,
        protection_check,
        requests_for_model,
        stands_with_trees,
        woodland_class_request,
    )
    from fieldapp.checks.results import RULE_TITLES, Check, Checks, check_words, status_words, summary_words

#: Where each name other packages and the tests use lives; loaded on first use (PEP 562), so the
#: checks panel, which only needs the words of a result, does not bring the survey model
#: (shapely, pyproj) into the window's start-up: ~160 ms before the window was shown. The other
#: names of the two modules are imported from them.
_HOME = {
    **dict.fromkeys((
        "AwaitingData", "CITE_CITY", "bank_request", "clamp_pct", "development_area_request",
        "drainageway_request", "mitigation_request", "protection_check", "requests_for_model",
        "stands_with_trees", "woodland_class_request",
    ), "requests"),
    **dict.fromkeys(("Check", "Checks", "RULE_TITLES", "check_words", "status_words", "summary_words"),
                    "results"),
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'fieldapp.checks' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"fieldapp.checks.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME))


__all__ = [  # the names of _HOME
    "AwaitingData", "CITE_CITY", "Check", "Checks", "RULE_TITLES", "bank_request", "check_words", "clamp_pct",
    "development_area_request", "drainageway_request", "mitigation_request", "protection_check",
    "requests_for_model", "stands_with_trees", "status_words", "summary_words",
    "woodland_class_request",
]
