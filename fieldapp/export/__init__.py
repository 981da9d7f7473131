"""Exports of a visit for the office: GIS with GDAL (pyogrio), CAD with ezdxf.

``fieldapp export VISIT.gpkg --format geojson|kml|shp|csv|dxf|all -o OUT [--force]`` on the
command line; :func:`export_visit` for the app's Export button (no Qt; safe on a worker thread).
``all`` writes every format from one read of the visit into the folder OUT, a folder per format
(``OUT/geojson/``, ``OUT/kml/VISIT.kml``, ``OUT/shp/``, ``OUT/csv/``, ``OUT/dxf/VISIT.dxf``), each
with its own ``photos/`` so that any one of them can be sent on by itself; its ``layers`` are
the GeoJSON's counts.

One layer per feature kind: ``ohwm_line``, ``ohwm_point``, ``transect``, ``station``, ``tree``,
``walk_vertex``, ``track_point``, ``note``, polygons by kind (``wetland``, ``woodland_stand``,
``foundation`` …) and lines by kind with ``_line`` appended (``swale_line``, ``drive_line`` …;
``drainageway_centreline`` as is). Empty layers are left out. Every record's attributes go with
it (``uuid``, times as UTC ISO 8601 with ``Z``, who made it, the model's fields with units in
their names).

========  ====================================  ==============================================
format    OUT                                   coordinates
========  ====================================  ==============================================
geojson   folder, one ``LAYER.geojson`` each    WGS 84 lon/lat (EPSG:4326, RFC 7946), 9 decimals
kml       one ``.kml`` file, a folder per layer WGS 84 lon/lat (Google Earth)
shp       folder, one ``LAYER.shp`` set each    the site's projected CRS (``.prj`` written)
csv       folder, ``LAYER.csv`` (+ .csvt)       WGS 84 lon/lat, 9 decimals, as WKT (column
                                                ``_WKT_EPSG_4326_<TYPE>``, e.g. ``…_POINT``)
dxf       one ``.dxf`` file, a DXF layer each   the site's projected CRS, in its own unit
========  ====================================  ==============================================

The CSV folder is one GDAL data source (``ogrinfo OUT`` lists every layer), on GDAL 3.6 (QGIS
LTR, Debian 12) too, which opens a folder only when its ``.csv`` files outnumber everything
else but the ``.csvt`` files: so no ``.prj`` per layer; the WKT column's name gives GDAL the
CRS and geometry type (:func:`fieldapp.export.gdal.csv_geometry_column`). A folder of one or
two layers beside the manifest and ``photos/`` is below that count: open its ``.csv`` files.

The raw track (``track_point``, 288,000 fixes for a day at 10 Hz) is written in bulk (its
columns, not a row per fix); in the DXF it is one polyline through the fixes in the order
recorded (the fixes' attributes are in the GIS formats), its count the number of fixes; in
the KML it is one path placemark "GNSS track" (fixes, first and last fix time).

Shapefile field names are cut to 10 characters by GDAL: ``field_names.csv`` beside the files maps
each to its full name (with its unit); a text value over 254 bytes is written whole in
``long_values.csv`` (the .dbf keeps its start, marked) and the result's ``notes`` say so. Every
file written is proved whole (:func:`fieldapp.export.gdal._check_written`: its end, its last
feature, its count where that is cheap), so a full disk fails the export (nothing is left). DBH
is written to 0.01 in, a crown radius to 0.01 ft (:data:`RESOLUTION`). A big visit's formats for ``all`` are written in
worker processes (:mod:`fieldapp.export.workers`); a killed export's temporary folder beside
OUT is cleared by the next export of OUT. The
layers every format also carries: ``bank_point``, ``bank_line``, ``protective_area``,
``development_envelope``, ``drainageway_area``, each with its status, citation and verdict.
GeoJSON is RFC 7946 (GDAL's ``RFC7946=YES``, 9 decimals); KML placemarks are named ("Tree 12").

Photos: every format writes the visit's photos as image files in a ``photos/`` folder beside
the data (inside OUT for a folder format, beside the ``.kml`` / ``.dxf`` file otherwise), named
``<original name>_<first 8 of the photo's uuid>.jpg`` (or ``.png``); each feature that has
photos carries ``photos``, their relative links joined by ``;`` (``photos/IMG_0001_1a2b3c4d.jpg``;
in a DXF the entity's FIELDAPP xdata); the ``photo`` layer lists every photo (its record in
words and uuid, time taken UTC and ``taken_clock``, "UTC" or "camera local time (no zone)" when
the camera's own clock was read as UTC, direction degrees true, caption, ``link``) at its placed
position, else at its record's point, else with an empty geometry.

A record without geometry yet (a
transect before its first station) is written with an empty geometry in the GIS formats and
left out of the DXF.

Errors (``ExportError`` base): ``ExportExists`` (OUT exists and ``force`` is False; nothing is
written); ``ExportRefused`` (a file the export would write is the visit itself, also through a
link, one of its ``-wal``/``-shm`` sidecars or any other fieldapp visit GeoPackage: refused even
with ``force``, see :mod:`fieldapp.report.guard`; a folder format into the visit's own folder is
fine as long as no file written has the visit's name); ``ExportWriteFailed`` (folder missing,
permission denied, disk full, GDAL or ezdxf failing to write: nothing is left behind);
``ValueError`` for an unknown format; a visit file that is not ours or is damaged raises the
store's own errors (:class:`fieldapp.store.StoreError`).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import numpy as np
import shapely
from numpy.typing import NDArray
from shapely.geometry.base import BaseGeometry

from fieldapp.export import gdal
from fieldapp.export.dxf import DxfTitle
from fieldapp.export.model import (
    ExportError,
    ExportExists,
    ExportRefused,
    ExportResult,
    ExportWriteFailed,
    _ColumnRows,
    _LayerData,
)
from fieldapp.export.workers import Spare, clear_stale, prestart, tmp_prefix, use_workers, write_in_workers
from fieldapp.report import current_umask
from fieldapp.report.guard import StrPath
from fieldapp.survey.features import (
    AreaFeature,
    Feature,
    Layer,
    LineFeature,
    Note,
    OhwmPoint,
    Station,
    Transect,
    Tree,
)

from .words import export_layer_words

if TYPE_CHECKING:
    from fieldapp.checks.results import Check
    from fieldapp.geo import SiteFrame
    from fieldapp.survey.visit import Visit

_G = TypeVar("_G", bound=BaseGeometry)

__all__ = ["ALL", "FORMATS", "ExportError", "ExportExists", "ExportRefused", "ExportWriteFailed", "ExportResult",
           "export_visit", "layer_records", "main"]

FORMATS = ("geojson", "kml", "shp", "csv", "dxf")
#: every format at once (one read of the visit): OUT is a folder with a folder per format
ALL = "all"
#: Layers exported, in order (the site and walk tables have no geometry; the site is in the report).
LAYERS = (Layer.OHWM_LINE, Layer.OHWM_POINT, Layer.TRANSECT, Layer.STATION, Layer.TREE, Layer.AREA,
          Layer.LINE, Layer.WALK_VERTEX, Layer.TRACK, Layer.NOTE, Layer.STAKE_POINT)
GEOMETRY_TYPE = {"POINT": "Point", "LINESTRING": "LineString", "MULTIPOLYGON": "MultiPolygon"}


def _value(v: Any) -> Any:
    return getattr(v, "value", v)


def _record_name(layer: Layer, f: Feature | None, visit: Visit) -> str:
    """The placemark name the crew knows a record by: its label, else "Tree 12", "OHWM point 3",
    "T1 station 90.0 ft", the note's text (``f`` None: the track, named as a whole)."""
    label = str(getattr(f, "label", "") or "").strip()
    if label:
        return label
    if isinstance(f, Tree):
        return f"Tree {f.tag}"
    if isinstance(f, OhwmPoint):
        return f"OHWM point {f.seq + 1}"  # numbered from 1, as the app shows it
    if isinstance(f, Station):
        t = visit.get(Layer.TRANSECT, f.transect_uuid)
        return f"{(t.label if isinstance(t, Transect) and t.label else 'Transect')} station {f.distance_ft:.1f} ft"
    if isinstance(f, Note):
        return str(f.text)
    if isinstance(f, (AreaFeature, LineFeature)):
        return str(_value(f.kind)).replace("_", " ")
    if layer is Layer.TRACK:
        return f"Track point {getattr(f, 'fix_time_utc', '') or ''}".strip()
    named = {Layer.OHWM_LINE: "OHWM line", Layer.TRANSECT: "Transect"}.get(layer)
    return named if named is not None else str(layer.value).replace("_", " ")


PHOTO_DIR = "photos"
#: in a folder export: the layer files it wrote, so that an export with ``force`` into the same
#: folder removes the ones the visit no longer has (a deleted tree's layer is not left behind)
MANIFEST = "fieldapp-export.json"


def photo_links(visit: Visit) -> dict[str, str]:
    """``{photo uuid: "photos/<name>_<uuid8>.jpg"}`` of every photo of the visit (the relative
    link each exported feature carries; POSIX slashes, as GIS and browsers read them)."""
    out = {}
    for p in visit.features(Layer.PHOTO):
        stem = Path(p.original_path.replace("\\", "/")).stem or "photo"
        stem = "".join(c if c.isalnum() or c in "-_" else "_" for c in stem)[:40]
        ext = ".png" if p.content_type == "image/png" else ".jpg"
        out[p.uuid] = f"{PHOTO_DIR}/{stem}_{p.uuid[:8]}{ext}"
    return out


#: ``taken_clock`` of the photo layer: what its ``taken_utc`` is (the camera's own clock, read as
#: UTC, until the camera clock offset is set or the camera writes its zone).
CLOCK = {True: "UTC", False: "camera local time (no zone)"}


def _photo_layer(visit: Visit, links: dict[str, str]) -> list[_LayerData]:
    """The ``photo`` layer: every photo with its record, time (``taken_utc``, and
    ``taken_clock``: :data:`CLOCK`), direction, caption and link."""
    from fieldapp.store import schema as S
    from fieldapp.store.photos import feature_words, time_is_utc

    rows: list[list[Any]] = []
    geoms: list[BaseGeometry | None] = []
    for p in sorted(visit.features(Layer.PHOTO), key=lambda q: q.created_utc):
        g: BaseGeometry | None = None if p.x is None else shapely.Point(p.x, p.y)
        if g is None and p.record_table and p.record_table != Layer.SITE.value:
            try:
                rec = visit.get(Layer(p.record_table), p.record_uuid)
                g = S.geometry_of(Layer(p.record_table), rec)
            except Exception:  # noqa: BLE001 - its record was deleted: no position
                g = None
            g = None if g is None else g.representative_point()
        rows.append([feature_words(visit, p), p.uuid, p.record_table, p.record_uuid,
                     None if p.taken_utc is None else S.utc_text(p.taken_utc),
                     None if p.taken_utc is None else CLOCK[time_is_utc(p)], p.direction_deg,
                     p.caption, p.placed_by, links[p.uuid]])
        geoms.append(g)
    if not rows:
        return []
    cols = [("name", "str"), ("uuid", "str"), ("record_table", "str"), ("record_uuid", "str"),
            ("taken_utc", "str"), ("taken_clock", "str"), ("direction_deg", "float"), ("caption", "str"),
            ("placed_by", "str"), ("link", "str")]
    return [_LayerData("photo", "Point", geoms, cols, rows)]


def _write_photos(visit: Visit, links: dict[str, str], folder: Path) -> None:
    """The image files of ``links`` into ``folder`` (made here), each fsync'ed."""
    folder.mkdir(exist_ok=True)
    for p in visit.features(Layer.PHOTO):
        path = folder / links[p.uuid].rsplit("/", 1)[-1]
        with open(path, "wb") as fh:
            fh.write(p.data)
            fh.flush()
            os.fsync(fh.fileno())


def _links_of(visit: Visit, layer: Layer, uuid: str, links: dict[str, str]) -> str | None:
    got = [links[p.uuid] for p in visit.photos_of(layer, uuid)]
    return ";".join(got) if got else None


#: columns written at their instrument's resolution, not as the float the arithmetic left
#: (a caliper's 312.4 mm is 12.299212... in; the file said 12.299999999 for a typed 12.3): DBH to
#: 0.01 in (0.25 mm), finer than a caliper's whole millimetre, so that every caliper reading is
#: told apart (312 and 313 mm are 12.28 and 12.32 in; 0.1 in would make both 12.3); a crown
#: radius (typed, or a rangefinder's horizontal distance to the drip line, 0.1 ft at best) to
#: 0.01 ft
RESOLUTION = {"dbh_in": 2, "crown_radius_ft": 2}


def _at_resolution(column: str, value: Any) -> Any:
    digits = RESOLUTION.get(column)
    return value if digits is None or value is None else round(float(value), digits)


def layer_records(visit: Visit) -> list[_LayerData]:
    """The visit's records grouped into export layers (site CRS geometry, plain attributes);
    each layer's first column is ``name`` (:func:`_record_name`); a layer with photos has a
    ``photos`` column of relative links (:func:`photo_links`), and the ``photo`` layer lists
    them all."""
    from fieldapp.store import schema as S

    links = photo_links(visit)
    out: list[_LayerData] = []
    for layer in LAYERS:
        if layer is Layer.TRACK:
            if len(visit.track_log):
                out.append(_track_layer(visit))
            continue
        feats = visit.features(layer)
        if not feats:
            continue
        cols = [c for c in S.columns(layer) if c.pytype != "wkb"]
        kinds: dict[str, list[Any]] = {}
        for f in feats:
            if layer is Layer.AREA:
                key = _value(f.kind)
            elif layer is Layer.LINE:
                k = _value(f.kind)
                key = k if k.endswith("line") else f"{k}_line"
            else:
                key = layer.value
            kinds.setdefault(key, []).append(f)
        for name, group in kinds.items():
            columns = [("name", "str"), ("uuid", "str"), ("created_utc", "str"), ("modified_utc", "str"),
                       ("created_by", "str")]
            for c in cols:
                kind = "int" if c.pytype in (int, bool) else "float" if c.pytype is float else "str"
                columns.append((c.name, kind))
            photos = [_links_of(visit, layer, f.uuid, links) for f in group] if links else []
            if any(photos):
                columns.append(("photos", "str"))
            rows: list[list[Any]] = []
            geoms: list[BaseGeometry | None] = []
            for i, f in enumerate(group):
                row = [_record_name(layer, f, visit), f.uuid, S.utc_text(f.created_utc), S.utc_text(f.modified_utc),
                       f.created_by]
                row += [_at_resolution(c.name, S.to_sql(c, getattr(f, c.field))) for c in cols]
                if any(photos):
                    row.append(photos[i])
                rows.append(row)
                geoms.append(S.geometry_of(layer, f))
            out.append(_LayerData(name, GEOMETRY_TYPE[S.GEOMETRY[layer][0]], geoms, columns, rows))
    from fieldapp.export.datapoints import data_point_layers

    return out + data_point_layers(visit) + _photo_layer(visit, links)


def _utc_texts(a: NDArray[np.datetime64]) -> NDArray[np.object_]:
    """datetime64[ms] → ISO 8601 UTC text with Z and milliseconds (None for NaT), as the store
    writes them (:func:`fieldapp.store.schema.utc_text`)."""
    text = np.char.add(np.datetime_as_string(a, unit="ms"), "Z").astype(object)
    text[np.isnat(a)] = None
    return text


def _track_layer(visit: Visit) -> _LayerData:
    """The raw track as one layer written in bulk (columns, not a row per fix); the columns
    and values are those :func:`layer_records` gives any layer."""
    from fieldapp.store import schema as S

    c = visit.track_log.columns()
    n = len(c["uuid"])
    columns = [("name", "str"), ("uuid", "str"), ("created_utc", "str"), ("modified_utc", "str"),
               ("created_by", "str")]
    arrays = [np.full(n, _record_name(Layer.TRACK, None, visit), dtype=object), c["uuid"],
              _utc_texts(c["created_utc"]), _utc_texts(c["modified_utc"]), c["created_by"]]
    for col in S.columns(Layer.TRACK):
        kind = "int" if col.pytype in (int, bool) else "float" if col.pytype is float else "str"
        columns.append((col.name, kind))
        a = c[col.field]
        if a.dtype.kind == "M":
            arrays.append(_utc_texts(a))
        elif kind == "int":   # -1: none recorded
            ints = a.astype(object)
            ints[a < 0] = None
            arrays.append(ints)
        else:
            arrays.append(a)
    geoms = shapely.points(c["x"], c["y"])
    return _LayerData(Layer.TRACK.value, "Point", geoms, columns, _ColumnRows(arrays), arrays)


_VERDICT_COLUMNS = [("status", "str"), ("citation", "str"), ("verdict", "str")]


def _verdict(check: Check | None) -> list[Any]:
    """status, citation and the verdict in words of a check (or three Nones)."""
    from fieldapp.checks.results import summary_words

    if check is None:
        return [None, None, None]
    r = check.result
    return [check.status, r.get("citation"), summary_words(check.rule, r)]


def _multi(g: BaseGeometry | None) -> BaseGeometry | None:
    return shapely.MultiPolygon([g]) if isinstance(g, shapely.Polygon) else g


def derived_records(visit: Visit, visit_path: StrPath) -> list[_LayerData]:
    """What the office maps beside the records, each with its verdict and citation: the bank
    points of every transect and the bank line joining them (NR 341.035), the protective-area
    buffers (NR 151.125), the development envelope (Woodlands D.2) and the drainageway areas
    (Drainageways A). Site CRS geometry, as the report's map draws them
    (:func:`fieldapp.report.content.gather`)."""
    from fieldapp.report.content import gather

    content = gather(visit, visit_path, conflicts=[])
    frame, m = visit.frame, content.map
    by_id = {c.check_id: c for c in content.checks}

    # from_ft is elementwise arithmetic: typed for a float, it takes the coordinate arrays alike
    from_ft = cast("Callable[[NDArray[np.float64]], NDArray[np.float64]]", frame.from_ft)

    def crs(g: _G) -> _G:  # report map feet -> site CRS units
        return shapely.transform(g, from_ft)

    out: list[_LayerData] = []
    rows: list[list[Any]]
    geoms: list[BaseGeometry | None]
    if m.bank_points:
        rows, geoms = [], []
        # by the transect's uuid: two transects may share a label
        for (label, x, y, known), transect_uuid in zip(m.bank_points, m.bank_transects, strict=True):
            c = by_id[f"bank:{transect_uuid}"]
            dist = float(c.result["bank_ft"] if known else c.result["bank_ft_at_least"])  # as the map drew it
            rows.append([f"{label} bank {'' if known else 'at least '}{dist:.1f} ft", label, float(dist),
                         int(not known)] + _verdict(c))
            geoms.append(crs(shapely.Point(x, y)))
        out.append(_LayerData("bank_point", "Point", geoms, [("name", "str"), ("transect", "str"),
                              ("bank_ft", "float"), ("at_least", "int")] + _VERDICT_COLUMNS, rows))
    if m.bank_line is not None:
        settled = all(b[3] for b in m.bank_points)
        out.append(_LayerData("bank_line", "LineString", [crs(m.bank_line)],
                              [("name", "str"), ("status", "str"), ("citation", "str")],
                              [["Bank line", "determined" if settled else "needs_data", "NR 341.035(1)"]]))
    if m.protective_areas:
        # in the map's order: each wetland with a width, then the site's water features from the OHWM
        checks = [pa for a in visit.features(Layer.AREA)
                  if (pa := by_id.get(f"protective_area:{a.uuid}")) is not None and pa.result.get("width_ft")]
        site_check: list[Check | None] = [by_id.get("protective_area")]
        checks_all = [*checks, *site_check * (len(m.protective_areas) - len(checks))]
        rows, geoms = [], []
        for (label, width, g), pc in zip(m.protective_areas, checks_all, strict=True):
            rows.append([f"Protective area {label} {width:g} ft", label, float(width)] + _verdict(pc))
            geoms.append(_multi(crs(g)))
        out.append(_LayerData("protective_area", "MultiPolygon", geoms, [("name", "str"), ("feature", "str"),
                              ("width_ft", "float")] + _VERDICT_COLUMNS, rows))
    if m.envelope is not None:
        c = by_id["development_area"]   # the envelope is drawn from its request
        out.append(_LayerData("development_envelope", "MultiPolygon", [_multi(crs(m.envelope))],
                              [("name", "str"), ("envelope_area_sqft", "float")] + _VERDICT_COLUMNS,
                              [["Development envelope", c.result.get("envelope_area_sqft")] + _verdict(c)]))
    rows, geoms = [], []
    for ln in visit.features(Layer.LINE):
        dc = by_id.get(f"drainageway:{ln.uuid}")
        half = dc.result.get("half_width_ft") if dc is not None else None
        if dc is None or not half or ln.geometry is None:
            continue
        rows.append([f"Drainageway {ln.label or _value(ln.kind)}", float(half), dc.result.get("total_width_ft"),
                     dc.result.get("area_sqft")] + _verdict(dc))
        geoms.append(_multi(ln.geometry.buffer(frame.from_ft(float(half)), cap_style="flat")))
    if rows:
        out.append(_LayerData("drainageway_area", "MultiPolygon", geoms, [
            ("name", "str"), ("half_width_ft", "float"), ("total_width_ft", "float"), ("area_sqft", "float")]
            + _VERDICT_COLUMNS, rows))
    return out



def export_visit(visit_path: StrPath, out_path: StrPath, fmt: str, *, force: bool = False,
                 progress: Callable[[float, str], None] | None = None) -> ExportResult:
    """Export the visit at ``visit_path`` to ``out_path`` in format ``fmt`` (see module docstring).

    Everything is written under a temporary name beside ``out_path`` and moved into place at the
    end, so a failed export leaves nothing half-written.

    Parameters
    ----------
    visit_path : path-like
        The visit GeoPackage (checkpointed and closed again after reading).
    out_path : path-like
        A folder (geojson, shp, csv) or a file (kml, dxf; ``.kml`` / ``.dxf`` is added to a name
        without a suffix, another suffix is refused).
    fmt : {"geojson", "kml", "shp", "csv", "dxf", "all"}
        ``all``: every format into the folder ``out_path``, a folder per format (module docstring).
    force : bool
        Replace an existing ``out_path`` (a folder's files of the same names are replaced, the
        layer files an earlier export listed in its :data:`MANIFEST` and this one did not write
        are removed, other files in it are kept). Without it an existing ``out_path`` raises
        :class:`ExportExists`.
    progress : callable(fraction, message), optional

    Returns
    -------
    ExportResult

    Raises
    ------
    ExportExists, ExportWriteFailed, ValueError, FileNotFoundError, fieldapp.store.StoreError
    ExportRefused
        The output would replace a visit, has the wrong suffix, or (Windows) a file it would
        replace is open in another program ("close tree.csv in the program that has it open,
        then export again"; :func:`fieldapp.report.guard.refuse_held`) or read-only, or a
        folder stands where one of its files goes: refused before anything is written.
    """
    from fieldapp.report.content import load_visit
    from fieldapp.report.guard import held_by_error, held_words, os_error_words, refuse_existing, refuse_held

    fmt = fmt.lower()
    if fmt not in (*FORMATS, ALL):
        raise ValueError(f"format {fmt!r} is not one of {', '.join(FORMATS)} or {ALL}")
    single = fmt in ("kml", "dxf")
    out, parent = _check_output(visit_path, Path(out_path), fmt, single, force)

    def step(f: float, m: str) -> None:
        if progress is not None:
            progress(f, m)

    step(0.0, "reading the visit")
    spare = prestart(visit_path, FORMATS if fmt == ALL else (fmt,))  # their start-up while it is read
    try:
        visit = load_visit(visit_path)
        if not visit.has_frame:
            raise ExportError("the visit has no site CRS yet: nothing is positioned, nothing to export")
        frame = visit.frame
        layers = layer_records(visit) + derived_records(visit, visit_path)
        title = DxfTitle(site=visit.site.name, visit_date=visit.site.visit_date.isoformat(),
                         crew=", ".join(visit.site.crew))
    except BaseException:
        spare.close()
        raise
    site_crs = f"EPSG:{frame.srs_id}" if frame.srs_id else frame.crs.to_wkt()
    crs_words = {f: "EPSG:4326" if f in ("geojson", "kml", "csv") else site_crs for f in FORMATS}
    result = ExportResult(out, fmt, crs_words.get(fmt) or "; ".join(
        f"{f} {c}" for f, c in crs_words.items()))
    tmp_dir = None
    dests: list[Path] = []
    try:
        home = _temp_home(out, parent)
        clear_stale(home, out.name)     # a killed export's temporary folder of OUT
        tmp_dir = Path(tempfile.mkdtemp(prefix=tmp_prefix(out.name), suffix=".tmp", dir=home))
        umask = current_umask()
        os.chmod(tmp_dir, 0o777 & ~umask)  # mkdtemp made it 0700; it becomes OUT for a folder format
        target = tmp_dir / out.name if single else tmp_dir
        links = photo_links(visit)
        formats = FORMATS if fmt == ALL else (fmt,)
        into = {f: tmp_dir / f if fmt == ALL else tmp_dir for f in formats}  # every format: a folder each
        targets = {f: target if fmt != ALL else into[f] / f"{Path(visit_path).stem}.{f}"
                   if f in ("kml", "dxf") else into[f] for f in formats}
        for f in formats:
            into[f].mkdir(exist_ok=True)
        written = _write_formats(layers, targets, frame, site_crs, step, tmp_dir, spare, title)
        result.layers.update(written[formats[0]][0])
        for f in formats:
            result.notes += written[f][1]
            if links:
                step(0.9, f"{f}: photos" if fmt == ALL else "photos")
                _write_photos(visit, links, into[f] / PHOTO_DIR)
        step(0.95, "saving")
        refuse_existing(out, force, ExportExists)
        if fmt == ALL:
            dests = ([out] if out.is_file() else []) + [
                d for f in formats for d in _destinations(tmp_dir / f, out / f, False)]
        else:
            dests = _destinations(tmp_dir, out, single)
        refuse_held(dests, ExportRefused, "export again")   # a CSV open in Excel: before any move
        _refuse_folders(dests)                              # a folder where a layer's file goes
        if fmt == ALL:     # each format's folder as if exported by itself, into OUT
            if out.is_symlink() or (out.exists() and not out.is_dir()):
                out.unlink()   # --force: a file of that name gives way to the folder, as for one format
            out.mkdir(exist_ok=True)
            result.files = [p for f in formats for p in _move_into_place(
                visit_path, tmp_dir / f, tmp_dir / f, out / f, False, umask, force)]
        else:
            result.files = _move_into_place(visit_path, tmp_dir, target, out, single, umask,
                                            force)
    except ExportWriteFailed as exc:     # a layer's file (in whichever worker failed first)
        if str(exc).startswith(f"cannot write {out}"):
            raise
        raise ExportWriteFailed(f"cannot write {out}: {exc}") from exc
    except ExportError:
        raise
    except OSError as exc:
        held = held_by_error(exc, dests)     # opened in Excel between the check and the move
        why = held_words(held, "held", "export again") if held else os_error_words(exc)
        raise ExportWriteFailed(f"cannot write {out}: {why}") from exc
    except Exception as exc:
        if not gdal._is_write_error(exc):
            raise
        why = "the disk is full (no space left on the device)" if gdal._disk_full(parent) else str(exc)
        raise ExportWriteFailed(f"cannot write {out}: {why}") from exc
    finally:
        spare.close()
        if tmp_dir is not None:
            shutil.rmtree(tmp_dir, ignore_errors=True)
    step(1.0, "done")
    return result


def _temp_home(out_path: Path, parent: Path) -> Path:
    """Where the export's temporary folder goes: beside OUT, so that the finished files are
    moved into place, never copied; inside OUT when OUT is a folder on another drive than the
    folder holding it (the top of a USB stick or a mounted share: beside it is another drive)."""
    try:
        if out_path.is_dir() and not out_path.is_symlink() and \
                out_path.stat().st_dev != parent.stat().st_dev:
            return out_path
    except OSError:
        pass
    return parent


def _write_formats(layers: list[_LayerData], targets: dict[str, Path], frame: SiteFrame, site_crs: str,
                   step: Callable[[float, str], None], tmp_dir: Path,
                   spare: Spare, title: DxfTitle | None = None) -> dict[str, tuple[dict[str, int], list[str]]]:
    """Each format of ``targets`` ({format: its temporary file or folder}) written, in worker
    processes for a big visit's ``all`` (:mod:`fieldapp.export.workers`), else here one after
    the other; ``{format: (counts per layer, notes)}``."""
    formats = tuple(targets)
    if use_workers(layers, formats):
        return write_in_workers(layers, targets, frame, site_crs, step, tmp_dir, spare, title)
    written: dict[str, tuple[dict[str, int], list[str]]] = {}
    for k, f in enumerate(formats):
        def part(x: float, m: str, k: int = k, f: str = f) -> None:
            step((k + x) / len(formats) * 0.9, m if len(formats) == 1 else f"{f}: {m}")
        counts: dict[str, int] = {}
        notes: list[str] = []
        gdal._write_layers(list(layers), targets[f], f, frame, site_crs, counts, part, notes, title)
        written[f] = (counts, notes)
    return written


def _check_output(visit_path: StrPath, out_path: Path, fmt: str, single: bool,
                  force: bool) -> tuple[Path, Path]:
    """Refuse an output that would replace a visit, a folder given to a one-file format, a
    one-file format named with another suffix, or an existing output without ``force``;
    ``(out_path, the folder it goes in)`` (:class:`ExportWriteFailed` when that does not exist).
    A one-file name without a suffix gets the format's: GDAL knows a KML by its name ("-o
    site" failed at the second layer). A folder format may write into an existing folder: its
    files are checked one by one before they are moved (:func:`_move_into_place`)."""
    from fieldapp.report.guard import output_folder, refuse_clobbering, refuse_existing, refuse_held

    if single and not out_path.suffix and not out_path.is_dir():
        out_path = out_path.with_name(f"{out_path.name}.{fmt}")
    if single or not out_path.is_dir():
        refuse_clobbering(visit_path, [out_path], ExportRefused)
    if single and out_path.is_dir():
        raise ExportRefused(f"{out_path} is a folder; a {fmt} export is one file (e.g. "
                            f"{out_path / ('visit.' + fmt)})")
    if single and out_path.suffix.lower() != f".{fmt}":
        raise ExportRefused(f"a {fmt.upper()} export is one file whose name ends in .{fmt}, not"
                            f" {out_path.name}: nothing written")
    refuse_existing(out_path, force, ExportExists)
    folder = output_folder(out_path, ExportWriteFailed)
    refuse_held(_replaced_before(out_path, fmt, single), ExportRefused, "export again")
    return out_path, folder


def _replaced_before(out_path: Path, fmt: str, single: bool) -> list[Path]:
    """The existing files an export to ``out_path`` will replace, as far as they are known
    before anything is written: the one file; the files an earlier export listed in its
    :data:`MANIFEST` (and the manifest), per format folder for ``all``. Checked at once for a
    file another program holds open (:func:`fieldapp.report.guard.refuse_held`), so a CSV open
    in Excel is named before the visit is even read; :func:`_destinations` is checked again
    before the move."""
    if single or out_path.is_file():
        return [out_path]
    out: list[Path] = []
    for d in ([out_path / f for f in FORMATS] if fmt == ALL else [out_path]):
        out += [d / MANIFEST] + [d / n for n in sorted(_listed(d))]
    return out


def _refuse_folders(dests: list[Path]) -> None:
    """Raise :class:`ExportRefused` (nothing written) when one of the files the export is about
    to replace (``dests``, :func:`_destinations`) is a folder: a file cannot replace it, and
    finding that out at its turn left the files moved before it replaced (half an export)."""
    for d in dests:
        if d.is_dir() and not d.is_symlink():
            raise ExportRefused(f"{d} is a folder: the export writes a file of that name there;"
                                " move or rename the folder, then export again; nothing was written")


def _destinations(tmp_dir: Path, out_path: Path, single: bool) -> list[Path]:
    """Every file :func:`_move_into_place` will replace or remove for what was written in
    ``tmp_dir``: the one file or the folder's files (its :data:`MANIFEST`, the layers an
    earlier export listed), and the photos beside them. Missing ones are harmless."""
    photos = tmp_dir / PHOTO_DIR
    shots = sorted(f.name for f in photos.iterdir()) if photos.is_dir() else []
    beside = out_path.parent if single else out_path
    if single:
        files = [out_path]
    else:
        names = {f.name for f in tmp_dir.iterdir() if f.name != PHOTO_DIR} | {MANIFEST} | _listed(out_path)
        files = [out_path / n for n in sorted(names)]
    return files + [beside / PHOTO_DIR / n for n in shots]



def _move_into_place(visit_path: StrPath, tmp_dir: Path, target: Path, out_path: Path, single: bool,
                     umask: int, force: bool = False) -> list[Path]:
    """Move what was written in ``tmp_dir`` to ``out_path``: the one file; each file into an
    existing folder (others in it are kept); or the whole folder. Every file about to be
    replaced is checked (:func:`fieldapp.report.guard.refuse_clobbering`) before any is moved,
    so nothing is half done. Returns the files written."""
    from fieldapp.report.guard import refuse_clobbering

    photos = tmp_dir / PHOTO_DIR
    shots = sorted(f.name for f in photos.iterdir()) if photos.is_dir() else []
    if not single:
        written = sorted(f.name for f in tmp_dir.iterdir() if f.name != PHOTO_DIR) + [MANIFEST]
        # UTF-8 with \n line ends on every platform (Windows' default is cp1252 and \r\n)
        (tmp_dir / MANIFEST).write_text(json.dumps({"format": "fieldapp export", "files": written}, indent=1)
                                        + "\n", encoding="utf-8", newline="\n")
    names = [out_path.name] if single else sorted(f.name for f in tmp_dir.iterdir() if f.name != PHOTO_DIR)
    beside = out_path.parent if single else out_path
    refuse_clobbering(visit_path, ([out_path] if single or not out_path.is_dir()
                                   else [out_path / n for n in names])
                      + [beside / PHOTO_DIR / n for n in shots], ExportRefused)
    if shots and (beside / PHOTO_DIR).exists() and not (beside / PHOTO_DIR).is_dir():
        raise ExportRefused(f"{beside / PHOTO_DIR} is a file: the photos go in a folder of that"
                            " name; move the file away: nothing written")
    again = [n for n in shots if (beside / PHOTO_DIR / n).exists()]
    if again and not force:
        raise ExportExists(f"{beside / PHOTO_DIR / again[0]} exists ({len(again)} of the photos"
                           " were exported here before): nothing written; --force replaces them")
    for f in [*tmp_dir.iterdir(), *(photos.iterdir() if shots else ())]:
        if f.is_file() and not f.is_symlink():  # GDAL / ezdxf files already follow the umask
            os.chmod(f, 0o666 & ~umask)
    if shots:
        os.chmod(photos, 0o777 & ~umask)
    if single or out_path.is_dir():
        files = []
        if shots:   # into photos/ beside the data, kept photos of earlier exports staying
            (beside / PHOTO_DIR).mkdir(exist_ok=True)
            for n in shots:
                os.replace(photos / n, beside / PHOTO_DIR / n)
                files.append(beside / PHOTO_DIR / n)
        if single:
            os.replace(target, out_path)
            return [out_path] + files
        stale = _listed(out_path) - set(names)
        for n in names:
            os.replace(tmp_dir / n, out_path / n)
            files.append(out_path / n)
        for n in sorted(stale):            # an earlier export's layer this one did not write
            if (out_path / n).is_file() and not (out_path / n).is_symlink():
                (out_path / n).unlink()
        return files
    if out_path.exists() or out_path.is_symlink():
        out_path.unlink()
    os.replace(tmp_dir, out_path)
    return [out_path / n for n in names] + [out_path / PHOTO_DIR / n for n in shots]


def _listed(folder: Path) -> set[str]:
    """The file names an earlier export's :data:`MANIFEST` in ``folder`` lists (plain names
    only: nothing outside the folder, nothing in a subfolder); empty when there is none."""
    try:
        data = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        names = data["files"] if isinstance(data, dict) and data.get("format") == "fieldapp export" else []
    except (OSError, ValueError, KeyError, TypeError):
        return set()
    return {n for n in names if isinstance(n, str) and n and n == Path(n).name and n not in (".", "..")}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="fieldapp export",
                                description="Export a visit GeoPackage for GIS (GDAL) or CAD (DXF).")
    p.add_argument("visit", metavar="VISIT.gpkg")
    p.add_argument("--format", required=True, choices=(*FORMATS, ALL), type=str.lower)
    p.add_argument("-o", "--output", required=True, metavar="OUT",
                   help="a folder for geojson, shp and csv; a file for kml and dxf (.kml / .dxf is added to a name"
                        " without one); for all, a folder with a folder per format")
    p.add_argument("--force", action="store_true", help="overwrite OUT if it exists")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """``fieldapp export``; exit 0 done, 1 refused or failed, 2 usage, 130 interrupted.
    Every failure is one line on stderr, never a traceback."""
    args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    from fieldapp.report.guard import run_office_command
    from fieldapp.store.errors import StoreError

    status, r = run_office_command(
        "fieldapp export", lambda: export_visit(args.visit, args.output, args.format, force=args.force),
        exists=ExportExists, expected=(StoreError, ExportError, ValueError),
        nothing="nothing written", output=args.output)
    if status:
        return status
    assert r is not None    # status 0: the export returned its result
    layers = ", ".join(f"{export_layer_words(k)} ({k}) {v}" for k, v in r.layers.items())
    print(f"{r.path} ({r.format}, {r.crs}): {layers}")
    for note in r.notes:
        print(f"note: {note}")
    return 0
