"""Geometry in the wrong CRS in a crafted visit is refused by the PostGIS office too (issue 30,
item 12), which writes a push's rows straight from its changeset.

Mounted for real on a PostgreSQL site in EPSG:32616 (UTM 16N), pushed by a clean checkout: the
site row switched to another CRS, a tree whose geometry header names another srs_id, and (past
the laptop's own check, as a modified client would) a tree stored in longitude/latitude degrees.
Each time the office refuses the changeset by name, and its tables and change log are unchanged.
"""

from __future__ import annotations

import contextlib

import pytest
from shapely.geometry import Point

from fieldapp.store.schema import gpkg_blob
from fieldapp.sync import PostgisOffice, VisitRefused, checkout, engine, sync
from tests.sync.test_sync_crs_attack import edit
from tests.sync.test_sync_schema_attack import make_visit


def state(office: PostgisOffice, site_id: str) -> tuple[object, ...]:
    """The office's head, its site CRS and every tree's position, as PostgreSQL holds them."""
    with contextlib.closing(office.connect()) as conn:
        trees = conn.execute(f'SELECT fid, ST_AsText(geom) FROM "{site_id}".tree ORDER BY fid').fetchall()
        crs = conn.execute(f'SELECT crs FROM "{site_id}".site').fetchall()
    return office.head(site_id), crs, trees


@pytest.fixture
def site(pg_url, tmp_path):
    office = PostgisOffice(pg_url, create=True)
    a = make_visit(tmp_path / "a.gpkg")
    sync(a, office)
    site_id = engine.site_id_of(a)
    b = checkout(office, site_id, tmp_path / "b.gpkg")
    return office, site_id, b, state(office, site_id)


def test_a_site_row_switched_to_another_crs_is_refused(site):
    office, site_id, b, before = site
    edit(b, "UPDATE site SET crs = 'EPSG:32617'")
    with pytest.raises(VisitRefused, match=r"site CRS is 'EPSG:32617', the office's site is in 'EPSG:32616'"):
        sync(b, office)
    assert state(office, site_id) == before


def test_a_geometry_in_another_srs_id_is_refused(site):
    office, site_id, b, before = site
    edit(b, "UPDATE tree SET geom = ? WHERE fid = (SELECT min(fid) FROM tree)",
         gpkg_blob(Point(500010.0, 4983000.0), 4326))
    with pytest.raises(VisitRefused, match=r"tree fid \d+: its geometry is in srs_id 4326, its layer in 32616"):
        sync(b, office)
    assert state(office, site_id) == before


def test_lon_lat_degrees_in_a_utm_layer_are_refused_past_the_laptop_check(site, monkeypatch):
    office, site_id, b, before = site
    edit(b, "UPDATE tree SET geom = ? WHERE fid = (SELECT min(fid) FROM tree)",
         gpkg_blob(Point(-87.62, 41.88), 32616))
    monkeypatch.setattr(engine, "check_visit_file", lambda visit, **_: None)
    with pytest.raises(VisitRefused, match=r"tree fid \d+: x -87.62 to -87.62, y 41.88 to 41.88 lie outside"
                                           r" the area of use of 'WGS 84 / UTM zone 16N'"):
        sync(b, office)
    assert state(office, site_id) == before


def test_a_point_in_utm_range_but_far_from_the_site_is_refused(site, monkeypatch):
    office, site_id, b, before = site
    edit(b, "UPDATE tree SET geom = ? WHERE fid = (SELECT min(fid) FROM tree)",
         gpkg_blob(Point(500010.0, 4583000.0), 32616))    # 400 km south of the site
    monkeypatch.setattr(engine, "check_visit_file", lambda visit, **_: None)
    with pytest.raises(VisitRefused, match=r"far from the site's other records"):
        sync(b, office)
    assert state(office, site_id) == before


def test_a_visit_in_the_site_crs_still_syncs(site):
    office, site_id, b, before = site
    edit(b, "UPDATE tree SET geom = ? WHERE fid = (SELECT min(fid) FROM tree)",
         gpkg_blob(Point(500012.0, 4983001.0), 32616))
    sync(b, office)
    after = state(office, site_id)
    assert after[0] == before[0] + 1 and "POINT(500012 4983001)" in {t[1] for t in after[2]}
