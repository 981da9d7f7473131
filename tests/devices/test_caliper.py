"""Caliper: the raw Digitech capture, the Masser export, the species table."""

from __future__ import annotations

import json

import pytest

from devices.caliper import (
    CaliperAssembler,
    CaliperDiameter,
    CaliperSpecies,
    LeafHabit,
    Species,
    SpeciesTable,
    SpeciesTableError,
    read_digitech_capture,
    read_masser,
)

CAPTURE = "data/devices/stichprobenauswertung-haglof-serial_bluetooth.txt"
MASSER = "data/devices/stichprobenauswertung-masser-kluppfall.txt"

# Diameters in the capture, in order, read off the DIA lines by eye: six SPC/DIA pairs, then
# (after junk and a stray LEN) one more SPC/DIA pair in Python b'' reprs.
CAPTURE_MM = [345, 144, 236, 84, 269, 129, 345]


def test_raw_digitech_capture_yields_its_trees(shared_dir):
    trees, counts = read_digitech_capture((shared_dir / CAPTURE).read_bytes())
    assert [round(t.dbh_cm * 10) for t in trees] == CAPTURE_MM
    assert all(t.species_number == 1 and t.species_label == "1 Fi SB" for t in trees)
    # 345 mm / 25.4 = 13.583 in
    assert trees[0].dbh_in == pytest.approx(13.5827, abs=1e-4)
    assert counts["trees"] == 7
    # junk: test1..test4, "$PHGF,test5", "$test6", the b'' and \r\n' texts -> dropped bytes;
    # "$PHGF,test5" and "$test6" are sentence starts that never completed
    assert counts["discarded_fragments"] == 2
    assert counts["discarded_bytes"] == 143
    # the two LEN lines follow no waiting tree in the default mode
    assert counts["length_without_tree"] == 2


def test_capture_with_lengths_attaches_len_to_its_tree(shared_dir):
    trees, counts = read_digitech_capture((shared_dir / CAPTURE).read_bytes(), sends_length=True)
    assert [round(t.dbh_cm * 10) for t in trees] == CAPTURE_MM
    assert trees[5].length_dm == 193.0  # "$PHGF,DIA,M,129" then "$PHGF,LEN,M,193"
    assert [t.length_dm for t in trees if t is not trees[5]] == [None] * 6
    assert counts["length_without_tree"] == 1  # the second, stray LEN


def test_species_table_maps_code_name_habit(tmp_path):
    table = SpeciesTable([
        Species("PIAB", "Norway spruce", LeafHabit.EVERGREEN, 1, "1 Fi SB"),
        Species("ACSA3", "sugar maple", LeafHabit.DECIDUOUS, 2, "SM"),
    ])
    path = tmp_path / "species.json"
    path.write_text(json.dumps(table.to_dict()))
    loaded = SpeciesTable.load(path)
    asm = CaliperAssembler(loaded)
    assert asm.feed(CaliperSpecies(1, "1 Fi SB")) == []
    (tree,) = asm.feed(CaliperDiameter(254))
    assert (tree.species_code, tree.common_name, tree.leaf_habit) == (
        "PIAB", "Norway spruce", "evergreen")
    assert tree.dbh_in == pytest.approx(10.0)  # 254 mm = 10 in exactly
    # the species stays selected for the next tree
    (tree2,) = asm.feed(CaliperDiameter(300))
    assert tree2.species_code == "PIAB"
    # unmapped species: codes stay None
    asm.feed(CaliperSpecies(7, "??"))
    (tree3,) = asm.feed(CaliperDiameter(300))
    assert tree3.species_code is None and tree3.species_number == 7


def test_species_table_errors_name_the_entry(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"species": [{"caliper": 1, "code": "X", "leaf_habit": "sometimes"}]}')
    with pytest.raises(SpeciesTableError, match="species entry 0"):
        SpeciesTable.load(bad)
    bad.write_text("{not json")
    with pytest.raises(SpeciesTableError, match="not JSON"):
        SpeciesTable.load(bad)


def test_masser_export(shared_dir):
    result = read_masser(shared_dir / MASSER)
    # counted with awk: B lines per P block -> plot 1111: 303, plot 1112: 116
    assert [(p.plot_id, len(p.trees)) for p in result.plots] == [("1111", 303), ("1112", 116)]
    assert result.skipped == []
    first = result.plots[0].trees[0]  # "B0127900,208": species 01, 279 mm
    assert first.species_number == 1
    assert first.dbh_cm == pytest.approx(27.9)
    assert first.dbh_in == pytest.approx(279 / 25.4)
    assert first.common_name == "Norway spruce"
    odd = [t for t in result.plots[1].trees if t.species_number == 3]  # "B0350500,208"
    assert [t.dbh_cm for t in odd] == [50.5]
    assert odd[0].leaf_habit == "evergreen"  # Douglas-fir


def test_masser_species_codes_are_configurable():
    table = SpeciesTable([Species("FAGR", "American beech", LeafHabit.DECIDUOUS, 11)])
    result = read_masser(["P1234000700,097", "B1120200,208", "X junk", "E1,1"], table)
    (tree,) = result.plots[0].trees
    assert (tree.species_code, tree.dbh_cm) == ("FAGR", 20.2)
    assert result.skipped == [(3, "line type 'X' not used")]
