"""Where a visit's site is, in the words the rule sets' sentence uses (issue 35 item 16: New
visit and the report say which rule sets apply to *this* site).

The position is the visit's first recorded fix (its track keeps the WGS84 latitude and
longitude of every fix), or its first record with a geometry; the county comes from PROJ's database
(:func:`fieldapp.geo.wisconsin_place_words`).
"""

from __future__ import annotations

import math
from typing import Any

from fieldapp.geo import wisconsin_place_words
from fieldapp.rules.rulesets import OUTSIDE_WISCONSIN
from fieldapp.survey.features import Layer


def place_of(lat_deg: float, lon_deg: float) -> str:
    """``"Vernon County, Wisconsin"`` for a position in Wisconsin, else
    :data:`fieldapp.rules.rulesets.OUTSIDE_WISCONSIN`.

    >>> place_of(43.592, -90.642), place_of(43.3035, -91.786)
    ('Vernon County, Wisconsin', 'outside Wisconsin')
    """
    return wisconsin_place_words(lat_deg, lon_deg) or OUTSIDE_WISCONSIN


def site_place(visit: Any) -> str | None:
    """Where ``visit``'s site is: :func:`place_of` at its first fix with a position, else at
    its first OHWM point, tree, area, line or note (through the site CRS); None when it holds no
    position yet."""
    cols = visit.track_log.columns()
    for lat, lon in zip(cols["lat_deg"], cols["lon_deg"], strict=True):
        if math.isfinite(lat) and math.isfinite(lon):
            return place_of(float(lat), float(lon))
    if not visit.has_frame:
        return None
    for layer in (Layer.OHWM_POINT, Layer.TREE, Layer.AREA, Layer.LINE, Layer.NOTE):
        for rec in visit.features(layer):
            geom = getattr(rec, "geometry", None)
            if geom is None or geom.is_empty:
                continue
            pt = geom.representative_point()
            lon, lat = visit.frame.to_lonlat(pt.x, pt.y)
            return place_of(float(lat), float(lon))
    return None


__all__ = ["place_of", "site_place"]
