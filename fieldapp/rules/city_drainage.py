"""The city chapter, Drainageways A-E: rule ``drainageway``.

A.1: 50 ft from each embankment of a mapped stream (``mapped-stream-only``). A.2: 25 ft each
side of the centreline of a swale, or of an unmapped channel, with 5 acres or more tributary
(``unmapped-channel-as-swale``); the 5 acres may be reached part-way down the swale, and only
the reach downstream of that point counts (``tributary-linear-between-stations``). A.1 and A.2
except land designated floodplain (F-1 district; ``floodplain-by-reach``). C: 75 % of the
drainageway stays open space (``open-space-of-counted-area``; exactly 75 % complies). D and E:
a proposal that alters a drainageway must show an approved stormwater system meeting the five
design standards and the drainageway easement (``altered-drainageway-checklist``).

Positions along the line (``station_ft``, floodplain reaches) are ground feet from the line's
first point, which is its upstream end. Feet are the site's foot (see :mod:`fieldapp.rules`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import shapely
from shapely.geometry import LineString
from shapely.ops import substring

from fieldapp.rules.city_tables import (
    ALTERED_DRAINAGEWAY_CHECKLIST,
    CITE,
    DRAINAGEWAY_OPEN_SPACE_PCT,
    FLOODPLAIN_BY_REACH,
    MAPPED_STREAM_ONLY,
    OPEN_SPACE_OF_COUNTED_AREA,
    SWALE_TRIBUTARY_AC,
    TRIBUTARY_LINEAR,
    UNMAPPED_CHANNEL_AS_SWALE,
)
from fieldapp.rules.compare import at_least, at_most, less_than, more_than
from fieldapp.rules.results import RuleInputError, RuleResult, Status, from_request, ordered
from fieldapp.rules.validate import (
    boolean,
    choice,
    finite_result,
    join,
    mapping,
    number,
    number_of,
    points_ft,
    polygon_ft,
    sequence,
)

__all__ = ["DRAINAGEWAY_MUST_SHOW", "DrainagewayResult", "drainageway", "drainageway_from_request"]

_ORDER = (MAPPED_STREAM_ONLY, UNMAPPED_CHANNEL_AS_SWALE, TRIBUTARY_LINEAR, FLOODPLAIN_BY_REACH,
          OPEN_SPACE_OF_COUNTED_AREA, ALTERED_DRAINAGEWAY_CHECKLIST)

#: What an applicant altering a drainageway must show (Drainageways D, D.1-D.5, E).
DRAINAGEWAY_MUST_SHOW = (
    "D: the construction is part of an approved stormwater system, with a continuous strip of "
    "open space along the course of the drainageway",
    "D.1: the time of concentration of stormwater flows remains unchanged or is lengthened",
    "D.2: stormwater storage capacity is unchanged or increased",
    "D.3: vegetation is replaced as woodland mitigation requires and as the city requires",
    "D.4: the new drainageway has less velocity than before, or erosion control measures reduce "
    "stream bank erosion",
    "D.5: no additional water is backed up onto adjoining properties",
    "E: the drainageway open space is deed restricted as a drainageway easement, with a "
    "protective easement in favor of the city",
)


@dataclasses.dataclass(frozen=True, kw_only=True)
class DrainagewayResult(RuleResult):
    """Result of ``drainageway`` (Drainageways A.1, A.2, C, D, E); widths and lengths ft,
    areas sq ft; zeros for a non-drainageway, None while ``needs_data``.

    ``reach_start_ft``: where the drainageway starts along the line (0 unless the tributary
    area reaches 5 acres part-way down; None for no drainageway).
    ``counted_length_ft``: the length that counts (downstream of the start, outside the
    floodplain); ``floodplain_excepted_ft``: the length of the reach excepted as floodplain.
    ``disturbed_sqft``, ``open_space_pct``, ``open_space_complies`` (C, 75 % or more): None
    when no disturbance was given. ``applicant_must_show``: the checklist of D and E when a
    disturbance of the drainageway is proposed.
    """

    is_drainageway: bool | None
    half_width_ft: float | None
    total_width_ft: float | None
    area_sqft: float | None
    min_open_space_sqft: float | None
    note: str | None = None
    reach_start_ft: float | None = None
    counted_length_ft: float | None = None
    floodplain_excepted_ft: float | None = None
    disturbed_sqft: float | None = None
    open_space_pct: float | None = None
    open_space_complies: bool | None = None
    applicant_must_show: tuple[str, ...] = ()
    #: The counted reaches along the line, [from_ft, to_ft] from its upstream end (empty for no
    #: drainageway): what the map, the stake-out and the export draw.
    reaches_ft: tuple[tuple[float, float], ...] = ()


def _centerline(m: Mapping[str, Any], where: str, needed_by: str) -> LineString:
    if m.get("centerline") is None:
        raise RuleInputError(join(where, "centerline"),
                             f"missing required key 'centerline' ({needed_by} is given as polygons)")
    pts = points_ft(m["centerline"], join(where, "centerline"))
    line = LineString(pts) if len(pts) >= 2 else LineString()
    if line.is_empty or not line.length > 0.0:
        raise RuleInputError(join(where, "centerline"), "centerline needs 2 or more distinct [x_ft, y_ft] points")
    return line


def _polygons(m: Mapping[str, Any], key: str, where: str) -> Any:
    rings = sequence(m, key, where)
    polys = [polygon_ft(points_ft(r, join(join(where, key), i)), join(join(where, key), i))
             for i, r in enumerate(rings)]
    return shapely.union_all(polys) if polys else shapely.Polygon()


def _tributary_start(m: Mapping[str, Any], where: str, length: float) -> tuple[float | None, str | None, bool]:
    """(start_ft or None when no reach reaches 5 ac, next_step or None, stations used).

    ``next_step`` is set (and start None) when the data cannot settle it yet."""
    given = [k for k in ("tributary_area_ac", "tributary_stations", "threshold_station_ft")
             if m.get(k) is not None]
    if len(given) > 1:
        raise RuleInputError(join(where, given[1]), f"give one of tributary_area_ac, tributary_stations or "
                                                    f"threshold_station_ft, not {given[0]} and {given[1]}")
    if not given:
        return None, "measure the upstream area tributary to the swale (acres)", False
    if given[0] == "tributary_area_ac":
        trib = number(m, "tributary_area_ac", where, unit=" ac")
        return (0.0 if at_least(trib, SWALE_TRIBUTARY_AC) else None), None, False
    if given[0] == "threshold_station_ft":
        at = number(m, "threshold_station_ft", where, unit=" ft")
        return (at if less_than(at, length) else None), None, False
    raw = sequence(m, "tributary_stations", where)
    if not raw:
        raise RuleInputError(join(where, "tributary_stations"), "tributary_stations needs 1 or more stations")
    stations: list[tuple[float, float]] = []
    for i, s in enumerate(raw):
        w = join(join(where, "tributary_stations"), i)
        s = mapping(s, w)
        x = number(s, "station_ft", w, unit=" ft")
        a = number(s, "tributary_area_ac", w, unit=" ac")
        if stations and not x > stations[-1][0]:
            raise RuleInputError(join(w, "station_ft"), "station_ft must increase down the swale "
                                                        f"(after {stations[-1][0]:g} ft, got {x:g} ft)")
        if stations and a < stations[-1][1]:
            raise RuleInputError(join(w, "tributary_area_ac"),
                                 "tributary_area_ac cannot fall downstream "
                                 f"({stations[-1][1]:g} ac above, {a:g} ac here)")
        if more_than(x, length):
            raise RuleInputError(join(w, "station_ft"), f"station_ft {x:g} ft is past the end of the line "
                                                        f"({length:g} ft)")
        stations.append((x, a))
    x0, a0 = stations[0]
    if at_least(a0, SWALE_TRIBUTARY_AC):
        return 0.0, None, True      # most protective: up to the upstream end (see the reading)
    for (xa, aa), (xb, ab) in zip(stations, stations[1:], strict=False):
        if at_least(ab, SWALE_TRIBUTARY_AC):
            return xa + (SWALE_TRIBUTARY_AC - aa) / (ab - aa) * (xb - xa), None, True
    xl = stations[-1][0]
    if at_least(xl, length):
        return None, None, True
    return None, (f"measure the tributary area at the downstream end of the swale ({length:,.0f} ft "
                  f"from its upstream end; the last station, at {xl:,.0f} ft, has "
                  f"{stations[-1][1]:g} ac)"), True


def _floodplain_reaches(m: Mapping[str, Any], where: str, length: float) -> list[tuple[float, float]] | None:
    """The floodplain reaches along the line, ft from its upstream end, merged (None: none given)."""
    if m.get("floodplain_reaches_ft") is not None and m.get("floodplain") is not None:
        raise RuleInputError(join(where, "floodplain"), "give floodplain_reaches_ft or floodplain, not both")
    out: list[tuple[float, float]] = []
    if m.get("floodplain_reaches_ft") is not None:
        for i, r in enumerate(sequence(m, "floodplain_reaches_ft", where)):
            w = join(join(where, "floodplain_reaches_ft"), i)
            if isinstance(r, (str, bytes)) or not isinstance(r, Sequence) or len(r) != 2:
                raise RuleInputError(w, "each floodplain reach must be [from_ft, to_ft]")
            a, b = number_of(r[0], join(w, 0), unit=" ft"), number_of(r[1], join(w, 1), unit=" ft")
            if b < a:
                raise RuleInputError(w, f"a floodplain reach must run downstream (from {a:g} ft to {b:g} ft)")
            out.append((a, b))
    elif m.get("floodplain") is not None:
        line = _centerline(m, where, "floodplain")
        scale = length / line.length
        parts = line.intersection(_polygons(m, "floodplain", where))
        for g in getattr(parts, "geoms", [parts]):
            if isinstance(g, LineString) and g.length > 0.0:
                ends = sorted(line.project(shapely.Point(c)) for c in (g.coords[0], g.coords[-1]))
                out.append((ends[0] * scale, ends[1] * scale))
    else:
        return None
    merged: list[tuple[float, float]] = []
    for a, b in sorted(out):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


def _counted(start: float, length: float, fps: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The reaches [start, length] minus the floodplain reaches."""
    out, at = [], start
    for a, b in fps:
        if b <= at or a >= length:
            continue
        if a > at:
            out.append((at, min(a, length)))
        at = max(at, b)
    if at < length:
        out.append((at, length))
    return [(a, b) for a, b in out if b > a]


def _disturbed(m: Mapping[str, Any], where: str, length: float, half: float,
               reaches: list[tuple[float, float]]) -> float | None:
    if m.get("disturbed_sqft") is not None and m.get("disturbed") is not None:
        raise RuleInputError(join(where, "disturbed"), "give disturbed_sqft or disturbed, not both")
    if m.get("disturbed_sqft") is not None:
        return number(m, "disturbed_sqft", where, unit=" sq ft")
    if m.get("disturbed") is None:
        return None
    line = _centerline(m, where, "disturbed")
    scale = line.length / length if length > 0 else 0.0
    strips = [substring(line, a * scale, b * scale).buffer(half * scale, cap_style="flat") for a, b in reaches]
    if not strips or half <= 0.0 or scale <= 0.0:
        return 0.0
    # the centreline's own length may differ from length_ft (grid and ground feet): the area
    # is brought to length_ft's feet
    return float(shapely.union_all(strips).intersection(_polygons(m, "disturbed", where)).area) / scale ** 2


def _drainageway(m: Mapping[str, Any], where: str) -> DrainagewayResult:
    kind = choice(m, "kind", where, ("swale", "stream"))
    length = number(m, "length_ft", where, unit=" ft")
    used: set[str] = set()
    step = note = None
    start: float | None = 0.0
    verdict: bool | None
    if kind == "stream":
        used.add(MAPPED_STREAM_ONLY)
        mapped = boolean(m, "mapped_stream", where, required=False, nullable=True)
        channel = number(m, "channel_width_ft", where, required=False, nullable=True, unit=" ft") or 0.0
    else:
        mapped, channel = None, 0.0
    if kind == "stream" and mapped is not False:
        cite = f"{CITE}, Drainageways A.1"
        verdict, half, total = mapped, channel / 2.0 + 50.0, channel + 100.0
        if mapped is None:
            step = ("check whether the stream is shown on the USGS 7.5-minute quadrangle or the "
                    "county soil survey map")
    else:
        cite = f"{CITE}, Drainageways A.2"
        half, total = 25.0, 50.0
        start, step, stations = _tributary_start(m, where, length)
        if stations:
            used.add(TRIBUTARY_LINEAR)
        verdict = None if step else start is not None
        if kind == "stream":
            used.add(UNMAPPED_CHANNEL_AS_SWALE)
            if step and not stations:
                step = ("the stream is not on the USGS quadrangle or the county soil survey map: "
                        "measure the area draining to the channel (acres); with 5 acres or more it "
                        "is a drainageway 25 ft each side of its centreline")
    if verdict is None:
        return DrainagewayResult(rule="drainageway", status=Status.NEEDS_DATA, citation=cite,
                                 interpretations=ordered(used, _ORDER), next_step=step,
                                 is_drainageway=None, half_width_ft=None, total_width_ft=None,
                                 area_sqft=None, min_open_space_sqft=None)
    fps = _floodplain_reaches(m, where, length)
    counted_len = excepted = 0.0
    reaches: list[tuple[float, float]] = []
    if verdict:
        assert start is not None
        if start > 0.0:
            note = (f"The tributary area reaches 5 acres {start:,.1f} ft down the swale: only the "
                    f"reach downstream of that point is a drainageway (Drainageways A.2).")
        reaches = _counted(start, length, fps or [])
        counted_len = sum(b - a for a, b in reaches)
        excepted = (length - start) - counted_len
        if fps is not None:
            used.add(FLOODPLAIN_BY_REACH)
            if excepted > 0.0:
                cite += " (floodplain excepted)"
            if not counted_len > 0.0:
                verdict = False
                note = ("All of the reach lies in land designated floodplain (F-1 district), "
                        "which Drainageways A excepts: no drainageway.")
    if not verdict:
        half = total = 0.0
    area = finite_result(total * counted_len, join(where, "length_ft"), "the drainageway area")
    disturbed = _disturbed(m, where, length, half, reaches)
    pct = complies = None
    must: tuple[str, ...] = ()
    if verdict and disturbed is not None:
        used.add(OPEN_SPACE_OF_COUNTED_AREA)
        pct = max(0.0, 100.0 * (area - disturbed) / area) if area > 0.0 else 100.0
        complies = at_least(pct, DRAINAGEWAY_OPEN_SPACE_PCT)
        if more_than(disturbed, 0.0):
            used.add(ALTERED_DRAINAGEWAY_CHECKLIST)
            must = DRAINAGEWAY_MUST_SHOW
            cite = f"{cite}, C, D, E"
            if not complies:
                note = ((note + " ") if note else "") + (
                    f"The proposal leaves {pct:.1f} % of the drainageway as open space; Drainageways C "
                    f"requires 75 %. The open space may be disturbed only by an approved stormwater "
                    f"system meeting D.1-D.5.")
        elif at_most(disturbed, 0.0):
            cite = f"{cite}, C"
    elif verdict:
        cite = f"{cite}, C"
    return DrainagewayResult(
        rule="drainageway",
        status=Status.DETERMINED,
        citation=cite,
        interpretations=ordered(used, _ORDER),
        note=note,
        is_drainageway=verdict,
        half_width_ft=half,
        total_width_ft=total,
        area_sqft=area,
        min_open_space_sqft=DRAINAGEWAY_OPEN_SPACE_PCT / 100.0 * area,
        reach_start_ft=start if verdict else None,
        counted_length_ft=counted_len,
        floodplain_excepted_ft=excepted if fps is not None else None,
        disturbed_sqft=disturbed if verdict else None,
        open_space_pct=pct,
        open_space_complies=complies,
        applicant_must_show=must,
        reaches_ft=tuple(reaches) if verdict else (),
    )


def drainageway(kind: str, length_ft: float, *, tributary_area_ac: float | None = None,
                mapped_stream: bool | None = None, channel_width_ft: float | None = None,
                tributary_stations: Sequence[tuple[float, float]] | None = None,
                threshold_station_ft: float | None = None,
                floodplain_reaches_ft: Sequence[tuple[float, float]] | None = None,
                disturbed_sqft: float | None = None) -> DrainagewayResult:
    """Rule ``drainageway`` (Drainageways A.1, A.2, C, D, E).

    A mapped stream (A.1): 50 ft beyond each embankment, half width channel/2 + 50, total
    channel + 100 (channel width 0 when not given). A swale, or a stream not on the maps
    (``unmapped-channel-as-swale``), with 5.0 acres or more tributary (A.2): 25 ft each side of
    the centreline (total 50). Area = total width × the counted length; 75 % of it stays open
    space (C).

    Readings: ``tributary-linear-between-stations`` (the 5-acre point is interpolated
    linearly between the last station below 5 ac and the next; a first station already at
    5 ac or more makes the drainageway reach the line's upstream end, the most protective
    reading); ``floodplain-by-reach`` (the reach whose centreline lies in the F-1 floodplain is
    excepted with its whole width; the rest counts in full); ``open-space-of-counted-area``
    (open space % = (area − disturbed) ÷ area × 100, at least 0; 75 % exactly complies);
    ``altered-drainageway-checklist`` (any disturbance lists D, D.1-D.5 and E). ``reaches_ft``
    lists the counted reaches (ft from the upstream end).

    Parameters
    ----------
    kind : {"stream", "swale"}
    length_ft : float
        Length of the line along the site, ft (≥ 0).
    tributary_area_ac : float, optional
        Swales and unmapped streams: the area tributary to the line, acres (at its downstream
        end). One of this, ``tributary_stations`` and ``threshold_station_ft``; none gives
        ``needs_data``.
    mapped_stream : bool, optional
        Streams: on the USGS 7.5-minute quadrangle or the county soil survey map; None gives
        ``needs_data``; False makes it a channel under A.2.
    channel_width_ft : float, optional
        Mapped streams: channel width between the embankments, ft.
    tributary_stations : sequence of (station_ft, tributary_area_ac), optional
        Tributary area at stations down the line (ft from its upstream end, increasing; areas
        never falling).
    threshold_station_ft : float, optional
        Where the tributary area reaches 5 acres, ft from the upstream end.
    floodplain_reaches_ft : sequence of (from_ft, to_ft), optional
        Reaches of the line in land designated floodplain, ft from the upstream end.
    disturbed_sqft : float, optional
        The proposed disturbance inside the drainageway area, sq ft (C, D, E).

    Returns
    -------
    DrainagewayResult

    Raises
    ------
    RuleInputError
        Unknown kind, a negative or non-finite number, two tributary inputs at once, stations
        not increasing, a tributary area falling downstream, a station past the line's end.

    >>> drainageway("swale", 200, tributary_area_ac=5.0).min_open_space_sqft
    7500.0
    >>> drainageway("stream", 100, mapped_stream=False, tributary_area_ac=5.0).total_width_ft
    50.0
    """
    m: dict[str, Any] = {"kind": kind, "length_ft": length_ft, "tributary_area_ac": tributary_area_ac,
                         "mapped_stream": mapped_stream, "channel_width_ft": channel_width_ft,
                         "threshold_station_ft": threshold_station_ft, "disturbed_sqft": disturbed_sqft}
    if tributary_stations is not None:
        m["tributary_stations"] = [{"station_ft": s, "tributary_area_ac": a} for s, a in tributary_stations]
    if floodplain_reaches_ft is not None:
        m["floodplain_reaches_ft"] = [list(r) for r in floodplain_reaches_ft]
    return _drainageway(m, "")


#: ``drainageway`` from the contract's ``input``.
drainageway_from_request = from_request(_drainageway, "drainageway")
