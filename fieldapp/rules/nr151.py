"""Wis. Adm. Code NR 151.125, Protective areas performance standard -- beside the text.

(1)    The protective area is the greatest of the widths below, measured horizontally from the
       top of the channel or the delineated wetland boundary; it excludes land beside a stream
       enclosed within a pipe or culvert.
(1)(a) Outstanding and exceptional resource waters: 75 ft.
(1)(b) Perennial and intermittent streams (USGS 7.5-minute map or county soil survey): 50 ft.
(1)(c) Lakes: 50 ft.
(1)(d) Wetlands not subject to (e) or (f): 50 ft.
(1)(e) Highly susceptible wetlands: 75 ft (calcareous fens, sedge meadows, open and coniferous
       bogs, low prairies, coniferous swamps, lowland hardwood swamps, ephemeral ponds).
(1)(f) Less susceptible wetlands: 10 % of the average wetland width, no less than 10 ft nor more
       than 30 ft (degraded wetlands dominated by invasive species, cultivated hydric soils,
       gravel pits and dredged or fill material disposal sites that take on wetland attributes).
(1)(h) Wetlands completely filled in compliance with all applicable regulations: no delineation;
       a legally authorized fill needs no protective area in that location.
(1)(i) Concentrated flow channels with drainage areas greater than 130 acres: 10 ft.
(1)(j) Where rivers, streams, lakes and wetlands are contiguous, the greatest width applies.
(3)(b) 70 % or greater sod or self-sustaining vegetative cover where land is disturbed.
(4)    Exemptions (a)-(e).

Rules
-----
``nr151.protective_area``
    :func:`protective_area` (typed, with :class:`Feature`), :func:`protective_area_from_request`.
``nr151.vegetative_cover``
    :func:`vegetative_cover`, :func:`vegetative_cover_from_request` (not in the contract table;
    added for (3)(b)).

Readings (``rules-contract.md``): ``stream-keeps-width``, ``average-wetland-width``; added here:

``wetland-type-names``
    A wetland type is placed in (1)(e) or (1)(f) by its words (case, punctuation and plurals
    ignored; short forms such as "fen", "open bog", "hardwood swamp", "reed canary grass",
    "fill site" match); a type in neither list, with no susceptibility given, is ``needs_data``.
``more-protective-width``
    Where the susceptibility given and the wetland type disagree, the wider width is used and
    the result's ``note`` says so.
``cover-of-pervious-area``
    The 70 % of (3)(b) is the share of the disturbed protective area *without* impervious
    surface that carries sod or self-sustaining vegetation; the crew passes that percentage.
``mapped-on`` (issue 29, (1)(b))
    A stream's ``mapped_on`` names the map that shows it (``usgs_7_5_minute`` or
    ``county_soil_survey``, with ``map_name``): 50 ft. ``none`` (checked, on neither map): the
    channel is a concentrated flow channel, (1)(i) (10 ft when more than 130 acres drain to it,
    else 0; ``drainage_area_ac`` needed). Not given: 50 ft as before, with a note that no map
    was named.
``permitted-fill`` (issue 29, (1)(h))
    A wetland's ``fill``: ``complete`` with a ``fill_permit`` reference: no delineation and no
    protective area (0 ft, cited (1)(h)); ``partial`` with a permit: the width as usual, measured
    from the boundary after fill (the polygon the crew draws), the filled part needing none.
    A fill with no permit reference is not taken as legally authorized: the width as usual and a
    note asking for the permit.
``infill-area`` (issue 29, (4)(b))
    ``infill`` {``area_ac``, ``within_existing_development``}: exempt when the land is within
    existing development and its area is less than 5 acres (exactly 5 is not exempt); else the
    width is decided and the note says why (4)(b) does not apply.

Examples
--------
>>> protective_area([Feature("wetland", susceptibility="less", average_width_ft=260)]).width_ft
26.0
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import shapely

from fieldapp.rules.compare import at_least, less_than, more_than
from fieldapp.rules.results import RuleInputError, RuleResult, Status, from_request, ordered
from fieldapp.rules.validate import (
    boolean,
    choice,
    finite_result,
    join,
    mapping,
    number,
    number_of,
    point_ft,
    polygon_ft,
    sequence,
)

__all__ = [
    "EXEMPTIONS",
    "FEATURE_TYPES",
    "Feature",
    "ProtectiveAreaResult",
    "VegetativeCoverResult",
    "WETLAND_TYPES",
    "protective_area",
    "protective_area_from_request",
    "susceptibility_of",
    "vegetative_cover",
    "vegetative_cover_from_request",
]

RULE_PROTECTIVE_AREA = "nr151.protective_area"
RULE_VEGETATIVE_COVER = "nr151.vegetative_cover"

FEATURE_TYPES = (
    "outstanding_resource_water",
    "exceptional_resource_water",
    "stream",
    "lake",
    "wetland",
    "concentrated_flow_channel",
)
SUSCEPTIBILITIES = ("highly", "less", "other")

#: (4): exemption id -> paragraph.
EXEMPTIONS = {
    "redevelopment": "NR 151.125(4)(a)",
    "infill_under_5_ac": "NR 151.125(4)(b)",
    "crossing": "NR 151.125(4)(c)",
    "structure_59_692_1v": "NR 151.125(4)(d)",
    "treated_runoff": "NR 151.125(4)(e)",
}

#: The wetland types of (1)(e) and (1)(f) in the statute's words, singular, for the app's
#: editable list (a crew may still type another name).
WETLAND_TYPES_HIGHLY = (
    "calcareous fen", "sedge meadow", "open bog", "coniferous bog", "low prairie",
    "coniferous swamp", "lowland hardwood swamp", "ephemeral pond",
)
WETLAND_TYPES_LESS = (
    "degraded wetland dominated by invasive species (reed canary grass)", "cultivated hydric soils",
    "gravel pit", "dredged material disposal site", "fill material disposal site",
)
WETLAND_TYPES = WETLAND_TYPES_HIGHLY + WETLAND_TYPES_LESS

#: Word runs that place a type in (1)(e) or (1)(f) (words singular, lower case): the statute's
#: names and the short forms crews write ("fen", "open bog", "hardwood swamp", "fill site").
_HIGHLY_WORDS = (
    ("calcareous", "fen"), ("fen",), ("sedge", "meadow"), ("bog",), ("low", "prairie"),
    ("coniferous", "swamp"), ("hardwood", "swamp"), ("ephemeral", "pond"),
)
_LESS_WORDS = (
    ("degraded", "wetland"), ("degraded",), ("invasive",), ("reed", "canary", "grass"), ("reed", "canary"),
    ("cultivated", "hydric"), ("gravel", "pit"), ("dredged",), ("dredge",), ("spoil",),
    ("fill", "material"), ("fill", "site"), ("disposal", "site"),
)

STREAM_KEEPS_WIDTH = "stream-keeps-width"
AVERAGE_WETLAND_WIDTH = "average-wetland-width"
COVER_OF_PERVIOUS_AREA = "cover-of-pervious-area"
WETLAND_TYPE_NAMES = "wetland-type-names"
MORE_PROTECTIVE_WIDTH = "more-protective-width"
MAPPED_ON = "mapped-on"
PERMITTED_FILL = "permitted-fill"
INFILL_AREA = "infill-area"
_READING_ORDER = (STREAM_KEEPS_WIDTH, WETLAND_TYPE_NAMES, MORE_PROTECTIVE_WIDTH, AVERAGE_WETLAND_WIDTH,
                  MAPPED_ON, PERMITTED_FILL, INFILL_AREA)
#: (1)(b): the maps a stream must be identified on; ``none``: on neither.
STREAM_MAPS = {"usgs_7_5_minute": "U.S. Geological Survey 7.5-minute topographic map",
               "county_soil_survey": "county soil survey map"}
MAPPED_ON_CHOICES = (*STREAM_MAPS, "none")
FILL_STATES = ("complete", "partial")
#: (4)(b): in-fill development areas less than 5 acres.
INFILL_MAX_AC = 5.0

_FIXED = {
    "outstanding_resource_water": (75.0, "NR 151.125(1)(a)"),
    "exceptional_resource_water": (75.0, "NR 151.125(1)(a)"),
    "stream": (50.0, "NR 151.125(1)(b)"),
    "lake": (50.0, "NR 151.125(1)(c)"),
}
_PIPEABLE = ("outstanding_resource_water", "exceptional_resource_water", "stream", "concentrated_flow_channel")
#: (1)(f) limits and (1)(i) drainage area.
LESS_MIN_FT, LESS_MAX_FT, LESS_SHARE = 10.0, 30.0, 0.10
CHANNEL_DRAINAGE_AC, CHANNEL_WIDTH_FT = 130.0, 10.0
COVER_PCT = 70.0


@dataclasses.dataclass(frozen=True)
class Feature:
    """One water feature beside the site (the contract's ``features[i]``).

    Attributes
    ----------
    type : str
        One of :data:`FEATURE_TYPES`.
    susceptibility : str, optional
        Wetlands: ``highly``, ``less`` or ``other``; else taken from ``wetland_type``.
    wetland_type : str, optional
        E.g. ``"sedge meadow"``, ``"cultivated hydric soils"`` (the lists of (1)(e), (1)(f),
        :data:`WETLAND_TYPES`; short forms and plurals match). A type in neither list, without
        a susceptibility, is ``needs_data``; a type that disagrees with the susceptibility
        given takes the more protective width.
    average_width_ft : float, optional
    width_transects_ft : sequence of float, optional
        Wetland widths perpendicular to its long axis, ft (3 or more are used).
    polygon_ft : sequence of (x_ft, y_ft), optional
        The delineated wetland as a ring in a projected CRS, ft.
    drainage_area_ac : float, optional
        Concentrated flow channels.
    piped : bool
        A stream enclosed within a pipe or culvert.
    mapped_on, map_name : str, optional
        Streams: the map showing it (:data:`MAPPED_ON_CHOICES`) and its name (``mapped-on``).
    fill, fill_permit : str, optional
        Wetlands: ``complete`` / ``partial`` fill and the permit reference (``permitted-fill``).
    """

    type: str
    susceptibility: str | None = None
    wetland_type: str | None = None
    average_width_ft: float | None = None
    width_transects_ft: Sequence[float] | None = None
    polygon_ft: Sequence[Sequence[float]] | None = None
    drainage_area_ac: float | None = None
    piped: bool = False
    mapped_on: str | None = None
    map_name: str | None = None
    fill: str | None = None
    fill_permit: str | None = None


@dataclasses.dataclass(frozen=True, kw_only=True)
class ProtectiveAreaResult(RuleResult):
    """Result of ``nr151.protective_area``.

    Attributes
    ----------
    width_ft : float or None
        The greatest width, ft (None when exempt or not yet known).
    widths_ft : tuple of (float or None)
        Each feature's own width (None where data are missing).
    governing_feature : str or None
        ``type`` of the first feature giving ``width_ft``; ``governing_index`` its position.
    average_width_ft : float or None
        The average wetland width used by (1)(f): the governing feature's, else the first one
        computed.
    average_widths_ft : tuple of (float or None)
        Per feature.
    feature_citations : tuple of str
        The paragraph giving each feature's width.
    contiguous : bool
    exemption : str or None
    note : str or None
        Where a wetland's susceptibility and type disagree: which width was used and why
        (``more-protective-width``); a stream's map, a wetland's fill, the in-fill area.
    infill_area_ac : float or None
        The in-fill development area given (``infill-area``), acres.
    """

    width_ft: float | None
    widths_ft: tuple[float | None, ...]
    governing_feature: str | None
    governing_index: int | None = None
    average_width_ft: float | None = None
    average_widths_ft: tuple[float | None, ...] = ()
    feature_citations: tuple[str, ...] = ()
    contiguous: bool
    exemption: str | None = None
    note: str | None = None
    infill_area_ac: float | None = None


@dataclasses.dataclass(frozen=True, kw_only=True)
class VegetativeCoverResult(RuleResult):
    """Result of ``nr151.vegetative_cover`` (NR 151.125(3)(b))."""

    cover_required: bool
    required_pct: float
    vegetative_cover_pct: float
    meets_requirement: bool


def _words(text: str) -> list[str]:
    """Lower-case words of ``text``, singular ("bogs" -> "bog", "grasses" -> "grass")."""
    out = []
    for w in re.findall(r"[a-z]+", text.lower()):
        if w.endswith("sses"):
            w = w[:-2]
        elif len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
            w = w[:-1]
        out.append(w)
    return out


def _has_run(words: Sequence[str], run: Sequence[str]) -> bool:
    n = len(run)
    return any(tuple(words[i:i + n]) == tuple(run) for i in range(len(words) - n + 1))


def susceptibility_of(wetland_type: str | None) -> str | None:
    """``highly`` ((1)(e)), ``less`` ((1)(f)) or None (in neither list) for a wetland type.

    Matching is by words, ignoring case, punctuation and plurals, with the short forms crews
    write (``wetland-type-names``): "Open and coniferous bogs", "fen", "hardwood swamp" are
    highly susceptible; "degraded wetland dominated by reed canary grass", "dredged / fill
    material disposal site" less. A name in both lists (a sedge meadow overrun by reed canary
    grass) is taken as highly susceptible, the more protective. A blank type is ``other``.

    >>> susceptibility_of("Calcareous fens"), susceptibility_of("cultivated hydric soil"), susceptibility_of("marsh")
    ('highly', 'less', None)
    >>> susceptibility_of("open and coniferous bogs"), susceptibility_of("gravel pits"), susceptibility_of("")
    ('highly', 'less', 'other')
    """
    if not wetland_type or not wetland_type.strip():
        return "other"
    words = _words(wetland_type)
    if any(_has_run(words, run) for run in _HIGHLY_WORDS):
        return "highly"
    if any(_has_run(words, run) for run in _LESS_WORDS):
        return "less"
    return None


def _average_width(m: Mapping[str, Any], where: str, used: set[str]) -> tuple[float | None, str | None]:
    """(1)(f) average wetland width: transects (3 or more), then the stated average, then
    area ÷ long-axis length of the minimum rotated rectangle (``average-wetland-width``)."""
    transects = sequence(m, "width_transects_ft", where, required=False)
    count = 0
    if transects is not None:
        tw = join(where, "width_transects_ft")
        widths = [number_of(v, join(tw, i), positive=True, unit=" ft") for i, v in enumerate(transects)]
        count = len(widths)
        if count >= 3:
            used.add(AVERAGE_WETLAND_WIDTH)
            return math.fsum(widths) / count, None
    stated = number(m, "average_width_ft", where, required=False, unit=" ft")
    if stated is not None:
        return stated, None
    ring = sequence(m, "polygon_ft", where, required=False)
    if ring is not None:
        pw = join(where, "polygon_ft")
        poly = polygon_ft([point_ft(p, join(pw, i)) for i, p in enumerate(ring)], pw, name="polygon_ft")
        rect = poly.minimum_rotated_rectangle
        # A valid polygon with an area (polygon_ft) has a rectangle with an area, never a line.
        assert isinstance(rect, shapely.Polygon), rect.geom_type
        xs, ys = rect.exterior.coords.xy
        sides = [math.hypot(xs[i + 1] - xs[i], ys[i + 1] - ys[i]) for i in range(2)]
        used.add(AVERAGE_WETLAND_WIDTH)
        return finite_result(poly.area / max(sides), pw, "the average width"), None
    return None, (
        f"measure the wetland's width perpendicular to its long axis at 3 or more places "
        f"({count} so far), or map its delineated boundary"
    )


#: One feature's row: (width_ft or None, citation, average width, next step, note).
_Row = tuple[float | None, str, float | None, str | None, str | None]


def _feature(m: Mapping[str, Any], where: str, used: set[str]) -> _Row:
    """One feature's own width: (width_ft or None, citation, average width, next step, note)."""
    kind = choice(m, "type", where, FEATURE_TYPES)
    piped = boolean(m, "piped", where, required=False, default=False)
    if piped and kind not in _PIPEABLE:
        raise RuleInputError(join(where, "piped"), f"piped applies to streams and channels, not a {kind}")
    if piped:
        # (1) intro: no protective area beside a stream enclosed within a pipe or culvert.
        return 0.0, "NR 151.125(1)", None, None, None
    if kind == "stream":
        return _stream(m, where, used)
    if kind in _FIXED:
        width, cite = _FIXED[kind]
        return width, cite, None, None, None
    if kind == "concentrated_flow_channel":
        return _channel(m, where, used)
    filled = _fill(m, where, used)
    if filled is not None:
        return filled
    row = _wetland(m, where, used)
    fill = m.get("fill")
    if fill is not None:
        permit = _text(m, "fill_permit", where)
        extra = (f"partly filled under permit {permit}: measured from the wetland boundary after the fill; "
                 "the filled part needs no protective area (NR 151.125(1)(h))" if permit else
                 f"a {fill} fill with no permit reference is not taken as legally authorized: the width "
                 "is the wetland's; enter the permit reference (NR 151.125(1)(h))")
        row = row[:4] + (f"{row[4]}; {extra}" if row[4] else extra,)
    return row


def _text(m: Mapping[str, Any], key: str, where: str) -> str:
    """An optional string value, stripped ("" when absent or null)."""
    value = m.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise RuleInputError(join(where, key), f"{key} must be a string")
    return value.strip()


def _channel(m: Mapping[str, Any], where: str, used: set[str], note: str | None = None) -> _Row:
    """(1)(i): 10 ft for a concentrated flow channel draining more than 130 acres, else 0."""
    used.add(STREAM_KEEPS_WIDTH)
    area = number(m, "drainage_area_ac", where, required=False, nullable=True, unit=" ac")
    if area is None:
        return None, "NR 151.125(1)(i)", None, "determine the channel's drainage area (acres)", note
    width = CHANNEL_WIDTH_FT if more_than(area, CHANNEL_DRAINAGE_AC) else 0.0
    if width == 0.0:    # say why none: (1)(i) needs "greater than 130 acres" (exactly 130 is not)
        why = f"{area:g} ac drains to it, not more than 130 ac: no protective area under (1)(i)"
        note = f"{note}; {why}" if note else why
    return width, "NR 151.125(1)(i)", None, None, note


def _stream(m: Mapping[str, Any], where: str, used: set[str]) -> _Row:
    """(1)(b): 50 ft for a stream identified on a USGS 7.5-minute topographic map or a county
    soil survey map; one on neither falls to (1)(i) (``mapped-on``)."""
    used.add(MAPPED_ON)
    mapped = choice(m, "mapped_on", where, MAPPED_ON_CHOICES, required=False)
    name = _text(m, "map_name", where)
    if mapped is None:
        return 50.0, "NR 151.125(1)(b)", None, None, (
            "no map named for the stream: taken as shown on a USGS 7.5-minute topographic or county "
            "soil survey map (NR 151.125(1)(b)); enter 'mapped on' to confirm")
    if mapped == "none":
        return _channel(m, where, used, note=(
            "not on a USGS 7.5-minute topographic or county soil survey map: not a (1)(b) stream; "
            "taken as a concentrated flow channel, NR 151.125(1)(i)"))
    on = f"{STREAM_MAPS[mapped]} '{name}'" if name else f"{STREAM_MAPS[mapped]} (sheet not named)"
    return 50.0, "NR 151.125(1)(b)", None, None, f"stream shown on the {on}"


def _fill(m: Mapping[str, Any], where: str, used: set[str]) -> _Row | None:
    """(1)(h): a wetland completely filled under its permits has no protective area (0 ft);
    None when the wetland is not completely filled under a permit (``permitted-fill``)."""
    fill = choice(m, "fill", where, FILL_STATES, required=False)
    if fill is None:
        return None
    used.add(PERMITTED_FILL)
    permit = _text(m, "fill_permit", where)
    if fill == "complete" and permit:
        return 0.0, "NR 151.125(1)(h)", None, None, (
            f"completely filled under permit {permit}: no delineation and no protective area "
            "(NR 151.125(1)(h))")
    return None


_SUSCEPTIBILITY_WORDS = {"highly": "highly susceptible, NR 151.125(1)(e)",
                         "less": "less susceptible, NR 151.125(1)(f)",
                         "other": "not subject to (e) or (f), NR 151.125(1)(d)"}


def _wetland_width(susceptibility: str, m: Mapping[str, Any], where: str, used: set[str]) -> _Row:
    """The width of (1)(d), (e) or (f) for one susceptibility (``less`` needs the average width)."""
    if susceptibility == "highly":
        return 75.0, "NR 151.125(1)(e)", None, None, None
    if susceptibility == "other":
        return 50.0, "NR 151.125(1)(d)", None, None, None
    average, step = _average_width(m, where, used)
    if average is None:
        return None, "NR 151.125(1)(f)", None, step, None
    return min(max(LESS_SHARE * average, LESS_MIN_FT), LESS_MAX_FT), "NR 151.125(1)(f)", average, None, None


def _wetland(m: Mapping[str, Any], where: str, used: set[str]) -> _Row:
    """A wetland's width, (1)(d)-(g): from ``susceptibility``, else from ``wetland_type`` by the
    lists of (1)(e) and (1)(f) (``wetland-type-names``); a type in neither list without a
    susceptibility is ``needs_data``; where the two disagree the wider width is used, and the
    row's note says so (``more-protective-width``)."""
    given = choice(m, "susceptibility", where, SUSCEPTIBILITIES, required=False)
    wtype = m.get("wetland_type")
    if wtype is not None and not isinstance(wtype, str):
        raise RuleInputError(join(where, "wetland_type"), "wetland_type must be a string")
    by_type = susceptibility_of(wtype) if wtype and wtype.strip() else None
    if wtype and wtype.strip():
        used.add(WETLAND_TYPE_NAMES)
    if given is None and by_type is None:
        if wtype and wtype.strip():
            return None, "NR 151.125(1)(e), (f)", None, (
                f"Wetland type '{wtype.strip()}' is not in NR 151.125(1)(e) or (f): choose its "
                f"susceptibility (highly susceptible, less susceptible, or neither)"), None
        # rules-contract: neither given -> other wetlands, (1)(d); said, never silent
        width, cite, avg, step, _ = _wetland_width("other", m, where, used)
        return width, cite, avg, step, (
            "no wetland type or susceptibility given: taken as a wetland not subject to (e) or "
            f"(f), {width:g} ft ({cite}); a type listed in NR 151.125(1)(e) gives 75 ft")
    if given is None or by_type is None or given == by_type:
        one = given if given is not None else by_type
        assert one is not None  # neither given returned above
        return _wetland_width(one, m, where, used)
    # Disagreement: the more protective width. (e) 75 ft > (d) 50 ft > (f) at most 30 ft, so the
    # wider one is known without the average width.
    rank = {"highly": 2, "other": 1, "less": 0}
    wider = given if rank[given] > rank[by_type] else by_type
    used.add(MORE_PROTECTIVE_WIDTH)
    width, cite, avg, step, _ = _wetland_width(wider, m, where, used)
    note = (f"the susceptibility given ({_SUSCEPTIBILITY_WORDS[given]}) and the wetland type "
            f"'{(wtype or '').strip()}' ({_SUSCEPTIBILITY_WORDS[by_type]}) disagree: the more protective "
            f"width, {width:g} ft ({cite}), is used")
    return width, cite, avg, step, note


def _notes(rows: Sequence[_Row], types: Sequence[str]) -> str | None:
    """The features' notes (a susceptibility and type that disagree), one sentence, or None."""
    notes = [f"feature {i} ({types[i]}): {r[4]}" for i, r in enumerate(rows) if r[4]]
    return "; ".join(notes) + "." if notes else None


def _infill(m: Mapping[str, Any], where: str, used: set[str]) -> tuple[float | None, str | None]:
    """(4)(b) from the facts (``infill-area``): (area_ac or None, None when exempt, else why not)."""
    if m.get("infill") is None:
        return None, None
    w = join(where, "infill")
    fact = mapping(m["infill"], w)
    area = number(fact, "area_ac", w, unit=" ac")
    within = boolean(fact, "within_existing_development", w)
    used.add(INFILL_AREA)
    if not within:
        return area, (f"the {area:g} ac development area is not in-fill (not within existing "
                      "development): not exempt under NR 151.125(4)(b)")
    if not less_than(area, INFILL_MAX_AC):
        return area, (f"the in-fill development area, {area:g} ac, is not less than 5 acres: not exempt "
                      "under NR 151.125(4)(b)")
    return area, None


def _protective_area(m: Mapping[str, Any], where: str) -> ProtectiveAreaResult:
    contiguous = boolean(m, "contiguous", where)
    items = sequence(m, "features", where)
    if not items:
        raise RuleInputError(join(where, "features"), "features must list at least one water feature")
    fw = join(where, "features")
    exemption = choice(m, "exemption", where, tuple(EXEMPTIONS), required=False)
    used: set[str] = set()
    rows = [_feature(mapping(f, join(fw, i)), join(fw, i), used) for i, f in enumerate(items)]
    types = [mapping(f, join(fw, i))["type"] for i, f in enumerate(items)]
    infill_ac, infill_note = _infill(m, where, used)
    if exemption is None and infill_ac is not None and infill_note is None:
        exemption = "infill_under_5_ac"
    notes = _notes(rows, types)
    if infill_note:   # one more sentence after the features' notes
        notes = f"{notes + ' ' if notes else ''}{infill_note[0].upper()}{infill_note[1:]}."
    if exemption is not None:
        return ProtectiveAreaResult(
            rule=RULE_PROTECTIVE_AREA, status=Status.EXEMPT, citation=EXEMPTIONS[exemption],
            width_ft=None, widths_ft=tuple(r[0] for r in rows), governing_feature=None,
            average_widths_ft=tuple(r[2] for r in rows), feature_citations=tuple(r[1] for r in rows),
            contiguous=contiguous, exemption=exemption, note=notes, infill_area_ac=infill_ac,
            interpretations=ordered(used & {WETLAND_TYPE_NAMES, MORE_PROTECTIVE_WIDTH, MAPPED_ON, PERMITTED_FILL,
                                            INFILL_AREA}, _READING_ORDER),
        )
    if contiguous and len(rows) > 1:
        used.add(STREAM_KEEPS_WIDTH)
    widths = [r[0] for r in rows]
    known = [w for w in widths if w is not None]
    best = max(known) if known else None
    missing = [i for i, w in enumerate(widths) if w is None]
    # An unknown feature is a less susceptible wetland (at most 30 ft), a channel (at most
    # 10 ft) or a wetland whose type is in neither list (at most 75 ft): when contiguous, a
    # known width at least that great already governs.
    bound = {"NR 151.125(1)(f)": LESS_MAX_FT, "NR 151.125(1)(i)": CHANNEL_WIDTH_FT}
    settled = not missing or (contiguous and best is not None and all(
        at_least(best, bound.get(rows[i][1], 75.0)) for i in missing))
    gov = None if best is None else widths.index(best)
    averages = [r[2] for r in rows]
    avg = averages[gov] if gov is not None and averages[gov] is not None else next(
        (a for a in averages if a is not None), None)
    if contiguous and len(rows) > 1:
        cite = "NR 151.125(1)(j)"
    elif gov is not None:
        cite = rows[gov][1]
    else:
        cite = rows[missing[0]][1]
    step = None
    if not settled:
        step = "; ".join(f"feature {i} ({types[i]}): {rows[i][3]}" for i in missing)
    return ProtectiveAreaResult(
        rule=RULE_PROTECTIVE_AREA,
        status=Status.DETERMINED if settled else Status.NEEDS_DATA,
        citation=cite,
        interpretations=ordered(used, _READING_ORDER),
        next_step=step,
        note=notes,
        infill_area_ac=infill_ac,
        width_ft=best if settled else None,
        widths_ft=tuple(widths),
        governing_feature=types[gov] if settled and gov is not None else None,
        governing_index=gov if settled else None,
        average_width_ft=avg,
        average_widths_ft=tuple(averages),
        feature_citations=tuple(r[1] for r in rows),
        contiguous=contiguous,
    )


def protective_area(
    features: Sequence[Feature | Mapping[str, Any]], *, contiguous: bool = False, exemption: str | None = None,
    infill: Mapping[str, Any] | None = None,
) -> ProtectiveAreaResult:
    """Rule ``nr151.protective_area``: the protective-area width (NR 151.125(1), (4)).

    Parameters
    ----------
    features : sequence of Feature or mapping
        The water features beside the site (at least one).
    contiguous : bool
        The features are contiguous ((1)(j): the greatest width applies to all of them).
    exemption : str, optional
        A key of :data:`EXEMPTIONS` ((4)(a)-(e)): the status is ``exempt``, ``width_ft`` None.
    infill : mapping, optional
        ``{"area_ac": ..., "within_existing_development": bool}``: (4)(b) decided from the
        facts (``infill-area``): exempt when in-fill and less than 5 acres.

    Returns
    -------
    ProtectiveAreaResult
        ``width_ft`` the greatest of the features' widths, ``governing_feature`` the first
        feature that gives it. ``needs_data`` when a less susceptible wetland has no width data
        or a concentrated flow channel no drainage area (unless, with contiguous features, a
        known width of 30 ft or more already governs).

    Raises
    ------
    RuleInputError
        Unknown type, susceptibility or exemption; negative or non-finite values; an invalid
        wetland polygon.
    """
    items = [
        {k: v for k, v in dataclasses.asdict(f).items() if v is not None} if isinstance(f, Feature) else f
        for f in features
    ]
    return _protective_area({"features": items, "contiguous": contiguous, "exemption": exemption,
                             "infill": infill}, "")


#: ``nr151.protective_area`` from the contract's ``input``.
protective_area_from_request = from_request(_protective_area, RULE_PROTECTIVE_AREA)


def _vegetative_cover(m: Mapping[str, Any], where: str) -> VegetativeCoverResult:
    cover = number(m, "vegetative_cover_pct", where, maximum=100.0, unit=" %")
    disturbing = boolean(m, "land_disturbing", where, required=False, default=True)
    return VegetativeCoverResult(
        rule=RULE_VEGETATIVE_COVER,
        status=Status.DETERMINED,
        citation="NR 151.125(3)(b)",
        interpretations=(COVER_OF_PERVIOUS_AREA,),
        cover_required=bool(disturbing),
        required_pct=COVER_PCT if disturbing else 0.0,
        vegetative_cover_pct=cover,
        meets_requirement=(not disturbing) or at_least(cover, COVER_PCT),
    )


def vegetative_cover(vegetative_cover_pct: float, *, land_disturbing: bool = True) -> VegetativeCoverResult:
    """Rule ``nr151.vegetative_cover``: 70 % or greater sod or self-sustaining vegetative cover
    where land disturbing construction occurs in the protective area (NR 151.125(3)(b);
    ``cover-of-pervious-area``).

    Parameters
    ----------
    vegetative_cover_pct : float
        Share of the disturbed protective area without impervious surface that is covered, %
        (0-100).
    land_disturbing : bool
        Land disturbing construction activity occurs in the protective area.

    Returns
    -------
    VegetativeCoverResult
        ``meets_requirement``: no land disturbing, or a cover of 70 % or more.

    Raises
    ------
    RuleInputError
        A cover outside 0-100 % or not a finite number; ``land_disturbing`` not true or false.

    >>> vegetative_cover(70.0).meets_requirement, vegetative_cover(69.9).meets_requirement
    (True, False)
    """
    return _vegetative_cover({"vegetative_cover_pct": vegetative_cover_pct, "land_disturbing": land_disturbing}, "")


#: ``nr151.vegetative_cover`` from the contract's ``input``.
vegetative_cover_from_request = from_request(_vegetative_cover, RULE_VEGETATIVE_COVER)
