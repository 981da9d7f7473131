"""The one shared tolerance helper for every threshold comparison in the rules.

The texts say "12 % or greater", "more than 50 feet", "less than 12 %". Field numbers pass
through unit conversions (degrees, slope distances, station differences), so a value that is
12 % on paper may arrive as 11.9999999. The contract (``rules-contract.md``, Precise points)
fixes one tolerance, :data:`TOLERANCE` = 1e-6, in the units of the quantity compared:

- "X or greater": ``value >= X - 1e-6`` (:func:`at_least`)
- "more than X": ``value > X + 1e-6`` (:func:`more_than`)
- "less than X": ``value < X - 1e-6`` (:func:`less_than`)
- "X or less" (the negation of "more than"): ``value <= X + 1e-6`` (:func:`at_most`)

No rule compares a measured value with a threshold in any other way.

The value is compared as the result shows it: rounded to
:data:`fieldapp.rules.results.RESULT_DECIMALS` places (6), as is the limit with the tolerance.
Compared unrounded, a distance of 20.0000012 ft was "outside" the 20 ft limit (more than
20.000001) while the result showed it as 20.000001 ft, which the same rule calls inside; and a
distance of 20.0000009 ft, shown the same, was inside.

Examples
--------
>>> at_least(11.9999999, 12.0)
True
>>> more_than(50.0000005, 50.0)
False
>>> less_than(11.99, 12.0)
True
"""

from __future__ import annotations

from fieldapp.rules.results import RESULT_DECIMALS

__all__ = ["TOLERANCE", "at_least", "at_most", "less_than", "more_than"]

TOLERANCE = 1e-6


def _shown(value: float) -> float:
    """``value`` as a result shows it (:data:`RESULT_DECIMALS` places, correctly rounded)."""
    return round(value, RESULT_DECIMALS)


def at_least(value: float, limit: float) -> bool:
    """True when ``value`` is ``limit`` or greater ("X or greater"), within 1e-6."""
    return _shown(value) >= _shown(limit - TOLERANCE)


def more_than(value: float, limit: float) -> bool:
    """True when ``value`` is more than ``limit`` ("more than X", "exceeding X"), beyond 1e-6."""
    return _shown(value) > _shown(limit + TOLERANCE)


def less_than(value: float, limit: float) -> bool:
    """True when ``value`` is less than ``limit`` ("less than X"), beyond 1e-6."""
    return _shown(value) < _shown(limit - TOLERANCE)


def at_most(value: float, limit: float) -> bool:
    """True when ``value`` is ``limit`` or less (not :func:`more_than`), within 1e-6."""
    return _shown(value) <= _shown(limit + TOLERANCE)
