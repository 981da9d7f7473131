"""The simulated receiver fed corrections, end to end: pygnssutils' caster on loopback ->
NtripClient -> the receiver's own port (GnssReader.write) -> GnssSim's RTK engine -> NMEA ->
GnssReader fix quality, correction age and GST accuracy. Waits are on conditions, never on the
simulated convergence times."""

from __future__ import annotations

import time

import pytest

from devices.nmea import FixQuality, GnssReader
from devices.ntrip import Caster, NtripClient
from devices.sim.gnss import GnssPath, GnssSim
from devices.sim.rtk import RtkEngine, RtkTimes, gps_observables_1004, station_1005, text_1029
from devices.transport import SerialSettings
from tests.devices.ntripcaster import LoopbackCaster

FAST = RtkTimes(float_after_s=0.5, fixed_after_s=1.5, fixed_max_age_s=1.0, float_max_age_s=2.5)


def wait_fix(reader: GnssReader, cond, timeout_s: float = 60.0):
    """The first fix satisfying ``cond``; fails after ``timeout_s`` (generous: a loaded machine)."""
    deadline = time.monotonic() + timeout_s
    fix = None
    while time.monotonic() < deadline:
        fix = reader.wait_fix(1.0, newer_than=fix)
        if fix is not None and cond(fix):
            return fix
    pytest.fail(f"no such fix within {timeout_s} s; last {fix}")


@pytest.fixture
def receiver(tmp_path):
    sim = GnssSim(GnssPath([(43.07, -89.40)]), rate_hz=5, quality="dgps", rtk=FAST, seed=1,
                  link=tmp_path / "gnss")
    sim.start()
    reader = GnssReader(SerialSettings(sim.port), max_age_s=5).start()
    yield sim, reader
    reader.stop()
    sim.stop()


def test_dgps_then_float_then_fixed_then_back_as_corrections_stop(receiver):
    sim, reader = receiver
    fix = wait_fix(reader, lambda f: f.has_position)
    assert fix.quality is FixQuality.DGPS and fix.dgps_age_s is None  # no RTCM yet: SBAS DGPS
    assert fix.horizontal_accuracy_m == pytest.approx(0.5, abs=0.001)  # GST: DGPS sigma
    with LoopbackCaster(rate_hz=5, station_id=42) as caster:
        client = NtripClient(Caster.parse(caster.url()), reader.write, position=reader.latest_fix,
                             gga_interval_s=1).start()
        try:
            fl = wait_fix(reader, lambda f: f.quality is FixQuality.RTK_FLOAT)
            assert fl.horizontal_accuracy_m == pytest.approx(0.15, abs=0.001)
            fx = wait_fix(reader, lambda f: f.quality is FixQuality.RTK_FIXED)
            assert fx.horizontal_accuracy_m == pytest.approx(0.01, abs=0.001)
            assert fx.dgps_station == "0042"  # from RTCM 1005's station id
            assert 0.0 <= fx.dgps_age_s <= FAST.fixed_max_age_s + 0.05  # GGA field 13: 0.1 s
            caster.pause()  # the base goes quiet; the connection stays up
            back = wait_fix(reader, lambda f: f.quality is not FixQuality.RTK_FIXED)
            assert back.quality is FixQuality.RTK_FLOAT
            assert back.dgps_age_s >= FAST.fixed_max_age_s - 0.05  # rounded to 0.1 s in the GGA
            wait_fix(reader, lambda f: f.quality is FixQuality.DGPS)
            caster.resume()
            wait_fix(reader, lambda f: f.quality is FixQuality.RTK_FIXED)
        finally:
            client.stop()
    assert sim.rtk.messages[1005] >= 1 and sim.rtk.messages[1004] >= 1
    assert sim.rtk.bad_frames == 0
    assert reader.stats().nmea.bad.get("checksum", 0) == 0  # writing did not disturb reading


def test_garbage_and_broken_frames_written_to_the_port_do_not_give_rtk(receiver):
    sim, reader = receiver
    wait_fix(reader, lambda f: f.has_position)
    frame = gps_observables_1004(7)
    broken = frame[:-1] + bytes([frame[-1] ^ 0xFF])  # CRC 24Q fails
    reader.write(b"not rtcm \xd3\x00\x05garbage" * 20 + broken + text_1029("hello"))
    wait_fix(reader, lambda f: sim.rtk.messages[1029] == 1)
    assert sim.rtk.bad_frames >= 1 and sim.rtk.messages[1004] == 0
    assert reader.latest_fix().quality is FixQuality.DGPS


def test_engine_needs_the_station_before_observations():
    t = [0.0]
    e = RtkEngine("autonomous", FAST, clock=lambda: t[0])
    for t[0] in (0.0, 0.6, 1.2, 1.8):
        e.note_message(1004)
    assert e.quality() == "autonomous"  # no 1005: the receiver cannot use the observations
    e.note_message(1005, 9)
    for t[0] in (2.0, 2.6, 3.6):
        e.note_message(1004)
    assert (e.quality(), e.station_id) == ("rtk_fixed", 9)
    t[0] = 5.0  # a gap beyond fixed_max_age_s: convergence starts again
    e.note_message(1004)
    assert e.quality() == "autonomous"
    t[0] = 5.6
    assert e.quality() == "rtk_float"


def test_rtk_times_checked():
    with pytest.raises(ValueError, match="no later than fixed"):
        RtkTimes(float_after_s=5, fixed_after_s=1)
    with pytest.raises(ValueError, match="no more than float max age"):
        RtkTimes(fixed_max_age_s=10, float_max_age_s=5)
    with pytest.raises(ValueError, match="autonomous or dgps"):
        GnssSim(GnssPath([(43.0, -89.0)]), quality="rtk_fixed", rtk=FAST, endpoint="tcp")


def test_frames_built_with_pyrtcm_carry_their_fields():
    from pyrtcm import RTCMReader

    m = RTCMReader.parse(station_1005(42, (1.0, -2.0, 3.5)))
    assert (m.identity, m.DF003, m.DF025, m.DF026, m.DF027) == ("1005", 42, 1.0, -2.0, 3.5)
    m = RTCMReader.parse(gps_observables_1004(42, 123_000, sats=3))
    assert (m.identity, m.DF004, m.DF006) == ("1004", 123_000, 3)
