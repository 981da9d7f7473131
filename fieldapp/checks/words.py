"""A rule's input and result keys in words, for the report and the checks panel (issue 35
item 14: the report printed ``bank_ft_at_least`` and ``shrubs_11in``): the unit said apart.

>>> field_words("bank_ft_at_least"), field_words("shrubs_11in"), field_words("slope_pct")
('bank at least (ft)', 'shrubs 11 in', 'slope (%)')
>>> field_words("canopy_10in_pct"), field_words("contiguous")
('canopy 10 in (%)', 'contiguous')
>>> field_words("canopy_2_5in_or_6ft_evergreen")
'canopy 2.5 in or 6 ft evergreen'
>>> field_words("trees")
'grove trees'
"""

from __future__ import annotations

import re

#: A key's unit token and how it is printed.
UNITS = {"ft": "ft", "in": "in", "ac": "ac", "pct": "%", "sqft": "sq ft", "deg": "°", "m": "m",
         "cuyd": "cu yd", "s": "s"}
_SIZE = re.compile(r"^(\d+(?:\.\d+)?)(in|ft)$")       # "11in": a size class, kept in place
_DECIMAL_SIZE = re.compile(r"(?<![^_])(\d+)_(\d+(?:in|ft))(?![^_])")


#: Keys whose words are not the key's own: ``woodland.class``'s ``trees`` are only the trees
#: inside a grove polygon ("trees: none" beside a tally of 25 read as a contradiction).
NAMED = {"trees": "grove trees"}


def field_words(key: str) -> str:
    """``key`` (snake case, units as tokens) in words with its unit in brackets at the end."""
    if key in NAMED:
        return NAMED[key]
    words: list[str] = []
    unit = ""
    key = _DECIMAL_SIZE.sub(r"\1.\2", key)        # "2_5in": 2.5 in, not "2 5 in"
    for token in key.split("_"):
        if token in UNITS and not unit and words:
            unit = UNITS[token]
            continue
        size = _SIZE.match(token)
        words.append(f"{size.group(1)} {size.group(2)}" if size else token)
    text = " ".join(words) or key
    return f"{text} ({unit})" if unit else text


__all__ = ["NAMED", "UNITS", "field_words"]
