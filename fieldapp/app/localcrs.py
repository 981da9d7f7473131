"""The coordinate systems an office near a site expects, offered by county from a fix.

A Wisconsin office works in WISCRS (one system per county, US survey feet) or State Plane in US
survey feet, not UTM metres. :func:`local_crs_choices` looks them up in PROJ's database (pyproj)
by area of use: every NAD83(2011) projected CRS whose area contains the position, the county
systems first, then the State Plane zone in US survey feet, the state-wide system, and the UTM
zone last. :func:`usual_crs` is the one offered by default: the county's WISCRS in US survey
feet where there is one, else None (the UTM zone, as before).

>>> [code for code, _ in local_crs_choices(43.07, -89.40)][:4]
['EPSG:7599', 'EPSG:7540', 'EPSG:6609', 'EPSG:6610']
>>> usual_crs(43.07, -89.40), usual_crs(45.52, -122.68)
('EPSG:7599', None)
"""

from __future__ import annotations

from functools import lru_cache

#: The datum realisation offered (the current one; older ones are found by name in the dialog).
DATUM = "NAD83(2011) / "


def _kind(name: str) -> tuple[int, str] | None:
    """(order, words) of a CRS name worth offering, None for one that is not."""
    short = name[len(DATUM):]
    if "WISCRS" in short:
        return (0 if "(ftUS)" in short else 1), "county system"
    if "(ftUS)" in short and "BLM" not in short:
        return 2, "State Plane, US survey feet"
    if "Transverse Mercator" in short:
        return 3, "state-wide"
    return None


@lru_cache(maxsize=32)
def local_crs_choices(lat_deg: float, lon_deg: float) -> tuple[tuple[str, str], ...]:
    """``(("EPSG:7599", "NAD83(2011) / WISCRS Dane (ftUS) — county system"), ...)`` for the
    position (WGS84 degrees): county systems in US survey feet, then in metres, the State
    Plane zone in US survey feet, the state-wide system, the UTM zone last; () outside every
    NAD83(2011) system and UTM."""
    from pyproj.aoi import AreaOfInterest
    from pyproj.database import query_crs_info
    from pyproj.enums import PJType

    found = query_crs_info(auth_name="EPSG", pj_types=PJType.PROJECTED_CRS, contains=True,
                           area_of_interest=AreaOfInterest(lon_deg, lat_deg, lon_deg, lat_deg))
    ranked = []
    for info in found:
        if info.deprecated or not info.name.startswith(DATUM):
            continue
        kind = _kind(info.name)
        if kind is not None:
            ranked.append((kind[0], info.name, f"EPSG:{info.code}", f"{info.name} — {kind[1]}"))
    out = [(code, words) for _o, _n, code, words in sorted(ranked)]
    try:
        from fieldapp.geo import SiteFrame

        utm = SiteFrame.for_position(lat_deg, lon_deg)
        if utm.srs_id:
            out.append((f"EPSG:{utm.srs_id}", f"{utm.name} — UTM zone (metres)"))
    except Exception:  # noqa: BLE001 - a polar position: no UTM zone
        pass
    return tuple(out)


def usual_crs(lat_deg: float, lon_deg: float) -> str | None:
    """The system offered by default at the position: its county's WISCRS in US survey feet,
    None where there is none (the dialog then offers the UTM zone, as before)."""
    for code, words in local_crs_choices(lat_deg, lon_deg):
        if "WISCRS" in words and "(ftUS)" in words:
            return code
    return None


__all__ = ["local_crs_choices", "usual_crs"]
