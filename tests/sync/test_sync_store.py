"""Sync of real visit files written by :mod:`fieldapp.store` through the survey model.

Three laptops edit one visit through the model (what the app does), sync in turn, and each
reopens its file with :func:`fieldapp.store.open_visit`: the store accepts the synced file,
the model holds every edit, the conflict is in the conflicts table, GDAL reads every layer.
"""

from __future__ import annotations

import pyogrio
import pytest

from fieldapp.store import create_visit, inspect
from fieldapp.store import open_visit as _store_open_visit
from fieldapp.store.tagblock import tag_range_of
from fieldapp.survey.features import Layer
from fieldapp.survey.visit import Visit
from fieldapp.sync import ConflictKind, FolderOffice, checkout, read_conflicts, sync
from fieldapp.sync.engine import site_id_of


def open_visit(path, **kw):
    """The store's ``open_visit``, numbering new trees in the laptop copy's tag block as the app
    does (:func:`fieldapp.app.visit.open_visit`): laptops tallying offline never share a tag."""
    store = _store_open_visit(path, **kw)
    block = tag_range_of(path)
    if block is not None:
        store.visit.set_tag_block(*block)
    return store


X0, Y0 = 500000.0, 4983000.0  # UTM 16N, near 45 N 89 W


@pytest.fixture
def laptops(tmp_path):
    office = FolderOffice(tmp_path / "office", create=True)
    visit = Visit.new("Mill Creek lot", crs="EPSG:32616", who="a@laptop-a")
    path_a = tmp_path / "a.gpkg"
    store = create_visit(path_a, visit)
    t = visit.add_transect(90.0, origin=(X0, Y0))
    visit.add_station(t.uuid, horizontal_ft=30, slope_pct=4)
    trees = [visit.add_tree(x=X0 + 5 * i, y=Y0 + 5, dbh_in=10.0 + i, species_code="ACSA").uuid for i in range(3)]
    store.close()
    report = sync(path_a, office)
    paths = {"A": path_a}
    for name in "BC":
        paths[name] = checkout(office, report.site_id, tmp_path / f"{name.lower()}.gpkg")
    return office, paths, trees, report.site_id


def test_site_id_is_the_visits_site_uuid(laptops):
    _office, paths, _trees, site_id = laptops
    with open_visit(paths["B"]) as store:
        assert site_id == store.visit.site.uuid == site_id_of(paths["C"])


def test_three_laptops_edit_through_the_model(laptops):
    office, paths, (t1, t2, t3), site_id = laptops
    new = {}
    with open_visit(paths["A"], who="a@laptop-a") as store:
        new["A"] = store.visit.add_tree(x=X0 + 50, y=Y0 + 50, dbh_in=20.0, species_code="QURU").uuid
        store.visit.update_feature(Layer.TREE, t1, dbh_in=12.5)
    with open_visit(paths["B"], who="b@laptop-b") as store:
        new["B"] = store.visit.add_tree(x=X0 + 60, y=Y0 + 50, dbh_in=21.0, species_code="FRPE").uuid
        store.visit.update_feature(Layer.TREE, t1, dbh_in=13.0)  # same field as A: conflict
        store.visit.update_feature(Layer.TREE, t2, species_code="ACRU")
    with open_visit(paths["C"], who="c@laptop-c") as store:
        new["C"] = store.visit.add_tree(x=X0 + 70, y=Y0 + 50, dbh_in=22.0, species_code="TIAM").uuid
        store.visit.delete(Layer.TREE, t3)
        store.visit.update_feature(Layer.TREE, t2, dbh_in=11.5)  # other field than B's: merged
        c_t2_modified = store.visit.get(Layer.TREE, t2).modified_utc
    for name in "ABC":
        sync(paths[name], office)
    for name in "ABC":
        sync(paths[name], office)
    master = office.master_path(site_id)
    for name in "ABC":
        inspect(paths[name])  # the store still accepts the file
        with open_visit(paths[name]) as store:
            trees = {t.uuid: t for t in store.visit.features(Layer.TREE)}
            # 3 - t3 + 3 new; B synced after A, so B's 13.0 is kept and A's 12.5 is in conflicts
            assert sorted(trees) == sorted([t1, t2, *new.values()])
            assert trees[t1].dbh_in == 13.0 and (trees[t2].species_code, trees[t2].dbh_in) == ("ACRU", 11.5)
            # both touched t2's modified_utc: bookkeeping, the later time (C's edit) is kept
            assert trees[t2].modified_utc == c_t2_modified
    (c,) = read_conflicts(master)  # only the real one: no record for modified_utc
    assert (c.kind, c.feature_uuid, c.field, c.base, c.theirs, c.ours) == (
        ConflictKind.SAME_FIELD, t1, "dbh_in", 10.0, 12.5, 13.0)
    assert pyogrio.read_info(master, layer="tree")["features"] == 5
    assert pyogrio.read_info(master, layer="tree")["crs"] == "EPSG:32616"


def test_synced_visits_and_the_office_master_pass_gdal_validator(laptops):
    from tests.gpkgtools import validate_gpkg

    office, paths, (t1, _t2, t3), site_id = laptops
    with open_visit(paths["B"], who="b@laptop-b") as store:
        store.visit.add_tree(x=X0 + 60, y=Y0 + 50, dbh_in=21.0, species_code="FRPE")
        store.visit.update_feature(Layer.TREE, t1, x=X0 - 20.0)
        store.visit.delete(Layer.TREE, t3)
    sync(paths["B"], office)
    sync(paths["A"], office)
    for path in (paths["A"], paths["B"], office.master_path(site_id)):
        validate_gpkg(path)
    # the pulled edits went through the triggers: A's index holds the moved and new trees only
    import contextlib

    from tests.gpkgtools import st_connect

    with contextlib.closing(st_connect(paths["A"])) as conn:
        n = conn.execute("SELECT count(*) FROM rtree_tree_geom").fetchone()[0]
        minx = conn.execute("SELECT min(minx) FROM rtree_tree_geom").fetchone()[0]
    assert n == 3 and minx == pytest.approx(X0 - 20.0, abs=0.1)


def test_a_stake_point_and_its_superseding_travel_to_the_other_laptops(laptops):
    from shapely.geometry import LineString

    from fieldapp.survey.stake import Target, guide
    from tests.store.test_store import Fix

    office, paths, _trees, _site = laptops
    with open_visit(paths["A"], who="a@laptop-a") as store:
        v = store.visit
        lon, lat = v.frame.to_lonlat(X0, Y0)
        fx, fy = v.frame.to_ft(X0), v.frame.to_ft(Y0)
        line = Target("bank_line", "Bank line", LineString([(fx - 0.2, fy - 50), (fx - 0.2, fy + 50)]))
        sp = v.add_stake_point(fix=Fix(float(lat), float(lon), quality=4), target=line,
                               guidance=guide(line, fx, fy, tolerance_ft=0.5))
    sync(paths["A"], office)
    sync(paths["B"], office)
    with open_visit(paths["B"], who="b@laptop-b") as store:
        (got,) = store.visit.stake_points()
        # right of a line digitised northward by 0.2 ft: +0.2
        assert got == sp and got.offset_ft == pytest.approx(0.2, abs=1e-6) and got.quality == 4
        moved = Target("bank_line", "Bank line", LineString([(fx - 5, fy - 50), (fx - 5, fy + 50)]))
        store.visit.mark_superseded([moved])
    sync(paths["B"], office)
    sync(paths["C"], office)
    with open_visit(paths["C"], readonly=True) as store:
        (got,) = store.visit.stake_points()
        assert got.uuid == sp.uuid and got.superseded is True
    assert pyogrio.read_info(paths["C"], layer="stake_point")["features"] == 1


def test_an_emptied_copy_keeps_the_schema_and_its_spatial_index_works(tmp_path):
    """``empty_tables`` (the first sync's empty base, and the new office master made from it):
    every row gone, sqlite_master the same (triggers and R-trees made again from their own
    text), GDAL's validator content, and a row added afterwards is in the spatial index."""
    import contextlib
    import shutil

    from fieldapp.sync.files import empty_tables
    from tests.gpkgtools import st_connect, validate_gpkg

    visit = Visit.new("Mill Creek lot", crs="EPSG:32616", who="a@laptop-a")
    path = tmp_path / "v.gpkg"
    create_visit(path, visit).close()
    with open_visit(path) as store:
        for i in range(50):
            store.visit.add_tree(x=X0 + i, y=Y0, dbh_in=8.0 + i % 5)
        for i in range(3):
            store.visit.add_note(f"stake {i}", x=X0, y=Y0 + i)
    with contextlib.closing(st_connect(path)) as conn, conn:   # a trigger of someone else's
        conn.execute("CREATE TABLE gone (uuid TEXT)")
        conn.execute("CREATE TRIGGER note_gone AFTER DELETE ON note BEGIN INSERT INTO gone VALUES (OLD.uuid); END")
    empty = tmp_path / "empty.gpkg"
    shutil.copyfile(path, empty)

    def schema(p):
        with contextlib.closing(st_connect(p)) as conn:
            return sorted(conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master").fetchall(),
                          key=lambda r: (r[0], r[1]))

    with contextlib.closing(st_connect(empty)) as conn, conn:
        empty_tables(conn, ["tree", "site", "note"])
    assert schema(empty) == schema(path)
    validate_gpkg(empty)
    with contextlib.closing(st_connect(empty)) as conn, conn:
        assert conn.execute("SELECT count(*) FROM tree").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM rtree_tree_geom").fetchone()[0] == 0
        # the note table, with a trigger that is not the index's, was emptied row by row
        assert conn.execute("SELECT count(*), (SELECT count(*) FROM gone),"
                            " (SELECT count(*) FROM rtree_note_geom) FROM note").fetchone() == (0, 3, 0)
    with contextlib.closing(st_connect(empty)) as conn:
        conn.execute("ATTACH DATABASE ? AS src", (str(path),))
        with conn:
            conn.execute("INSERT INTO main.tree SELECT * FROM src.tree WHERE fid = 7")
        assert conn.execute("SELECT count(*), min(minx) FROM rtree_tree_geom").fetchone() == (
            1, pytest.approx(X0 + 6, abs=0.01))


def test_a_copy_made_before_the_first_sync_is_refused_before_anything_is_written(tmp_path):
    """The tester's case: a visit copied before its first sync, then synced after the original:
    refused with the checkout advice before the visit, its folder or the office is touched."""
    import hashlib

    office = FolderOffice(tmp_path / "office", create=True)
    visit = Visit.new("Mill Creek lot", crs="EPSG:32616", who="a@laptop-a")
    a = tmp_path / "a.gpkg"
    create_visit(a, visit).close()
    copy = tmp_path / "copy" / "a.gpkg"
    copy.parent.mkdir()
    copy.write_bytes(a.read_bytes())
    site = sync(a, office).site_id
    before = hashlib.sha256(copy.read_bytes()).hexdigest()
    with pytest.raises(Exception,
                       match=r"copy of another laptop.s visit.*--adopt-copy \S*a.gpkg \S*a-office.gpkg") as exc:
        sync(copy, office)
    assert "Nothing was sent and nothing was changed" in str(exc.value)
    assert hashlib.sha256(copy.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in copy.parent.iterdir()) == ["a.gpkg"]     # no .sync folder
    assert office.head(site) == 1
