"""QGIS styles of the office: the ``layer_styles`` a folder office master and a PostGIS office
hold, so the office opens the field's map (issue 31, item 4), and the check that a
``layer_styles`` table in a visit or master holds nothing else.

The styles are made from the file's own schema, never stored as a list: one default style
(:data:`~fieldapp.store.qgisqml.STYLE_NAME`) per feature table of ``gpkg_geometry_columns``, in
the colours of the export (the DXF's and KML's: water lines blue, transects magenta, each area
and line kind its own colour, trees by status live green / dead brown / removed red), labelled
from the table's name column (a tree's tag, an area's label, a note's text). So the styles of a
file can be made again from it and compared, byte for byte (:func:`foreign_styles`).

Security (docs/security.md): a QGIS style can carry attribute actions that run Python or a
shell command, Python macros run when a project opens, and forms with Python init code. The
sync takes the strict reading: a ``layer_styles`` table is accepted in a visit, a master or a
laptop's result only with exactly the columns QGIS/fieldapp create and only rows that are,
column for column, the style this module makes for that table (``styleSLD`` and ``ui`` empty);
any other row -- an edited colour, a second style, a style saved from QGIS -- is refused by name,
with no attempt to tell a harmless QML from a harmful one.

Where they are written: a visit's first sync (with its sync tables, so the laptop's copy, the
schema-only copy the site is made from and the master stay alike and the office still takes a
lone laptop's file whole), a new folder master that has none (a visit synced before), a
checkout (a copy of the master), and a PostGIS office's ``public.layer_styles`` at
``create_site``.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from fieldapp.store.qgisqml import LAYER_STYLES_DDL, STYLE_NAME, Category, qml

__all__ = ["STYLES_TABLE", "TABLE_COLOURS", "styles_for", "write_office_styles", "foreign_styles",
           "expected_table_sql", "pg_styles_ddl", "pg_style_rows", "PG_STYLE_INSERT", "PG_STYLES_TYPE_COLUMN",
           "write_pg_styles"]

STYLES_TABLE = "layer_styles"
#: A store feature table's colour (RGB): the export's colour of the matching layer.
TABLE_COLOURS: dict[str, tuple[int, int, int]] = {
    "ohwm_line": (0, 0, 255), "ohwm_point": (0, 0, 255), "transect": (255, 0, 255),
    "station": (255, 0, 255), "tree": (0, 255, 0), "area_feature": (66, 66, 66),
    "line_feature": (66, 66, 66), "walk_vertex": (192, 192, 192), "track_point": (128, 128, 128),
    "note": (66, 66, 66), "stake_point": (255, 0, 0), "data_point": (191, 0, 255),
}
#: (column, categories) a table is drawn by: trees by status, areas and lines by kind.
TABLE_CATEGORIES: dict[str, tuple[str, tuple[Category, ...]]] = {
    "tree": ("status", (("live", "live", (46, 125, 50)), ("dead", "dead", (141, 110, 99)),
                        ("removed", "removed", (192, 22, 27)))),
    "area_feature": ("kind", tuple((k, k.replace("_", " "), rgb) for k, rgb in {
        "wetland": (0, 255, 255), "woodland_stand": (0, 127, 0), "grove": (63, 127, 0),
        "impervious": (128, 128, 128), "disturbed": (165, 82, 0), "foundation": (66, 66, 66),
        "drive": (102, 102, 102), "parking": (153, 153, 153), "septic_field": (255, 127, 0),
        "utility_trench": (255, 0, 255), "swale": (0, 63, 255)}.items())),
    "line_feature": ("kind", tuple((k, k.replace("_", " "), rgb) for k, rgb in {
        "drainageway_centreline": (0, 127, 255), "swale": (0, 63, 255), "utility_trench": (255, 0, 255),
        "drive": (102, 102, 102)}.items())),
}
#: The column a table's features are labelled with (none for vertices, stations and fixes).
LABEL_COLUMN = {"tree": "tag", "data_point": "name", "area_feature": "label", "line_feature": "label",
                "ohwm_line": "label", "transect": "label", "note": "text", "stake_point": "target_label"}
_WIDE = {"ohwm_line": 0.8}
_OTHER = (0x42, 0x42, 0x42)     # a feature table this fieldapp does not know: dark grey
#: The columns of a style row compared with fieldapp's (all but ``id`` and ``update_time``).
ROW_COLUMNS = ("f_table_catalog", "f_table_schema", "f_table_name", "f_geometry_column", "styleName",
               "styleQML", "styleSLD", "useAsDefault", "description", "owner", "ui")

Row = tuple[Any, ...]


def _feature_tables(conn: sqlite3.Connection) -> Iterator[tuple[str, str, str, set[str]]]:
    """(table, geometry column, geometry type, column names) of each feature table."""
    rows = conn.execute("SELECT table_name, column_name, geometry_type_name FROM gpkg_geometry_columns"
                        " ORDER BY table_name").fetchall()
    for table, column, gtype in rows:
        cols = {r[1] for r in conn.execute("SELECT * FROM pragma_table_info(?)", (table,))}
        yield str(table), str(column), str(gtype), cols


def table_qml(table: str, geometry_type: str, columns: set[str]) -> str:
    """fieldapp's style of the store table ``table`` (of ``geometry_type``, with ``columns``)."""
    attr, cats = TABLE_CATEGORIES.get(table, (None, ()))
    label = LABEL_COLUMN.get(table)
    return qml(geometry_type, colour=TABLE_COLOURS.get(table, _OTHER),
               attr=attr if attr in columns else None, categories=cats if attr in columns else (),
               width_mm=_WIDE.get(table, 0.5), label_field=label if label in columns else None)


def styles_for(conn: sqlite3.Connection) -> dict[str, Row]:
    """{table: the ``layer_styles`` row (:data:`ROW_COLUMNS`) fieldapp writes for it} for every
    feature table of the GeoPackage open on ``conn``."""
    out: dict[str, Row] = {}
    for table, column, gtype, cols in _feature_tables(conn):
        attr = TABLE_CATEGORIES.get(table, (None, ()))[0]
        how = f": by {attr}" if attr in cols else ""
        out[table] = ("", "", table, column, STYLE_NAME, table_qml(table, gtype, cols), "", 1,
                      f"fieldapp's style of {table}{how}", "fieldapp", "")
    return out


def write_office_styles(gpkg: Path) -> int:
    """Give the GeoPackage ``gpkg`` fieldapp's ``layer_styles``: the table (registered in
    ``gpkg_contents`` as QGIS does) with one default style per feature table. A file that has
    the table already is left as it is (its rows can only be fieldapp's styles: the schema check
    runs first; in a first sync's schema-only copy it is empty and the visit's rows follow in the
    changeset). Returns the styles written (0 when the table was there).

    Raises
    ------
    sqlite3.Error
        The file could not be written (``database or disk is full``).
    """
    with contextlib.closing(sqlite3.connect(gpkg)) as conn, conn:
        if conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                        (STYLES_TABLE,)).fetchone():
            return 0
        conn.execute(LAYER_STYLES_DDL)
        conn.execute("INSERT OR IGNORE INTO gpkg_contents (table_name, data_type, identifier, description,"
                     " last_change) VALUES ('layer_styles', 'attributes', 'layer_styles',"
                     " 'QGIS styles of the layers (fieldapp)', strftime('%Y-%m-%dT%H:%M:%fZ','now'))")
        rows = list(styles_for(conn).values())
        conn.executemany(f"INSERT INTO {STYLES_TABLE} ({', '.join(ROW_COLUMNS)})"
                         f" VALUES ({', '.join('?' * len(ROW_COLUMNS))})", rows)
    return len(rows)


@contextlib.contextmanager
def _scratch() -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(":memory:")
    try:
        yield conn
    finally:
        conn.close()


def expected_table_sql() -> str:
    """The ``sqlite_master`` SQL of the ``layer_styles`` table fieldapp makes."""
    with _scratch() as conn:
        conn.execute(LAYER_STYLES_DDL)
        return str(conn.execute("SELECT sql FROM sqlite_master WHERE name = ?", (STYLES_TABLE,)).fetchone()[0])


def foreign_styles(conn: sqlite3.Connection) -> list[str]:
    """Each row of the ``layer_styles`` table of the GeoPackage on ``conn`` that is not the
    style fieldapp writes for its layer, in words; empty when all are (module docstring). The
    table's own make is compared by :func:`fieldapp.sync.schemacheck.foreign_entries` with
    :func:`expected_table_sql`."""
    want = styles_for(conn)
    found: list[str] = []
    seen: set[str] = set()
    cur = conn.execute(f"SELECT id, typeof(update_time), length(update_time), {', '.join(ROW_COLUMNS)}"
                       f" FROM {STYLES_TABLE} ORDER BY id")
    for row in cur:
        sid, time_type, time_len, values = row[0], row[1], row[2], tuple(row[3:])
        layer = values[2]
        if not isinstance(layer, str) or layer not in want or layer in seen or values != want[layer] \
                or time_type not in ("text", "null") or (time_len or 0) > 40:
            found.append(f"style {sid} of {layer!r} in table \"{STYLES_TABLE}\" (not fieldapp's style:"
                         " a style may run actions or macros in QGIS)")
        else:
            seen.add(layer)
    return found


def pg_styles_ddl() -> str:
    """QGIS's ``public.layer_styles`` of a PostgreSQL database (as QGIS 3.22 and later make it,
    when the office saves a style), made if missing."""
    return ("CREATE TABLE IF NOT EXISTS public.layer_styles (id SERIAL PRIMARY KEY, f_table_catalog varchar,"
            " f_table_schema varchar, f_table_name varchar, f_geometry_column varchar, stylename text,"
            " styleqml xml, stylesld xml, useasdefault boolean, description text,"
            " owner varchar(63) DEFAULT CURRENT_USER, ui xml, update_time timestamp DEFAULT CURRENT_TIMESTAMP,"
            " type varchar)")


#: Adds the column QGIS 3.22 added to a ``public.layer_styles`` an older QGIS made.
PG_STYLES_TYPE_COLUMN = "ALTER TABLE public.layer_styles ADD COLUMN IF NOT EXISTS type varchar"
#: One style row (:func:`pg_style_rows`), the QML parsed as an XML document as QGIS does; only
#: for a table that has no default style yet (one the office chose is kept).
PG_STYLE_INSERT = ("INSERT INTO public.layer_styles (f_table_catalog, f_table_schema, f_table_name,"
                   " f_geometry_column, stylename, styleqml, useasdefault, description, owner, type)"
                   " SELECT %(catalog)s::varchar, %(schema)s::varchar, %(table)s::varchar, %(column)s::varchar,"
                   " %(name)s::text, XMLPARSE(DOCUMENT %(qml)s::text), true, %(description)s::text, 'fieldapp',"
                   " 'vector' WHERE NOT EXISTS (SELECT 1 FROM public.layer_styles WHERE f_table_catalog ="
                   " %(catalog)s::varchar AND f_table_schema = %(schema)s::varchar AND f_table_name ="
                   " %(table)s::varchar AND useasdefault)")


def write_pg_styles(conn: Any, schema_gpkg: Path, site_schema: str) -> None:
    """Give each feature table of the PostGIS site ``site_schema`` (made from ``schema_gpkg``)
    fieldapp's style as its default in ``public.layer_styles`` (made if missing), unless the
    office set a default of its own; on ``conn`` (psycopg), in the caller's transaction."""
    conn.execute(pg_styles_ddl())
    conn.execute(PG_STYLES_TYPE_COLUMN)
    keys = ("catalog", "schema", "table", "column", "name", "qml", "description")
    for style in pg_style_rows(schema_gpkg, conn.info.dbname, site_schema):
        conn.execute(PG_STYLE_INSERT, dict(zip(keys, style, strict=True)))


def pg_style_rows(schema_gpkg: Path, database: str, site_schema: str) -> list[Row]:
    """The rows of ``public.layer_styles`` for a PostGIS site made from ``schema_gpkg``:
    (catalog, schema, table, geometry column, name, QML, description), one per feature table."""
    from fieldapp.sync.files import connect

    with contextlib.closing(connect(Path(schema_gpkg), readonly=True)) as conn:
        rows = styles_for(conn)
    return [(database, site_schema, r[2], r[3], r[4], r[5], r[8]) for r in rows.values()]
