"""Benchmark: one 1,000-segment transect through the bank rule (target ≤ 5 ms per evaluation).

Prints the time per evaluation for the JSON contract (``evaluate``, which validates every
segment) and for the typed API (``bank_from_segments``), best of several repeats. No asserts:
run ``python bench/bench_rules.py`` and read the figures.
"""

from __future__ import annotations

import random
import timeit

from fieldapp.rules import bank_from_segments, evaluate

TARGET_MS = 5.0


def transect(n: int = 1000, seed: int = 341) -> list[dict]:
    """Alternating steep and flat stretches of 0.5-5 ft segments, runs never over 50 ft, so the
    whole transect is walked (the worst case: the bank extends to the last steep segment)."""
    rng = random.Random(seed)
    segs = []
    for i in range(n):
        steep = (i // 5) % 2 == 0
        segs.append({"horizontal_ft": rng.uniform(0.5, 5.0), "slope_pct": rng.uniform(12.5, 40) if steep
                     else rng.uniform(-3, 11.9)})
    return segs


def main() -> None:
    segs = transect()
    request = {"rule": "nr341.bank", "input": {"priority": False, "segments": segs}}
    result = evaluate(request)
    tuples = [(s["horizontal_ft"], s["slope_pct"]) for s in segs]
    taped = {"rule": "nr341.bank", "input": {"priority": False, "segments": [
        {"slope_distance_ft": s["horizontal_ft"], "slope_deg": s["slope_pct"] / 5} for s in segs]}}
    for name, fn in (("evaluate(request)", lambda: evaluate(request)),
                     ("bank_from_segments(tuples)", lambda: bank_from_segments(tuples, priority=False)),
                     ("evaluate(request), slope distances in degrees (reduced)", lambda: evaluate(taped))):
        number = 50
        best = min(timeit.repeat(fn, number=number, repeat=5)) / number
        flag = "ok" if best * 1e3 <= TARGET_MS else "OVER TARGET"
        print(f"{name:58s} {best * 1e3:7.3f} ms per evaluation of 1,000 segments ({flag}, target ≤ {TARGET_MS} ms)")
    print(f"status {result['status']}, bank_ft_at_least {result['bank_ft_at_least']:.1f} ft, "
          f"{len(result['steep_stretches'])} steep stretches")


if __name__ == "__main__":
    main()
