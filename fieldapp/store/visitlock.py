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
cut leaves no lock to clear. Its file is not put beside the visit (nothing for the crew to copy
or wonder about) but in the user's cache folder (platformdirs), named by a hash of the visit's
real path (``os.path.realpath``, case-folded where the file system is): every way of naming one
file finds the same lock. A visit on a network share opened from two laptops is not covered
(SQLite's WAL needs one machine anyway). Where the cache folder cannot be written, the visit
opens without a lock (logged): recording is never refused for want of a lock file.
"""

from __future__ import annotations

import hashlib
import logging
import os
from pathlib import Path

from .errors import StoreError

__all__ = ["VisitInUse", "VisitLock", "lock_dir"]

log = logging.getLogger(__name__)


class VisitInUse(StoreError):
    """The visit is open for recording (or being synced) in another fieldapp window or program."""


def lock_dir() -> Path:
    """The folder of the visits' lock files (``FIELDAPP_LOCK_DIR``, else the user's cache)."""
    given = os.environ.get("FIELDAPP_LOCK_DIR")
    if given:
        return Path(given)
    import platformdirs

    return Path(platformdirs.user_cache_dir("fieldapp", appauthor=False)) / "visit-locks"


class VisitLock:
    """The lock of the visit at ``path``.

    ``acquire()`` raises :class:`VisitInUse` when another holder has it; ``release()`` is
    idempotent. A context manager too.
    """

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        real = os.path.normcase(os.path.realpath(self.path))
        self.file = lock_dir() / (hashlib.sha256(real.encode("utf-8", "surrogatepass")).hexdigest()[:32] + ".lock")
        self._lock = None

    def acquire(self) -> "VisitLock":
        from filelock import FileLock, Timeout

        if self._lock is not None:
            return self
        try:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            lock = FileLock(str(self.file), timeout=0, thread_local=False, is_singleton=False)
            lock.acquire()
        except Timeout:
            raise VisitInUse(
                f"{self.path} is open in another fieldapp window or program (recording into it or"
                " syncing it): close it there first, then open it here. A report or an export of"
                " it can be made meanwhile (they only read it)") from None
        except OSError as exc:
            log.warning("%s: opened without a lock (%s: %s)", self.path, self.file, exc)
            return self
        self._lock = lock
        return self

    def release(self) -> None:
        lock, self._lock = self._lock, None
        if lock is not None:
            try:
                lock.release()
            except OSError as exc:  # pragma: no cover - closing an fd the OS already dropped
                log.warning("%s: releasing its lock: %s", self.path, exc)

    @property
    def held(self) -> bool:
        return self._lock is not None

    def __enter__(self) -> "VisitLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()
