"""The report's pages: a reportlab Platypus story written to PDF (no Qt here).

:func:`write_pdf` lays out every section (:mod:`.sections`) on US-letter pages with a running
header and a "page i of N" footer. Platypus does the pagination: table rows never split and
the header row repeats (``Table(repeatRows=1, splitInRow=0)``), cells wrap between words only,
headings keep with their content (``CondPageBreak`` + ``KeepTogether``, :mod:`.layout`), and
each heading is a PDF bookmark (``canvas.bookmarkPage`` / ``addOutlineEntry``: sections at the
outline's top level, subsections under them). The site map and the transect profiles are drawn
with QPainter into images at :data:`fieldapp.report.drawing.PRINT_DPI`
(:func:`fieldapp.report.drawing.render_image`) and placed as pictures; the photos section
comes from :mod:`.photos`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from reportlab import rl_config
from reportlab.lib.pagesizes import letter
from reportlab.lib.units import mm
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen import canvas as rl_canvas
from reportlab.platypus import BaseDocTemplate, Flowable, Frame, PageBreak, PageTemplate

from fieldapp.rules.shown import NOT_SET

from .content import ReportContent
from .layout import FONT, Heading, esc, heading, keep_headings_with_tables, para, register_fonts, small
from .sections import (
    attached_checks,
    certification_section,
    conflicts_section,
    gnss_section,
    notes_section,
    profile_intro,
    profile_table,
    site_section,
    stakes_section,
    stands_section,
    summary_section,
    verdicts_section,
    wetlands_section,
)

if TYPE_CHECKING:
    from PIL.Image import Image as PILImageType
    from PySide6.QtGui import QPainter

    from .content import TransectProfile

__all__ = ["write_pdf", "attachment_names", "MARGIN_MM", "HEADER_MM", "FOOTER_MM", "ReportDoc"]

MARGIN_MM = 16.0
HEADER_MM = 7.0
FOOTER_MM = 7.0
PROFILE_MM = 72.0


def attachment_names(content: ReportContent) -> list[str]:
    """File names of the per-verdict request attachments, in verdict order
    (:func:`attached_checks`)."""
    return [name for name, _ in attached_checks(content)]


def pdf_author(content: ReportContent) -> str:
    """The PDF's author: the crew, or "crew not set" (never empty: a reviewer's index shows it)."""
    return ", ".join(content.site.crew) or f"crew {NOT_SET}"


def pdf_subject(content: ReportContent) -> str:
    """The PDF's subject: the site and its visit date."""
    return f"{content.site.name}, site visit {content.site.visit_date.isoformat()}"


class _NumberedCanvas(rl_canvas.Canvas):
    """A canvas whose footers say "page i of N": N is a form (``doForm``) drawn on every page
    and defined once the last page is known, so pages go out as they are finished (their
    bookmarks point at them)."""

    def page_of(self, x: float, y: float) -> None:
        """Right-aligned "page i of N" ending at ``x``, baseline ``y``."""
        self.drawRightString(x - _TOTAL_W, y, f"page {self.getPageNumber()} of")
        self.saveState()
        self.translate(x - _TOTAL_W + 2.2, y)
        self.doForm("fieldapp-page-count")
        self.restoreState()

    def save(self) -> None:
        n = self.getPageNumber() - 1  # the page counter has moved past the last page
        self.beginForm("fieldapp-page-count")
        self.setFont(FONT, 7.5)
        self.drawString(0, 0, str(n))
        self.endForm()
        super().save()


#: Width (points) kept for the page count in the footer.
_TOTAL_W = 14.0


class ReportDoc(BaseDocTemplate):
    """US letter, :data:`MARGIN_MM` margins, header and footer bands; a bookmark per
    :class:`~fieldapp.report.layout.Heading`, with ``outline`` collecting (level, title,
    0-based page) of each; ``on_page(page_number)`` is called as each page is finished.

    Title, author (the crew, :func:`pdf_author`), subject (the site, :func:`pdf_subject`) and
    language are set; the report's embedded font is the canvas's initial font (and every
    table's), so no base-14 Helvetica is referenced: every font is embedded. reportlab
    (open-source) writes no structure tree, so the PDF is not tagged; its reading order is the
    order the text is drawn, and the outline has a bookmark per heading."""

    def __init__(self, path: str, content: ReportContent, on_page: Callable[[int], None] | None = None) -> None:
        super().__init__(path, pagesize=letter, leftMargin=MARGIN_MM * mm, rightMargin=MARGIN_MM * mm,
                         topMargin=(MARGIN_MM + HEADER_MM) * mm, bottomMargin=(MARGIN_MM + FOOTER_MM) * mm,
                         title=f"Site report: {content.site.name}", author=pdf_author(content),
                         creator=f"fieldapp {content.app_version}", subject=pdf_subject(content),
                         initialFontName=register_fonts(), lang="en-US")
        frame = Frame(self.leftMargin, self.bottomMargin, self.width, self.height, id="body",
                      leftPadding=0, rightPadding=0, topPadding=0, bottomPadding=0)
        self.addPageTemplates([PageTemplate(id="page", frames=[frame], onPage=self._decorate)])
        self.head = f"Site report: {content.site.name} · visit {content.site.visit_date.isoformat()}"
        self.foot = f"fieldapp {content.app_version} · generated {content.generated_utc:%Y-%m-%d %H:%M} UTC"
        self.on_page = on_page
        self.outline: list[tuple[int, str, int]] = []
        self._top_seen = False

    def _decorate(self, canv: rl_canvas.Canvas, doc: BaseDocTemplate) -> None:
        canv.saveState()
        canv.setFont(FONT, 7.5)
        w, h = self.pagesize
        canv.drawString(MARGIN_MM * mm, h - MARGIN_MM * mm - 7.5, self.head)
        canv.drawString(MARGIN_MM * mm, MARGIN_MM * mm, self.foot)
        if isinstance(canv, _NumberedCanvas):    # always: write_pdf builds with it
            canv.page_of(w - MARGIN_MM * mm, MARGIN_MM * mm)
        canv.restoreState()
        if self.on_page is not None and doc.page > 1:
            self.on_page(doc.page - 1)

    def afterFlowable(self, flowable: Flowable) -> None:  # noqa: N802 - reportlab hook
        """Bookmark each heading; a subsection before any section sits at the top level."""
        if not isinstance(flowable, Heading):
            return
        level = 0 if flowable.level == 1 or not self._top_seen else 1
        self._top_seen = self._top_seen or flowable.level == 1
        key = f"h{len(self.outline)}"
        self.canv.bookmarkPage(key)
        self.canv.addOutlineEntry(flowable.title, key, level=level, closed=level > 0)
        self.outline.append((level + 1, flowable.title, self.page - 1))


class _Picture(Flowable):
    """A Pillow image placed ``width_mm`` by ``height_mm`` (the map, a profile)."""

    def __init__(self, picture: PILImageType, width_mm: float, height_mm: float) -> None:
        super().__init__()
        self.picture = ImageReader(picture)
        self.width, self.height = width_mm * mm, height_mm * mm

    def wrap(self, avail_w: float, avail_h: float) -> tuple[float, float]:
        return self.width, self.height

    def draw(self) -> None:
        self.canv.drawImage(self.picture, 0, 0, self.width, self.height)


def _map_story(content: ReportContent, width_mm: float, height_mm: float) -> list[Flowable]:
    """The site map (a page of its own) with its basemap notes under it."""
    from .drawing import draw_map, map_height_mm, render_image

    lay = content.map
    map_h, scale = map_height_mm(lay, width_mm, height_mm - 24)
    picture, notes = render_image(width_mm, map_h, lambda p, w, h, px_mm: draw_map(p, w, h, lay, px_mm, scale))
    under = [small(esc(n)) for n in notes]
    return [PageBreak(), *heading("Site map", 1, _Picture(picture, width_mm, map_h), *under)]


def _profiles_story(content: ReportContent, width_mm: float, w: float) -> list[Flowable]:
    """Each transect's profile and station table, two transects to a page."""
    from .drawing import draw_profile, render_image

    out: list[Flowable] = []
    for i, prof in enumerate(content.transects):
        if i % 2 == 0:
            out.append(PageBreak())
        if i == 0:
            out.append(Heading("Transect profiles (NR 341.035)", 1))
        title, intro = profile_intro(prof)
        if len(prof.stations) > 1:
            def draw(p: QPainter, w_: float, h_: float, px_mm: float, prof: TransectProfile = prof) -> None:
                draw_profile(p, w_, h_, prof, px_mm)

            picture, _ = render_image(width_mm, PROFILE_MM, draw)
            out += heading(title, 2, intro, _Picture(picture, width_mm, PROFILE_MM))
            out.append(profile_table(prof, w))
        else:
            out += heading(title, 2, intro, para("No station yet."))
    return out


def _data_points_story(content: ReportContent, w: float) -> list[Flowable]:
    """One data-form page (or more, as its rows need) per wetland data point."""
    from .wetland_page import data_form_story

    out: list[Flowable] = []
    for i, page in enumerate(content.data_points):
        out.append(PageBreak())
        if i == 0:
            out.append(Heading("Wetland data points (routine determination data forms)", 1))
        out += data_form_story(page, w)
    return out


def _story(content: ReportContent, doc: ReportDoc, step: Callable[[float, str], None]) -> list[Flowable]:
    """Every section in order: site and verdicts, the map (a page of its own), the transect
    profiles (two to a page), stands and wetlands, the wetland data points' data forms (a page
    each), verdicts in detail, stake-out flags, GNSS and conflicts, notes, photos, the
    instrument readings kept, how to reproduce the verdicts, and the certification."""
    from .photos import photos_section
    from .readings import readings_section

    w = doc.width
    width_mm = w / mm
    story = site_section(content, w) + summary_section(content, w)
    story += _map_story(content, width_mm, doc.height / mm)
    step(0.35, "map")
    story += _profiles_story(content, width_mm, w)
    step(0.45, "profiles")
    from .trees import trees_section

    story += [PageBreak(), *stands_section(content, w), *trees_section(content, w),
              *wetlands_section(content, w)]
    story += _data_points_story(content, w)
    story += [PageBreak(), *verdicts_section(content, w), *stakes_section(content, w)]
    story += [PageBreak(), *gnss_section(content, w), *conflicts_section(content, w),
              *notes_section(content, w), *photos_section(content.photos, w),
              *readings_section(content, w)]
    names = attachment_names(content)
    story += heading("Reproducing the verdicts", 1, para(esc(
        "Every rule request above is attached to this PDF (" + ", ".join(names) + "; all of them in "
        "requests-all.json, the results as shown in results-all.json). Save an attachment and run "
        "'fieldapp rules evaluate FILE.json' to get the same result, or change one input to see "
        "what changes.")))
    story += [PageBreak(), *certification_section(content, w)]
    return story


def write_pdf(content: ReportContent, path: str, *, step: Callable[[float, str], None],
              outline: list[tuple[int, str, int]] | None = None) -> int:
    """Write the report to ``path`` (PDF, US letter, bookmarks per section); returns the page
    count.

    ``step(fraction, message)`` is called as the work advances (and may raise to cancel);
    ``outline``, when given, gets (level 1 section / 2 subsection, heading, 0-based page) of
    every bookmark, in order.

    Raises
    ------
    OSError
        The PDF could not be written (``ENOSPC``: the disk is full).
    """
    register_fonts()
    # binary (Flate) streams: the ASCII85 layer reportlab adds by default is written in pure
    # Python without its accelerator and took seconds for the map and profile images
    rl_config.useA85 = 0

    def on_page(n: int) -> None:
        step(min(0.5 + 0.01 * n, 0.9), f"page {n}")

    doc = ReportDoc(str(path), content, on_page)
    story = _story(content, doc, step)
    keep_headings_with_tables(story, doc.width)
    step(0.5, "layout")
    doc.build(story, canvasmaker=_NumberedCanvas)
    if outline is not None:
        outline.extend(doc.outline)
    return doc.page

