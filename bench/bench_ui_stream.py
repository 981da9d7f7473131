"""CPU while streaming 10 Hz GNSS + caliper + live plots, and fix-to-screen latency.

``python bench/bench_ui_stream.py [SECONDS]`` (default 60) runs the app on the demo simulators
(GNSS at 10 Hz, a caliper squeeze every 2 s, a rangefinder shot every 2 s into a transect),
prints the process CPU time over wall time (% of one core; the simulators run in the same
process and are included), and the latency from a fix's receive time (``t_monotonic_s``, set
by the reader thread) to the moment the map has drawn it (marker, accuracy circle and track are
drawn in the fix's own handler; median, 95th pct, max).
Targets: CPU <= 10 % of one core, latency <= 100 ms.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 60.0
    tmp = tempfile.mkdtemp()
    os.environ["FIELDAPP_CONFIG_DIR"] = tmp
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    app = QApplication([])
    from fieldapp.ui import app as appmod
    from fieldapp.app import config as C

    w = appmod.create_window(C.build({"simulate": True, "data_dir": tmp}, use_file=False))
    w.session.sim_gnss_rate_hz = 10.0
    w.show()
    while w.usable_fix() is None:
        QTest.qWait(50)
    w.panels["ohwm"].epochs.setValue(2)
    w.panels["ohwm"].start_average()
    while not w.visit.ohwm_points():
        QTest.qWait(50)
    w.tabs.setCurrentIndex(1)
    w.visit.start_transect(w.visit.ohwm_points()[0].uuid, 350.0)

    marker_latencies: list[float] = []

    def on_fix(fix) -> None:
        # fix listeners run in MainWindow.on_fix after map.update_position drew the marker,
        # accuracy circle and track (one repaint per fix); the status strip follows at once
        marker_latencies.append(time.monotonic() - fix.t_monotonic_s)
    w.fix_listeners.append(on_fix)

    rng_sim, cal_sim = w.session.simulator("rangefinder"), w.session.simulator("caliper")
    t0, c0 = time.monotonic(), time.process_time()
    next_action = t0 + 2.0
    while time.monotonic() - t0 < seconds:
        QTest.qWait(20)
        if time.monotonic() >= next_action:
            next_action += 2.0
            cal_sim.squeeze()
            if len(w.visit.stations()) < 10:
                from devices.sim import factory as simsupport

                simsupport.shoot(rng_sim, w.visit.current_distance_ft())
    wall, cpu = time.monotonic() - t0, time.process_time() - c0
    fixes, trees, stations = w.fix_count, len(w.visit.trees()), len(w.visit.stations())
    w.session.stop()
    appmod.dispose(w)
    print(f"{wall:.0f} s streaming: {fixes} fixes, {trees} trees, {stations} stations")
    print(f"CPU {100 * cpu / wall:.1f} % of one core (target <= 10 %)")
    for name, values in (("fix-to-screen latency (marker, track, status strip)",
                          marker_latencies),):
        lat = sorted(values)
        if lat:
            print(f"{name}: median {1000 * statistics.median(lat):.0f} ms, "
                  f"p95 {1000 * lat[int(0.95 * (len(lat) - 1))]:.0f} ms, "
                  f"max {1000 * lat[-1]:.0f} ms (target <= 100 ms)")


if __name__ == "__main__":
    main()
