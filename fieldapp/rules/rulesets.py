"""Which rule sets the app checks a site against, named as a crew and a reviewer cite them
(issue 35 item 16: New visit and the report say so, for *this* site).

The state's two sections are Wisconsin's: they apply to a site in Wisconsin, and the sentence
names its county (from the site's position, :func:`fieldapp.geo.wisconsin_place_words`), or says
that the position is not known yet, or that the site lies outside Wisconsin.

The local chapter: the app carries one, the resource protection chapter of the City of Decorah,
Winneshiek County, Iowa (Ord. 952, 1993; the text in ``shared/regulations``), and checks it at
every site as the site's local resource-protection ordinance. It is the law only inside
Decorah, so the sentence says whose text it is and that it is checked because it was chosen
for the app, never that it is the law at a site elsewhere (the demo, in Vernon County,
Wisconsin, checks it so that the city verdicts can be shown, and its site notes say so).

>>> rule_sets_words("Vernon County, Wisconsin").split(" Local ")[0].split(". ")[1]
'They apply: the site is in Vernon County, Wisconsin.'
>>> rule_sets_words(None).split(" Local ")[0].split(". ")[1]
"They apply in Wisconsin; the site's county is named from its first fix."
"""

from __future__ import annotations

#: (level, who made it, what the app checks from it)
RULE_SETS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("State", "Wisconsin", ("NR 341.035 bank determination", "NR 151.125 protective areas")),
    ("Local", "City of Decorah, Winneshiek County, Iowa",
     ("resource protection chapter, Ord. 952 (1993)",)),
)

#: Sentinel for :func:`rule_sets_words`: the site's position is known and lies outside Wisconsin.
OUTSIDE_WISCONSIN = "outside Wisconsin"


def state_words(place: str | None) -> str:
    """Whether the state sections apply at the site: ``place`` is where the site is
    (``"Vernon County, Wisconsin"``), :data:`OUTSIDE_WISCONSIN`, or None (no position yet)."""
    if place is None:
        return "They apply in Wisconsin; the site's county is named from its first fix."
    if place == OUTSIDE_WISCONSIN:
        return ("The site lies outside Wisconsin: they are checked as the app's state sections,"
                " not as the law there.")
    return f"They apply: the site is in {place}."


LOCAL_CHOICE = ("the one local chapter the app carries, checked at every site as its local"
                " resource-protection ordinance (chosen for the app; it is the law only inside"
                " the City of Decorah)")


def rule_sets_words(place: str | None = None) -> str:
    """The rule sets in one sentence per level, with whether they apply at the site
    (:func:`state_words`) and whose text the local chapter is (:data:`LOCAL_CHOICE`)."""
    (s_level, s_who, s_what), (l_level, l_who, l_what) = RULE_SETS
    return (f"{s_level} ({s_who}): {'; '.join(s_what)}. {state_words(place)}"
            f" {l_level} ({l_who}): {'; '.join(l_what)}: {LOCAL_CHOICE}.")


__all__ = ["LOCAL_CHOICE", "OUTSIDE_WISCONSIN", "RULE_SETS", "rule_sets_words", "state_words"]
