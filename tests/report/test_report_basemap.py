"""The report map draws the visit's basemap under the features, with its source and date."""

from __future__ import annotations

import unicodedata

import numpy as np
import pytest

rasterio = pytest.importorskip("rasterio")
pypdf = pytest.importorskip("pypdf")
from rasterio.transform import from_origin  # noqa: E402

from fieldapp.basemap import layers  # noqa: E402
from tests.report.test_report_visit import LAT0, LON0, build_sample_visit  # noqa: E402


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
    # the map page carries an image (the basemap); the page without one had none
    with_images = [" ".join(p.extract_text().split()) for p in reader.pages if p.images]
    assert len(with_images) == 1 and "Site map" in with_images[0]
    assert "Basemap: County orthophoto 2024" in with_images[0]
