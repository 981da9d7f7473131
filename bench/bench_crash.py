"""Crash benchmark: 100 SIGKILL trials of a recording child; records lost (target 0).

    python bench/bench_crash.py [TRIALS]

Half the trials record at 10 Hz, half as fast as possible; each is killed at a random moment
0-1 s after it is ready. Prints records reported committed, records lost, integrity failures.
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from pathlib import Path

from fieldapp.store.crashprobe import run_trial


def main() -> None:
    trials = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    rng = random.Random()
    reported = lost = bad = 0
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as d:
        for i in range(trials):
            r = run_trial(Path(d) / f"t{i}.gpkg", rate_hz=10.0 if i % 2 == 0 else 0.0,
                          kill_after_s=rng.uniform(0.0, 1.0))
            reported += r.reported
            lost += len(r.missing)
            bad += r.integrity != "ok"
    print(f"{trials} SIGKILL trials in {time.perf_counter() - start:.0f} s: {reported} records reported "
          f"committed, {lost} lost (target 0), {bad} integrity_check failures")


if __name__ == "__main__":
    main()
