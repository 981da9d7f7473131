"""Styles of the KML export: each placemark styled by its kind and status, not one pin for all.

GDAL writes the placemarks (one folder per layer) without styles, so Google Earth shows every
tree, bank point and wetland as the same yellow pin or white line. :func:`add_styles` adds one
shared ``<Style>`` per (layer, status) to the file's top ``Document`` and a ``<styleUrl>`` to
each placemark:

- the colour of the layer in the DXF (:data:`fieldapp.export.dxf.LAYER_STYLE`, AutoCAD colour
  index to RGB), so CAD and Google Earth agree: water lines blue, transects magenta, …;
- a tree by its status as in the DXF (live green, dead brown, removed red);
- a verdict's layer (bank points and line, protective areas, the development envelope,
  drainageway areas) by its status, in the report's colours: determined green, needs data
  orange, exempt blue, error red, provisional purple;
- points as a round icon of that colour, lines that colour 2 px wide (the bank and the OHWM
  3 px), polygons outlined in it and filled with it at 25 % opacity;
- the placemark's name as its label.

Colours are KML's ``aabbggrr``. The file stays readable by GDAL (the export reads it back to
check it is whole) and by Google Earth.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

__all__ = ["STATUS_RGB", "TREE_RGB", "ICON", "add_styles", "style_id", "kml_colour", "layer_rgb"]

KML = "http://www.opengis.net/kml/2.2"
_NAMESPACES = {"": KML, "gx": "http://www.google.com/kml/ext/2.2", "atom": "http://www.w3.org/2005/Atom",
               "xal": "urn:oasis:names:tc:ciq:xsdschema:xAL:2.0"}
#: A verdict's status -> colour (the report's status colours).
STATUS_RGB = {"determined": (0x1B, 0x5E, 0x20), "needs_data": (0xB2, 0x6A, 0x00), "exempt": (0x15, 0x65, 0xC0),
              "error": (0xB7, 0x1C, 0x1C), "provisional": (0x5B, 0x2A, 0x86)}
#: A tree's status -> colour (the DXF's tree status layers).
TREE_RGB = {"live": (0x2E, 0x7D, 0x32), "dead": (0x8D, 0x6E, 0x63), "removed": (0xC0, 0x16, 0x1B)}
#: The round icon of point placemarks (Google Earth's standard shapes; tinted by the style).
ICON = "https://maps.google.com/mapfiles/kml/shapes/placemark_circle.png"
_WIDE = {"ohwm_line": 3.0, "bank_line": 3.0}


def _q(tag: str) -> str:
    return f"{{{KML}}}{tag}"


def kml_colour(rgb: tuple[int, int, int], alpha: int = 255) -> str:
    """KML's ``aabbggrr`` of an RGB colour.

    >>> kml_colour((0x1B, 0x5E, 0x20))
    'ff205e1b'
    """
    r, g, b = rgb
    return f"{alpha:02x}{b:02x}{g:02x}{r:02x}"


def layer_rgb(layer: str, status: str | None) -> tuple[int, int, int]:
    """The RGB colour of a placemark of ``layer`` with ``status`` (module docstring)."""
    from ezdxf.colors import aci2rgb

    from .dxf import dxf_style

    if layer == "tree" and status in TREE_RGB:
        return TREE_RGB[status]
    if status in STATUS_RGB:
        return STATUS_RGB[status]
    rgb = aci2rgb(dxf_style(layer)[0])
    if rgb == (255, 255, 255):      # CAD's "white" (black on paper): dark grey on a map
        return (0x42, 0x42, 0x42)
    return (rgb[0], rgb[1], rgb[2])


def style_id(layer: str, status: str | None) -> str:
    """The id of the shared style of ``layer`` with ``status``: ``tree.live``, ``wetland``."""
    return f"{layer}.{status}" if status else layer


def _style(sid: str, layer: str, status: str | None, kind: str) -> ET.Element:
    colour = kml_colour(layer_rgb(layer, status))
    style = ET.Element(_q("Style"), {"id": sid})
    if kind == "point":
        icon_style = ET.SubElement(style, _q("IconStyle"))
        ET.SubElement(icon_style, _q("color")).text = colour
        ET.SubElement(icon_style, _q("scale")).text = "0.8"
        icon = ET.SubElement(icon_style, _q("Icon"))
        ET.SubElement(icon, _q("href")).text = ICON
    label = ET.SubElement(style, _q("LabelStyle"))
    ET.SubElement(label, _q("scale")).text = "0.8" if kind == "point" else "0.9"
    line = ET.SubElement(style, _q("LineStyle"))
    ET.SubElement(line, _q("color")).text = colour
    ET.SubElement(line, _q("width")).text = f"{_WIDE.get(layer, 2.0):g}"
    poly = ET.SubElement(style, _q("PolyStyle"))
    ET.SubElement(poly, _q("color")).text = kml_colour(layer_rgb(layer, status), 0x40)
    if kind != "polygon":
        ET.SubElement(poly, _q("fill")).text = "0"
    return style


def _kind(geometry_type: str) -> str:
    g = geometry_type.lower()
    return "polygon" if "polygon" in g else "line" if "line" in g else "point"


def _status(placemark: ET.Element) -> str | None:
    for data in placemark.iter(_q("SimpleData")):
        if data.get("name") == "status":
            return (data.text or "").strip() or None
    return None


#: Placemark children that come after ``styleUrl`` in KML 2.2's element order.
_AFTER_STYLE_URL = {_q(t) for t in ("Style", "StyleMap", "Region", "Metadata", "ExtendedData", "Point", "LineString",
                                    "LinearRing", "Polygon", "MultiGeometry", "Model")}


def _container_layer(el: ET.Element, names: set[str]) -> str | None:
    name = el.find(_q("name"))
    for candidate in ((name.text or "").strip() if name is not None else None, el.get("id")):
        if candidate in names:
            return candidate
    return None


def _in_order(top: ET.Element, order: list[str]) -> None:
    """Put the layers' ``Schema`` (id ``LAYER.schema``) and folder (``Document``/``Folder`` id
    ``LAYER``) children of ``top`` in ``order``, each kind in the places that kind holds now
    (everything else stays where it is): the file GDAL writes when the layers are added in
    that order."""
    rank = {name: k for k, name in enumerate(order)}

    def layer_of(el: ET.Element) -> str:
        ident = el.get("id") or ""
        return ident.removesuffix(".schema") if el.tag == _q("Schema") else ident

    for kinds in ((_q("Schema"),), (_q("Document"), _q("Folder"))):
        slots = [i for i, child in enumerate(top) if child.tag in kinds and layer_of(child) in rank]
        tails = [top[i].tail for i in slots]    # the white space after each place stays there
        items = sorted((top[i] for i in slots), key=lambda el: rank[layer_of(el)])
        for i, el, tail in zip(slots, items, tails, strict=True):
            top[i] = el
            el.tail = tail


def add_styles(path: Path, layers: list[Any], order: list[str] | None = None) -> dict[str, int]:
    """Style the KML file ``path`` that GDAL wrote from ``layers`` (the export's layer data:
    ``name``, ``geometry_type``); returns ``{style id: placemarks using it}``. Rewrites the file
    in place (UTF-8). ``order`` (layer names): the layers' schemas and folders put in that
    order (:func:`_in_order`; the export writes them smallest first).

    Raises
    ------
    OSError
        The file could not be read or written (``ENOSPC``: the disk is full).
    xml.etree.ElementTree.ParseError
        The file is not the KML GDAL wrote.
    """
    for prefix, uri in _NAMESPACES.items():
        ET.register_namespace(prefix, uri)
    kinds = {d.name: _kind(d.geometry_type) for d in layers}
    tree = ET.parse(path)
    root = tree.getroot()
    top = root.find(_q("Document"))
    if top is None:
        return {}
    if order:
        _in_order(top, order)
    used: dict[str, tuple[str, str | None]] = {}
    counts: dict[str, int] = {}
    for container in top.iter():
        if container.tag not in (_q("Document"), _q("Folder")) or container is top:
            continue
        layer = _container_layer(container, set(kinds))
        if layer is None:
            continue
        for pm in container.findall(_q("Placemark")):
            status = _status(pm)
            sid = style_id(layer, status)
            used.setdefault(sid, (layer, status))
            counts[sid] = counts.get(sid, 0) + 1
            url = ET.Element(_q("styleUrl"))
            url.text = f"#{sid}"
            at = next((i for i, child in enumerate(pm) if child.tag in _AFTER_STYLE_URL), len(pm))
            pm.insert(at, url)
    # shared styles first in the top Document (KML 2.2: StyleSelector before Schema and Features)
    at = next((i for i, child in enumerate(top) if child.tag not in (_q("name"), _q("visibility"), _q("open"))),
              len(top))
    for k, (sid, (layer, status)) in enumerate(sorted(used.items())):
        top.insert(at + k, _style(sid, layer, status, kinds[layer]))
    with open(path, "wb") as fh:
        tree.write(fh, encoding="UTF-8", xml_declaration=True)
        fh.write(b"\n")      # ends as GDAL ends it (the export's check reads the end)
    return counts
