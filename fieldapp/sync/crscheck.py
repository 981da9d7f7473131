"""The office checks a visit's CRS and its coordinates against the site before taking it in
(issue 30, item 12).

A crafted visit could bring geometry in another CRS: its site row naming another CRS than the
office's site (every coordinate of the site then read in the wrong one), a geometry whose
GeoPackage header names another ``srs_id`` than its layer, or coordinates far outside the site
CRS's area of use (longitude/latitude degrees stored in a UTM layer). :func:`check_site_crs`
refuses each, by name, on the copy about to become the office master (the changeset applied to
a copy, or the laptop's result a fast-forward would take).
"""

from __future__ import annotations

import contextlib
import math
import sqlite3
import struct
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from fieldapp.sync.files import connect
from fieldapp.sync.files import quote_identifier as _qi

if TYPE_CHECKING:
    from fieldapp.geo import SiteFrame

_SITE = "site"
#: How far (metres) from everything the office already holds for the site new geometry may lie:
#: a site is a stand, a reach, a wetland -- a few kilometres; a coordinate in another CRS
#: (degrees in a UTM layer, another zone's false easting) lands hundreds of kilometres away.
SITE_REACH_M = 50_000.0


def site_crs_in(conn: sqlite3.Connection) -> str | None:
    """The CRS the site row names (``site.crs``), ``None`` without one (a first sync's empty
    master, a generic GeoPackage)."""
    try:
        row = conn.execute(f"SELECT crs FROM {_SITE} WHERE crs IS NOT NULL AND crs != '' LIMIT 1").fetchone()
    except sqlite3.Error:
        return None
    return None if row is None else str(row[0])


def _header(blob: bytes) -> tuple[int, int] | None:
    """(srs_id, header length) of a GeoPackage geometry blob; None when it is not one."""
    if len(blob) < 8 or blob[:2] != b"GP":
        return None
    flags = blob[3]
    srs_id = struct.unpack("<i" if flags & 1 else ">i", blob[4:8])[0]
    return srs_id, 8 + (0, 32, 48, 48, 64)[min((flags >> 1) & 7, 4)]


def problems(candidate: sqlite3.Connection, master: sqlite3.Connection | None) -> list[str]:
    """What is wrong with the candidate's CRS or coordinates, in words (empty: nothing).

    1. its site CRS is the master's (when the master names one);
    2. every layer's ``srs_id`` (``gpkg_geometry_columns``) is the site CRS's EPSG code, and
       every geometry's header names its layer's ``srs_id``;
    3. every geometry's coordinates lie within the site CRS's area of use
       (:attr:`fieldapp.geo.SiteFrame.bounds`, widened as the store widens it) and, when the
       master already holds geometry, within :data:`SITE_REACH_M` of its extent (read from its
       R-trees): degrees stored in a UTM layer fall inside UTM's widened area of use, but
       hundreds of kilometres from the site.
    """
    from fieldapp.geo import SiteFrame

    found: list[str] = []
    crs = site_crs_in(candidate)
    if crs is None:
        return found
    theirs = site_crs_in(master) if master is not None else None
    if theirs is not None and theirs != crs:
        found.append(f"its site CRS is {crs!r}, the office's site is in {theirs!r}")
        return found
    try:
        frame = SiteFrame(crs)
    except Exception as exc:  # noqa: BLE001 - a CRS pyproj cannot read is refused in words
        return [f"its site CRS {crs!r} is not one fieldapp can read ({exc})"]
    want = frame.srs_id
    bounds = site_bounds(frame, _site_extent(master) if master is not None else None)
    try:
        layers = candidate.execute("SELECT table_name, column_name, srs_id FROM gpkg_geometry_columns").fetchall()
    except sqlite3.Error:
        return found
    for table, column, srs_id in layers:
        if want is not None and srs_id != want:
            found.append(f"layer {table} is in srs_id {srs_id}, the site CRS is EPSG:{want}")
            continue
        cur = candidate.execute(f"SELECT fid, {_qi(column)} FROM {_qi(table)} WHERE {_qi(column)} IS NOT NULL")
        while chunk := cur.fetchmany(50_000):
            why = chunk_problem(table, srs_id, chunk, bounds, frame.crs.name)
            if why:
                found.append(why)
                break
    return found


def site_bounds(frame: SiteFrame, near: tuple[float, float, float, float] | None
                ) -> tuple[float, float, float, float]:
    """(xmin, ymin, xmax, ymax), in the site CRS's units, where new geometry of the site may lie:
    the CRS's area of use (``frame.bounds``; unbounded without one), narrowed to within
    :data:`SITE_REACH_M` of ``near`` (the extent of what the office already holds) when given."""
    bounds = frame.bounds or (-math.inf, -math.inf, math.inf, math.inf)
    if near is not None:
        unit = frame.crs.axis_info[0].unit_conversion_factor if frame.crs.axis_info else 1.0
        reach = SITE_REACH_M / (unit or 1.0)
        bounds = (max(bounds[0], near[0] - reach), max(bounds[1], near[1] - reach),
                  min(bounds[2], near[2] + reach), min(bounds[3], near[3] + reach))
    return bounds


def _site_extent(conn: sqlite3.Connection) -> tuple[float, float, float, float] | None:
    """(xmin, ymin, xmax, ymax) of every geometry ``conn`` holds, from its R-trees; None when
    it holds none (a first sync's empty master) or has no R-tree."""
    boxes = []
    names = [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rtree\\_%' ESCAPE '\\'"
        " AND sql LIKE 'CREATE VIRTUAL TABLE%'")]
    for name in names:
        with contextlib.suppress(sqlite3.Error):
            box = conn.execute(f"SELECT min(minx), min(miny), max(maxx), max(maxy) FROM {_qi(name)}").fetchone()
            if box is not None and None not in box:
                boxes.append(box)
    if not boxes:
        return None
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def chunk_problem(table: str, srs_id: int, rows: list[tuple[int, object]],
                   bounds: tuple[float, float, float, float], crs_name: str) -> str | None:
    """The first row of ``rows`` ((fid, blob) of one layer) whose header names another srs_id
    or whose coordinates lie outside ``bounds``, in words; geometries the store cannot read are
    left to the store's own check."""
    import shapely

    from fieldapp.store.schema import parse_gpkg_blobs

    box = _plain_point_bounds(rows, srs_id)
    if box is None:
        for fid, blob in rows:
            head = _header(bytes(blob)) if isinstance(blob, bytes) else None
            if head is None or head[0] != srs_id:
                return (f"{table} fid {fid}: its geometry is in srs_id {head[0] if head else '?'},"
                        f" its layer in {srs_id}")
        geoms = [g if not isinstance(g, ValueError) else None for g in parse_gpkg_blobs([b for _f, b in rows])]
        box = shapely.bounds(np.array(geoms, dtype=object))   # NaN for None / empty
    with np.errstate(invalid="ignore"):
        out = ((box[:, 0] < bounds[0]) | (box[:, 1] < bounds[1])
               | (box[:, 2] > bounds[2]) | (box[:, 3] > bounds[3]))
    if not out.any():
        return None
    i = int(np.argmax(out))
    x0, y0, x1, y1 = box[i]
    return (f"{table} fid {rows[i][0]}: x {x0:.6g} to {x1:.6g}, y {y0:.6g} to {y1:.6g} lie outside"
            f" the area of use of {crs_name!r} (the site CRS) or far from the site's other records")


#: a GeoPackage point as the store writes every one (the track's 288,000 a day): header "GP",
#: version 0, flags 1 (little endian, no envelope, not empty), srs_id; then little-endian WKB
#: Point (byte order 1, type 1) x, y
_POINT_BYTES = 8 + 21
_POINT_HEAD = np.array([71, 80, 0, 1], dtype=np.uint8)


def _plain_point_bounds(rows: list[tuple[int, object]], srs_id: int) -> np.ndarray | None:
    """(xmin, ymin, xmax, ymax) of each row's geometry when every blob of ``rows`` is a point
    of :data:`_POINT_BYTES` in the store's own form naming ``srs_id``, read from the bytes at
    once (what :func:`_header` and ``parse_gpkg_blobs`` give such a point, without a Python step
    per row: a day's track checked in a tenth of the time); None when any one is not, and
    :func:`chunk_problem` reads them one by one, naming the first wrong one."""
    blobs = [b for _f, b in rows if isinstance(b, bytes)]
    if not blobs or len(blobs) != len(rows) or set(map(len, blobs)) != {_POINT_BYTES}:
        return None
    a = np.frombuffer(b"".join(blobs), dtype=np.uint8).reshape(len(blobs), _POINT_BYTES)
    srs = a[:, 4:8].copy().view("<i4")[:, 0]
    kind = a[:, 9:13].copy().view("<u4")[:, 0]
    if not ((a[:, :4] == _POINT_HEAD).all() and (srs == srs_id).all() and (a[:, 8] == 1).all()
            and (kind == 1).all()):
        return None
    xy = a[:, 13:29].copy().view("<f8")
    return np.column_stack([xy, xy])


def check_site_crs(candidate: Path, master: sqlite3.Connection | None, *, what: str,
                   error: type[Exception]) -> None:
    """Refuse ``candidate`` (read-only) when :func:`problems` finds anything.

    Raises
    ------
    error
        "<what> holds geometry in the wrong CRS: ...; the master is unchanged".
    """
    with contextlib.closing(connect(Path(candidate), readonly=True)) as conn:
        found = problems(conn, master)
    if found:
        raise error(f"{what} holds geometry in the wrong CRS: {'; '.join(found[:5])}. The office"
                    " master is unchanged; a visit's geometry must be in its site's CRS")
