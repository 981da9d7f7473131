"""A point's GeoPackageBinary straight from its x, y: the store's hot path, one a fix.

Every fix becomes a track point committed at once (10 a second all day); the general path
(:func:`fieldapp.store.schema.gpkg_blob`) made a shapely Point, wrote its WKB through GEOS, and
the R-tree trigger read that WKB back through GEOS for its envelope (a point's header carries
none), about 0.1 ms of the UI thread a fix (issue 33). Here both ends are a ``struct`` call, and
the bytes are the same: little-endian ISO WKB, a header with no envelope, as ``gpkg_blob``
writes for a point.

>>> blob = point_blob(512_345.25, 4_801_234.5, 3070)
>>> blob[:4], point_xy(blob)
(b'GP\\x00\\x01', (512345.25, 4801234.5))
"""

from __future__ import annotations

import struct

__all__ = ["point_blob", "point_xy"]

#: GeoPackageBinary header (magic, version 0, flags: little endian, no envelope; srs_id) and a
#: little-endian 2D WKB point (byte order 1, type 1, x, y): 29 bytes.
_POINT = struct.Struct("<2sBBiBIdd")
_FLAGS = 0b00000001


def point_blob(x: float, y: float, srs_id: int) -> bytes:
    """The GeoPackageBinary of the point (``x``, ``y``) in SRS ``srs_id`` (finite coordinates:
    the model validated them)."""
    return _POINT.pack(b"GP", 0, _FLAGS, srs_id, 1, 1, x, y)


def point_xy(blob: object) -> tuple[float, float] | None:
    """(x, y) of a blob :func:`point_blob` (or the general writer) made for a 2D point; None for
    anything else (another geometry, an envelope in the header, big-endian, not a blob), which
    the caller then reads the general way."""
    if type(blob) is not bytes or len(blob) != _POINT.size:
        return None
    magic, _version, flags, _srs, order, kind, x, y = _POINT.unpack(blob)
    if magic != b"GP" or flags != _FLAGS or order != 1 or kind != 1:
        return None
    return x, y
