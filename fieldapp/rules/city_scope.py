"""The city chapter's scope (General A): rule ``city.scope`` and the ``scope`` key of city rules.

General A: "With the exception of agricultural uses allowed in an A-1 district, resource
protection and site performance standards shall apply to all development in all districts."
Reading ``a1-agricultural-use``: the exception needs both the A-1 district (written ``A-1``,
``A1`` or ``a-1``: case, spaces and hyphens ignored) and an agricultural use; any other district
or use is under the standards.

Every city standard rule (``woodland.mitigation``, ``wetland.size``, ``drainageway``,
``development_area``, ``erosion_plan``, ``steep_slope``) takes an optional ``scope``
{``district``, ``use``} in its input: when it puts the site outside the chapter, the result is
``exempt`` (citation General A) instead of the rule's verdict (:func:`scoped`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from fieldapp.rules.city_tables import A1_AGRICULTURE, CITE
from fieldapp.rules.results import RuleInputError, RuleResult, Status, from_request
from fieldapp.rules.validate import join, mapping

__all__ = ["LAND_USES", "ScopeResult", "city_scope", "city_scope_from_request", "scoped"]

#: The uses the site form offers (``use``); only ``agricultural`` can be outside the chapter.
LAND_USES = ("agricultural", "residential", "nonresidential", "other")


@dataclasses.dataclass(frozen=True, kw_only=True)
class ScopeResult(RuleResult):
    """Result of ``city.scope`` (General A): ``applies`` (None while ``needs_data``)."""

    applies: bool | None
    district: str | None
    use: str | None


def _is_a1(district: str) -> bool:
    return "".join(c for c in district.lower() if c not in " -_") == "a1"


def _text(m: Mapping[str, Any], key: str, where: str) -> str | None:
    v = m.get(key)
    if v is None or (isinstance(v, str) and not v.strip()):
        return None
    if not isinstance(v, str):
        raise RuleInputError(join(where, key), f"{key} must be a string")
    return v.strip()


def _scope(m: Mapping[str, Any], where: str, rule: str = "city.scope") -> ScopeResult:
    district = _text(m, "district", where)
    use = _text(m, "use", where)
    if use is not None and use not in LAND_USES:
        raise RuleInputError(join(where, "use"), "use must be one of "
                             + ", ".join(repr(u) for u in LAND_USES) + f", got {use!r}")
    cite = f"{CITE}, General A"
    if use is not None and use != "agricultural":
        applies: bool | None = True
    elif district is not None and not _is_a1(district):
        applies = True
    elif district is None or use is None:
        missing = [w for w, v in (("the site's zoning district", district), ("the site's use", use)) if v is None]
        return ScopeResult(rule=rule, status=Status.NEEDS_DATA, citation=cite,
                           next_step="enter " + " and ".join(missing), applies=None, district=district, use=use)
    else:
        applies = False
    return ScopeResult(rule=rule, status=Status.DETERMINED if applies else Status.EXEMPT, citation=cite,
                       interpretations=(A1_AGRICULTURE,), applies=applies, district=district, use=use)


def city_scope(district: str | None, use: str | None) -> ScopeResult:
    """Rule ``city.scope``: do the chapter's standards apply to the site (General A)?

    Parameters
    ----------
    district : str or None
        The site's zoning district (``"A-1"``, ``"R-2"`` ...); None: not entered.
    use : {"agricultural", "residential", "nonresidential", "other"} or None

    Returns
    -------
    ScopeResult
        ``applies`` False and status ``exempt`` for an agricultural use in an A-1 district;
        True (``determined``) for any other use or district; ``needs_data`` while what would
        settle it is not entered.

    Raises
    ------
    RuleInputError
        ``use`` not one of the four; a value that is not a string.

    >>> city_scope("A-1", "agricultural").status.value, city_scope("R-1", "agricultural").applies
    ('exempt', True)
    """
    return _scope({"district": district, "use": use}, "")


def _city_scope(m: Mapping[str, Any], where: str) -> ScopeResult:
    return _scope(m, where)


#: ``city.scope`` from the contract's ``input``.
city_scope_from_request = from_request(_city_scope, "city.scope")

Handler = Callable[[Mapping[str, Any], Mapping[str, Any]], RuleResult]


def scoped(rule: str, handler: Handler) -> Handler:
    """``handler`` for ``rule`` that first reads the input's optional ``scope`` (General A):
    an agricultural use in an A-1 district gives an ``exempt`` :class:`ScopeResult` for
    ``rule``; otherwise (no scope, or the standards apply, or not settled) the rule's own result.

    Raises
    ------
    RuleInputError
        A bad ``scope`` (key ``input.scope...``), or the rule's own errors.
    """

    def run(input: Mapping[str, Any], settings: Mapping[str, Any]) -> RuleResult:
        if input.get("scope") is not None:
            where = join("input", "scope")
            s = _scope(mapping(input["scope"], where), where, rule)
            if s.status is Status.EXEMPT:
                return s
        return handler(input, settings)

    run.__name__ = run.__qualname__ = getattr(handler, "__name__", "handler")
    run.__doc__ = handler.__doc__
    return run
