"""Checks for incoming values: type, finite, in range, named in the message (``InvalidValue``).

Types are strict: a number must be a real number (``int``/``float``/numpy number — never a
``bool`` and never text such as ``"12"``), a yes/no must be a ``bool`` (``"no"`` is refused, not
read as True), text must be ``str`` without control characters and within a length cap.

Limits (documented choices, all refused with ``InvalidValue`` naming the field):

- DBH: :data:`MIN_DBH_IN` (0.1 in; a caliper's resolution, below it is a slip of the decimal
  point) to :data:`MAX_DBH_IN` (500 in).
- a horizontal / slope distance of one station or offset shot: at most
  :data:`MAX_HORIZONTAL_FT` (5,000 ft, beyond any field rangefinder shot).
- a polygon (area feature or drawn crown): at least :data:`MIN_AREA_SQFT` (1 sq ft ground);
  smaller is a degenerate ring (collinear or repeated vertices), not a feature.
- ids that name a record (``uuid`` and the references ``line_uuid``, ``transect_uuid``,
  ``walk_uuid``, ``area_uuid``): a UUID in its canonical text form (:func:`uuid_text`).
- codes (species code, reading ids): :data:`MAX_CODE_LEN` (64) characters; names and labels:
  :data:`MAX_NAME_LEN` (200); free notes: :data:`MAX_TEXT_LEN` (100,000, line breaks and tabs
  allowed). No other control characters (NUL, escape, …) anywhere.
"""

from __future__ import annotations

import math
import numbers
import unicodedata
import uuid as uuidlib
from typing import NoReturn

from .errors import InvalidValue

# Largest credible DBH: the largest living trees are ~11 m in diameter at breast height
# (~430 in); anything above 500 in is a typing or instrument error.
MAX_DBH_IN = 500.0
MIN_DBH_IN = 0.1
MAX_SLOPE_DEG = 89.0
MAX_CROWN_RADIUS_FT = 200.0
MAX_HORIZONTAL_FT = 5000.0
MIN_AREA_SQFT = 1.0
MAX_CODE_LEN = 64
MAX_NAME_LEN = 200
MAX_TEXT_LEN = 100_000


def finite(name: str, value: object) -> float:
    """``value`` as a float; refuse None, bools, text, other non-numbers, NaN and infinity."""
    if type(value) is float and math.isfinite(value):  # fast path: the common case
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidValue(name, f"must be a number, got {value!r} ({type(value).__name__})")
    try:
        v = float(value)
    except (TypeError, ValueError, OverflowError) as exc:  # e.g. a huge Fraction
        raise InvalidValue(name, f"must be a finite number, got {value!r}") from exc
    if not math.isfinite(v):
        raise InvalidValue(name, f"must be finite, got {value!r}")
    return v


def integer(name: str, value: object, low: float = -math.inf, high: float = math.inf) -> int:
    """``value`` as an int in [low, high]; refuse bools, floats, text."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidValue(name, f"must be a whole number, got {value!r} ({type(value).__name__})")
    v = int(value)
    if not low <= v <= high:
        raise InvalidValue(name, f"{v!r} outside [{low}, {high}]")
    return v


def boolean(name: str, value: object) -> bool:
    """``value`` if it is a ``bool`` (numpy bool too); refuse anything else ("no", 0, None)."""
    if isinstance(value, bool):
        return value
    if type(value).__name__ == "bool_" and type(value).__module__ == "numpy":
        return bool(value)
    raise InvalidValue(name, f"must be True or False, got {value!r} ({type(value).__name__})")


def optional_boolean(name: str, value: object) -> bool | None:
    return None if value is None else boolean(name, value)


def optional_finite(name: str, value: object) -> float | None:
    return None if value is None else finite(name, value)


def in_range(name: str, value: object, low: float, high: float, *, low_open: bool = False) -> float:
    """Finite and ``low <= value <= high`` (``low < value`` when ``low_open``)."""
    v = finite(name, value)
    if (v <= low if low_open else v < low) or v > high:
        lo = "(" if low_open else "["
        err = InvalidValue(name, f"{v!r} outside {lo}{low}, {high}]")
        err.limits = (low, high, low_open)    # for the UI's words (fieldapp.app.wording)
        raise err
    return v


def non_negative(name: str, value: object) -> float:
    return in_range(name, value, 0.0, math.inf)


def positive(name: str, value: object) -> float:
    return in_range(name, value, 0.0, math.inf, low_open=True)


def azimuth(name: str, value: object) -> float:
    """Finite azimuth in degrees, normalised to [0, 360)."""
    return finite(name, value) % 360.0


def slope_pct_from(slope_pct: object = None, slope_deg: object = None, *, name: str = "slope") -> float:
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


_MULTILINE_OK = frozenset("\n\r\t")


def text(name: str, value: object, *, allow_empty: bool = True, max_len: int = MAX_NAME_LEN,
         multiline: bool = False) -> str:
    """Text (None → ""): a ``str`` of at most ``max_len`` characters without control characters
    (line breaks and tabs allowed when ``multiline``) or unpaired surrogates."""
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise InvalidValue(name, f"must be text, got {type(value).__name__}")
    if len(value) > max_len:
        raise InvalidValue(name, f"is {len(value)} characters long; at most {max_len}")
    if value.isprintable():  # fast path: no control characters at all
        return value if allow_empty or value.strip() else _empty(name)
    for i, ch in enumerate(value):
        if ch.isprintable() or ch == " ":
            continue
        if multiline and ch in _MULTILINE_OK:
            continue
        cat = unicodedata.category(ch)
        if cat in ("Cc", "Cs") or (cat == "Zl" or cat == "Zp") and not multiline:
            raise InvalidValue(name, f"has a control character {ch!r} at position {i}")
    if not allow_empty and not value.strip():
        raise InvalidValue(name, "must not be empty")
    return value


def _empty(name: str) -> NoReturn:
    raise InvalidValue(name, "must not be empty")


def optional_text(name: str, value: object, *, allow_empty: bool = True, max_len: int = MAX_NAME_LEN,
                  multiline: bool = False) -> str | None:
    return None if value is None else text(name, value, allow_empty=allow_empty, max_len=max_len,
                                           multiline=multiline)


def uuid_text(name: str, value: object) -> str:
    """``value`` if it is a UUID in canonical text form; InvalidValue naming ``name`` otherwise.

    Canonical form (RFC 9562 §4): 36 characters, lowercase hex digits in groups 8-4-4-4-12
    joined by hyphens, as ``str(uuid.UUID(...))`` writes it (the model makes them with
    ``uuid.uuid4()``). Any version is accepted; braces (``{…}``, as QGIS's ``uuid()`` writes),
    upper case, a ``urn:uuid:`` prefix or missing hyphens are refused, since records refer to
    each other by exact text and two spellings of one UUID would be two different ids.
    Parsed by the standard library's :class:`uuid.UUID`.
    """
    if not isinstance(value, str):
        raise InvalidValue(name, f"must be a UUID as text, got {type(value).__name__}")
    try:
        canonical = len(value) == 36 and str(uuidlib.UUID(value)) == value
    except ValueError:
        canonical = False
    if not canonical:
        shown = repr(value) if len(value) <= 60 else repr(value[:57]) + "..."
        raise InvalidValue(name, f"{shown} is not a UUID in canonical form "
                                 "(lowercase hex 8-4-4-4-12, e.g. 0f8fad5b-d9cb-469f-a165-70867728950e)")
    return value
