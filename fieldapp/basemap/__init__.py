"""Offline basemaps: orthophotos (GeoTIFF / Cloud-Optimized GeoTIFF) and MBTiles raster tiles in
any CRS, read and reprojected to the site CRS through GDAL (rasterio) -- :mod:`.raster`; and
``fieldapp basemap fetch``, which prepares an MBTiles file from a tile server before the trip --
:mod:`.fetch`. No Qt here: the map's layer (:mod:`fieldapp.ui.basemaplayer`) draws the arrays.
"""

from __future__ import annotations

from collections.abc import Sequence

from .raster import BasemapError, BasemapInfo, Renderer, open_basemap, render

__all__ = ["BasemapError", "BasemapInfo", "Renderer", "open_basemap", "render", "main"]


def main(argv: Sequence[str] | None = None) -> int:
    """``fieldapp basemap ...`` (see :func:`fieldapp.basemap.fetch.main`)."""
    from .fetch import main as fetch_main

    return fetch_main(argv)
