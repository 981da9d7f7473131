"""The photos of the visit being recorded, as the Photos tab and the map's camera marks see
them.

:class:`VisitPhotos` wraps :class:`fieldapp.app.recording.Recording` and
:class:`fieldapp.app.settings.Settings`: a record's photos (and, for the site, the photos on
their own) with their words, files read with the crew's size cap and kept in one undoable
command, a caption, detaching, deleting, the camera clock offset. The widgets ask here; the
model and the store stay behind the app layer. Reading and keeping are
:mod:`fieldapp.app.photos`'.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fieldapp.app import photos as P
from fieldapp.survey.features import Layer

if TYPE_CHECKING:
    from fieldapp.app.recording import Recording
    from fieldapp.app.settings import Settings


@dataclass(frozen=True)
class PhotoShown:
    """One photo as the Photos tab lists it."""

    uuid: str
    image: bytes
    """The thumbnail (JPEG), else the photo itself."""
    file_name: str
    """The camera file's name, without its folder."""
    taken: str
    """``2026-06-01 14:02 UTC``, or ``... camera local time (no zone)``."""
    facing: str
    """``312° true``, or ``—``."""
    of: str
    """The record it documents, in words with a capital (``Tree 1003``)."""
    caption: str


class VisitPhotos:
    """The open visit's photos (no visit: none, and every change refused)."""

    def __init__(self, recording: Recording, settings: Settings) -> None:
        self.recording = recording
        self.settings = settings

    def target_words(self, layer: Layer | None, uuid: str | None) -> str:
        """The record ``uuid`` of ``layer`` in words (``the site``, ``tree 12``); ``no visit``
        without one."""
        if self.recording.visit is None:
            return "no visit"
        return str(P._target_words(self.recording.visit.model, layer, uuid))

    def shown(self, layer: Layer, uuid: str | None) -> list[PhotoShown]:
        """The photos of record ``uuid`` of ``layer``; for the site (``Layer.SITE``) the
        photos on their own after them; [] without a visit."""
        from fieldapp.store.photos import direction_words, feature_words, taken_words

        visit = self.recording.visit
        if visit is None:
            return []
        m = visit.model
        photos = list(m.photos_of(layer, uuid))
        if layer is Layer.SITE:
            photos += m.unattached_photos()
        return [PhotoShown(uuid=p.uuid, image=p.thumbnail or p.data,
                           file_name=p.original_path.replace("\\", "/").rsplit("/", 1)[-1],
                           taken=taken_words(p), facing=direction_words(p),
                           of=feature_words(m, p), caption=p.caption or "")
                for p in photos]

    def read(self, paths: Sequence[str]) -> tuple[list[Any], list[str]]:
        """Read ``paths`` with the crew's size cap (the settings' ``photo_max_px`` /
        ``photo_max_bytes``): (photos read, refusals in words). No model, no store: safe on a
        worker thread."""
        return P.read_files(paths, self.settings.config)

    def keep(self, photos: Sequence[Any], refused: Sequence[str], layer: Layer | None,
             uuid: str | None) -> P.AttachOutcome:
        """Keep ``photos`` (from :meth:`read`) on record ``uuid`` of ``layer`` (None: on their
        own, placed) in one undoable command, with the camera clock offset of the settings.

        Raises
        ------
        RuntimeError
            No visit is open.
        Exception
            The model's or the store's refusal (nothing kept), for
            :func:`fieldapp.app.editing.refusal_words`.
        """
        return P.keep_photos(self._model(), photos, refused, layer=layer, uuid=uuid,
                             config=self.settings.config)

    def caption_of(self, uuid: str) -> str:
        """The caption of photo ``uuid`` (raises as :meth:`keep`, ``NotFound`` for no such photo)."""
        return str(self._model().get(Layer.PHOTO, uuid).caption or "")

    def set_caption(self, uuid: str, text: str) -> None:
        """Caption photo ``uuid`` ``text`` (one undoable command; raises as :meth:`keep`)."""
        self._model().set_photo_caption(uuid, text)

    def detach(self, uuid: str) -> str:
        """Detach photo ``uuid`` from its record (one undoable command); where it is placed
        now, in words ("placed by its EXIF GPS position"). Raises as :meth:`keep`."""
        p = self._model().detach_photo(uuid)
        return {"exif gps": "placed by its EXIF GPS position",
                "track": "placed by its time on the GNSS track"}.get(
            p.placed_by or "", "not placed (no GPS position, time off the track)")

    def delete(self, uuid: str) -> None:
        """Delete photo ``uuid`` (one undoable command; raises as :meth:`keep`)."""
        self._model().delete_photo(uuid)

    def placed_ft(self) -> list[tuple[float, float]]:
        """Where the photos on their own are (site feet, x east and y north), those placed
        only; [] without a visit or before the site's coordinates are known."""
        frame = self.recording.frame
        if frame is None or self.recording.visit is None:
            return []
        return [(float(frame.to_ft(p.x)), float(frame.to_ft(p.y)))
                for p in self.recording.visit.model.unattached_photos()
                if p.x is not None and p.y is not None]

    @property
    def camera_offset_s(self) -> float:
        """The camera clock offset (s, camera minus UTC) of the settings."""
        return float(getattr(self.settings.config, "camera_offset_s", 0.0))

    def remember_camera_offset(self, offset_s: float) -> None:
        """Keep the camera clock offset ``offset_s`` (s) for this run and the next
        (:meth:`fieldapp.app.settings.Settings.remember`)."""
        self.settings.remember(camera_offset_s=float(offset_s))

    def _model(self) -> Any:
        if self.recording.visit is None:
            raise RuntimeError("no visit is open")
        return self.recording.visit.model
