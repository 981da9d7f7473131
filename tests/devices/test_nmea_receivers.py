"""What real receivers send that the scripted demo never does (issue 15 items 5, 6, 7, 10): a
no-fix start before the first fix, a GGA satellite count of 00 while fixed, GST every other
epoch, and streams with no epoch boundary at all."""

from __future__ import annotations

import datetime as dt
import tracemalloc

import pynmea2
import pytest

from devices.nmea import EpochAssembler, FixQuality
from devices.nmea.assembler import GST_HOLD_EPOCHS, MAX_EPOCH_LINES


def sentence(body: str) -> bytes:
    """``$body*hh`` with the checksum computed by pynmea2 (not by the code under test)."""
    return f"${body}*{pynmea2.NMEASentence.checksum(body):02X}".encode()


def run(lines, t: float = 1.0):
    a = EpochAssembler()
    fixes = a.feed_many(lines, t) + a.flush()
    return fixes, a


# ------------------------------------------------------------------ item 5: the first fix is kept
def test_first_fix_after_a_no_fix_start_is_its_own_epoch():
    # pynmea2 #94's capture: time-less no-fix GGA and RMC, then the first real (DGPS) fix
    dgps = sentence("GPGGA,101530.00,4807.038,N,01131.000,E,2,08,0.9,545.4,M,46.9,M,1.0,0001")
    assert dgps.endswith(b"*4F")
    fixes, a = run([b"$GPGGA,,,,,,0,00,,,M,0.0,M,,0000*48", b"$GPRMC,,V,,,,,,,,,,N*53", dgps])
    assert len(fixes) == 2
    nofix, first = fixes
    assert nofix.time_of_day_utc is None and nofix.quality is FixQuality.NO_FIX
    assert nofix.lat_deg is None and nofix.sentences == ("GPGGA", "GPRMC")
    # 48 deg 07.038' N = 48.1173 ; 011 deg 31.000' E = 11.516667
    assert first.time_of_day_utc == dt.time(10, 15, 30)
    assert first.quality is FixQuality.DGPS and first.has_position
    assert first.lat_deg == pytest.approx(48.1173) and first.lon_deg == pytest.approx(11.5166667)
    assert first.dgps_age_s == 1.0 and first.sentences == ("GPGGA",)
    assert a.stats.total_bad == 0


def test_first_fix_with_its_rmc_after_the_no_fix_epochs():
    # a whole cycle of the first fix (GGA + RMC at 10:15:30) after two time-less no-fix cycles
    lines = [b"$GPGGA,,,,,,0,00,,,M,0.0,M,,0000*48", b"$GPRMC,,V,,,,,,,,,,N*53"] * 2 + [
        sentence("GPGGA,101530.00,4807.038,N,01131.000,E,2,08,0.9,545.4,M,46.9,M,1.0,0001"),
        sentence("GPRMC,101530.00,A,4807.038,N,01131.000,E,0.0,,010625,,,D")]
    fixes, _ = run(lines)
    assert [(f.time_of_day_utc, f.quality) for f in fixes] == [
        (None, FixQuality.NO_FIX), (None, FixQuality.NO_FIX), (dt.time(10, 15, 30), FixQuality.DGPS)]
    assert fixes[-1].time_utc == dt.datetime(2025, 6, 1, 10, 15, 30, tzinfo=dt.UTC)


# ------------------------------------------------------------------ item 6: satellites from GSA / GNS
GT88_GSA = sentence("GPGSA,A,3,02,05,06,09,12,13,17,19,20,25,29,,1.6,0.9,1.3")  # 11 used


def test_gga_zero_satellites_while_fixed_takes_the_gsa_count():
    # Furuno GT-88: GGA says 00 satellites with a fix; its GSA lists 11
    gga = sentence("GPGGA,120000.00,4240.000,N,08920.000,W,1,00,0.9,300.0,M,-33.0,M,,")
    fixes, _ = run([gga, GT88_GSA])
    assert fixes[0].sats_used == 11


def test_gga_empty_satellites_while_fixed_takes_the_gns_count():
    gga = sentence("GPGGA,120000.00,4240.000,N,08920.000,W,1,,0.9,300.0,M,-33.0,M,,")
    gns = sentence("GNGNS,120000.00,4240.000,N,08920.000,W,AA,11,0.9,300.0,-33.0,,")
    fixes, _ = run([gga, gns])
    assert fixes[0].sats_used == 11


def test_zero_satellites_without_a_fix_stays_zero():
    fixes, _ = run([b"$GPGGA,,,,,,0,00,,,M,0.0,M,,0000*48", GT88_GSA])
    assert fixes[0].sats_used == 0


def test_gt88_epochs_pass_the_default_quality_gate():
    from fieldapp.survey.gnss import DEFAULT_GATE

    gga = sentence("GPGGA,120000.00,4240.000,N,08920.000,W,1,00,0.9,300.0,M,-33.0,M,,")
    fixes, _ = run([gga, GT88_GSA])
    assert DEFAULT_GATE.explain(fixes[0]) is None
    # without the GSA the zero count is what the gate sees, and it says so
    alone, _ = run([gga])
    assert DEFAULT_GATE.explain(alone[0]) == "0 satellites, fewer than 4"


# ------------------------------------------------------------------ item 7: accuracy without flicker
def rtk_epoch(second: int, with_gst: bool, quality: int = 4) -> list[bytes]:
    hms = f"1200{second:02d}.00"
    out = [sentence(f"GNGGA,{hms},4240.000,N,08920.000,W,{quality},12,0.5,300.0,M,-33.0,M,1.0,0001")]
    if with_gst:
        out.append(sentence(f"GNGST,{hms},0.01,0.006,0.008,0.0,0.006,0.008,0.02"))
    return out


def test_gst_every_other_epoch_is_held_and_marked():
    lines = []
    for s in range(6):
        lines += rtk_epoch(s, with_gst=s % 2 == 0)
    fixes, _ = run(lines)
    # GST sigmas 0.006 / 0.008 m: horizontal sqrt(0.006^2 + 0.008^2) = 0.010 m in every epoch,
    # never HDOP 0.5 x UERE 0.05 m = 0.025 m "(est.)" in between
    assert [round(f.horizontal_accuracy_m, 4) for f in fixes] == [0.01] * 6
    assert [f.accuracy_estimated for f in fixes] == [False] * 6
    assert [f.gst_held_epochs for f in fixes] == [0, 1, 0, 1, 0, 1]
    assert fixes[1].accuracy_source == "GST held 1 epoch"
    assert fixes[0].accuracy_source == "GST"


def test_gst_is_held_for_a_bounded_number_of_epochs():
    lines = rtk_epoch(0, True)
    for s in range(1, GST_HOLD_EPOCHS + 3):
        lines += rtk_epoch(s, False)
    fixes, _ = run(lines)
    held = [f.gst_held_epochs for f in fixes]
    assert held == [0, *range(1, GST_HOLD_EPOCHS + 1), 0, 0]
    # after the hold: the HDOP estimate, 0.5 x 0.05 m, marked estimated
    assert fixes[-1].horizontal_accuracy_m == pytest.approx(0.025)
    assert fixes[-1].accuracy_estimated and fixes[-1].sigma_lat_m is None


def test_gst_is_not_held_across_a_change_of_fix_quality():
    # RTK fixed with GST, then RTK float without: the fixed sigmas must not be shown for float
    fixes, _ = run(rtk_epoch(0, True) + rtk_epoch(1, False, quality=5))
    assert fixes[1].gst_held_epochs == 0
    assert fixes[1].horizontal_accuracy_m == pytest.approx(0.25)  # HDOP 0.5 x UERE 0.5 m
    assert fixes[1].accuracy_estimated


# ------------------------------------------------------------------ item 10: bounded memory
def cold_start_stream(n_cycles: int):
    """Time-less no-fix GGA + GSV cycles with no gap, the SNRs and the GSV signal ids varying
    (so neither the repeat cache nor a fixed set of cycle keys hides growth)."""
    for i in range(n_cycles):
        yield b"$GPGGA,,,,,,0,00,99.99,,,,,,*48"
        sig = format(i % 4096, "x")
        for page in (1, 2):
            yield sentence(f"GPGSV,2,{page},08,{page:02d},40,083,{i % 50:02d},"
                           f"{page + 10:02d},30,120,{(i + 7) % 50:02d},,,,,,,,,{sig}")


def test_cold_start_stream_keeps_memory_bounded():
    a = EpochAssembler()
    fixes = 0
    tracemalloc.start()
    try:
        for line in cold_start_stream(15_000):  # 45,000 lines, some 3.6 MB of NMEA
            fixes += len(a.feed(line, 1.0))
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # before the cap the time-less epoch held every line: 39 MB at this length, growing
    assert peak < 2_000_000, f"peak {peak / 1e6:.1f} MB"
    # one no-fix epoch per GGA (the repeated time-less GGA ends the cycle before it)
    assert fixes == 15_000 - 1
    assert a.stats.total_bad == 0


def test_varying_gsv_signal_ids_keep_the_cycle_learner_bounded():
    # timed fixes, each epoch's GSV with another (impossible) signal id: before, one learned key
    # per id (4,000 here, without end); now ids that are not one hex digit share one key, and the
    # learner starts afresh past MAX_CYCLE_KEYS
    from devices.nmea.cycle import MAX_CYCLE_KEYS

    a = EpochAssembler()
    tracemalloc.start()
    try:
        for i in range(4_000):
            hms = f"{10 + i // 3600:02d}{i // 60 % 60:02d}{i % 60:02d}.00"
            a.feed(sentence(f"GPGGA,{hms},4240.000,N,08920.000,W,1,08,0.9,300.0,M,-33.0,M,,"), i)
            a.feed(sentence(f"GPGSV,1,1,01,12,40,083,{i % 50:02d},{i + 100:x}"), i)
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(a._cycle._followed_at) <= 3  # GPGGA, and GPGSV signal ? last page
    assert peak < 2_000_000, f"peak {peak / 1e6:.1f} MB"
    # a learner fed ever new keys (valid-looking ones too) forgets rather than grows
    from devices.nmea.cycle import CycleLearner
    from devices.nmea.epoch import _Epoch

    learner = CycleLearner()
    for i in range(3 * MAX_CYCLE_KEYS):
        ep = _Epoch()
        ep.has_position, ep.tod = True, dt.time(12, i // 60 % 60, i % 60)
        ep.seen = {"GPGGA": 1, f"GPXX{i}": 1}
        ep.last = f"GPXX{i}"
        learner.learn(ep)
        assert len(learner._followed_at) <= MAX_CYCLE_KEYS + 2


def test_an_epoch_never_grows_past_its_cap():
    # time-less GSV alone, without end: closed every MAX_EPOCH_LINES lines (no position: no fix)
    a = EpochAssembler()
    for i in range(3 * MAX_EPOCH_LINES + 5):
        a.feed(sentence(f"GPGSV,1,1,01,{i % 99 + 1:02d},40,083,{i % 50:02d}"), 1.0)
    assert len(a._epoch.types) <= MAX_EPOCH_LINES


# ------------------------------------------------------------------ item 8: proprietary sentences
NOVATEL_BESTPOS = (b"#BESTPOSA,COM1,0,55.0,FINESTEERING,1419,340033.000,00000040,d821,2724;"
                   b"SOL_COMPUTED,SINGLE,51.11636418888,-114.03825876855,1064.8713,-16.2712,"
                   b"WGS84,1.6389,1.3191,2.4203,\"\",0.000,0.000,12,12,0,0,0,06,0,03*e8b4f2a2")


def test_known_proprietary_sentences_are_ignored_not_bad():
    lines = [sentence("INSPVA,2024,345600.0,51.1,-114.0,1064.9,0.0,0.0,0.0,1.0,2.0,3.0,INS_GOOD"),
             sentence("PTAX,1,2,3"), sentence("PSTMVER,GNSSLIB_8.4.18.25_ARM"),
             sentence("PGRMM,WGS 84"), NOVATEL_BESTPOS, b"# a log header",
             sentence("GPGGA,101530.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")]
    fixes, a = run(lines)
    stats = a.stats
    assert stats.total_bad == 0, stats.bad
    assert stats.ignored == 5 and stats.comments == 1
    assert len(fixes) == 1 and fixes[0].has_position
    # an INS sentence with a wrong checksum is still a bad line
    _, b = run([b"$INSPVA,1,2,3*00"])
    assert b.stats.bad["checksum"] == 1 and b.stats.ignored == 0


def test_garmin_pgrmz_and_pgrme_fill_an_epoch_without_gga():
    lines = [sentence("GPRMC,101530.00,A,4807.038,N,01131.000,E,0.0,,010625,,,A"),
             sentence("PGRME,15.0,M,45.0,M,25.0,M"), sentence("PGRMZ,2062,f,3")]
    fixes, a = run(lines)
    fix = fixes[0]
    assert fix.alt_msl_m == pytest.approx(628.4976)  # 2062 ft x 0.3048 m/ft
    assert fix.mode.gpsd_mode == 3  # PGRMZ field 3: 3 = the receiver's own altitude
    assert (fix.horizontal_accuracy_m, fix.vertical_accuracy_m) == (15.0, 45.0)
    assert fix.accuracy_estimated and fix.accuracy_source == "PGRME (Garmin estimate)"
    assert a.stats.used == 3 and a.stats.ignored == 0
    # with a GGA, its altitude and HDOP estimate win; PGRME fills only the vertical it lacks
    gga = sentence("GPGGA,101530.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
    fixes, _ = run([gga, *lines])
    fix = fixes[0]
    assert fix.alt_msl_m == 545.4
    assert fix.horizontal_accuracy_m == pytest.approx(4.5)  # HDOP 0.9 x UERE 5.0 m
    assert fix.vertical_accuracy_m == pytest.approx(6.75)  # 1.5 x 0.9 x 5.0 (no VDOP)


def test_pgrmz_in_another_unit_is_a_malformed_field():
    fixes, a = run([sentence("GPRMC,101530.00,A,4807.038,N,01131.000,E,0.0,,010625,,,A"),
                    sentence("PGRMZ,628,m,3")])
    assert fixes[0].alt_msl_m is None and a.stats.bad["malformed_field"] == 1


# ------------------------------------------------------------------ item 12: the sky of an epoch
def test_sky_of_a_multi_system_epoch():
    from devices.nmea.sky import sky_of

    lines = [sentence("GPGSV,1,1,03,12,40,083,46,44,30,190,38,15,10,200,,1"),
             sentence("GPGSV,1,1,01,12,40,083,50,,,,,,,,,,,,,6"),  # L5 of PRN 12: better SNR
             sentence("GLGSV,1,1,01,70,23,298,15"),
             sentence("GNGSA,A,3,12,44,,,,,,,,,,,1.8,1.0,1.5,1"),
             sentence("GNGSA,A,3,70,,,,,,,,,,,,1.8,1.0,1.5,2")]
    sky = sky_of([line.decode() for line in lines])
    assert [(s.system, s.prn, s.elevation_deg, s.azimuth_deg, s.snr_dbhz, s.used) for s in sky] == [
        ("GLONASS", 70, 23.0, 298.0, 15.0, True),
        ("GPS", 12, 40.0, 83.0, 50.0, True),
        ("GPS", 15, 10.0, 200.0, None, False),
        ("SBAS", 44, 30.0, 190.0, 38.0, True),  # PRN 33-64 is SBAS, also in GPS's GSA
    ]
