"""The DXF export (ezdxf): a DXF layer per layer, in the site's projected CRS and its own unit.

Points are POINTs; lines and polygon rings LWPOLYLINEs (rings closed); the raw track one
LWPOLYLINE through its fixes in the order recorded. Each entity carries the record's uuid (and
its photos' links) as FIELDAPP xdata. Called by :func:`fieldapp.export.export_visit`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import shapely

from fieldapp.export.model import _LayerData

if TYPE_CHECKING:
    from ezdxf.entities.dxfgfx import DXFGraphic

    from fieldapp.geo import SiteFrame

__all__ = ["_dxf"]


def _dxf(layers: list[_LayerData], path: Path, frame: SiteFrame, counts: dict[str, int]) -> None:
    """Write ``layers`` (the export's layer data, site CRS units) to the DXF ``path``; ``counts``
    gets the entities written per layer (the track: its number of fixes)."""
    from ezdxf import units
    from ezdxf.filemanagement import new

    doc = new("R2010", setup=False)
    if abs(frame.unit_m - 1.0) < 1e-12:
        doc.units, measurement = units.M, 1
    elif frame.foot.value == "us_survey":
        doc.units, measurement = units.US_SURVEY_FT if hasattr(units, "US_SURVEY_FT") else 21, 0
    else:
        doc.units, measurement = units.FT, 0
    doc.header["$MEASUREMENT"] = measurement
    code = frame.srs_id
    doc.header.custom_vars.append("CRS", f"EPSG:{code}" if code else frame.crs.to_wkt())
    doc.header.custom_vars.append("CRS_NAME", frame.name)
    doc.appids.add("FIELDAPP")
    msp = doc.modelspace()
    for data in layers:
        doc.layers.add(data.name)
        attribs = {"layer": data.name}
        names = {c: j for j, (c, _) in enumerate(data.columns)}
        n = 0
        if data.arrays is not None:  # the raw track: one polyline through its fixes, in order
            xy = shapely.get_coordinates(data.geometries)
            if len(xy) >= 2:
                line = msp.add_lwpolyline(xy[:2].tolist(), dxfattribs=attribs)
                # x, y, start width, end width, bulge per vertex, set at once (appending them
                # one by one copies the vertex array each time: quadratic in the fixes)
                line.lwpoints.set(np.column_stack([xy, np.zeros((len(xy), 3))]))
                line.set_xdata("FIELDAPP", [(1000, f"fixes={len(xy)}")])
            counts[data.name] = len(xy)
            continue
        for g, row in zip(data.geometries, data.rows, strict=True):
            if g is None or g.is_empty:
                continue
            entities: list[DXFGraphic] = []
            if g.geom_type == "Point":
                entities.append(msp.add_point((g.x, g.y), dxfattribs=attribs))
            elif g.geom_type == "LineString":
                entities.append(msp.add_lwpolyline(list(g.coords), dxfattribs=attribs))
            else:
                for poly in shapely.get_parts(g):
                    for ring in [poly.exterior, *poly.interiors]:
                        entities.append(msp.add_lwpolyline(list(ring.coords)[:-1], close=True,
                                                           dxfattribs=attribs))
            xdata = [(1000, f"uuid={row[1]}")]
            if names.get("photos") is not None and row[names["photos"]]:
                xdata.append((1000, f"photos={row[names['photos']]}"))
            if names.get("link") is not None:
                xdata.append((1000, f"link={row[names['link']]}"))
            for e in entities:
                e.set_xdata("FIELDAPP", xdata)
            n += 1
        counts[data.name] = n
    doc.saveas(path)
