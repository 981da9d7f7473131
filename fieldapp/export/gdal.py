"""The GIS formats of the export through GDAL (pyogrio): GeoJSON, KML, Shapefile and CSV, layer
by layer into a temporary folder, each file proved whole once written (:func:`_check_written`).
Called by :func:`fieldapp.export.export_visit`, in-process or in a worker process
(:mod:`fieldapp.export.workers`)."""

from __future__ import annotations

import os
import re
import shutil
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np
import shapely

from fieldapp.export.dxf import DxfTitle, _dxf
from fieldapp.export.model import ExportWriteFailed, _LayerData

if TYPE_CHECKING:
    from fieldapp.geo import SiteFrame

#: a geometry (or an array of them) from the site CRS to the CRS a file is written in; None: none
Transform: TypeAlias = "Callable[[Any], Any] | None"

__all__ = ["GEOJSON_OPTIONS", "SHP_TEXT_BYTES", "LONG_VALUES_FILE", "FIELD_NAMES_FILE", "TEXT_ENCODING"]

#: The text encoding of every file the export writes and reads back, named to GDAL (pyogrio)
#: too: for a driver that does not declare UTF-8 strings (CSV) pyogrio otherwise encodes the
#: values in the locale's encoding, Windows' ANSI code page (cp1252), and a site named
#: "Łąka – Wisła" failed with "'charmap' codec can't encode".
TEXT_ENCODING = "UTF-8"


def _field_arrays(data: _LayerData, int32: bool = False) -> tuple[list[Any], list[Any]]:
    """Column arrays and null masks for pyogrio; ``int32`` for KML, whose schema types 64-bit
    integers as strings."""
    arrays, masks = [], []
    for j, (_, kind) in enumerate(data.columns):
        if data.arrays is not None and kind == "float":
            arr = np.asarray(data.arrays[j], dtype=np.float64)
            missing = np.isnan(arr)
            arrays.append(arr)
            masks.append(missing if missing.any() else None)
            continue
        if data.arrays is not None and kind in ("str", "int"):   # a bulk layer: whole columns
            vals = np.asarray(data.arrays[j], dtype=object)
            missing = vals == None  # noqa: E711 - elementwise over the object array
            if kind == "int":
                arr = np.where(missing, 0, vals).astype(np.int32 if int32 else np.int64)
            else:
                arr = vals
                if not set(map(type, vals.tolist())) <= {str, type(None)}:
                    arr = np.array([None if v is None else str(v) for v in vals], dtype=object)
            arrays.append(arr)
            masks.append(missing if missing.any() else None)
            continue
        column: Any = data.arrays[j] if data.arrays is not None else [r[j] for r in data.rows]
        missing = np.array([v is None for v in column])
        if kind == "int":
            arr = np.array([0 if v is None else int(v) for v in column], dtype=np.int32 if int32 else np.int64)
        elif kind == "float":
            arr = np.array([np.nan if v is None else float(v) for v in column], dtype=np.float64)
        else:
            arr = np.array([None if v is None else str(v) for v in column], dtype=object)
        arrays.append(arr)
        masks.append(missing if missing.any() else None)
    return arrays, masks


#: the drivers a bulk layer (the day's track) is written to through GDAL's Arrow interface, in
#: one call (``pyogrio.write_arrow``), where pyarrow is installed (:func:`arrow_available`): its
#: columns go to GDAL as they are, not a Python value per field per fix (a day's 288,000 fixes:
#: 0.1 to 0.6 s less per format). The file is the row path's, byte for byte. KML gets the track
#: as one path (:func:`_track_path`), not as points. The GeoPackage gets it as a layer added to
#: the file (its content the row path's, row for row: 0.4-0.5 s less for a day).
ARROW_DRIVERS = frozenset({"GeoJSON", "CSV", "ESRI Shapefile", "GPKG"})


def arrow_available() -> bool:
    """Whether pyarrow can be imported (the ``arrow`` extra; the bundle leaves it out, 170 MB):
    without it the track is written row by row, to the same bytes."""
    import importlib.util

    return importlib.util.find_spec("pyarrow") is not None


def _arrow_table(data: _LayerData, wkb: Any, geometry: str) -> Any:
    """The bulk layer ``data`` as a pyarrow table: a column per export column with the types and
    nulls :func:`_field_arrays` gives the row path (a None or NaN is a null), then the WKB
    geometry column ``geometry``."""
    import pyarrow as pa

    assert data.arrays is not None
    arrays, masks = _field_arrays(data)
    cols: dict[str, Any] = {}
    for (name, kind), arr, mask in zip(data.columns, arrays, masks, strict=True):
        typ = {"int": pa.int64(), "float": pa.float64()}.get(kind, pa.string())
        cols[name] = pa.array(arr, type=typ, mask=mask)
    cols[geometry] = pa.array(wkb, type=pa.binary())
    return pa.table(cols)


def _write_bulk_arrow(data: _LayerData, wkb: Any, path: Path, driver: str, crs: str | None,
                      layer_options: dict[str, str] | None, append: bool = False) -> None:
    """Write the bulk layer ``data`` (its geometries already ``wkb``) to ``path`` in one call
    through GDAL's Arrow interface (``append``: as a layer added to the GeoPackage ``path``); the
    file is the one the row path writes, field for field."""
    from pyogrio import write_arrow

    if driver == "GPKG":     # the column the row path's GeoPackage has (GDAL's default there)
        layer_options = {"GEOMETRY_NAME": "geom", **(layer_options or {})}
    geometry = (layer_options or {}).get("GEOMETRY_NAME", "geometry")
    table = _arrow_table(data, wkb, geometry)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Normalized/laundered field name")
        warnings.filterwarnings("ignore", message="'crs' was not provided")
        write_arrow(table, str(path), layer=data.name, driver=driver, geometry_name=geometry,
                    geometry_type=data.geometry_type, crs=crs, layer_options=layer_options or None,
                    encoding=TEXT_ENCODING if driver == "ESRI Shapefile" else None, append=append)


def _write_ogr(data: _LayerData, path: Path, driver: str, crs: str, transform: Transform, *,
               append: bool = False, layer_options: dict[str, str] | None = None) -> None:
    from pyogrio.raw import write

    file_crs: str | None = crs
    if driver == "CSV":   # the CRS and geometry type in the WKT column's name, no .prj
        transform = _on_csv_grid(transform)
        layer_options = {**(layer_options or {}), "GEOMETRY_NAME": csv_geometry_column(data.geometry_type, crs)}
        file_crs = None
    if data.arrays is not None:  # a layer read in bulk: every geometry at once
        geoms = transform(data.geometries) if transform else data.geometries
        wkb = shapely.to_wkb(geoms, output_dimension=2)
        if driver in ARROW_DRIVERS and (not append or driver == "GPKG") and arrow_available():
            _write_bulk_arrow(data, wkb, path, driver, file_crs, layer_options, append)
            if driver == "CSV":
                _csvt_geometry_as_text(path.with_suffix(".csvt"))
            return
    else:
        # every geometry at once (a pointwise transform: each coordinate as it would be alone;
        # one call per tree was 0.2 s per format in WGS 84 for a day's 4,000)
        geoms = np.empty(len(data.geometries), dtype=object)
        geoms[:] = [None if g is None or g.is_empty else g for g in data.geometries]
        have = ~shapely.is_missing(geoms)
        if transform and have.any():
            geoms[have] = transform(geoms[have])
        wkb = shapely.to_wkb(geoms, output_dimension=2)
    arrays, masks = _field_arrays(data, int32=driver in ("LIBKML", "KML"))
    with warnings.catch_warnings():
        # Shapefile names are 10 characters at most: GDAL cuts them and says so (documented above)
        warnings.filterwarnings("ignore", message="Normalized/laundered field name")
        # a CSV's CRS is in its WKT column's name (csv_geometry_column), not in a .prj
        warnings.filterwarnings("ignore", message="'crs' was not provided")
        write(str(path), wkb, arrays, [c for c, _ in data.columns], field_mask=masks, layer=data.name,
              driver=driver, geometry_type=data.geometry_type, crs=file_crs, append=append,
              layer_options=layer_options or None, encoding=TEXT_ENCODING)
    if driver == "CSV":
        _csvt_geometry_as_text(path.with_suffix(".csvt"))


def _track_path(data: _LayerData) -> _LayerData:
    """The raw track as one path (a LineString through the fixes in the order recorded) with
    its number of fixes and first and last fix times: what Google Earth can show of a day's
    288,000 fixes (the fixes themselves are in the GIS formats)."""
    xy = shapely.get_coordinates(data.geometries)
    names = [c for c, _ in data.columns]
    assert data.arrays is not None    # the track is a layer read in bulk (export._track_layer)
    t = [v for v in data.arrays[names.index("t_utc")] if v is not None]
    geom = shapely.LineString(xy) if len(xy) >= 2 else None
    return _LayerData(data.name, "LineString", [geom],
                      [("name", "str"), ("fixes", "int"), ("first_utc", "str"), ("last_utc", "str")],
                      [["GNSS track", len(xy), min(t) if t else None, max(t) if t else None]])


def _is_write_error(exc: Exception) -> bool:
    """GDAL (pyogrio) or ezdxf failing to write: a full disk or an unwritable place shows so."""
    mod = type(exc).__module__ or ""
    return mod.startswith(("pyogrio", "ezdxf"))


#: GDAL's GeoJSON layer options: RFC 7946 (no ``crs`` member, exterior rings counter-clockwise
#: and holes clockwise, antimeridian cut), 9 decimals of a degree (0.1 mm).
GEOJSON_OPTIONS = {"RFC7946": "YES", "COORDINATE_PRECISION": "9"}
#: A Shapefile (dBASE) text field holds at most 254 bytes.
SHP_TEXT_BYTES = 254
LONG_VALUES_FILE = "long_values.csv"
FIELD_NAMES_FILE = "field_names.csv"


def _shp_long_values(data: _LayerData, long_rows: list[list[str]]) -> _LayerData:
    """The layer with every text value over 254 bytes cut and marked; the whole values go to
    ``long_rows`` (layer, uuid, field, value) for :data:`LONG_VALUES_FILE`."""
    mark = f" … (whole text in {LONG_VALUES_FILE})"
    if data.arrays is not None and not any(   # a bulk layer: at most 4 bytes a character
            kind == "str" and max(map(len, filter(None, data.arrays[j])), default=0) * 4 > SHP_TEXT_BYTES
            and any(v is not None and len(str(v).encode("utf-8")) > SHP_TEXT_BYTES for v in data.arrays[j])
            for j, (_, kind) in enumerate(data.columns)):
        return data
    rows = []
    for row in data.rows:
        new = list(row)
        for j, (name, kind) in enumerate(data.columns):
            v = row[j]
            if kind == "str" and v is not None and len(str(v).encode("utf-8")) > SHP_TEXT_BYTES:
                long_rows.append([data.name, str(row[1]), name, str(v)])
                keep = SHP_TEXT_BYTES - len(mark.encode("utf-8"))
                new[j] = str(v).encode("utf-8")[:keep].decode("utf-8", "ignore") + mark
        rows.append(new)
    return _LayerData(data.name, data.geometry_type, data.geometries, data.columns, rows)


def _write_csv(path: Path, header: list[str], rows: list[list[Any]]) -> None:
    import csv

    with open(path, "w", newline="", encoding=TEXT_ENCODING) as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)
        fh.flush()
        os.fsync(fh.fileno())


def _disk_full(path: Path) -> bool:
    """Less than 64 KiB left where ``path`` is (GDAL's Shapefile and CSV writers do not report
    a failed write; the count read back and this say why). ``shutil.disk_usage``: Windows has
    no ``os.statvfs`` (a full disk was never told there)."""
    try:
        return shutil.disk_usage(path).free < 64 * 1024
    except OSError:
        return False


#: a file at most this big is also read back and counted (cheap); a bigger one is proved whole
#: by its end and its last feature (GDAL would parse a day's 143 MB GeoJSON to count it)
COUNT_BYTES = 4 * 1024 * 1024
#: how GDAL's GeoJSON and KML writers end a file (RFC 7946 FeatureCollection; the KML document)
_ENDINGS = {"geojson": re.compile(rb"\n\]\r?\n\}\r?\n\Z"), "kml": re.compile(rb"</kml>\r?\n\Z")}
#: a dBASE file's last byte (end of file)
_DBF_END = b"\x1a"


def _same(want: Any, got: Any, kind: str) -> bool:
    """Whether a value read back is the one written (an empty text and a null are alike)."""
    if want is None or (kind == "str" and want == ""):
        return got is None or got == "" or (isinstance(got, float) and got != got)
    if got is None or (isinstance(got, float) and got != got):
        return False
    if kind == "str":
        return str(got) == str(want)
    return bool(np.isclose(float(got), float(want), rtol=1e-9, atol=1e-12))


def _last_feature_whole(path: Path, data: _LayerData, layer: str) -> str | None:
    """Read the layer's last feature back (a Shapefile reads it at its offset) and compare it
    with what was written: None when whole, else why not."""
    from pyogrio.raw import read

    n = len(data.rows)
    if n == 0:
        return None
    try:
        meta, _, geoms, values = read(str(path), layer=layer, skip_features=n - 1, max_features=1,
                                      encoding=TEXT_ENCODING)
    except Exception as exc:  # noqa: BLE001 - pyogrio: the file is unreadable (cut short)
        return str(exc)
    if geoms is None or len(geoms) != 1:
        return f"fewer than {n} features were written"
    row, names = data.rows[n - 1], list(meta["fields"])
    g = data.geometries[n - 1]
    if (geoms[0] is None) != (g is None or g.is_empty):
        return f"the last feature's geometry of {n} was not written"
    for j, (name, kind) in enumerate(data.columns):
        k = names.index(name) if name in names else j   # a Shapefile's cut names keep their place
        if not _same(row[j], values[k][0], kind):
            return f"the last of {n} features was cut short ({name})"
    return None


CSV_OPTIONS = {"GEOMETRY": "AS_WKT", "CREATE_CSVT": "YES"}


def csv_geometry_column(geometry_type: str, crs: str) -> str:
    """The name of a CSV layer's WKT column, which tells GDAL its CRS and geometry type:
    ``_WKT_EPSG_4326_POINT``, ``_WKT_EPSG_4326_LINESTRING``, ``_WKT_EPSG_4326_MULTIPOLYGON``.

    GDAL's CSV driver opens a folder as one data source only when its ``.csv`` files outnumber
    every other entry (``.csvt`` files aside; GDAL 3.6, QGIS LTR and Debian 12, counts a
    ``.prj`` too): a ``.prj`` per layer beside the manifest and ``photos/`` made the export
    folder "not a CSV data source" there. A WKT column named ``_WKT…_EPSG_<code>_<TYPE>`` is
    read by every GDAL since 1.11 as a geometry of that type in that CRS (ogrcsvlayer.cpp), so
    the folder needs no ``.prj`` and ``ogrinfo`` lists each layer with its geometry type and CRS
    on GDAL 3.6 and on the newest. ``crs`` is ``"EPSG:<code>"`` (ValueError otherwise)."""
    auth, _, code = crs.partition(":")
    if auth.upper() != "EPSG" or not code.isdigit():
        raise ValueError(f"a CSV layer's CRS must be an EPSG code, not {crs!r}")
    return f"_WKT_EPSG_{code}_{geometry_type.upper()}"


def _csvt_geometry_as_text(csvt: Path) -> None:
    """Type the WKT column ``String`` in the ``.csvt`` GDAL wrote (it writes ``WKT``): a column
    typed ``WKT`` there is read as a geometry without CRS or type, whatever its name says; typed
    ``String``, its name gives both (:func:`csv_geometry_column`). No ``.csvt``: nothing to do."""
    try:
        text = csvt.read_text(encoding="ascii")
    except FileNotFoundError:
        return
    end = "\r\n" if text.endswith("\r\n") else "\n" if text.endswith("\n") else ""
    types = ["String" if t == "WKT" else t for t in text[:len(text) - len(end)].split(",")]
    with open(csvt, "w", encoding="ascii", newline="") as fh:
        fh.write(",".join(types) + end)
        fh.flush()
        os.fsync(fh.fileno())
#: The CSV's WKT to the GeoJSON's precision: both are WGS 84 lon/lat degrees, and 9 decimals of
#: a degree is 0.1 mm. GDAL's CSV driver has no COORDINATE_PRECISION layer option (its own
#: option list: SEPARATOR, LINEFORMAT, GEOMETRY, CREATE_CSVT, HEADER, WRITE_BOM, GEOMETRY_NAME,
#: STRING_QUOTING; it honours a geometry field's coordinate precision, GDAL RFC 99, which
#: pyogrio cannot set), so the coordinates are put on GEOS's 1e-9 degree grid (pointwise: no
#: vertex moves more than half of it, none is dropped) and GDAL writes them as it always does
#: (15 significant digits, trailing zeros dropped): "POINT (-89.99987421 44.500007388)".
CSV_GRID_DEG = 10.0 ** -int(GEOJSON_OPTIONS["COORDINATE_PRECISION"])


def _on_csv_grid(transform: Transform) -> Callable[[Any], Any]:
    """``transform`` (site CRS -> WGS 84; None: none), then each coordinate to
    :data:`CSV_GRID_DEG` (every CSV :func:`_write_ogr` writes, its last-record proof too)."""
    def to_grid(g: Any) -> Any:
        return shapely.set_precision(transform(g) if transform else g, CSV_GRID_DEG,
                                     mode="pointwise")
    return to_grid


def _csv_ends_whole(path: Path, data: _LayerData, transform: Transform) -> None:
    """A CSV file ends with its last record whole, its ``.csvt`` whole: GDAL
    writes the last row alone into a scratch file beside it, whose record must be the file's
    last bytes and whose sidecars must be the same bytes (cheap: a day's 67 MB track CSV is not
    parsed again). :class:`ExportWriteFailed` when not."""
    n = len(data.rows)
    if n == 0:
        return
    g = data.geometries[n - 1]
    last = _LayerData(data.name, data.geometry_type, [g], data.columns, [list(data.rows[n - 1])])
    scratch = path.with_name(f".last.{path.name}")
    try:
        _write_ogr(last, scratch, "CSV", "EPSG:4326", transform, layer_options=CSV_OPTIONS)
        one = scratch.read_bytes()
        record = one[one.index(b"\n") + 1:]
        size = path.stat().st_size
        with open(path, "rb") as fh:
            fh.seek(max(0, size - len(record)))
            whole = size > len(record) and fh.read() == record
        for ext in (".csvt",):
            mine = scratch.with_suffix(ext)
            if mine.exists():
                whole = whole and path.with_suffix(ext).read_bytes() == mine.read_bytes()
    except (OSError, ValueError) as exc:
        whole = False
        if not isinstance(exc, ValueError):
            raise
    finally:
        for ext in (".csv", ".csvt", ".prj"):
            scratch.with_suffix(ext).unlink(missing_ok=True)
    if not whole:
        why = ("the disk is full (no space left on the device)" if _disk_full(path.parent)
               else "the file was cut short")
        raise ExportWriteFailed(f"{data.name} could not be written to {path.name}: {why}")


def _check_written(path: Path, data: _LayerData, fmt: str, layer: str | None = None) -> None:
    """Prove the layer's file whole (:class:`ExportWriteFailed` when not: a full disk).

    GDAL reports a failed write while it writes features, but not when the last buffer fails
    as the file is closed: the disk filling just then leaves the file cut short, the write
    returning as if done (tested with a file-size limit, GDAL 3.12). So a GeoJSON or KML file
    must end as its writer ends it; a CSV file must end with a line end (and its last record,
    :func:`_csv_ends_whole`, called by the writer); a Shapefile's .dbf must end with its end
    mark and its last feature read back as written; and a file up to :data:`COUNT_BYTES` is also
    counted (a cut-short file counted short or unreadable)."""
    from pyogrio import read_info

    layer = layer or data.name
    why = None
    try:
        size = path.stat().st_size
        with open(path, "rb") as fh:
            fh.seek(max(0, size - 256))
            tail = fh.read()
    except OSError as exc:
        size, tail, why = 0, b"", str(exc)
    if why is None and fmt in _ENDINGS and not _ENDINGS[fmt].search(tail):
        why = "the file was cut short"
    if why is None and fmt == "csv" and not tail.endswith(b"\n"):
        why = "the file was cut short"
    if why is None and fmt == "shp":
        try:
            with open(path.with_suffix(".dbf"), "rb") as fh:
                fh.seek(-1, os.SEEK_END)
                whole = fh.read(1) == _DBF_END
        except OSError:
            whole = False
        why = None if whole else "its .dbf was cut short"
    if why is None and fmt == "shp":
        why = _last_feature_whole(path, data, layer)
    if why is None and (size <= COUNT_BYTES or fmt == "shp"):   # a Shapefile's count is its header's
        try:
            n = read_info(str(path), layer=layer, encoding=TEXT_ENCODING)["features"]
        except Exception as exc:  # noqa: BLE001 - pyogrio: the file is unreadable (empty, cut short)
            n, why = None, str(exc)
        if n is not None and n != len(data.rows):
            why = f"{n} of {len(data.rows)} features were written"
    if why is not None:
        if _disk_full(path.parent if path.is_file() else path):
            why = "the disk is full (no space left on the device)"
        raise ExportWriteFailed(f"{data.name} could not be written to {path.name}: {why}")


def _kml_write_order(data: _LayerData) -> tuple[bool, int]:
    """Where a layer is written in the KML (:func:`_write_layers`): the track last, the others
    fewest features first."""
    return data.arrays is not None, len(data.rows)


def _write_layers(layers: list[_LayerData], target: Path, fmt: str, frame: SiteFrame, site_crs: str,
                  counts: dict[str, int], step: Callable[[float, str], None],
                  notes: list[str] | None = None, title: DxfTitle | None = None) -> None:
    """Write ``layers`` to ``target`` (the temporary file or folder) in ``fmt``: one DXF, or
    GDAL layer by layer (WGS 84 lon/lat for geojson, kml and csv, the site CRS for shp), each
    read back to check its count (:class:`ExportWriteFailed` when short: a full disk);
    ``counts`` gets the features written per layer, ``notes`` what the user must be told;
    ``title`` the site, visit date and crew for the DXF's title block."""
    if fmt == "dxf":
        _dxf(layers, target, frame, counts, title)
        return

    def to_wgs84(g: Any) -> Any:
        return shapely.transform(g, lambda xy: np.column_stack(frame.to_lonlat(xy[:, 0], xy[:, 1])))

    long_rows: list[list[str]] = []
    field_rows: list[list[str]] = []
    order = list(range(len(layers)))
    kml_order: list[str] = []
    if fmt == "kml":
        # the file's layers: the visit's order, the track's long path last (add_styles puts
        # them so); written smallest first: each layer added re-reads the file (GDAL's LIBKML),
        # and a day's 4,000 trees read again for each of the six layers after them took 0.6 s
        order.sort(key=lambda i: layers[i].arrays is not None)
        kml_order = [layers[i].name for i in order]
        order.sort(key=lambda i: _kml_write_order(layers[i]))
    for n_done, i in enumerate(order):
        data = layers[i]
        step(0.1 + 0.8 * n_done / max(len(layers), 1), data.name)
        if fmt == "geojson":
            path = target / f"{data.name}.geojson"
            _write_ogr(data, path, "GeoJSON", "EPSG:4326", to_wgs84, layer_options=GEOJSON_OPTIONS)
        elif fmt == "kml":
            from pyogrio import list_drivers

            if data.arrays is not None:
                data = layers[i] = _track_path(data)
                for j in order[:n_done]:     # the file before the track: small, counted quickly
                    _check_written(target, layers[j], "kml")
            driver = "LIBKML" if "LIBKML" in list_drivers(write=True) else "KML"
            _write_ogr(data, target, driver, "EPSG:4326", to_wgs84, append=n_done > 0)
            path = None
        elif fmt == "gpkg":     # one GeoPackage, a layer each, in the site CRS (QGIS styles below)
            _write_ogr(data, target, "GPKG", site_crs, None, append=n_done > 0)
            path = None
        elif fmt == "shp":
            from pyogrio import read_info

            path = target / f"{data.name}.shp"
            data = _shp_long_values(data, long_rows)
            _write_ogr(data, path, "ESRI Shapefile", site_crs, None)
            short = list(read_info(str(path), encoding=TEXT_ENCODING)["fields"]) if path.exists() else []
            # no file (nothing written): no names to pair, strict=False
            field_rows += [[data.name, a, b] for a, (b, _) in zip(short, data.columns, strict=False)]
        else:
            path = target / f"{data.name}.csv"
            _write_ogr(data, path, "CSV", "EPSG:4326", to_wgs84, layer_options=CSV_OPTIONS)
            _csv_ends_whole(path, data, to_wgs84)
        if path is not None:
            _check_written(path, data, fmt)
    for data in layers:   # in the visit's order, whichever order they were written in
        counts[data.name] = len(data.rows)
    if fmt == "gpkg":
        from .qgisstyle import write_layer_styles

        write_layer_styles(target, layers)     # QGIS opens each layer styled (layer_styles)
        for data in layers:
            _check_written(target, data, "gpkg")
    if fmt == "kml":
        from .kmlstyle import add_styles

        add_styles(target, layers, kml_order)    # placemarks styled by kind and status (Google Earth)
        for data in layers:
            _check_written(target, data, "kml")
    if fmt == "shp":
        # dBASE names are 10 characters: the map says which full name (and unit) each one is
        _write_csv(target / FIELD_NAMES_FILE, ["layer", "shapefile_field", "field"], field_rows)
        if long_rows:
            _write_csv(target / LONG_VALUES_FILE, ["layer", "uuid", "field", "value"], long_rows)
            if notes is not None:
                notes.append(f"{len(long_rows)} text value(s) longer than a Shapefile field holds "
                             f"({SHP_TEXT_BYTES} bytes) are written whole in {LONG_VALUES_FILE}; "
                             "the .dbf holds their start, marked")

