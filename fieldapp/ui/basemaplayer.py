"""The basemap under the map's features: an orthophoto or MBTiles file, rendered off the UI thread.

:class:`BasemapLayer` adds one ``ImageItem`` below every feature of the map (z -30) with the
crew's opacity. The image sits in map coordinates, so a pan or zoom moves and scales the last
rendered image at once, with no raster read on the UI thread. A moving view asks for a new render
at most every ``THROTTLE_MS`` (the newest view is read when the request goes out; views passed
meanwhile are dropped); :class:`fieldapp.basemap.Renderer` draws it on one worker thread
(reprojected to the site CRS, at the overview level that fits, a margin around the view so a
short pan shows no blank edge), one render at a time, and the finished image is put in place on
the UI thread through a queued signal (an RGBA array handed to Qt without conversion).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QObject, QRectF, QTimer, Signal

from fieldapp.basemap import BasemapError, BasemapInfo, Renderer, open_basemap

log = logging.getLogger(__name__)

#: The largest image rendered for a view (pixels a side).
MAX_PX = 2048
#: A render covers the view and this fraction of its width / height more on each side.
MARGIN = 0.25
#: A moving view asks for a render at most this often (ms).
THROTTLE_MS = 120


class _Answer(QObject):
    """The worker's way back (see :class:`fieldapp.ui.tracklayer._Answer`): owned by Python, so
    a render finishing after the map is gone emits into a live object."""

    rendered = Signal(int, object, object)
    failed = Signal(str)


class BasemapLayer(QObject):
    """One basemap drawn under the features of ``map_view`` (a :class:`fieldapp.ui.mapview.MapView`).

    Signals
    -------
    sigFailed(str)
        A render failed (the message in words; the layer is then cleared).
    """

    sigFailed = Signal(str)

    def __init__(self, map_view: Any, frame_of: Any) -> None:
        """``frame_of()`` returns the site frame (:class:`fieldapp.geo.SiteFrame`) or None."""
        super().__init__(map_view)
        self.map = map_view
        self.frame_of = frame_of
        self.info: BasemapInfo | None = None
        self.opacity = 1.0
        self.item = pg.ImageItem(axisOrder="row-major")
        self.item.setZValue(-30)
        self.item.setOpacity(self.opacity)
        self.map.plot.getPlotItem().addItem(self.item)
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="basemap")
        self._renderer = Renderer()          # used on the worker thread only
        self._generation = 0
        self._closed = False
        self._busy = False
        self._pending = False
        self.renders = 0
        self.requests = 0
        self._throttle = QTimer(self)
        self._throttle.setSingleShot(True)
        self._throttle.setInterval(THROTTLE_MS)
        self._throttle.timeout.connect(self._request)
        self._answer = _Answer()
        self._answer.rendered.connect(self._rendered)
        self._answer.failed.connect(self.sigFailed)
        self.map.plot.getPlotItem().getViewBox().sigRangeChanged.connect(self._view_moved)

    def _view_moved(self, *_: Any) -> None:
        """The view moved: the image moves with it (map coordinates); a render follows."""
        if self.info is not None and not self._throttle.isActive():
            self._throttle.start()

    # ---------------------------------------------------------------- the crew's choices
    def set_source(self, path: Any) -> BasemapInfo:
        """Show the basemap at ``path``; raises BasemapError (nothing changes then)."""
        info = open_basemap(path)
        self.info = info
        self._generation += 1
        self.item.clear()
        self._submit(self._renderer.close)      # a replaced file is opened afresh
        self._request()
        return info

    def clear(self) -> None:
        """No basemap."""
        self.info = None
        self._generation += 1
        self.item.clear()
        self._submit(self._renderer.close)

    def _submit(self, job: Any) -> None:
        if not self._closed:
            self._pool.submit(job)

    def set_opacity(self, opacity: float) -> None:
        """0 (hidden) .. 1 (opaque)."""
        self.opacity = max(0.0, min(1.0, float(opacity)))
        self.item.setOpacity(self.opacity)

    # ---------------------------------------------------------------- rendering
    def _view(self) -> tuple[Any, ...] | None:
        """What to render: (site CRS WKT, site bounds, width px, height px, local rect) for
        the view and its margin, at the view's pixel size (at most MAX_PX a side)."""
        frame = self.frame_of()
        if self.info is None or frame is None or self.map.origin is None:
            return None
        vb = self.map.plot.getPlotItem().getViewBox()
        (x0, x1), (y0, y1) = vb.viewRange()
        mx, my = MARGIN * (x1 - x0), MARGIN * (y1 - y0)
        x0, x1, y0, y1 = x0 - mx, x1 + mx, y0 - my, y1 + my
        scale = 1.0 + 2.0 * MARGIN
        w_px = int(min(max(vb.width() * scale, 1.0), MAX_PX))
        h_px = int(min(max(vb.height() * scale, 1.0), MAX_PX))
        ox, oy = self.map.origin
        bounds = (frame.from_ft(ox + x0), frame.from_ft(oy + y0), frame.from_ft(ox + x1), frame.from_ft(oy + y1))
        return frame.crs.to_wkt(), bounds, w_px, h_px, (x0, y0, x1 - x0, y1 - y0)

    def _request(self) -> None:
        if self._closed:
            return
        if self._busy:
            self._pending = True
            return
        view = self._view()
        if view is None:
            return
        self._busy = True
        self._pending = False
        self.requests += 1
        gen, info, renderer, answer = self._generation, self.info, self._renderer, self._answer
        if info is None:                # no basemap: _view() gives None then; never here
            self._busy = False
            return
        crs, bounds, w, h, rect = view

        def work() -> None:
            try:
                img = renderer.render(info.path, crs, bounds, w, h, info)
                answer.rendered.emit(gen, img[::-1].copy(), rect)   # row 0 at the bottom (y up)
            except (BasemapError, ValueError) as exc:
                answer.failed.emit(str(exc))
                answer.rendered.emit(gen, None, rect)
            except Exception as exc:  # noqa: BLE001 - a worker must always answer
                log.exception("basemap render")
                answer.failed.emit(f"basemap could not be drawn: {exc}")
                answer.rendered.emit(gen, None, rect)

        self._submit(work)

    def _rendered(self, gen: int, img: Any, rect: tuple[Any, ...]) -> None:
        self._busy = False
        if gen == self._generation and img is not None:
            # RGBA uint8 with no levels: pyqtgraph wraps it in a QImage as it is (with levels
            # it would rescale every channel on the UI thread, tens of ms a view)
            self.item.setImage(img, autoLevels=False, levels=None)
            self.item.setRect(QRectF(*rect))
            self.renders += 1
        if self._pending:
            self._request()

    def close(self) -> None:
        """Stop the worker (pending renders are dropped)."""
        self._submit(self._renderer.close)
        self._closed = True
        self._pool.shutdown(wait=False, cancel_futures=True)


class ReferenceLines:
    """Read-only reference layers as thin dashed outlines over the basemap, under the features."""

    def __init__(self, map_view: Any) -> None:
        from PySide6.QtCore import Qt

        self.map = map_view
        self.layers: list[Any] = []
        self.item = pg.PlotDataItem(pen=pg.mkPen("#5a2d82", width=2, style=Qt.PenStyle.DashLine), connect="finite")
        self.item.setZValue(-8)
        map_view.plot.getPlotItem().addItem(self.item)

    def add(self, ref: Any, frame: Any) -> None:
        self.layers.append(ref)
        self._draw(frame)

    def clear(self) -> None:
        self.layers = []
        self.item.setData([], [])

    def _draw(self, frame: Any) -> None:
        import numpy as np

        xs, ys = [], []
        for ref in self.layers:
            for line in ref.lines:
                pts = self.map._to_local([(frame.to_ft(x), frame.to_ft(y)) for x, y in line])
                xs += [p[0] for p in pts] + [np.nan]
                ys += [p[1] for p in pts] + [np.nan]
        self.item.setData(np.asarray(xs, float), np.asarray(ys, float), connect="finite")


@dataclass(frozen=True)
class BasemapMenu:
    """What :func:`install_basemap_menu` made (the window keeps each)."""

    layer: BasemapLayer
    add_action: Any
    """Add basemap… (Ctrl+B), a ``QAction``."""
    button: Any
    """The toolbar's *Basemap ▾*, a ``QToolButton``."""
    reference_lines: ReferenceLines
    reference_add: Callable[..., None]
    """``reference_add(path=None, remember=True)``: a reference layer added (None: asked for)."""
    show: Callable[..., None]
    """``show(path, opacity, remember=True)``: a basemap shown under the map."""


def install_basemap_menu(window: Any) -> BasemapMenu:
    """The toolbar's *Basemap ▾* button (Add basemap… Ctrl+B, opacity, remove) and the layer;
    the visit's basemap (:mod:`fieldapp.basemap.layers`) is shown when a visit opens."""
    from PySide6.QtWidgets import QFileDialog, QMenu

    from fieldapp.basemap import layers as maplayers
    from fieldapp.ui import theme

    def frame_of() -> Any:
        return window.recording.frame

    layer = BasemapLayer(window.map, frame_of)
    layer.sigFailed.connect(lambda text: window.show_banner(f"Basemap: {text}"))
    menu = QMenu(window)

    def add() -> None:
        path, _ = QFileDialog.getOpenFileName(window, "Add a basemap", "",
                                              "Orthophotos and tiles (*.tif *.tiff *.mbtiles);;All files (*)")
        if path:
            show(path, layer.opacity)

    def show(path: Any, opacity: float, remember: bool = True) -> None:
        try:
            info = layer.set_source(path)
        except BasemapError as exc:
            window.show_banner(f"Basemap not added: {exc}")
            return
        layer.set_opacity(opacity)
        window.basemap_button.setToolTip(f"Basemap: {info.source} ({info.date}), {info.crs}")
        if remember and window.visit is not None:
            maplayers.set_basemap(window.visit.path, path, opacity)

    def opacity(value: float) -> None:
        layer.set_opacity(value)
        if layer.info is not None and window.visit is not None:
            maplayers.set_basemap(window.visit.path, layer.info.path, value)

    def remove() -> None:
        layer.clear()
        if window.visit is not None:
            maplayers.set_basemap(window.visit.path, None)

    def on_visit(visit: Any) -> None:
        layer.clear()
        refs.clear()
        for path, op in maplayers.basemaps(visit.path) if visit is not None else []:
            show(path, op, remember=False)
        for path in maplayers.references(visit.path) if visit is not None else []:
            add_reference(path, remember=False)

    add_action = window._action("Add basemap…", "Ctrl+B", add,
                                tip="An orthophoto (GeoTIFF) or MBTiles under the map")
    menu.addAction(add_action)
    for pct in (100, 70, 40):
        def set_opacity(_checked: bool = False, v: float = pct / 100.0) -> None:
            opacity(v)

        menu.addAction(f"Opacity {pct} %", set_opacity)
    menu.addAction("Remove basemap", remove)
    menu.addSeparator()
    refs = ReferenceLines(window.map)

    def add_reference(path: Any = None, remember: bool = True) -> None:
        from fieldapp.basemap.reference import ReferenceLayerError, read_reference

        frame = frame_of()
        if path is None:
            path, _ = QFileDialog.getOpenFileName(window, "Add a reference layer", "",
                                                  "GeoPackage or Shapefile (*.gpkg *.shp);;All files (*)")
            if not path:
                return
        if frame is None:
            window.show_banner("Reference layer: the site CRS is not known yet (wait for a fix)")
            return
        try:
            ref = read_reference(path, frame.crs.to_wkt())
        except ReferenceLayerError as exc:
            window.show_banner(f"Reference layer not added: {exc}")
            return
        refs.add(ref, frame)
        if remember and window.visit is not None:
            maplayers.set_references(window.visit.path, [*maplayers.references(window.visit.path), path])

    def clear_references() -> None:
        refs.clear()
        if window.visit is not None:
            maplayers.set_references(window.visit.path, [])

    menu.addAction("Add reference layer (GeoPackage, Shapefile)…", add_reference)
    menu.addAction("Remove reference layers", clear_references)
    button = theme.menu_button("basemapButton", "Basemap ▾",
                               "Background orthophoto or tiles (Ctrl+B adds one)", menu)
    window.toolbar.addWidget(button)
    window.recording.on_shown(on_visit)
    return BasemapMenu(layer=layer, add_action=add_action, button=button, reference_lines=refs,
                       reference_add=add_reference, show=show)
