"""Conflict records of the sync: what clashed, which value was kept, and the conflicts table.

When this laptop's edits are rebased onto the office's (:mod:`fieldapp.sync.phases`), pygeodiff
keeps this laptop's value of a field both sides changed and lists the clash in its conflict
file. :func:`find_conflicts` turns that file (and the edit-vs-delete clashes pygeodiff does not
list) into :class:`Conflict` records, :func:`resolve_conflicts` writes back what the
:class:`ConflictPolicy` keeps where that is not pygeodiff's choice, and
:func:`insert_conflicts` / :func:`read_conflicts` write and read the conflicts table
(``fieldapp_sync_conflicts``), which travels inside the changeset like any other table.
"""

from __future__ import annotations

import base64
import contextlib
import enum
import json
import os
import sqlite3
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeAlias

from fieldapp.sync import changesets as cs
from fieldapp.sync import gpkgsql
from fieldapp.sync.errors import SyncError
from fieldapp.sync.files import CONFLICTS_TABLE, INTERNAL_TABLES, connect
from fieldapp.sync.files import quote_identifier as _qi
from fieldapp.sync.officestore import utc_now_iso

#: The ``policy`` of the conflict records ``--adopt-copy`` writes (:data:`fieldapp.sync.adopt.POLICY`):
#: the office's value was kept because the copy and the office share no base.
PLAIN_COPY_POLICY = "plain-copy-office-kept"

#: Bookkeeping columns where two laptops' values are not an edit conflict: the later time is kept.
LATEST_WINS_COLUMNS = ("modified_utc",)
#: a feature's primary key as its table's key columns' values (one: the fid)
PK: TypeAlias = tuple[object, ...]
#: what a same-field record says: (layer, feature uuid, field, theirs JSON, ours JSON)
SameFieldKey: TypeAlias = tuple[str, str | None, str | None, str, str]


class ConflictPolicy(enum.Enum):
    """Which value the office keeps when two laptops set the same field differently.

    The other value always goes to the conflicts table with base, theirs and ours.
    """

    #: The laptop syncing later wins (default): the office shows the newest synced value.
    LAST_SYNC_WINS = "last-sync-wins"
    #: The value already in the office wins: a later laptop cannot overwrite it.
    FIRST_SYNC_WINS = "first-sync-wins"


class ConflictKind(enum.Enum):
    """What kind of clash a conflict record describes."""

    #: Both set the same field to different values; ``field`` names it.
    SAME_FIELD = "same-field"
    #: This laptop edited a feature the office had already deleted: the delete stands.
    EDIT_VS_DELETE = "edit-vs-delete"
    #: This laptop deleted a feature the office had edited since: the delete stands.
    DELETE_VS_EDIT = "delete-vs-edit"
    #: A tree new from this laptop has the tag of another tree (tags are physical): both trees
    #: are kept and the crew re-tags one (``--resolve ID NEW_TAG``); ``theirs`` names the other.
    TAG_CLASH = "tag-clash"


@dataclass(frozen=True)
class Conflict:
    """One row of the conflicts table (``fieldapp_sync_conflicts``).

    ``base`` is the value both sides started from, ``theirs`` the office's value when this
    laptop synced, ``ours`` this laptop's value. For ``SAME_FIELD`` they are single field values;
    for the delete kinds whole features as ``{column: value}`` (``None`` for the deleted side).
    Blobs (geometry) are ``{"blob_base64": ..., "wkt": ...}``. ``kept`` is ``"ours"``,
    ``"theirs"`` or ``"delete"``.
    """

    uuid: str
    layer: str
    feature_uuid: str | None
    feature_fid: int | None
    field: str | None
    kind: ConflictKind
    base: object
    theirs: object
    ours: object
    kept: str
    policy: str
    changeset_id: str
    seq: int
    ours_laptop_id: str | None = None
    ours_by: str | None = None
    created_utc: str = ""
    resolved_utc: str | None = None
    resolution: str | None = None


def _encode(value: object) -> object:
    if isinstance(value, (bytes, memoryview)):
        out = {"blob_base64": base64.b64encode(bytes(value)).decode("ascii")}
        geom = gpkgsql.to_shapely(bytes(value))
        if geom is not None:
            out["wkt"] = geom.wkt
        return out
    return value


def _decode(value: object) -> object:
    if isinstance(value, dict) and "blob_base64" in value:
        return base64.b64decode(value["blob_base64"])
    return value


class _Rows:
    """Reads rows by primary key from a GeoPackage (read-only)."""

    def __init__(self, path: Path, tables: dict[str, cs.TableSchema]) -> None:
        self.conn = connect(path, readonly=True)
        self.tables = tables

    def close(self) -> None:
        self.conn.close()

    def row(self, table: str, pk: PK) -> dict[str, object] | None:
        t = self.tables[table]
        where = " AND ".join(f"{_qi(t.columns[i])} = ?" for i in t.pk)
        cur = self.conn.execute(
            f"SELECT {', '.join(_qi(c) for c in t.columns)} FROM {_qi(table)} WHERE {where}", pk
        )
        found = cur.fetchone()
        return None if found is None else dict(zip(t.columns, found, strict=True))


def _pk_from_text(rows: _Rows, table: cs.TableSchema, text: object) -> PK:
    """geodiff's conflict file gives the primary key as text; find the typed value."""
    if len(table.pk) != 1:
        raise SyncError(f"table {table.name} has a composite primary key; not supported")
    col = table.columns[table.pk[0]]
    found = None
    with contextlib.suppress(ValueError, OverflowError, sqlite3.Error):
        # the usual integer fid: one lookup by the key's index (the scan below is O(rows))
        found = rows.conn.execute(
            f"SELECT {_qi(col)} FROM {_qi(table.name)} WHERE {_qi(col)} = ?"
            f" AND CAST({_qi(col)} AS TEXT) = ?", (int(str(text)), str(text))).fetchone()
    if found is None:
        found = rows.conn.execute(
            f"SELECT {_qi(col)} FROM {_qi(table.name)} WHERE CAST({_qi(col)} AS TEXT) = ?", (str(text),)
        ).fetchone()
    if found is None:
        with contextlib.suppress(ValueError):
            return (int(str(text)),)
        return (text,)
    return (found[0],)


@dataclass(frozen=True)
class ConflictContext:
    """Who is syncing and what the changeset being built is: stamped on every record."""

    policy: ConflictPolicy | str  # a str: a reading of its own (fieldapp.sync.adopt.POLICY)
    changeset_id: str
    seq: int
    laptop_id: str
    synced_by: str | None

    @property
    def policy_text(self) -> str:
        """The policy as a record stores it: a :class:`ConflictPolicy`'s value, or the reading."""
        return self.policy.value if isinstance(self.policy, ConflictPolicy) else self.policy


class _ConflictScan:
    """One pass over the clashes of a rebase; collects records, merged counts and the
    ``modified_utc`` values to keep (``latest``: ``(table, pk, column, value)``)."""

    def __init__(self, copies: dict[str, Path], tables: dict[str, cs.TableSchema],
                 ctx: ConflictContext, counts: dict[str, dict[str, int]]) -> None:
        self.rows = {name: _Rows(p, tables) for name, p in copies.items()}
        self.tables = tables
        self.ctx = ctx
        self.counts = counts
        self.now = utc_now_iso()
        self.result: list[Conflict] = []
        self.latest: list[tuple[str, PK, str, object]] = []

    def close(self) -> None:
        for r in self.rows.values():
            r.close()

    def make(self, table: str, pk: PK, field_name: str | None, kind: ConflictKind, b: object, t: object,
             o: object, kept: str) -> None:
        row = self.rows["base"].row(table, pk) or {}
        found = row.get("uuid")
        fuuid = found if isinstance(found, str) else None
        fid = pk[0] if len(pk) == 1 and isinstance(pk[0], int) else None
        self.counts[table]["conflicts"] += 1
        ctx = self.ctx
        self.result.append(Conflict(uuid.uuid4().hex, table, fuuid, fid, field_name, kind, b, t, o, kept,
                                    ctx.policy_text, ctx.changeset_id, ctx.seq, ctx.laptop_id,
                                    ctx.synced_by, self.now))

    def whole(self, which: str, table: str, pk: PK) -> dict[str, object] | None:
        r = self.rows[which].row(table, pk)
        return None if r is None else {k: _encode(v) for k, v in r.items()}

    def geodiff_conflict(self, c: dict[str, Any], their_deleted: set[tuple[str, PK]]) -> tuple[str, PK]:
        """One entry of pygeodiff's conflict file; returns its ``(table, pk)``."""
        table: str = c["table"]
        t = self.tables[table]
        pk = _pk_from_text(self.rows["base"], t, c.get("fid"))
        if (table, pk) in their_deleted:
            self.make(table, pk, None, ConflictKind.EDIT_VS_DELETE, self.whole("base", table, pk), None,
                      self.whole("ours", table, pk), "delete")
            return table, pk
        kept_same = "ours" if self.ctx.policy is ConflictPolicy.LAST_SYNC_WINS else "theirs"
        real = 0
        for ch in c["changes"]:
            col = t.columns[ch["column"]]
            b, th, o = (_encode((self.rows[w].row(table, pk) or {}).get(col))
                        for w in ("base", "theirs", "ours"))
            if col in LATEST_WINS_COLUMNS and isinstance(th, str) and isinstance(o, str):
                self.latest.append((table, pk, col, max(th, o)))  # bookkeeping, not an edit
                continue
            real += 1
            self.make(table, pk, col, ConflictKind.SAME_FIELD, b, th, o, kept_same)
        if not real and table not in INTERNAL_TABLES:
            self.counts[table]["merged"] += 1
        return table, pk

    def local_entry(self, e: dict[str, Any], their_by_pk: dict[tuple[str, PK], dict[str, Any]],
                    conflicted: set[tuple[str, PK]]) -> None:
        """One of this laptop's changes: a delete of a feature the office edited, or a merge."""
        table = e["table"]
        pk = cs.pk_of(e, self.tables[table])
        other = their_by_pk.get((table, pk))
        if other is None or other["type"] != "update" or (table, pk) in conflicted:
            return
        if e["type"] == "delete":
            self.make(table, pk, None, ConflictKind.DELETE_VS_EDIT, self.whole("base", table, pk),
                      self.whole("theirs", table, pk), None, "delete")
        elif e["type"] == "update" and table not in INTERNAL_TABLES:
            self.counts[table]["merged"] += 1


def find_conflicts(base: Path, theirs: Path, ours: Path, tables: dict[str, cs.TableSchema],
                   conflict_file: Path, local_entries: list[dict[str, Any]], their_entries: list[dict[str, Any]],
                   ctx: ConflictContext, counts: dict[str, dict[str, int]]
                   ) -> tuple[list[Conflict], list[tuple[str, PK, str, object]]]:
    """The conflict records of one rebase, and the bookkeeping values to keep.

    Parameters
    ----------
    base, theirs, ours : path
        The common base, the office's copy (base + pulled changesets), this laptop's snapshot.
    tables : dict
        The schema (:func:`fieldapp.sync.changesets.schema`).
    conflict_file : path
        pygeodiff's conflict file of ``create_rebased_changeset`` (may be missing: none).
    local_entries, their_entries : list of dict
        ``list_changes`` of this laptop's edits and of the office's changes since the base.
    ctx : ConflictContext
    counts : dict
        ``{table: {"conflicts": n, "merged": n, ...}}``, incremented in place.

    Returns
    -------
    (list of Conflict, list of (table, pk, column, value))
        The records, in the order found; the later ``modified_utc`` of each feature both sides
        touched (a bookkeeping column: never a conflict).
    """
    scan = _ConflictScan({"base": base, "theirs": theirs, "ours": ours}, tables, ctx, counts)
    try:
        their_by_pk = {(e["table"], cs.pk_of(e, tables[e["table"]])): e for e in their_entries}
        their_deleted = {k for k, e in their_by_pk.items() if e["type"] == "delete"}
        geodiff_conflicts: list[dict[str, Any]] = []
        if conflict_file.exists():
            geodiff_conflicts = json.loads(conflict_file.read_text(encoding="utf-8")).get("geodiff", [])
        conflicted = {scan.geodiff_conflict(c, their_deleted) for c in geodiff_conflicts}
        for e in local_entries:
            scan.local_entry(e, their_by_pk, conflicted)
    finally:
        scan.close()
    return scan.result, scan.latest


def resolve_conflicts(new_master: Path, tables: dict[str, cs.TableSchema], conflicts: list[Conflict],
                      latest: list[tuple[str, PK, str, object]], policy: ConflictPolicy) -> None:
    """Write the policy's choice where it is not pygeodiff's (which keeps ours).

    ``modified_utc`` takes the later of the two times (``latest``); under first-sync-wins every
    same-field conflict gets the office's value back.
    """
    updates: list[tuple[str, str, object, PK]] = [(table, col, value, pk) for table, pk, col, value in latest]
    if policy is ConflictPolicy.FIRST_SYNC_WINS:
        updates += [(k.layer, k.field, _decode(k.theirs), (k.feature_fid,))
                    for k in conflicts if k.kind is ConflictKind.SAME_FIELD and k.field is not None]
    if not updates:
        return
    with contextlib.closing(connect(new_master)) as conn:
        gpkgsql.register(conn)
        with conn:
            for table, col, value, pk in updates:
                t = tables[table]
                where = " AND ".join(f"{_qi(t.columns[i])} = ?" for i in t.pk)
                conn.execute(f"UPDATE {_qi(table)} SET {_qi(col)} = ? WHERE {where}", (value, *pk))


def tag_clashes(theirs: Path, new_master: Path, ctx: ConflictContext,
                counts: dict[str, dict[str, int]]) -> list[Conflict]:
    """A :attr:`ConflictKind.TAG_CLASH` record for each tree this laptop sends with a tag --
    a new tree, or one whose tag it changed (the app, or a hand edit in sqlite3 / QGIS): its
    ``tag`` in ``new_master`` is not its tag in ``theirs`` -- that another tree of the site in
    ``new_master`` has too; both trees are kept. ``theirs`` is the office's copy this laptop's
    edits go onto (the base when nothing was pulled, an empty copy at a first sync), so a clash
    is found whether or not the sync also receives. A tree that already has an open tag-clash
    record for that tag in ``new_master`` gets no second one. Nothing for a site without a
    ``tree`` layer with a ``tag`` column."""
    with contextlib.closing(connect(new_master, readonly=True)) as conn:
        if "tag" not in {r[1] for r in conn.execute("PRAGMA table_info(tree)")}:
            return []
        trees = conn.execute("SELECT uuid, fid, tag FROM tree WHERE tag IS NOT NULL").fetchall()
        recorded = _open_tag_clashes(conn)
    with contextlib.closing(connect(theirs, readonly=True)) as conn:
        known = dict(conn.execute("SELECT uuid, tag FROM tree"))
    by_tag: dict[object, list[str]] = {}
    for u, _fid, tag in trees:
        by_tag.setdefault(tag, []).append(u)
    now = utc_now_iso()
    policy = ctx.policy_text
    out = []
    for u, fid, tag in trees:
        others = [o for o in by_tag[tag] if o != u]
        if not others or (u in known and known[u] == tag) or (u, tag) in recorded:
            continue
        counts["tree"]["conflicts"] += 1
        out.append(Conflict(uuid.uuid4().hex, "tree", u, fid, "tag", ConflictKind.TAG_CLASH, None,
                            {"uuid": others[0], "tag": tag}, tag, "both", policy,
                            ctx.changeset_id, ctx.seq, ctx.laptop_id, ctx.synced_by, now))
    return out


def _open_tag_clashes(conn: sqlite3.Connection) -> set[tuple[str, object]]:
    """``(tree uuid, tag)`` of the open tag-clash records in the file (none without the table)."""
    with contextlib.suppress(sqlite3.OperationalError):
        return {(u, json.loads(ours)) for u, ours in conn.execute(
            f"SELECT feature_uuid, ours_json FROM {CONFLICTS_TABLE} WHERE kind = ? AND resolved_utc IS NULL",
            (ConflictKind.TAG_CLASH.value,))}
    return set()


def _key(layer: str, feature_uuid: str | None, field_name: str | None, theirs_json: str,
         ours_json: str) -> SameFieldKey:
    """What a same-field record says, whoever wrote it: one feature's field with these two values."""
    def norm(text: str) -> str:
        return json.dumps(json.loads(text), sort_keys=True)
    return layer, feature_uuid, field_name, norm(theirs_json), norm(ours_json)


def open_same_field(conn: sqlite3.Connection, schema: str = "main") -> dict[SameFieldKey, str]:
    """The open same-field records of ``schema`` (an attached file's name, or main):
    ``{(layer, feature uuid, field, theirs JSON, ours JSON): record uuid}``; none without the table."""
    with contextlib.suppress(sqlite3.OperationalError):
        return {_key(*r[1:]): r[0] for r in conn.execute(
            f"SELECT uuid, layer, feature_uuid, field, theirs_json, ours_json FROM {schema}.{CONFLICTS_TABLE}"
            " WHERE kind = ? AND resolved_utc IS NULL", (ConflictKind.SAME_FIELD.value,))}
    return {}


def repeats_open(k: Conflict, held: dict[SameFieldKey, str]) -> bool:
    """Whether the new same-field record ``k`` says what an open record of ``held``
    (:func:`open_same_field`) already says."""
    return k.kind is ConflictKind.SAME_FIELD and _key(
        k.layer, k.feature_uuid, k.field, json.dumps(k.theirs), json.dumps(k.ours)) in held


def drop_repeated_records(theirs: Path, new_master: Path, policy: str) -> int:
    """Delete from ``new_master`` the open same-field records of ``policy`` that ``theirs`` (the
    office's copy) lacks but whose feature, field and values an open record of ``theirs`` already
    holds: the same plain copy adopted twice (``--adopt-copy``), each adoption synced, says each
    difference once. Returns how many were dropped."""
    with contextlib.closing(connect(new_master)) as conn:
        conn.execute("ATTACH DATABASE ? AS theirs", (str(theirs),))
        held = open_same_field(conn, "theirs")
        drop = []
        if held:
            drop = [r[0] for r in conn.execute(
                f"SELECT uuid, layer, feature_uuid, field, theirs_json, ours_json FROM main.{CONFLICTS_TABLE}"
                f" WHERE kind = ? AND resolved_utc IS NULL AND policy = ?"
                f" AND uuid NOT IN (SELECT uuid FROM theirs.{CONFLICTS_TABLE})",
                (ConflictKind.SAME_FIELD.value, policy)) if _key(*r[1:]) in held]
        with conn:
            conn.executemany(f"DELETE FROM main.{CONFLICTS_TABLE} WHERE uuid = ?", [(u,) for u in drop])
        conn.execute("DETACH DATABASE theirs")
    return len(drop)


def insert_conflicts(conn: sqlite3.Connection, conflicts: list[Conflict]) -> None:
    """Insert conflict records into the conflicts table (the caller holds the transaction)."""
    for k in conflicts:
        conn.execute(
            f"INSERT INTO {CONFLICTS_TABLE} (uuid, layer, feature_uuid, feature_fid, field,"
            " kind, base_json, theirs_json, ours_json, kept, policy, changeset_id, seq,"
            " ours_laptop_id, ours_by, created_utc) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (k.uuid, k.layer, k.feature_uuid, k.feature_fid, k.field, k.kind.value,
             json.dumps(k.base), json.dumps(k.theirs), json.dumps(k.ours), k.kept,
             k.policy, k.changeset_id, k.seq, k.ours_laptop_id, k.ours_by, k.created_utc),
        )


def read_conflicts(gpkg_path: str | os.PathLike[str], *, unresolved_only: bool = False) -> list[Conflict]:
    """The conflict records of a visit or office master, oldest first.

    Use this for the app's conflicts panel and the report's conflicts section.
    """
    with contextlib.closing(connect(Path(gpkg_path), readonly=True)) as conn:
        try:
            rows = conn.execute(
                f"SELECT uuid, layer, feature_uuid, feature_fid, field, kind, base_json, theirs_json,"
                f" ours_json, kept, policy, changeset_id, seq, ours_laptop_id, ours_by, created_utc,"
                f" resolved_utc, resolution FROM {CONFLICTS_TABLE}"
                + (" WHERE resolved_utc IS NULL" if unresolved_only else "")
                + " ORDER BY fid"
            ).fetchall()
        except sqlite3.OperationalError:
            return []
    return [
        Conflict(r[0], r[1], r[2], r[3], r[4], ConflictKind(r[5]), json.loads(r[6]), json.loads(r[7]),
                 json.loads(r[8]), *r[9:])
        for r in rows
    ]
