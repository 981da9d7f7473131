"""Photos of the indicators: read an image file, cap its size, and place it.

:func:`read_photo` reads a camera's or phone's file with Pillow (never a hand-written JPEG or
EXIF parser): the pixels are decoded in full, so a truncated file is refused, and EXIF gives
the time the photo was taken (``DateTimeOriginal``, EXIF 2.3 tag 36867, with
``OffsetTimeOriginal`` 36881 when the camera wrote one), the GPS position (GPS IFD tags 1-4,
degrees/minutes/seconds with N/S/E/W) and the direction the camera faced (``GPSImgDirection``,
tag 17; true unless ``GPSImgDirectionRef`` (16) is ``M``). A photo larger than the crew's cap is
kept as a resized JPEG copy (the original's path is kept with it); every photo gets a thumbnail.

:func:`place` says where a photo without an attached record goes: its EXIF GPS position, else
its EXIF time (corrected by the camera clock offset, :func:`camera_offset_s`) matched to the
visit's GNSS track, interpolated between the two track points around it.

Kept in the visit: :mod:`fieldapp.survey.attach` (the commands) and
:mod:`fieldapp.store.media` (the GeoPackage's Related Tables media table).
"""

from __future__ import annotations

import io
import math
import os
import struct
import warnings
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..geo import SiteFrame
from .features import TrackPoint

if TYPE_CHECKING:  # Pillow is loaded when a photo is read, not with the model
    from PIL import Image

__all__ = ["PhotoError", "Photo", "read_photo", "camera_offset_s", "place", "MAX_PX_DEFAULT",
           "MAX_BYTES_DEFAULT", "THUMB_PX", "jpeg_within"]

#: Default size cap: the long side of the stored copy, pixels.
MAX_PX_DEFAULT = 2048
#: Default size cap: a file larger than this (bytes) is kept as a resized JPEG copy.
MAX_BYTES_DEFAULT = 1_000_000
#: Long side of the thumbnail, pixels.
THUMB_PX = 256
#: A track point further than this from the photo's time does not place it (seconds).
MAX_GAP_S = 30.0


class PhotoError(ValueError):
    """A file that is not a usable photo (not an image, truncated, unreadable); the message
    names the file."""


@dataclass(frozen=True)
class Photo:
    """A photo as the visit keeps it.

    ``data`` / ``content_type``: the stored image (the original's bytes when within the cap,
    else a resized JPEG); ``width`` x ``height`` its pixels; ``thumbnail`` a JPEG, long side
    :data:`THUMB_PX`; ``original_path`` where it came from and ``original_size`` its pixels;
    ``taken_camera`` the EXIF time as the camera wrote it (naive unless it had an offset), None
    when there is none or it is not a sane time (:func:`exif_time_text` then gives the text);
    ``lat_deg`` / ``lon_deg`` the EXIF GPS position (WGS84) or None; ``direction_deg`` the
    true direction the camera faced, or None.
    """

    data: bytes
    content_type: str
    width: int
    height: int
    thumbnail: bytes
    original_path: str
    original_size: tuple[int, int]
    taken_camera: datetime | None
    lat_deg: float | None
    lon_deg: float | None
    direction_deg: float | None
    resized: bool
    taken_text: str | None = None
    """The EXIF ``DateTimeOriginal`` text, shortened to printable characters, when it is not a
    sane time (:data:`EXIF_YEARS`): kept as text, never as a time; None otherwise."""


def _ratio(v: object) -> float:
    if isinstance(v, tuple):
        return float(v[0]) / float(v[1])
    return float(v)  # type: ignore[arg-type]  # an EXIF rational (IFDRational) or a number; TypeError else


def _dms(values: Any, ref: str | None) -> float | None:
    """Degrees from EXIF's (degrees, minutes, seconds) as Pillow read them (``Any``: whatever the
    file holds); None unless three numbers."""
    try:
        d, m, s = (_ratio(v) for v in values)
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    deg = d + m / 60.0 + s / 3600.0
    return -deg if (ref or "").upper() in ("S", "W") else deg


#: The years a photo's EXIF time may have to be taken as a time (the first film cameras to
#: well past any laptop's life); any other text a camera or an editor wrote is untrusted text
#: (:func:`exif_time_text`), never stored as a time.
EXIF_YEARS = range(1900, 2200)


def exif_time_text(exif_ifd: Mapping[int, object]) -> str | None:
    """The photo's own EXIF time text (``DateTimeOriginal``, else ``DateTimeDigitized``) made
    safe to show: printable characters only, at most 40; None when it has none."""
    raw = exif_ifd.get(36867) or exif_ifd.get(36868)
    if isinstance(raw, bytes):
        raw = raw.decode("latin-1")
    if not isinstance(raw, str):
        return None
    text = "".join(c if c.isprintable() else "?" for c in raw.strip("\x00 "))
    return (text[:39] + "…" if len(text) > 40 else text) or None


def _exif_time(exif_ifd: Mapping[int, object]) -> datetime | None:
    """The EXIF time as a datetime (aware when the camera wrote its zone), or None when there
    is none or it is not a sane time: not ``YYYY:MM:DD HH:MM:SS``, a year outside
    :data:`EXIF_YEARS`, a zone of a day or more."""
    text = exif_ifd.get(36867) or exif_ifd.get(36868)
    if not isinstance(text, str):
        return None
    try:
        t = datetime.strptime(text.strip("\x00 "), "%Y:%m:%d %H:%M:%S")
    except ValueError:
        return None
    if t.year not in EXIF_YEARS:
        return None
    offset = exif_ifd.get(36881)
    if isinstance(offset, str) and len(offset) >= 6 and offset[0] in "+-":
        try:
            sign = 1 if offset[0] == "+" else -1
            h, m = int(offset[1:3]), int(offset[4:6])
            t = t.replace(tzinfo=timezone(sign * timedelta(hours=h, minutes=m)))
        except ValueError:
            pass
    return t


def _gps_position(gps: Mapping[int, Any]) -> tuple[float | None, float | None]:
    """(lat, lon) in degrees from the GPS IFD, or (None, None) unless both are there, finite
    and on the Earth (|lat| <= 90, |lon| <= 180): a file's GPS tags are untrusted."""
    lat = _dms(gps.get(2), _text(gps.get(1))) if gps.get(2) else None
    lon = _dms(gps.get(4), _text(gps.get(3))) if gps.get(4) else None
    if (lat is None or lon is None or not (math.isfinite(lat) and math.isfinite(lon))
            or abs(lat) > 90.0 or abs(lon) > 180.0):
        return None, None
    return lat, lon


def _direction(gps: Mapping[int, Any]) -> float | None:
    """The true direction the camera faced (GPSImgDirection, degrees in [0, 360)), or None:
    none written, magnetic (GPSImgDirectionRef ``M``), or not a finite number."""
    if gps.get(17) is None or (_text(gps.get(16)) or "T").upper() == "M":
        return None
    try:
        d = _ratio(gps.get(17))
    except (TypeError, ValueError, ZeroDivisionError, OverflowError):
        return None
    return d % 360.0 if math.isfinite(d) else None


def _text(v: object) -> str | None:
    """An EXIF ASCII tag as text (Pillow gives str; a crafted file may give bytes or numbers)."""
    if isinstance(v, bytes):
        return v.decode("latin-1")
    return v if isinstance(v, str) else None


def jpeg_within(im: Image.Image, max_px: int, *, quality: int = 85, exif: bytes = b"") -> bytes:
    """A JPEG of Pillow image ``im`` (RGB) no larger than ``max_px`` on its long side, with
    ``exif`` (EXIF bytes, e.g. :func:`_time_exif`) in it."""
    from PIL import Image

    copy = im.copy()
    copy.thumbnail((max_px, max_px), Image.Resampling.LANCZOS)
    buf = io.BytesIO()
    copy.save(buf, "JPEG", quality=quality, exif=exif)
    return buf.getvalue()


#: The EXIF IFD's time tags a resized copy keeps: DateTimeOriginal, DateTimeDigitized and their
#: OffsetTime tags (EXIF 2.31), so what the time shown is (UTC, or the camera's own clock) can be
#: told from the stored photo (:func:`fieldapp.store.photos.taken_words`).
TIME_TAGS = (36867, 36868, 36880, 36881, 36882)


def _time_exif(exif_ifd: Mapping[int, object]) -> bytes:
    """EXIF bytes holding only the :data:`TIME_TAGS` of ``exif_ifd`` (b"" when it has none)."""
    from PIL import Image

    times = {k: exif_ifd[k] for k in TIME_TAGS if isinstance(exif_ifd.get(k), str)}
    if not times:
        return b""
    exif = Image.Exif()
    exif[0x8769] = times
    return exif.tobytes()


#: The largest photo read, in megapixels: a 100 MP medium-format camera fits; a 30000 × 30000 px
#: image (900 MP, a few KB of PNG) would take gigabytes of a field laptop's memory to decode.
MAX_MEGAPIXELS = 120


def _refuse_huge(path: Path, size: tuple[int, int]) -> None:
    w, h = size
    if w * h > MAX_MEGAPIXELS * 1_000_000:
        raise PhotoError(f"{path.name}: the image is {w} × {h} px ({w * h / 1e6:.0f} megapixels),"
                         f" more than the {MAX_MEGAPIXELS} megapixels a photo may have; resize it"
                         " first")


def read_photo(path: str | os.PathLike[str], *, max_px: int = MAX_PX_DEFAULT,
               max_bytes: int = MAX_BYTES_DEFAULT) -> Photo:
    """Read the photo at ``path`` (see the module docstring); raises :class:`PhotoError`.

    ``max_px`` is the crew's cap on the stored copy's long side (pixels, >= 64) and
    ``max_bytes`` on its size (bytes): a larger file is kept as a JPEG resized to ``max_px``
    (quality 85, lowered to 70 and 55 while it is still over ``max_bytes``).
    """
    from PIL import Image, ImageOps, UnidentifiedImageError

    path = Path(path)
    if max_px < 64:
        raise ValueError(f"photo size cap {max_px} px: at least 64")
    raw: bytes | None = None
    try:
        with open(path, "rb") as fh:
            # Pillow reads the file as it decodes (never the whole file at once): a photo with a
            # huge tail or huge metadata costs its pixels' memory, not its size on disk
            file_bytes = os.fstat(fh.fileno()).st_size
            if file_bytes <= max_bytes:
                raw = fh.read(max_bytes + 1)    # kept as it is when within the caps (below)
                fh.seek(0)
            with warnings.catch_warnings():
                # our own cap (MAX_MEGAPIXELS) is the limit: Pillow's 89 MP warning is not shown
                warnings.simplefilter("ignore", Image.DecompressionBombWarning)
                im = Image.open(fh)
            with im:
                fmt = im.format
                _refuse_huge(path, im.size)
                im.load()               # decodes every pixel: a truncated file fails here
                exif = im.getexif()
                gps = exif.get_ifd(0x8825)
                exif_ifd = exif.get_ifd(0x8769)
                upright = ImageOps.exif_transpose(im).convert("RGB")
    except PhotoError:
        raise
    except Image.DecompressionBombError:
        raise PhotoError(f"{path.name}: the image is far too large to read (over"
                         f" {MAX_MEGAPIXELS} megapixels); resize it first") from None
    except UnidentifiedImageError:
        raise PhotoError(f"{path.name} is not a photo Pillow can read (not an image, or an image"
                         " format it does not know)") from None
    except FileNotFoundError:
        raise PhotoError(f"photo {path}: cannot be read (there is no such file)") from None
    except PermissionError as exc:
        raise PhotoError(f"photo {path}: cannot be read ({exc.strerror or exc})") from None
    except (OSError, SyntaxError, ValueError, struct.error, EOFError, IndexError, KeyError,
            TypeError, ZeroDivisionError, OverflowError) as exc:
        # the last ones: what Pillow's parsers raise on some crafted headers and EXIF blocks
        raise PhotoError(f"{path.name} is not a photo Pillow can read (not an image, or "
                         f"truncated, or damaged): {exc or type(exc).__name__}") from None
    lat, lon = _gps_position(gps)
    direction = _direction(gps)
    size = upright.size
    resized = (max(size) > max_px or fmt not in ("JPEG", "PNG") or raw is None
               or len(raw) > max_bytes)
    if resized:
        for quality in (85, 70, 55):
            data = jpeg_within(upright, max_px, quality=quality, exif=_time_exif(exif_ifd))
            if len(data) <= max_bytes:
                break
        with Image.open(io.BytesIO(data)) as copy:
            ctype, (w, h) = "image/jpeg", copy.size
    else:
        # kept as read: a JPEG or a PNG (anything else is resized above) within the caps
        assert raw is not None
        data, ctype, (w, h) = raw, "image/jpeg" if fmt == "JPEG" else "image/png", size
    taken = _exif_time(exif_ifd)
    thumb = upright.copy()
    thumb.thumbnail((THUMB_PX, THUMB_PX), Image.Resampling.LANCZOS)
    tbuf = io.BytesIO()
    thumb.save(tbuf, "JPEG", quality=80)
    return Photo(data=data, content_type=ctype, width=w, height=h, thumbnail=tbuf.getvalue(),
                 original_path=str(path.resolve()), original_size=size,
                 taken_camera=taken, lat_deg=lat, lon_deg=lon, direction_deg=direction,
                 resized=resized, taken_text=None if taken is not None else exif_time_text(exif_ifd))


def camera_offset_s(camera_time: datetime, true_utc: datetime) -> float:
    """The camera clock's offset (s): its EXIF time of a photo of the app's clock minus the
    UTC that clock showed. ``camera_time`` naive (the camera's wall clock) or aware."""
    if true_utc.tzinfo is None:
        raise ValueError("true_utc must be timezone-aware UTC")
    cam = camera_time if camera_time.tzinfo else camera_time.replace(tzinfo=UTC)
    return (cam - true_utc).total_seconds()


def _utc(photo: Photo, offset_s: float) -> datetime | None:
    """The photo's UTC: its camera time read as UTC (or converted, when the camera wrote its
    offset) minus the camera clock offset, as :func:`camera_offset_s` measured it."""
    t = photo.taken_camera
    if t is None:
        return None
    try:
        t = t.astimezone(UTC) if t.tzinfo else t.replace(tzinfo=UTC)
        return t - timedelta(seconds=offset_s)
    except OverflowError:   # an offset of millennia: no time, rather than no photo
        return None


def place(photo: Photo, track: Sequence[TrackPoint], *, frame: SiteFrame, offset_s: float = 0.0,
          max_gap_s: float = MAX_GAP_S) -> tuple[float, float, str] | None:
    """Where a photo goes on the site: (x, y in site CRS units, how) or None.

    ``how`` is ``"exif gps"`` when the photo has a GPS position (projected with ``frame``),
    else ``"track"``: its EXIF time minus the camera clock offset ``offset_s``
    (:func:`camera_offset_s`) matched to ``track`` (records with ``t_utc``, ``x``, ``y``, any
    order), interpolated between the two points around that time, each within ``max_gap_s``.
    None when neither works (no GPS, no time, or the time is off the track).
    """
    if photo.lat_deg is not None and photo.lon_deg is not None:
        x, y = frame.to_local(photo.lon_deg, photo.lat_deg)
        return float(x), float(y), "exif gps"
    t = _utc(photo, offset_s)
    timed = sorted(((p.t_utc, p) for p in track if p.t_utc is not None), key=lambda tp: tp[0])
    if t is None or not timed:
        return None
    times = [tp[0] for tp in timed]
    i = bisect_left(times, t)
    if i < len(timed) and times[i] == t:
        return timed[i][1].x, timed[i][1].y, "track"
    if 0 < i < len(timed):
        (t0, before), (t1, after) = timed[i - 1], timed[i]
        gap = (t1 - t0).total_seconds()
        if (t - t0).total_seconds() <= max_gap_s and (t1 - t).total_seconds() <= max_gap_s:
            f = (t - t0).total_seconds() / gap
            return before.x + f * (after.x - before.x), before.y + f * (after.y - before.y), "track"
    return None
