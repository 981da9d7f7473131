"""The city chapter's figures, citations and reading ids, shared by the city rule modules.

Every threshold of the chapter (Decorah, Iowa; Ord. 952, 1993) that a rule compares with, in
the text's units (percent, inches of caliper or DBH, feet, square feet, acres, cubic yards),
and the interpretation ids the rules name (``rules-contract.md`` and :mod:`fieldapp.rules.city`).
Lengths are feet of the site's foot (see :mod:`fieldapp.rules`). Import them from here (the
chapter's front, :mod:`fieldapp.rules.city`, fronts the rules only).
"""

from __future__ import annotations

#: How the chapter is cited (it has no section numbers): topic and letter follow.
CITE = "Decorah resource protection"

LARGELY_DECIDUOUS = "largely-deciduous"
DBH_FOR_STANDING_TREES = "dbh-for-standing-trees"
GROVE = "grove"
MITIGATION_AREA = "mitigation-area"
ROUND_BUFFER = "round-buffer"
STRICTLY_MORE_THAN = "strictly-more-than"
CANOPY_SAMPLE_PROPORTION = "canopy-sample-proportion"
MAPPED_STREAM_ONLY = "mapped-stream-only"
EDGE_SHAPE = "edge-shape"
SLOPE_MAGNITUDE = "slope-magnitude"
UNMAPPED_CHANNEL_AS_SWALE = "unmapped-channel-as-swale"
TRIBUTARY_LINEAR = "tributary-linear-between-stations"
FLOODPLAIN_BY_REACH = "floodplain-by-reach"
OPEN_SPACE_OF_COUNTED_AREA = "open-space-of-counted-area"
ALTERED_DRAINAGEWAY_CHECKLIST = "altered-drainageway-checklist"
WETLAND_DISTURBANCE_CHECKLIST = "wetland-disturbance-checklist"
A1_AGRICULTURE = "a1-agricultural-use"
WATER_LAND_DISTURBED = "water-land-disturbed"

#: Woodlands A.2 / A.3 thresholds.
MATURE_CANOPY_PCT = 30.0
MATURE_CALIPER_IN = 10.0
GROVE_TREES = 8
GROVE_DBH_IN = 18.0
YOUNG_CANOPY_PCT = 70.0
DEFAULT_LARGELY_DECIDUOUS_PCT = 50.0
#: Woodlands C and E.1: class -> (protection %, floor %).
PROTECTION = {"mature": (75.0, 55.0), "young": (50.0, 25.0), "none": (0.0, 0.0)}
#: Woodlands E.4 a-e: plants per acre of mitigation.
PLANTINGS_PER_ACRE = {
    "canopy_4in_or_12ft_evergreen": 4,
    "canopy_2_5in_or_6ft_evergreen": 8,
    "canopy_5ft": 60,
    "understory_5ft": 20,
    "shrubs_11in": 25,
}
WETLAND_MIN_SQFT = 10_000.0
#: Drainageways A.2 (acres tributary, "a minimum of") and C (open space, percent).
SWALE_TRIBUTARY_AC = 5.0
DRAINAGEWAY_OPEN_SPACE_PCT = 75.0
FOUNDATION_LIMIT_FT = 20.0
EDGE_LIMIT_FT = 5.0
#: Segments per quarter circle of the round-cornered envelope: the area of a 20 ft round
#: corner is then within 0.002 sq ft of π·20².
QUAD_SEGS = 512
STEEP_SOIL_UNITS = {"sr": "Sr", "ssf": "SsF"}
STEEP_SLOPE_PCT = 30.0
ERODIBLE_SLOPE_PCT = 4.0
CUFT_PER_CUYD = 27.0
#: Erosion control B.1-B.5: trigger -> (input key, limit, item).
EROSION_TRIGGERS = {
    "volume": ("cut_fill_volume_cuyd", 500.0, "B.1"),
    "fill_depth": ("max_fill_depth_ft", 3.0, "B.2"),
    "excavation_depth": ("max_excavation_depth_ft", 4.0, "B.3"),
    "area": ("cut_fill_area_sqft", 5000.0, "B.4"),
    "exposed_soil": ("exposed_soil_sqft", 5000.0, "B.5"),
}
