"""One epoch: its sentences as they arrive (:class:`_Epoch`), and the :class:`~devices.nmea.fix.Fix`
made of them when it closes (:func:`_build_fix`).

The grouping of lines into epochs (which sentence opens the next one, dates, time going
backwards, the cycle ender) is :class:`~devices.nmea.assembler.EpochAssembler`'s; this module
holds what one epoch knows.  Fields are read lazily (:class:`_Fields`): only what the fix needs,
in order of precedence, the first readable sentence of a type winning.
"""

from __future__ import annotations

import datetime as dt
import enum
import logging
import math
from collections.abc import Mapping
from typing import Any

import pynmea2

from devices.nmea.cycle import _cycle_key
from devices.nmea.fix import UERE_M, VDOP_PER_HDOP, Fix, FixMode, FixQuality, _accuracy_source, _new_fix
from devices.nmea.sentences import _HANDLERS, Fields, _gsa_used_ids, _gsv_sats

log = logging.getLogger(__name__)

UTC = dt.UTC

#: Sentence types that carry a position, in order of precedence.
_POSITION_TYPES = ("GGA", "GNS", "RMC", "GLL")
_POSITION_SET = frozenset(_POSITION_TYPES)
#: What a field reader may raise on a field it cannot read.
_FIELD_ERRORS = (ValueError, TypeError, AttributeError, IndexError, KeyError)
#: A ZDA joins the epoch in progress when their times of day are less than this apart (seconds).
ZDA_JOIN_S = 1.0

_EMPTY: Mapping[str, Any] = {}
#: GSA / PGRMZ fix type -> mode (looked up with the field as read: None when not sent).
_MODE_BY_FIX_TYPE: dict[int | None, FixMode] = {2: FixMode.TWO_D, 3: FixMode.THREE_D}


class _Epoch:
    __slots__ = ("tod", "zda_tod", "msgs", "types", "raw", "t_last", "has_position", "seen", "last")

    def __init__(self) -> None:
        self.tod: dt.time | None = None  # time of the sentences that opened the epoch (never ZDA)
        self.zda_tod: dt.time | None = None  # time of the epoch's first timed ZDA
        self.msgs: dict[str, list[_Sentence]] = {}
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


class _Read(enum.Enum):
    """:attr:`_Sentence.values` before its fields are read, or when one could not be read."""

    UNREAD = "unread"
    MALFORMED = "malformed"



class _Sentence:
    """One good line: the parsed sentence, its text, type, time of day and (once read) its fields.

    Shared by identical lines that arrive close together (see ``EpochAssembler._recent``): every
    value here is a pure function of the line's bytes, and nothing changes them once set.
    """

    __slots__ = ("msg", "text", "kind", "label", "tod", "values", "cycle_key")

    def __init__(self, msg: pynmea2.NMEASentence, text: str, kind: str | None, tod: dt.time | None) -> None:
        self.msg = msg
        self.text = text
        self.kind = kind  # a sentences._USED_TYPES member, or None for a good sentence we do not use
        if isinstance(msg, pynmea2.ProprietarySentence):
            self.label = "P" + (kind or "")  # "PGRMZ"; "P": a proprietary sentence ignored
        else:
            self.label = msg.talker + kind if kind is not None else ""
        self.tod = tod
        self.values: Fields | _Read = _Read.UNREAD
        self.cycle_key = _cycle_key(msg, self.label, kind) if kind in ("GSV", "GSA") else self.label


class _Fields:
    """Reads an epoch's sentences lazily: only what the fix needs, first good one of a type wins.

    ``used`` counts the sentences read into the fix, ``malformed`` those whose fields could not
    be read (the assembler adds both to its counts).
    """

    __slots__ = ("msgs", "cache", "used", "malformed")

    def __init__(self, epoch: _Epoch) -> None:
        self.msgs = epoch.msgs
        self.cache: dict[str, Fields | None] = {}
        self.used = 0
        self.malformed = 0

    def get(self, kind: str) -> Fields | None:
        """The fields of the first readable sentence of ``kind`` (None if none); read once."""
        cache = self.cache
        if kind in cache:
            return cache[kind]
        found: Fields | None = None
        for sentence in self.msgs.get(kind, ()):
            values = sentence.values
            if values is _Read.UNREAD:
                try:
                    values = _HANDLERS[kind](sentence.msg)
                except _FIELD_ERRORS as exc:
                    log.debug("malformed %s: %s", kind, exc)
                    values = _Read.MALFORMED
                sentence.values = values
            if isinstance(values, dict):
                found = values
                self.used += 1
                break
            self.malformed += 1
        cache[kind] = found
        return found

    def first(self, key: str, *kinds: str) -> Any:
        """``key`` from the first of ``kinds`` (in order) that has it, else None."""
        for kind in kinds:
            src = self.get(kind)
            if src is not None:
                value = src.get(key)
                if value is not None:
                    return value
        return None


# --------------------------------------------------------------------------- the fix of an epoch
# Each value is taken from the first sentence type, in order of precedence, that has it; a
# lower-precedence type is read (and a malformed field in it counted) only when needed.


def _position(fields: _Fields) -> tuple[bool, float | None, float | None]:
    """(any position sentence readable, latitude, longitude): the first valid position of
    GGA, GNS, RMC, GLL (read in that order, up to the first valid one)."""
    get, msgs = fields.get, fields.msgs
    readable = False
    for kind in _POSITION_TYPES:
        if kind in msgs:
            src = get(kind)
            if src is not None:
                readable = True
                if src["lat"] is not None and src.get("valid", True):
                    return True, src["lat"], src["lon"]
    return readable, None, None


def _quality(fields: _Fields, gga: Mapping[str, Any], has_lat: bool) -> FixQuality:
    """GGA quality, else the GNS / RMC / GLL mode indicator's, else AUTONOMOUS with a position."""
    quality: FixQuality | None = gga.get("quality")
    if quality is None:
        quality = fields.first("quality", "GNS", "RMC", "GLL")
        if quality is None:
            quality = FixQuality.AUTONOMOUS if has_lat else FixQuality.NO_FIX
    return quality


def _accuracy(quality: FixQuality, hdop: float | None, vdop: float | None,
              gst: Mapping[str, Any]) -> tuple[float | None, float | None, bool, str]:
    """(horizontal, vertical 1-sigma accuracy in metres, estimated?, ``Fix.accuracy_source``).

    GST's sigmas when sent (horizontal = sqrt(sigma_lat^2 + sigma_lon^2)), else DOP x
    :data:`~devices.nmea.fix.UERE_M` of the quality (vertical without VDOP: VDOP_PER_HDOP x HDOP).
    """
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
    estimated = h_from == "HDOP" or v_from in ("VDOP", "HDOP*")
    return h_acc, v_acc, estimated, _accuracy_source(h_from, v_from, uere)


def _sats_used(fields: _Fields, gga: Mapping[str, Any], msgs: Mapping[str, list[_Sentence]],
               fixed: bool) -> int | None:
    """Satellites used: GGA field 7, else GNS's, else the distinct ids of the epoch's GSA.

    While fixed, a GGA count of 0 is not believed (a Furuno GT-88 sends ``00`` with 11 in GSA
    and GNS): the GNS count, else GSA's, is taken when it has any; the GGA's 0 stays otherwise.
    """
    sats: int | None = gga.get("sats_used")
    if sats is None or (sats == 0 and fixed):
        other = fields.first("sats_used", "GNS")
        if not other and "GSA" in msgs:
            other = len(_gsa_used_ids(s.msg for s in msgs["GSA"])) or None
        if other or sats is None:
            sats = other
    return sats


#: What :func:`_accuracy` gives: horizontal, vertical accuracy (m), estimated?, source in words.
_Accuracy = tuple[float | None, float | None, bool, str]
#: An earlier epoch's GST kept for the next ones: (its fields, the fix quality, epochs held).
HeldGst = tuple[Mapping[str, Any], FixQuality, int]


def _garmin_accuracy(fields: _Fields, h_acc: float | None, v_acc: float | None, estimated: bool,
                     source: str) -> _Accuracy:
    """Fill the accuracies GST and the DOPs left unknown from Garmin's ``$PGRME`` estimated
    position errors (metres; the receiver's own estimate, so marked estimated)."""
    grme = fields.get("GRME") or _EMPTY
    filled = []
    if h_acc is None and grme.get("hpe_m") is not None:
        h_acc = grme["hpe_m"]
        filled.append("horizontal")
    if v_acc is None and grme.get("vpe_m") is not None:
        v_acc = grme["vpe_m"]
        filled.append("vertical")
    if not filled:
        return h_acc, v_acc, estimated, source
    garmin = "PGRME (Garmin estimate)"
    return h_acc, v_acc, True, garmin if source.startswith("none") else f"{source} + {garmin}"


def _build_fix(ep: _Epoch, fields: _Fields, rmc: Mapping[str, Any] | None, date: dt.date | None,
               tod: dt.time | None, antenna_height_m: float,
               held_gst: HeldGst | None = None) -> Fix | None:
    """The fix of a closed epoch holding a position sentence; None when every position sentence
    of it was malformed.  ``date`` and ``tod`` are the epoch's (see the assembler's notes).
    ``held_gst`` is ``(GST fields, fix quality, epochs held)`` of an earlier epoch's GST, used
    when this epoch has none and its quality is the same (``Fix.gst_held_epochs`` says so)."""
    readable, lat, lon = _position(fields)
    if not readable:
        return None
    get, first, msgs = fields.get, fields.first, ep.msgs
    gga = get("GGA") or _EMPTY
    rmc = rmc or _EMPTY
    quality = _quality(fields, gga, lat is not None)
    if quality is FixQuality.NO_FIX:
        lat = lon = None

    # (each "x if (x := A) is not None else first(...)" reads the fallback only when needed)
    alt_msl = None
    if lat is not None:
        alt_msl = v if (v := gga.get("alt_msl_m")) is not None else first("alt_msl_m", "GNS", "GRMZ")
    geoid_sep = v if (v := gga.get("geoid_sep_m")) is not None else first("geoid_sep_m", "GNS")
    gsa = get("GSA") or _EMPTY
    hdop = gsa.get("hdop")
    if hdop is None:
        hdop = v if (v := gga.get("hdop")) is not None else first("hdop", "GNS")
    vdop, pdop = gsa.get("vdop"), gsa.get("pdop")
    if lat is None:
        mode = FixMode.NONE
    else:
        mode = _MODE_BY_FIX_TYPE.get(gsa.get("fix_type")) or (
            _MODE_BY_FIX_TYPE.get(first("fix_type", "GRMZ")) if "GRMZ" in msgs else None) or (
            FixMode.THREE_D if alt_msl is not None else FixMode.TWO_D)
    sats_used = _sats_used(fields, gga, msgs, quality is not FixQuality.NO_FIX)
    gst: Mapping[str, Any] | None = get("GST")
    held = 0
    if gst is None:
        gst = _EMPTY
        if held_gst is not None and held_gst[1] is quality and lat is not None:
            gst, held = held_gst[0], held_gst[2] + 1
    h_acc, v_acc, estimated, accuracy_source = _accuracy(quality, hdop, vdop, gst)
    if "GRME" in msgs and lat is not None and (h_acc is None or v_acc is None):
        h_acc, v_acc, estimated, accuracy_source = _garmin_accuracy(fields, h_acc, v_acc,
                                                                    estimated, accuracy_source)
    if held and accuracy_source.startswith("GST"):
        accuracy_source = accuracy_source.replace(
            "GST", f"GST held {held} epoch{'s' if held > 1 else ''}", 1)
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
        "sats_in_view": (len(_gsv_sats(s.msg for s in msgs["GSV"])) or None) if "GSV" in msgs else None,
        "hdop": hdop,
        "vdop": vdop,
        "pdop": pdop,
        "sigma_lat_m": gst.get("sigma_lat_m"),
        "sigma_lon_m": gst.get("sigma_lon_m"),
        "sigma_alt_m": gst.get("sigma_alt_m"),
        "gst_held_epochs": held,
        "horizontal_accuracy_m": h_acc,
        "vertical_accuracy_m": v_acc,
        "accuracy_estimated": estimated,
        "accuracy_source": accuracy_source,
        "dgps_age_s": v if (v := gga.get("dgps_age_s")) is not None else first("dgps_age_s", "GNS"),
        "dgps_station": v if (v := gga.get("dgps_station")) is not None else first("dgps_station", "GNS"),
        "speed_mps": v if (v := rmc.get("speed_mps")) is not None else first("speed_mps", "VTG"),
        "course_deg": v if (v := rmc.get("course_deg")) is not None else first("course_deg", "VTG"),
        "magvar_deg": rmc.get("magvar_deg"),
        "rmc_status": rmc.get("status"),
        "mode_indicator": v if (v := rmc.get("mode_indicator")) is not None else first("mode_indicator", "GNS"),
        "nav_status": rmc.get("nav_status"),
        "antenna_height_m": antenna_height_m,
        "t_monotonic_s": ep.t_last,
        "sentences": tuple(ep.types),
        "raw": tuple(ep.raw),
    })
