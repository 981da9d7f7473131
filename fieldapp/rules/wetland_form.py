"""The routine wetland determination, from one data point's form (pure: no Qt, no store).

:func:`determine` takes the form as the ``fieldapp wetland-form`` contract has it (see
``docs/wetland-form.md``) and returns a :class:`Determination`: the dominant species of each
stratum, the Rapid Test, the Dominance Test, the Prevalence Index, and whether hydrophytic
vegetation, wetland hydrology and hydric soil are present, and so whether the point is wetland,
each with the words of how it was reached (:attr:`Determination.how`). :func:`read_form`
checks a form and raises :class:`FormError` naming the first problem.

The rules, from the Regional Supplements (Northcentral and Northeast v2.0, 2012; Midwest
v2.0, 2010; Chapter 2 "Hydrophytic Vegetation Indicators") and the data form's own
instructions:

Dominant species: the 50/20 rule
    Per stratum, on absolute % cover: rank the species from most to least cover; select them
    in that order "until the cumulative coverage of selected species exceeds ... 50 percent of
    the total coverage for the stratum" (*exceeds*: a run that reaches exactly 50 % goes on to
    the next species); "if two or more species are equal in coverage (i.e., they are tied in
    rank), they should all be selected" (so a tie at the cut-off brings every tied species in);
    "in addition, select any other species that, by itself, is at least 20 percent of the total"
    (*at least*: exactly 20 % is dominant). Comparisons use the rules' tolerance of 1e-6 in %
    (:mod:`fieldapp.rules.compare`).
Rapid Test (Indicator 1)
    All dominant species across all strata are OBL or FACW. With no dominant species it fails.
Dominance Test (Indicator 2)
    More than 50 % of the dominant species across all strata are OBL, FACW or FAC. A species
    dominant in two strata counts in each (the form's "Total Number of Dominant Species Across
    All Strata"). With no dominants the percent is null and the test fails.
Prevalence Index (Indicator 3)
    PI = (1·A_OBL + 2·A_FACW + 3·A_FAC + 4·A_FACU + 5·A_UPL) / (A_OBL + ... + A_UPL), A the total
    absolute cover of the species of each status over all strata (the form's worksheet). The
    number test passes at 3.0 or less (3.0 itself passes). Unrounded.
The footnote
    The form marks the Prevalence Index, Morphological Adaptations and Problematic Hydrophytic
    Vegetation with: "Indicators of hydric soil and wetland hydrology must be present, unless
    disturbed or problematic." So those three make hydrophytic vegetation only when hydric
    soil is present (or the soil is flagged problematic) **and** wetland hydrology is present
    (or the hydrology is flagged problematic). The Rapid and Dominance Tests need neither.
    ``prevalence_index.passes`` is the number test alone; the footnote is applied in
    ``hydrophytic_vegetation``.
Wetland hydrology
    One primary indicator, or two secondary indicators, of the region's lists
    (:mod:`fieldapp.rules.wetland_regions`). Flagging hydrology problematic does not make it
    present (the supplement's Chapter 5 leaves that to the delineator's judgment); it only
    lifts the footnote's hydrology condition.
Hydric soil
    Any indicator of the region's lists, the problematic-soil list included (the reading we
    take: the crew checks a problematic-soil indicator only after the Chapter 5 procedure;
    its own footnote, that hydrophytic vegetation and wetland hydrology be present, changes
    nothing in the wetland verdict, which needs all three anyway). No indicator, no hydric
    soil, problematic flag or not.
Wetland
    Hydrophytic vegetation, wetland hydrology and hydric soil all present.

Species not on the plant list, and unidentified species
    The National Wetland Plant List says a species not listed in a region is rated UPL there.
    A species missing from the form's ``indicators`` therefore counts as UPL everywhere: in the
    50/20 rule (its cover counts like any other), the Rapid and Dominance Tests (a non-hydrophyte)
    and the Prevalence Index (weight 5). An **unidentified** plant ("Carex sp.", "unknown
    grass") is a name that is not on the list, so it counts as UPL too: the conservative
    reading, since the supplements require every dominant to be identified to species and a
    plant the crew could not name cannot be shown to be a hydrophyte. The ``how`` text names
    every species counted as UPL for not being listed, so a reviewer sees it.

Other readings where the form is silent
    A species is looked up in ``indicators`` by its name in any case, repeated spaces taken as
    one and a standalone "x" as the hybrid sign "×" (:func:`species_key`: "acer  rubrum" is
    "Acer rubrum", "Typha x glauca" is "Typha ×glauca"); the name is then written as
    ``indicators`` spells it, in ``dominants`` and the ``how`` words. A species entered twice in
    one stratum (so matched) counts once, with the two covers added. A cover of 0 is recorded but neither dominant nor
    in the Prevalence Index. Cover is absolute % (0 to 100 for one species); a stratum's total
    may exceed 100.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fieldapp.rules.compare import at_least, at_most, more_than
from fieldapp.rules.wetland_regions import REGIONS, STATUSES, STRATA, STRATUM_NAMES, Region

__all__ = ["Determination", "Form", "FormError", "determine", "dominant_species", "read_form", "species_key"]

HYDROPHYTE = ("OBL", "FACW", "FAC")


def species_key(name: str) -> str:
    """How species names are matched: any case, spaces at the ends and repeated ones ignored, a
    standalone "x" read as the hybrid sign "×" ("typha  X glauca" and "Typha ×glauca" are one)."""
    words = name.replace("×", " × ").split()
    return " ".join("×" if w in ("x", "X") else w for w in words).casefold()


class FormError(ValueError):
    """A form the determination cannot read; ``key`` says where (``vegetation.herb[1].cover``)."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"{key}: {message}")
        self.key = key


@dataclass(frozen=True)
class Form:
    """A checked form: what :func:`determine` works from."""

    plot: str | None
    region: Region
    indicators: Mapping[str, str]
    #: per stratum: (species, total absolute % cover), in the order entered (duplicates merged)
    vegetation: Mapping[str, tuple[tuple[str, float], ...]]
    primary: tuple[str, ...]
    secondary: tuple[str, ...]
    soil: tuple[str, ...]
    problematic_vegetation: bool = False
    problematic_soil: bool = False
    problematic_hydrology: bool = False
    morphological_adaptations: bool = False

    def status(self, species: str) -> str:
        """The species' indicator status; UPL when not on the list (see the module docstring)."""
        return self.indicators.get(species, "UPL")


@dataclass(frozen=True)
class Determination:
    """The determination of one data point. Percentages are %, the index unitless, unrounded."""

    plot: str | None
    region: str
    dominants: Mapping[str, tuple[str, ...]]
    stratum_totals: Mapping[str, float]
    hydrophytic_dominants: int
    dominant_count: int
    dominance_percent: float | None
    dominance_passes: bool
    rapid_test: bool
    #: total absolute cover per status over all strata (the Prevalence Index worksheet)
    cover_by_status: Mapping[str, float]
    prevalence_index: float | None
    prevalence_passes: bool
    hydrophytic_vegetation: bool
    wetland_hydrology: bool
    hydric_soil: bool
    wetland: bool
    #: species counted as UPL because the plant list does not have them
    not_listed: tuple[str, ...] = ()
    #: how each verdict was reached, in words: keys ``dominants``, ``rapid_test``,
    #: ``dominance_test``, ``prevalence_index``, ``hydrophytic_vegetation``,
    #: ``wetland_hydrology``, ``hydric_soil``, ``wetland``
    how: Mapping[str, str] = field(default_factory=dict)

    def contract(self, explain: bool = False) -> dict[str, Any]:
        """The contract's JSON object (``fieldapp wetland-form``); with ``explain``, a ``how`` key too."""
        out: dict[str, Any] = {
            "plot": self.plot,
            "dominants": {s: list(self.dominants[s]) for s in STRATA},
            "dominance_test": {"hydrophytic_dominants": self.hydrophytic_dominants,
                               "dominants": self.dominant_count,
                               "percent": self.dominance_percent, "passes": self.dominance_passes},
            "rapid_test": self.rapid_test,
            "prevalence_index": {"value": self.prevalence_index, "passes": self.prevalence_passes},
            "hydrophytic_vegetation": self.hydrophytic_vegetation,
            "wetland_hydrology": self.wetland_hydrology,
            "hydric_soil": self.hydric_soil,
            "wetland": self.wetland,
        }
        if explain:
            out["how"] = dict(self.how)
        return out


# ----------------------------------------------------------------------------- reading the form

def _bool(value: Any, key: str) -> bool:
    if value is None:
        return False
    if not isinstance(value, bool):
        raise FormError(key, f"must be true or false, not {value!r}")
    return value


def _codes(value: Any, key: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise FormError(key, "must be a list of indicator codes, e.g. [\"A2\", \"B1\"]")
    codes = []
    for i, c in enumerate(value):
        if not isinstance(c, str) or not c.strip():
            raise FormError(f"{key}[{i}]", f"an indicator code must be text like \"A2\", not {c!r}")
        codes.append(c.strip().upper())
    return list(dict.fromkeys(codes))


def _cover(value: Any, key: str, species: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise FormError(key, f"the % cover of {species} must be a number, not {value!r}")
    cover = float(value)
    if not math.isfinite(cover):
        raise FormError(key, f"the % cover of {species} must be a number, not {value!r}")
    if cover < 0:
        raise FormError(key, f"negative cover ({value:g} %) for {species}")
    if more_than(cover, 100.0):
        raise FormError(key, f"{value:g} % cover for {species}: one species cannot cover more than 100 %")
    return cover


def read_form(data: Any) -> Form:
    """Check the form ``data`` (parsed JSON, the contract's input) and return it as a :class:`Form`.

    Raises
    ------
    FormError
        The first problem, in field words, with its key: not an object; ``region`` not
        ``northcentral-northeast`` / ``midwest``; a status other than OBL/FACW/FAC/FACU/UPL; a
        stratum other than tree / sapling_shrub / herb / woody_vine; a species without a name;
        a cover that is not a number, negative, or over 100 % (for one species, duplicates
        added); an indicator code the region's supplement does not have, or one entered in the
        other list (a secondary indicator under primary); a problematic flag that is not
        true/false.
    """
    if not isinstance(data, dict):
        raise FormError("form", "must be a JSON object ({...}) with plot, region, vegetation, hydrology, soil")
    plot = data.get("plot")
    if plot is not None and not isinstance(plot, str):
        raise FormError("plot", f"the data point's name must be text, not {plot!r}")
    key = data.get("region")
    if not isinstance(key, str) or key not in REGIONS:
        raise FormError("region", f"{key!r} is not a region: use {' or '.join(REGIONS)}")
    region = REGIONS[key]

    raw_ind = data.get("indicators", {})
    if raw_ind is None:
        raw_ind = {}
    if not isinstance(raw_ind, dict):
        raise FormError("indicators", "must be an object of species and status, e.g. {\"Typha latifolia\": \"OBL\"}")
    indicators: dict[str, str] = {}
    by_key: dict[str, str] = {}         # species_key -> the name as the list spells it (the first)
    for species, status in raw_ind.items():
        st = status.strip().upper() if isinstance(status, str) else status
        if st not in STATUSES:
            raise FormError(f"indicators[{species!r}]",
                            f"status {status!r} of {species} is not one of {', '.join(STATUSES)}")
        spelled = by_key.setdefault(species_key(str(species)), str(species).strip())
        if indicators.get(spelled, st) != st:
            raise FormError(f"indicators[{species!r}]", f"{species} is listed twice ({spelled} too) with"
                            f" different statuses, {indicators[spelled]} and {st}")
        indicators[spelled] = str(st)

    veg = data.get("vegetation", {})
    if veg is None:
        veg = {}
    if not isinstance(veg, dict):
        raise FormError("vegetation", "must be an object with the strata tree, sapling_shrub, herb, woody_vine")
    vegetation: dict[str, tuple[tuple[str, float], ...]] = {}
    for stratum in veg:
        if stratum not in STRATA:
            raise FormError(f"vegetation.{stratum}",
                            f"{stratum!r} is not a stratum: use {', '.join(STRATA)}")
    for stratum in STRATA:
        rows = veg.get(stratum) or []
        if not isinstance(rows, list):
            raise FormError(f"vegetation.{stratum}", "must be a list of {\"species\": ..., \"cover\": ...}")
        merged: dict[str, float] = {}
        for i, row in enumerate(rows):
            where = f"vegetation.{stratum}[{i}]"
            if not isinstance(row, dict):
                raise FormError(where, "must be {\"species\": NAME, \"cover\": PERCENT}")
            name = row.get("species")
            if not isinstance(name, str) or not name.strip():
                raise FormError(f"{where}.species", "a species needs a name (an unidentified plant: \"Carex sp.\")")
            name = by_key.setdefault(species_key(name), name.strip())     # the list's spelling
            cover = _cover(row.get("cover"), f"{where}.cover", name)
            total = merged.get(name, 0.0) + cover
            if more_than(total, 100.0):
                raise FormError(f"{where}.cover", f"{name} is entered twice in the {STRATUM_NAMES[stratum]}"
                                f" with {total:g} % together: one species cannot cover more than 100 %")
            merged[name] = total
        vegetation[stratum] = tuple(merged.items())

    hyd = data.get("hydrology", {})
    if hyd is None:
        hyd = {}
    if not isinstance(hyd, dict):
        raise FormError("hydrology", "must be an object with primary and secondary lists")
    primary = _codes(hyd.get("primary"), "hydrology.primary")
    secondary = _codes(hyd.get("secondary"), "hydrology.secondary")
    for codes, own, other, where, other_name in (
            (primary, region.primary, region.secondary, "hydrology.primary", "secondary"),
            (secondary, region.secondary, region.primary, "hydrology.secondary", "primary")):
        for code in codes:
            if code in own:
                continue
            if code in other:
                raise FormError(where, f"{code} ({other[code]}) is a {other_name} indicator in the"
                                f" {region.name} supplement, not a {where.split('.')[1]} one")
            raise FormError(where, f"{code} is not a wetland hydrology indicator of the {region.name} supplement")

    soil = data.get("soil", {})
    if soil is None:
        soil = {}
    if not isinstance(soil, dict):
        raise FormError("soil", "must be an object with an indicators list")
    soil_codes = _codes(soil.get("indicators"), "soil.indicators")
    for code in soil_codes:
        if code not in region.hydric_soil and code not in region.problematic_soil:
            raise FormError("soil.indicators", f"{code} is not a hydric soil indicator of the {region.name} supplement")

    prob = data.get("problematic", {})
    if prob is None:
        prob = {}
    if not isinstance(prob, dict):
        raise FormError("problematic",
                        "must be an object: {\"vegetation\": false, \"soil\": false, \"hydrology\": false}")
    return Form(
        plot=plot, region=region, indicators=indicators, vegetation=vegetation,
        primary=tuple(primary), secondary=tuple(secondary), soil=tuple(soil_codes),
        problematic_vegetation=_bool(prob.get("vegetation"), "problematic.vegetation"),
        problematic_soil=_bool(prob.get("soil"), "problematic.soil"),
        problematic_hydrology=_bool(prob.get("hydrology"), "problematic.hydrology"),
        morphological_adaptations=_bool(data.get("morphological_adaptations"), "morphological_adaptations"),
    )


# ----------------------------------------------------------------------------- the rules

def dominant_species(rows: tuple[tuple[str, float], ...] | list[tuple[str, float]]) -> list[str]:
    """The dominant species of one stratum by the 50/20 rule (see the module docstring).

    ``rows`` are (species, absolute % cover); the result is in decreasing cover, ties in the
    order entered. Species with 0 cover are never dominant; an empty stratum has none.

    >>> dominant_species([("A", 40), ("B", 10), ("C", 10), ("D", 10), ("E", 30)])
    ['A', 'E']
    >>> dominant_species([("A", 50), ("B", 25), ("C", 25)])  # 50 % is not "exceeds": B, C tied
    ['A', 'B', 'C']
    """
    ranked = sorted((r for r in rows if r[1] > 0), key=lambda r: -r[1])
    total = sum(c for _, c in ranked)
    if total <= 0:
        return []
    chosen: list[str] = []
    cumulative = 0.0
    i = 0
    while i < len(ranked) and not more_than(100.0 * cumulative / total, 50.0):
        cover = ranked[i][1]
        while i < len(ranked) and ranked[i][1] == cover:  # a tie at the cut-off: all of it
            chosen.append(ranked[i][0])
            cumulative += cover
            i += 1
    for name, cover in ranked[i:]:
        if at_least(100.0 * cover / total, 20.0):
            chosen.append(name)
    return chosen


def _names(species: list[str] | tuple[str, ...]) -> str:
    return ", ".join(species) if species else "none"


def determine(data: Any) -> Determination:
    """The determination of the form ``data`` (the contract's input; see the module docstring).

    Raises
    ------
    FormError
        As :func:`read_form`.
    """
    form = data if isinstance(data, Form) else read_form(data)
    region = form.region
    how: dict[str, str] = {}

    dominants: dict[str, tuple[str, ...]] = {}
    totals: dict[str, float] = {}
    parts = []
    for stratum in STRATA:
        rows = form.vegetation.get(stratum, ())
        totals[stratum] = sum(c for _, c in rows)
        dominants[stratum] = tuple(dominant_species(rows))
        if rows:
            parts.append(f"{STRATUM_NAMES[stratum]} (total {totals[stratum]:g} %, 50 % = "
                         f"{totals[stratum] * 0.5:g}, 20 % = {totals[stratum] * 0.2:g}): "
                         f"{_names(dominants[stratum])}")
    how["dominants"] = ("50/20 rule per stratum: " + "; ".join(parts)) if parts else "no vegetation entered"

    listed = [(s, form.status(s)) for stratum in STRATA for s in dominants[stratum]]
    seen_species = [s for stratum in STRATA for s, _ in form.vegetation.get(stratum, ())]
    not_listed = tuple(dict.fromkeys(s for s in seen_species if s not in form.indicators))
    hydro_dom = sum(1 for _, st in listed if st in HYDROPHYTE)
    n_dom = len(listed)
    percent = 100.0 * hydro_dom / n_dom if n_dom else None
    dominance = percent is not None and more_than(percent, 50.0)
    dom_words = ", ".join(f"{s} {st}" for s, st in listed) or "no dominant species"
    how["dominance_test"] = (
        f"{hydro_dom} of {n_dom} dominant species are OBL, FACW or FAC"
        + (f" = {percent:.1f} %" if percent is not None else "")
        + (" (more than 50 %: passes)" if dominance else " (not more than 50 %: fails)") + f"; {dom_words}")
    rapid = n_dom > 0 and all(st in ("OBL", "FACW") for _, st in listed)
    how["rapid_test"] = ("all dominant species are OBL or FACW" if rapid else
                         "no dominant species" if not n_dom else
                         "not all dominant species are OBL or FACW: "
                         + ", ".join(f"{s} {st}" for s, st in listed if st not in ("OBL", "FACW")))

    by_status = {st: 0.0 for st in STATUSES}
    for stratum in STRATA:
        for s, c in form.vegetation.get(stratum, ()):
            by_status[form.status(s)] += c
    a_total = sum(by_status.values())
    b_total = sum(STATUSES[st] * c for st, c in by_status.items())
    pi = b_total / a_total if a_total > 0 else None
    pi_passes = pi is not None and at_most(pi, 3.0)
    how["prevalence_index"] = (
        "no species with cover" if pi is None else
        f"PI = B/A = {b_total:g}/{a_total:g} = {pi:.2f} ("
        + ", ".join(f"{st} {c:g} x{STATUSES[st]}" for st, c in by_status.items() if c)
        + ("; 3.0 or less: passes)" if pi_passes else "; more than 3.0: fails)"))
    if not_listed:
        how["prevalence_index"] += f"; counted UPL as not on the plant list: {_names(list(not_listed))}"
        how["dominance_test"] += f"; counted UPL as not on the plant list: {_names(list(not_listed))}"

    primary, secondary = list(form.primary), list(form.secondary)
    hydrology = len(primary) >= 1 or len(secondary) >= 2
    how["wetland_hydrology"] = (
        (f"primary {', '.join(primary)}" if primary else "no primary indicator")
        + (f"; secondary {', '.join(secondary)}" if secondary else "; no secondary indicator")
        + (": one primary or two secondary, present" if hydrology else
           ": needs one primary or two secondary, absent")
        + ("; hydrology flagged problematic" if form.problematic_hydrology else ""))

    soil_codes = list(form.soil)
    hydric = bool(soil_codes)
    how["hydric_soil"] = ((f"indicator {', '.join(f'{c} ({region.soil_name(c)})' for c in soil_codes)}"
                           if hydric else "no hydric soil indicator")
                          + ("; soil flagged problematic" if form.problematic_soil else ""))

    soil_ok = hydric or form.problematic_soil
    water_ok = hydrology or form.problematic_hydrology
    footnote = soil_ok and water_ok
    reasons = []
    if rapid:
        reasons.append("Rapid Test")
    if dominance:
        reasons.append("Dominance Test")
    footnoted = []
    if pi_passes:
        footnoted.append("Prevalence Index")
    if form.morphological_adaptations:
        footnoted.append("Morphological Adaptations")
    if form.problematic_vegetation:
        footnoted.append("Problematic Hydrophytic Vegetation")
    if footnote:
        reasons += footnoted
    vegetation = bool(reasons)
    if vegetation:
        how["hydrophytic_vegetation"] = "present by " + ", ".join(reasons)
    else:
        how["hydrophytic_vegetation"] = "absent: Rapid Test and Dominance Test fail"
        if footnoted:
            missing = [w for w, ok in (("hydric soil", soil_ok), ("wetland hydrology", water_ok)) if not ok]
            how["hydrophytic_vegetation"] += (f"; {', '.join(footnoted)} would count, but the footnote needs "
                                              f"{' and '.join(missing)} present (or problematic)")
        elif pi is not None:
            how["hydrophytic_vegetation"] += "; Prevalence Index more than 3.0"
    wetland = vegetation and hydrology and hydric
    how["wetland"] = ("hydrophytic vegetation, wetland hydrology and hydric soil all present: wetland" if wetland
                      else "not wetland: " + ", ".join(w for w, ok in (("hydrophytic vegetation", vegetation),
                                                                       ("wetland hydrology", hydrology),
                                                                       ("hydric soil", hydric)) if not ok)
                      + " absent")
    return Determination(
        plot=form.plot, region=region.key, dominants=dominants, stratum_totals=totals,
        hydrophytic_dominants=hydro_dom, dominant_count=n_dom, dominance_percent=percent,
        dominance_passes=dominance, rapid_test=rapid, cover_by_status=by_status,
        prevalence_index=pi, prevalence_passes=pi_passes, hydrophytic_vegetation=vegetation,
        wetland_hydrology=hydrology, hydric_soil=hydric, wetland=wetland, not_listed=not_listed, how=how)
