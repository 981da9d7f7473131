"""A checkout refuses an office master that holds what fieldapp does not make (issue 30, item 1).

An office that took in a crafted visit before visits were checked holds its DBH-rewriting
triggers in the folder master or in the PostGIS template; without the check every new checkout
got them. Mounted for real: the triggers put into the master / template by hand, as such an
office holds them; the checkout is refused naming the trigger and leaves nothing behind.
"""

from __future__ import annotations

import contextlib

import psycopg
import pytest

from fieldapp.sync import FolderOffice, InvalidOfficeData, PostgisOffice, checkout, engine, sync
from fieldapp.sync.laptop import LaptopState
from tests.sync.test_sync_schema_attack import dbhs, make_visit, poison


def test_a_poisoned_folder_master_is_not_checked_out(tmp_path):
    office = FolderOffice(tmp_path / "office", create=True)
    a = make_visit(tmp_path / "a.gpkg")
    sync(a, office)
    site_id = engine.site_id_of(a)
    poison(office.master_path(site_id))            # as an office poisoned before the fix holds it
    dest = tmp_path / "b.gpkg"
    with pytest.raises(InvalidOfficeData, match=r'master of site .* holds what fieldapp does not make:'
                                                r' trigger "dbh_rewrite" on table tree, trigger "dbh_rewrite_upd"'):
        checkout(office, site_id, dest)
    assert not dest.exists() and not LaptopState(dest).dir.exists()


def test_a_clean_folder_master_is_still_checked_out(tmp_path):
    office = FolderOffice(tmp_path / "office", create=True)
    a = make_visit(tmp_path / "a.gpkg")
    sync(a, office)
    b = checkout(office, engine.site_id_of(a), tmp_path / "b.gpkg")
    assert dbhs(b) == [10.0, 11.0]


def test_a_poisoned_postgis_template_is_not_checked_out(pg_url, tmp_path):
    office = PostgisOffice(pg_url, create=True)
    a = make_visit(tmp_path / "a.gpkg")
    sync(a, office)
    site_id = engine.site_id_of(a)
    with contextlib.closing(psycopg.connect(pg_url)) as conn, conn:     # the template as taken before
        template = tmp_path / "template.gpkg"
        template.write_bytes(conn.execute("SELECT template FROM fieldapp_office.sites WHERE site_id = %s",
                                          (site_id,)).fetchone()[0])
        poison(template)
        conn.execute("UPDATE fieldapp_office.sites SET template = %s WHERE site_id = %s",
                     (template.read_bytes(), site_id))
    dest = tmp_path / "b.gpkg"
    with pytest.raises(InvalidOfficeData,
                       match=r'holds what fieldapp does not make: trigger "dbh_rewrite" on table tree'):
        checkout(office, site_id, dest)
    assert not dest.exists() and not LaptopState(dest).dir.exists()
