"""devices.nmea on bytes: sentences, epochs, bad input. Pure: no threads, no ports.

Expected numbers are worked out by hand from the sentence text (ddmm.mmmm -> dd + mm.mmmm/60,
knots x 1852/3600); checksums of hand-made sentences come from pynmea2's own XOR routine.
"""

from __future__ import annotations

import calendar
import datetime as dt
import json
import math
import time

import pynmea2
import pytest

from devices.errors import BadSentence, ChecksumError, DeviceError
from devices.nmea import (
    UERE_M,
    VDOP_PER_HDOP,
    BadKind,
    EpochAssembler,
    Fix,
    FixMode,
    FixQuality,
    fix_to_json,
    parse_gsv,
    parse_sentence,
)

UTC = dt.UTC


def sentence(body: str) -> bytes:
    """``$body*hh`` with the checksum computed by pynmea2 (not by the code under test)."""
    return f"${body}*{pynmea2.NMEASentence.checksum(body):02X}".encode()


def epoch(*lines: bytes, antenna_height_m: float = 0.0, t: float = 100.0) -> Fix:
    """Feed one epoch and flush; exactly one fix expected."""
    a = EpochAssembler(antenna_height_m)
    out = a.feed_many(lines, t) + a.flush()
    assert len(out) == 1, out
    return out[0]


# A Trimble-style RTK GGA of exactly 86 characters (legal: > 82 is fine for high-precision receivers).
RTK_GGA = sentence("GNGGA,123519.00,4807.03812345,N,01131.00012345,E,4,12,0.50,545.43,M,46.90,M,1,0001")
RTK_RMC = sentence("GNRMC,123519.00,A,4807.03812345,N,01131.00012345,E,0.02,,230394,,,R,V")
RTK_GST = sentence("GNGST,123519.00,0.01,0.012,0.009,45.0,0.011,0.010,0.025")
GOOD_GGA = b"$GPGGA,120001.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*66"


def test_rtk_gga_of_86_characters():
    assert len(RTK_GGA) == 86
    fix = epoch(RTK_GGA)
    # 48 deg 07.03812345' N = 48 + 7.03812345/60 ; 011 deg 31.00012345' E = 11 + 31.00012345/60
    assert fix.lat_deg == pytest.approx(48.1173020575, abs=1e-10)
    assert fix.lon_deg == pytest.approx(11.516668724166667, abs=1e-10)
    assert fix.quality is FixQuality.RTK_FIXED and fix.quality.label == "RTK fixed"
    assert fix.mode is FixMode.THREE_D and fix.mode.gpsd_mode == 3
    assert fix.sats_used == 12 and fix.hdop == 0.5
    assert fix.alt_msl_m == 545.43 and fix.geoid_sep_m == 46.90
    assert fix.alt_hae_m == pytest.approx(592.33)  # 545.43 + 46.90
    assert fix.dgps_age_s == 1.0 and fix.dgps_station == "0001"
    assert fix.time_of_day_utc == dt.time(12, 35, 19)
    assert fix.time_utc is None  # no RMC/ZDA yet: date unknown, like gpsd


def test_full_rtk_epoch_with_rmc_and_gst():
    fix = epoch(RTK_GGA, RTK_RMC, RTK_GST)
    assert fix.time_utc == dt.datetime(1994, 3, 23, 12, 35, 19, tzinfo=UTC)
    assert fix.speed_mps == pytest.approx(0.02 * 1852 / 3600)  # 0.02 kn
    assert fix.course_deg is None  # empty RMC course field
    assert fix.mode_indicator == "R" and fix.nav_status == "V" and fix.rmc_status == "A"
    # GST field 8 (the last) is the altitude sigma; 6 and 7 latitude and longitude
    assert (fix.sigma_lat_m, fix.sigma_lon_m, fix.sigma_alt_m) == (0.011, 0.010, 0.025)
    assert fix.horizontal_accuracy_m == pytest.approx(math.hypot(0.011, 0.010))  # 0.014866 m
    assert fix.vertical_accuracy_m == 0.025
    assert fix.accuracy_estimated is False and fix.accuracy_source == "GST"
    assert fix.sentences == ("GNGGA", "GNRMC", "GNGST")


def test_accuracy_estimated_from_dop_without_gst():
    gsa = sentence("GNGSA,A,3,13,16,21,15,10,29,27,20,,,,,1.05,0.64,0.83,1")
    fix = epoch(RTK_GGA, gsa)
    # GSA DOPs win over GGA HDOP; RTK fixed UERE = 0.05 m
    assert fix.hdop == 0.64 and fix.vdop == 0.83 and fix.pdop == 1.05
    assert fix.horizontal_accuracy_m == pytest.approx(0.64 * UERE_M[FixQuality.RTK_FIXED])
    assert fix.vertical_accuracy_m == pytest.approx(0.83 * UERE_M[FixQuality.RTK_FIXED])
    assert fix.accuracy_estimated is True
    assert "UERE" in fix.accuracy_source
    # GGA only: vertical from HDOP x 1.5, still flagged, never NaN, never missing
    only = epoch(GOOD_GGA)
    assert only.horizontal_accuracy_m == pytest.approx(0.9 * 5.0)
    assert only.vertical_accuracy_m == pytest.approx(VDOP_PER_HDOP * 0.9 * 5.0)
    assert only.accuracy_estimated and not math.isnan(only.vertical_accuracy_m)


def test_rmc_only_epoch_says_why_accuracy_is_missing():
    fix = epoch(sentence("GPRMC,233000.00,A,4143.5985,N,08338.0820,W,0.00,,311224,,,A"))
    assert fix.horizontal_accuracy_m is None and fix.vertical_accuracy_m is None
    assert fix.accuracy_source == "none: no GST and no DOP"
    assert fix.mode is FixMode.TWO_D  # position, no altitude
    assert fix_to_json(fix)["accuracy_source"] == "none: no GST and no DOP"


def test_checksum_value_00_is_valid():
    # XOR of this body is 0x00 (station id chosen to make it so)
    line = b"$GPGGA,092750.000,5321.6802,N,00630.3372,W,1,8,1.03,61.7,M,55.2,M,,00F0*00"
    assert pynmea2.NMEASentence.checksum(line[1:-3].decode()) == 0
    fix = epoch(line)
    assert fix.lat_deg == pytest.approx(53 + 21.6802 / 60)
    assert fix.lon_deg == pytest.approx(-(6 + 30.3372 / 60))
    assert fix.dgps_station == "00F0"


def test_gsv_trailing_signal_id_is_not_a_satellite():
    # real line from the ZED-F9P log: 2 satellites then signal id 1 (NMEA 4.10)
    line = b"$GLGSV,3,3,10,87,14,030,17,88,62,024,,1*74"
    msg = parse_sentence(line)
    assert msg.sv_prn_num_3 == "1"  # pynmea2 alone maps the signal id to a third PRN
    page = parse_gsv(msg)
    assert [s.prn for s in page.satellites] == [87, 88]
    assert page.signal_id == "1" and page.sats_in_view == 10
    assert page.satellites[0].elevation_deg == 14 and page.satellites[0].azimuth_deg == 30
    assert page.satellites[1].snr_dbhz is None
    fix = epoch(GOOD_GGA, line)
    assert fix.sats_in_view == 2


def test_gsv_without_signal_id():
    page = parse_gsv(parse_sentence(b"$GPGSV,3,3,10,03,08,171,,14,06,129,*7D"))
    assert [s.prn for s in page.satellites] == [3, 14] and page.signal_id is None


def test_time_without_fractional_seconds():
    fix = epoch(sentence("GPGGA,165044,4143.5985,N,08338.0820,W,1,03,2.2,204.1,M,-33.7,M,,"))
    assert fix.time_of_day_utc == dt.time(16, 50, 44, 0)


def test_fractional_seconds_are_exact():
    # pynmea2 alone truncates 0.57 s to 569999 us; we round to the decimal text
    fix = epoch(sentence("GPGGA,165044.57,4143.5985,N,08338.0820,W,1,03,2.2,204.1,M,-33.7,M,,"))
    assert fix.time_of_day_utc == dt.time(16, 50, 44, 570000)


@pytest.fixture
def far_timezone(monkeypatch):
    """Run with the machine's zone at UTC+13:45 (Chatham, in southern summer)."""
    monkeypatch.setenv("TZ", "Pacific/Chatham")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_rmc_date_is_utc_whatever_the_machine_zone(far_timezone):
    assert time.localtime(0).tm_gmtoff != 0  # the zone really is not UTC
    fix = epoch(sentence("GPRMC,233000.00,A,4143.5985,N,08338.0820,W,0.00,,311224,,,A"))
    assert fix.time_utc == dt.datetime(2024, 12, 31, 23, 30, tzinfo=UTC)
    assert fix.time_utc.utcoffset() == dt.timedelta(0)
    assert fix.time_utc.timestamp() == calendar.timegm((2024, 12, 31, 23, 30, 0))


def test_gga_only_epoch_takes_date_from_latest_rmc_and_rolls_over_midnight():
    a = EpochAssembler()
    a.feed(sentence("GPRMC,235959.00,A,4143.5985,N,08338.0820,W,0.00,,311224,,,A"), 1.0)
    fixes = a.feed(sentence("GPGGA,235959.00,4143.5985,N,08338.0820,W,1,05,1.2,204.1,M,-33.7,M,,"), 1.0)
    assert fixes == []  # same epoch
    fixes = a.feed(sentence("GPGGA,000000.00,4143.5985,N,08338.0820,W,1,05,1.2,204.1,M,-33.7,M,,"), 2.0)
    assert [f.time_utc for f in fixes] == [dt.datetime(2024, 12, 31, 23, 59, 59, tzinfo=UTC)]
    fixes = a.feed(sentence("GPGGA,000001.00,4143.5985,N,08338.0820,W,1,05,1.2,204.1,M,-33.7,M,,"), 3.0)
    assert [f.time_utc for f in fixes] == [dt.datetime(2025, 1, 1, 0, 0, 0, tzinfo=UTC)]
    a.feed(b"$GPZDA,123519.00,23,03,1994,00,00*6C", 4.0)  # ZDA also sets the date
    (last,) = a.feed(sentence("GPGGA,123520.00,4143.5985,N,08338.0820,W,1,05,1.2,204.1,M,-33.7,M,,"), 5.0) + a.flush()
    assert last.time_utc == dt.datetime(1994, 3, 23, 12, 35, 20, tzinfo=UTC)


@pytest.mark.parametrize("talker", ["GP", "GN", "GL", "GA", "GB", "BD", "GQ"])
def test_talkers(talker):
    fix = epoch(sentence(f"{talker}GGA,120001.00,4807.038,S,01131.000,W,2,08,0.9,545.4,M,46.9,M,3.2,0138"))
    assert fix.lat_deg == pytest.approx(-(48 + 7.038 / 60)) and fix.lon_deg == pytest.approx(-(11 + 31 / 60))
    assert fix.quality is FixQuality.DGPS and fix.dgps_age_s == 3.2


def test_no_fix_epoch_has_no_position_and_is_not_usable():
    fix = epoch(b"$GNGGA,,,,,,0,00,99.99,,,,,,*56")
    assert fix.lat_deg is None and fix.lon_deg is None and fix.alt_msl_m is None
    assert fix.quality is FixQuality.NO_FIX and fix.mode is FixMode.NONE
    assert fix.is_usable(fix.t_monotonic_s) == (False, "no position (no fix)")


def test_rmc_mode_and_void_status():
    void = epoch(sentence("GPRMC,165010.000,V,4143.6057,N,08338.0788,W,0.60,231.03,180710,,,E"))
    assert void.quality is FixQuality.NO_FIX and void.lat_deg is None
    dr = epoch(sentence("GPRMC,165010.000,A,4143.6057,N,08338.0788,W,0.60,231.03,180710,1.7,W,E"))
    assert dr.quality is FixQuality.DEAD_RECKONING and dr.magvar_deg == -1.7
    assert dr.course_deg == 231.03


def test_gsa_system_id_and_sats_used_without_gga_count():
    a = EpochAssembler()
    lines = [
        sentence("GNRMC,003956.00,A,4552.65403,S,17030.00668,E,0.025,,120419,,,A,V"),
        sentence("GNGSA,A,3,13,16,21,,,,,,,,,,1.05,0.64,0.83,1"),
        sentence("GNGSA,A,3,13,12,,,,,,,,,,,1.05,0.64,0.83,4"),  # Beidou 13 is not GPS 13
    ]
    (fix,) = a.feed_many(lines, 1.0) + a.flush()
    assert fix.sats_used == 5
    assert fix.mode is FixMode.THREE_D  # GSA says 3D


def test_staleness_and_usability():
    fix = epoch(GOOD_GGA, t=50.0)
    assert fix.age_s(51.5) == 1.5
    assert fix.is_usable(51.5)
    ok, why = fix.is_usable(52.5)
    assert not ok and why == "stale: 2.5 s old (limit 2.0 s)"
    assert fix.is_usable(52.5, max_age_s=5.0)


def test_antenna_height_is_kept_with_the_fix():
    a = EpochAssembler(antenna_height_m=2.0)
    (first,) = a.feed_many([RTK_GGA], 1.0) + a.flush()
    a.antenna_height_m = 1.5
    (second,) = a.feed_many([GOOD_GGA], 2.0) + a.flush()
    assert first.antenna_height_m == 2.0
    assert first.ground_alt_msl_m == pytest.approx(543.43)  # 545.43 - 2.0
    assert first.ground_alt_hae_m == pytest.approx(590.33)  # 545.43 + 46.90 - 2.0
    assert second.antenna_height_m == 1.5 and second.ground_alt_msl_m == pytest.approx(543.9)
    with pytest.raises(ValueError, match="antenna_height_m"):
        EpochAssembler(antenna_height_m=-1)


def test_unicore_high_precision_variant():
    fix = epoch(b"$GNGGAH,073346.00,4004.73874301,N,11614.19077585,E,1,28,0.6,64.2831,M,8.4925,M,,*35")
    assert fix.lat_deg == pytest.approx(40 + 4.73874301 / 60)
    assert fix.alt_msl_m == 64.2831


# ------------------------------------------------------------------ bad input, one kind each

BAD = {
    "checksum": GOOD_GGA[:-2] + b"67",
    "truncated": b"$GPGGA,120001.00,4807.038,N,011",
    "binary_noise": b"\xb5b\x01\x07\x5c\x00\xff\x13",  # a UBX frame header and junk
    "overlong": b"$GPTXT," + b"A" * 1100 + b"*00",
    "unknown_sentence": b"$GPXYZ,1,2,3*50",
    "malformed_field": b"$GPGGA,120000.00,48x7.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*2F",
}


@pytest.mark.parametrize("kind", sorted(BAD))
def test_each_bad_kind_is_counted_and_skipped(kind):
    a = EpochAssembler()
    fixes = a.feed(RTK_GGA, 1.0) + a.feed(BAD[kind], 1.0) + a.feed(GOOD_GGA, 2.0) + a.flush()
    # the stream went on: the RTK epoch and the good epoch both came out
    assert [f.time_of_day_utc for f in fixes] == [dt.time(12, 35, 19), dt.time(12, 0, 1)]
    stats = a.stats
    assert stats.bad == {k.value: (1 if k.value == kind else 0) for k in BadKind}
    assert stats.good == 2 and stats.fixes == 2


def test_parse_sentence_raises_from_the_devices_tree():
    with pytest.raises(ChecksumError) as info:
        parse_sentence(BAD["checksum"])
    assert isinstance(info.value, DeviceError) and info.value.kind == "checksum"
    with pytest.raises(BadSentence) as info:
        parse_sentence(BAD["truncated"])
    assert info.value.kind == "truncated"


def test_collision_keeps_the_complete_sentence():
    # one sentence injected into the middle of another (as in gpsd-isync.log)
    line = b"$GPGSV,3,1,12,05,06," + GOOD_GGA
    a = EpochAssembler()
    assert a.feed(line, 1.0) == []
    (fix,) = a.flush()
    assert fix.lat_deg == pytest.approx(48 + 7.038 / 60)
    assert a.stats.bad["truncated"] == 1


def test_nothing_escapes_feed_whatever_the_bytes():
    import random

    rng = random.Random(7)
    a = EpochAssembler()
    lines = [GOOD_GGA, RTK_RMC, RTK_GST, BAD["malformed_field"]]
    expected = 0
    for _ in range(2000):
        base = bytearray(rng.choice(lines))
        for _ in range(rng.randint(1, 4)):
            base[rng.randrange(len(base))] = rng.randrange(256)
        line = bytes(base).strip()
        if not line or line.startswith(b"#"):
            continue
        # one outcome per line, two when a start character inside it splits off a cut head
        expected += 2 if max(line.rfind(b"$"), line.rfind(b"!")) > 0 else 1
        a.feed(bytes(base), 1.0)
    a.flush()
    s = a.stats
    assert s.good + s.total_bad == expected


# ------------------------------------------------------------------ repeated lines, one-step Fix


def test_verbatim_repeats_are_read_and_counted_every_epoch():
    # Receivers repeat GSA lines verbatim; the assembler reuses an identical line's parse, which
    # must not change what each epoch reports or counts. Three 1 Hz epochs, each GGA + the SAME
    # good GSA + the SAME GSA with an unreadable PDOP ("1.x", checksum valid).
    good_gsa = sentence("GPGSA,A,3,01,02,03,04,,,,,,,,,2.5,1.2,2.2")
    bad_gsa = sentence("GNGSA,A,3,05,06,,,,,,,,,,,1.x,1.2,2.2")
    ggas = [sentence(f"GPGGA,12000{n}.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,") for n in (1, 2, 3)]
    b = EpochAssembler()
    fixes = []
    for second, gga in zip((1, 2, 3), ggas, strict=True):
        fixes += b.feed_many([gga, bad_gsa, good_gsa], float(second))
    fixes += b.flush()
    assert [f.time_of_day_utc.second for f in fixes] == [1, 2, 3]
    # the bad GSA comes first in each epoch, so each epoch reads it, counts it, and falls back on
    # the good one: PDOP 2.5, HDOP 1.2 (GSA beats GGA's 0.9), VDOP 2.2 in every fix
    assert [(f.pdop, f.hdop, f.vdop) for f in fixes] == [(2.5, 1.2, 2.2)] * 3
    s = b.stats
    # 9 lines: 3 bad GSA (malformed, once per epoch), 6 good (3 GGA + 3 GSA), all 6 used
    assert s.bad["malformed_field"] == 3 and s.good == 6 and s.used == 6 and s.fixes == 3
    assert [f.raw for f in fixes] == [(g.decode(), bad_gsa.decode(), good_gsa.decode()) for g in ggas]


def test_fix_from_the_assembler_is_a_complete_frozen_fix():
    # The assembler fills a Fix's fields in one step; the result must be the very same value the
    # dataclass constructor makes from the same fields: every field set, equal, same hash, frozen.
    import dataclasses

    fix = epoch(RTK_GGA, RTK_RMC, RTK_GST)
    names = [f.name for f in dataclasses.fields(Fix)]
    assert sorted(vars(fix)) == sorted(names)
    rebuilt = Fix(**{n: getattr(fix, n) for n in names})
    assert rebuilt == fix and hash(rebuilt) == hash(fix)
    with pytest.raises(dataclasses.FrozenInstanceError):
        fix.lat_deg = 0.0


# ------------------------------------------------------------------ impossible values (malformed_field)
# Policy (EpochAssembler docstring): a sentence with an impossible value is dropped whole and counted
# once as malformed_field; each value then comes from the next sentence that has it.

RMC_1200 = sentence("GPRMC,120001.00,A,4807.038,N,01131.000,E,0.5,45.0,010724,,,A")


def gga(hdop="0.9", sats="08", alt="545.4", sep="46.9", age=""):
    return sentence(f"GPGGA,120001.00,4807.038,N,01131.000,E,1,{sats},{hdop},{alt},M,{sep},M,{age},")


@pytest.mark.parametrize("bad", [
    gga(hdop="-0.9"), gga(hdop="-50"), gga(hdop="100.5"),  # DOP must be in (0, 99.99]
    gga(sats="-5"), gga(sats="99999999999999999999"), gga(sats="201"),
    gga(sep="1e300"), gga(sep="-200.1"),  # |N| <= 200 m
    gga(alt="-1000.5"), gga(alt="100000.1"),  # altitude within -1000..100000 m
    gga(age="-1.0"),  # age of corrections >= 0
])
def test_gga_with_an_impossible_value_is_malformed_and_gives_no_quality(bad):
    a = EpochAssembler()
    # GGA alone: its only position sentence is unusable, so no fix at all (nothing to pass a gate)
    assert a.feed(bad, 1.0) + a.flush() == []
    assert a.stats.bad["malformed_field"] == 1 and a.stats.good == 0
    # with the RMC of the same epoch: the position comes from the RMC, and nothing from the GGA
    fix = epoch(bad, RMC_1200)
    assert fix.lat_deg == pytest.approx(48 + 7.038 / 60) and fix.sentences == ("GPGGA", "GPRMC")
    assert fix.hdop is None and fix.sats_used is None and fix.alt_msl_m is None and fix.geoid_sep_m is None
    assert fix.horizontal_accuracy_m is None and fix.accuracy_source == "none: no GST and no DOP"
    out = fix_to_json(fix)
    assert not {"hdop", "eph", "epv", "sats_used", "geoidSep", "altMSL"} & set(out)


def test_negative_hdop_reported_by_the_tester():
    # the tester's line: HDOP -0.9 used to give "hdop":-0.9,"eph":-4.5,"epv":-6.75 (-0.9 x 5 m, x 1.5)
    bad = sentence("GPGGA,123519,4807.038,N,01131.000,E,1,08,-0.9,545.4,M,46.9,M,,")
    a = EpochAssembler()
    assert a.feed_many([bad, sentence("GPRMC,123519,A,4807.038,N,01131.000,E,0.0,,230394,,,A")], 1.0) == []
    (fix,) = a.flush()
    assert "hdop" not in fix_to_json(fix) and "eph" not in fix_to_json(fix) and "epv" not in fix_to_json(fix)
    assert a.stats.bad["malformed_field"] == 1


def test_hdop_50_below_zero_does_not_pass_the_survey_quality_gate():
    from fieldapp.survey.gnss import QualityGate

    gate = QualityGate(max_hdop=2, max_h_accuracy_m=1, min_sats=4)
    good = epoch(gga(hdop="0.1"))  # 0.1 x 5 m = 0.5 m <= 1 m
    assert gate.usable(good)  # guard: the gate does accept a good GGA of the same shape
    a = EpochAssembler()
    fixes = a.feed(gga(hdop="-50"), 1.0) + a.flush()
    assert not any(gate.usable(f) for f in fixes) and fixes == []


@pytest.mark.parametrize("bad, fallback, field_name, expected", [
    # GST sigmas must be >= 0: the fix falls back to the DOP estimate (0.9 x 5 m)
    (sentence("GPGST,120001.00,1.0,,,,-4.0,2.0,3.0"), None, "horizontal_accuracy_m", 0.9 * 5.0),
    (sentence("GPGST,120001.00,1.0,,,,1.0,2.0,-6.0"), None, "vertical_accuracy_m", 1.5 * 0.9 * 5.0),
    # RMC speed >= 0 and course in 0..360: the VTG of the epoch gives them instead (2 kn, 90 deg)
    (sentence("GPRMC,120001.00,A,4807.038,N,01131.000,E,-5.0,45.0,010724,,,A"),
     sentence("GPVTG,90.0,T,,M,2.0,N,3.704,K,A"), "speed_mps", 2.0 * 1852 / 3600),
    (sentence("GPRMC,120001.00,A,4807.038,N,01131.000,E,5.0,720.0,010724,,,A"),
     sentence("GPVTG,90.0,T,,M,2.0,N,3.704,K,A"), "course_deg", 90.0),
    # VTG: same limits; nothing else gives a speed, so none
    (sentence("GPVTG,90.0,T,,M,-2.0,N,-3.704,K,A"), None, "speed_mps", None),
    (sentence("GPVTG,361.0,T,,M,2.0,N,3.704,K,A"), None, "course_deg", None),
    # GSA DOPs: the GGA's HDOP 0.9 is used instead of the GSA's
    (sentence("GPGSA,A,3,01,02,03,04,,,,,,,,,2.5,-1.2,2.2"), None, "hdop", 0.9),
    (sentence("GPGSA,A,3,01,02,03,04,,,,,,,,,2.5,1.2,123.0"), None, "vdop", None),
])
def test_other_impossible_values_are_malformed_and_not_used(bad, fallback, field_name, expected):
    a = EpochAssembler()
    (fix,) = a.feed_many([gga(), bad] + ([fallback] if fallback else []), 1.0) + a.flush()
    assert getattr(fix, field_name) == (pytest.approx(expected) if expected is not None else None)
    assert a.stats.bad["malformed_field"] == 1
    for v in (fix.speed_mps, fix.horizontal_accuracy_m, fix.vertical_accuracy_m, fix.sigma_lat_m, fix.sigma_alt_m):
        assert v is None or v >= 0


def test_zero_dop_is_not_given_and_placeholder_magvar_is_unknown():
    # a Trimble R1 (qfield-TrimbleR1.txt) sends VDOP 0.0 in a 2D GSA and magnetic variation 999.9000,E
    gsa = b"$GPGSA,A,2,8,9,27,,,,,,,,,,4.4,4.4,0.0*37"
    rmc = sentence("GPRMC,120001.00,A,4807.038,N,01131.000,E,0.065,231.147,100316,999.9000,E,A")
    a = EpochAssembler()
    (fix,) = a.feed_many([gga(), gsa, rmc], 1.0) + a.flush()
    assert (fix.pdop, fix.hdop, fix.vdop) == (4.4, 4.4, None) and fix.magvar_deg is None
    assert fix.vertical_accuracy_m == pytest.approx(1.5 * 4.4 * 5.0)  # from HDOP, not 0 x UERE
    assert a.stats.bad["malformed_field"] == 0


def test_values_at_the_limits_are_accepted():
    fix = epoch(gga(hdop="99.99", sats="200", alt="-1000", sep="-200", age="0"),
                sentence("GPRMC,120001.00,A,4807.038,N,01131.000,E,0.0,360.0,010724,,,A"))
    assert (fix.hdop, fix.sats_used, fix.alt_msl_m, fix.geoid_sep_m, fix.dgps_age_s) == (99.99, 200, -1000, -200, 0)
    assert fix.course_deg == 360.0 and fix.speed_mps == 0.0


# ------------------------------------------------------------------ dates and times read strictly


@pytest.mark.parametrize("bad", [
    sentence("GPRMC,120001.00,A,4807.038,N,01131.000,E,0.5,45.0,2303,,,A"),  # strptime: 2003-03-02
    sentence("GPRMC,120001.00,A,4807.038,N,01131.000,E,0.5,45.0,0107245,,,A"),
    sentence("GPRMC,120001.00,A,4807.038,N,01131.000,E,0.5,45.0,320724,,,A"),  # 32 July
    sentence("GPZDA,120001.00,1,1,1,00,00"),  # year 0001
    sentence("GPZDA,120001.00,01,01,79,00,00"),  # 2-digit year
    sentence("GPZDA,120001.00,01,01,1979,00,00"),  # before GPS time
    sentence("GPZDA,120001.00,01,01,2101,00,00"),
    sentence("GPZDA,120001.00,32,01,2024,00,00"),
    sentence("GPZDA,120001.00,30,02,2024,00,00"),
    sentence("GPZDA,120001.00,01,13,2024,00,00"),
    sentence("GPZDA,120001.00,01,,2024,00,00"),  # one field missing
])
def test_impossible_dates_are_malformed(bad):
    a = EpochAssembler()
    (fix,) = a.feed_many([gga(), bad], 1.0) + a.flush()
    assert fix.time_utc is None and fix.time_of_day_utc == dt.time(12, 0, 1)
    assert fix.lat_deg == pytest.approx(48 + 7.038 / 60)  # from the GGA
    assert a.stats.bad["malformed_field"] == 1


def test_zda_without_a_date_is_not_malformed():
    a = EpochAssembler()
    (fix,) = a.feed_many([gga(), sentence("GPZDA,120001.00,,,,00,00")], 1.0) + a.flush()
    assert fix.time_utc is None and a.stats.bad["malformed_field"] == 0


@pytest.mark.parametrize("text", ["12001", "1200010", "246000", "126000", "120060", "12:001", "+12001"])
def test_impossible_times_are_malformed(text):
    a = EpochAssembler()
    assert a.feed(sentence(f"GPGGA,{text},4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"), 1.0) == []
    assert a.flush() == [] and a.stats.bad["malformed_field"] == 1


def test_leap_second_is_held_at_the_last_microsecond_of_the_day():
    # 2016-12-31 ended with the leap second 23:59:60 UTC
    a = EpochAssembler()
    fixes = []
    for hms, date in (("235959.00", "311216"), ("235960.00", "311216"), ("000000.00", "010117")):
        fixes += a.feed(sentence(f"GPRMC,{hms},A,4807.038,N,01131.000,E,0.0,,{date},,,A"), 1.0)
    fixes += a.flush()
    assert [f.time_utc for f in fixes] == [
        dt.datetime(2016, 12, 31, 23, 59, 59, tzinfo=UTC),
        dt.datetime(2016, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
        dt.datetime(2017, 1, 1, 0, 0, 0, tzinfo=UTC),
    ]
    assert a.stats.total_bad == 0


# ------------------------------------------------------------------ time going backwards


def rmc_at(hms: str, date: str = "010724") -> bytes:
    return sentence(f"GPRMC,{hms},A,4807.038,N,01131.000,E,0.0,,{date},,,A")


def gga_at(hms: str) -> bytes:
    return sentence(f"GPGGA,{hms},4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")


def run(lines) -> tuple[list, EpochAssembler]:
    a = EpochAssembler()
    fixes = []
    for line in lines:
        fixes += a.feed(line, 1.0)
    return fixes + a.flush(), a


def test_an_older_epoch_is_counted_not_delivered():
    fixes, a = run([rmc_at("123521.00"), rmc_at("123519.00"), rmc_at("123522.00")])
    assert [f.time_of_day_utc.second for f in fixes] == [21, 22]
    assert a.stats.bad["time_backwards"] == 1 and a.stats.fixes == 2


def test_a_repeated_epoch_is_counted_not_delivered():
    # the same epoch's GGA again after its RMC closed it (e.g. after an idle flush)
    fixes, a = run([gga_at("123521.00"), rmc_at("123522.00"), gga_at("123522.00"), gga_at("123521.00"),
                    gga_at("123523.00")])
    assert [f.time_of_day_utc.second for f in fixes] == [21, 22, 23]
    assert a.stats.bad["time_backwards"] == 1


def test_time_backwards_without_a_date_too():
    fixes, a = run([gga_at("123521.00"), gga_at("123519.00"), gga_at("123522.00")])
    assert [f.time_of_day_utc.second for f in fixes] == [21, 22] and a.stats.bad["time_backwards"] == 1


def test_midnight_is_not_time_going_backwards():
    # without a date: 23:59:59 -> 00:00:00 is one second forward (times of day across midnight)
    fixes, a = run([gga_at("235959.00"), gga_at("000000.00"), gga_at("000001.00")])
    assert len(fixes) == 3 and a.stats.bad["time_backwards"] == 0
    # with dates
    fixes, a = run([rmc_at("235959.00", "311224"), rmc_at("000000.00", "010125")])
    assert [f.time_utc.day for f in fixes] == [31, 1] and a.stats.bad["time_backwards"] == 0


def test_a_jump_back_of_more_than_ten_minutes_is_a_reset_and_accepted():
    # 12:35:21 -> 12:25:20 is 601 s back: beyond STALE_EPOCH_WINDOW_S (600 s), a receiver reset
    fixes, a = run([rmc_at("123521.00"), rmc_at("122520.00"), rmc_at("122521.00")])
    assert [f.time_of_day_utc.minute for f in fixes] == [35, 25, 25] and a.stats.bad["time_backwards"] == 0
    # exactly 600 s back is still "late"
    fixes, a = run([rmc_at("123521.00"), rmc_at("122521.00"), rmc_at("123522.00")])
    assert [f.time_of_day_utc.minute for f in fixes] == [35, 35] and a.stats.bad["time_backwards"] == 1


def test_a_clock_stepped_back_a_little_is_followed_after_three_epochs():
    # 12:35:21, then the receiver runs on from 12:33:00: the first two are dropped, the third
    # (RESYNC_EPOCHS) of the steadily advancing run is delivered and the new time followed
    times = ["123521.00", "123300.00", "123301.00", "123302.00", "123303.00"]
    fixes, a = run([rmc_at(t) for t in times])
    assert [f.time_of_day_utc.strftime("%M%S") for f in fixes] == ["3521", "3302", "3303"]
    assert a.stats.bad["time_backwards"] == 2
    # late epochs that do not advance among themselves never take over
    fixes, a = run([rmc_at(t) for t in ["123521.00", "123519.00", "123518.00", "123517.00", "123522.00"]])
    assert [f.time_of_day_utc.second for f in fixes] == [21, 22] and a.stats.bad["time_backwards"] == 3


# ------------------------------------------------------------------ ZDA never opens an epoch

# qfield-TrimbleR1.txt, its first two seconds (real lines): ZDA carries 22:56:51.02, the rest .00
TRIMBLE_R1 = [
    b"$GPGGA,225651.00,3617.56130011,N,09718.50567350,W,1,03,4.4,322.480,M,-25.964,M,,*56",
    b"$PTNL,GGK,225651.00,031016,3617.56130011,N,09718.50567350,W,1,03,4.4,EHT296.517,M*62",
    b"$GPGST,225651.00,0.000,13.909,3.606,143.0,11.322,8.847,1.002*54",
    b"$GPZDA,225651.02,10,03,2016,00,00*64",
    b"$GPGSA,A,2,8,9,27,,,,,,,,,,4.4,4.4,0.0*37",
    b"$GPRMC,225651.00,A,3617.56130011,N,09718.50567350,W,0.065,231.147,100316,999.9000,E,A*16",
    b"$GPGLL,3617.56130011,N,09718.50567350,W,225651.00,A,A*7E",
    b"$GPGNS,225651.00,3617.56130,N,09718.50567,W,ANN,03,4.4,322.5,-26.0,,*3A",
    b"$GPGGA,225652.00,3617.56129927,N,09718.50566807,W,1,03,4.4,322.480,M,-25.964,M,,*59",
    b"$PTNL,GGK,225652.00,031016,3617.56129927,N,09718.50566807,W,1,03,4.4,EHT296.517,M*6D",
    b"$GPGST,225652.00,0.000,13.902,3.606,143.0,11.317,8.842,1.002*5F",
    b"$GPZDA,225652.03,10,03,2016,00,00*66",
    b"$GPGSA,A,2,8,9,27,,,,,,,,,,4.4,4.4,0.0*37",
    b"$GPRMC,225652.00,A,3617.56129927,N,09718.50566807,W,0.469,329.087,100316,999.9000,E,A*14",
]


def test_zda_with_its_own_fraction_joins_the_epoch_one_fix_per_second():
    fixes, a = run(TRIMBLE_R1)
    assert [f.time_utc for f in fixes] == [dt.datetime(2016, 3, 10, 22, 56, s, tzinfo=UTC) for s in (51, 52)]
    first = fixes[0]
    assert first.sentences == ("GPGGA", "GPGST", "GPZDA", "GPGSA", "GPRMC", "GPGLL", "GPGNS")
    # speed from the RMC (0.065 kn) AND accuracy from the GST (hypot(11.322, 8.847)) in one fix
    assert first.speed_mps == pytest.approx(0.065 * 1852 / 3600)
    assert first.horizontal_accuracy_m == pytest.approx(math.hypot(11.322, 8.847))
    assert first.vertical_accuracy_m == 1.002 and first.accuracy_source == "GST"
    assert a.stats.total_bad == 0


def test_zda_date_goes_with_the_zda_time_at_midnight():
    # 10 Hz: the ZDA of 00:00:00.0 on 2 Jan arrives inside the epoch of 23:59:59.9 and joins it; that
    # epoch is still on 1 Jan, the next one on 2 Jan
    fixes, _ = run([gga_at("235959.90"), sentence("GPZDA,000000.00,02,01,2025,00,00"), gga_at("000000.00")])
    assert [f.time_utc for f in fixes] == [dt.datetime(2025, 1, 1, 23, 59, 59, 900000, tzinfo=UTC),
                                           dt.datetime(2025, 1, 2, 0, 0, 0, tzinfo=UTC)]


def test_zda_sent_first_in_each_epoch():
    # gpsd-quectel-L70.log order: ZDA, RMC, GGA per second; each ZDA closes the epoch before it
    lines = []
    for s in (19, 20, 21):
        lines += [sentence(f"GPZDA,1501{s}.000,09,03,2022,,"), gga_at(f"1501{s}.000")]
    fixes, a = run(lines)
    assert [f.time_utc for f in fixes] == [dt.datetime(2022, 3, 9, 15, 1, s, tzinfo=UTC) for s in (19, 20, 21)]
    assert [f.sentences for f in fixes] == [("GPZDA", "GPGGA")] * 3


def test_zda_only_epochs_with_untimed_no_fix_gga_keep_the_zda_time():
    # gpsd-hemi.log before its first fix: ZDA + an all-empty GGA each second, then a timed GGA
    lines = [sentence("GPZDA,194048.00,07,09,2018,00,00"), b"$GPGGA,,,,,,0,,,,M,,M,,*66",
             sentence("GPZDA,194049.00,07,09,2018,00,00"), b"$GPGGA,,,,,,0,,,,M,,M,,*66",
             gga_at("194050.00"), sentence("GPZDA,194050.00,07,09,2018,00,00")]
    fixes, _ = run(lines)
    assert [(f.time_utc.second, f.has_position) for f in fixes] == [(48, False), (49, False), (50, True)]


# ------------------------------------------------------------------ command line: arguments and files


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    from devices.nmea import main

    try:
        rc = main(list(argv))
    except SystemExit as exc:  # argparse's parser.error
        rc = exc.code
    out, err = capsys.readouterr()
    return rc, out, err


def test_cli_missing_file_or_directory_is_refused_at_once(tmp_path, capsys):
    # used to be taken for a port and retried for ever
    rc, out, err = cli(capsys, str(tmp_path / "missing" / "file.nmea"))
    assert rc == 2 and "no such file" in err and out == ""
    rc, out, err = cli(capsys, str(tmp_path))
    assert rc == 2 and "is a directory" in err and out == ""


@pytest.mark.parametrize("option, value, word", [
    ("--antenna-height-m", "nan", "antenna height"),
    ("--antenna-height-m", "-1", "antenna height"),
    ("--antenna-height-m", "1000", "antenna height"),
    ("--antenna-height-m", "abc", "antenna height 'abc' must be a number of metres, 0..100"),
    ("--duration", "nan", "duration"),
    ("--duration", "inf", "duration"),
    ("--duration", "0", "duration"),
    ("--count", "0", "count"),
    ("--baud", "0", "baud rate"),
    ("--baud", "123", "baud rate"),  # checked even for a file, where it is then ignored
    ("--baud", "921601", "baud rate"),
])
def test_cli_bad_arguments_are_usage_errors_not_tracebacks(tmp_path, capsys, option, value, word):
    log = tmp_path / "one.nmea"
    log.write_bytes(GOOD_GGA + b"\r\n")
    rc, out, err = cli(capsys, str(log), option, value)
    assert rc == 2 and out == ""
    assert f"argument {option}: {word}" in err and "Traceback" not in err


def test_cli_file_with_impossible_values(tmp_path, capsys):
    # the tester's lines: no negative hdop/eph/epv in the output, each bad sentence counted
    log = tmp_path / "bad.nmea"
    log.write_bytes(b"\r\n".join([
        sentence("GPGGA,123519,4807.038,N,01131.000,E,1,08,-0.9,545.4,M,46.9,M,,"),
        sentence("GPRMC,123519,A,4807.038,N,01131.000,E,-5.0,720.0,230394,,,A"),
        sentence("GPGGA,123520,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"),
        sentence("GPRMC,123520,A,4807.038,N,01131.000,E,0.0,,230394,,,A"),
    ]) + b"\r\n")
    rc, out, err = cli(capsys, str(log), "--baud", "4800")
    lines = [json.loads(line) for line in out.splitlines()]
    assert rc == 0 and err == ""
    # 12:35:19: both sentences malformed, no position sentence left -> no fix; 12:35:20 is fine
    assert [o.get("time") for o in lines] == ["1994-03-23T12:35:20.000Z", None]
    assert lines[0]["hdop"] == 0.9 and lines[0]["eph"] == 4.5  # 0.9 x 5.0 m
    assert lines[-1]["class"] == "SUMMARY" and lines[-1]["bad"]["malformed_field"] == 2


def test_cli_output_closed_early_exits_quietly(tmp_path):
    # python -m devices.nmea LOG | head -2: no BrokenPipeError traceback. The output (~3 MB) is far
    # larger than a pipe's buffer, so the writer is still writing when the reader closes its end.
    import subprocess
    import sys
    from pathlib import Path

    log = tmp_path / "long.nmea"
    log.write_bytes(b"".join(
        sentence(f"GPGGA,{h:02d}{m:02d}{s:02d}.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,") + b"\r\n"
        for h in range(2) for m in range(60) for s in range(60)))
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen([sys.executable, "-m", "devices.nmea", str(log)], cwd=root,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = [proc.stdout.readline(), proc.stdout.readline()]
    proc.stdout.close()
    err = proc.stderr.read()
    rc = proc.wait(timeout=120)
    assert all(line.startswith(b'{"class":"TPV"') for line in first)
    assert b"Traceback" not in err and b"BrokenPipe" not in err and err == b""
    assert rc == 1
