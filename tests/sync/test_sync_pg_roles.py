"""Crew roles of a PostGIS office against each other and against the office's logs (issue 30,
item 5), mounted as real login roles on the test server: crew A is assigned site-a, crew B
site-b (``fieldapp sync --grant``), each connects as itself over the socket.

- B holding the site-a advisory key the sync used to take, and B's ``LOCK TABLE`` on the
  office tables, do not stop A's sync (the lock is a lease taken through the office's
  function, :mod:`fieldapp.sync.pgroles`);
- A cannot delete, rewrite or forge its site's change log, sync log or audit rows;
- ``SET fieldapp.applying = 'on'`` no longer hides an edit from the change log, and the office's
  own apply mark cannot be taken or kept without appending a log entry;
- an office made before all this is upgraded by ``fieldapp sync --office URL --upgrade-office``.
"""

from __future__ import annotations

import contextlib
import threading
import uuid

import psycopg
import pytest
from psycopg import sql

from fieldapp.sync import OfficeLocked, PostgisOffice, SyncError, checkout, sync
from fieldapp.sync.cli import main as cli_main
from fieldapp.sync.office import LockOwner
from tests.sync import sync_sample as S
from tests.sync.test_sync_postgis import generic  # noqa: F401  (the fixture)

REFUSED = psycopg.errors.InsufficientPrivilege


def _role(office: PostgisOffice, prefix: str) -> str:
    role = f"{prefix}_{uuid.uuid4().hex[:8]}"
    with contextlib.closing(office.connect()) as conn, conn:
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(role)))
    return role


def _url(pg_url: str, role: str) -> str:
    url = pg_url.replace("postgres@", f"{role}@", 1)
    assert f"{role}@" in url
    return url


@pytest.fixture
def crews(pg_url, tmp_path, generic):  # noqa: F811
    """(office, crew A's office, crew B's office, A's laptop copy of site-a, B's of site-b)."""
    office = PostgisOffice(pg_url, create=True)
    sync(S.make_visit(tmp_path / "a0.gpkg", trees=3), office)
    sync(S.make_visit(tmp_path / "b0.gpkg", site_id="site-b", trees=1), office)
    a_role, b_role = _role(office, "crew_a"), _role(office, "crew_b")
    assert cli_main(["--office", pg_url, "--grant", a_role, "--site", "site-a"]) == 0
    assert cli_main(["--office", pg_url, "--grant", b_role, "--site", "site-b"]) == 0
    a, b = PostgisOffice(_url(pg_url, a_role)), PostgisOffice(_url(pg_url, b_role))
    a_copy = checkout(a, "site-a", tmp_path / "crew-a.gpkg")
    b_copy = checkout(b, "site-b", tmp_path / "crew-b.gpkg")
    return office, a, b, a_copy, b_copy


def q(office, query, *args):
    with contextlib.closing(office.connect()) as conn:
        return conn.execute(query, args or None).fetchall()


def add_tree(visit, dbh):
    with contextlib.closing(S.connect(visit)) as conn, conn:
        S.add_tree(conn, 1.0, 2.0, dbh, "X")


def refused(conn, statement, *args):
    """``statement`` run by the crew's connection is refused for lack of privilege."""
    with pytest.raises(REFUSED), conn.transaction():
        conn.execute(statement, args or None)


def test_another_sites_crew_holding_the_old_advisory_key_does_not_block_a_sync(crews):
    office, a, b, a_copy, _ = crews
    with contextlib.closing(b.connect(autocommit=True)) as attacker:
        for key in ("fieldapp:site-a", "fieldapp:site-b"):  # what the sync used to lock
            assert attacker.execute("SELECT pg_try_advisory_lock(hashtext(%s))", (key,)).fetchone() == (True,)
        add_tree(a_copy, 31.0)
        assert sync(a_copy, a, lock_wait_s=1).office_seq == 2  # not "being synced by a stale holder"
        # the lock itself: only through the office's function, which refuses another site
        refused(attacker, "SELECT * FROM fieldapp_office.take_site_lock('site-a', 'h', 1, 'l', 's', 't')")
        refused(attacker, "SELECT * FROM fieldapp_office.lock_owners")
        refused(attacker, "UPDATE fieldapp_office.lock_owners SET backend_pid = pg_backend_pid()")
    assert q(office, 'SELECT dbh_in FROM "site-a".tree ORDER BY fid DESC LIMIT 1') == [(31.0,)]


def test_lock_table_on_the_office_tables_is_refused_or_harmless(crews):
    office, a, b, a_copy, b_copy = crews
    with contextlib.closing(b.connect()) as attacker:  # one open transaction, as long as it likes
        for table in ("fieldapp_office.lock_owners", "fieldapp_office.applying"):
            refused(attacker, f"LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE")
            refused(attacker, f"LOCK TABLE {table} IN ROW SHARE MODE")
        refused(attacker, "LOCK TABLE fieldapp_office.sites IN SHARE MODE")
        refused(attacker, "SELECT * FROM fieldapp_office.sites FOR UPDATE")
        # what SELECT allows (ACCESS SHARE) is held open while both crews sync: no wait
        attacker.execute("LOCK TABLE fieldapp_office.sites IN ACCESS SHARE MODE")
        attacker.execute('LOCK TABLE "site-b".fieldapp_changesets IN ACCESS SHARE MODE')
        add_tree(a_copy, 32.0)
        assert sync(a_copy, a, lock_wait_s=1).office_seq == 2
        attacker.rollback()
    add_tree(b_copy, 33.0)
    assert sync(b_copy, b, lock_wait_s=1).office_seq == 2


def test_a_crew_holding_its_own_sites_lock_is_named_and_others_wait(crews):
    """What remains: a crew may hold its own site's lock; the next sync is told who holds it,
    and gets the lock as soon as the holder's connection ends (nothing left behind)."""
    office, a, _b, a_copy, _ = crews
    holder = a.connect(autocommit=True)
    (taken,) = holder.execute("SELECT taken FROM fieldapp_office.take_site_lock('site-a', 'truck-7', 4242,"
                              " 'lap-9', '2025-06-01T08:00:00Z', 't')").fetchone()
    assert taken is True
    with pytest.raises(OfficeLocked, match=r"being synced by truck-7 \(pid 4242, laptop lap-9\)"):
        sync(a_copy, a, lock_wait_s=0.3)
    holder.close()  # the laptop is switched off
    add_tree(a_copy, 34.0)
    assert sync(a_copy, a, lock_wait_s=5).office_seq == 2


def test_a_crew_cannot_delete_rewrite_or_forge_its_logs(crews):
    office, a, _b, a_copy, _ = crews
    add_tree(a_copy, 35.0)
    sync(a_copy, a)
    before = q(office, 'SELECT seq, changeset_id, crew, sha256 FROM "site-a".fieldapp_changesets ORDER BY seq')
    assert [r[0] for r in before] == [1, 2] and before[1][2].startswith("crew_a_")
    with contextlib.closing(a.connect(autocommit=True)) as crew:
        log = '"site-a".fieldapp_changesets'
        refused(crew, f"DELETE FROM {log} WHERE seq = 2")
        refused(crew, f"TRUNCATE {log}")
        refused(crew, f"UPDATE {log} SET crew = 'office' WHERE seq = 2")
        refused(crew, f"INSERT INTO {log} SELECT 3, 'x', laptop_id, crew, synced_by, applied_utc,"
                      f" received_utc, sha256, size_bytes, changeset FROM {log} WHERE seq = 2")
        refused(crew, 'DELETE FROM "site-a".fieldapp_sync_log')
        refused(crew, 'DELETE FROM "site-a".fieldapp_office_edits')
        refused(crew, 'DELETE FROM "site-a".fieldapp_tag_blocks')
        refused(crew, 'DELETE FROM "site-a".fieldapp_sync_schema')
        # the office's append function: only inside an apply this connection began, holding the lock
        refused(crew, "SELECT fieldapp_office.finish_apply('site-a', 3, 'x', 'l', 's', 'u', 'h', 0, ''::bytea)")
        refused(crew, "SELECT fieldapp_office.begin_apply('site-a', 3)")  # no lock held
        refused(crew, "SELECT * FROM fieldapp_office.claim_office_edits('site-a')")
        refused(crew, "SELECT fieldapp_office.check_site('site-a')")  # internal: not granted
    assert q(office, 'SELECT seq, changeset_id, crew, sha256 FROM "site-a".fieldapp_changesets ORDER BY seq') == before


def test_set_applying_no_longer_hides_an_edit_from_the_change_log(crews, tmp_path):
    office, a, _b, a_copy, _ = crews
    t1 = S.rows(a_copy, "tree", "uuid", order="fid")[0][0]
    with contextlib.closing(a.connect()) as crew, crew:
        crew.execute("SET LOCAL fieldapp.applying = 'on'")
        crew.execute('UPDATE "site-a".tree SET dbh_in = 77 WHERE uuid = %s', (t1,))
    (edit,) = q(office, 'SELECT layer, op, edited_by FROM "site-a".fieldapp_office_edits')
    assert edit[:2] == ("tree", "UPDATE") and edit[2].startswith("crew_a_")
    sync(a_copy, a)  # the edit is logged as the office's changeset, named by the crew role, and pulled
    assert S.by_uuid(a_copy, "tree")[t1]["dbh_in"] == 77.0
    assert q(office, "SELECT laptop_id, synced_by FROM \"site-a\".fieldapp_changesets WHERE seq = 2") == [
        ("office", edit[2])]


def test_the_apply_mark_commits_only_with_a_log_entry(crews):
    """A crew holding its own site's lock may begin an apply (its laptop does), but a transaction
    that wrote rows under the mark and appended no log entry does not commit, however it ends."""
    office, a, _b, _a_copy, _ = crews
    head = q(office, 'SELECT dbh_in FROM "site-a".tree ORDER BY fid')
    with contextlib.closing(a.connect(autocommit=True)) as crew:
        assert crew.execute("SELECT taken FROM fieldapp_office.take_site_lock('site-a', 'h', 1, 'l', 's', 't')"
                            ).fetchone() == (True,)
        refused(crew, "SELECT fieldapp_office.begin_apply('site-b', 2)")  # not its site
        refused(crew, "INSERT INTO fieldapp_office.applying VALUES (pg_backend_pid(), pg_current_xact_id(),"
                      " 'site-a', 2)")
        for trick in ("", "SET CONSTRAINTS ALL IMMEDIATE"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege, match="must end with its change-log entry"):
                with crew.transaction():
                    crew.execute("SELECT fieldapp_office.begin_apply('site-a', 2)")
                    crew.execute('UPDATE "site-a".tree SET dbh_in = 1')
                    crew.execute("SELECT * FROM fieldapp_office.claim_office_edits('site-a')")
                    if trick:
                        crew.execute(trick)
    assert q(office, 'SELECT dbh_in FROM "site-a".tree ORDER BY fid') == head
    assert q(office, 'SELECT max(seq) FROM "site-a".fieldapp_changesets') == [(1,)]


def test_a_session_setting_cannot_be_the_trust_for_the_office_either(crews):
    """Even the office role's session setting is now just a setting: the mark lives in a table."""
    office, *_ = crews
    with contextlib.closing(office.connect()) as conn, conn:
        conn.execute("SET LOCAL fieldapp.applying = 'on'")
        conn.execute('DELETE FROM "site-b".tree')
    assert q(office, 'SELECT op, count(*) FROM "site-b".fieldapp_office_edits GROUP BY op') == [("DELETE", 1)]


_OLD_AUDIT = """CREATE OR REPLACE FUNCTION "site-a".fieldapp_audit() RETURNS trigger LANGUAGE plpgsql AS $f$
BEGIN
  IF coalesce(current_setting('fieldapp.applying', true), '') = 'on' THEN RETURN NULL; END IF;
  INSERT INTO "site-a".fieldapp_office_edits (layer, op, old_row, new_row) VALUES (TG_TABLE_NAME, TG_OP,
    CASE WHEN TG_OP <> 'INSERT' THEN to_jsonb(OLD) END, CASE WHEN TG_OP <> 'DELETE' THEN to_jsonb(NEW) END);
  RETURN NULL;
END $f$"""


def test_an_office_made_before_is_upgraded_by_the_office(crews, pg_url, capsys):
    """An office as the previous release left it (no lock functions, the session-trusting audit
    trigger, crews granted every right on their schema and the lock-owner table): a crew's sync
    is refused in words until the office runs ``--upgrade-office``, which narrows the grants."""
    office, a, _b, a_copy, _ = crews
    crew_a = a.params["user"]
    with contextlib.closing(office.connect()) as conn, conn:
        conn.execute("DROP FUNCTION fieldapp_office.take_site_lock(text,text,integer,text,text,text)")
        conn.execute(_OLD_AUDIT)
        conn.execute(sql.SQL("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA {} TO {}").format(
            sql.Identifier("site-a"), sql.Identifier(crew_a)))
        conn.execute(sql.SQL("GRANT SELECT, INSERT, UPDATE ON fieldapp_office.lock_owners TO {}").format(
            sql.Identifier(crew_a)))
    add_tree(a_copy, 36.0)
    with pytest.raises(SyncError, match="--upgrade-office"):
        sync(a_copy, a)
    capsys.readouterr()
    assert cli_main(["--office", pg_url, "--upgrade-office"]) == 0
    out = capsys.readouterr().out
    assert f"{crew_a} on site site-a" in out and "on site site-b" in out
    with contextlib.closing(a.connect(autocommit=True)) as crew:
        refused(crew, 'DELETE FROM "site-a".fieldapp_changesets')
        refused(crew, "LOCK TABLE fieldapp_office.lock_owners")
        with crew.transaction():
            crew.execute("SET LOCAL fieldapp.applying = 'on'")
            crew.execute('UPDATE "site-a".tree SET dbh_in = 78 WHERE fid = 1')
    assert q(office, 'SELECT count(*) FROM "site-a".fieldapp_office_edits') == [(1,)]
    assert sync(a_copy, a).office_seq == 3  # seq 2: the audited edit, seq 3: the crew's tree
    assert cli_main(["--office", pg_url, "--upgrade-office"]) == 0  # again: nothing changes


def test_two_crews_of_one_site_still_take_turns(crews, pg_url, tmp_path):
    """The lease excludes like the advisory lock did: a second laptop of the site waits for the
    first, then pulls, rebases and pushes."""
    office, a, _b, a_copy, _ = crews
    second = checkout(a, "site-a", tmp_path / "second.gpkg")
    add_tree(a_copy, 37.0)
    add_tree(second, 38.0)
    result = {}
    with a.lock("site-a", LockOwner.here("first")):
        t = threading.Thread(target=lambda: result.setdefault("r", sync(second, a, lock_wait_s=60)),
                             name="fieldapp-test-second")
        t.start()
        t.join(0.5)
        assert t.is_alive()  # waiting for the lock
    t.join(60)
    assert result["r"].office_seq == 2
    assert sync(a_copy, a).office_seq == 3
