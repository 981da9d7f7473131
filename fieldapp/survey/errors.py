"""Errors of the survey model.

``SurveyError`` (base)
    ``InvalidValue`` (also ``ValueError``)  an impossible or non-finite input; ``.name`` names it.
    ``NotFound`` (also ``KeyError``)        no feature with that uuid in that layer.
    ``StateError``                          the command does not fit the current state (e.g.
                                            changing the CRS after geometry is recorded).
    ``NotEnoughEpochs``                     averaging got fewer usable epochs than required.
    ``SelfCrossing``                        a walked boundary crosses itself; ``.crossings``
                                            lists the crossing points, ``.repaired`` the repair.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the type only: shapely is not loaded for an error class
    from shapely.geometry import MultiPolygon


class SurveyError(Exception):
    """Base of the survey model's errors."""


class InvalidValue(SurveyError, ValueError):
    """An impossible value; ``name`` is the argument or field that was refused."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(f"{name}: {message}")
        self.name = name
        self.message = message
        #: (low, high, low_open) when the value was outside a range, else None
        self.limits: tuple[float, float, bool] | None = None


class NotFound(SurveyError, KeyError):
    """No feature with that uuid."""

    def __str__(self) -> str:  # KeyError quotes its argument; keep the message readable
        return str(self.args[0]) if self.args else "not found"


class StateError(SurveyError):
    """The command cannot run in the model's current state."""


class NotEnoughEpochs(SurveyError):
    """Fewer usable GNSS epochs than the point needs; ``accepted``/``rejected`` counts attached."""

    def __init__(self, message: str, accepted: int, rejected: int) -> None:
        super().__init__(message)
        self.accepted = accepted
        self.rejected = rejected


class SelfCrossing(SurveyError):
    """A walked boundary crosses itself.

    Attributes
    ----------
    crossings : list of (x, y)
        Where the ring crosses itself (site CRS units).
    repaired : shapely geometry
        The ``make_valid`` repair that keeps every lobe (a MultiPolygon), for the user to accept.
    """

    def __init__(self, message: str, crossings: list[tuple[float, float]], repaired: MultiPolygon) -> None:
        super().__init__(message)
        self.crossings = crossings
        self.repaired = repaired
