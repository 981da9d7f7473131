"""The wetland determination (issue 32): the ``fieldapp wetland-form`` contract from outside,
and worked examples with hand-computed values.

The 50/20 rule as the Regional Supplements word it (quoted in fieldapp/rules/wetland_form.py):
select in decreasing cover "until the cumulative coverage ... exceeds 50 percent"; species
"tied in rank ... should all be selected"; plus any species that "by itself, is at least
20 percent of the total".
"""

import json
import os
import subprocess
import sys

import pytest

from fieldapp.rules.wetland_form import FormError, determine, dominant_species
from fieldapp.rules.wetland_regions import REGIONS

CONTRACT_IN = {
    "plot": "DP-1", "region": "northcentral-northeast",
    "indicators": {"Acer rubrum": "FAC", "Typha latifolia": "OBL"},
    "vegetation": {"tree": [{"species": "Acer rubrum", "cover": 40}], "sapling_shrub": [],
                   "herb": [{"species": "Typha latifolia", "cover": 60}], "woody_vine": []},
    "hydrology": {"primary": ["A2"], "secondary": ["D2"]},
    "soil": {"indicators": ["F6"]},
    "problematic": {"vegetation": False, "soil": False, "hydrology": False},
}
CONTRACT_OUT = {
    "plot": "DP-1",
    "dominants": {"tree": ["Acer rubrum"], "sapling_shrub": [], "herb": ["Typha latifolia"], "woody_vine": []},
    "dominance_test": {"hydrophytic_dominants": 2, "dominants": 2, "percent": 100.0, "passes": True},
    "rapid_test": False,
    "prevalence_index": {"value": 1.8, "passes": True},
    "hydrophytic_vegetation": True, "wetland_hydrology": True, "hydric_soil": True, "wetland": True,
}


def run(tmp_path, content, *extra):
    """Run ``python -m fieldapp wetland-form`` on ``content`` (a dict, or raw text) from outside."""
    path = tmp_path / "PLOT.json"
    if isinstance(content, (dict, list)):
        path.write_text(json.dumps(content), encoding="utf-8")
    else:
        path.write_text(content, encoding="utf-8")
    env = {**os.environ, "FIELDAPP_LOG_DIR": str(tmp_path / "log")}
    return subprocess.run([sys.executable, "-m", "fieldapp", "wetland-form", str(path), *extra],
                          capture_output=True, text=True, timeout=120, env=env)


def form(**changes):
    data = json.loads(json.dumps(CONTRACT_IN))
    data.update(changes)
    return data


def herb(*rows, **changes):
    """A form with only a herb stratum of (species, cover) rows."""
    veg = {"herb": [{"species": s, "cover": c} for s, c in rows]}
    return form(vegetation=veg, **changes)


# ----------------------------------------------------------------------------- the contract from outside

def test_contract_example_prints_the_issue_output(tmp_path):
    r = run(tmp_path, CONTRACT_IN)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == CONTRACT_OUT
    assert r.stderr == ""


def test_explain_adds_how_in_words(tmp_path):
    r = run(tmp_path, CONTRACT_IN, "--explain")
    assert r.returncode == 0, r.stderr
    how = json.loads(r.stdout)["how"]
    assert how["prevalence_index"].startswith("PI = B/A = 180/100 = 1.80")
    assert "2 of 2 dominant species" in how["dominance_test"]


def _without(data, *path):
    d = data
    for k in path[:-1]:
        d = d[k]
    del d[path[-1]]
    return data


BAD = {
    "negative cover": (herb(("Typha latifolia", -5)), "negative cover"),
    "over 100 % for one species": (herb(("Typha latifolia", 101)), "more than 100 %"),
    "one species twice over 100 %": (herb(("Typha latifolia", 60), ("Typha latifolia", 50)), "entered twice"),
    "stratum not listed": (form(vegetation={"shrub": [{"species": "Acer rubrum", "cover": 5}]}),
                           "'shrub' is not a stratum"),
    "region not listed": (form(region="great-plains"), "'great-plains' is not a region"),
    "hydrology code not in the supplement": (form(hydrology={"primary": ["B14"]}), "B14 is not a wetland hydrology"),
    "Midwest has no moss trim lines": (form(region="midwest", hydrology={"secondary": ["B16", "D2"]}), "B16 is not"),
    "secondary under primary": (form(hydrology={"primary": ["D2"]}), "D2 (Geomorphic Position) is a secondary"),
    "primary under secondary": (form(hydrology={"secondary": ["A1", "D2"]}), "A1 (Surface Water) is a primary"),
    "soil code not in the supplement": (form(region="midwest", soil={"indicators": ["F19"]}),
                                        "F19 is not a hydric soil"),
    "status not on the list": (form(indicators={"Acer rubrum": "FAC+"}), "status 'FAC+' of Acer rubrum"),
    "status NI": (form(indicators={"Acer rubrum": "NI"}), "is not one of OBL, FACW, FAC, FACU, UPL"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_exits_2_with_one_line_and_no_json(tmp_path, case):
    data, words = BAD[case]
    r = run(tmp_path, data)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("fieldapp wetland-form: ") and words in lines[0], lines[0]


def test_malformed_json_exits_2(tmp_path):
    r = run(tmp_path, '{"plot": "DP-1", "region": ')
    assert r.returncode == 2 and r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1 and "is not valid JSON" in r.stderr


def test_a_form_saved_with_notepads_bom_is_read(tmp_path):
    path = tmp_path / "PLOT.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(CONTRACT_IN).encode("utf-8"))
    r = subprocess.run([sys.executable, "-m", "fieldapp", "wetland-form", str(path)], capture_output=True,
                       text=True, timeout=120, env={**os.environ, "FIELDAPP_LOG_DIR": str(tmp_path / "log")})
    assert r.returncode == 0 and json.loads(r.stdout) == CONTRACT_OUT


# ----------------------------------------------------------------------------- the 50/20 rule

def test_tie_at_50_percent_goes_on_and_takes_the_whole_tie():
    # total 100: A alone is 50 %, which does not *exceed* 50 %; B and C tie next: both selected
    assert dominant_species([("A", 50), ("B", 25), ("C", 25)]) == ["A", "B", "C"]


def test_tie_at_the_cut_off_brings_species_under_20_percent():
    # total 100: A 40 %; the six 10 % species are tied in rank where the run passes 50 %: all selected
    rows = [("A", 40)] + [(f"S{i}", 10) for i in range(6)]
    assert dominant_species(rows) == ["A"] + [f"S{i}" for i in range(6)]


def test_run_that_exceeds_50_stops_and_20_percent_is_inclusive():
    # total 75: A 45 = 60 % exceeds 50 % alone; B and C 15 = exactly 20 %: "at least 20 %", dominant;
    # D 0 is never dominant
    assert dominant_species([("A", 45), ("B", 15), ("C", 15), ("D", 0)]) == ["A", "B", "C"]
    # total 100: B 19 % is not
    assert dominant_species([("A", 61), ("B", 19), ("C", 20)]) == ["A", "C"]


def test_cover_is_absolute_and_strata_may_total_over_100():
    # total 150: 50 % = 75; A 70 does not exceed, B 50 takes it to 120; C 30 = 20 % exactly
    assert dominant_species([("A", 70), ("B", 50), ("C", 30)]) == ["A", "B", "C"]


# ----------------------------------------------------------------------------- tests and indices

def test_rapid_test_all_dominants_obl_or_facw():
    d = determine(herb(("Typha latifolia", 60), ("Carex lacustris", 40),
                       indicators={"Typha latifolia": "OBL", "Carex lacustris": "FACW"}))
    assert d.rapid_test is True and d.dominance_percent == 100.0
    # PI = (60*1 + 40*2) / 100 = 1.4
    assert d.prevalence_index == pytest.approx(1.4)


def test_prevalence_index_exactly_3_passes_but_needs_the_footnote():
    # FACW 50, FACU 50: dominants both (50 % does not exceed, the tie comes in): 1 of 2 = 50 %,
    # not more than 50 %: the Dominance Test fails. PI = (50*2 + 50*4) / 100 = 3.0: passes.
    inds = {"Impatiens capensis": "FACW", "Solidago canadensis": "FACU"}
    rows = (("Impatiens capensis", 50), ("Solidago canadensis", 50))
    d = determine(herb(*rows, indicators=inds))
    assert d.dominance_percent == 50.0 and d.dominance_passes is False and d.rapid_test is False
    assert d.prevalence_index == 3.0 and d.prevalence_passes is True
    assert d.hydrophytic_vegetation is True and d.wetland is True  # A2 and F6 present
    # no hydric soil indicator: the footnote withholds the Prevalence Index
    d = determine(herb(*rows, indicators=inds, soil={"indicators": []}))
    assert d.prevalence_passes is True and d.hydrophytic_vegetation is False
    assert "footnote needs hydric soil" in d.how["hydrophytic_vegetation"]
    # ... unless the soil is problematic
    d = determine(herb(*rows, indicators=inds, soil={"indicators": []},
                       problematic={"soil": True, "vegetation": False, "hydrology": False}))
    assert d.hydrophytic_vegetation is True and d.hydric_soil is False and d.wetland is False
    # just over: FACW 49, FACU 51: PI = (98 + 204) / 100 = 3.02 fails
    d = determine(herb(("Impatiens capensis", 49), ("Solidago canadensis", 51), indicators=inds))
    assert d.prevalence_index == pytest.approx(3.02) and d.prevalence_passes is False
    assert d.hydrophytic_vegetation is False


def test_problematic_hydrology_lifts_the_footnote_but_is_not_hydrology():
    inds = {"Impatiens capensis": "FACW", "Solidago canadensis": "FACU"}
    rows = (("Impatiens capensis", 50), ("Solidago canadensis", 50))
    d = determine(herb(*rows, indicators=inds, hydrology={"primary": [], "secondary": []}))
    assert d.hydrophytic_vegetation is False and d.wetland_hydrology is False
    d = determine(herb(*rows, indicators=inds, hydrology={"primary": [], "secondary": []},
                       problematic={"hydrology": True}))
    assert d.hydrophytic_vegetation is True and d.wetland_hydrology is False and d.wetland is False


def test_problematic_vegetation_counts_only_with_soil_and_hydrology():
    upland = herb(("Poa pratensis", 100), indicators={"Poa pratensis": "FACU"},
                  problematic={"vegetation": True})
    assert determine(upland).hydrophytic_vegetation is True
    upland["soil"] = {"indicators": []}
    assert determine(upland).hydrophytic_vegetation is False


def test_one_primary_or_two_secondary():
    assert determine(form(hydrology={"primary": ["A2"]})).wetland_hydrology is True
    assert determine(form(hydrology={"secondary": ["D2"]})).wetland_hydrology is False
    assert determine(form(hydrology={"secondary": ["D2", "D5"]})).wetland_hydrology is True
    assert determine(form(hydrology={"secondary": ["d2", "D2"]})).wetland_hydrology is False  # one, twice
    assert determine(form(hydrology={})).wetland is False


def test_species_not_on_the_list_count_upl_everywhere():
    # "Carex sp." (unidentified) 60, Typha 40, total 100: Carex 60 % exceeds 50 %; Typha 40 % >= 20 %.
    # Dominance 1 of 2 = 50 %: fails. PI = (60*5 + 40*1) / 100 = 3.4: fails.
    d = determine(herb(("Carex sp.", 60), ("Typha latifolia", 40)))
    assert d.dominants["herb"] == ("Carex sp.", "Typha latifolia")
    assert (d.hydrophytic_dominants, d.dominant_count, d.dominance_percent) == (1, 2, 50.0)
    assert d.prevalence_index == pytest.approx(3.4) and d.cover_by_status["UPL"] == 60
    assert d.not_listed == ("Carex sp.",) and "Carex sp." in d.how["prevalence_index"]
    assert d.hydrophytic_vegetation is False


def test_species_match_the_list_in_any_case_spacing_and_x_for_the_hybrid_sign(tmp_path):
    """"acer  RUBRUM" is the list's Acer rubrum (FAC), "typha x glauca" its Typha ×glauca (OBL):
    written as the list spells them, the output's keys exactly the contract's."""
    data = form(indicators={"Acer rubrum": "FAC", "Typha ×glauca": "OBL"},
                vegetation={"tree": [{"species": " acer  RUBRUM ", "cover": 40}],
                            "herb": [{"species": "typha x glauca", "cover": 35},
                                     {"species": "Typha  ×glauca", "cover": 25}]})
    r = run(tmp_path, data)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out == {**CONTRACT_OUT, "dominants": {"tree": ["Acer rubrum"], "sapling_shrub": [],
                                                 "herb": ["Typha ×glauca"], "woody_vine": []}}
    d = determine(data)
    assert d.not_listed == ()
    assert d.cover_by_status == {"OBL": 60, "FACW": 0, "FAC": 40, "FACU": 0, "UPL": 0}
    # one species listed twice with two statuses is refused, naming both spellings
    with pytest.raises(FormError, match="listed twice"):
        determine(form(indicators={"Acer rubrum": "FAC", "acer rubrum": "FACW"}))


def test_a_species_dominant_in_two_strata_counts_twice():
    d = determine(form(vegetation={"tree": [{"species": "Acer rubrum", "cover": 40}],
                                   "sapling_shrub": [{"species": "Acer rubrum", "cover": 10}],
                                   "herb": [{"species": "Poa pratensis", "cover": 80}]},
                       indicators={"Acer rubrum": "FAC", "Poa pratensis": "FACU"}))
    assert (d.hydrophytic_dominants, d.dominant_count) == (2, 3)
    assert d.dominance_percent == pytest.approx(200 / 3) and d.dominance_passes is True


def test_empty_vegetation_has_null_index_and_no_dominants():
    d = determine(form(vegetation={}))
    assert d.contract()["prevalence_index"] == {"value": None, "passes": False}
    assert d.contract()["dominants"] == {"tree": [], "sapling_shrub": [], "herb": [], "woody_vine": []}
    assert d.dominance_percent is None and d.hydrophytic_vegetation is False


def test_problematic_soil_indicator_counts_as_hydric_soil():
    assert determine(form(region="midwest", soil={"indicators": ["A16"]})).hydric_soil is True
    assert determine(form(soil={"indicators": ["TA6"]})).hydric_soil is True


def test_every_region_lists_its_codes_once_per_list():
    for r in REGIONS.values():
        assert not set(r.primary) & set(r.secondary)
        assert r.plot_sizes_ft == {"tree": 30.0, "sapling_shrub": 15.0, "herb": 5.0, "woody_vine": 30.0}
    assert "B14" in REGIONS["midwest"].primary and "B14" not in REGIONS["northcentral-northeast"].primary


def test_form_error_names_the_key():
    with pytest.raises(FormError) as err:
        determine(herb(("Typha latifolia", "lots")))
    assert err.value.key == "vegetation.herb[0].cover"


# ----------------------------------------------------------------------------- filed data forms

def test_filed_northcentral_form_tie_at_the_cut_off():
    """Burnett County, WI, data point WET-1 (Northcentral-Northeast form, herb stratum, 5 ft plot):
    Calamagrostis canadensis 40 OBL, Glyceria canadensis 25 OBL, Typha latifolia 25 OBL,
    Bidens frondosa 25 FACW, Juncus effusus 25 OBL; the form marks all five dominant, 5 of 5 =
    100 %, and its worksheet reads OBL 115 x1 = 115, FACW 25 x2 = 50, 140 (A), 165 (B), PI 1.18.
    Total 140: 50 % = 70; Calamagrostis 40 does not exceed it, and the four at 25 (17.9 % each,
    under 20 %) tie where the run crosses 70: all selected."""
    inds = {"Calamagrostis canadensis": "OBL", "Glyceria canadensis": "OBL", "Typha latifolia": "OBL",
            "Bidens frondosa": "FACW", "Juncus effusus": "OBL"}
    d = determine(herb(("Calamagrostis canadensis", 40), ("Glyceria canadensis", 25), ("Typha latifolia", 25),
                       ("Bidens frondosa", 25), ("Juncus effusus", 25), indicators=inds))
    assert d.dominants["herb"] == ("Calamagrostis canadensis", "Glyceria canadensis", "Typha latifolia",
                                   "Bidens frondosa", "Juncus effusus")
    assert (d.hydrophytic_dominants, d.dominant_count, d.dominance_percent) == (5, 5, 100.0)
    assert d.cover_by_status["OBL"] == 115 and d.cover_by_status["FACW"] == 25
    assert round(d.prevalence_index, 2) == 1.18 and d.rapid_test is True


def test_filed_midwest_upland_form_and_the_unlisted_species():
    """City of Ramsey, MN, data point SP5-2upl (Midwest form): Tree Tilia americana 20 FACU,
    Quercus macrocarpa 20 FACU; Sapling/Shrub Rhamnus cathartica 70 FAC, Lonicera tatarica 10
    FACU; Herb Osmorhiza claytonii 25 FACU, Circaea lutetiana 25 status "none". The form: 5
    dominants, 1 OBL/FACW/FAC, 20.00 %; worksheet FAC 70, FACU 75, totals 145 (A) 510 (B), PI 3.52
    -- the crew left the unrated Circaea out of the index. We count it UPL (NWPL: not listed
    = UPL): A = 170, B = 510 + 125 = 635, PI = 3.735; left out of the input, we get the form's 3.52."""
    inds = {"Tilia americana": "FACU", "Quercus macrocarpa": "FACU", "Rhamnus cathartica": "FAC",
            "Lonicera tatarica": "FACU", "Osmorhiza claytonii": "FACU"}
    veg = {"tree": [{"species": "Tilia americana", "cover": 20}, {"species": "Quercus macrocarpa", "cover": 20}],
           "sapling_shrub": [{"species": "Rhamnus cathartica", "cover": 70},
                             {"species": "Lonicera tatarica", "cover": 10}],
           "herb": [{"species": "Osmorhiza claytonii", "cover": 25}, {"species": "Circaea lutetiana", "cover": 25}]}
    d = determine(form(region="midwest", indicators=inds, vegetation=veg, hydrology={}, soil={}))
    assert d.dominants["tree"] == ("Tilia americana", "Quercus macrocarpa")  # 20 + 20 tie at 50 %
    assert d.dominants["sapling_shrub"] == ("Rhamnus cathartica",)          # Lonicera 12.5 % < 20 %
    assert (d.hydrophytic_dominants, d.dominant_count, d.dominance_percent) == (1, 5, 20.0)
    assert d.prevalence_index == pytest.approx(635 / 170) and d.wetland is False
    veg["herb"] = veg["herb"][:1]
    d = determine(form(region="midwest", indicators=inds, vegetation=veg, hydrology={}, soil={}))
    assert round(d.prevalence_index, 2) == 3.52


def test_standard_input_is_read_as_utf8(tmp_path):
    data = json.dumps({**CONTRACT_IN, "plot": "Łąka DP-1"}).encode("utf-8")
    r = subprocess.run([sys.executable, "-m", "fieldapp", "wetland-form", "-"], input=data, capture_output=True,
                       timeout=120, env={**os.environ, "FIELDAPP_LOG_DIR": str(tmp_path / "log")})
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.decode("ascii"))   # ASCII on every console: \u0141 for Ł
    assert out["plot"] == "Łąka DP-1" and out["wetland"] is True


def test_a_folder_or_missing_file_exits_2(tmp_path):
    env = {**os.environ, "FIELDAPP_LOG_DIR": str(tmp_path / "log")}
    for target, words in ((tmp_path, "it is a folder, not a file"), (tmp_path / "nope.json", "no such file")):
        r = subprocess.run([sys.executable, "-m", "fieldapp", "wetland-form", str(target)], capture_output=True,
                           text=True, timeout=120, env=env)
        assert r.returncode == 2 and r.stdout == "" and words in r.stderr and len(r.stderr.splitlines()) == 1
