"""The survey's GNSS quality gate: a configured limit needs the value it limits.

Fixes are built two ways: stand-ins with the attribute names of ``devices.nmea.Fix`` for the
rule itself, and real ``Fix`` objects parsed by ``devices.nmea.EpochAssembler`` from NMEA
sentences (checksums computed by pynmea2) for what receivers actually send: RMC alone (no HDOP,
no satellite count, no accuracy), GGA with an empty HDOP field, GGA without a satellite count.
"""

from __future__ import annotations

from types import SimpleNamespace

import pynmea2
import pytest

from devices.nmea import EpochAssembler
from fieldapp.geo import SiteFrame
from fieldapp.survey import InvalidValue, NotEnoughEpochs, Visit
from fieldapp.survey.gnss import DEFAULT_GATE, REASON_WORDS, QualityGate, average_fixes


def fix(**kw):
    base = dict(lat_deg=45.0, lon_deg=-89.0, quality=1, sats_used=10, hdop=0.8,
                horizontal_accuracy_m=0.6, vertical_accuracy_m=1.2, alt_hae_m=300.0, time_utc=None)
    base.update(kw)
    return SimpleNamespace(**base)


def sentence(body: str) -> bytes:
    """``$body*hh`` with pynmea2's checksum."""
    return f"${body}*{pynmea2.NMEASentence.checksum(body):02X}".encode()


def parsed(*lines: bytes):
    """The one Fix ``devices.nmea`` makes of one epoch of sentences."""
    a = EpochAssembler()
    out = a.feed_many(list(lines), 100.0) + a.flush()
    assert len(out) == 1, out
    return out[0]


# 48 deg 07.038' N, 11 deg 31.000' E (the NMEA textbook example), autonomous ("A" / quality 1)
RMC = sentence("GPRMC,123519.00,A,4807.038,N,01131.000,E,0.0,,230394,,,A")
GGA = sentence("GPGGA,123519.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
GGA_NO_HDOP = sentence("GPGGA,123519.00,4807.038,N,01131.000,E,1,08,,545.4,M,46.9,M,,")
GGA_NO_SATS = sentence("GPGGA,123519.00,4807.038,N,01131.000,E,1,,0.9,545.4,M,46.9,M,,")


# --------------------------------------------------------------------------- the rule
@pytest.mark.parametrize("missing, gate, key", [
    ({"hdop": None}, QualityGate(), "no_hdop"),
    ({"sats_used": None}, QualityGate(), "no_sats"),
    ({"horizontal_accuracy_m": None}, QualityGate(max_h_accuracy_m=1.0), "no_accuracy"),
])
def test_a_missing_value_fails_a_configured_limit(missing, gate, key):
    f = fix(**missing)
    assert gate.reason(f) == key
    assert not gate.usable(f)
    assert gate.explain(f) == REASON_WORDS[key]
    assert gate.usable(fix())  # guard: the same fix with every value passes


@pytest.mark.parametrize("missing", [{"hdop": None}, {"sats_used": None},
                                     {"horizontal_accuracy_m": None}])
def test_a_missing_value_passes_when_its_limit_is_off(missing):
    gate = QualityGate(max_hdop=None, min_sats=None, max_h_accuracy_m=None)
    assert gate.usable(fix(**missing))


def test_reasons_in_words_with_the_values():
    g = QualityGate(max_hdop=2.0, min_sats=5, max_h_accuracy_m=1.0)
    assert g.explain(fix(hdop=None)) == "no HDOP from the receiver"
    assert g.explain(fix(sats_used=None)) == "no satellite count from the receiver"
    assert g.explain(fix(horizontal_accuracy_m=None)) == "no horizontal accuracy from the receiver"
    assert g.explain(fix(hdop=6.2)) == "HDOP 6.2 over the limit 2"
    assert g.explain(fix(sats_used=3)) == "3 satellites, fewer than 5"
    assert g.explain(fix(horizontal_accuracy_m=2.5)) == "horizontal accuracy 2.5 m over the limit 1 m"
    assert g.explain(fix(quality=8)) == "fix quality 8 is not accepted"
    assert g.explain(fix(hdop=float("nan"))) == "HDOP nan over the limit 2"  # NaN never passes
    assert g.explain(fix()) is None
    assert set(REASON_WORDS) >= {"no_position", "bad_position", "quality", "hdop", "no_hdop",
                                 "sats", "no_sats", "accuracy", "no_accuracy"}


def test_hdop_limit_is_checked_before_the_satellite_count():
    # both missing: the first configured test (HDOP) names it
    assert QualityGate().reason(fix(hdop=None, sats_used=None)) == "no_hdop"
    assert QualityGate(max_hdop=None).reason(fix(hdop=None, sats_used=None)) == "no_sats"


# --------------------------------------------------------------------------- real fixes
def test_rmc_only_fix_fails_an_accuracy_gate_and_the_default_gate():
    f = parsed(RMC)
    # what RMC gives: position and mode "A" (autonomous, quality 1), nothing on quality of fix
    assert f.quality == 1 and f.hdop is None and f.sats_used is None
    assert f.horizontal_accuracy_m is None
    accuracy_only = QualityGate(max_hdop=None, min_sats=None, max_h_accuracy_m=1.0)
    assert accuracy_only.reason(f) == "no_accuracy"
    assert accuracy_only.explain(f) == "no horizontal accuracy from the receiver"
    assert DEFAULT_GATE.explain(f) == "no HDOP from the receiver"
    assert QualityGate(max_hdop=None, min_sats=None).usable(f)  # limits off: RMC is accepted


def test_gga_without_hdop_fails_hdop_and_accuracy_limits():
    f = parsed(GGA_NO_HDOP, RMC)
    # no HDOP and no GST: devices.nmea has no accuracy estimate either (HDOP x UERE needs HDOP)
    assert f.hdop is None and f.sats_used == 8 and f.horizontal_accuracy_m is None
    assert DEFAULT_GATE.explain(f) == "no HDOP from the receiver"
    assert QualityGate(max_hdop=None, max_h_accuracy_m=10.0).reason(f) == "no_accuracy"
    assert QualityGate(max_hdop=None).usable(f)  # 8 satellites >= 4


def test_gga_without_satellite_count_fails_min_sats():
    f = parsed(GGA_NO_SATS, RMC)
    assert f.hdop == pytest.approx(0.9) and f.sats_used is None
    assert DEFAULT_GATE.explain(f) == "no satellite count from the receiver"
    assert QualityGate(min_sats=None).usable(f)


def test_full_gga_passes_an_accuracy_gate():
    f = parsed(GGA, RMC)
    # no GST: accuracy is HDOP x UERE = 0.9 x 5 m = 4.5 m (devices.nmea, autonomous)
    assert f.horizontal_accuracy_m == pytest.approx(4.5)
    assert QualityGate(max_h_accuracy_m=5.0).usable(f)
    assert QualityGate(max_h_accuracy_m=4.0).explain(f) == "horizontal accuracy 4.5 m over the limit 4 m"


def test_averaging_counts_rmc_only_epochs_as_rejected_in_words():
    frame = SiteFrame("EPSG:32632")  # 11.5 E is UTM zone 32
    good = parsed(GGA, RMC)
    rmc = parsed(RMC)
    p = average_fixes([good, rmc, good, rmc, rmc], frame)
    assert p.sample_count == 2 and p.rejected_count == 3
    assert p.rejected_reasons == {"no_hdop": 3}
    with pytest.raises(NotEnoughEpochs, match=r"rejected: 3 no HDOP from the receiver"):
        average_fixes([rmc, rmc, rmc], frame)


def test_visit_refuses_an_rmc_only_fix_naming_why():
    v = Visit.new("x", who="t", crs="EPSG:32632")
    with pytest.raises(InvalidValue, match="no HDOP from the receiver"):
        v.add_tree(fix=parsed(RMC), dbh_in=12.0)
    assert v.trees() == []
    v.start_track()
    assert v.on_fix(parsed(RMC)) is None and v.track() == []  # not recorded
    assert v.on_fix(parsed(GGA, RMC)) is not None
