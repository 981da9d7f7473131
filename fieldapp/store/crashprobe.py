"""Crash-trial child: record into a visit file and report each committed record on stdout.

``python -m fieldapp.store.crashprobe PATH [--rate-hz 10] [--limit N]``

Creates the visit at PATH (or opens it if it exists), prints ``ready``, then records in a loop:
a GNSS fix into the track every tick, a tree every 3rd tick, a transect station every 5th, a
note every 7th. After each command returns (its transaction committed) it prints the record's
``layer uuid`` and flushes, so a parent that kills this process with SIGKILL at any moment knows
every record that must be in the file. ``--rate-hz 0`` records as fast as it can (so kills land
inside transactions). Used by ``tests/store/test_store_crash.py`` and ``bench/bench_crash.py``.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path


@dataclass
class _Fix:
    """An RTK fix as the survey reads one (:class:`fieldapp.survey.gnss.FixLike`)."""

    lat_deg: float | None
    lon_deg: float | None
    time_utc: datetime | None
    quality: int = 4
    sats_used: int | None = 14
    hdop: float | None = 0.7
    horizontal_accuracy_m: float | None = 0.02
    vertical_accuracy_m: float | None = 0.03
    alt_hae_m: float | None = 251.3
    t_monotonic_s: float = 0.0


@dataclass
class TrialResult:
    """What one kill trial found: reported records, those missing from the file, checks."""

    reported: int
    missing: list[tuple[str, ...]]
    integrity: str
    file_exists: bool
    opened: bool


def run_trial(path: Path, *, rate_hz: float, kill_after_s: float, after_ready: bool = True,
              timeout_s: float = 60.0) -> TrialResult:
    """Start the probe, SIGKILL it (Windows: TerminateProcess) ``kill_after_s`` after it is ready
    (or after start), check.

    The check: ``PRAGMA integrity_check`` is ``ok``, every record the child reported committed is
    in the file (by uuid, in the right table), and :func:`fieldapp.store.open_visit` loads it.
    """
    import os
    import sqlite3
    import subprocess

    from fieldapp.store.gpkg import inspect, open_visit

    env = dict(os.environ, PYTHONUNBUFFERED="1")
    child = subprocess.Popen(
        [sys.executable, "-m", "fieldapp.store.crashprobe", str(path), "--rate-hz", str(rate_hz)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
    )
    assert child.stdout is not None and child.stderr is not None    # both PIPE above
    try:
        if after_ready:
            deadline = time.monotonic() + timeout_s
            line = child.stdout.readline()
            # "ready\r\n" on Windows (text-mode stdout)
            while line and line.rstrip(b"\r\n") != b"ready" and time.monotonic() < deadline:
                line = child.stdout.readline()
            if line.rstrip(b"\r\n") != b"ready":
                child.kill()  # else reading its stderr waits for a probe that never ends
                err = child.stderr.read().decode(errors="replace")
                raise RuntimeError(f"probe never became ready: {err[-2000:]}")
        time.sleep(kill_after_s)
        child.kill()  # SIGKILL on POSIX, TerminateProcess on Windows: no handler, no flush, no atexit
        out = child.stdout.read()
    finally:
        if child.poll() is None:
            child.kill()
        child.wait()
        child.stdout.close()
        child.stderr.close()
    records: list[tuple[str, ...]] = []
    for line in out.split(b"\n")[:-1]:  # the last piece has no newline: not a complete report
        parts = line.decode().split()
        if len(parts) == 2 and parts[0] != "transect":
            records.append(tuple(parts))
    if not path.exists():
        if records:
            raise AssertionError("records reported but no file")
        return TrialResult(0, [], "ok", False, False)
    inspect(path)  # a complete, recognised visit file (creation is atomic)
    conn = sqlite3.connect(str(path))
    try:
        integrity = conn.execute("PRAGMA integrity_check").fetchone()[0]
        stored = {}
        for layer in {r[0] for r in records}:
            stored[layer] = {u for (u,) in conn.execute(f'SELECT uuid FROM "{layer}"')}
    finally:
        conn.close()
    missing = [r for r in records if r[1] not in stored[r[0]]]
    store = open_visit(path)
    store.close()
    return TrialResult(len(records), missing, integrity, True, True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path", type=Path)
    ap.add_argument("--rate-hz", type=float, default=10.0)
    ap.add_argument("--limit", type=int, default=0, help="stop after N ticks (0: until killed)")
    args = ap.parse_args(argv)

    from fieldapp.store.gpkg import create_visit, open_visit
    from fieldapp.survey import Visit

    if args.path.exists():
        store = open_visit(args.path, who="probe@crash")
    else:
        store = create_visit(args.path, Visit.new("crash trial", crs="EPSG:32616", who="probe@crash"))
    visit = store.visit
    out = sys.stdout
    transect = visit.add_transect(90.0, origin=(500000.0, 4983000.0))
    out.write(f"ready\ntransect {transect.uuid}\n")
    out.flush()
    period = 1.0 / args.rate_hz if args.rate_hz > 0 else 0.0
    next_t = time.monotonic()
    i = 0
    while not args.limit or i < args.limit:
        fix = _Fix(45.0 + i * 1e-7, -87.0 + i * 1e-7, datetime.now(UTC), t_monotonic_s=time.monotonic())
        tp = visit.record_fix(fix)
        if tp is None:      # the visit's quality gate refused an RTK fix: nothing to kill-test
            raise RuntimeError(f"the visit's GNSS quality gate refused the probe's RTK fix {fix}")
        lines = [f"track_point {tp.uuid}\n"]
        if i % 3 == 0:
            t = visit.add_tree(x=500000.0 + i % 100, y=4983000.0 + i // 100, dbh_in=3.0 + i % 40,
                               crown_radius_ft=5.0 + i % 20, species_code="ACSA")
            lines.append(f"tree {t.uuid}\n")
        if i % 5 == 0:
            s = visit.add_station(transect.uuid, horizontal_ft=10.0, slope_pct=(i % 30) - 5.0)
            lines.append(f"station {s.uuid}\n")
        if i % 7 == 0:
            n = visit.add_note(f"note {i}")
            lines.append(f"note {n.uuid}\n")
        out.write("".join(lines))
        out.flush()
        i += 1
        if period:
            next_t += period
            delay = next_t - time.monotonic()
            if delay > 0:
                time.sleep(delay)
    store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
