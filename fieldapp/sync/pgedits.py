"""Edits made in the office, on the PostGIS tables (QGIS), turned into changesets the laptops pull.

Each layer table of a site gets three triggers:

- ``BEFORE INSERT``: a new feature without ``fid`` / ``uuid`` (QGIS adding a tree) gets the
  next fid of its table and a fresh uuid (32 hex digits, as the app writes);
- ``BEFORE INSERT OR UPDATE``: an office edit sets ``modified_utc`` to the time the audit logs
  it, a new feature gets ``created_utc`` / ``created_by`` (:func:`touch_function_ddl`), so the
  office's table and the laptops that receive the edit show when it was made;
- ``AFTER INSERT OR UPDATE OR DELETE``: the row before and after goes into the site's audit
  table ``fieldapp_office_edits`` -- unless the change is a laptop's changeset being applied
  (``fieldapp_office.begin_apply`` in that transaction, by the holder of the site's lock; a
  session setting no longer counts: :mod:`fieldapp.sync.pgroles`).

:func:`fold_office_edits` (called under the site lock, before a laptop reads the office) turns
what the audit table holds into one changeset under the same log as the laptops': the master
GeoPackage as the log has it, a copy with the touched features set to what the tables hold now
(their geometry as GeoPackage blobs in the site CRS), and pygeodiff's ``create_changeset``
between the two, carrying its own log row (laptop id ``office``, synced by the database roles
that edited). The layer tables already hold the edits, so only the log rows are written to
them; the audit rows go in the same transaction. A laptop that edited the same field gets a
conflict record when it rebases onto it, like any other.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import tempfile
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import shapely

from fieldapp.sync import changesets as cs
from fieldapp.sync import gpkgsql, pgroles, pgsql
from fieldapp.sync.files import INTERNAL_TABLES, LOG_TABLE, quote_identifier, record_changeset_file, sha256_of
from fieldapp.sync.officestore import utc_now_iso

if TYPE_CHECKING:
    import psycopg
    from psycopg import sql as pgsql_text

EDITS_TABLE = "fieldapp_office_edits"
OFFICE_LAPTOP_ID = "office"


def trigger_ddl(schema: str, tables: dict[str, pgsql.Table]) -> list[pgsql_text.Composed]:
    """The audit table, the trigger functions and the triggers of a site's layer tables."""
    from psycopg import sql

    out = [
        sql.SQL("CREATE TABLE {} (id bigserial PRIMARY KEY, layer text NOT NULL, op text NOT NULL,"
                " old_row jsonb, new_row jsonb, edited_by text NOT NULL DEFAULT current_user,"
                " edited_at timestamptz NOT NULL DEFAULT now())").format(sql.Identifier(schema, EDITS_TABLE)),
        pgroles.audit_function_ddl(schema, EDITS_TABLE),
    ]
    return out + [touch_function_ddl(schema)] + table_trigger_ddl(schema, tables)


#: The bookkeeping columns an office edit stamps (:func:`touch_function_ddl`).
STAMPED = ("created_utc", "modified_utc", "created_by")


def touch_function_ddl(schema: str) -> pgsql_text.Composed:
    """The site's stamping trigger function (``CREATE OR REPLACE``): an office edit (QGIS)
    sets ``modified_utc`` to the time the audit logs it (``now()``, the transaction's time, as
    ``edited_at``; UTC ISO 8601 with milliseconds and ``Z``, as the app writes it), and a new
    feature without them gets ``created_utc`` (the same time) and ``created_by``
    (``ROLE@office``). A laptop's changeset being applied is left as sent (its own times), and
    an update that changes nothing is not stamped. ``SECURITY DEFINER``: the applying marks are
    the office role's (:mod:`fieldapp.sync.pgroles`)."""
    from psycopg import sql

    return sql.SQL("""CREATE OR REPLACE FUNCTION {}.fieldapp_touch() RETURNS trigger {} AS $f$
DECLARE
  stamp text := to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
BEGIN
  IF EXISTS (SELECT 1 FROM fieldapp_office.applying a WHERE a.backend_pid = pg_backend_pid()
             AND a.xid = pg_current_xact_id() AND a.site_id = {}) THEN
    RETURN NEW;
  END IF;
  IF TG_OP = 'UPDATE' AND NEW IS NOT DISTINCT FROM OLD THEN
    RETURN NEW;
  END IF;
  NEW.modified_utc := stamp;
  IF TG_OP = 'INSERT' THEN
    NEW.created_utc := coalesce(NEW.created_utc, stamp);
    NEW.created_by := coalesce(NEW.created_by, session_user || '@office');
  END IF;
  RETURN NEW;
END $f$""").format(sql.Identifier(schema), sql.SQL(pgroles.DEFINER), sql.Literal(schema))


def touch_trigger_ddl(schema: str, tables: dict[str, pgsql.Table]) -> list[pgsql_text.Composed]:
    """The stamping trigger (:func:`touch_function_ddl`, which must exist) of each of
    ``tables`` that has the :data:`STAMPED` columns; replaces one already there."""
    from psycopg import sql

    out: list[pgsql_text.Composed] = []
    for table in tables.values():
        if table.name in INTERNAL_TABLES or not set(STAMPED) <= {c.name for c in table.columns}:
            continue
        qualified = sql.Identifier(schema, table.name)
        out.append(sql.SQL("DROP TRIGGER IF EXISTS fieldapp_touch ON {}").format(qualified))
        out.append(sql.SQL("CREATE TRIGGER fieldapp_touch BEFORE INSERT OR UPDATE ON {} FOR EACH ROW"
                           " EXECUTE FUNCTION {}.fieldapp_touch()").format(qualified, sql.Identifier(schema)))
    return out


def upgrade_site_ddl(schema: str, tables: dict[str, pgsql.Table]) -> list[pgsql_text.Composed]:
    """What an office made by an older fieldapp lacks for a site (``--upgrade-office``): the
    stamping function and triggers. Idempotent."""
    return [touch_function_ddl(schema)] + touch_trigger_ddl(schema, tables)


def table_trigger_ddl(schema: str, tables: dict[str, pgsql.Table]) -> list[pgsql_text.Composed]:
    """The audit trigger (and the new-row trigger giving a fid and uuid) of each of ``tables``
    (the site's audit table and function exist: :func:`trigger_ddl`); for tables a schema
    change adds (:meth:`fieldapp.sync.pgoffice.PostgisOffice.migrate`)."""
    from psycopg import sql

    s = sql.Identifier(schema)
    out: list[pgsql_text.Composed] = []
    for table in tables.values():
        if table.name in INTERNAL_TABLES:
            continue
        qualified = sql.Identifier(schema, table.name)
        out.append(sql.SQL("CREATE TRIGGER fieldapp_audit AFTER INSERT OR UPDATE OR DELETE ON {}"
                           " FOR EACH ROW EXECUTE FUNCTION {}.fieldapp_audit()").format(qualified, s))
        if table.has_uuid and len(table.pk) == 1 and table.pk[0].kind == "integer":
            fid = sql.Identifier(table.pk[0].name)
            fn = sql.Identifier(schema, f"fieldapp_new_{table.name}")
            out.append(sql.SQL("""CREATE FUNCTION {fn}() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $f$
BEGIN
  IF NEW.{fid} IS NULL THEN SELECT coalesce(max({fid}), 0) + 1 INTO NEW.{fid} FROM {t}; END IF;
  IF NEW.uuid IS NULL THEN NEW.uuid := replace(gen_random_uuid()::text, '-', ''); END IF;
  RETURN NEW;
END $f$""").format(fn=fn, fid=fid, t=qualified))
            out.append(sql.SQL("CREATE TRIGGER fieldapp_new BEFORE INSERT ON {} FOR EACH ROW"
                               " EXECUTE FUNCTION {}()").format(qualified, fn))
    return out + touch_trigger_ddl(schema, tables)


def _key_of(table: pgsql.Table) -> tuple[str, ...]:
    return ("uuid",) if table.has_uuid else tuple(c.name for c in table.pk)


def _touched(rows: list[tuple[str, Any, Any]],
             tables: dict[str, pgsql.Table]) -> dict[str, set[tuple[object, ...]]]:
    """``{layer: {key values}}`` of every feature the audit rows touched (before and after)."""
    out: dict[str, set[tuple[object, ...]]] = {}
    for layer, old, new in rows:
        table = tables.get(layer)
        if table is None:
            continue
        key = _key_of(table)
        for row in (old, new):
            if row is not None:
                out.setdefault(layer, set()).add(tuple(row.get(k) for k in key))
    return out


def _current_rows(conn: psycopg.Connection[Any], schema: str, table: pgsql.Table,
                  keys: set[tuple[object, ...]]) -> list[tuple[Any, ...]]:
    """The rows of ``table`` with those keys as they are now, geometry as WKB."""
    from psycopg import sql

    key = _key_of(table)
    cols = sql.SQL(", ").join(
        sql.SQL("ST_AsBinary({})").format(sql.Identifier(c.name)) if c.kind == "geometry" else sql.Identifier(c.name)
        for c in table.columns)
    where = sql.SQL(" AND ").join(sql.SQL("{} = %s").format(sql.Identifier(k)) for k in key)
    q = sql.SQL("SELECT {} FROM {} WHERE {}").format(cols, sql.Identifier(schema, table.name), where)
    out = []
    for k in keys:
        if any(v is None for v in k):
            continue
        out.extend(conn.execute(q, list(k)).fetchall())
    return out


def _srs_ids(lite: sqlite3.Connection) -> dict[tuple[str, str], int]:
    return {(t, c): s for t, c, s in lite.execute(
        "SELECT table_name, column_name, srs_id FROM gpkg_geometry_columns")}


def _write_rows(lite: sqlite3.Connection, table: pgsql.Table, keys: set[tuple[object, ...]],
                rows: list[tuple[Any, ...]]) -> None:
    """Set ``table``'s features with ``keys`` in the GeoPackage copy to ``rows`` (PostGIS now)."""
    key = _key_of(table)
    srs = _srs_ids(lite)
    name = quote_identifier(table.name)
    where = " AND ".join(f"{quote_identifier(k)} = ?" for k in key)
    for k in keys:
        lite.execute(f"DELETE FROM {name} WHERE {where}", list(k))
    cols = ", ".join(quote_identifier(c.name) for c in table.columns)
    marks = ", ".join("?" for _ in table.columns)
    for row in rows:
        values = []
        for col, v in zip(table.columns, row, strict=True):
            if col.kind == "geometry" and v is not None:
                from fieldapp.store.schema import gpkg_blob

                srs_id = srs.get((table.name, col.name), col.srid)
                assert srs_id is not None       # a geometry column has its SRID (tables_from_geodiff)
                v = gpkg_blob(shapely.from_wkb(bytes(v)), srs_id)
            elif isinstance(v, memoryview):
                v = bytes(v)
            values.append(v)
        lite.execute(f"INSERT INTO {name} ({cols}) VALUES ({marks})", values)


class _FoldingOffice(Protocol):
    """What :func:`fold_office_edits` uses of the office (:class:`~fieldapp.sync.pgoffice.PostgisOffice`)."""

    def _head_in(self, conn: psycopg.Connection[Any], site_id: str) -> int: ...

    def fetch_master(self, site_id: str, dest: Path) -> None: ...


def fold_office_edits(office: _FoldingOffice, conn: psycopg.Connection[Any], site_id: str,
                      site: dict[str, Any]) -> int | None:
    """Turn the site's audit rows into one logged changeset (module docstring); return its seq,
    or ``None`` when there were none. Runs in one transaction on ``conn`` (the lock holder's)."""
    import psycopg
    from psycopg import sql

    folded: int | None = None
    with conn.transaction():
        seq = office._head_in(conn, site_id) + 1
        # the audit rows are taken (deleted) only inside a changeset apply, which must end with
        # its change-log entry (fieldapp.sync.pgroles): nothing folded, nothing kept
        conn.execute("SELECT fieldapp_office.begin_apply(%s, %s)", (site_id, seq))
        rows = sorted(conn.execute("SELECT id, layer, old_row, new_row, edited_by"
                                   " FROM fieldapp_office.claim_office_edits(%s)", (site_id,)).fetchall())
        if not rows:
            raise psycopg.Rollback()
        tables = site["tables"]
        touched = _touched([(r[1], r[2], r[3]) for r in rows], tables)
        changeset_id = uuid.uuid4().hex
        by = ", ".join(sorted({r[4] for r in rows}))
        now = utc_now_iso()
        gd = cs.new_geodiff()
        with tempfile.TemporaryDirectory(prefix="fieldapp-pg-") as work:
            before, after, out = Path(work) / "before.gpkg", Path(work) / "after.gpkg", Path(work) / "office.geodiff"
            office.fetch_master(site_id, before)
            after.write_bytes(before.read_bytes())
            with contextlib.closing(sqlite3.connect(after)) as lite:
                gpkgsql.register(lite)
                with lite:
                    for layer, keys in touched.items():
                        _write_rows(lite, tables[layer], keys, _current_rows(conn, site_id, tables[layer], keys))
                    counts = json.dumps({layer: len(keys) for layer, keys in touched.items()})
                    lite.execute(f"INSERT INTO {LOG_TABLE} (seq, changeset_id, laptop_id, synced_by, applied_utc,"
                                 " counts_json) VALUES (?, ?, ?, ?, ?, ?)",
                                 (seq, changeset_id, OFFICE_LAPTOP_ID, by, now, counts))
            gd.create_changeset(str(before), str(after), str(out))
            entries = [e for e in cs.read_entries(gd, out) if e["table"] == LOG_TABLE]
            with conn.cursor() as cur:  # the layer tables hold the edits already: the log row only
                pgsql.apply_entries(cur, site_id, tables, entries, gd)
            sha, size = sha256_of(out), out.stat().st_size
            with contextlib.closing(sqlite3.connect(after)) as lite, lite:
                record_changeset_file(lite, seq, sha, size)
            conn.execute(sql.SQL("UPDATE {} SET sha256 = %s, size_bytes = %s WHERE seq = %s").format(
                sql.Identifier(site_id, LOG_TABLE)), (sha, size, seq))
            conn.execute("SELECT fieldapp_office.finish_apply(%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                         (site_id, seq, changeset_id, OFFICE_LAPTOP_ID, by, now, sha, size, out.read_bytes()))
        folded = seq
    return folded
