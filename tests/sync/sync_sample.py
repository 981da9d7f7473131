"""Generic GeoPackages of the visit store's shape, for the sync engine's tests (test_sync.py,
test_sync_validation.py): pygeodiff's merge, fid remapping, GDAL's R-tree triggers, a metadata
table, two independent visits of one site -- things a store visit cannot show or would refuse.
Those tests narrow the sync's visit check to :func:`fieldapp.sync.engine.check_visit_basics`;
the full check (the store's read, the ``validated.json`` record) is exercised on real store
visits in test_sync_store.py, test_sync_refusals.py, test_sync_visit_check.py,
test_sync_kill.py and bench/bench_sync.py.

Layers are created by GDAL (pyogrio), so the GeoPackage metadata, R-tree index and its
triggers are exactly what GDAL writes; rows are then edited with plain sqlite3 (the R-tree
triggers' ST_* functions registered by :mod:`fieldapp.sync.gpkgsql`), like a store would.

Shape: ``transect`` (LineString), ``station`` (Point, ``transect_uuid`` -> its transect),
``tree`` (Point); every feature table has ``fid INTEGER PRIMARY KEY AUTOINCREMENT`` (GDAL's),
``uuid`` unique, ``created_utc``, ``modified_utc``, ``created_by``; plus a ``metadata``
key/value attributes table (site id, schema version).
"""

from __future__ import annotations

import contextlib
import sqlite3
import struct
import uuid
from pathlib import Path

import numpy as np
import shapely
from pyogrio.raw import write

from fieldapp.sync import gpkgsql
from tests.gpkgtools import st_connect

SRS = "EPSG:32616"  # WGS 84 / UTM 16N
SRS_ID = 32616
COMMON = ["uuid", "created_utc", "modified_utc", "created_by"]
LAYERS = {
    "transect": ("LineString", COMMON + ["azimuth_deg", "note"]),
    "station": ("Point", COMMON + ["transect_uuid", "horizontal_ft", "slope_pct"]),
    "tree": ("Point", COMMON + ["dbh_in", "species_code", "status"]),
}
T0 = "2024-06-01T12:00:00.000Z"


def gpkg_blob(geom) -> bytes:
    """A GeoPackage geometry blob (GeoPackage 1.2 s. 2.1.3: 'GP', v0, little-endian, no envelope)."""
    return b"GP" + bytes([0, 0x01]) + struct.pack("<i", SRS_ID) + shapely.to_wkb(geom, byte_order=1)


def connect(path: Path) -> sqlite3.Connection:
    """sqlite3 connection able to fire GDAL's R-tree triggers."""
    conn = st_connect(path)
    gpkgsql.register(conn)
    return conn


def _dtype(field: str):
    return float if field.endswith(("_deg", "_ft", "_pct", "_in")) else object


def make_visit(path: Path, *, site_id: str = "site-a", trees: int = 3, transects: int = 1,
               stations_per_transect: int = 2) -> Path:
    """Create a visit with ``trees`` trees and ``transects`` transects of stations."""
    path = Path(path)
    for name, (geom_type, fields) in LAYERS.items():
        first = name == "transect"
        write(
            str(path), np.array([], dtype=object), [np.array([], dtype=_dtype(f)) for f in fields],
            fields, layer=name, driver="GPKG", geometry_type=geom_type, crs=SRS,
            append=not first,
        )
    with contextlib.closing(connect(path)) as conn, conn:
        for name in LAYERS:
            conn.execute(f"CREATE UNIQUE INDEX {name}_uuid_idx ON {name}(uuid)")
        conn.execute("CREATE TABLE metadata (key TEXT PRIMARY KEY, value TEXT)")
        conn.execute(
            "INSERT INTO gpkg_contents (table_name, data_type, identifier) VALUES"
            " ('metadata', 'attributes', 'metadata')"
        )
        conn.executemany("INSERT INTO metadata VALUES (?, ?)",
                         [("site_id", site_id), ("schema_version", "1")])
        for i in range(transects):
            t = add_transect(conn, f"T{i}", 90.0 + i)
            for j in range(stations_per_transect):
                add_station(conn, t, 10.0 * (j + 1), 5.0 + j)
        for i in range(trees):
            add_tree(conn, 500000.0 + i, 4800000.0 + i, 10.0 + i, "ACSA")
    return path


def _new(conn, table: str, geom, **values) -> str:
    u = uuid.uuid4().hex
    cols = ["geom", "uuid", "created_utc", "modified_utc", "created_by", *values]
    conn.execute(
        f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
        [gpkg_blob(geom), u, T0, T0, "test", *values.values()],
    )
    return u


def add_transect(conn, note: str, azimuth_deg: float) -> str:
    return _new(conn, "transect", shapely.LineString([(500000, 4800000), (500030, 4800000)]),
                azimuth_deg=azimuth_deg, note=note)


def add_station(conn, transect_uuid: str, horizontal_ft: float, slope_pct: float) -> str:
    return _new(conn, "station", shapely.Point(500000 + horizontal_ft * 0.3048, 4800000),
                transect_uuid=transect_uuid, horizontal_ft=horizontal_ft, slope_pct=slope_pct)


def add_tree(conn, x: float, y: float, dbh_in: float, species: str) -> str:
    return _new(conn, "tree", shapely.Point(x, y), dbh_in=dbh_in, species_code=species, status="live")


def rows(path: Path, table: str, cols: str = "*", order: str = "uuid") -> list[tuple]:
    """All rows of ``table`` ordered by ``order``."""
    with contextlib.closing(st_connect(path)) as conn:
        return conn.execute(f"SELECT {cols} FROM {table} ORDER BY {order}").fetchall()


def by_uuid(path: Path, table: str) -> dict[str, dict]:
    """``{uuid: {column: value}}`` of a layer (fid left out: it may be remapped)."""
    with contextlib.closing(st_connect(path)) as conn:
        conn.row_factory = sqlite3.Row
        return {r["uuid"]: {k: r[k] for k in r.keys() if k != "fid"}
                for r in conn.execute(f"SELECT * FROM {table}")}


def integrity(path: Path) -> str:
    with contextlib.closing(st_connect(path)) as conn:
        return conn.execute("PRAGMA integrity_check").fetchone()[0]
