"""Exceptions of :mod:`fieldapp.sync`.

Exception tree::

    SyncError                      base of everything the sync raises on purpose
    ├── OfficeLocked               another laptop holds the site's lock (and it is not stale)
    ├── InvalidOfficeData          a file or record from the office failed validation; never applied
    │   └── InvalidOfficeRecords   what the office sent holds rows the store refuses; never applied
    ├── SchemaMismatch             the visit and the office master have different tables/columns
    │   └── NewerSchema            the office site (or this laptop's base copy) has a newer store
    │                              schema than this fieldapp knows: update fieldapp
    ├── LaptopStateError           the laptop-side sync state is inconsistent; nothing was sent
    ├── VisitRefused               the visit file failed the checks run before anything is touched
    ├── OfficeNotFound             the office folder is missing or not a fieldapp office
    └── SyncCancelled              the caller cancelled before the office was written

An impossible site id raises ``ValueError``; a visit path that is not a sound, writable fieldapp
visit raises :class:`VisitRefused`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fieldapp.store.errors import RecordProblem


class SyncError(Exception):
    """Base of the errors raised by :mod:`fieldapp.sync`."""


class OfficeLocked(SyncError):
    """The office copy of the site is locked by another, live, sync."""


class InvalidOfficeData(SyncError):
    """A changeset, master file or log record from the office folder failed validation.

    The offending item is never applied; the message names it and says what was wrong.
    """


class InvalidOfficeRecords(InvalidOfficeData):
    """What the office sent (its changesets since this laptop's last sync, or a site's master
    for a checkout) holds rows the store refuses: a DBH of ``'abc'`` or -5, a uuid that is not
    a UUID, a coordinate outside the site CRS's area of use.

    Raised before any of it is applied: the visit is byte-identical, and this laptop's own
    edits stay in it, to be sent at the next sync. ``problems`` lists the refused rows as
    :class:`fieldapp.store.errors.RecordProblem` (table, fid, uuid, column, message); the message
    names the first few, and the office changeset and laptop that sent them.
    """

    def __init__(self, message: str, problems: Sequence[RecordProblem] = ()) -> None:
        super().__init__(message)
        self.problems = list(problems)


class SchemaMismatch(SyncError):
    """The visit's tables or columns differ from the office master's (after bringing both to
    the same store schema version)."""


class NewerSchema(SchemaMismatch):
    """The office site (or this laptop's base copy of it) was written by a newer fieldapp: its
    store schema version is above the newest this fieldapp knows. Raised before anything is
    written, on the laptop or in the office; the cure is to update fieldapp on this laptop."""


class LaptopStateError(SyncError):
    """The laptop's base copy / pending changeset do not agree with the visit."""


class VisitRefused(SyncError):
    """The visit file is not one this fieldapp can sync (not a visit, damaged, newer schema, a
    value the store cannot read, read-only). Raised before anything is written: the visit is
    byte-identical afterwards and no ``VISIT.gpkg.sync/`` folder is created."""


class OfficeNotFound(SyncError):
    """The office folder does not exist or is not a fieldapp office (no marker file), and the
    caller did not ask to create one (``FolderOffice(..., create=True)``, ``--init-office``)."""


class SyncCancelled(SyncError):
    """The sync was cancelled before anything was written to the office."""
