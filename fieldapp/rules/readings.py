"""The readings the rules take where the text is silent: id -> the sentence a reader looks up.

Every interpretation id a result lists (``RuleResult.interpretations``) has its sentence here,
and the result carries the sentences of the ids it used (``interpretation_text`` in
``to_dict()``), so the checks panel and the site report print each reading beside the verdict.
The ids of ``rules-contract.md`` keep its wording; the ones added by a rule module are named in
that module's docstring. The README lists them all (a test keeps it in step with this table).

>>> READINGS["grove"]
'A grove is 8 or more deciduous trees, each 18.0 in DBH or more, inside the grove the surveyor drew.'
>>> texts_for(("grove", "round-buffer"))[1].startswith("round-buffer: ")
True
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["READINGS", "reading_text", "texts_for"]

#: Interpretation id -> its sentence (plain text, field words).
READINGS: dict[str, str] = {
    # NR 341.035 (bank, graded area)
    "per-segment-slope": (
        "Slope is taken per surveyed segment between stations, never averaged or smoothed; "
        "crews put a station at every break in slope."),
    "trigger-within-base": (
        "A steep segment (slope at or above the threshold) extends the bank when it starts at or "
        "inside the base distance (75 ft / 300 ft), before any interruption."),
    "anchor-last-trigger": (
        "The extension is measured from the landward end of the last triggering steep segment; "
        "below-threshold runs of 50 ft or less are absorbed, and the bank ends where the first "
        "below-threshold run of more than 50 ft begins."),
    "never-below-base": (
        "The bank is never closer than the base distance, unless cut by an interruption."),
    "interruption-caps": (
        "A complete interruption caps the bank, even inside the base distance and for a "
        "stipulated bank. The surveyor marks it; the app never infers it."),
    "run-cut-by-interruption": (
        "A below-threshold run of 50 ft or less that reaches the marked complete interruption does "
        "not end the bank, so the bank reaches the interruption, where NR 341.035(1)(c) caps it."),
    "insufficient-transect": (
        "If the transect ends while still steep, or inside a below-threshold run of 50 ft or less, "
        "the bank is not settled yet: the result gives the bank so far and how far to walk."),
    "horizontal-distance": (
        "Taped or laser slope distances are reduced to horizontal before any comparison; a slope "
        "in degrees becomes percent as 100·tan."),
    "surface-area": (
        "Graded area on the bank is measured on the land surface: horizontal area × "
        "√(1 + (slope/100)²); a permit needs more than 10,000 sq ft."),
    "all-disturbed-area": (
        "All the graded patches on the bank add up: each is measured on its own land surface "
        "and the sum is compared with the 10,000 sq ft of NR 341.035(3); a patch is on the "
        "bank when a surveyed bank segment crosses it, and counts whole."),
    # NR 151.125 (protective area, vegetative cover)
    "stream-keeps-width": (
        "A stream or lake keeps its own width next to a less susceptible wetland; contiguous "
        "features take the greatest width; concentrated flow channels need a drainage area of "
        "more than 130 acres."),
    "average-wetland-width": (
        "The average wetland width is the mean of widths measured perpendicular to the long axis "
        "(at least 3); with only the delineated boundary, its area ÷ its long-axis length "
        "(minimum rotated rectangle)."),
    "wetland-type-names": (
        "A wetland type is matched to the lists of NR 151.125(1)(e) and (f) by its words, "
        "ignoring case, hyphens and plurals, with the short forms crews write (open bog, "
        "coniferous bog, reed canary grass, fill site); a type in neither list needs its "
        "susceptibility chosen."),
    "more-protective-width": (
        "Where the susceptibility given and the wetland type disagree, the wider (more "
        "protective) of the two widths is used."),
    "cover-of-pervious-area": (
        "The 70 % vegetative cover is the share of the disturbed protective area without "
        "impervious surface that carries sod or self-sustaining vegetation."),
    "mapped-on": (
        "A stream has the 50 ft of NR 151.125(1)(b) when the crew names the USGS 7.5-minute "
        "topographic map or county soil survey map showing it; a channel checked and found on "
        "neither is a concentrated flow channel, (1)(i): 10 ft when more than 130 acres drain "
        "to it, else none. A stream with no map stated keeps 50 ft, and the result says no "
        "map was named."),
    "permitted-fill": (
        "A wetland completely filled under all applicable permits needs no delineation and no "
        "protective area (0 ft) once the permit reference is entered; a partly filled wetland "
        "is measured from its boundary after the fill (the boundary the crew draws), and the "
        "filled part needs none. A fill with no permit reference is not taken as legal."),
    "infill-area": (
        "An in-fill development area is undeveloped land surrounded by existing development "
        "(the crew answers this); it is exempt under NR 151.125(4)(b) when less than 5 acres: "
        "exactly 5 acres is not exempt."),
    # Decorah resource protection chapter
    "largely-deciduous": (
        "Largely deciduous means more than 50 % of the qualifying (10 in or more) canopy area is "
        "deciduous (a setting)."),
    "dbh-for-standing-trees": (
        "Standing trees are classed by DBH (at 4.5 ft); a near-ground caliper is for nursery "
        "stock only and never used to class a standing tree."),
    "grove": (
        "A grove is 8 or more deciduous trees, each 18.0 in DBH or more, inside the grove the "
        "surveyor drew."),
    "canopy-sample-proportion": (
        "From a dot grid, canopy % = points on that canopy ÷ all points; from a line intercept, "
        "intercepted length ÷ line length; the deciduous share is the deciduous part of the "
        "10 in or more canopy ÷ all of that canopy."),
    "mitigation-area": (
        "Mitigation area = (base protection − retained fraction) × woodland area; the floors "
        "(55 % / 25 %) are inclusive; plantings are one combined mix per acre, each rounded up."),
    "round-buffer": (
        "Development-area limits are true round-cornered buffers, and a point on the limit is "
        "inside."),
    "edge-shape": (
        "An edge is buffered as what the crew drew: a line (a driveway edge, a utility trench) "
        "5 ft along it, a polygon (a parking or septic area, a drive drawn as an area) 5 ft "
        "around it. Without a stated shape, a closed ring or a parking or septic area of 3 or "
        "more points is a polygon, and an open driveway or utility line is a line, never closed "
        "into a polygon."),
    "mapped-stream-only": (
        "Drainageways A.1 covers streams shown on the USGS quadrangle or county soil survey map; "
        "an unmapped stream is not an A.1 drainageway, and is checked as a swale under A.2 (5 "
        "acres or more draining to it)."),
    "strictly-more-than": (
        "Every erosion-plan trigger is \"more than\" its limit: a value exactly at the limit "
        "does not trigger."),
    "slope-magnitude": (
        "\"Slopes greater than 30 %\" and \"inclines in excess of 4 %\" compare the slope's "
        "size, whether the ground rises or falls."),
    "unmapped-channel-as-swale": (
        "A stream not on the USGS quadrangle or the county soil survey map is a channel in a "
        "swale: with 5 acres or more tributary to it, it is a Drainageways A.2 drainageway, 25 ft"
        " each side of its centreline (its channel width is not added)."),
    "tributary-linear-between-stations": (
        "Tributary area grows linearly between two stations down a swale; the drainageway starts "
        "where it reaches 5 acres. A first station already at 5 acres or more makes it reach the "
        "line's upstream end (the most protective reading; a station further up can shorten it)."),
    "floodplain-by-reach": (
        "The floodplain exception is taken along the centreline: the reach whose centreline lies "
        "in land designated floodplain (F-1 district) is excepted with its whole width, and the "
        "rest counts in full."),
    "open-space-of-counted-area": (
        "Drainageway open space = (drainageway area counted − proposed disturbance inside it) ÷ "
        "that area; 75 % exactly complies."),
    "altered-drainageway-checklist": (
        "Any proposed disturbance of a drainageway lists what the applicant must show "
        "(Drainageways D, D.1-D.5 and E); the app records the list, it does not judge the "
        "showing."),
    "wetland-disturbance-checklist": (
        "Wetlands C still holds for a proposal that disturbs a wetland (it does not comply); the "
        "approvals of Wetlands D and the easement of E are listed for the applicant to show."),
    "a1-agricultural-use": (
        "The General A exception needs both the A-1 district (A-1, A1: case, spaces and hyphens "
        "ignored) and an agricultural use; any other district or use is under the standards."),
    "water-land-disturbed": (
        "Erosion control C applies when the proposed disturbance reaches land in a drainageway, "
        "stream, stream bank, lake shoreline or body of water, as recorded; the B quantities are "
        "then not needed."),
    "most-restrictive-overlap": (
        "Where recorded resource polygons overlap, the provision keeping the larger share "
        "governs the shared land: wetland 100 % and Sr/SsF over 30 % 100 % undisturbed, "
        "mature woodland 75 %, drainageway 75 % open space, young woodland 50 %. At equal "
        "shares \"undisturbed\" is more restrictive than \"open space\" (Drainageways D lets open "
        "space be disturbed for an approved storm water system); two undisturbed provisions "
        "at 100 % are both named."),
    "all-rights-of-way": (
        "The development area is the land disturbed by construction together with every "
        "right-of-way drawn, whole; woodland inside a right-of-way is never counted as "
        "protected; the parcel's development area may be at most its area less 75 % of its "
        "mature and 50 % of its young woodland, and each class must keep that share outside "
        "the development area."),
}


def reading_text(reading_id: str) -> str:
    """The sentence of ``reading_id``; raises KeyError for an id no rule takes."""
    return READINGS[reading_id]


def texts_for(ids: Iterable[str]) -> list[str]:
    """``"id: sentence"`` for each id, in the order given (the panel's and report's lines).

    Raises
    ------
    KeyError
        An id with no sentence in :data:`READINGS`.
    """
    return [f"{i}: {READINGS[i]}" for i in ids]
