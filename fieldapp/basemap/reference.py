"""Read-only vector reference layers: parcels, the county's wetland inventory ... from any
GeoPackage or Shapefile layer GDAL reads (pyogrio), reprojected to the site CRS (pyproj).

They are context for the crew: drawn as outlines on the map, kept in the visit's layers
sidecar (:mod:`fieldapp.basemap.layers`), never written into the visit, so never synced or
exported as visit data.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import shapely

__all__ = ["ReferenceLayerError", "ReferenceLayer", "read_reference"]

#: More features than this in one layer is refused (the map stays responsive).
MAX_FEATURES = 50_000


class ReferenceLayerError(ValueError):
    """A reference layer that cannot be used (unreadable, no CRS, too large); in words."""


@dataclass(frozen=True)
class ReferenceLayer:
    """``name`` (file and layer), ``path``, ``geometries`` (shapely, site CRS units) and
    ``lines``: every ring and line as a list of (x, y) in site CRS units, for drawing."""

    name: str
    path: Path
    geometries: tuple[shapely.Geometry, ...]
    lines: tuple[list[tuple[float, float]], ...]


def _lines(geom: shapely.Geometry) -> list[list[tuple[float, float]]]:
    out: list[list[tuple[float, float]]] = []
    for part in shapely.get_parts(geom):
        t = part.geom_type
        if t == "Polygon":
            out += [list(part.exterior.coords)] + [list(r.coords) for r in part.interiors]
        elif t in ("LineString", "LinearRing"):
            out.append(list(part.coords))
        elif t == "Point":
            out.append([(part.x, part.y)])
        elif hasattr(part, "geoms"):
            out += _lines(part)
    return out


def read_reference(path: str | os.PathLike[str], site_crs: object, layer: str | None = None) -> ReferenceLayer:
    """Read ``layer`` (default: the first) of the GeoPackage or Shapefile at ``path`` into the
    site CRS (``site_crs``: anything pyproj takes). Raises :class:`ReferenceLayerError`."""
    import pyogrio
    from pyproj import CRS, Transformer

    path = Path(path)
    if not path.exists():
        raise ReferenceLayerError(f"reference layer {path} does not exist")
    try:
        meta, _fids, wkb, _fields = pyogrio.raw.read(path, layer=layer, read_geometry=True,
                                                     columns=[], max_features=MAX_FEATURES + 1)
    except Exception as exc:  # noqa: BLE001 - pyogrio's DataSourceError, DataLayerError ...
        raise ReferenceLayerError(f"{path.name} is not a vector layer GDAL can read: {exc}") from None
    if meta.get("crs") is None:
        raise ReferenceLayerError(f"{path.name} has no coordinate reference system: it cannot be "
                              "placed on the site (a Shapefile needs its .prj)")
    if len(wkb) > MAX_FEATURES:
        raise ReferenceLayerError(f"{path.name} has more than {MAX_FEATURES:,} features; clip it to "
                              "the site first (e.g. in QGIS)")
    tf = Transformer.from_crs(CRS.from_user_input(meta["crs"]), CRS.from_user_input(site_crs),
                              always_xy=True)
    geoms = [shapely.transform(g, lambda xy: np.column_stack(tf.transform(xy[:, 0], xy[:, 1])))
             for g in shapely.from_wkb([b for b in wkb if b is not None])]
    lines = tuple(ln for g in geoms for ln in _lines(g))
    name = f"{path.name}" + (f" / {layer}" if layer else "")
    return ReferenceLayer(name=name, path=path, geometries=tuple(geoms), lines=lines)
