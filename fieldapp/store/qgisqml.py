"""The QGIS style (QML) fieldapp writes for a layer, and QGIS's ``layer_styles`` table: one
builder shared by the GeoPackage export (:mod:`fieldapp.export.qgisstyle`) and the office
masters (:mod:`fieldapp.sync.officestyles`), so both draw a layer alike and the sync can tell
fieldapp's own styles from anything else by regenerating them.

A style is symbols and labels only: no actions, macros, forms or expressions (QGIS can run
Python or commands from a style's ``<attributeactions>`` and ``<macros>``; fieldapp writes
neither, and the sync accepts no other style, see docs/security.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from xml.sax.saxutils import quoteattr

__all__ = ["STYLE_NAME", "LAYER_STYLES_DDL", "Category", "geometry_kind", "qml"]

STYLE_NAME = "fieldapp"
#: The table as QGIS creates it in a GeoPackage.
LAYER_STYLES_DDL = (
    "CREATE TABLE IF NOT EXISTS layer_styles (id INTEGER PRIMARY KEY AUTOINCREMENT, f_table_catalog TEXT(256),"
    " f_table_schema TEXT(256), f_table_name TEXT(256), f_geometry_column TEXT(256), styleName TEXT(30),"
    " styleQML TEXT, styleSLD TEXT, useAsDefault BOOLEAN, description TEXT, owner TEXT(30), ui TEXT(30),"
    " update_time DATETIME DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')))"
)
#: (value, label, RGB colour) of one category of a categorised style.
Category = tuple[str, str, tuple[int, int, int]]


def geometry_kind(geometry_type: str) -> str:
    """QGIS's symbol kind of a geometry type name: ``marker``, ``line`` or ``fill``."""
    g = geometry_type.lower()
    return "fill" if "polygon" in g else "line" if "line" in g else "marker"


def _rgba(rgb: tuple[int, int, int], alpha: int = 255) -> str:
    return f"{rgb[0]},{rgb[1]},{rgb[2]},{alpha}"


def _opt(name: str, value: str) -> str:
    return f'<Option name={quoteattr(name)} type="QString" value={quoteattr(value)}/>'


def _symbol(name: str, kind: str, rgb: tuple[int, int, int], width_mm: float) -> str:
    if kind == "marker":
        cls, opts = "SimpleMarker", [_opt("name", "circle"), _opt("color", _rgba(rgb)), _opt("size", "2.4"),
                                     _opt("size_unit", "MM"), _opt("outline_color", "35,35,35,255"),
                                     _opt("outline_width", "0.2"), _opt("outline_width_unit", "MM")]
    elif kind == "line":
        cls, opts = "SimpleLine", [_opt("line_color", _rgba(rgb)), _opt("line_width", f"{width_mm:g}"),
                                   _opt("line_width_unit", "MM"), _opt("line_style", "solid"),
                                   _opt("capstyle", "round"), _opt("joinstyle", "round")]
    else:
        cls, opts = "SimpleFill", [_opt("color", _rgba(rgb, 64)), _opt("style", "solid"),
                                   _opt("outline_color", _rgba(rgb)), _opt("outline_width", "0.5"),
                                   _opt("outline_width_unit", "MM"), _opt("outline_style", "solid")]
    return (f'<symbol type="{kind}" name={quoteattr(name)} alpha="1" clip_to_extent="1" force_rhr="0">'
            f'<layer class="{cls}" enabled="1" pass="0" locked="0"><Option type="Map">{"".join(opts)}'
            "</Option></layer></symbol>")


def qml(geometry_type: str, *, colour: tuple[int, int, int], attr: str | None = None,
        categories: Sequence[Category] = (), width_mm: float = 0.5, label_field: str | None = "name") -> str:
    """The QML of a layer of ``geometry_type`` (``POINT``, ``LINESTRING``, ``MULTIPOLYGON`` …):
    categorised by the column ``attr`` into ``categories`` when both are given, else one symbol
    of ``colour``; points as 2.4 mm circles, lines ``width_mm`` wide, polygons outlined and
    filled at 25 % opacity; labelled from the column ``label_field`` (none when None)."""
    kind = geometry_kind(geometry_type)
    if attr is not None and categories:
        cats = "".join(f'<category value={quoteattr(v)} symbol="{i}" label={quoteattr(label)}'
                       ' render="true"/>' for i, (v, label, _) in enumerate(categories))
        symbols = "".join(_symbol(str(i), kind, rgb, width_mm) for i, (_, _, rgb) in enumerate(categories))
        renderer = (f'<renderer-v2 type="categorizedSymbol" attr={quoteattr(attr)} symbollevels="0"'
                    f' forceraster="0" enableorderby="0"><categories>{cats}</categories>'
                    f"<symbols>{symbols}</symbols></renderer-v2>")
    else:
        renderer = (f'<renderer-v2 type="singleSymbol" symbollevels="0" forceraster="0" enableorderby="0">'
                    f'<symbols>{_symbol("0", kind, colour, width_mm)}</symbols></renderer-v2>')
    labeling = ""
    if label_field is not None:
        placement = {"marker": "6", "line": "2", "fill": "0"}[kind]   # around point, parallel, over
        labeling = ('<labeling type="simple"><settings calloutType="simple">'
                    f'<text-style fieldName={quoteattr(label_field)} isExpression="0" fontSize="8"'
                    ' fontSizeUnit="Point" textColor="40,40,40,255" textOpacity="1"/>'
                    '<text-buffer bufferDraw="1" bufferSize="0.8" bufferSizeUnits="MM"'
                    ' bufferColor="255,255,255,255" bufferOpacity="1"/>'
                    f'<placement placement="{placement}" dist="1" distUnits="MM"/>'
                    '<rendering obstacle="1" displayAll="0" labelPerPart="0" mergeLines="0"/>'
                    "</settings></labeling>")
    geometry = {"marker": "0", "line": "1", "fill": "2"}[kind]
    enabled = "0" if label_field is None else "1"
    return ("<!DOCTYPE qgis PUBLIC 'http://mrcc.com/qgis.dtd' 'SYSTEM'>"
            f'<qgis version="3.28.0" styleCategories="Symbology|Labeling" labelsEnabled="{enabled}">'
            f"{renderer}{labeling}<layerGeometryType>{geometry}</layerGeometryType></qgis>")
