"""Basemap rasters: a GeoTIFF generated here in EPSG:4326 lands under a UTM site where a feature
at the same coordinates does (within a pixel), at full resolution and from an overview; a
corrupt, truncated or unusable raster is refused with a message."""

from __future__ import annotations

import numpy as np
import pytest

rasterio = pytest.importorskip("rasterio")
from rasterio.transform import from_origin  # noqa: E402

from fieldapp.basemap import BasemapError, open_basemap, render  # noqa: E402
from fieldapp.geo import SiteFrame  # noqa: E402

LON0, LAT0 = -89.001, 45.001          # north-west corner of the generated photo
PX = 5e-6                             # degrees per pixel (about 0.39 m east, 0.56 m north)
N = 400
MARK = (250, 130)                     # (row, col) of the red 3x3 mark's middle pixel


def mark_lonlat():
    r, c = MARK
    return LON0 + (c + 0.5) * PX, LAT0 - (r + 0.5) * PX


def make_photo(path, overviews=()):
    data = np.full((3, N, N), 90, np.uint8)
    r, c = MARK
    data[:, r - 1:r + 2, c - 1:c + 2] = np.array([255, 0, 0], np.uint8)[:, None, None]
    with rasterio.open(path, "w", driver="GTiff", width=N, height=N, count=3, dtype="uint8",
                       crs="EPSG:4326", transform=from_origin(LON0, LAT0, PX, PX), tiled=True,
                       blockxsize=256, blockysize=256) as dst:
        dst.write(data)
        dst.update_tags(TIFFTAG_DATETIME="2024:04:20 10:00:00", TIFFTAG_IMAGEDESCRIPTION="test orthophoto")
        if overviews:
            dst.build_overviews(list(overviews))
    return path


def red_centre(img):
    """Centroid (col, row) of the red-dominant pixels, weighted by redness."""
    red = img[..., 0].astype(float) - img[..., 1].astype(float)
    red[red < 20] = 0
    rows, cols = np.nonzero(red)
    wts = red[rows, cols]
    return float((cols * wts).sum() / wts.sum()), float((rows * wts).sum() / wts.sum())


@pytest.mark.parametrize("overviews,m_per_px", [((), 0.25), ((2, 4), 1.2)])
def test_a_4326_photo_lands_under_a_utm_feature_within_a_pixel(tmp_path, overviews, m_per_px):
    photo = make_photo(tmp_path / "photo.tif", overviews)
    frame = SiteFrame("EPSG:32616")
    x, y = (float(v) for v in frame.to_local(*mark_lonlat()))   # the feature at the mark
    w = h = 80
    # a view whose pixel centres are offset from the feature by a fraction of a pixel
    minx, maxy = x - 31.3 * m_per_px, y + 27.8 * m_per_px
    img = render(photo, "EPSG:32616", (minx, maxy - h * m_per_px, minx + w * m_per_px, maxy), w, h)
    assert img.shape == (h, w, 4) and img.dtype == np.uint8
    expected = ((x - minx) / m_per_px - 0.5, (maxy - y) / m_per_px - 0.5)  # pixel of the feature
    got = red_centre(img)
    assert abs(got[0] - expected[0]) <= 1.0 and abs(got[1] - expected[1]) <= 1.0, (got, expected)
    assert img[..., 3].min() == 255     # the view lies inside the photo


def test_outside_the_photo_is_transparent_and_the_info_names_source_and_date(tmp_path):
    photo = make_photo(tmp_path / "photo.tif")
    info = open_basemap(photo)
    assert info.crs == "EPSG:4326" and (info.width, info.height, info.bands) == (N, N, 3)
    assert info.source == "test orthophoto" and info.date == "2024:04:20 10:00:00"
    frame = SiteFrame("EPSG:32616")
    x, y = (float(v) for v in frame.to_local(LON0, LAT0))      # the photo's north-west corner
    img = render(photo, "EPSG:32616", (x - 50, y - 50, x + 50, y + 50), 100, 100, info)
    # south-east quarter inside (alpha 255), north-west quarter outside (alpha 0)
    assert img[75, 75, 3] == 255 and img[25, 25, 3] == 0


def test_corrupt_truncated_or_unusable_rasters_are_refused_in_words(tmp_path):
    junk = tmp_path / "photo.tif"
    junk.write_bytes(b"II*\x00" + b"\x00garbage" * 50)
    with pytest.raises(BasemapError, match="not a raster GDAL can read"):
        open_basemap(junk)
    good = make_photo(tmp_path / "good.tif").read_bytes()
    cut = tmp_path / "cut.tif"
    cut.write_bytes(good[: len(good) // 3])
    with pytest.raises(BasemapError, match="cut.tif"):
        render(cut, "EPSG:32616", (0, 0, 10, 10), 10, 10)
    text = tmp_path / "notes.tif"
    text.write_text("an orthophoto, honestly\n")
    with pytest.raises(BasemapError, match="not a raster GDAL can read"):
        open_basemap(text)
    nocrs = tmp_path / "nocrs.tif"
    with rasterio.open(nocrs, "w", driver="GTiff", width=4, height=4, count=1, dtype="uint8") as dst:
        dst.write(np.zeros((1, 4, 4), np.uint8))
    with pytest.raises(BasemapError, match="no coordinate reference system"):
        open_basemap(nocrs)
    dem = tmp_path / "dem.tif"
    with rasterio.open(dem, "w", driver="GTiff", width=4, height=4, count=1, dtype="float32",
                       crs="EPSG:4326", transform=from_origin(LON0, LAT0, PX, PX)) as dst:
        dst.write(np.zeros((1, 4, 4), np.float32))
    with pytest.raises(BasemapError, match="float32 data, not 8-bit imagery"):
        open_basemap(dem)
    with pytest.raises(BasemapError, match="does not exist"):
        open_basemap(tmp_path / "missing.tif")
