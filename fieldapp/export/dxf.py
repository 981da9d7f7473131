"""The DXF export (ezdxf): a DXF layer per export layer, in the site's projected CRS and its unit,
drawn so that it opens in CAD on the data and reads there without the GIS files.

* **View**: the header extents (``$EXTMIN``/``$EXTMAX``, and the model space's own) and the
  ``*Active`` viewport are set on what is drawn (the data and the title block), so CAD opens on
  the site, not on 0,0 with the drawing off screen.
* **Layers**: each feature kind on a layer of its own colour (ACI) and linetype
  (:data:`LAYER_STYLE`: OHWM blue dash-dot, bank line cyan dashed, transects magenta centre
  lines, protective areas red dashed, the development envelope yellow phantom, each polygon
  kind its own colour …); trees are also drawn by status on ``tree_live``, ``tree_dead`` and
  ``tree_removed``.
* **Points** are a POINT (the exact position, to snap to) on their layer and a symbol block
  (``FA_<LAYER>``) inserted there with an attribute per column (``TAG``, ``DBH_IN``,
  ``SPECIES_NAME``, ``STATUS``, ``UUID`` …): the tag of a tree (the name of any other point) is
  shown, the rest are invisible attributes, read in CAD's attribute editor or data extraction.
  A tree's symbol goes on its status layer.
* **Lines and polygons** are LWPOLYLINEs (rings closed) with a TEXT label (their name) on the
  same layer; every attribute is in the entity's ``FIELDAPP`` XDATA.
* **XDATA** ``FIELDAPP`` on every feature's entities: ``uuid=…`` first (or ``fixes=N`` on the
  track), then ``photos=…``/``link=…``, then ``column=value`` for every other column that has
  a value (a value over :data:`XDATA_CHUNK` characters continues in ``column+=…`` strings).
* **Title block and legend** (layers ``title_block`` and ``legend``) right of the data: site,
  CRS, units, visit date, crew, export date, and a sample of each layer's line or symbol in its
  colour and linetype with the layer in words.

The raw track is one LWPOLYLINE through its fixes in the order recorded. A record without a
geometry is left out. Called by :func:`fieldapp.export.export_visit` (through
:func:`fieldapp.export.gdal._write_layers`); the file is audited before it is saved (an error
ezdxf's audit cannot fix raises :class:`~fieldapp.export.model.ExportWriteFailed`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import shapely

from fieldapp.export.dxfsave import add_attribs, save_fast
from fieldapp.export.model import ExportWriteFailed, _LayerData

if TYPE_CHECKING:
    from ezdxf.document import Drawing
    from ezdxf.entities.dxfgfx import DXFGraphic
    from ezdxf.layouts.layout import Modelspace

    from fieldapp.geo import SiteFrame

__all__ = ["DxfTitle", "LAYER_STYLE", "TREE_STATUS_STYLE", "XDATA_CHUNK", "dxf_style"]


@dataclass(frozen=True)
class DxfTitle:
    """What the title block says besides the CRS and units: the site's name, the visit date
    (ISO ``YYYY-MM-DD``) and the crew ("" when none is set: the line says "not set")."""

    site: str
    visit_date: str
    crew: str = ""


#: (ACI colour, linetype) of each export layer: water lines blue, the bank cyan, transects and
#: stations magenta, protective areas red, trees green (their status layers below), each kind of
#: polygon or line its own colour; a layer not listed gets :data:`DEFAULT_STYLE`
LAYER_STYLE: dict[str, tuple[int, str]] = {
    "ohwm_line": (5, "DASHDOT"), "ohwm_point": (5, "Continuous"),
    "bank_line": (4, "DASHED"), "bank_point": (4, "Continuous"),
    "transect": (6, "CENTER"), "station": (6, "Continuous"),
    "tree": (3, "Continuous"),
    "protective_area": (1, "DASHED"), "development_envelope": (2, "PHANTOM"),
    "drainageway_area": (140, "DASHED2"), "drainageway_centreline": (150, "CENTER"),
    "wetland": (130, "Continuous"), "woodland_stand": (94, "Continuous"), "grove": (74, "Continuous"),
    "impervious": (8, "Continuous"), "disturbed": (32, "DASHED2"), "foundation": (7, "Continuous"),
    "drive": (252, "Continuous"), "parking": (253, "Continuous"), "septic_field": (30, "DASHDOT2"),
    "utility_trench": (210, "DIVIDE"), "swale": (160, "Continuous"), "floodplain": (150, "DASHED"),
    "swale_line": (160, "CENTER2"), "drive_line": (252, "CENTER2"), "utility_trench_line": (210, "DIVIDE"),
    "walk_vertex": (9, "Continuous"), "track_point": (8, "DOT"), "note": (7, "Continuous"),
    "stake_point": (1, "Continuous"), "photo": (30, "Continuous"), "data_point": (200, "Continuous"),
}
DEFAULT_STYLE = (7, "Continuous")
#: the layer of a tree's symbol by its status, and its colour (green, brown, red)
TREE_STATUS_STYLE: dict[str, tuple[str, int]] = {"live": ("tree_live", 3), "dead": ("tree_dead", 34),
                                                  "removed": ("tree_removed", 1)}
#: an XDATA string holds 255 bytes at most: longer values continue in further strings
XDATA_CHUNK = 120
#: the layer of the title block's frame and text, and of the legend's samples
TITLE_LAYER, LEGEND_LAYER = "title_block", "legend"


def dxf_style(layer: str) -> tuple[int, str]:
    """(ACI colour, linetype name) of the export layer ``layer`` (:data:`LAYER_STYLE`)."""
    return LAYER_STYLE.get(layer, DEFAULT_STYLE)


def _units(frame: SiteFrame) -> tuple[int, int, str]:
    """($INSUNITS, $MEASUREMENT, the unit in words) of the site CRS."""
    from ezdxf import units

    if abs(frame.unit_m - 1.0) < 1e-12:
        return units.M, 1, "metres"
    if frame.foot.value == "us_survey":
        return int(getattr(units, "US_SURVEY_FT", 21)), 0, "US survey feet"
    return units.FT, 0, "international feet"


def _text(v: Any) -> str:
    """A value as the DXF's text (an ATTRIB's, a label's, an XDATA string's): "" for none, a
    float to 10 significant digits, a line break as ``\\P`` (a DXF text is one line: a note of
    two lines made a file no CAD program or ezdxf could read, its second line taken for a group
    code)."""
    if v is None or (isinstance(v, float) and v != v):
        return ""
    if isinstance(v, float):
        return f"{v:.10g}"
    text = str(v)
    if "\n" in text or "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\\P")
    return text


def _xdata(data: _LayerData, row: list[Any]) -> list[tuple[int, str]]:
    """The FIELDAPP XDATA of a record: uuid, photos and link first (as before), then every other
    column with a value, long values continued in ``column+=`` strings."""
    names = [c for c, _ in data.columns]
    first = [("uuid", row[1])] + [(c, row[names.index(c)]) for c in ("photos", "link") if c in names]
    rest = [(c, row[j]) for j, c in enumerate(names) if c not in ("uuid", "photos", "link")]
    out: list[tuple[int, str]] = []
    for c, v in first + rest:
        text = _text(v)
        if not text and c != "uuid":
            continue
        chunks = [text[i:i + XDATA_CHUNK] for i in range(0, len(text), XDATA_CHUNK)] or [""]
        out += [(1000, f"{c}={chunks[0]}")] + [(1000, f"{c}+={ch}") for ch in chunks[1:]]
    return out


def _tag(column: str) -> str:
    """An attribute tag for a column (CAD tags: no spaces, upper case)."""
    return "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in column).upper()


def _symbol_block(doc: Drawing, data: _LayerData, size: float, height: float) -> str:
    """Define the block ``FA_<LAYER>`` (a unit symbol drawn BYBLOCK, so it takes the layer's
    colour where inserted) with an attribute definition per column; its name."""
    from ezdxf import const

    name = f"FA_{_tag(data.name)}"
    if name in doc.blocks:
        return name
    blk = doc.blocks.new(name)
    by_block = {"color": const.BYBLOCK, "linetype": "ByBlock", "layer": "0"}
    r = size / 2
    if data.name == "tree":            # a crown: circle and cross
        blk.add_circle((0, 0), r, dxfattribs=by_block)
        blk.add_line((-r, 0), (r, 0), dxfattribs=by_block)
        blk.add_line((0, -r), (0, r), dxfattribs=by_block)
    elif data.name in ("station", "bank_point"):   # a triangle
        blk.add_lwpolyline([(-r, -r * 0.6), (r, -r * 0.6), (0, r)], close=True, dxfattribs=by_block)
    elif data.name in ("note", "photo"):            # a square
        blk.add_lwpolyline([(-r, -r), (r, -r), (r, r), (-r, r)], close=True, dxfattribs=by_block)
    else:                                           # a circle with its centre
        blk.add_circle((0, 0), r * 0.7, dxfattribs=by_block)
        blk.add_point((0, 0), dxfattribs=by_block)
    shown = "tag" if data.name == "tree" else "name"
    for c, _ in data.columns:
        visible = c == shown
        blk.add_attdef(_tag(c), (r * 1.2, r * 0.2) if visible else (r * 1.2, -height * 1.2), dxfattribs={
            "height": height, "layer": "0", "color": const.BYBLOCK,
            "flags": 0 if visible else const.ATTRIB_INVISIBLE, "prompt": c})
    return name


def _attdefs(doc: Drawing, block: str) -> list[tuple[str, tuple[float, float], dict[str, Any]]]:
    """Per attribute definition of ``block``, in the block's (the columns') order: its tag, its
    place relative to the insertion point and the attributes an ATTRIB copies from it (what
    ezdxf's ``add_auto_attribs`` copies; read once per layer, not once per tree: the block is
    inserted unscaled and unrotated, so each ATTRIB is its ATTDEF moved to the insertion point)."""
    out = []
    for attdef in doc.blocks[block].query("ATTDEF"):
        attribs = attdef.dxfattribs(drop={"prompt", "handle", "owner"})
        tag = attribs.pop("tag")
        x, y, *_ = attribs.pop("insert")
        attribs.pop("text", None)
        out.append((tag, (float(x), float(y)), attribs))
    return out


def _label_point(g: Any) -> tuple[float, float]:
    if g.geom_type == "LineString":
        p = g.interpolate(0.5, normalized=True)
    else:
        p = g.representative_point()
    return float(p.x), float(p.y)


def _data_bounds(layers: list[_LayerData]) -> tuple[float, float, float, float] | None:
    boxes = []
    for data in layers:
        geoms = np.asarray(data.geometries, dtype=object) if data.arrays is None else data.geometries
        if len(geoms) == 0:
            continue
        b = shapely.total_bounds(geoms)
        if np.all(np.isfinite(b)):
            boxes.append(b)
    if not boxes:
        return None
    a = np.array(boxes)
    return float(a[:, 0].min()), float(a[:, 1].min()), float(a[:, 2].max()), float(a[:, 3].max())


def _dxf(layers: list[_LayerData], path: Path, frame: SiteFrame, counts: dict[str, int],
         title: DxfTitle | None = None) -> None:
    """Write ``layers`` (the export's layer data, site CRS units) to the DXF ``path`` (module
    docstring); ``counts`` gets the entities written per layer (the track: its number of fixes).
    Raises :class:`ExportWriteFailed` when ezdxf's audit finds an error it cannot fix."""
    from ezdxf.filemanagement import new

    doc = new("R2010", setup=["linetypes"])
    doc.units, measurement, unit_words = _units(frame)
    doc.header["$MEASUREMENT"] = measurement
    code = frame.srs_id
    crs_text = f"EPSG:{code}" if code else frame.crs.to_wkt()
    doc.header.custom_vars.append("CRS", crs_text)
    doc.header.custom_vars.append("CRS_NAME", frame.name)
    doc.appids.add("FIELDAPP")
    msp = doc.modelspace()

    bounds = _data_bounds(layers) or (0.0, 0.0, 1.0, 1.0)
    span = max(bounds[2] - bounds[0], bounds[3] - bounds[1], 1.0)   # a site of one point: 1 unit
    height = span / 80            # text: 1/80 of the site (2 m on a 160 m site)
    size = height * 1.2           # a point symbol's width
    doc.header["$LTSCALE"] = max(span / 200, 1e-3)  # dashes visible at the site's scale
    doc.header["$TEXTSIZE"] = height

    labels: list[_Label] = []
    refs: list[Any] = []      # the points' block references: their ATTRIBs saved from templates
    tracks: list[Any] = []    # the track's polyline: its vertices saved in one pass
    made: dict[tuple[str, int, str], Any] = {}   # the first ATTRIB of each kind (dxfsave.add_attribs)
    for data in layers:
        colour, linetype = dxf_style(data.name)
        if data.name not in doc.layers:
            doc.layers.add(data.name, color=colour, linetype=linetype)
        attribs = {"layer": data.name}
        if data.arrays is not None:  # the raw track: one polyline through its fixes, in order
            xy = shapely.get_coordinates(data.geometries)
            if len(xy) >= 2:
                line = msp.add_lwpolyline(xy[:2].tolist(), dxfattribs=attribs)
                # x, y, start width, end width, bulge per vertex, set at once (appending them
                # one by one copies the vertex array each time: quadratic in the fixes)
                line.lwpoints.set(np.column_stack([xy, np.zeros((len(xy), 3))]))
                line.set_xdata("FIELDAPP", [(1000, f"fixes={len(xy)}")])
                tracks.append(line)
            counts[data.name] = len(xy)
            continue
        names = [c for c, _ in data.columns]
        block = _symbol_block(doc, data, size, height * 0.8) if data.geometry_type == "Point" else None
        attdefs = _attdefs(doc, block) if block is not None else []
        n = 0
        for g, row in zip(data.geometries, data.rows, strict=True):
            if g is None or g.is_empty:
                continue
            xdata = _xdata(data, row)
            entities: list[DXFGraphic] = []
            if g.geom_type == "Point":
                entities.append(msp.add_point((g.x, g.y), dxfattribs=attribs))
                assert block is not None
                on = data.name
                if data.name == "tree" and "status" in names:
                    on = _tree_status_layer(doc, row[names.index("status")])
                ref = msp.add_blockref(block, (g.x, g.y), dxfattribs={"layer": on})
                add_attribs(ref, attdefs, [_text(v) for v in row], on, made)
                refs.append(ref)
                for a in ref.attribs:
                    if not a.is_invisible and a.dxf.text:
                        labels.append(_Label(1, a, g.x, g.y, size * 0.6))
                entities.append(ref)
            else:
                if g.geom_type == "LineString":
                    entities.append(msp.add_lwpolyline(list(g.coords), dxfattribs=attribs))
                else:
                    for poly in shapely.get_parts(g):
                        for ring in [poly.exterior, *poly.interiors]:
                            entities.append(msp.add_lwpolyline(list(ring.coords)[:-1], close=True,
                                                               dxfattribs=attribs))
                label = _text(row[0])
                if label:
                    x, y = _label_point(g)
                    text = msp.add_text(label, height=height, dxfattribs={"layer": data.name})
                    text.set_placement((x, y), align=_middle())
                    labels.append(_Label(0, text, x, y, 0.0))
            for e in entities:
                e.set_xdata("FIELDAPP", xdata)
            n += 1
        counts[data.name] = n

    _place_labels(msp, labels, bounds, size, height)
    box = _title_block(doc, msp, layers, bounds, height, size, crs_text, frame.name, unit_words, title)
    _set_view(doc, (min(bounds[0], box[0]), min(bounds[1], box[1]), max(bounds[2], box[2]),
                    max(bounds[3], box[3])), size)
    auditor = doc.audit()
    if auditor.has_errors:
        raise ExportWriteFailed(f"the DXF failed its audit: {auditor.errors[0].message}")
    save_fast(doc, path, refs, tracks)     # ezdxf's bytes, a fraction of its time (dxfsave)


@dataclass
class _Label:
    """A label to place: ``rank`` (0 lines and polygons, 1 points: placed in that order), the
    TEXT or the block's visible ATTRIB, its anchor (a point's position, a line's middle) and
    how far a point's label stands off its symbol (0: over the anchor, then around it)."""

    rank: int
    entity: Any
    x: float
    y: float
    off: float


def _place_labels(msp: Modelspace, labels: list[_Label], bounds: tuple[float, float, float, float],
                  size: float, height: float) -> None:
    """Move each label to the first free place around its anchor, inside the data's extent
    (``bounds`` grown by a symbol), off its own symbol and clear of the labels placed before
    it (:func:`fieldapp.report.figlabels.place`, boxes measured by ezdxf as CAD draws them);
    a label with no free place is dropped from the drawing: a point's attribute is made
    invisible (still on the block, read in CAD's attribute editor), a line's TEXT is removed
    (its attributes stay in the XDATA). On a dense visit (200 trees in 30 m) no two labels
    print over each other."""
    from ezdxf import bbox

    from fieldapp.report.figlabels import place

    frame = (bounds[0] - size, bounds[1] - size, bounds[2] + size, bounds[3] + size)
    taken: list[tuple[float, float, float, float]] = []
    gap = height * 0.15
    cache = bbox.Cache()
    for lb in sorted(labels, key=lambda lb: lb.rank):
        ext = bbox.extents([lb.entity], cache=cache)
        if not ext.has_data:
            continue
        w, h = ext.size.x, ext.size.y
        x, y, d = lb.x, lb.y, lb.off
        # (left, bottom) corners, best first: right of the mark, left, above, below, diagonals
        spots = [(x + d, y - h / 2), (x - d - w, y - h / 2), (x - w / 2, y + d), (x - w / 2, y - d - h),
                 (x + d, y + d * 0.5), (x + d, y - d * 0.5 - h), (x - d - w, y + d * 0.5),
                 (x - d - w, y - d * 0.5 - h)]
        if d == 0.0:    # a line's or area's name: over its middle first
            spots = [(x - w / 2, y - h / 2), (x - w / 2, y + h * 0.6), (x - w / 2, y - h * 1.6)]
        box = place((w, h), spots, frame, taken, gap=gap)
        if box is None:
            if lb.rank == 1:
                lb.entity.is_invisible = True
            else:
                msp.delete_entity(lb.entity)
            continue
        lb.entity.translate(box[0] - ext.extmin.x, box[1] - ext.extmin.y, 0.0)


def _middle() -> Any:
    from ezdxf.enums import TextEntityAlignment

    return TextEntityAlignment.MIDDLE_CENTER


def _tree_status_layer(doc: Drawing, status: Any) -> str:
    """The layer of a tree's symbol by its status (made on first use); an unknown status: ``tree``."""
    named = TREE_STATUS_STYLE.get(str(status or "").lower())
    if named is None:
        return "tree"
    layer, colour = named
    if layer not in doc.layers:
        doc.layers.add(layer, color=colour, linetype="Continuous")
    return layer


def _title_block(doc: Drawing, msp: Modelspace, layers: list[_LayerData],
                 bounds: tuple[float, float, float, float], height: float, size: float, crs_text: str,
                 crs_name: str, unit_words: str, title: DxfTitle | None) -> tuple[float, float, float, float]:
    """Draw the title block and legend right of the data (``bounds``); their box."""
    doc.layers.add(TITLE_LAYER, color=7, linetype="Continuous")
    doc.layers.add(LEGEND_LAYER, color=7, linetype="Continuous")
    exported = datetime.now(UTC).strftime("%Y-%m-%d")
    lines = [f"Site: {title.site if title else 'not set'}",
             f"CRS: {crs_text} ({crs_name})" if crs_text.startswith("EPSG:") else f"CRS: {crs_name}",
             f"Units: {unit_words}",
             f"Visit date: {title.visit_date if title else 'not set'}",
             f"Crew: {(title.crew if title and title.crew else 'not set')}",
             f"Exported: {exported} (fieldapp)"]
    from .words import export_layer_words

    legend: list[tuple[str, int, str, str]] = []   # (words, colour, linetype, "line" | layer)
    for data in layers:
        colour, linetype = dxf_style(data.name)
        if data.name == "tree":
            names = [c for c, _ in data.columns]
            status = {str(r[names.index("status")] or "").lower() for r in data.rows} if "status" in names else set()
            for s, (layer, c) in TREE_STATUS_STYLE.items():
                if s in status:
                    legend.append((f"Trees, {s} ({layer})", c, "Continuous", "tree"))
            continue
        kind = data.name if data.geometry_type == "Point" and data.arrays is None else "line"
        legend.append((f"{export_layer_words(data.name)} ({data.name})", colour, linetype, kind))
    gap = height * 1.6
    x0 = bounds[2] + (bounds[2] - bounds[0]) * 0.05 + size * 2
    widest = max(len(t) for t in lines + [w for w, *_ in legend]) * height * 0.75 + height * 6
    rows = len(lines) + 1 + len(legend)
    top = bounds[3]
    bottom = top - gap * (rows + 1)
    x1 = x0 + widest
    msp.add_lwpolyline([(x0, bottom), (x1, bottom), (x1, top), (x0, top)], close=True,
                       dxfattribs={"layer": TITLE_LAYER})
    y = top - gap
    for t in lines:
        msp.add_text(t, height=height, dxfattribs={"layer": TITLE_LAYER, "insert": (x0 + height, y)})
        y -= gap
    msp.add_line((x0, y + gap * 0.8), (x1, y + gap * 0.8), dxfattribs={"layer": TITLE_LAYER})
    msp.add_text("Legend", height=height, dxfattribs={"layer": TITLE_LAYER, "insert": (x0 + height, y - gap * 0.1)})
    y -= gap
    for words, colour, linetype, kind in legend:
        sx = x0 + height
        attribs = {"layer": LEGEND_LAYER, "color": colour, "linetype": linetype}
        if kind == "line":
            msp.add_line((sx, y + height / 2), (sx + height * 4, y + height / 2), dxfattribs=attribs)
        else:
            block = f"FA_{_tag(kind)}"
            if block in doc.blocks:
                ref = msp.add_blockref(block, (sx + height * 2, y + height / 2),
                                       dxfattribs={"layer": LEGEND_LAYER, "color": colour})
                ref.dxf.xscale = ref.dxf.yscale = 1.0
        msp.add_text(words, height=height * 0.8, dxfattribs={"layer": TITLE_LAYER, "insert": (sx + height * 5, y)})
        y -= gap
    return x0, bottom, x1, top


def _set_view(doc: Drawing, box: tuple[float, float, float, float], margin: float) -> None:
    """The header extents and the model space's on ``box``; the ``*Active`` viewport centred on
    it, tall enough to show it whole (CAD opens there)."""
    x0, y0, x1, y1 = box[0] - margin, box[1] - margin, box[2] + margin, box[3] + margin
    doc.header["$EXTMIN"] = (x0, y0, 0.0)
    doc.header["$EXTMAX"] = (x1, y1, 0.0)
    doc.header["$LIMMIN"] = (x0, y0)
    doc.header["$LIMMAX"] = (x1, y1)
    msp = doc.modelspace()
    msp.dxf.extmin = (x0, y0, 0.0)
    msp.dxf.extmax = (x1, y1, 0.0)
    w, h = x1 - x0, y1 - y0
    # the viewport's height; its width follows the window's aspect (taken here as 4:3 at least)
    vport = doc.set_modelspace_vport(max(h, w * 0.75) * 1.05, ((x0 + x1) / 2, (y0 + y1) / 2))
    vport.dxf.aspect_ratio = max(w / h if h else 1.0, 4 / 3)
