"""Recorded geometry in site feet for rule requests, shared by the request builders
(:mod:`fieldapp.checks.requests`, :mod:`fieldapp.checks.citychecks`, :mod:`fieldapp.checks.city_land`,
:mod:`fieldapp.checks.waterland`): rings and lines in grid feet of the site's foot
(``model.frame.to_ft``), and an enum's value."""

from __future__ import annotations

from typing import Any

__all__ = ["line_ft", "ring_ft", "value_of"]


def value_of(x: Any) -> Any:
    """An enum member's ``value`` (a kind, a type), anything else as it is."""
    return getattr(x, "value", x)


def ring_ft(model: Any, geometry: Any) -> list[list[float]]:
    """The exterior ring of a polygon (of a MultiPolygon, its largest part) in site feet, as
    ``[[x, y], ...]`` without the closing vertex."""
    geom = geometry
    if getattr(geom, "geom_type", "") == "MultiPolygon":
        geom = max(geom.geoms, key=lambda g: g.area)
    f = model.frame
    return [[float(f.to_ft(x)), float(f.to_ft(y))] for x, y in list(geom.exterior.coords)[:-1]]


def line_ft(model: Any, geometry: Any) -> list[list[float]]:
    """A LineString's vertices in site feet, as ``[[x, y], ...]``."""
    f = model.frame
    return [[float(f.to_ft(x)), float(f.to_ft(y))] for x, y in geometry.coords]
