"""Store benchmark: fixes committed one by one per second, and file size per hour of 10 Hz track.

    python bench/bench_store.py [N]

Each fix is its own transaction (WAL, synchronous=FULL), exactly as in the field. Prints
fixes/s (target >= 2,000/s) and the .gpkg size per hour of a 10 Hz track (36,000 fixes),
measured after a clean close (checkpoint, DELETE journal).
"""

from __future__ import annotations

import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from fieldapp.store import create_visit
from fieldapp.survey import Visit


@dataclass(frozen=True)
class Fix:
    lat_deg: float
    lon_deg: float
    time_utc: datetime
    quality: int = 4
    sats_used: int = 16
    hdop: float = 0.6
    horizontal_accuracy_m: float = 0.015
    vertical_accuracy_m: float = 0.025
    alt_hae_m: float = 251.3


def raw_sqlite_rate(d: Path, n: int = 1000) -> float:
    """Baseline: bare SQLite WAL + synchronous=FULL single-row commits on the same disk."""
    import sqlite3

    c = sqlite3.connect(d / "raw.db", isolation_level=None)
    c.execute("PRAGMA journal_mode=WAL")
    c.execute("PRAGMA synchronous=FULL")
    c.execute("CREATE TABLE t (fid INTEGER PRIMARY KEY AUTOINCREMENT, uuid TEXT UNIQUE, b BLOB)")
    t = time.perf_counter()
    for i in range(n):
        c.execute("BEGIN IMMEDIATE")
        c.execute("INSERT INTO t (uuid, b) VALUES (?, ?)", (str(i), b"x" * 200))
        c.execute("COMMIT")
    rate = n / (time.perf_counter() - t)
    c.close()
    return rate


def run(n: int, durability: str, d: Path):
    t0 = datetime(2024, 6, 3, 14, 0, tzinfo=UTC)
    fixes = [Fix(45.0 + i * 1e-7, -89.0 + i * 1e-7, t0 + timedelta(seconds=i / 10)) for i in range(n)]
    path = d / f"bench-{durability}.gpkg"
    visit = Visit.new("bench", crs="EPSG:32616", who="bench@laptop")
    store = create_visit(path, visit, durability=durability)
    visit.start_track()
    start = time.perf_counter()
    for f in fixes:
        visit.on_fix(f)
    elapsed = time.perf_counter() - start
    store.close()
    return n / elapsed, path.stat().st_size


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 36_000
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        raw = raw_sqlite_rate(d)
        print(f"disk baseline: bare SQLite WAL+FULL single-row commits: {raw:,.0f} /s")
        for durability in ("full", "normal"):
            rate, size = run(n, durability, d)
            print(f"durability={durability}: {n} fixes committed one by one: {rate:,.0f} fixes/s "
                  f"(target >= 2,000/s)")
        print(f"file size: {size / 1e6:.2f} MB for {n} fixes = {size / n * 36_000 / 1e6:.1f} MB per hour "
              "of 10 Hz track (after clean close)")


if __name__ == "__main__":
    main()
