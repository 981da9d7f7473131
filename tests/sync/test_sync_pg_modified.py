"""Office edits in QGIS on the PostGIS office stamp ``modified_utc`` (issue 31, item 7): in the
office's table at once, with the time the audit logs the edit, and on the laptop that
receives it; a new feature gets ``created_utc`` / ``created_by``; a laptop's own times are
kept as sent. ``--upgrade-office`` gives an older office's sites the same stamping.

Needs PostgreSQL with PostGIS (``tests/sync/conftest.py``)."""

from __future__ import annotations

import contextlib
import re
from datetime import UTC, datetime

import pytest

from fieldapp.sync import PostgisOffice, checkout, engine, sync
from tests.sync import sync_sample as S
from tests.sync.sync_site import basics_only
from tests.sync.test_sync_postgis import q


@pytest.fixture
def office(pg_url, tmp_path, monkeypatch):
    """A PostGIS office with site-a: laptop A's three trees (the generic sample GeoPackage)."""
    monkeypatch.setattr(engine, "check_visit_file", basics_only)
    monkeypatch.setattr(engine, "check_received", lambda gpkg: None)
    office = PostgisOffice(pg_url, create=True)
    office.a = S.make_visit(tmp_path / "a.gpkg", trees=3)
    sync(office.a, office)
    return office

STAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


def _when(text):
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%f%z")


def test_an_office_edit_stamps_modified_utc_in_the_office_and_on_the_laptop(office, tmp_path):
    b = checkout(office, "site-a", tmp_path / "b.gpkg")
    t1, t2 = (S.rows(b, "tree", "uuid", order="fid")[i][0] for i in (0, 1))
    (before,) = q(office, 'SELECT created_utc, modified_utc, created_by FROM "site-a".tree WHERE uuid = %s', t1)
    start = datetime.now(UTC)
    with contextlib.closing(office.connect()) as qgis, qgis:
        qgis.execute('UPDATE "site-a".tree SET dbh_in = 10.5 WHERE uuid = %s', (t1,))
        qgis.execute('UPDATE "site-a".tree SET dbh_in = dbh_in WHERE uuid = %s', (t2,))   # no change
        qgis.execute('INSERT INTO "site-a".tree (geom, dbh_in, species_code, status)'
                     " VALUES (ST_SetSRID(ST_MakePoint(500050, 4800050), 32616), 16, 'PIST', 'live')")
        (edited_at,) = qgis.execute("SELECT to_char(now() AT TIME ZONE 'UTC',"
                                    " 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')").fetchone()
    (after,) = q(office, 'SELECT created_utc, modified_utc, created_by FROM "site-a".tree WHERE uuid = %s', t1)
    # the office's row: modified now, as the audit logs the edit; created untouched
    assert after[0] == before[0] and after[2] == before[2]
    assert STAMP.match(after[1]) and after[1] == edited_at and after[1] > before[1]
    assert _when(after[1]) >= start.replace(microsecond=start.microsecond // 1000 * 1000)
    logged = q(office, "SELECT new_row->>'modified_utc' FROM \"site-a\".fieldapp_office_edits"
                       " WHERE new_row->>'uuid' = %s", t1)
    assert logged == [(after[1],)]
    # an update that changed nothing is not an edit: its time stays
    (same,) = q(office, 'SELECT modified_utc FROM "site-a".tree WHERE uuid = %s', t2)
    assert same[0] == S.by_uuid(b, "tree")[t2]["modified_utc"]
    # the new tree: created and modified at the edit, by the office role
    (new,) = q(office, "SELECT created_utc, modified_utc, created_by FROM \"site-a\".tree WHERE species_code = 'PIST'")
    assert new == (edited_at, edited_at, "postgres@office")
    # the laptop that receives the edit has the office's times
    sync(b, office)
    trees = S.by_uuid(b, "tree")
    assert trees[t1]["modified_utc"] == after[1] and trees[t1]["dbh_in"] == 10.5
    (pist,) = [t for t in trees.values() if t["species_code"] == "PIST"]
    assert (pist["created_utc"], pist["modified_utc"], pist["created_by"]) == new


def test_a_laptops_own_times_are_kept_as_sent(office, tmp_path):
    b = checkout(office, "site-a", tmp_path / "b.gpkg")
    t1 = S.rows(b, "tree", "uuid", order="fid")[0][0]
    with contextlib.closing(S.connect(b)) as conn, conn:
        conn.execute("UPDATE tree SET dbh_in = 13, modified_utc = '2024-05-15T09:00:00.000Z' WHERE uuid = ?", (t1,))
    sync(b, office)
    assert q(office, 'SELECT dbh_in, modified_utc FROM "site-a".tree WHERE uuid = %s', t1) == [
        (13.0, "2024-05-15T09:00:00.000Z")]


def test_upgrade_office_gives_an_older_site_the_stamping(office, tmp_path):
    with contextlib.closing(office.connect()) as conn, conn:    # as an older fieldapp made it
        conn.execute('DROP FUNCTION "site-a".fieldapp_touch() CASCADE')   # and its triggers
    office.initialize()
    t1 = q(office, 'SELECT uuid FROM "site-a".tree ORDER BY fid LIMIT 1')[0][0]
    (before,) = q(office, 'SELECT modified_utc FROM "site-a".tree WHERE uuid = %s', t1)
    with contextlib.closing(office.connect()) as qgis, qgis:
        qgis.execute('UPDATE "site-a".tree SET dbh_in = 20 WHERE uuid = %s', (t1,))
    (after,) = q(office, 'SELECT modified_utc FROM "site-a".tree WHERE uuid = %s', t1)
    assert STAMP.match(after[0]) and after[0] > before[0]
