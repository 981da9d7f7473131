"""The PostGIS side of the PostGIS office: layer tables made from a GeoPackage's geodiff schema,
and pygeodiff change listings applied to them as parameterised SQL.

Every identifier goes through :mod:`psycopg.sql` (``sql.Identifier``) and every value is a
query parameter; nothing is built by formatting values into SQL. pygeodiff's PyPI wheel has no
PostgreSQL driver (``GeoDiff.driver_is_registered("postgres")`` is false), so a changeset is
read entry by entry with pygeodiff's changeset reader (table, insert/update/delete, old and new
values per column: :func:`fieldapp.sync.changesets.read_entries`) and applied here, checking the
old values like pygeodiff's own apply does.

Column types (geodiff's names -> PostgreSQL): integer -> bigint, double -> double precision,
boolean -> boolean, blob -> bytea, geometry -> ``geometry(TYPE, SRID)`` in the site CRS (the
GeoPackage header is dropped, the WKB kept: GeoPackage 1.2 s. 2.1.3), text, date, datetime and
anything else -> text (values kept exactly as the GeoPackage holds them).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from psycopg import sql

if TYPE_CHECKING:
    import psycopg

    from fieldapp.sync.changesets import GeoDiff

_PG_TYPES = {"integer": "bigint", "double": "double precision", "boolean": "boolean", "blob": "bytea"}
_GEOM_TYPE_RE = re.compile(r"^[A-Z]{4,20}$")


class ChangeDoesNotApply(Exception):
    """A change of a changeset does not fit the office's rows (its old values differ, its row
    is missing or already there); the transaction applying it is rolled back."""


@dataclass(frozen=True)
class Column:
    """One column as geodiff sees it: ``kind`` is geodiff's type name; geometry columns have
    ``geom_type`` (``POINT`` ...), ``srid`` (EPSG code of the site CRS) and ``has_z``."""

    name: str
    kind: str
    pk: bool = False
    not_null: bool = False
    geom_type: str | None = None
    srid: int | None = None
    has_z: bool = False


@dataclass(frozen=True)
class Table:
    """A layer (or bookkeeping) table: its columns in GeoPackage order."""

    name: str
    columns: tuple[Column, ...]

    @property
    def pk(self) -> tuple[Column, ...]:
        return tuple(c for c in self.columns if c.pk)

    @property
    def has_uuid(self) -> bool:
        return any(c.name == "uuid" for c in self.columns)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "columns": [asdict(c) for c in self.columns]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Table:
        return cls(data["name"], tuple(Column(**c) for c in data["columns"]))


def tables_from_geodiff(schema_json: list[dict[str, Any]]) -> dict[str, Table]:
    """``{name: Table}`` from pygeodiff's ``schema`` listing (``geodiff_schema``).

    Raises ``ValueError`` for a geometry column whose CRS has no EPSG code.
    """
    out: dict[str, Table] = {}
    for t in schema_json:
        crs = t.get("crs") or {}
        cols = []
        for c in t["columns"]:
            geom = c.get("geometry")
            srid = None
            if geom is not None:
                if str(crs.get("auth_name", "")).upper() != "EPSG" or not crs.get("auth_code"):
                    raise ValueError(
                        f"layer {t['table']}: its CRS has no EPSG code ({crs.get('auth_name')}:"
                        f"{crs.get('auth_code')}); the PostGIS office needs the site CRS as an EPSG code"
                    )
                srid = int(crs["auth_code"])
            gtype = str(geom["type"]).upper() if geom else None
            if gtype is not None and not _GEOM_TYPE_RE.match(gtype):
                raise ValueError(f"layer {t['table']}: geometry type {gtype!r} is not known")
            cols.append(Column(c["name"], c["type"], bool(c.get("primary_key")), bool(c.get("not_null")),
                               gtype, srid, bool(geom and geom.get("has_z"))))
        out[t["table"]] = Table(t["table"], tuple(cols))
    return out


def _pg_type(col: Column) -> sql.Composable:
    if col.kind == "geometry":
        assert col.geom_type is not None       # a geometry column has its type (tables_from_geodiff)
        gtype = col.geom_type + ("Z" if col.has_z else "")
        return sql.SQL("geometry({}, {})").format(sql.SQL(gtype), sql.Literal(col.srid))
    return sql.SQL(_PG_TYPES.get(col.kind, "text"))


def create_table(schema: str, table: Table) -> list[sql.Composed]:
    """``CREATE TABLE`` (uuid as key when the table has one, the GeoPackage key kept unique and
    not null) and a GiST index on each geometry column."""
    qualified = sql.Identifier(schema, table.name)
    defs: list[sql.Composable] = []
    for col in table.columns:
        d: sql.Composable = sql.SQL("{} {}").format(sql.Identifier(col.name), _pg_type(col))
        if col.pk or col.not_null or (table.has_uuid and col.name == "uuid"):
            d = d + sql.SQL(" NOT NULL")
        defs.append(d)
    key = ("uuid",) if table.has_uuid else tuple(c.name for c in table.pk)
    if key:
        defs.append(sql.SQL("PRIMARY KEY ({})").format(sql.SQL(", ").join(map(sql.Identifier, key))))
    if table.has_uuid and table.pk:
        defs.append(sql.SQL("UNIQUE ({})").format(sql.SQL(", ").join(sql.Identifier(c.name) for c in table.pk)))
    out = [sql.SQL("CREATE TABLE {} ({})").format(qualified, sql.SQL(", ").join(defs))]
    for col in table.columns:
        if col.kind == "geometry":
            out.append(sql.SQL("CREATE INDEX {} ON {} USING gist ({})").format(
                sql.Identifier(f"{table.name}_{col.name}_gist"), qualified, sql.Identifier(col.name)))
    return out


def add_column(schema: str, table: Table, col: Column) -> sql.Composed:
    """``ALTER TABLE ... ADD COLUMN`` for a column a schema change added."""
    return sql.SQL("ALTER TABLE {} ADD COLUMN {} {}").format(
        sql.Identifier(schema, table.name), sql.Identifier(col.name), _pg_type(col))


# ------------------------------------------------------------------------------- values
def _value(col: Column, raw: object, gd: GeoDiff) -> object:
    """A changeset value (:func:`fieldapp.sync.changesets.read_entries`) as a query parameter:
    a geometry's GeoPackage blob -> its WKB (pygeodiff ``create_wkb_from_gpkg_header``)."""
    if raw is None:
        return None
    if col.kind == "geometry":
        try:
            return gd.create_wkb_from_gpkg_header(bytes(raw))  # type: ignore[call-overload]  # the listed blob (anything else raises, as before)
        except Exception as exc:  # pygeodiff.GeoDiffLibError
            raise ChangeDoesNotApply(f"column {col.name}: not a GeoPackage geometry ({exc})") from exc
    if col.kind == "boolean":
        return bool(raw)
    return raw


def _placeholder(col: Column) -> sql.Composable:
    if col.kind == "geometry":
        return sql.SQL("ST_GeomFromWKB({}, {})").format(sql.Placeholder(), sql.Literal(col.srid))
    return sql.Placeholder()


def _match(col: Column, value: object) -> tuple[sql.Composable, list[object]]:
    """``col IS NOT DISTINCT FROM value`` (PostGIS ``=``: same coordinates in the same order)."""
    return (sql.SQL("{} IS NOT DISTINCT FROM {}").format(sql.Identifier(col.name), _placeholder(col)),
            [value])


def change_sql(schema: str, table: Table, entry: dict[str, Any],
               gd: GeoDiff) -> tuple[sql.Composed | sql.SQL, list[object]]:
    """The parameterised statement of one changeset entry and its parameters.

    Updates and deletes name the row by the GeoPackage key and, for an update, require the
    changed columns to still hold their old values; the caller checks one row was touched.
    """
    qualified = sql.Identifier(schema, table.name)
    changes = {c["column"]: c for c in entry["changes"]}
    kind = entry["type"]
    if kind == "insert":
        cols = [table.columns[i] for i in sorted(changes)]
        stmt = sql.SQL("INSERT INTO {} ({}) VALUES ({})").format(
            qualified, sql.SQL(", ").join(sql.Identifier(c.name) for c in cols),
            sql.SQL(", ").join(_placeholder(c) for c in cols))
        return stmt, [_value(c, changes[table.columns.index(c)].get("new"), gd) for c in cols]
    where: list[sql.Composable] = []
    params: list[object] = []
    for i, col in enumerate(table.columns):
        if col.pk:  # "=" (the key is never NULL) so the key's index finds the row
            where.append(sql.SQL("{} = {}").format(sql.Identifier(col.name), _placeholder(col)))
            params.append(_value(col, changes.get(i, {}).get("old"), gd))
    if kind == "delete":
        return sql.SQL("DELETE FROM {} WHERE {}").format(qualified, sql.SQL(" AND ").join(where)), params
    if kind != "update":
        raise ChangeDoesNotApply(f"unknown change type {kind!r}")
    sets: list[sql.Composable] = []
    set_params: list[object] = []
    for i, ch in sorted(changes.items()):
        col = table.columns[i]
        if "new" not in ch:
            continue
        sets.append(sql.SQL("{} = {}").format(sql.Identifier(col.name), _placeholder(col)))
        set_params.append(_value(col, ch["new"], gd))
        if not col.pk and "old" in ch:
            w, p = _match(col, _value(col, ch["old"], gd))
            where.append(w)
            params.extend(p)
    if not sets:
        return sql.SQL("SELECT 1"), []
    stmt = sql.SQL("UPDATE {} SET {} WHERE {}").format(
        qualified, sql.SQL(", ").join(sets), sql.SQL(" AND ").join(where))
    return stmt, set_params + params


def change_params(table: Table, entry: dict[str, Any], gd: GeoDiff) -> list[object]:
    """The parameters of :func:`change_sql` for ``entry`` alone (the statement is the same for
    every entry of one shape, so a batch builds it once)."""
    changes = {c["column"]: c for c in entry["changes"]}
    kind = entry["type"]
    cols = table.columns
    if kind == "insert":
        return [_value(cols[i], changes[i].get("new"), gd) for i in sorted(changes)]
    keys = [_value(c, changes.get(i, {}).get("old"), gd) for i, c in enumerate(cols) if c.pk]
    if kind != "update":
        return keys
    news = [_value(cols[i], ch["new"], gd) for i, ch in sorted(changes.items()) if "new" in ch]
    if not news:
        return []
    olds = [_value(cols[i], ch["old"], gd) for i, ch in sorted(changes.items())
            if "new" in ch and not cols[i].pk and "old" in ch]
    return news + keys + olds


def _shape(entry: dict[str, Any]) -> tuple[object, ...]:
    """What decides an entry's statement: its table, type and which old/new values it has."""
    return (entry["table"], entry["type"],
            tuple((c["column"], "old" in c, "new" in c) for c in entry["changes"]))


def _batches(entries: list[dict[str, Any]]) -> list[tuple[int, list[dict[str, Any]]]]:
    """Consecutive entries of one shape, with the index of the first (the order is kept)."""
    out: list[tuple[int, list[dict[str, Any]]]] = []
    last: tuple[object, ...] | None = None
    for n, entry in enumerate(entries):
        shape = _shape(entry)
        if shape != last:
            out.append((n, []))
            last = shape
        out[-1][1].append(entry)
    return out


def apply_entries(cur: psycopg.Cursor[Any], schema: str, tables: dict[str, Table], entries: list[dict[str, Any]],
                  gd: GeoDiff) -> dict[str, int]:
    """Apply changeset entries (:func:`fieldapp.sync.changesets.read_entries`; ``gd`` a pygeodiff
    context) with ``cur`` (inside the caller's transaction), in order, consecutive entries of
    one shape sent as one batch (psycopg ``executemany``, pipelined); return the number of
    changes per table.

    Raises
    ------
    ChangeDoesNotApply
        naming the table and the change when a table is unknown or a change touches no row
        (old values differ, row missing) or fails (row already there); the caller rolls back.
    """
    import psycopg

    counts: dict[str, int] = {}
    for first, batch in _batches(entries):
        kind = batch[0]["type"]
        table = tables.get(batch[0]["table"])
        where = f"changes {first + 1}-{first + len(batch)} ({kind} in {batch[0]['table']})"
        if table is None:
            raise ChangeDoesNotApply(f"{where}: the site has no table {batch[0]['table']!r}")
        stmt, first_params = change_sql(schema, table, batch[0], gd)
        params = [first_params] + [change_params(table, e, gd) for e in batch[1:]]
        checked = kind != "insert" and bool(params[0])
        if checked:
            stmt = stmt + sql.SQL(" RETURNING 1")
        try:
            cur.executemany(stmt, params, returning=checked)
        except psycopg.Error as exc:
            raise ChangeDoesNotApply(f"{where} fail: {str(exc).splitlines()[0]}") from exc
        if checked:
            n = 0
            while True:
                if cur.rowcount != 1:
                    raise ChangeDoesNotApply(
                        f"change {first + n + 1} ({kind} in {table.name}) finds no row with the values it"
                        " was made from (the office row was changed or deleted meanwhile)")
                n += 1
                if not cur.nextset():
                    break
        counts[table.name] = counts.get(table.name, 0) + len(batch)
    return counts
