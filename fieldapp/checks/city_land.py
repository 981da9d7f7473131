"""Check builders for the city chapter's land-wide provisions (issue 29, no Qt):
``resources.overlap`` (General D) and ``development_area.limit`` (Woodlands D, D.1, D.4).

Both read the recorded polygons in site feet (as :func:`fieldapp.checks.requests.development_area_checks`):

- the resources: ordinance wetlands (their ``wetland.size`` verdict), woodland stands with
  their class (mature / young), the drainageway strips (each drainageway line buffered by its
  rule's ``half_width_ft`` each side, flat at the ends: "on either side of ... the centerline"),
  and the areas drawn as Sr / SsF land over 30 % (area kind ``steep_soil``);
- the parcel (area kind ``parcel``), its rights-of-way (``right_of_way``) and the land disturbed
  by construction (``disturbed``, ``foundation``, ``drive``, ``parking``, ``septic_field``,
  ``utility_trench`` areas).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import shapely

from fieldapp.checks.requests import Requests, drainageway_checks, wetland_size_input
from fieldapp.checks.siteft import ring_ft as _ring_ft
from fieldapp.checks.siteft import value_of as _v
from fieldapp.rules import evaluate
from fieldapp.survey.features import Layer

__all__ = ["city_land_checks", "resources_input", "development_limit_input"]

#: Area kinds that are land disturbed by construction (Woodlands D).
DISTURBED_KINDS = ("disturbed", "foundation", "drive", "parking", "septic_field", "utility_trench")


def _stand_classes(model: Any, areas: Sequence[Any],
                   woodland_class: Callable[[dict[str, Any]], str | None] | None,
                   built: Requests | None = None) -> dict[str, str]:
    """{stand uuid: "mature" | "young"} from the stands' woodland checks (those already
    ``built`` by :func:`~fieldapp.checks.requests.requests_for_model`, else built here)."""
    if woodland_class is None:
        return {}
    from fieldapp.checks.requests import woodland_checks

    out = {}
    for check_id, (_title, req) in (built if built is not None else woodland_checks(model, areas)).items():
        if not check_id.startswith("woodland:"):
            continue
        request = req if isinstance(req, dict) else getattr(req, "request", None)
        cls = woodland_class(request) if isinstance(request, dict) else None
        if cls in ("mature", "young"):
            out[check_id.split(":", 1)[1]] = cls
    return out


def _drainageway_strips(model: Any) -> list[tuple[str, list[list[float]]]]:
    """(label, ring in site ft) of each line the drainageway rule finds a drainageway."""
    out = []
    lines = {ln.uuid: ln for ln in model.features(Layer.LINE)}
    f = model.frame
    for check_id, (_title, req) in drainageway_checks(model).items():
        if not isinstance(req, dict):
            continue
        res = evaluate(req)
        if res.get("status") != "determined" or not res.get("is_drainageway"):
            continue
        line = lines[check_id.split(":", 1)[1]]
        ln = shapely.LineString([(f.to_ft(x), f.to_ft(y)) for x, y in line.geometry.coords])
        strip = ln.buffer(float(res["half_width_ft"]), cap_style="flat")
        if isinstance(strip, shapely.Polygon) and not strip.is_empty:
            out.append((line.label or "drainageway", [[float(x), float(y)] for x, y in strip.exterior.coords[:-1]]))
    return out


def resources_input(model: Any, areas: Sequence[Any],
                    woodland_class: Callable[[dict[str, Any]], str | None] | None = None,
                    classes: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """The ``resources`` of a ``resources.overlap`` request for the visit (see the module);
    ``classes`` the stands' classes when known ({uuid: class})."""
    res: list[dict[str, Any]] = []
    for a in areas:
        kind = _v(a.kind)
        if kind == "wetland":
            verdict = evaluate({"rule": "wetland.size", "input": wetland_size_input(model, a.uuid)})
            if verdict.get("is_ordinance_wetland"):
                res.append({"kind": "wetland", "label": a.label or "wetland",
                            "polygon_ft": _ring_ft(model, a.geometry)})
        elif kind == "steep_soil":
            res.append({"kind": "steep_slope", "label": a.label or "Sr / SsF land",
                        "polygon_ft": _ring_ft(model, a.geometry)})
    classes = classes if classes is not None else _stand_classes(model, areas, woodland_class)
    for a in areas:
        if a.uuid in classes:
            res.append({"kind": f"woodland_{classes[a.uuid]}", "label": a.label or "woodland stand",
                        "polygon_ft": _ring_ft(model, a.geometry)})
    res += [{"kind": "drainageway", "label": label, "polygon_ft": ring} for label, ring in _drainageway_strips(model)]
    return res


def development_limit_input(model: Any, areas: Sequence[Any], parcel: Any,
                            woodland_class: Callable[[dict[str, Any]], str | None] | None = None,
                            classes: dict[str, str] | None = None) -> dict[str, Any]:
    """The ``input`` of a ``development_area.limit`` request for ``parcel`` (an area feature)."""
    classes = classes if classes is not None else _stand_classes(model, areas, woodland_class)
    return {
        "parcel_ft": _ring_ft(model, parcel.geometry),
        "rights_of_way": [_ring_ft(model, a.geometry) for a in areas if _v(a.kind) == "right_of_way"],
        "disturbed": [_ring_ft(model, a.geometry) for a in areas if _v(a.kind) in DISTURBED_KINDS],
        "woodlands": [{"class": classes[a.uuid], "polygon_ft": _ring_ft(model, a.geometry)}
                      for a in areas if a.uuid in classes],
    }


def city_land_checks(model: Any, areas: Sequence[Any],
                     woodland_class: Callable[[dict[str, Any]], str | None] | None = None,
                     built: Requests | None = None) -> Requests:
    """``resources_overlap`` when two or more resources are recorded, and
    ``development_limit:<parcel>`` for each parcel drawn (``built``: the requests already built
    for the visit, whose woodland checks give the stands' classes)."""
    out: Requests = {}
    classes = _stand_classes(model, areas, woodland_class, built)
    resources = resources_input(model, areas, classes=classes)
    if len(resources) > 1:
        out["resources_overlap"] = ("Overlapping resources (city, General D)",
                                    {"rule": "resources.overlap", "input": {"resources": resources}})
    parcels = [a for a in areas if _v(a.kind) == "parcel"]
    for n, p in enumerate(parcels, start=1):
        name = p.label or (f"parcel {n}" if len(parcels) > 1 else "parcel")
        out[f"development_limit:{p.uuid}"] = (
            f"Development area limit, {name} (city, Woodlands D)",
            {"rule": "development_area.limit", "input": development_limit_input(model, areas, p, classes=classes)})
    return out
