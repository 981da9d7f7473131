"""NMEA sentences: checking a line (:func:`parse_sentence`) and reading the fields of each type.

Pure functions of one line; nothing here groups sentences into epochs (see
:mod:`devices.nmea.assembler`).

- :func:`parse_sentence` / :func:`_parse`: bytes of one line -> a :mod:`pynmea2` sentence, or a
  :class:`~devices.errors.BadSentence` naming the :class:`~devices.nmea.fix.BadKind`.
- ``_HANDLERS``: sentence type -> its field reader (``msg -> dict``), raising ValueError for a
  field that cannot be read or an impossible value.  GSV has no handler: its bodies are read by
  :func:`_gsv_body` (pages, satellites in view, the cycle key); GSA's system id by
  :func:`_gsa_system_id`.
- The text readers they share: numbers in range, ``hhmmss.ss`` times, ``ddmm.mmmm`` positions,
  RMC and ZDA dates.

Field sources are NMEA 0183 v4.11 (see :mod:`devices.nmea`).
"""

from __future__ import annotations

import datetime as dt
import functools
import math
import operator
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, overload

import pynmea2
from pynmea2 import nmea_utils

from devices.errors import BadSentence, ChecksumError
from devices.framing import MAX_LINE_BYTES, is_checksummed_nmea
from devices.nmea.fix import _MODE_CHAR_QUALITY, BadKind, FixQuality

__all__ = [
    "GsvPage",
    "SatelliteInView",
    "parse_gsv",
    "parse_sentence",
    "LEAP_SECOND_TIME",
    "ZDA_YEARS",
]

KNOT_MPS = 1852.0 / 3600.0  # 1 international knot in m/s

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


@overload
def _num(text: str, kind: type[int], what: str = ...) -> int | None: ...
@overload
def _num(text: str, kind: type[float] = ..., what: str = ...) -> float | None: ...


def _num(text: str, kind: type[int] | type[float] = float, what: str = "field") -> float | None:
    """'' (or blanks) -> None; else the number, or ValueError naming the field."""
    if not text:
        return None
    try:
        value: float = kind(text)
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


@overload
def _ranged(text: str, kind: type[int], what: str, lo: float | None, hi: float | None) -> int | None: ...
@overload
def _ranged(text: str, kind: type[float], what: str, lo: float | None, hi: float | None) -> float | None: ...


def _ranged(text: str, kind: type[int] | type[float], what: str, lo: float | None, hi: float | None) -> float | None:
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


def _gsv_body(data: list[str]) -> tuple[list[str], list[str], str]:
    """The parts of a GSV sentence's fields (``msg.data``), as sent (not stripped).

    Returns the three header fields (number of pages, page number, satellites in view), the
    satellite fields in whole groups of four (PRN, elevation, azimuth, SNR), and the NMEA 4.10
    signal id, stripped (``""`` when not sent).  pynmea2 maps fields positionally, so a page with
    fewer than four satellites plus a signal id would show the id as a phantom satellite PRN: one
    field left over after the groups of four is the signal id; two or three are ignored.

    Examples
    --------
    >>> _gsv_body(["2", "2", "05", "12", "40", "083", "46", "1"])
    (['2', '2', '05'], ['12', '40', '083', '46'], '1')
    """
    n = len(data)
    extra = (n - 3) % 4 if n > 3 else 0
    return data[:3], data[3 : n - extra], (data[-1].strip() if extra == 1 else "")


def parse_gsv(msg: pynmea2.NMEASentence) -> GsvPage:
    """Read a GSV sentence, honouring the NMEA 4.10 trailing signal id (see :func:`_gsv_body`).

    Raises
    ------
    ValueError
        A field is not a number.
    """
    head, fields, signal_id = _gsv_body(msg.data)
    head = [d.strip() for d in head]
    sats = []
    for i in range(0, len(fields), 4):
        prn, el, az, snr = (d.strip() for d in fields[i : i + 4])
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


def _gsv_sats(msgs: Iterable[pynmea2.NMEASentence]) -> set[tuple[str, str]]:
    """Distinct (talker, PRN) pairs in view over GSV pages (an epoch's): ``Fix.sats_in_view``."""
    sats: set[tuple[str, str]] = set()
    for msg in msgs:
        fields = _gsv_body(msg.data)[1]
        sats.update((msg.talker, p.strip()) for p in fields[0::4] if p.strip())
    return sats


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
        assert hp is not None  # cls is None without a match
        return cls(hp.group(1), hp.group(2), text[8:-3].split(",")), text


# --------------------------------------------------------------------------- times and positions


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
    value = float(nmea_utils.dm_to_sd(text))  # ValueError unless digits + 2-digit minutes + fraction
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





def _seconds(t: dt.time) -> float:
    return t.hour * 3600 + t.minute * 60 + t.second + t.microsecond / 1e6


def _tod_diff_s(a: dt.time, b: dt.time) -> float:
    """``a - b`` in seconds across midnight: the difference of the times of day, in [-12 h, 12 h)."""
    return (_seconds(a) - _seconds(b) + 43200.0) % 86400.0 - 43200.0

# --------------------------------------------------------------------------- per-type field readers
# Each reader takes the fields it needs from pynmea2's split ``msg.data`` in one step (an
# itemgetter of pynmea2's own field positions, looked up by its field names once, at import).


#: How many fields a sentence type's reader needs, and the getter of them from ``msg.data``.
_Columns = tuple[int, Callable[[list[str]], tuple[str, ...]]]
#: What a field reader gives: field name -> value (numbers, a FixQuality, a date, text, None),
#: read by name when the epoch's fix is built (:mod:`devices.nmea.epoch`).
Fields = dict[str, Any]


def _columns_of(kind: str, *names: str) -> _Columns:
    """(fields needed, getter) for pynmea2's fields ``names`` of sentence type ``kind``."""
    index = pynmea2.TalkerSentence.sentence_types[kind].name_to_idx
    cols = [index[name] for name in names]
    return max(cols) + 1, operator.itemgetter(*cols)


def _columns(msg: pynmea2.NMEASentence, columns: _Columns) -> tuple[str, ...]:
    """The fields of ``columns`` as text ('' for those past the end of a short sentence)."""
    n, getter = columns
    data = msg.data
    if len(data) < n:
        data = data + [""] * (n - len(data))
    fields: tuple[str, ...] = getter(data)
    return fields


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
    date: dt.date = nmea_utils.datestamp(text)
    return date


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


#: The names of the solution fields in errors, by sentence type.
_SOLUTION_WORDS = {
    kind: tuple(f"{kind} {what}" for what in ("satellites", "HDOP", "altitude", "geoid separation", "correction age"))
    for kind in ("GGA", "GNS")
}


def _solution(kind: str, sats: str, hdop: str, alt: str, sep: str, age: str, station: str) -> Fields:
    """The solution fields GGA and GNS share (``kind`` names the type in errors): satellites used,
    HDOP, altitude above MSL, geoid separation, age of corrections (s), reference station id."""
    w_sats, w_hdop, w_alt, w_sep, w_age = _SOLUTION_WORDS[kind]
    return {
        "sats_used": _sats(sats, w_sats),
        "hdop": _dop(hdop, w_hdop),
        "alt_msl_m": _ranged(alt, float, w_alt, *ALT_MSL_RANGE_M),
        "geoid_sep_m": _ranged(sep, float, w_sep, -MAX_GEOID_SEP_M, MAX_GEOID_SEP_M),
        "dgps_age_s": _ranged(age, float, w_age, 0.0, None),
        "dgps_station": station.strip() or None,
    }


def _gga(msg: pynmea2.NMEASentence) -> Fields:
    lat, lat_dir, lon, lon_dir, qual, sats, hdop, alt, sep, age, station = _columns(msg, _GGA)
    q = _num(qual, int, "GGA quality")
    if q is not None and not 0 <= q <= 8:
        raise ValueError(f"GGA quality {q} outside 0..8")
    lat_deg, lon_deg = _latlon(lat, lat_dir, lon, lon_dir)
    return {
        "lat": lat_deg,
        "lon": lon_deg,
        "quality": None if q is None else _QUALITY_BY_CODE[q],
        **_solution("GGA", sats, hdop, alt, sep, age, station),
    }


_GNS = _columns_of("GNS", "lat", "lat_dir", "lon", "lon_dir", "mode_indicator", "num_sats", "hdop",
                   "altitude", "geo_sep", "age_gps_data", "diferential")


def _gns(msg: pynmea2.NMEASentence) -> Fields:
    lat, lat_dir, lon, lon_dir, chars, sats, hdop, alt, sep, age, station = _columns(msg, _GNS)
    lat_deg, lon_deg = _latlon(lat, lat_dir, lon, lon_dir)
    chars = chars.strip()
    return {
        "lat": lat_deg,
        "lon": lon_deg,
        "quality": _quality_from_mode_chars(chars),
        "mode_indicator": chars or None,
        **_solution("GNS", sats, hdop, alt, sep, age, station),
    }


_RMC = _columns_of("RMC", "status", "lat", "lat_dir", "lon", "lon_dir", "spd_over_grnd", "true_course",
                   "datestamp", "mag_variation", "mag_var_dir", "mode_indicator", "nav_status")


def _rmc(msg: pynmea2.NMEASentence) -> Fields:
    (status, lat, lat_dir, lon, lon_dir, knots, course, date_text, magvar, magvar_dir, mode_char,
     nav_status) = _columns(msg, _RMC)
    status, mode_char, date_text = status.strip(), mode_char.strip(), date_text.strip()
    lat_deg, lon_deg = _latlon(lat, lat_dir, lon, lon_dir)
    magvar_deg = _num(magvar, float, "RMC magnetic variation")
    if magvar_deg is not None and not 0.0 <= magvar_deg <= MAX_MAGVAR_DEG:
        magvar_deg = None  # a placeholder for "unknown" (a Trimble R1 sends 999.9000,E)
    if magvar_deg is not None and magvar_dir.strip() == "W":
        magvar_deg = -magvar_deg
    quality: FixQuality | None
    if status == "V":
        quality = FixQuality.NO_FIX
    elif mode_char:
        quality = _quality_from_mode_chars(mode_char)
    else:
        quality = FixQuality.AUTONOMOUS if status == "A" else None
    speed_kn = _ranged(knots, float, "RMC speed", 0.0, None)
    return {
        "_date": _datestamp(date_text) if date_text else None,
        "lat": lat_deg,
        "lon": lon_deg,
        "valid": status != "V",
        "status": status or None,
        "quality": quality,
        "speed_mps": None if speed_kn is None else speed_kn * KNOT_MPS,
        "course_deg": _ranged(course, float, "RMC course", 0.0, 360.0),
        "magvar_deg": magvar_deg,
        "mode_indicator": mode_char or None,
        "nav_status": nav_status.strip() or None,
    }


_GLL = _columns_of("GLL", "lat", "lat_dir", "lon", "lon_dir", "status", "faa_mode")


def _gll(msg: pynmea2.NMEASentence) -> Fields:
    lat, lat_dir, lon, lon_dir, status, mode_char = _columns(msg, _GLL)
    status = status.strip()
    lat_deg, lon_deg = _latlon(lat, lat_dir, lon, lon_dir)
    return {
        "lat": lat_deg,
        "lon": lon_deg,
        "valid": status != "V",
        "quality": FixQuality.NO_FIX if status == "V" else _quality_from_mode_chars(mode_char.strip()),
    }


_VTG = _columns_of("VTG", "spd_over_grnd_kts", "spd_over_grnd_kmph", "true_track")


def _vtg(msg: pynmea2.NMEASentence) -> Fields:
    knots, kmph, course = _columns(msg, _VTG)
    speed_kn = _ranged(knots, float, "VTG speed", 0.0, None)
    speed_kmh = _ranged(kmph, float, "VTG speed", 0.0, None)
    speed = (speed_kn * KNOT_MPS if speed_kn is not None
             else (speed_kmh / 3.6 if speed_kmh is not None else None))
    return {"speed_mps": speed, "course_deg": _ranged(course, float, "VTG course", 0.0, 360.0)}


_GSA = _columns_of("GSA", "mode_fix_type", "pdop", "hdop", "vdop")


def _gsa(msg: pynmea2.NMEASentence) -> Fields:
    fix_type, pdop, hdop, vdop = _columns(msg, _GSA)
    return {
        "fix_type": _num(fix_type, int, "GSA fix type"),
        "pdop": _dop(pdop, "GSA PDOP"),
        "hdop": _dop(hdop, "GSA HDOP"),
        "vdop": _dop(vdop, "GSA VDOP"),
    }


def _gsa_system_id(data: list[str]) -> str | None:
    """GSA field 18 (``msg.data[17]``), the GNSS system id of NMEA 4.10 (1 GPS, 2 GLONASS,
    3 Galileo, 4 BeiDou...), stripped; None when the sentence is too short to have it."""
    return data[17].strip() if len(data) > 17 else None


def _gsa_used_ids(msgs: Iterable[pynmea2.NMEASentence]) -> set[tuple[str, str]]:
    """Distinct (system, satellite id) pairs used over GSA sentences (an epoch's), from fields
    3-14; the system is the system id, or the talker when the sentence has none."""
    ids: set[tuple[str, str]] = set()
    for msg in msgs:
        data = msg.data
        system = _gsa_system_id(data)
        if system is None:
            system = msg.talker
        ids.update((system, d.strip()) for d in data[2:14] if d.strip())
    return ids


_GST = _columns_of("GST", "std_dev_latitude", "std_dev_longitude", "std_dev_altitude")


def _gst(msg: pynmea2.NMEASentence) -> Fields:
    lat, lon, alt = _columns(msg, _GST)
    return {
        "sigma_lat_m": _ranged(lat, float, "GST latitude sigma", 0.0, None),
        "sigma_lon_m": _ranged(lon, float, "GST longitude sigma", 0.0, None),
        "sigma_alt_m": _ranged(alt, float, "GST altitude sigma", 0.0, None),
    }


_ZDA = _columns_of("ZDA", "timestamp", "day", "month", "year")


def _zda(msg: pynmea2.NMEASentence) -> Fields:
    tod, day, month, year = (text.strip() for text in _columns(msg, _ZDA))
    return {"_date": _zda_date(day, month, year), "_tod": _time_of_day(tod)}


FOOT_M = 0.3048  #: the international foot, metres (Garmin's PGRMZ altitude is in feet)


def _grmz(msg: pynmea2.NMEASentence) -> Fields:
    """Garmin ``$PGRMZ,alt,f,dim``: altitude above MSL in feet (metres here), and the fix
    dimension (2: the user's altitude, a 2D fix; 3: the receiver's own, 3D)."""
    data = msg.data + [""] * 4
    alt, unit, dim = data[1].strip(), data[2].strip().lower(), data[3].strip()
    if alt and unit not in ("f", ""):
        raise ValueError(f"PGRMZ altitude unit {unit!r} is not f (feet)")
    feet = _num(alt, float, "PGRMZ altitude")
    alt_m = None if feet is None else feet * FOOT_M
    if alt_m is not None and not ALT_MSL_RANGE_M[0] <= alt_m <= ALT_MSL_RANGE_M[1]:
        raise ValueError(f"PGRMZ altitude {alt} ft outside {ALT_MSL_RANGE_M} m")
    fix_type = _num(dim, int, "PGRMZ fix dimension")
    return {"alt_msl_m": alt_m, "fix_type": fix_type if fix_type in (2, 3) else None}


def _grme(msg: pynmea2.NMEASentence) -> Fields:
    """Garmin ``$PGRME,hpe,M,vpe,M,epe,M``: the receiver's estimated horizontal, vertical and
    overall position errors, metres."""
    data = msg.data + [""] * 7
    return {"hpe_m": _ranged(data[1].strip(), float, "PGRME horizontal error", 0.0, None),
            "vpe_m": _ranged(data[3].strip(), float, "PGRME vertical error", 0.0, None)}


#: Proprietary sentences read into the fix (pynmea2's class name -> kind); every other
#: proprietary sentence is counted as ignored.
PROPRIETARY_USED = {"GRMZ": "GRMZ", "GRME": "GRME"}

_HANDLERS: dict[str, Callable[[pynmea2.NMEASentence], Fields]] = {
    "GRMZ": _grmz,
    "GRME": _grme,
    "GGA": _gga,
    "GNS": _gns,
    "RMC": _rmc,
    "GLL": _gll,
    "VTG": _vtg,
    "GSA": _gsa,
    "GST": _gst,
    "ZDA": _zda,
}
#: The sentence types an epoch uses: those with a field reader, and GSV (its pages are read
#: together by :func:`_gsv_sats` when the epoch closes).
_USED_TYPES = frozenset(_HANDLERS) | {"GSV"}

