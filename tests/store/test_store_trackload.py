"""The raw track read as columns (fieldapp.store.trackload): the same values and the same
refusals, in the same words, as the per-record path (fieldapp.store.load._read_rows), a
corrupt row included; extents kept by the fixes added."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from fieldapp.geo import SiteFrame
from fieldapp.store import InvalidRecords, open_visit
from fieldapp.store.load import _read_rows
from fieldapp.store.spatial import update_extents
from fieldapp.store.trackload import _read_track
from fieldapp.survey import Layer
from fieldapp.survey.tracklog import TrackLog
from tests.gpkgtools import st_connect
from tests.track_sample import T0, Fix, visit_with_track


def _both(path):
    """(per-record pairs, per-record problems, TrackLog, fids, vectorised problems)."""
    frame = SiteFrame("EPSG:32616")
    conn = sqlite3.connect(path)
    try:
        old_problems, new_problems = [], []
        old = _read_rows(conn, Layer.TRACK, frame, old_problems)
        log, fids = _read_track(conn, frame, new_problems, _read_rows)
    finally:
        conn.close()
    return old, old_problems, log, fids, new_problems


def test_columns_hold_the_same_values_as_the_records(tmp_path):
    path = tmp_path / "v.gpkg"
    visit_with_track(path)
    old, old_problems, log, fids, new_problems = _both(path)
    assert old_problems == new_problems == []
    assert fids == [fid for fid, _ in old] == list(range(1, 13))
    assert log.records() == [rec for _, rec in old]
    c = log.columns()
    # by hand: fix 4 is autonomous (1), fix 5 (fid 6) has no time and no quality, fids 3 and 9
    # no satellite count or HDOP, every third fix (2, 5, 8, 11) no accuracy or height
    assert c["quality"].tolist() == [4, 4, 4, 4, 1, -1, 4, 4, 4, 4, 4, 4]
    assert np.isnat(c["t_utc"]).nonzero()[0].tolist() == [5]
    assert c["t_utc"][3] == np.datetime64("2024-06-03T15:00:00.400")
    assert (c["sats_used"] == -1).nonzero()[0].tolist() == [2, 8]
    assert np.isnan(c["hdop"]).nonzero()[0].tolist() == [2, 8]
    assert np.isnan(c["alt_hae_m"]).nonzero()[0].tolist() == [2, 5, 8, 11]
    assert log.record(2).sats_used is None and log.record(2).alt_hae_m is None
    assert log.record(5).quality is None and log.record(5).t_utc is None
    assert log.record(3).hdop == pytest.approx(0.73)


def test_a_visit_opens_with_its_track_as_columns(tmp_path):
    path = tmp_path / "v.gpkg"
    visit_with_track(path)
    with open_visit(path) as st:
        assert isinstance(st.visit.track_log, TrackLog)
        assert len(st.visit.track_log) == 12 and len(st.visit.track()) == 12
        st.visit.start_track()
        st.visit.record_fix(Fix(45.001, -87.001, T0 + timedelta(seconds=60)))
        assert len(st.visit.track_log) == 13
    with open_visit(path, readonly=True) as st:
        last = st.visit.track_log.record(-1)
        assert last.t_utc == T0 + timedelta(seconds=60) and last.lat_deg == 45.001
        assert st.visit.get(Layer.TRACK, last.uuid) == last


# (column, stored value, words of the refusal): the per-record path's own message each time
CORRUPT = [
    ("hdop", "'abc'", "is not a number"),
    ("lat_deg", "95.0", "outside [-90.0, 90.0]"),
    ("lon_deg", "'west'", "is not a number"),
    ("quality", "12", "outside [0, 9]"),
    ("quality", "70000", "outside [0, 9]"),
    ("sats_used", "4.5", "is not a whole number"),
    ("alt_hae_m", "1e999", "must be finite, got inf"),
    ("alt_hae_m", "12000.5", "outside [-10000.0, 10000.0]"),
    ("created_utc", "'yesterday'", "is not ISO 8601 UTC text with Z"),
    ("t_utc", "'2024-02-30T10:00:00.000Z'", "day is out of range"),
    ("uuid", "upper(uuid)", "is not a UUID in canonical form"),
    ("created_by", "'crew' || char(7)", "has a control character"),
    ("geom", "X'47500001E61000000102'", "unreadable geometry"),
    ("geom", "X'4750000AE6100000'", "envelope indicator 5"),
    ("geom", "X'4750'", "lacks the GP magic"),                 # shorter than a header
    ("uuid", "X'0011'", "must be a UUID as text, got bytes"),  # a blob where text belongs
    ("created_utc", "5", "is not ISO 8601 UTC text with Z"),   # a number where text belongs
    ("quality", "4.5", "is not a whole number"),               # a real in an INTEGER column
    # the aggregate reads these columns as text: a blob of the same characters is still a blob
    ("uuid", "CAST(uuid AS BLOB)", "must be a UUID as text, got bytes"),
    ("created_by", "CAST(created_by AS BLOB)", "must be text, got bytes"),
    ("t_utc", "CAST(t_utc AS BLOB)", "is not ISO 8601 UTC text with Z"),
    ("t_utc", "t_utc || char(0)", "is not ISO 8601 UTC text with Z"),   # numpy drops a trailing NUL
    ("created_utc", "'0000-01-01T00:00:00.000Z'", "year 0 is out of range"),  # numpy reads year 0
    ("quality", "'four'", "is not a whole number"),
    ("quality", "-1", "outside [0, 9]"),                      # -1 is also the column's NULL
    ("created_by", "''", "must not be empty"),
    ("geom", "NULL", "is required"),
    ("hdop", "'nan'", "is not a number"),                     # numpy would read the text as NaN
]


@pytest.mark.parametrize("column, value, words", CORRUPT, ids=[f"{c}={v}" for c, v, _ in CORRUPT])
def test_a_corrupt_row_is_refused_in_the_same_words(tmp_path, column, value, words):
    path = tmp_path / "v.gpkg"
    visit_with_track(path)
    with st_connect(path) as conn:
        conn.execute(f"UPDATE track_point SET {column} = {value} WHERE fid = 7")
    conn.close()
    old, old_problems, log, fids, new_problems = _both(path)
    assert new_problems == old_problems
    assert len(new_problems) == 1 and new_problems[0].fid == 7 and words in new_problems[0].message
    assert fids == [f for f, _ in old] == [1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12]
    assert log.records() == [rec for _, rec in old]
    with pytest.raises(InvalidRecords) as exc:
        open_visit(path)
    assert [p.fid for p in exc.value.problems] == [7] and words in str(exc.value)


def test_a_point_outside_the_crs_area_is_refused_in_the_same_words(tmp_path):
    path = tmp_path / "v.gpkg"
    visit_with_track(path)
    with st_connect(path) as conn:
        blob = conn.execute("SELECT geom FROM track_point WHERE fid = 3").fetchone()[0]
        far = blob[:13] + np.float64(9e9).tobytes() + blob[21:]   # x of the WKB point (bytes 14-21)
        conn.execute("UPDATE track_point SET geom = ? WHERE fid = 3", (far,))
    conn.close()
    old, old_problems, log, fids, new_problems = _both(path)
    assert new_problems == old_problems and [p.fid for p in new_problems] == [3]
    assert new_problems[0].column == "geom" and "area of use" in new_problems[0].message
    assert 3 not in fids and len(log) == 11


def test_a_point_of_the_fast_form_holding_nan_is_refused_in_the_same_words(tmp_path):
    """The fast path's exact form (29 bytes: no envelope, little-endian 2D point), its
    coordinates NaN, NaN (an empty point not flagged so in the header): the coordinates read
    straight from the blob are NaN and the row goes to the per-record path, which refuses it."""
    path = tmp_path / "v.gpkg"
    visit_with_track(path)
    conn = sqlite3.connect(path)    # no ST_ functions: the R-tree triggers cannot take the NaN point
    with conn:
        blob = conn.execute("SELECT geom FROM track_point WHERE fid = 5").fetchone()[0]
        assert len(blob) == 29 and blob[8:13] == b"\x01\x01\x00\x00\x00"   # the fast form
        for k in (1, 2, 3, 4):
            conn.execute(f"DROP TRIGGER rtree_track_point_geom_update{k}")
        conn.execute("UPDATE track_point SET geom = ? WHERE fid = 5",
                     (blob[:13] + np.float64(np.nan).tobytes() * 2,))
    conn.close()
    old, old_problems, log, fids, new_problems = _both(path)
    assert new_problems == old_problems and [p.fid for p in new_problems] == [5]
    assert new_problems[0].column == "geom" and "is required" in new_problems[0].message
    assert 5 not in fids and log.records() == [rec for _, rec in old]
    assert np.isfinite(log.columns()["x"]).all() and len(log) == 11


def test_other_valid_spellings_are_read_the_same(tmp_path):
    """A time without milliseconds, a whole-number longitude and a big-endian point (as another
    program may write them) are not the fast path's form: read one by one, same values."""
    path = tmp_path / "v.gpkg"
    visit_with_track(path)
    with st_connect(path) as conn:
        conn.execute("UPDATE track_point SET t_utc = '2024-06-03T15:00:07Z' WHERE fid = 2")
        conn.execute("UPDATE track_point SET lon_deg = -87 WHERE fid = 3")
        x, y = conn.execute("SELECT ST_MinX(geom), ST_MinY(geom) FROM track_point WHERE fid = 4").fetchone()
        big = (b"GP\x00\x00" + (32616).to_bytes(4, "big") + b"\x00" + (1).to_bytes(4, "big")
               + np.float64(x).byteswap().tobytes() + np.float64(y).byteswap().tobytes())
        conn.execute("UPDATE track_point SET geom = ? WHERE fid = 4", (big,))
    conn.close()
    old, old_problems, log, fids, new_problems = _both(path)
    assert old_problems == new_problems == []
    assert log.records() == [rec for _, rec in old]
    assert log.record(1).t_utc == datetime(2024, 6, 3, 15, 0, 7, tzinfo=UTC)
    assert log.record(2).lon_deg == -87.0 and log.record(3).x == x


def test_columns_the_aggregate_cannot_read_are_read_by_value_the_same(tmp_path):
    """Two creators, a column NULL on every row, a point with an XY envelope (GeoPackage 1.4
    §2.1.3, as another program may write it) and a second canonical time: the same records."""
    path = tmp_path / "v.gpkg"
    visit_with_track(path)
    with st_connect(path) as conn:
        conn.execute("UPDATE track_point SET created_by = 'office@desk' WHERE fid IN (2, 11)")
        conn.execute("UPDATE track_point SET sats_used = NULL, h_accuracy_m = NULL")
        x, y = conn.execute("SELECT ST_MinX(geom), ST_MinY(geom) FROM track_point WHERE fid = 5").fetchone()
        enveloped = (b"GP\x00\x03" + (32616).to_bytes(4, "little") + np.array([x, x, y, y]).tobytes()
                     + b"\x01" + (1).to_bytes(4, "little") + np.array([x, y]).tobytes())
        conn.execute("UPDATE track_point SET geom = ? WHERE fid = 5", (enveloped,))
    conn.close()
    old, old_problems, log, fids, new_problems = _both(path)
    assert old_problems == new_problems == []
    assert log.records() == [rec for _, rec in old] and len(log) == 12
    c = log.columns()
    assert c["created_by"].tolist() == (["crew@laptop"] + ["office@desk"] + ["crew@laptop"] * 8
                                        + ["office@desk", "crew@laptop"])
    assert (c["sats_used"] == -1).all() and np.isnan(c["h_accuracy_m"]).all()
    assert (c["x"][4], c["y"][4]) == (x, y)


def test_a_track_uuid_used_by_another_record_is_refused(tmp_path):
    path = tmp_path / "v.gpkg"
    visit_with_track(path)
    with st_connect(path) as conn:
        tree = conn.execute("SELECT uuid FROM tree").fetchone()[0]
        conn.execute("UPDATE track_point SET uuid = ? WHERE fid = 9", (tree,))
    conn.close()
    with pytest.raises(InvalidRecords) as exc:
        open_visit(path)
    (p,) = exc.value.problems
    assert (p.table, p.fid, p.column) == ("track_point", 9, "uuid")
    assert p.message == "the same uuid as tree row fid 1"


def _extents(path):
    with st_connect(path) as conn:
        got = conn.execute("SELECT min_x, min_y, max_x, max_y FROM gpkg_contents"
                           " WHERE table_name = 'track_point'").fetchone()
        conn.execute("BEGIN")
        update_extents(conn, ["track_point"])
        measured = conn.execute("SELECT min_x, min_y, max_x, max_y FROM gpkg_contents"
                                " WHERE table_name = 'track_point'").fetchone()
        conn.execute("ROLLBACK")
    conn.close()
    return got, measured


def test_extents_grow_by_the_fixes_added_and_are_measured_after_a_delete(tmp_path):
    path = tmp_path / "v.gpkg"
    visit_with_track(path)
    with open_visit(path) as st:
        st.visit.start_track()
        st.visit.record_fix(Fix(45.01, -86.99))     # north-east of every other fix
        st.checkpoint()
        got, measured = _extents(path)
        assert got == measured
        assert got[2:] == pytest.approx(st.visit.frame.to_local(-86.99, 45.01))
        tree = st.visit.trees()[0]
        st.visit.delete_tree(tree.uuid)
        st.visit.add_tree(x=tree.x + 10.0, y=tree.y, dbh_in=10.0)
    with st_connect(path) as conn:
        x, = conn.execute("SELECT min_x FROM gpkg_contents WHERE table_name = 'tree'").fetchone()
    conn.close()
    assert x == pytest.approx(tree.x + 10.0)     # shrunk: the deleted tree measured out


def test_a_log_grows_past_its_first_capacity_and_keeps_every_fix():
    t = datetime(2024, 6, 3, tzinfo=UTC)
    log = TrackLog()
    from fieldapp.survey.features import TrackPoint
    pts = [TrackPoint(uuid=f"00000000-0000-4000-8000-{i:012d}", created_utc=t, modified_utc=t,
                      created_by="crew", t_utc=t + timedelta(milliseconds=100 * i), x=float(i), y=2.0 * i,
                      lon_deg=-87.0, lat_deg=45.0, quality=4 if i % 2 else None) for i in range(600)]
    for p in pts:
        log.append(p)
    assert len(log) == 600 and log.records() == pts
    assert log.columns()["x"][599] == 599.0 and log.columns()["quality"][:3].tolist() == [-1, 4, -1]
    assert log.pop(pts[10].uuid) == pts[10] and len(log) == 599 and pts[10].uuid not in log


def test_read_in_batches_gives_the_same_track_and_refusals(tmp_path, monkeypatch):
    import fieldapp.store.trackload as T

    path = tmp_path / "v.gpkg"
    visit_with_track(path)
    with st_connect(path) as conn:
        conn.execute("UPDATE track_point SET hdop = -0.5 WHERE fid = 7")
    conn.close()
    monkeypatch.setattr(T, "CHUNK_ROWS", 5)    # batches of 5, 5 and 2 rows
    old, old_problems, log, fids, new_problems = _both(path)
    assert new_problems == old_problems and [p.fid for p in new_problems] == [7]
    assert "outside [0.0, inf]" in new_problems[0].message
    assert fids == [f for f, _ in old] and log.records() == [rec for _, rec in old]
