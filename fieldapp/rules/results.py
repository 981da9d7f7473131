"""Result types shared by every rule, and the package's exception tree.

Every rule returns a frozen dataclass derived from :class:`RuleResult`: the rule id, the
:class:`Status`, the citation of the paragraph that decided it, the interpretation ids the
evaluation relied on, and (for ``needs_data``) ``next_step`` in words. ``to_dict()`` gives the
JSON result of ``rules-contract.md``: tuples become lists, enums their value, nested results
dicts, and every float is rounded to :data:`RESULT_DECIMALS` decimal places (6): the same
bytes on every platform (see the package docstring, "Precision of results").

Exceptions
----------
RulesError
    Base of everything this package raises on purpose.
RuleInputError(RulesError, ValueError)
    A missing, misspelt, wrong-type, negative or non-finite value. ``key`` names it as a path
    (``"segments[3].slope_pct"`` from the Python API, ``"input.segments[3].slope_pct"`` from
    :func:`fieldapp.rules.evaluate`); ``message`` says what is wrong.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, TypeVar

from fieldapp.rules.readings import READINGS

__all__ = ["RESULT_DECIMALS", "RuleInputError", "RuleResult", "RulesError", "Status", "error_result",
           "from_request", "ordered", "result_float"]

R = TypeVar("R", bound="RuleResult")


class RulesError(Exception):
    """Base class of the rules package's exceptions."""


class RuleInputError(RulesError, ValueError):
    """A bad input value, named by its key path.

    Parameters
    ----------
    key : str
        Path of the offending value, e.g. ``"features[0].type"``.
    message : str
        What is wrong, in words, naming the key.
    """

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"{key}: {message}" if key else message)
        self.key = key
        self.message = message

    def under(self, prefix: str) -> RuleInputError:
        """The same error with ``prefix`` put before its key (``"input"`` + ``"a"`` -> ``"input.a"``)."""
        key = f"{prefix}.{self.key}" if self.key and not self.key.startswith("[") else f"{prefix}{self.key}"
        return RuleInputError(key, self.message)


class Status(str, enum.Enum):
    """How far the inputs settle a rule (``rules-contract.md``, Common shape)."""

    DETERMINED = "determined"
    NEEDS_DATA = "needs_data"
    EXEMPT = "exempt"
    ERROR = "error"


#: Decimal places of every float in a contract result (:meth:`RuleResult.to_dict`): 1e-6 ft,
#: sq ft, acre, percent or degree. The platform's maths library may differ in the last bit
#: (4556.63509011086 on Linux, 4556.635090110862 on Windows): rounded, both are 4556.63509, so
#: an office re-running a laptop's requests gets the same bytes. It moves a number by at most
#: 5e-7; every threshold comparison (:mod:`fieldapp.rules.compare`) compares the number rounded
#: so, with its 1e-6 tolerance, so a shown number never contradicts its verdict.
RESULT_DECIMALS = 6


def result_float(value: float) -> float:
    """``value`` rounded to :data:`RESULT_DECIMALS` places (correctly rounded from its exact
    binary value, so the same on every platform); -0.0 becomes 0.0; NaN and infinities are
    left for :func:`fieldapp.rules.evaluate` to refuse.

    >>> result_float(4556.63509011086), result_float(4556.635090110862)
    (4556.63509, 4556.63509)
    >>> result_float(40.00000000000001), result_float(-1e-9)
    (40.0, 0.0)
    """
    return round(value, RESULT_DECIMALS) + 0.0


def _plain(value: Any) -> Any:
    if isinstance(value, float):   # numpy's float64 too (a float subclass): rounded as a float
        return result_float(float(value))
    if isinstance(value, enum.Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (tuple, list)):
        if all(type(v) is float for v in value):
            return [result_float(v) for v in value]
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


@dataclasses.dataclass(frozen=True, kw_only=True)
class RuleResult:
    """Fields every rule result carries.

    Attributes
    ----------
    rule : str
        The rule id, e.g. ``"nr341.bank"``.
    status : Status
        ``determined``, ``needs_data`` or ``exempt`` (errors are raised, or returned as dicts by
        :func:`fieldapp.rules.evaluate`).
    citation : str
        The paragraph that decided the result, e.g. ``"NR 341.035(1)(a)"``.
    interpretations : tuple of str
        Ids of the readings (``rules-contract.md``) the evaluation relied on.
    next_step : str or None
        For ``needs_data``: what to measure next, in words; else None.
    """

    rule: str
    status: Status
    citation: str
    interpretations: tuple[str, ...] = ()
    next_step: str | None = None

    @property
    def settled(self) -> bool:
        """True when the inputs settle the rule (status ``determined`` or ``exempt``)."""
        return self.status in (Status.DETERMINED, Status.EXEMPT)

    @property
    def interpretation_text(self) -> dict[str, str]:
        """Each interpretation id used -> its sentence (:data:`fieldapp.rules.readings.READINGS`),
        in the order of ``interpretations``; empty when no reading applied."""
        return {i: READINGS[i] for i in self.interpretations}

    def to_dict(self) -> dict[str, Any]:
        """The JSON result of the contract: plain dicts, lists, floats, ints, bools, None; with
        ``interpretation_text`` (id -> sentence of each reading used) after the fields. Every
        float is rounded to :data:`RESULT_DECIMALS` places (:func:`result_float`); the result's
        attributes keep the unrounded numbers."""
        out: dict[str, Any] = _plain(self)
        out["interpretation_text"] = self.interpretation_text
        return out


def error_result(rule: Any, key: str, message: str) -> dict[str, Any]:
    """The contract's error result: ``{"rule", "status": "error", "key", "message"}``."""
    return {"rule": rule, "status": Status.ERROR.value, "key": key, "message": message}


def ordered(used: Collection[str], order: Sequence[str]) -> tuple[str, ...]:
    """The interpretation ids of ``used`` in the module's fixed ``order`` (for ``interpretations``).

    >>> ordered({"b", "a"}, ("a", "b", "c"))
    ('a', 'b')
    """
    return tuple(x for x in order if x in used)


def from_request(
    read: Callable[[Mapping[str, Any], str], R], rule: str, keys: str = ""
) -> Callable[[Mapping[str, Any], Mapping[str, Any]], R]:
    """The contract handler ``(input, settings) -> result`` of a rule that reads one mapping.

    ``read(m, where)`` is the rule's reader (``_wetland_size``, ...), shared with its typed API
    (which passes ``where=""``); the handler reads the request's ``input`` with ``where="input"``,
    so error keys start ``input.``, and ignores ``settings``. Its name is the reader's without
    the underscore, plus ``_from_request`` (``wetland_size_from_request``).

    Parameters
    ----------
    read : callable
        ``read(mapping, where) -> RuleResult``; raises :class:`RuleInputError`.
    rule : str
        The rule id, for the handler's docstring.
    keys : str
        Words on the input keys for the docstring, e.g. ``" (slope_pct or slope_deg)"``.
    """

    def handler(input: Mapping[str, Any], settings: Mapping[str, Any]) -> R:
        return read(input, "input")

    handler.__name__ = handler.__qualname__ = f"{read.__name__.lstrip('_')}_from_request"
    handler.__doc__ = f"``{rule}`` from the contract's ``input``{keys}."
    return handler
