"""The photo mappings of a PostGIS office: the ``<layer>_photo`` views the GeoPackage has.

A visit GeoPackage relates each record table to its photos through the Related Tables
Extension's mapping views (:mod:`fieldapp.store.media`): ``tree_photo`` pairs a tree's ``fid``
(``base_id``) with its photos' ``fid`` (``id``, ``related_id``), joined by uuid so the pairs are
always the current keys. The office's tables in PostGIS are the GeoPackage's tables (geodiff's
schema: views are not carried), so without these views QGIS users in the office could not see
which photo belongs to which feature. Each site schema gets the same views, with the same
columns, plus ``base_uuid`` and ``related_uuid`` (the office tables' key is the uuid): in QGIS,
a relation from the layer (``fid`` = ``base_id``) to the view, and from the view to ``photo``
(``related_id`` = ``fid``), shows a feature's photos, as the GeoPackage's relations do.

They are views, never written: a sync neither sends nor receives them, an office edit in QGIS
(a photo moved to another tree by its ``record_uuid``) shows in them at once, and a schema
change that adds a record table gets its view in the same transaction
(:meth:`fieldapp.sync.pgoffice.PostgisOffice.migrate`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from fieldapp.store.media import BASE_LAYERS, MEDIA_TABLE, mapping_name

if TYPE_CHECKING:
    from psycopg import sql as psql

__all__ = ["photo_view_ddl", "photo_view_names"]


def photo_view_names(table_names: Iterable[str]) -> list[str]:
    """The mapping views a site with these GeoPackage tables gets: one per record table a photo
    can show (:data:`fieldapp.store.media.BASE_LAYERS`) that it has, when it has ``photo``."""
    names = set(table_names)
    if MEDIA_TABLE not in names:
        return []
    return [mapping_name(layer) for layer in BASE_LAYERS if layer.value in names]


def photo_view_ddl(site_id: str, table_names: Iterable[str]) -> list[psql.Composed]:
    """``CREATE OR REPLACE VIEW`` of each mapping view of :func:`photo_view_names` in the
    site's schema, with its comment (run again after a schema change: it replaces them)."""
    from psycopg import sql

    names = set(table_names)
    out: list[psql.Composed] = []
    for layer in BASE_LAYERS:
        base = layer.value
        if MEDIA_TABLE not in names or base not in names:
            continue
        view = sql.Identifier(site_id, mapping_name(layer))
        out.append(sql.SQL(
            "CREATE OR REPLACE VIEW {view} AS SELECT p.fid AS id, b.fid AS base_id, p.fid AS related_id,"
            " b.uuid AS base_uuid, p.uuid AS related_uuid FROM {photo} p JOIN {base} b"
            " ON b.uuid = p.record_uuid WHERE p.record_table = {name}").format(
                view=view, photo=sql.Identifier(site_id, MEDIA_TABLE), base=sql.Identifier(site_id, base),
                name=sql.Literal(base)))
        out.append(sql.SQL("COMMENT ON VIEW {} IS {}").format(view, sql.Literal(
            f"Photos of each {base}: base_id = {base}.fid, related_id = photo.fid (as the"
            f" GeoPackage's Related Tables mapping {mapping_name(layer)}; a view by uuid)")))
    return out
