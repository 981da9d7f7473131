"""QGIS styles in the exported GeoPackage: a ``layer_styles`` table, one default style per layer.

QGIS opens a GeoPackage layer with the style its ``layer_styles`` table names as default for it
(``useAsDefault``), so the office sees the field's map rather than random single colours:

- a layer with a ``status`` column (trees; the verdict layers: bank points and line, protective
  areas, the development envelope, drainageway areas) is drawn by category of its status, in
  the colours of the KML and DXF (:func:`fieldapp.export.kmlstyle.layer_rgb`: live trees green,
  dead brown; determined green, needs data orange, …), every other layer in its kind's colour;
- points as circles, lines in the layer's width (the OHWM and the bank wider), polygons outlined
  and filled at 25 % opacity;
- the ``name`` column (``Tree 12``, ``Bank T1``) as the label, with a white buffer.

They hold symbols and labels, no actions, macros or expressions that run (QGIS styles can
carry actions); the QML is built by :func:`fieldapp.store.qgisqml.qml`, as the office masters'
styles are (:mod:`fieldapp.sync.officestyles`, the only styles the sync accepts).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from fieldapp.store.qgisqml import LAYER_STYLES_DDL, STYLE_NAME, qml

from .kmlstyle import STATUS_RGB, TREE_RGB, layer_rgb

__all__ = ["STYLE_NAME", "LAYER_STYLES_DDL", "layer_qml", "write_layer_styles"]

_WIDE = {"ohwm_line": 0.8, "bank_line": 0.8}


def _statuses(layer: str, present: Iterable[str | None]) -> list[str]:
    known = list(TREE_RGB) if layer == "tree" else list(STATUS_RGB)
    seen = [s for s in present if s]
    return known + sorted({s for s in seen if s not in known})


def layer_qml(layer: str, geometry_type: str, statuses: Iterable[str | None] | None = None) -> str:
    """The QGIS style (QML) of the export layer ``layer``: categorised by ``status`` when
    ``statuses`` is given (the layer has that column), else one symbol; labels from ``name``
    (:func:`fieldapp.store.qgisqml.qml`)."""
    categories = ([(s, s.replace("_", " "), layer_rgb(layer, s)) for s in _statuses(layer, statuses)]
                  if statuses is not None else [])
    return qml(geometry_type, colour=layer_rgb(layer, None), attr="status" if statuses is not None else None,
               categories=categories, width_mm=_WIDE.get(layer, 0.5))


def write_layer_styles(gpkg: Path, layers: list[Any]) -> int:
    """Add the ``layer_styles`` table (registered in ``gpkg_contents`` as attributes, as QGIS
    does) with one default style per layer of ``layers`` (the export's layer data) to the
    GeoPackage ``gpkg`` GDAL wrote; returns the styles written.

    Raises
    ------
    sqlite3.Error
        The file could not be written (``database or disk is full``).
    """
    conn = sqlite3.connect(gpkg)
    try:
        with conn:
            conn.execute(LAYER_STYLES_DDL)
            conn.execute("INSERT OR IGNORE INTO gpkg_contents (table_name, data_type, identifier, description,"
                         " last_change) VALUES ('layer_styles', 'attributes', 'layer_styles',"
                         " 'QGIS styles of the layers (fieldapp)', strftime('%Y-%m-%dT%H:%M:%fZ','now'))")
            geometry_columns = dict(conn.execute("SELECT table_name, column_name FROM gpkg_geometry_columns"))
            n = 0
            for data in layers:
                names = [c for c, _ in data.columns]
                statuses = None
                if "status" in names:
                    k = names.index("status")
                    statuses = [row[k] for row in data.rows]
                qml = layer_qml(data.name, data.geometry_type, statuses)
                conn.execute("INSERT INTO layer_styles (f_table_catalog, f_table_schema, f_table_name,"
                             " f_geometry_column, styleName, styleQML, styleSLD, useAsDefault, description,"
                             " owner, ui) VALUES ('', '', ?, ?, ?, ?, '', 1, ?, 'fieldapp', '')",
                             (data.name, geometry_columns.get(data.name, "geom"), STYLE_NAME, qml,
                              f"fieldapp's style of {data.name}: by status" if statuses is not None
                              else f"fieldapp's style of {data.name}"))
                n += 1
    finally:
        conn.close()
    return n
