"""fieldapp.store: ids and references are checked on load; the model never writes an orphan.

Every row's ``uuid`` and every reference to another record must be a UUID in canonical text
form (lowercase hex 8-4-4-4-12); a station / OHWM point / walk vertex must name an existing
transect / OHWM line / walk; a uuid appears once in the whole file. A file breaking any of these
is refused by ``open_visit`` (read-only or not) naming table, fid, uuid and column, and is left
byte for byte as it was (sha256 before and after; no -wal/-shm created).
"""

from __future__ import annotations

import hashlib
import uuid as uuidlib

import pytest

from fieldapp.store import InvalidRecords, create_visit, open_visit
from fieldapp.survey import AreaKind, InvalidValue, Layer, StateError, Visit
from fieldapp.survey import values as V
from tests.gpkgtools import st_connect
from tests.store.test_store import fill


def sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def side_files(path) -> list[str]:
    return sorted(p.name for p in path.parent.iterdir() if p.name.startswith(path.name + "-"))


@pytest.fixture
def full_file(tmp_path):
    """A closed visit with one of everything (tests/store/test_store.py ``fill``)."""
    v = Visit.new("Mill Creek lot", who="tester@laptop")
    path = tmp_path / "v.gpkg"
    store = create_visit(path, v)
    fill(v)
    store.close()
    return path


def sabotage(path, sql, *params):
    conn = st_connect(path)
    conn.execute(sql, params)
    conn.commit()
    conn.close()


def row(path, table, where="1", *params):
    """(fid, uuid) of the first row of ``table`` matching ``where``."""
    conn = st_connect(path)
    try:
        return conn.execute(f'SELECT fid, uuid FROM "{table}" WHERE {where} ORDER BY fid LIMIT 1', params).fetchone()
    finally:
        conn.close()


def refused(path) -> list[tuple]:
    """Problems of open_visit, read-only and for recording; asserts the file is untouched."""
    before, files = sha(path), side_files(path)
    with pytest.raises(InvalidRecords) as ro:
        open_visit(path, readonly=True)
    with pytest.raises(InvalidRecords) as rw:
        open_visit(path)
    assert sha(path) == before and side_files(path) == files  # refused: not a byte changed
    got = [(p.table, p.fid, p.uuid, p.column) for p in ro.value.problems]
    assert got == [(p.table, p.fid, p.uuid, p.column) for p in rw.value.problems]
    for p in ro.value.problems:  # the message names each row
        assert f"{p.table} row fid {p.fid}" in str(ro.value) and p.column in str(ro.value)
    return ro.value.problems


# ---------------------------------------------------------------- uuid form
@pytest.mark.parametrize("table", ["tree", "station", "walk_vertex", "site", "track_point"])
@pytest.mark.parametrize("bad", [
    "not-a-uuid",
    "",
    "0F8FAD5B-D9CB-469F-A165-70867728950E",  # upper case: another spelling of an id
    "{0f8fad5b-d9cb-469f-a165-70867728950e}",  # braces, as QGIS's uuid() writes
    "0f8fad5bd9cb469fa16570867728950e",  # no hyphens
    "urn:uuid:0f8fad5b-d9cb-469f-a165-70867728950e",
])
def test_a_row_whose_uuid_is_not_a_canonical_uuid_is_refused(full_file, table, bad):
    fid, _ = row(full_file, table)
    sabotage(full_file, f'UPDATE "{table}" SET uuid = ? WHERE fid = ?', bad, fid)
    (p,) = refused(full_file)
    assert (p.table, p.fid, p.uuid, p.column) == (table, fid, bad, "uuid")
    assert "is not a UUID in canonical form" in p.message


def test_a_uuid_stored_as_a_blob_is_refused(full_file):
    # (a number would be stored as text by the column's TEXT affinity; a blob is kept as is)
    fid, _ = row(full_file, "tree")
    sabotage(full_file, "UPDATE tree SET uuid = ? WHERE fid = ?", uuidlib.uuid4().bytes, fid)
    (p,) = refused(full_file)
    assert (p.table, p.fid, p.uuid, p.column) == ("tree", fid, None, "uuid")  # None: not text
    assert "must be a UUID as text" in p.message


# ---------------------------------------------------------------- parent references
@pytest.mark.parametrize("child, column", [
    ("station", "transect_uuid"), ("walk_vertex", "walk_uuid"), ("ohwm_point", "line_uuid"),
])
@pytest.mark.parametrize("bad, says", [
    ("not-a-uuid", "is not a UUID in canonical form"),
    (None, "is required"),
    ("", "is not a UUID in canonical form"),  # (NOT NULL lets '' through SQL)
])
def test_a_child_whose_parent_reference_is_not_a_uuid_is_refused(full_file, child, column, bad, says):
    if bad is None:
        # the column is NOT NULL in our schema; a file from elsewhere may lack the constraint
        conn = st_connect(full_file)
        conn.execute("PRAGMA writable_schema = ON")
        sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = ?", (child,)).fetchone()[0]
        conn.execute("UPDATE sqlite_master SET sql = ? WHERE name = ?",
                     (sql.replace(f'"{column}" TEXT NOT NULL', f'"{column}" TEXT'), child))
        conn.commit()
        conn.close()
    fid, uuid = row(full_file, child)
    sabotage(full_file, f'UPDATE "{child}" SET "{column}" = ? WHERE fid = ?', bad, fid)
    (p,) = refused(full_file)  # named once, by the row's own rules (not again as an orphan)
    assert (p.table, p.fid, p.uuid, p.column) == (child, fid, uuid, column)
    assert says in p.message


@pytest.mark.parametrize("child, column, parent", [
    ("station", "transect_uuid", "transect"), ("walk_vertex", "walk_uuid", "walk"),
    ("ohwm_point", "line_uuid", "ohwm_line"),
])
def test_a_child_whose_parent_is_not_in_the_file_is_refused(full_file, child, column, parent):
    fid, uuid = row(full_file, child)
    ghost = "0f8fad5b-d9cb-469f-a165-70867728950e"  # a well-formed UUID no row has
    sabotage(full_file, f'UPDATE "{child}" SET "{column}" = ? WHERE fid = ?', ghost, fid)
    (p,) = refused(full_file)
    assert (p.table, p.fid, p.uuid, p.column) == (child, fid, uuid, column)
    assert f"refers to {parent} '{ghost}', which is not in the file" in p.message


def test_deleting_a_parent_row_behind_the_apps_back_names_every_orphan(full_file):
    conn = st_connect(full_file)
    stations = conn.execute("SELECT fid, uuid FROM station ORDER BY fid").fetchall()
    conn.close()
    assert len(stations) == 3  # fill(): one transect, three stations
    sabotage(full_file, "DELETE FROM transect")
    problems = refused(full_file)
    assert [(p.table, p.fid, p.uuid, p.column) for p in problems] == [
        ("station", fid, uuid, "transect_uuid") for fid, uuid in stations]


def test_a_parent_whose_uuid_is_not_a_uuid_is_refused_and_so_are_its_children(full_file):
    fid, _ = row(full_file, "transect")
    stations = st_connect(full_file).execute("SELECT fid, uuid FROM station ORDER BY fid").fetchall()
    sabotage(full_file, "UPDATE transect SET uuid = 'T1' WHERE fid = ?", fid)
    problems = refused(full_file)
    assert [(p.table, p.fid, p.uuid, p.column) for p in problems] == [("transect", fid, "T1", "uuid")] + [
        ("station", sfid, suuid, "transect_uuid") for sfid, suuid in stations]


def test_optional_references_are_checked_for_form_only(full_file):
    # transect.line_uuid, area_feature.walk_uuid, walk.area_uuid may name a deleted record (the
    # model keeps them when that record goes), so a well-formed dangling one opens ...
    ghost = str(uuidlib.uuid4())
    sabotage(full_file, "UPDATE transect SET line_uuid = ?", ghost)
    with open_visit(full_file, readonly=True) as store:
        assert store.visit.features(Layer.TRANSECT)[0].line_uuid == ghost
    # ... but one that is not a UUID does not
    fid, uuid = row(full_file, "walk")
    sabotage(full_file, "UPDATE walk SET area_uuid = 'area-1' WHERE fid = ?", fid)
    (p,) = refused(full_file)
    assert (p.table, p.fid, p.uuid, p.column) == ("walk", fid, uuid, "area_uuid")


# ---------------------------------------------------------------- one uuid, one record
def test_a_uuid_in_two_tables_is_refused_naming_the_second_row(full_file):
    site_fid, site_uuid = row(full_file, "site")
    fid, _ = row(full_file, "note")
    sabotage(full_file, "UPDATE note SET uuid = ? WHERE fid = ?", site_uuid, fid)
    (p,) = refused(full_file)
    assert (p.table, p.fid, p.uuid, p.column) == ("note", fid, site_uuid, "uuid")
    assert p.message == f"the same uuid as site row fid {site_fid}"


def test_a_uuid_twice_in_one_table_without_its_unique_constraint_is_refused(full_file):
    # our schema makes uuid UNIQUE; a table rebuilt elsewhere (QGIS, a script) may have lost it
    conn = st_connect(full_file)
    sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'note'").fetchone()[0]
    conn.executescript(f"""
        ALTER TABLE note RENAME TO note_old;
        {sql.replace("uuid TEXT NOT NULL UNIQUE", "uuid TEXT NOT NULL")};
        INSERT INTO note SELECT * FROM note_old;
        INSERT INTO note (uuid, created_utc, modified_utc, created_by, geom, text)
            SELECT uuid, created_utc, modified_utc, created_by, geom, 'again' FROM note_old;
        DROP TABLE note_old;
    """)
    conn.close()
    first, second = st_connect(full_file).execute("SELECT fid, uuid FROM note ORDER BY fid").fetchall()
    assert first[1] == second[1]
    (p,) = refused(full_file)
    assert (p.table, p.fid, p.uuid, p.column) == ("note", second[0], second[1], "uuid")
    assert p.message == f"the same uuid as note row fid {first[0]}"


def test_an_untouched_file_opens_and_every_uuid_is_canonical(full_file):
    with open_visit(full_file, readonly=True) as store:
        v = store.visit
        assert len(v) == 29  # tests/store/test_store.py EXPECTED_COUNTS without the site row
        uuids = [v.site.uuid] + [f.uuid for layer in Layer if layer is not Layer.SITE for f in v.features(layer)]
    assert len(set(uuids)) == len(uuids) == 30
    assert all(str(uuidlib.UUID(u)) == u for u in uuids)


# ---------------------------------------------------------------- the model keeps them whole
def test_uuid_text_accepts_only_the_canonical_form():
    u = "0f8fad5b-d9cb-469f-a165-70867728950e"
    assert V.uuid_text("uuid", u) == u
    for bad in ("not-a-uuid", u.upper(), "{" + u + "}", u.replace("-", ""), u + " ", None, 7):
        with pytest.raises(InvalidValue, match="^uuid: "):
            V.uuid_text("uuid", bad)


@pytest.fixture
def live(tmp_path):
    v = Visit.new("lot", crs="EPSG:3070", who="t")
    store = create_visit(tmp_path / "live.gpkg", v)
    yield v, store
    store.close()


def reopen_ok(store):
    """The file the model wrote opens (the store would refuse an orphan or a bad id)."""
    store.checkpoint()
    with open_visit(store.path, readonly=True) as other:
        return other.visit


def test_model_refuses_a_reference_that_is_not_a_uuid_or_names_nothing(live):
    v, store = live
    x0, y0 = (float(c) for c in v.frame.to_local(-89.4, 43.07))
    ring = [(x0, y0), (x0 + 20, y0), (x0 + 20, y0 + 20)]
    with pytest.raises(InvalidValue, match="walk_uuid"):
        v.add_area(AreaKind.WETLAND, ring, walk_uuid="walk-1")
    with pytest.raises(InvalidValue, match="no walk with uuid"):
        v.add_area(AreaKind.WETLAND, ring, walk_uuid=str(uuidlib.uuid4()))
    t = v.add_transect(90.0, origin=(x0, y0))
    s = v.add_station(t.uuid, horizontal_ft=30, slope_pct=10)
    with pytest.raises(InvalidValue, match="transect_uuid: is set by the model"):
        v.update_feature(Layer.STATION, s.uuid, transect_uuid=str(uuidlib.uuid4()))
    with pytest.raises(InvalidValue, match="line_uuid"):
        v.update_feature(Layer.TRANSECT, t.uuid, line_uuid="line 1")
    assert len(v) == 2 and len(reopen_ok(store)) == 2


def test_restoring_a_station_of_a_deleted_transect_is_refused(live):
    v, store = live
    x0, y0 = (float(c) for c in v.frame.to_local(-89.4, 43.07))
    t = v.add_transect(90.0, origin=(x0, y0))
    s = v.add_station(t.uuid, horizontal_ft=30, slope_pct=10)
    v.delete(Layer.TRANSECT, t.uuid)  # takes its station with it
    with pytest.raises(StateError, match="transect .* is not in the visit"):
        v.restore(s.uuid)
    assert len(v) == 0 and len(reopen_ok(store)) == 0
    v.restore(t.uuid)
    v.restore(s.uuid)  # parent first: fine
    assert v.stations(t.uuid) == [s] and len(reopen_ok(store)) == 2


def test_undoing_start_walk_takes_the_vertices_walked_since(live):
    v, store = live
    x0, y0 = (float(c) for c in v.frame.to_local(-89.4, 43.07))
    w = v.start_walk(AreaKind.WETLAND, spacing_ft=3)
    for dx, dy in [(0, 0), (20, 0), (20, 20)]:
        w.feed_xy(x0 + dx, y0 + dy)
    assert len(v.features(Layer.WALK_VERTEX)) == 3
    v.undo()  # the walk goes, and with it every vertex (none left pointing at nothing)
    assert v.features(Layer.WALK) == [] and v.features(Layer.WALK_VERTEX) == []
    assert len(reopen_ok(store)) == 0


def test_each_refused_row_is_named_by_its_own_fid_and_uuid(full_file):
    # store/load.py once recorded a refusal through a function defined in the loop over the rows
    # that read the loop's fid and uuid when called (ruff B023): right only while every call
    # stays in its own row's turn, which it did. The refusals are now kept per row and named
    # after it; this holds the naming, for the old code and the new alike.
    conn = st_connect(full_file)
    stations = conn.execute("SELECT fid, uuid FROM station ORDER BY fid").fetchall()
    conn.close()
    assert len(stations) == 3  # fill(): one transect, three stations
    (f1, u1), (f2, u2), (f3, u3) = stations
    sabotage(full_file, "UPDATE station SET created_utc = 'yesterday' WHERE fid = ?", f1)
    sabotage(full_file, "UPDATE station SET modified_utc = 'noon', geom = x'00' WHERE fid = ?", f3)
    problems = refused(full_file)
    assert [(p.table, p.fid, p.uuid, p.column) for p in problems] == [
        ("station", f1, u1, "created_utc"), ("station", f3, u3, "modified_utc"), ("station", f3, u3, "geom")]
    assert all(p.fid != f2 for p in problems)  # the good row between them is named nowhere
