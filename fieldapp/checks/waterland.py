"""Erosion control C from the recorded geometry (no Qt): which stream-bank or shoreline land a
disturbed (graded) area reaches, besides a drainageway (:mod:`fieldapp.checks.citychecks`).

Decorah resource protection, Erosion control C: "Whenever any land located in a drainageway,
stream, stream channel, stream bank, lake shoreline or body of water is disturbed", a plan is
required whatever the B quantities. Two lands are found from what the crew recorded:

- **the surveyed bank** (``stream_bank``): the land between the OHWM and the NR 341.035 bank
  line, i.e. each transect from its origin (on the OHWM) out to its bank (``bank_ft``; while
  the bank is not reached yet, ``bank_ft_at_least``: that much is bank already) and, between
  two such transects next to each other along the OHWM, the quadrilateral joining their OHWM
  ends and bank points (reading: the bank line is straight between transects, as the map draws
  it);
- **the shoreline strip** (``stream_bank`` along a stream, ``lake_shoreline`` along a lake):
  the NR 151.125 protective area of the site's water features (the ``protective_area``
  verdict's width) measured landward from every recorded OHWM line (reading: the protective
  area of the water is the shoreline area of Erosion control C). The line's water feature, by
  name, gives the kind; a line naming none takes ``lake_shoreline`` when every site water
  feature is a lake, else ``stream_bank``. Wetland polygons' protective areas are not C's
  land (C names no wetland; Wetlands C-E govern a disturbed wetland).

"Reaches" means an overlap of some area (touching an edge only does not count).
"""

from __future__ import annotations

from typing import Any

import shapely
from shapely.geometry import LineString, Polygon

from fieldapp.checks.siteft import value_of as _v
from fieldapp.survey.features import Layer

__all__ = ["bank_zone", "shoreline_strips", "water_land_reached"]



def _result(out: dict[str, tuple[str, Any]], key: str) -> dict[str, Any] | None:
    from fieldapp.rules import evaluate

    req = out[key][1] if key in out else None
    if not isinstance(req, dict):
        return None
    res = evaluate(req)
    return res if isinstance(res, dict) else None


def bank_zone(model: Any, out: dict[str, tuple[str, Any]]) -> tuple[Any, list[str]] | None:
    """(geometry in the site CRS, transect labels) of the surveyed bank (see the module
    docstring), from the ``bank:<transect>`` requests in ``out``; None without a bank distance."""
    ends: list[tuple[Any, tuple[float, float], tuple[float, float]]] = []
    for t in model.features(Layer.TRANSECT):
        res = _result(out, f"bank:{t.uuid}")
        if res is None:
            continue
        d = res.get("bank_ft") if res.get("bank_ft") is not None else res.get("bank_ft_at_least")
        if d is None or float(d) <= 0.0:
            continue
        ends.append((t, (float(t.origin_x), float(t.origin_y)), model.point_on_transect(t, float(d))))
    if not ends:
        return None
    ohwm = [ln.geometry for ln in model.features(Layer.OHWM_LINE) if ln.geometry is not None]
    if ohwm:       # in order along the nearest OHWM line
        def along(e: Any) -> tuple[int, float]:
            pt = shapely.Point(e[1])
            i = min(range(len(ohwm)), key=lambda k: ohwm[k].distance(pt))
            return i, float(ohwm[i].project(pt))
        ends.sort(key=along)
    parts: list[Any] = [LineString([o, b]) for _t, o, b in ends]
    for (_t0, o0, b0), (_t1, o1, b1) in zip(ends, ends[1:], strict=False):
        quad = shapely.make_valid(Polygon([o0, b0, b1, o1]))
        if not quad.is_empty:
            parts.append(quad)
    return shapely.union_all(parts), [t.label or "transect" for t, _o, _b in ends]


def shoreline_strips(model: Any, out: dict[str, tuple[str, Any]]) -> list[tuple[str, str, Any]]:
    """[(kind, water's name, strip geometry)] along each recorded OHWM line: the protective
    area's width (``protective_area`` verdict) landward and waterward of it."""
    res = _result(out, "protective_area")
    width = res.get("width_ft") if res else None
    if not width:
        return []
    features = {w.name: _v(w.type) for w in getattr(model.site, "water_features", ())}
    all_lakes = bool(features) and all(t == "lake" for t in features.values())
    strips = []
    for ln in model.features(Layer.OHWM_LINE):
        if ln.geometry is None or ln.geometry.length <= 0:
            continue
        kind_of = features.get(ln.water_feature or "")
        lake = kind_of == "lake" if kind_of is not None else all_lakes
        name = ln.water_feature or ln.label or "the OHWM"
        strips.append(("lake_shoreline" if lake else "stream_bank", name,
                       ln.geometry.buffer(model.frame.from_ground_ft(float(width), ln.geometry), quad_segs=8)))
    return strips


def _reaches(geom: Any, land: Any) -> bool:
    """True when the interiors meet (an edge or a corner touching only is not reaching)."""
    return bool(shapely.relate_pattern(geom, land, "T********"))


def water_land_reached(model: Any, disturbed: list[Any],
                       out: dict[str, tuple[str, Any]]) -> list[tuple[str, str]]:
    """[(kind, words)] of the Erosion control C land the ``disturbed`` areas reach besides a
    drainageway, in the order found: ``("stream_bank", "Pad in the surveyed bank (T1, T2)")``,
    ``("lake_shoreline", "Pad in the shoreline area of Mill Pond")``."""
    found: list[tuple[str, str]] = []
    if not disturbed:           # nothing disturbed: no bank or strip worked out
        return found
    zone = bank_zone(model, out)
    strips = shoreline_strips(model, out)
    for a in disturbed:
        name = a.label or "a disturbed area"
        if zone is not None and _reaches(a.geometry, zone[0]):
            found.append(("stream_bank", f"{name} in the surveyed bank ({', '.join(zone[1])})"))
        for kind, water, strip in strips:
            if _reaches(a.geometry, strip):
                found.append((kind, f"{name} in the shoreline area of {water}"))
    return found
