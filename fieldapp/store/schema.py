"""The visit GeoPackage schema: tables, columns and the GeoPackage geometry encoding.

Columns are derived from the feature dataclasses of :mod:`fieldapp.survey.features` so the model
and the file cannot drift apart. Every feature table has::

    fid          INTEGER PRIMARY KEY AUTOINCREMENT
    uuid         TEXT NOT NULL UNIQUE        -- the model's id; children refer to parents by it
    created_utc  DATETIME NOT NULL           -- ISO 8601 UTC with Z, milliseconds
    modified_utc DATETIME NOT NULL
    created_by   TEXT NOT NULL               -- user@laptop
    geom         <type>                      -- feature tables only, in the site CRS

Geometry (GeoPackage 1.4 §2.1.3 "GeoPackageBinary"): ``GP``, version 0, flags (little endian,
envelope [minx, maxx, miny, maxy] except for points, empty bit), int32 srs_id, envelope, then
ISO WKB from shapely.
"""

from __future__ import annotations

import enum
import json
import re
import struct
import typing
from collections.abc import Sequence
from dataclasses import fields
from datetime import UTC, date, datetime

import numpy as np
import shapely
import shapely.errors
from shapely.geometry import MultiPolygon, Point, Polygon
from shapely.geometry.base import BaseGeometry

from ..survey import features as F
from ..survey.features import Layer

SCHEMA_VERSION = 9
#: Columns each schema version added to a table of the version before, in the order added
#: (``ALTER TABLE ... ADD COLUMN`` appends, so these are the last fields of their dataclasses
#: and a migrated table has the same columns, in the same order, as a new one -- which the
#: sync's schema comparison needs). Every added column is nullable or has a DEFAULT, so the
#: rows already in the file get the model's default.
#:
#: - 2: ``transect.stipulated`` (NR 341.035(2)(c); default 0) and ``line_feature.mapped_stream``
#:   (Drainageways A.1; NULL = not checked yet).
#: - 3: ``correction_age_s`` and ``correction_mount`` (the RTK corrections: age in seconds and
#:   NTRIP mountpoint) of every averaged OHWM point, walk vertex and transect (station origin);
#:   NULL = no corrections or an older file. ``site.declination_source`` (WMM model or "entered";
#:   NULL = not set) and ``station.azimuth_mag_deg``, ``station.declination_deg`` (each shot's
#:   magnetic azimuth and the declination applied to it; NULL for typed stations and older files).
#:   ``area_feature.retained_area_ac`` (a woodland stand's planned retained area, acres;
#:   NULL = not given) and ``area_feature.tally_complete`` (default 0: verdicts provisional).
#: - 7: ``site.antenna_height_unit`` (the unit the antenna height was entered in; NULL = metres);
#:   ``ohwm_point.azimuth_mag_deg`` / ``declination_deg`` (an offset shot's measured magnetic
#:   azimuth and the declination applied; NULL = typed true, or an older file).
#: - 8: ``site.zoning_district`` and ``site.land_use`` (the city chapter's scope, General A, and
#:   Erosion control F; NULL = not entered) and ``line_feature.tributary_stations`` (tributary
#:   area at stations down a swale, ``"ft:ac; ..."``, Drainageways A.2; NULL = not given).
#: - 9: ``site.infill_area_ac``, ``site.infill_within_development`` (NR 151.125(4)(b): the
#:   in-fill development area, acres, and whether it is within existing development; NULL = not
#:   given) and ``area_feature.fill``, ``area_feature.fill_permit`` (NR 151.125(1)(h): a
#:   wetland's complete or partial fill and its permit reference; NULL = not filled).
ADDED_COLUMNS: dict[int, tuple[tuple[Layer, str], ...]] = {
    2: ((Layer.TRANSECT, "stipulated"), (Layer.LINE, "mapped_stream")),
    3: tuple((layer, name) for layer in (Layer.OHWM_POINT, Layer.TRANSECT, Layer.WALK_VERTEX)
             for name in ("correction_age_s", "correction_mount"))
       + ((Layer.SITE, "declination_source"), (Layer.STATION, "azimuth_mag_deg"),
          (Layer.STATION, "declination_deg"),
          (Layer.AREA, "retained_area_ac"), (Layer.AREA, "tally_complete")),
    7: ((Layer.SITE, "antenna_height_unit"), (Layer.OHWM_POINT, "azimuth_mag_deg"),
        (Layer.OHWM_POINT, "declination_deg")),
    8: ((Layer.SITE, "zoning_district"), (Layer.SITE, "land_use"), (Layer.LINE, "tributary_stations")),
    9: ((Layer.SITE, "infill_area_ac"), (Layer.SITE, "infill_within_development"),
        (Layer.AREA, "fill"), (Layer.AREA, "fill_permit")),
}
#: Tables each schema version added (created by the migration with their GeoPackage
#: ``gpkg_contents`` / ``gpkg_geometry_columns`` rows, in the site's srs_id).
#:
#: - 3: ``stake_point`` (stake-out flags: target, signed offset, fix quality).
#: - 4: ``photo`` (the OGC Related Tables Extension's media table; with it the extension's
#:   ``gpkgext_relations`` and one mapping view per record table, :mod:`fieldapp.store.media`).
#: - 5: ``device_reading`` (the raw sentences of each caliper reading and rangefinder shot that
#:   became a tree or a station; ``tree.caliper_reading_id`` / ``station.reading_id`` name them).
#: - 6: ``data_point`` (wetland determination data points: role, pair, region, the data form as
#:   JSON and its determination as 0/1 columns; :class:`fieldapp.survey.features.DataPoint`).
#: - 7: ``antenna_height`` (each antenna height of the visit with the time it was set).
ADDED_TABLES: dict[int, tuple[Layer, ...]] = {
    3: (Layer.STAKE_POINT,),
    4: (Layer.PHOTO,),
    5: (Layer.DEVICE_READING,),
    6: (Layer.DATA_POINT,),
    7: (Layer.ANTENNA_HEIGHT,),
}
#: SQL DEFAULT of the added NOT NULL columns (a new table declares it too, so both agree).
COLUMN_DEFAULTS = {(Layer.TRANSECT, "stipulated"): "0", (Layer.AREA, "tally_complete"): "0",
                   (Layer.STAKE_POINT, "superseded"): "0"}
APPLICATION_ID = 0x47504B47  # "GPKG", GeoPackage 1.2+ §1.1.1.1.1
GPKG_USER_VERSION = 10400  # GeoPackage 1.4.0
META_TABLE = "fieldapp_meta"
COMMON = ("uuid", "created_utc", "modified_utc", "created_by")

# Per layer: geometry type name, how the model holds it ("xy": x/y fields; "geometry": a field),
# and whether it is a GeoPackage "features" or "attributes" table.
GEOMETRY = {
    Layer.OHWM_LINE: ("LINESTRING", "geometry"),
    Layer.OHWM_POINT: ("POINT", "xy"),
    Layer.TRANSECT: ("LINESTRING", "geometry"),
    Layer.STATION: ("POINT", "xy"),
    Layer.TREE: ("POINT", "xy"),
    Layer.AREA: ("MULTIPOLYGON", "geometry"),
    Layer.LINE: ("LINESTRING", "geometry"),
    Layer.WALK_VERTEX: ("POINT", "xy"),
    Layer.TRACK: ("POINT", "xy"),
    Layer.NOTE: ("POINT", "xy"),
    Layer.STAKE_POINT: ("POINT", "xy"),
    Layer.DATA_POINT: ("POINT", "xy"),
}
DESCRIPTIONS = {
    Layer.SITE: "Site of the visit (one row)",
    Layer.OHWM_LINE: "Ordinary high-water mark lines",
    Layer.OHWM_POINT: "OHWM points: averaged GNSS or offset shots, with GNSS metadata",
    Layer.TRANSECT: "Bank transects from the OHWM (line to the last station)",
    Layer.STATION: "Transect stations (segment length ft, slope pct); transect_uuid -> transect",
    Layer.TREE: "Tree tally (DBH in, crown radius ft; crown_wkb = drawn crown polygon WKB)",
    Layer.AREA: "Polygons by kind: wetland, woodland stand, grove, impervious, ...",
    Layer.LINE: "Lines by kind: drainageway centreline, swale, utility trench, drive edge",
    Layer.WALK: "Walked boundaries and their state",
    Layer.WALK_VERTEX: "Vertices of walked boundaries as taken; walk_uuid -> walk",
    Layer.TRACK: "Raw GNSS track: every usable fix while recording",
    Layer.NOTE: "Free notes",
    Layer.STAKE_POINT: "Stake-out flags: target, signed offset ft, fix quality; superseded = target moved",
    Layer.PHOTO: "Photos (Related Tables media): image, time, direction; record_table/record_uuid = the record shown",
    Layer.DEVICE_READING: "Instrument sentences as received (raw bytes, receive time UTC) behind a tree"
                          " (tree.caliper_reading_id) or a station (station.reading_id)",
    Layer.DATA_POINT: "Wetland determination data points: role (wetland/upland), pair_uuid, boundary_uuid,"
                      " region, form_json (the data form), determination 0/1 (NULL = not decided)",
    Layer.ANTENNA_HEIGHT: "Antenna heights of the visit: height m, unit entered, from created_utc on",
}
# Model fields not stored as columns (they live in geom) and renamed columns.
CROWN_COLUMN = "crown_wkb"


def _base_type(tp: object) -> tuple[object, bool]:
    """(python type, nullable) from a field annotation."""
    args = typing.get_args(tp)
    if args and type(None) in args:
        inner = [a for a in args if a is not type(None)]
        return inner[0], True
    return tp, False


def _sql_type(tp: object) -> str:
    if tp is bytes:
        return "BLOB"
    if tp is bool:
        return "BOOLEAN"
    if tp is int:
        return "INTEGER"
    if tp is float:
        return "REAL"
    if tp is datetime:
        return "DATETIME"
    if tp is date:
        return "DATE"
    return "TEXT"


class Column(typing.NamedTuple):
    name: str  # column name
    field: str  # model field
    pytype: object
    sql: str
    nullable: bool


def columns(layer: Layer) -> list[Column]:
    """Non-geometry columns of a layer, beyond ``fid`` and the common ones."""
    cls = F.FEATURE_CLASSES[layer]
    hints = typing.get_type_hints(cls)
    gkind = GEOMETRY.get(layer, (None, None))[1]
    out = []
    for f in fields(cls):
        if f.name in COMMON:
            continue
        if gkind == "xy" and f.name in ("x", "y"):
            continue
        if gkind == "geometry" and f.name == "geometry":
            continue
        tp, nullable = _base_type(hints[f.name])
        if f.name == "crown":
            out.append(Column(CROWN_COLUMN, "crown", "wkb", "BLOB", True))
            continue
        nullable = nullable or f.default is None
        out.append(Column(f.name, f.name, tp, _sql_type(tp), nullable))
    return out


def column_sql(layer: Layer, c: Column) -> str:
    """The column definition of ``c`` in ``layer`` (the same in CREATE TABLE and in a migration)."""
    sql = f'"{c.name}" {c.sql}' + ("" if c.nullable else " NOT NULL")
    default = COLUMN_DEFAULTS.get((layer, c.name))
    return sql + (f" DEFAULT {default}" if default is not None else "")


def added_after(version: int) -> set[tuple[Layer, str]]:
    """(layer, column) pairs a file of schema ``version`` lacks (added by later versions)."""
    return {pair for v, pairs in ADDED_COLUMNS.items() if v > version for pair in pairs}


def tables_added_after(version: int) -> set[Layer]:
    """Layers whose table a file of schema ``version`` lacks (added by later versions)."""
    return {layer for v, layers in ADDED_TABLES.items() if v > version for layer in layers}


def _add_table_sql(layer: Layer) -> list[str]:
    """CREATE TABLE of ``layer`` with its gpkg_contents (and geometry column) rows, the srs_id
    taken from the file's track table (every feature table of a visit has the site's)."""
    srs = "(SELECT srs_id FROM gpkg_geometry_columns WHERE table_name = 'track_point')"
    now = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
    spatial = layer in GEOMETRY
    desc = DESCRIPTIONS[layer].replace("'", "''")
    out = create_table_sql(layer)
    out.append("INSERT INTO gpkg_contents (table_name, data_type, identifier, description,"
               f" last_change, srs_id) VALUES ('{layer.value}', "
               f"'{'features' if spatial else 'attributes'}', '{layer.value}', '{desc}', {now}, "
               f"{srs if spatial else 'NULL'})")
    if spatial:
        out.append("INSERT INTO gpkg_geometry_columns (table_name, column_name, geometry_type_name,"
                   f" srs_id, z, m) VALUES ('{layer.value}', 'geom', '{GEOMETRY[layer][0]}', {srs}, 0, 0)")
    return out


def migration_sql(from_version: int) -> list[str]:
    """The statements that bring a visit's tables from schema ``from_version`` to
    :data:`SCHEMA_VERSION` (``ALTER TABLE ... ADD COLUMN`` and, from schema 3 on, the new
    tables of :data:`ADDED_TABLES` with their GeoPackage rows; in version order).

    Only the tables: the caller runs them in one transaction and sets ``schema_version`` in
    :data:`META_TABLE` (``fieldapp.store.gpkg`` does so when a file is opened for recording).
    Usable on any copy of a visit (the sync's base copy or an office master).
    """
    out = []
    for v in sorted(set(ADDED_COLUMNS) | set(ADDED_TABLES)):
        if v <= from_version:
            continue
        for layer, name in ADDED_COLUMNS.get(v, ()):
            col = next(c for c in columns(layer) if c.name == name)
            out.append(f'ALTER TABLE "{layer.value}" ADD COLUMN {column_sql(layer, col)}')
        for layer in ADDED_TABLES.get(v, ()):
            out.extend(_add_table_sql(layer))
        if v == 4:
            from . import media
            out.extend(media.related_tables_sql())
    return out


def create_table_sql(layer: Layer) -> list[str]:
    name = layer.value
    cols = [
        "fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL",
        "uuid TEXT NOT NULL UNIQUE",
        "created_utc DATETIME NOT NULL",
        "modified_utc DATETIME NOT NULL",
        "created_by TEXT NOT NULL",
    ]
    if layer in GEOMETRY:
        cols.append(f"geom {GEOMETRY[layer][0]}")
    for c in columns(layer):
        cols.append(column_sql(layer, c))
    sql = [f'CREATE TABLE "{name}" ({", ".join(cols)})']
    parent = {Layer.OHWM_POINT: "line_uuid", Layer.STATION: "transect_uuid",
              Layer.WALK_VERTEX: "walk_uuid"}.get(layer)
    if parent:
        sql.append(f'CREATE INDEX "{name}_{parent}" ON "{name}" ("{parent}")')
    return sql


# -------------------------------------------------------------------- values
def utc_text(dt: datetime) -> str:
    """ISO 8601 UTC with Z and milliseconds, always the same 24 characters:
    ``2024-05-01T14:03:07.250Z`` (the year zero-padded to four digits, ``0999-01-01T...``: a
    photo's EXIF date can be any year, and ``strftime("%Y")`` writes year 999 as "999" on
    Linux, text :func:`parse_utc` could not read back). ValueError for a naive datetime."""
    if dt.tzinfo is None:
        raise ValueError(f"naive datetime {dt!r}: times must be timezone-aware UTC")
    return dt.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="milliseconds") + "Z"


#: The unpadded year (1 to 3 digits) fieldapp wrote before :func:`utc_text` padded it: read back.
_SHORT_YEAR = re.compile(r"(\d{1,3})-(\d\d-\d\dT.*)\Z", re.ASCII)


def parse_utc(text: object) -> datetime:
    """``2024-05-01T14:03:07.250Z`` → tz-aware UTC datetime; ValueError for anything else.

    Also reads the unpadded year earlier versions wrote for a year below 1000
    (``999-01-01T00:00:00.000Z``), so a visit holding one opens again."""
    if not isinstance(text, str) or not text.endswith("Z"):
        raise ValueError(f"timestamp {_short(text)} is not ISO 8601 UTC text with Z")
    body = text[:-1]
    short = _SHORT_YEAR.match(body)
    if short:
        body = f"{int(short.group(1)):04d}-{short.group(2)}"
    try:
        return datetime.fromisoformat(body).replace(tzinfo=UTC)
    except ValueError as exc:
        raise ValueError(f"timestamp {_short(text)} is not a time ({exc}; ISO 8601 UTC is"
                         " e.g. 2024-05-01T14:03:07.250Z)") from None


def _json_default(o: object) -> object:
    if isinstance(o, enum.Enum):
        return o.value
    if isinstance(o, F.WaterFeature):
        out: dict[str, object] = {"name": o.name, "type": o.type, "susceptibility": o.susceptibility,
                                  "wetland_type": o.wetland_type}
        # (1)(b) map, only once checked: a file without it reads as before
        out.update({k: v for k, v in (("mapped_on", o.mapped_on), ("map_name", o.map_name),
                                      ("drainage_area_ac", o.drainage_area_ac)) if v is not None})
        return out
    raise TypeError(type(o))


def to_sql(col: Column, value: object) -> object:
    """A model value → what its column stores (None, a number, text, or WKB bytes)."""
    if value is None:
        return None
    if col.pytype == "wkb":
        geom = typing.cast(BaseGeometry, value)     # a "wkb" column holds a model geometry (a crown)
        return shapely.to_wkb(geom, byte_order=1, flavor="iso")
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, datetime):
        return utc_text(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, tuple):
        return json.dumps(value, default=_json_default)
    return value


def from_sql(col: Column, value: object) -> object:
    """A stored value → the model's type, strictly (ValueError naming what is wrong).

    SQLite keeps whatever a writer put in a column (QGIS, a script, a damaged sync), so nothing
    is coerced: a BOOLEAN must be 0 or 1 (never the text "no"), a REAL a number (never text),
    an INTEGER a whole number, TEXT text, a time ISO 8601 UTC with Z, an enum one of its values.
    """
    if value is None:
        return None
    tp = col.pytype
    if tp == "wkb":
        if not isinstance(value, bytes):
            raise ValueError(f"{_short(value)} is not a WKB geometry blob")
        try:
            return shapely.from_wkb(value)
        except shapely.errors.ShapelyError as exc:
            raise ValueError(f"unreadable WKB geometry ({exc})") from exc
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        try:
            return tp(value)
        except ValueError:
            raise ValueError(f"{_short(value)} is not one of {[m.value for m in tp]}") from None
    if tp is bool:
        if type(value) is int and value in (0, 1):
            return bool(value)
        raise ValueError(f"{_short(value)} is not a yes/no (0 or 1)")
    if tp is datetime:
        return parse_utc(value)
    if tp is date:
        if not isinstance(value, str):
            raise ValueError(f"{_short(value)} is not an ISO 8601 date")
        return date.fromisoformat(value)
    if tp is float:
        if isinstance(value, (int, float)):
            return float(value)
        raise ValueError(f"{_short(value)} is not a number")
    if tp is int:
        if isinstance(value, int):
            return value
        raise ValueError(f"{_short(value)} is not a whole number")
    if tp is bytes:
        if isinstance(value, bytes):
            return value
        raise ValueError(f"{_short(value)} is not a BLOB")
    if not isinstance(value, str):
        raise ValueError(f"{_short(value)} is not text")
    if col.field in ("crew", "device_ids", "water_features"):
        try:
            items = json.loads(value)
            if not isinstance(items, list):
                raise TypeError("not a list")
            if col.field == "crew":
                return tuple(items)
            if col.field == "device_ids":
                return tuple(tuple(p) for p in items)
            return tuple(
                F.WaterFeature(
                    name=w["name"], type=F.WaterFeatureType(w["type"]),
                    susceptibility=None if w.get("susceptibility") is None else F.Susceptibility(w["susceptibility"]),
                    wetland_type=w.get("wetland_type"),
                    mapped_on=w.get("mapped_on"), map_name=w.get("map_name"),
                    drainage_area_ac=None if w.get("drainage_area_ac") is None else float(w["drainage_area_ac"]),
                )
                for w in items
            )
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise ValueError(f"{_short(value)} is not a valid {col.field} list ({exc})") from None
    return value


def _short(value: object) -> str:
    """repr of a stored value, cut to 60 characters for messages."""
    r = repr(value)
    return r if len(r) <= 60 else r[:57] + "..."


# -------------------------------------------------------------------- GeoPackage geometry
_ENVELOPE_BYTES = {0: 0, 1: 32, 2: 48, 3: 48, 4: 64}


def gpkg_blob(geom: BaseGeometry | None, srs_id: int) -> bytes | None:
    """shapely geometry → GeoPackageBinary (little endian; envelope except for points)."""
    if geom is None:
        return None
    if geom.is_empty:
        empty: bytes = shapely.to_wkb(geom, byte_order=1, flavor="iso")
        return struct.pack("<2sBBi", b"GP", 0, 0b00010001, srs_id) + empty
    wkb: bytes = shapely.to_wkb(geom, byte_order=1, flavor="iso", output_dimension=2)
    if geom.geom_type == "Point":
        return struct.pack("<2sBBi", b"GP", 0, 0b00000001, srs_id) + wkb
    minx, miny, maxx, maxy = geom.bounds
    return struct.pack("<2sBBi4d", b"GP", 0, 0b00000011, srs_id, minx, maxx, miny, maxy) + wkb


def parse_gpkg_blob(blob: object) -> BaseGeometry | None:
    """GeoPackageBinary → shapely geometry (None for NULL); ValueError when unreadable."""
    if blob is None:
        return None
    if not isinstance(blob, bytes):
        raise ValueError(f"{_short(blob)} is not a GeoPackage geometry blob")
    if blob[:2] != b"GP" or len(blob) < 8:
        raise ValueError("geometry blob lacks the GP magic")
    flags = blob[3]
    env = (flags >> 1) & 0b111
    if env not in _ENVELOPE_BYTES:
        raise ValueError(f"geometry blob has envelope indicator {env}")
    try:
        geom: BaseGeometry = shapely.from_wkb(bytes(blob[8 + _ENVELOPE_BYTES[env]:]))
        return geom
    except shapely.errors.ShapelyError as exc:
        raise ValueError(f"unreadable geometry ({exc})") from exc


def parse_gpkg_blobs(blobs: Sequence[object]) -> list[BaseGeometry | ValueError | None]:
    """:func:`parse_gpkg_blob` of each blob, the WKB of all of them read in one
    ``shapely.from_wkb`` call: per blob its geometry (None for NULL) or the ``ValueError``
    :func:`parse_gpkg_blob` raises for it (returned, not raised)."""
    out: list[BaseGeometry | ValueError | None] = [None] * len(blobs)
    wkbs: list[bytes] = []
    at: list[int] = []
    for i, blob in enumerate(blobs):
        if blob is None:
            continue
        if not isinstance(blob, bytes) or blob[:2] != b"GP" or len(blob) < 8 \
                or (blob[3] >> 1) & 0b111 not in _ENVELOPE_BYTES:
            try:
                out[i] = parse_gpkg_blob(blob)  # raises the ValueError that words it
            except ValueError as exc:
                out[i] = exc
            continue
        wkbs.append(blob[8 + _ENVELOPE_BYTES[(blob[3] >> 1) & 0b111]:])
        at.append(i)
    if wkbs:
        geoms = shapely.from_wkb(np.array(wkbs, dtype=object), on_invalid="ignore")
        for i, g in zip(at, geoms, strict=True):
            if g is None:      # unreadable: read by itself for the error's own words
                try:
                    out[i] = parse_gpkg_blob(blobs[i])
                except ValueError as exc:
                    out[i] = exc
            else:
                out[i] = g
    return out


class _PointRecord(typing.Protocol):
    x: float | None
    y: float | None


class _ShapeRecord(typing.Protocol):
    geometry: BaseGeometry | None


def geometry_of(layer: Layer, feature: F.Feature) -> BaseGeometry | None:
    """The geometry ``feature`` of ``layer`` is stored with (a point from x/y; an area as a
    MultiPolygon); None when it has none."""
    kind = GEOMETRY[layer][1]
    if kind == "xy":
        pt = typing.cast(_PointRecord, feature)     # GEOMETRY: this layer's records have x and y
        if pt.x is None or pt.y is None:
            return None
        return Point(pt.x, pt.y)
    geom = typing.cast(_ShapeRecord, feature).geometry  # GEOMETRY: its records have a geometry
    if geom is not None and layer is Layer.AREA and isinstance(geom, Polygon):
        geom = MultiPolygon([geom])
    return geom


def geometry_fields(layer: Layer, geom: BaseGeometry | None) -> dict[str, object]:
    """The model fields held in ``geom``; ValueError for the wrong geometry type."""
    gtype, kind = GEOMETRY[layer]
    if geom is not None and not geom.is_empty and geom.geom_type.upper() != gtype:
        raise ValueError(f"a {geom.geom_type} where the layer holds {gtype}")
    if kind == "xy":
        if geom is None or geom.is_empty or not isinstance(geom, Point):   # (a POINT: checked above)
            return {"x": None, "y": None}
        return {"x": geom.x, "y": geom.y}
    if layer is Layer.AREA and isinstance(geom, MultiPolygon) and len(geom.geoms) == 1:
        geom = geom.geoms[0]
    return {"geometry": geom}
