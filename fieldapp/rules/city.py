"""The city's resource protection chapter (Decorah, Iowa; Ord. 952, 1993) -- beside the text.

Our copy has no section numbers, so rules cite the topic and the letter:
``"Decorah resource protection, Woodlands A.2"``.

Woodlands
    A.2 mature woodland: 30 % or more largely deciduous canopy of trees of 10 in caliper or
    greater, or a grove of 8 or more deciduous trees of 18 in caliper or greater. A.3 young
    woodland: 70 % or more canopy of trees of 3 in caliper or greater. C protection 75 % /
    50 %. D development area: 20 ft beyond foundations (D.2.a), 5 ft beyond parking, septic,
    utility trenches and drives (D.2.b). E mitigation: protection not below 55 % / 25 % (E.1);
    plantings per acre (E.4 a-e).
Drainageways
    A.1 50 ft from each embankment of a mapped stream; A.2 25 ft each side of the centreline of
    a swale with 5 acres or more tributary; C 75 % open space.
Wetlands
    A 10,000 sq ft or more, standing water retained periodically, hydric vegetation; C 100 %
    undisturbed.
Erosion control
    A.3 erodible slope: more than 4 %; B plan triggers 1-5; D Sr / SsF land over 30 %
    undisturbed.

Rules: ``woodland.class``, ``woodland.mitigation``, ``wetland.size``, ``drainageway``,
``development_area``, ``erosion_plan``, ``steep_slope``, ``erodible_slope`` (the last added for
A.3; not in the contract table).

Readings (``rules-contract.md``): ``largely-deciduous``, ``dbh-for-standing-trees``, ``grove``,
``mitigation-area``, ``round-buffer``, ``strictly-more-than``; added here:

``canopy-sample-proportion``
    From a dot grid, canopy % = points on that canopy ÷ all points; from a line intercept,
    intercepted length ÷ line length; the deciduous share is the deciduous part of the
    ≥ 10 in canopy points (or intercept) ÷ all ≥ 10 in canopy points (or intercept).
``mapped-stream-only``
    Drainageways A.1 covers streams shown on the USGS quadrangle or county soil survey maps:
    an unmapped stream is not a drainageway under A.1 (a swale is its own request, A.2); a
    stream whose mapping is not stated is ``needs_data``.
``edge-shape``
    An edge with 2 points is a line; with 3 or more it is a polygon ring, except a utility
    trench whose first and last points differ, which is a polyline.
``slope-magnitude``
    "Slopes greater than 30 %" and "inclines in excess of 4 %" compare the slope's size,
    whatever its sign.

Modules
-------
This module is the chapter's front: its rules and their result classes are importable from
here (and the rule functions from :mod:`fieldapp.rules`); the figures and reading ids are
imported from :mod:`~fieldapp.rules.city_tables`, each request reader (``*_from_request``) from
its rule's module. The rules live beside their topic:

:mod:`~fieldapp.rules.city_tables`
    :data:`CITE`, the reading ids, every figure of the chapter (thresholds, protection levels,
    plantings per acre, the erosion triggers).
:mod:`~fieldapp.rules.city_woodland`
    ``woodland.class`` (A.2, A.3), ``woodland.mitigation`` (C, E).
:mod:`~fieldapp.rules.city_water`
    ``wetland.size`` (Wetlands A, C), ``drainageway`` (Drainageways A, C).
:mod:`~fieldapp.rules.city_development`
    ``development_area`` (Woodlands D.2).
:mod:`~fieldapp.rules.city_erosion`
    ``erosion_plan`` (B), ``steep_slope`` (D), ``erodible_slope`` (A.3).

Lengths are feet of the site's foot, areas square feet or acres (see :mod:`fieldapp.rules`).

Examples
--------
>>> woodland_class(canopy_10in_pct=34, deciduous_share_pct=80, canopy_3in_pct=60).citation
'Decorah resource protection, Woodlands A.2'
>>> drainageway("stream", 100.0, mapped_stream=True).total_width_ft
100.0
>>> erosion_plan(cut_fill_volume_cuyd=None, max_fill_depth_ft=3.5, max_excavation_depth_ft=None,
...              cut_fill_area_sqft=None, exposed_soil_sqft=None).citation
'Decorah resource protection, Erosion control B.2'
"""

from __future__ import annotations

# The chapter's rules and their results, importable from here as before the split; the figures
# and reading ids are in city_tables, the request readers beside each rule.
from fieldapp.rules.city_development import DevelopmentAreaResult, development_area
from fieldapp.rules.city_erosion import (
    ErodibleSlopeResult,
    ErosionPlanResult,
    SteepSlopeResult,
    erodible_slope,
    erosion_plan,
    steep_slope,
)
from fieldapp.rules.city_water import DrainagewayResult, WetlandSizeResult, drainageway, wetland_size
from fieldapp.rules.city_woodland import (
    MitigationResult,
    Plantings,
    WoodlandClassResult,
    woodland_class,
    woodland_mitigation,
)

__all__ = [
    "DevelopmentAreaResult",
    "DrainagewayResult",
    "ErodibleSlopeResult",
    "ErosionPlanResult",
    "MitigationResult",
    "Plantings",
    "SteepSlopeResult",
    "WetlandSizeResult",
    "WoodlandClassResult",
    "development_area",
    "drainageway",
    "erodible_slope",
    "erosion_plan",
    "steep_slope",
    "wetland_size",
    "woodland_class",
    "woodland_mitigation",
]
