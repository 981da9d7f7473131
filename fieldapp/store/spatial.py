"""The GeoPackage spatial index (R-tree) and the SQL functions its triggers call.

GeoPackage 1.4 Annex F.3 (extension ``gpkg_rtree_index``): every features table ``t`` with
geometry column ``geom`` has a virtual table ``rtree_t_geom`` (id, minx, maxx, miny, maxy) kept
in step by triggers on ``t``. The triggers call ``ST_IsEmpty``, ``ST_MinX``, ``ST_MaxX``,
``ST_MinY``, ``ST_MaxY`` on GeoPackageBinary blobs; SQLite has no such functions, so every
connection that may write a visit registers them first (:func:`register_st_functions`), as GDAL
and QGIS do (pygeodiff registers its own). :func:`conform` brings a file written before the
index existed up to date (index, triggers, ``gpkg_extensions``, ``gpkg_contents`` extents).

>>> import sqlite3
>>> from shapely.geometry import LineString
>>> from fieldapp.store.schema import gpkg_blob
>>> conn = register_st_functions(sqlite3.connect(":memory:"))
>>> blob = gpkg_blob(LineString([(1, 2), (4, 8)]), 3070)
>>> conn.execute("SELECT ST_MinX(?), ST_MaxY(?), ST_IsEmpty(?)", (blob, blob, blob)).fetchone()
(1.0, 8.0, 0)
"""

from __future__ import annotations

import sqlite3
import struct
from collections.abc import Callable, Iterable

import shapely

from .pointblob import point_xy

__all__ = ["conform", "cover_extents", "create_sql", "envelope", "grow_extents", "register_st_functions", "rtree_sql",
           "update_extents"]

_ENVELOPE_BYTES = {0: 0, 1: 32, 2: 48, 3: 48, 4: 64}


#: the last blob read by :func:`envelope` and its envelope: a row's R-tree trigger asks for the
#: same blob five times (ST_IsEmpty, ST_MinX ... ST_MaxY); one parse serves them all. A pure
#: function of the bytes, so a hit is right whichever connection or thread asks.
_last: tuple[bytes, tuple[float, float, float, float] | None] = (b"", None)


def envelope(blob: bytes | None) -> tuple[float, float, float, float] | None:
    """(min_x, max_x, min_y, max_y) of a GeoPackageBinary geometry, in its SRS's units; None for
    NULL, an empty geometry or a blob that is not GeoPackageBinary (the triggers then skip the
    row rather than fail the user's write)."""
    global _last
    last = _last
    if type(blob) is bytes and blob == last[0]:
        return last[1]
    env = _envelope(blob)
    if type(blob) is bytes:
        _last = (blob, env)
    return env


def _envelope(blob: bytes | None) -> tuple[float, float, float, float] | None:
    xy = point_xy(blob)             # a point (every fix's track point): no GEOS
    if xy is not None:
        return xy[0], xy[0], xy[1], xy[1]
    if not isinstance(blob, (bytes, memoryview)) or len(blob) < 8 or bytes(blob[:2]) != b"GP":
        return None
    flags = blob[3]
    if flags & 0b10000:  # empty geometry flag
        return None
    env = (flags >> 1) & 0b111
    if env not in _ENVELOPE_BYTES:
        return None
    little = bool(flags & 1)
    if env:
        minx, maxx, miny, maxy = struct.unpack_from("<4d" if little else ">4d", blob, 8)
        return minx, maxx, miny, maxy
    try:
        geom = shapely.from_wkb(bytes(blob[8:]))
    except shapely.errors.ShapelyError:
        return None
    if geom is None or geom.is_empty:
        return None
    minx, miny, maxx, maxy = geom.bounds
    return minx, maxx, miny, maxy


def _part(i: int) -> Callable[[bytes | None], float | None]:
    def f(blob: bytes | None) -> float | None:
        e = envelope(blob)
        return None if e is None else e[i]
    return f


def _is_empty(blob: bytes | None) -> int | None:
    if blob is None:
        return None
    return 1 if envelope(blob) is None else 0


def register_st_functions(conn: sqlite3.Connection) -> sqlite3.Connection:
    """Register ``ST_IsEmpty``, ``ST_MinX``, ``ST_MaxX``, ``ST_MinY``, ``ST_MaxY`` (GeoPackage
    Annex F.3) on ``conn``; returns ``conn``. Deterministic one-argument functions."""
    conn.create_function("ST_IsEmpty", 1, _is_empty, deterministic=True)
    for i, name in enumerate(("ST_MinX", "ST_MaxX", "ST_MinY", "ST_MaxY")):
        conn.create_function(name, 1, _part(i), deterministic=True)
    return conn


def rtree_sql(table: str, column: str = "geom", pk: str = "fid") -> list[str]:
    """The statements of Annex F.3 for ``table``: the virtual table, its filling from the rows
    already there, the insert / update1-4 / delete triggers and the ``gpkg_extensions`` row."""
    t, c, i = table, column, pk
    r = f"rtree_{t}_{c}"
    vals = f'ST_MinX(NEW."{c}"), ST_MaxX(NEW."{c}"), ST_MinY(NEW."{c}"), ST_MaxY(NEW."{c}")'
    not_empty = f'NEW."{c}" NOT NULL AND NOT ST_IsEmpty(NEW."{c}")'
    empty = f'NEW."{c}" IS NULL OR ST_IsEmpty(NEW."{c}")'
    return [
        f'CREATE VIRTUAL TABLE "{r}" USING rtree(id, minx, maxx, miny, maxy)',
        f'INSERT OR REPLACE INTO "{r}" SELECT "{i}", ST_MinX("{c}"), ST_MaxX("{c}"), ST_MinY("{c}"),'
        f' ST_MaxY("{c}") FROM "{t}" WHERE "{c}" NOT NULL AND NOT ST_IsEmpty("{c}")',
        f'CREATE TRIGGER "{r}_insert" AFTER INSERT ON "{t}" WHEN ({not_empty}) BEGIN'
        f' INSERT OR REPLACE INTO "{r}" VALUES (NEW."{i}", {vals}); END',
        f'CREATE TRIGGER "{r}_update1" AFTER UPDATE OF "{c}" ON "{t}" WHEN OLD."{i}" = NEW."{i}" AND'
        f' ({not_empty}) BEGIN INSERT OR REPLACE INTO "{r}" VALUES (NEW."{i}", {vals}); END',
        f'CREATE TRIGGER "{r}_update2" AFTER UPDATE OF "{c}" ON "{t}" WHEN OLD."{i}" = NEW."{i}" AND'
        f' ({empty}) BEGIN DELETE FROM "{r}" WHERE id = OLD."{i}"; END',
        f'CREATE TRIGGER "{r}_update3" AFTER UPDATE ON "{t}" WHEN OLD."{i}" != NEW."{i}" AND'
        f' ({not_empty}) BEGIN DELETE FROM "{r}" WHERE id = OLD."{i}";'
        f' INSERT OR REPLACE INTO "{r}" VALUES (NEW."{i}", {vals}); END',
        f'CREATE TRIGGER "{r}_update4" AFTER UPDATE ON "{t}" WHEN OLD."{i}" != NEW."{i}" AND'
        f' ({empty}) BEGIN DELETE FROM "{r}" WHERE id IN (OLD."{i}", NEW."{i}"); END',
        f'CREATE TRIGGER "{r}_delete" AFTER DELETE ON "{t}" WHEN OLD."{c}" NOT NULL BEGIN'
        f' DELETE FROM "{r}" WHERE id = OLD."{i}"; END',
        "INSERT OR IGNORE INTO gpkg_extensions (table_name, column_name, extension_name, definition, scope)"
        f" VALUES ('{t}', '{c}', 'gpkg_rtree_index', 'http://www.geopackage.org/spec120/#extension_rtree',"
        " 'write-only')",
    ]


_EXTENSIONS_SQL = (
    "CREATE TABLE IF NOT EXISTS gpkg_extensions (table_name TEXT, column_name TEXT,"
    " extension_name TEXT NOT NULL, definition TEXT NOT NULL, scope TEXT NOT NULL,"
    " CONSTRAINT ge_tce UNIQUE (table_name, column_name, extension_name))"
)


def update_extents(conn: sqlite3.Connection, tables: Iterable[str] | None = None) -> None:
    """Set ``gpkg_contents`` min_x/min_y/max_x/max_y of features ``tables`` (all when None)
    from their geometries, in the SRS's units; NULL for a table with no geometry. In the
    caller's transaction; ``conn`` needs :func:`register_st_functions`."""
    names = [r[0] for r in conn.execute("SELECT table_name FROM gpkg_geometry_columns")]
    for t in names if tables is None else [t for t in tables if t in set(names)]:
        # exact, from the geometries (the R-tree's 32-bit bounds are rounded outward)
        row = conn.execute(f'SELECT min(ST_MinX(geom)), min(ST_MinY(geom)), max(ST_MaxX(geom)),'
                           f' max(ST_MaxY(geom)) FROM "{t}"').fetchone()
        conn.execute("UPDATE gpkg_contents SET min_x = ?, min_y = ?, max_x = ?, max_y = ? WHERE table_name = ?",
                     (*row, t))


def grow_extents(conn: sqlite3.Connection, bounds: dict[str, list[float]]) -> None:
    """Widen ``gpkg_contents`` extents by ``bounds`` ({table: [min_x, min_y, max_x, max_y]} of
    rows added since they were set): what :func:`update_extents` would give when rows were only
    added, without reading the table. In the caller's transaction."""
    conn.executemany(
        "UPDATE gpkg_contents SET min_x = CASE WHEN min_x IS NULL OR min_x > ?1 THEN ?1 ELSE min_x END,"
        " min_y = CASE WHEN min_y IS NULL OR min_y > ?2 THEN ?2 ELSE min_y END,"
        " max_x = CASE WHEN max_x IS NULL OR max_x < ?3 THEN ?3 ELSE max_x END,"
        " max_y = CASE WHEN max_y IS NULL OR max_y < ?4 THEN ?4 ELSE max_y END WHERE table_name = ?5",
        [(*b, t) for t, b in bounds.items()])


def cover_extents(conn: sqlite3.Connection) -> list[str]:
    """Widen ``gpkg_contents`` extents that do not cover their table's R-tree (the bounds SQLite
    keeps of every row, rounded outward to 32-bit floats) to the R-tree's bounds; returns the
    tables widened. The store writes extents at each checkpoint (close, sync, export): rows
    committed after the last one and then a crash or a power cut lie outside them (QGIS zooms
    to a layer by them). A bound off by no more than the R-tree's rounding (2**-22 of it)
    counts as covered.
    Cheap when they cover: one R-tree look-up per side (``minx < ?``: the index prunes every
    node inside), the whole R-tree read only for a table with a row outside. In the caller's
    transaction."""
    widen = {}
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    rows = conn.execute("SELECT c.table_name, c.min_x, c.min_y, c.max_x, c.max_y FROM gpkg_contents c"
                        " JOIN gpkg_geometry_columns g ON g.table_name = c.table_name").fetchall()
    for t, *have in rows:
        r = f'"rtree_{t}_geom"'
        if f"rtree_{t}_geom" not in names:
            continue
        if None in have:
            outside = conn.execute(f"SELECT 1 FROM {r} LIMIT 1").fetchone() is not None
        else:
            # SQLite stores a bound as a float32 moved outward (rtreeValueDown / Up: times
            # 1 -+ 2**-23, then rounded): within 2**-22 of the value (0.12 m at 500,000 m)
            lo_x, lo_y, hi_x, hi_y = (v - abs(v) * 2.0 ** -22 - 1e-30 if k < 2 else v + abs(v) * 2.0 ** -22 + 1e-30
                                      for k, v in enumerate(have))
            outside = any(conn.execute(f"SELECT 1 FROM {r} WHERE {side} LIMIT 1", (v,)).fetchone()
                          for side, v in (("minx < ?", lo_x), ("miny < ?", lo_y),
                                          ("maxx > ?", hi_x), ("maxy > ?", hi_y)))
        if outside:
            tree = conn.execute(f"SELECT min(minx), min(miny), max(maxx), max(maxy) FROM {r}").fetchone()
            widen[t] = list(tree)
    grow_extents(conn, widen)
    return sorted(widen)


def conform(conn: sqlite3.Connection, meta_table: str) -> bool:
    """Bring a visit written before the spatial index to GeoPackage conformance, in the caller's
    transaction (``conn`` must have :func:`register_st_functions`): ``gpkg_extensions``, the
    R-tree and triggers of every features table that lacks them, the extents, and
    ``meta_table`` (a key/value table with a TEXT primary key, which Requirement 119 forbids in
    a registered attributes table) taken out of ``gpkg_contents``. Returns True if it changed
    anything; idempotent."""
    changed = False
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    if "gpkg_extensions" not in names:
        conn.execute(_EXTENSIONS_SQL)
        changed = True
    for (t,) in conn.execute("SELECT table_name FROM gpkg_geometry_columns").fetchall():
        if f"rtree_{t}_geom" not in names:
            for sql in rtree_sql(t):
                conn.execute(sql)
            changed = True
    if conn.execute("SELECT 1 FROM gpkg_contents WHERE table_name = ?", (meta_table,)).fetchone():
        conn.execute("DELETE FROM gpkg_contents WHERE table_name = ?", (meta_table,))
        changed = True
    if changed:
        update_extents(conn)
    return changed


def create_sql() -> str:
    """The ``gpkg_extensions`` table (GeoPackage 1.4 §2.5.2.1.1)."""
    return _EXTENSIONS_SQL
