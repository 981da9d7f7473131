"""Photo commands of the visit: attach, place, caption, detach, delete (all undoable).

A photo (:class:`~fieldapp.survey.features.PhotoRecord`) documents one record -- an OHWM point,
a tree, a station, a boundary, a note ... or the site itself -- which it names by layer and
uuid (``record_table``, ``record_uuid``), or stands on its own, placed on the site by its EXIF
GPS position, else by its EXIF time (less the camera clock offset) on the visit's GNSS track
(:func:`fieldapp.survey.photos.place`). Reading the files is :func:`fieldapp.survey.photos.read_photo`;
these commands take what it read.

Deleting a record keeps its photos (they still name it, as a transect still names a deleted
OHWM line): undoing the delete brings the record back with its photos; the report and exports
show only photos whose record is in the visit, and :meth:`PhotoCommands.unattached_photos` lists
the rest.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from ..geo import SiteFrame
from . import values as V
from .core import VisitCore, new_of
from .errors import InvalidValue, NotFound
from .features import Action, Change, Layer, PhotoRecord, TrackPoint
from .photos import Photo, _utc, place
from .validation import PHOTO_TABLES, ms

__all__ = ["PhotoCommands", "PHOTO_LAYERS"]

#: The layers a photo can be attached to (their records, and the site).
PHOTO_LAYERS: frozenset[Layer] = frozenset(Layer(t) for t in PHOTO_TABLES)


class PhotoCommands(VisitCore):
    """The photo commands of :class:`~fieldapp.survey.visit.Visit` (a mixin)."""

    def _photo_target(self, layer: Layer | str | None, uuid: str | None) -> tuple[str | None, str | None]:
        """(record_table, record_uuid) of a record photos may show; InvalidValue / NotFound."""
        if layer is None and uuid is None:
            return None, None
        try:
            layer = Layer(layer)
        except ValueError:
            raise InvalidValue("record_table", f"unknown layer {layer!r}") from None
        if layer not in PHOTO_LAYERS:
            raise InvalidValue("record_table", f"photos cannot be attached to a {layer.value} "
                                               "(attach them to the record or the site)")
        if layer is Layer.SITE:
            return layer.value, self.site.uuid
        if uuid is None:
            raise NotFound(f"no {layer.value} with uuid {uuid!r}")
        self.get(layer, uuid)  # NotFound when it is not in the visit
        return layer.value, uuid

    def add_photos(self, photos: Sequence[Photo], *, layer: Layer | str | None = None, uuid: str | None = None,
                   camera_offset_s: float = 0.0, caption: str = "") -> list[PhotoRecord]:
        """Keep ``photos`` (read by :func:`~fieldapp.survey.photos.read_photo`) in the visit,
        attached to record ``uuid`` of ``layer`` (``Layer.SITE`` for the site; its uuid is not
        needed), or, with neither, placed by EXIF GPS or on the track (unplaced when neither
        works, or the EXIF GPS position is outside the site CRS's area of use: x, y None).
        ``camera_offset_s`` is the camera clock minus true UTC, seconds
        (:func:`~fieldapp.survey.photos.camera_offset_s`): a photo's ``taken_utc`` is its EXIF
        time less the offset. One undoable command for all of them.

        Raises InvalidValue (a layer photos cannot show, a non-finite offset), NotFound (no
        such record); nothing is kept then.
        """
        offset = V.finite("camera_offset_s", camera_offset_s)
        table, target = self._photo_target(layer, uuid)
        track = self.track() if table is None else []
        changes = []
        for p in photos:
            x: float | None = None
            y: float | None = None
            how: str | None = None
            if table is None and self.has_frame:
                where = place(p, track, frame=self.frame, offset_s=offset)
                # a GPS position off the site's CRS (another continent, a crafted tag) leaves
                # the photo unplaced rather than refusing it and every other photo with it
                if where is not None and not self.frame.outside(where[0], where[1]).any():
                    x, y, how = where
            rec = PhotoRecord(
                **self._stamp(), data=p.data, content_type=p.content_type, width=p.width,
                height=p.height, original_path=p.original_path, record_table=table,
                record_uuid=target, taken_utc=ms(_utc(p, offset)), direction_deg=p.direction_deg,
                caption=caption, x=x, y=y, placed_by=how, thumbnail=p.thumbnail,
                lat_deg=p.lat_deg, lon_deg=p.lon_deg)
            changes.append(Change(Action.ADDED, Layer.PHOTO, rec))
        return [new_of(PhotoRecord, ch) for ch in self._commit(changes)]

    def attach_photo(self, photo_uuid: str, layer: Layer | str, uuid: str | None = None) -> PhotoRecord:
        """Attach a kept photo to record ``uuid`` of ``layer`` (its placed position dropped);
        undoable. Raises NotFound / InvalidValue as :meth:`add_photos`."""
        table, target = self._photo_target(layer, uuid)
        return self._update_as(PhotoRecord, photo_uuid, record_table=table, record_uuid=target,
                               x=None, y=None, placed_by=None)

    def detach_photo(self, photo_uuid: str) -> PhotoRecord:
        """Take a photo off its record and place it by its EXIF GPS position or its time
        (``taken_utc``, already corrected) on the track (unplaced when neither works); undoable."""
        old = self.record(PhotoRecord, photo_uuid)
        x: float | None = None
        y: float | None = None
        how: str | None = None
        if self.has_frame:
            where = _place_record(old, self.track(), self.frame)
            if where is not None:
                x, y, how = where
        return self._update_as(PhotoRecord, photo_uuid, record_table=None, record_uuid=None,
                               x=x, y=y, placed_by=how)

    def set_photo_caption(self, photo_uuid: str, caption: str) -> PhotoRecord:
        """Change a photo's caption (multi-line text); undoable."""
        return self._update_as(PhotoRecord, photo_uuid, caption=caption)

    def delete_photo(self, photo_uuid: str) -> PhotoRecord:
        """Delete a photo; undoable (and in ``recycle_bin`` for the session)."""
        gone: PhotoRecord = self.delete(Layer.PHOTO, photo_uuid)[-1].old
        return gone

    def photos_of(self, layer: Layer | str, uuid: str | None = None) -> list[PhotoRecord]:
        """The photos attached to record ``uuid`` of ``layer`` (the site: ``Layer.SITE``), by
        time taken (photos without a time last, in the order kept)."""
        layer = Layer(layer)
        if layer is Layer.SITE:
            uuid = self.site.uuid
        out = [p for p in self.records(PhotoRecord)
               if p.record_table == layer.value and p.record_uuid == uuid]
        return sorted(out, key=_by_time)

    def unattached_photos(self) -> list[PhotoRecord]:
        """Photos attached to no record in the visit (placed on their own, unplaced, or naming
        a record deleted since), by time taken."""
        out = []
        for p in self.records(PhotoRecord):
            if p.record_table is None or not self._has_record(p.record_table, p.record_uuid):
                out.append(p)
        return sorted(out, key=_by_time)

    def _has_record(self, table: str, uuid: str | None) -> bool:
        if table == Layer.SITE.value:
            return uuid == self.site.uuid
        if uuid is None:
            return False
        try:
            self.get(Layer(table), uuid)
        except (NotFound, ValueError):
            return False
        return True


def _by_time(p: PhotoRecord) -> tuple[bool, datetime, datetime]:
    return (p.taken_utc is None, p.taken_utc or p.created_utc, p.created_utc)


def _place_record(p: PhotoRecord, track: Sequence[TrackPoint], frame: SiteFrame) -> tuple[float, float, str] | None:
    """Where a kept photo goes on its own: its EXIF GPS position, else its UTC (already
    corrected by the camera offset) on the track."""
    probe = Photo(data=b"", content_type="", width=0, height=0, thumbnail=b"", original_path="",
                  original_size=(0, 0), taken_camera=p.taken_utc, lat_deg=p.lat_deg,
                  lon_deg=p.lon_deg, direction_deg=None, resized=False)
    return place(probe, track, frame=frame, offset_s=0.0)
