"""A floodplain (F-1 district) loaded from a file instead of walked (no Qt): the polygons of a
GeoPackage, Shapefile or GeoJSON layer GDAL reads (pyogrio), reprojected to the site CRS
(pyproj), each added as a ``floodplain`` area (Decorah resource protection, Drainageways A.1 /
A.2: land designated floodplain is excepted from the drainageway).

Each polygon becomes its own area (the drainageway check takes one ring per floodplain area);
a MultiPolygon is split into its parts; heights (Z) are dropped; lines and points in the layer
are not floodplain and are skipped (said in the words returned).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import shapely

__all__ = ["FloodplainFileError", "MAX_POLYGONS", "read_floodplain_polygons", "load_floodplains"]

#: More polygons than this in one file is refused (clip the layer to the site first).
MAX_POLYGONS = 500


class FloodplainFileError(ValueError):
    """A floodplain file that cannot be used; the message is in field words."""


def read_floodplain_polygons(path: str | os.PathLike[str], site_crs: object,
                             layer: str | None = None) -> tuple[list[Any], int]:
    """The polygons of ``layer`` (default: the first) of the file at ``path`` in the site CRS
    (``site_crs``: anything pyproj takes), and how many other features (lines, points, empty)
    were skipped.

    Raises
    ------
    FloodplainFileError
        No such file, not a layer GDAL reads, no coordinate reference system (a Shapefile
        without its .prj), no polygon at all, or more than :data:`MAX_POLYGONS` polygons.
    """
    import pyogrio
    from pyproj import CRS, Transformer

    path = Path(path)
    if not path.exists():
        raise FloodplainFileError(f"{path} does not exist")
    try:
        meta, _fids, wkb, _fields = pyogrio.raw.read(path, layer=layer, read_geometry=True, columns=[])
    except Exception as exc:  # noqa: BLE001 - pyogrio's DataSourceError, DataLayerError ...
        raise FloodplainFileError(f"{path.name} is not a GeoPackage, Shapefile or GeoJSON layer "
                                  f"that can be read: {exc}") from None
    if meta.get("crs") is None:
        raise FloodplainFileError(f"{path.name} has no coordinate reference system, so the floodplain cannot "
                                  "be placed on the site (a Shapefile needs its .prj file beside it)")
    polygons: list[Any] = []
    skipped = 0
    for g in shapely.from_wkb([b for b in wkb if b is not None]):
        parts = list(getattr(g, "geoms", [g])) if g is not None else []
        found = [p for p in parts if p.geom_type == "Polygon" and not p.is_empty]
        skipped += 0 if found else 1
        polygons += found
    skipped += sum(1 for b in wkb if b is None)
    if not polygons:
        raise FloodplainFileError(f"{path.name} holds no polygon: a floodplain must be an area, "
                                  "not lines or points")
    if len(polygons) > MAX_POLYGONS:
        raise FloodplainFileError(f"{path.name} holds {len(polygons):,} polygons (at most {MAX_POLYGONS}): "
                                  "clip it to the site first (e.g. in QGIS)")
    tf = Transformer.from_crs(CRS.from_user_input(meta["crs"]), CRS.from_user_input(site_crs), always_xy=True)
    out = [shapely.transform(shapely.force_2d(p), lambda xy: np.column_stack(tf.transform(xy[:, 0], xy[:, 1])))
           for p in polygons]
    return out, skipped


def load_floodplains(model: Any, path: str | os.PathLike[str], label: str = "") -> tuple[list[Any], str]:
    """Add the floodplain polygons of the file at ``path`` to the survey ``model`` (with a
    site CRS) as ``floodplain`` areas labelled ``label`` (default: the file's name), numbered
    "(1 of 3)" when there are several; returns (the areas added, what was done in words).
    Each area is one undo step.

    Raises
    ------
    FloodplainFileError
        As :func:`read_floodplain_polygons`, or the site CRS is not known yet; nothing added.
    """
    if not getattr(model, "has_frame", False) or model.site.crs is None:
        raise FloodplainFileError("the site's coordinate system is not known yet: take a first fix, "
                                  "then load the floodplain")
    polygons, skipped = read_floodplain_polygons(path, model.site.crs)
    name = label.strip() or Path(path).stem
    n = len(polygons)
    added = [model.add_area("floodplain", p, label=name if n == 1 else f"{name} ({i} of {n})")
             for i, p in enumerate(polygons, start=1)]
    acres = sum(model.frame.area_sqft(a.geometry) for a in added) / 43_560.0
    words = (f"Loaded {n} floodplain area{'s' if n != 1 else ''} from {Path(path).name}: {acres:,.2f} ac"
             + (f"; skipped {skipped} feature{'s' if skipped != 1 else ''} that {'is' if skipped == 1 else 'are'}"
                f" not a polygon" if skipped else ""))
    return added, words
