"""Photos in the visit GeoPackage: the OGC Related Tables Extension's media form (schema 4).

The extension (OGC 18-000, http://www.geopackage.org/18-000.html; ``gpkg_related_tables``
since GeoPackage 1.4) relates rows of a *base* table to rows of a *related* table through a
*mapping* table of (``base_id``, ``related_id``) pairs, listed in ``gpkgext_relations``. Here:

- the related table is ``photo`` (:data:`fieldapp.store.schema.ADDED_TABLES`, version 4), a
  user-defined media table (``data`` BLOB, ``content_type`` TEXT, integer key ``fid``)
  registered in ``gpkg_contents`` as ``attributes``;
- each record table a photo can show (:data:`BASE_LAYERS`: the site, OHWM lines and points,
  transects, stations, trees, areas, lines, walks, notes, stake points) has a mapping
  ``<table>_photo`` with ``relation_name`` ``media``, registered in ``gpkg_contents`` as
  ``attributes`` and in ``gpkg_extensions``.

Why the mapping tables are views
--------------------------------
A photo names its record by uuid (``photo.record_table`` and ``photo.record_uuid``), as every
child record of a visit names its parent. The integer keys a mapping table holds are not
stable: the office sync rebases a laptop's new rows onto the office's with pygeodiff, which
renumbers the ``fid`` of a new row that collides with one another laptop sent first. A stored
(base_id, related_id) pair would then point at somebody else's tree. So each mapping is an SQL
view over ``photo`` joined to its base table by uuid: its pairs are always the current keys,
after any write and after any sync pull, with nothing to rebuild, and the sync (which diffs
tables) never carries them. The extension allows a mapping *view* (GDAL's validator checks a
view in ``gpkg_contents`` has a unique INTEGER first column: here ``id``, the photo's key,
unique because a photo shows one record).
"""

from __future__ import annotations

import sqlite3

from ..survey.features import Layer

__all__ = ["BASE_LAYERS", "EXTENSION", "DEFINITION", "mapping_name", "related_tables_sql", "conform"]

EXTENSION = "gpkg_related_tables"
DEFINITION = "http://www.geopackage.org/18-000.html"
MEDIA_TABLE = Layer.PHOTO.value
#: The record tables a photo can be attached to (each gets a mapping view).
BASE_LAYERS: tuple[Layer, ...] = (
    Layer.SITE, Layer.OHWM_LINE, Layer.OHWM_POINT, Layer.TRANSECT, Layer.STATION, Layer.TREE,
    Layer.AREA, Layer.LINE, Layer.WALK, Layer.NOTE, Layer.STAKE_POINT,
)

_RELATIONS_DDL = (
    "CREATE TABLE IF NOT EXISTS gpkgext_relations (id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " base_table_name TEXT NOT NULL, base_primary_column TEXT NOT NULL DEFAULT 'id',"
    " related_table_name TEXT NOT NULL, related_primary_column TEXT NOT NULL DEFAULT 'id',"
    " relation_name TEXT NOT NULL, mapping_table_name TEXT NOT NULL UNIQUE)"
)
_EXTENSIONS_DDL = (
    "CREATE TABLE IF NOT EXISTS gpkg_extensions (table_name TEXT, column_name TEXT,"
    " extension_name TEXT NOT NULL, definition TEXT NOT NULL, scope TEXT NOT NULL,"
    " CONSTRAINT ge_tce UNIQUE (table_name, column_name, extension_name))"
)


def mapping_name(layer: Layer) -> str:
    """The mapping view of ``layer``'s photos: ``tree`` -> ``tree_photo``."""
    return f"{Layer(layer).value}_{MEDIA_TABLE}"


def _view_sql(layer: Layer) -> str:
    base, view = layer.value, mapping_name(layer)
    return (f'CREATE VIEW "{view}" AS SELECT p.fid AS id, b.fid AS base_id, p.fid AS related_id'
            f' FROM "{MEDIA_TABLE}" p JOIN "{base}" b ON b.uuid = p.record_uuid'
            f" WHERE p.record_table = '{base}'")


def related_tables_sql() -> list[str]:
    """The statements adding the extension to a visit whose ``photo`` table exists: the
    ``gpkgext_relations`` table and rows, the mapping views with their ``gpkg_contents`` rows,
    and the ``gpkg_extensions`` rows (scope ``read-write``). Run by a new file and by the
    migration to schema 4, in the caller's transaction."""
    now = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
    ext = f"'{EXTENSION}', '{DEFINITION}', 'read-write'"
    out = [_RELATIONS_DDL, _EXTENSIONS_DDL,
           "INSERT OR IGNORE INTO gpkg_extensions (table_name, column_name, extension_name,"
           f" definition, scope) VALUES ('gpkgext_relations', NULL, {ext})"]
    for layer in BASE_LAYERS:
        view = mapping_name(layer)
        out += [
            _view_sql(layer),
            "INSERT INTO gpkg_contents (table_name, data_type, identifier, description,"
            f" last_change) VALUES ('{view}', 'attributes', '{view}',"
            f" 'Photos of each {layer.value} (Related Tables mapping, a view by uuid)', {now})",
            "INSERT INTO gpkgext_relations (base_table_name, base_primary_column,"
            " related_table_name, related_primary_column, relation_name, mapping_table_name)"
            f" VALUES ('{layer.value}', 'fid', '{MEDIA_TABLE}', 'fid', 'media', '{view}')",
            "INSERT OR IGNORE INTO gpkg_extensions (table_name, column_name, extension_name,"
            f" definition, scope) VALUES ('{view}', NULL, {ext})",
        ]
    return out


def conform(conn: sqlite3.Connection) -> bool:
    """Give back the ``gpkg_extensions`` rows of the extension when a file lost them (a tool
    rebuilt ``gpkg_extensions``; the validator refuses a mapping without its row), in the
    caller's transaction. True if it added any; nothing for a file without the extension."""
    if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'gpkgext_relations'").fetchone() is None:
        return False
    have = {r[0] for r in conn.execute("SELECT table_name FROM gpkg_extensions WHERE extension_name = ?",
                                        (EXTENSION,))}   # (UNIQUE does not see NULL columns alike)
    missing = [t for t in ["gpkgext_relations"] + [mapping_name(layer) for layer in BASE_LAYERS]
               if t not in have]
    conn.executemany("INSERT INTO gpkg_extensions (table_name, column_name, extension_name,"
                     " definition, scope) VALUES (?, NULL, ?, ?, 'read-write')",
                     [(t, EXTENSION, DEFINITION) for t in missing])
    return bool(missing)
