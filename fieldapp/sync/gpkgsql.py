"""The GeoPackage SQL functions GDAL's spatial-index triggers call, for plain ``sqlite3``.

GDAL writes R-tree triggers that call ``ST_IsEmpty``, ``ST_MinX`` ... (GeoPackage 1.2, annex
F.3), and so does the store (:mod:`fieldapp.store.spatial`). pygeodiff registers them on its own
connections; every connection the sync opens registers them too
(:func:`fieldapp.sync.files.connect`). The GeoPackage binary header (GeoPackage 1.2, 2.1.3) is
read just far enough to find the WKB, which shapely then reads.
"""

from __future__ import annotations

import sqlite3
import struct

import shapely
from shapely.geometry.base import BaseGeometry

from fieldapp.store.spatial import register_st_functions

_ENVELOPE_DOUBLES = {0: 0, 1: 4, 2: 6, 3: 6, 4: 8}


def _split(blob: bytes | None) -> tuple[bool, tuple[float, ...] | None, bytes] | None:
    """``(is_empty, envelope or None, wkb)`` of a GeoPackage geometry blob, or ``None``."""
    if not isinstance(blob, (bytes, memoryview)) or len(blob) < 8 or bytes(blob[:2]) != b"GP":
        return None
    blob = bytes(blob)
    flags = blob[3]
    order = "<" if flags & 0x01 else ">"
    envelope_kind = (flags >> 1) & 0x07
    n = _ENVELOPE_DOUBLES.get(envelope_kind)
    if n is None:
        return None
    envelope = struct.unpack_from(f"{order}{n}d", blob, 8) if n else None
    return bool(flags & 0x10), envelope, blob[8 + 8 * n :]


def to_shapely(blob: bytes | None) -> BaseGeometry | None:
    """The shapely geometry of a GeoPackage blob, or ``None`` if it is not one."""
    parts = _split(blob)
    if parts is None:
        return None
    try:
        geom: BaseGeometry = shapely.from_wkb(parts[2])
        return geom
    except Exception:  # shapely.errors.GEOSException: not valid WKB
        return None


def register(conn: sqlite3.Connection) -> sqlite3.Connection:
    """Register ``ST_IsEmpty``, ``ST_MinX``, ``ST_MaxX``, ``ST_MinY``, ``ST_MaxY`` on ``conn``
    (the store's own, :func:`fieldapp.store.spatial.register_st_functions`); returns ``conn``."""
    return register_st_functions(conn)
