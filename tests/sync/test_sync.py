"""Office sync (issue 7): three laptops, every order; policies; counts; locks; cancel; CLI.

Visits are made by ``tests/sync/sync_sample.py`` (GDAL-created layers with the store's shape).
Expected values are worked out by hand in the comments: every edit is either in the office or
in its conflicts table, never silently dropped.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pyogrio
import pytest
import shapely

from fieldapp.sync import (
    CancelToken,
    ConflictKind,
    ConflictPolicy,
    FolderOffice,
    LaptopStateError,
    OfficeLocked,
    SyncCancelled,
    gpkgsql,
    read_conflicts,
    sync,
)
from fieldapp.sync.cli import main as cli_main
from fieldapp.sync.office import LockOwner
from fieldapp.sync.pgoffice import PostgisOffice
from tests.gpkgtools import st_connect
from tests.sync import sync_sample as S
from tests.sync.sync_site import edit, master, pg_tables_match, snapshot

# the visit gate narrowed to its generic part for GDAL-made visits (tests/sync/conftest.py)
pytestmark = pytest.mark.usefixtures("generic_visits")


@pytest.mark.parametrize("order", list(itertools.permutations("ABC")), ids="".join)
def test_three_laptops_every_order(any_site, order):
    office, lap, (t1, t2, t3) = any_site
    upd = "UPDATE tree SET {} = ? WHERE uuid = ?"
    # A: new tree, new transect with a station (child by uuid), t1.dbh 20, t2.species, t3.dbh 31
    with contextlib.closing(S.connect(lap["A"])) as conn, conn:
        a_tree = S.add_tree(conn, 500100.0, 4800100.0, 14.0, "QUAL")
        a_transect = S.add_transect(conn, "TA", 180.0)
        a_station = S.add_station(conn, a_transect, 25.0, 12.5)
        conn.execute(upd.format("dbh_in"), (20.0, t1))
        conn.execute(upd.format("species_code"), ("QURU", t2))
        conn.execute(upd.format("dbh_in"), (31.0, t3))
    # B: new tree, t1.dbh 21 (same field as A, different value)
    with contextlib.closing(S.connect(lap["B"])) as conn, conn:
        b_tree = S.add_tree(conn, 500200.0, 4800200.0, 15.0, "FRPE")
        conn.execute(upd.format("dbh_in"), (21.0, t1))
    # C: new tree, t2.status (different field from A's), deletes t3 (which A edits)
    with contextlib.closing(S.connect(lap["C"])) as conn, conn:
        c_tree = S.add_tree(conn, 500300.0, 4800300.0, 16.0, "TIAM")
        conn.execute(upd.format("status"), ("dead", t2))
        conn.execute("DELETE FROM tree WHERE uuid = ?", (t3,))

    reports = {name: sync(lap[name], office) for name in order}
    for name in order:  # second round: everyone receives the rest
        sync(lap[name], office)

    m = master(office)
    trees = S.by_uuid(m, "tree")
    # 3 original - t3 (deleted: delete wins) + 3 new = 5 trees, each once
    assert sorted(trees) == sorted([t1, t2, a_tree, b_tree, c_tree])
    assert len(S.rows(m, "tree")) == 5
    # different fields of t2: both kept
    assert (trees[t2]["species_code"], trees[t2]["status"]) == ("QURU", "dead")
    # same field of t1: the laptop that synced later wins; the other value is a conflict record
    later, earlier = sorted("AB", key=order.index, reverse=True)
    value = {"A": 20.0, "B": 21.0}
    assert trees[t1]["dbh_in"] == value[later]
    conflicts = read_conflicts(m)
    same = [c for c in conflicts if c.kind is ConflictKind.SAME_FIELD]
    assert [(c.feature_uuid, c.field, c.base, c.theirs, c.ours, c.kept) for c in same] == [
        (t1, "dbh_in", 10.0, value[earlier], value[later], "ours")
    ]
    # t3: A's edit vs C's delete. The delete wins either way; A's edit is a conflict record.
    gone = [c for c in conflicts if c.feature_uuid == t3]
    assert len(gone) == 1 and gone[0].kept == "delete" and gone[0].field is None
    if order.index("A") > order.index("C"):  # A synced an edit to a feature already deleted
        assert gone[0].kind is ConflictKind.EDIT_VS_DELETE
        assert gone[0].ours["dbh_in"] == 31.0 and gone[0].theirs is None
    else:  # C synced a delete of a feature A had edited
        assert gone[0].kind is ConflictKind.DELETE_VS_EDIT
        assert gone[0].theirs["dbh_in"] == 31.0 and gone[0].ours is None
    assert gone[0].base["dbh_in"] == 12.0
    # the new transect's station follows it by uuid
    stations = S.by_uuid(m, "station")
    assert stations[a_station]["transect_uuid"] == a_transect
    assert a_transect in S.by_uuid(m, "transect")
    # three new trees were inserted at fid 4 on three laptops: fids were remapped, all distinct
    assert len({fid for (fid,) in S.rows(m, "tree", "fid")}) == 5
    # every laptop, after its second sync, matches the office exactly
    want = snapshot(m)
    for name in "ABC":
        assert snapshot(lap[name]) == want, name
    # counts: each first-round sync sent its edits; the last of A/B reports the t1 conflict
    # A made 3 inserts + 3 updates; after C's delete of t3 its t3 edit is a conflict, not sent
    assert reports["A"].totals().sent == (6 if order.index("A") < order.index("C") else 5)
    assert reports["B"].totals().sent == 2 and reports["C"].totals().sent == 3
    tree_counts = {c.layer: c for c in reports[later].layers}["tree"]
    # the t1 dbh clash; and when A is the later of A/B and syncs after C, its t3 edit of a tree
    # C already deleted is a conflict too
    assert tree_counts.conflicts == (2 if later == "A" and order.index("A") > order.index("C") else 1)
    # t2 was changed by A and C in different fields: whoever synced second merged it
    second = max("AC", key=order.index)
    assert {c.layer: c for c in reports[second].layers}["tree"].merged == 1
    # the office log has one entry per sync that sent something, each once, in order
    log = S.rows(m, "fieldapp_sync_log", "seq, changeset_id", order="seq")
    assert [s for s, _ in log] == [1, 2, 3, 4] and len({c for _, c in log}) == 4
    assert all(S.integrity(p) == "ok" for p in (m, *lap.values()))
    pg_tables_match(office, m)


def test_first_sync_wins_keeps_the_office_value(any_site):
    office, lap, (t1, _t2, _t3) = any_site
    edit(lap["A"], ("UPDATE tree SET dbh_in = 20 WHERE uuid = ?", (t1,)))
    edit(lap["B"], ("UPDATE tree SET dbh_in = 21 WHERE uuid = ?", (t1,)))
    sync(lap["A"], office)
    report = sync(lap["B"], office, policy=ConflictPolicy.FIRST_SYNC_WINS)
    # A synced 20 first: the office keeps 20; B's 21 is the conflict's "ours"
    assert S.by_uuid(master(office), "tree")[t1]["dbh_in"] == 20.0
    assert S.by_uuid(lap["B"], "tree")[t1]["dbh_in"] == 20.0
    (c,) = report.conflicts
    assert (c.base, c.theirs, c.ours, c.kept, c.policy) == (10.0, 20.0, 21.0, "theirs", "first-sync-wins")
    assert read_conflicts(lap["B"]) == read_conflicts(master(office)) == [c]
    assert S.integrity(master(office)) == "ok"


def test_geometry_conflict_keeps_both_geometries(any_site):
    office, lap, (t1, _t2, _t3) = any_site
    edit(lap["A"], ("UPDATE tree SET geom = ? WHERE uuid = ?", (S.gpkg_blob(shapely.Point(1, 2)), t1)))
    edit(lap["B"], ("UPDATE tree SET geom = ? WHERE uuid = ?", (S.gpkg_blob(shapely.Point(3, 4)), t1)))
    sync(lap["A"], office)
    sync(lap["B"], office, policy=ConflictPolicy.FIRST_SYNC_WINS)
    (c,) = read_conflicts(master(office))
    assert (c.field, c.theirs["wkt"], c.ours["wkt"]) == ("geom", "POINT (1 2)", "POINT (3 4)")
    assert c.base["wkt"] == "POINT (500000 4800000)"  # t1 was made at (500000, 4800000)
    # first-sync-wins wrote A's point back through GDAL's R-tree triggers: GDAL reads it back
    geoms = pyogrio.raw.read(master(office), layer="tree", where=f"uuid = '{t1}'")[2]
    assert shapely.from_wkb(geoms[0]).equals(shapely.Point(1, 2))
    with contextlib.closing(st_connect(master(office))) as conn:
        (box,) = conn.execute(
            "SELECT minx, miny FROM rtree_tree_geom r JOIN tree t ON r.id = t.fid WHERE t.uuid = ?", (t1,)
        ).fetchall()
    assert box == pytest.approx((1.0, 2.0))


def test_counts_noop_and_pull_only(any_site):
    office, lap, _ = any_site
    report = sync(lap["B"], office)
    assert report.no_op and report.layers == () and report.changeset_id is None
    with contextlib.closing(S.connect(lap["A"])) as conn, conn:
        S.add_tree(conn, 1.0, 2.0, 3.0, "X")
        S.add_tree(conn, 1.0, 3.0, 4.0, "Y")
    a = sync(lap["A"], office)
    assert [(c.layer, c.sent, c.received) for c in a.layers] == [("tree", 2, 0)]
    b = sync(lap["B"], office)  # pull only: nothing sent, no log row written
    assert [(c.layer, c.sent, c.received) for c in b.layers] == [("tree", 0, 2)]
    assert b.changeset_id is None and b.office_seq == a.office_seq == 2
    assert snapshot(lap["B"]) == snapshot(master(office))
    assert "received" in b.format()
    # a generic GeoPackage has no site name: the site is named by its id
    assert b.site_name == "" and b.format().splitlines()[0] == (
        f"site {b.site_id} <-> {office.describe()}: office now at seq 2")
    # the layer in the crew's words, its table beside it: "  Trees (tree)   0   2   0   0"
    assert [line.split() for line in b.format().splitlines()[2:]] == [
        ["Trees", "(tree)", "0", "2", "0", "0"], ["all", "layers", "0", "2", "0", "0"]]


def test_gdal_sees_the_layers_and_the_conflicts_table(site):
    office, lap, _ = site
    layers = dict(pyogrio.list_layers(master(office)))
    assert {"tree", "station", "transect", "fieldapp_sync_conflicts"} <= set(layers)
    assert pyogrio.read_info(master(office), layer="tree")["features"] == 3
    assert pyogrio.read_info(master(office), layer="tree")["crs"] == "EPSG:32616"


def test_gpkg_sql_functions_match_gdal_envelopes(tmp_path):
    # GDAL writes an envelope for a line; its bounds are (0, 0, 30, 40) by construction.
    import numpy as np

    path = tmp_path / "l.gpkg"
    line = shapely.LineString([(0, 40), (30, 0)])
    pyogrio.raw.write(str(path), np.array([shapely.to_wkb(line)], dtype=object), [], [],
                      layer="l", driver="GPKG", geometry_type="LineString", crs=S.SRS)
    with contextlib.closing(st_connect(path)) as conn:
        gpkgsql.register(conn)
        got = conn.execute("SELECT ST_MinX(geom), ST_MinY(geom), ST_MaxX(geom), ST_MaxY(geom),"
                           " ST_IsEmpty(geom) FROM l").fetchone()
    assert got == (0.0, 0.0, 30.0, 40.0, 0)
    assert gpkgsql.to_shapely(b"not a geometry") is None


# ---- locks ----------------------------------------------------------------------------------
def _write_lock(office, owner: LockOwner, age_s: float = 0.0) -> Path:
    path = office.root / "locks" / "site-a"      # named site folders: the lock apart (format 2)
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(owner.__dict__))
    if age_s:
        t = time.time() - age_s
        os.utime(path, (t, t))
    return path


def test_live_lock_refuses_with_owner_named(site):
    office, lap, _ = site
    _write_lock(office, LockOwner(socket.gethostname(), os.getpid(), "other", "2024-06-01T12:00:00Z", "t" * 32))
    with pytest.raises(OfficeLocked, match=f"pid {os.getpid()}"):
        sync(lap["B"], office, lock_wait_s=0.3)


def test_stale_lock_of_a_dead_process_is_broken(site):
    office, lap, _ = site
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()  # its pid is now free: the owner is gone
    lock = _write_lock(office, LockOwner(socket.gethostname(), child.pid, "x", "2024-06-01T12:00:00Z", "d" * 32))
    with contextlib.closing(S.connect(lap["B"])) as conn, conn:
        S.add_tree(conn, 1.0, 2.0, 3.0, "X")
    assert sync(lap["B"], office, lock_wait_s=5).totals().sent == 1
    assert not lock.exists()


def test_lock_of_another_host_is_stale_only_when_old(site):
    office, lap, _ = site
    owner = LockOwner("some-other-laptop", 4242, "x", "2024-06-01T12:00:00Z", "e" * 32)
    _write_lock(office, owner, age_s=5)
    with pytest.raises(OfficeLocked, match="some-other-laptop"):
        sync(lap["B"], office, lock_wait_s=0.2)
    _write_lock(office, owner, age_s=office.stale_lock_after_s + 60)
    assert sync(lap["B"], office, lock_wait_s=5).no_op


# ---- cancel ---------------------------------------------------------------------------------
def test_cancel_before_push_leaves_office_unchanged_and_next_sync_sends(site):
    office, lap, _ = site
    with contextlib.closing(S.connect(lap["B"])) as conn, conn:
        new = S.add_tree(conn, 1.0, 2.0, 3.0, "X")
    token = CancelToken()
    seen = []

    def progress(fraction, message):
        seen.append(message)
        if "preparing the changeset" in message:
            token.cancel()

    head = office.head("site-a")
    with pytest.raises(SyncCancelled):
        sync(lap["B"], office, progress=progress, cancel=token)
    assert office.head("site-a") == head and not (office.root / "locks" / "site-a").exists()
    report = sync(lap["B"], office)
    assert report.totals().sent == 1 and new in S.by_uuid(master(office), "tree")


def test_cancel_after_the_office_has_it_finishes_the_sync(site):
    office, lap, _ = site
    with contextlib.closing(S.connect(lap["B"])) as conn, conn:
        S.add_tree(conn, 1.0, 2.0, 3.0, "X")
    token = CancelToken()
    fractions = []

    def progress(fraction, message):
        fractions.append(fraction)
        if message == "office updated":
            token.cancel()

    report = sync(lap["B"], office, progress=progress, cancel=token)
    assert report.totals().sent == 1 and fractions[-1] == 1.0 and fractions == sorted(fractions)
    assert snapshot(lap["B"]) == snapshot(master(office))


# ---- laptop state, CLI ----------------------------------------------------------------------
def test_replaced_visit_is_refused_not_resent(site, tmp_path):
    office, lap, _ = site
    with contextlib.closing(S.connect(lap["B"])) as conn, conn:
        conn.execute("DELETE FROM fieldapp_sync_log")  # as if an old copy were restored
    with pytest.raises(LaptopStateError, match="sync log does not match"):
        sync(lap["B"], office)


def test_copied_visit_without_state_is_refused_with_advice(site, tmp_path):
    office, lap, _ = site
    copy = tmp_path / "copy.gpkg"
    copy.write_bytes(lap["A"].read_bytes())
    with pytest.raises(Exception, match="--checkout"):
        sync(copy, office)
    assert office.head("site-a") == 1


def test_independent_visit_of_the_same_site_merges_in(tmp_path):
    office = FolderOffice(tmp_path / "office", create=True)
    a = S.make_visit(tmp_path / "a.gpkg", trees=2, transects=0)
    b = S.make_visit(tmp_path / "b.gpkg", trees=3, transects=0)
    with contextlib.closing(st_connect(b)) as conn, conn:
        conn.execute("DELETE FROM metadata")  # the site's metadata comes from the office
    sync(a, office)
    report = sync(b, office, site_id="site-a")
    # 2 + 3 trees, B's three inserted at fids 1..3 were remapped after A's 1..2
    assert len(S.by_uuid(master(office), "tree")) == 5
    # B sent its 3 trees and received A's 2 trees and the site's 2 metadata rows
    assert [(c.layer, c.sent, c.received) for c in report.layers] == [("metadata", 0, 2), ("tree", 3, 2)]
    sync(a, office)
    assert snapshot(a) == snapshot(b) == snapshot(master(office))


def test_cli_sync_checkout_and_conflicts(site, tmp_path, capsys):
    office, lap, (t1, _t2, _t3) = site
    d = tmp_path / "d.gpkg"
    assert cli_main(["--office", str(office.root), "--checkout", "site-a", str(d)]) == 0
    edit(lap["A"], ("UPDATE tree SET dbh_in = 20 WHERE uuid = ?", (t1,)))
    edit(d, ("UPDATE tree SET dbh_in = 22 WHERE uuid = ?", (t1,)))
    assert cli_main(["--office", str(office.root), "-q", str(lap["A"])]) == 0
    assert cli_main(["--office", str(office.root), "-q", str(d)]) == 0
    out = capsys.readouterr().out
    assert "tree" in out and "conflict same-field" in out
    assert cli_main(["--office", str(office.root), "--conflicts", str(d)]) == 0
    assert "DBH (in): before 10.0; office 20.0; this laptop 22.0; kept this laptop's; id=" in capsys.readouterr().out
    assert cli_main(["--office", str(office.root), "--site", "../etc", str(d)]) == 1
    assert "not allowed" in capsys.readouterr().err


def test_fieldapp_cli_dispatches_sync(site, capsys):
    from fieldapp.cli import main

    office, lap, _ = site
    assert main(["sync", "--office", str(office.root), "-q", str(lap["C"])]) == 0
    assert "nothing to send or receive" in capsys.readouterr().out


@pytest.mark.parametrize("choice, want", [("keep-mine", 21.0), ("keep-theirs", 20.0), ("19.5", 19.5)])
def test_resolve_a_conflict_syncs_as_an_edit_and_marks_it_resolved_everywhere(any_site, capsys, choice, want):
    """A sets t1's DBH to 20 in, B to 21 in; B syncs later: the office keeps 21 (last sync wins),
    the record has theirs 20, ours 21. B resolves it; the value and the resolved mark reach the
    office and laptop A by ordinary syncs."""
    office, lap, (t1, _t2, _t3) = any_site
    edit(lap["A"], ("UPDATE tree SET dbh_in = 20 WHERE uuid = ?", (t1,)))
    edit(lap["B"], ("UPDATE tree SET dbh_in = 21 WHERE uuid = ?", (t1,)))
    sync(lap["A"], office)
    sync(lap["B"], office)
    (c,) = read_conflicts(lap["B"])
    where = office.url if isinstance(office, PostgisOffice) else str(office.root)
    assert cli_main(["--office", where, "--resolve", c.uuid[:8], choice, str(lap["B"])]) == 0
    assert f"conflict {c.uuid[:8]} (tree {t1} dbh_in) resolved" in capsys.readouterr().out
    assert cli_main(["--office", where, "--resolve", c.uuid[:8], "keep-mine", str(lap["B"])]) == 1
    assert "already resolved" in capsys.readouterr().err
    sync(lap["B"], office)
    sync(lap["A"], office)
    for path in (lap["A"], lap["B"], master(office)):
        assert S.by_uuid(path, "tree")[t1]["dbh_in"] == want
        (r,) = read_conflicts(path)
        assert r.resolved_utc is not None and r.resolution.startswith(choice)
    pg_tables_match(office, master(office))


def test_resolve_refuses_a_value_the_field_cannot_take(site, capsys):
    office, lap, (t1, _t2, _t3) = site
    edit(lap["A"], ("UPDATE tree SET dbh_in = 20 WHERE uuid = ?", (t1,)))
    edit(lap["B"], ("UPDATE tree SET dbh_in = 21 WHERE uuid = ?", (t1,)))
    sync(lap["A"], office)
    sync(lap["B"], office)
    (c,) = read_conflicts(lap["B"])
    before = lap["B"].read_bytes()
    assert cli_main(["--office", str(office.root), "--resolve", c.uuid, "twenty", str(lap["B"])]) == 1
    assert "dbh_in of tree takes a number, not 'twenty'" in capsys.readouterr().err
    assert lap["B"].read_bytes() == before
    # "nan" and "inf" parse as floats, and no DBH is either (it was a NOT NULL error)
    for text in ("nan", "inf"):
        assert cli_main(["--office", str(office.root), "--resolve", c.uuid, text, str(lap["B"])]) == 1
        assert f"dbh_in of tree takes a number, not {text!r}" in capsys.readouterr().err
        assert lap["B"].read_bytes() == before
    # the choice left out: the visit is not taken as the value to write
    assert cli_main(["--office", str(office.root), "--resolve", c.uuid, str(lap["B"])]) == 2
    assert "--resolve takes the conflict ID and a choice" in capsys.readouterr().err
    assert lap["B"].read_bytes() == before
