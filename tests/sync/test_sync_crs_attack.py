"""Geometry in the wrong CRS in a crafted visit is refused by the office (issue 30, item 12).

Mounted for real on a clean checkout of a site in EPSG:32616 (UTM 16N): the site row switched to
another CRS by hand, a tree whose geometry header names another srs_id, and (past the laptop's
own check, as a modified client would) a tree stored in longitude/latitude degrees. Each time the
office refuses the changeset by name and its master keeps its bytes.
"""

from __future__ import annotations

import contextlib
import hashlib
from pathlib import Path

import pytest
from shapely.geometry import Point

from fieldapp.store.schema import gpkg_blob
from fieldapp.sync import FolderOffice, VisitRefused, checkout, engine, sync
from tests.gpkgtools import st_connect
from tests.sync.test_sync_schema_attack import make_visit


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def site(tmp_path):
    office = FolderOffice(tmp_path / "office", create=True)
    a = make_visit(tmp_path / "a.gpkg")
    sync(a, office)
    site_id = engine.site_id_of(a)
    b = checkout(office, site_id, tmp_path / "b.gpkg")
    master = office.master_path(site_id)
    return office, b, master, sha(master)


def edit(path: Path, sql: str, *args) -> None:
    with contextlib.closing(st_connect(path)) as conn, conn:
        conn.execute(sql, args)


def test_a_site_row_switched_to_another_crs_is_refused(site):
    office, b, master, before = site
    edit(b, "UPDATE site SET crs = 'EPSG:32617'")
    with pytest.raises(VisitRefused, match=r"site CRS is 'EPSG:32617', the office's site is in 'EPSG:32616'"):
        sync(b, office)
    assert sha(master) == before


def test_a_geometry_in_another_srs_id_is_refused(site):
    office, b, master, before = site
    edit(b, "UPDATE tree SET geom = ? WHERE fid = (SELECT min(fid) FROM tree)",
         gpkg_blob(Point(500010.0, 4983000.0), 4326))
    with pytest.raises(VisitRefused, match=r"tree fid \d+: its geometry is in srs_id 4326, its layer in 32616"):
        sync(b, office)
    assert sha(master) == before


def test_lon_lat_degrees_in_a_utm_layer_are_refused_past_the_laptop_check(site, monkeypatch):
    office, b, master, before = site
    edit(b, "UPDATE tree SET geom = ? WHERE fid = (SELECT min(fid) FROM tree)",
         gpkg_blob(Point(-87.62, 41.88), 32616))
    monkeypatch.setattr(engine, "check_visit_file", lambda visit, **_: None)
    with pytest.raises(VisitRefused, match=r"tree fid \d+: x -87.62 to -87.62, y 41.88 to 41.88 lie outside"
                                           r" the area of use of 'WGS 84 / UTM zone 16N'"):
        sync(b, office)
    assert sha(master) == before


def test_a_visit_in_the_site_crs_still_syncs(site):
    office, b, master, before = site
    edit(b, "UPDATE tree SET geom = ? WHERE fid = (SELECT min(fid) FROM tree)",
         gpkg_blob(Point(500012.0, 4983001.0), 32616))
    sync(b, office)
    assert sha(master) != before
