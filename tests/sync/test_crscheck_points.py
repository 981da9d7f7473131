"""The office's CRS check reads a chunk of plain points (the day's track) from their bytes at
once (fieldapp.sync.crscheck._plain_point_bounds, issue 33): the same bounds the per-row path
finds, and anything not in the store's own point form goes to the per-row path, which names it."""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from shapely.geometry import LineString, Point

from fieldapp.store.schema import gpkg_blob
from fieldapp.sync.crscheck import _plain_point_bounds, chunk_problem

UTM = (166_000.0, 0.0, 834_000.0, 9_330_000.0)


def _rows(points, srs=32616):
    return [(i + 1, gpkg_blob(p, srs)) for i, p in enumerate(points)]


def test_plain_points_give_the_bounds_shapely_gives():
    rng = np.random.default_rng(33)
    pts = [Point(x, y) for x, y in zip(rng.uniform(4e5, 6e5, 500), rng.uniform(4.9e6, 5e6, 500), strict=True)]
    box = _plain_point_bounds(_rows(pts), 32616)
    assert box is not None and box.shape == (500, 4)
    assert box == pytest.approx(shapely.bounds(np.array(pts, dtype=object)), rel=0, abs=0)


def test_other_forms_go_row_by_row_and_are_named():
    pts = [Point(500_000.0, 4_983_000.0 + k) for k in range(5)]
    assert _plain_point_bounds(_rows(pts, srs=4326), 32616) is None            # another srs_id
    mixed = _rows(pts) + [(6, gpkg_blob(LineString([(5e5, 4.98e6), (5e5 + 1, 4.98e6)]), 32616))]
    assert _plain_point_bounds(mixed, 32616) is None                           # not all points
    assert _plain_point_bounds(_rows(pts)[:-1] + [(5, None)], 32616) is None   # a NULL among them
    wrong = _rows(pts)[:-1] + [(5, gpkg_blob(Point(500_000.0, 4_983_000.0), 4326))]
    assert chunk_problem("track_point", 32616, wrong, UTM, "UTM 16N") == \
        "track_point fid 5: its geometry is in srs_id 4326, its layer in 32616"


def test_a_plain_point_outside_is_named_by_its_fid():
    pts = [Point(500_000.0, 4_983_000.0), Point(-87.62, 41.88), Point(500_001.0, 4_983_000.0)]
    why = chunk_problem("track_point", 32616, _rows(pts), UTM, "UTM 16N")
    assert why is not None and why.startswith("track_point fid 2: x -87.62 to -87.62, y 41.88 to 41.88 lie outside")
    assert chunk_problem("track_point", 32616, _rows([pts[0], pts[2]]), UTM, "UTM 16N") is None
    assert not math.isnan(_plain_point_bounds(_rows(pts), 32616)[1, 0])
