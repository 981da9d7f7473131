"""Checks for incoming values: finite, in range, named in the message (raise ``InvalidValue``)."""

from __future__ import annotations

import math

from .errors import InvalidValue

# Largest credible DBH: the largest living trees are ~11 m in diameter at breast height
# (~430 in); anything above 500 in is a typing or instrument error.
MAX_DBH_IN = 500.0
MAX_SLOPE_DEG = 89.0
MAX_CROWN_RADIUS_FT = 200.0


def finite(name: str, value) -> float:
    """``value`` as a float; refuse None, non-numbers, NaN and infinity."""
    if isinstance(value, bool) or value is None:
        raise InvalidValue(name, f"must be a number, got {value!r}")
    try:
        v = float(value)
    except (TypeError, ValueError) as exc:
        raise InvalidValue(name, f"must be a number, got {value!r}") from exc
    if not math.isfinite(v):
        raise InvalidValue(name, f"must be finite, got {value!r}")
    return v


def optional_finite(name: str, value) -> float | None:
    return None if value is None else finite(name, value)


def in_range(name: str, value, low: float, high: float, *, low_open=False) -> float:
    """Finite and ``low <= value <= high`` (``low < value`` when ``low_open``)."""
    v = finite(name, value)
    if (v <= low if low_open else v < low) or v > high:
        lo = "(" if low_open else "["
        raise InvalidValue(name, f"{v!r} outside {lo}{low}, {high}]")
    return v


def non_negative(name: str, value) -> float:
    return in_range(name, value, 0.0, math.inf)


def positive(name: str, value) -> float:
    return in_range(name, value, 0.0, math.inf, low_open=True)


def azimuth(name: str, value) -> float:
    """Finite azimuth in degrees, normalised to [0, 360)."""
    return finite(name, value) % 360.0


def slope_pct_from(slope_pct=None, slope_deg=None, *, name="slope") -> float:
    """Slope in percent from either form; refuse slopes steeper than ±89°.

    Percent = 100·tan(deg) (rules-contract ``horizontal-distance``).
    """
    if (slope_pct is None) == (slope_deg is None):
        raise InvalidValue(name, "give exactly one of slope_pct or slope_deg")
    if slope_deg is not None:
        deg = in_range(f"{name}_deg", slope_deg, -MAX_SLOPE_DEG, MAX_SLOPE_DEG)
        return 100.0 * math.tan(math.radians(deg))
    pct = finite(f"{name}_pct", slope_pct)
    if abs(math.degrees(math.atan(pct / 100.0))) > MAX_SLOPE_DEG + 1e-9:
        raise InvalidValue(f"{name}_pct", f"{pct!r} % is steeper than ±{MAX_SLOPE_DEG}°")
    return pct


def text(name: str, value, *, allow_empty=True) -> str:
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise InvalidValue(name, f"must be text, got {type(value).__name__}")
    if not allow_empty and not value.strip():
        raise InvalidValue(name, "must not be empty")
    return value
