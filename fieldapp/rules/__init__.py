"""The rules engine: every check in the three texts, as pure functions with reproducible verdicts.

No Qt, no storage, no clock: each rule is a pure function from plain values to a frozen result
(:class:`~fieldapp.rules.results.RuleResult`) carrying the verdict, the numbers, the citation and
the interpretation ids it relied on. :func:`evaluate` implements the JSON contract of
``rules-contract.md``; ``fieldapp rules evaluate FILE.json`` is its command line.

Modules, one per source
-----------------------
nr341
    NR 341.035 bank (``nr341.bank``); reading the transect in ``nr341_transect``
    ((2)(a), (2)(b)), the graded area (``nr341.graded_area``, (2)(d), (3)) in ``nr341_graded``,
    both importable from ``nr341``.
nr151
    NR 151.125 protective areas (``nr151.protective_area``) and vegetative cover
    (``nr151.vegetative_cover``).
city
    The city's resource-protection chapter: ``woodland.class``, ``woodland.mitigation``
    (``city_woodland``), ``wetland.size``, ``drainageway`` (``city_water``),
    ``development_area`` (``city_development``), ``erosion_plan``, ``steep_slope``,
    ``erodible_slope`` (``city_erosion``); its figures in ``city_tables``. Every name is
    importable from ``city``.
measure
    Slope distance to horizontal, degrees and percent, the clinometer (``slope.clinometer``).
compare
    The one tolerance helper (1e-6) behind every threshold comparison.
validate, results
    Reading request values (numbers, choices, points and polygons) with errors that name the
    key; the result base class, the exception tree, the contract handlers.
contract, cli
    :func:`evaluate` and the rule table; ``fieldapp rules ...``.

Units: which foot
-----------------
Lengths are feet (``_ft``), areas square feet (``_sqft``) or acres (``_ac``, 43,560 sq ft),
in the site's foot: the international foot (0.3048 m) unless the site CRS is in US survey
feet (1200/3937 m), as :class:`fieldapp.geo.SiteFrame` says. The rules do no unit
conversion: every function takes and returns the one foot its inputs are in, and compares
them with the texts' figures as written (75 ft, 10,000 sq ft). The two feet differ by 2 parts
per million (0.00015 ft in 75 ft), far below what a field measurement resolves.

Precision of results
--------------------
Every float of a JSON result (:func:`evaluate`, ``fieldapp rules evaluate``, the report's
``results-all.json``) is rounded to 6 decimal places (``results.RESULT_DECIMALS``): 1e-6 ft,
sq ft, acre, percent or degree, far below what a field measurement resolves. The platform's
maths library may differ in the last bit (the development-area example is 4556.63509011086 on
Linux, 4556.635090110862 on Windows); both are 4556.63509 in the result, so an office
re-running a laptop's requests gets the same bytes. Verdicts (status, booleans, classes) compare
the number as the result shows it, rounded, with the 1e-6 tolerance of
:mod:`~fieldapp.rules.compare`: a shown number never contradicts its verdict (compared
unrounded, 20.0000012 ft was outside a 20 ft limit, shown as 20.000001 ft, inside). The typed
results keep the unrounded
numbers. The JSON text is ASCII (``≥`` as ``\\u2265``), ``\\n`` line ends on every platform,
keys in the result's order (``contract.json_bytes``). Inputs are never rounded.

Exceptions
----------
In :mod:`~fieldapp.rules.results` (``RuleInputError`` is also importable from here):

RulesError
    └── RuleInputError (also a ValueError): a bad input value; ``key`` names it.
"""

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the names' real types for the type checker; at run time they load on first use
    from fieldapp.rules.city import (
        development_area,
        drainageway,
        erodible_slope,
        erosion_plan,
        steep_slope,
        wetland_size,
        woodland_class,
        woodland_mitigation,
    )
    from fieldapp.rules.contract import RULES, evaluate
    from fieldapp.rules.nr151 import Feature, protective_area, vegetative_cover
    from fieldapp.rules.nr341 import (
        Basis,
        Segment,
        Station,
        WalkReason,
        bank_from_segments,
        bank_from_stations,
        bank_guidance,
        graded_area,
    )
    from fieldapp.rules.results import RuleInputError, Status

#: Where each public name lives: the names other packages, the tests and the bench import from
#: here. They are loaded on first use (PEP 562), so importing one rule module
#: (``fieldapp.rules.city_tables`` for a published figure, as the survey model does) does not
#: load every rule and the contract (~40 ms of start-up). Everything else is imported from its
#: module (``fieldapp.rules.compare``, ``fieldapp.rules.results``...).
_HOME = {
    **dict.fromkeys(("RULES", "evaluate"), "contract"),
    **dict.fromkeys(("Basis", "Segment", "Station", "WalkReason", "bank_from_segments", "bank_from_stations",
                     "bank_guidance", "graded_area"), "nr341"),
    **dict.fromkeys(("Feature", "protective_area", "vegetative_cover"), "nr151"),
    **dict.fromkeys(("development_area", "drainageway", "erodible_slope", "erosion_plan",
                     "steep_slope", "wetland_size", "woodland_class", "woodland_mitigation"),
                    "city"),
    **dict.fromkeys(("RuleInputError", "Status"), "results"),
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'fieldapp.rules' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"fieldapp.rules.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME))


__all__ = [
    "RULES",
    "Basis",
    "Feature",
    "RuleInputError",
    "Segment",
    "Station",
    "Status",
    "WalkReason",
    "bank_from_segments",
    "bank_from_stations",
    "bank_guidance",
    "development_area",
    "drainageway",
    "erodible_slope",
    "erosion_plan",
    "evaluate",
    "graded_area",
    "protective_area",
    "steep_slope",
    "vegetative_cover",
    "wetland_size",
    "woodland_class",
    "woodland_mitigation",
]
