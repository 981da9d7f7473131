"""The sample visit of the report, export, sync and UI tests, built with the real store and model
APIs (``build_sample_visit``); its tests are in ``test_report_visit.py``.

Site: Wisconsin Transverse Mercator (EPSG:3070, metres, international foot for lengths), on the
central meridian (90° W), where the grid scale factor is k0 = 0.9996 exactly (WTM definition), so
ground areas are grid areas / 0.9996² — the figures below are worked by hand from that.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

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
    counts = {layer.value: len(visit.features(layer)) for layer in Layer if layer is not Layer.SITE}
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
