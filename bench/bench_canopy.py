"""Canopy benchmark: canopy cover + stand table for 10,000 trees (target <= 0.5 s).

Beside it, in the same run and alternately, the reference: the same figures with the union made
in one piece on one thread (``canopy.STRIP_CROWNS`` out of reach: the way before the strips).
Quote ``uptime`` with it: the strips only gain when a second core is free.

    python bench/bench_canopy.py [N]
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

from fieldapp.survey import AreaKind, LeafHabit, Visit, canopy
from fieldapp.survey.canopy import stand_measures


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    rng = np.random.default_rng(7)
    v = Visit.new("bench", crs="EPSG:32616", who="bench")
    x0, y0 = 500_000.0, 4_983_000.0
    side = 600.0  # m: ~89 acres, ~112 trees/acre
    stand = v.add_area(AreaKind.WOODLAND_STAND, [(x0, y0), (x0 + side, y0), (x0 + side, y0 + side), (x0, y0 + side)])
    xs, ys = rng.uniform(x0, x0 + side, n), rng.uniform(y0, y0 + side, n)
    dbh = rng.gamma(3.0, 4.0, n).clip(1.0, 60.0)
    for i in range(n):
        v.add_tree(x=float(xs[i]), y=float(ys[i]), dbh_in=float(dbh[i]), crown_radius_ft=float(4 + dbh[i] * 0.6),
                   leaf_habit=LeafHabit.DECIDUOUS if i % 4 else LeafHabit.EVERGREEN)
    trees = v.trees()
    runs, one_piece = [], []
    strip_crowns = canopy.STRIP_CROWNS
    print(f"load: {' '.join(f'{a:.2f}' for a in os.getloadavg())}; {os.cpu_count()} cores")
    for _ in range(3):
        for out, limit in ((runs, strip_crowns), (one_piece, 10**12)):
            canopy.STRIP_CROWNS = limit
            t = time.perf_counter()
            m = stand_measures(stand.geometry, trees, v.frame)
            out.append(time.perf_counter() - t)
    canopy.STRIP_CROWNS = strip_crowns
    m = stand_measures(stand.geometry, trees, v.frame)
    print(f"canopy cover + stand table for {n} trees: best {min(runs):.3f} s, worst {max(runs):.3f} s"
          f" (target <= 0.5 s); one piece, one thread: best {min(one_piece):.3f} s")
    print(f"  canopy >=10 in {m.canopy_10in_pct:.1f} %, >=3 in {m.canopy_3in_pct:.1f} %, "
          f"deciduous share {m.deciduous_share_pct:.1f} %, {m.stems_per_ac:.1f} stems/ac, "
          f"BA {m.basal_area_sqft_per_ac:.1f} sq ft/ac, {len(m.stand_table)} DBH classes")
    print(f"load: {' '.join(f'{a:.2f}' for a in os.getloadavg())}")


if __name__ == "__main__":
    main()
