"""Attaching photo files, as the window does it (no Qt): read, refuse in words, keep.

:func:`attach_files` reads every file with :func:`fieldapp.survey.photos.read_photo` (the
crew's size cap from the settings), refuses the files that are not photos (not an image,
truncated, unreadable) by name, and keeps the others in one undoable command: on the record
chosen, on the site, or placed on their own by EXIF GPS or by EXIF time on the GNSS track
(with the camera clock offset). :class:`AttachOutcome` says what happened in field words.
:func:`photo_files` picks the image files out of a drop; :func:`offset_from_clock_photo` sets
the camera clock offset from one photo of the app's clock.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from ..survey.editing import record_words
from ..survey.errors import NotFound
from ..survey.features import Layer, PhotoRecord
from ..survey.photos import MAX_BYTES_DEFAULT, MAX_PX_DEFAULT, Photo, PhotoError, camera_offset_s, read_photo

if TYPE_CHECKING:
    from ..survey.visit import Visit
    from .config import AppConfig

log = logging.getLogger(__name__)

#: A photo file as given: a path (a drop's local file, the file dialog's choice).
PathLike = str | Path

__all__ = ["AttachOutcome", "attach_files", "read_files", "keep_photos", "photo_files", "offset_from_clock_photo",
           "IMAGE_SUFFIXES", "FILE_FILTER"]

#: File name endings offered by the file dialog and taken from a drop.
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".tif", ".tiff", ".heic", ".webp")
#: The file dialog's filter.
FILE_FILTER = "Photos (" + " ".join(f"*{s} *{s.upper()}" for s in IMAGE_SUFFIXES) + ")"


@dataclass(frozen=True)
class AttachOutcome:
    """What :func:`attach_files` did: the photos kept, the files refused (each in words)."""

    kept: tuple[PhotoRecord, ...] = ()
    refused: tuple[str, ...] = field(default_factory=tuple)
    target: str = ""

    @property
    def message(self) -> str:
        """One sentence or two for the status bar."""
        n = len(self.kept)
        parts = []
        if n and self.target:
            parts.append(f"{n} photo{'s' if n != 1 else ''} attached to {self.target}")
        elif n:
            gps = sum(p.placed_by == "exif gps" for p in self.kept)
            track = sum(p.placed_by == "track" for p in self.kept)
            lost = n - gps - track
            where = [f"{gps} by EXIF GPS" if gps else "", f"{track} by time on the GNSS track" if track else "",
                     f"{lost} not placed (no GPS position on the site, time off the track)" if lost else ""]
            parts.append(f"{n} photo{'s' if n != 1 else ''} kept: " + ", ".join(w for w in where if w))
        if self.refused:
            parts.append("refused: " + "; ".join(self.refused))
        return ". ".join(parts) + "." if parts else "no photos chosen."


def _target_words(model: Visit, layer: Layer | str | None, uuid: str | None) -> str:
    if layer is None:
        return ""
    layer = Layer(layer)
    if layer is Layer.SITE:
        return "the site"
    if uuid is None:  # as the model says of a uuid it does not have
        raise NotFound(f"no {layer.value} chosen to attach the photos to")
    return record_words(model, layer, model.get(layer, uuid))


def read_files(paths: Sequence[PathLike], config: AppConfig | None = None) -> tuple[list[Photo], list[str]]:
    """Read ``paths`` with the crew's size cap (``config``: ``photo_max_px``,
    ``photo_max_bytes``; the defaults without it): (photos read, refusals in words). No model,
    no store: safe on a worker thread (decoding a camera's 20 MB photos takes a while).

    Each file on its own: one that is not a photo, is damaged or too large is refused in words
    naming it (:class:`~fieldapp.survey.photos.PhotoError`'s, or the error's) and the others
    are read all the same."""
    max_px = getattr(config, "photo_max_px", MAX_PX_DEFAULT)
    max_bytes = getattr(config, "photo_max_bytes", MAX_BYTES_DEFAULT)
    read: list[Photo] = []
    refused: list[str] = []
    for p in paths:
        try:
            read.append(read_photo(p, max_px=max_px, max_bytes=max_bytes))
        except PhotoError as exc:
            refused.append(str(exc))
        except MemoryError:
            refused.append(f"{Path(p).name}: too large to read in this laptop's memory; resize it"
                           " first")
        except Exception as exc:  # noqa: BLE001 - one odd file never costs the others
            log.exception("reading photo %s", p)
            refused.append(f"{Path(p).name} could not be read as a photo ({type(exc).__name__}:"
                           f" {exc})")
    return read, refused


def keep_photos(model: Visit, photos: Sequence[Photo], refused: Sequence[str] = (), *,
                layer: Layer | str | None = None, uuid: str | None = None, config: AppConfig | None = None,
                caption: str = "") -> AttachOutcome:
    """Keep ``photos`` (from :func:`read_files`) in ``model`` on record ``uuid`` of ``layer``
    (``Layer.SITE``: the site; None: on their own, placed) in one undoable command, with the
    camera clock offset of ``config``; nothing is written when there are none. Raises the
    model's ``InvalidValue`` / ``NotFound`` and the store's ``WriteFailed``: nothing kept."""
    target = _target_words(model, layer, uuid)
    if not photos:
        return AttachOutcome((), tuple(refused), target)
    offset = getattr(config, "camera_offset_s", 0.0)
    kept = model.add_photos(photos, layer=layer, uuid=uuid, camera_offset_s=offset, caption=caption)
    return AttachOutcome(tuple(kept), tuple(refused), target)


def attach_files(model: Visit, paths: Sequence[PathLike], *, layer: Layer | str | None = None,
                 uuid: str | None = None, config: AppConfig | None = None, caption: str = "") -> AttachOutcome:
    """Read ``paths`` and keep the photos among them in ``model`` (a
    :class:`~fieldapp.survey.Visit`): :func:`read_files` then :func:`keep_photos`.

    A file that is not a photo is refused by name and nothing is kept of it; when no file is a
    photo nothing is written at all. Raises as :func:`keep_photos`.
    """
    photos, refused = read_files(paths, config)
    return keep_photos(model, photos, refused, layer=layer, uuid=uuid, config=config, caption=caption)


def photo_files(paths: Iterable[PathLike]) -> list[Path]:
    """The files among ``paths`` (a drop's local files) whose name ends like a photo's."""
    return [Path(p) for p in paths if str(p).lower().endswith(IMAGE_SUFFIXES) and Path(p).is_file()]


def offset_from_clock_photo(path: PathLike, shown_utc: datetime) -> float:
    """The camera clock offset (s, camera minus UTC) from a photo of the app's clock that
    showed ``shown_utc`` (tz-aware UTC). Raises PhotoError (not a photo, or no EXIF time)."""
    photo = read_photo(path)
    if photo.taken_camera is None:
        raise PhotoError(f"{Path(path).name} has no EXIF time (DateTimeOriginal): the camera "
                         "offset cannot be read from it")
    return camera_offset_s(photo.taken_camera, shown_utc)


