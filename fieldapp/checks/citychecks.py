"""Issue 29's city-chapter inputs on the checks built from the model (no Qt).

:func:`add_city_inputs` completes the requests of :func:`fieldapp.checks.requests.requests_for_model`
with what the survey model now holds for the city chapter:

- ``drainageway:<line>``: the tributary stations typed for the line (Drainageways A.2, the
  5-acre point), the centreline, and the floodplain and disturbed polygons drawn (A.1/A.2
  floodplain exception; C 75 % open space; D, E checklist) in site feet;
- ``wetland:<area>``: the disturbed area drawn over the wetland, ground sq ft (Wetlands C, D, E);
- ``scope`` (the site's zoning district and use, General A) on every city standard;
- ``city_scope``: the scope check itself, once a district or a use is entered;
- ``erosion_plan``: when a disturbed area reaches a drainageway, the surveyed bank or the
  shoreline area of a recorded water (Erosion control C, :mod:`fieldapp.checks.waterland`;
  the title names the land reached), or the site's use is agricultural (F).
"""

from __future__ import annotations

from typing import Any

import shapely

from fieldapp.checks.siteft import line_ft as _line_ft
from fieldapp.checks.siteft import ring_ft as _ring_ft
from fieldapp.checks.siteft import value_of as _v
from fieldapp.checks.waterland import water_land_reached
from fieldapp.survey.drainage import parse_tributary_stations
from fieldapp.survey.errors import InvalidValue
from fieldapp.survey.features import Layer

__all__ = ["CITY_STANDARD_PREFIXES", "add_city_inputs", "scope_input"]

#: Check ids (prefixes) of the city standards that take ``scope`` (General A).
CITY_STANDARD_PREFIXES = ("drainageway:", "wetland:", "mitigation:", "development_area", "erosion_plan")


def scope_input(site: Any) -> dict[str, Any] | None:
    """``{"district", "use"}`` from the site (None when neither is entered)."""
    district = getattr(site, "zoning_district", None)
    use = getattr(site, "land_use", None)
    if district is None and use is None:
        return None
    return {"district": district, "use": use}





def add_city_inputs(model: Any, areas: Any, out: dict[str, tuple[str, Any]]) -> dict[str, str]:
    """Complete ``out`` (in place) with the city-chapter inputs above; see the module docstring.

    Returns
    -------
    dict
        {check id: next step} of the drainageways whose typed tributary stations cannot be
        read (the caller makes them checks awaiting data).
    """
    unreadable: dict[str, str] = {}
    from fieldapp.rules import evaluate

    floodplains = [_ring_ft(model, a.geometry) for a in areas if _v(a.kind) == "floodplain"]
    disturbed_areas = [a for a in areas if _v(a.kind) == "disturbed"]
    disturbed = [_ring_ft(model, a.geometry) for a in disturbed_areas]
    scope = scope_input(model.site)
    reaches_drainageway = False
    for line in model.features(Layer.LINE):
        key = f"drainageway:{line.uuid}"
        if key not in out or not isinstance(out[key][1], dict):
            continue
        title, req = out[key]
        assert isinstance(req, dict)
        inp = req["input"]
        try:
            stations = parse_tributary_stations(getattr(line, "tributary_stations", None))
        except InvalidValue as exc:
            unreadable[key] = f"correct the tributary stations of the line: {exc}"
            continue
        if stations:
            inp.pop("tributary_area_ac", None)
            inp["tributary_stations"] = [{"station_ft": s, "tributary_area_ac": a} for s, a in stations]
        if floodplains or disturbed:
            inp["centerline"] = _line_ft(model, line.geometry)
        if floodplains:
            inp["floodplain"] = floodplains
        if disturbed:
            inp["disturbed"] = disturbed
            res = evaluate(req)
            if res.get("is_drainageway") and (res.get("disturbed_sqft") or 0.0) > 0.0:
                reaches_drainageway = True
    if disturbed_areas:
        union = shapely.union_all([a.geometry for a in disturbed_areas])
        for a in areas:
            key = f"wetland:{a.uuid}"
            req_w = out[key][1] if key in out else None
            if _v(a.kind) == "wetland" and isinstance(req_w, dict):
                req_w["input"]["disturbed_sqft"] = model.frame.area_sqft(a.geometry.intersection(union))
    agricultural = getattr(model.site, "land_use", None) == "agricultural"
    water_land = ([("drainageway", "a disturbed area in a drainageway")] if reaches_drainageway else []) \
        + water_land_reached(model, disturbed_areas, out)
    if water_land or agricultural:
        inp_e: dict[str, Any] = {"cut_fill_volume_cuyd": None, "max_fill_depth_ft": None,
                                 "max_excavation_depth_ft": None, "cut_fill_area_sqft": None,
                                 "exposed_soil_sqft": None}
        if water_land:
            inp_e["water_land_disturbed"] = list(dict.fromkeys(k for k, _w in water_land))
        if agricultural:
            inp_e["agricultural_use"] = True
        reached = "; ".join(w for k, w in water_land if k != "drainageway")
        out["erosion_plan"] = ("Erosion control plan (city)" + (f": {reached}" if reached else ""),
                               {"rule": "erosion_plan", "input": inp_e})
    if scope is not None:
        for key, (_title, req) in out.items():
            held = getattr(req, "request", req)       # a provisional check holds its request
            if key.startswith(CITY_STANDARD_PREFIXES) and isinstance(held, dict) and "input" in held:
                held["input"]["scope"] = dict(scope)
        out["city_scope"] = ("Chapter scope, district and use (city)", {"rule": "city.scope", "input": dict(scope)})
    return unreadable
