"""What a crew's database role may do in a PostGIS office, and the server-side functions through
which it does the rest (issue 30, item 5).

A crew role gets exactly what a sync needs, on the sites granted to it (:func:`crew_grants`):

- the layer tables of its site (and the visit's ``fieldapp_sync_conflicts``): read, insert,
  update, delete -- a changeset adds, edits and removes features;
- the visit's ``fieldapp_sync_log``: read, insert, update (a push appends its row and records
  the SHA-256), never delete;
- the change log ``fieldapp_changesets`` and the schema log: read only. A log entry is appended
  only by :func:`finish_apply <_FUNCTIONS>` (``fieldapp_office.finish_apply``), which names the
  crew by its login role (``session_user``), checks the seq is the next one, the SHA-256 and
  size of the bytes, and that this connection holds the site's lock;
- the tag blocks: read and insert; the audit table of office edits and the lock-owner table
  ``fieldapp_office.lock_owners``: nothing (so no ``LOCK TABLE`` on them, no rows deleted).

Every ``fieldapp_office`` function below is ``SECURITY DEFINER`` (it runs as the office role
that installed it), has ``search_path = pg_catalog, pg_temp`` (nothing a crew creates can stand
in for what it calls; every office object is schema-qualified) and first checks that the
calling login role (``session_user``: a crew cannot change it without superuser) may use the
site's schema (granted by the office with ``--grant``). EXECUTE is revoked from PUBLIC and
granted per crew.

**The site lock.** PostgreSQL's advisory locks are open to every role for every key, so a crew of
one site could hold another site's key; the sync no longer uses them. The lock is a lease in
``fieldapp_office.lock_owners``: the row names the holder's backend (pid and backend start time,
from ``pg_stat_activity``), and it is held while that backend lives -- a killed laptop's
connection ends and the lock is free, as before. It is taken only through
``fieldapp_office.take_site_lock`` (row lock ``FOR UPDATE NOWAIT`` inside the function: a busy
row is an answer "busy", never a wait), which refuses a site the caller may not use. What a crew
can still do: hold the lock of *its own* site as long as it likes (its own crew's syncs wait and
are told who holds it) -- no worse than a laptop left syncing.

**Who the change-log triggers trust.** The audit trigger used to skip rows when the session had
``SET fieldapp.applying = 'on'``, which any role may set. It now skips them only while a row of
``fieldapp_office.applying`` names this backend *and this transaction* (``pg_current_xact_id()``);
crews cannot write that table, only ``fieldapp_office.begin_apply`` can, and only for the
holder of the site's lock at the next seq. A deferred constraint trigger refuses to commit a
transaction whose row is still there, and ``finish_apply`` removes it while appending the log
entry: so every write the audit does not record is part of a transaction that appended a
change-log entry naming the crew. (Checking ``current_user``/``session_user`` in the trigger
would not do: the crew applying a changeset and the crew editing in QGIS are the same role.)
What remains: a crew holding its own site's lock can append an entry whose changeset differs
from the rows it wrote; only applying changesets on the server would close that.

The office installs or upgrades all of this with :func:`registry_ddl` (``PostgisOffice.initialize``,
``fieldapp sync --office URL --upgrade-office``), which also narrows the grants of every crew
role already assigned to a site and replaces each site's audit trigger function
(:func:`secure_existing_sites`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import psycopg
    from psycopg import sql as psql

#: The registry function every upgraded office has (its absence means: run --upgrade-office).
MARKER_FUNCTION = "fieldapp_office.take_site_lock(text,text,integer,text,text,text)"

#: The functions a crew may execute (signatures as ``GRANT EXECUTE ON FUNCTION`` wants them).
CREW_FUNCTIONS = (
    MARKER_FUNCTION,
    "fieldapp_office.release_site_lock(text)",
    "fieldapp_office.begin_apply(text,bigint)",
    "fieldapp_office.finish_apply(text,bigint,text,text,text,text,text,bigint,bytea)",
    "fieldapp_office.claim_office_edits(text)",
)

_DEFINER = "LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp"
#: How every office function that reads the applying marks is declared.
DEFINER = _DEFINER

_FUNCTIONS = (
    # the applying marks: one row per (backend, transaction) writing a changeset unaudited
    "CREATE TABLE IF NOT EXISTS fieldapp_office.applying (backend_pid integer NOT NULL,"
    " xid xid8 NOT NULL, site_id text NOT NULL, seq bigint, PRIMARY KEY (backend_pid, xid))",
    "ALTER TABLE fieldapp_office.lock_owners ADD COLUMN IF NOT EXISTS backend_pid integer,"
    " ADD COLUMN IF NOT EXISTS backend_start timestamptz",
    f"""CREATE OR REPLACE FUNCTION fieldapp_office.check_site(p_site text, p_new_ok boolean DEFAULT false)
RETURNS void {_DEFINER} AS $f$
DECLARE ns oid;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM fieldapp_office.sites s WHERE s.site_id = p_site) THEN
    -- a site not created yet: only a role that may create schemas here (the office) may lock it
    IF p_new_ok AND has_database_privilege(session_user, current_database(), 'CREATE') THEN RETURN; END IF;
    RAISE EXCEPTION 'role % may not use site % (no such site assigned to it)', session_user, p_site
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  SELECT n.oid INTO ns FROM pg_namespace n WHERE n.nspname = p_site;
  IF ns IS NULL OR NOT has_schema_privilege(session_user, ns, 'USAGE') THEN
    RAISE EXCEPTION 'role % may not use site %: it is not assigned to this crew', session_user, p_site
      USING ERRCODE = 'insufficient_privilege';
  END IF;
END $f$""",
    f"""CREATE OR REPLACE FUNCTION fieldapp_office.my_backend_start() RETURNS timestamptz {_DEFINER} AS $f$
BEGIN
  RETURN (SELECT a.backend_start FROM pg_stat_activity a WHERE a.pid = pg_backend_pid());
END $f$""",
    f"""CREATE OR REPLACE FUNCTION fieldapp_office.holds_site_lock(p_site text) RETURNS boolean {_DEFINER} AS $f$
BEGIN
  RETURN EXISTS (SELECT 1 FROM fieldapp_office.lock_owners l WHERE l.site_id = p_site
                 AND l.backend_pid = pg_backend_pid()
                 AND l.backend_start = fieldapp_office.my_backend_start());
END $f$""",
    f"""CREATE OR REPLACE FUNCTION fieldapp_office.take_site_lock(p_site text, p_host text, p_pid integer,
  p_laptop text, p_started text, p_token text)
RETURNS TABLE (taken boolean, holder_host text, holder_pid integer, holder_laptop text, holder_since text)
{_DEFINER} AS $f$
DECLARE r fieldapp_office.lock_owners;
BEGIN
  PERFORM fieldapp_office.check_site(p_site, true);
  INSERT INTO fieldapp_office.lock_owners (site_id) VALUES (p_site) ON CONFLICT (site_id) DO NOTHING;
  BEGIN
    SELECT * INTO r FROM fieldapp_office.lock_owners l WHERE l.site_id = p_site FOR UPDATE NOWAIT;
  EXCEPTION WHEN lock_not_available THEN  -- another laptop is taking or releasing it right now
    RETURN QUERY SELECT false, NULL::text, NULL::integer, NULL::text, NULL::text;
    RETURN;
  END;
  IF r.backend_pid IS NOT NULL AND NOT (r.backend_pid = pg_backend_pid()
         AND r.backend_start = fieldapp_office.my_backend_start())
     AND EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = r.backend_pid
                 AND a.backend_start = r.backend_start) THEN
    RETURN QUERY SELECT false, r.host, r.pid, r.laptop_id, r.started_utc;
    RETURN;
  END IF;
  UPDATE fieldapp_office.lock_owners l SET host = p_host, pid = p_pid, laptop_id = p_laptop,
    started_utc = p_started, token = p_token, backend_pid = pg_backend_pid(),
    backend_start = fieldapp_office.my_backend_start() WHERE l.site_id = p_site;
  RETURN QUERY SELECT true, p_host, p_pid, p_laptop, p_started;
END $f$""",
    f"""CREATE OR REPLACE FUNCTION fieldapp_office.release_site_lock(p_site text) RETURNS boolean {_DEFINER} AS $f$
BEGIN
  UPDATE fieldapp_office.lock_owners l SET backend_pid = NULL, backend_start = NULL
   WHERE l.site_id = p_site AND l.backend_pid = pg_backend_pid()
     AND l.backend_start = fieldapp_office.my_backend_start();
  RETURN FOUND;
END $f$""",
    f"""CREATE OR REPLACE FUNCTION fieldapp_office.head_of(p_site text) RETURNS bigint {_DEFINER} AS $f$
DECLARE h bigint;
BEGIN
  EXECUTE format('SELECT coalesce(max(seq), 0) FROM %I.fieldapp_changesets', p_site) INTO h;
  RETURN h;
END $f$""",
    f"""CREATE OR REPLACE FUNCTION fieldapp_office.begin_apply(p_site text, p_seq bigint) RETURNS void {_DEFINER} AS $f$
BEGIN
  PERFORM fieldapp_office.check_site(p_site);
  IF NOT fieldapp_office.holds_site_lock(p_site) THEN
    RAISE EXCEPTION 'role % does not hold the lock of site % on this connection; nothing was written',
      session_user, p_site USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF p_seq <> fieldapp_office.head_of(p_site) + 1 THEN
    RAISE EXCEPTION 'site % is at seq %, not %; sync again', p_site, fieldapp_office.head_of(p_site), p_seq - 1
      USING ERRCODE = 'serialization_failure';
  END IF;
  INSERT INTO fieldapp_office.applying VALUES (pg_backend_pid(), pg_current_xact_id(), p_site, p_seq);
END $f$""",
    f"""CREATE OR REPLACE FUNCTION fieldapp_office.finish_apply(p_site text, p_seq bigint, p_changeset_id text,
  p_laptop text, p_synced_by text, p_applied_utc text, p_sha256 text, p_size bigint, p_changeset bytea)
RETURNS void {_DEFINER} AS $f$
BEGIN
  DELETE FROM fieldapp_office.applying a WHERE a.backend_pid = pg_backend_pid()
     AND a.xid = pg_current_xact_id() AND a.site_id = p_site AND a.seq = p_seq;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'changeset seq % of site % was not begun with fieldapp_office.begin_apply in this'
      ' transaction; nothing was written', p_seq, p_site USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF encode(sha256(p_changeset), 'hex') <> p_sha256 OR length(p_changeset) <> p_size THEN
    RAISE EXCEPTION 'changeset seq % of site %: its bytes do not match its SHA-256 / size; nothing was written',
      p_seq, p_site USING ERRCODE = 'data_exception';
  END IF;
  EXECUTE format('INSERT INTO %I.fieldapp_changesets (seq, changeset_id, laptop_id, crew, synced_by,'
                 ' applied_utc, sha256, size_bytes, changeset) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)', p_site)
    USING p_seq, p_changeset_id, p_laptop, session_user::text, p_synced_by, p_applied_utc, p_sha256, p_size,
          p_changeset;
END $f$""",
    f"""CREATE OR REPLACE FUNCTION fieldapp_office.claim_office_edits(p_site text)
RETURNS TABLE (id bigint, layer text, old_row jsonb, new_row jsonb, edited_by text) {_DEFINER} AS $f$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM fieldapp_office.applying a WHERE a.backend_pid = pg_backend_pid()
                 AND a.xid = pg_current_xact_id() AND a.site_id = p_site) THEN
    RAISE EXCEPTION 'the office edits of site % are taken only inside a changeset apply (begin_apply)', p_site
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN QUERY EXECUTE format('DELETE FROM %I.fieldapp_office_edits e RETURNING e.id, e.layer, e.old_row,'
                              ' e.new_row, e.edited_by', p_site);
END $f$""",
    f"""CREATE OR REPLACE FUNCTION fieldapp_office.applying_ended() RETURNS trigger {_DEFINER} AS $f$
BEGIN
  IF EXISTS (SELECT 1 FROM fieldapp_office.applying a WHERE a.backend_pid = NEW.backend_pid AND a.xid = NEW.xid) THEN
    RAISE EXCEPTION 'writes to site % made as a changeset apply must end with its change-log entry'
      ' (fieldapp_office.finish_apply); nothing was written', NEW.site_id USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN NULL;
END $f$""",
    "DROP TRIGGER IF EXISTS ended ON fieldapp_office.applying",
    "CREATE CONSTRAINT TRIGGER ended AFTER INSERT ON fieldapp_office.applying DEFERRABLE INITIALLY DEFERRED"
    " FOR EACH ROW EXECUTE FUNCTION fieldapp_office.applying_ended()",
    "REVOKE ALL ON fieldapp_office.applying FROM PUBLIC",
    "REVOKE ALL ON fieldapp_office.lock_owners FROM PUBLIC",
    "REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA fieldapp_office FROM PUBLIC",
)


def registry_ddl() -> tuple[str, ...]:
    """The statements that install (or bring up to date) the office-wide table and functions;
    idempotent, run as the office role that owns ``fieldapp_office``."""
    return _FUNCTIONS


def audit_function_ddl(schema: str, edits_table: str) -> psql.Composed:
    """The site's audit trigger function (``CREATE OR REPLACE``): ``SECURITY DEFINER`` (a crew
    needs no right on the audit table), the editor named by ``session_user``, rows skipped only
    inside a changeset apply of this transaction (module docstring)."""
    from psycopg import sql

    return sql.SQL("""CREATE OR REPLACE FUNCTION {}.fieldapp_audit() RETURNS trigger {} AS $f$
BEGIN
  IF EXISTS (SELECT 1 FROM fieldapp_office.applying a WHERE a.backend_pid = pg_backend_pid()
             AND a.xid = pg_current_xact_id() AND a.site_id = {}) THEN
    RETURN NULL;
  END IF;
  INSERT INTO {} (layer, op, old_row, new_row, edited_by) VALUES (TG_TABLE_NAME, TG_OP,
    CASE WHEN TG_OP <> 'INSERT' THEN to_jsonb(OLD) END, CASE WHEN TG_OP <> 'DELETE' THEN to_jsonb(NEW) END,
    session_user);
  RETURN NULL;
END $f$""").format(sql.Identifier(schema), sql.SQL(_DEFINER), sql.Literal(schema),
                   sql.Identifier(schema, edits_table))


def crew_grants(role: str, site_id: str, table_names: list[str]) -> list[psql.Composed]:
    """The statements giving crew ``role`` exactly what a sync of ``site_id`` needs (module
    docstring); ``table_names`` are the site's GeoPackage tables (layers, meta, sync log,
    conflicts). Whatever the role had before on the site's tables is revoked first, so running
    this again narrows an older, wider grant."""
    from psycopg import sql

    from fieldapp.sync.files import LOG_TABLE

    r, s = sql.Identifier(role), sql.Identifier(site_id)
    out = [
        sql.SQL("REVOKE ALL ON ALL TABLES IN SCHEMA {} FROM {}").format(s, r),
        sql.SQL("REVOKE ALL ON ALL SEQUENCES IN SCHEMA {} FROM {}").format(s, r),
        sql.SQL("REVOKE ALL ON fieldapp_office.lock_owners FROM {}").format(r),
        sql.SQL("GRANT USAGE ON SCHEMA fieldapp_office TO {}").format(r),
        sql.SQL("GRANT SELECT ON fieldapp_office.sites TO {}").format(r),
        sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(s, r),
    ]
    out += [sql.SQL("GRANT EXECUTE ON FUNCTION {} TO {}").format(sql.SQL(f), r) for f in CREW_FUNCTIONS]
    for name in table_names:
        rights = "SELECT, INSERT, UPDATE" if name == LOG_TABLE else "SELECT, INSERT, UPDATE, DELETE"
        out.append(sql.SQL("GRANT {} ON {} TO {}").format(sql.SQL(rights), sql.Identifier(site_id, name), r))
    out += [
        sql.SQL("GRANT SELECT ON {}, {} TO {}").format(
            sql.Identifier(site_id, "fieldapp_changesets"), sql.Identifier(site_id, "fieldapp_sync_schema"), r),
        sql.SQL("GRANT SELECT, INSERT ON {} TO {}").format(sql.Identifier(site_id, "fieldapp_tag_blocks"), r),
    ]
    return out


def site_table_names(conn: psycopg.Connection[Any], site_id: str) -> list[str]:
    """The site's GeoPackage tables as the registry lists them (``fieldapp_office.sites``)."""
    row = conn.execute("SELECT tables_json FROM fieldapp_office.sites WHERE site_id = %s", (site_id,)).fetchone()
    return [t["name"] for t in row[0]] if row else []


def site_crews(conn: psycopg.Connection[Any], site_id: str) -> list[str]:
    """The roles the site's schema is granted to (its ACL's USAGE; owner and PUBLIC aside)."""
    return [r[0] for r in conn.execute(
        "SELECT DISTINCT g.rolname FROM pg_namespace n, aclexplode(n.nspacl) a JOIN pg_roles g"
        " ON g.oid = a.grantee WHERE n.nspname = %s AND a.privilege_type = 'USAGE'"
        " AND a.grantee <> n.nspowner ORDER BY 1", (site_id,))]


def secure_existing_sites(conn: psycopg.Connection[Any], edits_table: str) -> list[tuple[str, str]]:
    """Upgrade every site of an existing office (inside the caller's transaction, as the office
    role): replace its audit trigger function and narrow the grants of every role the site's
    schema is granted to (its ACL, owner and PUBLIC aside). Returns ``(site, role)`` pairs
    re-granted."""
    done = []
    sites = [r[0] for r in conn.execute("SELECT site_id FROM fieldapp_office.sites ORDER BY site_id")]
    for site_id in sites:
        if conn.execute("SELECT 1 FROM pg_tables WHERE schemaname = %s AND tablename = %s",
                        (site_id, edits_table)).fetchone() is None:
            continue
        conn.execute(audit_function_ddl(site_id, edits_table))
        roles = site_crews(conn, site_id)
        names = site_table_names(conn, site_id)
        for role in roles:
            for stmt in crew_grants(role, site_id, names):
                conn.execute(stmt)
            done.append((site_id, role))
    return done
