"""A check's details in words (issue 35 item 15): what went into the rule and what came out,
one line each, with units, never the rule request's JSON (which a crew does not read: the
details pane copies it for ``fieldapp rules evaluate`` on request, its context menu).

>>> value_lines({"contiguous": False, "average_width_ft": 260, "features": [
...     {"type": "wetland", "susceptibility": "less"}]})
['contiguous: no', 'average width: 260 ft', 'features 1: type wetland, susceptibility less']
"""

from __future__ import annotations

from typing import Any

#: Key endings that are units (``bank_ft`` -> "bank: … ft").
UNIT_ENDINGS = (("_sqft_per_ac", "sq ft/ac"), ("_sqft", "sq ft"), ("_ft", "ft"), ("_in", "in"),
                ("_ac", "ac"), ("_pct", "%"), ("_deg", "°"), ("_m", "m"), ("_cuyd", "cu yd"))
#: Result keys that say nothing to a crew (the rule's own bookkeeping).
SKIPPED_KEYS = frozenset({"rule", "status", "citation", "interpretations", "interpretation_text",
                          "next_step", "note", "message", "governing_index",
                          "applicant_must_show"})


def key_words(key: str) -> tuple[str, str]:
    """``key`` in words and its unit: ``("average width", "ft")`` for ``average_width_ft``."""
    for ending, unit in UNIT_ENDINGS:
        if key.endswith(ending):
            return key[: -len(ending)].replace("_", " "), unit
    return key.replace("_", " "), ""


def value_words(value: Any, unit: str = "") -> str:
    """One value in words: yes / no, numbers without a trailing ``.0``, lists joined."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        text = f"{value:,.2f}".rstrip("0").rstrip(".")
    elif isinstance(value, int):
        text = f"{value:,}"
    elif isinstance(value, (list, tuple)):
        return ", ".join(value_words(v, unit) for v in value) or "none"
    elif isinstance(value, dict):
        return ", ".join(f"{key_words(k)[0]} {value_words(v, key_words(k)[1])}"
                         for k, v in value.items())
    else:
        text = str(value).replace("_", " ")
    return f"{text} {unit}" if unit and unit != "%" else f"{text}{unit}" if unit else text


def value_lines(values: dict[str, Any], skip: frozenset[str] = frozenset()) -> list[str]:
    """``values`` (a rule's input or result) one line each: ``name: value unit``; a list of
    records (features, stations) one line per record, numbered from 1."""
    lines = []
    for key, value in values.items():
        if key in skip:
            continue
        name, unit = key_words(key)
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            lines += [f"{name} {n}: {value_words(v)}" for n, v in enumerate(value, start=1)]
        else:
            lines.append(f"{name}: {value_words(value, unit)}")
    return lines


def interpretation_lines(result: dict[str, Any]) -> list[str]:
    """The readings a result relied on, in words (never the bare ids): the result's own
    ``interpretation_text`` when the rules give it (a list, or a dict by id), else the
    report's sentence for each id of ``interpretations``
    (:data:`fieldapp.report.content.INTERPRETATIONS`)."""
    ids = [str(i) for i in result.get("interpretations") or []]
    text = result.get("interpretation_text")
    if isinstance(text, dict):
        return [str(text.get(i) or i) for i in ids] or [str(t) for t in text.values()]
    if isinstance(text, (list, tuple)) and text:
        return [str(t) for t in text]
    if isinstance(text, str) and text:
        return [text]
    from fieldapp.report.content import INTERPRETATIONS

    return [INTERPRETATIONS.get(i) or i.replace("-", " ") for i in ids]


def details_text(c: Any) -> str:
    """Inputs, interpretation and outcome of one check (a :class:`fieldapp.checks.Check`), in
    words."""
    from fieldapp.checks import check_words, status_words

    r = c.result
    words = interpretation_lines(r)
    lines = [f"{c.title}: {status_words(c.status)}",
             f"Verdict: {check_words(c)}",
             f"Citation: {r.get('citation', '–')}",
             "Interpretations relied on: " + ("–" if not words else "")]
    lines += [f"  • {w}" for w in words]
    if r.get("next_step"):
        lines.append(f"Next step: {r['next_step']}")
    if r.get("note"):
        lines.append(f"Note: {r['note']}")
    if r.get("applicant_must_show"):
        lines += ["The applicant must show:", *(f"  [ ] {x}" for x in r["applicant_must_show"])]
    if r.get("message"):
        lines.append(f"Message: {r['message']}")
    if getattr(c, "cites", None):
        lines.append(f"Wetland data points: {c.cites}")
    lines.append("")
    if c.has_request:
        lines.append("What went in:")
        inputs = c.request.get("input", c.request)
        lines += [f"  {t}" for t in value_lines(inputs if isinstance(inputs, dict) else {})]
    else:
        lines.append("What went in: nothing yet (the rule runs once the data above is recorded)")
    lines.append("")
    lines.append("What came out:")
    lines += [f"  {t}" for t in value_lines(r, SKIPPED_KEYS)]
    if c.has_request:
        lines.append("")
        lines.append("(Right-click: copy the rule request for 'fieldapp rules evaluate')")
    return "\n".join(lines)
