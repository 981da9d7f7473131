"""The office side of the sync: the server-less folder office, :class:`FolderOffice`.

:class:`OfficeStore` (in :mod:`fieldapp.sync.officestore`, re-exported here) is everything the
laptop side needs from an office: the site's log of applied changesets, the changesets
themselves, a lock, and an atomic "apply this changeset" that records the changeset id in the
same transaction. :class:`FolderOffice` keeps that in a plain folder (network share, USB drive,
a folder another tool keeps in sync)::

    OFFICE/
      fieldapp-office.json                 marks the folder as a fieldapp office (format 2)
      sites/<site name>/site-id            the site's id (the folder is named by the site:
                                           fieldapp.sync.sitefolders)
      sites/<site name>/master.gpkg        the site's master GeoPackage (journal in its
                                           fieldapp_sync_log table; schema changes in its
                                           fieldapp_sync_schema table)
      sites/<site name>/history/<seq>-<id>.geodiff   every changeset applied, in order
      locks/<site_id>                      who is syncing the site now (host, pid, time)

An office of format 1 (made before issue 35) keeps ``sites/<site_id>/`` with its ``lock``
inside, and is read and written that way still.

The PostgreSQL / PostGIS office implements the same interface in :mod:`fieldapp.sync.pgoffice`.
The master is read and written in place through SQLite (:mod:`fieldapp.sync.inplace`), never
swapped, so QGIS may hold it open (WAL mode) while laptops sync.

Everything read from the folder is validated before use: names match a strict pattern, paths
stay inside the office folder (no ``..``, no symbolic link leading out), sizes are bounded, the
SHA-256 of each changeset matches the office log, GeoPackages pass ``quick_check``.

Schema changes: when a laptop whose visit has a newer store schema syncs, the master is migrated
under the lock (:meth:`OfficeStore.migrate`: a copy migrated, checked and swapped in, like an
apply) and the seq it was at is recorded in the master's schema log (``fieldapp_sync_schema``),
so a laptop pulling older changesets knows which schema each was written at.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import socket
import sqlite3
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

from fieldapp.store.durable import fsync_dir
from fieldapp.store.paths import PathTooLong, check_path_length
from fieldapp.store.processes import pid_alive
from fieldapp.sync import changesets as cs
from fieldapp.sync import gpkgsql, schemas, sitefolders
from fieldapp.sync.crscheck import check_site_crs
from fieldapp.sync.errors import InvalidOfficeData, OfficeLocked, OfficeNotFound, SyncError, VisitRefused
from fieldapp.sync.files import (
    LOG_TABLE,
    TEMP_PREFIX,
    check_geopackage,
    connect,
    copy_durably,
    log_head_in,
    page_fingerprint,
    quote_identifier,
    record_changeset_file,
    replace_durably,
    sha256_of,
    snapshot_sqlite,
    temp_path_for,
)
from fieldapp.sync.inplace import MasterBusy, MasterChanged, MasterWriter, check_writable
from fieldapp.sync.officestore import (  # noqa: F401  (re-exported: imported from here today)
    SITE_ID_RE,
    FastForward,
    LockOwner,
    LogEntry,
    OfficeStore,
    SchemaChange,
    SiteSchema,
    StepCallback,
    check_site_id,
    next_free_block,
    tag_block_key,
    utc_now_iso,
)
from fieldapp.sync.officestyles import write_office_styles
from fieldapp.sync.schemacheck import check_schema, foreign_entries, master_rows

SHA256_RE = re.compile(r"^[0-9a-f]{64}$")
OFFICE_MARKER = "fieldapp-office.json"
OFFICE_FORMAT = {"format": "fieldapp-office", "version": 2}
#: the first format whose site folders are named by the site (fieldapp.sync.sitefolders)
NAMED_FOLDERS_VERSION = 2
#: the longest name in a site's folder: a changeset being stored in its history
DEEPEST = Path("history") / f"{TEMP_PREFIX}{'0' * 32}-{'0' * 8}-{'0' * 32}.geodiff"


# --------------------------------------------------------------------------------------------
class FolderOffice(OfficeStore):
    """An office kept in a folder: master GeoPackages, changeset history, lock files.

    Parameters
    ----------
    root : path
        The office folder. It must exist and hold the office marker file
        (``fieldapp-office.json``) unless ``create`` is true, so that a mistyped path or an
        unmounted drive is refused (:class:`~fieldapp.sync.errors.OfficeNotFound`) instead of
        quietly becoming a new office on the laptop's own disk.
    create : bool
        Make a new office here: the folder is created if missing (its parent must exist) and
        the marker is written when the first site is created. A sync refused before that
        leaves nothing behind (no marker, no ``sites/<id>``, no folder it created).
    stale_lock_after_s : float
        A lock whose file was not touched for this long is stale even if its owner is on
        another machine (whose processes we cannot see). Holders touch it at every step.
    max_changeset_bytes, max_master_bytes : int
        Files larger than this are refused without being read.
    """

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        create: bool = False,
        stale_lock_after_s: float = 600.0,
        max_changeset_bytes: int = 512 * 1024 * 1024,
        max_master_bytes: int = 8 * 1024 * 1024 * 1024,
    ) -> None:
        self.root = Path(root).absolute()
        self.create = bool(create)
        self.stale_lock_after_s = float(stale_lock_after_s)
        self.max_changeset_bytes = int(max_changeset_bytes)
        self.max_master_bytes = int(max_master_bytes)
        self._folders: dict[str, Path] = {}     # site id -> its named folder (format 2)

    def describe(self) -> str:
        return f"office folder {self.root}"

    def check_available(self) -> None:
        """Refuse a missing office folder, or one without the office marker unless ``create``.

        Raises
        ------
        OfficeNotFound
            naming the folder: it does not exist, is not a folder, is not a fieldapp office, or
            (``create``) its parent folder does not exist.
        """
        marker = self.root / OFFICE_MARKER
        if self.root.is_dir() and (marker.exists() or marker.is_symlink()):
            self._check_marker(create=False)  # a damaged or newer marker: InvalidOfficeData
            return
        if not self.create:
            if not self.root.exists():
                raise OfficeNotFound(
                    f"office folder {self.root} does not exist (mistyped, or the drive or share is"
                    " not mounted?); nothing was synced. To start a new office there, use"
                    " --init-office"
                )
            if not self.root.is_dir():
                raise OfficeNotFound(f"office folder {self.root} is not a folder; nothing was synced")
            raise OfficeNotFound(
                f"{self.root} is not a fieldapp office folder (no {OFFICE_MARKER}); nothing was"
                " synced. Check the path; to start a new office there, use --init-office"
            )
        if self.root.exists() and not self.root.is_dir():
            raise OfficeNotFound(f"office folder {self.root} is not a folder; nothing was synced")
        if not self.root.parent.is_dir():
            raise OfficeNotFound(
                f"cannot make office folder {self.root}: its parent {self.root.parent} does not"
                " exist (mistyped, or the drive or share is not mounted?); nothing was synced"
            )

    # ---- paths --------------------------------------------------------------------------
    def _check_marker(self, create: bool) -> None:
        marker = self.root / OFFICE_MARKER
        if not marker.exists():
            if not create:
                return
            self.check_available()
            self.root.mkdir(exist_ok=True)
            temp = temp_path_for(marker)
            temp.write_text(json.dumps(OFFICE_FORMAT), encoding="utf-8")
            replace_durably(temp, marker)
            return
        try:
            data = json.loads(marker.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InvalidOfficeData(f"{marker} is not a fieldapp office marker: {exc}") from exc
        if data.get("format") != OFFICE_FORMAT["format"]:
            raise InvalidOfficeData(f"{marker} is not a fieldapp office marker")
        if data.get("version", 0) > OFFICE_FORMAT["version"]:
            raise InvalidOfficeData(
                f"office folder {self.root} has format version {data.get('version')}, newer than"
                f" this fieldapp understands ({OFFICE_FORMAT['version']}): the office was made or"
                " converted by a newer fieldapp. Nothing was synced; update fieldapp on this laptop"
                " (the visit keeps its records)"
            )

    def _inside(self, path: Path, what: str) -> Path:
        """Refuse ``path`` unless it and every folder above it (up to the root) are real
        folders/files inside the office root, reached without a symbolic link."""
        root_real = Path(os.path.realpath(self.root))
        try:
            rel = path.relative_to(self.root)
        except ValueError as exc:
            raise InvalidOfficeData(f"{what} {path} is outside the office folder") from exc
        if any(part in ("..", "") for part in rel.parts):
            raise InvalidOfficeData(f"{what} {path}: '..' is not allowed in office paths")
        probe = self.root
        for part in rel.parts:
            probe = probe / part
            if probe.is_symlink():
                raise InvalidOfficeData(
                    f"{what} {path}: {probe} is a symbolic link; office paths may not use links"
                )
        real = Path(os.path.realpath(path))
        if real != root_real and root_real not in real.parents:
            raise InvalidOfficeData(f"{what} {path} resolves outside the office folder ({real})")
        return path

    def site_dir(self, site_id: str) -> Path:
        """The folder of one site (validated, may not exist yet).

        Raises :class:`SyncError` (nothing written) when the deepest file the site may hold
        (:data:`DEEPEST`) would pass Windows' path limit (:func:`fieldapp.store.paths.
        check_path_length`: SQLite on Windows opens no longer path)."""
        if self.named_folders():
            site = self._named_site_dir(check_site_id(site_id))
        else:
            site = self._inside(self.root / "sites" / check_site_id(site_id), "site folder")
        try:
            check_path_length(site / DEEPEST, f"the office folder {self.root}")
        except PathTooLong as exc:
            raise SyncError(str(exc)) from None
        return site

    def named_folders(self) -> bool:
        """True when the office names its site folders by the site (format 2, and a new
        office); False for an office of format 1 (``sites/<site id>/``)."""
        marker = self.root / OFFICE_MARKER
        try:
            data = json.loads(marker.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return True
        except (OSError, ValueError) as exc:
            raise InvalidOfficeData(f"{marker} is not a fieldapp office marker: {exc}") from exc
        return isinstance(data, dict) and int(data.get("version", 0)) >= NAMED_FOLDERS_VERSION

    def _named_site_dir(self, site_id: str) -> Path:
        """The named folder holding ``site_id`` (format 2); before the site is created a path
        that is never made (``.no-site/<id>``), so the site reads as absent."""
        known = self._folders.get(site_id)
        if known is None or sitefolders.read_site_id(known) != site_id:
            self._folders.pop(site_id, None)
            found = sitefolders.find_site_folder(self.root / "sites", site_id)
            if found is None:
                return self._inside(self.root / ".no-site" / site_id, "site folder")
            known = self._folders[site_id] = found
        return self._inside(known, "site folder")

    def master_path(self, site_id: str) -> Path:
        """The site's master GeoPackage path (validated, may not exist yet)."""
        return self._inside(self.site_dir(site_id) / "master.gpkg", "master GeoPackage")

    def history_path(self, site_id: str, seq: int, changeset_id: str) -> Path:
        """Where changeset ``seq`` is kept; refuses ids that are not 32 hex digits."""
        if not isinstance(seq, int) or seq < 1:
            raise InvalidOfficeData(f"changeset seq {seq!r} is not a positive integer")
        if not isinstance(changeset_id, str) or not cs.CHANGESET_ID_RE.match(changeset_id):
            raise InvalidOfficeData(
                f"changeset id {changeset_id!r} is not a 32-digit hex id (refused as a file name)"
            )
        return self._inside(
            self.site_dir(site_id) / "history" / f"{seq:08d}-{changeset_id}.geodiff",
            "changeset",
        )

    # ---- lock ---------------------------------------------------------------------------
    def _lock_path(self, site_id: str) -> Path:
        if self.named_folders():    # locked before the site (and its folder's name) exists
            return self._inside(self.root / "locks" / check_site_id(site_id), "lock file")
        return self._inside(self.site_dir(site_id) / "lock", "lock file")

    @staticmethod
    def _read_lock(path: Path) -> dict[str, Any] | None:
        try:
            info: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
            return info
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            return {}

    def _is_stale(self, path: Path, info: dict[str, Any]) -> bool:
        try:
            age_s = time.time() - path.stat().st_mtime
        except FileNotFoundError:
            return False
        if age_s > self.stale_lock_after_s:
            return True
        if not info:  # being written right now, or garbage: stale only once old
            return age_s > 60.0
        same_host = info.get("host") == socket.gethostname()
        pid = info.get("pid")
        return bool(same_host and isinstance(pid, int) and not pid_alive(pid))

    def _break(self, path: Path, info: dict[str, Any]) -> None:
        """Move a stale lock aside; if what we moved turns out to be a fresh lock, put it back."""
        grave = path.with_name(f"lock.stale-{uuid.uuid4().hex}")
        try:
            os.rename(path, grave)
        except FileNotFoundError:
            return
        moved = self._read_lock(grave) or {}
        if info and moved.get("token") != info.get("token"):
            with contextlib.suppress(FileExistsError):
                os.link(grave, path)
        grave.unlink(missing_ok=True)

    @contextlib.contextmanager
    def lock(self, site_id: str, owner: LockOwner, *, wait_s: float = 10.0) -> Iterator[None]:
        """Hold the site's lock file (``locks/<id>``; ``sites/<id>/lock`` in a format-1 office).

        The marker file is not written here (:meth:`create_site` does), and if the site still
        has no master when the lock is released, the folders made for the lock are removed
        again, so a sync refused or failed before creating the site leaves nothing behind.
        """
        self.check_available()
        self._check_marker(create=False)
        named = self.named_folders()
        path = self._lock_path(site_id)
        site = path.parent if named else self.site_dir(site_id)   # the folder the lock needs
        made = [p for p in (self.root, site.parent) if not p.exists()]
        deadline = time.monotonic() + wait_s
        payload = json.dumps(asdict(owner)).encode()
        while True:
            try:
                site.mkdir(parents=True, exist_ok=True)
                fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileNotFoundError:  # another sync just removed the empty site folder
                continue
            except FileExistsError:
                info = self._read_lock(path)
                if info is None:
                    continue
                if self._is_stale(path, info):
                    self._break(path, info)
                    continue
                if time.monotonic() >= deadline:
                    raise OfficeLocked(
                        f"site {site_id} in {self.describe()} is being synced by"
                        f" {info.get('host', '?')} (pid {info.get('pid', '?')}, laptop"
                        f" {info.get('laptop_id', '?')}) since {info.get('started_utc', '?')};"
                        " try again when it has finished"
                    ) from None
                time.sleep(0.1)
                continue
            try:
                os.write(fd, payload)
                os.fsync(fd)
            finally:
                os.close(fd)
            break
        try:
            self._clean_temps(self.site_dir(site_id))
            yield
        finally:
            info = self._read_lock(path)
            if info and info.get("token") == owner.token:
                path.unlink(missing_ok=True)
            if named:       # the empty locks folder, and the folders made for it
                for folder in (site, *reversed(made)):
                    with contextlib.suppress(OSError):
                        folder.rmdir()
            else:
                self._remove_if_unused(site, made)

    def _remove_if_unused(self, site: Path, made: list[Path]) -> None:
        """After a lock on a site that was never created: remove its (empty) folders again, and
        the folders this lock made above it. ``rmdir`` only removes empty folders, so another
        sync's lock file or anything else put there meanwhile keeps its folder."""
        master = site / "master.gpkg"
        if master.exists() or master.is_symlink():
            return
        self._clean_temps(site)
        for folder in (site / "history", site, *reversed(made)):
            with contextlib.suppress(OSError):
                folder.rmdir()

    def heartbeat(self, site_id: str, owner: LockOwner) -> None:
        path = self._lock_path(site_id)
        info = self._read_lock(path)
        if not info or info.get("token") != owner.token:
            raise OfficeLocked(f"lost the lock on site {site_id} in {self.describe()}")
        with contextlib.suppress(OSError):
            os.utime(path)

    @staticmethod
    def _clean_temps(site: Path) -> None:
        """Remove temporary files a killed sync left behind (only ever called under the lock)."""
        for folder in (site, site / "history"):
            if folder.is_symlink():  # never follow a link out of the office (the path check refuses it)
                continue
            if folder.is_dir():
                for p in folder.iterdir():
                    if p.name.startswith(TEMP_PREFIX) and not p.is_symlink():
                        p.unlink(missing_ok=True)

    def check_writable(self, site_id: str) -> None:
        """Refuse, before a sync writes anything, a master that is damaged (``quick_check``) or
        that another program (QGIS) is writing right now; nothing to check for a new site.

        Raises :class:`InvalidOfficeData` saying so (and, where the system tells, who holds it).
        """
        master = self._existing_master(site_id)
        if master is None:
            return
        try:
            with contextlib.closing(connect(master, readonly=True)) as conn:
                check = conn.execute("PRAGMA quick_check").fetchone()[0]
        except sqlite3.DatabaseError as exc:
            check = str(exc)
        if check != "ok":
            raise InvalidOfficeData(
                f"the master GeoPackage of site {site_id} ({master}) is damaged (quick_check: {check});"
                " nothing was written. Restore it from the office's backup; the laptops keep their edits"
            )
        try:
            check_writable(master)
        except MasterBusy as exc:
            raise InvalidOfficeData(f"{exc}; nothing was written") from exc

    # ---- reading ------------------------------------------------------------------------
    def _light_master_check(self, master: Path) -> None:
        if master.is_symlink() or not master.is_file():
            raise InvalidOfficeData(f"master GeoPackage {master} is not a regular file")
        if master.stat().st_size > self.max_master_bytes:
            raise InvalidOfficeData(f"master GeoPackage {master} is over the size limit")

    def _existing_master(self, site_id: str) -> Path | None:
        """The site's master GeoPackage, size- and type-checked; ``None`` when there is no site."""
        self._check_marker(create=False)
        master = self.master_path(site_id)
        if not master.exists() and not master.is_symlink():
            return None
        self._light_master_check(master)
        return master

    def _no_site(self, site_id: str) -> SyncError:
        return SyncError(f"site {site_id} does not exist in {self.describe()}")

    def list_sites(self) -> list[tuple[str, str | None, int | None]]:
        """The office's sites as ``(site id, site name or None, head seq or None)``, by id: the
        folders under ``sites`` with a safe site id; a site whose master cannot be read has head
        None. Raises :class:`OfficeNotFound` when the folder is not a fieldapp office."""
        self.check_available()
        sites_dir = self.root / "sites"
        out: list[tuple[str, str | None, int | None]] = []
        named = self.named_folders()
        for entry in sorted(sites_dir.iterdir()) if sites_dir.is_dir() else []:
            if not entry.is_dir() or entry.is_symlink():
                continue
            if named:
                found = sitefolders.read_site_id(entry)
                if found is None and sitefolders.is_unconverted(entry):
                    found = entry.name      # laid out by format 1, the office being converted
                if found is None:
                    continue
                site_id = found
            else:
                try:
                    site_id = check_site_id(entry.name)
                except ValueError:
                    continue
            head: int | None
            try:
                head = self.head(site_id)
            except (SyncError, ValueError, OSError, sqlite3.Error):
                head = None
            out.append((site_id, self._site_name(site_id), head))
        return out

    def _site_name(self, site_id: str) -> str | None:
        """The name in the site master's ``site`` table, or None if it cannot be read."""
        try:
            master = self.master_path(site_id)
            if master.is_symlink() or not master.is_file():
                return None
            with contextlib.closing(connect(master, readonly=True)) as conn:
                row = conn.execute("SELECT name FROM site ORDER BY fid LIMIT 1").fetchone()
        except (sqlite3.Error, OSError, ValueError):
            return None
        return row[0] if row and isinstance(row[0], str) else None

    def head(self, site_id: str) -> int | None:
        master = self._existing_master(site_id)
        if master is None:
            return None
        try:
            with contextlib.closing(connect(master, readonly=True)) as conn:
                return log_head_in(conn)
        except sqlite3.DatabaseError as exc:
            raise InvalidOfficeData(f"master GeoPackage {master} has no readable sync log: {exc}") from exc

    def log(self, site_id: str, after_seq: int = 0) -> list[LogEntry]:
        self._check_marker(create=False)
        master = self.master_path(site_id)
        self._light_master_check(master)
        try:
            with contextlib.closing(connect(master, readonly=True)) as conn:
                rows = conn.execute(
                    f"SELECT seq, changeset_id, laptop_id, synced_by, applied_utc, sha256,"
                    f" size_bytes FROM {LOG_TABLE} WHERE seq > ? ORDER BY seq",
                    (after_seq,),
                ).fetchall()
        except sqlite3.DatabaseError as exc:
            raise InvalidOfficeData(f"master GeoPackage {master} has no readable sync log: {exc}") from exc
        entries = []
        for expected, row in enumerate(rows, start=after_seq + 1):
            entry = LogEntry(*row)
            if entry.seq != expected:
                raise InvalidOfficeData(
                    f"office log of site {site_id} skips from seq {expected - 1} to {entry.seq}"
                )
            if not isinstance(entry.changeset_id, str) or not cs.CHANGESET_ID_RE.match(entry.changeset_id):
                raise InvalidOfficeData(
                    f"office log of site {site_id}, seq {entry.seq}: changeset id"
                    f" {entry.changeset_id!r} is not a 32-digit hex id"
                )
            if not isinstance(entry.sha256, str) or not SHA256_RE.match(entry.sha256):
                raise InvalidOfficeData(
                    f"office log of site {site_id}, seq {entry.seq}: no valid SHA-256 recorded"
                )
            entries.append(entry)
        return entries

    def schema(self, site_id: str) -> SiteSchema | None:
        master = self._existing_master(site_id)
        if master is None:
            return None
        try:
            with contextlib.closing(connect(master, readonly=True)) as conn:
                version = schemas.version_in(conn)
                head = log_head_in(conn)
                rows = []
                if conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                                (schemas.SCHEMA_LOG_TABLE,)).fetchone():
                    rows = conn.execute(
                        f"SELECT schema_version, from_version, after_seq, migrated_utc, laptop_id,"
                        f" fieldapp_version FROM {schemas.SCHEMA_LOG_TABLE} ORDER BY schema_version"
                    ).fetchall()
        except (sqlite3.DatabaseError, ValueError) as exc:
            raise InvalidOfficeData(f"master GeoPackage {master}: unreadable schema version: {exc}") from exc
        changes = tuple(SchemaChange(*r) for r in rows)
        previous_v, previous_seq = 0, 0
        for c in changes:
            ok = (all(isinstance(x, int) for x in (c.schema_version, c.from_version, c.after_seq))
                  and c.from_version < c.schema_version and c.schema_version > previous_v
                  and previous_seq <= c.after_seq <= head)
            if not ok:
                raise InvalidOfficeData(
                    f"schema log of site {site_id} in {self.describe()} is not valid at {c!r}"
                    f" (the master is at seq {head}); refused"
                )
            previous_v, previous_seq = c.schema_version, c.after_seq
        if changes and version is not None and version < changes[-1].schema_version:
            raise InvalidOfficeData(
                f"the master of site {site_id} is at schema {version}, but its schema log says it"
                f" was migrated to {changes[-1].schema_version}; refused"
            )
        return SiteSchema(version, changes)

    def fetch_changeset(self, site_id: str, entry: LogEntry, dest: Path) -> None:
        path = self.history_path(site_id, entry.seq, entry.changeset_id)
        if path.is_symlink() or not path.is_file():
            raise InvalidOfficeData(f"changeset {path} is missing or not a regular file")
        size = path.stat().st_size
        if size > self.max_changeset_bytes or (entry.size_bytes is not None and size != entry.size_bytes):
            raise InvalidOfficeData(
                f"changeset {path} is {size} bytes; the office log says {entry.size_bytes}"
                f" (limit {self.max_changeset_bytes})"
            )
        shutil.copyfile(path, dest)
        digest = sha256_of(dest)
        if digest != entry.sha256:
            Path(dest).unlink(missing_ok=True)
            raise InvalidOfficeData(
                f"changeset {path} has SHA-256 {digest}, but the office log recorded"
                f" {entry.sha256}: it was altered or damaged; refused"
            )

    def fetch_master(self, site_id: str, dest: Path) -> None:
        self._check_marker(create=False)
        master = self.master_path(site_id)
        check_geopackage(master, what="master GeoPackage", max_bytes=self.max_master_bytes, error=InvalidOfficeData)
        snapshot_sqlite(master, Path(dest))

    def tag_block(self, site_id: str, laptop_id: str, *, after: int | None = None) -> int | None:
        """The laptop's tag block (:meth:`OfficeStore.tag_block`), from
        ``sites/<id>/tag-blocks.json`` (``{"laptops": {key: block}}``, keys by
        :func:`~fieldapp.sync.officestore.tag_block_key`), a new block written there durably the
        first time (caller holds the lock). Raises :class:`InvalidOfficeData` for a damaged file."""
        path = self._inside(self.site_dir(site_id) / "tag-blocks.json", "tag blocks")
        blocks: dict[str, int] = {}
        if path.exists() or path.is_symlink():
            try:
                blocks = dict(json.loads(path.read_text(encoding="utf-8"))["laptops"])
            except (OSError, ValueError, KeyError, TypeError) as exc:
                raise InvalidOfficeData(f"{path} is damaged: {exc}") from exc
            if not all(isinstance(v, int) and v >= 1 for v in blocks.values()):
                raise InvalidOfficeData(f"{path} holds a block that is not a whole number from 1")
        key = tag_block_key(laptop_id, after)
        if key not in blocks:
            blocks[key] = next_free_block(blocks.values(), self._highest_tag(site_id))
            temp = temp_path_for(path)
            temp.write_text(json.dumps({"laptops": blocks}, indent=1), encoding="utf-8")
            replace_durably(temp, path)
        return blocks[key]

    def _highest_tag(self, site_id: str) -> int | None:
        """The highest tree tag in the site's master (None: no tree layer or no tree)."""
        master = self.master_path(site_id)
        if not master.exists():
            return None
        with contextlib.closing(connect(master, readonly=True)) as conn:
            if "tag" not in {r[1] for r in conn.execute("PRAGMA table_info(tree)")}:
                return None
            top = conn.execute("SELECT max(tag) FROM tree WHERE typeof(tag) = 'integer'").fetchone()[0]
        return None if top is None else int(top)

    # ---- writing (caller holds the lock) ------------------------------------------------
    def create_site(self, site_id: str, schema_gpkg: Path, *, site_name: str = "") -> None:
        """Make the site with ``schema_gpkg`` as its master (:meth:`OfficeStore.create_site`).

        Raises :class:`~fieldapp.sync.errors.VisitRefused` (nothing written, no marker, no
        site folder) when ``schema_gpkg`` holds a trigger, view, index, table or column fieldapp
        does not make (:func:`fieldapp.sync.schemacheck.check_schema`): the master is copied into
        every checkout. The master gets fieldapp's QGIS styles, one per layer
        (:func:`fieldapp.sync.officestyles.write_office_styles`). In a format-2 office its
        folder is named by ``site_name`` (or the name in ``schema_gpkg``'s site table):
        :func:`fieldapp.sync.sitefolders.make_site_folder`."""
        if not (self.root / OFFICE_MARKER).exists() and not self.create:
            self.check_available()  # raises OfficeNotFound
        check_schema(Path(schema_gpkg), what=f"the visit sent to create site {site_id}",
                     error=VisitRefused, done=f"Nothing was written to {self.describe()}")
        self._check_marker(create=True)
        master = self.master_path(site_id)
        if master.exists() or master.is_symlink():
            raise SyncError(f"site {site_id} already exists in {self.describe()}")
        if self.named_folders():    # the folder named by the site, its id inside
            folder = sitefolders.make_site_folder(self.root / "sites",
                                                  site_name or sitefolders.site_name_in(schema_gpkg),
                                                  site_id, DEEPEST)
            self._folders[site_id] = folder
            master = self.master_path(site_id)
        (self.site_dir(site_id) / "history").mkdir(parents=True, exist_ok=True)
        temp = temp_path_for(master)
        try:
            shutil.copyfile(schema_gpkg, temp)
            write_office_styles(temp)       # the office opens the field's map in QGIS
            replace_durably(temp, master)
        finally:
            with contextlib.suppress(FileNotFoundError):
                temp.unlink()

    def apply(
        self, site_id: str, changeset: Path, entry: LogEntry, *, step: StepCallback | None = None,
        fast_forward: FastForward | None = None,
    ) -> None:
        """Apply ``changeset`` as ``entry`` (:meth:`OfficeStore.apply`): on a copy of the master,
        checked, stored in the history, written back in one SQLite transaction
        (:mod:`fieldapp.sync.inplace`).

        With ``fast_forward``, when the master holds exactly the pages of ``fast_forward.base``
        (:meth:`_fast_forward`), its ``result`` is written back instead: by construction the
        master with the changeset applied, without replaying every insert through the R-tree
        triggers (a day's 288,000 track points: seconds).
        """
        step = step or (lambda _name: None)
        master = self.master_path(site_id)
        head = self.head(site_id)
        if head is None:
            raise self._no_site(site_id)
        if entry.seq != head + 1:
            raise SyncError(
                f"changeset {entry.changeset_id} was prepared for seq {entry.seq} but the office"
                f" is at seq {head}; sync again"
            )
        size = Path(changeset).stat().st_size
        if size > self.max_changeset_bytes:
            raise InvalidOfficeData(f"changeset {changeset} is {size} bytes, over the limit")
        if sha256_of(changeset) != entry.sha256 or size != entry.size_bytes:
            raise InvalidOfficeData(f"changeset {changeset} does not match its SHA-256/size; refused")
        history = self.history_path(site_id, entry.seq, entry.changeset_id)
        history.parent.mkdir(parents=True, exist_ok=True)
        gd = cs.new_geodiff()
        work = self.site_dir(site_id)
        tables = cs.schema(gd, master, work)
        what = f"changeset {entry.changeset_id}"
        counts = cs.check_changeset(gd, changeset, tables, work, expected_id=entry.changeset_id, what=what)
        for orphan in history.parent.glob("*.geodiff"):  # left by a sync killed before replace
            if orphan != history and orphan.name[:8].isdigit() and int(orphan.name[:8]) >= entry.seq:
                orphan.unlink()
        for attempt in range(3):  # redone on a fresh snapshot if QGIS saved meanwhile
            with MasterWriter(master) as writer:
                new_master = None
                if fast_forward is not None:
                    new_master = self._fast_forward(writer, fast_forward, entry, tables, counts, gd, work)
                if new_master is not None:
                    step("office: the master is this laptop's base copy: its result taken")
                else:
                    new_master = self._apply_to_copy(writer, site_id, changeset, entry, gd, step)
                step("office: changeset applied to a copy of the master")
                # the copy's site CRS, layer srs_ids and coordinates against the site (crscheck)
                check_site_crs(new_master, writer.conn, what=f"changeset {entry.changeset_id}",
                               error=VisitRefused)
                copy_durably(changeset, history)
                step("office: changeset stored in history")
                try:
                    writer.write_back(new_master)
                except MasterChanged:
                    if attempt == 2:
                        raise InvalidOfficeData(
                            f"the master of site {site_id} kept changing under another program"
                            " (QGIS?) during the sync; nothing was changed, sync again") from None
                    continue
                except MasterBusy as exc:
                    raise InvalidOfficeData(str(exc)) from exc
                step("office: master replaced")
                break
        fsync_dir(history.parent)

    def _apply_to_copy(self, writer: MasterWriter, site_id: str, changeset: Path, entry: LogEntry,
                       gd: cs.GeoDiff, step: StepCallback) -> Path:
        """A snapshot of the master with ``changeset`` applied, its log row and file record
        checked and written, ``quick_check`` passed. Raises :class:`InvalidOfficeData`."""
        temp = writer.snapshot()
        step("office: master copied")
        try:
            gd.apply_changeset(str(temp), str(changeset))
        except Exception as exc:  # pygeodiff raises GeoDiffLibError / ConflictError
            raise InvalidOfficeData(
                f"changeset {entry.changeset_id} does not apply cleanly to the master of"
                f" site {site_id}: {exc}; nothing was changed"
            ) from exc
        what = f"changeset {entry.changeset_id}"
        cs.validate_logged(temp, expected_seq=entry.seq, expected_id=entry.changeset_id, what=what)
        with contextlib.closing(connect(temp)) as conn:
            with conn:
                record_changeset_file(conn, entry.seq, entry.sha256, entry.size_bytes)
            if conn.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                raise InvalidOfficeData(f"master of site {site_id} failed quick_check after apply")
        return temp

    def _fast_forward(self, writer: MasterWriter, ff: FastForward, entry: LogEntry,
                      tables: dict[str, cs.TableSchema], counts: dict[str, dict[str, int]],
                      gd: cs.GeoDiff, work: Path) -> Path | None:
        """``ff.result`` when it may become the master as it is, else ``None`` (apply the changeset).

        It may when the master's pages are exactly ``ff.base``'s
        (:func:`~fieldapp.sync.files.page_fingerprint`; read as the start of the write, so a
        program saving into the master afterwards makes the write-back start again): the
        changeset was made against this very content, and ``result`` is it with the changeset
        applied. Before it is taken, ``result`` must be a sound GeoPackage (``quick_check``) with
        the master's tables and columns, log itself as ``entry`` (SHA-256 and size recorded), and
        hold, in every table the changeset touches, the master's row count plus its inserts minus
        its deletes. A master another program wrote since (QGIS), one another laptop's sync moved
        on, an office-only table (the schema log): its pages differ and the changeset is applied.
        A master of another size is told apart without reading it.

        Raises :class:`~fieldapp.sync.errors.VisitRefused` (the master unchanged) when
        ``result`` holds a trigger, view, index, table or column that neither fieldapp makes nor
        the master has (:func:`fieldapp.sync.schemacheck.foreign_entries`): the laptop's file
        would otherwise become the master, schema and all.
        """
        base = Path(ff.base)
        if not base.is_file() or base.stat().st_size != writer.master.stat().st_size:
            return None  # not the same pages: no need to read the master (a share) to know
        mine = writer.fingerprint()
        if mine is None or mine != page_fingerprint(base):
            return None
        result = Path(ff.result)
        try:
            check_geopackage(result, what="the laptop's result", max_bytes=self.max_master_bytes,
                             error=InvalidOfficeData)
            if cs.schema_signature(cs.schema(gd, result, work)) != cs.schema_signature(tables):
                return None
            with contextlib.closing(connect(result, readonly=True)) as conn:
                foreign = foreign_entries(conn, also_allowed=master_rows(writer.conn))
            if foreign:
                raise VisitRefused(
                    f"the laptop's copy sent for changeset {entry.changeset_id} holds what fieldapp"
                    f" does not make: {', '.join(foreign[:8])}. A visit brings records, never"
                    " triggers, views, indexes or tables of its own; the master is unchanged")
            what = f"changeset {entry.changeset_id}"
            cs.validate_logged(result, expected_seq=entry.seq, expected_id=entry.changeset_id, what=what)
            with contextlib.closing(connect(result, readonly=True)) as conn:
                logged = conn.execute(f"SELECT sha256, size_bytes FROM {LOG_TABLE} WHERE seq = ?",
                                      (entry.seq,)).fetchone()
                if tuple(logged or ()) != (entry.sha256, entry.size_bytes):
                    return None
                for table, n in counts.items():
                    q = f"SELECT count(*) FROM {quote_identifier(table)}"
                    before = writer.conn.execute(q).fetchone()[0]
                    if conn.execute(q).fetchone()[0] != before + n["insert"] - n["delete"]:
                        return None
        except (InvalidOfficeData, sqlite3.Error):
            return None
        return result

    def migrate(
        self, site_id: str, change: SchemaChange, statements: list[str], *,
        check: Callable[[Path], None] | None = None, step: StepCallback | None = None,
    ) -> None:
        step = step or (lambda _name: None)
        master = self.master_path(site_id)
        head = self.head(site_id)
        current = self.schema(site_id)
        if head is None or current is None:
            raise self._no_site(site_id)
        if head != change.after_seq or current.version != change.from_version:
            raise SyncError(
                f"the master of site {site_id} is at seq {head}, schema {current.version}; the"
                f" migration was prepared for seq {change.after_seq}, schema {change.from_version};"
                " sync again"
            )
        with MasterWriter(master) as writer:
            temp = writer.snapshot()
            step("office: master copied for the schema change")
            with contextlib.closing(connect(temp)) as conn:
                conn.isolation_level = None
                gpkgsql.register(conn)  # GDAL's R-tree triggers, should a master have them
                conn.execute("BEGIN IMMEDIATE")
                try:
                    for sql in statements:
                        conn.execute(sql)
                    conn.execute(f'UPDATE "{schemas.META_TABLE}" SET value = ? WHERE key = ?',
                                 (str(change.schema_version), schemas.VERSION_KEY))
                    schemas.conform_in(conn)    # left as the store leaves a migrated visit
                    conn.execute(schemas.SCHEMA_LOG_DDL)
                    conn.execute(
                        f"INSERT INTO {schemas.SCHEMA_LOG_TABLE} (schema_version, from_version,"
                        " after_seq, migrated_utc, laptop_id, fieldapp_version) VALUES (?,?,?,?,?,?)",
                        (change.schema_version, change.from_version, change.after_seq,
                         change.migrated_utc, change.laptop_id, change.fieldapp_version),
                    )
                    conn.execute("COMMIT")
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
                if conn.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                    raise InvalidOfficeData(f"master of site {site_id} failed quick_check after migration")
                if schemas.version_in(conn) != change.schema_version:
                    raise InvalidOfficeData(f"master of site {site_id} did not reach schema {change.schema_version}")
            if check is not None:
                check(temp)
            step("office: master migrated in a copy")
            try:
                writer.write_back(temp)
            except (MasterBusy, MasterChanged) as exc:
                raise InvalidOfficeData(f"the master of site {site_id} was not migrated: {exc};"
                                        " sync again") from exc
            step("office: master replaced")

