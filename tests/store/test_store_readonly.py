"""fieldapp.store: loading checks every row; inspecting, refusing and read-only opens never write.

sha256 of the .gpkg is compared before and after: SQLite changes header bytes (file change
counter, journal mode at offsets 18-19) on any write, so an unchanged hash means nothing was
written to the file.
"""

from __future__ import annotations

import hashlib
import os
import shutil

import pytest

from fieldapp.store import (
    DamagedVisitFile,
    InvalidRecords,
    ReadOnlyVisitFile,
    StoreError,
    create_visit,
    gpkg,
    inspect,
    open_visit,
)
from fieldapp.survey import AreaKind, Layer, Visit
from tests.gpkgtools import st_connect


def sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def side_files(path) -> list[str]:
    return sorted(p.name for p in path.parent.iterdir() if p.name.startswith(path.name + "-"))


@pytest.fixture
def visit_file(tmp_path):
    """A closed visit (EPSG:3070, DELETE journal) with 3 trees and a wetland; returns (path, uuids)."""
    v = Visit.new("Madison lot", crs="EPSG:3070", who="t")
    path = tmp_path / "v.gpkg"
    store = create_visit(path, v)
    x0, y0 = (float(c) for c in v.frame.to_local(-89.4, 43.07))
    trees = [v.add_tree(x=x0 + 3 * i, y=y0, dbh_in=10 + i, species_code="ACSA") for i in range(3)]
    v.add_area(AreaKind.WETLAND, [(x0, y0), (x0 + 20, y0), (x0 + 20, y0 + 20), (x0, y0 + 20)],
               standing_water=False, hydric_vegetation=True)
    store.close()
    return path, [t.uuid for t in trees]


def sabotage(path, sql, *params):
    conn = st_connect(path)
    conn.execute(sql, params)
    conn.commit()
    conn.close()


# ---------------------------------------------------------------- 2/3. rows are checked on load
def test_yes_no_reloads_as_stored(visit_file):
    path, _ = visit_file
    with open_visit(path, readonly=True) as store:
        (a,) = store.visit.features(Layer.AREA)
        assert a.standing_water is False and a.hydric_vegetation is True


@pytest.mark.parametrize(
    "value, says",
    # (the text "12" would be stored as the REAL 12.0 by SQLite's column affinity, so "12 in")
    [("abc", "is not a number"), (-5.0, "dbh_in"), (1e999, "finite"), (1e-9, "dbh_in"), ("12 in", "is not a number")],
)
def test_bad_dbh_row_refuses_the_file_naming_table_row_and_column(visit_file, value, says):
    path, uuids = visit_file
    sabotage(path, "UPDATE tree SET dbh_in = ? WHERE uuid = ?", value, uuids[1])
    fid = st_connect(path).execute("SELECT fid FROM tree WHERE uuid = ?", (uuids[1],)).fetchone()[0]
    before, files_before = sha(path), side_files(path)
    with pytest.raises(InvalidRecords) as e:
        open_visit(path)
    err = e.value
    assert isinstance(err, DamagedVisitFile) and isinstance(err, StoreError)
    assert [(p.table, p.fid, p.uuid, p.column) for p in err.problems] == [("tree", fid, uuids[1], "dbh_in")]
    msg = str(err)
    assert "tree" in msg and uuids[1] in msg and f"fid {fid}" in msg and "dbh_in" in msg and says in msg
    assert sha(path) == before and side_files(path) == files_before  # refused: not touched
    with pytest.raises(InvalidRecords):
        open_visit(path, readonly=True)
    assert sha(path) == before


def test_every_bad_row_is_named_none_dropped(visit_file):
    path, uuids = visit_file
    sabotage(path, "UPDATE tree SET dbh_in = 'abc' WHERE uuid = ?", uuids[0])
    sabotage(path, "UPDATE tree SET species_code = ? WHERE uuid = ?", "A\x00B", uuids[2])
    sabotage(path, "UPDATE area_feature SET standing_water = 'no'")
    with pytest.raises(InvalidRecords) as e:
        open_visit(path)
    got = {(p.table, p.uuid, p.column) for p in e.value.problems}
    area_uuid = st_connect(path).execute("SELECT uuid FROM area_feature").fetchone()[0]
    assert got == {("tree", uuids[0], "dbh_in"), ("tree", uuids[2], "species_code"),
                   ("area_feature", area_uuid, "standing_water")}
    assert "3 row(s)" in str(e.value)


def test_geometry_outside_the_crs_in_a_row_is_refused(visit_file):
    path, uuids = visit_file
    import shapely

    from fieldapp.store import schema as S

    blob = S.gpkg_blob(shapely.Point(1e12, 1e12), 3070)
    sabotage(path, "UPDATE tree SET geom = ? WHERE uuid = ?", blob, uuids[0])
    with pytest.raises(InvalidRecords) as e:
        open_visit(path)
    (p,) = e.value.problems
    assert (p.table, p.uuid, p.column) == ("tree", uuids[0], "geom") and "area of use" in p.message


# ---------------------------------------------------------------- 4. never written unless recording
def test_inspect_and_readonly_open_leave_the_file_byte_for_byte(visit_file):
    path, uuids = visit_file
    before = sha(path)
    inspect(path)
    assert sha(path) == before
    store = open_visit(path, readonly=True)
    assert store.readonly and [t.uuid for t in store.visit.trees()] == uuids
    assert store.counts()["tree"] == 3
    store.checkpoint()  # no-op
    store.close()
    assert sha(path) == before and side_files(path) == []
    # an ordinary open for recording does switch to WAL (and back on close): it is a writer
    open_visit(path).close()
    assert st_connect(path).execute("PRAGMA journal_mode").fetchone()[0] == "delete"


def test_readonly_store_refuses_commands_and_the_model_stays_unchanged(visit_file):
    path, _ = visit_file
    before = sha(path)
    with open_visit(path, readonly=True) as store:
        v = store.visit
        x, y = v.trees()[0].x, v.trees()[0].y
        with pytest.raises(ReadOnlyVisitFile, match="read-only"):
            v.add_tree(x=x, y=y, dbh_in=12)
        assert len(v.trees()) == 3
    assert sha(path) == before


def test_readonly_open_of_a_wal_file_without_side_files_creates_none(tmp_path, visit_file):
    path, _ = visit_file
    live = open_visit(path)  # WAL while recording
    live.checkpoint()
    copy = tmp_path / "copy.gpkg"
    shutil.copyfile(path, copy)  # the header still says WAL (bytes 18-19 = 2); no -wal beside it
    live.close()
    assert copy.read_bytes()[18:20] == b"\x02\x02"
    before = sha(copy)
    inspect(copy)
    with open_visit(copy, readonly=True) as store:
        assert len(store.visit.trees()) == 3
    assert sha(copy) == before and side_files(copy) == []


def test_readonly_open_sees_records_the_app_has_not_checkpointed(visit_file):
    path, _ = visit_file
    live = open_visit(path)
    v = live.visit
    t = v.add_tree(x=v.trees()[0].x, y=v.trees()[0].y, dbh_in=20)  # in the WAL only
    before = sha(path)
    with open_visit(path, readonly=True) as reader:
        assert t.uuid in {x.uuid for x in reader.visit.trees()}
    assert sha(path) == before
    live.close()


def test_unwritable_file_is_called_read_only_not_damaged(visit_file, monkeypatch):
    path, _ = visit_file
    before = sha(path)
    monkeypatch.setattr(gpkg.os, "access", lambda p, mode: False)
    with pytest.raises(ReadOnlyVisitFile) as e:
        open_visit(path)
    assert "read-only" in str(e.value) and "damaged" not in str(e.value)
    assert isinstance(e.value, PermissionError)
    monkeypatch.undo()
    # SQLite itself refusing the WAL switch is diagnosed the same way
    monkeypatch.setattr(gpkg, "_connect", lambda p: st_connect(p.resolve().as_uri() + "?mode=ro",
                                                                    uri=True, isolation_level=None))
    with pytest.raises(ReadOnlyVisitFile, match="read-only"):
        open_visit(path)
    monkeypatch.undo()
    with open_visit(path, readonly=True) as store:  # reading still works
        assert len(store.visit.trees()) == 3
    assert sha(path) == before


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root ignores file modes")
def test_chmod_read_only_file(visit_file):
    path, _ = visit_file
    path.chmod(0o444)
    try:
        with pytest.raises(ReadOnlyVisitFile, match="read-only"):
            open_visit(path)
        with open_visit(path, readonly=True) as store:
            assert len(store.visit.trees()) == 3
    finally:
        path.chmod(0o644)
