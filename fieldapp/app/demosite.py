"""Whether the last demo visit was walked at the demo's site (issue 35 item 16).

``fieldapp --simulate`` offers to reopen the last demo visit. The demo moved from the Upper Iowa
River to the Kickapoo River in Wisconsin (about 100 km); a demo visit made before the move holds
an Iowa track and a UTM coordinate system, and reopening it would have the simulated receiver
walk 100 km from every record. Such a visit is not offered: a new demo visit starts and the
window says why (the old file stays where it is).
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

from fieldapp.store.paths import sqlite_uri

__all__ = ["DEMO_SITE_KM", "elsewhere_words"]

#: how far (km) a demo visit's first fix may lie from the scenario's origin and still be the
#: demo's site (the demo walks a few hundred feet)
DEMO_SITE_KM = 5.0


def elsewhere_words(path: Path | str, origin: tuple[float, float]) -> str:
    """Why the demo visit at ``path`` is not the demo's site: its first stored fix lies more
    than :data:`DEMO_SITE_KM` from ``origin`` (lat, lon degrees; WGS 84 ellipsoid distance);
    "" when it is there, has no fix yet, or cannot be read (the open then says what is wrong)."""
    try:
        with contextlib.closing(sqlite3.connect(sqlite_uri(path, mode="ro"), uri=True)) as conn:
            row = conn.execute("SELECT lat_deg, lon_deg FROM track_point WHERE lat_deg IS NOT NULL"
                               " ORDER BY fid LIMIT 1").fetchone()
    except sqlite3.Error:
        return ""
    if row is None:
        return ""
    from fieldapp import geo

    _, _, metres = geo.WGS84.inv(origin[1], origin[0], float(row[1]), float(row[0]))
    km = metres / 1000.0
    if km <= DEMO_SITE_KM:
        return ""
    return (f"The last demo visit ({Path(path).name}) was walked {km:,.0f} km from today's demo site"
            f" ({row[0]:.4f}, {row[1]:.4f}): a new demo visit was started; that file is kept as it was")
