"""PostGIS office benchmarks (issue 17). Prints figures beside the folder office's from the same
run; asserts nothing about time.

    python bench/bench_sync_postgis.py                 # all
    python bench/bench_sync_postgis.py --laptops 10 --rounds 5 --edits 100 --kills 100

The server: ``FIELDAPP_TEST_PG`` (a superuser URL, as ``.ci/run`` exports), else a throwaway
cluster started like the tests' (``tests/sync/pgcluster.py``).

(a) first sync of a real store visit with 10,000 new trees (target <= 5 s), PostGIS vs folder;
(b) 10,000 edited trees rebased onto another laptop's 1,000 edits (target <= 5 s), both offices;
(c) N laptops syncing concurrently (processes), each ``rounds`` x ``edits`` tree edits: syncs
    and edits per second, every edit checked in the office afterwards;
(d) kill trials: random syncs of those laptops SIGKILLed at random moments while the others run
    (tests/sync/pgconcurrency.py); then no edit lost, no row doubled, no gap in the log, and an
    office (QGIS-style) edit made during the run reaches every laptop.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO)]

sys.path[:0] = [str(REPO / "bench")]
from bench_sync import N, edit_trees, make_visit, timed  # noqa: E402

from fieldapp.sync import FolderOffice, PostgisOffice, checkout, sync  # noqa: E402


def bench_office(root: Path, label: str, office) -> None:
    root.mkdir(parents=True)
    a = make_visit(root / "a.gpkg", N)
    r = timed(f"(a) {label}: first sync, {N} new features", lambda: sync(a, office), 5.0)
    assert r.totals().sent >= N, r.format()
    b = checkout(office, r.site_id, root / "b.gpkg")
    edit_trees(a, "a@laptop-a", 10, dbh_in=lambda t: t.dbh_in + 1.0)
    sync(a, office)
    edit_trees(b, "b@laptop-b", 1, species_code=lambda t: "ACRU")
    r = timed(f"(b) {label}: sync of {N} edited over 1,000 others", lambda: sync(b, office), 5.0)
    tree = {c.layer: c for c in r.layers}["tree"]
    print(f"    tree: sent {tree.sent}, received {tree.received}, merged {tree.merged}, conflicts {tree.conflicts}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--laptops", type=int, default=10)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--edits", type=int, default=100)
    p.add_argument("--kills", type=int, default=100)
    p.add_argument("--skip-big", action="store_true", help="skip (a) and (b)")
    args = p.parse_args(argv)
    import signal

    from tests.sync import pgcluster, pgconcurrency

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the throwaway cluster on kill

    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    gen = pgcluster.server_url()
    server = next(gen)
    try:
        with tempfile.TemporaryDirectory(prefix="bench-pg-") as tmp:
            tmp = Path(tmp)
            if not args.skip_big:
                _name, url = pgcluster.new_database(server)
                bench_office(tmp / "pg", "PostGIS", PostgisOffice(url, create=True))
                bench_office(tmp / "folder", "folder (reference)", FolderOffice(tmp / "office", create=True))
            _name, url = pgcluster.new_database(server)
            t0 = time.perf_counter()
            result = pgconcurrency.run(url, tmp / "conc", laptops=args.laptops, rounds=args.rounds,
                                       edits=args.edits, kills=0)
            dt = time.perf_counter() - t0
            print(f"(c) {args.laptops} laptops x {args.rounds} syncs x {args.edits} edits, concurrently:"
                  f" {result.syncs} syncs, {result.edits} edits in {dt:.1f} s ="
                  f" {result.syncs / dt:.2f} syncs/s, {result.edits / dt:.0f} edits/s; {result.summary()}")
            if args.kills:
                _name, url = pgcluster.new_database(server)
                t0 = time.perf_counter()
                result = pgconcurrency.run(url, tmp / "kills", laptops=args.laptops, rounds=args.rounds,
                                           edits=args.edits, kills=args.kills)
                print(f"(d) {result.killed} syncs SIGKILLed among {args.laptops} concurrent laptops:"
                      f" {result.summary()} ({time.perf_counter() - t0:.1f} s)")
    finally:
        with contextlib.suppress(StopIteration):
            next(gen)
    print(f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
