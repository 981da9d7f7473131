"""Builds ``scenarios/demo.json``: a stream bank, a wooded stand and a small wetland on the
Kickapoo River north of La Farge, Vernon County, Wisconsin
(``python -m devices.sim.demo_scenario > demo.json``).

Why there: the app checks Wisconsin's sections (NR 341.035, NR 151.125), so the demo lies in
Wisconsin (it lay on the Upper Iowa River in Iowa until issue 35). The Kickapoo, in the
Driftless Area, has what the layout needs on one reach: a meandering river whose channel runs
toward every point of the compass (so an east-north-east reach, 80 deg, is one of its own), a
broad floodplain with wetlands, and wooded slopes rising from it (the Kickapoo Valley Reserve,
between La Farge and Ontario). Vernon County keeps UTM zone 15 (west of 90 deg W); its county
system, WISCRS Vernon (US survey feet, EPSG:7637), is what *Automatic* picks from the first fix.
The origin is a scenario position on the valley floor, not a surveyed point of the channel; the
demo treats the reach as not a priority navigable waterway (that designation is the DNR's,
NR 1.05, for a crew to look up, and the demo claims it for no real reach).

Local layout in international feet from the transect origin on the OHWM: ``along`` is landward
on the transect azimuth (350 deg), ``offset`` is along the river (80 deg, downstream to the
east). Positions become WGS 84 latitude/longitude with :class:`pyproj.Geod`.
"""

from __future__ import annotations

import json
import math
from typing import Any

from pyproj import Geod

ORIGIN = (43.59200, -90.64200)  # lat, lon: OHWM on the north bank, north of La Farge
TRANSECT_AZIMUTH_DEG = 350.0
RIVER_AZIMUTH_DEG = 80.0
FT = 0.3048
_GEOD = Geod(ellps="WGS84")

PROFILE_FT = [[0, 0.0], [40, 1.6], [80, 8.8], [120, 16.8], [180, 19.8], [250, 21.9]]
"""(distance from OHWM, elevation) ft: 4 % to 40 ft, 18 % to 80, 20 % to 120, 5 % to 180,
3 % to 250."""
SITE_NOTES = (
    "Demo site on the Kickapoo River north of La Farge, Vernon County, Wisconsin: the state"
    " sections (NR 341.035, NR 151.125) apply here. The local chapter checked is the City of"
    " Decorah's resource protection chapter (Winneshiek County, Iowa; Ord. 952, 1993), chosen"
    " for the demo so that its verdicts can be shown; it is not the law in Vernon County.")
"""The demo visit's site notes (``site.notes`` of a new ``--simulate`` visit, printed in the
report): which rule sets the demo checks here and why."""
STATIONS_FT = [0, 20, 40, 60, 80, 100, 120, 150, 180, 215, 250]

SPECIES = [  # caliper slot, label, code (USDA PLANTS), common name, leaf habit
    (1, "BUR OAK", "QUMA2", "bur oak", "deciduous"),
    (2, "WHT OAK", "QUAL", "white oak", "deciduous"),
    (3, "RED OAK", "QURU", "northern red oak", "deciduous"),
    (4, "SUG MAP", "ACSA3", "sugar maple", "deciduous"),
    (5, "BASSWD", "TIAM", "American basswood", "deciduous"),
    (6, "BLK WAL", "JUNI", "black walnut", "deciduous"),
    (7, "SHAGBK", "CAOV2", "shagbark hickory", "deciduous"),
    (8, "HACKBY", "CEOC", "common hackberry", "deciduous"),
    (9, "E RCEDR", "JUVI", "eastern redcedar", "evergreen"),
    (10, "WHT PIN", "PIST", "eastern white pine", "evergreen"),
]

# (along_ft, offset_ft, caliper species, dbh_in)
TREES = [
    (55, -60, 1, 26.4), (62, -15, 4, 14.2), (70, 35, 3, 21.8), (78, 80, 5, 12.6),
    (90, -85, 2, 24.1), (96, -35, 4, 11.3), (104, 10, 1, 30.2), (112, 58, 6, 16.9),
    (125, -70, 7, 13.4), (131, -20, 3, 19.6), (140, 30, 4, 9.8), (148, 85, 2, 22.7),
    (160, -50, 8, 15.1), (166, 0, 5, 18.4), (175, 52, 9, 8.6), (188, -88, 1, 28.9),
    (195, -30, 4, 12.9), (203, 25, 3, 20.5), (212, 75, 10, 17.2), (222, -60, 6, 11.8),
    (228, -5, 2, 19.3), (236, 45, 7, 10.7), (242, 90, 4, 6.4), (246, -95, 8, 4.8),
    (249, 15, 9, 5.5),
]

STAND_FT = [(45, -110), (45, 110), (255, 110), (255, -110)]
WETLAND_CENTRE_FT = (35.0, 300.0)  # along, offset: on the floodplain downstream
WETLAND_AXES_FT = (72.0, 55.0)  # semi-axes along the river and across it
OHWM_OFFSETS_FT = [(-2, -200), (1, -120), (0, -60), (0, 0), (-1, 60), (2, 130), (3, 200),
                   (1, 380)]


def to_latlon(along_ft: float, offset_ft: float) -> list[float]:
    """Local (along, offset) ft -> [lat, lon] degrees, rounded to 1e-7 (~1 cm)."""
    lon, lat, _ = _GEOD.fwd(ORIGIN[1], ORIGIN[0], TRANSECT_AZIMUTH_DEG, along_ft * FT)
    lon, lat, _ = _GEOD.fwd(lon, lat, RIVER_AZIMUTH_DEG, offset_ft * FT)
    return [round(lat, 7), round(lon, 7)]


def crown_radius_ft(dbh_in: float) -> float:
    """Forest-grown hardwood rule of thumb: crown radius ~ 3 + 0.8 x DBH (in) feet."""
    return round(3.0 + 0.8 * dbh_in, 1)


def build_demo() -> dict[str, Any]:
    """The demo scenario as a JSON-ready dict."""
    labels = {s[0]: s for s in SPECIES}
    trees = []
    for i, (along, offset, sp, dbh) in enumerate(TREES, start=1):
        _, label, code, name, habit = labels[sp]
        trees.append({
            "id": i, "position": to_latlon(along, offset), "along_ft": along,
            "offset_ft": offset, "species_number": sp, "label": label, "species_code": code,
            "common_name": name, "leaf_habit": habit, "dbh_in": dbh,
            "crown_radius_ft": crown_radius_ft(dbh),
        })
    a, b = WETLAND_AXES_FT
    wet = []
    for k in range(16):
        th = 2 * math.pi * k / 16
        wet.append(to_latlon(WETLAND_CENTRE_FT[0] + b * math.sin(th),
                             WETLAND_CENTRE_FT[1] + a * math.cos(th)))
    wet.append(wet[0])
    ohwm = [to_latlon(al, off) for al, off in OHWM_OFFSETS_FT]
    transect_end = to_latlon(STATIONS_FT[-1], 0)
    # GNSS walk: the OHWM west to east, back to the transect origin, up the transect, over
    # to the wetland and round its boundary.
    walk = ohwm + [to_latlon(0, 0)] + [to_latlon(s, 0) for s in (40, 120, 250)]
    walk += [to_latlon(60, 200)] + wet
    return {
        "name": "demo",
        "description": (
            "Kickapoo River north of La Farge, Vernon County, Wisconsin: a stream bank with a "
            "steep pitch from 40 to "
            "120 ft landward of the OHWM, a mature wooded stand on it, and a small wetland "
            "(about 12,000 sq ft) on the floodplain downstream. Positions WGS 84 (EPSG:4326); "
            "lengths in international feet. Built by devices/sim/demo_scenario.py."
        ),
        "site": {"name": "Kickapoo River, La Farge, Vernon County, Wisconsin",
                 "crs": "EPSG:4326", "origin": list(ORIGIN), "notes": SITE_NOTES},
        "ohwm": ohwm,
        "transect": {
            "start": to_latlon(0, 0), "end": transect_end,
            "azimuth_deg": TRANSECT_AZIMUTH_DEG, "profile_ft": PROFILE_FT,
            "stations_ft": STATIONS_FT,
            "expected_nr341_bank": {"priority": False, "bank_ft": 120, "extended": True,
                                    "basis": "slope"},
        },
        "stand": {"boundary": [to_latlon(*p) for p in STAND_FT] + [to_latlon(*STAND_FT[0])],
                  "trees": trees},
        "wetland": {"boundary": wet, "approx_area_sqft": 12000},
        "species_table": {"species": [
            {"caliper": n, "label": lab, "code": code, "common_name": name, "leaf_habit": h}
            for n, lab, code, name, h in SPECIES]},
        "devices": {
            "gnss": {"simulator": "gnss", "rate_hz": 1, "speed_m_s": 1.0, "alt_m": 232.0,
                     "sentences": ["GGA", "RMC", "GSA", "GSV", "GST", "VTG", "ZDA"],
                     "quality": "rtk_fixed", "waypoints": walk,
                     # early, while the surveyor stands at the first OHWM point: the
                     # walkthrough's step 1 shows RTK float, then a stale fix (README)
                     "quality_schedule": [{"at_s": 15, "quality": "rtk_float"},
                                          {"at_s": 30, "quality": "rtk_fixed"}],
                     "dropouts": [{"at_s": 40, "duration_s": 5, "mode": "nofix"}],
                     "seed": 341},
            "rangefinder": {"simulator": "rangefinder", "protocol": "trupulse",
                            "dialect": "trupulse", "units": "F", "seed": 341},
            "caliper": {"simulator": "caliper", "protocol": "digitech"},
        },
    }


if __name__ == "__main__":
    print(json.dumps(build_demo(), indent=1))
