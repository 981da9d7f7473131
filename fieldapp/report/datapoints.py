"""The visit's wetland determination data points as the report's data-form pages (no Qt).

:func:`data_form_pages` turns each :class:`~fieldapp.survey.features.DataPoint` of a visit
into the pure :class:`~fieldapp.report.wetland_page.DataFormPage` that
:func:`~fieldapp.report.wetland_page.data_form_story` lays out: the stored form (``form_json``),
the determination the rules reach from it now (so the page and the rules never disagree; a
form the rules refuse prints with the reason), and words for the point's position (latitude /
longitude WGS 84 and the site CRS), fix, pairing and boundary, with how much of that boundary
the pairs support and the stretches without a pair (:mod:`fieldapp.checks.segments`). Pages come in the order of the
points' names ("DP-2" before "DP-10").

The report's own helpers (its natural sort, fix-quality words, CRS unit symbol) are passed in
by :func:`fieldapp.report.content.gather`, so this module does not import ``content`` (which
imports it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from fieldapp.checks.support import support_of
from fieldapp.geo import Foot
from fieldapp.rules.wetland_form import FormError, determine
from fieldapp.survey.datapoints import boundary_area, form_of
from fieldapp.survey.features import DataPoint, Layer
from fieldapp.survey.visit import Visit

from .wetland_page import DataFormPage

__all__ = ["data_form_pages", "position_words"]


def _value(v: Any) -> Any:
    return getattr(v, "value", v)


def position_words(visit: Visit, dp: DataPoint, quality_words: Mapping[int, str], crs_unit: str) -> str:
    """Where ``dp`` stands, in words: latitude / longitude (WGS 84, 6 decimals) and the site CRS
    coordinates in ``crs_unit``, then how it was placed (the fix's quality in ``quality_words``,
    HDOP, horizontal accuracy in the report's foot: ftUS at a US survey foot CRS, else ft)."""
    parts = []
    if visit.has_frame:
        frame = visit.frame
        lon, lat = (float(v) for v in frame.to_lonlat(dp.x, dp.y))
        parts.append(f"{abs(lat):.6f} {'N' if lat >= 0 else 'S'}, {abs(lon):.6f} {'E' if lon >= 0 else 'W'}")
        parts.append(f"E {dp.x:,.2f}, N {dp.y:,.2f} {crs_unit} (site CRS)")
    else:
        parts.append(f"x {dp.x:,.2f}, y {dp.y:,.2f} (no site CRS yet)")
    if dp.quality is not None:
        fix = f"GNSS fix {dp.quality} {quality_words.get(dp.quality, '')}".strip()
        if dp.hdop is not None:
            fix += f", HDOP {dp.hdop:.1f}"
        if dp.h_accuracy_m is not None:     # in the report's foot, as its GNSS table
            foot = visit.frame.foot if visit.has_frame else Foot.INTERNATIONAL
            fix += f", ±{dp.h_accuracy_m / foot.metres:.3f} {'ftUS' if foot is Foot.US_SURVEY else 'ft'}"
        parts.append(fix)
    else:
        parts.append("placed on the map")
    return "; ".join(parts)


def _boundary_support(visit: Visit, area: Any, label: str) -> str:
    """How much of ``area``'s boundary its data point pairs support, in words
    (:func:`fieldapp.checks.support.support_of`, per stretch: :mod:`fieldapp.checks.segments`):
    ``boundary supported 202 of 801 ft by its pairs; the north 200 ft ... of Wetland A have no
    pair``, or what contradicts it."""
    s = support_of(visit, area)
    if s.status == "contradicted":
        gaps = s.gaps(label)
        return "boundary contradicted: " + "; ".join(s.problems) + (f"; {gaps}" if gaps else "")
    if s.status == "unpaired":
        return f"boundary not supported yet: {s.problems[0]}"
    if s.status == "partial":
        return f"boundary supported {s.supported_ft:,.0f} of {s.boundary_ft:,.0f} ft by its pairs; {s.gaps(label)}"
    return f"all {s.boundary_ft:,.0f} ft of the boundary supported by its pairs"


def _pairing(visit: Visit, dp: DataPoint, names: dict[str, str]) -> str:
    words = []
    if dp.pair_uuid:
        words.append(f"paired with {names.get(dp.pair_uuid, 'a deleted data point')}")
    area = boundary_area(visit, dp.boundary_uuid)
    if area is not None:
        label = area.label or "the wetland"
        words.append(f"supports the boundary of {label}")
        words.append(_boundary_support(visit, area, label))
    elif dp.boundary_uuid:
        words.append("its boundary is no longer in the visit")
    return "; ".join(words)


def data_form_pages(visit: Visit, *, order_key: Callable[[str], Any], quality_words: Mapping[int, str],
                    crs_unit: str) -> list[DataFormPage]:
    """One :class:`DataFormPage` per data point of ``visit``, by ``order_key`` of the names;
    ``quality_words`` name GGA fix qualities, ``crs_unit`` is the site CRS's unit symbol."""
    points: list[DataPoint] = sorted(visit.features(Layer.DATA_POINT), key=lambda d: order_key(d.name))
    names = {d.uuid: d.name for d in points}
    site = visit.site
    pages = []
    for dp in points:
        form = form_of(dp)
        form.setdefault("plot", dp.name)
        form.setdefault("region", _value(dp.region))
        try:
            det, problem = determine(form), ""
        except FormError as err:
            det, problem = None, str(err)
        pages.append(DataFormPage(
            name=dp.name, form=form, determination=det, role=_value(dp.role), site=site.name,
            date=site.visit_date.isoformat(), investigators=", ".join(site.crew),
            position=position_words(visit, dp, quality_words, crs_unit), pairing=_pairing(visit, dp, names),
            notes=dp.notes, problem=problem))
    return pages
