"""What the laptop side needs from an office: the :class:`OfficeStore` interface and the records
it trades in (:class:`LogEntry`, :class:`SiteSchema`, :class:`LockOwner`, :class:`SchemaChange`).

The laptop side (:mod:`fieldapp.sync.engine`, :mod:`fieldapp.sync.phases`) talks to an office
only through this interface. Implementations: :class:`fieldapp.sync.office.FolderOffice` (a plain
folder: network share, USB drive) and :class:`fieldapp.sync.pgoffice.PostgisOffice` (a
PostgreSQL / PostGIS database); :func:`fieldapp.sync.offices.open_office` picks one.
"""

from __future__ import annotations

import abc
import contextlib
import os
import re
import socket
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from fieldapp.store.paths import is_reserved_name
from fieldapp.store.tagblock import TAG_BLOCK_SIZE  # tree tags per checkout (the store reads the block)
from fieldapp.sync import schemas

#: Site ids become folder names: letters, digits, ``.``, ``_``, ``-``; no leading dot.
SITE_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")



def tag_block_key(laptop_id: str, after: int | None) -> str:
    """Where an office keeps a laptop's block: its first under its laptop id, the one given when
    block ``after`` was used up under ``<laptop id>/after-<after>`` (so an office's existing
    table or file of one block per laptop keeps its layout).

    >>> tag_block_key("ab12", None), tag_block_key("ab12", 3)
    ('ab12', 'ab12/after-3')
    """
    return laptop_id if after is None else f"{laptop_id}/after-{after}"


def next_free_block(given: Iterable[int], highest_tag: int | None) -> int:
    """The next block to give: above every block given and above the block of the highest tag
    on a tree of the site (a tree tallied past a used-up block, or typed by hand), so no new
    block holds a tag already nailed on a tree.

    >>> next_free_block([1, 2, 3], 2004), next_free_block([1, 2], 5120), next_free_block([], None)
    (4, 6, 1)
    """
    top = max(given, default=0)
    return max(top, (highest_tag or 0) // TAG_BLOCK_SIZE) + 1

#: ``step(message)``: a sub-step of an office write, for progress reports.
StepCallback = Callable[[str], None]
SchemaChange = schemas.SchemaChange


def utc_now_iso() -> str:
    """Current UTC time, ISO 8601 with ``Z`` (millisecond precision)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def check_site_id(site_id: str) -> str:
    """Return ``site_id`` if it is a safe folder name on Windows too, else raise ``ValueError``.

    A site id is the office's folder ``sites/<site_id>`` and must name the same site on every
    laptop, so it is refused, never changed: besides the pattern (:data:`SITE_ID_RE`), a name
    Windows reserves (``CON``, ``nul.x``, ``COM1``..., :func:`fieldapp.store.paths.
    is_reserved_name`) and a trailing dot (Windows drops it: ``a.`` and ``a`` would be one
    folder) are refused."""
    if not isinstance(site_id, str) or not SITE_ID_RE.match(site_id) or ".." in site_id:
        raise ValueError(
            f"site id {site_id!r} is not allowed: use letters, digits, '.', '_' and '-'"
            " (no leading dot, no '..', at most 100 characters)"
        )
    if is_reserved_name(site_id) or site_id.endswith("."):
        raise ValueError(
            f"site id {site_id!r} is not allowed: Windows cannot make a folder of that name"
            " (CON, PRN, AUX, NUL, COM1-9 and LPT1-9 are its devices, a trailing dot is dropped);"
            " give the site another id"
        )
    return site_id


@dataclass(frozen=True)
class LogEntry:
    """One changeset applied to a site's master, as recorded in the office log.

    ``seq`` numbers the changesets 1, 2, 3 ... in the order applied; ``sha256`` and
    ``size_bytes`` describe the changeset file exactly as the office stored it.
    """

    seq: int
    changeset_id: str
    laptop_id: str
    synced_by: str | None
    applied_utc: str
    sha256: str | None
    size_bytes: int | None


@dataclass(frozen=True)
class FastForward:
    """What a laptop offers with a changeset so the office need not replay it row by row.

    ``base`` is the laptop's copy of the master the changeset was made against (its ``theirs``:
    the base copy plus every office changeset pulled), ``result`` that copy with the changeset
    applied (the laptop's ``new_master``, holding the changeset's log row with its SHA-256 and
    size). An office whose master holds exactly the pages of ``base`` (nothing else wrote it
    since: a site's first sync, or the same laptop syncing again) may take ``result`` as its new
    master instead of applying the changeset; any other office applies the changeset."""

    base: Path
    result: Path


@dataclass(frozen=True)
class SiteSchema:
    """The store schema of a site's master: ``version`` (``None`` for a GeoPackage that is not
    a fieldapp visit) and the schema log, oldest first (see :class:`SchemaChange`)."""

    version: int | None
    changes: tuple[SchemaChange, ...] = ()


@dataclass(frozen=True)
class LockOwner:
    """Who holds a site lock: written into the lock file as JSON."""

    host: str
    pid: int
    laptop_id: str
    started_utc: str
    token: str

    @classmethod
    def here(cls, laptop_id: str = "") -> LockOwner:
        """An owner for this process on this machine, with a fresh token."""
        return cls(socket.gethostname(), os.getpid(), laptop_id, utc_now_iso(), uuid.uuid4().hex)


class OfficeStore(abc.ABC):
    """What the laptop side needs from an office. Implementations: :class:`FolderOffice`,
    :class:`~fieldapp.sync.pgoffice.PostgisOffice`.

    All methods taking ``site_id`` raise ``ValueError`` for an unsafe id and
    :class:`~fieldapp.sync.errors.InvalidOfficeData` for office data that fails validation.
    """

    @abc.abstractmethod
    def describe(self) -> str:
        """A short human description (shown in reports and messages)."""

    def check_available(self) -> None:  # noqa: B027 - a default that checks nothing, not abstract
        """Raise :class:`~fieldapp.sync.errors.OfficeNotFound` if the office cannot be reached
        (or is not an office); called before a sync writes anything. Default: nothing to check."""

    def check_writable(self, site_id: str) -> None:  # noqa: B027 - a default that checks nothing
        """Raise :class:`~fieldapp.sync.errors.InvalidOfficeData` if the site cannot be written
        now (a damaged master, another program writing it); called before a sync writes
        anything. Default: nothing to check."""

    def tag_block(self, site_id: str, laptop_id: str, *, after: int | None = None) -> int | None:
        """The tree-tag block of this laptop's copy of the site, given out by the office the first
        time it asks (the next unused one; caller holds the lock): block ``n`` holds the tags
        ``n * TAG_BLOCK_SIZE`` to ``n * TAG_BLOCK_SIZE + TAG_BLOCK_SIZE - 1``, so laptops tallying
        the same site offline never number two trees alike. ``after``: the laptop's block ``after``
        is used up (its tag ``after * TAG_BLOCK_SIZE + TAG_BLOCK_SIZE - 1`` is on a tree): a new
        block for it, the same one each time it asks again with that ``after`` (a sync killed
        before the laptop kept it). A new block is above every block given and every tag on a
        tree of the site (:func:`next_free_block`). ``None``: this office gives none."""
        return None

    @abc.abstractmethod
    def lock(self, site_id: str, owner: LockOwner, *, wait_s: float = 10.0) -> contextlib.AbstractContextManager[None]:
        """Context manager holding the site's write lock; raises ``OfficeLocked`` after ``wait_s``."""

    @abc.abstractmethod
    def heartbeat(self, site_id: str, owner: LockOwner) -> None:
        """Tell the office the lock holder is still alive (called at every sync step)."""

    @abc.abstractmethod
    def list_sites(self) -> list[tuple[str, str | None, int | None]]:
        """The office's sites as ``(site id, site name or None, head seq or None)``, by id (what
        ``fieldapp sync --list-sites`` and a checkout by name read). Raises
        :class:`~fieldapp.sync.errors.OfficeNotFound` when there is no office there."""

    @abc.abstractmethod
    def head(self, site_id: str) -> int | None:
        """Highest applied ``seq`` of the site (0: created, nothing applied), ``None``: no site."""

    @abc.abstractmethod
    def log(self, site_id: str, after_seq: int = 0) -> list[LogEntry]:
        """Log entries with ``seq > after_seq``, in order, validated (contiguous, sane ids)."""

    @abc.abstractmethod
    def fetch_changeset(self, site_id: str, entry: LogEntry, dest: Path) -> None:
        """Copy the changeset of ``entry`` to ``dest`` after checking name, path, size and hash."""

    @abc.abstractmethod
    def fetch_master(self, site_id: str, dest: Path) -> None:
        """Copy the site's master GeoPackage to ``dest`` (validated)."""

    @abc.abstractmethod
    def schema(self, site_id: str) -> SiteSchema | None:
        """The master's store schema version and schema log; ``None``: no such site."""

    @abc.abstractmethod
    def migrate(
        self, site_id: str, change: SchemaChange, statements: list[str], *,
        check: Callable[[Path], None] | None = None, step: StepCallback | None = None,
    ) -> None:
        """Bring the master from ``change.from_version`` to ``change.schema_version`` with
        ``statements`` (and its ``fieldapp_meta`` version row), recording ``change`` in the
        schema log, atomically; ``change.after_seq`` must be the head and ``from_version`` the
        master's version. ``check(path)`` is called on the migrated copy before it replaces the
        master (raise to refuse). Caller holds the lock."""

    @abc.abstractmethod
    def create_site(self, site_id: str, schema_gpkg: Path, *, site_name: str = "") -> None:
        """Create a site whose master starts as ``schema_gpkg`` (empty tables, seq 0);
        ``site_name`` (the visit's) names a folder office's site folder."""

    @abc.abstractmethod
    def apply(
        self, site_id: str, changeset: Path, entry: LogEntry, *, step: StepCallback | None = None,
        fast_forward: FastForward | None = None,
    ) -> None:
        """Apply ``changeset`` as log entry ``entry`` (``entry.seq`` must be head + 1), atomically.

        The changeset carries its own log row; after this returns the master holds the data and
        the log row together, or (on any error or interruption) neither. ``fast_forward``: see
        :class:`FastForward` (an office may ignore it); the changeset is stored in the office's
        log either way.
        """
