"""The rules engine: every check in the three texts, as pure functions with reproducible verdicts.

No Qt, no storage, no clock: each rule is a pure function from plain values to a frozen result
(:class:`~fieldapp.rules.results.RuleResult`) carrying the verdict, the numbers, the citation and
the interpretation ids it relied on. :func:`evaluate` implements the JSON contract of
``rules-contract.md``; ``fieldapp rules evaluate FILE.json`` is its command line.

Modules, one per source
-----------------------
nr341
    NR 341.035 bank (``nr341.bank``) and graded area (``nr341.graded_area``).
nr151
    NR 151.125 protective areas (``nr151.protective_area``) and vegetative cover
    (``nr151.vegetative_cover``).
city
    The city's resource-protection chapter: ``woodland.class``, ``woodland.mitigation``,
    ``wetland.size``, ``drainageway``, ``development_area``, ``erosion_plan``, ``steep_slope``,
    ``erodible_slope``.
measure
    Slope distance to horizontal, degrees and percent, the clinometer (``slope.clinometer``).
compare
    The one tolerance helper (1e-6) behind every threshold comparison.

Exceptions
----------
RulesError
    └── RuleInputError (also a ValueError): a bad input value; ``key`` names it.
"""

from fieldapp.rules.compare import TOLERANCE, at_least, at_most, less_than, more_than
from fieldapp.rules.contract import RULES, evaluate, evaluate_result
from fieldapp.rules.nr341 import (
    BankResult,
    Basis,
    Segment,
    Station,
    SteepStretch,
    WalkReason,
    bank_from_segments,
    bank_from_stations,
    bank_guidance,
    graded_area,
)
from fieldapp.rules.nr151 import Feature, protective_area, vegetative_cover
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
from fieldapp.rules.measure import clinometer
from fieldapp.rules.results import RuleInputError, RuleResult, RulesError, Status

__all__ = [
    "RULES",
    "TOLERANCE",
    "BankResult",
    "Basis",
    "Feature",
    "RuleInputError",
    "RuleResult",
    "RulesError",
    "Segment",
    "Station",
    "Status",
    "SteepStretch",
    "WalkReason",
    "at_least",
    "at_most",
    "bank_from_segments",
    "bank_from_stations",
    "bank_guidance",
    "clinometer",
    "development_area",
    "drainageway",
    "erodible_slope",
    "erosion_plan",
    "evaluate",
    "evaluate_result",
    "graded_area",
    "less_than",
    "more_than",
    "protective_area",
    "steep_slope",
    "vegetative_cover",
    "wetland_size",
    "woodland_class",
    "woodland_mitigation",
]
