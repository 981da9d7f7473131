"""Laptop side of the office sync: pull, rebase, push, finalize -- resumable at every step.

State kept beside the visit, in ``VISIT.gpkg.sync/``::

    state.json            laptop id, site id
    base.gpkg             the office master as of this laptop's last sync (the common base)
    validated.json        SHA-256 of the visit file as it last passed the full visit check
    pending/              a sync between "prepared" and "finished":
        pending.json      written last; without it the folder is leftovers and is deleted
        changeset.geodiff the outgoing changeset (kept until the office has applied it)
        new_master.gpkg   the master as it is once the office applied it
        snapshot.gpkg     the visit as it was when the changeset was computed
    work/                 scratch, emptied at each sync

How one sync goes (the office lock held throughout):

1. **Resume.** If ``pending.json`` exists, ask the office whether its changeset id is in the
   office log. Applied: finish it (step 6). Not applied: discard it; it is recomputed below.
2. **Pull.** Fetch the changesets the office applied since ``base.gpkg`` (validated: path,
   size, SHA-256, schema, self-logged seq/id) and apply them to a copy of the base ("theirs"),
   each at the store schema it was written at (see "Store schema versions" below).
3. **Diff.** ``create_changeset(base, visit snapshot)`` = this laptop's edits.
4. **Rebase.** ``create_rebased_changeset`` rebases the edits onto theirs (pygeodiff remaps
   colliding integer fids of new features; children follow parents by UUID). Same-field
   conflicts are resolved by pygeodiff in favour of the laptop syncing now and reported in its
   conflict file; the "first synced value wins" policy writes theirs back. Conflict records and
   the log row are added, and the changeset actually sent is ``create_changeset(theirs,
   new_master)`` -- data, conflict records and log row in one changeset.
   **Check.** When anything was pulled, what the visit is about to become (``theirs`` for a
   pull, ``new_master`` for a push) is read through the store first (:func:`check_received`,
   on the scratch copy); a row it refuses raises :class:`InvalidOfficeRecords` here, before
   ``pending/`` is written: nothing is sent, the visit and ``.sync/`` are untouched.
5. **Push.** ``OfficeStore.apply`` applies it atomically; the log row it carries is the
   record that it was applied, so it can never be applied twice. When the visit has a newer
   store schema than the office, ``OfficeStore.migrate`` migrates the master just before.
6. **Finalize.** The visit gets ``create_changeset(snapshot, new_master)`` in one transaction
   (including the log row: the visit's own record that it is finalized), then ``base.gpkg``
   is replaced by ``new_master.gpkg`` and ``pending/`` removed. If the visit was written during
   the sync, the office's update is rebased onto that write and the result is read through the
   store on a scratch copy before the visit gets it; a refusal leaves ``pending/`` for the next
   sync, which finishes once the row is corrected.

A process killed anywhere leaves the office master either before or after step 5 (temp +
fsync + os.replace), the visit either before or after its one transaction in step 6, and the
next sync completes what is missing.

Store schema versions (:mod:`fieldapp.sync.schemas`)
----------------------------------------------------
Each copy of a site -- the visit, ``base.gpkg``, the office master -- says which store schema
it has (``fieldapp_meta.schema_version``); the store migrates a visit when it is opened for
recording (schema 2 added ``transect.stipulated`` and ``line_feature.mapped_stream``).
pygeodiff can diff and apply only between copies with the same columns, so the policy is:

- **The office follows the newest laptop.** When the visit's schema is newer than the office
  master's, the sync works on scratch copies brought to the visit's schema (with the store's
  :func:`fieldapp.store.schema.migration_sql`, as the store does), and at the commit point,
  under the office lock and before its changeset is applied, migrates the master
  (:meth:`OfficeStore.migrate`: temp copy, migrate, ``quick_check``, the migrated columns must be
  this laptop's, atomic replace) and records in the master's schema log
  (``fieldapp_sync_schema``) the seq it was at: every changeset after that seq is written at the
  new schema. This happens even when the laptop has nothing to send. A sync killed before the
  replace leaves the master as it was; after it, the next sync (any laptop's) sees it migrated.
- **A laptop on this fieldapp with an older file pulls, then migrates.** Office changesets are
  applied to the copy of the base at the schema each was written at (per the schema log), the
  copy being migrated at each logged point, then to the newest schema. The visit itself is
  migrated (one transaction, as the store would) only when the sync writes into it -- at the
  finalize, just before the office's changes are applied -- and ``base.gpkg`` is replaced by
  the migrated master copy as usual. A visit with nothing to send or receive is left alone.
  ``base.gpkg`` is never at a newer schema than the office master (only the finalize or a no-op
  after the office's migration replace it), so its changesets can always be pulled.
- **A fieldapp that knows only an older schema than the office master is refused** with
  :class:`NewerSchema` ("this office site was written by a newer fieldapp (schema 2); update
  fieldapp on this laptop"), before anything is written on either side, for a sync and for a
  :func:`checkout`; so is a laptop whose ``base.gpkg`` is newer than its fieldapp (downgraded).
  It cannot pull (pygeodiff cannot apply a changeset written at a newer schema) nor push.
- A checkout copies the master without its schema log (only the office keeps it).

The visit check, and why a no-op sync can skip most of it
----------------------------------------------------------
Before anything is written, :func:`check_visit_file` checks the visit: basics (a sound, writable
GeoPackage), the store's :func:`fieldapp.store.inspect`, and a full read of every row through the
store, which refuses a value the app could not load (``dbh_in = 'abc'``). The full read is the
expensive part (0.3-0.8 s for 10,000 trees; the rest of a no-op sync ~0.06 s), so its result is
remembered: ``validated.json`` holds the SHA-256 of the visit file's bytes as they were when they
last passed it (and the fieldapp / schema / check versions that passed them), and the full read
is skipped when the file hashes the same. The other checks run every time.

Why a content hash and not the alternatives:

- (size, mtime_ns) or SQLite's change counter / ``data_version`` would be cheaper, but are not
  the content: mtimes are kept by copy tools (``cp -p``, ``rsync -t``, ``touch -r``), a file
  restored from elsewhere can share them, the change counter is not bumped per commit in WAL mode,
  and ``data_version`` only means anything within one connection. SHA-256 of a 2.5 MB visit
  (10,000 trees) takes a few milliseconds, and a change to any byte -- a row written with sqlite3
  or QGIS behind the sync's back, mtime restored or not -- means a full read again.
- Checking only the rows of the outgoing changeset (pygeodiff ``list_changes``) would rest on the
  base copy being valid, but the base holds what other laptops and the office sent, which this
  laptop never read through its store; it would also need a row-level entry point in the store.
- The hash covers the whole content only when it is all in the ``.gpkg``: a visit with a
  non-empty ``-wal`` (the app is recording into it) always gets the full read, and a file that
  changes while it is being checked is not recorded.

A sync that changed the visit (it received changes, or recorded its own log row) reads it through
the store once more at the end, outside the office lock, and records the new hash when it passes,
so the next no-op sync is fast; the extra read is paid by syncs that move data, not by the check
for "anything new?". When that read fails, nothing is recorded and the next sync refuses the
visit, naming the row.

What arrives from the office is read through the store before the visit gets it
-------------------------------------------------------------------------------
A value the store refuses can reach the office: a laptop whose file was changed behind its own
check (an older fieldapp, QGIS, sqlite3) sends it, and the office's checks (path, size, SHA-256,
schema, log row) cannot see a ``dbh_in`` of ``'abc'``. Written into the receiving laptop's visit,
the app could no longer open that visit and its next sync would refuse it. So before ``pending/``
is written (step 4), the scratch copy the visit is to become is opened with
``open_visit(copy, readonly=True)`` -- every feature loaded and checked with the model's rules --
and a refused row raises :class:`InvalidOfficeRecords` naming layer, feature uuid, column and
the office changeset (and laptop) that set it. The visit stays byte-identical and openable, its
own edits stay in it for the next sync, nothing reaches the office; once the sending laptop
corrects the row and syncs, the next sync completes (what is checked is the combined result, so
a bad value corrected by a later changeset, or replaced by this laptop's own edit of the same
field, is no obstacle). :func:`checkout` reads a fetched master the same way.

The whole copy is read rather than just the incoming rows: the store has no row-level entry
point, and a whole read also catches what a row cannot show (the site row, the CRS frame). It is
paid only when something arrives -- a no-op sync never reads it -- and once (``new_master`` or
``theirs``; both only to word a refusal): ~0.3-0.8 s for 10,000 trees.

Direct edits of an office master (QGIS on the share) never reach a laptop by a pull, which
applies only the logged changesets; they reach a new laptop by :func:`checkout`, which refuses
a master holding a row the store refuses.
"""

from __future__ import annotations

import base64
import contextlib
import enum
import getpass
import json
import os
import shutil
import sqlite3
import stat
import threading
import uuid
from collections import defaultdict
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from fieldapp.sync import changesets as cs
from fieldapp.sync import gpkgsql, schemas
from fieldapp.sync.errors import (
    InvalidOfficeData,
    InvalidOfficeRecords,
    LaptopStateError,
    NewerSchema,
    SchemaMismatch,
    SyncCancelled,
    SyncError,
    VisitRefused,
)
from fieldapp.sync.files import (
    CONFLICTS_TABLE,
    INTERNAL_TABLES,
    LOG_TABLE,
    check_geopackage,
    checkpoint,
    connect,
    copy_durably,
    ensure_sync_tables,
    log_head,
    log_ids,
    sha256_of,
    snapshot_sqlite,
    write_json_durably,
)
from fieldapp.sync.office import LockOwner, LogEntry, OfficeStore, SiteSchema, check_site_id, utc_now_iso

#: Bookkeeping columns where two laptops' values are not an edit conflict: the later time is kept.
LATEST_WINS_COLUMNS = ("modified_utc",)
MAX_VISIT_BYTES = 16 * 1024 * 1024 * 1024
STATE_FORMAT = "fieldapp-sync-laptop"
VALIDATED_FORMAT = "fieldapp-sync-validated"
#: Bump when :func:`check_visit_file` checks more: older records then no longer count.
VISIT_CHECK_VERSION = 1


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


class CancelToken:
    """Thread-safe cancellation flag for :func:`sync` (set from the UI thread).

    Cancelling is honoured at every step until the changeset is handed to the office; after
    that the sync finishes (the remaining steps are local and short), so a cancel can never
    leave the office ahead of the laptop.
    """

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        """Ask the sync to stop at its next step."""
        self._event.set()

    @property
    def cancelled(self) -> bool:
        """Whether :meth:`cancel` was called."""
        return self._event.is_set()


ProgressCallback = Callable[[float, str], None]


@dataclass(frozen=True)
class LayerCounts:
    """Per-layer counts of one sync.

    sent: changes of this laptop applied to the office (inserts + updates + deletes);
    received: changes other laptops had sent, now applied to this laptop;
    merged: features changed both here and by another laptop whose edits were combined;
    conflicts: conflict records written for the layer by this sync.
    """

    layer: str
    sent: int = 0
    received: int = 0
    merged: int = 0
    conflicts: int = 0


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


@dataclass(frozen=True)
class SyncReport:
    """What one :func:`sync` did. ``layers`` lists every layer with a non-zero count."""

    site_id: str
    office: str
    changeset_id: str | None
    office_seq: int
    layers: tuple[LayerCounts, ...]
    conflicts: tuple[Conflict, ...]
    resumed: tuple[str, ...] = ()
    no_op: bool = False
    policy: str = ConflictPolicy.LAST_SYNC_WINS.value
    #: Store schema changes this sync made, in words (``"office master: schema 1 -> 2 ..."``).
    schema_changes: tuple[str, ...] = ()

    def totals(self) -> LayerCounts:
        """Sum of the per-layer counts (``layer`` = ``"all"``)."""
        return LayerCounts(
            "all",
            sum(c.sent for c in self.layers),
            sum(c.received for c in self.layers),
            sum(c.merged for c in self.layers),
            sum(c.conflicts for c in self.layers),
        )

    def format(self) -> str:
        """A plain-text summary: one line per layer, then the conflicts."""
        lines = [f"site {self.site_id} <-> {self.office}: office now at seq {self.office_seq}"]
        for cid in self.resumed:
            lines.append(f"  completed interrupted sync {cid}")
        for what in self.schema_changes:
            lines.append(f"  migrated {what}")
        if self.no_op:
            lines.append("  nothing to send or receive")
        if self.layers:
            lines.append(f"  {'layer':<28}{'sent':>7}{'received':>10}{'merged':>8}{'conflicts':>11}")
            for c in (*self.layers, self.totals()):
                lines.append(f"  {c.layer:<28}{c.sent:>7}{c.received:>10}{c.merged:>8}{c.conflicts:>11}")
        for k in self.conflicts:
            what = f"{k.layer} {k.feature_uuid or k.feature_fid}" + (f".{k.field}" if k.field else "")
            lines.append(
                f"  conflict {k.kind.value}: {what}: base={_short(k.base)} theirs={_short(k.theirs)}"
                f" ours={_short(k.ours)} -> kept {k.kept}"
            )
        return "\n".join(lines)


def _short(value: object, width: int = 40) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= width else text[: width - 3] + "..."


# --------------------------------------------------------------------------------------------
class _Progress:
    """Forwards progress, touches the lock, honours cancellation until the commit point."""

    def __init__(self, callback: ProgressCallback | None, cancel: CancelToken | None) -> None:
        self.callback = callback
        self.cancel = cancel
        self.heartbeat: Callable[[], None] | None = None
        self.committed = False
        self.fraction = 0.0

    def __call__(self, fraction: float, message: str) -> None:
        self.fraction = max(self.fraction, fraction)
        if self.cancel is not None and self.cancel.cancelled and not self.committed:
            raise SyncCancelled(f"sync cancelled at: {message}; the office was not changed")
        if self.heartbeat is not None:
            self.heartbeat()
        if self.callback is not None:
            self.callback(self.fraction, message)

    def step(self, message: str) -> None:
        """A sub-step inside the current fraction (office writes)."""
        if self.callback is not None:
            self.callback(self.fraction, message)


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


def _qi(name: str) -> str:
    """Quote an SQL identifier (names come from the GeoPackage schema, never from users)."""
    return '"' + name.replace('"', '""') + '"'


class _Rows:
    """Reads rows by primary key from a GeoPackage (read-only)."""

    def __init__(self, path: Path, tables: dict[str, cs.TableSchema]) -> None:
        self.conn = connect(path, readonly=True)
        self.tables = tables

    def close(self) -> None:
        self.conn.close()

    def row(self, table: str, pk: tuple) -> dict | None:
        t = self.tables[table]
        where = " AND ".join(f"{_qi(t.columns[i])} = ?" for i in t.pk)
        cur = self.conn.execute(
            f"SELECT {', '.join(_qi(c) for c in t.columns)} FROM {_qi(table)} WHERE {where}", pk
        )
        found = cur.fetchone()
        return None if found is None else dict(zip(t.columns, found))


# --------------------------------------------------------------------------------------------
@dataclass
class _Pending:
    kind: str  # "push" or "pull"
    target_seq: int
    changeset_id: str | None = None
    sha256: str | None = None
    size_bytes: int | None = None
    laptop_id: str = ""
    synced_by: str | None = None
    applied_utc: str = ""
    counts: dict = field(default_factory=dict)


class LaptopState:
    """The sync state kept beside one visit (``VISIT.gpkg.sync/``)."""

    def __init__(self, visit: Path) -> None:
        self.visit = Path(visit).absolute()
        self.dir = self.visit.with_name(self.visit.name + ".sync")
        self.state_file = self.dir / "state.json"
        self.base = self.dir / "base.gpkg"
        self.pending_dir = self.dir / "pending"
        self.pending_json = self.pending_dir / "pending.json"
        self.pending_changeset = self.pending_dir / "changeset.geodiff"
        self.pending_master = self.pending_dir / "new_master.gpkg"
        self.pending_snapshot = self.pending_dir / "snapshot.gpkg"
        self.work = self.dir / "work"
        self.validated = self.dir / "validated.json"
        self.laptop_id = ""
        self.site_id = ""
        self._stored: dict = {}

    def read(self, site_id: str | None) -> None:
        """Read ``state.json`` if there is one and work out the site and laptop ids, writing
        nothing (so a sync refused before it starts leaves no ``VISIT.gpkg.sync/`` behind).

        Raises ``LaptopStateError`` for a damaged state file or a site id that disagrees with an
        earlier sync, ``ValueError`` for an unsafe site id.
        """
        data = {}
        if self.state_file.exists():
            try:
                data = json.loads(self.state_file.read_text(encoding="utf-8"))
            except ValueError as exc:
                raise LaptopStateError(f"{self.state_file} is damaged: {exc}") from exc
            if data.get("format") != STATE_FORMAT:
                raise LaptopStateError(f"{self.state_file} is not a fieldapp sync state file")
        known = data.get("site_id")
        if site_id:
            check_site_id(site_id)
        if site_id and known and site_id != known:
            raise LaptopStateError(
                f"visit {self.visit.name} was synced as site {known!r}, not {site_id!r}"
            )
        self.site_id = check_site_id(site_id or known or site_id_of(self.visit))
        self.laptop_id = self.laptop_id or data.get("laptop_id") or uuid.uuid4().hex
        self._stored = data

    @property
    def synced_before(self) -> bool:
        """Whether this laptop holds a base copy or an interrupted sync of the visit."""
        return self.base.exists() or self.pending_json.exists()

    def load(self, site_id: str | None) -> None:
        """Read (or create) ``state.json``; check the site id agrees with an earlier sync."""
        self.read(site_id)
        self.dir.mkdir(exist_ok=True)
        data = self._stored
        if data.get("site_id") != self.site_id or data.get("laptop_id") != self.laptop_id:
            write_json_durably(
                self.state_file,
                {"format": STATE_FORMAT, "version": 1, "laptop_id": self.laptop_id,
                 "site_id": self.site_id},
            )
        if self.work.exists():
            shutil.rmtree(self.work)
        self.work.mkdir()

    def read_pending(self) -> _Pending | None:
        if not self.pending_json.exists():
            if self.pending_dir.exists():  # leftovers of a sync killed while preparing
                shutil.rmtree(self.pending_dir)
            return None
        try:
            return _Pending(**json.loads(self.pending_json.read_text(encoding="utf-8")))
        except (ValueError, TypeError) as exc:
            raise LaptopStateError(f"{self.pending_json} is damaged: {exc}") from exc

    def drop_pending(self) -> None:
        self.pending_json.unlink(missing_ok=True)
        shutil.rmtree(self.pending_dir, ignore_errors=True)

    def validated_sha256(self) -> str | None:
        """The SHA-256 recorded when the visit last passed the full check by this version of
        the check (``None`` when there is no record, it is damaged, or another version made it).
        Reads only."""
        try:
            data = json.loads(self.validated.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("format") != VALIDATED_FORMAT:
            return None
        if data.get("checker") != _checker_version():
            return None
        digest = data.get("sha256")
        return digest if isinstance(digest, str) and len(digest) == 64 else None

    def record_validated(self, sha256: str | None) -> None:
        """Record (durably) that the visit's bytes hashing to ``sha256`` passed the full check;
        ``None`` removes the record."""
        if sha256 is None:
            self.validated.unlink(missing_ok=True)
            return
        write_json_durably(self.validated, {"format": VALIDATED_FORMAT, "checker": _checker_version(),
                                            "sha256": sha256, "recorded_utc": utc_now_iso()})


def site_id_of(visit: Path) -> str:
    """The site id of a visit GeoPackage: its metadata's site id, else the file's stem.

    Looks in the store's ``fieldapp_meta`` table for ``site_uuid`` (every laptop copy of a
    visit shares it), then in a ``metadata`` key/value table for ``site_id``; falls back to
    the file name without ``.gpkg``.
    """
    with contextlib.closing(connect(visit, readonly=True)) as conn:
        for table, key in (("fieldapp_meta", "site_uuid"), ("metadata", "site_id")):
            if True:
                with contextlib.suppress(sqlite3.Error):
                    row = conn.execute(
                        f"SELECT value FROM {table} WHERE key = ?", (key,)
                    ).fetchone()
                    if row and isinstance(row[0], str) and row[0].strip():
                        return row[0].strip()
    return Path(visit).stem


# --------------------------------------------------------------------------------------------
def check_visit_basics(visit: Path) -> None:
    """Refuse a visit the sync cannot safely touch: not a regular GeoPackage file, damaged, or
    read-only (the file's write permission bits are all off, or this user may not write it or
    its folder, where ``VISIT.gpkg.sync/`` is kept).

    Raises
    ------
    VisitRefused
        naming the visit and the problem; nothing has been written.
    """
    visit = Path(visit)
    check_geopackage(visit, what="visit", max_bytes=MAX_VISIT_BYTES, error=VisitRefused)
    mode = visit.stat().st_mode
    if not os.access(visit, os.W_OK) or not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        raise VisitRefused(
            f"visit {visit} is read-only: a sync writes what the office sends into it. Nothing was"
            " synced; make the file writable and sync again"
        )
    if not os.access(visit.parent, os.W_OK | os.X_OK):
        raise VisitRefused(
            f"the folder of visit {visit} is read-only: a sync keeps its state beside the visit,"
            f" in {visit.name}.sync/. Nothing was synced; move the visit to a writable folder"
        )


def _bad_value(conn: sqlite3.Connection) -> str | None:
    """Name the first stored value of the wrong type (text in a number column ...), if any.

    Uses the store's column list (:func:`fieldapp.store.schema.columns`); only for messages.
    """
    from fieldapp.store import schema as store_schema
    from fieldapp.survey.features import Layer

    allowed = {"REAL": ("real", "integer"), "INTEGER": ("integer",), "BOOLEAN": ("integer",)}
    for layer in Layer:
        for col in store_schema.columns(layer):
            ok = allowed.get(col.sql)
            if ok is None:
                continue
            with contextlib.suppress(sqlite3.Error):
                row = conn.execute(
                    f"SELECT uuid, {_qi(col.name)}, typeof({_qi(col.name)}) FROM {_qi(layer.value)}"
                    f" WHERE typeof({_qi(col.name)}) NOT IN ('null', {', '.join('?' * len(ok))})"
                    " LIMIT 1", ok,
                ).fetchone()
                if row is not None:
                    return (f"{layer.value} {row[0]}: {col.name} is {row[1]!r} ({row[2]}), not a"
                            f" {col.sql.lower()} value")
    return None


def _checker_version() -> str:
    """Which check a ``validated.json`` record vouches for: fieldapp, store schema, check."""
    import fieldapp
    from fieldapp.store import SCHEMA_VERSION

    return f"fieldapp {fieldapp.__version__}; schema {SCHEMA_VERSION}; check {VISIT_CHECK_VERSION}"


def visit_fingerprint(visit: Path) -> str | None:
    """SHA-256 of the visit file's bytes, when they hold its whole content.

    ``None`` when a non-empty ``VISIT.gpkg-wal`` is beside it (committed records not yet in the
    ``.gpkg``: the app is recording into it, or crashed), before or after hashing.
    """
    visit = Path(visit)
    wal = visit.with_name(visit.name + "-wal")

    def wal_has_records() -> bool:
        try:
            return wal.stat().st_size > 0
        except FileNotFoundError:
            return False

    if wal_has_records():
        return None
    digest = sha256_of(visit)
    return None if wal_has_records() else digest


def check_visit_file(visit: Path, *, known_sha256: str | None = None) -> str | None:
    """Everything the sync checks about a visit before it touches it (or the office).

    1. :func:`check_visit_basics` (a sound, writable GeoPackage in a writable folder);
    2. the store's own check, :func:`fieldapp.store.inspect` (a fieldapp visit, known schema
       version, every table present, ``quick_check``): what the report and the exports refuse,
       the sync refuses too;
    3. a full read through the store: ``open_visit(visit, readonly=True)`` loads every feature
       into the model (checking each row with the model's rules) without writing to the file,
       so a value the store cannot read (``dbh_in`` = ``'abc'``) is refused here instead of
       being sent to the office. Skipped when the file's SHA-256 (:func:`visit_fingerprint`) is
       ``known_sha256``: the same bytes passed it before (see the module docstring).

    Parameters
    ----------
    visit : path
    known_sha256 : str, optional
        SHA-256 of bytes that passed step 3 before (the laptop's ``validated.json``).

    Returns
    -------
    str or None
        SHA-256 of the bytes that passed step 3 (to record), or ``None`` when they cannot be
        vouched for: a non-empty ``-wal``, or the file changed while it was being read.

    Raises
    ------
    VisitRefused
        naming the visit and the first problem; the visit is byte-identical afterwards.
    """
    from fieldapp.store import StoreError, inspect, open_visit

    visit = Path(visit)
    check_visit_basics(visit)
    try:
        inspect(visit)
    except (StoreError, FileNotFoundError) as exc:
        raise VisitRefused(f"{exc}. Nothing was synced") from exc
    before = visit_fingerprint(visit)
    if before is not None and before == known_sha256:
        return before
    try:
        open_visit(visit, readonly=True).close()
    except Exception as exc:  # noqa: BLE001 - whatever the store cannot read, we refuse
        where = None
        with contextlib.suppress(sqlite3.Error), contextlib.closing(
            connect(visit, readonly=True)
        ) as conn:
            where = _bad_value(conn)
        detail = f"{where} ({exc})" if where else f"{type(exc).__name__}: {exc}"
        raise VisitRefused(
            f"visit {visit} cannot be read by the store: {detail}. Nothing was synced;"
            " correct the value in the app (or QGIS) and sync again"
        ) from exc
    return before if before is not None and visit_fingerprint(visit) == before else None


def _record_check(visit: Path, state: LaptopState, known: str | None, checked: str | None,
                  prog: "_Progress") -> None:
    """After a sync: remember that the visit as it is now passed the full check (if it does).

    Unchanged since the check at the start: record that check's hash. Changed by the sync
    (received changes, its own log row): read it through the store again and record the new
    hash when it passes; when it does not, drop the record, so the next sync refuses it.
    Never raises (for the check, or for a record that cannot be written): the sync itself
    succeeded.
    """
    now = visit_fingerprint(visit)
    if now is None:
        return
    if now != checked:
        prog.step("checking the updated visit")
        try:
            checked = check_visit_file(visit)
        except VisitRefused:
            checked = None
        now = checked
    if now != known:
        with contextlib.suppress(OSError):  # no record: the next sync just reads the visit again
            state.record_validated(now)


def check_received(gpkg: Path) -> None:
    """Read ``gpkg`` -- a scratch copy holding what a sync is about to write into the visit --
    through the store, as the app would: ``open_visit(gpkg, readonly=True)`` loads every feature
    and checks each row with the model's rules, without writing to the file.

    Called only when something arrives from the office (never by a no-op sync).

    Raises
    ------
    fieldapp.store.InvalidRecords
        rows the model refuses (``.problems`` names each: table, fid, uuid, column, why);
    fieldapp.store.StoreError, FileNotFoundError
        not a fieldapp visit, damaged, newer schema.
    """
    from fieldapp.store import open_visit

    open_visit(gpkg, readonly=True).close()


def _problem_text(problems: list, limit: int = 5) -> str:
    """``layer tree, feature <uuid> (fid 1), column dbh_in: <why>; ...`` for the first ``limit``."""
    shown = [f"layer {p.table}, feature {p.uuid or '(no uuid)'} (fid {p.fid}), column {p.column}:"
             f" {p.message}" for p in problems[:limit]]
    more = f" (and {len(problems) - limit} more)" if len(problems) > limit else ""
    return "; ".join(shown) + more


def _refusal(exc: Exception) -> tuple[list, str]:
    """The store's problems (RecordProblem list, maybe empty) and a text naming them."""
    problems = list(getattr(exc, "problems", None) or [])
    return problems, (_problem_text(problems) if problems else f"{type(exc).__name__}: {exc}")


# --------------------------------------------------------------------------------------------
class _Sync:
    def __init__(self, visit: Path, office: OfficeStore, state: LaptopState, policy: ConflictPolicy,
                 synced_by: str | None, prog: _Progress) -> None:
        self.visit = visit
        self.office = office
        self.state = state
        self.policy = policy
        self.synced_by = synced_by
        self.prog = prog
        self.gd = cs.new_geodiff()
        self.site = state.site_id
        self.work = state.work
        self.latest: list[tuple] = []  # (table, pk, column, value) for LATEST_WINS_COLUMNS
        self.received: list[tuple[LogEntry, Path]] = []  # office changesets pulled, with their files
        self.base_seq = 0
        #: the office migration this sync makes at its commit point: (change, statements, tables)
        self.office_change: tuple[schemas.SchemaChange, list[str], dict] | None = None
        self.schema_changes: list[str] = []  # for the report

    # ---- resume / finalize ------------------------------------------------------------
    def resume(self) -> str | None:
        """Finish or discard a sync that was interrupted; return the id it finished, if any."""
        pending = self.state.read_pending()
        if pending is None:
            return None
        if pending.kind == "pull":
            self.finalize(pending)
            return f"pull to seq {pending.target_seq}"
        head = self.office.head(self.site) or 0
        applied = False
        if head >= pending.target_seq:
            first = self.office.log(self.site, pending.target_seq - 1)[:1]
            applied = bool(first) and first[0].changeset_id == pending.changeset_id
        if applied:
            self.finalize(pending)
            return pending.changeset_id
        if pending.changeset_id in log_ids(self.visit):
            raise LaptopStateError(
                f"the visit records changeset {pending.changeset_id} as applied but"
                f" {self.office.describe()} has not got it (office restored from a backup?);"
                " nothing was sent"
            )
        self.state.drop_pending()  # never reached the office; recomputed from scratch
        return None

    def finalize(self, pending: _Pending) -> None:
        """Bring the visit to ``new_master`` (one transaction) then the base; idempotent."""
        st = self.state
        done = (
            pending.changeset_id in log_ids(self.visit)
            if pending.kind == "push"
            else log_head(self.visit) >= pending.target_seq
        )
        if not done:
            snap, master = st.pending_snapshot, st.pending_master
            target = schemas.version_of(snap)
            before = schemas.version_of(self.visit) if target is not None else None
            if before is not None and before < target:
                # the office's copy is at a newer store schema than the visit (this laptop's file
                # was not opened for recording since): migrate the visit first, in its own
                # transaction, as the store would; a crash before the update below leaves it
                # migrated, and the next sync finishes
                self.prog.step(f"migrating the visit to store schema {target}")
                schemas.migrate_file(self.visit, target)
                self.schema_changes.append(f"visit {self.visit.name}: schema {before} -> {target}")
            elif before is not None and before > target:
                # the visit was opened for recording (migrated) after this sync was interrupted:
                # the update is worked out on migrated scratch copies; the base stays at the
                # office's schema (the office is migrated by the sync that follows)
                snap, master = self.work / "finalize-snapshot.gpkg", self.work / "finalize-master.gpkg"
                for src, dst in ((st.pending_snapshot, snap), (st.pending_master, master)):
                    shutil.copyfile(src, dst)
                    schemas.migrate_file(dst, before)
            update = self.work / "update.geodiff"
            edits = self.work / "edits.geodiff"
            self.gd.create_changeset(str(snap), str(self.visit), str(edits))
            if self.gd.has_changes(str(edits)):
                # the visit was written during the sync: rebase the office's update onto it
                self.gd.create_rebased_changeset(
                    str(snap), str(master), str(edits), str(update),
                    str(self.work / "finalize-conflicts.json"),
                )
                self._check_finalize(update)
            else:
                self.gd.create_changeset(str(snap), str(master), str(update))
            self.prog(0.9, "updating the visit")
            self.gd.apply_changeset(str(self.visit), str(update))
            checkpoint(self.visit)
        self.prog(0.95, "saving the new base copy")
        copy_durably(st.pending_master, st.base)
        st.drop_pending()

    def _check_finalize(self, update: Path) -> None:
        """The visit was written while this sync ran: check, on a scratch copy, what the office's
        update rebased onto those edits makes of it, before the visit gets it. A refusal leaves
        the visit unchanged and ``pending/`` in place (the office already has this laptop's
        changeset), so the next sync finishes once the row is corrected in the app."""
        trial = self.work / "finalize-check.gpkg"
        snapshot_sqlite(self.visit, trial)
        try:
            self.gd.apply_changeset(str(trial), str(update))
            self.prog(0.88, "checking the office's changes merged with edits made during the sync")
            try:
                check_received(trial)
            except Exception as exc:  # noqa: BLE001 - whatever the store cannot read, we refuse
                problems, text = _refusal(exc)
                raise InvalidOfficeRecords(
                    f"visit {self.visit.name} was written while the sync ran, and with the office's"
                    f" changes merged in it would hold rows this fieldapp refuses: {text}. The"
                    " visit was not changed; the office has this laptop's changes up to the start"
                    " of the sync. Correct the row (in the app, or QGIS) and sync again to finish",
                    problems,
                ) from exc
        finally:
            trial.unlink(missing_ok=True)

    def _check_received(self, result: Path, theirs: Path, tables: dict[str, cs.TableSchema]) -> None:
        """Refuse what the visit is about to become (``result``, a scratch copy) unless the
        store reads it; raised before ``pending/`` is written, so nothing is sent or applied.

        ``result`` is ``theirs`` (base + the office's changesets) for a pull, or ``new_master``
        (theirs + this laptop's rebased edits) for a push. When ``new_master`` is refused,
        ``theirs`` is read too, to tell the office's rows from a merge of two good ones.

        Raises
        ------
        InvalidOfficeRecords
            naming layer, feature uuid and column of each refused row (first five), and the
            office changeset and laptop that last set it.
        """
        try:
            check_received(result)
            return
        except Exception as exc:  # noqa: BLE001 - whatever the store cannot read, we refuse
            failure = exc
        from_office = result == theirs
        if not from_office:
            try:
                check_received(theirs)
            except Exception as exc:  # noqa: BLE001
                failure, from_office = exc, True
        problems, text = _refusal(failure)
        queued = ("This laptop's own edits are still in the visit and will be sent at the next"
                  " sync" if result != theirs else "This laptop had nothing to send")
        if not from_office:
            raise InvalidOfficeRecords(
                f"merging this visit's edits with the office's changes (seq {self.base_seq + 1} to"
                f" {self.received[-1][0].seq if self.received else self.base_seq}) of site"
                f" {self.site} gives rows this fieldapp refuses: {text}. Refused: nothing was"
                f" sent and visit {self.visit.name} was not changed. Correct the row in the app"
                " (or QGIS) and sync again", problems,
            ) from failure
        raise InvalidOfficeRecords(
            f"{self.office.describe()} sent rows this fieldapp refuses for site {self.site}:"
            f" {text}{self._senders(problems, tables)}. Refused: nothing was applied to visit"
            f" {self.visit.name} (unchanged, still opens) and nothing was sent. {queued}."
            " To fix: the laptop that sent the row corrects it (in QGIS or with sqlite3: its own"
            " sync refuses its visit until then) and syncs again; then sync this laptop again",
            problems,
        ) from failure

    def _senders(self, problems: list, tables: dict[str, cs.TableSchema]) -> str:
        """`` -- set by office changeset seq N (id, laptop L, synced by W at T)`` for the first
        problem row: the last pulled changeset that inserted or updated it. Only on refusal."""
        if not problems:
            return ""
        p = problems[0]
        table = tables.get(p.table)
        if table is None or len(table.pk) != 1:
            return ""
        for entry, path in reversed(self.received):
            try:
                changes = cs.list_changes(self.gd, path, self.work)
            except Exception:  # noqa: BLE001 - only for the message
                return ""
            for e in changes:
                if e["table"] == p.table and e["type"] != "delete" and cs.pk_of(e, table) == (p.fid,):
                    return (f" -- set by office changeset seq {entry.seq} ({entry.changeset_id},"
                            f" laptop {entry.laptop_id}, synced by {entry.synced_by or '?'} at"
                            f" {entry.applied_utc})")
        return ""

    # ---- one full sync ----------------------------------------------------------------
    def run(self) -> tuple[str | None, int, dict, list[Conflict], bool]:
        st, gd, work = self.state, self.gd, self.work
        head = self.office.head(self.site)
        site_schema = self.office.schema(self.site) if head is not None else None
        _refuse_newer(self.office, self.site, site_schema, None)  # migrated since the preflight
        snapshot = work / "snapshot.gpkg"
        self.prog(0.1, "taking a snapshot of the visit")
        snapshot_sqlite(self.visit, snapshot)
        # -- store schema versions: every copy is brought to the newest of the three (scratch
        # copies here; the office at the commit point; the visit and base at the finalize)
        v_visit = schemas.version_of(snapshot)
        v_base = schemas.version_of(st.base) if st.base.exists() else None
        v_office = site_schema.version if site_schema is not None else None
        changes = list(site_schema.changes) if site_schema is not None else []
        target = max((v for v in (v_visit, v_base, v_office) if v is not None), default=None)
        if v_visit is not None and target is not None and v_visit < target:
            schemas.migrate_file(snapshot, target)
        tables = cs.schema(gd, snapshot, work)
        if st.base.exists():
            base = st.base
            base_seq = log_head(base)
            if log_ids(snapshot) != log_ids(base):
                raise LaptopStateError(
                    f"the visit's sync log does not match its base copy in {st.dir}; refusing to"
                    " send (the visit was replaced or restored?)"
                )
            if v_base is not None and target is not None and v_base < target:
                base = work / "base.gpkg"
                shutil.copyfile(st.base, base)
                schemas.migrate_file(base, target)
            if cs.schema_signature(cs.schema(gd, base, work)) != cs.schema_signature(tables):
                at = f" (both brought to store schema {target})" if target is not None else ""
                raise SchemaMismatch(
                    f"the tables or columns of {self.visit.name} differ from its base copy"
                    f" {st.base}{at}: they were changed since its last sync by something other"
                    " than fieldapp. Nothing was sent"
                )
            if head is None:
                raise InvalidOfficeData(
                    f"{self.office.describe()} has no site {self.site}, but this visit synced with it"
                    f" before (seq {base_seq}): wrong office folder?"
                )
            if head < base_seq:
                raise InvalidOfficeData(
                    f"{self.office.describe()} is at seq {head} for site {self.site}, behind this"
                    f" laptop (seq {base_seq}): restored from an old backup? Nothing was sent"
                )
        else:
            base = work / "empty.gpkg"
            base_seq = 0
            self._schema_only(snapshot, base)
            if head is None:
                self.prog(0.15, "creating the site in the office")
                self.office.create_site(self.site, base)
                head = 0
                v_office = target

        self.base_seq = base_seq
        if v_office is not None and target is not None and v_office < target:
            # this laptop's visit is at a newer store schema than the office: the office is
            # migrated at the commit point (the pushed changeset is written at ``target``)
            change = schemas.SchemaChange(target, v_office, head, utc_now_iso(), st.laptop_id,
                                          _fieldapp_version())
            self.office_change = (change, schemas.statements(v_office, target), tables)
        # -- pull: each office changeset is applied at the schema it was written at (the
        # office's schema log), the copy migrated at the logged points, then to ``target``
        self.prog(0.2, "fetching the office's changes")
        theirs = work / "theirs.gpkg"
        shutil.copyfile(st.base if st.base.exists() else base, theirs)
        theirs_v = v_base if st.base.exists() else target
        first_v = changes[0].from_version if changes else v_office
        entries = self.office.log(self.site, base_seq) if head > base_seq else []
        for n, entry in enumerate(entries):
            self.prog(0.2 + 0.2 * n / max(1, len(entries)), f"applying office change {entry.seq}")
            f = work / f"{entry.seq:08d}.geodiff"
            self.office.fetch_changeset(self.site, entry, f)
            self.received.append((entry, f))
            what = f"office changeset seq {entry.seq} ({entry.changeset_id})"
            try:
                counts_in = cs.summary(gd, f, work)
            except Exception as exc:  # pygeodiff: not a readable changeset
                raise InvalidOfficeData(f"{what} cannot be read: {exc}") from exc
            cs.validate_changeset(counts_in, tables, expected_id=entry.changeset_id, what=what)
            written_v = schemas.version_at(changes, entry.seq) or first_v
            if theirs_v is not None and written_v is not None and written_v != theirs_v:
                if written_v < theirs_v:
                    raise SchemaMismatch(
                        f"{what} was written at store schema {written_v}, but this laptop's copy"
                        f" of site {self.site} is already at schema {theirs_v} (the office master"
                        " was replaced or restored?). Nothing was sent; make a fresh laptop copy"
                        " with `fieldapp sync --office PATH --checkout SITE NEW.gpkg`"
                    )
                schemas.migrate_file(theirs, written_v)
                theirs_v = written_v
            try:
                gd.apply_changeset(str(theirs), str(f))
            except Exception as exc:
                raise InvalidOfficeData(f"{what} does not apply to this laptop's base: {exc}") from exc
            cs.validate_logged(theirs, expected_seq=entry.seq, expected_id=entry.changeset_id, what=what)
            with contextlib.closing(connect(theirs)) as conn, conn:  # as the office did on apply
                conn.execute(f"UPDATE {LOG_TABLE} SET sha256 = ?, size_bytes = ? WHERE seq = ?",
                             (entry.sha256, entry.size_bytes, entry.seq))
        if theirs_v is not None and target is not None and theirs_v < target:
            schemas.migrate_file(theirs, target)
        received_changeset = work / "theirs.geodiff"
        their_entries: list[dict] = []
        if entries:
            gd.create_changeset(str(base), str(theirs), str(received_changeset))
            their_entries = cs.list_changes(gd, received_changeset, work)

        # -- diff
        self.prog(0.4, "finding this laptop's edits")
        local = work / "local.geodiff"
        gd.create_changeset(str(base), str(snapshot), str(local))
        counts: dict[str, dict] = defaultdict(lambda: {"sent": 0, "received": 0, "merged": 0, "conflicts": 0})
        for e in their_entries:
            if e["table"] != LOG_TABLE:
                counts[e["table"]]["received"] += 1

        if not gd.has_changes(str(local)):
            if not entries:
                if self.office_change is not None:
                    self.prog.committed = True
                    self._migrate_office()
                if base != st.base:  # the base lagged behind the office's schema: keep it migrated
                    copy_durably(base, st.base)
                return None, head, {}, [], True
            self.prog(0.7, "checking the office's changes")
            self._check_received(theirs, theirs, tables)
            if self.office_change is not None:  # before pending/: the base is never ahead of the office
                self.prog.committed = True
                self._migrate_office()
            self._write_pending(_Pending(kind="pull", target_seq=head), theirs, snapshot, None)
            self.prog(0.8, "received the office's changes")
            self.prog.committed = True
            self.finalize(self.state.read_pending())
            return None, head, counts, [], False

        # -- rebase
        self.prog(0.5, "merging with the office's changes")
        out = work / "out.geodiff"
        conflict_file = work / "conflicts.json"
        if entries:
            gd.create_rebased_changeset(str(base), str(snapshot), str(received_changeset), str(out),
                                        str(conflict_file))
        else:
            shutil.copyfile(local, out)
        new_master = work / "new_master.gpkg"
        shutil.copyfile(theirs, new_master)
        try:
            gd.apply_changeset(str(new_master), str(out))
        except Exception as exc:
            raise SyncError(
                f"this visit's edits do not apply to the office copy of site {self.site}: {exc}."
                " If this visit file was copied from another laptop's visit, make a fresh laptop"
                " copy with `fieldapp sync --office PATH --checkout SITE NEW.gpkg` instead"
            ) from exc

        changeset_id = uuid.uuid4().hex
        seq = head + 1
        local_entries = cs.list_changes(gd, local, work) if their_entries else []
        for table, n in cs.summary(gd, out, work).items():
            if table != LOG_TABLE:
                counts[table]["sent"] += n["insert"] + n["update"] + n["delete"]
        conflicts = self._conflicts(base, theirs, snapshot, tables, conflict_file, local_entries,
                                    their_entries, changeset_id, seq, counts)
        self._resolve(new_master, tables, conflicts)

        # -- the changeset actually sent: data + conflict records + log row
        self.prog(0.6, "preparing the changeset")
        applied_utc = utc_now_iso()
        counts_clean = {k: v for k, v in sorted(counts.items()) if any(v.values())}
        with contextlib.closing(connect(new_master)) as conn, conn:
            conn.execute(
                f"INSERT INTO {LOG_TABLE} (seq, changeset_id, laptop_id, synced_by, applied_utc,"
                " counts_json) VALUES (?, ?, ?, ?, ?, ?)",
                (seq, changeset_id, st.laptop_id, self.synced_by, applied_utc, json.dumps(counts_clean)),
            )
            for k in conflicts:
                conn.execute(
                    f"INSERT INTO {CONFLICTS_TABLE} (uuid, layer, feature_uuid, feature_fid, field,"
                    " kind, base_json, theirs_json, ours_json, kept, policy, changeset_id, seq,"
                    " ours_laptop_id, ours_by, created_utc) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (k.uuid, k.layer, k.feature_uuid, k.feature_fid, k.field, k.kind.value,
                     json.dumps(k.base), json.dumps(k.theirs), json.dumps(k.ours), k.kept,
                     k.policy, k.changeset_id, k.seq, k.ours_laptop_id, k.ours_by, k.created_utc),
                )
        changeset = work / "changeset.geodiff"
        gd.create_changeset(str(theirs), str(new_master), str(changeset))
        sha, size = sha256_of(changeset), changeset.stat().st_size
        with contextlib.closing(connect(new_master)) as conn, conn:
            conn.execute(f"UPDATE {LOG_TABLE} SET sha256 = ?, size_bytes = ? WHERE seq = ?", (sha, size, seq))
        if entries:  # the visit becomes new_master: the office's rows with this laptop's edits
            self.prog(0.65, "checking the office's changes merged with this laptop's")
            self._check_received(new_master, theirs, tables)
        pending = _Pending(kind="push", target_seq=seq, changeset_id=changeset_id, sha256=sha,
                           size_bytes=size, laptop_id=st.laptop_id, synced_by=self.synced_by,
                           applied_utc=applied_utc, counts=counts_clean)
        self._write_pending(pending, new_master, snapshot, changeset)

        # -- push (last point where cancelling is honoured)
        self.prog(0.7, "sending the changeset to the office")
        self.prog.committed = True
        self._migrate_office()
        entry = LogEntry(seq, changeset_id, st.laptop_id, self.synced_by, applied_utc, sha, size)
        self.office.apply(self.site, st.pending_changeset, entry, step=self.prog.step)
        self.prog(0.85, "office updated")
        self.finalize(self.state.read_pending())
        return changeset_id, seq, counts, conflicts, False

    def _migrate_office(self) -> None:
        """Migrate the office master to this laptop's store schema (prepared in :meth:`run`),
        recording the seq it was at in the office's schema log. Called after the commit point,
        before the office gets a changeset written at the new schema; the office checks the
        migrated copy has the columns of this laptop's copy before it replaces the master."""
        if self.office_change is None:
            return
        change, statements, tables = self.office_change
        want = cs.schema_signature(tables)

        def same_columns(path: Path) -> None:
            got = cs.schema_signature(cs.schema(self.gd, path, self.work))
            differ = sorted(t for t, cols in want.items() if got.get(t) != cols)
            if differ:
                raise SchemaMismatch(
                    f"the master of site {self.site} migrated to store schema"
                    f" {change.schema_version} does not have the columns of this laptop's copy"
                    f" (tables {differ}); the master was not changed. Nothing was sent"
                )

        self.prog.step(f"office: migrating the master to store schema {change.schema_version}")
        self.office.migrate(self.site, change, statements, check=same_columns, step=self.prog.step)
        self.office_change = None
        self.schema_changes.append(
            f"office master of site {self.site}: schema {change.from_version} ->"
            f" {change.schema_version} (changesets after seq {change.after_seq} are at schema"
            f" {change.schema_version})"
        )

    def _write_pending(self, pending: _Pending, master: Path, snapshot: Path, changeset: Path | None) -> None:
        st = self.state
        st.drop_pending()
        st.pending_dir.mkdir()
        for src, dst in ((master, st.pending_master), (snapshot, st.pending_snapshot),
                         (changeset, st.pending_changeset)):
            if src is not None:
                copy_durably(src, dst)
        write_json_durably(st.pending_json, asdict(pending))

    def _schema_only(self, snapshot: Path, target: Path) -> None:
        """A copy of the visit with every row removed (by pygeodiff: dump, invert, apply)."""
        shutil.copyfile(snapshot, target)
        dump, inverse = self.work / "dump.geodiff", self.work / "dump-inverse.geodiff"
        self.gd.dump_data("sqlite", "", str(snapshot), str(dump))
        if self.gd.has_changes(str(dump)):
            self.gd.invert_changeset(str(dump), str(inverse))
            self.gd.apply_changeset(str(target), str(inverse))

    def _conflicts(self, base, theirs, snapshot, tables, conflict_file, local_entries, their_entries,
                   changeset_id, seq, counts) -> list[Conflict]:
        rows = {name: _Rows(p, tables) for name, p in (("base", base), ("theirs", theirs), ("ours", snapshot))}
        now = utc_now_iso()
        kept_same = "ours" if self.policy is ConflictPolicy.LAST_SYNC_WINS else "theirs"
        result: list[Conflict] = []

        def make(table, pk, field_name, kind, b, t, o, kept):
            row = rows["base"].row(table, pk) or {}
            fuuid = row.get("uuid") if isinstance(row.get("uuid"), str) else None
            fid = pk[0] if len(pk) == 1 and isinstance(pk[0], int) else None
            counts[table]["conflicts"] += 1
            result.append(Conflict(uuid.uuid4().hex, table, fuuid, fid, field_name, kind, b, t, o, kept,
                                   self.policy.value, changeset_id, seq, self.state.laptop_id,
                                   self.synced_by, now))

        def whole(which, table, pk):
            r = rows[which].row(table, pk)
            return None if r is None else {k: _encode(v) for k, v in r.items()}

        try:
            their_by_pk = {(e["table"], cs.pk_of(e, tables[e["table"]])): e for e in their_entries}
            their_deleted = {k for k, e in their_by_pk.items() if e["type"] == "delete"}
            geodiff_conflicts = []
            if conflict_file.exists():
                geodiff_conflicts = json.loads(conflict_file.read_text(encoding="utf-8")).get("geodiff", [])
            conflicted = set()
            for c in geodiff_conflicts:
                table = c["table"]
                t = tables[table]
                pk = self._pk_from_text(rows["base"], t, c.get("fid"))
                conflicted.add((table, pk))
                if (table, pk) in their_deleted:
                    make(table, pk, None, ConflictKind.EDIT_VS_DELETE, whole("base", table, pk), None,
                         whole("ours", table, pk), "delete")
                    continue
                real = 0
                for ch in c["changes"]:
                    col = t.columns[ch["column"]]
                    b = _encode((rows["base"].row(table, pk) or {}).get(col))
                    th = _encode((rows["theirs"].row(table, pk) or {}).get(col))
                    o = _encode((rows["ours"].row(table, pk) or {}).get(col))
                    if col in LATEST_WINS_COLUMNS and isinstance(th, str) and isinstance(o, str):
                        self.latest.append((table, pk, col, max(th, o)))  # bookkeeping, not an edit
                        continue
                    real += 1
                    make(table, pk, col, ConflictKind.SAME_FIELD, b, th, o, kept_same)
                if not real and table not in INTERNAL_TABLES:
                    counts[table]["merged"] += 1
            for e in local_entries:
                table = e["table"]
                pk = cs.pk_of(e, tables[table])
                other = their_by_pk.get((table, pk))
                if other is None or other["type"] != "update" or (table, pk) in conflicted:
                    continue
                if e["type"] == "delete":
                    make(table, pk, None, ConflictKind.DELETE_VS_EDIT, whole("base", table, pk),
                         whole("theirs", table, pk), None, "delete")
                elif e["type"] == "update" and table not in INTERNAL_TABLES:
                    counts[table]["merged"] += 1
        finally:
            for r in rows.values():
                r.close()
        return result

    @staticmethod
    def _pk_from_text(rows: _Rows, table: cs.TableSchema, text) -> tuple:
        """geodiff's conflict file gives the primary key as text; find the typed value."""
        if len(table.pk) != 1:
            raise SyncError(f"table {table.name} has a composite primary key; not supported")
        col = table.columns[table.pk[0]]
        found = rows.conn.execute(
            f"SELECT {_qi(col)} FROM {_qi(table.name)} WHERE CAST({_qi(col)} AS TEXT) = ?", (str(text),)
        ).fetchone()
        if found is None:
            with contextlib.suppress(ValueError):
                return (int(text),)
            return (text,)
        return (found[0],)

    def _resolve(self, new_master: Path, tables, conflicts: list[Conflict]) -> None:
        """Write the policy's choice where it is not pygeodiff's (which keeps ours).

        ``modified_utc`` takes the later of the two times; under first-sync-wins every
        same-field conflict gets the office's value back.
        """
        updates = [(table, col, value, pk) for table, pk, col, value in self.latest]
        if self.policy is ConflictPolicy.FIRST_SYNC_WINS:
            updates += [(k.layer, k.field, _decode(k.theirs), (k.feature_fid,))
                        for k in conflicts if k.kind is ConflictKind.SAME_FIELD]
        if not updates:
            return
        with contextlib.closing(connect(new_master)) as conn:
            gpkgsql.register(conn)
            with conn:
                for table, col, value, pk in updates:
                    t = tables[table]
                    where = " AND ".join(f"{_qi(t.columns[i])} = ?" for i in t.pk)
                    conn.execute(f"UPDATE {_qi(table)} SET {_qi(col)} = ? WHERE {where}", (value, *pk))


# --------------------------------------------------------------------------------------------
def sync(
    visit_path: str | os.PathLike,
    office: OfficeStore,
    *,
    site_id: str | None = None,
    policy: ConflictPolicy = ConflictPolicy.LAST_SYNC_WINS,
    synced_by: str | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    lock_wait_s: float = 10.0,
) -> SyncReport:
    """Sync one visit GeoPackage with the office: send its edits, receive everyone else's.

    Safe to call from a worker thread (it starts no threads and touches no Qt). The visit
    should not be written while it runs (pause recording); edits made anyway are kept and sent
    at the next sync.

    Parameters
    ----------
    visit_path : path
        The visit ``.gpkg``. Sync state is kept beside it in ``<visit>.sync/``.
    office : OfficeStore
        e.g. ``FolderOffice("/media/usb/office")``.
    site_id : str, optional
        The site's id in the office; default: the visit's metadata, else the file stem.
    policy : ConflictPolicy
        Which value the office keeps when two laptops set the same field differently.
    synced_by : str, optional
        Who syncs (recorded in the office log); default: the login name.
    progress : callable(fraction 0..1, message), optional
        Called at every step, from the calling thread.
    cancel : CancelToken, optional
        Honoured until the changeset is handed to the office.
    lock_wait_s : float
        How long to wait for another laptop's sync to finish before giving up.

    Returns
    -------
    SyncReport
        Per-layer sent / received / merged / conflicts, and the conflict records.

    Raises
    ------
    VisitRefused
        The visit failed :func:`check_visit_file` (not a fieldapp visit, damaged, newer schema,
        a value the store cannot read, read-only). Raised before anything is written: the visit
        is byte-identical and no ``<visit>.sync/`` folder is made.
    OfficeNotFound
        The office folder is missing or not a fieldapp office (see :class:`FolderOffice`'s
        ``create``); nothing is written anywhere.
    InvalidOfficeRecords
        What the office sent holds rows the store refuses (``.problems`` names each: layer,
        fid, uuid, column, why; the message also names the changeset and laptop that set the
        first). Raised before anything is written on either side: the visit and its ``.sync/``
        state are byte-identical, this laptop's edits stay queued. Sync again once the row is
        corrected (by the laptop that sent it).
    NewerSchema
        The office site (or this laptop's base copy) has a newer store schema than this
        fieldapp knows: "update fieldapp on this laptop". Raised before anything is written.
    OfficeLocked, InvalidOfficeData, SchemaMismatch, LaptopStateError, SyncCancelled, SyncError
        See :mod:`fieldapp.sync.errors`; in every case nothing half-done is left: the next
        sync carries on. A visit that was synced before but lost its ``.sync`` folder, and a
        visit whose office has no such site ("wrong office folder?"), are refused before the
        office is touched.
    ValueError
        The site id is not a safe name.
    """
    visit = Path(visit_path).absolute()
    state = LaptopState(visit)
    known = state.validated_sha256()
    # looked up at call time: the engine's generic-GeoPackage tests swap in the basics only
    checked = check_visit_file(visit, known_sha256=known)
    if synced_by is None:
        with contextlib.suppress(Exception):
            synced_by = getpass.getuser()
    prog = _Progress(progress, cancel)
    prog(0.0, "starting")
    state.read(site_id)
    _preflight(visit, state, office)
    state.load(site_id)
    checkpoint(visit)
    ensure_sync_tables(visit)
    if state.base.exists():
        ensure_sync_tables(state.base)
    owner = LockOwner.here(state.laptop_id)
    prog(0.05, f"locking site {state.site_id} in {office.describe()}")
    with office.lock(state.site_id, owner, wait_s=lock_wait_s):
        prog.heartbeat = lambda: office.heartbeat(state.site_id, owner)
        job = _Sync(visit, office, state, policy, synced_by, prog)
        resumed = job.resume()
        prog.committed = False
        changeset_id, seq, counts, conflicts, no_op = job.run()
        prog.heartbeat = None
    with contextlib.suppress(OSError):
        shutil.rmtree(state.work)
    _record_check(visit, state, known, checked, prog)
    layers = tuple(LayerCounts(name, **c) for name, c in sorted(counts.items())
                   if name != LOG_TABLE and any(c.values()))
    prog(1.0, "done")
    return SyncReport(state.site_id, office.describe(), changeset_id, seq, layers, tuple(conflicts),
                      (resumed,) if resumed else (), no_op, policy.value, tuple(job.schema_changes))


def _preflight(visit: Path, state: LaptopState, office: OfficeStore) -> None:
    """Refuse, before anything is written on either side, a sync that cannot succeed.

    - the office is not there (:meth:`OfficeStore.check_available`);
    - the visit's own sync log has entries but this laptop has no base copy of it (the file was
      copied without its ``.sync`` folder, or synced with another office): its edits cannot be
      told from what it received, and its log would collide with the office's;
    - the laptop has a base copy but the office has no such site (wrong office folder?).

    - the office site, or this laptop's base copy of it, has a newer store schema than this
      fieldapp knows (:class:`NewerSchema`: "update fieldapp"), checked before an interrupted
      sync is resumed too.

    An interrupted sync (``pending/``) is left to :meth:`_Sync.resume`.
    """
    office.check_available()
    site_schema = office.schema(state.site_id)
    _refuse_newer(office, state.site_id, site_schema, state.base if state.base.exists() else None)
    if state.pending_json.exists():
        return
    logged = log_ids(visit)
    if logged and not state.base.exists():
        raise LaptopStateError(
            f"visit {visit.name} was synced before (its sync log has {len(logged)} changeset(s),"
            f" up to seq {max(logged.values())}) but its sync state {state.base} is missing: the"
            " file was copied without its .sync folder, or synced with another office. Nothing"
            " was sent. Make a fresh laptop copy from the office that has the site instead:"
            " `fieldapp sync --office PATH --checkout SITE NEW.gpkg`"
        )
    if state.base.exists() and site_schema is None:
        raise InvalidOfficeData(
            f"{office.describe()} has no site {state.site_id}, but this visit synced with it"
            f" before (seq {log_head(state.base)}): wrong office folder? Nothing was sent"
        )


def _fieldapp_version() -> str:
    import fieldapp

    return str(getattr(fieldapp, "__version__", "?"))


def _newer_office_message(office: OfficeStore, site_id: str, version: int, app: int, done: str) -> str:
    return (
        f"this office site was written by a newer fieldapp (schema {version}); update fieldapp on"
        f" this laptop (it knows store schemas up to {app}). Site {site_id} in"
        f" {office.describe()}; {done}"
    )


def _refuse_newer(office: OfficeStore, site_id: str, site_schema: SiteSchema | None,
                  base: Path | None, *,
                  done: str = "nothing was synced: the visit, its sync state and the office are"
                              " unchanged") -> None:
    """Raise :class:`NewerSchema` when the office master (or this laptop's base copy) has a
    store schema above the newest this fieldapp knows. Reads only."""
    app = schemas.app_version()
    if site_schema is not None and site_schema.version is not None and site_schema.version > app:
        raise NewerSchema(_newer_office_message(office, site_id, site_schema.version, app, done))
    v_base = schemas.version_of(base) if base is not None else None
    if v_base is not None and v_base > app:
        raise NewerSchema(
            f"this laptop's copy of site {site_id} ({base}) was written by a newer fieldapp"
            f" (schema {v_base}); update fieldapp on this laptop (it knows store schemas up to"
            f" {app}). Nothing was synced"
        )


def checkout(office: OfficeStore, site_id: str, visit_path: str | os.PathLike) -> Path:
    """Make a new laptop copy of a site from the office master (for a second or third laptop).

    Raises ``FileExistsError`` if ``visit_path`` exists, ``SyncError`` if the office has no
    such site, :class:`NewerSchema` if its master has a newer store schema than this fieldapp
    knows ("update fieldapp"; nothing is written), :class:`InvalidOfficeRecords` if the master
    holds a row the store refuses (read with :func:`check_received` before the copy is placed);
    office errors as for :func:`sync`. On any error nothing is left behind. The copy is the
    master as it is (any store schema up to this fieldapp's) without the office's schema log.
    """
    visit = Path(visit_path).absolute()
    if visit.exists():
        raise FileExistsError(f"{visit} already exists; choose a new file name")
    check_site_id(site_id)
    state = LaptopState(visit)
    if state.dir.exists():
        raise FileExistsError(f"{state.dir} already exists; choose a new file name")
    office.check_available()
    site_schema = office.schema(site_id)
    if site_schema is None:
        raise SyncError(f"{office.describe()} has no site {site_id}; nothing was checked out")
    _refuse_newer(office, site_id, site_schema, None, done="nothing was checked out")
    owner = LockOwner.here()
    with office.lock(site_id, owner):
        state.dir.mkdir()
        try:
            temp = state.dir / "checkout.gpkg"
            office.fetch_master(site_id, temp)
            _drop_office_tables(temp)
            try:
                check_received(temp)
            except Exception as exc:  # noqa: BLE001 - whatever the store cannot read, we refuse
                from fieldapp.store import NewerVisitFile

                if isinstance(exc, NewerVisitFile):  # migrated since the check above
                    raise NewerSchema(_newer_office_message(
                        office, site_id, schemas.version_of(temp) or 0, schemas.app_version(),
                        "nothing was checked out")) from exc
                problems, text = _refusal(exc)
                raise InvalidOfficeRecords(
                    f"the master of site {site_id} in {office.describe()} holds rows this fieldapp"
                    f" refuses: {text}. Nothing was checked out; correct the row in the master"
                    " (the laptop that sent it corrects it and syncs again) and check out again",
                    problems,
                ) from exc
            copy_durably(temp, state.base)
            state.load(site_id)
            os.replace(temp, visit)
        except BaseException:
            if not visit.exists():  # nothing half-made: no .sync folder without its visit
                shutil.rmtree(state.dir, ignore_errors=True)
            raise
    return visit


def _drop_office_tables(copy: Path) -> None:
    """Remove what only the office master keeps (its schema log) from a fresh laptop copy."""
    with contextlib.closing(connect(copy)) as conn, conn:
        conn.execute(f"DROP TABLE IF EXISTS {schemas.SCHEMA_LOG_TABLE}")


def read_conflicts(gpkg_path: str | os.PathLike, *, unresolved_only: bool = False) -> list[Conflict]:
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
