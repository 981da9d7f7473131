"""The store's errors (``StoreError`` base); see :mod:`fieldapp.store.gpkg` for when each is raised.

All importable from :mod:`fieldapp.store` and :mod:`fieldapp.store.gpkg` as well.
"""

from __future__ import annotations

import typing

__all__ = [
    "StoreError", "NotAVisitFile", "DamagedVisitFile", "RecordProblem", "InvalidRecords",
    "ReadOnlyVisitFile", "NewerVisitFile", "VisitFileExists", "VisitOnNetworkDrive", "StoreClosed",
    "WriteFailed",
]


class StoreError(Exception):
    """Base of the store's errors."""


class NotAVisitFile(StoreError):
    """The file is not a fieldapp visit GeoPackage."""


class DamagedVisitFile(StoreError):
    """SQLite reports the file damaged."""


class RecordProblem(typing.NamedTuple):
    """One refused row: its table, ``fid``, ``uuid`` (None if unreadable), column and why."""

    table: str
    fid: int
    uuid: str | None
    column: str
    message: str

    @property
    def why(self) -> str:
        """``message`` without the column's name in front (the model's words often start with
        the field already: "dbh_in: -3.0 outside ..."), for a text that names the column once."""
        prefix = f"{self.column}: "
        return self.message[len(prefix):] if self.message.startswith(prefix) else self.message

    def __str__(self) -> str:
        return f"{self.table} row fid {self.fid} (uuid {self.uuid}): {self.column}: {self.why}"


class InvalidRecords(DamagedVisitFile):
    """Rows hold values the model refuses; ``problems`` lists every one (the file is untouched)."""

    def __init__(self, message: str, problems: list[RecordProblem]) -> None:
        super().__init__(message)
        self.problems = problems


class ReadOnlyVisitFile(StoreError, PermissionError):
    """The visit file (or its folder) cannot be written, or the store was opened read-only."""


class NewerVisitFile(StoreError):
    """The file was written by a newer fieldapp schema than this version understands."""


class VisitFileExists(StoreError, FileExistsError):
    """Refusing to overwrite an existing file."""


class VisitOnNetworkDrive(StoreError):
    """A visit was to be made or recorded on a network share or drive (record on the laptop's
    own disk; a read-only open is allowed)."""


class StoreClosed(StoreError):
    """The store is closed."""


class WriteFailed(StoreError):
    """A commit failed; nothing of that command was written."""
