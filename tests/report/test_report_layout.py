"""The report's tables and headings on paper (reportlab Platypus): a cell never breaks inside a
number, time or word; a row never splits across a page and the header row repeats; a heading
near the foot of a page moves to the next page with its content. Checked in the PDF's own text
(pdftotext, page by page) and in the column widths against the font's own measure."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from reportlab.lib.units import mm
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.platypus import SimpleDocTemplate, Spacer

from fieldapp.report.layout import FONT, KEEP_WITH_NEXT_MM, Heading, column_widths, heading, para, table


def _pages(path, raw: bool = True) -> list[str]:
    tool = shutil.which("pdftotext")
    if tool is None:
        pytest.skip("pdftotext is not installed")
    text = subprocess.run([tool, *(["-raw"] if raw else []), str(path), "-"], capture_output=True, text=True,
                          check=True).stdout
    return text.split("\f")[:-1]


class _Doc(SimpleDocTemplate):
    """Records the page of every heading drawn."""

    def __init__(self, path):
        super().__init__(str(path), leftMargin=20 * mm, rightMargin=20 * mm, topMargin=20 * mm,
                         bottomMargin=20 * mm)
        self.heading_pages: dict[str, int] = {}

    def afterFlowable(self, flowable):  # noqa: N802
        if isinstance(flowable, Heading):
            self.heading_pages[flowable.title] = self.page


LONG = [["OHWM 1", "196346.123 / 1.86", "07:27:08", "Susceptibility", "4 RTK fixed WIDOT1, 1.4 s"],
        ["OHWM 2", "4927735.456 / 12.05", "23:59:59", "more susceptible", "5 RTK float"]]


@pytest.mark.parametrize("width_mm, size_pt", [(120, 9.0), (75, 6.5)])
def test_a_narrow_table_never_breaks_a_number_time_or_word(tmp_path, width_mm, size_pt):
    doc = _Doc(tmp_path / "t.pdf")
    # five columns in 120 mm: the long cells wrap, between words only; in 75 mm the longest
    # words at 9 pt are wider than the table, so it is set at 6.5 pt (the largest that fits)
    t = table(["Line", "Easting / HDOP", "Fix time (UTC)", "Susceptibility", "Worst fix"], LONG, width_mm * mm)
    assert sum(t._colWidths) == pytest.approx(width_mm * mm)
    assert t._cellvalues[1][1].style.fontSize == size_pt
    doc.build([t])
    words = _pages(tmp_path / "t.pdf")[0].split()
    for token in ("196346.123", "1.86", "07:27:08", "Susceptibility", "4927735.456", "12.05", "23:59:59",
                  "susceptible", "WIDOT1,"):
        assert token in words, token
    assert "196346" not in words and "07:27:0" not in words and "Susceptibil" not in words


def test_column_widths_hold_the_longest_word_in_bold():
    cells = [["Line", "Fix time (UTC)", "Susceptibility"], *[r[:1] + r[2:4] for r in LONG]]
    widths = column_widths(cells, 80 * mm, 9)
    bold = FONT + "-Bold"
    # each column at least its longest word at 9 pt bold plus the cell padding (2 + 2 + 1 pt)
    assert widths[1] >= stringWidth("07:27:08", bold, 9) + 5
    assert widths[2] >= stringWidth("Susceptibility", bold, 9) + 5
    assert sum(widths) == pytest.approx(80 * mm)
    # words alone wider than the room: no widths (the table is then set in a smaller type)
    assert column_widths(cells, 20 * mm, 9) is None


def test_rows_never_split_and_the_header_repeats(tmp_path):
    doc = _Doc(tmp_path / "r.pdf")
    rows = [[f"row {i}", " ".join(f"line{i}x{k}" for k in range(12))] for i in range(60)]
    doc.build([table(["Row", "Words"], rows, 60 * mm)])
    pages = _pages(tmp_path / "r.pdf")
    assert len(pages) >= 3
    for i in range(60):
        holding = [n for n, p in enumerate(pages) if f"line{i}x" in p]
        # all twelve words of the row on one page (the row moved whole)
        assert len(holding) == 1, (i, holding)
        assert all(f"line{i}x{k}" in pages[holding[0]].split() for k in range(12))
    for p in pages:
        assert p.split()[:2] == ["Row", "Words"]  # the header row at the top of every page


@pytest.mark.parametrize("room_mm, page", [(KEEP_WITH_NEXT_MM - 8, 2), (KEEP_WITH_NEXT_MM + 20, 1)])
def test_a_heading_keeps_with_its_table(tmp_path, room_mm, page):
    doc = _Doc(tmp_path / "h.pdf")
    story = [Spacer(1, doc.height - room_mm * mm), *heading("Wetlands", 1),
             table(["Wetland", "Area (ac)"], [[f"W{i}", "1.250"] for i in range(40)], doc.width)]
    doc.build(story)
    assert doc.heading_pages["Wetlands"] == page
    pages = _pages(tmp_path / "h.pdf")
    on = pages[page - 1].split()
    # the heading, the header row and the first row together on the heading's page
    assert on[:4] == ["Wetlands", "Wetland", "Area", "(ac)"] and "W0" in on
    if page == 2:
        assert pages[0].split() == []  # nothing left behind at the foot of page 1


def test_a_heading_keeps_with_its_paragraph(tmp_path):
    doc = _Doc(tmp_path / "p.pdf")
    words = " ".join(["The text under the heading."] * 20)
    doc.build([Spacer(1, doc.height - 12 * mm), *heading("Units", 2, para(words))])
    assert doc.heading_pages["Units"] == 2


def test_a_heading_keeps_with_a_tall_first_row(tmp_path):
    from fieldapp.report.layout import keep_headings_with_tables

    doc = _Doc(tmp_path / "t.pdf")
    tall = " ".join(["word"] * 400)  # one row about 60 mm tall in 80 mm
    story = [Spacer(1, doc.height - (KEEP_WITH_NEXT_MM + 15) * mm), *heading("Tree tag 21", 2),
             table(None, [[tall]], 80 * mm)]
    assert keep_headings_with_tables(story, doc.width) == 1
    doc.build(story)
    assert doc.heading_pages["Tree tag 21"] == 2
