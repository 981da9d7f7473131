"""Azimuths in one convention: stored and shown true, a compass (magnetic) reading kept beside
the true one with the declination applied, and each named by its north wherever it is written.

>>> class S: azimuth_mag_deg, declination_deg, distance_ft = 350.0, -1.18, 30.0
>>> shot_true_deg(S())
348.82
>>> off_line_deg(S(), 350.0)
-1.18
>>> shot_words(S(), 350.0)
'shot at 350.0° magnetic + declination -1.18° = 348.8° true, 1.2° off the line (350.0° true)'
"""

from __future__ import annotations

from typing import Any

#: A compass shot further off its transect's line than this (degrees) is said to be off it.
OFF_LINE_DEG = 0.5


def shot_true_deg(record: Any) -> float | None:
    """The true azimuth of a compass shot (``azimuth_mag_deg`` + ``declination_deg``, [0, 360)),
    None for a record without a magnetic reading (typed true)."""
    mag = getattr(record, "azimuth_mag_deg", None)
    if mag is None:
        return None
    decl = getattr(record, "declination_deg", None) or 0.0
    return round((float(mag) + float(decl)) % 360.0, 6)


def off_line_deg(record: Any, line_true_deg: float) -> float | None:
    """How far (degrees, signed, -180..180; + clockwise) a compass shot ran off a line of
    ``line_true_deg`` true; None without a magnetic reading."""
    shot = shot_true_deg(record)
    if shot is None:
        return None
    return round((shot - float(line_true_deg) + 180.0) % 360.0 - 180.0, 6)


def shot_words(record: Any, line_true_deg: float | None = None) -> str:
    """What was measured and what was applied: ``"shot at 350.0° magnetic + declination -1.18° =
    348.8° true"``, and how far off the line when it is more than :data:`OFF_LINE_DEG`;
    "" for a record typed true."""
    shot = shot_true_deg(record)
    if shot is None:
        return ""
    decl = getattr(record, "declination_deg", None) or 0.0
    words = (f"shot at {record.azimuth_mag_deg:.1f}° magnetic + declination {decl:+.2f}° = "
             f"{shot:.1f}° true")
    off = off_line_deg(record, line_true_deg) if line_true_deg is not None else None
    if off is not None and abs(off) > OFF_LINE_DEG:
        words += f", {abs(off):.1f}° off the line ({line_true_deg:.1f}° true)"
    return words


__all__ = ["OFF_LINE_DEG", "off_line_deg", "shot_true_deg", "shot_words"]
