"""NMEA 0183 from a GNSS receiver into immutable position fixes.

Layers, each usable alone:

:func:`parse_sentence`
    bytes of one line -> a :mod:`pynmea2` sentence, or a
    :class:`~devices.errors.BadSentence` naming the :class:`BadKind`.  Pure.
:class:`EpochAssembler`
    Pure, no threads, no clock: ``feed(line, t_monotonic_s) -> list[Fix]``.
    Groups the sentences of one epoch (same UTC time of day) into one
    :class:`Fix`, counts every rejected line by kind and never raises.  Learns
    which sentence ends the receiver's cycle and delivers the fix on it.
:class:`GnssReader`
    A :class:`~devices.transport.PortReader` feeding an :class:`EpochAssembler`;
    keeps only the newest fix (a consumer is never more than one epoch behind,
    however slowly it reads) and the statistics for the UI.
:func:`main`
    ``python -m devices.nmea SOURCE`` prints one JSON object per epoch (gpsd
    TPV names where they exist) and a summary.

Sources of the fields (NMEA 0183 v4.11; talkers GP GN GL GA GB BD GQ):

- GGA: time, latitude, longitude, quality (0-8), satellites used, HDOP,
  altitude above MSL, geoid separation, age of corrections, base station id.
- GNS: as GGA, with a mode character per constellation (used for quality when
  there is no GGA).
- RMC: time, date, status A/V, position, speed (knots), course, magnetic
  variation, mode indicator (2.3+), navigational status (4.1+).
- GLL: position and status when nothing better is sent.
- VTG: speed and course when there is no RMC.
- GSA: fix mode 1/2/3, satellites used, PDOP/HDOP/VDOP, system id (4.1+).
- GSV: satellites in view; a trailing signal id (4.1+) is not a satellite.
- GST: 1-sigma latitude / longitude / altitude errors in metres.
- ZDA: date, with its own time of day; it never opens an epoch (see
  :class:`EpochAssembler`).

A sentence with an impossible value (a negative HDOP or sigma, a course of
720 deg, an RMC date ``2303``...) is counted as ``malformed_field`` and not
used at all; an epoch whose time is not after the newest fix's is counted as
``time_backwards`` and not delivered (details in :class:`EpochAssembler`).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import enum
import functools
import json
import logging
import math
import operator
import os
import re
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterable, Iterator, Mapping, NamedTuple

import pynmea2
from pynmea2 import nmea_utils

from devices.errors import BadSentence, ChecksumError
from devices.transport import (
    BAUD_MAX,
    BAUD_MIN,
    MAX_LINE_BYTES,
    DeviceStatus,
    LineFramer,
    LinkState,
    PortReader,
    ReaderStats,
    SerialSettings,
    is_checksummed_nmea,
)

__all__ = [
    "FixQuality",
    "FixMode",
    "BadKind",
    "Usability",
    "Fix",
    "UERE_M",
    "VDOP_PER_HDOP",
    "GsvPage",
    "SatelliteInView",
    "parse_gsv",
    "parse_sentence",
    "NmeaStats",
    "EpochAssembler",
    "GnssStats",
    "GnssReader",
    "fix_to_json",
    "source_kind",
    "main",
]

log = logging.getLogger(__name__)

KNOT_MPS = 1852.0 / 3600.0  # 1 international knot in m/s
FOOT_M = 0.3048  # international foot
UTC = dt.timezone.utc


# --------------------------------------------------------------------------- enums


class FixQuality(enum.IntEnum):
    """GGA field 6, the GPS quality indicator (NMEA 0183 v4.11)."""

    NO_FIX = 0
    AUTONOMOUS = 1
    DGPS = 2
    PPS = 3
    RTK_FIXED = 4
    RTK_FLOAT = 5
    DEAD_RECKONING = 6
    MANUAL = 7
    SIMULATED = 8

    @property
    def label(self) -> str:
        """The quality in words, e.g. ``"RTK fixed"``."""
        return _QUALITY_LABELS[self]


_QUALITY_LABELS = {
    FixQuality.NO_FIX: "no fix",
    FixQuality.AUTONOMOUS: "autonomous",
    FixQuality.DGPS: "DGPS",
    FixQuality.PPS: "PPS",
    FixQuality.RTK_FIXED: "RTK fixed",
    FixQuality.RTK_FLOAT: "RTK float",
    FixQuality.DEAD_RECKONING: "dead reckoning",
    FixQuality.MANUAL: "manual",
    FixQuality.SIMULATED: "simulated",
}

# RMC/GNS/GLL/VTG mode indicator (NMEA 2.3+) -> quality, used when there is no GGA.
_MODE_CHAR_QUALITY = {
    "A": FixQuality.AUTONOMOUS,
    "D": FixQuality.DGPS,
    "P": FixQuality.PPS,  # "precise"
    "R": FixQuality.RTK_FIXED,
    "F": FixQuality.RTK_FLOAT,
    "E": FixQuality.DEAD_RECKONING,
    "M": FixQuality.MANUAL,
    "S": FixQuality.SIMULATED,
    "N": FixQuality.NO_FIX,
}


class FixMode(enum.Enum):
    """Fix dimension; the value is gpsd's TPV ``mode`` number (1 none, 2 2D, 3 3D)."""

    NONE = 1
    TWO_D = 2
    THREE_D = 3

    @property
    def gpsd_mode(self) -> int:
        """gpsd's TPV ``mode``: 1 no fix, 2 two-dimensional, 3 three-dimensional."""
        return self.value


class BadKind(str, enum.Enum):
    """Why a received line was rejected (counted in :class:`NmeaStats`)."""

    CHECKSUM = "checksum"  #: ``*hh`` does not match
    TRUNCATED = "truncated"  #: no ``$``/``!`` start or no ``*hh`` end
    BINARY_NOISE = "binary_noise"  #: bytes outside printable ASCII
    OVERLONG = "overlong"  #: longer than MAX_LINE_BYTES (runaway line)
    UNKNOWN_SENTENCE = "unknown_sentence"  #: well-formed, but a type pynmea2 does not know
    MALFORMED_FIELD = "malformed_field"  #: a field that cannot be read (e.g. latitude "4x52") or an impossible value
    #: a whole epoch (not a line) whose time is not after the newest fix's: late or repeated, not delivered
    TIME_BACKWARDS = "time_backwards"


# --------------------------------------------------------------------------- Fix

#: 1-sigma user-equivalent range error (metres) by fix quality, used to estimate
#: accuracy when the receiver sends no GST: horizontal = HDOP x UERE (a DRMS
#: figure, comparable with sqrt(sigma_lat^2 + sigma_lon^2) from GST) and
#: vertical = VDOP x UERE.  5.0 m is the usual single-frequency stand-alone
#: figure; corrected solutions are scaled down, conservatively.  Any quality not
#: listed uses the AUTONOMOUS value.
UERE_M: Mapping[FixQuality, float] = {
    FixQuality.AUTONOMOUS: 5.0,
    FixQuality.DGPS: 1.5,
    FixQuality.PPS: 3.0,
    FixQuality.RTK_FIXED: 0.05,
    FixQuality.RTK_FLOAT: 0.5,
    FixQuality.DEAD_RECKONING: 10.0,
}


#: Stand-in for VDOP when only HDOP is sent (GGA without GSA): vertical
#: geometry is typically about 1.5 times weaker than horizontal.
VDOP_PER_HDOP = 1.5


class Usability(NamedTuple):
    """Whether a fix may be recorded, and why not.

    A ``(usable, reason)`` pair that is truthy only when usable, so both
    ``ok, why = fix.is_usable(now)`` and ``if fix.is_usable(now):`` work.
    """

    usable: bool
    reason: str

    def __bool__(self) -> bool:
        return self.usable


@dataclass(frozen=True)
class Fix:
    """One epoch of a GNSS receiver's solution.

    All fields are plain values; ``None`` means the receiver did not say.
    Heights are of the antenna phase centre unless the name says ``ground``.

    Attributes
    ----------
    time_utc : datetime or None
        Timezone-aware UTC time of the epoch (GGA/RMC time + RMC/ZDA date).
        None while no date has been seen (see ``time_of_day_utc``).
    time_of_day_utc : datetime.time or None
        UTC time of day as sent (naive ``time``), known even without a date.
    lat_deg, lon_deg : float or None
        WGS 84 (receiver datum) latitude / longitude, decimal degrees,
        north / east positive.  None when there is no position.
    alt_msl_m : float or None
        Antenna altitude above mean sea level (geoid), metres (GGA field 9).
    geoid_sep_m : float or None
        Geoid separation N, metres (GGA field 11): ellipsoid height = MSL + N.
    quality : FixQuality
        GGA quality (or from the RMC/GNS mode indicator when there is no GGA).
    mode : FixMode
        None / 2D / 3D (GSA field 2, else inferred from position and altitude).
    sats_used, sats_in_view : int or None
        Satellites used in the solution (GGA) and distinct ones seen (GSV).
    hdop, vdop, pdop : float or None
        Dilutions of precision (GSA; HDOP also GGA).
    sigma_lat_m, sigma_lon_m, sigma_alt_m : float or None
        1-sigma errors from GST fields 6, 7, 8, metres.
    horizontal_accuracy_m, vertical_accuracy_m : float or None
        1-sigma accuracy: from GST (horizontal = sqrt(sigma_lat^2 + sigma_lon^2))
        when sent, else DOP x :data:`UERE_M` (vertical without VDOP:
        :data:`VDOP_PER_HDOP` x HDOP x UERE) and ``accuracy_estimated`` is True.
        Never NaN; None only when neither GST nor a DOP was sent, and then
        ``accuracy_source`` says so.
    accuracy_estimated : bool
        True when any accuracy figure is a DOP x UERE estimate.
    accuracy_source : str
        ``"GST"``, ``"HDOP/VDOP x UERE 5.0 m"`` or ``"none: no GST and no DOP"``.
    dgps_age_s : float or None
        Age of differential corrections, seconds (GGA field 13).
    dgps_station : str or None
        Differential reference station id (GGA field 14).
    speed_mps : float or None
        Speed over ground, m/s (RMC knots x 1852/3600, else VTG).
    course_deg : float or None
        Course over ground, degrees true (RMC, else VTG).
    magvar_deg : float or None
        Magnetic variation, degrees, east positive (RMC).
    rmc_status : str or None
        RMC status ``"A"`` valid / ``"V"`` void.
    mode_indicator : str or None
        RMC/GNS mode indicator (``"A"``, ``"D"``, ``"R"``, ``"F"``, ``"E"``, ``"N"``...).
    nav_status : str or None
        RMC navigational status (NMEA 4.1: ``"S"`` safe, ``"C"`` caution,
        ``"U"`` unsafe, ``"V"`` not valid).
    antenna_height_m : float
        Antenna phase-centre height above the ground mark, metres, as set when
        the fix was received; kept with the fix.
    t_monotonic_s : float
        :func:`time.monotonic` when the epoch's last sentence was received.
    sentences : tuple of str
        Sentence types seen in the epoch, in order (``"GNGGA"``, ``"GPGSV"``...).
    raw : tuple of str
        The sentences of the epoch as received (audit trail).
    """

    time_utc: dt.datetime | None = None
    time_of_day_utc: dt.time | None = None
    lat_deg: float | None = None
    lon_deg: float | None = None
    alt_msl_m: float | None = None
    geoid_sep_m: float | None = None
    quality: FixQuality = FixQuality.NO_FIX
    mode: FixMode = FixMode.NONE
    sats_used: int | None = None
    sats_in_view: int | None = None
    hdop: float | None = None
    vdop: float | None = None
    pdop: float | None = None
    sigma_lat_m: float | None = None
    sigma_lon_m: float | None = None
    sigma_alt_m: float | None = None
    horizontal_accuracy_m: float | None = None
    vertical_accuracy_m: float | None = None
    accuracy_estimated: bool = False
    accuracy_source: str = "none: no GST and no DOP"
    dgps_age_s: float | None = None
    dgps_station: str | None = None
    speed_mps: float | None = None
    course_deg: float | None = None
    magvar_deg: float | None = None
    rmc_status: str | None = None
    mode_indicator: str | None = None
    nav_status: str | None = None
    antenna_height_m: float = 0.0
    t_monotonic_s: float = 0.0
    sentences: tuple[str, ...] = ()
    raw: tuple[str, ...] = field(default=(), repr=False)

    @property
    def has_position(self) -> bool:
        """True when latitude and longitude are known and the quality is not NO_FIX."""
        return self.lat_deg is not None and self.lon_deg is not None and self.quality is not FixQuality.NO_FIX

    @property
    def alt_hae_m(self) -> float | None:
        """Antenna height above the ellipsoid, metres: ``alt_msl_m + geoid_sep_m``."""
        if self.alt_msl_m is None or self.geoid_sep_m is None:
            return None
        return self.alt_msl_m + self.geoid_sep_m

    @property
    def ground_alt_msl_m(self) -> float | None:
        """Ground mark altitude above MSL, metres: antenna altitude minus antenna height."""
        return None if self.alt_msl_m is None else self.alt_msl_m - self.antenna_height_m

    @property
    def ground_alt_hae_m(self) -> float | None:
        """Ground mark height above the ellipsoid, metres."""
        hae = self.alt_hae_m
        return None if hae is None else hae - self.antenna_height_m

    def age_s(self, now_monotonic_s: float) -> float:
        """Seconds since the fix was received (``now - t_monotonic_s``)."""
        return now_monotonic_s - self.t_monotonic_s

    def is_usable(self, now_monotonic_s: float, max_age_s: float = 2.0) -> Usability:
        """Whether this fix may be recorded now.

        Parameters
        ----------
        now_monotonic_s : float
            Current :func:`time.monotonic`.
        max_age_s : float
            Oldest acceptable fix, seconds (default 2 s).

        Returns
        -------
        Usability
            Truthy when usable; ``reason`` says why not (``"stale: 3.1 s old
            (limit 2.0 s)"``, ``"no position (no fix)"``...), or ``"ok"``.

        Examples
        --------
        >>> f = Fix(lat_deg=1.0, lon_deg=2.0, quality=FixQuality.AUTONOMOUS, t_monotonic_s=10.0)
        >>> f.is_usable(11.0)
        Usability(usable=True, reason='ok')
        >>> ok, why = f.is_usable(12.5)
        >>> ok, why
        (False, 'stale: 2.5 s old (limit 2.0 s)')
        """
        if not self.has_position:
            return Usability(False, f"no position ({self.quality.label})")
        age = self.age_s(now_monotonic_s)
        if age > max_age_s:
            return Usability(False, f"stale: {age:.1f} s old (limit {max_age_s:.1f} s)")
        return Usability(True, "ok")


# --------------------------------------------------------------------------- sentence level


@dataclass(frozen=True)
class SatelliteInView:
    """One satellite of a GSV page."""

    prn: int
    elevation_deg: float | None
    azimuth_deg: float | None
    snr_dbhz: float | None


@dataclass(frozen=True)
class GsvPage:
    """One GSV sentence: page ``msg_num`` of ``num_messages`` for one talker and signal."""

    talker: str
    num_messages: int
    msg_num: int
    sats_in_view: int
    satellites: tuple[SatelliteInView, ...]
    signal_id: str | None


def _num(text: str, kind=float, what: str = "field") -> float | int | None:
    """'' (or blanks) -> None; else the number, or ValueError naming the field."""
    if not text:
        return None
    try:
        value = kind(text)
    except ValueError:
        if not text.strip():
            return None
        raise ValueError(f"{what} {text!r} is not a number") from None
    if kind is float and not math.isfinite(value):
        raise ValueError(f"{what} {text!r} is not finite")
    return value


#: Plausible ranges of the numeric fields (inclusive).  A value outside its range is impossible
#: (e.g. a negative HDOP or sigma, 99999999999999999999 satellites): the whole sentence is then
#: ``malformed_field`` (see :class:`EpochAssembler`).
MAX_DOP = 99.99  #: the largest DOP NMEA can carry (2 decimals, receivers send 99.99 for "none")
MAX_SATS = 200  #: satellites used / in view, all constellations together
ALT_MSL_RANGE_M = (-1000.0, 100000.0)  #: Dead Sea shore to the edge of space, with margin
MAX_GEOID_SEP_M = 200.0  #: |N| of EGM96/EGM2008 is below 110 m everywhere
MAX_MAGVAR_DEG = 180.0


def _ranged(text: str, kind, what: str, lo: float | None, hi: float | None) -> float | int | None:
    """:func:`_num`, then ``lo <= value <= hi`` (None: unbounded) or ValueError naming the field."""
    value = _num(text, kind, what)
    if value is not None and ((lo is not None and value < lo) or (hi is not None and value > hi)):
        raise ValueError(f"{what} {text.strip()!r} outside {lo}..{hi}")
    return value


def _dop(text: str, what: str) -> float | None:
    """A dilution of precision: 0 < DOP <= :data:`MAX_DOP`.

    ``0`` / ``0.0`` reads as "not given" (None): receivers use it as a placeholder (a Trimble R1
    sends VDOP 0.0 in a 2D fix).  A negative or larger value raises ValueError.
    """
    value = _ranged(text, float, what, 0.0, MAX_DOP)
    return value or None


def _sats(text: str, what: str) -> int | None:
    return _ranged(text, int, what, 0, MAX_SATS)


def parse_gsv(msg: pynmea2.NMEASentence) -> GsvPage:
    """Read a GSV sentence, honouring the NMEA 4.10 trailing signal id.

    pynmea2 maps fields positionally, so a page with fewer than four
    satellites plus a signal id would show the id as a phantom satellite
    PRN.  Groups of four fields follow the three header fields; one field
    left over is the signal id.

    Raises
    ------
    ValueError
        A field is not a number.
    """
    data = [d.strip() for d in msg.data]
    head, body = data[:3], data[3:]
    signal_id = body.pop() if len(body) % 4 == 1 else None
    sats = []
    for i in range(0, len(body) - len(body) % 4, 4):
        prn, el, az, snr = body[i : i + 4]
        if prn == "":
            continue
        sats.append(
            SatelliteInView(int(prn), _num(el, float, "elevation"), _num(az, float, "azimuth"), _num(snr, float, "SNR"))
        )
    return GsvPage(
        talker=msg.talker,
        num_messages=int(head[0] or 0),
        msg_num=int(head[1] or 0),
        sats_in_view=int(head[2] or 0) if len(head) > 2 else 0,
        satellites=tuple(sats),
        signal_id=signal_id or None,
    )


#: Bytes a sentence may hold (printable ASCII); ``line.translate(None, _PRINTABLE)`` keeps the rest.
_PRINTABLE = bytes(range(0x20, 0x7F))


def _is_printable(data: bytes) -> bool:
    return not data.translate(None, _PRINTABLE)


_HIGH_PRECISION_RE = re.compile(r"^\$([A-Z]{2})(GGA|GLL|GNS|RMC|GST|ZDA|VTG|GSA)H,")


def parse_sentence(line: bytes) -> pynmea2.NMEASentence:
    """Check and parse one framed line.

    Parameters
    ----------
    line : bytes
        One line without its terminator (surrounding whitespace is ignored).

    Returns
    -------
    pynmea2.NMEASentence
        The parsed sentence (fields are read lazily; see :func:`parse_gsv`).

    Raises
    ------
    ChecksumError
        ``*hh`` does not match (kind ``checksum``).
    BadSentence
        ``kind`` is a :class:`BadKind` value: ``overlong``, ``binary_noise``,
        ``truncated`` (no start character, or no ``*hh``) or
        ``unknown_sentence``.

    Examples
    --------
    >>> parse_sentence(b"$GPZDA,201530.00,04,07,2002,00,00*60").year
    2002
    """
    return _parse(line.strip())[0]


def _parse(line: bytes) -> tuple[pynmea2.NMEASentence, str]:
    """:func:`parse_sentence` of an already stripped line, with the line as text (decoded once)."""
    if len(line) > MAX_LINE_BYTES:
        raise BadSentence(BadKind.OVERLONG.value, line, f"{len(line)} bytes > {MAX_LINE_BYTES}")
    if line.translate(None, _PRINTABLE):
        raise BadSentence(BadKind.BINARY_NOISE.value, line, "bytes outside printable ASCII")
    if line[:1] not in (b"$", b"!"):
        raise BadSentence(BadKind.TRUNCATED.value, line, "no $ or ! at the start")
    if len(line) < 4 or line[-3:-2] != b"*":
        raise BadSentence(BadKind.TRUNCATED.value, line, "no *hh checksum at the end")
    text = line.decode("ascii")
    if text[0] == "!":
        if not is_checksummed_nmea(line):
            raise ChecksumError(line, "checksum does not match")
        raise BadSentence(BadKind.UNKNOWN_SENTENCE.value, line, "encapsulated (AIS) sentence")
    try:
        return pynmea2.parse(text, check=True), text  # verifies the checksum first
    except pynmea2.ChecksumError as exc:
        raise ChecksumError(line, str(exc.args[0][0])) from exc
    except pynmea2.ParseError as exc:
        if not is_checksummed_nmea(line):  # pynmea2 could not even find the fields
            raise ChecksumError(line, "checksum does not match") from exc
        hp = _HIGH_PRECISION_RE.match(text)
        cls = pynmea2.TalkerSentence.sentence_types.get(hp.group(2)) if hp else None
        if cls is None:
            raise BadSentence(BadKind.UNKNOWN_SENTENCE.value, line, str(exc.args[0][0])) from exc
        # Unicore's high-precision variants ($GNGGAH...) carry the standard fields
        return cls(hp.group(1), hp.group(2), text[8:-3].split(",")), text


# --------------------------------------------------------------------------- epoch assembly


@dataclass(frozen=True)
class NmeaStats:
    """Counts of what an :class:`EpochAssembler` received.

    Attributes
    ----------
    good : int
        Lines that passed the checksum and parsed, fields included (used or not).
    used : int
        Good lines that contributed to a fix.
    comments : int
        ``#`` lines (log-file headers), skipped.
    fixes : int
        Fixes emitted.
    bad : dict
        :class:`BadKind` value -> count, every kind present (zero or more).
        Each counts lines, except ``time_backwards``, which counts epochs
        (their lines stay counted in ``good``).
    early_closes : int
        Epochs closed at the learned cycle ender (see :class:`EpochAssembler`).
    late_lines : int
        Good lines that came after the learned cycle ender of their epoch, once its fix was
        delivered: not used, and that ender is not trusted again.
    """

    good: int = 0
    used: int = 0
    comments: int = 0
    fixes: int = 0
    bad: Mapping[str, int] = field(default_factory=lambda: {k.value: 0 for k in BadKind})
    early_closes: int = 0
    late_lines: int = 0

    @property
    def total_bad(self) -> int:
        """Sum of all bad kinds."""
        return sum(self.bad.values())


_TIME_RE = re.compile(r"(\d\d)(\d\d)(\d\d)(\.\d*)?\Z")
#: A leap second (``235960[.ss]``) is held at the last microsecond of the day.
LEAP_SECOND_TIME = dt.time(23, 59, 59, 999_999)


def _time_of_day(text: str) -> dt.time | None:
    """``hhmmss[.sss]`` -> naive time; microseconds rounded from the decimal text.

    Exactly six digits, then an optional fraction; hours 0-23, minutes 0-59, seconds 0-59.  The
    leap second ``23:59:60[.s]`` (UTC, end of a day) is read as :data:`LEAP_SECOND_TIME`
    (23:59:59.999999): :class:`datetime.time` has no second 60, and holding it keeps the time of
    day increasing into the midnight that follows.  At rates above 1 Hz the epochs inside a leap
    second share that time.  Anything else raises ValueError.
    """
    if text == "":
        return None
    m = _TIME_RE.match(text)
    if m is None:
        raise ValueError(f"time {text!r} is not hhmmss[.sss]")
    hh, mm, ss = int(m.group(1)), int(m.group(2)), int(m.group(3))
    frac = m.group(4)
    micro = round(float("0" + frac) * 1_000_000) if frac and frac != "." else 0
    if micro >= 1_000_000:
        raise ValueError(f"time {text!r} has a fraction >= 1 s")
    if (hh, mm, ss) == (23, 59, 60):
        return LEAP_SECOND_TIME
    if hh > 23 or mm > 59 or ss > 59:
        raise ValueError(f"time {text!r} is not a time of day")
    return dt.time(hh, mm, ss, micro)


def _dm(text: str, what: str) -> float:
    """NMEA ``dddmm.mmmm`` -> decimal degrees (pynmea2's dm_to_sd), minutes checked < 60."""
    value = nmea_utils.dm_to_sd(text)  # ValueError unless digits + 2-digit minutes + fraction
    if float(text[text.index(".") - 2 :]) >= 60.0:
        raise ValueError(f"{what} {text!r} has minutes >= 60")
    return value


def _latlon(lat: str, lat_dir: str, lon: str, lon_dir: str) -> tuple[float | None, float | None]:
    """Latitude / longitude fields (``ddmm.mmmm``, N/S, ``dddmm.mmmm``, E/W) -> signed degrees."""
    lat, lat_dir, lon, lon_dir = lat.strip(), lat_dir.strip(), lon.strip(), lon_dir.strip()
    if lat == "" or lon == "":
        return None, None
    if lat_dir not in ("N", "S") or lon_dir not in ("E", "W"):
        raise ValueError(f"hemisphere {lat_dir!r}/{lon_dir!r} not N/S and E/W")
    lat_deg, lon_deg = _dm(lat, "latitude"), _dm(lon, "longitude")
    if lat_deg > 90.0 or lon_deg > 180.0:
        raise ValueError(f"position {lat} {lat_dir} {lon} {lon_dir} out of range")
    return (-lat_deg if lat_dir == "S" else lat_deg), (-lon_deg if lon_dir == "W" else lon_deg)


_POSITION_TYPES = ("GGA", "GNS", "RMC", "GLL")
_POSITION_SET = frozenset(_POSITION_TYPES)
# index of the UTC time field in each timed sentence (GLL has it after the position)
_TOD_INDEX = {"GGA": 0, "GNS": 0, "RMC": 0, "GLL": 4, "GST": 0, "ZDA": 0}
_FIELD_ERRORS = (ValueError, TypeError, AttributeError, IndexError, KeyError)
#: A ZDA joins the epoch in progress when their times of day are less than this apart (seconds).
ZDA_JOIN_S = 1.0
#: An epoch up to this far behind the newest fix (seconds) is late, not a reset: dropped.
STALE_EPOCH_WINDOW_S = 600.0
#: Consecutive late epochs, each after the one before, after which the receiver's new time is followed.
RESYNC_EPOCHS = 3
#: Good lines remembered by their exact bytes, so a verbatim repeat is not parsed again (about
#: ten epochs of a typical receiver; far shorter than any test or benchmark log).
RECENT_LINES = 128
#: Epochs a sentence must have ended (since it was last followed by another sentence of its epoch)
#: before it is taken as an ender of the receiver's cycle (see :class:`EpochAssembler`) ...
CYCLE_LEARN_EPOCHS = 2
#: ... and seconds of epoch times it must have gone without being followed (from the first epoch
#: watched): longer than the period of what receivers send less often than every epoch, so that
#: is seen following the would-be ender first (twice the 5 s of GSV on SiRF receivers; the BU-353
#: capture has it: 4 s here would cut one of its epochs short).
CYCLE_LEARN_S = 10.0
#: Epoch time steps longer than this (seconds) are not counted as watched (a gap, a reset).
CYCLE_GAP_S = 5.0


def _may_end_cycle(cycle_key: str) -> bool:
    """Whether a sentence (its :func:`_cycle_key`) may be learned as the end of the receiver's cycle.

    Not a GSV page that is not the last (more pages follow), nor a GSA or GNS: receivers send one
    of those per constellation *used* (NMEA 0183 v4.10), a set that changes with the solution, so
    the last of them may be followed by another in a later epoch (the Trimble R1 capture sends
    GNGNS alone for a minute, then GNGNS, GPGNS, GLGNS, BDGNS).  GSV groups follow the
    constellations *in view*, which is stable once tracking.
    """
    kind = cycle_key[2:5]
    if kind == "GSV":
        return cycle_key.endswith(" last page")
    return kind not in ("GSA", "GNS")


def _ender_words(key: tuple[str, int]) -> str:
    """An ender key ``(cycle_key, n)`` in words: ``"GNZDA"``, ``"GPGGA (number 2)"``."""
    base, n = key
    return base if n == 1 else f"{base} (number {n})"


_EMPTY: Mapping[str, object] = {}
_MODE_BY_FIX_TYPE = {2: FixMode.TWO_D, 3: FixMode.THREE_D}


def _opens_epoch(ep: "_Epoch", kind: str, tod: dt.time | None) -> bool:
    """Whether a sentence of ``kind`` with time of day ``tod`` closes ``ep`` and opens the next epoch.

    An untimed sentence never does; a ZDA when ``ep`` already holds a timed ZDA or its time is
    :data:`ZDA_JOIN_S` or more from ``ep``'s; another timed sentence when its time differs from
    ``ep``'s, or, while ``ep`` has only a ZDA's time, is ZDA_JOIN_S or more from it.
    """
    if tod is None:
        return False
    if kind == "ZDA":
        return ep.zda_tod is not None or (ep.tod is not None and abs(_tod_diff_s(tod, ep.tod)) >= ZDA_JOIN_S)
    if ep.tod is None:
        return ep.zda_tod is not None and abs(_tod_diff_s(tod, ep.zda_tod)) >= ZDA_JOIN_S
    return tod != ep.tod


class _Epoch:
    __slots__ = ("tod", "zda_tod", "msgs", "types", "raw", "t_last", "has_position", "seen", "last")

    def __init__(self) -> None:
        self.tod: dt.time | None = None  # time of the sentences that opened the epoch (never ZDA)
        self.zda_tod: dt.time | None = None  # time of the epoch's first timed ZDA
        self.msgs: dict[str, list] = {}
        self.types: list[str] = []
        self.raw: list[str] = []
        self.t_last = 0.0
        self.has_position = False
        self.seen: dict[str, int] = {}  # _Sentence.cycle_key -> how many so far in this epoch
        self.last: str | None = None  # cycle_key of the newest sentence

    @property
    def last_key(self) -> tuple[str, int] | None:
        """``(cycle_key, n)`` of the newest sentence (the n-th of its key in the epoch): the
        candidate ender."""
        return None if self.last is None else (self.last, self.seen[self.last])

    def add(self, sentence: "_Sentence", t: float) -> int:
        """Append a sentence received at ``t``; return how many of its cycle key the epoch holds.

        (:meth:`EpochAssembler._feed` does the same inline.)
        """
        kind = sentence.kind
        bucket = self.msgs.get(kind)
        if bucket is None:
            self.msgs[kind] = [sentence]
            if kind in _POSITION_SET:
                self.has_position = True
        else:
            bucket.append(sentence)
        self.types.append(sentence.label)
        self.raw.append(sentence.text)
        self.t_last = t
        base = self.last = sentence.cycle_key
        n = self.seen[base] = self.seen.get(base, 0) + 1
        return n


_UNREAD = object()  # _Sentence.values before the fields are read
_MALFORMED = object()  # _Sentence.values when a field could not be read


class _Sentence:
    """One good line: the parsed sentence, its text, type, time of day and (once read) its fields.

    Shared by identical lines that arrive close together (see ``EpochAssembler._recent``): every
    value here is a pure function of the line's bytes, and nothing changes them once set.
    """

    __slots__ = ("msg", "text", "kind", "label", "tod", "values", "cycle_key")

    def __init__(self, msg: pynmea2.NMEASentence, text: str, kind: str | None, tod: dt.time | None) -> None:
        self.msg = msg
        self.text = text
        self.kind = kind  # a _HANDLERS key, or None for a good sentence we do not use
        self.label = msg.talker + kind if kind is not None else ""
        self.tod = tod
        self.values = _UNREAD
        self.cycle_key = _cycle_key(msg, self.label, kind) if kind in ("GSV", "GSA") else self.label


def _cycle_key(msg: pynmea2.NMEASentence, label: str, kind: str) -> str:
    """What a sentence is, for learning which one ends the receiver's cycle (see
    :class:`EpochAssembler`), in words: its label (``"GPRMC"``); for GSA with the system id (NMEA
    4.1, ``"GNGSA system 4"``); for GSV with the signal id (NMEA 4.1) and whether it is the last
    page (page number = number of pages): ``"GLGSV signal 1 last page"``, ``"GPGSV page"``.
    Never raises: a field that cannot be read is taken as text."""
    data = msg.data
    if kind == "GSV":
        head = [d.strip() for d in data[:2]]
        signal = data[-1].strip() if (len(data) - 3) % 4 == 1 else ""
        last = len(head) == 2 and head[0] != "" and head[0].lstrip("0") == head[1].lstrip("0")
        return label + (f" signal {signal}" if signal else "") + (" last page" if last else " page")
    if kind == "GSA":
        system = data[17].strip() if len(data) > 17 else ""
        return label + (f" system {system}" if system else "")
    return label


class _Fields:
    """Reads an epoch's sentences lazily: only what the fix needs, first good one of a type wins."""

    __slots__ = ("assembler", "msgs", "cache")

    def __init__(self, assembler: "EpochAssembler", epoch: _Epoch) -> None:
        self.assembler = assembler
        self.msgs = epoch.msgs
        self.cache: dict[str, dict | None] = {}

    def get(self, kind: str) -> dict | None:
        """The fields of the first readable sentence of ``kind`` (None if none); read once."""
        cache = self.cache
        if kind in cache:
            return cache[kind]
        values = None
        for sentence in self.msgs.get(kind, ()):
            values = sentence.values
            if values is _UNREAD:
                try:
                    values = _HANDLERS[kind](sentence.msg)
                except _FIELD_ERRORS as exc:
                    log.debug("malformed %s: %s", kind, exc)
                    values = _MALFORMED
                sentence.values = values
            if values is _MALFORMED:
                values = None
                self.assembler._malformed()
                continue
            self.assembler._used += 1
            break
        cache[kind] = values
        return values

    def first(self, key: str, *kinds: str):
        """``key`` from the first of ``kinds`` (in order) that has it, else None."""
        for kind in kinds:
            src = self.get(kind)
            if src is not None:
                value = src.get(key)
                if value is not None:
                    return value
        return None


def _seconds(t: dt.time) -> float:
    return t.hour * 3600 + t.minute * 60 + t.second + t.microsecond / 1e6


def _tod_diff_s(a: dt.time, b: dt.time) -> float:
    """``a - b`` in seconds across midnight: the difference of the times of day, in [-12 h, 12 h)."""
    return (_seconds(a) - _seconds(b) + 43200.0) % 86400.0 - 43200.0


def _behind_s(a: tuple, b: tuple) -> float:
    """Seconds epoch ``a`` is behind epoch ``b``; each a ``(time_utc or None, time of day)``.

    Full datetimes when both have a date, else the times of day across midnight.
    """
    if a[0] is not None and b[0] is not None:
        return (b[0] - a[0]).total_seconds()
    return _tod_diff_s(b[1], a[1])


@functools.lru_cache(maxsize=64)
def _accuracy_source(horizontal: str | None, vertical: str | None, uere: float) -> str:
    """``Fix.accuracy_source`` for where each accuracy came from: ``"GST"``, ``"HDOP"``, ``"VDOP"``,
    ``"HDOP*"`` (vertical from :data:`VDOP_PER_HDOP` x HDOP) or None (not known)."""
    sources = []
    if horizontal == "GST":
        sources.append("GST")
    elif horizontal == "HDOP":
        sources.append(f"HDOP x UERE {uere:g} m")
    if vertical == "GST":
        if "GST" not in sources:
            sources.append("GST")
    elif vertical == "VDOP":
        sources.append(f"VDOP x UERE {uere:g} m")
    elif vertical == "HDOP*":
        sources.append(f"{VDOP_PER_HDOP:g} x HDOP x UERE {uere:g} m")
    return " + ".join(sources) if sources else "none: no GST and no DOP"


_FIX_FIELDS = frozenset(f.name for f in dataclasses.fields(Fix))


def _new_fix(values: dict) -> Fix:
    """``Fix(**values)`` for a dict naming every field, in one step.

    A frozen dataclass's ``__init__`` sets each of Fix's 32 fields through
    ``object.__setattr__`` (about as long as pynmea2 takes to parse a
    sentence); filling the instance dict at once gives the same, equal,
    immutable object.
    """
    fix = object.__new__(Fix)
    fix.__dict__.update(values)
    return fix


class EpochAssembler:
    """Groups the sentences of one epoch into one :class:`Fix`.  Pure: no threads, no clock.

    An epoch is every sentence between two changes of the UTC time of day of
    the epoch sentences (GGA, GNS, RMC, GLL, GST).  Sentences without a time
    (GSA, GSV, VTG) join the epoch in progress.  The fix of an epoch is emitted
    when the next epoch's first timed sentence arrives, or by :meth:`flush`
    (end of input, or a gap in the stream), or at once on the line that ends
    the receiver's cycle, once that is learned (below).  An epoch is emitted
    only if it held a position sentence (GGA, GNS, RMC, GLL), valid or not, so
    "no fix" epochs are reported too.  One fix per receiver epoch.

    **The cycle ender** (gpsd's idea).  Waiting for the next epoch costs a
    whole epoch of latency (0.1 s at 10 Hz, 1 s at 1 Hz), so the assembler
    learns which sentence ends the receiver's cycle and closes the epoch on it.
    A sentence is identified by its talker and type, the count of it so far in
    the epoch, and for GSV the signal id and whether it is the last page (for
    GSA, the system id): ``GNZDA``, ``GPRMC``, ``GLGSV last page``.  When an
    epoch is over (the next one began, or a flush), every sentence in it but
    the last was *followed*.  The last one is learned as an ender once it has
    ended :data:`CYCLE_LEARN_EPOCHS` epochs holding a position and has not
    been followed for :data:`CYCLE_LEARN_S` seconds of epoch times (the UTC
    times in the sentences, not a clock), counted from the first epoch: so a
    sentence sent only every few seconds after the would-be ender (SiRF's GSV
    every 5 s) shows up first, and that ender is never learned.  GSA, GNS and
    GSV pages other than the last are never enders (see
    :func:`_may_end_cycle`).  When a learned ender joins an epoch holding a
    position sentence, the fix is emitted on that line; the epoch, as grouped,
    is the one the next-epoch close would have given.  Those closes stay as
    the fallback: an ender that does not come (a corrupted line, a receiver set
    up anew) only delays the fix to the next epoch or the idle flush, and the
    new last sentence is learned once it has gone CYCLE_LEARN_S unfollowed.
    Should the receiver send more of an epoch after its learned ender (its
    sentence set changed), the fix is out already: those lines are counted in
    ``late_lines`` and not used (never a second fix for the same epoch), and
    that ender is not trusted again.  :meth:`forget_cycle` starts learning
    afresh (the reader calls it on every connect).  Epoch times more than
    :data:`CYCLE_GAP_S` apart are not counted as watched, so below 0.2 Hz
    epochs close the old way only.

    **ZDA is time-only: it never opens an epoch.**  Receivers stamp it with the
    moment it is sent, which need not be the solution's time (a Trimble R1
    sends ZDA 22:56:51.02 between GGA/RMC/GST of 22:56:51.00), so it joins the
    epoch in progress.  Only when that epoch already holds a timed ZDA, or its
    time is 1 s or more away from the ZDA's (:data:`ZDA_JOIN_S`, across
    midnight), does the ZDA close it; the ZDA then waits in the next epoch,
    whose time comes from its first epoch sentence (which, likewise, closes
    an epoch holding only a ZDA 1 s or more away).  An epoch with no timed
    epoch sentence (a no-fix GGA with empty fields) takes the ZDA's time.

    **Dates.**  The date reference is a (date, time of day) pair: the RMC date
    with the RMC's epoch time, or the ZDA date with the ZDA's own time (so a
    ZDA of 00:00:00.0 on the 2nd joining an epoch of 23:59:59.9 dates that
    epoch the 1st).  The RMC of the epoch wins.  An epoch without its own RMC
    date takes the date of the latest reference, moved a day forward or back
    when the times of day differ by more than 12 h (midnight); before any date
    is seen ``time_utc`` is None.

    **Time going backwards.**  A fix is delivered only if its time is after the
    newest fix delivered (full datetimes when both are dated, else times of
    day across midnight).  An epoch 0 to :data:`STALE_EPOCH_WINDOW_S` (10 min)
    behind it (a late epoch, or the same epoch again) is counted as
    ``time_backwards`` (one per epoch) and dropped.  A larger jump back is a
    receiver reset or a new session and is accepted at once; so is the
    :data:`RESYNC_EPOCHS`-th of consecutive dropped epochs whose times advance
    among themselves (a clock stepped back by less than the window: the
    receiver runs on the new time, and we follow it after two epochs).

    **Impossible values.**  A sentence holding a field that cannot be read or
    whose value is impossible (a DOP below 0 or above :data:`MAX_DOP`, satellites outside 0..:data:`MAX_SATS`, a negative GST
    sigma or speed, a course outside 0..360, geoid separation beyond
    :data:`MAX_GEOID_SEP_M`, altitude outside :data:`ALT_MSL_RANGE_M`, a
    negative correction age, a date or time that is not one) is dropped
    whole and counted once as ``malformed_field``: a GGA with HDOP -0.9 gives
    no position, quality, satellites or HDOP at all, rather than a fix
    claiming an accuracy it cannot back.  The fix then takes each value from
    the next sentence that has it (RMC position, GSA HDOP...).  A DOP of 0 is
    read as "not given", and a magnetic variation above 180 deg (Trimble's
    999.9) as unknown.

    Fields are read lazily when the epoch closes, in order of precedence
    (position: GGA, GNS, RMC, GLL; the first readable sentence of a type
    wins).  A malformed field is counted (``malformed_field``) when it is
    read; a sentence superseded by a better one of the same epoch (a second
    talker's GGA, a GLL beside a GGA) is checked for checksum and structure
    only.  The time field is always read on arrival (it decides the epoch).

    Parameters
    ----------
    antenna_height_m : float
        Antenna height above the ground mark, metres (>= 0), stamped on every
        fix (change it with the attribute of the same name).

    Examples
    --------
    >>> a = EpochAssembler()
    >>> a.feed(b"$GPGGA,120000.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*67", 1.0)
    []
    >>> [f.lat_deg for f in a.flush()]
    [48.1173]
    """

    def __init__(self, antenna_height_m: float = 0.0) -> None:
        if not (0.0 <= antenna_height_m < 100.0):
            raise ValueError(f"antenna_height_m {antenna_height_m!r} outside 0..100 m")
        self.antenna_height_m = float(antenna_height_m)
        self._epoch = _Epoch()
        self._last_date: dt.date | None = None
        self._last_date_tod: dt.time | None = None
        # (time_utc, time of day) of the newest fix emitted; of the last epoch dropped as behind it,
        # and how many dropped in a row advanced on each other
        self._newest: tuple | None = None
        self._behind: tuple | None = None
        self._behind_run = 0
        self._bad: Counter = Counter()
        self._good = self._used = self._comments = self._fixes = 0
        self._tod_text: str | None = None
        self._tod: dt.time | None = None
        # The last RECENT_LINES good lines (exact bytes) -> their _Sentence.  Receivers repeat
        # GSA / GSV / VTG lines verbatim from epoch to epoch; an identical line has the same
        # (already verified) checksum and the same fields, so it is not parsed again.
        self._recent: dict[bytes, _Sentence] = {}
        # The cycle enders (see the class notes).  Keys are (cycle key, n): the n-th sentence of
        # that _Sentence.cycle_key in an epoch.  Learned enders (cycle key -> the n that end the
        # cycle); for each key the watched time it was last followed by another sentence of its
        # epoch, and how many epochs it ended since; keys that were followed after an early close
        # (banned); receiver seconds of epochs watched, up to the epoch at _watched_tod; the epoch
        # closed at an ender (until the next sentence shows whether more of it comes); counts of
        # early closes and of late lines.
        self._enders: dict[str, set[int]] = {}
        self._followed_at: dict[str, list[float]] = {}  # cycle key -> by n - 1
        self._ended: dict[tuple[str, int], int] = {}
        self._banned: set[tuple[str, int]] = set()
        self._watched_s = 0.0
        self._watched_tod: dt.time | None = None
        self._early: _Epoch | None = None
        self._early_closes = 0
        self._late_lines = 0

    # -- counts

    @property
    def stats(self) -> NmeaStats:
        """Snapshot of the counters."""
        return NmeaStats(
            good=self._good,
            used=self._used,
            comments=self._comments,
            fixes=self._fixes,
            bad={k.value: self._bad.get(k.value, 0) for k in BadKind},
            early_closes=self._early_closes,
            late_lines=self._late_lines,
        )

    def count_bad(self, kind: BadKind | str, n: int = 1) -> None:
        """Add ``n`` to a bad-kind counter (framers report dropped runaway lines here)."""
        self._bad[BadKind(kind).value] += n

    # -- input

    def feed(self, line: bytes, t_monotonic_s: float) -> list[Fix]:
        """Take one framed line; return the fixes completed by it (usually none or one).

        Never raises: a rejected line is counted by :class:`BadKind` and skipped.
        """
        try:
            return self._feed(line, t_monotonic_s)
        except Exception as exc:  # noqa: BLE001 - nothing escapes; count as malformed
            log.debug("unexpected failure on %r: %s", line[:100], exc)
            self._bad[BadKind.MALFORMED_FIELD.value] += 1
            return []

    def feed_many(self, lines: Iterable[bytes], t_monotonic_s: float) -> list[Fix]:
        """:meth:`feed` every line with the same receive time."""
        out: list[Fix] = []
        for line in lines:
            out.extend(self.feed(line, t_monotonic_s))
        return out

    def _feed(self, line: bytes, t: float) -> list[Fix]:
        line = line.strip()
        sentence = self._recent.get(line)
        if sentence is None:
            if not line:
                return []
            sentence = self._check(line)
            if sentence is None:
                return []
        self._good += 1
        kind = sentence.kind
        if kind is None:
            return []  # good but not a sentence we use (TXT, HDT, proprietary...)
        tod = sentence.tod
        early = self._early
        if early is not None:
            # the epoch before was closed at its learned ender: does this sentence still belong to it?
            if not _opens_epoch(early, kind, tod):
                self._late(early, sentence, t)
                return []
            self._early = None
            self._learn(early)
        out: list[Fix] = []
        ep = self._epoch
        if tod is not None:  # _opens_epoch(ep, kind, tod), inline (this runs for most lines)
            if kind == "ZDA":  # time-only: joins the epoch in progress, never opens one
                if ep.zda_tod is not None or (ep.tod is not None and abs(_tod_diff_s(tod, ep.tod)) >= ZDA_JOIN_S):
                    fix = self._close()
                    if fix is not None:
                        out.append(fix)
                    ep = self._epoch
                if ep.zda_tod is None:
                    ep.zda_tod = tod
            elif ep.tod is None:
                if ep.zda_tod is not None and abs(_tod_diff_s(tod, ep.zda_tod)) >= ZDA_JOIN_S:
                    fix = self._close()  # the epoch of an earlier ZDA (and untimed sentences) is over
                    if fix is not None:
                        out.append(fix)
                    ep = self._epoch
                ep.tod = tod
            elif tod != ep.tod:
                fix = self._close()
                if fix is not None:
                    out.append(fix)
                ep = self._epoch
                ep.tod = tod
        # ep.add(sentence, t), inline (this runs for every line)
        bucket = ep.msgs.get(kind)
        if bucket is None:
            ep.msgs[kind] = [sentence]
            if kind in _POSITION_SET:
                ep.has_position = True
        else:
            bucket.append(sentence)
        ep.types.append(sentence.label)
        ep.raw.append(sentence.text)
        ep.t_last = t
        base = ep.last = sentence.cycle_key
        seen = ep.seen
        n = seen[base] = seen.get(base, 0) + 1
        counts = self._enders.get(base)
        if counts is not None and n in counts and ep.has_position:
            # the sentence that ends the receiver's cycle: the epoch is complete now
            self._early_closes += 1
            fix = self._close(early=True)
            if fix is not None:
                out.append(fix)
        return out

    # -- the cycle ender (see the class notes)

    @property
    def cycle_enders(self) -> tuple[str, ...]:
        """The learned last sentences of the receiver's cycle, in words (``"GNZDA"``, ``"GPRMC"``,
        ``"GLGSV signal 1 last page"``, ``"GPVTG (number 2)"`` for the second VTG of an epoch);
        empty while none is learned."""
        return tuple(sorted(_ender_words((base, n)) for base, counts in self._enders.items() for n in counts))

    def forget_cycle(self) -> None:
        """Forget what was learned of the receiver's cycle (it was (re)connected: it may be another
        receiver, or one set up differently).  Epochs close at the next epoch or a gap until an
        ender is learned again."""
        self._early = None
        self._enders.clear()
        self._followed_at.clear()
        self._ended.clear()
        self._banned.clear()
        self._watched_s = 0.0
        self._watched_tod = None

    def _learn(self, ep: _Epoch) -> None:
        """An epoch is over (nothing more can join it): learn from the order of its sentences."""
        last = ep.last
        if last is None:
            return
        if ep.has_position:
            tod = ep.tod if ep.tod is not None else ep.zda_tod
            if tod is not None:
                if self._watched_tod is not None:
                    step = _tod_diff_s(tod, self._watched_tod)
                    if 0.0 < step <= CYCLE_GAP_S:
                        self._watched_s += step
                self._watched_tod = tod
        now = self._watched_s
        # each sentence of the epoch but the last was followed by another: not an ender (now).  Of
        # a cycle key, that is its 1st..count-th (1st..(count-1)-th for the last sentence's key).
        seen = ep.seen
        followed_at, ended, enders = self._followed_at, self._ended, self._enders
        for base, count in seen.items():
            if base == last:
                count -= 1
                if not count:
                    continue
            times = followed_at.get(base)
            if times is None:
                followed_at[base] = [now] * count
            else:
                times[:count] = [now] * count
            if base in enders:
                self._distrust(base, count)
        if ended:
            for key in [k for k in ended if k[1] <= seen.get(k[0], 0) - (k[0] == last)]:
                del ended[key]
        if not ep.has_position:
            return  # not a receiver cycle (a stray ZDA or GSV): no ender to learn from it
        n = seen[last]
        key = (last, n)
        if n in enders.get(last, ()) or key in self._banned or not _may_end_cycle(last):
            return
        epochs = ended[key] = ended.get(key, 0) + 1
        times = followed_at.get(last, ())
        followed = times[n - 1] if n <= len(times) else 0.0
        if epochs >= CYCLE_LEARN_EPOCHS and now - followed >= CYCLE_LEARN_S:
            enders.setdefault(last, set()).add(n)

    def _distrust(self, base: str, upto: int) -> None:
        """The 1st..``upto``-th sentence of cycle key ``base`` in an epoch were followed by another
        sentence of it: none of them ends the cycle."""
        counts = self._enders.get(base)
        if counts is not None:
            counts.difference_update(range(1, upto + 1))
            if not counts:
                del self._enders[base]

    def _late(self, ep: _Epoch, sentence: _Sentence, t: float) -> None:
        """A sentence of an epoch already delivered at a learned ender: the receiver sent more
        after it this time.  The fix is out; the sentence is counted (``late_lines``), not used,
        and that ender is not trusted again (until :meth:`forget_cycle`)."""
        key = ep.last_key
        if key not in self._banned:  # (the next _learn marks it followed)
            log.debug("cycle ender %s followed by %s: not trusted again", _ender_words(key), sentence.label)
            self._banned.add(key)
            self._distrust(key[0], key[1])
        self._late_lines += 1
        if sentence.tod is not None:
            if sentence.kind == "ZDA":
                if ep.zda_tod is None:
                    ep.zda_tod = sentence.tod
            elif ep.tod is None:
                ep.tod = sentence.tod
        ep.add(sentence, t)

    def _check(self, line: bytes) -> _Sentence | None:
        """A new stripped, non-empty line: the good sentence in it, or None (counted as bad)."""
        if line[0] == 0x23:  # "#"
            self._comments += 1
            return None
        if len(line) > MAX_LINE_BYTES:
            self._bad[BadKind.OVERLONG.value] += 1
            return None
        # a sentence start inside the line: the head was cut off (collision / resync)
        start = max(line.rfind(b"$"), line.rfind(b"!"))
        if start > 0:
            head = line[:start]
            self._bad[(BadKind.TRUNCATED if _is_printable(head) else BadKind.BINARY_NOISE).value] += 1
            line = line[start:]
        try:
            msg, text = _parse(line)
        except BadSentence as exc:
            self._bad[exc.kind] += 1
            return None
        kind = msg.sentence_type if isinstance(msg, pynmea2.TalkerSentence) else None
        tod = None
        if kind not in _HANDLERS:
            kind = None
        else:
            index = _TOD_INDEX.get(kind)
            data = msg.data
            if index is not None and index < len(data):
                tod_text = data[index].strip()
                if tod_text:
                    if tod_text == self._tod_text:
                        tod = self._tod
                    else:
                        try:
                            tod = _time_of_day(tod_text)
                        except _FIELD_ERRORS:
                            self._bad[BadKind.MALFORMED_FIELD.value] += 1
                            return None
                        self._tod_text, self._tod = tod_text, tod
        sentence = _Sentence(msg, text, kind, tod)
        recent = self._recent
        if len(recent) >= RECENT_LINES:
            del recent[next(iter(recent))]  # the oldest
        recent[line] = sentence
        return sentence

    def _malformed(self) -> None:
        """A good-looking sentence turned out to have an unreadable field."""
        self._good -= 1
        self._bad[BadKind.MALFORMED_FIELD.value] += 1

    def flush(self) -> list[Fix]:
        """Close the epoch in progress (end of input, or a gap in the stream)."""
        if self._early is not None:
            early, self._early = self._early, None
            self._learn(early)
        fix = self._close()
        return [fix] if fix is not None else []

    @property
    def pending_since_s(self) -> float | None:
        """Receive time of the last line of the epoch in progress, None when empty."""
        return self._epoch.t_last if self._epoch.types else None

    def _close(self, early: bool = False) -> Fix | None:
        ep, self._epoch = self._epoch, _Epoch()
        if not ep.types:
            return None
        if early:
            self._early = ep  # learnt from once the next sentence shows nothing more came
        else:
            self._learn(ep)
        fields = _Fields(self, ep)
        rmc = fields.get("RMC")
        rmc_date = rmc["_date"] if rmc is not None else None
        if ep.zda_tod is not None:  # a ZDA's date goes with the ZDA's own time
            zda = fields.get("ZDA")
            if zda is not None and zda["_date"] is not None and zda["_tod"] is not None:
                self._last_date, self._last_date_tod = zda["_date"], zda["_tod"]
        if rmc_date is not None and ep.tod is not None:
            self._last_date, self._last_date_tod = rmc_date, ep.tod
        tod = ep.tod if ep.tod is not None else ep.zda_tod
        date = rmc_date if rmc_date is not None else self._date_for(tod)
        if not ep.has_position:
            return None
        fix = self._build(ep, fields, rmc, date, tod)
        if fix is None:
            return None
        if not self._is_newest(fix):
            self._bad[BadKind.TIME_BACKWARDS.value] += 1
            log.debug("epoch %s not after the newest fix %s: dropped", tod, self._newest)
            return None
        self._fixes += 1
        return fix

    def _is_newest(self, fix: Fix) -> bool:
        """Whether ``fix`` may be delivered after the newest one (see the class notes); remembers it."""
        if fix.time_of_day_utc is None:
            return True
        this = (fix.time_utc, fix.time_of_day_utc)
        if self._newest is not None:
            behind = _behind_s(this, self._newest)
            if 0.0 <= behind <= STALE_EPOCH_WINDOW_S:
                advancing = self._behind is not None and _behind_s(this, self._behind) < 0.0
                self._behind_run = self._behind_run + 1 if advancing else 1
                self._behind = this
                if self._behind_run < RESYNC_EPOCHS:
                    return False
        self._newest, self._behind, self._behind_run = this, None, 0
        return True

    def _date_for(self, tod: dt.time | None) -> dt.date | None:
        """The date of an epoch at ``tod`` without its own RMC date, from the date reference."""
        if self._last_date is None or tod is None or self._last_date_tod is None:
            return None
        date = self._last_date
        diff = _seconds(tod) - _seconds(self._last_date_tod)
        if diff < -43200:  # time of day went back by more than 12 h: past midnight
            date += dt.timedelta(days=1)
        elif diff > 43200:  # a late sentence from before midnight
            date -= dt.timedelta(days=1)
        return date

    def _build(self, ep: _Epoch, fields: _Fields, rmc: dict | None, date: dt.date | None,
               tod: dt.time | None) -> Fix | None:
        # Each value is taken from the first sentence type, in order of precedence, that has it; a
        # lower-precedence type is read (and a malformed field in it counted) only when needed.
        get, first, msgs = fields.get, fields.first, ep.msgs
        lat = lon = None
        readable = False
        for kind in _POSITION_TYPES:  # read in order of precedence, up to the first valid position
            if kind in msgs:
                src = get(kind)
                if src is not None:
                    readable = True
                    if src["lat"] is not None and src.get("valid", True):
                        lat, lon = src["lat"], src["lon"]
                        break
        if not readable:
            return None  # every position sentence of the epoch was malformed

        gga = get("GGA") or _EMPTY
        rmc = rmc or _EMPTY
        quality: FixQuality | None = gga.get("quality")
        if quality is None:
            quality = first("quality", "GNS", "RMC", "GLL")
            if quality is None:
                quality = FixQuality.AUTONOMOUS if lat is not None else FixQuality.NO_FIX
        if quality is FixQuality.NO_FIX:
            lat = lon = None

        alt_msl = None
        if lat is not None:
            alt_msl = gga.get("alt_msl_m")
            if alt_msl is None:
                alt_msl = first("alt_msl_m", "GNS")
        geoid_sep = gga.get("geoid_sep_m")
        if geoid_sep is None:
            geoid_sep = first("geoid_sep_m", "GNS")
        gsa = get("GSA") or _EMPTY
        hdop = gsa.get("hdop")
        if hdop is None:
            hdop = gga.get("hdop")
            if hdop is None:
                hdop = first("hdop", "GNS")
        vdop, pdop = gsa.get("vdop"), gsa.get("pdop")
        if lat is None:
            mode = FixMode.NONE
        else:
            mode = _MODE_BY_FIX_TYPE.get(gsa.get("fix_type")) or (
                FixMode.THREE_D if alt_msl is not None else FixMode.TWO_D)

        sats_used = gga.get("sats_used")
        if sats_used is None:
            sats_used = first("sats_used", "GNS")
            if sats_used is None and "GSA" in msgs:
                sats_used = len(_gsa_ids(msgs["GSA"])) or None
        gst = get("GST") or _EMPTY
        sigma_lat, sigma_lon, sigma_alt = gst.get("sigma_lat_m"), gst.get("sigma_lon_m"), gst.get("sigma_alt_m")

        uere = UERE_M.get(quality, UERE_M[FixQuality.AUTONOMOUS])
        h_acc = v_acc = None
        h_from = v_from = None
        if sigma_lat is not None and sigma_lon is not None:
            h_acc, h_from = math.hypot(sigma_lat, sigma_lon), "GST"
        elif hdop is not None:
            h_acc, h_from = hdop * uere, "HDOP"
        if sigma_alt is not None:
            v_acc, v_from = sigma_alt, "GST"
        elif vdop is not None:
            v_acc, v_from = vdop * uere, "VDOP"
        elif hdop is not None:
            v_acc, v_from = VDOP_PER_HDOP * hdop * uere, "HDOP*"

        speed = rmc.get("speed_mps")
        if speed is None:
            speed = first("speed_mps", "VTG")
        course = rmc.get("course_deg")
        if course is None:
            course = first("course_deg", "VTG")
        dgps_age = gga.get("dgps_age_s")
        if dgps_age is None:
            dgps_age = first("dgps_age_s", "GNS")
        dgps_station = gga.get("dgps_station")
        if dgps_station is None:
            dgps_station = first("dgps_station", "GNS")
        mode_indicator = rmc.get("mode_indicator")
        if mode_indicator is None:
            mode_indicator = first("mode_indicator", "GNS")
        return _new_fix({
            "time_utc": dt.datetime.combine(date, tod, tzinfo=UTC) if (date and tod) else None,
            "time_of_day_utc": tod,
            "lat_deg": lat,
            "lon_deg": lon,
            "alt_msl_m": alt_msl,
            "geoid_sep_m": geoid_sep,
            "quality": quality,
            "mode": mode,
            "sats_used": sats_used,
            "sats_in_view": (len(_gsv_sats(msgs["GSV"])) or None) if "GSV" in msgs else None,
            "hdop": hdop,
            "vdop": vdop,
            "pdop": pdop,
            "sigma_lat_m": sigma_lat,
            "sigma_lon_m": sigma_lon,
            "sigma_alt_m": sigma_alt,
            "horizontal_accuracy_m": h_acc,
            "vertical_accuracy_m": v_acc,
            "accuracy_estimated": h_from == "HDOP" or v_from in ("VDOP", "HDOP*"),
            "accuracy_source": _accuracy_source(h_from, v_from, uere),
            "dgps_age_s": dgps_age,
            "dgps_station": dgps_station,
            "speed_mps": speed,
            "course_deg": course,
            "magvar_deg": rmc.get("magvar_deg"),
            "rmc_status": rmc.get("status"),
            "mode_indicator": mode_indicator,
            "nav_status": rmc.get("nav_status"),
            "antenna_height_m": self.antenna_height_m,
            "t_monotonic_s": ep.t_last,
            "sentences": tuple(ep.types),
            "raw": tuple(ep.raw),
        })


# --------------------------------------------------------------------------- per-type field readers
# Each reader takes the fields it needs from pynmea2's split ``msg.data`` in one step (an
# itemgetter of pynmea2's own field positions, looked up by its field names once, at import).


def _columns_of(kind: str, *names: str) -> tuple[int, Callable[[list], tuple]]:
    """(fields needed, getter) for pynmea2's fields ``names`` of sentence type ``kind``."""
    index = pynmea2.TalkerSentence.sentence_types[kind].name_to_idx
    cols = [index[name] for name in names]
    return max(cols) + 1, operator.itemgetter(*cols)


def _columns(msg: pynmea2.NMEASentence, columns: tuple[int, Callable[[list], tuple]]) -> tuple:
    """The fields of ``columns`` as text ('' for those past the end of a short sentence)."""
    n, getter = columns
    data = msg.data
    if len(data) < n:
        data = data + [""] * (n - len(data))
    return getter(data)


_QUALITY_BY_CODE = tuple(FixQuality)
_QUALITY_ORDER = (FixQuality.RTK_FIXED, FixQuality.RTK_FLOAT, FixQuality.DGPS, FixQuality.PPS,
                  FixQuality.AUTONOMOUS, FixQuality.DEAD_RECKONING, FixQuality.MANUAL,
                  FixQuality.SIMULATED, FixQuality.NO_FIX)


@functools.lru_cache(maxsize=64)
def _quality_from_mode_chars(chars: str) -> FixQuality | None:
    """Best quality among per-constellation mode characters (GNS), or one RMC char."""
    found = {_MODE_CHAR_QUALITY[c] for c in chars if c in _MODE_CHAR_QUALITY}
    for q in _QUALITY_ORDER:
        if q in found:
            return q
    return None


#: Years a ZDA may carry (GPS time starts in 1980).
ZDA_YEARS = (1980, 2100)


@functools.lru_cache(maxsize=8)
def _datestamp(text: str) -> dt.date:
    """RMC ``ddmmyy`` -> date (pynmea2: years 69-99 are 19xx, 00-68 are 20xx).

    Exactly six ASCII digits, a real calendar date; else ValueError (``strptime`` alone would
    read ``2303`` as 2 Mar 2003).
    """
    if len(text) != 6 or not (text.isascii() and text.isdigit()):
        raise ValueError(f"RMC date {text!r} is not ddmmyy")
    return nmea_utils.datestamp(text)


@functools.lru_cache(maxsize=8)
def _zda_date(day: str, month: str, year: str) -> dt.date | None:
    """ZDA day, month, year fields -> date; None when all three are empty.

    Day 1-31 and month 1-12 (one or two digits), year four digits within :data:`ZDA_YEARS`, and
    a real calendar date; anything else (one field missing, ``1,1,1``) raises ValueError.
    """
    if not (day or month or year):
        return None
    for text, name, digits in ((day, "day", (1, 2)), (month, "month", (1, 2)), (year, "year", (4,))):
        if len(text) not in digits or not (text.isascii() and text.isdigit()):
            raise ValueError(f"ZDA {name} {text!r} is not {' or '.join(map(str, digits))} digits")
    y = int(year)
    if not ZDA_YEARS[0] <= y <= ZDA_YEARS[1]:
        raise ValueError(f"ZDA year {y} outside {ZDA_YEARS[0]}..{ZDA_YEARS[1]}")
    return dt.date(y, int(month), int(day))  # ValueError for day 0, month 13, 30 Feb...


_GGA = _columns_of("GGA", "lat", "lat_dir", "lon", "lon_dir", "gps_qual", "num_sats", "horizontal_dil",
                   "altitude", "geo_sep", "age_gps_data", "ref_station_id")


def _gga(msg) -> dict:
    lat, lat_dir, lon, lon_dir, qual, sats, hdop, alt, sep, age, station = _columns(msg, _GGA)
    q = _num(qual, int, "GGA quality")
    if q is not None and not 0 <= q <= 8:
        raise ValueError(f"GGA quality {q} outside 0..8")
    lat, lon = _latlon(lat, lat_dir, lon, lon_dir)
    return {
        "lat": lat,
        "lon": lon,
        "quality": None if q is None else _QUALITY_BY_CODE[q],
        "sats_used": _sats(sats, "GGA satellites"),
        "hdop": _dop(hdop, "GGA HDOP"),
        "alt_msl_m": _ranged(alt, float, "GGA altitude", *ALT_MSL_RANGE_M),
        "geoid_sep_m": _ranged(sep, float, "GGA geoid separation", -MAX_GEOID_SEP_M, MAX_GEOID_SEP_M),
        "dgps_age_s": _ranged(age, float, "GGA correction age", 0.0, None),
        "dgps_station": station.strip() or None,
    }


_GNS = _columns_of("GNS", "lat", "lat_dir", "lon", "lon_dir", "mode_indicator", "num_sats", "hdop",
                   "altitude", "geo_sep", "age_gps_data", "diferential")


def _gns(msg) -> dict:
    lat, lat_dir, lon, lon_dir, chars, sats, hdop, alt, sep, age, station = _columns(msg, _GNS)
    lat, lon = _latlon(lat, lat_dir, lon, lon_dir)
    chars = chars.strip()
    return {
        "lat": lat,
        "lon": lon,
        "quality": _quality_from_mode_chars(chars),
        "mode_indicator": chars or None,
        "sats_used": _sats(sats, "GNS satellites"),
        "hdop": _dop(hdop, "GNS HDOP"),
        "alt_msl_m": _ranged(alt, float, "GNS altitude", *ALT_MSL_RANGE_M),
        "geoid_sep_m": _ranged(sep, float, "GNS geoid separation", -MAX_GEOID_SEP_M, MAX_GEOID_SEP_M),
        "dgps_age_s": _ranged(age, float, "GNS correction age", 0.0, None),
        "dgps_station": station.strip() or None,
    }


_RMC = _columns_of("RMC", "status", "lat", "lat_dir", "lon", "lon_dir", "spd_over_grnd", "true_course",
                   "datestamp", "mag_variation", "mag_var_dir", "mode_indicator", "nav_status")


def _rmc(msg) -> dict:
    (status, lat, lat_dir, lon, lon_dir, knots, course, date_text, magvar, magvar_dir, mode_char,
     nav_status) = _columns(msg, _RMC)
    status, mode_char, date_text = status.strip(), mode_char.strip(), date_text.strip()
    lat, lon = _latlon(lat, lat_dir, lon, lon_dir)
    magvar = _num(magvar, float, "RMC magnetic variation")
    if magvar is not None and not 0.0 <= magvar <= MAX_MAGVAR_DEG:
        magvar = None  # a placeholder for "unknown" (a Trimble R1 sends 999.9000,E)
    if magvar is not None and magvar_dir.strip() == "W":
        magvar = -magvar
    if status == "V":
        quality = FixQuality.NO_FIX
    elif mode_char:
        quality = _quality_from_mode_chars(mode_char)
    else:
        quality = FixQuality.AUTONOMOUS if status == "A" else None
    knots = _ranged(knots, float, "RMC speed", 0.0, None)
    return {
        "_date": _datestamp(date_text) if date_text else None,
        "lat": lat,
        "lon": lon,
        "valid": status != "V",
        "status": status or None,
        "quality": quality,
        "speed_mps": None if knots is None else knots * KNOT_MPS,
        "course_deg": _ranged(course, float, "RMC course", 0.0, 360.0),
        "magvar_deg": magvar,
        "mode_indicator": mode_char or None,
        "nav_status": nav_status.strip() or None,
    }


_GLL = _columns_of("GLL", "lat", "lat_dir", "lon", "lon_dir", "status", "faa_mode")


def _gll(msg) -> dict:
    lat, lat_dir, lon, lon_dir, status, mode_char = _columns(msg, _GLL)
    status = status.strip()
    lat, lon = _latlon(lat, lat_dir, lon, lon_dir)
    return {
        "lat": lat,
        "lon": lon,
        "valid": status != "V",
        "quality": FixQuality.NO_FIX if status == "V" else _quality_from_mode_chars(mode_char.strip()),
    }


_VTG = _columns_of("VTG", "spd_over_grnd_kts", "spd_over_grnd_kmph", "true_track")


def _vtg(msg) -> dict:
    knots, kmph, course = _columns(msg, _VTG)
    knots = _ranged(knots, float, "VTG speed", 0.0, None)
    kmph = _ranged(kmph, float, "VTG speed", 0.0, None)
    speed = knots * KNOT_MPS if knots is not None else (kmph / 3.6 if kmph is not None else None)
    return {"speed_mps": speed, "course_deg": _ranged(course, float, "VTG course", 0.0, 360.0)}


_GSA = _columns_of("GSA", "mode_fix_type", "pdop", "hdop", "vdop")


def _gsa(msg) -> dict:
    fix_type, pdop, hdop, vdop = _columns(msg, _GSA)
    system = msg.data[17].strip() if len(msg.data) > 17 else ""
    return {
        "fix_type": _num(fix_type, int, "GSA fix type"),
        "pdop": _dop(pdop, "GSA PDOP"),
        "hdop": _dop(hdop, "GSA HDOP"),
        "vdop": _dop(vdop, "GSA VDOP"),
        "system_id": system or None,
    }


def _gsv(msg) -> dict:
    return {"_page": parse_gsv(msg)}


def _gsa_ids(msgs) -> set[tuple[str, str]]:
    """Distinct (system, satellite id) pairs used, over all GSA sentences of an epoch."""
    ids = set()
    for sentence in msgs:
        msg = sentence.msg
        data = msg.data
        system = data[17].strip() if len(data) > 17 else msg.talker
        ids.update((system, d.strip()) for d in data[2:14] if d.strip())
    return ids


def _gsv_sats(msgs) -> set[tuple[str, str]]:
    """Distinct (talker, PRN) pairs in view over all GSV pages (see :func:`parse_gsv`)."""
    sats = set()
    for sentence in msgs:
        msg = sentence.msg
        body = msg.data[3:]
        n = len(body) - len(body) % 4
        sats.update((msg.talker, p.strip()) for p in body[0:n:4] if p.strip())
    return sats


_GST = _columns_of("GST", "std_dev_latitude", "std_dev_longitude", "std_dev_altitude")


def _gst(msg) -> dict:
    lat, lon, alt = _columns(msg, _GST)
    return {
        "sigma_lat_m": _ranged(lat, float, "GST latitude sigma", 0.0, None),
        "sigma_lon_m": _ranged(lon, float, "GST longitude sigma", 0.0, None),
        "sigma_alt_m": _ranged(alt, float, "GST altitude sigma", 0.0, None),
    }


_ZDA = _columns_of("ZDA", "timestamp", "day", "month", "year")


def _zda(msg) -> dict:
    tod, day, month, year = (text.strip() for text in _columns(msg, _ZDA))
    return {"_date": _zda_date(day, month, year), "_tod": _time_of_day(tod)}


_HANDLERS: dict[str, Callable[[pynmea2.NMEASentence], dict]] = {
    "GGA": _gga,
    "GNS": _gns,
    "RMC": _rmc,
    "GLL": _gll,
    "VTG": _vtg,
    "GSA": _gsa,
    "GSV": _gsv,
    "GST": _gst,
    "ZDA": _zda,
}


# --------------------------------------------------------------------------- reader thread


@dataclass(frozen=True)
class GnssStats:
    """Snapshot of a :class:`GnssReader`: NMEA counts, link counts, link state.

    ``bad`` merges the assembler's kinds with runaway lines the framer dropped
    (counted as ``overlong``).
    """

    nmea: NmeaStats
    reader: ReaderStats
    fixes_delivered: int
    last_status: DeviceStatus | None

    @property
    def bad(self) -> dict[str, int]:
        out = dict(self.nmea.bad)
        out[BadKind.OVERLONG.value] += self.reader.dropped_frames
        return out


class GnssReader:
    """A GNSS receiver on a port: reader thread -> epochs -> newest fix.

    Parameters
    ----------
    settings : SerialSettings
        The port (``autobaud=True`` to find the rate).
    on_fix : callable(Fix) -> None, optional
        Called on the reader thread for each fix; keep it quick (e.g. post to
        the GUI thread).  Exceptions are counted and survived.
    on_status : callable(DeviceStatus) -> None, optional
        Link-state reports (connecting, connected, disconnected, stopped).
    max_age_s : float
        Fix age limit for :meth:`usable_fix`, seconds (default 2).
    antenna_height_m : float
        Antenna phase-centre height above the ground mark, metres; see
        :meth:`set_antenna_height`.
    idle_flush_s : float
        A gap this long after the last sentence closes the epoch early, so a
        1 Hz receiver's fix is delivered within about ``read_timeout_s`` of its
        last sentence rather than at the next epoch.  Once the receiver's cycle
        ender is learned (see :class:`EpochAssembler`) the fix is delivered on
        that line, with no wait; this gap is the fallback.
    name : str
        Thread name suffix (``fieldapp-reader-<name>``).

    Notes
    -----
    Latency is bounded: the reader keeps one slot, the newest fix.  Whoever
    calls :meth:`latest_fix` or :meth:`wait_fix` gets the newest complete
    epoch, never a queue of old ones.
    """

    def __init__(
        self,
        settings: SerialSettings,
        on_fix: Callable[[Fix], None] | None = None,
        on_status: Callable[[DeviceStatus], None] | None = None,
        max_age_s: float = 2.0,
        antenna_height_m: float = 0.0,
        idle_flush_s: float = 0.05,
        name: str = "gnss",
    ) -> None:
        if max_age_s <= 0:
            raise ValueError(f"max_age_s {max_age_s!r} must be positive")
        self.max_age_s = max_age_s
        self.idle_flush_s = idle_flush_s
        self._assembler = EpochAssembler(antenna_height_m)
        self._on_fix = on_fix
        self._on_status = on_status
        # a plain Lock (entered from C) guards the assembler and the slot; waiters use the Condition
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._latest: Fix | None = None
        self._seq = 0
        self._fix_callback_errors = 0
        self._last_status: DeviceStatus | None = None
        self._reader = PortReader(
            settings,
            None,
            handle_lines=self.feed_lines,
            on_status=self._handle_status,
            framer_factory=LineFramer,
            name=name,
            on_idle=self._handle_idle,
        )

    # -- lifecycle

    def start(self) -> "GnssReader":
        self._reader.start()
        return self

    def stop(self, timeout_s: float = 5.0) -> bool:
        """Stop and join the reader thread; True when it ended in time."""
        return self._reader.stop(timeout_s)

    def __enter__(self) -> "GnssReader":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def settings(self) -> SerialSettings:
        return self._reader.settings

    # -- settings

    def set_antenna_height(self, value: float, unit: str = "m") -> None:
        """Set the antenna height for fixes received from now on.

        Parameters
        ----------
        value : float
            Height of the antenna phase centre above the ground mark.
        unit : {"m", "ft", "us_ft"}
            Metres, international feet (0.3048 m) or US survey feet (1200/3937 m).
        """
        factor = {"m": 1.0, "ft": FOOT_M, "us_ft": 1200.0 / 3937.0}.get(unit)
        if factor is None:
            raise ValueError(f"antenna height unit {unit!r} not one of m, ft, us_ft")
        metres = float(value) * factor
        if not 0.0 <= metres < 100.0:
            raise ValueError(f"antenna height {value!r} {unit} outside 0..100 m")
        with self._cond:
            self._assembler.antenna_height_m = metres

    # -- reader-thread callbacks

    def _publish(self, fixes: list[Fix]) -> None:
        if not fixes:
            return
        with self._cond:
            self._latest = fixes[-1]
            self._seq += len(fixes)
            self._cond.notify_all()
        if self._on_fix is not None:
            for fix in fixes:
                try:
                    self._on_fix(fix)
                except Exception:  # noqa: BLE001
                    with self._cond:
                        self._fix_callback_errors += 1
                    log.exception("on_fix callback failed")

    def feed(self, line: bytes, t_monotonic_s: float) -> None:
        """Take one framed line received at ``t_monotonic_s``.

        The reader thread calls this; call it directly (without :meth:`start`)
        to replay a log or simulate a stream with simulated time.
        """
        with self._lock:
            fixes = self._assembler.feed(line, t_monotonic_s)
        if fixes:
            self._publish(fixes)

    def feed_lines(self, lines: list[bytes], t_monotonic_s: float) -> None:
        """:meth:`feed` each of ``lines`` (all received at ``t_monotonic_s``); fixes are published
        as each epoch completes."""
        feed = self._assembler.feed
        for line in lines:
            with self._lock:
                fixes = feed(line, t_monotonic_s)
            if fixes:
                self._publish(fixes)

    def idle(self, t_monotonic_s: float) -> None:
        """A read found no data at ``t_monotonic_s``: close the epoch after a gap of ``idle_flush_s``."""
        self._handle_idle(t_monotonic_s)

    _handle_line = feed

    def _handle_idle(self, t: float) -> None:
        with self._cond:
            since = self._assembler.pending_since_s
            if since is None or t - since < self.idle_flush_s:
                return
            fixes = self._assembler.flush()
        self._publish(fixes)

    def _handle_status(self, status: DeviceStatus) -> None:
        with self._cond:
            self._last_status = status
            if status.state is LinkState.CONNECTED:
                self._assembler.forget_cycle()  # another receiver, or set up anew: learn its cycle again
        if self._on_status is not None:
            self._on_status(status)  # PortReader counts a raising callback

    # -- consumer API

    def latest_fix(self) -> Fix | None:
        """The newest fix, or None before the first (never a queued old one)."""
        with self._cond:
            return self._latest

    def wait_fix(self, timeout_s: float, newer_than: Fix | None = None) -> Fix | None:
        """Wait for a fix other than ``newer_than``; return it, or None on timeout.

        Parameters
        ----------
        timeout_s : float
            Longest wait, seconds.
        newer_than : Fix, optional
            A fix already seen; wait for a newer one.  Without it any fix will do.
        """
        deadline = time.monotonic() + timeout_s
        with self._cond:
            while self._latest is None or self._latest is newer_than:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._cond.wait(left)
            return self._latest

    def usable_fix(self, now_monotonic_s: float | None = None) -> tuple[Fix | None, Usability]:
        """The newest fix and whether it may be recorded (age limit ``max_age_s``)."""
        fix = self.latest_fix()
        if fix is None:
            return None, Usability(False, "no fix received yet")
        now = time.monotonic() if now_monotonic_s is None else now_monotonic_s
        return fix, fix.is_usable(now, self.max_age_s)

    def stats(self) -> GnssStats:
        """Snapshot of sentence counts (good and each bad kind), link counts and state."""
        with self._cond:
            nmea = self._assembler.stats
            delivered = self._seq
            status = self._last_status
        reader = self._reader.stats
        if self._fix_callback_errors:
            reader = replace(reader, callback_errors=reader.callback_errors + self._fix_callback_errors)
        return GnssStats(nmea, reader, delivered, status)


# --------------------------------------------------------------------------- command line


def _round(x: float | None, nd: int) -> float | None:
    return None if x is None else round(x, nd)


def fix_to_json(fix: Fix) -> dict:
    """One fix as a gpsd-TPV-like dict (absent values omitted).

    gpsd names: ``time`` (ISO 8601, ms, ``Z``), ``lat``, ``lon``, ``altMSL``,
    ``altHAE``, ``geoidSep``, ``mode`` (1/2/3), ``speed`` (m/s), ``track``
    (deg true), ``eph``/``epv`` (our 1-sigma horizontal / vertical accuracy in
    metres; gpsd's own are 95 % figures, so the numbers differ).
    """
    out = {
        "class": "TPV",
        "time": fix.time_utc.isoformat(timespec="milliseconds").replace("+00:00", "Z") if fix.time_utc else None,
        "lat": _round(fix.lat_deg, 9),
        "lon": _round(fix.lon_deg, 9),
        "altMSL": _round(fix.alt_msl_m, 4),
        "altHAE": _round(fix.alt_hae_m, 4),
        "geoidSep": _round(fix.geoid_sep_m, 3),
        "mode": fix.mode.gpsd_mode,
        "speed": _round(fix.speed_mps, 3),
        "track": _round(fix.course_deg, 2),
        "eph": _round(fix.horizontal_accuracy_m, 3),
        "epv": _round(fix.vertical_accuracy_m, 3),
        "quality": int(fix.quality),
        "quality_label": fix.quality.label,
        "sats_used": fix.sats_used,
        "hdop": fix.hdop,
        "vdop": fix.vdop,
        "pdop": fix.pdop,
        "sigma_lat_m": fix.sigma_lat_m,
        "sigma_lon_m": fix.sigma_lon_m,
        "sigma_alt_m": fix.sigma_alt_m,
        "dgps_age_s": fix.dgps_age_s,
        "dgps_station": fix.dgps_station,
        "accuracy_estimated": fix.accuracy_estimated,
        "accuracy_source": fix.accuracy_source,
    }
    if fix.time_utc is None and fix.time_of_day_utc is not None:
        out["time_of_day"] = fix.time_of_day_utc.isoformat(timespec="milliseconds")
    return {k: v for k, v in out.items() if v is not None}


def _summary(stats: NmeaStats, extra_overlong: int = 0) -> dict:
    bad = dict(stats.bad)
    bad[BadKind.OVERLONG.value] += extra_overlong
    return {"class": "SUMMARY", "good": stats.good, "used": stats.used, "fixes": stats.fixes,
            "comments": stats.comments, "bad": bad, "bad_total": sum(bad.values())}


def iter_stream_fixes(stream, assembler: EpochAssembler, framer: LineFramer | None = None,
                      chunk_bytes: int = 65536) -> Iterator[Fix]:
    """Read a binary stream to its end, yielding fixes (used for files and stdin)."""
    framer = framer or LineFramer()
    read = getattr(stream, "read1", stream.read)
    while True:
        data = read(chunk_bytes)
        if not data:
            break
        t = time.monotonic()
        for line in framer.feed(data):
            yield from assembler.feed(line, t)
    yield from assembler.feed_many(framer.feed(b"\n"), time.monotonic())
    yield from assembler.flush()


#: Windows port names (``COM7``, ``\\\\.\\COM12``): ports, though no file of that name exists.
_WINDOWS_PORT_RE = re.compile(r"(?i)^(\\\\\.\\)?COM\d+$")


def source_kind(source: str) -> str:
    """How the command line reads SOURCE: ``"stdin"``, ``"file"`` or ``"port"``.

    ``-`` is standard input; a URL (``socket://...``), a Windows ``COMn`` name, a path under
    ``/dev``, or an existing path that is not a regular file or directory (a device node, a pty,
    a symbolic link to one, even dangling while the receiver is unplugged) is a port; an existing
    regular file is a file.

    Raises
    ------
    FileNotFoundError
        Any other path that does not exist ("no such file").
    IsADirectoryError
        A directory.
    """
    if source == "-":
        return "stdin"
    if "://" in source or _WINDOWS_PORT_RE.match(source):
        return "port"
    path = Path(source)
    if path.is_dir():
        raise IsADirectoryError(f"{source}: is a directory")
    if path.is_file():
        return "file"
    if path.exists() or path.is_symlink() or path.as_posix().startswith("/dev/"):
        return "port"
    raise FileNotFoundError(f"{source}: no such file (and not a port: not under /dev, not a URL)")


def _arg_baud(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"baud rate {text!r} is not a whole number") from None
    if not BAUD_MIN <= value <= BAUD_MAX:
        raise argparse.ArgumentTypeError(f"baud rate {value} outside {BAUD_MIN}..{BAUD_MAX}")
    return value


def _arg_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"duration {text!r} must be a finite number of seconds > 0")
    return value


def _arg_count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"count {text!r} must be a whole number >= 1")
    return value


def _arg_antenna_height(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and 0.0 <= value < 100.0):
        raise argparse.ArgumentTypeError(f"antenna height {text!r} m outside 0..100 m")
    return value


def main(argv: list[str] | None = None) -> int:
    """``python -m devices.nmea SOURCE [--baud N]``: print one JSON object per epoch.

    SOURCE is a file, ``-`` for standard input, or a port / pyserial URL (see
    :func:`source_kind`).  For a port, reading goes on until ``--count``
    fixes or ``--duration`` seconds (or Ctrl-C).  The last line is a
    ``SUMMARY`` object with the number of good sentences and of each bad kind.

    A port that cannot be opened ends the run at its first failed open, with a
    message naming the port, unless ``--wait`` (retry until it appears) or
    ``--duration`` (retry until then) is given.  Bad arguments (a missing file,
    a directory, a baud rate outside 4800..921600, a height outside 0..100 m,
    a duration that is not a finite positive number) are refused before
    anything is read.  ``--baud`` is checked always and ignored for files.

    Exit status: 0; 2 for bad arguments or a port that could not be used at
    all; 1 when standard output was closed early (``... | head -2``: the rest
    is dropped quietly, as Python's own guidance on SIGPIPE recommends).
    """
    try:
        return _main(argv)
    except BrokenPipeError:
        # the reader of our output went away: no traceback, and none at exit when Python flushes
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        return 1


def _main(argv: list[str] | None) -> int:
    parser = argparse.ArgumentParser(
        prog="fieldapp-nmea",
        description="View a GNSS receiver or an NMEA log as JSON: one object per epoch (position,"
                    " fix quality, satellites), then a SUMMARY line counting good and bad sentences."
                    " Also run as: python -m devices.nmea SOURCE.")
    parser.add_argument("source", help="log file, '-' for stdin, or a port / pyserial URL")
    parser.add_argument("--baud", type=_arg_baud, default=None,
                        help=f"baud rate {BAUD_MIN}..{BAUD_MAX} (default: auto-baud on serial ports; ignored for files)")
    parser.add_argument("--antenna-height-m", type=_arg_antenna_height, default=0.0,
                        help="antenna height above the ground mark, 0..100 m")
    parser.add_argument("--count", type=_arg_count, default=None, help="stop after this many fixes (ports)")
    parser.add_argument("--duration", type=_arg_seconds, default=None, help="stop after this many seconds (ports)")
    parser.add_argument("--wait", action="store_true",
                        help="keep retrying a port that cannot be opened (default: give up at the first failure)")
    args = parser.parse_args(argv)
    out = sys.stdout

    def emit(obj: dict) -> None:
        out.write(json.dumps(obj, separators=(",", ":")) + "\n")

    try:
        kind = source_kind(args.source)
    except OSError as exc:
        parser.error(str(exc))
    if kind != "port":
        assembler = EpochAssembler(args.antenna_height_m)
        framer = LineFramer()
        try:
            stream = sys.stdin.buffer if kind == "stdin" else open(args.source, "rb")
        except OSError as exc:
            parser.error(f"{args.source}: {exc.strerror or exc}")
        try:
            for fix in iter_stream_fixes(stream, assembler, framer):
                emit(fix_to_json(fix))
        finally:
            if stream is not sys.stdin.buffer:
                stream.close()
        emit(_summary(assembler.stats, framer.dropped_frames))
        out.flush()
        return 0

    try:
        settings = SerialSettings(args.source, baudrate=args.baud or 9600, autobaud=args.baud is None)
    except ValueError as exc:
        parser.error(str(exc))
    statuses: list[DeviceStatus] = []
    give_up = not (args.wait or args.duration is not None)
    connected = threading.Event()
    failed: list[DeviceStatus] = []

    def on_status(s: DeviceStatus) -> None:
        if failed:
            return  # giving up: the reader's retry and its stop are not news
        statuses.append(s)
        if s.state is LinkState.CONNECTED:
            connected.set()
        elif s.state is LinkState.DISCONNECTED and give_up and not connected.is_set():
            failed.append(s)  # the first open failed: give up (reported below, not "retrying")
            return
        print(f"# {s.state.value}: {s.message}", file=sys.stderr)

    reader = GnssReader(settings, on_status=on_status, antenna_height_m=args.antenna_height_m, name="cli")
    deadline = None if args.duration is None else time.monotonic() + args.duration
    n = 0
    last = None
    try:
        with reader:
            while args.count is None or n < args.count:
                if failed or (deadline is not None and time.monotonic() >= deadline):
                    break
                fix = reader.wait_fix(0.2, newer_than=last)
                if fix is not None:
                    last = fix
                    n += 1
                    emit(fix_to_json(fix))
                    out.flush()
    except KeyboardInterrupt:
        pass
    link = statuses[-1].message if statuses else None
    if failed:
        link = failed[0].message.rpartition("; retrying in")[0] or failed[0].message
        print(f"{parser.prog}: cannot open {args.source}: {link} (give --wait to keep retrying)", file=sys.stderr)
    st = reader.stats()
    summary = _summary(st.nmea, st.reader.dropped_frames)
    summary["link"] = link
    emit(summary)
    out.flush()
    return 0 if st.reader.connects else 2


if __name__ == "__main__":
    raise SystemExit(main())
