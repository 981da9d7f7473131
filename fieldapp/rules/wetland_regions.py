"""The code lists of the routine wetland determination data form, per Regional Supplement.

Wisconsin lies in two regions of the Corps of Engineers' Regional Supplements to the 1987
Wetland Delineation Manual:

- ``northcentral-northeast``: *Regional Supplement ... Northcentral and Northeast Region
  (Version 2.0)*, ERDC/EL TR-12-1, January 2012;
- ``midwest``: *Regional Supplement ... Midwest Region (Version 2.0)*, ERDC/EL TR-10-16,
  August 2010;

each with its routine wetland determination data form (the ENG Form 6116 series; we have not
seen a stored copy that prints the form number, so none is claimed here).

Each region carries, as data (codes exactly as the forms print them, names as the forms word
them):

- ``primary`` / ``secondary``: the wetland hydrology indicators (Chapter 4 of each
  supplement; one primary or two secondary make wetland hydrology).
- ``hydric_soil``: the hydric soil indicators of the form's left-hand list (Chapter 3, from
  the NRCS *Field Indicators of Hydric Soils in the United States*), and
  ``problematic_soil``: its "Indicators for Problematic Hydric Soils" (footnote: hydrophytic
  vegetation and wetland hydrology must be present, unless disturbed or problematic).
  Where a form limits an indicator to land resource regions (LRR) or major land resource
  areas (MLRA), the name carries it as the form prints it, e.g. "Dark Surface (LRR K, L)":
  Wisconsin lies in LRR K and M, so the Northcentral-Northeast form's Dark Surface (S7),
  Polyvalue Below Surface (S8) and Thin Dark Surface (S9) are problematic-soil indicators
  here, and are listed in both lists as the form has them.
- ``plot_sizes``: the sampling plot the supplement suggests for each stratum (the radius of
  a circular plot, feet). They are defaults the crew may change ("plot sizes and shapes
  may be changed as needed"), which the form records beside each stratum.

Sources and what was checked
----------------------------
The codes were checked against (a) the 50/20 rule and procedure text of the supplements as
quoted by Ecobot's help page (ecobot.zendesk.com, "50/20 Rule Dominant Species
Calculation"); (b) two Midwest Region data forms filed with the City of Orono, Minnesota
(publicinfo.ci.orono.mn.us WebLink documents 5515 p. 54 and 74143 p. 22), which print the
Midwest hydrology columns (primary: A1, A2, A3, B1, B2 ... B9, B13, B14, C1, C3 ...;
secondary: B6, B10, C2, C8, C9 ...) and the soil lists; (c) a wetland-indicator summary for
the Midwest and Northcentral regions (studylib.net document 11894156) listing A1-A5, A10-A12,
A16, S1, S3-S9, F1-F3, F6-F8, F12, F21 and TF12 for the two regions; (d) the NRCS Field
Indicators' own lists (soilhub.com). We could not read the Northcentral-Northeast form or
supplement itself in the stored sources: its hydrology lists (notably Moss Trim Lines B16,
Marl Deposits B15, Shallow Aquitard D3, Microtopographic Relief D4, which the Midwest form
does not have) and its LRR/MLRA notes are from the published form as we know it, not
re-checked against a stored copy. Check them against your copy of ENG Form 6116-9 before
relying on a rejection.

The Midwest form as revised for the NRCS Field Indicators version 7.0 with the 2015 errata
(the Orono form of 2022 says so in its remarks) adds Red Parent Material (F21) and Very
Shallow Dark Surface (F22) to the problematic-soil list; both are accepted here, marked.

No plant indicator statuses are shipped here: the crew loads the National Wetland Plant List
(:mod:`fieldapp.rules.plantlist`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

__all__ = ["REGIONS", "STRATA", "STRATUM_NAMES", "STATUSES", "Region", "region", "carry_indicators"]

#: The four strata of the form's VEGETATION table, in the form's order (contract keys).
STRATA = ("tree", "sapling_shrub", "herb", "woody_vine")

#: How the form heads each stratum.
STRATUM_NAMES: Mapping[str, str] = MappingProxyType({
    "tree": "Tree Stratum",
    "sapling_shrub": "Sapling/Shrub Stratum",
    "herb": "Herb Stratum",
    "woody_vine": "Woody Vine Stratum",
})

#: The National Wetland Plant List's indicator statuses and the Prevalence Index's weights
#: (OBL = 1 ... UPL = 5, as the form's Prevalence Index worksheet multiplies them).
STATUSES: Mapping[str, int] = MappingProxyType({"OBL": 1, "FACW": 2, "FAC": 3, "FACU": 4, "UPL": 5})


@dataclass(frozen=True)
class Region:
    """One Regional Supplement's code lists (see the module docstring for the sources)."""

    key: str
    name: str
    citation: str
    primary: Mapping[str, str]
    secondary: Mapping[str, str]
    hydric_soil: Mapping[str, str]
    problematic_soil: Mapping[str, str]
    plot_sizes_ft: Mapping[str, float] = field(default_factory=dict)

    def soil_name(self, code: str) -> str:
        """The form's name of soil indicator ``code`` (either list)."""
        return self.hydric_soil.get(code) or self.problematic_soil[code]

    def hydrology_name(self, code: str) -> str:
        """The form's name of hydrology indicator ``code`` (either list)."""
        return self.primary.get(code) or self.secondary[code]


def _m(pairs: list[tuple[str, str]]) -> Mapping[str, str]:
    return MappingProxyType(dict(pairs))


#: The supplements' suggested plot sizes (radius, ft) for both regions: Tree 30 ft,
#: Sapling/Shrub 15 ft, Herb 5 ft, Woody Vine 30 ft, as each form prints them beside the stratum.
_PLOTS = MappingProxyType({"tree": 30.0, "sapling_shrub": 15.0, "herb": 5.0, "woody_vine": 30.0})

NORTHCENTRAL_NORTHEAST = Region(
    key="northcentral-northeast",
    name="Northcentral and Northeast Region",
    citation="Regional Supplement, Northcentral and Northeast Region, Version 2.0 (ERDC/EL TR-12-1, 2012)",
    primary=_m([
        ("A1", "Surface Water"), ("A2", "High Water Table"), ("A3", "Saturation"),
        ("B1", "Water Marks"), ("B2", "Sediment Deposits"), ("B3", "Drift Deposits"),
        ("B4", "Algal Mat or Crust"), ("B5", "Iron Deposits"),
        ("B7", "Inundation Visible on Aerial Imagery"), ("B8", "Sparsely Vegetated Concave Surface"),
        ("B9", "Water-Stained Leaves"), ("B13", "Aquatic Fauna"), ("B15", "Marl Deposits"),
        ("C1", "Hydrogen Sulfide Odor"), ("C3", "Oxidized Rhizospheres on Living Roots"),
        ("C4", "Presence of Reduced Iron"), ("C6", "Recent Iron Reduction in Tilled Soils"),
        ("C7", "Thin Muck Surface"),
    ]),
    secondary=_m([
        ("B6", "Surface Soil Cracks"), ("B10", "Drainage Patterns"), ("B16", "Moss Trim Lines"),
        ("C2", "Dry-Season Water Table"), ("C8", "Crayfish Burrows"),
        ("C9", "Saturation Visible on Aerial Imagery"), ("D1", "Stunted or Stressed Plants"),
        ("D2", "Geomorphic Position"), ("D3", "Shallow Aquitard"), ("D4", "Microtopographic Relief"),
        ("D5", "FAC-Neutral Test"),
    ]),
    hydric_soil=_m([
        ("A1", "Histosol"), ("A2", "Histic Epipedon"), ("A3", "Black Histic"), ("A4", "Hydrogen Sulfide"),
        ("A5", "Stratified Layers"), ("A11", "Depleted Below Dark Surface"), ("A12", "Thick Dark Surface"),
        ("S1", "Sandy Mucky Mineral"), ("S4", "Sandy Gleyed Matrix"), ("S5", "Sandy Redox"),
        ("S6", "Stripped Matrix"), ("S7", "Dark Surface (LRR R, MLRA 149B)"),
        ("S8", "Polyvalue Below Surface (LRR R, MLRA 149B)"), ("S9", "Thin Dark Surface (LRR R, MLRA 149B)"),
        ("F1", "Loamy Mucky Mineral (LRR K, L)"), ("F2", "Loamy Gleyed Matrix"), ("F3", "Depleted Matrix"),
        ("F6", "Redox Dark Surface"), ("F7", "Depleted Dark Surface"), ("F8", "Redox Depressions"),
    ]),
    problematic_soil=_m([
        ("A10", "2 cm Muck (LRR K, L, MLRA 149B)"), ("A16", "Coast Prairie Redox (LRR K, L, R)"),
        ("S3", "5 cm Mucky Peat or Peat (LRR K, L, R)"), ("S7", "Dark Surface (LRR K, L)"),
        ("S8", "Polyvalue Below Surface (LRR K, L)"), ("S9", "Thin Dark Surface (LRR K, L)"),
        ("F12", "Iron-Manganese Masses (LRR K, L, R)"), ("F19", "Piedmont Floodplain Soils (MLRA 149B)"),
        ("TA6", "Mesic Spodic (MLRA 144A, 145, 149B)"), ("F21", "Red Parent Material"),
        ("TF12", "Very Shallow Dark Surface"),
    ]),
    plot_sizes_ft=_PLOTS,
)

MIDWEST = Region(
    key="midwest",
    name="Midwest Region",
    citation="Regional Supplement, Midwest Region, Version 2.0 (ERDC/EL TR-10-16, 2010)",
    primary=_m([
        ("A1", "Surface Water"), ("A2", "High Water Table"), ("A3", "Saturation"),
        ("B1", "Water Marks"), ("B2", "Sediment Deposits"), ("B3", "Drift Deposits"),
        ("B4", "Algal Mat or Crust"), ("B5", "Iron Deposits"),
        ("B7", "Inundation Visible on Aerial Imagery"), ("B8", "Sparsely Vegetated Concave Surface"),
        ("B9", "Water-Stained Leaves"), ("B13", "Aquatic Fauna"), ("B14", "True Aquatic Plants"),
        ("C1", "Hydrogen Sulfide Odor"), ("C3", "Oxidized Rhizospheres on Living Roots"),
        ("C4", "Presence of Reduced Iron"), ("C6", "Recent Iron Reduction in Tilled Soils"),
        ("C7", "Thin Muck Surface"), ("D9", "Gauge or Well Data"),
    ]),
    secondary=_m([
        ("B6", "Surface Soil Cracks"), ("B10", "Drainage Patterns"), ("C2", "Dry-Season Water Table"),
        ("C8", "Crayfish Burrows"), ("C9", "Saturation Visible on Aerial Imagery"),
        ("D1", "Stunted or Stressed Plants"), ("D2", "Geomorphic Position"), ("D5", "FAC-Neutral Test"),
    ]),
    hydric_soil=_m([
        ("A1", "Histosol"), ("A2", "Histic Epipedon"), ("A3", "Black Histic"), ("A4", "Hydrogen Sulfide"),
        ("A5", "Stratified Layers"), ("A10", "2 cm Muck"), ("A11", "Depleted Below Dark Surface"),
        ("A12", "Thick Dark Surface"), ("S1", "Sandy Mucky Mineral"), ("S3", "5 cm Mucky Peat or Peat"),
        ("S4", "Sandy Gleyed Matrix"), ("S5", "Sandy Redox"), ("S6", "Stripped Matrix"),
        ("F1", "Loamy Mucky Mineral"), ("F2", "Loamy Gleyed Matrix"), ("F3", "Depleted Matrix"),
        ("F6", "Redox Dark Surface"), ("F7", "Depleted Dark Surface"), ("F8", "Redox Depressions"),
    ]),
    problematic_soil=_m([
        ("A16", "Coast Prairie Redox"), ("S7", "Dark Surface"), ("F12", "Iron-Manganese Masses"),
        ("TF12", "Very Shallow Dark Surface"),
        ("F21", "Red Parent Material (form revised for Field Indicators v7.0, 2015 errata)"),
        ("F22", "Very Shallow Dark Surface (form revised for Field Indicators v7.0, 2015 errata)"),
    ]),
    plot_sizes_ft=_PLOTS,
)

#: The regions the contract accepts, by their ``region`` key.
REGIONS: Mapping[str, Region] = MappingProxyType({r.key: r for r in (NORTHCENTRAL_NORTHEAST, MIDWEST)})


def region(key: str) -> Region:
    """The region ``key`` (``northcentral-northeast`` or ``midwest``).

    Raises
    ------
    KeyError
        Not one of them; the message lists the two.
    """
    try:
        return REGIONS[key]
    except KeyError:
        raise KeyError(f"region {key!r} is not one of {', '.join(REGIONS)}") from None


def carry_indicators(form: Mapping[str, Any], to_region: str) -> tuple[dict[str, Any], list[str]]:
    """``form`` (the ``wetland-form`` contract's input) moved to region ``to_region``: every
    ticked hydrology and soil indicator whose code the new region's form also lists is kept
    (a hydrology code in the list, primary or secondary, where the new region has it), and
    ``region`` becomes ``to_region``. Returns the new form and the codes dropped because the
    new region's form lacks them, as "hydrology B16" / "soil F19" in the order ticked.

    Raises KeyError (words listing the regions) for an unknown ``to_region``.
    """
    new = region(to_region)
    hyd = dict(form.get("hydrology") or {})
    soil = dict(form.get("soil") or {})
    dropped: list[str] = []
    primary: list[str] = []
    secondary: list[str] = []
    for code in [*(hyd.get("primary") or []), *(hyd.get("secondary") or [])]:
        target = primary if code in new.primary else secondary if code in new.secondary else None
        if target is None:
            dropped.append(f"hydrology {code}")
        elif code not in target:
            target.append(code)
    kept_soil: list[str] = []
    for code in soil.get("indicators") or []:
        if code in new.hydric_soil or code in new.problematic_soil:
            if code not in kept_soil:
                kept_soil.append(code)
        else:
            dropped.append(f"soil {code}")
    out = {**form, "region": new.key,
           "hydrology": {**hyd, "primary": primary, "secondary": secondary},
           "soil": {**soil, "indicators": kept_soil}}
    return out, dropped
