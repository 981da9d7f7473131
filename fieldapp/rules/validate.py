"""Reading plain request values with errors that name the key.

Every rule reads its input with these helpers, so that a missing, misspelt, wrong-type,
negative or non-finite value raises :class:`~fieldapp.rules.results.RuleInputError` whose
``key`` is the path of the value (``"segments[3].slope_pct"``). Unknown extra keys are ignored,
but when a required key is missing a near-miss spelling among the keys present is named in the
message ("found 'slope_pc': misspelt?").

``where`` is the path of the mapping being read ("" at the top of the input).

Plausibility limits
-------------------
Every number is also refused, naming its key, when its size is beyond what any site measures,
so that no arithmetic on accepted values can overflow a float (largest 1.8e308) and every
result number stays finite (JSON has no infinity):

:data:`MAX_FT` = 1e9 ft
    Lengths, widths, heights, elevations and coordinates in feet (keys ending ``_ft``, or read
    with ``unit=" ft"``). 1e9 ft is about 190,000 miles, more than 7 times round the Earth;
    projected coordinates in feet (state plane, UTM) stay below 1e8 ft. Squared (areas of
    polygons) and summed over millions of segments this stays below 1e25.
:data:`MAX_VALUE` = 1e15
    Every other number: sq ft (1e15 sq ft is 36 million square miles), acres, cu yd, cu ft,
    percent (a slope of 1e15 % is within 1e-13 degree of vertical), inches, counts.

There is no lower limit: a tiny positive value that would make a result infinite (a
clinometer distance of 1e-320 ft) is caught on the result by :func:`finite_result`, which
names the input responsible.
"""

from __future__ import annotations

import difflib
import math
import reprlib
from collections.abc import Mapping, Sequence
from typing import Any, Literal, overload

import shapely

from fieldapp.rules.results import RuleInputError

__all__ = [
    "MAX_FT",
    "MAX_VALUE",
    "boolean",
    "choice",
    "finite_result",
    "join",
    "mapping",
    "number",
    "number_of",
    "one_of",
    "point_ft",
    "points_ft",
    "polygon_ft",
    "sequence",
]

_MISSING = object()

#: Plausibility limits (see the module docstring): feet, and every other number.
MAX_FT = 1e9
MAX_VALUE = 1e15


def join(where: str, key: str | int) -> str:
    """The path of ``key`` inside ``where``: ``join("a", "b") == "a.b"``, ``join("a", 2) == "a[2]"``."""
    if isinstance(key, int):
        return f"{where}[{key}]"
    return f"{where}.{key}" if where else key


def _missing(m: Mapping[str, Any], key: str, where: str, what: str = "") -> RuleInputError:
    near = difflib.get_close_matches(key, [k for k in m if isinstance(k, str)], n=1, cutoff=0.75)
    hint = f" (found {near[0]!r}: misspelt?)" if near and near[0] != key else ""
    return RuleInputError(join(where, key), f"missing required key {key!r}{what}{hint}")


def mapping(value: Any, where: str) -> Mapping[str, Any]:
    """``value`` if it is a JSON object (a mapping), else a :class:`RuleInputError` naming ``where``."""
    if not isinstance(value, Mapping):
        raise RuleInputError(where, f"{where or 'value'} must be an object, got {_kind(value)}")
    return value


@overload
def sequence(m: Mapping[str, Any], key: str, where: str, *, required: Literal[True] = True) -> Sequence[Any]: ...
@overload
def sequence(m: Mapping[str, Any], key: str, where: str, *, required: bool) -> Sequence[Any] | None: ...
def sequence(m: Mapping[str, Any], key: str, where: str, *, required: bool = True) -> Sequence[Any] | None:
    """The list at ``m[key]`` (None when absent, or null, and not required).

    Raises
    ------
    RuleInputError
        Missing when required (naming a near-miss spelling), or not a list (a string is not).
    """
    value = m.get(key, _MISSING)
    if value is _MISSING or (value is None and not required):
        if required:
            raise _missing(m, key, where)
        return None
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise RuleInputError(join(where, key), f"{key} must be a list, got {_kind(value)}")
    return value


def number_of(
    value: Any,
    key: str,
    *,
    nonnegative: bool = True,
    positive: bool = False,
    maximum: float | None = None,
    unit: str = "",
) -> float:
    """Check one number already taken out of its mapping; ``key`` is its full path.

    Besides the sign and ``maximum`` checks, the size is limited to :data:`MAX_FT` for feet
    (``unit`` " ft" or a key ending ``_ft``) and :data:`MAX_VALUE` otherwise.

    Raises
    ------
    RuleInputError
        Not a number (bools are not), too large for a float, NaN or infinite, not positive
        (``positive``), negative (``nonnegative``), more than ``maximum``, or beyond the limit.

    >>> number_of(3, "a.b_ft")
    3.0
    """
    if type(value) is not float and type(value) is not int:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise RuleInputError(key, f"{_leaf(key)} must be a number, got {_kind(value)}")
    limit = MAX_FT if unit.strip() == "ft" or _leaf(key).endswith("_ft") else MAX_VALUE
    try:
        x = float(value)
    except OverflowError:
        digits = int(abs(int(value)).bit_length() * math.log10(2)) + 1  # only an int overflows a float
        raise RuleInputError(
            key, f"{_leaf(key)} is out of range: a number of about {digits} digits; at most {limit:g}{unit} in size "
                 "is accepted (more than any site measures)") from None
    if not math.isfinite(x):
        raise RuleInputError(key, f"{_leaf(key)} must be a finite number, got {x}")
    if positive and x <= 0.0:
        raise RuleInputError(key, f"{_leaf(key)} must be more than 0{unit}, got {x:g}{unit}")
    if nonnegative and x < 0.0:
        raise RuleInputError(key, f"{_leaf(key)} must not be negative, got {x:g}{unit}")
    if maximum is not None and x > maximum:
        raise RuleInputError(key, f"{_leaf(key)} must be at most {maximum:g}{unit}, got {x:g}{unit}")
    if abs(x) > limit:
        raise RuleInputError(
            key, f"{_leaf(key)} is out of range: {x:g}{unit}; at most {limit:g}{unit} in size is accepted "
                 "(more than any site measures; check the units)")
    return x


def finite_result(value: float, key: str, what: str) -> float:
    """``value`` (a number computed from the inputs) if it is finite; else an error naming the
    input ``key`` responsible, saying that ``what`` would be infinite or undefined.

    Raises
    ------
    RuleInputError
    """
    if not math.isfinite(value):
        raise RuleInputError(key, f"{_leaf(key)} is out of range: {what} would be {value}")
    return value


@overload
def number(
    m: Mapping[str, Any],
    key: str,
    where: str,
    *,
    required: Literal[True] = True,
    nullable: Literal[False] = False,
    nonnegative: bool = True,
    positive: bool = False,
    maximum: float | None = None,
    unit: str = "",
) -> float: ...
@overload
def number(
    m: Mapping[str, Any],
    key: str,
    where: str,
    *,
    required: bool = True,
    nullable: bool = False,
    nonnegative: bool = True,
    positive: bool = False,
    maximum: float | None = None,
    unit: str = "",
) -> float | None: ...
def number(
    m: Mapping[str, Any],
    key: str,
    where: str,
    *,
    required: bool = True,
    nullable: bool = False,
    nonnegative: bool = True,
    positive: bool = False,
    maximum: float | None = None,
    unit: str = "",
) -> float | None:
    """The float at ``m[key]``.

    Parameters
    ----------
    required : bool
        A missing key is an error; otherwise it reads as None.
    nullable : bool
        An explicit ``null`` reads as None ("not measured yet"); otherwise it is an error.
    nonnegative, positive, maximum : bool, bool, float
        Range checks: lengths, areas and percentages are never negative.
    unit : str
        Unit suffix for the message, e.g. ``" ft"``.

    Raises
    ------
    RuleInputError
        Missing (when required), not a number (bools are not numbers), NaN or infinite, or out
        of range.
    """
    value = m.get(key, _MISSING)
    if value is _MISSING:
        if required:
            raise _missing(m, key, where)
        return None
    if value is None:
        if nullable or not required:
            return None
        raise RuleInputError(join(where, key), f"{key} must be a number, got null")
    return number_of(
        value, join(where, key), nonnegative=nonnegative, positive=positive, maximum=maximum, unit=unit
    )


@overload
def boolean(
    m: Mapping[str, Any], key: str, where: str, *, required: Literal[True] = True, nullable: Literal[False] = False,
    default: bool | None = None,
) -> bool: ...
@overload
def boolean(
    m: Mapping[str, Any], key: str, where: str, *, required: bool = True, nullable: Literal[False] = False,
    default: bool,
) -> bool: ...
@overload
def boolean(
    m: Mapping[str, Any], key: str, where: str, *, required: bool = True, nullable: bool = False,
    default: bool | None = None,
) -> bool | None: ...
def boolean(
    m: Mapping[str, Any], key: str, where: str, *, required: bool = True, nullable: bool = False,
    default: bool | None = None,
) -> bool | None:
    """The bool at ``m[key]``; ``default`` when absent and not required; None for null when nullable.

    Raises
    ------
    RuleInputError
        Missing when required, or not ``true``/``false`` (numbers are not booleans).
    """
    value = m.get(key, _MISSING)
    if value is _MISSING:
        if required:
            raise _missing(m, key, where)
        return default
    if value is None and (nullable or not required):
        return None if nullable else default
    if not isinstance(value, bool):
        raise RuleInputError(join(where, key), f"{key} must be true or false, got {_kind(value)}")
    return value


@overload
def choice(
    m: Mapping[str, Any], key: str, where: str, choices: Sequence[str], *, required: Literal[True] = True,
    default: str | None = None,
) -> str: ...
@overload
def choice(
    m: Mapping[str, Any], key: str, where: str, choices: Sequence[str], *, required: bool = True, default: str,
) -> str: ...
@overload
def choice(
    m: Mapping[str, Any], key: str, where: str, choices: Sequence[str], *, required: bool = True,
    default: str | None = None,
) -> str | None: ...
def choice(
    m: Mapping[str, Any], key: str, where: str, choices: Sequence[str], *, required: bool = True,
    default: str | None = None,
) -> str | None:
    """The string at ``m[key]``, which must be one of ``choices`` (``default`` when absent, or
    null, and not required).

    Raises
    ------
    RuleInputError
        Missing when required, or not one of ``choices`` (naming a likely one).
    """
    value = m.get(key, _MISSING)
    if value is _MISSING or (value is None and not required):
        if required:
            raise _missing(m, key, where)
        return default
    if value not in choices or not isinstance(value, str):
        listed = ", ".join(repr(c) for c in choices)
        near = []
        if isinstance(value, str) and value:
            near = [c for c in choices if c.startswith(value)] or difflib.get_close_matches(value, list(choices), n=1)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        raise RuleInputError(join(where, key), f"{key} must be one of {listed}, got {reprlib.repr(value)}{hint}")
    return value


@overload
def one_of(m: Mapping[str, Any], keys: Sequence[str], where: str, *, required: Literal[True] = True) -> str: ...
@overload
def one_of(m: Mapping[str, Any], keys: Sequence[str], where: str, *, required: bool) -> str | None: ...
def one_of(m: Mapping[str, Any], keys: Sequence[str], where: str, *, required: bool = True) -> str | None:
    """Which one of the alternative ``keys`` is present and not null (exactly one; None when
    none is and not required).

    Raises
    ------
    RuleInputError
        More than one given (naming the second), or none when required (naming the first).
    """
    present = [k for k in keys if m.get(k) is not None]
    if len(present) > 1:
        raise RuleInputError(
            join(where, present[1]), f"give one of {' or '.join(repr(k) for k in keys)}, not both"
        )
    if not present:
        if not required:
            return None
        err = _missing(m, keys[0], where, f" (or {' or '.join(repr(k) for k in keys[1:])})")
        raise err
    return present[0]


def point_ft(p: Any, where: str) -> tuple[float, float]:
    """One ``[x_ft, y_ft]`` point of a projected CRS in feet (each coordinate at most
    :data:`MAX_FT` in size, either sign).

    Raises
    ------
    RuleInputError
        Not a pair ("each point must be [x_ft, y_ft]", key ``where``), or a coordinate that is
        not a finite number in range (key ``where[0]`` or ``where[1]``).

    >>> point_ft([3, -4.5], "p")
    (3.0, -4.5)
    """
    if isinstance(p, (str, bytes)) or not isinstance(p, Sequence) or len(p) != 2:
        raise RuleInputError(where, "each point must be [x_ft, y_ft]")
    return (number_of(p[0], join(where, 0), nonnegative=False, unit=" ft"),
            number_of(p[1], join(where, 1), nonnegative=False, unit=" ft"))


def points_ft(ring: Any, where: str) -> list[tuple[float, float]]:
    """A list of :func:`point_ft` points (a ring or a line), ft.

    Raises
    ------
    RuleInputError
        ``ring`` is not a list ("must be a list of [x_ft, y_ft] points"), or a bad point.
    """
    if isinstance(ring, (str, bytes)) or not isinstance(ring, Sequence):
        raise RuleInputError(where, "must be a list of [x_ft, y_ft] points")
    return [point_ft(p, join(where, i)) for i, p in enumerate(ring)]


def polygon_ft(points: Sequence[tuple[float, float]], where: str, *, name: str | None = None) -> shapely.Polygon:
    """The polygon of a ring of points (ft), which must be valid and enclose an area.

    Parameters
    ----------
    points : sequence of (x_ft, y_ft)
        3 or more points, from :func:`points_ft`.
    where : str
        Key of the ring, named by every error.
    name : str, optional
        The key as the messages name it ("polygon_ft needs 3 or more points"); by default they
        say "a polygon" / "the polygon".

    Raises
    ------
    RuleInputError
        Fewer than 3 points, an invalid polygon (shapely's reason, e.g. a self-intersection),
        or no area (points in a line, or too close together).

    >>> polygon_ft([(0, 0), (10, 0), (10, 10)], "ring").area
    50.0
    """
    if len(points) < 3:
        raise RuleInputError(where, f"{name or 'a polygon'} needs 3 or more points, got {len(points)}")
    poly = shapely.Polygon(points)
    if not poly.is_valid:
        lead = f"{name} is not" if name else "not"
        raise RuleInputError(where, f"{lead} a valid polygon ({shapely.is_valid_reason(poly)})")
    if not poly.area > 0.0:
        raise RuleInputError(where, f"{name or 'the polygon'} encloses no area (its points are in a line, or too "
                                    "close together to measure)")
    return poly


def _leaf(key: str) -> str:
    return key.rsplit(".", 1)[-1]


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {value}".lower()
    if isinstance(value, str):
        return f"string {reprlib.repr(value)}"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, (list, tuple)):
        return "a list"
    return type(value).__name__
