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

Only fieldapp writes these styles, and only into an export: they hold symbols and labels, no
actions, macros or expressions that run (QGIS styles can carry actions; the sync refuses any
``layer_styles`` table in a visit or office master, :mod:`fieldapp.sync.schemacheck`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from xml.sax.saxutils import quoteattr

from .kmlstyle import STATUS_RGB, TREE_RGB, layer_rgb

__all__ = ["STYLE_NAME", "LAYER_STYLES_DDL", "layer_qml", "write_layer_styles"]

STYLE_NAME = "fieldapp"
#: The table as QGIS creates it in a GeoPackage.
LAYER_STYLES_DDL = (
    "CREATE TABLE IF NOT EXISTS layer_styles (id INTEGER PRIMARY KEY AUTOINCREMENT, f_table_catalog TEXT(256),"
    " f_table_schema TEXT(256), f_table_name TEXT(256), f_geometry_column TEXT(256), styleName TEXT(30),"
    " styleQML TEXT, styleSLD TEXT, useAsDefault BOOLEAN, description TEXT, owner TEXT(30), ui TEXT(30),"
    " update_time DATETIME DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')))"
)
_WIDE = {"ohwm_line": 0.8, "bank_line": 0.8}


def _kind(geometry_type: str) -> str:
    g = geometry_type.lower()
    return "fill" if "polygon" in g else "line" if "line" in g else "marker"


def _rgba(rgb: tuple[int, int, int], alpha: int = 255) -> str:
    return f"{rgb[0]},{rgb[1]},{rgb[2]},{alpha}"


def _opt(name: str, value: str) -> str:
    return f'<Option name={quoteattr(name)} type="QString" value={quoteattr(value)}/>'


def _symbol(name: str, kind: str, rgb: tuple[int, int, int], layer: str) -> str:
    if kind == "marker":
        cls, opts = "SimpleMarker", [_opt("name", "circle"), _opt("color", _rgba(rgb)), _opt("size", "2.4"),
                                     _opt("size_unit", "MM"), _opt("outline_color", "35,35,35,255"),
                                     _opt("outline_width", "0.2"), _opt("outline_width_unit", "MM")]
    elif kind == "line":
        cls, opts = "SimpleLine", [_opt("line_color", _rgba(rgb)), _opt("line_width", f"{_WIDE.get(layer, 0.5):g}"),
                                   _opt("line_width_unit", "MM"), _opt("line_style", "solid"),
                                   _opt("capstyle", "round"), _opt("joinstyle", "round")]
    else:
        cls, opts = "SimpleFill", [_opt("color", _rgba(rgb, 64)), _opt("style", "solid"),
                                   _opt("outline_color", _rgba(rgb)), _opt("outline_width", "0.5"),
                                   _opt("outline_width_unit", "MM"), _opt("outline_style", "solid")]
    return (f'<symbol type="{kind}" name={quoteattr(name)} alpha="1" clip_to_extent="1" force_rhr="0">'
            f'<layer class="{cls}" enabled="1" pass="0" locked="0"><Option type="Map">{"".join(opts)}'
            "</Option></layer></symbol>")


def _statuses(layer: str, present: Iterable[str | None]) -> list[str]:
    known = list(TREE_RGB) if layer == "tree" else list(STATUS_RGB)
    seen = [s for s in present if s]
    return known + sorted({s for s in seen if s not in known})


def layer_qml(layer: str, geometry_type: str, statuses: Iterable[str | None] | None = None) -> str:
    """The QGIS style (QML) of the export layer ``layer``: categorised by ``status`` when
    ``statuses`` is given (the layer has that column), else one symbol; labels from ``name``."""
    kind = _kind(geometry_type)
    if statuses is not None:
        cats = _statuses(layer, statuses)
        categories = "".join(f'<category value={quoteattr(s)} symbol="{i}" label={quoteattr(s.replace("_", " "))}'
                             ' render="true"/>' for i, s in enumerate(cats))
        symbols = "".join(_symbol(str(i), kind, layer_rgb(layer, s), layer) for i, s in enumerate(cats))
        renderer = (f'<renderer-v2 type="categorizedSymbol" attr="status" symbollevels="0" forceraster="0"'
                    f' enableorderby="0"><categories>{categories}</categories><symbols>{symbols}</symbols>'
                    "</renderer-v2>")
    else:
        renderer = (f'<renderer-v2 type="singleSymbol" symbollevels="0" forceraster="0" enableorderby="0">'
                    f'<symbols>{_symbol("0", kind, layer_rgb(layer, None), layer)}</symbols></renderer-v2>')
    placement = {"marker": "6", "line": "2", "fill": "0"}[kind]   # around point, parallel, over
    labeling = ('<labeling type="simple"><settings calloutType="simple">'
                '<text-style fieldName="name" isExpression="0" fontSize="8" fontSizeUnit="Point"'
                ' textColor="40,40,40,255" textOpacity="1"/>'
                '<text-buffer bufferDraw="1" bufferSize="0.8" bufferSizeUnits="MM" bufferColor="255,255,255,255"'
                ' bufferOpacity="1"/>'
                f'<placement placement="{placement}" dist="1" distUnits="MM"/>'
                '<rendering obstacle="1" displayAll="0" labelPerPart="0" mergeLines="0"/>'
                "</settings></labeling>")
    geometry = {"marker": "0", "line": "1", "fill": "2"}[kind]
    return ("<!DOCTYPE qgis PUBLIC 'http://mrcc.com/qgis.dtd' 'SYSTEM'>"
            '<qgis version="3.28.0" styleCategories="Symbology|Labeling" labelsEnabled="1">'
            f"{renderer}{labeling}<layerGeometryType>{geometry}</layerGeometryType></qgis>")


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
