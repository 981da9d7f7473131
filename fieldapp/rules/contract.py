"""The JSON request / result contract (``rules-contract.md``): :func:`evaluate` and the rule table.

A request is ``{"rule": id, "input": {...}, "settings": {...}}`` (settings optional); the result
is the rule's result dict, or ``{"rule", "status": "error", "key", "message"}`` when the request
is malformed (a missing, misspelt, wrong-type, negative, non-finite or out-of-range value, or an
unknown rule, named by ``key``). Unknown extra keys are ignored.

:func:`evaluate` never raises: a request whose evaluation fails unexpectedly (a bug, or an input
no check foresaw) becomes an error result whose ``key`` is the best one known (``"input"``,
never empty) and whose message starts "internal error"; a result with a number that is not
finite (JSON has no infinity) becomes an error result naming the result key.
"""

from __future__ import annotations

import json
import math
import reprlib
from collections.abc import Callable, Mapping
from typing import Any

from fieldapp.rules.city_development import development_area_from_request
from fieldapp.rules.city_erosion import erodible_slope_from_request, erosion_plan_from_request, steep_slope_from_request
from fieldapp.rules.city_overlap import development_limit_from_request, resource_overlap_from_request
from fieldapp.rules.city_scope import city_scope_from_request, scoped
from fieldapp.rules.city_water import drainageway_from_request, wetland_size_from_request
from fieldapp.rules.city_woodland import woodland_class_from_request, woodland_mitigation_from_request
from fieldapp.rules.measure import clinometer_from_request
from fieldapp.rules.nr151 import protective_area_from_request, vegetative_cover_from_request
from fieldapp.rules.nr341 import bank_from_request
from fieldapp.rules.nr341_graded import graded_area_from_request
from fieldapp.rules.results import RuleInputError, RuleResult, error_result

__all__ = ["RULES", "evaluate", "evaluate_result", "json_bytes"]

Handler = Callable[[Mapping[str, Any], Mapping[str, Any]], RuleResult]

#: Rule id -> handler(input, settings) -> frozen result.
RULES: dict[str, Handler] = {
    "nr341.bank": bank_from_request,
    "nr341.graded_area": graded_area_from_request,
    "nr151.protective_area": protective_area_from_request,
    "nr151.vegetative_cover": vegetative_cover_from_request,
    "woodland.class": woodland_class_from_request,
    "woodland.mitigation": scoped("woodland.mitigation", woodland_mitigation_from_request),
    "wetland.size": scoped("wetland.size", wetland_size_from_request),
    "drainageway": scoped("drainageway", drainageway_from_request),
    "development_area": scoped("development_area", development_area_from_request),
    "development_area.limit": scoped("development_area.limit", development_limit_from_request),
    "resources.overlap": scoped("resources.overlap", resource_overlap_from_request),
    "erosion_plan": scoped("erosion_plan", erosion_plan_from_request),
    "steep_slope": scoped("steep_slope", steep_slope_from_request),
    "erodible_slope": erodible_slope_from_request,
    "slope.clinometer": clinometer_from_request,
    "city.scope": city_scope_from_request,
}


def evaluate_result(request: Mapping[str, Any]) -> RuleResult:
    """Evaluate one request to its frozen result.

    Raises
    ------
    RuleInputError
        The request is malformed; ``key`` is its path (``"input.features[0].type"``, ``"rule"``).
    """
    if not isinstance(request, Mapping):
        raise RuleInputError("request", f"a request must be an object, got {type(request).__name__}")
    rule = request.get("rule")
    if "rule" not in request:
        raise RuleInputError("rule", "missing required key 'rule'")
    if not isinstance(rule, str) or rule not in RULES:
        known = ", ".join(sorted(RULES))
        raise RuleInputError("rule", f"unknown rule {reprlib.repr(rule)}; known rules: {known}")
    if "input" not in request:
        raise RuleInputError("input", "missing required key 'input'")
    data = request["input"]
    if not isinstance(data, Mapping):
        raise RuleInputError("input", "input must be an object")
    settings = request.get("settings")
    if settings is None:
        settings = {}
    elif not isinstance(settings, Mapping):
        raise RuleInputError("settings", "settings must be an object")
    return RULES[rule](data, settings)


def evaluate(request: Mapping[str, Any]) -> dict[str, Any]:
    """Evaluate one rule request to its JSON result (``rules-contract.md``).

    Parameters
    ----------
    request : mapping
        ``{"rule": id, "input": {...}, "settings": {...}}``.

    Returns
    -------
    dict
        The result (``status`` ``determined``, ``needs_data`` or ``exempt``), or an error result
        ``{"rule", "status": "error", "key", "message"}``. Never raises for bad input.

    Examples
    --------
    >>> evaluate({"rule": "nr151.protective_area", "input": {"contiguous": False, "features": [
    ...     {"type": "wetland", "susceptibility": "less", "average_width_ft": 260}]}})["width_ft"]
    26.0
    >>> evaluate({"rule": "nr341.bank", "input": {"priority": "no", "segments": []}})["key"]
    'input.priority'
    """
    rule = request.get("rule") if isinstance(request, Mapping) else None
    rule = rule if isinstance(rule, str) else None
    try:
        result = evaluate_result(request).to_dict()
    except RuleInputError as err:
        return error_result(rule, err.key, err.message)
    except RecursionError:
        return error_result(rule, _best_key(request), "internal error: the request is nested too deeply")
    except Exception as err:  # noqa: BLE001 -- a bug in one rule must not lose the other verdicts
        text = str(err)
        text = text if len(text) <= 300 else f"{text[:300]}..."
        return error_result(rule, _best_key(request), f"internal error: {type(err).__name__}: {text}")
    bad = _non_finite(result, "")
    if bad is not None:
        path, value = bad
        return error_result(rule, _best_key(request),
                            f"internal error: the result {path} would be {value}; an input value is out of range")
    return result


def json_bytes(value: Any, indent: int | None = 2) -> bytes:
    """``value`` (results, or requests) as the contract's JSON text, the same bytes on every
    platform: ASCII (a character beyond it, "≥", as ``\\u2265``: any console or code page shows
    it unchanged), ``indent`` spaces (None: one line), keys in the order the result has them
    (``rule``, ``status`` first), ``\\n`` line ends (never Windows' ``\\r\\n``), one ``\\n`` at
    the end. ``fieldapp rules evaluate`` prints this and the report attaches it
    (``results-all.json``), so the two are byte for byte the same.

    Raises
    ------
    ValueError
        A NaN or infinite number (JSON has none).

    >>> json_bytes([{"rule": "x", "width_ft": 26.0, "why": "≥ 75 ft"}], indent=None)
    b'[{"rule": "x", "width_ft": 26.0, "why": "\\\\u2265 75 ft"}]\\n'
    """
    return (json.dumps(value, indent=indent, ensure_ascii=True, allow_nan=False) + "\n").encode("ascii")


def _best_key(request: Any) -> str:
    """The key to name for a failure no check caught: the input, or the request itself."""
    if isinstance(request, Mapping) and isinstance(request.get("input"), Mapping):
        return "input"
    return "request"


def _non_finite(value: Any, path: str) -> tuple[str, float] | None:
    """(path, value) of the first float in a result that is NaN or infinite, else None."""
    if type(value) is float:
        return None if math.isfinite(value) else (path, value)
    if isinstance(value, dict):
        for k, v in value.items():
            if type(v) is not float and not isinstance(v, (dict, list)):
                continue
            found = _non_finite(v, f"{path}.{k}" if path else str(k))
            if found is not None:
                return found
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found = _non_finite(v, f"{path}[{i}]")
            if found is not None:
                return found
    return None
