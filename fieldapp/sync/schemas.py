"""Store schema versions as the sync sees them: read a copy's version, migrate a copy.

A visit, this laptop's base copy and the office master are all copies of one site, and each
says which store schema it has in ``fieldapp_meta.schema_version``
(:data:`fieldapp.store.schema.SCHEMA_VERSION`; what each version added is
:data:`fieldapp.store.schema.ADDED_COLUMNS`). pygeodiff can only diff two copies, or apply a
changeset to a copy, whose tables have the same columns, so the sync brings copies to one
version first, with the store's own statements (:func:`fieldapp.store.schema.migration_sql`),
exactly as the store does when a visit is opened for recording (columns appended, then the
version row updated, in one transaction): a copy migrated here has the same columns, in the same
order, and the same ``fieldapp_meta`` rows as one the store migrated, so diffing the two shows
only real edits; and, conformed by the store's code, the same GeoPackage tables and rows (a
valid GeoPackage, as the store's migration leaves it).

The office keeps a schema log (:class:`SchemaChange`): "changesets after seq N are written at
schema V". A laptop pulling older changesets applies them at the schema they were written at
and migrates its copy at the recorded point (:func:`version_at`).

Only fieldapp visits have versions: a GeoPackage without ``fieldapp_meta`` (the engine's
generic tests) has none, and nothing here touches it.
"""

from __future__ import annotations

import contextlib
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from fieldapp.sync import gpkgsql
from fieldapp.sync.files import connect

META_TABLE = "fieldapp_meta"
VERSION_KEY = "schema_version"
#: The office's schema log, kept in the office master only (never sent to a laptop: a checkout
#: removes it from the copy, and changesets never touch it).
SCHEMA_LOG_TABLE = "fieldapp_sync_schema"
SCHEMA_LOG_DDL = f"""
CREATE TABLE IF NOT EXISTS {SCHEMA_LOG_TABLE} (
    schema_version INTEGER PRIMARY KEY,
    from_version INTEGER NOT NULL,
    after_seq INTEGER NOT NULL,
    migrated_utc TEXT NOT NULL,
    laptop_id TEXT NOT NULL,
    fieldapp_version TEXT
)"""


@dataclass(frozen=True)
class SchemaChange:
    """One row of an office's schema log: the master went from ``from_version`` to
    ``schema_version`` when it was at ``after_seq``; every changeset with a higher seq is written
    at ``schema_version`` (or a later one, per a later row)."""

    schema_version: int
    from_version: int
    after_seq: int
    migrated_utc: str
    laptop_id: str
    fieldapp_version: str | None = None


def app_version() -> int:
    """The newest store schema this fieldapp knows (read at call time)."""
    from fieldapp.store import schema as store_schema

    return store_schema.SCHEMA_VERSION


def version_in(conn: sqlite3.Connection) -> int | None:
    """The store schema version of an open copy, ``None`` when it is not a fieldapp visit.

    ``fieldapp_meta.schema_version`` when the row is there. A master made by a first sync has
    the tables but no rows until that sync's changeset is applied: then the version is worked
    out from the columns (the highest version whose added columns are all present).

    Raises ``ValueError`` for a version row that is not a whole number.
    """
    from fieldapp.store import schema as store_schema

    if conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                    (META_TABLE,)).fetchone() is None:
        return None
    row = conn.execute(f'SELECT value FROM "{META_TABLE}" WHERE key = ?', (VERSION_KEY,)).fetchone()
    if row is not None:
        try:
            return int(row[0])
        except (TypeError, ValueError):
            raise ValueError(f"{META_TABLE}.{VERSION_KEY} is {row[0]!r}, not a whole number") from None
    version = 1
    for v in sorted(set(store_schema.ADDED_COLUMNS) | set(store_schema.ADDED_TABLES)):
        present = all(
            name in {r[1] for r in conn.execute(f'PRAGMA table_info("{layer.value}")')}
            for layer, name in store_schema.ADDED_COLUMNS.get(v, ())
        ) and all(
            conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                         (layer.value,)).fetchone() is not None
            for layer in store_schema.ADDED_TABLES.get(v, ())
        )
        if not present:
            break
        version = v
    return version


def version_of(path: Path) -> int | None:
    """:func:`version_in` of the GeoPackage at ``path`` (read-only)."""
    with contextlib.closing(connect(Path(path), readonly=True)) as conn:
        return version_in(conn)


def statements(from_version: int, to_version: int) -> list[str]:
    """The store's statements that bring tables from ``from_version`` to ``to_version``.

    :func:`fieldapp.store.schema.migration_sql` gives them in version order up to the newest
    version; the ones of the versions after ``to_version`` are its own tail, cut off here.
    """
    from fieldapp.store import schema as store_schema

    if to_version <= from_version:
        return []
    full = store_schema.migration_sql(from_version)
    tail = store_schema.migration_sql(to_version)
    if len(tail) > len(full) or full[len(full) - len(tail):] != tail:  # pragma: no cover - store contract
        raise RuntimeError("fieldapp.store.schema.migration_sql is not in version order")
    return full[: len(full) - len(tail)]


def migrate_in(conn: sqlite3.Connection, from_version: int, to_version: int) -> None:
    """Run the migration ``from_version`` -> ``to_version`` on ``conn`` inside the caller's
    transaction: the columns, then the version row (updated only where there is one)."""
    for sql in statements(from_version, to_version):
        conn.execute(sql)
    conn.execute(f'UPDATE "{META_TABLE}" SET value = ? WHERE key = ?', (str(to_version), VERSION_KEY))


def conform_in(conn: sqlite3.Connection) -> bool:
    """The store's conformance of a migrated visit (:func:`fieldapp.store.gpkg.conform_in`) on
    a copy, in the caller's transaction (``conn`` with the ST_ functions); True if it changed
    anything. Run after every migration here, and after the folder office's of its master."""
    from fieldapp.store.gpkg import conform_in as store_conform

    return store_conform(conn)


def migrate_file(path: Path, to_version: int) -> bool:
    """Bring the copy at ``path`` to ``to_version`` in one transaction (``BEGIN IMMEDIATE``; the
    version is read again inside it, so a second run does nothing). Returns whether it changed.

    The copy is left as the store leaves a visit it migrates when opened for recording: after
    the columns and tables, the store's own conformance (:func:`conform_in`:
    the R-tree of every features table, the extents, the Related Tables rows, and
    ``fieldapp_meta`` taken out of ``gpkg_contents``, where GeoPackage Requirement 119 forbids a
    TEXT primary key), so GDAL's validator passes it. A crash leaves the file at its old version,
    whole (SQLite's journal).
    """
    with contextlib.closing(connect(Path(path))) as conn:
        conn.isolation_level = None
        gpkgsql.register(conn)
        conn.execute("BEGIN IMMEDIATE")
        try:
            current = version_in(conn)
            changed = current is not None and current < to_version
            if current is not None and changed:
                migrate_in(conn, current, to_version)
                conform_in(conn)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
    return changed


def version_at(changes: list[SchemaChange], seq: int) -> int | None:
    """The schema an office changeset ``seq`` was written at, per the office's schema log;
    ``None`` when it predates every logged change (it is at the site's first schema)."""
    found = None
    for c in changes:
        if c.after_seq < seq:
            found = c.schema_version if found is None else max(found, c.schema_version)
    return found
