"""The report's appendix of instrument readings: each tree and station recorded from the
caliper or the rangefinder with the sentences as received; no section without kept readings."""

from __future__ import annotations

import shutil
import subprocess
from datetime import UTC, datetime

import pytest

from devices.readings import CaliperReading, LengthUnit, RangefinderShot, ShotKind
from fieldapp.report.readings import raw_words, reading_records, readings_section
from fieldapp.store import create_visit
from fieldapp.survey.visit import Visit

CALIPER_RAW = b"$PHGF,SPC,3,RO,*00\n$PHGF,DIA,M,312,*1A"
SHOT_RAW = b"$PLTIT,HV,30.00,F,0.00,D,2.29,D,30.02,F*6A"
T0 = datetime(2024, 6, 3, 15, 0, 0, tzinfo=UTC)
X, Y = 500_000.0, 4_800_000.0


def _visit_file(path) -> None:
    v = Visit.new("Readings lot", crs="EPSG:32616", who="crew@laptop", clock=lambda: T0)
    v.add_tree(x=X, y=Y, caliper=CaliperReading(dbh_in=312 / 25.4, dbh_cm=31.2, species_number=3,
                                                species_label="RO", raw=CALIPER_RAW))
    v.add_tree(x=X + 10, y=Y, dbh_in=9.0)            # typed: no reading
    p = v.add_ohwm_offset_point((X, Y), 90.0, horizontal_ft=10.0)
    t = v.add_transect(0.0, ohwm_point_uuid=p.uuid, label="T1")
    v.add_station(t.uuid, shot=RangefinderShot.build(kind=ShotKind.HV, protocol="trupulse",
                                                     units=LengthUnit.FEET, horizontal=30.0,
                                                     slope=30.02, inclination_deg=2.29, raw=SHOT_RAW))
    create_visit(path, v).close()


def _pdftotext(path) -> str:
    tool = shutil.which("pdftotext")
    if tool is None:
        pytest.skip("pdftotext is not installed")
    return subprocess.run([tool, "-layout", str(path), "-"], capture_output=True, text=True, check=True).stdout


def test_raw_words_keep_every_byte():
    assert raw_words(CALIPER_RAW) == "$PHGF,SPC,3,RO,*00\n$PHGF,DIA,M,312,*1A"
    assert raw_words(b"$A,\xb0\x07*00") == "$A,\\xb0\\x07*00"


def test_the_appendix_names_each_record_with_its_sentences(tmp_path, qapp):
    from fieldapp.report.content import gather, load_visit
    from fieldapp.report.document import write_pdf

    path = tmp_path / "v.gpkg"
    _visit_file(path)
    visit = load_visit(path)
    made = reading_records(visit)
    assert sorted(made.values()) == ["Transect T1 station at 30.0 ft", "Tree 1"]
    content = gather(visit, path, conflicts=[])
    pdf = tmp_path / "r.pdf"
    write_pdf(content, str(pdf), step=lambda f, m: None)
    text = _pdftotext(pdf)
    appendix = text[text.index("Instrument readings"):]
    for sentence in ("$PHGF,SPC,3,RO,*00", "$PHGF,DIA,M,312,*1A", "$PLTIT,HV,30.00,F,0.00,D,2.29,D,30.02,F*6A"):
        assert sentence in appendix, sentence
    # a table row per reading (cells wrap): the record, the instrument, the time, the id's start
    tree_row = next(ln for ln in appendix.splitlines() if ln.startswith("Tree 1 "))
    assert tree_row.split()[2:4] == ["caliper", "2024-06-03"] and "$PHGF,SPC,3,RO,*00" in tree_row
    assert tree_row.split()[-1] == visit.trees()[0].caliper_reading_id[:8]
    for words in ("(digitech)", "rangefinder", "(trupulse)", "15:00:00 UTC", "Transect T1"):
        assert words in appendix, words
    assert "(2\nreadings;" in appendix or "(2 readings;" in appendix


def test_no_appendix_without_kept_readings(tmp_path):
    from fieldapp.report.content import ReportContent

    v = Visit.new("Typed lot", crs="EPSG:32616", who="crew@laptop", clock=lambda: T0)
    v.add_tree(x=X, y=Y, dbh_in=9.0)

    class Content:           # readings_section reads only the visit
        visit = v

    assert readings_section(Content(), 500.0) == []  # type: ignore[arg-type]
    assert "visit" in ReportContent.__dataclass_fields__
