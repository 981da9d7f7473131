"""Thin helpers over pygeodiff: one context per sync, readable errors, changeset checks.

All diffing, rebasing and applying is pygeodiff's (the engine behind Mergin Maps); this module
only reads its JSON listings (``list_changes``, ``list_changes_summary``, ``schema``) and checks a
changeset against a schema before anyone applies it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pygeodiff

from fieldapp.store.paths import long_path
from fieldapp.sync.errors import InvalidOfficeData
from fieldapp.sync.files import LOG_TABLE

#: Changeset ids are UUID4 hex strings; anything else in a name or a log row is refused.
CHANGESET_ID_RE = re.compile(r"^[0-9a-f]{32}$")


#: pygeodiff's methods that take file paths: {name: positions of the path arguments}; for
#: ``schema`` and ``dump_data`` only with the ``"sqlite"`` driver (else the source is no file)
_PATH_ARGS = {
    "create_changeset": (0, 1, 2), "invert_changeset": (0, 1), "rebase": (0, 1, 2, 3),
    "create_rebased_changeset": (0, 1, 2, 3, 4), "apply_changeset": (0, 1),
    "list_changes": (0, 1), "list_changes_summary": (0, 1), "has_changes": (0,),
    "changes_count": (0,), "make_copy_sqlite": (0, 1), "read_changeset": (0,),
    "schema": (2, 3), "dump_data": (2, 3),
}


class GeoDiff(pygeodiff.GeoDiff):  # type: ignore[misc]  # pygeodiff ships no types: its class is Any
    r"""pygeodiff's context, handing it every file path in the form it opens on Windows: the
    long-path form (:func:`fieldapp.store.paths.long_path`: ``\\?\UNC\server\share\a.gpkg``,
    ``\\?\C:\...``). Under wine pygeodiff refuses a plain ``\\server\share\a.gpkg``
    ("Missing 'base' file") and opens the long form; the long form also lifts Windows' 260
    character limit. Off Windows the paths are passed as they are."""


def _with_paths(name: str, where: tuple[int, ...]) -> Callable[..., Any]:
    def method(self: GeoDiff, *args: Any) -> Any:
        original = getattr(pygeodiff.GeoDiff, name)
        if name in ("schema", "dump_data") and args[:1] != ("sqlite",):
            return original(self, *args)
        args = tuple(long_path(a) if i in where and isinstance(a, (str, os.PathLike)) else a
                     for i, a in enumerate(args))
        return original(self, *args)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = getattr(pygeodiff.GeoDiff, name).__doc__
    return method


for _name, _where in _PATH_ARGS.items():
    setattr(GeoDiff, _name, _with_paths(_name, _where))


def new_geodiff() -> GeoDiff:
    """A fresh pygeodiff context (:class:`GeoDiff`: paths in the form Windows needs) that logs
    nothing to stdout (errors come back as exceptions)."""
    gd = GeoDiff()
    gd.set_logger_callback(None)
    return gd


def _read_json(path: Path) -> dict[str, Any]:
    with open(path, encoding="utf-8") as fh:
        data: dict[str, Any] = json.load(fh)
    return data


@contextlib.contextmanager
def _listing_file(workdir: Path) -> Iterator[Path]:
    """A fresh, empty ``tmp*.json`` path in ``workdir`` for pygeodiff to write a listing to;
    deleted afterwards.

    ``mkstemp`` opens the file it creates; that descriptor is closed at once (pygeodiff opens
    the path itself), otherwise every listing would leave a deleted file open in the process.
    """
    fd, name = tempfile.mkstemp(suffix=".json", dir=workdir)
    os.close(fd)
    out = Path(name)
    try:
        yield out
    finally:
        out.unlink(missing_ok=True)


def list_changes(gd: pygeodiff.GeoDiff, changeset: Path, workdir: Path) -> list[dict[str, Any]]:
    """The entries of ``geodiff list_changes`` for ``changeset``: ``{"table", "type", "changes"}``."""
    with _listing_file(workdir) as out:
        gd.list_changes(str(changeset), str(out))
        entries: list[dict[str, Any]] = _read_json(out).get("geodiff", [])
        return entries


def summary(gd: pygeodiff.GeoDiff, changeset: Path, workdir: Path) -> dict[str, dict[str, int]]:
    """``{table: {"insert": n, "update": n, "delete": n}}`` of a changeset."""
    with _listing_file(workdir) as out:
        gd.list_changes_summary(str(changeset), str(out))
        rows = _read_json(out).get("geodiff_summary", [])
    return {r["table"]: {k: int(r[k]) for k in ("insert", "update", "delete")} for r in rows}


@dataclass(frozen=True)
class TableSchema:
    """Columns of one table as geodiff sees it; ``pk`` indexes the primary-key columns."""

    name: str
    columns: tuple[str, ...]
    pk: tuple[int, ...]


def schema(gd: pygeodiff.GeoDiff, gpkg: Path, workdir: Path) -> dict[str, TableSchema]:
    """``{table: TableSchema}`` for every table geodiff diffs in ``gpkg``."""
    with _listing_file(workdir) as out:
        gd.schema("sqlite", "", str(gpkg), str(out))
        tables = _read_json(out).get("geodiff_schema", [])
    result = {}
    for t in tables:
        cols = tuple(c["name"] for c in t["columns"])
        pk = tuple(i for i, c in enumerate(t["columns"]) if c.get("primary_key"))
        result[t["table"]] = TableSchema(t["table"], cols, pk)
    return result


def schema_signature(tables: dict[str, TableSchema]) -> dict[str, list[str]]:
    """A comparable ``{table: [columns]}`` view of a schema."""
    return {name: list(t.columns) for name, t in sorted(tables.items())}


def by_table(entries: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Group ``list_changes`` entries by table."""
    grouped: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for e in entries:
        grouped[e["table"]].append(e)
    return grouped


def pk_of(entry: dict[str, Any], table: TableSchema) -> tuple[object, ...]:
    """The primary-key value(s) an entry refers to (``new`` for inserts, ``old`` otherwise)."""
    key = "new" if entry["type"] == "insert" else "old"
    values = {c["column"]: c.get(key) for c in entry["changes"]}
    return tuple(values.get(i) for i in table.pk)


def validate_changeset(
    counts: dict[str, dict[str, int]],
    tables: dict[str, TableSchema],
    *,
    expected_id: str,
    what: str,
) -> None:
    """Refuse a changeset (by its ``summary``) that does not fit the schema or the log rule.

    A changeset the office accepts (and a laptop later pulls) must touch only tables of the
    schema and insert exactly one sync-log row, never update or delete one. Column counts are
    checked by pygeodiff when it applies the changeset; the log row's seq and id are checked
    after applying, with :func:`validate_logged`, before the result is used.

    Raises
    ------
    InvalidOfficeData
        naming ``what`` and the first problem found.
    """
    if not CHANGESET_ID_RE.match(expected_id):
        raise InvalidOfficeData(f"{what}: changeset id {expected_id!r} is not a 32-digit hex id")
    for table in counts:
        if table not in tables:
            raise InvalidOfficeData(f"{what}: changes unknown table {table!r}")
    log = counts.get(LOG_TABLE, {"insert": 0, "update": 0, "delete": 0})
    if (log["insert"], log["update"], log["delete"]) != (1, 0, 0):
        raise InvalidOfficeData(
            f"{what}: must insert exactly one sync-log row and change no other; it has"
            f" {log['insert']} inserts, {log['update']} updates, {log['delete']} deletes"
        )


def check_changeset(
    gd: pygeodiff.GeoDiff,
    changeset: Path,
    tables: dict[str, TableSchema],
    workdir: Path,
    *,
    expected_id: str,
    what: str,
) -> dict[str, dict[str, int]]:
    """Read a changeset's :func:`summary` and refuse it with :func:`validate_changeset`.

    Used by the office before it applies a laptop's changeset and by a laptop before it applies
    one pulled from the office.

    Returns
    -------
    dict
        ``{table: {"insert": n, "update": n, "delete": n}}``.

    Raises
    ------
    InvalidOfficeData
        ``"<what> cannot be read: ..."`` when pygeodiff cannot list it, else as
        :func:`validate_changeset`.
    """
    try:
        counts = summary(gd, changeset, workdir)
    except Exception as exc:  # pygeodiff: not a readable changeset
        raise InvalidOfficeData(f"{what} cannot be read: {exc}") from exc
    validate_changeset(counts, tables, expected_id=expected_id, what=what)
    return counts


def validate_logged(path: Path, *, expected_seq: int, expected_id: str, what: str) -> None:
    """After applying a changeset to a copy: its log row must be ``(expected_seq, expected_id)``
    and be the last one. Raises :class:`InvalidOfficeData` otherwise."""
    import contextlib

    from fieldapp.sync.files import connect

    with contextlib.closing(connect(path)) as conn:
        rows = conn.execute(
            f"SELECT seq, changeset_id FROM {LOG_TABLE} ORDER BY seq DESC LIMIT 1"
        ).fetchall()
        n = conn.execute(f"SELECT count(*) FROM {LOG_TABLE}").fetchone()[0]
    if rows != [(expected_seq, expected_id)] or n != expected_seq:
        got = rows[0] if rows else None
        raise InvalidOfficeData(
            f"{what}: logs itself as {got!r} ({n} log rows), expected seq {expected_seq}"
            f" id {expected_id}"
        )


def read_entries(gd: pygeodiff.GeoDiff, changeset: Path) -> list[dict[str, Any]]:
    """The entries of ``changeset`` read with pygeodiff's changeset reader, in the shape of
    :func:`list_changes` (``{"table", "type", "changes": [{"column", "old", "new"}]}``) but with
    the values as stored: ``None`` for NULL, ``bytes`` for blobs and geometries (GeoPackage
    blobs), never JSON text. A value the changeset leaves undefined (an update's unchanged
    column) has no ``old`` / ``new`` key."""
    kinds = {pygeodiff.ChangesetEntry.OP_INSERT: "insert", pygeodiff.ChangesetEntry.OP_UPDATE: "update",
             pygeodiff.ChangesetEntry.OP_DELETE: "delete"}
    out = []
    for entry in gd.read_changeset(str(changeset)):
        old = getattr(entry, "old_values", None)
        new = getattr(entry, "new_values", None)
        changes = []
        for i in range(entry.values_count):
            ch: dict[str, Any] = {"column": i}
            if old is not None and not isinstance(old[i], pygeodiff.UndefinedValue):
                ch["old"] = old[i]
            if new is not None and not isinstance(new[i], pygeodiff.UndefinedValue):
                ch["new"] = new[i]
            if len(ch) > 1:
                changes.append(ch)
        out.append({"table": entry.table.name, "type": kinds[entry.operation], "changes": changes})
    return out
