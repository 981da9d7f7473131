"""Keeping a visit's ``.gpkg`` whole on its own while recording, at a stop, and in a copy (Qt-free).

A visit is one GeoPackage, ``NAME.gpkg``. While fieldapp has it open for recording SQLite keeps
two files beside it, ``NAME.gpkg-wal`` (the newest records, written there first) and
``NAME.gpkg-shm`` (its index); closing the visit folds the ``-wal`` into the ``.gpkg`` and removes
both. A crew copying the ``.gpkg`` alone while the app runs, or after it was stopped without
closing the window, would leave the newest records behind in the ``-wal``. So:

- :func:`fold_wal` every :data:`FOLD_EVERY_S` seconds while a visit is open (the window's timer,
  :mod:`fieldapp.ui.keepsafe`): the ``.gpkg`` alone lags by at most that much. Time, not a record
  count: the age of what a copy would miss is what matters to the crew, and it is the same at 1 or
  10 fixes a second. It is cheap: a PASSIVE checkpoint copies the pages changed since the last one
  (about 100 fixes' worth at 10 Hz) with one fsync, against the ~100 fsyncs the commits of those
  records already made, and it never waits for a reader (a copy in progress); SQLite's own
  auto-checkpoint only comes every 1000 pages (~4 MB, minutes of track).
- :class:`StopSignals` notes a stop asked for by SIGTERM (logout, shutdown, ``kill``), SIGINT
  (Ctrl+C), SIGHUP (the terminal closed) or, on Windows, SIGBREAK (Ctrl+Break); the window then
  closes the visit as its close button does (:mod:`fieldapp.ui.keepsafe`). The operating
  system's session end (Windows: WM_QUERYENDSESSION / WM_ENDSESSION) reaches the window as Qt's
  ``commitDataRequest`` / ``aboutToQuit`` instead.
- :func:`copy_visit` writes a consistent single-file copy (SQLite's backup API, no ``-wal``
  needed) while the visit is being recorded, and never replaces an existing file.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

# fieldapp.store (durable, paths) is imported by copy_visit, not here: its package brings in
# the GeoPackage store, shapely and pyproj, which the window's first frame does not need
# (fieldapp.ui.keepsafe is installed before it is shown; issue 33)

#: Seconds between two folds of the ``-wal`` into the ``.gpkg`` while a visit is open.
FOLD_EVERY_S = 10.0

#: A visit's SQLite side files while it is open (or after a crash).
SIDE_FILES = ("-wal", "-shm", "-journal")


def fold_wal(visit: Any) -> bool:
    """Fold the open visit's ``-wal`` into its ``.gpkg`` now, without waiting; True when the
    ``.gpkg`` alone then holds every record. ``visit`` is a
    :class:`fieldapp.app.visit.VisitController` or None; no visit, no store, or a closed or
    read-only one: False. A failure (the disk gone) is returned as False, never raised: the
    records are safe in the ``-wal`` and the next fold tries again."""
    store = getattr(visit, "store", None)
    fold = getattr(store, "fold_wal", None)
    if store is None or getattr(store, "closed", True) or not callable(fold):
        return False
    try:
        return bool(fold())
    except (sqlite3.Error, OSError):
        return False


class StopSignals:
    """Note a stop asked for by a signal; the GUI thread looks at :attr:`requested` and stops.

    The handler only notes the signal (it may run between any two Python steps of the GUI
    thread, in the middle of a record being written), never closes anything itself. SIGINT is
    taken only while it has Python's default handler (a process started in the background of a
    shell inherits it ignored); SIGHUP only while it has the default action (not under
    ``nohup``). :meth:`install` outside the main thread takes nothing (Python allows handlers
    there only).

    Attributes
    ----------
    requested : int or None
        The number of the first stop signal received.
    """

    def __init__(self) -> None:
        self.requested: int | None = None
        self._previous: dict[int, Any] = {}

    @property
    def name(self) -> str:
        """The signal's name (``"SIGTERM"``), '' before one came."""
        if self.requested is None:
            return ""
        with contextlib.suppress(ValueError):
            return signal.Signals(self.requested).name
        return f"signal {self.requested}"

    def _note(self, signum: int, _frame: FrameType | None) -> None:
        if self.requested is None:
            self.requested = signum

    def install(self) -> StopSignals:
        """Take the stop signals (see the class); returns self."""
        wanted = [signal.SIGTERM]
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            wanted.append(signal.SIGINT)
        hup = getattr(signal, "SIGHUP", None)
        if hup is not None and signal.getsignal(hup) is signal.SIG_DFL:
            wanted.append(hup)
        brk = getattr(signal, "SIGBREAK", None)   # Windows: Ctrl+Break
        if brk is not None:
            wanted.append(brk)
        for signum in wanted:
            try:
                self._previous[signum] = signal.signal(signum, self._note)
            except ValueError:          # not the main thread
                break
        return self

    def restore(self) -> None:
        """Give the signals back their earlier handlers (idempotent)."""
        for signum, previous in self._previous.items():
            with contextlib.suppress(ValueError):
                signal.signal(signum, previous)
        self._previous.clear()


class CopyRefused(Exception):
    """The copy was refused before anything was written (the message says why in words)."""


@dataclass(frozen=True)
class VisitCopy:
    """A copy made by :func:`copy_visit`.

    path : the copy (one ``.gpkg``, nothing beside it)
    records : rows in its layers (every table listed in ``gpkg_contents``)
    size_bytes : its size
    """

    path: Path
    records: int
    size_bytes: int


def _records(conn: sqlite3.Connection) -> int:
    names = [r[0] for r in conn.execute("SELECT table_name FROM gpkg_contents")]
    return sum(int(conn.execute(f'SELECT count(*) FROM "{n.replace(chr(34), chr(34) * 2)}"')
                   .fetchone()[0]) for n in names)


def copy_visit(source: Path | str, target: Path | str) -> VisitCopy:
    """Copy the visit GeoPackage ``source`` to ``target`` as one consistent file.

    SQLite's backup API reads one snapshot of the visit through its own read-only connection:
    every record committed when the copy starts, the ``-wal``'s included, and nothing half
    written, while the window goes on recording (a writer is never blocked by it). The copy is
    switched to the rollback journal (no ``-wal``/``-shm`` needed beside it), checked
    (``quick_check``), written under a temporary name in the target folder, fsynced and moved to
    ``target``, whose name was reserved first: an existing file is never replaced.

    Returns
    -------
    VisitCopy

    Raises
    ------
    CopyRefused
        ``target`` exists (or one of its side files does), is the visit itself or one of its
        side files, or does not end in ``.gpkg``.
    sqlite3.Error
        ``source`` cannot be read as SQLite, or the copy failed its check.
    OSError
        The target folder is missing, read-only or full (nothing is left there).
    """
    source, target = Path(source), Path(target)
    if target.suffix.lower() != ".gpkg":
        raise CopyRefused(f"{target.name}: a copy of a visit is a GeoPackage; name it .gpkg")
    src_abs = Path(os.path.abspath(source))
    tgt_abs = Path(os.path.abspath(target))
    if tgt_abs in [src_abs, *(src_abs.with_name(src_abs.name + s) for s in SIDE_FILES)] or (
            target.exists() and source.exists() and os.path.samefile(source, target)):
        raise CopyRefused(f"{target} is the visit itself: choose another file to copy it to")
    taken = [p for p in [target, *(target.with_name(target.name + s) for s in SIDE_FILES)]
             if os.path.lexists(p)]
    if taken:
        raise CopyRefused(f"{taken[0]} already exists; nothing was overwritten. Choose another"
                          " name, or delete that file first")
    if not source.is_file():
        raise CopyRefused(f"the visit {source} is not there to copy")
    from fieldapp.store.durable import fsync_dir, fsync_file
    from fieldapp.store.paths import sqlite_uri

    temp = target.with_name(f".{target.name}.{os.getpid()}.copying")
    reserved = False
    try:
        with contextlib.closing(sqlite3.connect(sqlite_uri(source, mode="ro"), uri=True,
                                                timeout=30)) as src, \
                contextlib.closing(sqlite3.connect(temp, isolation_level=None)) as dest:
            src.backup(dest)                     # all pages in one step: one snapshot
            dest.execute("PRAGMA journal_mode=DELETE")
            check = dest.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                raise sqlite3.DatabaseError(f"the copy failed its check: {check}")
            records = _records(dest)
        fsync_file(temp)
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)  # reserve the name
        os.close(fd)
        reserved = True
        os.replace(temp, target)
        reserved = False
        fsync_dir(target.parent)
    except FileExistsError:
        raise CopyRefused(f"{target} appeared while copying; nothing was overwritten") from None
    finally:
        for p in (temp, temp.with_name(temp.name + "-journal")):
            with contextlib.suppress(OSError):
                p.unlink()
        if reserved:
            with contextlib.suppress(OSError):
                target.unlink()
    return VisitCopy(target, records, target.stat().st_size)
