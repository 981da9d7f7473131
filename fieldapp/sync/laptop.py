"""The laptop's sync state, kept beside each visit in ``VISIT.gpkg.sync/``::

    state.json            laptop id, site id
    base.gpkg             the office master as of this laptop's last sync (the common base)
    validated.json        SHA-256 of the visit file as it last passed the full visit check
    pending/              a sync between "prepared" and "finished":
        pending.json      written last; without it the folder is leftovers and is deleted
        changeset.geodiff the outgoing changeset (kept until the office has applied it)
        new_master.gpkg   the master as it is once the office applied it
        snapshot.gpkg     the visit as it was when the changeset was computed
    work/                 scratch, emptied at each sync

How a sync uses it: ``docs/sync.md``.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import sqlite3
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fieldapp.sync.errors import LaptopStateError
from fieldapp.sync.files import connect, write_json_durably
from fieldapp.sync.officestore import check_site_id, utc_now_iso
from fieldapp.sync.statepaths import base_copy, sync_dir
from fieldapp.sync.visitcheck import _checker_version

STATE_FORMAT = "fieldapp-sync-laptop"
VALIDATED_FORMAT = "fieldapp-sync-validated"


@dataclass
class _Pending:
    """``pending/pending.json``: a sync prepared (``push``: changeset ready to send; ``pull``:
    the office's changes ready to apply) but not yet finished on this laptop."""

    kind: str  # "push" or "pull"
    target_seq: int
    changeset_id: str | None = None
    sha256: str | None = None
    size_bytes: int | None = None
    laptop_id: str = ""
    synced_by: str | None = None
    applied_utc: str = ""
    counts: dict[str, dict[str, int]] = field(default_factory=dict)


class LaptopState:
    """The sync state kept beside one visit (``VISIT.gpkg.sync/``)."""

    def __init__(self, visit: Path) -> None:
        self.visit = Path(visit).absolute()
        self.dir = sync_dir(self.visit)
        self.state_file = self.dir / "state.json"
        self.base = base_copy(self.visit)
        self.pending_dir = self.dir / "pending"
        self.pending_json = self.pending_dir / "pending.json"
        self.pending_changeset = self.pending_dir / "changeset.geodiff"
        self.pending_master = self.pending_dir / "new_master.gpkg"
        self.pending_snapshot = self.pending_dir / "snapshot.gpkg"
        self.work = self.dir / "work"
        self.validated = self.dir / "validated.json"
        self.laptop_id = ""
        self.site_id = ""
        self._stored: dict[str, Any] = {}      # state.json as read or last written

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
            self._write_state(data.get("tag_block"))

    def fresh_work(self) -> None:
        """An empty scratch folder ``work/`` for this sync. Called with the office lock held:
        a second sync of the same visit started meanwhile (the app's Sync and a CLI run) waits
        for the lock and never empties the scratch folder of the one running."""
        if self.work.exists():
            shutil.rmtree(self.work)
        self.work.mkdir()

    def _write_state(self, tag_block: int | None) -> None:
        data = {"format": STATE_FORMAT, "version": 1, "laptop_id": self.laptop_id, "site_id": self.site_id}
        if tag_block is not None:
            data["tag_block"] = tag_block
        write_json_durably(self.state_file, data)
        self._stored = data

    @property
    def tag_block(self) -> int | None:
        """The tree-tag block the office gave this laptop copy (see :func:`fieldapp.store.tagblock.tag_range_of`)."""
        block = self._stored.get("tag_block")
        return block if isinstance(block, int) and block >= 1 else None

    def record_tag_block(self, block: int | None) -> None:
        """Keep the office's tag block in ``state.json`` (after :meth:`load`); ``None``: nothing."""
        if block is not None and block != self.tag_block:
            self._write_state(block)

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
            with contextlib.suppress(sqlite3.Error):
                row = conn.execute(f"SELECT value FROM {table} WHERE key = ?", (key,)).fetchone()
                if row and isinstance(row[0], str) and row[0].strip():
                    return row[0].strip()
    return Path(visit).stem


def tag_block_used_up(visit: Path, block: int) -> bool:
    """Whether tag block ``block`` of this laptop copy is used up: its last tag
    (``block * 1000 + 999``) is on a tree of ``visit`` (the model numbers new trees after the
    highest tag in the block, so that tag is the block's end). False for a visit without trees.

    Raises ``sqlite3.Error`` for an unreadable visit.
    """
    from fieldapp.store.tagblock import TAG_BLOCK_SIZE

    last = block * TAG_BLOCK_SIZE + TAG_BLOCK_SIZE - 1
    with contextlib.closing(connect(visit, readonly=True)) as conn:
        if "tag" not in {r[1] for r in conn.execute("PRAGMA table_info(tree)")}:
            return False
        return conn.execute("SELECT 1 FROM tree WHERE tag = ? LIMIT 1", (last,)).fetchone() is not None
