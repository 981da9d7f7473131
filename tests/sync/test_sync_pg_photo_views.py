"""The PostGIS office has the GeoPackage's photo mappings (issue 31, item 6): a
``<layer>_photo`` view per record table, pairing each feature's ``fid`` with its photos'
``fid`` (and uuids) as the GeoPackage's Related Tables views do, live over office edits.

Needs PostgreSQL with PostGIS (``tests/sync/conftest.py``: ``FIELDAPP_TEST_PG``, else a
throwaway cluster; under CI these fail without one)."""

from __future__ import annotations

import contextlib

from psycopg import sql

from fieldapp.app.photos import attach_files
from fieldapp.store import open_visit
from fieldapp.store.media import BASE_LAYERS, mapping_name
from fieldapp.survey.features import Layer
from fieldapp.sync import PostgisOffice, sync
from fieldapp.sync.laptop import site_id_of
from fieldapp.sync.pgphotos import photo_view_names
from tests.photo_sample import jpeg
from tests.sync.test_sync_photos import _pairs, _start


def _pg_pairs(conn, schema, layer):
    """(base uuid, photo uuid) of the office's mapping view, through its integer keys."""
    return sorted(conn.execute(sql.SQL(
        "SELECT b.uuid, p.uuid FROM {m} m JOIN {b} b ON b.fid = m.base_id JOIN {p} p ON p.fid = m.related_id"
    ).format(m=sql.Identifier(schema, f"{layer}_photo"), b=sql.Identifier(schema, layer),
             p=sql.Identifier(schema, "photo"))).fetchall())


def test_the_office_has_a_photo_view_per_record_table_like_the_geopackage(pg_url, tmp_path):
    office = PostgisOffice(pg_url, create=True)
    path_a, path_b, oak, maple = _start(tmp_path, office)
    with open_visit(path_a, who="a@laptop-a") as store:
        (p_oak,) = attach_files(store.visit, [jpeg(tmp_path / "oak.jpg")], layer=Layer.TREE, uuid=oak.uuid).kept
        (p_site,) = attach_files(store.visit, [jpeg(tmp_path / "site.jpg", size=(200, 100))],
                                 layer=Layer.SITE).kept
        site_uuid = store.visit.site.uuid
    sync(path_a, office)
    schema = site_id_of(path_a)
    with contextlib.closing(office.connect()) as conn:
        views = {r[0] for r in conn.execute(
            "SELECT table_name FROM information_schema.views WHERE table_schema = %s", (schema,))}
        tables = {r[0] for r in conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = %s"
            " AND table_type = 'BASE TABLE'", (schema,))}
        # every record table of the visit has its view, named as in the GeoPackage
        assert views == {mapping_name(layer) for layer in BASE_LAYERS if layer.value in tables}
        assert {"tree_photo", "site_photo", "note_photo"} <= views
        assert set(photo_view_names(tables)) == views
        cols = [r[0] for r in conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = %s"
            " AND table_name = 'tree_photo' ORDER BY ordinal_position", (schema,))]
        assert cols == ["id", "base_id", "related_id", "base_uuid", "related_uuid"]
        # the same pairs as the laptop's GeoPackage mapping, by uuid (the fids may differ)
        assert _pg_pairs(conn, schema, "tree") == _pairs(path_a, "tree_photo") == [(oak.uuid, p_oak.uuid)]
        assert _pg_pairs(conn, schema, "site") == [(site_uuid, p_site.uuid)]
        assert conn.execute(sql.SQL("SELECT base_uuid, related_uuid FROM {}").format(
            sql.Identifier(schema, "tree_photo"))).fetchall() == [(oak.uuid, p_oak.uuid)]
        # an office edit in QGIS (the photo moved to the maple) shows in the view at once
        conn.execute(sql.SQL("UPDATE {} SET record_uuid = %s WHERE uuid = %s").format(
            sql.Identifier(schema, "photo")), (maple.uuid, p_oak.uuid))
        assert _pg_pairs(conn, schema, "tree") == [(maple.uuid, p_oak.uuid)]
        conn.rollback()
        comment = conn.execute("SELECT obj_description(%s::regclass)",
                               (f'"{schema}".tree_photo',)).fetchone()[0]
        assert "base_id = tree.fid, related_id = photo.fid" in comment
    # the views travel nowhere: the second laptop's sync and checkout still work and its
    # GeoPackage keeps its own mapping views
    sync(path_b, office)
    assert _pairs(path_b, "tree_photo") == [(oak.uuid, p_oak.uuid)]
