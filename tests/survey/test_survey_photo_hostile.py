"""Hostile photo files through the app's attach path (issue 30, items 3, 6 and 11).

3: a photo's EXIF date is untrusted text: a year below 1000 (or any text that is not a sane
time) is never stored as a time, and every time is stored zero-padded, so the visit opens again.
6: one bad photo in a batch never costs the others: the good ones are kept, the rest refused by
name with the reason. 11: a huge file is never read whole into memory.
"""

from __future__ import annotations

import sqlite3
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path

import pytest
from PIL import Image, TiffImagePlugin

from fieldapp.app.config import AppConfig
from fieldapp.app.photos import attach_files
from fieldapp.store import create_visit, open_visit
from fieldapp.store.photos import photo_entries, taken_words
from fieldapp.store.schema import parse_utc, utc_text
from fieldapp.survey import Layer, Visit
from fieldapp.survey.photos import read_photo
from tests.survey.test_survey_photos import _png_header_only, jpeg


def exif_jpeg(path: Path, when: str | None = None, gps: dict[int, object] | None = None) -> Path:
    """A small JPEG written by Pillow whose EXIF holds ``when`` as DateTimeOriginal and ``gps``
    as its GPS IFD, exactly as given (no checks: what a crafted file can hold)."""
    exif = Image.Exif()
    if when is not None:
        exif[0x8769] = {36867: when}
    if gps is not None:
        exif[0x8825] = gps
    Image.new("RGB", (320, 240), (90, 140, 60)).save(path, "JPEG", exif=exif.tobytes(), quality=90)
    return path


def test_times_are_stored_zero_padded_and_the_old_unpadded_form_is_read_back():
    assert utc_text(datetime(999, 1, 1, 0, 0, 0, 250000, tzinfo=UTC)) == "0999-01-01T00:00:00.250Z"
    assert utc_text(datetime(5, 3, 4, 1, 2, 3, tzinfo=UTC)) == "0005-03-04T01:02:03.000Z"
    assert utc_text(datetime(2024, 5, 1, 14, 3, 7, 250999, tzinfo=UTC)) == "2024-05-01T14:03:07.250Z"
    # what earlier versions wrote for a year below 1000 (strftime does not pad it on Linux)
    assert parse_utc("999-01-01T00:00:00.000Z") == datetime(999, 1, 1, tzinfo=UTC)
    with pytest.raises(ValueError, match="is not a time"):
        parse_utc("99999-01-01T00:00:00.000Z")


@pytest.mark.parametrize("when", ["0999:01:01 00:00:00", "0001:01:01 00:00:00",
                                  "9999:12:31 23:59:59", "1850:06:01 12:00:00"])
def test_a_photo_with_an_odd_exif_year_keeps_the_visit_openable(tmp_path, when):
    path = tmp_path / "visit.gpkg"
    store = create_visit(path, Visit.new("Mill Creek lot", crs="EPSG:32616", who="crew@laptop"))
    photo = exif_jpeg(tmp_path / "IMG_0999.jpg", when=when)
    # a camera offset too: year 1 less a minute, or year 9999 plus one, is no time at all
    out = attach_files(store.visit, [photo], layer=Layer.SITE,
                       config=AppConfig(data_dir=str(tmp_path), camera_offset_s=-60.0))
    assert out.refused == () and len(out.kept) == 1
    assert out.kept[0].taken_utc is None                # text, never a time
    assert taken_words(out.kept[0]) == f"camera wrote “{when}” (not a date)"
    store.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT taken_utc FROM photo").fetchall() == [(None,)]
    conn.close()
    again = open_visit(path, readonly=True)
    try:
        (p,) = again.visit.photos_of(Layer.SITE)
        assert p.taken_utc is None and p.original_path.endswith("IMG_0999.jpg")
        assert photo_entries(again)[0].taken == f"camera wrote “{when}” (not a date)"
    finally:
        again.close()


def test_exif_time_text_is_shown_printable_and_short(tmp_path):
    p = read_photo(exif_jpeg(tmp_path / "a.jpg", when="2024:05:14 10:00:00\x1b[2J" + "x" * 80))
    assert p.taken_camera is None
    assert p.taken_text == "2024:05:14 10:00:00?[2J" + "x" * 16 + "…"


def test_one_bad_photo_never_costs_the_batch(tmp_path):
    visit = Visit.new("Mill Creek lot", crs="EPSG:32616", who="crew@laptop")
    good = jpeg(tmp_path / "IMG_0001.jpg", gps=(44.9, -87.0), when="2024:05:14 10:00:00")
    also = jpeg(tmp_path / "IMG_0002.jpg")
    # GPS on the far side of the Earth (outside UTM 16N's area of use): kept, not placed
    far = jpeg(tmp_path / "far.jpg", gps=(-45.0, 170.0))
    # a GPS direction of 1/0 and a latitude of 100 degrees: kept without them
    odd = exif_jpeg(tmp_path / "odd.jpg", gps={
        1: "N", 2: (100.0, 0.0, 0.0), 3: "W", 4: (87.0, 0.0, 0.0),
        16: "T", 17: TiffImagePlugin.IFDRational(1, 0)})
    whole = jpeg(tmp_path / "whole.jpg", size=(800, 600)).read_bytes()
    (tmp_path / "cut.jpg").write_bytes(whole[: len(whole) // 2])
    (tmp_path / "notes.jpg").write_text("field notes, not a photo")
    bomb = tmp_path / "aerial.png"
    _png_header_only(bomb, 20000, 20000)      # 400 megapixels
    files = [good, tmp_path / "cut.jpg", far, tmp_path / "notes.jpg", odd, bomb,
             tmp_path / "gone.jpg", also]
    out = attach_files(visit, files, config=AppConfig(data_dir=str(tmp_path)))
    kept = {Path(p.original_path).name: p for p in out.kept}
    assert sorted(kept) == ["IMG_0001.jpg", "IMG_0002.jpg", "far.jpg", "odd.jpg"]
    assert kept["IMG_0001.jpg"].placed_by == "exif gps"
    assert kept["far.jpg"].x is None and kept["far.jpg"].placed_by is None
    assert kept["odd.jpg"].lat_deg is None and kept["odd.jpg"].direction_deg is None
    assert len(out.refused) == 4
    cut, notes, aerial, gone = out.refused
    assert cut.startswith("cut.jpg is not a photo Pillow can read (not an image, or truncated")
    assert notes.startswith("notes.jpg is not a photo Pillow can read")
    assert aerial == ("aerial.png: the image is far too large to read (over 120 megapixels);"
                      " resize it first")
    assert gone.startswith("photo ") and gone.endswith("gone.jpg: cannot be read (there is no such file)")
    assert out.message.startswith("4 photos kept: 1 by EXIF GPS, 3 not placed")
    assert "refused: cut.jpg is not a photo" in out.message
    assert len(visit.unattached_photos()) == 4


def test_a_huge_photo_file_is_never_read_whole(tmp_path):
    # a real photo followed by 96 MB (the bytes after the JPEG's end marker: a crafted or
    # damaged file); memory while reading it stays far below its size
    path = jpeg(tmp_path / "IMG_HUGE.jpg", size=(1600, 1200), when="2024:05:14 10:00:00")
    with open(path, "ab") as fh:
        block = b"\0" * (1 << 20)
        for _ in range(96):
            fh.write(block)
    del block
    size = path.stat().st_size
    assert size > 96_000_000
    tracemalloc.start()
    try:
        p = read_photo(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8_000_000, f"{peak} bytes traced for a {size}-byte file"
    assert p.resized and p.content_type == "image/jpeg" and len(p.data) <= 1_000_000
    assert p.taken_camera == datetime(2024, 5, 14, 10, 0, 0)
