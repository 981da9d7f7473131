"""The report's type and tables on paper (reportlab Platypus; no Qt).

Fonts, paragraph styles and the two pieces every section is made of:

- :func:`heading` — a section (level 1) or subsection (level 2) heading that keeps with its
  content: a ``CondPageBreak`` of :data:`KEEP_WITH_NEXT_MM` before it (Platypus starts a new
  page when less room is left) and a ``KeepTogether`` with the first flowables that follow it;
  :func:`keep_headings_with_tables` grows that room to hold a following table's first row;
- :func:`table` — a Platypus ``Table`` of ``Paragraph`` cells whose header row repeats on each
  page (``repeatRows``) and whose rows never split across a page (``splitInRow=0``). Cells wrap
  between words only (``splitLongWords=0``): each column is at least as wide as its longest
  word, number or time (:func:`column_widths`), so "196346.123" or "07:27:08" is never cut.
  A table too wide for the page at 9 pt is set smaller, down to 6 pt.

Markup inside cells and paragraphs is Platypus' own (``<b>``, ``<i>``, ``<br/>``,
``<font color>``); :func:`esc` escapes recorded text for it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any, TypeAlias
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.enums import TA_LEFT, TA_RIGHT
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.platypus import CondPageBreak, Flowable, KeepTogether, Paragraph, Table, TableStyle

__all__ = ["fmt", "esc", "status_markup", "heading", "keep_headings_with_tables", "para", "small", "table",
           "column_widths", "KEEP_WITH_NEXT_MM", "FONT", "styles", "Heading"]

#: Room (mm) a heading needs below it on the page, or it starts the next page with its content.
KEEP_WITH_NEXT_MM = 32.0
FONT = "FieldappSans"
BODY_PT = 9.0
MIN_TABLE_PT = 6.0
CELL_PAD = 2.0  # points, each side

#: a Platypus table style command: (name, first cell, last cell, values...), e.g.
#: ``("GRID", (0, 0), (-1, -1), 0.4, colour)``
TableCommand: TypeAlias = "tuple[str, tuple[int, int], tuple[int, int], *tuple[Any, ...]]"

STATUS_COLOUR = {"determined": "#1b5e20", "needs_data": "#b26a00", "exempt": "#1565c0",
                 "error": "#b71c1c", "provisional": "#5b2a86"}

_DEJAVU = {"": "DejaVuSans.ttf", "-Bold": "DejaVuSans-Bold.ttf", "-Oblique": "DejaVuSans-Oblique.ttf",
           "-BoldOblique": "DejaVuSans-BoldOblique.ttf"}
_ARIAL = {"": "arial.ttf", "-Bold": "arialbd.ttf", "-Oblique": "ariali.ttf", "-BoldOblique": "arialbi.ttf"}
_VERA = {"": "Vera.ttf", "-Bold": "VeraBd.ttf", "-Oblique": "VeraIt.ttf", "-BoldOblique": "VeraBI.ttf"}


def _font_files() -> dict[str, str]:
    """The four faces of a sans-serif that has every character the report prints (≥ – ° σ ×,
    a site's Polish or Czech letters): DejaVu Sans (Linux, or matplotlib's copy), else Arial
    (Windows), else DejaVu Sans installed on Windows; else the Bitstream Vera reportlab ships,
    which lacks σ and letters such as ą and ł (they print as blanks): logged as a warning."""
    windows = Path(os.environ.get("WINDIR", "C:/Windows")) / "Fonts"
    places = [(Path("/usr/share/fonts/truetype/dejavu"), _DEJAVU), (Path("/usr/share/fonts/dejavu"), _DEJAVU),
              (Path("/usr/share/fonts/TTF"), _DEJAVU), (windows, _ARIAL), (windows, _DEJAVU),
              (Path("/Library/Fonts"), _ARIAL), (Path("/System/Library/Fonts/Supplemental"), _ARIAL)]
    try:
        import matplotlib

        places.insert(0, (Path(matplotlib.__file__).parent / "mpl-data" / "fonts" / "ttf", _DEJAVU))
    except ImportError:
        pass
    for folder, faces in places:
        if all((folder / f).is_file() for f in faces.values()):
            return {k: str(folder / f) for k, f in faces.items()}
    import logging

    import reportlab

    logging.getLogger(__name__).warning(
        "no DejaVu Sans or Arial found: the report uses Bitstream Vera, which lacks σ and letters"
        " such as ą and ł (they print blank); install DejaVu Sans to print them")
    base = Path(reportlab.__file__).parent / "fonts"
    return {k: str(base / f) for k, f in _VERA.items()}


def register_fonts() -> str:
    """Register the report's font family (once) and return its name, :data:`FONT`."""
    if FONT in pdfmetrics.getRegisteredFontNames():
        return FONT
    files = _font_files()
    for suffix, path in files.items():
        pdfmetrics.registerFont(TTFont(FONT + suffix, path))
    pdfmetrics.registerFontFamily(FONT, normal=FONT, bold=FONT + "-Bold", italic=FONT + "-Oblique",
                                  boldItalic=FONT + "-BoldOblique")
    return FONT


def fmt(v: Any, nd: int = 1, unit: str = "") -> str:
    """A value for the page: floats with ``nd`` decimals and thousands commas, booleans as
    yes/no, None as an en dash.

    >>> fmt(135308.2345, 1, " sq ft")
    '135,308.2 sq ft'
    """
    if v is None:
        return "–"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:,.{nd}f}{unit}"
    if isinstance(v, int):
        return f"{v:,}{unit}"
    return f"{v}{unit}"


def esc(text: Any) -> str:
    """Recorded text made safe for Platypus markup (``&``, ``<``, ``>``)."""
    return escape(str(text))


def status_markup(status: str, words: str) -> str:
    """A verdict's status in its colour, bold."""
    return f'<font color="{STATUS_COLOUR.get(status, "#000000")}"><b>{esc(words)}</b></font>'


def _style(name: str, size: float = BODY_PT, **kw: Any) -> ParagraphStyle:
    register_fonts()
    kw.setdefault("fontName", FONT)
    return ParagraphStyle(name, fontSize=size, leading=size * 1.25, splitLongWords=0, **kw)


_STYLES: dict[str, ParagraphStyle] = {}


def styles() -> dict[str, ParagraphStyle]:
    """The paragraph styles: body, small, h1, h2, h3, cell, cell_num, head (table header)."""
    if not _STYLES:
        _STYLES.update(
            body=_style("body", spaceAfter=3),
            small=_style("small", 7.5, textColor=colors.HexColor("#333333"), spaceBefore=2, spaceAfter=3),
            h1=_style("h1", 16, fontName=FONT + "-Bold", spaceAfter=5),
            h2=_style("h2", 12.5, fontName=FONT + "-Bold", textColor=colors.HexColor("#10365c"),
                      spaceBefore=9, spaceAfter=4),
            h3=_style("h3", 10.5, fontName=FONT + "-Bold", spaceBefore=7, spaceAfter=3),
        )
    return _STYLES


class Heading(Paragraph):
    """A section heading: ``level`` 1 (section) or 2 (subsection); ``title`` is its plain text,
    the PDF bookmark's title."""

    def __init__(self, title: str, level: int) -> None:
        super().__init__(esc(title), styles()["h2" if level == 1 else "h3"])
        self.title, self.level = title, level


def heading(title: str, level: int = 1, *first: Flowable) -> list[Flowable]:
    """A heading that keeps with its content: a conditional page break of
    :data:`KEEP_WITH_NEXT_MM`, then the heading kept together with ``first`` (its intro
    paragraph or figure, if any)."""
    h = Heading(title, level)
    return [CondPageBreak(KEEP_WITH_NEXT_MM * mm), KeepTogether([h, *first]) if first else h]


def keep_headings_with_tables(story: list[Flowable], width: float) -> int:
    """Make each heading's conditional page break ask for room for the heading, its kept
    content and the first row of a table that follows (with the header row), measured by
    Platypus' own ``wrap``: a heading is never left at a page's foot above a table whose first
    row went to the next page. Changes ``story`` in place; returns how many breaks grew."""
    grown = 0
    for i in range(len(story) - 2):
        brk, head, nxt = story[i:i + 3]
        if not (isinstance(brk, CondPageBreak) and isinstance(nxt, Table)):
            continue
        # KeepTogether keeps its flowables in ``_content`` (not in reportlab's stubs)
        parts: list[Flowable] = head._content if isinstance(head, KeepTogether) else [head]  # type: ignore[attr-defined]
        need = 0.0
        for f in parts:
            need += f.wrap(width, 1e6)[1] + f.getSpaceBefore() + f.getSpaceAfter()
        nxt.wrap(width, 1e6)
        # the row heights ``wrap`` just measured (``_rowHeights``, not in reportlab's stubs)
        heights: list[float] = nxt._rowHeights  # type: ignore[attr-defined]
        need += sum(heights[:nxt.repeatRows + 1]) + 6.0
        if need > brk.height:
            brk.height = need
            grown += 1
    return grown


def para(markup: str, style: str = "body") -> Paragraph:
    return Paragraph(markup, styles()[style])


def small(markup: str) -> Paragraph:
    return Paragraph(markup, styles()["small"])


_TAG = re.compile(r"<[^>]+>")
_BR = re.compile(r"<br\s*/?>", re.I)


def _plain_lines(markup: str) -> list[str]:
    """The text lines of a cell's markup (``<br/>`` splits, tags dropped, entities read)."""
    from html import unescape

    return [unescape(_TAG.sub("", part)) for part in _BR.split(markup)]


def column_widths(cells: Sequence[Sequence[str]], width: float, size: float, full: bool = True) -> list[float] | None:
    """Column widths (points) for ``cells`` (rows of markup, the header first) in ``width``
    points at ``size`` pt: every column at least its longest word (bold face, so a word never
    breaks), the rest shared in proportion to how much more each column's longest line needs.
    None when the longest words alone are wider than ``width``.

    >>> [round(w) for w in column_widths([["a", "b"]], 100, 9)]
    [50, 50]
    """
    bold = FONT + "-Bold"
    register_fonts()
    n = max(len(r) for r in cells)
    lo, hi = [0.0] * n, [0.0] * n
    for row in cells:
        for i, cell in enumerate(row):
            for line in _plain_lines(str(cell)):
                words = line.split() or [""]
                lo[i] = max(lo[i], max(pdfmetrics.stringWidth(w, bold, size) for w in words))
                hi[i] = max(hi[i], pdfmetrics.stringWidth(line, bold, size))
    pad = 2 * CELL_PAD + 1.0
    lo = [v + pad for v in lo]
    hi = [max(v + pad, low) for v, low in zip(hi, lo, strict=True)]
    if sum(lo) > width:
        return None
    if sum(hi) <= width:
        if not full:
            return hi
        extra = (width - sum(hi)) / n
        return [v + extra for v in hi]
    share = (width - sum(lo)) / max(sum(h - low for h, low in zip(hi, lo, strict=True)), 1e-9)
    return [low + (h - low) * share for low, h in zip(lo, hi, strict=True)]


def table(headers: Sequence[str] | None, rows: Sequence[Sequence[str]], width: float,
          num_cols: Collection[int] = (), *, full: bool = True) -> Table:
    """A row-safe table of markup cells (see the module docstring); ``headers`` None: no header
    row (a label / value block). ``num_cols`` are right-aligned; ``full`` stretches the table to
    ``width`` points."""
    cells = ([list(headers)] if headers else []) + [list(r) for r in rows]
    size, widths = BODY_PT, None
    while widths is None and size >= MIN_TABLE_PT:
        widths = column_widths(cells, width, size, full)
        if widths is None:
            size -= 0.5
    if widths is None:  # even at 6 pt the words are wider than the page: keep them whole
        size = MIN_TABLE_PT
        widths = column_widths(cells, 1e6, size, False)
    left = _style(f"cell{size}", size, alignment=TA_LEFT)
    right = _style(f"num{size}", size, alignment=TA_RIGHT)
    head = _style(f"head{size}", size, fontName=FONT + "-Bold", alignment=TA_LEFT)
    data = []
    for r, row in enumerate(cells):
        is_head = headers and r == 0
        data.append([Paragraph(str(v), head if is_head else right if i in num_cols else left)
                     for i, v in enumerate(row)])
    commands: list[TableCommand] = [("GRID", (0, 0), (-1, -1), 0.4, colors.HexColor("#9e9e9e")),
                ("VALIGN", (0, 0), (-1, -1), "TOP"), ("FONTNAME", (0, 0), (-1, -1), FONT),
                ("LEFTPADDING", (0, 0), (-1, -1), CELL_PAD), ("RIGHTPADDING", (0, 0), (-1, -1), CELL_PAD),
                ("TOPPADDING", (0, 0), (-1, -1), 1.5), ("BOTTOMPADDING", (0, 0), (-1, -1), 2)]
    if headers:
        commands.append(("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e8eef5")))
    t = Table(data, colWidths=widths, repeatRows=1 if headers else 0, splitInRow=0, hAlign="LEFT")
    t.setStyle(TableStyle(commands))
    return t
