"""Laser rangefinder sentence parsers: TruPulse ``$PLTIT``, LaserAce ``$PTNLA`` / ``$PMDLA``,
Haglöf Vertex Laser Geo ``$PHGF,HVV``.

Each parser takes a checked :class:`~devices.instruments.sentence.Sentence` and returns a
reading, ``None`` for a sentence that carries no measurement, or raises ``ValueError`` naming
the bad field.

Field layouts (from ``../shared/data/devices/device-samples.txt`` and its sources):

- ``$PLTIT,HV,<HD>,<u>,<AZ>,D,<INC>,D,<SD>,<u>`` (TruPulse manual section 8); ``ML`` has the
  same layout; ``HT,<height>,<u>``; ``ID,<model>,<firmware>,``. Inclination-only and
  azimuth-only shots leave the distance fields empty. The last decimal digit of a two-decimal
  distance is the target-quality flag (0 good, 1 low).
- ``$PTNLA,HV,...`` (Trimble LaserAce): same layout, ``9999.99`` means "no value".
- ``$PMDLA,HV,...`` (MDL LaserAce): same layout; angle unit ``D`` degrees or ``G`` gons.
- ``$PHGF,HVV,<HD>,<u>,<AZ>,D,<INC>,D,<SD>,<u>,<H>,<u>,<DIA>,CM,`` (Vertex Laser Geo 2).
"""

from __future__ import annotations

from typing import Any

from devices.instruments.sentence import Sentence, opt_float
from devices.readings import GON_PER_DEG, InstrumentInfo, LengthUnit, RangefinderShot, ShotKind

NO_VALUE_LASERACE = 9999.99
"""Trimble LaserAce placeholder for a value it did not measure."""


def _unit(letter: str, name: str) -> LengthUnit | None:
    letter = letter.strip().upper()
    if not letter:
        return None
    try:
        return LengthUnit(letter)
    except ValueError as exc:
        raise ValueError(f"{name} unit {letter!r} is not F, Y or M") from exc


def _angle(value: str, unit: str, name: str) -> float | None:
    number = opt_float(value, name)
    if number is None:
        return None
    unit = unit.strip().upper()
    if unit in ("D", ""):
        return number
    if unit == "G":
        return number / GON_PER_DEG
    raise ValueError(f"{name} unit {unit!r} is not D (degrees) or G (gons)")


def _tp_low_quality(text: str) -> bool:
    """TruPulse: a two-decimal distance whose last digit is 1 flags a low-quality target."""
    text = text.strip()
    whole, dot, frac = text.partition(".")
    return bool(dot) and len(frac) == 2 and frac[-1] == "1"


def _hv_like(
    s: Sentence,
    protocol: str,
    raw: bytes,
    t: float,
    *,
    no_value: float | None = None,
    quality_flag: bool = False,
) -> RangefinderShot:
    f = list(s.fields) + [""] * 10
    kind = ShotKind(f[0])
    hd_text, hd_unit_text, az_text, az_unit, inc_text, inc_unit = f[1:7]
    rest = [x for x in f[7:] if x != ""] if no_value is not None else f[7:9]
    sd_text = f[7]
    sd_unit_text = next((x for x in rest if x.strip().isalpha()), "")

    def dist(text: str, name: str) -> float | None:
        value = opt_float(text, name)
        if value is not None and no_value is not None and abs(value - no_value) < 1e-9:
            return None
        return value

    hd = dist(hd_text, "horizontal distance")
    sd = dist(sd_text, "slope distance")
    hd_unit = _unit(hd_unit_text, "horizontal distance")
    sd_unit = _unit(sd_unit_text, "slope distance")
    units = hd_unit or sd_unit
    if hd is not None and hd_unit is None or sd is not None and sd_unit is None:
        raise ValueError(f"distance without unit letter in {s.text!r}")
    if sd is not None and units is not None and sd_unit is not units:
        sd = units.from_ft(sd_unit.to_ft(sd))  # type: ignore[union-attr]
    low = quality_flag and any(
        v is not None and _tp_low_quality(txt) for v, txt in ((hd, hd_text), (sd, sd_text))
    )
    return RangefinderShot.build(
        kind=kind,
        protocol=protocol,
        units=units,
        horizontal=hd,
        slope=sd,
        inclination_deg=_angle(inc_text, inc_unit, "inclination"),
        azimuth_deg=_angle(az_text, az_unit, "azimuth"),
        low_quality=low,
        raw=raw,
        t_monotonic_s=t,
    )


def parse_pltit(s: Sentence, raw: bytes, t: float) -> RangefinderShot | InstrumentInfo | None:
    """Laser Technology TruPulse ``$PLTIT`` (HV, ML, HT, ID). Source: TruPulse 200 manual §8."""
    if not s.fields:
        raise ValueError("empty $PLTIT sentence")
    msg = s.fields[0]
    if msg in ("HV", "ML"):
        return _hv_like(s, "trupulse", raw, t, quality_flag=True)
    if msg == "HT":
        f = list(s.fields) + ["", ""]
        height = opt_float(f[1], "height")
        if height is None:
            return None
        return RangefinderShot.build(
            kind=ShotKind.HT,
            protocol="trupulse",
            units=_unit(f[2], "height"),
            height=height,
            low_quality=_tp_low_quality(f[1]),
            raw=raw,
            t_monotonic_s=t,
        )
    if msg == "ID":
        f = list(s.fields) + ["", ""]
        return InstrumentInfo(
            model=f[1], firmware=f[2], protocol="trupulse", raw=raw, t_monotonic_s=t
        )
    raise ValueError(f"$PLTIT message {msg!r} is not HV, HT, ML or ID")


def parse_ptnla(s: Sentence, raw: bytes, t: float) -> RangefinderShot:
    """Trimble LaserAce ``$PTNLA,HV`` (9999.99 = no value)."""
    if not s.fields or s.fields[0] != "HV":
        raise ValueError(f"$PTNLA message {s.fields[:1]} is not HV")
    return _hv_like(s, "laserace-trimble", raw, t, no_value=NO_VALUE_LASERACE)


def parse_pmdla(s: Sentence, raw: bytes, t: float) -> RangefinderShot:
    """MDL LaserAce ``$PMDLA,HV`` (angles in degrees ``D`` or gons ``G``)."""
    if not s.fields or s.fields[0] != "HV":
        raise ValueError(f"$PMDLA message {s.fields[:1]} is not HV")
    return _hv_like(s, "laserace-mdl", raw, t, no_value=NO_VALUE_LASERACE)


def parse_hvv(s: Sentence, raw: bytes, t: float) -> RangefinderShot:
    """Haglöf Vertex Laser Geo ``$PHGF,HVV`` (HD, AZ, pitch, SD, height, remote diameter cm)."""
    f = list(s.fields) + [""] * 14
    shot = _hv_like(
        Sentence(s.address, ("HV", *s.fields[1:9]), s.text, s.has_checksum), "vertex", raw, t
    )
    height = opt_float(f[9], "height")
    h_unit = _unit(f[10], "height") or shot.units_sent or LengthUnit.METRES
    height_ft = None if height is None else h_unit.to_ft(height)
    dia = opt_float(f[11], "diameter")
    if f[12].strip().upper() not in ("CM", ""):
        raise ValueError(f"diameter unit {f[12]!r} is not CM")
    return _replace(
        shot,
        height_ft=height_ft,
        height_m=None if height_ft is None else height_ft * 0.3048,
        diameter_cm=dia if dia else None,
    )


def _replace(shot: RangefinderShot, **changes: Any) -> RangefinderShot:
    import dataclasses

    return dataclasses.replace(shot, **changes)
