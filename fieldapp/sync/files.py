"""Crash-safe file operations and GeoPackage checks used on both sides of the sync.

Every file the sync writes that another step relies on is written to a temporary name in the
same folder, flushed with ``fsync``, moved into place with ``os.replace`` (atomic on POSIX and on
Windows / NTFS within one volume) and the folder is ``fsync``-ed, so a killed process or a pulled
USB drive leaves either the old file or the new one, never half of one.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import sqlite3
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fieldapp.store.durable import fsync_dir, fsync_file
from fieldapp.store.paths import sqlite_uri
from fieldapp.store.spatial import register_st_functions

#: GeoPackage ``application_id`` ("GPKG" as a big-endian 32-bit integer), GeoPackage 1.2+.
GPKG_APPLICATION_ID = 0x47504B47
SQLITE_MAGIC = b"SQLite format 3\x00"
TEMP_PREFIX = ".tmp-"

#: Our bookkeeping tables. Both travel inside changesets like any other table, so the office
#: master and every laptop copy hold the same rows.
LOG_TABLE = "fieldapp_sync_log"
CONFLICTS_TABLE = "fieldapp_sync_conflicts"
INTERNAL_TABLES = (LOG_TABLE, CONFLICTS_TABLE)

LOG_DDL = f"""
CREATE TABLE IF NOT EXISTS {LOG_TABLE} (
    seq INTEGER PRIMARY KEY,
    changeset_id TEXT NOT NULL UNIQUE,
    laptop_id TEXT NOT NULL,
    synced_by TEXT,
    applied_utc TEXT NOT NULL,
    counts_json TEXT,
    sha256 TEXT,
    size_bytes INTEGER
)"""

CONFLICTS_DDL = f"""
CREATE TABLE IF NOT EXISTS {CONFLICTS_TABLE} (
    fid INTEGER PRIMARY KEY AUTOINCREMENT,
    uuid TEXT NOT NULL UNIQUE,
    layer TEXT NOT NULL,
    feature_uuid TEXT,
    feature_fid INTEGER,
    field TEXT,
    kind TEXT NOT NULL,
    base_json TEXT,
    theirs_json TEXT,
    ours_json TEXT,
    kept TEXT NOT NULL,
    policy TEXT NOT NULL,
    changeset_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    ours_laptop_id TEXT,
    ours_by TEXT,
    created_utc TEXT NOT NULL,
    resolved_utc TEXT,
    resolution TEXT
)"""


def temp_path_for(target: Path) -> Path:
    """A unique temporary name beside ``target`` (same folder, so ``os.replace`` is atomic)."""
    return target.parent / f"{TEMP_PREFIX}{uuid.uuid4().hex}-{target.name}"


def replace_durably(temp: Path, target: Path) -> None:
    """fsync ``temp``, move it over ``target`` atomically, fsync the folder."""
    fsync_file(temp)
    os.replace(temp, target)
    fsync_dir(target.parent)


def copy_durably(src: Path, target: Path) -> None:
    """Copy ``src`` to ``target`` via temp + fsync + os.replace."""
    temp = temp_path_for(target)
    try:
        shutil.copyfile(src, temp)
        replace_durably(temp, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()


def write_json_durably(target: Path, data: dict[str, Any]) -> None:
    """Write ``data`` as JSON to ``target`` via temp + fsync + os.replace."""
    temp = temp_path_for(target)
    try:
        temp.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
        replace_durably(temp, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()


def sha256_of(path: Path) -> str:
    """Hex SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


#: Header bytes SQLite rewrites whenever it writes a file, or a backup lands in it, without any
#: change of content: the read / write versions (18-19, rollback 1 or WAL 2), the file change
#: counter (24-27), the schema cookie (40-43, bumped by every backup), version-valid-for and the
#: library version (92-99). https://www.sqlite.org/fileformat2.html#the_database_header
_HOUSEKEEPING_BYTES = ((18, 20), (24, 28), (40, 44), (92, 100))


def page_fingerprint(path: Path) -> str:
    """SHA-256 of an SQLite file's pages with the header's housekeeping bytes zeroed
    (:data:`_HOUSEKEEPING_BYTES`): equal for two files holding the very same pages -- a file and
    a byte copy of it, or the database a backup (SQLite's backup API) wrote it into -- and
    different as soon as any row, index entry, table or free page differs. The caller makes
    sure the file alone holds the content (no ``-wal`` with records, no hot ``-journal``)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        first = bytearray(fh.read(100))
        for start, end in _HOUSEKEEPING_BYTES:
            first[start:end] = bytes(len(first[start:end]))
        digest.update(first)
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def remove_quietly(*paths: Path) -> None:
    """Delete files that may or may not exist (SQLite side files included)."""
    for path in paths:
        for p in (path, Path(f"{path}-journal"), Path(f"{path}-wal"), Path(f"{path}-shm")):
            with contextlib.suppress(FileNotFoundError):
                p.unlink()


def quote_identifier(name: str) -> str:
    """Quote an SQL identifier (names come from the GeoPackage schema, never from users)."""
    return '"' + name.replace('"', '""') + '"'


def connect(path: Path, *, readonly: bool = False) -> sqlite3.Connection:
    """Open a GeoPackage with sqlite3 (read-only by URI when asked: :func:`fieldapp.store.paths.
    sqlite_uri`, which SQLite on Windows accepts for a share too), 30 s busy timeout, with the
    ST_ functions its R-tree triggers call registered (:mod:`fieldapp.store.spatial`)."""
    if readonly:
        conn = sqlite3.connect(sqlite_uri(path, mode="ro"), uri=True, timeout=30)
    else:
        conn = sqlite3.connect(path, timeout=30)
    return register_st_functions(conn)


def snapshot_sqlite(src: Path, target: Path) -> None:
    """Consistent copy of a (possibly open, possibly WAL) SQLite file via the backup API.

    The copy is in rollback-journal mode (no ``-wal`` beside it) and is fsynced and moved into
    place atomically.
    """
    temp = temp_path_for(target)
    try:
        with contextlib.closing(connect(src)) as source, contextlib.closing(
            register_st_functions(sqlite3.connect(temp))
        ) as dest:
            source.backup(dest)
            dest.execute("PRAGMA journal_mode=DELETE")
            dest.commit()
        replace_durably(temp, target)
    finally:
        remove_quietly(temp)


def checkpoint(path: Path) -> None:
    """Fold a WAL into the main file so the ``.gpkg`` alone is complete (best effort if busy)."""
    with contextlib.closing(connect(path)) as conn:
        mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
        if str(mode).lower() == "wal":
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def check_geopackage(path: Path, *, what: str, max_bytes: int,
                     error: Callable[[str], Exception] = ValueError) -> None:
    """Refuse a file that is not a sound GeoPackage of a sane size.

    Checks: a regular file (not a symbolic link), at most ``max_bytes``, the SQLite header, the
    GeoPackage ``application_id``, ``PRAGMA quick_check`` = ``ok``.

    Raises
    ------
    error
        (``ValueError`` by default, :class:`InvalidOfficeData` for office files) naming ``what``
        and the first problem found.
    """
    p = Path(path)
    if not p.exists() and not p.is_symlink():
        raise error(f"{what} {p} does not exist")
    if p.is_symlink() or not p.is_file():
        raise error(f"{what} {p} is not a regular file")
    size = p.stat().st_size
    if size > max_bytes:
        raise error(f"{what} {p} is {size} bytes, over the {max_bytes}-byte limit")
    with open(p, "rb") as fh:
        if fh.read(16) != SQLITE_MAGIC:
            raise error(f"{what} {p} is not an SQLite/GeoPackage file")
    try:
        with contextlib.closing(connect(p, readonly=True)) as conn:
            app_id = conn.execute("PRAGMA application_id").fetchone()[0]
            if app_id != GPKG_APPLICATION_ID:
                raise error(f"{what} {p} is not a GeoPackage (application_id {app_id:#x})")
            check = conn.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                raise error(f"{what} {p} is damaged: quick_check says {check!r}")
    except sqlite3.DatabaseError as exc:
        raise error(f"{what} {p} cannot be read as SQLite: {exc}") from exc


def ensure_sync_tables(path: Path) -> bool:
    """Create the sync log and conflicts tables if missing; register the conflicts table.
    Returns whether anything was written (``False``: both were there, the file untouched).

    The conflicts table is registered in ``gpkg_contents`` as an ``attributes`` table so QGIS
    and GDAL list it next to the layers.
    """
    with contextlib.closing(connect(path)) as conn:
        have = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if LOG_TABLE in have and CONFLICTS_TABLE in have:
            return False
        with conn:
            conn.execute(LOG_DDL)
            conn.execute(CONFLICTS_DDL)
            if "gpkg_contents" in have:
                conn.execute(
                    "INSERT OR IGNORE INTO gpkg_contents (table_name, data_type, identifier,"
                    " description) VALUES (?, 'attributes', ?, ?)",
                    (
                        CONFLICTS_TABLE,
                        CONFLICTS_TABLE,
                        "Sync conflicts: base, theirs and ours for every edit not kept",
                    ),
                )
    return True


def log_rows(conn: sqlite3.Connection) -> list[tuple[Any, ...]]:
    """All rows of the sync log, ``(seq, changeset_id, laptop_id, synced_by, applied_utc,
    counts_json, sha256, size_bytes)``, by ``seq``."""
    return conn.execute(
        f"SELECT seq, changeset_id, laptop_id, synced_by, applied_utc, counts_json, sha256,"
        f" size_bytes FROM {LOG_TABLE} ORDER BY seq"
    ).fetchall()


def log_ids(path: Path) -> dict[str, int]:
    """``{changeset_id: seq}`` of a GeoPackage's sync log (empty if it has none)."""
    with contextlib.closing(connect(path, readonly=True)) as conn:
        try:
            return {cid: seq for seq, cid in conn.execute(f"SELECT seq, changeset_id FROM {LOG_TABLE}")}
        except sqlite3.OperationalError:
            return {}


def log_head_in(conn: sqlite3.Connection) -> int:
    """Highest ``seq`` in the sync log of an open GeoPackage (0 when empty).

    Raises ``sqlite3.OperationalError`` when it has no sync log."""
    return int(conn.execute(f"SELECT coalesce(max(seq), 0) FROM {LOG_TABLE}").fetchone()[0])


def log_head(path: Path) -> int:
    """Highest ``seq`` in a GeoPackage's sync log (0 when empty or when it has none)."""
    with contextlib.closing(connect(path, readonly=True)) as conn:
        try:
            return log_head_in(conn)
        except sqlite3.OperationalError:
            return 0


def record_changeset_file(conn: sqlite3.Connection, seq: int, sha256: str | None,
                          size_bytes: int | None) -> None:
    """Write the SHA-256 and size (bytes) of changeset ``seq``'s file into its sync-log row.

    A changeset cannot carry its own hash, so its log row arrives without them; the office
    writes them when it applies it, and so does a laptop pulling it (to stay byte-identical
    to the master). The caller holds the transaction."""
    conn.execute(f"UPDATE {LOG_TABLE} SET sha256 = ?, size_bytes = ? WHERE seq = ?",
                 (sha256, size_bytes, seq))


def empty_tables(conn: sqlite3.Connection, tables: list[str]) -> None:
    """Remove every row of ``tables`` (inside the caller's transaction), schema kept as it was.

    A GeoPackage R-tree's triggers remove its entries row by row, which also stops SQLite's
    one-step truncation: seconds for a day's 288,000 fixes. So for a table whose triggers are
    only its spatial index's (``rtree_<table>_<column>_*``) and GDAL's feature count
    (``trigger_insert/delete_feature_count_<table>``): those triggers are dropped, the index
    dropped and made again empty from its own ``CREATE VIRTUAL TABLE`` text, the rows deleted,
    the triggers made again from their own text and ``gpkg_ogr_contents`` set to 0 -- the same
    schema, no row left. A table with any other trigger is emptied row by row, its triggers
    running as they would.
    """
    if not tables:
        return
    found: dict[str, list[tuple[str, str]]] = {t: [] for t in tables}
    for name, table, sql in conn.execute("SELECT name, tbl_name, sql FROM sqlite_master WHERE"
                                         " type = 'trigger' ORDER BY rowid").fetchall():
        if table in found:
            found[table].append((name, sql))
    virtual = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND"
                           " sql LIKE 'CREATE VIRTUAL TABLE%' ORDER BY rowid").fetchall()
    counted = conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'gpkg_ogr_contents'").fetchone()
    geometry = conn.execute("SELECT table_name, column_name FROM gpkg_geometry_columns").fetchall() \
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'gpkg_geometry_columns'").fetchone() else []
    for t in tables:
        indexes = {f"rtree_{t}_{c}" for tt, c in geometry if tt == t}
        known = all(n.rsplit("_", 1)[0] in indexes or n in (f"trigger_insert_feature_count_{t}",
                                                            f"trigger_delete_feature_count_{t}")
                    for n, _ in found[t])
        if not known:
            conn.execute(f"DELETE FROM {quote_identifier(t)}")
            continue
        for name, _ in found[t]:
            conn.execute(f"DROP TRIGGER {quote_identifier(name)}")
        for name, sql in virtual:
            if name in indexes:
                conn.execute(f"DROP TABLE {quote_identifier(name)}")
                conn.execute(sql)
        conn.execute(f"DELETE FROM {quote_identifier(t)}")
        for _, sql in found[t]:
            conn.execute(sql)
        if counted:
            conn.execute("UPDATE gpkg_ogr_contents SET feature_count = 0 WHERE lower(table_name) = lower(?)", (t,))
