"""VisitController.track_ft: the stored track in site feet from the track's columns, by time
(fixes without a time last, one time's fixes as recorded), the same as sorting the records."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from fieldapp.app.visit import open_visit
from fieldapp.store import create_visit
from fieldapp.survey import Visit

T0 = datetime(2024, 6, 3, 15, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Fix:
    lat_deg: float
    lon_deg: float
    time_utc: datetime | None
    quality: int = 4
    sats_used: int = 14
    hdop: float = 0.7
    horizontal_accuracy_m: float = 0.02
    vertical_accuracy_m: float | None = None
    alt_hae_m: float = 251.0


# recorded order: 0.2 s, 0.0 s, no time, 0.1 s, 0.0 s again -> by time: fixes 1, 4, 3, 0, then 2
SECONDS = [0.2, 0.0, None, 0.1, 0.0]
BY_TIME = [1, 4, 3, 0, 2]


def test_track_ft_is_the_track_in_feet_by_time(tmp_path):
    path = tmp_path / "v.gpkg"
    v = Visit.new("Track", crs="EPSG:32616", who="crew@laptop")
    v.start_track()
    for i, s in enumerate(SECONDS):
        v.record_fix(Fix(45.0 + i * 1e-4, -87.0, None if s is None else T0 + timedelta(seconds=s)))
    create_visit(path, v).close()
    vc = open_visit(path)
    try:
        log = vc.model.track_log.columns()
        xs, ys = vc.track_ft()
        # UTM zone 16N is in metres: feet are metres / 0.3048 (international foot)
        assert ys.tolist() == pytest.approx((log["y"][BY_TIME] / 0.3048).tolist(), abs=1e-9)
        assert xs.tolist() == pytest.approx((log["x"][BY_TIME] / 0.3048).tolist(), abs=1e-9)
        # each fix 1e-4 degree (~11.1 m) north of the one recorded before it: the southmost
        # (fix 0) is 4th by time, fix 1 first, fix 2 last, fix 3 third, fix 4 second
        assert np.argsort(ys).tolist() == [3, 0, 4, 2, 1]
        # the same order as sorting the records (the former way: a record per fix)
        recs = sorted(vc.model.track(), key=lambda p: (p.t_utc is None, p.t_utc or 0))
        assert ys.tolist() == pytest.approx([p.y / 0.3048 for p in recs], abs=1e-9)
        # a fix recorded after the open is in it, in its time's place (0.05 s: third)
        vc.model.start_track()
        vc.model.record_fix(Fix(46.0, -87.0, T0 + timedelta(seconds=0.05)))
        xs2, ys2 = vc.track_ft()
        assert len(ys2) == 6 and ys2[2] == pytest.approx(vc.model.track_log.columns()["y"][5] / 0.3048)
    finally:
        vc.close()


def test_track_ft_is_empty_without_a_track(tmp_path):
    vc = open_visit(tmp_path / "empty.gpkg", name="empty")
    try:
        xs, ys = vc.track_ft()
        assert len(xs) == len(ys) == 0
    finally:
        vc.close()


def test_records_stored_counts_the_records_added_and_the_map_gets_each_fix_where_recorded(tmp_path):
    # --quit-after says "N records stored": rows added to the visit (the site's CRS set by the
    # first fix is an update of the site row, no record); the map's position of a recorded fix
    # is the track point's own x, y in site feet (the same as projecting the fix again)
    vc = open_visit(tmp_path / "v.gpkg")            # a new visit: its CRS from the first fix
    fixes = [Fix(45.0 + i * 1e-5, -87.0, T0 + timedelta(seconds=i)) for i in range(3)]
    for fix in fixes:
        vc.on_fix(fix)
        pt = vc.model.track()[-1]
        f = vc.model.frame
        assert vc.project(fix.lat_deg, fix.lon_deg) == (f.to_ft(pt.x), f.to_ft(pt.y))
        x, y = (float(c) for c in f.to_local(fix.lon_deg, fix.lat_deg))
        assert (pt.x, pt.y) == pytest.approx((x, y), abs=1e-9)
    vc.model.add_note("flagged a stake")
    assert vc.records_stored == 4 == len(vc.model.track()) + 1
    vc.close()
