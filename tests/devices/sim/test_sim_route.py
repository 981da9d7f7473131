"""GnssSim route changes at run time (walk_to / set_route / hold) over a real pty: the reader
sees the person turn where they stand, walk at the path's speed and stop at the target.

Every wait polls with a generous deadline (never a fixed sleep as an assertion).
"""

from __future__ import annotations

import threading

import pytest
from pyproj import Geod

from devices.registry import DeviceConfig
from devices.sim.gnss import GnssPath, GnssSim
from tests.devices.sim.test_sim import Sink, _connected_reader, wait_for

GEOD = Geod(ellps="WGS84")
START = (43.592, -90.642)   # the demo origin (devices/sim/demo_scenario.py)


def dist_m(a, b):
    return GEOD.inv(a[1], a[0], b[1], b[0])[2]


def offset(point, dist, bearing):
    lon, lat, _ = GEOD.fwd(point[1], point[0], bearing, dist)
    return (lat, lon)


def test_route_change_offline_is_continuous_and_walks_at_the_speed():
    # Built epoch by epoch (no thread): 1 Hz, 2 m/s, standing at START.
    sim = GnssSim(GnssPath([START], speed_m_s=2.0), rate_hz=1, seed=1)
    try:
        eps = [sim.epoch(n) for n in range(3)]
        sim._n = 3
        assert sim.arrival_utc == eps[0].utc  # standing still: arrived at the first epoch
        target = offset(START, 20.0, 90.0)  # 20 m east
        sim.walk_to(*target)
        assert not sim.arrived
        eps = [sim.epoch(n) for n in range(3, 16)]
        # epoch 3 is where the person stood (no jump); then 2 m per epoch east:
        assert dist_m((eps[0].true_lat, eps[0].true_lon), START) < 1e-6
        assert dist_m((eps[5].true_lat, eps[5].true_lon), START) == pytest.approx(10.0, abs=1e-6)
        # 20 m at 2 m/s = 10 s: epoch 13 is at the target, and stays there
        assert dist_m((eps[10].true_lat, eps[10].true_lon), target) < 1e-6
        assert dist_m((eps[12].true_lat, eps[12].true_lon), target) < 1e-6
        assert sim.arrival_utc == eps[10].utc
        # a route of two waypoints at a faster speed, from the target
        corner = offset(target, 10.0, 0.0)
        sim._n = 16
        path = sim.set_route([corner, START], speed_m_s=5.0)
        assert path.length_m == pytest.approx(10.0 + dist_m(corner, START), abs=1e-6)
        eps = [sim.epoch(n) for n in range(16, 19)]
        assert dist_m((eps[2].true_lat, eps[2].true_lon), corner) == pytest.approx(0.0, abs=1e-6)
        sim._n = 17
        sim.hold()  # stands where the next epoch (17) would have been: 5 m north of target
        here = sim.position_now()
        assert dist_m(here, target) == pytest.approx(5.0, abs=1e-6)
        assert sim.arrived is False
        ep = sim.epoch(17)
        assert dist_m((ep.true_lat, ep.true_lon), here) < 1e-6 and sim.arrived
    finally:
        sim.stop()


def test_bad_route_is_refused_and_nothing_changes():
    sim = GnssSim(GnssPath([START], speed_m_s=1.0), rate_hz=1)
    try:
        before = sim.path
        with pytest.raises(ValueError, match="waypoint 1"):
            sim.set_route([(95.0, 0.0)])
        with pytest.raises(ValueError, match="speed"):
            sim.walk_to(*START, speed_m_s=-1.0)
        assert sim.path is before
    finally:
        sim.stop()


def test_walk_to_over_a_pty_reaches_the_target_and_holds():
    # 10 Hz, 4 m/s of path time at time_scale 5: 20 m/s of wall clock; 60 m takes ~3 s.
    sink = Sink()
    with GnssSim(GnssPath([START], speed_m_s=4.0), rate_hz=10, seed=7, time_scale=5.0,
                 sentences=("GGA", "RMC", "GST")) as sim:
        with _connected_reader(DeviceConfig("gnss", "nmea", sim.port), sink):
            assert wait_for(lambda: any(f.lat_deg for f in list(sink.items)))
            target = offset(START, 60.0, 45.0)
            # route changes from another thread while the simulator thread sends
            t = threading.Thread(target=sim.walk_to, args=target, name="fieldapp-test-route",
                                 daemon=True)
            t.start()
            t.join(10)
            assert wait_for(lambda: sim.arrived, 60.0)
            arrival = sim.arrival_utc
            assert wait_for(lambda: sum(1 for f in list(sink.items) if f.lat_deg is not None
                                        and f.time_utc >= arrival) >= 5, 60.0)
        fixes = [f for f in sink.items if f.lat_deg is not None]
    at = [f for f in fixes if f.time_utc >= arrival]
    # RTK fixed noise is ~1 cm: every fix from the arrival on is at the target (10 cm)
    assert all(dist_m((f.lat_deg, f.lon_deg), target) < 0.1 for f in at)
    # on the way, the fixes lie on the straight line START -> target (within 10 cm)
    way = [f for f in fixes if f.time_utc < arrival]
    for f in way:
        d0 = dist_m(START, (f.lat_deg, f.lon_deg))
        assert d0 + dist_m((f.lat_deg, f.lon_deg), target) == pytest.approx(60.0, abs=0.2)
    # and at most 4 m/s x 5 / 10 Hz = 2 m apart epoch to epoch (+ noise)
    steps = [dist_m((a.lat_deg, a.lon_deg), (b.lat_deg, b.lon_deg))
             for a, b in zip(way, way[1:], strict=False) if (b.time_utc - a.time_utc).total_seconds() < 0.15]
    assert steps and max(steps) < 2.1
