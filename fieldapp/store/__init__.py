"""The visit GeoPackage: crash-safe, complete, readable by GDAL/QGIS (see :mod:`.gpkg`).

>>> # store = create_visit("site.gpkg", Visit.new("Smith lot"))  # new file, mirrored live
>>> # store = open_visit("site.gpkg"); visit = store.visit        # load, then mirrored live
>>> # store = open_visit("site.gpkg", readonly=True)  # report / export / sync: never writes
>>> # store.checkpoint()  # before export / sync;  store.close()  # .gpkg alone is complete
"""

from .errors import (
    DamagedVisitFile,
    InvalidRecords,
    NewerVisitFile,
    NotAVisitFile,
    ReadOnlyVisitFile,
    StoreClosed,
    StoreError,
    VisitFileExists,
    VisitOnNetworkDrive,
    WriteFailed,
)
from .gpkg import VisitStore, create_visit, inspect, open_visit
from .schema import SCHEMA_VERSION
from .visitlock import VisitInUse, VisitLock

__all__ = [
    "DamagedVisitFile",
    "InvalidRecords",
    "NewerVisitFile",
    "NotAVisitFile",
    "ReadOnlyVisitFile",
    "StoreClosed",
    "StoreError",
    "VisitFileExists",
    "VisitOnNetworkDrive",
    "VisitInUse",
    "VisitLock",
    "VisitStore",
    "WriteFailed",
    "create_visit",
    "inspect",
    "open_visit",
    "SCHEMA_VERSION",
]
