"""The GeoPackage SQL functions GDAL's spatial-index triggers call, for plain ``sqlite3``.

GDAL writes R-tree triggers that call ``ST_IsEmpty``, ``ST_MinX`` ... (GeoPackage 1.2, annex
F.3). pygeodiff registers them on its own connections; the sync needs them only when it writes
a feature column itself (the "first synced value wins" policy). The GeoPackage binary header
(GeoPackage 1.2, 2.1.3) is read just far enough to find the WKB, which shapely then reads.
"""

from __future__ import annotations

import sqlite3
import struct

import shapely

_ENVELOPE_DOUBLES = {0: 0, 1: 4, 2: 6, 3: 6, 4: 8}


def _split(blob: bytes | None) -> tuple[bool, tuple | None, bytes] | None:
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


def to_shapely(blob: bytes | None):
    """The shapely geometry of a GeoPackage blob, or ``None`` if it is not one."""
    parts = _split(blob)
    if parts is None:
        return None
    try:
        return shapely.from_wkb(parts[2])
    except Exception:  # shapely.errors.GEOSException: not valid WKB
        return None


def _bounds(blob):
    parts = _split(blob)
    if parts is None or parts[0]:
        return None
    if parts[1] is not None:  # envelope is minx, maxx, miny, maxy
        minx, maxx, miny, maxy = parts[1][:4]
        return minx, miny, maxx, maxy
    geom = to_shapely(blob)
    return None if geom is None or geom.is_empty else geom.bounds


def _is_empty(blob):
    parts = _split(blob)
    if parts is None:
        return None
    if parts[0]:
        return 1
    geom = to_shapely(blob)
    return 1 if geom is None or geom.is_empty else 0


def register(conn: sqlite3.Connection) -> None:
    """Register ``ST_IsEmpty``, ``ST_MinX``, ``ST_MaxX``, ``ST_MinY``, ``ST_MaxY`` on ``conn``."""
    conn.create_function("ST_IsEmpty", 1, _is_empty, deterministic=True)
    for name, i in (("ST_MinX", 0), ("ST_MinY", 1), ("ST_MaxX", 2), ("ST_MaxY", 3)):
        conn.create_function(
            name, 1, lambda b, i=i: (lambda bb: None if bb is None else bb[i])(_bounds(b)),
            deterministic=True,
        )
