"""The report's photos section: thumbnails grouped under the feature they show (no Qt).

:class:`PhotoEntry` is one photo as the report prints it; ``ReportContent.photos`` holds them
(empty: the report has no photos section). :func:`photos_section` makes the Platypus flowables:
a "Photos" heading, then per feature (in the order of first appearance) a subheading and a
table of thumbnails, three to a row, each with its time, direction and caption under it. A
thumbnail is at most :data:`THUMB_MM` on its longer side, turned upright by its EXIF
orientation and re-encoded at :data:`THUMB_DPI` (Pillow), so a 12-megapixel photo costs the
PDF tens of kilobytes. Rows never split across a page. A photo Pillow cannot read is listed
with the reason in words instead of failing the report.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass

from reportlab.lib import colors
from reportlab.lib.units import mm
from reportlab.platypus import Flowable, Image, Table, TableStyle

from .layout import esc, heading, para, register_fonts, small

__all__ = ["PhotoEntry", "photos_section", "thumbnail", "THUMB_MM", "THUMB_DPI", "PER_ROW"]

#: Longest side of a thumbnail on paper (mm), its resolution (dots per inch), thumbnails a row.
THUMB_MM = 56.0
THUMB_DPI = 200
PER_ROW = 3


@dataclass(frozen=True)
class PhotoEntry:
    """One photo for the report.

    ``feature``: the feature as the crew knows it ("Tree tag 12", "OHWM point 3");
    ``taken``: when, in words ("2026-06-01 14:02 UTC", or "2026-06-01 09:02 camera local time
    (no zone)" until the camera clock offset is set: :func:`fieldapp.store.photos.taken_words`);
    ``direction``: the camera's bearing
    ("312° true") or "—" when not known; ``caption``: the crew's words (may be empty);
    ``jpeg``: the photo's bytes (JPEG as stored; any format Pillow reads is accepted).
    """

    feature: str
    taken: str
    direction: str
    caption: str
    jpeg: bytes


def thumbnail(data: bytes, max_mm: float = THUMB_MM, dpi: int = THUMB_DPI) -> tuple[bytes, float, float]:
    """(JPEG bytes, width mm, height mm) of ``data`` upright (EXIF orientation) and scaled so
    its longer side is ``max_mm`` on paper at ``dpi`` (never enlarged past its own pixels at
    that resolution).

    Raises
    ------
    ValueError
        Pillow cannot read ``data`` as an image (the message says why).
    """
    from PIL import Image as PILImage
    from PIL import ImageOps, UnidentifiedImageError

    try:
        with PILImage.open(io.BytesIO(data)) as opened:
            im = ImageOps.exif_transpose(opened).convert("RGB")
            side = int(max_mm / 25.4 * dpi)  # whole pixels, never past max_mm
            im.thumbnail((side, side))
            out = io.BytesIO()
            im.save(out, "JPEG", quality=85)
            w_px, h_px = im.size
    except UnidentifiedImageError as exc:
        raise ValueError("the photo could not be read as an image (not a format Pillow knows, "
                         "or damaged)") from exc
    except (OSError, SyntaxError) as exc:
        raise ValueError(f"the photo could not be read as an image ({exc})") from exc
    return out.getvalue(), w_px / dpi * 25.4, h_px / dpi * 25.4


def _cell(entry: PhotoEntry, cell_mm: float) -> list[Flowable]:
    """One thumbnail with its time, direction and caption under it."""
    words = f"{esc(entry.taken)} · direction {esc(entry.direction or '—')}"
    if entry.caption:
        words += f"<br/>{esc(entry.caption)}"
    try:
        jpeg, w_mm, h_mm = thumbnail(entry.jpeg, min(THUMB_MM, cell_mm))
    except ValueError as exc:
        return [para(f"<i>{esc(exc)}</i>"), small(words)]
    return [Image(io.BytesIO(jpeg), width=w_mm * mm, height=h_mm * mm, hAlign="LEFT"),
            small(words)]


def _grouped(photos: Sequence[PhotoEntry]) -> list[tuple[str, list[PhotoEntry]]]:
    groups: dict[str, list[PhotoEntry]] = {}
    for p in photos:
        groups.setdefault(p.feature, []).append(p)
    return list(groups.items())


def photos_section(photos: Sequence[PhotoEntry], width: float) -> list[Flowable]:
    """The photos section's flowables for a frame ``width`` points wide ([] when there are no
    photos: no heading either)."""
    if not photos:
        return []
    cell_w = width / PER_ROW
    out = heading("Photos", 1, small(f"{len(photos)} photo(s), grouped by the feature they show; "
                                     "direction: the camera's bearing, degrees from true north."))
    for feature, entries in _grouped(photos):
        rows: list[list[list[Flowable] | str]] = []
        for i in range(0, len(entries), PER_ROW):
            row = [_cell(e, cell_w / mm - 4) for e in entries[i:i + PER_ROW]]
            rows.append(row + [""] * (PER_ROW - len(row)))
        t = Table(rows, colWidths=[cell_w] * PER_ROW, splitInRow=0, hAlign="LEFT")
        t.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"), ("FONTNAME", (0, 0), (-1, -1), register_fonts()),
                               ("LEFTPADDING", (0, 0), (-1, -1), 2), ("RIGHTPADDING", (0, 0), (-1, -1), 2),
                               ("BOTTOMPADDING", (0, 0), (-1, -1), 6),
                               ("LINEBELOW", (0, 0), (-1, -1), 0.3, colors.HexColor("#cccccc"))]))
        out += heading(feature, 2)
        out.append(t)
    return out
