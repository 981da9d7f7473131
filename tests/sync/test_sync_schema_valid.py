"""A schema-1 visit migrated by the sync (``fieldapp.sync.schemas.migrate_file``) is left as the
store leaves one it migrates when opened for recording: a valid GeoPackage (GDAL's validator;
``fieldapp_meta`` no longer registered in ``gpkg_contents``, GeoPackage Requirement 119), with
the same tables, GeoPackage rows and ``fieldapp_meta`` rows."""

from __future__ import annotations

import contextlib
import hashlib
import shutil
from pathlib import Path

from fieldapp.store import open_visit
from fieldapp.store import schema as store_schema
from fieldapp.sync import schemas
from tests.gpkgtools import st_connect, validate_gpkg

V1 = Path(__file__).resolve().parents[1] / "data" / "visit_schema1.gpkg"
NEW = store_schema.SCHEMA_VERSION


def _layout(path: Path) -> dict:
    """What a migration decides of a file: its schema objects, its GeoPackage rows (without
    the time stamps) and its fieldapp_meta rows."""
    with contextlib.closing(st_connect(path)) as conn:
        return {
            "objects": conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"
                                    " ORDER BY type, name").fetchall(),
            "contents": conn.execute("SELECT table_name, data_type, identifier, description,"
                                     " min_x, min_y, max_x, max_y, srs_id FROM gpkg_contents"
                                     " ORDER BY table_name").fetchall(),
            "extensions": conn.execute("SELECT * FROM gpkg_extensions ORDER BY 1, 2, 3").fetchall(),
            "geometry_columns": conn.execute("SELECT * FROM gpkg_geometry_columns ORDER BY 1").fetchall(),
            "meta": conn.execute("SELECT key, value FROM fieldapp_meta ORDER BY key").fetchall(),
        }


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_schema_1_file_migrated_by_the_sync_is_a_valid_geopackage(tmp_path):
    synced = tmp_path / "synced.gpkg"
    shutil.copyfile(V1, synced)
    assert schemas.migrate_file(synced, NEW)
    with contextlib.closing(st_connect(synced)) as conn:
        assert conn.execute("SELECT COUNT(*) FROM gpkg_contents WHERE table_name = 'fieldapp_meta'"
                            ).fetchone() == (0,)
        # the R-tree of the trees is filled: the sample's 3 trees
        assert conn.execute("SELECT COUNT(*) FROM rtree_tree_geom").fetchone() == (3,)
    validate_gpkg(synced)


def test_the_sync_and_the_store_migrate_a_schema_1_file_alike(tmp_path):
    synced, opened = tmp_path / "synced.gpkg", tmp_path / "opened.gpkg"
    shutil.copyfile(V1, synced)
    shutil.copyfile(V1, opened)
    assert schemas.migrate_file(synced, NEW)
    open_visit(opened).close()                      # the store's migration and conformance
    a, b = _layout(synced), _layout(opened)
    for part in a:
        assert a[part] == b[part], part
    assert ("schema_version", str(NEW)) in a["meta"]
    # a second run finds nothing to do and writes nothing
    before = _sha(synced)
    assert not schemas.migrate_file(synced, NEW)
    assert _sha(synced) == before


def test_a_partial_migration_by_the_sync_is_valid_too(tmp_path):
    """The sync brings a copy to the office's schema, which may be older than this fieldapp's
    (schema 1 -> 2: the columns only, no stake_point or photo table)."""
    synced = tmp_path / "synced.gpkg"
    shutil.copyfile(V1, synced)
    assert schemas.migrate_file(synced, 2)
    assert schemas.version_of(synced) == 2
    with contextlib.closing(st_connect(synced)) as conn:
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    assert "stake_point" not in names and "photo" not in names
    validate_gpkg(synced)
