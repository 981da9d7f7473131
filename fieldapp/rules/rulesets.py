"""Which rule sets the app checks a site against, named as a crew and a reviewer cite them
(issue 35 item 16: New visit and the report now say so): the state's two sections and the
local chapter, named by its municipality (the text in ``shared/regulations``).

>>> rule_sets_words().split(" Local ")[0]
'State (Wisconsin): NR 341.035 bank determination; NR 151.125 protective areas.'
"""

from __future__ import annotations

#: (level, who made it, what the app checks from it)
RULE_SETS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("State", "Wisconsin", ("NR 341.035 bank determination", "NR 151.125 protective areas")),
    ("Local", "City of Decorah, Winneshiek County, Iowa",
     ("resource protection chapter, Ord. 952 (1993)",)),
)


def rule_sets_words() -> str:
    """The rule sets in one sentence per level."""
    return " ".join(f"{level} ({who}): {'; '.join(what)}." for level, who, what in RULE_SETS)


__all__ = ["RULE_SETS", "rule_sets_words"]
