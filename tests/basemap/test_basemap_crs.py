"""A basemap in an engineering CRS (a local grid with no tie to the Earth) is refused when it is
added, with the reason, instead of being accepted and failing at the first draw; the same
picture in a UTM zone is taken and drawn."""

from __future__ import annotations

import numpy as np
import pytest

rasterio = pytest.importorskip("rasterio")
from rasterio.crs import CRS  # noqa: E402
from rasterio.transform import from_origin  # noqa: E402

from fieldapp.basemap import BasemapError, open_basemap, render  # noqa: E402
from fieldapp.basemap.raster import crs_refusal  # noqa: E402

LOCAL_GRID = ('LOCAL_CS["Lot 7 site grid",LOCAL_DATUM["arbitrary",32767],'
              'UNIT["US survey foot",0.304800609601219],AXIS["Easting",EAST],AXIS["Northing",NORTH]]')


def write_photo(path, crs, x0=305_000.0, y0=4_770_000.0):
    with rasterio.open(path, "w", driver="GTiff", width=64, height=64, count=3, dtype="uint8",
                       crs=crs, transform=from_origin(x0, y0, 0.5, 0.5)) as dst:
        dst.write(np.full((3, 64, 64), 90, np.uint8))
    return path


def test_a_basemap_in_an_engineering_grid_is_refused_when_added_with_the_reason(tmp_path):
    photo = write_photo(tmp_path / "plan.tif", CRS.from_wkt(LOCAL_GRID))
    with rasterio.open(photo) as src:                           # what GDAL keeps of it
        assert not src.crs.is_projected and not src.crs.is_geographic
    with pytest.raises(BasemapError) as info:
        open_basemap(photo)
    text = str(info.value)
    assert text.startswith('basemap plan.tif is in a local engineering grid ("Lot 7 site grid", US survey foot)')
    assert "no tie to the Earth" in text and "georeference it" in text


def test_the_same_picture_in_a_utm_zone_is_taken_and_drawn(tmp_path):
    photo = write_photo(tmp_path / "utm.tif", "EPSG:32616")
    info = open_basemap(photo)
    assert info.crs == "EPSG:32616"
    img = render(photo, "EPSG:32616", (305_008.0, 4_769_990.0, 305_012.0, 4_769_994.0), 4, 4, info)
    assert img[2, 2].tolist() == [90, 90, 90, 255]


def test_other_crs_kinds_that_cannot_be_drawn_are_named():
    assert crs_refusal("EPSG:4978").startswith('is in a geocentric CRS ("WGS 84")')
    assert crs_refusal("EPSG:5703").startswith('is in a vertical CRS ("NAVD88 height")')
    for ok in ("EPSG:4326", "EPSG:32616", "EPSG:2285", "EPSG:5498"):   # 5498: NAD83 + NAVD88 height
        assert crs_refusal(ok) is None, ok
