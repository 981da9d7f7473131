"""The JSON contract (rules-contract.md): worked examples, errors, the CLI, import purity."""

import json
import math
import subprocess
import sys

import pytest

from fieldapp.rules import RULES, evaluate
from fieldapp.rules.measure import clinometer, deg_from_pct, horizontal_from_slope_distance, pct_from_deg

REPO_ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]

# --- the contract's worked examples, through evaluate() -----------------------------------

EXAMPLES = [
    ({"rule": "nr341.bank", "input": {"priority": False, "segments": [
        {"horizontal_ft": 30, "slope_pct": 4}, {"horizontal_ft": 60, "slope_pct": 18},
        {"horizontal_ft": 120, "slope_pct": 5}]}},
     {"status": "determined", "bank_ft": 90.0, "extended": True, "basis": "slope", "walk_further_ft": None}),
    ({"rule": "nr341.bank", "input": {"priority": False, "segments": [
        {"horizontal_ft": 30, "slope_pct": 4}, {"horizontal_ft": 60, "slope_pct": 18},
        {"horizontal_ft": 45, "slope_pct": 5}]}},
     {"status": "needs_data", "bank_ft": None, "bank_ft_at_least": 90.0, "walk_further_ft": 5.0}),
    ({"rule": "nr151.protective_area", "input": {"contiguous": False, "features": [
        {"type": "wetland", "susceptibility": "less", "average_width_ft": 260}]}},
     {"status": "determined", "width_ft": 26.0, "widths_ft": [26.0], "governing_feature": "wetland"}),
    ({"rule": "woodland.class", "input": {"canopy_10in_pct": 34, "deciduous_share_pct": 80,
                                          "canopy_3in_pct": 60, "trees": []}},
     {"status": "determined", "class": "mature", "basis": "canopy"}),
    ({"rule": "woodland.mitigation", "input": {"class": "young", "woodland_area_ac": 4.0, "retained_area_ac": 1.6}},
     {"retained_pct": 40.0, "permitted": True, "mitigation_area_ac": 0.4,
      "plantings": {"canopy_4in_or_12ft_evergreen": 2, "canopy_2_5in_or_6ft_evergreen": 4, "canopy_5ft": 24,
                    "understory_5ft": 8, "shrubs_11in": 10}}),
]


@pytest.mark.parametrize("request_, expected", EXAMPLES)
def test_contract_examples(request_, expected):
    result = evaluate(request_)
    assert result["rule"] == request_["rule"]
    for key, value in expected.items():
        assert result[key] == (pytest.approx(value) if isinstance(value, float) else value), key


def test_contract_development_area_example():
    r = evaluate({"rule": "development_area", "input": {"foundations": [[[0, 0], [30, 0], [30, 30], [0, 30]]]}})
    assert round(r["envelope_area_sqft"], 2) == 4556.64  # 900 + 4·30·20 + π·20²


# one good request per rule: every rule evaluates and gives plain JSON
ONE_PER_RULE = {
    "city.scope": {"district": "A-1", "use": "agricultural"},
    "nr341.bank": {"priority": True, "stations": [{"distance_ft": 0, "elevation_ft": 0},
                                                  {"distance_ft": 320, "elevation_ft": 3}]},
    "nr341.graded_area": {"horizontal_area_sqft": 9999, "slope_deg": 11.31},
    "nr151.protective_area": {"contiguous": True, "features": [{"type": "lake"}]},
    "nr151.vegetative_cover": {"vegetative_cover_pct": 75},
    "woodland.class": {"canopy_10in_pct": 10, "deciduous_share_pct": 20, "canopy_3in_pct": 75, "trees": []},
    "woodland.mitigation": {"class": "mature", "woodland_area_ac": 2, "retained_area_ac": 1.2},
    "wetland.size": {"area_sqft": 12000, "periodic_standing_water": True, "hydric_vegetation": True},
    "drainageway": {"kind": "swale", "tributary_area_ac": 6, "length_ft": 300},
    "development_area": {"foundations": [[[0, 0], [30, 0], [30, 30]]], "test_points": [[0, 25]]},
    "erosion_plan": {"cut_fill_volume_cuft": 100, "max_fill_depth_ft": 1, "max_excavation_depth_ft": 1,
                     "cut_fill_area_sqft": 100, "exposed_soil_sqft": 100},
    "steep_slope": {"soil_unit": "SsF", "slope_pct": 35},
    "erodible_slope": {"slope_deg": 3},
    "slope.clinometer": {"horizontal_ft": 50, "reading_pct": 10, "eye_height_ft": 5.5, "target_height_ft": 4.5},
    "resources.overlap": {"resources": [
        {"kind": "wetland", "polygon_ft": [[0, 0], [10, 0], [10, 10]]},
        {"kind": "woodland_young", "polygon_ft": [[0, 0], [10, 0], [10, 10], [0, 10]]}]},
    "development_area.limit": {"parcel_ft": [[0, 0], [100, 0], [100, 100], [0, 100]],
                               "rights_of_way": [[[0, 100], [100, 100], [100, 110], [0, 110]]],
                               "woodlands": [{"class": "young", "polygon_ft": [[0, 0], [50, 0], [50, 50]]}]},
}


def test_one_request_per_rule_covers_the_table():
    assert set(ONE_PER_RULE) == set(RULES)


@pytest.mark.parametrize("rule", sorted(ONE_PER_RULE))
def test_every_rule_gives_plain_json(rule):
    result = evaluate({"rule": rule, "input": ONE_PER_RULE[rule], "settings": {}})
    assert result["status"] in ("determined", "needs_data", "exempt"), result
    assert result["rule"] == rule and isinstance(result["citation"], str) and result["citation"]
    assert isinstance(result["interpretations"], list)
    assert json.loads(json.dumps(result, allow_nan=False)) == result


def test_numbers_are_floats_and_counts_ints():
    r = evaluate({"rule": "nr341.bank",
                  "input": {"priority": False, "segments": [{"horizontal_ft": 80, "slope_pct": 1}]}})
    assert type(r["bank_ft"]) is float and all(type(x) is float for x in r["segment_horizontal_ft"])
    r = evaluate({"rule": "woodland.mitigation", "input": ONE_PER_RULE["woodland.mitigation"]})
    assert all(type(v) is int for v in r["plantings"].values())


def test_unknown_extra_keys_are_ignored():
    r = evaluate({"rule": "steep_slope", "input": {"soil_unit": "Sr", "slope_pct": 31, "mapped_by": "JK"},
                  "comment": "x"})
    assert r["status"] == "determined" and r["undisturbed_required"] is True


# --- errors name the key ------------------------------------------------------------------


@pytest.mark.parametrize("request_, key", [
    ({"rule": "nr151.protective_area", "input": {"contiguous": False, "features": [{"typo": "stream"}]}},
     "input.features[0].type"),
    ({"rule": "nr151.protective_area", "input": {"contiguous": False, "features": [{"type": "strem"}]}},
     "input.features[0].type"),
    ({"rule": "nr341.bank", "input": {"priority": False, "segments": [{"horizontal_ft": 3, "slope_pc": 4}]}},
     "input.segments[0].slope_pct"),
    ({"rule": "nr341.bank", "input": {"priority": "yes", "segments": []}}, "input.priority"),
    ({"rule": "nr341.bank", "input": {"priority": False, "segments": [{"horizontal_ft": -3, "slope_pct": 4}]}},
     "input.segments[0].horizontal_ft"),
    ({"rule": "nr341.bank", "input": {"priority": False, "segments": [{"horizontal_ft": math.nan, "slope_pct": 4}]}},
     "input.segments[0].horizontal_ft"),
    ({"rule": "nr341.bank", "input": {"priority": False, "segments": "30,4"}}, "input.segments"),
    ({"rule": "nr341.bank", "input": {"priority": False}}, "input.segments"),
    ({"rule": "nr341.graded_area", "input": {"horizontal_area_sqft": math.inf, "slope_pct": 3}},
     "input.horizontal_area_sqft"),
    ({"rule": "wetland.size", "input": {"area_sqft": True, "periodic_standing_water": True,
                                        "hydric_vegetation": True}}, "input.area_sqft"),
    ({"rule": "woodland.class", "input": {"canopy_10in_pct": 120, "deciduous_share_pct": 1, "canopy_3in_pct": 130,
                                          "trees": []}}, "input.canopy_10in_pct"),
    ({"rule": "woodland.class", "input": {"canopy_10in_pct": 10, "deciduous_share_pct": 1, "canopy_3in_pct": 30,
                                          "trees": [{"dbh_in": 20}]}}, "input.trees[0].leaf_habit"),
    ({"rule": "woodland.class", "input": {"canopy_10in_pct": 10, "canopy_3in_pct": 30, "trees": []},
      "settings": {"largely_deciduous_pct": "half"}}, "settings.largely_deciduous_pct"),
    ({"rule": "erosion_plan", "input": {"max_fill_depth_ft": 1}}, "input.cut_fill_volume_cuyd"),
    ({"rule": "nr341.bnak", "input": {}}, "rule"),
    ({"input": {}}, "rule"),
    ({"rule": "steep_slope"}, "input"),
])
def test_errors_name_the_key(request_, key):
    r = evaluate(request_)
    assert r["status"] == "error" and r["key"] == key, r
    assert set(r) == {"rule", "status", "key", "message"}
    assert r["message"]


def test_misspelt_key_is_suggested():
    r = evaluate({"rule": "nr341.bank",
                  "input": {"priority": False, "segments": [{"horizontal_ft": 3, "slope_pc": 4}]}})
    assert "slope_pc" in r["message"]


def test_not_an_object():
    assert evaluate([1, 2])["key"] == "request"


# --- measurement --------------------------------------------------------------------------


def test_clinometer_eye_height_correction():
    # line of sight 10 % to a mark 4.5 ft up from an eye 5.5 ft up, 50 ft away:
    # the ground rises 10 + 100·(5.5 - 4.5)/50 = 12 %.
    r = clinometer(50.0, reading_pct=10.0, eye_height_ft=5.5, target_height_ft=4.5)
    assert r.slope_pct == pytest.approx(12.0) and r.slope_deg == pytest.approx(math.degrees(math.atan(0.12)))
    # 5.7106° = atan(0.1): the same reading in degrees
    r = clinometer(50.0, reading_deg=math.degrees(math.atan(0.1)), eye_height_ft=5.5, target_height_ft=4.5)
    assert r.slope_pct == pytest.approx(12.0) and r.interpretations == ("horizontal-distance",)


def test_measure_reductions():
    assert pct_from_deg(45.0) == pytest.approx(100.0)
    assert deg_from_pct(-100.0) == pytest.approx(-45.0)
    # 3-4-5 triangle: 50 ft slope distance at 75 % slope is 40 ft horizontal.
    assert horizontal_from_slope_distance(50.0, 75.0) == pytest.approx(40.0)


# --- the command line ---------------------------------------------------------------------


def run_cli(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "fieldapp", "rules", *args], capture_output=True, text=True,
                          cwd=REPO_ROOT, input=stdin, timeout=120)


def test_cli_list_with_one_error(tmp_path):
    requests = [EXAMPLES[0][0], {"rule": "nr341.bank", "input": {"priority": 1, "segments": []}}, EXAMPLES[2][0]]
    path = tmp_path / "requests.json"
    path.write_text(json.dumps(requests))
    proc = run_cli("evaluate", str(path))
    assert proc.returncode == 1, proc.stderr
    results = json.loads(proc.stdout)
    assert [r["status"] for r in results] == ["determined", "error", "determined"]
    assert results[0]["bank_ft"] == 90.0 and results[1]["key"] == "input.priority" and results[2]["width_ft"] == 26.0


def test_cli_single_request(tmp_path):
    path = tmp_path / "one.json"
    path.write_text(json.dumps(EXAMPLES[1][0]))
    proc = run_cli("evaluate", str(path))
    assert proc.returncode == 0, proc.stderr
    (result,) = json.loads(proc.stdout)
    assert result["walk_further_ft"] == 5.0


def test_cli_unreadable_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    proc = run_cli("evaluate", str(bad))
    assert proc.returncode == 2 and "cannot read" in proc.stderr


def test_cli_reads_what_windows_tools_save(tmp_path, capsys):
    """A request saved by Windows PowerShell 5 (``>`` / ``Out-File``: UTF-16 with its
    byte-order mark) is read; one saved as ANSI (cp1252) is refused in words that say how to
    save it, not in Python's codec message."""
    from fieldapp.rules.cli import main

    request = dict(EXAMPLES[1][0], note="Müller – Łąka")
    text = json.dumps(request, ensure_ascii=False)
    utf16 = tmp_path / "powershell.json"
    utf16.write_bytes(text.encode("utf-16"))
    assert main(["evaluate", str(utf16), "--indent", "-1"]) == 0
    (result,) = json.loads(capsys.readouterr().out)
    assert result["walk_further_ft"] == 5.0
    ansi = tmp_path / "ansi.json"
    ansi.write_bytes(json.dumps(dict(EXAMPLES[1][0], note="Müller"), ensure_ascii=False).encode("cp1252"))
    assert main(["evaluate", str(ansi)]) == 2
    err = capsys.readouterr().err
    at = ansi.read_bytes().index("ü".encode("cp1252"))
    assert err == (f"fieldapp rules evaluate: cannot read {ansi}: not UTF-8 text (byte 0xfc at"
                   f" position {at}: saved as ANSI / cp1252?): save it as UTF-8 (Notepad: File ›"
                   " Save as, Encoding UTF-8)\n")


# --- purity: no Qt, no storage ------------------------------------------------------------


def test_rules_import_no_qt_and_no_storage():
    code = (
        "import importlib, pkgutil, sys, fieldapp.rules as m\n"
        "for info in pkgutil.walk_packages(m.__path__, 'fieldapp.rules.'):\n"
        "    importlib.import_module(info.name)\n"
        "bad = sorted(n for n in sys.modules if n.split('.')[0] in "
        "('PySide6', 'shiboken6', 'pyqtgraph', 'sqlite3', '_sqlite3', 'pyogrio') or n.startswith('fieldapp.store'))\n"
        "print(bad)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO_ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


@pytest.mark.parametrize("module", ["compare", "measure", "nr341", "nr151", "city", "contract"])
def test_docstring_examples(module, request):
    """These modules keep worked examples in their docstrings, and the run collects them: the
    examples themselves run once, as doctests of ``fieldapp/rules`` (``--doctest-modules`` and
    ``testpaths`` in pyproject.toml), not a second time here."""
    import doctest
    import importlib

    mod = importlib.import_module(f"fieldapp.rules.{module}")
    examples = sum(len(t.examples) for t in doctest.DocTestFinder().find(mod))
    assert examples > 0, f"fieldapp/rules/{module}.py has no docstring examples"
    config = request.config
    assert config.getoption("doctestmodules"), "--doctest-modules is gone from addopts: no example runs"
    assert "fieldapp" in config.getini("testpaths"), "fieldapp is gone from testpaths: no example runs"
