"""Lag of the delivered fix when a 10 Hz receiver is consumed at 5 Hz, over 10 simulated minutes.

The stream is simulated in time (no waiting): every 0.1 s the "receiver" sends one epoch
(RMC, GGA, GSA, GST) as a burst over ~25 ms, sentence by sentence, into a GnssReader exactly as
its reader thread would (``feed`` with the receive time; ``idle`` when a read would have timed out
after ``read_timeout_s`` of silence). A consumer takes ``latest_fix()`` every 0.2 s.

Lag is counted in epochs: (epoch of the newest sentence on the line) - (epoch of the fix the
consumer got), and in seconds: consumer time - fix receive time. Target (issue 2): never more than
one epoch behind, no growth from the first minute to the last. Memory is traced too.

Delivery delay: (simulated time the fix was published) - (receive time of its epoch's last
sentence). Before the receiver's cycle ender is learned (the first ``CYCLE_LEARN_S`` of epochs,
see ``EpochAssembler``) an epoch closes when the next one starts (one epoch, 0.1 s); after, on its
last sentence (0 s).

Run: ``.venv/bin/python bench/bench_fix_lag.py [--minutes 10]``
"""

from __future__ import annotations

import argparse
import math
import sys
import tracemalloc
from pathlib import Path
from statistics import median

import pynmea2

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from devices.nmea import CYCLE_LEARN_S, GnssReader
from devices.transport import SerialSettings

RATE_HZ = 10
CONSUME_HZ = 5
READ_TIMEOUT_S = 0.1  # SerialSettings default: a read returns empty after this much silence


def sentence(body: str) -> bytes:
    return f"${body}*{pynmea2.NMEASentence.checksum(body):02X}".encode()


def epoch_lines(k: int) -> list[bytes]:
    s = k / RATE_HZ
    hh, rem = divmod(s, 3600)
    mm, ss = divmod(rem, 60)
    t = f"{int(hh) + 8:02d}{int(mm):02d}{ss:05.2f}"
    lat = f"4807.{(k % 100000):05d}"
    return [
        sentence(f"GNRMC,{t},A,{lat},N,01131.000,E,1.5,45.0,010724,,,R,V"),
        sentence(f"GNGGA,{t},{lat},N,01131.000,E,4,18,0.6,545.4,M,46.9,M,1.0,0001"),
        sentence("GNGSA,A,3,01,02,03,04,05,06,07,08,09,10,11,12,1.1,0.6,0.9,1"),
        sentence(f"GNGST,{t},0.01,0.012,0.009,45.0,0.011,0.010,0.025"),
    ]


def reader_memory() -> int:
    """Bytes allocated from devices/ and pynmea2 code and still alive (the bench's own lists excluded)."""
    snap = tracemalloc.take_snapshot().filter_traces(
        [tracemalloc.Filter(True, "*/devices/*"), tracemalloc.Filter(True, "*/pynmea2/*")]
    )
    return sum(stat.size for stat in snap.statistics("filename"))


def epoch_index(tod) -> int:
    """Epoch number of a fix from its UTC time of day (the stream starts at 08:00:00.00)."""
    seconds = (tod.hour - 8) * 3600 + tod.minute * 60 + tod.second + tod.microsecond / 1e6
    return round(seconds * RATE_HZ)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    args = parser.parse_args(argv)
    if not (math.isfinite(args.minutes) and args.minutes >= 0.1):
        parser.error(f"--minutes {args.minutes!r} must be a finite number >= 0.1")
    n_epochs = int(args.minutes * 60 * RATE_HZ)
    # memory is sampled after the first simulated minute, or at the end of a shorter run
    first_sample_epoch = min(60 * RATE_HZ, n_epochs) - 1
    now = 0.0  # simulated time of the feed / idle call in progress
    delays: list[tuple[float, float]] = []  # (fix receive time, delivery delay)
    gnss = GnssReader(SerialSettings("loop://", read_timeout_s=READ_TIMEOUT_S),  # never started: fed directly
                      on_fix=lambda fix: delays.append((fix.t_monotonic_s, now - fix.t_monotonic_s)))
    lags_epochs: list[int] = []
    lags_s: list[float] = []
    none_count = 0
    next_consume = 0.0 + 0.013  # consumer phase offset
    tracemalloc.start()
    mem_first = None
    last_rx = 0.0
    line_epoch = -1

    def consume_until(t_limit: float) -> None:
        nonlocal next_consume, none_count
        while next_consume <= t_limit:
            fix = gnss.latest_fix()
            if fix is None:
                none_count += 1
            else:
                lags_epochs.append(line_epoch - epoch_index(fix.time_of_day_utc))
                lags_s.append(next_consume - fix.t_monotonic_s)
            next_consume += 1.0 / CONSUME_HZ

    for k in range(n_epochs):
        t0 = k / RATE_HZ
        lines = epoch_lines(k)
        for i, line in enumerate(lines):
            t = t0 + 0.025 * i / len(lines)
            # silence since the last byte long enough for a read to time out -> idle
            if t - last_rx >= READ_TIMEOUT_S:
                now = last_rx + READ_TIMEOUT_S
                gnss.idle(now)
            consume_until(t)
            now = t
            gnss.feed(line, t)
            last_rx = t
            line_epoch = k
        if k == first_sample_epoch:
            mem_first = reader_memory()
    consume_until(n_epochs / RATE_HZ)
    mem_last = reader_memory()
    tracemalloc.stop()

    minute = 60 * CONSUME_HZ
    first, last = lags_s[:minute], lags_s[-minute:]
    print(f"stream: {RATE_HZ} Hz for {args.minutes:g} simulated minutes ({n_epochs} epochs),"
          f" consumed at {CONSUME_HZ} Hz"
          f" ({len(lags_epochs)} takes, {none_count} before the first fix)")
    print(f"lag in epochs: max {max(lags_epochs)}, histogram "
          + ", ".join(f"{v}: {lags_epochs.count(v)}" for v in sorted(set(lags_epochs))))
    print(f"lag in seconds: first minute mean {sum(first) / len(first):.3f} max {max(first):.3f};"
          f" last minute mean {sum(last) / len(last):.3f} max {max(last):.3f}")
    print(f"memory held by devices/ + pynmea2 (tracemalloc): after {min(1.0, args.minutes):g} min"
          f" {mem_first / 1024:.0f} KiB, after {args.minutes:g} min {mem_last / 1024:.0f} KiB")
    learning = [d for t, d in delays if t < CYCLE_LEARN_S]
    learned = [d for t, d in delays if t >= CYCLE_LEARN_S]

    def figures(delays_s: list[float]) -> str:
        if not delays_s:
            return "no fixes"
        on_line = sum(1 for d in delays_s if d == 0.0)
        return (f"{len(delays_s)} fixes, median {1000 * median(delays_s):.0f} ms max {1000 * max(delays_s):.0f} ms,"
                f" {on_line} on their last sentence")
    print(f"delivery delay (fix published - its last sentence received): while learning the cycle ender"
          f" (first {CYCLE_LEARN_S:g} s) {figures(learning)}; after, {figures(learned)}"
          f" (learned: {', '.join(gnss._assembler.cycle_enders) or 'none'})")
    ok = max(lags_epochs) <= 1
    print(f"target: never more than one epoch behind -> {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
