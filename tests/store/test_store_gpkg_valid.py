"""The visit GeoPackage passes GDAL's validator (validate_gpkg.py): a new visit, a file from
before the spatial index once opened for recording, and the R-tree kept in step by its
triggers; gpkg_contents extents are the layers' bounds."""

from __future__ import annotations

import contextlib
import shutil

import pyogrio
import pytest
from shapely.geometry import Point

from fieldapp.store import create_visit, open_visit
from fieldapp.survey.features import Layer
from fieldapp.survey.visit import Visit
from tests.gpkgtools import st_connect, validate_gpkg
from tests.report.sample_visit import build_sample_visit

X0, Y0 = 500000.0, 4983000.0  # UTM 16N


def _rtree_rows(path, table):
    with contextlib.closing(st_connect(path)) as conn:
        return conn.execute(f'SELECT id, minx, maxx, miny, maxy FROM "rtree_{table}_geom" ORDER BY id').fetchall()


def _extent(path, table):
    with contextlib.closing(st_connect(path)) as conn:
        return conn.execute("SELECT min_x, min_y, max_x, max_y FROM gpkg_contents WHERE table_name = ?",
                            (table,)).fetchone()


def test_sample_visit_passes_gdal_validator(tmp_path):
    path = tmp_path / "sample.gpkg"
    build_sample_visit(path)
    validate_gpkg(path)
    # the extents of gpkg_contents are the layer's own bounds (GDAL reads the same)
    info = pyogrio.read_info(path, layer="tree")
    assert _extent(path, "tree") == pytest.approx((*info["total_bounds"],), abs=1e-6)
    # fieldapp_meta is the app's own table, outside gpkg_contents (Requirement 119)
    with contextlib.closing(st_connect(path)) as conn:
        assert conn.execute("SELECT count(*) FROM gpkg_contents WHERE table_name = 'fieldapp_meta'").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM gpkg_extensions WHERE extension_name = 'gpkg_rtree_index'"
                            ).fetchone()[0] == 12  # one per feature table, stake_point and data_point included


def test_rtree_follows_adds_moves_and_deletes(tmp_path):
    path = tmp_path / "v.gpkg"
    visit = Visit.new("Mill Creek lot", crs="EPSG:32616", who="a@laptop-a")
    store = create_visit(path, visit)
    a = visit.add_tree(x=X0, y=Y0, dbh_in=10.0, species_code="ACSA")
    b = visit.add_tree(x=X0 + 10.0, y=Y0 + 20.0, dbh_in=12.0, species_code="ACSA")
    store.checkpoint()
    rows = _rtree_rows(path, "tree")
    # a point's box is the point itself (32-bit R-tree bounds, rounded outward by < 0.1 m here)
    assert [r[0] for r in rows] == [1, 2]
    assert rows[1][1] == pytest.approx(X0 + 10.0, abs=0.1) and rows[1][3] == pytest.approx(Y0 + 20.0, abs=0.1)
    assert _extent(path, "tree") == pytest.approx((X0, Y0, X0 + 10.0, Y0 + 20.0))
    visit.update_feature(Layer.TREE, a.uuid, x=X0 - 30.0, y=Y0 - 40.0)
    visit.delete(Layer.TREE, b.uuid)
    store.checkpoint()
    rows = _rtree_rows(path, "tree")
    assert len(rows) == 1 and rows[0][1] == pytest.approx(X0 - 30.0, abs=0.1)
    assert _extent(path, "tree") == pytest.approx((X0 - 30.0, Y0 - 40.0, X0 - 30.0, Y0 - 40.0))
    store.close()
    validate_gpkg(path)
    # GDAL reads through the index for a bounding-box query: only the moved tree is there
    _, _, geoms, _ = pyogrio.raw.read(path, layer="tree", bbox=(X0 - 31, Y0 - 41, X0 - 29, Y0 - 39))
    assert len(geoms) == 1
    _, _, geoms, _ = pyogrio.raw.read(path, layer="tree", bbox=(X0 + 5, Y0 + 15, X0 + 15, Y0 + 25))
    assert len(geoms) == 0


def test_file_from_before_the_index_conforms_once_opened_for_recording(tmp_path):
    # a visit as schema 2 wrote it: no gpkg_extensions, no R-tree, fieldapp_meta registered
    path = tmp_path / "old.gpkg"
    build_sample_visit(path)
    with contextlib.closing(st_connect(path)) as conn, conn:
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
            conn.execute(f'DROP TRIGGER "{name}"')
        for (name,) in conn.execute("SELECT table_name FROM gpkg_geometry_columns").fetchall():
            name = f"rtree_{name}_geom"
            conn.execute(f'DROP TABLE "{name}"')
        conn.execute("DROP TABLE gpkg_extensions")
        conn.execute("UPDATE gpkg_contents SET min_x = NULL, min_y = NULL, max_x = NULL, max_y = NULL")
        conn.execute("INSERT INTO gpkg_contents (table_name, data_type, identifier) VALUES"
                     " ('fieldapp_meta', 'attributes', 'fieldapp_meta')")
    before = path.read_bytes()
    with open_visit(path, readonly=True):
        pass
    assert path.read_bytes() == before  # a read-only open never writes
    copy = tmp_path / "copy.gpkg"
    shutil.copy(path, copy)
    with open_visit(copy) as store:
        n_trees = len(store.visit.features(Layer.TREE))
        store.visit.add_tree(x=520000.0, y=447500.0, dbh_in=9.0, species_code="ACSA")
    validate_gpkg(copy)
    assert len(_rtree_rows(copy, "tree")) == n_trees + 1
    assert _extent(copy, "area_feature")[0] is not None


def test_empty_geometry_and_null_geometry_stay_out_of_the_index(tmp_path):
    from fieldapp.store.schema import gpkg_blob
    from fieldapp.store.spatial import envelope

    assert envelope(gpkg_blob(Point(), 32616)) is None and envelope(None) is None
    assert envelope(gpkg_blob(Point(3.0, 4.0), 32616)) == (3.0, 3.0, 4.0, 4.0)
    assert envelope(b"not a blob") is None


def test_the_rtree_triggers_index_each_row_by_its_own_envelope():
    # The triggers ask for one blob five times in a row (one parse kept for them): rows of
    # different points, a repeated point and a non-blob still get their own values.
    import sqlite3

    from fieldapp.store.schema import gpkg_blob
    from fieldapp.store.spatial import envelope, register_st_functions

    conn = register_st_functions(sqlite3.connect(":memory:"))
    pts = [(3.0, 4.0), (-7.5, 2.25), (3.0, 4.0), (1e6, -1e6)]
    blobs = [gpkg_blob(Point(x, y), 32616) for x, y in pts] + [b"not a blob", None]
    got = [conn.execute("SELECT ST_IsEmpty(?), ST_MinX(?), ST_MaxX(?), ST_MinY(?), ST_MaxY(?)",
                        (b,) * 5).fetchone() for b in blobs]
    assert got == [(0, 3.0, 3.0, 4.0, 4.0), (0, -7.5, -7.5, 2.25, 2.25), (0, 3.0, 3.0, 4.0, 4.0),
                   (0, 1e6, 1e6, -1e6, -1e6), (1, None, None, None, None),
                   (None, None, None, None, None)]
    assert envelope(memoryview(blobs[1])) == (-7.5, -7.5, 2.25, 2.25)
    assert envelope(blobs[0]) == (3.0, 3.0, 4.0, 4.0)


def test_extents_cover_the_rows_recorded_before_a_crash_once_reopened(tmp_path):
    # The extents are written at checkpoints (close, sync, export); the crash probe records
    # fixes, trees, stations and notes into a new visit and is killed (SIGKILL) before any:
    # the next open widens the extents to every row (QGIS zooms to a layer by them)
    from fieldapp.store.crashprobe import run_trial

    path = tmp_path / "crash.gpkg"
    trial = run_trial(path, rate_hz=0, kill_after_s=0.5)     # it opens the visit after the kill
    assert trial.reported > 10 and trial.missing == [] and trial.opened
    with contextlib.closing(st_connect(path)) as conn:
        for table in ("tree", "track_point", "station"):
            ext = conn.execute("SELECT min_x, min_y, max_x, max_y FROM gpkg_contents"
                               " WHERE table_name = ?", (table,)).fetchone()
            rows = conn.execute(f'SELECT ST_MinX(geom), ST_MinY(geom), ST_MaxX(geom), ST_MaxY(geom)'
                                f' FROM "{table}" WHERE geom IS NOT NULL').fetchall()
            assert rows and None not in ext, (table, ext)
            assert all(ext[0] <= a and ext[1] <= b and c <= ext[2] and d <= ext[3]
                       for a, b, c, d in rows), (table, ext)
    validate_gpkg(path)


def test_missing_validator_fails_under_ci(monkeypatch, tmp_path):
    # under CI the validator is a required service: missing, the test fails (never skips)
    import _pytest.outcomes

    import tests.gpkgtools as tools

    monkeypatch.setattr(tools, "VALIDATOR", tmp_path / "no_validate_gpkg.py")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(_pytest.outcomes.Failed, match="python3-gdal"):
        tools.validate_gpkg(tmp_path / "any.gpkg")
    monkeypatch.setenv("CI", "false")
    with pytest.raises(_pytest.outcomes.Skipped):
        tools.validate_gpkg(tmp_path / "any.gpkg")
