"""Frozen instrument readings: the only things that cross from a reader thread to the app.

One reading type per kind of measurement, units in the field names, the raw bytes and the
monotonic receive time attached (for audit and latency figures). Lengths are given both in
international feet (1 ft = 0.3048 m exactly) and metres; the instrument's own unit is kept in
``units_sent``.

Exceptions: none raised here; parsers (:mod:`devices.instruments`, :mod:`devices.caliper`)
build these from checked values.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass

FT_PER_M = 1.0 / 0.3048
"""International feet per metre (1 ft = 0.3048 m exactly)."""
FT_PER_YD = 3.0
MM_PER_IN = 25.4
GON_PER_DEG = 400.0 / 360.0


class ShotKind(enum.Enum):
    """What a rangefinder shot measured (TruPulse message ids, kept for the other dialects)."""

    HV = "HV"
    """Horizontal and vertical: HD, azimuth, inclination, SD (TruPulse ``$PLTIT,HV``)."""
    HT = "HT"
    """Height routine result (TruPulse ``$PLTIT,HT``)."""
    ML = "ML"
    """Missing line between two shot points (TruPulse ``$PLTIT,ML``)."""


class LengthUnit(enum.Enum):
    """Distance unit letter as the instrument sent it."""

    FEET = "F"
    YARDS = "Y"
    METRES = "M"

    def to_ft(self, value: float) -> float:
        """Convert ``value`` in this unit to international feet."""
        if self is LengthUnit.FEET:
            return value
        if self is LengthUnit.YARDS:
            return value * FT_PER_YD
        return value * FT_PER_M

    def from_ft(self, value_ft: float) -> float:
        """Convert ``value_ft`` (international feet) to this unit."""
        if self is LengthUnit.FEET:
            return value_ft
        if self is LengthUnit.YARDS:
            return value_ft / FT_PER_YD
        return value_ft / FT_PER_M


def ft_to_m(value_ft: float | None) -> float | None:
    """International feet to metres; ``None`` passes through."""
    return None if value_ft is None else value_ft * 0.3048


@dataclass(frozen=True, slots=True)
class RangefinderShot:
    """One laser rangefinder result (HV, HT or ML).

    Fields the shot did not measure are ``None`` (an inclination-only shot has no distances;
    an instrument without compass has no azimuth).

    Attributes
    ----------
    kind : ShotKind
    protocol : str
        Parser that produced it (``"trupulse"``, ``"laserace-trimble"``, ``"laserace-mdl"``,
        ``"vertex"``).
    horizontal_distance_ft, horizontal_distance_m : float or None
        HD, >= 0.
    slope_distance_ft, slope_distance_m : float or None
        SD, >= 0.
    vertical_distance_ft, vertical_distance_m : float or None
        VD = HD * tan(inclination), positive when the target is above the instrument; derived
        when HD and the inclination are known (the sentences do not carry it).
    inclination_deg : float or None
        Signed, -90..90, positive up.
    slope_pct : float or None
        100 * tan(inclination), signed like the inclination.
    azimuth_deg : float or None
        0..360 from the instrument's compass (magnetic or true as set up on it); ``None``
        without compass (TruPulse 200 sends 0.00).
    height_ft, height_m : float or None
        HT result, or the Vertex height field.
    diameter_cm : float or None
        Vertex remote diameter; ``None`` when not measured (sent as 0.0).
    units_sent : LengthUnit or None
        Distance unit letter in the sentence.
    low_quality : bool
        TruPulse target-quality flag: the last decimal digit of a distance is 1 (weak target).
        The value is kept as sent.
    raw : bytes
        The sentence as received, without line end.
    t_monotonic_s : float
        ``time.monotonic()`` when the line was received (0.0 when parsed offline).
    """

    kind: ShotKind
    protocol: str
    horizontal_distance_ft: float | None
    horizontal_distance_m: float | None
    slope_distance_ft: float | None
    slope_distance_m: float | None
    vertical_distance_ft: float | None
    vertical_distance_m: float | None
    inclination_deg: float | None
    slope_pct: float | None
    azimuth_deg: float | None
    height_ft: float | None = None
    height_m: float | None = None
    diameter_cm: float | None = None
    units_sent: LengthUnit | None = None
    low_quality: bool = False
    raw: bytes = b""
    t_monotonic_s: float = 0.0

    @classmethod
    def build(
        cls,
        *,
        kind: ShotKind,
        protocol: str,
        units: LengthUnit | None,
        horizontal: float | None = None,
        slope: float | None = None,
        inclination_deg: float | None = None,
        azimuth_deg: float | None = None,
        height: float | None = None,
        diameter_cm: float | None = None,
        low_quality: bool = False,
        raw: bytes = b"",
        t_monotonic_s: float = 0.0,
    ) -> RangefinderShot:
        """Build a shot from values in the sent ``units``, filling feet, metres, VD and slope.

        Raises
        ------
        ValueError
            A negative distance or an inclination outside -90..90 degrees (named in the message).
        """
        for name, value in (("horizontal distance", horizontal), ("slope distance", slope)):
            if value is not None and value < 0:
                raise ValueError(f"{name} {value} is negative")
        if inclination_deg is not None and not -90.0 <= inclination_deg <= 90.0:
            raise ValueError(f"inclination {inclination_deg} deg is outside -90..90")
        if azimuth_deg is not None and not 0.0 <= azimuth_deg <= 360.0:
            raise ValueError(f"azimuth {azimuth_deg} deg is outside 0..360")
        unit = units or LengthUnit.FEET

        def ft(v: float | None) -> float | None:
            return None if v is None else unit.to_ft(v)

        hd_ft = ft(horizontal)
        slope_pct = None
        vd_ft = None
        if inclination_deg is not None and abs(inclination_deg) < 90.0:
            slope_pct = 100.0 * math.tan(math.radians(inclination_deg))
            if hd_ft is not None:
                vd_ft = hd_ft * slope_pct / 100.0
        sd_ft = ft(slope)
        h_ft = ft(height)
        return cls(
            kind=kind,
            protocol=protocol,
            horizontal_distance_ft=hd_ft,
            horizontal_distance_m=ft_to_m(hd_ft),
            slope_distance_ft=sd_ft,
            slope_distance_m=ft_to_m(sd_ft),
            vertical_distance_ft=vd_ft,
            vertical_distance_m=ft_to_m(vd_ft),
            inclination_deg=inclination_deg,
            slope_pct=slope_pct,
            azimuth_deg=azimuth_deg,
            height_ft=h_ft,
            height_m=ft_to_m(h_ft),
            diameter_cm=diameter_cm,
            units_sent=units,
            low_quality=low_quality,
            raw=raw,
            t_monotonic_s=t_monotonic_s,
        )


@dataclass(frozen=True, slots=True)
class InclinometerReading:
    """Tilt from a standalone inclinometer or an attitude sentence.

    A sentence may carry only some angles (XDR ``PTCH`` alone, then ``ROLL`` alone; the ASCII
    inclinometer's ``X=`` and ``Y=`` lines): the others are ``None``.

    Attributes
    ----------
    pitch_deg, roll_deg : float or None
        Signed degrees, as the device reports them (nose/forward-up positive for pitch).
    heading_deg : float or None
        0..360 when the sentence has one (PASHR, AVR yaw, HPR).
    protocol : str
    raw : bytes
    t_monotonic_s : float
    """

    pitch_deg: float | None
    roll_deg: float | None
    heading_deg: float | None = None
    protocol: str = ""
    raw: bytes = b""
    t_monotonic_s: float = 0.0

    @property
    def slope_pct(self) -> float | None:
        """100 * tan(pitch), or ``None`` without pitch."""
        if self.pitch_deg is None or abs(self.pitch_deg) >= 90.0:
            return None
        return 100.0 * math.tan(math.radians(self.pitch_deg))


@dataclass(frozen=True, slots=True)
class CaliperReading:
    """One tree from an electronic caliper: species and diameter (and optional length).

    Attributes
    ----------
    dbh_in, dbh_cm : float
        Diameter as measured (at breast height when the crew does so), inches (25.4 mm) and cm.
    species_number : int or None
        Species slot as set up on the caliper (Digitech ``$PHGF,SPC`` field 2; Masser 2 digits).
    species_label : str
        Free-text label from the caliper (may be empty).
    species_code, common_name, leaf_habit : str or None
        From the configured :class:`devices.caliper.SpeciesTable`, ``None`` when unmapped.
    length_dm : float or None
        Digitech ``$PHGF,LEN`` length in decimetres, when sent.
    protocol : str
    raw : bytes
        The sentences that made this tree, joined by ``b"\\n"``.
    t_monotonic_s : float
        Receive time of the diameter sentence.
    """

    dbh_in: float
    dbh_cm: float
    species_number: int | None
    species_label: str
    species_code: str | None = None
    common_name: str | None = None
    leaf_habit: str | None = None
    length_dm: float | None = None
    protocol: str = "digitech"
    raw: bytes = b""
    t_monotonic_s: float = 0.0


@dataclass(frozen=True, slots=True)
class InstrumentInfo:
    """Identification reply (TruPulse ``$PLTIT,ID,<model>,<firmware>``)."""

    model: str
    firmware: str
    protocol: str = ""
    raw: bytes = b""
    t_monotonic_s: float = 0.0


Reading = RangefinderShot | InclinometerReading | CaliperReading | InstrumentInfo
"""Union of the instrument reading types."""
