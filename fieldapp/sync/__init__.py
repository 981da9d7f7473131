"""Office sync: bring site visits home from several laptops without losing an edit.

Public API (no Qt; safe to run on a worker thread)::

    from fieldapp.sync import sync, FolderOffice, CancelToken, ConflictPolicy, read_conflicts

    report = sync("visit.gpkg", FolderOffice("/media/usb/office"),  # create=True: a new office
                  progress=lambda fraction, message: ..., cancel=token)
    print(report.format())
    for c in read_conflicts("visit.gpkg", unresolved_only=True): ...

Pieces: :mod:`fieldapp.sync.engine` (laptop side, :func:`sync`, :func:`checkout`; its phases in
:mod:`fieldapp.sync.phases`), :mod:`fieldapp.sync.officestore` (the :class:`OfficeStore`
interface), :mod:`fieldapp.sync.office` (:class:`FolderOffice`), :mod:`fieldapp.sync.errors`
(the exception tree), :mod:`fieldapp.sync.cli` (``fieldapp sync``); the module map and how a
sync goes: ``docs/sync.md``. Diffing, rebasing and applying are pygeodiff's.
"""

from fieldapp.sync.engine import (
    CancelToken,
    Conflict,
    ConflictKind,
    ConflictPolicy,
    LayerCounts,
    SyncReport,
    check_visit_file,
    checkout,
    read_conflicts,
    sync,
)
from fieldapp.sync.errors import (
    InvalidOfficeData,
    InvalidOfficeRecords,
    LaptopStateError,
    NewerSchema,
    OfficeLocked,
    OfficeNotFound,
    SchemaMismatch,
    SyncCancelled,
    SyncError,
    VisitRefused,
)
from fieldapp.sync.office import FolderOffice, LockOwner, LogEntry, OfficeStore, SchemaChange, SiteSchema

__all__ = [
    "CancelToken", "Conflict", "ConflictKind", "ConflictPolicy", "FolderOffice",
    "InvalidOfficeData", "InvalidOfficeRecords", "LaptopStateError", "LayerCounts", "LockOwner", "LogEntry",
    "NewerSchema", "OfficeLocked", "OfficeNotFound", "OfficeStore", "SchemaChange", "SchemaMismatch",
    "SiteSchema", "SyncCancelled", "SyncError", "SyncReport", "VisitRefused", "check_visit_file", "checkout",
    "read_conflicts", "sync",
]
