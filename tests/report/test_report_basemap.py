"""The report map draws the visit's basemap under the features, with its source and date."""

from __future__ import annotations

import unicodedata

import numpy as np
import pytest

rasterio = pytest.importorskip("rasterio")
pypdf = pytest.importorskip("pypdf")
from rasterio.transform import from_origin  # noqa: E402

from fieldapp.basemap import layers  # noqa: E402
from tests.report.sample_visit import LAT0, LON0, build_sample_visit  # noqa: E402


def test_report_map_has_the_basemap_and_its_note(tmp_path, qapp):
    from fieldapp.report import build_report
    from fieldapp.report.content import gather, load_visit

    path = tmp_path / "site.gpkg"
    build_sample_visit(path, conflict=False)
    photo = tmp_path / "ortho.tif"
    n, px = 500, 1e-5                       # about 0.8 x 1.1 m pixels, 400 x 550 m
    with rasterio.open(photo, "w", driver="GTiff", width=n, height=n, count=3, dtype="uint8",
                       crs="EPSG:4326", transform=from_origin(LON0 - 0.0025, LAT0 + 0.0025, px, px)) as dst:
        dst.write(np.stack([np.full((n, n), v, np.uint8) for v in (30, 160, 60)]))
        dst.update_tags(TIFFTAG_IMAGEDESCRIPTION="County orthophoto 2024", TIFFTAG_DATETIME="2024:04:20 10:00:00")
    layers.set_basemap(path, photo, 0.8)
    content = gather(load_visit(path), path, conflicts=[])
    ((info, _crs, unit, opacity),) = content.map.basemaps
    assert info.source == "County orthophoto 2024" and opacity == 0.8 and unit == pytest.approx(0.3048)
    out = tmp_path / "report.pdf"
    build_report(path, out)
    reader = pypdf.PdfReader(out)
    text = unicodedata.normalize("NFKC", " ".join(" ".join(p.extract_text() for p in reader.pages).split()))
    assert "Basemap: County orthophoto 2024, 2024:04:20 10:00:00" in text
    # the note is printed once, under the map on the map's page
    assert text.count("Basemap: County orthophoto 2024") == 1
    (map_page,) = [p for p in reader.pages if "Site map" in p.extract_text()]
    assert "Basemap: County orthophoto 2024" in map_page.extract_text()
    # the map image shows the orthophoto's green (30, 160, 60) at opacity 0.8 over white:
    # 0.8 * (30, 160, 60) + 0.2 * 255 = (75, 179, 99) wherever no feature covers it
    pixels = np.asarray(map_page.images[0].image.convert("RGB")).astype(int)
    green = (np.abs(pixels - np.array([75, 179, 99])).max(axis=2) <= 3).mean()
    assert green > 0.3, green
