"""The site's NR 151.125 facts on the Records tab's Site form (no Qt): the in-fill
development area of (4)(b) and each stream's "mapped on" of (1)(b), correctable for an
existing visit through the same undoable edit as the district and use.

Fields (:class:`fieldapp.app.editing.FieldSpec`):

- ``infill_area_ac`` (number, acres; empty: no in-fill question) and
  ``infill_within_development`` (yes / no / not checked): NR 151.125(4)(b) decides from them;
- for the i-th water feature that is a stream: ``mapped_on:<i>`` (USGS 7.5-minute map,
  county soil survey map, on neither map, not checked), ``map_name:<i>`` (the sheet's name)
  and ``drainage_area_ac:<i>`` (a channel on neither map: its drainage area, acres,
  NR 151.125(1)(i)).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

__all__ = ["MAPPED_ON_CHOICES", "site_fact_fields", "site_fact_changes"]

#: The "mapped on" choices (value, words); None: not checked yet.
MAPPED_ON_CHOICES = [(None, "not checked"), ("usgs_7_5_minute", "USGS 7.5-minute map"),
                     ("county_soil_survey", "County soil survey map"), ("none", "On neither map")]


def _v(x: Any) -> Any:
    return getattr(x, "value", x)


def _streams(site: Any) -> list[tuple[int, Any]]:
    return [(i, w) for i, w in enumerate(site.water_features) if _v(w.type) == "stream"]


def site_fact_fields(site: Any, spec: Any) -> list[Any]:
    """The site's NR 151.125 fields (see the module docstring); ``spec`` is the
    :class:`~fieldapp.app.editing.FieldSpec` class (passed in: no import cycle)."""
    out = [spec("infill_area_ac", "In-fill development area", "number", site.infill_area_ac, "ac",
                tip="NR 151.125(4)(b): an in-fill area under 5 acres needs no protective area; empty: not in-fill"),
           spec("infill_within_development", "In-fill within existing development", "tristate",
                site.infill_within_development, tip="NR 151.125(4)(b)")]
    for i, w in _streams(site):
        out += [spec(f"mapped_on:{i}", f"{w.name}: mapped on", "choice", w.mapped_on,
                     choices=list(MAPPED_ON_CHOICES),
                     tip="NR 151.125(1)(b): 50 ft only for a stream on a USGS 7.5-minute or county soil survey map"),
                spec(f"map_name:{i}", f"{w.name}: map sheet", "text", w.map_name or "",
                     tip="The map's name, e.g. Decorah 1994 quadrangle, soil survey sheet 12"),
                spec(f"drainage_area_ac:{i}", f"{w.name}: drainage area (on neither map)", "number",
                     w.drainage_area_ac, "ac", tip="NR 151.125(1)(i): a channel on neither map")]
    return out


class SiteFactRefused(ValueError):
    """A combination of site facts that cannot be saved; the message is in field words."""


def site_fact_changes(site: Any, changed: dict[str, Any]) -> dict[str, Any]:
    """The :meth:`update_site` keywords for the changed NR 151.125 fields (removed from
    ``changed``); the other fields are left in ``changed``.

    Raises
    ------
    SiteFactRefused
        A map sheet typed with "not checked" or "on neither map", a drainage area with a map
        other than "on neither map" or below 0 acres, or "within existing development" answered without an
        in-fill area (in field words; nothing is changed).
    """
    kw: dict[str, Any] = {}
    for key in ("infill_area_ac", "infill_within_development"):
        if key in changed:
            kw[key] = changed.pop(key)
    if kw:
        area = kw.get("infill_area_ac", site.infill_area_ac)
        within = kw.get("infill_within_development", site.infill_within_development)
        if area is not None and not 0.0 <= area < 1e9:
            raise SiteFactRefused(f"In-fill development area must be 0 acres or more (not {area:g} ac)")
        if area is None and within is not None:
            raise SiteFactRefused("In-fill within existing development needs the in-fill development area (acres)")
    per: dict[int, dict[str, Any]] = {}
    for key in [k for k in changed if ":" in k]:
        name, _, index = key.partition(":")
        per.setdefault(int(index), {})[name] = changed.pop(key)
    if per:
        features = list(site.water_features)
        for i, new in per.items():
            w = features[i]
            mapped = new.get("mapped_on", w.mapped_on)
            sheet = str(new.get("map_name", w.map_name) or "").strip() or None
            acres = new.get("drainage_area_ac", w.drainage_area_ac)
            if sheet and mapped not in ("usgs_7_5_minute", "county_soil_survey"):
                raise SiteFactRefused(f"{w.name}: a map sheet needs the map it is on (USGS 7.5-minute or "
                                      "county soil survey)")
            if acres is not None and not 0.0 <= acres < 1e9:
                raise SiteFactRefused(f"{w.name}: the drainage area must be 0 acres or more (not {acres:g} ac)")
            if acres is not None and mapped != "none":
                raise SiteFactRefused(f"{w.name}: the drainage area is for a channel on neither map")
            features[i] = replace(w, mapped_on=mapped, map_name=sheet, drainage_area_ac=acres)
        kw["water_features"] = tuple(features)
    return kw
