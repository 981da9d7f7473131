"""Photos travel by sync like any record (issue 16): laptop A attaches photos to a tree and to
the site, syncs to the office; laptop B, which attached its own photo meanwhile (same integer
key as A's first photo), syncs and has every photo, byte for byte, each still on its record
(the mapping views join by uuid, so a renumbered fid cannot move a photo to another tree). The
PostGIS office keeps the image in a bytea column."""

from __future__ import annotations

import contextlib
import sqlite3

from psycopg import sql

from fieldapp.app.photos import attach_files
from fieldapp.store import create_visit, open_visit
from fieldapp.survey.features import Layer
from fieldapp.survey.visit import Visit
from fieldapp.sync import FolderOffice, PostgisOffice, checkout, sync
from tests.gpkgtools import validate_gpkg
from tests.photo_sample import jpeg

X0, Y0 = 500000.0, 4983000.0  # UTM 16N


def _pairs(path, view):
    """(base uuid, photo uuid) of a mapping view, through its integer keys."""
    with contextlib.closing(sqlite3.connect(path)) as conn:
        return sorted(conn.execute(
            f'SELECT b.uuid, p.uuid FROM "{view}" m JOIN "{view.rsplit("_photo", 1)[0]}" b'
            ' ON b.fid = m.base_id JOIN photo p ON p.fid = m.related_id').fetchall())


def _start(tmp_path, office):
    visit = Visit.new("Mill Creek lot", crs="EPSG:32616", who="a@laptop-a")
    path_a = tmp_path / "a.gpkg"
    with create_visit(path_a, visit):
        oak = visit.add_tree(x=X0, y=Y0, dbh_in=14.0, species_code="QURU")
        maple = visit.add_tree(x=X0 + 10, y=Y0, dbh_in=9.0, species_code="ACSA")
    report = sync(path_a, office)
    path_b = checkout(office, report.site_id, tmp_path / "b.gpkg")
    return path_a, path_b, oak, maple


def test_a_photo_round_trips_to_the_second_laptop_on_its_record(tmp_path):
    office = FolderOffice(tmp_path / "office", create=True)
    path_a, path_b, oak, maple = _start(tmp_path, office)
    with open_visit(path_b, who="b@laptop-b") as store:   # B first: its photo takes fid 1
        (b_photo,) = attach_files(store.visit, [jpeg(tmp_path / "maple.jpg", size=(300, 200))],
                                  layer=Layer.TREE, uuid=maple.uuid).kept
    with open_visit(path_a, who="a@laptop-a") as store:   # A's first photo: fid 1 as well
        a_oak, = attach_files(store.visit, [jpeg(tmp_path / "oak.jpg", when="2024:05:14 10:02:00",
                                                 direction=45.0)],
                              layer=Layer.TREE, uuid=oak.uuid, caption="OHWM stain on the bark").kept
        a_site, = attach_files(store.visit, [jpeg(tmp_path / "site.jpg", size=(200, 100))],
                               layer=Layer.SITE).kept
    sync(path_b, office)        # B's photo reaches the office first
    sync(path_a, office)        # A's are rebased onto it: A's fid 1 collides and is renumbered
    sync(path_b, office)
    for path in (path_a, path_b):
        with open_visit(path, readonly=True) as store:
            v = store.visit
            assert [p.uuid for p in v.photos_of(Layer.TREE, oak.uuid)] == [a_oak.uuid]
            assert [p.uuid for p in v.photos_of(Layer.TREE, maple.uuid)] == [b_photo.uuid]
            assert [p.uuid for p in v.photos_of(Layer.SITE)] == [a_site.uuid]
            got = v.get(Layer.PHOTO, a_oak.uuid)
            assert got.data == a_oak.data and got.caption == "OHWM stain on the bark"
            assert got.direction_deg == 45.0 and got.taken_utc == a_oak.taken_utc
        assert _pairs(path, "tree_photo") == sorted([(oak.uuid, a_oak.uuid), (maple.uuid, b_photo.uuid)])
        assert _pairs(path, "site_photo") != []
        validate_gpkg(path)
    with contextlib.closing(sqlite3.connect(path_b)) as conn:   # the fids differ from A's copy
        fids_b = dict(conn.execute("SELECT uuid, fid FROM photo").fetchall())
    assert fids_b[b_photo.uuid] == 1 and fids_b[a_oak.uuid] != 1


def test_a_photo_round_trips_through_the_postgis_office(pg_url, tmp_path):
    office = PostgisOffice(pg_url, create=True)
    path_a, path_b, oak, _ = _start(tmp_path, office)
    with open_visit(path_a, who="a@laptop-a") as store:
        (p,) = attach_files(store.visit, [jpeg(tmp_path / "oak.jpg", direction=300.0)],
                            layer=Layer.TREE, uuid=oak.uuid, caption="root flare").kept
        site = store.visit.site.uuid
    sync(path_a, office)
    sync(path_b, office)
    from fieldapp.sync.laptop import site_id_of

    schema = site_id_of(path_a)
    with contextlib.closing(office.connect()) as conn:
        kind = conn.execute("SELECT data_type FROM information_schema.columns WHERE table_schema = %s"
                            " AND table_name = 'photo' AND column_name = 'data'", (schema,)).fetchone()
        row = conn.execute(sql.SQL("SELECT data, record_uuid, caption FROM {}").format(
            sql.Identifier(schema, "photo"))).fetchone()
    assert kind == ("bytea",)
    assert (bytes(row[0]), row[1], row[2]) == (p.data, oak.uuid, "root flare")
    with open_visit(path_b, readonly=True) as store:
        (back,) = store.visit.photos_of(Layer.TREE, oak.uuid)
        assert back.data == p.data and back.direction_deg == 300.0
        assert store.visit.site.uuid == site
    assert _pairs(path_b, "tree_photo") == [(oak.uuid, p.uuid)]
    validate_gpkg(path_b)
