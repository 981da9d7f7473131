"""The basemap under the map: a GeoTIFF generated around the simulated receiver (EPSG:4326)
is drawn under the features at the crew's opacity, rendered off the UI thread, the red mark at
the receiver's position under the position marker; remembered for the visit; a corrupt file is
refused in the banner."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pytestqt")
rasterio = pytest.importorskip("rasterio")

from rasterio.transform import from_origin  # noqa: E402

from fieldapp.basemap import layers as maplayers  # noqa: E402
from tests.ui.ui_support import WAIT_MS, close_window, make_window, wait_fix  # noqa: E402

PX = 2e-6


def photo_around(path, lon, lat, n=600):
    """An n x n grey photo centred on (lon, lat) with a red 5 x 5 mark there."""
    data = np.full((3, n, n), 120, np.uint8)
    c = n // 2
    data[:, c - 2:c + 3, c - 2:c + 3] = np.array([255, 0, 0], np.uint8)[:, None, None]
    west, north = lon - (c + 0.5) * PX, lat + (c + 0.5) * PX
    with rasterio.open(path, "w", driver="GTiff", width=n, height=n, count=3, dtype="uint8",
                       crs="EPSG:4326", transform=from_origin(west, north, PX, PX)) as dst:
        dst.write(data)
    return path


def test_basemap_under_the_position_and_remembered(qtbot, private_dirs, tmp_path):
    w = make_window(qtbot, private_dirs, simulate=True)
    try:
        wait_fix(qtbot, w)
        qtbot.waitUntil(lambda: w.visit is not None and w.visit.model.has_frame and w.map.position is not None,
                        timeout=WAIT_MS)
        fix = w.latest_fix
        photo = photo_around(tmp_path / "ortho.tif", fix.lon_deg, fix.lat_deg)
        w.session.simulator("gnss").walk_to(fix.lat_deg, fix.lon_deg, 0.0)   # stand still
        w.map.set_follow(False)
        vb = w.map.plot.getPlotItem().getViewBox()
        x, y = w.visit.project(fix.lat_deg, fix.lon_deg)
        lx, ly = x - w.map.origin[0], y - w.map.origin[1]
        vb.setRange(xRange=(lx - 30, lx + 30), yRange=(ly - 20, ly + 20), padding=0)
        w.basemap_show(photo, 0.7)
        layer = w.basemap
        qtbot.waitUntil(lambda: layer.renders >= 1 and not layer._busy, timeout=WAIT_MS)
        assert layer.item.opacity() == pytest.approx(0.7) and layer.item.zValue() < -10
        img = layer.item.image
        r = layer.item.mapRectToParent(layer.item.boundingRect())
        # the pixel under (lx, ly): the image's row 0 is its bottom edge (north up)
        col = int((lx - r.left()) / r.width() * img.shape[1])
        row = int((ly - r.top()) / r.height() * img.shape[0])
        patch = img[max(row - 2, 0):row + 3, max(col - 2, 0):col + 3]
        assert (patch[..., 0].astype(int) - patch[..., 1]).max() > 80     # red under the position
        assert maplayers.basemaps(w.visit.path) == [(photo.resolve(), 0.7)]
        junk = tmp_path / "junk.tif"
        junk.write_bytes(b"not a tiff at all")
        w.basemap_show(junk, 1.0)
        assert "Basemap not added" in w.banner.text() and "not a raster GDAL can read" in w.banner.text()
        assert layer.info.path == photo          # the good one stays
    finally:
        close_window(w)


def test_reference_layer_outlines_the_parcel_and_is_not_visit_data(qtbot, private_dirs, tmp_path):
    import sqlite3

    import pyogrio
    import shapely
    from shapely.geometry import Polygon

    w = make_window(qtbot, private_dirs, simulate=True)
    try:
        wait_fix(qtbot, w)
        qtbot.waitUntil(lambda: w.visit is not None and w.visit.model.has_frame and w.map.origin is not None,
                        timeout=WAIT_MS)
        fix = w.latest_fix
        ring = [(fix.lon_deg + dx, fix.lat_deg + dy) for dx, dy in ((0, 0), (1e-4, 0), (1e-4, 1e-4), (0, 1e-4))]
        path = tmp_path / "parcels.gpkg"
        pyogrio.raw.write(path, np.array([shapely.to_wkb(Polygon(ring))], dtype=object), [], [],
                          crs="EPSG:4326", geometry_type="Polygon", driver="GPKG", layer="parcels")
        w.reference_add(str(path))
        xs, ys = w.reference_lines.item.getData()
        x0, y0 = w.visit.project(fix.lat_deg, fix.lon_deg)
        assert xs[0] == pytest.approx(x0 - w.map.origin[0], abs=1e-6)
        assert ys[0] == pytest.approx(y0 - w.map.origin[1], abs=1e-6)
        assert maplayers.references(w.visit.path) == [path.resolve()]
        # nothing of it went into the visit GeoPackage
        with sqlite3.connect(f"file:{w.visit.path}?mode=ro", uri=True) as conn:
            tables = {r[0] for r in conn.execute("SELECT table_name FROM gpkg_contents")}
        assert "parcels" not in tables
        w.reference_add(str(tmp_path / "missing.gpkg"))
        assert "Reference layer not added" in w.banner.text()
    finally:
        close_window(w)


def _bare_map(qtbot):
    from fieldapp.geo import SiteFrame
    from fieldapp.ui.mapview import MapView

    mv = MapView()
    qtbot.addWidget(mv)
    mv.resize(600, 400)
    mv.show()
    mv.set_follow(False)
    return mv, SiteFrame("EPSG:32616")


def test_pan_moves_the_last_image_and_renders_only_the_newest_view_off_the_ui_thread(qtbot, tmp_path):
    """A pan moves the drawn image with the view at once (it sits in map feet); the raster is
    read on the worker only; views passed while a render runs are dropped but the newest."""
    import threading

    from PySide6.QtCore import QRectF

    from fieldapp.basemap import Renderer
    from fieldapp.ui import basemaplayer
    from fieldapp.ui.basemaplayer import BasemapLayer

    lon, lat = -89.4, 43.07
    photo = photo_around(tmp_path / "ortho.tif", lon, lat)
    mv, frame = _bare_map(qtbot)
    x, y = frame.to_local(lon, lat)
    mv.set_origin(frame.to_ft(x), frame.to_ft(y))
    vb = mv.plot.getPlotItem().getViewBox()
    vb.setRange(xRange=(-30, 30), yRange=(-20, 20), padding=0)
    threads, gate = [], threading.Event()
    gate.set()
    real = Renderer.render

    def spy(self, *a, **k):
        threads.append(threading.current_thread().name)
        gate.wait(30)
        return real(self, *a, **k)

    Renderer.render = spy
    layer = BasemapLayer(mv, lambda: frame)
    try:
        layer.set_source(photo)
        qtbot.waitUntil(lambda: layer.renders >= 1 and layer.renders == layer.requests
                        and not layer._busy and not layer._throttle.isActive(), timeout=WAIT_MS)
        first = layer.requests
        before = QRectF(layer.item.mapRectToParent(layer.item.boundingRect()))
        (vx0, vx1), _ = vb.viewRange()
        m = basemaplayer.MARGIN * (vx1 - vx0)
        assert before.left() == pytest.approx(vx0 - m) and before.width() == pytest.approx(vx1 - vx0 + 2 * m)
        gate.clear()                      # the next render blocks until released
        mv.pan(0.1, 0.0)
        # moved with the view at once: still the same map feet, nothing read yet
        assert layer.item.mapRectToParent(layer.item.boundingRect()) == before
        qtbot.waitUntil(lambda: layer.requests == first + 1, timeout=WAIT_MS)    # the throttle fired
        for _ in range(5):
            mv.pan(0.1, 0.0)
            qtbot.waitUntil(lambda: not layer._throttle.isActive(), timeout=WAIT_MS)
        assert layer.requests == first + 1 and layer._pending         # one in flight, the rest waiting
        gate.set()
        qtbot.waitUntil(lambda: layer.requests == first + 2 and not layer._busy, timeout=WAIT_MS)
        (vx0, vx1), _ = vb.viewRange()
        after = layer.item.mapRectToParent(layer.item.boundingRect())
        assert after.left() == pytest.approx(vx0 - m)          # the newest view, with its margin
        assert layer.renders == first + 2 and "MainThread" not in threads and len(threads) == first + 2
    finally:
        gate.set()
        Renderer.render = real
        layer.close()


def test_renderer_keeps_the_file_open_and_draws_what_render_draws(tmp_path):
    from fieldapp.basemap import Renderer, render

    photo = photo_around(tmp_path / "ortho.tif", -89.4, 43.07)
    from fieldapp.geo import SiteFrame

    x, y = SiteFrame("EPSG:32616").to_local(-89.4, 43.07)
    box = (x - 40, y - 30, x + 40, y + 30)
    with Renderer() as r:
        a = r.render(photo, "EPSG:32616", box, 80, 60)
        b = r.render(photo, "EPSG:32616", (box[0] + 5, box[1], box[2] + 5, box[3]), 80, 60)
        assert len(r._open) == 1          # one file handle for both views
    assert np.array_equal(a, render(photo, "EPSG:32616", box, 80, 60))
    assert not np.array_equal(a, b)
