"""Reading a basemap raster for the map: check it, then render the part in view, reprojected
to the site CRS, at the overview level that fits the view (GDAL through rasterio; no hand-written
TIFF or tile decoding).

A GeoTIFF / COG or an MBTiles file (GDAL's MBTiles driver: Web Mercator, one overview per zoom
level) in any CRS. :func:`render` picks the coarsest overview whose pixels are still at least as
fine as the view's, opens it (GDAL open option ``OVERVIEW_LEVEL``) and warps just the view's
window into the site CRS with a ``WarpedVRT`` (bilinear), so a 1 GB orthophoto seen whole reads a
small overview and seen close reads a few blocks. Call it off the UI thread.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from fieldapp.basemap.layers import StrPath
    from fieldapp.geo import SiteFrame

__all__ = ["BasemapError", "BasemapInfo", "Renderer", "open_basemap", "render", "overview_level", "crs_refusal"]


class BasemapError(ValueError):
    """A basemap that cannot be used: missing, not a raster GDAL reads (corrupt, truncated),
    without a CRS or georeferencing, in a CRS with no tie to the Earth (an engineering grid), or
    not 8-bit imagery. The message says which, in words."""


@dataclass(frozen=True)
class BasemapInfo:
    """What the map and the report say about a basemap: ``path``, GDAL ``driver``, ``crs``
    (authority code or WKT), ``bounds`` in its own CRS (minx, miny, maxx, maxy), pixel size
    ``width`` x ``height``, ``overviews`` (decimation factors of band 1), ``bands``, and for the
    report's note ``source`` (the file's own description or name) and ``date`` (the file's
    TIFFTAG_DATETIME / MBTiles metadata, else its modification date, ISO 8601)."""

    path: Path
    driver: str
    crs: str
    bounds: tuple[float, float, float, float]
    width: int
    height: int
    overviews: tuple[int, ...]
    bands: int
    source: str
    date: str


def _rasterio() -> tuple[Any, type[Exception]]:
    """rasterio (untyped: its datasets are ``Any`` here) and its I/O error, imported when first
    needed (GDAL is slow to load)."""
    import rasterio
    from rasterio.errors import RasterioIOError

    return rasterio, RasterioIOError


def open_basemap(path: StrPath) -> BasemapInfo:
    """Check ``path`` is a usable basemap and describe it; raises :class:`BasemapError`."""
    rasterio, RasterioIOError = _rasterio()
    path = Path(path)
    if not path.is_file():
        raise BasemapError(f"basemap {path} does not exist")
    try:
        with rasterio.open(path) as src:
            return _describe(path, src)
    except RasterioIOError as exc:
        raise BasemapError(f"basemap {path.name} is not a raster GDAL can read (corrupt, truncated "
                           f"or of an unsupported kind): {exc}") from None


def _describe(path: Path, src: Any) -> BasemapInfo:
    if src.crs is None:
        raise BasemapError(f"basemap {path.name} has no coordinate reference system: it cannot be "
                           "placed under the site (georeference it first, e.g. in QGIS)")
    why = crs_refusal(src.crs.to_wkt())
    if why:
        raise BasemapError(f"basemap {path.name} {why}")
    if src.transform.is_identity:
        raise BasemapError(f"basemap {path.name} has no georeferencing (pixel coordinates only)")
    if src.dtypes[0] != "uint8":
        raise BasemapError(f"basemap {path.name} is {src.dtypes[0]} data, not 8-bit imagery "
                           "(an elevation or index raster is not an orthophoto)")
    if src.count not in (1, 3, 4):
        raise BasemapError(f"basemap {path.name} has {src.count} bands; 1 (grey or palette), "
                           "3 (RGB) or 4 (RGBA) are drawn")
    tags = src.tags()
    auth = src.crs.to_authority()
    date = tags.get("TIFFTAG_DATETIME") or tags.get("date") or tags.get("mtime")
    if not date:
        date = datetime.fromtimestamp(os.path.getmtime(path), UTC).date().isoformat()
    source = (tags.get("TIFFTAG_IMAGEDESCRIPTION") or tags.get("attribution")
              or tags.get("description") or tags.get("name") or path.name)
    return BasemapInfo(path=path, driver=src.driver, crs=f"{auth[0]}:{auth[1]}" if auth else src.crs.to_wkt(),
                       bounds=tuple(src.bounds), width=src.width, height=src.height,
                       overviews=tuple(src.overviews(1)), bands=src.count, source=str(source),
                       date=str(date))


def crs_refusal(wkt: str) -> str | None:
    """Why a raster in the CRS ``wkt`` cannot be placed under a site, in words; None when it can
    (a projected or a latitude/longitude CRS, also as the horizontal part of a compound CRS).
    An engineering CRS (a local grid, e.g. a drone survey's or a site plan's own coordinates) has
    no tie to the Earth, so no transformation to the site exists (pyproj tells the kind).

    >>> crs_refusal('LOCAL_CS["site grid",UNIT["metre",1]]')[:38]
    'is in a local engineering grid ("site '
    >>> crs_refusal("EPSG:4326") is None and crs_refusal("EPSG:32616") is None
    True
    """
    from pyproj import CRS
    from pyproj.exceptions import CRSError

    try:
        crs = CRS.from_user_input(wkt)
    except CRSError as exc:
        return f"has a coordinate reference system PROJ does not understand ({exc}); re-save it in the site's CRS"
    if (crs.is_projected or crs.is_geographic) and not crs.is_geocentric:
        return None
    if crs.is_engineering:
        units = ", ".join(sorted({a.unit_name for a in crs.axis_info})) or "no unit"
        return (f"is in a local engineering grid (\"{crs.name}\", {units}) with no tie to the Earth: "
                "it cannot be placed under the site; georeference it to the site's CRS first "
                "(e.g. with control points in QGIS's Georeferencer)")
    kind = crs.type_name.removesuffix(" CRS").lower()
    return (f"is in a {kind} CRS (\"{crs.name}\"), not a map projection or latitude/longitude: "
            "it cannot be drawn on the map; re-save it in the site's CRS (e.g. in QGIS)")


def overview_level(overviews: tuple[int, ...], source_px: float, view_px: float) -> int | None:
    """The GDAL overview level to read: the coarsest whose pixel (``source_px`` x factor) is
    still no larger than the view's pixel ``view_px`` (same units); None for full resolution.

    >>> overview_level((2, 4, 8, 16), 0.5, 3.0)      # 6x coarser view: the 4x overview
    1
    >>> overview_level((2, 4), 0.5, 0.6) is None      # finer than 2x: full resolution
    True
    """
    best = None
    for i, f in enumerate(overviews):
        if source_px * f <= view_px * 1.0001:
            best = i
    return best


def render(path: StrPath, site_crs: object, bounds: Sequence[float], width_px: int, height_px: int,
           info: BasemapInfo | None = None) -> npt.NDArray[np.uint8]:
    """The basemap in the view: an RGBA uint8 array ``(height_px, width_px, 4)`` whose row 0 is the
    view's north edge, covering ``bounds`` = (minx, miny, maxx, maxy) in **site CRS units**
    (``site_crs``: anything rasterio takes, e.g. ``"EPSG:32616"``). Alpha 0 outside the raster.

    Opens the file for this one call; a caller rendering view after view keeps a
    :class:`Renderer` instead. Raises :class:`BasemapError` (see :func:`open_basemap`) and
    ValueError for an empty view.
    """
    with Renderer() as r:
        return r.render(path, site_crs, bounds, width_px, height_px, info)


class Renderer:
    """Renders view after view of basemaps, keeping each (file, overview level) open between
    calls so GDAL's block cache serves a pan from memory instead of the disk. Not thread-safe:
    one per worker thread. ``close()`` (or ``with``) closes the files."""

    def __init__(self) -> None:
        self._open: dict[tuple[str, int | None], Any] = {}  # rasterio datasets
        self._site_bounds: dict[tuple[str, str], tuple[float, float, float, float]] = {}

    def __enter__(self) -> Renderer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        for src in self._open.values():
            src.close()
        self._open.clear()

    def _dataset(self, path: Path, level: int | None) -> Any:
        rasterio, _ = _rasterio()
        key = (str(path), level)
        src = self._open.get(key)
        if src is None:
            kw = {} if level is None else {"overview_level": level}
            src = self._open[key] = rasterio.open(path, **kw)
        return src

    def _level(self, info: BasemapInfo, site_crs: object, view_px: float) -> int | None:
        from rasterio.warp import transform_bounds

        if not info.overviews:
            return None
        key = (str(info.path), str(site_crs))
        b = self._site_bounds.get(key)
        if b is None:
            b = self._site_bounds[key] = transform_bounds(info.crs, site_crs, *info.bounds, densify_pts=21)
        return overview_level(info.overviews, (b[2] - b[0]) / info.width, view_px)

    def render(self, path: StrPath, site_crs: object, bounds: Sequence[float], width_px: int,
               height_px: int, info: BasemapInfo | None = None) -> npt.NDArray[np.uint8]:
        """As :func:`render`, reusing the files this renderer has open."""
        _, RasterioIOError = _rasterio()
        from rasterio.enums import Resampling
        from rasterio.transform import from_bounds
        from rasterio.vrt import WarpedVRT

        minx, miny, maxx, maxy = (float(v) for v in bounds)
        w, h = int(width_px), int(height_px)
        if not (w > 0 and h > 0 and maxx > minx and maxy > miny):
            raise ValueError(f"empty view {bounds} at {w} x {h} px")
        info = info or open_basemap(path)
        dst_transform = from_bounds(minx, miny, maxx, maxy, w, h)
        try:
            src = self._dataset(info.path, self._level(info, site_crs, (maxx - minx) / w))
            with WarpedVRT(src, crs=site_crs, transform=dst_transform, width=w, height=h,
                           resampling=Resampling.bilinear, add_alpha=src.count in (1, 3)) as vrt:
                data = vrt.read()
            cmap = src.colormap(1) if src.count == 1 and _has_colormap(src) else None
        except RasterioIOError as exc:
            raise BasemapError(f"basemap {Path(path).name} could not be read: {exc}") from None
        return _rgba(data, cmap)


def _has_colormap(src: Any) -> bool:
    try:
        src.colormap(1)
        return True
    except ValueError:
        return False


def _rgba(data: npt.NDArray[np.uint8], cmap: dict[int, tuple[int, ...]] | None) -> npt.NDArray[np.uint8]:
    """Bands from the warped VRT (grey/palette + alpha, RGB + alpha, or RGBA) -> (h, w, 4)."""
    n, h, w = data.shape
    out = np.empty((h, w, 4), np.uint8)
    if n == 2:
        if cmap is not None:
            lut = np.zeros((256, 4), np.uint8)
            for k, v in cmap.items():
                lut[k] = v
            out[:] = lut[data[0]]
            out[..., 3] = np.minimum(out[..., 3], data[1])
        else:
            out[..., :3] = data[0][..., None]
            out[..., 3] = data[1]
    else:
        out[..., :3] = np.moveaxis(data[:3], 0, -1)
        out[..., 3] = data[3]
    return out


def view_bounds_ft_to_site(frame: SiteFrame, origin_ft: Sequence[float], x_range: Sequence[float],
                           y_range: Sequence[float]) -> tuple[float, float, float, float]:
    """The map's view (local ft ranges about ``origin_ft``) as site-CRS bounds."""
    ox, oy = origin_ft
    return (frame.from_ft(ox + x_range[0]), frame.from_ft(oy + y_range[0]),
            frame.from_ft(ox + x_range[1]), frame.from_ft(oy + y_range[1]))
