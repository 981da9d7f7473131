"""Instrument sentence parsers on bytes: every sample in ../shared/data/devices/device-samples.txt.

Expected values are read off the sentences by hand (the field layout is in
devices/instruments/laser.py); feet are international (1 m = 1/0.3048 ft).
"""

from __future__ import annotations

import random

import pytest

from devices.errors import ChecksumError
from devices.instruments import (
    InstrumentParser,
    SentenceScanner,
    nmea_checksum,
    parse,
    register_line_parser,
    split_sentence,
    with_checksum,
)
from devices.readings import InclinometerReading, LengthUnit, RangefinderShot, ShotKind

M = 1 / 0.3048  # ft per m


def _samples(shared_dir):
    rows = []
    for line in (shared_dir / "data/devices/device-samples.txt").read_bytes().splitlines():
        if not line.strip() or line.startswith(b"#"):
            continue
        tag, sentence, source = line.split(b"\t")
        rows.append((tag.decode(), sentence))
    return rows


# sentence -> the values it encodes (attribute: value), worked by hand from the text
EXPECTED = {
    b"$PLTIT,HV,11.80,M,0.00,D,3.70,D,11.80,M*63": dict(
        kind=ShotKind.HV, horizontal_distance_m=11.80, slope_distance_m=11.80,
        inclination_deg=3.70, azimuth_deg=0.0, units_sent=LengthUnit.METRES, low_quality=False),
    b"$PLTIT,HV,7.01,M,0.00,D,3.00,D,7.01,M*64": dict(
        horizontal_distance_m=7.01, inclination_deg=3.0, low_quality=True),  # last digit 1
    b"$PLTIT,HV,,,0.00,D,29.10,D,,*5D": dict(
        horizontal_distance_ft=None, slope_distance_ft=None, inclination_deg=29.10,
        units_sent=None),
    b"$PLTIT,HV,16.00,F,0.00,D,-1.20,D,16.00,F*49": dict(
        horizontal_distance_ft=16.0, slope_distance_ft=16.0, inclination_deg=-1.2,
        units_sent=LengthUnit.FEET),
    b"$PLTIT,HV,,,0.00,D,-19.10,D,,*73": dict(inclination_deg=-19.1, horizontal_distance_ft=None),
    b"$PLTIT,HV,,,0.00,D,32.40,D,,*52": dict(inclination_deg=32.4),
    b"$PLTIT,HT,15.70,F*0E": dict(kind=ShotKind.HT, height_ft=15.7),
    b"$PLTIT,HT,5.50,M*36": dict(kind=ShotKind.HT, height_m=5.5),
    b"$PLTIT,HT,2.01,M*35": dict(kind=ShotKind.HT, height_m=2.01, low_quality=True),
    b"$PLTIT,ID,TP200,1.02,*73": dict(model="TP200", firmware="1.02"),
    b"$PLTIT,HV,18.00,F,185.20,D,6.90,D,18.00,F*66": dict(
        horizontal_distance_ft=18.0, azimuth_deg=185.2, inclination_deg=6.9),
    b"$PLTIT,HV,0.20,M,95.70,D,-42.90,D,0.20,M*4E": dict(
        horizontal_distance_m=0.2, azimuth_deg=95.7, inclination_deg=-42.9),
    b"$PLTIT,HV,6.30,M,156.50,D,-3.50,D,6.30,M*4B": dict(
        horizontal_distance_m=6.3, azimuth_deg=156.5, inclination_deg=-3.5),
    b"$PLTIT,HV,,,153.50,D,-8.10,D,,*41": dict(
        horizontal_distance_ft=None, azimuth_deg=153.5, inclination_deg=-8.1),
    b"$PLTIT,HV,34.2,F,176.8,D,6.52,D,34.5,F*59": dict(
        horizontal_distance_ft=34.2, slope_distance_ft=34.5, azimuth_deg=176.8,
        inclination_deg=6.52, low_quality=False),  # one decimal: no quality digit
    b"$PTNLA,HV,1.87,M,343.2,D,17.02,D,1.96,M*77": dict(
        protocol="laserace-trimble", horizontal_distance_m=1.87, slope_distance_m=1.96,
        azimuth_deg=343.2, inclination_deg=17.02),
    b"$PTNLA,HV,,M,085.0,D,-0.7,D,9999.99,9999.99,M*7E": dict(  # 9999.99 = no value
        horizontal_distance_ft=None, slope_distance_ft=None, azimuth_deg=85.0,
        inclination_deg=-0.7),
    b"$PMDLA,HV,002.94,M,288.1,D,008.6,D,002.98,M*67": dict(
        protocol="laserace-mdl", horizontal_distance_m=2.94, slope_distance_m=2.98,
        azimuth_deg=288.1, inclination_deg=8.6),
    b"$PHGF,SPC,1,1 Fi SB,*67": dict(species_number=1, species_label="1 Fi SB"),
    b"$PHGF,DIA,M,345,*2A": dict(diameter_mm=345),
    b"$PHGF,DIA,M,84,*14": dict(diameter_mm=84),
    b"$PHGF,LEN,M,193,*28": dict(length_dm=193.0),
    b"$PHGF,SPC,2,ABC,*2B": dict(species_number=2, species_label="ABC"),
    b"$PHGF,DIA,M,277,*2A": dict(diameter_mm=277),
    b"$PHGF,HVV,2.7,M,336.4,D,14.9,D,2.8,M,2.2,M,0.0,CM,*23": dict(
        protocol="vertex", horizontal_distance_m=2.7, azimuth_deg=336.4, inclination_deg=14.9,
        slope_distance_m=2.8, height_m=2.2, diameter_cm=None),  # 0.0 cm = not measured
    b"$PHGF,HVV,2.9,M,353.1,D,16.2,D,3.0,M,2.3,M,3.8,CM,*21": dict(
        horizontal_distance_m=2.9, slope_distance_m=3.0, height_m=2.3, diameter_cm=3.8),
    b"$PHGF,HVV,2.5,M,348.3,D,19.3,D,2.7,M,2.4,M,0.0,CM,*21": dict(
        horizontal_distance_m=2.5, inclination_deg=19.3, height_m=2.4),
    b"$PHGF,HVV,2.2,M,257.4,D,0.6,D,2.2,M,1.4,M,0.0,CM,*15": dict(
        horizontal_distance_m=2.2, azimuth_deg=257.4, inclination_deg=0.6, height_m=1.4),
    b"22  22  15  182614$PHGF,HVV,2.2,M,261.4,D,1.8,D,2.2,M,1.5,M,9.3,CM,*14": dict(
        horizontal_distance_m=2.2, azimuth_deg=261.4, inclination_deg=1.8, height_m=1.5,
        diameter_cm=9.3),
    b"$APXDR,A,0.135,D,PTCH*7C": dict(pitch_deg=0.135, roll_deg=None),
    b"$APXDR,A,3.861,D,ROLL*65": dict(pitch_deg=None, roll_deg=3.861),
    b"$HCXDR,A,177,D,PITCH,A,-40,D,ROLL,G,358,,MAGX,G,2432,,MAGY,G,-8974,,MAGZ*47": dict(
        pitch_deg=177.0, roll_deg=-40.0),  # MAGX.. are type G, not angles
    b"$PASHR,204132.000,010.51,T,+00.39,-00.79,-00.84,0.151,0.075,0.555,1,0*03": dict(
        heading_deg=10.51, roll_deg=0.39, pitch_deg=-0.79),
    b"$PTNL,AVR,212405.20,+52.1531,Yaw,-0.0806,Tilt,,,12.575,3,1.4,16*39": dict(
        heading_deg=52.1531, pitch_deg=-0.0806, roll_deg=None),
    b"$GNHPR,074615.00,320.9610,-66.1712,000.0000,4,47,0.00,0999*45": dict(
        heading_deg=320.961, pitch_deg=-66.1712, roll_deg=0.0),
    b"X=+00.430": dict(pitch_deg=0.43, roll_deg=None),
    b"Y=-00.084": dict(pitch_deg=None, roll_deg=-0.084),
}


def test_every_valid_sample_parses_to_its_values(shared_dir):
    parser = InstrumentParser()
    rows = [(t, s) for t, s in _samples(shared_dir) if t in ("VALID", "ASCII")]
    assert len(rows) == 37  # 35 VALID + 2 ASCII lines in the file
    for _, sentence in rows:
        reading = parser.parse(sentence, 12.5)
        assert reading is not None, (sentence, parser.last_error)
        assert reading.t_monotonic_s == 12.5
        for attr, want in EXPECTED[sentence].items():
            got = getattr(reading, attr)
            if isinstance(want, float):
                assert got == pytest.approx(want, abs=1e-9), (sentence, attr)
            else:
                assert got == want, (sentence, attr)
    assert parser.counts["accepted"] == 37
    assert sum(v for k, v in parser.counts.items() if k.startswith("rejected")) == 0


def test_every_badcs_sample_is_rejected_and_counted(shared_dir):
    parser = InstrumentParser()
    bad = [s for t, s in _samples(shared_dir) if t == "BADCS"]
    assert len(bad) == 4
    assert [parser.parse(s) for s in bad] == [None] * 4
    assert parser.counts["rejected_checksum"] == 4
    assert parser.counts["accepted"] == 0
    with pytest.raises(ChecksumError):
        split_sentence(bad[0])


def test_units_convert_to_feet_and_metres():
    # 11.80 m = 11.80 / 0.3048 ft = 38.7139 ft; VD = HD tan(3.70 deg) = 0.76307 m
    shot = parse(b"$PLTIT,HV,11.80,M,0.00,D,3.70,D,11.80,M*63")
    assert shot.horizontal_distance_ft == pytest.approx(38.713911, abs=1e-6)
    assert shot.vertical_distance_m == pytest.approx(0.763072, abs=1e-6)
    assert shot.slope_pct == pytest.approx(6.466710, abs=1e-6)  # 100 tan(3.7 deg)
    # yards: 6.0 yd = 18 ft
    yd = parse(with_checksum("PLTIT,HV,6.00,Y,90.00,D,-5.00,D,6.10,Y"))
    assert yd.horizontal_distance_ft == pytest.approx(18.0)
    assert yd.slope_distance_ft == pytest.approx(18.3)
    assert yd.units_sent is LengthUnit.YARDS


def test_gons_are_converted_to_degrees():
    # 100 gon = 90 deg; 10 gon = 9 deg
    shot = parse(with_checksum("PMDLA,HV,010.00,M,100.0,G,10.0,G,010.10,M"))
    assert shot.azimuth_deg == pytest.approx(90.0)
    assert shot.inclination_deg == pytest.approx(9.0)


def test_ok_is_ignored_not_rejected():
    p = InstrumentParser()
    assert p.parse(b"$OK\r\n") is None
    assert p.counts == {"ignored": 1}


def test_impossible_values_are_refused_with_a_message():
    p = InstrumentParser()
    assert p.parse(with_checksum("PLTIT,HV,-3.00,F,0.00,D,1.00,D,3.00,F")) is None
    assert "negative" in p.last_error
    assert p.parse(with_checksum("PLTIT,HV,3.00,F,0.00,D,95.00,D,3.00,F")) is None
    assert "inclination 95.0" in p.last_error
    assert p.parse(with_checksum("PHGF,DIA,M,abc,")) is None
    assert "'abc'" in p.last_error
    assert p.counts["rejected_value"] == 3


def test_unknown_and_malformed_lines_are_counted():
    p = InstrumentParser()
    assert p.parse(with_checksum("PXYZ,1,2")) is None
    assert p.parse(b"$PLTIT,HV,1,F") is None  # no checksum
    assert p.parse(b"Z=1.0") is None  # axis not mapped
    assert p.counts["rejected_unknown"] == 1
    assert p.counts["rejected_malformed"] == 2


def test_protocol_restriction():
    p = InstrumentParser(sentences=["PLTIT"], line_parsers=[])
    assert p.parse(b"$PHGF,DIA,M,345,*2A") is None
    assert p.parse(b"X=+00.430") is None
    assert p.counts["rejected_unknown"] == 2
    assert p.parse(b"$PLTIT,HT,15.70,F*0E").height_ft == 15.7


def test_another_vendor_is_one_small_parser():
    def parse_acme(line: bytes, t: float) -> InclinometerReading:
        if not line.startswith(b"ACME "):
            raise ValueError("not ACME")
        return InclinometerReading(pitch_deg=float(line[5:]), roll_deg=None, protocol="acme",
                                   raw=line, t_monotonic_s=t)

    register_line_parser("acme", parse_acme)
    try:
        assert InstrumentParser().parse(b"ACME -2.5\r\n").pitch_deg == -2.5
    finally:
        from devices.instruments import LINE_PARSERS

        LINE_PARSERS.pop("acme")


def test_checksum_helper():
    # XOR of "PLTIT,HT,15.70,F" is 0x0E (the sample's printed checksum, verified VALID)
    assert nmea_checksum(b"PLTIT,HT,15.70,F") == 0x0E


VERTEX = [
    b"$PHGF,HVV,2.7,M,336.4,D,14.9,D,2.8,M,2.2,M,0.0,CM,*23",
    b"$PHGF,HVV,2.9,M,353.1,D,16.2,D,3.0,M,2.3,M,3.8,CM,*21",
    b"$PHGF,HVV,2.5,M,348.3,D,19.3,D,2.7,M,2.4,M,0.0,CM,*21",
    b"$PHGF,HVV,2.2,M,257.4,D,0.6,D,2.2,M,1.4,M,0.0,CM,*15",
    b"$PHGF,HVV,2.2,M,261.4,D,1.8,D,2.2,M,1.5,M,9.3,CM,*14",
]


@pytest.mark.parametrize("seed", range(20))
def test_fragmented_glued_ble_stream_yields_exactly_its_sentences(seed):
    rng = random.Random(seed)
    stream = b""
    for i, s in enumerate(VERTEX):
        # legacy prefix glued in front (as in the real capture), junk, a broken sentence
        stream += [b"", b"22  22  15  182614", b"\x00\xff", b"\r\n"][i % 4] + s
        if i == 2:
            stream += b"$PHGF,HVV,9.9,M,1"  # a lost tail: the next '$' cuts it off
    chunks, i = [], 0
    while i < len(stream):  # BLE notifies of 1..20 bytes
        n = rng.randint(1, 20)
        chunks.append(stream[i : i + n])
        i += n
    scanner = SentenceScanner()
    out = [s for c in chunks for s in scanner.feed(c)]
    assert out == VERTEX
    assert scanner.dropped_frames == 1  # the cut-off fragment
    assert scanner.dropped_bytes == len(stream) - sum(len(s) for s in VERTEX)


def test_scanner_drops_a_sentence_with_a_bad_checksum():
    s = SentenceScanner()
    assert s.feed(b"$PLTIT,HV,6.00,Y,0.00,D,7.20,D,6.10,Y*68$PLTIT,HT,15.70,F*0E") == [
        b"$PLTIT,HT,15.70,F*0E"
    ]
    assert s.dropped_frames == 1


def test_reading_is_frozen():
    shot = parse(b"$PLTIT,HT,15.70,F*0E")
    assert isinstance(shot, RangefinderShot)
    with pytest.raises(AttributeError):
        shot.height_ft = 3.0
