"""Laptop side of the office sync: pull, rebase, push, finalize -- resumable at every step.

:func:`sync` checks the visit (:func:`check_visit_file`), refuses what cannot succeed before
anything is written (:mod:`fieldapp.sync.preflight`), takes the office lock and runs the sync's
phases (:mod:`fieldapp.sync.phases`: align store schemas, pull, diff, rebase, build, push,
finalize); :func:`checkout` makes a new laptop copy of a site. The laptop's state beside the
visit is :mod:`fieldapp.sync.laptop`, the visit check :mod:`fieldapp.sync.visitcheck`, conflict
records :mod:`fieldapp.sync.conflicts`, the report :mod:`fieldapp.sync.results`. The office is
reached only through :class:`~fieldapp.sync.officestore.OfficeStore`.

How a sync goes step by step, why a process killed anywhere loses nothing, the store schema
policy (the office follows the newest laptop), why a no-op sync can skip the full visit read,
and why what arrives from the office is read through the store first: ``docs/sync.md``.

Every name this module had before it was cut into those modules is still importable from here.
:func:`sync` and :func:`checkout` look up :func:`check_visit_file` and :func:`check_received` in
this module when they run (the engine's tests on generic GeoPackages narrow them here).
"""

from __future__ import annotations

import contextlib
import getpass
import os
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from fieldapp.sync import schemas
from fieldapp.sync.conflicts import ConflictPolicy, read_conflicts
from fieldapp.sync.errors import InvalidOfficeData, InvalidOfficeRecords, NewerSchema, SyncError, VisitRefused
from fieldapp.sync.files import checkpoint, connect, copy_durably, ensure_sync_tables
from fieldapp.sync.laptop import LaptopState, site_id_of, tag_block_used_up
from fieldapp.sync.officestore import LockOwner, OfficeStore, check_site_id
from fieldapp.sync.officestyles import write_office_styles
from fieldapp.sync.phases import _Sync
from fieldapp.sync.preflight import _newer_office_message, _preflight, _refuse_newer
from fieldapp.sync.progress import CancelToken, ProgressCallback, _Progress
from fieldapp.sync.results import SyncOutcome, SyncReport
from fieldapp.sync.schemacheck import check_schema
from fieldapp.sync.visitcheck import _refusal, check_received, check_visit_basics, check_visit_file, visit_fingerprint

# Besides its own, the names other modules and the tests take from here: the visit checks are
# looked up here at call time (engine.check_visit_file), so a test narrows them in one place.
__all__ = [
    "ConflictPolicy", "OfficeStore", "SyncOutcome", "SyncReport", "check_received", "check_visit_basics",
    "check_visit_file", "checkout", "read_conflicts", "site_id_of", "sync", "visit_held",
]


def sync(
    visit_path: str | os.PathLike[str],
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
    with visit_held(visit, "synced"):
        return _sync(visit, office, site_id, policy, synced_by, progress, cancel, lock_wait_s)


@contextlib.contextmanager
def visit_held(visit: Path, doing: str) -> Iterator[None]:
    """Hold ``visit``'s lock (:mod:`fieldapp.store.visitlock`) while a sync, resolution or
    checkout writes it: a visit the app records into is refused (VisitRefused, nothing
    written), as is a second sync of it; the app's own Sync closes its store first."""
    from fieldapp.store import VisitInUse, VisitLock

    try:
        lock = VisitLock(visit).acquire()
    except VisitInUse as exc:
        raise VisitRefused(
            f"{visit} is open in another fieldapp window or program (recording into it, or"
            f" syncing it): nothing was {doing}. Close it there (or let its sync finish), or sync"
            " from that window (its Sync closes the visit while it syncs), then run this again") from exc
    try:
        yield
    finally:
        lock.release()


def _sync(visit: Path, office: OfficeStore, site_id: str | None, policy: ConflictPolicy,
          synced_by: str | None, progress: ProgressCallback | None, cancel: CancelToken | None,
          lock_wait_s: float) -> SyncReport:
    state = LaptopState(visit)
    known = state.validated_sha256()
    # looked up at call time: the engine's generic-GeoPackage tests swap in the basics only
    checked = check_visit_file(visit, known_sha256=known)
    prog = _Progress(progress, cancel)
    prog(0.0, "starting")
    prepared = _prepare_laptop(visit, state, office, site_id, checked)
    job = _Sync(visit, office, state, policy, _who(synced_by), prog, check_received=check_received)
    job.checked_sha256 = prepared
    resumed, outcome = _run_locked(job, lock_wait_s)
    _record_check(visit, state, known, checked, prog, job.vouched_sha256)
    prog(1.0, "done")
    return _report(job, outcome, resumed)


def _who(synced_by: str | None) -> str | None:
    """Who syncs, for the office log: ``synced_by``, else the login name (``None`` if unknown)."""
    if synced_by is None:
        with contextlib.suppress(Exception):
            synced_by = getpass.getuser()
    return synced_by


def _prepare_laptop(visit: Path, state: LaptopState, office: OfficeStore, site_id: str | None,
                   checked: str | None = None) -> str | None:
    """Work out the site and laptop ids, refuse what cannot succeed (:func:`_preflight`), then
    write the laptop's state and the sync tables (the first writes of a sync). Returns the
    visit's SHA-256 after those writes when, just before them, it was still ``checked`` (the
    bytes the visit check passed): the rows are the checked ones, with the sync tables added."""
    state.read(site_id)
    _preflight(visit, state, office, site_given=site_id is not None)
    state.load(site_id)
    before = visit_fingerprint(visit) if checked is not None else None
    checkpoint(visit)
    wrote = ensure_sync_tables(visit)
    if wrote and not state.base.exists() and office.head(state.site_id) is None:
        write_office_styles(visit)      # it makes the site: the office's QGIS styles come with it
    if state.base.exists():
        ensure_sync_tables(state.base)
    if before is None or before != checked:
        return None
    return visit_fingerprint(visit) if wrote else before  # unwritten: the bytes just hashed


def _run_locked(job: _Sync, lock_wait_s: float) -> tuple[str | None, SyncOutcome]:
    """Under the site's office lock (touched at every step): finish or discard an interrupted
    sync, then run this one, in a scratch folder ``work/`` emptied before and after (lock held). Returns what
    the resume finished (if anything) and the outcome."""
    office, state, prog = job.office, job.state, job.prog
    owner = LockOwner.here(state.laptop_id)
    prog(0.05, f"locking site {state.site_id} in {office.describe()}")
    with office.lock(state.site_id, owner, wait_s=lock_wait_s):
        try:
            state.fresh_work()
            prog.heartbeat = lambda: office.heartbeat(state.site_id, owner)
            resumed = job.resume()
            prog.committed = False
            outcome = job.run()
            _keep_tag_block(office, state, job.visit)
            prog.heartbeat = None
        finally:  # refused or failed too: no scratch copies are left on the laptop
            with contextlib.suppress(OSError):
                shutil.rmtree(state.work)
    return resumed, outcome


def _keep_tag_block(office: OfficeStore, state: LaptopState, visit: Path) -> None:
    """After a sync (lock held): a laptop without a tag block (from before tag blocks, or the
    site's first) takes one; a laptop whose block is used up (its last tag, n*1000+999, is on a
    tree of the visit) takes a new one. Never raises: without a block tags go on as before and
    the sync stands."""
    with contextlib.suppress(SyncError, OSError, sqlite3.Error):
        block = state.tag_block
        if block is None:
            state.record_tag_block(office.tag_block(state.site_id, state.laptop_id))
        elif tag_block_used_up(visit, block):
            state.record_tag_block(office.tag_block(state.site_id, state.laptop_id, after=block))


def _report(job: _Sync, outcome: SyncOutcome, resumed: str | None) -> SyncReport:
    """The :class:`SyncReport` of a finished sync."""
    return SyncReport(job.site, job.office.describe(), outcome.changeset_id, outcome.office_seq,
                      outcome.layers(), outcome.conflicts, (resumed,) if resumed else (), outcome.no_op,
                      job.policy.value, tuple(job.schema_changes), outcome.bookkeeping(),
                      outcome.conflict_records(), _site_name(job.visit))


def _site_name(visit: Path) -> str:
    """The site's name in the visit ("" when it cannot be read: the summary then names the id)."""
    with contextlib.suppress(sqlite3.Error, OSError):
        with contextlib.closing(connect(visit, readonly=True)) as conn:
            row = conn.execute("SELECT name FROM site LIMIT 1").fetchone()
            return str(row[0]) if row and row[0] else ""
    return ""


def _record_check(visit: Path, state: LaptopState, known: str | None, checked: str | None,
                  prog: _Progress, vouched: str | None = None) -> None:
    """After a sync: remember that the visit as it is now passed the full check (if it does).

    Unchanged since the check at the start: record that check's hash. Changed by the sync
    (received changes, its own log row): read it through the store again and record the new
    hash when it passes; when it does not, drop the record, so the next sync refuses it.
    With ``vouched`` (:attr:`fieldapp.sync.phases._Sync.vouched_sha256`: what the sync made of
    the visit is the office copy the store had read in full, with no edit made meanwhile,
    hashed right after the finalize) that hash is recorded as it is, with nothing read or
    hashed again: the record names bytes by their content and says only that those bytes
    passed the full read, which they did. A sync skips only that read on it, and only when the
    file hashes the same; the basics, the store's own check and the schema check run first
    every time. A visit written after the finalize hashes differently, so the next sync reads
    it in full (and refuses a bad row there). Never raises (for the check, or for a record that
    cannot be written): the sync itself succeeded.
    """
    if vouched is not None:
        now: str | None = vouched
    else:
        now = visit_fingerprint(visit)
        if now is None:     # a -wal with records: no hash stands for the content
            return
    if vouched is None and now != checked:
        prog.step("checking the updated visit")
        try:
            checked = check_visit_file(visit)
        except VisitRefused:
            checked = None
        now = checked
    if now != known:
        with contextlib.suppress(OSError):  # no record: the next sync just reads the visit again
            state.record_validated(now)


def checkout(office: OfficeStore, site_id: str, visit_path: str | os.PathLike[str]) -> Path:
    """Make a new laptop copy of a site from the office master (for a second or third laptop).

    Raises ``FileExistsError`` if ``visit_path`` exists, ``SyncError`` if the office has no
    such site, :class:`NewerSchema` if its master has a newer store schema than this fieldapp
    knows ("update fieldapp"; nothing is written), :class:`InvalidOfficeRecords` if the master
    holds a row the store refuses (read with :func:`check_received` before the copy is placed),
    :class:`InvalidOfficeData` naming each trigger, view, index, table or column of the master
    fieldapp does not make (:func:`~fieldapp.sync.schemacheck.check_schema`: an office poisoned
    by a crafted visit before visits were checked);
    office errors as for :func:`sync`. On any error nothing is left behind. The copy is the
    master as it is (any store schema up to this fieldapp's) without the office's schema log.
    """
    visit = Path(visit_path).absolute()
    with visit_held(visit, "checked out"):     # no window makes or opens a visit there meanwhile
        return _checkout(office, site_id, visit)


def _checkout(office: OfficeStore, site_id: str, visit: Path) -> Path:
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
        placed = False
        try:
            temp = state.dir / "checkout.gpkg"
            office.fetch_master(site_id, temp)
            _drop_office_tables(temp)
            # an office taken in a crafted visit before visits were checked would spread its
            # triggers, views or tables to every new checkout (issue 30, item 1)
            check_schema(temp, what=f"the master of site {site_id} in {office.describe()}",
                         error=InvalidOfficeData,
                         done="Nothing was checked out; the office must remove them from its master")
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
            state.record_tag_block(office.tag_block(site_id, state.laptop_id))
            if visit.exists():      # made meanwhile by a program that takes no lock: kept
                raise FileExistsError(f"{visit} was made while the site was checked out; choose"
                                      " a new file name")
            os.replace(temp, visit)
            placed = True
        except BaseException:
            if not placed:  # nothing half-made: no .sync folder without its visit
                shutil.rmtree(state.dir, ignore_errors=True)
            raise
    return visit


def _drop_office_tables(copy: Path) -> None:
    """Remove what only the office master keeps (its schema log) from a fresh laptop copy."""
    with contextlib.closing(connect(copy)) as conn, conn:
        conn.execute(f"DROP TABLE IF EXISTS {schemas.SCHEMA_LOG_TABLE}")
