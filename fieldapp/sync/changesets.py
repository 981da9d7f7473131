"""Thin helpers over pygeodiff: one context per sync, readable errors, changeset checks.

All diffing, rebasing and applying is pygeodiff's (the engine behind Mergin Maps); this module
only reads its JSON listings (``list_changes``, ``list_changes_summary``, ``schema``) and checks a
changeset against a schema before anyone applies it.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import pygeodiff

from fieldapp.sync.errors import InvalidOfficeData
from fieldapp.sync.files import LOG_TABLE

#: Changeset ids are UUID4 hex strings; anything else in a name or a log row is refused.
CHANGESET_ID_RE = re.compile(r"^[0-9a-f]{32}$")


def new_geodiff() -> pygeodiff.GeoDiff:
    """A fresh pygeodiff context that logs nothing to stdout (errors come back as exceptions)."""
    gd = pygeodiff.GeoDiff()
    gd.set_logger_callback(None)
    return gd


def _read_json(path: Path) -> dict:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def list_changes(gd: pygeodiff.GeoDiff, changeset: Path, workdir: Path) -> list[dict]:
    """The entries of ``geodiff list_changes`` for ``changeset``: ``{"table", "type", "changes"}``."""
    out = Path(tempfile.mkstemp(suffix=".json", dir=workdir)[1])
    try:
        gd.list_changes(str(changeset), str(out))
        return _read_json(out).get("geodiff", [])
    finally:
        out.unlink(missing_ok=True)


def summary(gd: pygeodiff.GeoDiff, changeset: Path, workdir: Path) -> dict[str, dict[str, int]]:
    """``{table: {"insert": n, "update": n, "delete": n}}`` of a changeset."""
    out = Path(tempfile.mkstemp(suffix=".json", dir=workdir)[1])
    try:
        gd.list_changes_summary(str(changeset), str(out))
        rows = _read_json(out).get("geodiff_summary", [])
    finally:
        out.unlink(missing_ok=True)
    return {r["table"]: {k: int(r[k]) for k in ("insert", "update", "delete")} for r in rows}


@dataclass(frozen=True)
class TableSchema:
    """Columns of one table as geodiff sees it; ``pk`` indexes the primary-key columns."""

    name: str
    columns: tuple[str, ...]
    pk: tuple[int, ...]


def schema(gd: pygeodiff.GeoDiff, gpkg: Path, workdir: Path) -> dict[str, TableSchema]:
    """``{table: TableSchema}`` for every table geodiff diffs in ``gpkg``."""
    out = Path(tempfile.mkstemp(suffix=".json", dir=workdir)[1])
    try:
        gd.schema("sqlite", "", str(gpkg), str(out))
        tables = _read_json(out).get("geodiff_schema", [])
    finally:
        out.unlink(missing_ok=True)
    result = {}
    for t in tables:
        cols = tuple(c["name"] for c in t["columns"])
        pk = tuple(i for i, c in enumerate(t["columns"]) if c.get("primary_key"))
        result[t["table"]] = TableSchema(t["table"], cols, pk)
    return result


def schema_signature(tables: dict[str, TableSchema]) -> dict[str, list[str]]:
    """A comparable ``{table: [columns]}`` view of a schema."""
    return {name: list(t.columns) for name, t in sorted(tables.items())}


def by_table(entries: list[dict]) -> dict[str, list[dict]]:
    """Group ``list_changes`` entries by table."""
    grouped: dict[str, list[dict]] = defaultdict(list)
    for e in entries:
        grouped[e["table"]].append(e)
    return grouped


def pk_of(entry: dict, table: TableSchema) -> tuple:
    """The primary-key value(s) an entry refers to (``new`` for inserts, ``old`` otherwise)."""
    key = "new" if entry["type"] == "insert" else "old"
    values = {c["column"]: c.get(key) for c in entry["changes"]}
    return tuple(values.get(i) for i in table.pk)


def validate_changeset(
    entries: list[dict],
    tables: dict[str, TableSchema],
    *,
    expected_seq: int,
    expected_id: str,
    what: str,
) -> None:
    """Refuse a changeset that does not fit the schema or does not log itself correctly.

    A changeset the office accepts (and a laptop later pulls) must touch only tables of the
    schema, only existing column indexes, and insert exactly one sync-log row whose ``seq`` and
    ``changeset_id`` are the ones it claims; it may not update or delete log rows.

    Raises
    ------
    InvalidOfficeData
        naming ``what`` and the first problem found.
    """
    if not CHANGESET_ID_RE.match(expected_id):
        raise InvalidOfficeData(f"{what}: changeset id {expected_id!r} is not a 32-digit hex id")
    log_inserts = []
    for e in entries:
        table = tables.get(e.get("table"))
        if table is None:
            raise InvalidOfficeData(f"{what}: changes unknown table {e.get('table')!r}")
        if e.get("type") not in ("insert", "update", "delete"):
            raise InvalidOfficeData(f"{what}: unknown change type {e.get('type')!r}")
        for c in e.get("changes", []):
            col = c.get("column")
            if not isinstance(col, int) or not 0 <= col < len(table.columns):
                raise InvalidOfficeData(
                    f"{what}: column {col!r} is outside table {table.name!r}"
                    f" ({len(table.columns)} columns)"
                )
        if table.name == LOG_TABLE:
            if e["type"] != "insert":
                raise InvalidOfficeData(f"{what}: {e['type']} of a sync-log row is not allowed")
            log_inserts.append(e)
    if len(log_inserts) != 1:
        raise InvalidOfficeData(
            f"{what}: expected exactly one sync-log row, found {len(log_inserts)}"
        )
    cols = tables[LOG_TABLE].columns
    row = {cols[c["column"]]: c.get("new") for c in log_inserts[0]["changes"]}
    if row.get("seq") != expected_seq or row.get("changeset_id") != expected_id:
        raise InvalidOfficeData(
            f"{what}: logs itself as seq {row.get('seq')!r} id {row.get('changeset_id')!r},"
            f" expected seq {expected_seq} id {expected_id}"
        )
