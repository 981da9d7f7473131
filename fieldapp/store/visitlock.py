"""One program at a time records into a visit: an OS lock held while a visit is open to write.

Two fieldapp windows recording into one visit (the app started twice: it reopens the last
visit) would each keep a model of its own and neither would see the other's rows: tree tags
repeated, the tracks of two receivers interleaved, and the first window to close failing with
"database is locked". A sync writing into a visit the app records into would change the file
under the app's model. So whatever writes a visit holds its lock: a store opened for recording
(:func:`fieldapp.store.create_visit`, :func:`fieldapp.store.open_visit`) until it is closed, a
sync, ``--resolve`` or a checkout while they write. The second is refused at once with
:class:`VisitInUse`, whichever process or thread it is in. Read-only opens (report, export,
the sync's checks) take no lock: SQLite's WAL lets them read while the app records.

The lock is filelock's (``fcntl.flock`` on Linux and macOS, ``msvcrt.locking`` on Windows):
the operating system releases it when the process ends, however it ends, so a crash or a power
cut leaves no lock to clear. Two lock files are held, in the user's cache folder (platformdirs;
``FIELDAPP_LOCK_DIR`` overrides it), so that nothing is put beside the visit for the crew to copy
or wonder about: one named by the file itself (its device and inode: every name of it, a hard
link, a bind mount, a rename while open, ``Site.gpkg`` and ``site.gpkg`` on a USB stick), one by
its real path (``os.path.realpath``, case-folded on Windows: a checkout or a new visit being
made there, before the file exists). Lock files are made readable and writable by every
account (another login on the laptop is excluded too, where it shares the folder). A visit on
a network share opened from two laptops is not covered (SQLite's WAL needs one machine anyway).
Where the cache folder cannot be written, the visit opens without its lock (logged, and
:attr:`VisitLock.unlocked_reason` says why, for the window's banner): recording is never
refused for want of a lock file.
"""

from __future__ import annotations

import hashlib
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import StoreError

if TYPE_CHECKING:
    from filelock import BaseFileLock

__all__ = ["VisitInUse", "VisitLock", "lock_dir"]

log = logging.getLogger(__name__)


class VisitInUse(StoreError):
    """The visit is open for recording (or being synced) in another fieldapp window or program."""


def lock_dir() -> Path:
    """The folder of the visits' lock files (``FIELDAPP_LOCK_DIR``, made absolute, else the
    user's cache)."""
    given = os.environ.get("FIELDAPP_LOCK_DIR")
    if given:
        return Path(given).expanduser().absolute()
    import platformdirs

    return Path(platformdirs.user_cache_dir("fieldapp", appauthor=False)) / "visit-locks"


def _name(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32] + ".lock"


class VisitLock:
    """The lock of the visit at ``path`` (by its real path, and by the file once it exists).

    ``acquire()`` raises :class:`VisitInUse` when another holder has it; ``release()`` is
    idempotent. A context manager too.
    """

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._locks: list[BaseFileLock] = []
        self._held: set[str] = set()
        #: why the visit is open without its lock (the lock folder could not be written), or None
        self.unlocked_reason: str | None = None

    def _keys(self) -> list[str]:
        keys = ["path " + os.path.normcase(os.path.realpath(self.path))]
        try:
            st = os.stat(self.path)
        except OSError:
            return keys         # not made yet: the path's lock alone
        if st.st_ino:           # 0 where the file system has no file ids
            keys.append(f"file {st.st_dev} {st.st_ino}")
        return keys

    def acquire(self) -> VisitLock:
        """Take the locks not held yet (again after the visit was made: its file's too)."""
        from filelock import FileLock, Timeout

        if self.unlocked_reason:
            return self
        folder = lock_dir()
        try:
            folder.mkdir(parents=True, exist_ok=True)
            for key in self._keys():
                if key in self._held:
                    continue
                lock = FileLock(str(folder / _name(key)), timeout=0, mode=0o666, thread_local=False,
                                is_singleton=False, fallback_to_soft=False)
                lock.acquire()
                self._locks.append(lock)
                self._held.add(key)
        except Timeout:
            self.release()
            raise VisitInUse(
                f"{self.path} is open in another fieldapp window or program (recording into it,"
                " or syncing it): close it there (or let its sync finish) first, then open it"
                " here. A report or an export of it can be made meanwhile (they only read it)") from None
        except OSError as exc:
            self.release()
            self.unlocked_reason = f"its lock could not be taken in {folder} ({exc})"
            log.warning("%s: opened without a lock: %s", self.path, self.unlocked_reason)
        return self

    def release(self) -> None:
        locks, self._locks, self._held = self._locks, [], set()
        for lock in reversed(locks):
            try:
                lock.release()
            except OSError as exc:  # pragma: no cover - closing an fd the OS already dropped
                log.warning("%s: releasing its lock: %s", self.path, exc)

    @property
    def held(self) -> bool:
        return bool(self._locks)

    def __enter__(self) -> VisitLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()
