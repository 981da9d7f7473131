"""The visit's photos as the report lists them: :func:`photo_entries`.

One row per photo (:class:`PhotoRow`: the feature it documents in words, when it was taken,
the direction the camera faced, its caption and a JPEG thumbnail of at most
:data:`REPORT_THUMB_PX` px on its long side, made with Pillow from the stored image), records
first in the order of :data:`ORDER`, each record's photos by time, then the photos on their own.
A photo naming a record deleted since is listed with the photos on their own.
"""

from __future__ import annotations

import io
from datetime import UTC
from pathlib import PureWindowsPath
from typing import TYPE_CHECKING, NamedTuple

from ..survey.editing import record_words
from ..survey.features import Layer, PhotoRecord, Tree

if TYPE_CHECKING:
    from ..survey.visit import Visit
    from .gpkg import VisitStore

__all__ = ["PhotoRow", "photo_entries", "REPORT_THUMB_PX", "feature_words", "taken_words",
           "time_is_utc", "direction_words"]

#: Long side of the report thumbnail, pixels.
REPORT_THUMB_PX = 400
#: The order of records in the list (the site first).
ORDER = (Layer.SITE, Layer.OHWM_LINE, Layer.OHWM_POINT, Layer.TRANSECT, Layer.STATION,
         Layer.TREE, Layer.AREA, Layer.LINE, Layer.WALK, Layer.NOTE, Layer.STAKE_POINT)


class PhotoRow(NamedTuple):
    """One photo for the report: ``feature`` ("Tree tag 12", "Site “Mill Creek lot”",
    "Photo on its own (EXIF GPS)"), ``taken`` (:func:`taken_words`: "2026-06-01 14:02 UTC",
    "2026-06-01 09:02 camera local time (no zone)" or "—"),
    ``direction`` ("312° true" or "—"), ``caption`` (as typed), ``jpeg`` (thumbnail bytes,
    long side <= 400 px). The fields of ``fieldapp.report.photos.PhotoEntry``, in its order."""

    feature: str
    taken: str
    direction: str
    caption: str
    jpeg: bytes


def taken_words(p: PhotoRecord) -> str:
    """``2026-06-01 14:02 UTC`` when the time is UTC: the camera wrote its zone (EXIF
    OffsetTimeOriginal 36881 / OffsetTime 36880) or its clock offset was applied (the stored
    time is not the EXIF time); else ``2026-06-01 09:02 camera local time (no zone)`` (the
    camera's own clock, as it wrote it); ``—`` when the photo has no time; ``camera wrote
    “0999:01:01 00:00:00” (not a date)`` when its EXIF time is text that is not a sane time
    (kept as the camera's text, :func:`fieldapp.survey.photos.exif_time_text`)."""
    if p.taken_utc is None:
        text = _exif_text(p)
        return f"camera wrote “{text}” (not a date)" if text else "—"
    when = p.taken_utc.astimezone(UTC).strftime("%Y-%m-%d %H:%M")
    return f"{when} UTC" if time_is_utc(p) else f"{when} camera local time (no zone)"


def _exif_text(p: PhotoRecord) -> str | None:
    """The stored photo's EXIF time text when it is not a sane time, else None."""
    from PIL import Image

    from ..survey.photos import _exif_time, exif_time_text

    try:
        with Image.open(io.BytesIO(p.data or b"")) as im:
            ifd = im.getexif().get_ifd(0x8769)
    except (OSError, SyntaxError, ValueError):
        return None
    return exif_time_text(ifd) if _exif_time(ifd) is None else None


def time_is_utc(p: PhotoRecord) -> bool:
    """The stored photo's EXIF time (Pillow) carries its zone, or differs from ``taken_utc``
    (a camera clock offset was applied when it was kept); False without an EXIF time."""
    from PIL import Image

    from ..survey.photos import _exif_time

    try:
        with Image.open(io.BytesIO(p.data or b"")) as im:
            t = _exif_time(im.getexif().get_ifd(0x8769))
    except (OSError, SyntaxError, ValueError):
        return False
    return t is not None and (t.tzinfo is not None or
                              t.replace(tzinfo=UTC) != p.taken_utc)


def direction_words(p: PhotoRecord) -> str:
    """``312° true`` (EXIF GPSImgDirection, rounded to the degree), or ``—``."""
    if p.direction_deg is None:
        return "—"
    return f"{round(p.direction_deg) % 360}° true"


def feature_words(visit: Visit, p: PhotoRecord) -> str:
    """The record ``p`` documents, in words with a capital (a tree by its tag)."""
    table = p.record_table
    if table == Layer.SITE.value and p.record_uuid == visit.site.uuid:
        return f"Site “{visit.site.name}”"
    if table is not None and p.record_uuid is not None:
        try:
            layer = Layer(table)
            rec = visit.get(layer, p.record_uuid)
        except Exception:  # noqa: BLE001 - the record was deleted: the photo stands alone
            rec = None
        if rec is not None:
            if isinstance(rec, Tree):
                return f"Tree tag {rec.tag}"
            words = record_words(visit, layer, rec)
            return words[:1].upper() + words[1:]
    how = {"exif gps": " (EXIF GPS)", "track": " (time on the GNSS track)"}.get(p.placed_by or "", "")
    return f"Photo on its own{how}" if how else "Photo on its own (not placed)"


def _thumb(p: PhotoRecord, max_px: int) -> bytes:
    from PIL import Image, ImageOps

    from ..survey.photos import jpeg_within

    try:
        with Image.open(io.BytesIO(p.data)) as im:
            im.load()
            return jpeg_within(ImageOps.exif_transpose(im).convert("RGB"), max_px, quality=80)
    except (OSError, SyntaxError, ValueError):
        # damaged outside fieldapp: hand the stored bytes on; the report lists the photo as
        # unreadable in words rather than dropping it or failing the whole report
        return bytes(p.data or b"")


def _caption(p: PhotoRecord) -> str:
    """The camera's file name (how the crew finds the photo: "IMG_0412.JPG"), then the caption."""
    name = PureWindowsPath(p.original_path).name if p.original_path else ""   # / and \ both split
    return " · ".join(t for t in (name, p.caption or "") if t)


def photo_entries(store_or_visit: VisitStore | Visit, *, max_px: int = REPORT_THUMB_PX) -> list[PhotoRow]:
    """Every photo of a visit (a :class:`~fieldapp.store.VisitStore` or a
    :class:`~fieldapp.survey.Visit`) as :class:`PhotoRow`, in report order (see the module
    docstring). ``max_px`` is the thumbnail's long side (pixels). A stored image Pillow cannot
    decode (damaged outside fieldapp) keeps its row with the stored bytes as they are, so the
    report can say it is unreadable instead of dropping it."""
    from ..survey.visit import Visit

    visit = store_or_visit if isinstance(store_or_visit, Visit) else store_or_visit.visit
    rows: list[PhotoRow] = []
    for layer in ORDER:
        for rec in visit.features(layer):
            for p in visit.photos_of(layer, rec.uuid):
                rows.append(PhotoRow(feature_words(visit, p), taken_words(p), direction_words(p),
                                     _caption(p), _thumb(p, max_px)))
    for p in visit.unattached_photos():
        rows.append(PhotoRow(feature_words(visit, p), taken_words(p), direction_words(p),
                             _caption(p), _thumb(p, max_px)))
    return rows
