"""The report's pages as an office reviewer checks them: qpdf --check clean, each section
heading found by pdftotext exactly once, bookmarks per section, coordinates in the site CRS's
own unit with latitude/longitude, numbers and times whole in their cells, notes in full, the
certification block, and a legend that lists what the map draws."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.report.sample_visit import build_sample_visit

pypdf = pytest.importorskip("pypdf")

LONG_NOTE = ("Culvert outlet scoured 2 ft below the apron; riprap displaced downstream for about 40 ft, "
             "check again after the spring melt")
SECTIONS = ["Verdicts at a glance", "Site map", "Transect profiles (NR 341.035)", "Tally and woodland",
            "Wetlands and protective areas", "Verdicts in detail", "GNSS quality per recorded point",
            "Sync conflicts", "Notes", "Reproducing the verdicts", "Certification"]


def _tool(name: str) -> str:
    if os.name == "nt":
        pytest.skip(f"{name} (Debian's qpdf / poppler-utils) checks the PDF in the Linux stage of .ci/run")
    path = shutil.which(name)
    if path is None:        # .ci/run installs it: under CI a missing tool fails, never skips
        (pytest.fail if os.environ.get("CI") else pytest.skip)(f"{name} is not installed")
    return path


@pytest.fixture(scope="module")
def pdf(tmp_path_factory, qapp):
    from fieldapp.report import build_report
    from fieldapp.store import open_visit

    folder = tmp_path_factory.mktemp("pages")
    visit = folder / "mill-creek.gpkg"
    info = build_sample_visit(visit)
    with open_visit(visit) as store:
        from fieldapp.survey import Layer

        note = store.visit.features(Layer.NOTE)[0]
        store.visit.add_note(LONG_NOTE, x=note.x + 10.0, y=note.y)
    out = folder / "report.pdf"
    build_report(visit, out)
    return dict(info, out=out)


def _text(path: Path, *args: str) -> str:
    run = subprocess.run([_tool("pdftotext"), *args, str(path), "-"], capture_output=True, text=True, check=True)
    return run.stdout


def test_qpdf_check_is_clean(pdf):
    run = subprocess.run([_tool("qpdf"), "--check", str(pdf["out"])], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "No syntax or stream encoding errors found" in run.stdout


def test_pdftotext_finds_each_section_heading_exactly_once(pdf):
    lines = [ln.strip() for ln in _text(pdf["out"]).splitlines()]
    for heading in SECTIONS:
        assert lines.count(heading) == 1, (heading, lines.count(heading))
    assert "\ufb01" not in "".join(lines)  # no "fi" ligature glyphs: words read as written


def test_bookmarks_per_section(pdf):
    reader = pypdf.PdfReader(pdf["out"])
    top = [o.title for o in reader.outline if not isinstance(o, list)]
    assert [s for s in SECTIONS if s in top] == SECTIONS
    pages = {o.title: reader.get_destination_page_number(o) for o in reader.outline if not isinstance(o, list)}
    # in reading order, the site map after the first page's summary, the certification last
    in_order = [pages[s] for s in SECTIONS if s in pages]
    assert in_order == sorted(in_order)
    assert pages["Site map"] >= 1 and pages["Certification"] == len(reader.pages) - 1


def test_coordinates_in_the_site_crs_unit_with_lat_lon_and_whole_cells(pdf):
    t = _text(pdf["out"])
    # EPSG:3070 is in metres: the OHWM points at E 519,960 / 520,000 / 520,040 m, 44.5 N
    # (the sample visit puts them 40 m apart on y0); never metres / 0.3048
    assert "NAD83 / Wisconsin Transverse Mercator (EPSG:3070), in its own unit (m)" in " ".join(t.split())
    assert "Easting (m)" in t and "Northing (m)" in t
    for number in ("519,960.000", "520,000.000", "520,040.000", "44.50000000", "-90.00000000"):
        assert number in t.split(), number  # whole, in one cell line
    assert "1,705,905" not in t  # 519,960 m / 0.3048 would be a grid no GIS knows
    times = re.findall(r"\b\d\d:\d\d:\d\d\b", t)
    assert times, "fix times are printed whole"
    assert "Susceptibility" in t.split()


def test_notes_in_full_and_the_certification_block(pdf):
    # -raw: the text in the order it is drawn, cell by cell (the default reading order
    # interleaves a wrapped cell's lines with the next column's)
    assert LONG_NOTE in " ".join(_text(pdf["out"], "-raw").split())
    flat = " ".join(_text(pdf["out"]).split())
    for words in ("Name", "Registration or licence number", "Firm", "Date", "Signature"):
        assert words in flat
    assert "A. Surveyor, B. Forester" in flat and "R12i 6012" in flat  # crew and devices
    assert "Magnetic declination" in flat


def test_legend_lists_exactly_what_is_drawn():
    from shapely.geometry import LineString

    from fieldapp.report.content import MapLayers
    from fieldapp.report.drawing import legend_items

    m = MapLayers(ohwm=[("OHWM", LineString([(0, 0), (10, 0)]))])
    assert [t for t, _, _ in legend_items(m)] == ["OHWM"]
    m.notes = [(1.0, 1.0, "a note")]
    m.bank_points = [("T1", 5.0, 5.0, True)]
    m.lines = [("swale", "S1", LineString([(0, 5), (10, 5)]))]
    texts = [t for t, _, _ in legend_items(m)]
    assert texts == ["OHWM", "Bank point (open: needs data)", "Swale", "Note (number: the notes table)"]
