"""One sync under the office lock, phase by phase (the laptop side; see ``docs/sync.md``).

:class:`_Sync` is made by :func:`fieldapp.sync.engine.sync` once the visit passed its check and
the office lock is held. :meth:`_Sync.resume` finishes or discards an interrupted sync;
:meth:`_Sync.run` then goes through the phases, each a method:

1. :meth:`~_Sync._align_schemas` -- snapshot the visit, work out the newest store schema of the
   visit, the base copy and the office master, bring the snapshot to it;
2. :meth:`~_Sync._choose_base` -- the common base (the laptop's ``base.gpkg``, migrated on a
   scratch copy if need be, or an empty copy for a first sync, creating the office site);
3. :meth:`~_Sync._pull` -- fetch, check and apply the office's changesets to a copy of the base
   ("theirs"), each at the schema it was written at;
4. :meth:`~_Sync._diff` -- this laptop's edits (base -> snapshot); with none, only receive
   (:meth:`~_Sync._receive_only`);
5. :meth:`~_Sync._rebase` -- rebase the edits onto theirs (pygeodiff);
6. :meth:`~_Sync._build` -- conflict records, the log row and the changeset actually sent,
   checked through the store, written to ``pending/``;
7. :meth:`~_Sync._push` -- past the commit point: migrate the office if need be, apply the
   changeset there, then :meth:`~_Sync.finalize` the visit and the base.

It talks to the office only through :class:`~fieldapp.sync.officestore.OfficeStore`.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import uuid
from collections import defaultdict
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from fieldapp.store.errors import RecordProblem
from fieldapp.sync import changesets as cs
from fieldapp.sync import schemas
from fieldapp.sync.conflicts import (
    PLAIN_COPY_POLICY,
    Conflict,
    ConflictContext,
    ConflictPolicy,
    drop_repeated_records,
    find_conflicts,
    insert_conflicts,
    resolve_conflicts,
    tag_clashes,
)
from fieldapp.sync.errors import InvalidOfficeData, InvalidOfficeRecords, LaptopStateError, SchemaMismatch, SyncError
from fieldapp.sync.files import (
    CONFLICTS_TABLE,
    LOG_TABLE,
    checkpoint,
    connect,
    copy_durably,
    empty_tables,
    log_head,
    log_ids,
    record_changeset_file,
    replace_durably,
    sha256_of,
    snapshot_sqlite,
    write_json_durably,
)
from fieldapp.sync.laptop import LaptopState, _Pending
from fieldapp.sync.offices import office_arg
from fieldapp.sync.officestore import FastForward, LogEntry, OfficeStore, utc_now_iso
from fieldapp.sync.officestyles import STYLES_TABLE
from fieldapp.sync.preflight import _no_such_site, _refuse_newer
from fieldapp.sync.progress import _Progress
from fieldapp.sync.results import SyncOutcome
from fieldapp.sync.visitcheck import _refusal, check_received, visit_fingerprint


def _fieldapp_version() -> str:
    import fieldapp

    return str(getattr(fieldapp, "__version__", "?"))


def _new_counts() -> defaultdict[str, dict[str, int]]:
    """``{table: {"sent", "received", "merged", "conflicts": 0}}``, rows made on first use."""
    return defaultdict(lambda: {"sent": 0, "received": 0, "merged": 0, "conflicts": 0})


@dataclass
class _Copies:
    """The scratch copies one run works on (all at store schema ``target``) and where from.

    ``head`` is the office's seq (0 once this sync created the site); ``v_base`` and
    ``v_office`` the schemas of ``base.gpkg`` and of the office master as found (``None``: none
    yet, or not a fieldapp visit); ``changes`` the office's schema log.
    """

    head: int | None
    snapshot: Path
    tables: dict[str, cs.TableSchema]
    target: int | None
    v_base: int | None
    v_office: int | None
    changes: list[schemas.SchemaChange]
    #: the common base at ``target``: ``base.gpkg``, a migrated copy of it, or an empty copy
    base: Path | None = None
    base_seq: int = 0


@dataclass
class _Pulled:
    """What the pull phase got: ``theirs`` (base + the office's changesets, at ``target``), the
    log entries applied, and the office's changes as one changeset and as listed entries."""

    theirs: Path
    entries: list[LogEntry]
    received_changeset: Path
    their_entries: list[dict[str, Any]]


class _Sync:
    """One sync of one visit, under the office lock (see the module docstring).

    ``check_received(path)`` reads a scratch copy through the store (raising what the store
    raises); :func:`fieldapp.sync.engine.sync` passes the engine's.
    """

    def __init__(self, visit: Path, office: OfficeStore, state: LaptopState, policy: ConflictPolicy,
                 synced_by: str | None, prog: _Progress, *,
                 check_received: Callable[[Path], None] = check_received) -> None:
        self.visit = visit
        self.office = office
        self.state = state
        self.policy = policy
        self.synced_by = synced_by
        self.prog = prog
        self.check_received = check_received
        self.gd = cs.new_geodiff()
        self.site = state.site_id
        self.work = state.work
        self.received: list[tuple[LogEntry, Path]] = []  # office changesets pulled, with their files
        self.base_seq = 0
        #: the office migration this sync makes at its commit point: (change, statements, tables)
        self.office_change: tuple[schemas.SchemaChange, list[str], dict[str, cs.TableSchema]] | None = None
        self.schema_changes: list[str] = []  # for the report
        #: SHA-256 of the visit as the check at the start of the sync passed it (engine's)
        self.checked_sha256: str | None = None
        #: the snapshot is a copy of those checked bytes (no write in between, no migration)
        self._snapshot_checked = False
        #: this run's office copy (theirs, or new_master) passed check_received before pending/,
        #: or is the checked snapshot's rows with nothing pulled
        self._content_checked = False
        #: SHA-256 of the visit right after this run's finalize made it that checked content
        #: (no edit made during the sync): those bytes need no second read (engine._record_check)
        self.vouched_sha256: str | None = None
        #: SHA-256 of the visit right after this run's snapshot was taken from it: a finalize
        #: finding the visit still so knows it was not written during the sync (no diff needed)
        self._visit_at_snapshot: str | None = None
        #: this run's new_master is the snapshot plus its log row only (nothing pulled, no
        #: conflict record): the finalize's update to the visit is the log table's diff alone
        self._update_is_log_row = False

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
            if before is not None and target is not None and before < target:
                # the office's copy is at a newer store schema than the visit (this laptop's file
                # was not opened for recording since): migrate the visit first, in its own
                # transaction, as the store would; a crash before the update below leaves it
                # migrated, and the next sync finishes
                self.prog.step(f"migrating the visit to store schema {target}")
                schemas.migrate_file(self.visit, target)
                self.schema_changes.append(f"visit {self.visit.name}: schema {before} -> {target}")
            elif before is not None and target is not None and before > target:
                # the visit was opened for recording (migrated) after this sync was interrupted:
                # the update is worked out on migrated scratch copies; the base stays at the
                # office's schema (the office is migrated by the sync that follows)
                snap, master = self.work / "finalize-snapshot.gpkg", self.work / "finalize-master.gpkg"
                for src, dst in ((st.pending_snapshot, snap), (st.pending_master, master)):
                    shutil.copyfile(src, dst)
                    schemas.migrate_file(dst, before)
            update = self.work / "update.geodiff"
            edits = self.work / "edits.geodiff"
            as_snapshot = snap == st.pending_snapshot and self._visit_at_snapshot is not None \
                and visit_fingerprint(self.visit) == self._visit_at_snapshot
            written = not as_snapshot and self._written_during_sync(snap, edits)
            if written:
                # the visit was written during the sync: rebase the office's update onto it
                self.gd.create_rebased_changeset(
                    str(snap), str(master), str(edits), str(update),
                    str(self.work / "finalize-conflicts.json"),
                )
                self._check_finalize(update)
            else:
                differ = cs.new_geodiff()
                if as_snapshot and self._update_is_log_row:  # the master is the snapshot + its log row
                    differ.set_tables_to_include([LOG_TABLE])
                differ.create_changeset(str(snap), str(master), str(update))
            self.prog(0.9, "updating the visit")
            self.gd.apply_changeset(str(self.visit), str(update))
            checkpoint(self.visit)
            if self._content_checked and not written:
                self.vouched_sha256 = visit_fingerprint(self.visit)
        self.prog(0.95, "saving the new base copy")
        if st.pending_master.exists():  # moved, not copied: nothing reads it after this
            replace_durably(st.pending_master, st.base)
        elif log_head(st.base) < pending.target_seq:  # moved by a finalize killed just after
            raise LaptopStateError(
                f"{st.pending_dir} has lost the office's copy of seq {pending.target_seq} and the"
                f" base copy {st.base} is older; make a fresh laptop copy with `fieldapp sync"
                f" --office {office_arg(self.office)} --checkout {self.site} NEW.gpkg`"
            )
        st.drop_pending()

    def _written_during_sync(self, snap: Path, edits: Path) -> bool:
        """Whether the visit was written since ``snap`` was taken: ``edits`` = its changes."""
        self.gd.create_changeset(str(snap), str(self.visit), str(edits))
        return bool(self.gd.has_changes(str(edits)))

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
                self.check_received(trial)
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
            self.check_received(result)
            return
        except Exception as exc:  # noqa: BLE001 - whatever the store cannot read, we refuse
            failure = exc
        from_office = result == theirs
        if not from_office:
            try:
                self.check_received(theirs)
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

    def _senders(self, problems: list[RecordProblem], tables: dict[str, cs.TableSchema]) -> str:
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
    def run(self) -> SyncOutcome:
        """Pull, rebase and push (the phases in the module docstring); the office lock is held."""
        copies = self._align_schemas()
        self._choose_base(copies)
        self._plan_office_migration(copies)
        pulled = self._pull(copies)
        local = self._diff(copies)
        counts = _new_counts()
        for e in pulled.their_entries:
            if e["table"] != LOG_TABLE:
                counts[e["table"]]["received"] += 1
        if not self.gd.has_changes(str(local)):
            return self._receive_only(copies, pulled, counts)
        out, new_master, conflict_file = self._rebase(copies, pulled, local)
        pending, conflicts = self._build(copies, pulled, local, out, new_master, conflict_file, counts)
        return self._push(pending, conflicts, counts, pulled.theirs)

    def _align_schemas(self) -> _Copies:
        """Snapshot the visit and bring the snapshot to the newest store schema of the visit, the
        base copy and the office (scratch copies here; the office at the commit point; the visit
        and base at the finalize)."""
        st, work = self.state, self.work
        head = self.office.head(self.site)
        site_schema = self.office.schema(self.site) if head is not None else None
        _refuse_newer(self.office, self.site, site_schema, None)  # migrated since the preflight
        snapshot = work / "snapshot.gpkg"
        self.prog(0.1, "taking a snapshot of the visit")
        snapshot_sqlite(self.visit, snapshot)
        # the snapshot is a consistent read of the visit at one moment; a visit hashing, after
        # it, as it did when checked was not written in between (every commit changes the file's
        # bytes -- its change counter at least -- or fills the -wal, which gives no hash)
        self._visit_at_snapshot = visit_fingerprint(self.visit)
        self._snapshot_checked = self.checked_sha256 is not None and self._visit_at_snapshot == self.checked_sha256
        v_visit = schemas.version_of(snapshot)
        v_base = schemas.version_of(st.base) if st.base.exists() else None
        v_office = site_schema.version if site_schema is not None else None
        changes = list(site_schema.changes) if site_schema is not None else []
        target = max((v for v in (v_visit, v_base, v_office) if v is not None), default=None)
        if v_visit is not None and target is not None and v_visit < target:
            schemas.migrate_file(snapshot, target)
            self._snapshot_checked = False
        tables = cs.schema(self.gd, snapshot, work)
        return _Copies(head, snapshot, tables, target, v_base, v_office, changes)

    def _choose_base(self, c: _Copies) -> None:
        """Set ``c.base`` / ``c.base_seq``: the laptop's base copy (checked against the visit and
        the office, migrated on a scratch copy when behind), or for a first sync an empty copy of
        the visit's tables, creating the office site with it when the office has none."""
        st, gd, work = self.state, self.gd, self.work
        if st.base.exists():
            base = st.base
            base_seq = log_head(base)
            if log_ids(c.snapshot) != log_ids(base):
                raise LaptopStateError(
                    f"the visit's sync log does not match its base copy in {st.dir}; refusing to"
                    " send (the visit was replaced or restored?)"
                )
            if c.v_base is not None and c.target is not None and c.v_base < c.target:
                base = work / "base.gpkg"
                shutil.copyfile(st.base, base)
                schemas.migrate_file(base, c.target)
            if cs.schema_signature(cs.schema(gd, base, work)) != cs.schema_signature(c.tables):
                at = f" (both brought to store schema {c.target})" if c.target is not None else ""
                raise SchemaMismatch(
                    f"the tables or columns of {self.visit.name} differ from its base copy"
                    f" {st.base}{at}: they were changed since its last sync by something other"
                    " than fieldapp. Nothing was sent"
                )
            if c.head is None:
                raise _no_such_site(self.office, self.site, base_seq)
            if c.head < base_seq:
                raise InvalidOfficeData(
                    f"{self.office.describe()} is at seq {c.head} for site {self.site}, behind this"
                    f" laptop (seq {base_seq}): restored from an old backup? Nothing was sent"
                )
        else:
            base = work / "empty.gpkg"
            base_seq = 0
            self._schema_only(c.snapshot, base)
            if c.head is None:
                self.prog(0.15, "creating the site in the office")
                from fieldapp.sync.sitefolders import site_name_in

                self.office.create_site(self.site, base, site_name=site_name_in(c.snapshot))
                c.head = 0
                c.v_office = c.target
        c.base, c.base_seq = base, base_seq
        self.base_seq = base_seq

    def _plan_office_migration(self, c: _Copies) -> None:
        """This laptop's visit is at a newer store schema than the office: the office is
        migrated at the commit point (the pushed changeset is written at ``c.target``)."""
        if c.v_office is not None and c.target is not None and c.v_office < c.target:
            assert c.head is not None       # set by _base, which runs first
            change = schemas.SchemaChange(c.target, c.v_office, c.head, utc_now_iso(),
                                          self.state.laptop_id, _fieldapp_version())
            self.office_change = (change, schemas.statements(c.v_office, c.target), c.tables)

    def _pull(self, c: _Copies) -> _Pulled:
        """Apply the office's changesets since the base to a copy of it ("theirs"): each at the
        schema it was written at (the office's schema log), the copy migrated at the logged
        points, then to ``c.target``."""
        st, gd, work = self.state, self.gd, self.work
        assert c.head is not None and c.base is not None    # set by _base, before any phase
        self.prog(0.2, "fetching the office's changes")
        theirs = work / "theirs.gpkg"
        shutil.copyfile(st.base if st.base.exists() else c.base, theirs)
        theirs_v = c.v_base if st.base.exists() else c.target
        first_v = c.changes[0].from_version if c.changes else c.v_office
        entries = self.office.log(self.site, c.base_seq) if c.head > c.base_seq else []
        for n, entry in enumerate(entries):
            self.prog(0.2 + 0.2 * n / max(1, len(entries)), f"applying office change {entry.seq}")
            written_v = schemas.version_at(c.changes, entry.seq) or first_v
            theirs_v = self._pull_one(c, entry, theirs, theirs_v, written_v)
        if theirs_v is not None and c.target is not None and theirs_v < c.target:
            schemas.migrate_file(theirs, c.target)
        received_changeset = work / "theirs.geodiff"
        their_entries: list[dict[str, Any]] = []
        if entries:
            gd.create_changeset(str(c.base), str(theirs), str(received_changeset))
            their_entries = cs.list_changes(gd, received_changeset, work)
        return _Pulled(theirs, entries, received_changeset, their_entries)

    def _pull_one(self, c: _Copies, entry: LogEntry, theirs: Path, theirs_v: int | None,
                  written_v: int | None) -> int | None:
        """Fetch, check and apply one office changeset (written at store schema ``written_v``)
        to ``theirs`` (at ``theirs_v``); return the schema ``theirs`` is at afterwards."""
        gd, work = self.gd, self.work
        f = work / f"{entry.seq:08d}.geodiff"
        self.office.fetch_changeset(self.site, entry, f)
        self.received.append((entry, f))
        what = f"office changeset seq {entry.seq} ({entry.changeset_id})"
        cs.check_changeset(gd, f, c.tables, work, expected_id=entry.changeset_id, what=what)
        if theirs_v is not None and written_v is not None and written_v != theirs_v:
            if written_v < theirs_v:
                raise SchemaMismatch(
                    f"{what} was written at store schema {written_v}, but this laptop's copy"
                    f" of site {self.site} is already at schema {theirs_v} (the office master"
                    " was replaced or restored?). Nothing was sent; make a fresh laptop copy"
                    f" with `fieldapp sync --office {office_arg(self.office)} --checkout {self.site} NEW.gpkg`"
                )
            schemas.migrate_file(theirs, written_v)
            theirs_v = written_v
        try:
            gd.apply_changeset(str(theirs), str(f))
        except Exception as exc:
            raise InvalidOfficeData(f"{what} does not apply to this laptop's base: {exc}") from exc
        cs.validate_logged(theirs, expected_seq=entry.seq, expected_id=entry.changeset_id, what=what)
        with contextlib.closing(connect(theirs)) as conn, conn:  # as the office did on apply
            record_changeset_file(conn, entry.seq, entry.sha256, entry.size_bytes)
        return theirs_v

    def _diff(self, c: _Copies) -> Path:
        """This laptop's edits since the base: ``create_changeset(base, snapshot)``."""
        self.prog(0.4, "finding this laptop's edits")
        local = self.work / "local.geodiff"
        self.gd.create_changeset(str(c.base), str(c.snapshot), str(local))
        return local

    def _receive_only(self, c: _Copies, pulled: _Pulled, counts: dict[str, dict[str, int]]) -> SyncOutcome:
        """No edits to send: a no-op (the office still migrated if this laptop's schema is newer),
        or a pull: theirs checked through the store, written to ``pending/``, finalized."""
        st = self.state
        assert c.head is not None and c.base is not None    # set by _base, before any phase
        if not pulled.entries:
            if self.office_change is not None:
                self.prog.committed = True
                self._migrate_office()
            if c.base != st.base:  # the base lagged behind the office's schema: keep it migrated
                copy_durably(c.base, st.base)
            return SyncOutcome(None, c.head, {}, (), True)
        self.prog(0.7, "checking the office's changes")
        self._check_received(pulled.theirs, pulled.theirs, c.tables)
        self._content_checked = True
        if self.office_change is not None:  # before pending/: the base is never ahead of the office
            self.prog.committed = True
            self._migrate_office()
        self._write_pending(_Pending(kind="pull", target_seq=c.head), pulled.theirs, c.snapshot, None)
        self.prog(0.8, "received the office's changes")
        self.prog.committed = True
        self.finalize(self._written_pending())
        return SyncOutcome(None, c.head, counts, (), False)

    def _rebase(self, c: _Copies, pulled: _Pulled, local: Path) -> tuple[Path, Path, Path]:
        """Rebase this laptop's edits onto theirs (pygeodiff remaps colliding fids; same-field
        clashes keep ours and go to the conflict file); return the rebased changeset, theirs
        with it applied (``new_master``) and the conflict file."""
        work = self.work
        self.prog(0.5, "merging with the office's changes")
        out = work / "out.geodiff"
        conflict_file = work / "conflicts.json"
        if pulled.entries:
            self.gd.create_rebased_changeset(str(c.base), str(c.snapshot), str(pulled.received_changeset),
                                             str(out), str(conflict_file))
        else:
            shutil.copyfile(local, out)
        new_master = work / "new_master.gpkg"
        if not pulled.entries:
            # nothing pulled: theirs is the base (for a first sync the snapshot emptied,
            # _schema_only) and ``out`` = snapshot - base, so theirs + out holds the snapshot's
            # rows: the snapshot itself (a day's track: seconds of inserts and index updates saved)
            shutil.copyfile(c.snapshot, new_master)
            return out, new_master, conflict_file
        shutil.copyfile(pulled.theirs, new_master)
        try:
            self.gd.apply_changeset(str(new_master), str(out))
        except Exception as exc:
            raise SyncError(
                f"this visit's edits do not apply to the office copy of site {self.site}: {exc}."
                " If this visit file was copied from another laptop's visit, make a fresh laptop"
                f" copy with `fieldapp sync --office {office_arg(self.office)} --checkout {self.site} NEW.gpkg`"
                " instead; if it was made by --adopt-copy from a copy another adoption has already"
                " brought to the office, that adoption holds its records. Nothing was sent"
            ) from exc
        return out, new_master, conflict_file

    def _build(self, c: _Copies, pulled: _Pulled, local: Path, out: Path, new_master: Path,
               conflict_file: Path, counts: dict[str, dict[str, int]]) -> tuple[_Pending, list[Conflict]]:
        """The changeset actually sent: data, conflict records and log row in one, computed as
        ``create_changeset(theirs, new_master)``; ``new_master`` checked through the store when
        anything was pulled; all written to ``pending/``."""
        gd, work, st = self.gd, self.work, self.state
        assert c.head is not None and c.base is not None    # set by _base, before any phase
        changeset_id = uuid.uuid4().hex
        seq = c.head + 1
        local_entries = cs.list_changes(gd, local, work) if pulled.their_entries else []
        out_summary = cs.summary(gd, out, work)
        for table, n in out_summary.items():
            if table != LOG_TABLE:
                counts[table]["sent"] += n["insert"] + n["update"] + n["delete"]
        ctx = ConflictContext(self.policy, changeset_id, seq, st.laptop_id, self.synced_by)
        conflicts, latest = find_conflicts(c.base, pulled.theirs, c.snapshot, c.tables, conflict_file,
                                           local_entries, pulled.their_entries, ctx, counts)
        resolve_conflicts(new_master, c.tables, conflicts, latest, self.policy)
        if "tree" in c.tables:  # a tag this laptop gave (or typed) that another tree has
            conflicts += tag_clashes(pulled.theirs, new_master, ctx, counts)
        if pulled.entries:  # one plain copy adopted twice: the office holds its differences already
            counts[CONFLICTS_TABLE]["sent"] -= drop_repeated_records(pulled.theirs, new_master, PLAIN_COPY_POLICY)

        self.prog(0.6, "preparing the changeset")
        applied_utc = utc_now_iso()
        counts_clean = {k: v for k, v in sorted(counts.items()) if any(v.values())}
        with contextlib.closing(connect(new_master)) as conn, conn:
            conn.execute(
                f"INSERT INTO {LOG_TABLE} (seq, changeset_id, laptop_id, synced_by, applied_utc,"
                " counts_json) VALUES (?, ?, ?, ?, ?, ?)",
                (seq, changeset_id, st.laptop_id, self.synced_by, applied_utc, json.dumps(counts_clean)),
            )
            insert_conflicts(conn, conflicts)
        changeset = work / "changeset.geodiff"
        only_out = not pulled.entries and not conflicts and not latest and LOG_TABLE not in out_summary
        self._sent_changeset(pulled.theirs, new_master, out_summary if only_out else None, out, changeset)
        self._update_is_log_row = only_out
        sha, size = sha256_of(changeset), changeset.stat().st_size
        with contextlib.closing(connect(new_master)) as conn, conn:
            record_changeset_file(conn, seq, sha, size)
        if pulled.entries:  # the visit becomes new_master: the office's rows with this laptop's edits
            self.prog(0.65, "checking the office's changes merged with this laptop's")
            self._check_received(new_master, pulled.theirs, c.tables)
            self._content_checked = True
        else:   # nothing pulled: new_master's rows are base + (snapshot - base), the snapshot's
            self._content_checked = self._snapshot_checked
        pending = _Pending(kind="push", target_seq=seq, changeset_id=changeset_id, sha256=sha,
                           size_bytes=size, laptop_id=st.laptop_id, synced_by=self.synced_by,
                           applied_utc=applied_utc, counts=counts_clean)
        self._write_pending(pending, new_master, c.snapshot, changeset)
        return pending, conflicts

    def _sent_changeset(self, theirs: Path, new_master: Path, out_summary: dict[str, dict[str, int]] | None, out: Path,
                        changeset: Path) -> None:
        """``create_changeset(theirs, new_master)`` into ``changeset``.

        ``out_summary`` (``out``'s) given: ``new_master`` is ``theirs`` + ``out`` + the log row
        (nothing pulled, no conflict record, no value the policy wrote back, ``out`` not touching
        the log), so the changeset is ``out`` followed by the log row, diffed alone (pygeodiff's
        ``set_tables_to_include``): one diff of every table instead of two (a day's visit: 2 s).
        A changeset is a series of per-table blocks read to its end (SQLite's session format,
        as ``sqlite3changeset_concat`` documents for changesets of distinct tables), so the two
        are joined end to end; pygeodiff's ``concat_changes`` would decode and re-encode every
        row (1 s). The joint is checked: its summary must be ``out``'s plus one log row, else
        the changeset is diffed whole."""
        if out_summary is not None:
            log_only = cs.new_geodiff()
            log_only.set_tables_to_include([LOG_TABLE])
            logged = self.work / "log-row.geodiff"
            log_only.create_changeset(str(theirs), str(new_master), str(logged))
            with open(changeset, "wb") as dst:
                for part in (out, logged):
                    with open(part, "rb") as src:
                        shutil.copyfileobj(src, dst, 1 << 20)
            want = dict(out_summary)
            want[LOG_TABLE] = {"insert": 1, "update": 0, "delete": 0}
            with contextlib.suppress(Exception):  # unreadable: diffed whole below
                if cs.summary(self.gd, changeset, self.work) == want:
                    return
        self.gd.create_changeset(str(theirs), str(new_master), str(changeset))

    def _push(self, pending: _Pending, conflicts: list[Conflict], counts: dict[str, dict[str, int]],
              theirs: Path) -> SyncOutcome:
        """Past the commit point (cancelling no longer honoured): migrate the office if need
        be, apply the changeset there, finalize the visit and the base.

        The office is offered ``theirs`` and ``new_master`` (:class:`FastForward`): an office
        whose master is page for page ``theirs`` takes ``new_master`` as it is."""
        self.prog(0.7, "sending the changeset to the office")
        self.prog.committed = True
        self._migrate_office()
        assert pending.changeset_id is not None     # a push's pending names its changeset (_build)
        entry = LogEntry(pending.target_seq, pending.changeset_id, pending.laptop_id, pending.synced_by,
                         pending.applied_utc, pending.sha256, pending.size_bytes)
        ff = FastForward(theirs, self.state.pending_master)
        self.office.apply(self.site, self.state.pending_changeset, entry, step=self.prog.step, fast_forward=ff)
        self.prog(0.85, "office updated")
        self.finalize(self._written_pending())
        return SyncOutcome(pending.changeset_id, pending.target_seq, counts, tuple(conflicts), False)

    def _written_pending(self) -> _Pending:
        """The ``pending/`` this run has just written (:meth:`_write_pending`)."""
        pending = self.state.read_pending()
        assert pending is not None      # written, durably, before the commit point
        return pending

    def _migrate_office(self) -> None:
        """Migrate the office master to this laptop's store schema (prepared by
        :meth:`_plan_office_migration`),
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
        """Write ``pending/`` (files first, ``pending.json`` last and durably): from here on a
        killed sync is finished or discarded by the next one's :meth:`resume`."""
        st = self.state
        st.drop_pending()
        st.pending_dir.mkdir()
        for src, dst in ((master, st.pending_master), (snapshot, st.pending_snapshot),
                         (changeset, st.pending_changeset)):
            if src is not None:  # scratch copies of this run: moved, not copied
                replace_durably(src, dst)
        write_json_durably(st.pending_json, asdict(pending))

    def _schema_only(self, snapshot: Path, target: Path) -> None:
        """A copy of the visit with every row removed from every table pygeodiff diffs (its
        schema listing): one DELETE per table in one transaction, as pygeodiff's dump, invert
        and apply would leave it, without a changeset of every row (a day's track is 288,000).

        A scratch file of this run (a killed sync leaves ``work/``, emptied by the next one):
        written without a rollback journal or fsync (5x faster for a day's visit), then
        ``VACUUM``-ed from the visit's size to the few hundred KB of its schema, so the office
        site it may become and every copy made of it are small. The journal is back to
        ``DELETE`` (rollback) afterwards, as the snapshot was."""
        shutil.copyfile(snapshot, target)
        tables = cs.schema(self.gd, snapshot, self.work)
        with contextlib.closing(connect(target)) as conn:  # the R-tree triggers need ST_
            conn.execute("PRAGMA journal_mode=OFF")
            conn.execute("PRAGMA synchronous=OFF")
            with conn:      # the QGIS styles stay: the master keeps them (officestyles)
                empty_tables(conn, [t for t in tables if t != STYLES_TABLE])
            conn.execute("VACUUM")
            conn.execute("PRAGMA journal_mode=DELETE")
