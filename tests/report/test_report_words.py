"""Issue 35 items 14 and 16 in the report's text: the instruments named although the crew typed
no serials, every tree listed, keys in words, the fix quality without its GGA code, and the rule
sets the site is checked against."""

from __future__ import annotations

import unicodedata

import pytest

from tests.report.sample_visit import build_sample_visit

pypdf = pytest.importorskip("pypdf")


def report_text(path, out):
    from fieldapp.report import build_report

    build_report(path, out)
    reader = pypdf.PdfReader(out)
    return unicodedata.normalize("NFKC", " ".join(" ".join(p.extract_text() for p in reader.pages)
                                                  .split()))


@pytest.fixture(scope="module")
def sample(tmp_path_factory, qapp):
    folder = tmp_path_factory.mktemp("words")
    path = folder / "mill-creek.gpkg"
    info = build_sample_visit(path)
    return path, info, report_text(path, folder / "report.pdf")


def test_report_lists_every_tree_and_says_keys_in_words(sample):
    path, _info, t = sample
    assert "Trees Every tree tallied, by tag" in t
    assert "Tag Species DBH (in) Leaf habit Crown radius (ft) Status Easting" in t
    assert "1 sugar maple 10.0 deciduous" in t
    # 4 stems on the 200 x 200 ft stand (0.918 ac): 4.4 stems/ac, the Tally tab's words
    assert "4 live stems inside, 4.4 stems/ac, basal area" in t and "trees/ac" not in t
    # woodland.class's input lists the trees of a grove polygon (none drawn), not the tally
    assert "grove trees none" in t and " trees none" not in t.replace("grove trees none", "")
    assert "bank_ft_at_least" not in t and "bank at least (ft)" in t
    assert "_ft" not in t and "_pct" not in t and "_in " not in t
    assert "4 RTK fixed" not in t and "RTK fixed" in t
    # the rule sets for this site: the sample's OHWM points lie at 44.5 N, 90.0 W (Wood County)
    assert ("Rules checked State (Wisconsin): NR 341.035 bank determination; NR 151.125"
            " protective areas. They apply: the site is in Wood County, Wisconsin. Local (City of"
            " Decorah, Winneshiek County, Iowa): resource protection chapter, Ord. 952 (1993): the"
            " one local chapter the app carries, checked at every site as its local"
            " resource-protection ordinance (chosen for the app; it is the law only inside the"
            " City of Decorah).") in t


def test_devices_named_from_readings_when_no_serials_were_typed(tmp_path, qapp):
    path = tmp_path / "v.gpkg"
    build_sample_visit(path)
    import sqlite3

    with sqlite3.connect(path) as conn:       # the crew typed no names or serials
        conn.execute("UPDATE site SET device_ids = '[]'")
    t = report_text(path, tmp_path / "r.pdf")
    head = t.split("Waterway")[0]
    assert "Devices –" not in head
    assert "GNSS receiver (NMEA 0183; 3 averaged OHWM points)" in head
    assert ("Their names and serial numbers were not recorded (the site's form: Records tab, Site,"
            " F4).") in head


def test_units_note_states_the_crs_unit_and_the_reports_foot_once(sample):
    _path, _info, t = sample
    assert ("whose coordinates are in metres. This report gives every position and length in"
            " international ft (0.3048 m): map and rule-request coordinates are the site CRS's"
            " coordinates in that foot (its metres divided by 0.3048), called grid feet") in t
    assert "coordinate unit metre" not in t
