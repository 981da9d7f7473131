"""A visit from outside is data, not schema: what a GeoPackage's ``sqlite_master`` may hold before
the sync lets it into the office (issue 30, item 1).

A visit travels by USB stick and e-mail. One carrying an extra SQLite trigger (one that rewrites
every tree's DBH on insert or update, say) would, once copied into the folder master or the
PostGIS template, run in the office and in every later checkout. So every entry of the file's
``sqlite_master`` -- tables, their columns, triggers, views, indexes -- is checked against what
fieldapp itself makes, and anything else is refused by name (:func:`foreign_entries`).

What fieldapp makes is not a hand list: :func:`expected` creates a fresh visit with the store
(:func:`fieldapp.store.create_visit`), adds the sync's own tables (the log, the conflicts table,
the office's schema log) with the sync's own statements, and reads its ``sqlite_master``.

Besides that, GeoPackage's and GDAL's own entries are accepted, as QGIS may have opened the
visit: ``gpkg_*`` tables, SQLite's own (``sqlite_sequence``, ``sqlite_stat*``, automatic
indexes, the R-tree's shadow tables) and GDAL's maintenance triggers -- an R-tree trigger
(``rtree_<table>_<column>_...``) or a feature-count trigger (``trigger_insert_feature_count_
<table>`` / ``trigger_delete_feature_count_<table>``) -- but only after SQLite itself, compiling
every insert, update and delete of the table with an authorizer, shows that the trigger writes
into nothing but that R-tree (or ``gpkg_ogr_contents``), calls no function but ``ST_MinX`` ...
``ST_IsEmpty`` and ``lower``, and raises nothing; and GeoPackage's check triggers on its own
``gpkg_*`` tables (``gpkg_tile_matrix_zoom_level_insert``), which may only raise. A trigger that
merely borrows such a name is foreign.

A ``layer_styles`` table (QGIS's styles; fieldapp writes one into each office master) is
accepted only when it is, table and rows, exactly what fieldapp writes for that file's layers
(:func:`fieldapp.sync.officestyles.foreign_styles`): a QGIS style can run actions and macros.
Its rows are checked on every check, also when the table itself is among ``also_allowed``.

A GeoPackage without ``fieldapp_meta`` (the engine's generic tests) has no expected tables; for
it only triggers and views are checked, by the same rules.
"""

from __future__ import annotations

import contextlib
import functools
import re
import sqlite3
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from fieldapp.sync.files import CONFLICTS_DDL, LOG_DDL, connect
from fieldapp.sync.files import quote_identifier as _qi
from fieldapp.sync.officestyles import STYLES_TABLE, expected_table_sql, foreign_styles

#: SQLite's own tables (AUTOINCREMENT, ANALYZE): they hold statistics, never run anything.
SQLITE_OWN_TABLES = frozenset({"sqlite_sequence", "sqlite_stat1", "sqlite_stat2", "sqlite_stat3", "sqlite_stat4"})
#: Functions GeoPackage's R-tree triggers (Annex F.3) and GDAL's feature-count triggers call.
MAINTENANCE_FUNCTIONS = frozenset({"st_isempty", "st_minx", "st_maxx", "st_miny", "st_maxy", "lower"})
RTREE_SHADOWS = ("_node", "_parent", "_rowid")
_RTREE_TRIGGER = re.compile(r"^(rtree_.+)_(insert|update\d+|delete)$")
_COUNT_TRIGGER = re.compile(r"^trigger_(insert|delete)_feature_count_(.+)$")
_WRITES = {sqlite3.SQLITE_INSERT: "inserts into", sqlite3.SQLITE_UPDATE: "updates",
           sqlite3.SQLITE_DELETE: "deletes from"}


def normalized(sql: str | None) -> str:
    """``sql`` compared loosely: lower case, runs of white space as one space, no quotes around
    names, no trailing ``;`` (GDAL and SQLite quote and space the same statement differently)."""
    text = re.sub(r"[\"`\[\]]", "", (sql or "").lower())
    return re.sub(r"\s+", " ", text).strip().rstrip(";").strip()


@dataclass(frozen=True)
class Expected:
    """What fieldapp itself makes: ``tables`` {name: column names}, ``virtual`` {name:
    normalized SQL}, and ``others`` {(type, name): (table, normalized SQL)} for triggers,
    views and indexes."""

    tables: dict[str, frozenset[str]]
    virtual: dict[str, str]
    others: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)


@functools.lru_cache(maxsize=1)
def expected() -> Expected:
    """Read ``sqlite_master`` of a visit the store makes now (plus the sync's own tables).

    Made once per process in a temporary folder (a fraction of a second)."""
    from fieldapp.store import create_visit
    from fieldapp.survey.visit import Visit
    from fieldapp.sync.schemas import SCHEMA_LOG_DDL

    with tempfile.TemporaryDirectory(prefix="fieldapp-schema-", ignore_cleanup_errors=True) as tmp:
        path = Path(tmp) / "expected.gpkg"
        create_visit(path, Visit.new("expected schema", crs="EPSG:32616"), durability="normal").close()
        with contextlib.closing(connect(path)) as conn:
            with conn:
                for ddl in (LOG_DDL, CONFLICTS_DDL, SCHEMA_LOG_DDL):
                    conn.execute(ddl)
            tables: dict[str, frozenset[str]] = {}
            virtual: dict[str, str] = {}
            others: dict[tuple[str, str], tuple[str, str]] = {}
            for kind, name, tbl, sql in conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"):
                if kind == "table" and normalized(sql).startswith("create virtual table"):
                    virtual[name] = normalized(sql)
                elif kind == "table":
                    tables[name] = frozenset(r[1] for r in conn.execute(f"PRAGMA table_xinfo({_qi(name)})"))
                elif sql is not None:
                    others[(kind, name)] = (tbl, normalized(sql))
    return Expected(tables, virtual, others)


def _probe_triggers(conn: sqlite3.Connection, table: str) -> tuple[dict[str, set[str]], dict[str, str]]:
    """What each trigger on ``table`` does, as SQLite sees it when it compiles an insert, an
    update of every column and a delete of the table (``EXPLAIN``: compiled, never run).

    Returns ({trigger: {"inserts into rtree_x", "calls lower", ...}}, {trigger: compile error})."""
    done: dict[str, set[str]] = {}
    errors: dict[str, str] = {}

    def authorize(action: int, arg1: str | None, arg2: str | None, _db: str | None,
                  trigger: str | None) -> int:
        if trigger is not None:
            if action in _WRITES:
                done.setdefault(trigger, set()).add(f"{_WRITES[action]} {arg1}")
            elif action == sqlite3.SQLITE_FUNCTION:
                done.setdefault(trigger, set()).add(f"calls {(arg2 or '').lower()}")
        return sqlite3.SQLITE_OK

    cols = [r[1] for r in conn.execute(f"PRAGMA table_xinfo({_qi(table)})") if r[6] == 0]
    statements = [f"INSERT INTO {_qi(table)} DEFAULT VALUES", f"DELETE FROM {_qi(table)}"]
    if cols:
        statements.append(f"UPDATE {_qi(table)} SET " + ", ".join(f"{_qi(c)} = {_qi(c)}" for c in cols))
    conn.set_authorizer(authorize)
    try:
        for sql in statements:
            try:
                conn.execute(f"EXPLAIN {sql}").fetchall()
            except sqlite3.Error as exc:
                errors[table] = str(exc)
    finally:
        conn.set_authorizer(None)
    return done, errors


def _may_do(name: str, table: str, rtrees: set[str]) -> set[str] | None:
    """What a GeoPackage/GDAL maintenance trigger of this name on ``table`` may do (as
    :func:`_probe_triggers` words it), ``None`` when the name is not such a trigger's: an R-tree
    trigger writes its R-tree, a feature-count trigger ``gpkg_ogr_contents`` (both calling only
    :data:`MAINTENANCE_FUNCTIONS`); a check trigger GeoPackage puts on its own ``gpkg_*`` table
    (``gpkg_tile_matrix_zoom_level_insert``: a ``RAISE`` when a row breaks the rules) nothing."""
    calls = {f"calls {f}" for f in MAINTENANCE_FUNCTIONS}
    m = _RTREE_TRIGGER.match(name)
    if m and m.group(1) in rtrees and m.group(1).startswith(f"rtree_{table}_"):
        return calls | {f"{w} {m.group(1)}" for w in _WRITES.values()}
    m = _COUNT_TRIGGER.match(name)
    if m and m.group(2) == table:
        return calls | {f"{w} gpkg_ogr_contents" for w in _WRITES.values()}
    if table.startswith("gpkg_") and name.startswith(f"{table}_"):
        return set()
    return None


def foreign_entries(conn: sqlite3.Connection, *, also_allowed: Iterable[tuple[str, str, str, str]] = ()) -> list[str]:
    """Every entry of ``conn``'s ``sqlite_master`` fieldapp does not make, in words (``trigger
    "dbh_rewrite" on table tree``, ``column tree.evil``, ``view "v"``); empty when none.

    ``also_allowed``: (type, name, table, SQL) rows accepted as they are (the office master's
    own entries, when the file is a copy of it). ``conn`` needs the ST_ functions registered
    (:func:`fieldapp.sync.files.connect`) for GDAL's R-tree triggers to compile.
    """
    rows = conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master").fetchall()
    allowed_rows = {(k, n, t, normalized(s)) for k, n, t, s in also_allowed}
    names = {n for k, n, _t, _s in rows if k == "table"}
    fieldapp_file = "fieldapp_meta" in names
    want = expected()
    rtrees = {n for k, n, _t, s in rows
              if k == "table" and n in want.virtual and normalized(s) == want.virtual[n]}
    if not fieldapp_file:    # a generic GeoPackage: R-trees by their form
        rtrees |= {n for k, n, _t, s in rows if k == "table" and re.fullmatch(
            r"create virtual table \S+ using rtree\(id, ?minx, ?maxx, ?miny, ?maxy\)", normalized(s))}
    found: list[str] = []
    unproven: dict[str, list[str]] = {}          # table -> triggers to prove by the authorizer
    for kind, name, table, sql in rows:
        if (kind, name, table, normalized(sql)) in allowed_rows:
            continue
        if kind == "table":
            if name in rtrees or name in SQLITE_OWN_TABLES or name.startswith("gpkg_"):
                continue
            if any(name == r + s for r in rtrees for s in RTREE_SHADOWS):
                continue
            if not fieldapp_file:
                if normalized(sql).startswith("create virtual table"):
                    found.append(f"virtual table {_qi(name)}")
                continue
            if name == STYLES_TABLE and name not in want.tables:
                continue        # its make and rows: below, whether or not also allowed
            if name not in want.tables:
                found.append(f"table {_qi(name)}")
                continue
            for col in conn.execute(f"PRAGMA table_xinfo({_qi(name)})"):
                if col[1] not in want.tables[name]:
                    found.append(f"column {name}.{col[1]}")
                elif col[6] != 0:
                    found.append(f"generated column {name}.{col[1]}")
        elif kind == "index":
            if sql is None or not fieldapp_file or want.others.get(("index", name)) == (table, normalized(sql)):
                continue    # SQLite's automatic index (UNIQUE, PRIMARY KEY), or fieldapp's own
            found.append(f"index {_qi(name)} on table {table}")
        elif kind == "trigger":
            if want.others.get(("trigger", name)) == (table, normalized(sql)):
                continue
            may = _may_do(name, table, rtrees)
            if may is None or (may and "raise" in normalized(sql)):
                found.append(f"trigger {_qi(name)} on table {table}")
            else:
                unproven.setdefault(table, []).append(name)
        elif want.others.get((kind, name)) != (table, normalized(sql)):
            found.append(f"{kind} {_qi(name)}")     # a view fieldapp does not make
    styles = [s for k, n, _t, s in rows if k == "table" and n == STYLES_TABLE]
    if fieldapp_file and styles and STYLES_TABLE not in want.tables:
        if normalized(styles[0]) != normalized(expected_table_sql()):
            found.append(f"table {_qi(STYLES_TABLE)} (not made as QGIS and fieldapp make it)")
        else:
            found.extend(foreign_styles(conn))
    for table, triggers in unproven.items():
        done, errors = _probe_triggers(conn, table)
        for name in triggers:
            odd = sorted(done.get(name, set()) - (_may_do(name, table, rtrees) or set()))
            if errors or odd:
                why = "; ".join(odd) or errors.get(table, "")
                found.append(f"trigger {_qi(name)} on table {table} ({why})")
    return found


def master_rows(conn: sqlite3.Connection) -> list[tuple[str, str, str, str]]:
    """``conn``'s ``sqlite_master`` rows, for :func:`foreign_entries`' ``also_allowed``."""
    return [tuple(r) for r in conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master")]


def check_schema(path: Path, *, what: str, error: Callable[[str], Exception], done: str,
                 also_allowed: Iterable[tuple[str, str, str, str]] = ()) -> None:
    """Refuse the GeoPackage at ``path`` when its schema holds anything fieldapp does not make
    (:func:`foreign_entries`), naming each entry found (read-only: the file is unchanged).

    Parameters
    ----------
    what : str
        The file in words ("visit /x/a.gpkg").
    error : exception class
        Raised with the message (:class:`~fieldapp.sync.errors.VisitRefused`, ...).
    done : str
        What was (not) done, for the message ("Nothing was synced").

    Raises
    ------
    error
        "<what> holds what fieldapp does not make: trigger "x" on table tree, ...".
    """
    with contextlib.closing(connect(Path(path), readonly=True)) as conn:
        found = foreign_entries(conn, also_allowed=also_allowed)
    if found:
        shown = ", ".join(found[:8]) + (f" (and {len(found) - 8} more)" if len(found) > 8 else "")
        raise error(
            f"{what} holds what fieldapp does not make: {shown}. A visit brings records, never"
            f" triggers, views, indexes or tables of its own (they would run in the office and in"
            f" every laptop copy). {done}; remove them (or make the visit again in fieldapp)"
        )
