"""Tallying trees: time to add N trees one by one to a visit (model only, no store).

``add_tree`` takes the next tag from a running maximum; it used to scan every tree (quadratic:
~9 s for 10,000 trees). Prints the figures; no target is asserted.

    python bench/bench_tally.py [N]
"""

from __future__ import annotations

import sys
import time

from fieldapp.survey import Visit


def main(n: int = 10_000) -> None:
    v = Visit.new("bench", crs="EPSG:32616", who="bench")
    t0 = time.perf_counter()
    for i in range(n):
        v.add_tree(x=500_000.0 + (i % 100), y=4_983_000.0 + i // 100, dbh_in=12.0)
    dt = time.perf_counter() - t0
    last = v.trees()[-1].tag
    print(f"{n} trees added in {dt:.2f} s ({dt / n * 1e6:.0f} us per tree); last tag {last}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)
