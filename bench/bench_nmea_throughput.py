"""Sentences per second through the NMEA reader, beside pynmea2.parse alone (same lines, same run).

Three figures on the longest real capture in ../shared/data/nmea (by line count), repeated to run
for a few seconds each:

1. ``pynmea2.parse(check=True)`` alone on the decoded lines (the reference);
2. the pure pipeline, bytes in -> Fix out: LineFramer + EpochAssembler on 4 KiB chunks;
3. the whole reader: GnssReader's thread reading a real pseudo-terminal (termios, framing,
   epochs, newest-wins slot) while a writer thread pushes the bytes into the master.

Target (issue 2): ratio of the whole reader to pynmea2 alone >= 0.5.

Run: ``.venv/bin/python bench/bench_nmea_throughput.py [--repeat N]``
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

import pynmea2

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from devices.nmea import EpochAssembler, GnssReader  # noqa: E402
from devices.transport import LineFramer, LinkState, SerialSettings  # noqa: E402

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "nmea"


def longest_log() -> Path:
    logs = [p for p in DATA.iterdir() if p.suffix in (".log", ".txt")]
    return max(logs, key=lambda p: p.read_bytes().count(b"\n"))


def sentences_of(data: bytes) -> list[bytes]:
    return [ln.strip() for ln in data.splitlines() if ln.strip() and not ln.startswith(b"#")]


def bench_pynmea2(lines: list[bytes]) -> float:
    texts = [ln.decode("ascii", "replace") for ln in lines]
    t0 = time.perf_counter()
    for text in texts:
        try:
            pynmea2.parse(text, check=True)
        except pynmea2.ParseError:
            pass
    return len(texts) / (time.perf_counter() - t0)


def bench_pipeline(data: bytes, n_lines: int) -> tuple[float, int]:
    framer, assembler = LineFramer(), EpochAssembler()
    fixes = 0
    t0 = time.perf_counter()
    for i in range(0, len(data), 4096):
        t = time.monotonic()
        for line in framer.feed(data[i : i + 4096]):
            fixes += len(assembler.feed(line, t))
    fixes += len(assembler.flush())
    elapsed = time.perf_counter() - t0
    s = assembler.stats
    assert s.good + s.total_bad + s.comments >= n_lines, s
    return n_lines / elapsed, fixes


def bench_reader_over_pty(data: bytes, n_lines: int) -> tuple[float, int]:
    master, slave = os.openpty()
    with tempfile.TemporaryDirectory() as tmp:
        link = Path(tmp) / "gnss"
        os.symlink(os.ttyname(slave), link)
        connected = threading.Event()
        fixes = []
        gnss = GnssReader(
            SerialSettings(str(link), baudrate=921600, read_timeout_s=0.05),
            on_fix=fixes.append,
            on_status=lambda s: connected.set() if s.state is LinkState.CONNECTED else None,
            name="bench",
        )
        with gnss:
            connected.wait(10)

            def writer():
                view = memoryview(data)
                while view:
                    n = os.write(master, view[:4096])
                    view = view[n:]

            t0 = time.perf_counter()
            w = threading.Thread(target=writer, name="fieldapp-bench-writer", daemon=True)
            w.start()
            while True:
                st = gnss.stats().nmea
                if st.good + st.total_bad + st.comments >= n_lines:
                    break
                time.sleep(0.002)
            elapsed = time.perf_counter() - t0
            w.join()
            stats = gnss.stats()
        os.close(slave)
        os.close(master)
    return n_lines / elapsed, len(fixes) + 0 * stats.reader.bytes_read


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10, help="times the log is repeated (default 10)")
    args = parser.parse_args(argv)
    log = longest_log()
    raw = log.read_bytes()
    data = raw * args.repeat
    lines = sentences_of(data)
    print(f"log: {log.name}  ({len(raw)} bytes, {len(sentences_of(raw))} sentences) x {args.repeat}"
          f" = {len(lines)} sentences, {len(data) / 1e6:.1f} MB")
    ref = bench_pynmea2(lines)
    pipe, pipe_fixes = bench_pipeline(data, len(lines))
    whole, whole_fixes = bench_reader_over_pty(data, len(lines))
    print(f"pynmea2.parse alone           : {ref:10.0f} sentences/s")
    print(f"framer+assembler (bytes->Fix) : {pipe:10.0f} sentences/s  ratio {pipe / ref:.2f}  ({pipe_fixes} fixes)")
    print(f"GnssReader over a pty         : {whole:10.0f} sentences/s  ratio {whole / ref:.2f}  ({whole_fixes} fixes)")
    print(f"target: whole reader / pynmea2 >= 0.5 -> {'met' if whole / ref >= 0.5 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
