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

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # the names as their modules type them (at run time they load on first use)
    from fieldapp.sync.conflicts import Conflict, ConflictKind, ConflictPolicy, read_conflicts
    from fieldapp.sync.engine import checkout, sync
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
    from fieldapp.sync.office import FolderOffice
    from fieldapp.sync.offices import is_postgres_url, open_office
    from fieldapp.sync.pgoffice import PostgisOffice
    from fieldapp.sync.progress import CancelToken

# Names load on first use (PEP 562), so importing one light piece (``fieldapp.sync.progress``
# for the window's cancel flag) does not pull in the engine and pygeodiff at start-up.
_HOME = {
    **dict.fromkeys(("Conflict", "ConflictKind", "ConflictPolicy", "read_conflicts"), "fieldapp.sync.conflicts"),
    **dict.fromkeys(("checkout", "sync"), "fieldapp.sync.engine"),
    **dict.fromkeys(("InvalidOfficeData", "InvalidOfficeRecords", "LaptopStateError", "NewerSchema",
                     "OfficeLocked", "OfficeNotFound", "SchemaMismatch", "SyncCancelled", "SyncError",
                     "VisitRefused"), "fieldapp.sync.errors"),
    "FolderOffice": "fieldapp.sync.office",
    "PostgisOffice": "fieldapp.sync.pgoffice",
    "CancelToken": "fieldapp.sync.progress",
    **dict.fromkeys(("open_office", "is_postgres_url"), "fieldapp.sync.offices"),
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'fieldapp.sync' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME))


__all__ = [
    "CancelToken", "Conflict", "ConflictKind", "ConflictPolicy", "FolderOffice", "InvalidOfficeData",
    "InvalidOfficeRecords", "LaptopStateError", "NewerSchema", "OfficeLocked", "OfficeNotFound", "PostgisOffice",
    "SchemaMismatch", "SyncCancelled", "SyncError", "VisitRefused", "checkout", "is_postgres_url", "open_office",
    "read_conflicts", "sync",
]
