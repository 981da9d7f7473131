"""The data points behind each wetland boundary, and the wetland verdicts that cite them (no Qt).

A walked wetland boundary is *supported* when data points paired across it say so: a wetland
data point inside the boundary whose form determines wetland, and an upland data point outside
it whose form determines not wetland (Corps of Engineers Wetland Delineation Manual and the
Regional Supplements: the boundary is placed between paired data points, one in the wetland and
one in the upland). Inside / outside is read from the boundary's geometry, never from the
point's role alone. Support is judged along the boundary, stretch by stretch
(:mod:`fieldapp.checks.segments`): a pair speaks for the boundary near where the line between
its points crosses it, and the stretches no pair is near are listed by side and length ("the
north 200 ft of Wetland A has no pair").

:func:`support_checks` adds one ``wetland_support:<area uuid>`` row per wetland to the checks
(:class:`Derived`: worked out here, no rule request) and wraps the wetland's city size check
(``wetland:<area>``, Decorah resource protection, Wetlands B.3 names a field survey of plant
material as a source of the determination) and its NR 151.125 protective-area check
(``protective_area:<area>``; NR 151.125 measures from the delineated boundary) in
:class:`Cited`, so their verdicts name the data points that support the boundary.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from shapely.geometry import Point

from fieldapp.survey.datapoints import boundary_area
from fieldapp.survey.features import AreaFeature, DataPoint, Layer

from .segments import REACH_FT, SegmentSupport, ft_per_unit, segment_support

__all__ = ["Derived", "Cited", "Support", "support_of", "support_checks", "RULE"]

#: The rule id of the support rows (not a rule of the engine: worked out here).
RULE = "wetland.support"
CITATION = ("Corps of Engineers Wetland Delineation Manual (1987) and Regional Supplements"
            " (Northcentral and Northeast v2.0; Midwest v2.0): paired data points")


@dataclass(frozen=True)
class Derived:
    """A check worked out from the model, not by a rule request (:class:`fieldapp.checks.
    Checks` shows :meth:`result`, and has no request to send or attach)."""

    result_dict: dict[str, Any]

    def result(self) -> dict[str, Any]:
        return dict(self.result_dict)


class Cited(dict[str, Any]):
    """A rule request whose verdict cites the data points behind the boundary it measures
    (``data_points``: "DP-1 (wetland, inside)" ...; ``supported``: whether they support it).

    It *is* the request (a dict equal to it), so whoever reads :func:`requests_for_model`'s
    requests -- the report, ``fieldapp rules evaluate`` -- sees the rule request unchanged, and
    the rule's result is kept as the rule gave it (an attached request reproduces it);
    :class:`fieldapp.checks.Checks` keeps :meth:`words` beside it (``Check.cites``).
    """

    def __init__(self, request: dict[str, Any], data_points: tuple[str, ...], supported: bool,
                 part: str = "") -> None:
        super().__init__(request)
        self.data_points = data_points
        self.supported = supported
        self.part = part        # "200 of 800 ft" when the pairs support only part of the boundary

    def words(self) -> str:
        """``boundary supported by DP-1 (wetland, inside), DP-2 (upland, outside)``, or that
        it is not (with the points there are)."""
        pts = ", ".join(self.data_points)
        if self.supported and self.part:
            return f"boundary supported in part ({self.part}) by {pts}"
        if self.supported:
            return f"boundary supported by {pts}"
        return "boundary not supported by data points" + (f" ({pts})" if pts else "")


@dataclass(frozen=True)
class Support:
    """Whether a wetland boundary is supported (``status``: ``supported``, ``partial`` -- good
    pairs, but stretches of boundary none of them is near -- ``unpaired``, ``contradicted``),
    its data points in words, the problems found, and which stretches of the boundary the good
    pairs support (:mod:`fieldapp.checks.segments`; one per part of the wetland, none without
    a good pair or a site CRS)."""

    status: str
    points: tuple[str, ...]
    problems: tuple[str, ...]
    segments: tuple[SegmentSupport, ...] = ()

    @property
    def boundary_ft(self) -> float:
        """The outer boundary's ground length (ft), 0 when not worked out."""
        return sum(s.perimeter_ft for s in self.segments)

    @property
    def supported_ft(self) -> float:
        """How much of it (ft) the good pairs support."""
        return sum(s.supported_ft for s in self.segments)

    def gaps(self, label: str) -> str:
        """``the north 200 ft, the west 200 ft and the south 200 ft of Wetland A have no pair``
        ("" when every stretch has one)."""
        parts = [st.words() for seg in self.segments for st in seg.unsupported]
        if not parts:
            return ""
        listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
        return f"{listed} of {label} {'has' if len(parts) == 1 else 'have'} no pair"


def _side(area: AreaFeature, dp: DataPoint) -> str:
    return "inside" if area.geometry.covers(Point(dp.x, dp.y)) else "outside"


def _polygons(area: AreaFeature) -> list[Any]:
    g = area.geometry
    return list(getattr(g, "geoms", [g])) if g is not None and not g.is_empty else []


def support_of(model: Any, area: AreaFeature) -> Support:
    """The data points paired across ``area``'s boundary and what they say.

    ``contradicted``: a point stands on the wrong side for its role (a wetland point outside),
    or its form determines the other way (a wetland point whose form says not wetland), or it
    has no partner; ``unpaired``: no wetland and upland pair names this boundary yet (or their
    forms are not decided); ``supported``: a pair inside / outside, determined wetland /
    upland, and every stretch of the boundary near a good pair; ``partial``: good pairs, but
    stretches of the boundary none of them supports (:mod:`fieldapp.checks.segments`: the
    segment a pair's line crosses and 100 ft of boundary either side)."""
    mine = [dp for dp in model.features(Layer.DATA_POINT)
            if isinstance(dp, DataPoint) and dp.boundary_uuid is not None
            and (a := boundary_area(model, dp.boundary_uuid)) is not None and a.uuid == area.uuid]
    mine.sort(key=lambda d: d.name)
    words, problems = [], []
    good_pairs = 0
    good: list[tuple[tuple[float, float], tuple[float, float]]] = []
    undecided = []
    for dp in mine:
        side = _side(area, dp)
        role = dp.role.value
        words.append(f"{dp.name} ({role}, {side})")
        if (role == "wetland") != (side == "inside"):
            problems.append(f"{dp.name} is the {role} point but stands {side} the boundary")
        if dp.wetland is None:
            undecided.append(dp.name)
        elif dp.wetland != (role == "wetland"):
            problems.append(f"{dp.name}'s form says {'wetland' if dp.wetland else 'not wetland'}"
                            f" on the {role} side")
        partner = next((p for p in mine if p.uuid == dp.pair_uuid), None)
        if partner is None:
            problems.append(f"{dp.name} has no partner across this boundary")
        elif role == "wetland" and dp.wetland is True and partner.wetland is False \
                and side == "inside" and _side(area, partner) == "outside":
            good_pairs += 1
            good.append(((dp.x, dp.y), (partner.x, partner.y)))
    segments: tuple[SegmentSupport, ...] = ()
    if getattr(model, "has_frame", False) and good:
        segments = tuple(segment_support(p, good, ft_per_unit(model.frame, p)) for p in _polygons(area))
    if problems:
        return Support("contradicted", tuple(words), tuple(problems), segments)
    if good_pairs == 0:
        missing = ("no data points paired across it" if not mine else
                   f"forms not decided yet: {', '.join(undecided)}" if undecided else "no complete pair")
        return Support("unpaired", tuple(words), (missing,))
    if any(seg.unsupported for seg in segments):
        return Support("partial", tuple(words), (), segments)
    return Support("supported", tuple(words), (), segments)


def _stretch_lines(s: Support) -> list[str]:
    """Each unsupported stretch with where it runs along the boundary."""
    return [f"{st.words()} ({st.from_ft:,.0f} to {st.to_ft:,.0f} ft along the boundary from its first"
            " walked point)" for seg in s.segments for st in seg.unsupported]


def _result(area_words: str, s: Support) -> dict[str, Any]:
    base: dict[str, Any] = {"rule": RULE, "citation": CITATION, "interpretations": [],
                            "interpretation_text": {}, "data_points": list(s.points), "support": s.status}
    if s.segments:
        base.update(boundary_ft=round(s.boundary_ft, 1), supported_ft=round(s.supported_ft, 1),
                    unsupported_stretches=_stretch_lines(s),
                    support_reach=(f"a pair supports the boundary segment its points' line crosses and"
                                   f" {REACH_FT:,.0f} ft of boundary either side of the crossing"))
    if s.status == "supported":
        return {**base, "status": "determined",
                "summary": f"Supported by {', '.join(s.points)}"}
    if s.status == "partial":
        gaps = s.gaps(area_words)
        return {**base, "status": "needs_data",
                "summary": (f"Partly supported ({s.supported_ft:,.0f} of {s.boundary_ft:,.0f} ft) by"
                            f" {', '.join(s.points)}: {gaps}"),
                "next_step": f"place a wetland and upland pair across each stretch without one: {gaps}"}
    if s.status == "unpaired":
        return {**base, "status": "needs_data", "summary": f"Not supported: {s.problems[0]}",
                "next_step": (f"place a wetland data point inside {area_words} and an upland one outside,"
                              " fill in their forms and pair them with this boundary")}
    gaps = s.gaps(area_words)
    return {**base, "status": "needs_data", "summary": "Contradicted: " + "; ".join(s.problems)
            + (f"; {gaps}" if gaps else ""),
            "next_step": "check the boundary or the data points: " + "; ".join(s.problems)}


def support_checks(model: Any, requests: dict[str, Any],
                   check_name: Callable[[str, str, int], str]) -> dict[str, Any]:
    """The support row of each wetland area, and its ``wetland:`` / ``protective_area:``
    requests of ``requests`` wrapped in :class:`Cited` ({check id: (title, item)} to update
    ``requests`` with). ``check_name`` names a check as the others are named
    (:func:`fieldapp.checks.requests.check_name`: "Data points of wetland B")."""
    out: dict[str, Any] = {}
    n = 0
    for area in model.features(Layer.AREA):
        if not isinstance(area, AreaFeature) or area.kind.value != "wetland":
            continue
        n += 1
        label = area.label or f"wetland #{n}"
        s = support_of(model, area)
        out[f"wetland_support:{area.uuid}"] = (f"{check_name('Data points of wetland', area.label, n)}"
                                                " (delineation)", Derived(_result(label, s)))
        for key in (f"wetland:{area.uuid}", f"protective_area:{area.uuid}"):
            if key in requests and isinstance(requests[key][1], dict):
                title, req = requests[key]
                part = (f"{s.supported_ft:,.0f} of {s.boundary_ft:,.0f} ft" if s.status == "partial" else "")
                out[key] = (title, Cited(req, s.points, s.status in ("supported", "partial"), part))
    return out
