"""Photos: EXIF GPS and time read with Pillow, the size cap, the camera clock offset matched
against a track, and refusal of a non-image or truncated file."""

from __future__ import annotations

import io
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from PIL import Image

from fieldapp.geo import SiteFrame
from fieldapp.survey.photos import PhotoError, camera_offset_s, place, read_photo
from tests.photo_sample import jpeg

T0 = datetime(2024, 5, 14, 15, 0, 0, tzinfo=UTC)


@dataclass
class TP:
    t_utc: datetime
    x: float
    y: float


def test_exif_gps_position_and_direction(tmp_path):
    p = read_photo(jpeg(tmp_path / "a.jpg", gps=(44.5, -90.0), direction=271.5, when="2024:05:14 10:00:00"))
    assert p.lat_deg == pytest.approx(44.5, abs=1e-6) and p.lon_deg == pytest.approx(-90.0, abs=1e-6)
    assert p.direction_deg == pytest.approx(271.5) and p.content_type == "image/jpeg" and not p.resized
    assert p.taken_camera == datetime(2024, 5, 14, 10, 0, 0)
    frame = SiteFrame("EPSG:3070")
    x, y, how = place(p, [], frame=frame)
    ex, ey = frame.to_local(-90.0, 44.5)
    assert how == "exif gps" and x == pytest.approx(ex, abs=1e-3) and y == pytest.approx(ey, abs=1e-3)


def test_exif_time_with_a_camera_offset_matched_to_the_track(tmp_path):
    # the camera runs 5 h 2 min 10 s behind UTC (local time, a slow clock): a photo of the app's
    # clock showing 15:00:00 UTC carries 09:57:50
    offset = camera_offset_s(datetime(2024, 5, 14, 9, 57, 50), T0)
    assert offset == -(5 * 3600 + 130)
    track = [TP(T0 + timedelta(seconds=10 * i), 1000.0 + 3.0 * i, 2000.0 - 1.0 * i) for i in range(10)]
    # taken at camera 09:58:15 = 15:00:25 UTC: halfway between the points at 20 s and 30 s
    p = read_photo(jpeg(tmp_path / "b.jpg", when="2024:05:14 09:58:15"))
    x, y, how = place(p, list(reversed(track)), frame=SiteFrame("EPSG:3070"), offset_s=offset)
    assert how == "track" and x == pytest.approx(1007.5) and y == pytest.approx(1997.5)
    # without the offset it is hours off the track: not placed
    assert place(p, track, frame=SiteFrame("EPSG:3070")) is None
    # no time, no GPS: not placed
    assert place(read_photo(jpeg(tmp_path / "c.jpg")), track, frame=SiteFrame("EPSG:3070")) is None


def test_size_cap_keeps_a_resized_copy_and_the_original_path(tmp_path):
    src = jpeg(tmp_path / "big.jpg", size=(4000, 3000))
    p = read_photo(src, max_px=1000)
    assert p.resized and (p.width, p.height) == (1000, 750) and p.original_size == (4000, 3000)
    assert p.original_path == str(src.resolve())
    with Image.open(io.BytesIO(p.data)) as im:
        assert im.size == (1000, 750) and im.format == "JPEG"
    with Image.open(io.BytesIO(p.thumbnail)) as im:
        assert max(im.size) == 256


def test_non_image_and_truncated_files_are_refused(tmp_path):
    text = tmp_path / "notes.jpg"
    text.write_text("field notes, not a photo")
    with pytest.raises(PhotoError, match="notes.jpg is not a photo Pillow can read"):
        read_photo(text)
    whole = jpeg(tmp_path / "whole.jpg", size=(800, 600)).read_bytes()
    cut = tmp_path / "cut.jpg"
    cut.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(PhotoError, match="cut.jpg .*truncated"):
        read_photo(cut)
    with pytest.raises(PhotoError, match="cannot be read"):
        read_photo(tmp_path / "missing.jpg")


def test_a_file_over_the_byte_cap_is_kept_as_a_smaller_jpeg(tmp_path):
    import numpy as np

    rng = np.random.default_rng(16)
    noise = Image.fromarray(rng.integers(0, 256, (600, 800, 3), dtype=np.uint8))
    src = tmp_path / "noise.png"
    noise.save(src)                       # noise does not compress: about 1.4 MB of PNG
    size = src.stat().st_size
    assert size > 1_000_000
    p = read_photo(src, max_bytes=size - 1)
    assert p.resized and p.content_type == "image/jpeg" and (p.width, p.height) == (800, 600)
    assert len(p.data) < size
    kept = read_photo(src, max_bytes=size)   # at the cap: the original's bytes, as PNG
    assert not kept.resized and kept.data == src.read_bytes() and kept.content_type == "image/png"


def _png_header_only(path, w, h):
    """A PNG whose header says ``w`` × ``h`` px (no pixel data): what Pillow reads the size from."""
    import struct
    import zlib

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IEND", b""))
    return path


def test_an_image_too_large_to_decode_is_refused_and_the_others_are_read(tmp_path):
    # 30000 x 30000 px = 900 megapixels (Pillow's own bomb limit is 179 MP x 2); 13000 x 11000 =
    # 143 MP would be decoded (1.4 GB). Both are refused by name; the good photo beside is kept.
    from fieldapp.app.photos import read_files

    bomb = _png_header_only(tmp_path / "aerial.png", 30000, 30000)
    big = _png_header_only(tmp_path / "scan.png", 13000, 11000)
    good = jpeg(tmp_path / "IMG_0001.jpg")
    with pytest.raises(PhotoError, match=r"aerial.png: the image is far too large to read"):
        read_photo(bomb)         # Pillow refuses it while opening, before its size is ours
    read, refused = read_files([good, bomb, big])
    assert [Path(p.original_path).name for p in read] == ["IMG_0001.jpg"]
    assert refused == [
        "aerial.png: the image is far too large to read (over 120 megapixels); resize it first",
        "scan.png: the image is 13000 × 11000 px (143 megapixels), more than the 120 megapixels"
        " a photo may have; resize it first"]


def test_a_non_image_is_refused_without_python_internals(tmp_path):
    text = tmp_path / "notes.jpg"
    text.write_text("field notes, not a photo")
    with pytest.raises(PhotoError) as info:
        read_photo(text)
    assert str(info.value) == ("notes.jpg is not a photo Pillow can read (not an image, or an"
                               " image format it does not know)")
