"""GNSS fixes in the survey: the quality gate, averaged points, offset points.

Fixes are duck-typed (:class:`FixLike`): anything with the attribute names of ``devices.nmea.Fix``
works, so this module never imports ``devices``.

Averaged point metadata mirrors Esri's GNSS metadata fields (ArcGIS Field Maps
``ESRIGNSS_*``): ``sample_count`` ≈ ``ESRIGNSS_AVG_POSITIONS``, ``std_dev_h_m`` ≈
``ESRIGNSS_H_STDDEV``, ``h_accuracy_m`` ≈ ``ESRIGNSS_AVG_H_RMS``, ``v_accuracy_m`` ≈
``ESRIGNSS_AVG_V_RMS``, ``worst_fix_quality`` ≈ ``ESRIGNSS_FIXTYPE`` (the worst of the epochs used).
"""

from __future__ import annotations

import enum
import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol, TypedDict, runtime_checkable

import numpy as np

from ..geo import SiteFrame
from . import values as V
from .errors import InvalidValue, NotEnoughEpochs

__all__ = [
    "FixLike",
    "QualityGate",
    "AveragedPosition",
    "average_fixes",
    "North",
    "true_azimuth",
    "horizontal_from_slope_ft",
    "QUALITY_RANK",
    "REASON_WORDS",
    "correction_age",
    "correction_fields",
]


@runtime_checkable
class FixLike(Protocol):
    """What the survey reads from a fix (the names of ``devices.nmea.Fix``)."""

    time_utc: datetime | None
    lat_deg: float | None
    lon_deg: float | None
    alt_hae_m: float | None
    quality: int
    sats_used: int | None
    hdop: float | None
    horizontal_accuracy_m: float | None
    vertical_accuracy_m: float | None


# GGA fix quality (NMEA 0183 GGA field 6) from best (0) to worst. RTK fixed beats float beats
# PPS / DGPS beats autonomous; dead reckoning, manual and simulated are not measurements.
QUALITY_RANK = {4: 0, 5: 1, 3: 2, 2: 3, 1: 4, 6: 5, 7: 6, 8: 7, 0: 8}


#: What each :meth:`QualityGate.reason` key means, in words for the surveyor.
REASON_WORDS = {
    "no_position": "no position in the fix",
    "bad_position": "a position out of range",
    "quality": "a fix quality the gate does not accept",
    "hdop": "HDOP over the limit",
    "no_hdop": "no HDOP from the receiver",
    "sats": "too few satellites",
    "no_sats": "no satellite count from the receiver",
    "accuracy": "horizontal accuracy over the limit",
    "no_accuracy": "no horizontal accuracy from the receiver",
}


@dataclass(frozen=True)
class QualityGate:
    """Which epochs count as usable.

    A limit that is set needs the value it limits: an epoch *without* HDOP fails ``max_hdop``,
    one without a satellite count fails ``min_sats``, one without a horizontal accuracy fails
    ``max_h_accuracy_m`` -- a gate cannot vouch for what the receiver did not report. An
    RMC-only fix (RMC carries position, time and mode, but no HDOP, satellite count or
    accuracy) therefore fails the default gate ("no HDOP from the receiver"); so does a GGA
    whose HDOP field (GGA field 8) is empty. Set a limit to None to accept epochs without that
    value (e.g. ``QualityGate(max_hdop=None, min_sats=None)`` for a receiver that only sends RMC).

    ``horizontal_accuracy_m`` is what ``devices.nmea`` reports: GST's sigmas, or HDOP × UERE
    when there is no GST; with neither there is none.

    Parameters
    ----------
    qualities : frozenset of int
        Accepted GGA fix qualities (default autonomous, DGPS, PPS, RTK fixed, RTK float).
    max_hdop : float or None
        Largest HDOP accepted (default 5.0); an epoch without HDOP fails. None: no limit.
    min_sats : int or None
        Fewest satellites used (GGA field 7; default 4); an epoch without a count fails.
        None: no limit.
    max_h_accuracy_m : float or None
        Largest reported horizontal accuracy (m) accepted; an epoch without an accuracy fails.
        None (default): no limit.

    Examples
    --------
    >>> from types import SimpleNamespace as F
    >>> rmc_only = F(lat_deg=45.0, lon_deg=-89.0, quality=1, hdop=None, sats_used=None,
    ...              horizontal_accuracy_m=None)
    >>> QualityGate().reason(rmc_only), QualityGate().explain(rmc_only)
    ('no_hdop', 'no HDOP from the receiver')
    >>> QualityGate(max_hdop=None, min_sats=None).usable(rmc_only)
    True
    """

    qualities: frozenset[int] = frozenset({1, 2, 3, 4, 5})
    max_hdop: float | None = 5.0
    min_sats: int | None = 4
    max_h_accuracy_m: float | None = None

    def reason(self, fix: FixLike) -> str | None:
        """Why ``fix`` is not usable (a short key of :data:`REASON_WORDS`), or None if it is."""
        lat, lon = fix.lat_deg, fix.lon_deg
        if lat is None or lon is None:
            return "no_position"
        if not (math.isfinite(lat) and math.isfinite(lon)) or abs(lat) > 90 or abs(lon) > 180:
            return "bad_position"
        if int(fix.quality) not in self.qualities:
            return "quality"
        if self.max_hdop is not None:
            hdop = fix.hdop
            if hdop is None:
                return "no_hdop"
            if not hdop <= self.max_hdop:  # NaN fails too
                return "hdop"
        if self.min_sats is not None:
            sats = fix.sats_used
            if sats is None:
                return "no_sats"
            if sats < self.min_sats:
                return "sats"
        if self.max_h_accuracy_m is not None:
            acc = fix.horizontal_accuracy_m
            if acc is None:
                return "no_accuracy"
            if not acc <= self.max_h_accuracy_m:
                return "accuracy"
        return None

    def explain(self, fix: FixLike) -> str | None:
        """Why ``fix`` is not usable, in words with the values (e.g. ``"HDOP 6.2 over the
        limit 5.0"``, ``"no HDOP from the receiver"``), or None if it is usable."""
        key = self.reason(fix)
        if key is None:
            return None
        if key == "quality":
            return f"fix quality {int(fix.quality)} is not accepted"
        if key == "hdop":
            return f"HDOP {fix.hdop:g} over the limit {self.max_hdop:g}"
        if key == "sats":
            return f"{fix.sats_used} satellites, fewer than {self.min_sats}"
        if key == "accuracy":
            return (f"horizontal accuracy {fix.horizontal_accuracy_m:g} m over the limit "
                    f"{self.max_h_accuracy_m:g} m")
        return REASON_WORDS[key]

    def usable(self, fix: FixLike) -> bool:
        return self.reason(fix) is None


DEFAULT_GATE = QualityGate()


@dataclass(frozen=True)
class AveragedPosition:
    """A position averaged from usable epochs, in the site CRS.

    Attributes
    ----------
    x, y : float
        Mean position (site CRS units).
    lon_deg, lat_deg : float
        The mean as WGS84 degrees.
    ground_hae_m : float or None
        Mean ellipsoidal height of the antenna minus the antenna height (m), if heights came.
    sample_count : int
        Epochs used. ``rejected_count`` epochs failed the gate; ``rejected_reasons`` counts why
        (``{key: count}``, keys of :data:`REASON_WORDS`).
    std_dev_x_m, std_dev_y_m, std_dev_h_m : float
        Sample standard deviation (m) east, north and horizontal (√(sx²+sy²)); 0 for one epoch.
    worst_fix_quality : int
        Worst GGA quality among the epochs used (by :data:`QUALITY_RANK`).
    h_accuracy_m, v_accuracy_m : float or None
        Mean reported accuracy of the used epochs (m), None if the receiver reported none.
    hdop : float or None
        Mean HDOP of the used epochs.
    time_utc : datetime or None
        Time of the last epoch used.
    correction_age_s : float or None
        Largest age of corrections among the epochs used, seconds (:func:`correction_age`);
        None when none had corrections.
    correction_mount : str or None
        NTRIP mountpoint of the last epoch used that had one.
    """

    x: float
    y: float
    lon_deg: float
    lat_deg: float
    ground_hae_m: float | None
    sample_count: int
    rejected_count: int
    std_dev_x_m: float
    std_dev_y_m: float
    std_dev_h_m: float
    worst_fix_quality: int
    h_accuracy_m: float | None
    v_accuracy_m: float | None
    hdop: float | None
    time_utc: datetime | None
    rejected_reasons: dict[str, int] = field(default_factory=dict)
    correction_age_s: float | None = None
    correction_mount: str | None = None


def correction_age(fix: object) -> float | None:
    """Age of the corrections a fix was computed with, seconds: the receiver's own (GGA field 13,
    ``dgps_age_s``) when it sent one, else the app's NTRIP client's (``correction_age_s``, the
    time since it last wrote a correction); None without either.

    Examples
    --------
    >>> from types import SimpleNamespace as F
    >>> correction_age(F(dgps_age_s=1.2, correction_age_s=0.4)), correction_age(F(dgps_age_s=None,
    ...     correction_age_s=0.4)), correction_age(F())
    (1.2, 0.4, None)
    """
    for name in ("dgps_age_s", "correction_age_s"):
        age = getattr(fix, name, None)
        if age is not None and math.isfinite(age) and age >= 0:
            return float(age)
    return None


class CorrectionFields(TypedDict):
    """The correction fields of a record made from fixes (:func:`correction_fields`)."""

    correction_age_s: float | None
    correction_mount: str | None


def correction_fields(fixes: Sequence[object]) -> CorrectionFields:
    """``correction_age_s`` (the largest of :func:`correction_age` over ``fixes``) and
    ``correction_mount`` (the last one named) for a record made from ``fixes``."""
    ages = [a for a in (correction_age(f) for f in fixes) if a is not None]
    mounts = [str(m) for m in (getattr(f, "correction_mount", None) for f in fixes) if m]
    return {"correction_age_s": max(ages) if ages else None,
            "correction_mount": mounts[-1] if mounts else None}


def _mean_or_none(vals: Iterable[float | None]) -> float | None:
    kept = [v for v in vals if v is not None and math.isfinite(v)]
    return float(np.mean(kept)) if kept else None


def average_fixes(
    fixes: Iterable[FixLike],
    frame: SiteFrame,
    *,
    min_epochs: int = 1,
    gate: QualityGate = DEFAULT_GATE,
    antenna_height_m: float = 0.0,
) -> AveragedPosition:
    """Average the usable epochs of ``fixes`` into one position in ``frame``.

    Epochs failing ``gate`` are skipped and counted (never fatal); only too few usable epochs is.

    Raises
    ------
    NotEnoughEpochs
        Fewer than ``min_epochs`` usable epochs (carries the counts).

    Examples
    --------
    Three fixes, one without a position: two used, one rejected.

    >>> from types import SimpleNamespace as F
    >>> f = SiteFrame("EPSG:32610")
    >>> good = dict(quality=1, sats_used=8, hdop=0.9, horizontal_accuracy_m=None,
    ...             vertical_accuracy_m=None, alt_hae_m=None, time_utc=None)
    >>> p = average_fixes([F(lat_deg=45.0, lon_deg=-123.0, **good),
    ...                    F(lat_deg=None, lon_deg=None, **good),
    ...                    F(lat_deg=45.0, lon_deg=-123.0, **good)], f)
    >>> p.sample_count, p.rejected_count, p.std_dev_h_m
    (2, 1, 0.0)
    """
    min_epochs = int(min_epochs)
    if min_epochs < 1:
        raise InvalidValue("min_epochs", f"must be at least 1, got {min_epochs}")
    antenna_height_m = V.finite("antenna_height_m", antenna_height_m)
    used, reasons = _usable_epochs(fixes, gate, min_epochs)
    lon = np.array([f.lon_deg for f in used], dtype=float)
    lat = np.array([f.lat_deg for f in used], dtype=float)
    x, y = frame.to_local(lon, lat)
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    ddof = 1 if len(used) > 1 else 0
    sx = float(np.std(x, ddof=ddof)) * frame.unit_m
    sy = float(np.std(y, ddof=ddof)) * frame.unit_m
    mx, my = float(np.mean(x)), float(np.mean(y))
    mlon, mlat = frame.to_lonlat(mx, my)
    hae = _mean_or_none([f.alt_hae_m for f in used])
    worst = max((int(f.quality) for f in used), key=lambda q: QUALITY_RANK.get(q, 99))
    return AveragedPosition(
        x=mx,
        y=my,
        lon_deg=float(mlon),
        lat_deg=float(mlat),
        ground_hae_m=None if hae is None else hae - antenna_height_m,
        sample_count=len(used),
        rejected_count=sum(reasons.values()),
        std_dev_x_m=sx,
        std_dev_y_m=sy,
        std_dev_h_m=math.hypot(sx, sy),
        worst_fix_quality=worst,
        h_accuracy_m=_mean_or_none([f.horizontal_accuracy_m for f in used]),
        v_accuracy_m=_mean_or_none([f.vertical_accuracy_m for f in used]),
        hdop=_mean_or_none([f.hdop for f in used]),
        time_utc=used[-1].time_utc,
        rejected_reasons=dict(reasons),
        **correction_fields(used),
    )


def _usable_epochs(fixes: Iterable[FixLike], gate: QualityGate,
                   min_epochs: int) -> tuple[list[FixLike], Counter[str]]:
    """The epochs ``gate`` accepts, in order, and a count of the others by reason key
    (:data:`REASON_WORDS`).

    Raises
    ------
    NotEnoughEpochs
        Fewer than ``min_epochs`` accepted (the message counts the rejections by reason).
    """
    used: list[FixLike] = []
    reasons: Counter[str] = Counter()
    for fix in fixes:
        why = gate.reason(fix)
        if why is None:
            used.append(fix)
        else:
            reasons[why] += 1
    if len(used) < min_epochs:
        rejected = sum(reasons.values())
        why = ", ".join(f"{n} {REASON_WORDS.get(k, k)}" for k, n in reasons.items()) or "none"
        raise NotEnoughEpochs(
            f"{len(used)} usable epochs of {len(used) + rejected}, need {min_epochs} "
            f"(rejected: {why})",
            accepted=len(used),
            rejected=rejected,
        )
    return used, reasons


class North(enum.Enum):
    """Reference of an azimuth: true (geodetic) north or magnetic north."""

    TRUE = "true"
    MAGNETIC = "magnetic"


def true_azimuth(azimuth_deg: float, north: North = North.TRUE, declination_deg: float = 0.0) -> float:
    """Azimuth from true north in [0, 360).

    Magnetic bearings add the declination (east positive): true = magnetic + declination.

    >>> true_azimuth(80.0, North.MAGNETIC, 10.0)
    90.0
    >>> true_azimuth(5.0, North.MAGNETIC, -10.0)
    355.0
    """
    az = V.finite("azimuth_deg", azimuth_deg)
    if North(north) is North.MAGNETIC:
        az += V.in_range("declination_deg", declination_deg, -180.0, 180.0)
    return az % 360.0


def horizontal_from_slope_ft(slope_distance_ft: float, inclination_deg: float) -> float:
    """Horizontal distance from a slope distance and the inclination: HD = SD·cos(incl).

    Refuses inclinations beyond ±89° and negative distances.

    >>> round(horizontal_from_slope_ft(100.0, 30.0), 4)
    86.6025
    """
    sd = V.non_negative("slope_distance_ft", slope_distance_ft)
    inc = V.in_range("inclination_deg", inclination_deg, -V.MAX_SLOPE_DEG, V.MAX_SLOPE_DEG)
    return sd * math.cos(math.radians(inc))
