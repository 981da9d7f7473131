"""Fix-to-screen delay with and without a 1 kB/s RTCM stream written to the receiver's own port,
in one run.

``python bench/bench_ntrip_lag.py [SECONDS]`` (default 60, after a 10 s warm-up) runs the app window (offscreen) on a
simulated 10 Hz receiver that reads what the app writes to it (``GnssSim(rtk=...)``), with the
app's NTRIP client on pygnssutils' caster on loopback (the tests' ``LoopbackCaster``) sending
1 kB/s of RTCM 3 (1005 + 1004 + 1029 filler, one burst a second, as a base's MSM epoch). The
caster is paused and resumed every 10 s, so "without" and "with" alternate in the same run
(drift and load hit both alike).

Delay: from the simulator writing an epoch to the port to the window's fix handler having drawn
it (map marker, track, status strip) -- the path the corrections share (the port, the reader
thread, the GUI thread). Printed: the median, 95th percentile and count of each phase, and their
difference. Target (issue 15): corrections add no measurable delay (the medians agree within
the run's own spread).
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

PHASE_S = 10.0
RTCM_BYTES_PER_S = 1000


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 60.0
    tmp = Path(tempfile.mkdtemp(prefix="bench-ntrip-"))
    os.environ["FIELDAPP_CONFIG_DIR"] = str(tmp / "cfg")
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from devices.sim.gnss import GnssPath, GnssSim
    from devices.sim.rtk import RtkTimes
    from fieldapp.app import config as C
    from fieldapp.ui import app as appmod
    from tests.devices.ntripcaster import LoopbackCaster

    _app = QApplication([])  # held for the whole run (Qt needs the application object alive)
    sent: dict = {}

    class TimedSim(GnssSim):
        """Remembers when each epoch was written (by its UTC time stamp)."""

        def _tick(self, now: float) -> None:
            sent[self.start_utc.replace(tzinfo=None).timestamp() + self._n / self.rate_hz] = time.monotonic()
            super()._tick(now)

    sim = TimedSim(GnssPath([(43.07, -89.40)]), rate_hz=10, quality="dgps", seed=7,
                   rtk=RtkTimes(1.0, 3.0, 5.0, 15.0), link=tmp / "gnss",
                   sentences=("GGA", "RMC", "GSA", "GST", "VTG", "ZDA")).start()
    # 1005 (25 B) + 1004 (139 B) + four 1029 frames (15 B each + text) = 1000 B a second
    filler = RTCM_BYTES_PER_S - 164 - 4 * 15
    caster = LoopbackCaster(rate_hz=1.0, filler_bytes=filler)
    caster.pause()
    cfg = C.build({"gnss_url": sim.port, "ntrip_caster": caster.url(), "ntrip_gga_interval_s": 5.0,
                   "data_dir": str(tmp), "visit": str(tmp / "bench.gpkg")}, use_file=False)
    w = appmod.create_window(cfg)
    w.show()
    delays = {"warm-up": [], "without": [], "with": []}
    phase = {"name": "warm-up", "k": 0}
    per_phase: dict = {}

    def on_fix(fix) -> None:
        t = fix.time_utc
        if t is None:
            return
        key = t.replace(tzinfo=None).timestamp()
        t_sent = sent.pop(key, None)
        if t_sent is not None:
            d = time.monotonic() - t_sent
            delays[phase["name"]].append(d)
            per_phase.setdefault((phase["name"], phase["k"]), []).append(d)

    w.devices.on_fix(on_fix)
    while w.usable_fix() is None:
        QTest.qWait(50)
    t0 = time.monotonic()
    c0 = time.process_time()
    written = {"with": 0}
    while time.monotonic() - t0 < seconds + PHASE_S:
        k = int((time.monotonic() - t0) // PHASE_S)  # phase 0: warm-up, not counted
        name = "warm-up" if k == 0 else "with" if k % 2 else "without"
        if name != phase["name"]:
            (caster.resume if name == "with" else caster.pause)()
            phase["name"] = name
        phase["k"] = k
        QTest.qWait(20)
    wall, cpu = time.monotonic() - t0, time.process_time() - c0
    st = w.session.corrections_status()
    written["with"] = st.bytes_total if st else 0
    stats = w.session.gnss_stats()
    w.session.stop()
    appmod.dispose(w)
    caster.close()
    sim.stop()
    load = os.getloadavg() if hasattr(os, "getloadavg") else ("?",) * 3
    print(f"{wall:.0f} s: {PHASE_S:g} s warm-up, then phases of {PHASE_S:g} s alternating; load average {load[0]:.2f} "
          f"({os.cpu_count()} cores); process CPU {100 * cpu / wall:.1f} % of one core")
    with_s = (wall - PHASE_S) / 2
    print(f"RTCM written to the receiver's port: {written['with']} bytes "
          f"(~{written['with'] / with_s:.0f} B/s over the 'with' phases; target {RTCM_BYTES_PER_S});"
          f" simulated receiver parsed {dict(sim.rtk.messages)}")
    if stats is not None:
        print(f"NMEA bad sentences: {sum(stats.bad.values())}")
    report(delays, per_phase)


def report(delays: dict, per_phase: dict) -> None:
    """Median, p95 and count of each phase kind, the per-phase medians and the difference."""
    medians = {}
    for name in ("without", "with"):
        lat = sorted(delays[name])
        if not lat:
            print(f"{name}: no fixes")
            continue
        medians[name] = statistics.median(lat)
        print(f"fix-to-screen {name:>7} corrections: median {1000 * medians[name]:.1f} ms, "
              f"p95 {1000 * lat[int(0.95 * (len(lat) - 1))]:.1f} ms, n {len(lat)}")
    for name in ("without", "with"):
        ms = [1000 * statistics.median(v) for (n, _), v in sorted(per_phase.items()) if n == name]
        print(f"  medians of each {name} phase: " + ", ".join(f"{m:.1f}" for m in ms) + " ms")
    if len(medians) == 2:
        print(f"difference of the medians (with - without): "
              f"{1000 * (medians['with'] - medians['without']):+.1f} ms (target: none measurable)")


if __name__ == "__main__":
    main()
