"""Simulators over real pseudo-terminals: simulator -> port -> reader gives back the script.

Every wait polls with a generous deadline (never a fixed sleep as an assertion).
"""

from __future__ import annotations

import contextlib
import math
import threading
import time

import pytest

from devices.registry import DeviceConfig, open_device
from devices.sim.caliper import CaliperSim
from devices.sim.gnss import GnssPath, GnssSim
from devices.sim.inclinometer import InclinometerSim
from devices.sim.rangefinder import RangefinderSim
from devices.sim.replay import ReplaySim, load_epochs
from devices.sim.scenario import load_scenario, start_scenario

TIMEOUT_S = 20.0


def wait_for(predicate, timeout_s: float = TIMEOUT_S) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return bool(predicate())


class Sink:
    def __init__(self):
        self.items = []
        self.status = []
        self.lock = threading.Lock()

    def __call__(self, item):
        with self.lock:
            self.items.append(item)

    def on_status(self, status):
        with self.lock:
            self.status.append(status)

    def connected(self):
        with self.lock:
            return any(s.state.value == "connected" for s in self.status)


@contextlib.contextmanager
def _connected_reader(config, sink, **kw):
    reader = open_device(config, sink, sink.on_status, **kw)
    reader.start()
    try:
        assert wait_for(sink.connected), sink.status
        yield reader
    finally:
        reader.stop()


DEMO = load_scenario("demo")
PROFILE = DEMO["transect"]["profile_ft"]
STATIONS = DEMO["transect"]["stations_ft"]


def test_trupulse_round_trip_gives_the_scripted_transect():
    sink = Sink()
    with RangefinderSim(PROFILE, targets_ft=STATIONS[1:], azimuth_deg=350.0) as sim:
        with _connected_reader(DeviceConfig("rangefinder", "trupulse", sim.port), sink) as reader:
            scripted = [sim.shoot() for _ in STATIONS[1:]]
            assert wait_for(lambda: len(sink.items) == len(scripted))
    for want, got in zip(scripted, sink.items, strict=True):
        assert got.horizontal_distance_ft == pytest.approx(want.horizontal_distance_ft, abs=0.01)
        assert got.slope_pct == pytest.approx(want.slope_pct, abs=0.01)
        assert got.azimuth_deg == 350.0
        assert not got.low_quality
    # the scripted segments are the demo's: 4 % to 40 ft, 18 % to 80, 20 % to 120, 5, 3
    # (inclination sent to 0.01 deg: at 20 % that is +-0.009 % of slope)
    assert [s.slope_pct for s in sink.items] == pytest.approx(
        [4.0, 4.0, 18.0, 18.0, 20.0, 20.0, 5.0, 5.0, 3.0, 3.0], abs=0.01)
    # slope distance: the TruPulse sends 0.1 ft (hypot(20, 3.6) = 20.32 -> "20.30")
    assert sink.items[2].slope_distance_ft == pytest.approx(20.3)
    assert reader.counts["accepted"] == 10


@pytest.mark.parametrize("units, resolution_ft", [("M", 0.1 / 0.3048), ("Y", 0.3)])
def test_trupulse_units(units, resolution_ft):
    sink = Sink()
    with RangefinderSim(PROFILE, units=units) as sim:
        with _connected_reader(DeviceConfig("rangefinder", "trupulse", sim.port), sink):
            shot = sim.shoot(80.0)  # 0 -> 80 ft
            assert wait_for(lambda: sink.items)
    got = sink.items[0]
    assert got.units_sent.value == units
    assert got.horizontal_distance_ft == pytest.approx(80.0, abs=resolution_ft / 2 + 1e-9)
    assert got.slope_pct == pytest.approx(shot.slope_pct, abs=0.01)


def test_app_triggers_a_trupulse_shot_and_id_over_the_port():
    from devices.transport import LineFramer, SerialSettings, close_port, open_port

    with RangefinderSim(PROFILE, targets_ft=[40.0]) as sim:
        handle = open_port(SerialSettings(sim.port, baudrate=4800, read_timeout_s=0.05))
        try:
            framer, lines = LineFramer(), []
            handle.write(b"$GO\r\n$ID\r\n$MM,0\r\n")
            deadline = time.monotonic() + TIMEOUT_S
            while len(lines) < 3 and time.monotonic() < deadline:
                lines += framer.feed(handle.read(256))
        finally:
            close_port(handle)
    from devices.instruments import parse

    shot, info, ok = lines[:3]
    assert parse(shot).horizontal_distance_ft == 40.0
    assert parse(info).model == "TP360"
    assert ok == b"$OK"


def test_vertex_ble_fragments_through_a_pty():
    sink = Sink()
    with RangefinderSim(PROFILE, dialect="vertex", ble=True, seed=7, azimuth_deg=350.0) as sim:
        with _connected_reader(DeviceConfig("rangefinder", "vertex", sim.port), sink):
            scripted = [sim.shoot() for _ in range(5)]
            assert wait_for(lambda: len(sink.items) == 5)
    for want, got in zip(scripted, sink.items, strict=True):
        # the Vertex sends 0.1 ft and 0.1 deg: compare to that resolution
        assert got.horizontal_distance_ft == pytest.approx(want.horizontal_distance_ft, abs=0.05)
        assert got.inclination_deg == pytest.approx(want.inclination_deg, abs=0.05)
        assert got.protocol == "vertex"


def test_caliper_round_trip_gives_the_tally_with_species():
    trees = DEMO["stand"]["trees"]
    sink = Sink()
    with start_scenario(DEMO, only=["caliper"]) as run:
        config = run.device_configs()["caliper"]
        reader = open_device(config, sink, sink.on_status)
        reader.assembler.species = run.species_table()
        reader.start()
        with reader:
            assert wait_for(sink.connected)
            for _ in trees:
                run["caliper"].squeeze()
            assert wait_for(lambda: len(sink.items) == len(trees))
    for tree, got in zip(trees, sink.items, strict=True):
        assert got.dbh_in == pytest.approx(tree["dbh_in"], abs=0.1)
        assert got.species_number == tree["species_number"]
        assert got.species_code == tree["species_code"]
        assert got.leaf_habit == tree["leaf_habit"]


def test_ascii_inclinometer_at_8e1_through_the_same_transport():
    sink = Sink()
    config = DeviceConfig("inclinometer", "ascii-inclinometer", "placeholder")
    assert (config.serial_settings().parity, config.serial_settings().bytesize) == ("E", 8)
    with InclinometerSim(2.5, -1.25, rate_hz=20) as sim:
        config = DeviceConfig("inclinometer", "ascii-inclinometer", sim.port)
        # check_port=False: on this Linux 6.18 kernel a pty accepts PARENB in tcsetattr only on
        # the first open (a second open with parity E fails EINVAL), so the reader's open must
        # be the only one here.
        with _connected_reader(config, sink, check_port=False) as reader:
            assert reader.settings.parity == "E"
            assert wait_for(lambda: {r.pitch_deg for r in list(sink.items)} >= {2.5}
                            and {r.roll_deg for r in list(sink.items)} >= {-1.25})
            sim.set_tilt(-3.0, 0.5)
            assert wait_for(lambda: any(r.pitch_deg == -3.0 for r in list(sink.items)))
    assert reader.counts.get("rejected_malformed", 0) == 0


def test_gnss_sim_through_gnss_reader_follows_the_path():
    from pyproj import Geod

    geod = Geod(ellps="WGS84")
    path = GnssPath.from_legs((43.592, -90.642), [(20.0, 350.0), (20.0, 80.0)], speed_m_s=2.0)
    sink = Sink()
    with GnssSim(path, rate_hz=10, quality="rtk_fixed", seed=3,
                 sentences=("GGA", "RMC", "GSA", "GSV", "GST", "VTG", "ZDA")) as sim:
        with _connected_reader(DeviceConfig("gnss", "nmea", sim.port), sink):
            assert wait_for(lambda: sum(1 for f in list(sink.items) if f.lat_deg) >= 15)
        epochs = {e.utc: e for e in sim.epochs}
    fixes = [f for f in sink.items if f.lat_deg is not None]
    matched = 0
    for fix in fixes:
        ep = epochs.get(fix.time_utc)
        if ep is None:
            continue
        matched += 1
        _, _, dist = geod.inv(fix.lon_deg, fix.lat_deg, ep.true_lon, ep.true_lat)
        assert dist < 0.1  # RTK fixed noise is ~1 cm; 10 cm is 10 sigma
        assert fix.quality.name == "RTK_FIXED"
    assert matched >= 10


def test_gnss_noise_matches_quality_and_dropouts():
    path = GnssPath([(43.3, -91.79)], speed_m_s=0.0)
    sim = GnssSim(path, rate_hz=1, seed=11, quality="rtk_fixed",
                  quality_schedule=[{"at_s": 100, "quality": "autonomous"}],
                  dropouts=[{"at_s": 300, "duration_s": 5, "mode": "nofix"},
                            {"at_s": 310, "duration_s": 5, "mode": "silent"}])
    try:
        from pyproj import Geod

        geod = Geod(ellps="WGS84")
        eps = [sim.epoch(n) for n in range(320)]
    finally:
        sim.stop()

    def rms(sel):
        d = [geod.inv(e.lon, e.lat, e.true_lon, e.true_lat)[2] for e in sel]
        return math.sqrt(sum(x * x for x in d) / len(d))

    assert rms(eps[10:100]) < 0.05  # RTK fixed: centimetres
    assert 0.3 < rms(eps[150:300]) < 6.0  # autonomous: metres
    assert all(e.lat is None and e.sentences for e in eps[300:305])  # no fix, still talking
    assert all(e.sentences == () for e in eps[310:315])  # silent


def test_gnss_bad_sentences_are_injected_at_the_rate():
    import pynmea2

    sim = GnssSim(GnssPath([(43.3, -91.79)]), rate_hz=1, seed=5, bad_rate=0.2,
                  sentences=("GGA", "RMC"))
    try:
        sentences = [s for n in range(200) for s in sim.epoch(n).sentences]
    finally:
        sim.stop()
    bad = 0
    for s in sentences:
        try:
            pynmea2.parse(s.decode("ascii").strip(), check=True)
        except (pynmea2.ParseError, UnicodeDecodeError, ValueError):
            bad += 1
    # 400 sentences at p = 0.2: mean 80, sd 8; a truncation may still parse as a shorter one
    assert 40 <= bad <= 110


def test_replay_as_fast_as_possible_delivers_every_line(shared_dir):
    from devices.transport import PortReader, SerialSettings

    log = shared_dir / "data/nmea/gpsd-bt451.log"
    want = [line for _, lines in load_epochs(log) for line in lines]
    got, states = [], []
    sim = ReplaySim(log, speed=None)  # the pty exists from here; playing starts at start()
    try:
        with PortReader(SerialSettings(sim.port), lambda b, t: got.append(b),
                        on_status=lambda s: states.append(s.state.value), name="replay"):
            assert wait_for(lambda: "connected" in states)
            sim.start()
            assert wait_for(lambda: len(got) >= len(want), 60.0)
            assert sim.finished.is_set()
    finally:
        sim.stop()
    assert len(want) == 144
    assert got == want


def test_unplug_and_replug_reconnects_through_the_link(tmp_path):
    sink = Sink()
    link = tmp_path / "rangefinder"
    with RangefinderSim(PROFILE, link=link) as sim:
        assert sim.port == str(link) and link.is_symlink()
        with _connected_reader(DeviceConfig("rangefinder", "trupulse", sim.port), sink) as reader:
            sim.shoot()
            assert wait_for(lambda: len(sink.items) == 1)
            sim.unplug()
            assert not link.exists()
            assert wait_for(lambda: any(s.state.value == "disconnected" for s in sink.status))
            sim.replug()
            assert wait_for(lambda: reader.stats.connects >= 2)
            sim.shoot()
            assert wait_for(lambda: len(sink.items) == 2)


def test_tcp_endpoint_serves_socket_url():
    sink = Sink()
    with CaliperSim([{"species_number": 4, "label": "SUG MAP", "dbh_in": 12.0}],
                    endpoint="tcp") as sim:
        assert sim.port.startswith("socket://127.0.0.1:")
        with _connected_reader(DeviceConfig("caliper", "digitech", sim.port), sink):
            # the server learns of the client on its next poll; squeeze until one arrives
            assert wait_for(lambda: sim.squeeze() and len(sink.items) >= 1)
    assert sink.items[0].dbh_in == pytest.approx(12.0, abs=0.02)  # 305 mm


def test_missing_port_names_it():
    from devices.errors import PortUnavailable

    with pytest.raises(PortUnavailable, match="/dev/ttyFIELDAPP404"):
        open_device(DeviceConfig("rangefinder", "trupulse", "/dev/ttyFIELDAPP404"), print)
    with pytest.raises(ValueError, match="is for caliper"):
        DeviceConfig("rangefinder", "digitech", "x")
