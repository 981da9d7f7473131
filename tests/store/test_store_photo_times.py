"""A photo's time in words says what it is: UTC only when the camera wrote its zone (EXIF
OffsetTimeOriginal) or its clock offset was set when the photo was kept; else the camera's own
clock, "camera local time (no zone)". A resized copy keeps the EXIF time tags that tell."""

from __future__ import annotations

import io

from PIL import Image

from fieldapp.app.config import AppConfig
from fieldapp.app.photos import attach_files
from fieldapp.store.photos import photo_entries, taken_words
from fieldapp.survey import Layer, Visit

#: The camera runs 5 h 2 min 10 s behind UTC (local time, a slow clock): camera minus UTC.
BEHIND_S = -(5 * 3600 + 2 * 60 + 10)


def photo(path, *, when="2026:06:01 09:58:15", zone=None, size=(640, 480)):
    """A JPEG whose EXIF IFD has DateTimeOriginal ``when`` and, given, OffsetTimeOriginal."""
    exif = Image.Exif()
    exif[0x8769] = {36867: when, **({36881: zone} if zone else {})}
    Image.new("RGB", size, (90, 140, 60)).save(path, "JPEG", exif=exif.tobytes(), quality=90)
    return path


def kept(tmp_path, path, **config):
    v = Visit.new("Mill Creek lot", crs="EPSG:32616", who="crew@laptop")
    (p,) = attach_files(v, [path], layer=Layer.SITE,
                        config=AppConfig(data_dir=str(tmp_path), **config)).kept
    return v, p


def test_no_zone_and_no_offset_is_the_cameras_own_clock(tmp_path):
    v, p = kept(tmp_path, photo(tmp_path / "a.jpg"))
    assert taken_words(p) == "2026-06-01 09:58 camera local time (no zone)"
    assert photo_entries(v)[0].taken == "2026-06-01 09:58 camera local time (no zone)"


def test_the_clock_offset_set_gives_utc(tmp_path):
    # camera 09:58:15, 5 h 2 min 10 s behind: 09:58:15 + 5:02:10 = 15:00:25 UTC
    _, p = kept(tmp_path, photo(tmp_path / "a.jpg"), camera_offset_s=float(BEHIND_S))
    assert taken_words(p) == "2026-06-01 15:00 UTC"


def test_a_zone_the_camera_wrote_gives_utc(tmp_path):
    # camera 09:58:15 at -05:00 (CDT): 14:58:15 UTC
    _, p = kept(tmp_path, photo(tmp_path / "a.jpg", zone="-05:00"))
    assert taken_words(p) == "2026-06-01 14:58 UTC"


def test_a_resized_copy_keeps_the_time_tags_that_tell(tmp_path):
    big = (3000, 2000)                       # over the 2048 px cap: kept as a resized JPEG
    for zone, offset, words in ((None, 0.0, "2026-06-01 09:58 camera local time (no zone)"),
                                (None, float(BEHIND_S), "2026-06-01 15:00 UTC"),
                                ("-05:00", 0.0, "2026-06-01 14:58 UTC")):
        _, p = kept(tmp_path, photo(tmp_path / "big.jpg", zone=zone, size=big),
                    camera_offset_s=offset)
        assert (p.width, p.height) == (2048, 1365)
        assert taken_words(p) == words, (zone, offset)
    with Image.open(io.BytesIO(p.data)) as im:
        ifd = im.getexif().get_ifd(0x8769)
    assert dict(ifd) == {36867: "2026:06:01 09:58:15", 36881: "-05:00"}   # the time tags only


def test_no_time_is_a_dash(tmp_path):
    path = tmp_path / "a.jpg"
    Image.new("RGB", (64, 64)).save(path, "JPEG")
    _, p = kept(tmp_path, path)
    assert taken_words(p) == "—"
