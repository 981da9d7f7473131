"""A sample visit for the report and export tests, built with the real store and model APIs,
and tests of what the report gathers from it (no Qt).

Site: Wisconsin Transverse Mercator (EPSG:3070, metres, international foot for lengths), on the
central meridian (90° W), where the grid scale factor is k0 = 0.9996 exactly (WTM definition), so
ground areas are grid areas / 0.9996² — the figures below are worked by hand from that.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path

import pytest

from fieldapp.geo import SiteFrame
from fieldapp.store import create_visit
from fieldapp.survey import Layer, Visit, WaterFeature, WaterFeatureType
from tests.gpkgtools import st_connect

FT = 0.3048  # metres per international foot; the CRS unit is the metre
K0 = 0.9996  # WTM scale factor on its central meridian
LON0, LAT0 = -90.0, 44.5
T0 = datetime(2024, 5, 14, 15, 0, tzinfo=UTC)


@dataclass(frozen=True)
class SampleFix:
    """A GNSS epoch with the attribute names of devices.nmea.Fix."""

    lat_deg: float
    lon_deg: float
    quality: int
    time_utc: datetime | None = None
    alt_hae_m: float | None = 250.0
    sats_used: int | None = 14
    hdop: float | None = 0.8
    horizontal_accuracy_m: float | None = 0.02
    vertical_accuracy_m: float | None = 0.03
    dgps_age_s: float | None = None
    correction_mount: str | None = None


def _clock():
    t = [T0]

    def now():
        t[0] += timedelta(seconds=1)
        return t[0]

    return now


def build_sample_visit(path: Path, *, trees: int | None = None, transects: int | None = None,
                       conflict: bool = True, site_name: str = "Mill Creek lot 7",
                       note_text: str = "Culvert outlet") -> dict:
    """Create the sample visit file at ``path``; return the numbers the tests check.

    Default: one OHWM line (3 averaged points, 10 RTK epochs + 2 no-fix epochs each), transect T1
    over a steep bank (30 ft @ 4 %, 60 ft @ 18 %, 120 ft @ 5 %: bank 90 ft, rules-contract example),
    T2 stopped short (…, 45 ft @ 5 %: bank at least 90 ft, walk more than 5 ft), a 200 × 200 ft
    woodland stand with 4 trees (DBH 10, 11, 14, 24 in), a 260 × 520 ft less-susceptible wetland,
    a 30 × 30 ft foundation, a note (``note_text``) and a sync conflict record. ``trees``/``transects``
    make a big visit for the benchmark instead; ``site_name`` names the site.
    """
    frame = SiteFrame("EPSG:3070")
    visit = Visit.new(site_name, date(2024, 5, 14), crew=["A. Surveyor", "B. Forester"],
                      device_ids={"gnss": "R12i 6012", "rangefinder": "TruPulse 360R"},
                      crs="EPSG:3070", antenna_height_m=1.8, who="ann@laptop-1", clock=_clock(),
                      water_features=[WaterFeature("Mill Creek", WaterFeatureType.STREAM)],
                      notes="Stream bank north of the culvert.")
    store = create_visit(path, visit)
    x0, y0 = (float(v) for v in frame.to_local(LON0, LAT0))
    # OHWM along y = y0 (water to the south), points 40 m apart, averaged from RTK epochs
    for i in range(3):
        lon, lat = frame.to_lonlat(x0 - 40.0 + 40.0 * i, y0)
        # RTK corrections from mountpoint WIDOT1, 0.5 .. 1.4 s old (GGA field 13)
        fixes = [SampleFix(lat, lon, 4, T0 + timedelta(seconds=j), dgps_age_s=0.5 + 0.1 * j,
                           correction_mount="WIDOT1") for j in range(10)]
        fixes += [SampleFix(lat, lon, 0, T0), SampleFix(lat, lon, 0, T0)]
        visit.add_ohwm_point(visit.average(fixes, min_epochs=5))
    n_tr = 2 if transects is None else transects
    for i in range(n_tr):
        t = visit.add_transect(0.0, origin=(x0 - 30.0 + 60.0 * (i % 2) + 3.0 * (i // 2), y0),
                               label=f"T{i + 1}")
        last = 120.0 if i % 2 == 0 else 45.0
        for h, s in ((30.0, 4.0), (60.0, 18.0), (last, 5.0)):
            visit.add_station(t.uuid, horizontal_ft=h, slope_pct=s)
    # woodland stand 200 ft square north-east of the bank; trees inside
    side = 200.0 * FT
    sx, sy = x0 + 80.0, y0 + 20.0
    stand = visit.add_area("woodland_stand", [(sx, sy), (sx + side, sy), (sx + side, sy + side),
                                              (sx, sy + side)], label="Stand A")
    if trees is None:
        for k, dbh in enumerate((10.0, 11.0, 14.0, 24.0)):
            visit.add_tree(x=sx + 10.0 + 12.0 * k, y=sy + 15.0 + 10.0 * k, dbh_in=dbh, crown_radius_ft=10.0,
                           species_code="ACSA", species_name="sugar maple")
    else:
        import random

        rnd = random.Random(7)
        for _ in range(trees):
            visit.add_tree(x=sx + rnd.uniform(0, side), y=sy + rnd.uniform(0, side),
                           dbh_in=round(rnd.uniform(3.0, 30.0), 1), crown_radius_ft=rnd.uniform(5, 15),
                           leaf_habit="deciduous" if rnd.random() < 0.8 else "evergreen")
    # the crew tallied every tree of the stand (else its class is provisional)
    visit.update_feature(Layer.AREA, stand.uuid, tally_complete=True)
    # wetland 260 ft × 520 ft west of the OHWM's start
    w, h = 260.0 * FT, 520.0 * FT
    wx, wy = x0 - 100.0 - w, y0 + 10.0
    visit.add_area("wetland", [(wx, wy), (wx + w, wy), (wx + w, wy + h), (wx, wy + h)], label="W1",
                   wetland_type="wet meadow", susceptibility="less", standing_water=True,
                   hydric_vegetation=True)
    # a 30 ft × 30 ft foundation
    f = 30.0 * FT
    fx, fy = x0 + 10.0, y0 + 120.0
    visit.add_area("foundation", [(fx, fy), (fx + f, fy), (fx + f, fy + f), (fx, fy + f)], label="House")
    visit.add_note(note_text, x=x0 - 35.0, y=y0 - 5.0)
    counts = {l.value: len(visit.features(l)) for l in Layer if l is not Layer.SITE}
    store.close()
    if conflict:
        from fieldapp.sync.files import CONFLICTS_TABLE, ensure_sync_tables

        ensure_sync_tables(path)
        with st_connect(path) as conn:
            tree = visit.features(Layer.TREE)[0]
            conn.execute(
                f"INSERT INTO {CONFLICTS_TABLE} (uuid, layer, feature_uuid, field, kind, base_json,"
                " theirs_json, ours_json, kept, policy, changeset_id, seq, ours_by, created_utc)"
                " VALUES (?, 'tree', ?, 'dbh_in', 'same-field', '10.0', '10.4', '10.2', 'ours',"
                " 'last-sync-wins', 'cs-1', 3, 'bob@laptop-2', '2024-05-15T09:00:00.000Z')",
                ("c0ffee00-0000-4000-8000-000000000001", tree.uuid))
        conn.close()
    return {"x0": x0, "y0": y0, "counts": counts, "frame": frame}


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    path = tmp_path_factory.mktemp("visit") / "mill-creek.gpkg"
    info = build_sample_visit(path)
    info["path"] = path
    return info


def test_gathered_checks_match_the_hand_worked_examples(sample):
    from fieldapp.report.content import gather, load_visit

    c = gather(load_visit(sample["path"]), sample["path"])
    by_title = {k.title: k.result for k in c.checks}
    # rules-contract examples: 30 @ 4 %, 60 @ 18 %, 120 @ 5 % -> bank 90 ft (slope)
    assert by_title["Bank T1 (NR 341.035)"]["bank_ft"] == pytest.approx(90.0)
    assert by_title["Bank T1 (NR 341.035)"]["citation"] == "NR 341.035(1)(a)"
    # ... 45 @ 5 % -> at least 90 ft, walk more than 5 ft further
    assert by_title["Bank T2 (NR 341.035)"]["bank_ft_at_least"] == pytest.approx(90.0)
    assert by_title["Bank T2 (NR 341.035)"]["walk_further_ft"] == pytest.approx(5.0)
    # wetland 260 x 520 ft: average width = area / long axis = 260 ft; less susceptible -> 26 ft
    pa = by_title["Protective area W1 (NR 151.125)"]
    assert pa["average_width_ft"] == pytest.approx(260.0)
    assert pa["width_ft"] == pytest.approx(26.0)
    # 30 x 30 ft foundation: 900 + 4*30*20 + pi*20^2 = 4556.64 sq ft
    assert by_title["Development area (city)"]["envelope_area_sqft"] == pytest.approx(4556.64, abs=0.01)
    # ground area of the wetland: 260*520 / 0.9996^2
    assert c.wetlands[0].area_sqft == pytest.approx(260 * 520 / K0**2, rel=1e-6)
    # verdicts are ordered bank first, T1 before T2
    assert [k.title for k in c.checks][:2] == ["Bank T1 (NR 341.035)", "Bank T2 (NR 341.035)"]


def test_gathered_gnss_profiles_and_conflicts(sample):
    from fieldapp.report.content import gather, load_visit

    c = gather(load_visit(sample["path"]), sample["path"])
    assert len(c.gnss) == 3
    g = c.gnss[0]
    # 10 RTK-fixed epochs used, the 2 no-fix epochs rejected; antenna height from the site
    assert (g.sample_count, g.rejected_count, g.worst_fix_quality) == (10, 2, 4)
    assert g.antenna_height_m == 1.8 and g.quality_words == "4 RTK fixed"
    # the largest correction age of the 10 epochs used: 0.5 + 0.9 = 1.4 s
    assert (g.correction_age_s, g.correction_mount) == (pytest.approx(1.4), "WIDOT1")
    assert g.corrections_words == "WIDOT1, 1.4 s"
    t1 = c.transects[0]
    # relative elevations carried by slope: 30*0.04 = 1.2, + 60*0.18 = 12.0, + 120*0.05 = 18.0
    assert [round(s[1], 6) for s in t1.stations] == [0.0, 1.2, 12.0, 18.0]
    assert (t1.base_ft, t1.threshold_pct) == (75.0, 12.0)
    assert len(c.conflicts) == 1 and c.conflicts[0].field == "dbh_in"
    # the bank point of T1 lies 90 ft (27.432 m) north of its origin (azimuth 0, grid ~ true here)
    name, bx, by, known = c.map.bank_points[0]
    assert name == "T1" and known
    # grid length = k0 x ground length (geodesic 90 ft solved on the ellipsoid)
    assert by - sample["y0"] / FT == pytest.approx(90.0 * K0, abs=0.01)
