"""A point's GeoPackageBinary from x, y without shapely (fieldapp.store.pointblob): the same
bytes as the general writer, read back by the R-tree triggers, and every fix's track point
committed with it lands in the file and its spatial index where it stood."""

from __future__ import annotations

import sqlite3
import struct
from datetime import timedelta

import pytest
from shapely.geometry import LineString, Point

from fieldapp.store import create_visit, open_visit
from fieldapp.store.pointblob import point_blob, point_xy
from fieldapp.store.schema import gpkg_blob, parse_gpkg_blob
from fieldapp.store.spatial import envelope
from fieldapp.survey import Visit
from tests.track_sample import T0, Fix


@pytest.mark.parametrize("x, y", [(512_345.25, 4_801_234.5), (-0.0, 1e-300), (-123_456_789.125, 0.1),
                                  (1.7976931348623157e308, -5e-324)])
def test_the_same_bytes_as_the_general_writer(x, y):
    blob = point_blob(x, y, 32616)
    assert blob == gpkg_blob(Point(x, y), 32616)
    assert point_xy(blob) == (x, y)
    assert parse_gpkg_blob(blob).coords[0] == (x, y)


def test_anything_but_a_plain_2d_point_is_left_to_the_general_reader():
    line = gpkg_blob(LineString([(1, 2), (4, 8)]), 3070)
    big_endian = struct.pack(">2sBBiBIdd", b"GP", 0, 0, 3070, 0, 1, 1.0, 2.0)
    with_envelope = struct.pack("<2sBBi4dBIdd", b"GP", 0, 0b11, 3070, 1.0, 1.0, 2.0, 2.0, 1, 1, 1.0, 2.0)
    for blob in (line, big_endian, with_envelope, None, b"", memoryview(point_blob(1, 2, 3070))):
        assert point_xy(blob) is None
    # ... and the R-tree's reader still reads them (the envelope of each, through GEOS or the header)
    assert envelope(line) == (1.0, 4.0, 2.0, 8.0)
    assert envelope(big_endian) == (1.0, 1.0, 2.0, 2.0)
    assert envelope(with_envelope) == (1.0, 1.0, 2.0, 2.0)


def test_fixes_committed_one_by_one_are_in_the_file_and_its_spatial_index(tmp_path):
    path = tmp_path / "v.gpkg"
    v = Visit.new("Track", crs="EPSG:32616", who="crew@laptop")
    v.start_track()
    store = create_visit(path, v)
    points = [v.record_fix(Fix(45.0 + i * 1e-5, -87.0 - i * 2e-5, T0 + timedelta(seconds=i / 10)))
              for i in range(5)]
    tree = v.add_tree(x=500_010.0, y=4_985_020.0, dbh_in=12.0)     # a point record added so too
    store.close()
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT t.fid, t.geom, r.minx, r.maxx, r.miny, r.maxy FROM track_point t"
                            " JOIN rtree_track_point_geom r ON r.id = t.fid ORDER BY t.fid").fetchall()
        tree_box = conn.execute("SELECT r.minx, r.maxx, r.miny, r.maxy FROM rtree_tree_geom r").fetchall()
        extent = conn.execute("SELECT min_x, min_y, max_x, max_y FROM gpkg_contents"
                              " WHERE table_name = 'track_point'").fetchone()
    finally:
        conn.close()
    assert len(rows) == 5
    for (_fid, blob, minx, maxx, miny, maxy), tp in zip(rows, points, strict=True):
        assert blob == gpkg_blob(Point(tp.x, tp.y), 32616)
        # the R-tree keeps float32 boxes rounded outwards: the point lies in its box, within a foot
        assert minx <= tp.x <= maxx and miny <= tp.y <= maxy and maxx - minx < 1.0
    assert tree_box[0][0] <= tree.x <= tree_box[0][1] and tree_box[0][2] <= tree.y <= tree_box[0][3]
    xs, ys = [tp.x for tp in points], [tp.y for tp in points]
    assert extent == pytest.approx((min(xs), min(ys), max(xs), max(ys)))
    reopened = open_visit(path)
    try:
        assert [(p.x, p.y) for p in reopened.visit.track()] == [(tp.x, tp.y) for tp in points]
    finally:
        reopened.close()
