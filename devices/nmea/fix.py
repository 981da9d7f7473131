"""The GNSS fix: :class:`Fix`, its enums (:class:`FixQuality`, :class:`FixMode`, :class:`BadKind`),
the accuracy constants and the fix as gpsd-TPV-like JSON (:func:`fix_to_json`).

Pure values: nothing here reads a sentence (see :mod:`devices.nmea.sentences`).
"""

from __future__ import annotations

import datetime as dt
import enum
import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

__all__ = [
    "FixQuality",
    "FixMode",
    "BadKind",
    "Usability",
    "Fix",
    "UERE_M",
    "VDOP_PER_HDOP",
    "fix_to_json",
]


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
    gst_held_epochs : int
        0 when the sigmas (if any) are this epoch's GST; n when this epoch sent no GST and the
        sigmas are those of the GST n epochs before, held (at most
        :data:`~devices.nmea.assembler.GST_HOLD_EPOCHS`, same fix quality) so that a receiver
        sending GST every other epoch shows no flicker; ``accuracy_source`` then reads
        ``"GST held n epochs"``.
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
    correction_mount : str or None
        The NTRIP mountpoint the app was feeding the receiver corrections from when this fix
        came (set by the app, not read from NMEA); None without corrections.
    correction_age_s : float or None
        Seconds since the app's NTRIP client last wrote a correction to the receiver, when the
        fix came (the receiver's own figure is ``dgps_age_s``); None without corrections.
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
    gst_held_epochs: int = 0
    horizontal_accuracy_m: float | None = None
    vertical_accuracy_m: float | None = None
    accuracy_estimated: bool = False
    accuracy_source: str = "none: no GST and no DOP"
    dgps_age_s: float | None = None
    dgps_station: str | None = None
    correction_mount: str | None = None
    correction_age_s: float | None = None
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


# --------------------------------------------------------------------------- building a Fix


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


def _new_fix(values: dict[str, Any]) -> Fix:
    """``Fix(**values)`` for a dict naming every field (but :data:`_SET_BY_THE_APP`), in one step.

    A frozen dataclass's ``__init__`` sets each of Fix's 32 fields through
    ``object.__setattr__`` (about as long as pynmea2 takes to parse a
    sentence); filling the instance dict at once gives the same, equal,
    immutable object.
    """
    fix = object.__new__(Fix)
    fix.__dict__.update(_SET_BY_THE_APP)
    fix.__dict__.update(values)
    return fix


#: Fields no sentence fills (the app sets them on a fix it received, with ``dataclasses.replace``):
#: the assembler's fixes start with these defaults.
_SET_BY_THE_APP = {"correction_mount": None, "correction_age_s": None}


# --------------------------------------------------------------------------- JSON


def _round(x: float | None, nd: int) -> float | None:
    return None if x is None else round(x, nd)


def fix_to_json(fix: Fix) -> dict[str, object]:
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
        "gst_held_epochs": fix.gst_held_epochs or None,
    }
    if fix.time_utc is None and fix.time_of_day_utc is not None:
        out["time_of_day"] = fix.time_of_day_utc.isoformat(timespec="milliseconds")
    return {k: v for k, v in out.items() if v is not None}
