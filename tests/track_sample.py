"""A visit with a GNSS track for the track tests (store, export, report): its fixes and the
writer of the visit file."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from fieldapp.store import create_visit
from fieldapp.survey import Visit
from tests.gpkgtools import st_connect

T0 = datetime(2024, 6, 3, 15, 0, 0, 100000, tzinfo=UTC)


@dataclass(frozen=True)
class Fix:
    """A receiver's fix as the model records it (the fields a track point keeps)."""

    lat_deg: float
    lon_deg: float
    time_utc: datetime | None = T0
    quality: int = 4
    sats_used: int | None = 14
    hdop: float | None = 0.7
    horizontal_accuracy_m: float | None = 0.02
    vertical_accuracy_m: float | None = None
    alt_hae_m: float | None = 251.25


def visit_with_track(path, n: int = 12) -> None:
    """Write a visit at ``path`` (UTM 16N) with one tree and a track of ``n`` fixes 0.1 s apart from
    :data:`T0`: fix 4 autonomous, fix 5 with no time and (in the file) no quality, every third fix
    with no accuracy or height, fids 3 and 9 with no satellite count or HDOP."""
    v = Visit.new("Track", crs="EPSG:32616", who="crew@laptop")
    v.add_tree(x=500_000.0, y=4_985_000.0, dbh_in=12.0)
    v.start_track()
    for i in range(n):
        # every third fix lacks the values a receiver may not send (None in the record)
        sparse = i % 3 == 2
        v.record_fix(Fix(45.0 + i * 1e-5, -87.0 - i * 1e-5, None if i == 5 else T0 + timedelta(seconds=i / 10),
                         quality=1 if i == 4 else 4, hdop=0.7 + i / 100,
                         horizontal_accuracy_m=None if sparse else 0.02, alt_hae_m=None if sparse else 251.25))
    create_visit(path, v).close()
    with st_connect(path) as conn:  # as another receiver's log may hold them
        conn.execute("UPDATE track_point SET sats_used = NULL, hdop = NULL WHERE fid IN (3, 9)")
        conn.execute("UPDATE track_point SET quality = NULL WHERE fid = 6")
    conn.close()
