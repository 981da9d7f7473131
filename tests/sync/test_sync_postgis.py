"""The PostGIS office (issue 17): layout QGIS opens, one-transaction push, the CLI verbs, a real
store visit, passwords never on the command line.

A PostgreSQL server with PostGIS comes from ``tests/sync/conftest.py`` (``FIELDAPP_TEST_PG``
from ``.ci/run``, else a throwaway cluster); these tests FAIL under CI without one. The
three-laptop scenarios run against this office in ``test_sync.py`` (``any_site``).
"""

from __future__ import annotations

import contextlib
import threading

import psycopg
import pytest
from psycopg import sql

from fieldapp.sync import OfficeLocked, OfficeNotFound, PostgisOffice, checkout, engine, open_office, sync
from fieldapp.sync.cli import main as cli_main
from fieldapp.sync.errors import InvalidOfficeData
from fieldapp.sync.office import LockOwner
from tests.sync import sync_sample as S
from tests.sync.sync_site import basics_only


@pytest.fixture
def generic(monkeypatch):
    """Sync the generic GeoPackages of ``sync_sample`` (see ``test_sync.generic_visits``)."""
    monkeypatch.setattr(engine, "check_visit_file", basics_only)
    monkeypatch.setattr(engine, "check_received", lambda gpkg: None)


@pytest.fixture
def office(pg_url, tmp_path, generic):
    office = PostgisOffice(pg_url, create=True)
    a = S.make_visit(tmp_path / "a.gpkg", trees=3)
    sync(a, office)
    office.a = a
    return office


def q(office, query, *args):
    with contextlib.closing(office.connect()) as conn:
        return conn.execute(query, args or None).fetchall()


def test_layout_one_schema_per_site_postgis_geometry_gist_uuid_key(office):
    # a table per layer in schema "site-a", geometry typed in the site CRS (EPSG:32616)
    geoms = q(office, "SELECT f_table_name, type, srid FROM geometry_columns"
                      " WHERE f_table_schema = 'site-a' ORDER BY 1")
    assert geoms == [("station", "POINT", 32616), ("transect", "LINESTRING", 32616),
                     ("tree", "POINT", 32616)]
    gist = q(office, "SELECT tablename FROM pg_indexes WHERE schemaname = 'site-a'"
                     " AND indexdef LIKE '%USING gist%' ORDER BY 1")
    assert gist == [("station",), ("transect",), ("tree",)]
    pk = q(office, "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid"
                   " AND a.attnum = ANY(i.indkey) WHERE i.indrelid = '\"site-a\".tree'::regclass"
                   " AND i.indisprimary")
    assert pk == [("uuid",)]
    cols = [r[0] for r in q(office, "SELECT column_name FROM information_schema.columns WHERE"
                                    " table_schema = 'site-a' AND table_name = 'tree' ORDER BY ordinal_position")]
    assert cols == ["fid", "geom", "uuid", "created_utc", "modified_utc", "created_by", "dbh_in",
                    "species_code", "status"]
    # the three trees made at (500000 + i, 4800000 + i) with DBH 10, 11, 12 in
    trees = q(office, 'SELECT ST_X(geom), ST_Y(geom), dbh_in FROM "site-a".tree ORDER BY fid')
    assert trees == [(500000.0, 4800000.0, 10.0), (500001.0, 4800001.0, 11.0), (500002.0, 4800002.0, 12.0)]
    (log,) = q(office, 'SELECT seq, laptop_id, crew, length(changeset), sha256, size_bytes'
                       ' FROM "site-a".fieldapp_changesets')
    import json

    from fieldapp.sync.laptop import LaptopState

    laptop_id = json.loads((LaptopState(office.a).dir / "state.json").read_text())["laptop_id"]
    assert log[0] == 1 and log[2] == "postgres" and log[3] == log[5] and len(log[4]) == 64
    assert log[1] == laptop_id
    assert q(office, "SELECT to_regclass('\"site-a\".fieldapp_sync_conflicts') IS NOT NULL") == [(True,)]


def test_push_that_does_not_apply_changes_nothing(office, tmp_path):
    b = checkout(office, "site-a", tmp_path / "b.gpkg")
    with contextlib.closing(S.connect(b)) as conn, conn:
        conn.execute("UPDATE tree SET dbh_in = 40 WHERE fid = 1")
    # behind the sync's back, the office row changes (as if edited, not logged: a superuser with
    # the triggers off)
    with contextlib.closing(office.connect()) as conn, conn:
        conn.execute("SET LOCAL session_replication_role = replica")
        conn.execute('UPDATE "site-a".tree SET dbh_in = 99 WHERE fid = 1')
    with pytest.raises(InvalidOfficeData, match="does not apply cleanly"):
        sync(b, office)
    # one transaction: no log entry, no layer change, no sync-log row
    assert office.head("site-a") == 1
    assert q(office, 'SELECT count(*) FROM "site-a".fieldapp_sync_log') == [(1,)]
    assert q(office, 'SELECT dbh_in FROM "site-a".tree WHERE fid = 1') == [(99.0,)]


def test_second_laptop_waits_for_the_lock_then_pulls_rebases_and_pushes(office, tmp_path):
    b = checkout(office, "site-a", tmp_path / "b.gpkg")
    with contextlib.closing(S.connect(office.a)) as conn, conn:
        a_tree = S.add_tree(conn, 1.0, 2.0, 3.0, "A")
    with contextlib.closing(S.connect(b)) as conn, conn:
        b_tree = S.add_tree(conn, 4.0, 5.0, 6.0, "B")
    holder = PostgisOffice(office.url)
    owner = LockOwner.here("someone")
    with holder.lock("site-a", owner):
        with pytest.raises(OfficeLocked, match=r"being synced by .*laptop someone"):
            sync(b, office, lock_wait_s=0.2)
        done = threading.Event()
        result = {}

        def sync_b():
            result["b"] = sync(b, office, lock_wait_s=120)
            done.set()

        t = threading.Thread(target=sync_b, name="fieldapp-test-sync-b")
        t.start()
        assert not done.wait(0.5)  # still waiting: the lock is held (it cannot finish meanwhile)
    t.join(120)
    assert result["b"].office_seq == 2
    sync_a = sync(office.a, office)  # A pulls B's tree, rebases its own (fid remapped), pushes
    assert sync_a.office_seq == 3
    sync(b, office)
    trees = q(office, 'SELECT uuid FROM "site-a".tree ORDER BY uuid')
    assert sorted(u for (u,) in trees) == sorted([*S.by_uuid(b, "tree")])
    assert {a_tree, b_tree} <= {u for (u,) in trees} and len(trees) == 5
    assert len({f for (f,) in q(office, 'SELECT fid FROM "site-a".tree')}) == 5


def test_cli_verbs_on_a_postgis_office(pg_url, tmp_path, capsys, generic):
    a = S.make_visit(tmp_path / "a.gpkg", trees=2)
    assert cli_main(["--office", pg_url, "-q", str(a)]) == 1
    assert "not a fieldapp office" in capsys.readouterr().err
    assert cli_main(["--office", pg_url, "--init-office", "-q", str(a)]) == 0
    assert "office now at seq 1" in capsys.readouterr().out
    assert cli_main(["--office", pg_url, "--list"]) == 0
    assert capsys.readouterr().out.splitlines() == ["site-a\t(name unreadable)\thead 1"]
    b = tmp_path / "b.gpkg"
    assert cli_main(["--office", pg_url, "--checkout", "site-a", str(b)]) == 0
    assert S.by_uuid(b, "tree") == S.by_uuid(a, "tree")
    capsys.readouterr()
    with contextlib.closing(S.connect(a)) as conn, conn:
        conn.execute("UPDATE tree SET dbh_in = 20 WHERE fid = 1")
    with contextlib.closing(S.connect(b)) as conn, conn:
        conn.execute("UPDATE tree SET dbh_in = 21 WHERE fid = 1")
    assert cli_main(["--office", pg_url, "-q", str(a)]) == 0
    assert cli_main(["--office", pg_url, "-q", str(b)]) == 0
    capsys.readouterr()
    assert cli_main(["--office", pg_url, "--conflicts", str(b)]) == 0
    out = capsys.readouterr().out
    assert "same-field Trees (tree)" in out
    assert "DBH (in): before 10.0; office 20.0; this laptop 21.0; kept this laptop's" in out


def test_password_in_the_url_is_refused(capsys):
    with pytest.raises(ValueError, match="PGPASSFILE"):
        open_office("postgresql://crew2:secret@gis.example.org/survey")
    assert cli_main(["--office", "postgresql://crew2:secret@gis.example.org/survey", "--list"]) == 1
    err = capsys.readouterr().err
    assert "holds a password" in err and "secret" not in err


def test_unreachable_server_is_office_not_found(tmp_path):
    office = PostgisOffice(f"postgresql://nobody@/nodb?host={tmp_path}&port=1", connect_timeout_s=2)
    with pytest.raises(OfficeNotFound, match="cannot reach PostGIS office nobody@"):
        office.check_available()


def test_real_store_visit_round_trip(pg_url, tmp_path):
    """A visit the app recorded (the report's sample: OHWM, transects, trees, wetland...) syncs
    to PostGIS and checks out again with every layer's rows."""
    from tests.report.sample_visit import build_sample_visit

    visit = tmp_path / "v.gpkg"
    build_sample_visit(visit)
    site = _site_of(visit)
    office = PostgisOffice(pg_url, create=True)
    assert sync(visit, office).office_seq == 1
    copy = checkout(office, site, tmp_path / "c.gpkg")  # read through the store: it opens
    for layer in ("tree", "transect", "station"):
        assert S.by_uuid(copy, layer).keys() == S.by_uuid(visit, layer).keys(), layer
    with contextlib.closing(office.connect()) as conn:
        n = conn.execute(sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(site, "tree"))).fetchone()[0]
    assert n == len(S.by_uuid(visit, "tree")) == 4  # the sample's 4 trees


def _site_of(visit):
    from fieldapp.sync.laptop import site_id_of

    return site_id_of(visit)


def test_psycopg_is_what_we_talk_through(pg_url):
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT postgis_lib_version()").fetchone()[0].startswith("3.")


def test_office_edits_in_qgis_reach_the_laptops_with_conflicts_recorded(office, tmp_path):
    """The office edits the PostGIS tables as QGIS would (no fieldapp involved): tree fid 1's
    DBH 10 -> 10.5 in, a new tree with neither fid nor uuid, tree fid 3 deleted. Laptop B had
    set tree fid 1's DBH to 13 in offline: its sync receives every office edit and records
    the DBH clash (base 10, office 10.5, laptop 13; the laptop syncing later wins)."""
    from fieldapp.sync import ConflictKind, read_conflicts

    b = checkout(office, "site-a", tmp_path / "b.gpkg")
    t1, t3 = (S.rows(b, "tree", "uuid", order="fid")[i][0] for i in (0, 2))
    with contextlib.closing(S.connect(b)) as conn, conn:
        conn.execute("UPDATE tree SET dbh_in = 13 WHERE uuid = ?", (t1,))
    with contextlib.closing(office.connect()) as qgis, qgis:
        qgis.execute('UPDATE "site-a".tree SET dbh_in = 10.5 WHERE uuid = %s', (t1,))
        qgis.execute('INSERT INTO "site-a".tree (geom, dbh_in, species_code, status)'
                     " VALUES (ST_SetSRID(ST_MakePoint(500050, 4800050), 32616), 16, 'PIST', 'live')")
        qgis.execute('DELETE FROM "site-a".tree WHERE uuid = %s', (t3,))
    report = sync(b, office)
    assert report.office_seq == 3  # seq 2: the office's edits, seq 3: B's
    (office_log,) = q(office, "SELECT laptop_id, synced_by FROM \"site-a\".fieldapp_changesets WHERE seq = 2")
    assert office_log == ("office", "postgres")
    assert q(office, 'SELECT count(*) FROM "site-a".fieldapp_office_edits') == [(0,)]
    trees = S.by_uuid(b, "tree")
    assert t3 not in trees and len(trees) == 3
    (new,) = [t for t in trees.values() if t["species_code"] == "PIST"]
    assert len(new["uuid"]) == 32 and new["dbh_in"] == 16.0
    assert gpkg_point(new["geom"]) == (500050.0, 4800050.0)
    assert trees[t1]["dbh_in"] == 13.0  # last-sync-wins: B synced after the office's edit
    (c,) = [c for c in read_conflicts(b) if c.kind is ConflictKind.SAME_FIELD]
    assert (c.feature_uuid, c.field, c.base, c.theirs, c.ours) == (t1, "dbh_in", 10.0, 10.5, 13.0)
    # laptop A receives all of it, and the office's tables match
    sync(office.a, office)
    assert S.by_uuid(office.a, "tree") == trees
    assert q(office, 'SELECT dbh_in FROM "site-a".tree WHERE uuid = %s', t1) == [(13.0,)]
    # the office's new fid is the next one of the table (3 trees + 1 = fid 4)
    assert q(office, "SELECT fid FROM \"site-a\".tree WHERE species_code = 'PIST'") == [(4,)]


def gpkg_point(blob):
    from fieldapp.sync import gpkgsql

    p = gpkgsql.to_shapely(blob)
    return (p.x, p.y)


def test_each_crew_reads_and_writes_only_its_sites(office, pg_url, tmp_path, capsys):
    """Crew role ``crew_…`` (no superuser, no CREATE) is assigned site-a only: it syncs site-a
    (the log names it), lists only site-a, and a sync of site-b is refused with a message before
    anything is written."""
    import uuid

    role = f"crew_{uuid.uuid4().hex[:8]}"
    with contextlib.closing(office.connect()) as conn, conn:
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(role)))
    b_site = S.make_visit(tmp_path / "site-b.gpkg", site_id="site-b", trees=1)
    sync(b_site, office)  # the office's own site-b
    assert cli_main(["--office", pg_url, "--grant", role, "--site", "site-a"]) == 0  # the office assigns it
    crew_url = pg_url.replace("postgres@", f"{role}@", 1)
    assert f"{role}@" in crew_url
    assert f"assigned to crew role {role}" in capsys.readouterr().out
    assert cli_main(["--office", str(tmp_path), "--grant", role, "--site", "site-a"]) == 2  # a folder: no roles
    crew = PostgisOffice(crew_url)
    assert [s for s, _n, _h in crew.list_sites()] == ["site-a"]
    mine = checkout(crew, "site-a", tmp_path / "crew-a.gpkg")
    with contextlib.closing(S.connect(mine)) as conn, conn:
        S.add_tree(conn, 1.0, 2.0, 3.0, "X")
    assert sync(mine, crew).office_seq == 2
    assert q(office, 'SELECT crew FROM "site-a".fieldapp_changesets WHERE seq = 2') == [(role,)]
    # site-b: the office's laptop copy, synced by the crew's role
    with contextlib.closing(S.connect(b_site)) as conn, conn:
        S.add_tree(conn, 4.0, 5.0, 6.0, "Y")
    before = b_site.read_bytes()
    with pytest.raises(Exception, match=f"crew role {role} may not read or write site site-b"):
        sync(b_site, crew)
    assert office.head("site-b") == 1 and b_site.read_bytes() == before
    with pytest.raises(Exception, match="may not read or write site site-b"):
        checkout(crew, "site-b", tmp_path / "nope.gpkg")
    assert not (tmp_path / "nope.gpkg").exists()


def test_batch_parameters_are_the_statements_own():
    """:func:`pgsql.change_params` gives exactly :func:`pgsql.change_sql`'s parameters, for an
    insert, an update of two fields (one NULL before) and a delete."""
    from fieldapp.sync import changesets as cs
    from fieldapp.sync import pgsql

    table = pgsql.Table("tree", (pgsql.Column("fid", "integer", pk=True), pgsql.Column("uuid", "text"),
                                 pgsql.Column("dbh_in", "double"), pgsql.Column("status", "text")))
    entries = [
        {"table": "tree", "type": "insert", "changes": [{"column": 0, "new": 4}, {"column": 1, "new": "u4"},
                                                          {"column": 2, "new": 14.0}, {"column": 3, "new": None}]},
        {"table": "tree", "type": "update", "changes": [{"column": 0, "old": 2},
                                                          {"column": 2, "old": 11.0, "new": 12.5},
                                                          {"column": 3, "old": None, "new": "dead"}]},
        {"table": "tree", "type": "delete", "changes": [{"column": 0, "old": 3}, {"column": 1, "old": "u3"}]},
    ]
    gd = cs.new_geodiff()
    want = [[4, "u4", 14.0, None], [12.5, "dead", 2, 11.0, None], [3]]
    for e, w in zip(entries, want, strict=True):
        assert pgsql.change_sql("site-a", table, e, gd)[1] == pgsql.change_params(table, e, gd) == w
