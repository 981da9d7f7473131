"""The field words of a swale's tributary stations and the site's zoning (store schema 8).

``LineFeature.tributary_stations`` is text the crew types, ``"0:2; 200:6"``: stations down the
line (ft from its first point, its upstream end) with the tributary area there (acres), for
Drainageways A.2 (only the reach downstream of the 5-acre point is a drainageway).
``Site.land_use`` is one of :data:`LAND_USES` (General A; Erosion control F).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal

import shapely
from shapely.ops import substring

from .errors import InvalidValue

__all__ = ["LAND_USES", "drainageway_strip", "format_tributary_stations", "parse_tributary_stations"]

#: The site uses the form offers (the ``city.scope`` rule's ``use``).
LAND_USES = ("agricultural", "residential", "nonresidential", "other")


def parse_tributary_stations(text: str | None) -> tuple[tuple[float, float], ...]:
    """``"0:2; 200:6"`` -> ((0.0, 2.0), (200.0, 6.0)); empty or None -> ().

    Pairs are ``ft:ac`` separated by ``;`` (or new lines); stations must increase and areas must
    not fall downstream.

    Raises
    ------
    InvalidValue
        (name ``tributary_stations``) a pair that is not two numbers, a negative or non-finite
        number, stations not increasing, an area falling downstream.

    >>> parse_tributary_stations("0:2; 200 : 6")
    ((0.0, 2.0), (200.0, 6.0))
    """
    out: list[tuple[float, float]] = []
    for part in (text or "").replace("\n", ";").split(";"):
        if not part.strip():
            continue
        bits = part.split(":")
        try:
            if len(bits) != 2:
                raise ValueError
            ft, ac = float(bits[0].replace(",", "")), float(bits[1].replace(",", ""))
        except ValueError:
            raise InvalidValue("tributary_stations",
                               f"{part.strip()!r} is not station ft : area ac (e.g. 200:6)") from None
        if not (math.isfinite(ft) and math.isfinite(ac)) or ft < 0 or ac < 0:
            raise InvalidValue("tributary_stations", f"{part.strip()!r}: station and area must be 0 or more")
        if out and ft <= out[-1][0]:
            raise InvalidValue("tributary_stations",
                               f"stations must increase down the swale ({ft:g} ft after {out[-1][0]:g} ft)")
        if out and ac < out[-1][1]:
            raise InvalidValue("tributary_stations",
                               f"the tributary area cannot fall downstream ({ac:g} ac at {ft:g} ft after "
                               f"{out[-1][1]:g} ac)")
        out.append((ft, ac))
    return tuple(out)


def format_tributary_stations(stations: tuple[tuple[float, float], ...]) -> str | None:
    """The stored text of parsed stations (None when there are none).

    >>> format_tributary_stations(((0.0, 2.0), (200.0, 6.5)))
    '0:2; 200:6.5'
    """
    return "; ".join(f"{ft:g}:{ac:g}" for ft, ac in stations) or None


def drainageway_strip(line: Any, frame: Any, half_ft: float, reaches_ft: Sequence[Sequence[float]] | None = None,
                      *, cap_style: Literal["round", "flat"] = "round") -> Any:
    """The drainageway land beside ``line`` (site CRS): ``half_ft`` each side of the reaches the
    ``drainageway`` rule counted (``reaches_ft``, ground ft from the line's first point; None or
    empty: the whole line), for the map, the stake-out and the export.

    A reach list covering the whole line gives the line's own buffer (as before the rule
    listed reaches); otherwise the union of the reaches' buffers (``cap_style`` at their ends).
    """
    width = float(frame.from_ground_ft(half_ft, line))
    length = float(frame.length_ft(line))
    whole = not reaches_ft or (len(reaches_ft) == 1 and reaches_ft[0][0] <= 1e-6
                               and reaches_ft[0][1] >= length - 1e-6)
    if whole or not reaches_ft or length <= 0.0:
        return line.buffer(width, quad_segs=8, cap_style=cap_style)
    scale = line.length / length
    parts = [substring(line, a * scale, b * scale).buffer(width, quad_segs=8, cap_style=cap_style)
             for a, b in reaches_ft if b > a]
    return shapely.union_all(parts) if parts else shapely.Polygon()
