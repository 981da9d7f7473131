"""Read and write a folder office's master GeoPackage in place, through SQLite, so that a master
someone has open in QGIS (WAL mode, edits committed but not checkpointed, the connection kept
open) is never swapped from under its reader.

The master is never replaced by ``os.replace``: that gives QGIS's open connection a file that
no longer matches the ``-wal`` / ``-shm`` beside it ("database disk image is malformed").
Instead, under the office lock:

1. :meth:`MasterWriter.snapshot` copies the master with SQLite's backup API on a connection
   kept open for the write: the copy holds what QGIS committed to the ``-wal`` too;
2. the caller changes and checks the copy;
3. :meth:`MasterWriter.write_back` copies it back with the backup API in one step, which is one
   SQLite write transaction on the master (journalled, so a killed sync leaves the master as it
   was; readers see the old or the new master, never a mix; a WAL master on this machine's own
   disk stays in WAL mode).
   If anyone committed to the master since the snapshot (``PRAGMA data_version`` moved), nothing
   is written and :class:`MasterChanged` is raised so the caller redoes the change on a fresh
   snapshot; if another program holds the write lock past ``busy_s``, :class:`MasterBusy`.

A master on a network share or drive (:func:`fieldapp.store.paths.is_remote`) is kept in a
rollback journal (``journal_mode=DELETE``), never WAL: WAL's shared-memory index does not work
across machines, so a laptop and QGIS on two machines could each miss the other's commits.
:func:`rollback_journal_on_share` switches it before the sync writes anything; a WAL master held
open there by another program is refused (:class:`MasterBusy`), nothing written.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from pathlib import Path

from fieldapp.store.paths import is_remote
from fieldapp.sync.files import page_fingerprint, remove_quietly, temp_path_for


class MasterBusy(Exception):
    """Another program (QGIS, another GIS) holds the master's write lock, or it is unreadable."""


class MasterChanged(Exception):
    """The master was committed to by another program since the snapshot; nothing was written."""


def holder_words(master: Path) -> str:
    """Who may hold ``master`` open, in words (the processes that have it open where this system
    tells, e.g. Linux ``/proc``; else a hint)."""
    names = set()
    with contextlib.suppress(OSError):
        target = str(Path(master).resolve())
        for proc in Path("/proc").iterdir():
            if not proc.name.isdigit():
                continue
            with contextlib.suppress(OSError):
                for fd in (proc / "fd").iterdir():
                    with contextlib.suppress(OSError):
                        if str(fd.readlink()).startswith(target):
                            comm = (proc / "comm").read_text(encoding="utf-8", errors="replace")
                            names.add(f"{comm.strip()} (pid {proc.name})")
                            break
    if names:
        return "held open by " + ", ".join(sorted(names))
    return "held by another program (QGIS or another GIS with unsaved edits?)"


def rollback_journal_on_share(conn: sqlite3.Connection, master: Path) -> None:
    """On a network share or drive, put the master (``conn``) in a rollback journal
    (``journal_mode=DELETE``); nothing is done for a master on this machine's own disk.

    Raises :class:`MasterBusy` (nothing written) when it stays in WAL: another program (QGIS)
    has it open in WAL mode, which cannot be shared safely across machines."""
    if not is_remote(master):
        return
    try:
        mode = str(conn.execute("PRAGMA journal_mode=DELETE").fetchone()[0]).lower()
    except sqlite3.OperationalError as exc:
        mode = f"unchanged ({exc})"
    if mode != "delete":
        raise MasterBusy(
            f"the master {master} is on a network drive in WAL mode and is {holder_words(master)}:"
            f" WAL does not work across machines (journal {mode}). Close it in QGIS (or the other"
            " program) and sync again; nothing was changed")


def check_writable(master: Path, *, busy_s: float = 2.0) -> None:
    """Refuse a master another program is writing right now (its write lock held past
    ``busy_s``), before a sync writes anything. Raises :class:`MasterBusy` naming the holder.
    A master on a network drive is put in a rollback journal here
    (:func:`rollback_journal_on_share`; :class:`MasterBusy` when that cannot be done)."""
    with contextlib.closing(sqlite3.connect(master, timeout=busy_s, isolation_level=None)) as conn:
        rollback_journal_on_share(conn, master)
        try:
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("ROLLBACK")
        except sqlite3.OperationalError as exc:
            raise MasterBusy(f"the master {master} is being written by another program and is"
                             f" {holder_words(master)} ({exc}); save or close it there and sync again") from exc


class MasterWriter:
    """A connection to the master for one snapshot-change-write-back (see the module docstring)."""

    def __init__(self, master: Path, *, busy_s: float = 10.0) -> None:
        self.master = Path(master)
        self.busy_s = float(busy_s)
        self.conn = sqlite3.connect(self.master, timeout=self.busy_s, isolation_level=None)
        try:
            rollback_journal_on_share(self.conn, self.master)   # never WAL on a share
        except BaseException:
            self.conn.close()
            raise
        self._version: int | None = None
        self.temps: list[Path] = []

    def close(self) -> None:
        self.conn.close()
        remove_quietly(*self.temps)

    def __enter__(self) -> MasterWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _data_version(self) -> int:
        return int(self.conn.execute("PRAGMA data_version").fetchone()[0])

    def fingerprint(self) -> str | None:
        """The master's :func:`~fieldapp.sync.files.page_fingerprint` as it is now, read as the
        start of this write (like :meth:`snapshot`: anyone's commit from here on makes
        :meth:`write_back` raise :class:`MasterChanged`). ``None`` when the ``.gpkg`` alone may
        not hold the content: a ``-wal`` with records (QGIS saved into it) or a ``-journal``."""
        self._version = self._data_version()
        side = [Path(f"{self.master}-wal"), Path(f"{self.master}-journal")]
        self.conn.execute("BEGIN")
        try:  # a read transaction: no rollback-journal writer commits while the file is hashed
            self.conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            if any(p.exists() and p.stat().st_size > 0 for p in side):
                return None
            return page_fingerprint(self.master)
        finally:
            self.conn.execute("COMMIT")

    def snapshot(self) -> Path:
        """A consistent copy of the master (rollback-journal mode) beside it; removed on close."""
        temp = temp_path_for(self.master)
        self.temps.append(temp)
        self._version = self._data_version()
        with contextlib.closing(sqlite3.connect(temp)) as dest:
            self.conn.backup(dest)
            dest.execute("PRAGMA journal_mode=DELETE")
        return temp

    def write_back(self, copy: Path) -> None:
        """Write ``copy`` over the master's content in one SQLite transaction.

        On a network share the master stays in its rollback journal: a ``copy`` in WAL mode
        (its header says so, and the backup copies the header) is switched to ``DELETE`` first.

        Raises :class:`MasterChanged` (nothing written) when the master was committed to since
        :meth:`snapshot`; :class:`MasterBusy` when its write lock is held past ``busy_s``.
        """
        if self._version is None or self._data_version() != self._version:
            raise MasterChanged(f"{self.master} was changed by another program during the sync")
        deadline = time.monotonic() + self.busy_s

        def give_up_when_busy(status: int, _remaining: int, _total: int) -> None:
            if status in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) and time.monotonic() > deadline:
                raise MasterBusy(f"the master {self.master} is being written by another program"
                                 f" and is {holder_words(self.master)}; nothing was changed")

        with contextlib.closing(sqlite3.connect(copy)) as src:
            if is_remote(self.master):   # the backup copies the header's WAL bytes too: a WAL
                src.execute("PRAGMA journal_mode=DELETE")   # copy would put the share's master in WAL
            try:
                src.backup(self.conn, pages=-1, progress=give_up_when_busy, sleep=0.05)
            except sqlite3.OperationalError as exc:
                raise MasterBusy(f"the master {self.master} could not be written ({exc}); it is"
                                 f" {holder_words(self.master)}; nothing was changed") from exc
        self._version = self._data_version()
        with contextlib.suppress(sqlite3.Error):  # fold the WAL in when nobody reads (best effort)
            self.conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
