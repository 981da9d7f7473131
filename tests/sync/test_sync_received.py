"""What arrives from the office is read through the store before the laptop's visit gets it.

A value the store refuses (a DBH of 'abc' or -5, a tree outside the site CRS's area of use) can
reach the office: a laptop whose file was changed behind its own check (an older fieldapp,
QGIS, sqlite3) sends it. The receiving laptop must refuse it on pull -- before anything is
written on either side -- naming layer, feature uuid and column and the changeset that set it,
with its visit byte-identical and still opened by the store, its own edits still queued; once
the sending laptop corrects the row and syncs, the next sync completes. A checkout of a master
holding such a row is refused too.

Visits are real store visits (:func:`fieldapp.store.create_visit`), edited through the model.
The sending laptop's check is bypassed the way an older fieldapp would skip it: its
``check_visit_file`` narrowed to the basics for that one sync.
"""

from __future__ import annotations

import contextlib
import hashlib
import sqlite3
import struct
from pathlib import Path

import pytest
import shapely

from fieldapp.store import open_visit
from fieldapp.store import schema as store_schema
from fieldapp.survey.features import Layer
from fieldapp.sync import (
    ConflictKind,
    ConflictPolicy,
    FolderOffice,
    InvalidOfficeData,
    InvalidOfficeRecords,
    VisitRefused,
    checkout,
    engine,
    gpkgsql,
    read_conflicts,
    sync,
)
from fieldapp.sync import office as office_module
from tests.gpkgtools import st_connect
from tests.sync.test_sync_visit_check import X0, Y0, make_visit, record, sha

FEATURES = tuple(layer.value for layer in Layer)


def tree_row(path: Path, fid: int) -> dict:
    with contextlib.closing(st_connect(path)) as conn:
        conn.row_factory = sqlite3.Row
        return dict(conn.execute("SELECT * FROM tree WHERE fid = ?", (fid,)).fetchone())


def write(path: Path, sql: str, *args) -> None:
    """A write behind the app's back (sqlite3, as QGIS or a script would); GDAL's R-tree
    triggers need the ST_* functions."""
    with contextlib.closing(st_connect(path)) as conn, conn:
        gpkgsql.register(conn)
        conn.execute(sql, args)


def send_unchecked(visit: Path, office: FolderOffice):
    """Sync ``visit`` with its own store check skipped (an older fieldapp would send it)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(engine, "check_visit_file", lambda v, known_sha256=None: engine.check_visit_basics(v))
        return sync(visit, office)


def state_files(visit: Path) -> dict[str, str]:
    """SHA-256 of the visit and of every file in its ``.sync`` folder but the scratch ``work/``."""
    sync_dir = visit.with_name(visit.name + ".sync")
    files = {"visit": sha(visit)}
    for p in sorted(sync_dir.rglob("*")):
        if p.is_file() and "work" not in p.relative_to(sync_dir).parts:
            files[str(p.relative_to(sync_dir))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return files


@pytest.fixture
def site(tmp_path):
    """Laptop A made the visit (3 trees: 10, 11, 12 in) and synced it; B checked it out and
    synced (so B holds its validated.json record). Returns (office, a, b, site id)."""
    office = FolderOffice(tmp_path / "office", create=True)
    a = make_visit(tmp_path / "a.gpkg")
    site_id = sync(a, office).site_id
    b = checkout(office, site_id, tmp_path / "b.gpkg")
    assert sync(b, office).no_op
    return office, a, b, site_id


def srs_id(path: Path) -> int:
    with contextlib.closing(st_connect(path)) as conn:
        blob = conn.execute("SELECT geom FROM tree WHERE fid = 1").fetchone()[0]
    return struct.unpack("<i", blob[4:8])[0]  # GeoPackage 1.2, 2.1.3: srs_id after GP, version, flags


# (column, value written into A, what the refusal says). 'abc' is text in a REAL column; -5 is
# below the model's DBH limit (0.1 in); 5e7 m is far outside UTM 16N's area of use (x within
# about -0.39e6 .. 1.39e6 m). A NaN cannot be stored at all: SQLite turns it into NULL, which
# the column's NOT NULL refuses, so a 'NaN' could only arrive as text, like 'abc'.
BAD = {
    "text-dbh": ("dbh_in", "abc", "column dbh_in: 'abc' is not a number"),
    "negative-dbh": ("dbh_in", -5.0, r"column dbh_in: -5.0 outside \[0.1, 500.0\]"),
    "geometry-outside-crs": ("geom", None, "column geom: x: 50000000.0 is outside the area of use"),
}


@pytest.mark.parametrize("case", BAD, ids=list(BAD))
def test_bad_office_value_is_refused_on_pull_and_the_fix_then_arrives(site, case):
    office, a, b, site_id = site
    column, value, says = BAD[case]
    if column == "geom":
        value = store_schema.gpkg_blob(shapely.Point(5e7, 5e7), srs_id(a))
    t1 = tree_row(a, 1)
    write(a, f'UPDATE tree SET "{column}" = ? WHERE fid = 1', value)
    if column == "geom":
        # the office itself refuses coordinates off the site (issue 30 item 12), master unchanged
        head = office.head(site_id)
        with pytest.raises(VisitRefused, match="wrong CRS"):
            send_unchecked(a, office)
        assert office.head(site_id) == head
        # an office without that check (an older fieldapp's) takes it: the laptop still refuses it
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(office_module, "check_site_crs", lambda *a, **k: None)
            send_unchecked(a, office)  # seq 2 carries the bad value
    else:
        send_unchecked(a, office)  # seq 2 carries the bad value
    head, before = office.head(site_id), state_files(b)
    with pytest.raises(InvalidOfficeRecords, match=f"layer tree, feature {t1['uuid']} \\(fid 1\\), {says}") as err:
        sync(b, office)
    assert "office changeset seq 2" in str(err.value) and "nothing was applied" in str(err.value)
    (problem,) = err.value.problems
    assert (problem.table, problem.uuid, problem.column) == ("tree", t1["uuid"], column)
    assert isinstance(err.value, InvalidOfficeData)  # the existing "from the office" family
    # B: visit, base copy, state and record byte-identical, no pending sync; the store opens it
    assert state_files(b) == before and not (b.with_name("b.gpkg.sync") / "pending").exists()
    assert office.head(site_id) == head
    with open_visit(b, readonly=True) as store:
        assert store.visit.get(Layer.TREE, t1["uuid"]).dbh_in == 10.0
    # refused again, not half-applied, by a second try
    with pytest.raises(InvalidOfficeRecords):
        sync(b, office)
    assert state_files(b) == before
    # A corrects the row (it is A's row; A's own sync refuses A's visit until then) and syncs
    if column != "geom":
        with pytest.raises(VisitRefused):
            sync(a, office)
    write(a, f'UPDATE tree SET "{column}" = ? WHERE fid = 1',
          15.0 if column == "dbh_in" else t1["geom"])
    sync(a, office)
    report = sync(b, office)
    # base..seq 3 for tree fid 1: dbh_in 10 -> 15 (geometry: back where it was: no change at all)
    assert [(c.layer, c.received) for c in report.layers] == ([("tree", 1)] if column == "dbh_in" else [])
    assert tree_row(b, 1)[column] == (15.0 if column == "dbh_in" else t1["geom"])
    assert record(b)["sha256"] == sha(b)  # read through the store at the end, and recorded
    assert sync(b, office).no_op


def test_bad_office_value_refused_before_this_laptops_edits_are_sent(site):
    office, a, b, site_id = site
    t1 = tree_row(a, 1)["uuid"]
    with open_visit(b, who="b@laptop-b") as store:  # B's own edits, queued for the next sync
        new = store.visit.add_tree(x=X0 + 40, y=Y0 + 40, dbh_in=30.0, species_code="QURU").uuid
        store.visit.update_feature(Layer.TREE, tree_row(b, 2)["uuid"], species_code="ACRU")
    write(a, "UPDATE tree SET dbh_in = 'abc' WHERE fid = 1")
    send_unchecked(a, office)
    head, before = office.head(site_id), state_files(b)
    with pytest.raises(InvalidOfficeRecords, match=f"feature {t1} .*column dbh_in: 'abc' is not a number"
                       ".*This laptop's own edits are still in the visit"):
        sync(b, office)
    assert office.head(site_id) == head == 2  # nothing sent: the office has A's two syncs only
    assert state_files(b) == before
    with open_visit(b, readonly=True) as store:
        assert store.visit.get(Layer.TREE, new).dbh_in == 30.0
    write(a, "UPDATE tree SET dbh_in = 15.0 WHERE fid = 1")
    sync(a, office)
    report = sync(b, office)
    tree = {c.layer: c for c in report.layers}["tree"]
    # sent: B's new tree + B's species edit; received: A's dbh_in 10 -> 15 ('abc' came and went)
    assert (tree.sent, tree.received, report.office_seq) == (2, 1, 4)
    master = office.master_path(site_id)
    assert tree_row(master, 1)["dbh_in"] == 15.0 and tree_row(master, 2)["species_code"] == "ACRU"
    with open_visit(master, readonly=True) as store:
        assert store.visit.get(Layer.TREE, new).dbh_in == 30.0


def test_own_edit_of_the_bad_field_replaces_it_unless_the_office_value_wins(site):
    # what is checked is what the visit would become: B set the same field, so under the default
    # policy B's value replaces 'abc' (a same-field conflict recording 'abc' as theirs) and the
    # result is sound; under first-sync-wins the office's 'abc' would be written back: refused
    office, a, b, site_id = site
    t1 = tree_row(a, 1)["uuid"]
    write(a, "UPDATE tree SET dbh_in = 'abc' WHERE fid = 1")
    send_unchecked(a, office)
    with open_visit(b, who="b@laptop-b") as store:
        store.visit.update_feature(Layer.TREE, t1, dbh_in=13.0)
    before = state_files(b)
    with pytest.raises(InvalidOfficeRecords, match="'abc' is not a number -- set by office changeset seq 2"):
        sync(b, office, policy=ConflictPolicy.FIRST_SYNC_WINS)
    assert state_files(b) == before and office.head(site_id) == 2
    sync(b, office)
    assert tree_row(b, 1)["dbh_in"] == tree_row(office.master_path(site_id), 1)["dbh_in"] == 13.0
    (c,) = read_conflicts(b)
    assert (c.kind, c.feature_uuid, c.field, c.base, c.theirs, c.ours, c.kept) == (
        ConflictKind.SAME_FIELD, t1, "dbh_in", 10.0, "abc", 13.0, "ours")


def test_checkout_of_a_master_holding_a_bad_row_is_refused(site, tmp_path):
    # someone wrote the master directly (sqlite3 / QGIS on the office share)
    office, _a, _b, site_id = site
    master = office.master_path(site_id)
    uuid = tree_row(master, 2)["uuid"]
    write(master, "UPDATE tree SET dbh_in = 'abc' WHERE fid = 2")
    c = tmp_path / "c.gpkg"
    with pytest.raises(InvalidOfficeRecords, match=f"master of site {site_id}.*layer tree, feature {uuid}"
                       " \\(fid 2\\), column dbh_in: 'abc' is not a number.*Nothing was checked out"):
        checkout(office, site_id, c)
    assert not c.exists() and not c.with_name("c.gpkg.sync").exists()
    write(master, "UPDATE tree SET dbh_in = 11.0 WHERE fid = 2")
    checkout(office, site_id, c)
    with open_visit(c, readonly=True) as store:
        assert store.visit.get(Layer.TREE, uuid).dbh_in == 11.0


def test_bad_row_written_during_the_sync_is_kept_out_and_the_sync_finishes_later(site):
    # the visit is written while B's sync runs (after the office has B's changeset): the office's
    # update is rebased onto that write and checked on a scratch copy first; the refused result
    # is never applied, pending/ stays, and once the row is corrected the next sync finishes
    office, a, b, site_id = site
    with open_visit(a, who="a@laptop-a") as store:
        store.visit.update_feature(Layer.TREE, tree_row(a, 1)["uuid"], dbh_in=20.0)
    sync(a, office)
    with open_visit(b, who="b@laptop-b") as store:
        store.visit.update_feature(Layer.TREE, tree_row(b, 3)["uuid"], species_code="ACRU")
    seen = {}

    def progress(_fraction, message):
        if message == "office updated":
            write(b, "UPDATE tree SET dbh_in = 'abc' WHERE fid = 2")
            seen["visit"] = sha(b)

    with pytest.raises(InvalidOfficeRecords, match="column dbh_in: 'abc' is not a number.*visit was not changed"):
        sync(b, office, progress=progress)
    assert sha(b) == seen["visit"]  # nothing of the office's update was applied
    assert (b.with_name("b.gpkg.sync") / "pending" / "pending.json").exists()
    assert office.head(site_id) == 3  # B's changeset is in the office
    with pytest.raises(VisitRefused, match="dbh_in is 'abc'"):  # its own check names the row
        sync(b, office)
    write(b, "UPDATE tree SET dbh_in = 11.5 WHERE fid = 2")
    report = sync(b, office)
    assert report.resumed and not (b.with_name("b.gpkg.sync") / "pending").exists()
    sync(b, office)  # sends the corrected edit
    rows = {fid: tree_row(b, fid) for fid in (1, 2, 3)}
    assert [rows[f]["dbh_in"] for f in (1, 2, 3)] == [20.0, 11.5, 12.0] and rows[3]["species_code"] == "ACRU"
    master = office.master_path(site_id)
    assert [tree_row(master, f)["dbh_in"] for f in (1, 2, 3)] == [20.0, 11.5, 12.0]
    with open_visit(b, readonly=True):
        pass
