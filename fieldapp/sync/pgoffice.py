"""The office on PostgreSQL / PostGIS: :class:`PostgisOffice`, the second :class:`OfficeStore`.

Layout in the database (QGIS opens the layer tables live)::

    fieldapp_office.sites            one row per site: id, store schema, table layout (JSON),
                                     the empty GeoPackage the site started from
    fieldapp_office.lock_owners      who holds a site's lock (host, pid, laptop), for messages
    "<site_id>".<layer>              one table per layer, the visit's columns; geometry as PostGIS
                                     geometry(TYPE, EPSG) in the site CRS with a GiST index; the
                                     feature uuid as primary key (fid kept unique)
    "<site_id>".fieldapp_sync_log    the visit's own sync log rows (as in every laptop copy)
    "<site_id>".fieldapp_sync_conflicts   the conflict records (as in every laptop copy)
    "<site_id>".fieldapp_changesets  the change log: seq, changeset id, SHA-256, size, laptop,
                                     crew (the database role that pushed it), time, the bytes
    "<site_id>".fieldapp_sync_schema the schema log (store schema changes, as the folder office)
    "<site_id>".<layer>_photo        views: which photo shows which feature, as the GeoPackage's
                                     Related Tables mappings (:mod:`fieldapp.sync.pgphotos`)

A push (:meth:`PostgisOffice.apply`) is one transaction by the holder of the site's lock: the
changeset's rows applied to the layer tables as parameterised SQL (:mod:`fieldapp.sync.pgsql`),
its log row checked and its entry appended to ``fieldapp_changesets`` (by the office's
``finish_apply``) commit together or not at all. The laptop side holds the site's lock for the
whole sync (:meth:`PostgisOffice.lock`: a lease naming its connection, taken through the
office's functions), so a second laptop waits, then pulls what the first pushed, rebases and
pushes; a killed laptop's connection ends and the lock is free. What a crew role may do and
through which functions: :mod:`fieldapp.sync.pgroles`.

The GeoPackage a checkout gets (:meth:`PostgisOffice.fetch_master`) is the site's first
GeoPackage with every logged changeset applied by pygeodiff, in order -- exactly the master a
folder office would hold.

The office is named by a libpq URL or a libpq ``key=value`` connection string
(``"host=gis dbname=survey user=crew2"``). Passwords: libpq reads ``PGPASSFILE`` /
``~/.pgpass`` and ``PGPASSWORD``; failing those, the OS keyring (the ``keyring`` package,
service ``fieldapp-postgres``, user ``USER@HOST:PORT/DB``: :meth:`PostgisOffice.keyring_user`)
when it is installed. A URL or connection string holding a password is refused (it would show
in the process list), and no message repeats a password (:func:`fieldapp.sync.offices.mask_password`).
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fieldapp.sync import changesets as cs
from fieldapp.sync import officestyles, pgedits, pgphotos, pgroles, pgsql, schemas
from fieldapp.sync.errors import (
    InvalidOfficeData,
    OfficeLocked,
    OfficeNotFound,
    SchemaMismatch,
    SyncError,
    VisitRefused,
)
from fieldapp.sync.files import LOG_TABLE, connect, record_changeset_file, sha256_of
from fieldapp.sync.masking import mask_password
from fieldapp.sync.office import SHA256_RE
from fieldapp.sync.officestore import (
    FastForward,
    LockOwner,
    LogEntry,
    OfficeStore,
    SchemaChange,
    SiteSchema,
    StepCallback,
    check_site_id,
    next_free_block,
    tag_block_key,
)
from fieldapp.sync.pgcrscheck import check_changeset_crs
from fieldapp.sync.schemacheck import check_schema

if TYPE_CHECKING:   # for the annotations (the code imports psycopg's names where it uses them)
    import psycopg
    from psycopg import sql as psql

REGISTRY = "fieldapp_office"
CHANGES_TABLE = "fieldapp_changesets"
TAG_BLOCKS_TABLE = "fieldapp_tag_blocks"
KEYRING_SERVICE = "fieldapp-postgres"
_RESERVED = {"public", REGISTRY, "information_schema", "topology", "tiger", "tiger_data"}

_ASSIGNED = ("(SELECT coalesce(bool_and(has_schema_privilege(n.oid, 'USAGE')), true)"
             " FROM pg_namespace n WHERE n.nspname = site_id)")
_REGISTRY_DDL = (
    "CREATE SCHEMA IF NOT EXISTS fieldapp_office",
    "CREATE TABLE IF NOT EXISTS fieldapp_office.sites (site_id text PRIMARY KEY,"
    " created_version integer, schema_version integer, tables_json jsonb NOT NULL,"
    " template bytea NOT NULL, created_utc timestamptz NOT NULL DEFAULT now(),"
    " created_by text NOT NULL DEFAULT current_user)",
    "CREATE TABLE IF NOT EXISTS fieldapp_office.lock_owners (site_id text PRIMARY KEY,"
    " host text, pid integer, laptop_id text, started_utc text, token text)",
    # a crew sees (and locks) only the sites whose schema it may use (grant_site)
    "ALTER TABLE fieldapp_office.sites ENABLE ROW LEVEL SECURITY",
    "DROP POLICY IF EXISTS assigned ON fieldapp_office.sites",
    "CREATE POLICY assigned ON fieldapp_office.sites USING (" + _ASSIGNED + ")",
    "ALTER TABLE fieldapp_office.lock_owners ENABLE ROW LEVEL SECURITY",
    "DROP POLICY IF EXISTS assigned ON fieldapp_office.lock_owners",
    "CREATE POLICY assigned ON fieldapp_office.lock_owners USING (" + _ASSIGNED + ")",
    # the lock, the change log's appends and the audit's trust: definer functions (pgroles)
    *pgroles.registry_ddl(),
)


def _sentences(text: str) -> str:
    r"""libpq's message of several lines as one line of sentences (a line that does not end a
    sentence gets a full stop: "... No such file or directory. Is the server running ...").

    >>> _sentences('connection to server failed: No such file or directory\n\tIs the server running?\n')
    'connection to server failed: No such file or directory. Is the server running?'
    """
    lines = [" ".join(line.split()) for line in text.splitlines()]
    lines = [line for line in lines if line]
    return " ".join(line if i == len(lines) - 1 or line[-1] in ".?!:;," else line + "."
                    for i, line in enumerate(lines))


def _scalar(cur: psycopg.Cursor[Any]) -> Any:
    """The first value of the one row a query of an aggregate, a function or a known row gives."""
    row = cur.fetchone()
    assert row is not None      # such a query always gives a row
    return row[0]


def _site_sql(site_id: str) -> psql.Identifier:
    from psycopg import sql

    return sql.Identifier(site_id)


class PostgisOffice(OfficeStore):
    """An office in a PostgreSQL database with PostGIS (see the module docstring).

    Parameters
    ----------
    url : str
        Any libpq URL, ``postgresql://USER@HOST:PORT/DB?options``; without a password
        (``ValueError`` if it has one).
    create : bool
        Allow creating the office's tables (and ``CREATE EXTENSION postgis`` if missing) when
        the first site is created (``--init-office``); otherwise a database without them is
        refused with :class:`~fieldapp.sync.errors.OfficeNotFound`.
    connect_timeout_s : float
        How long to wait for the server before :class:`OfficeNotFound`.
    """

    def __init__(self, url: str, *, create: bool = False, connect_timeout_s: float = 10.0) -> None:
        from psycopg.conninfo import conninfo_to_dict

        try:
            params = conninfo_to_dict(url)
        except Exception as exc:  # psycopg.ProgrammingError: not a libpq URL
            raise ValueError(mask_password(f"{url!r} is not a PostgreSQL URL or connection string:"
                                           f" {_sentences(str(exc))}")) from None
        if "password" in params:
            raise ValueError(
                "the PostgreSQL URL holds a password, which would show in the process list;"
                " put it in PGPASSFILE (~/.pgpass), PGPASSWORD or the OS keyring instead"
            )
        self.url = url
        self.params = params
        self.create = bool(create)
        self.connect_timeout_s = float(connect_timeout_s)
        self._held: dict[str, psycopg.Connection[Any]] = {}

    # ---- connection -----------------------------------------------------------------------
    def describe(self) -> str:
        p = self.params
        where = str(p.get("host", "localhost"))
        if "port" in p:
            where += f":{p['port']}"
        who = f"{p['user']}@" if "user" in p else ""
        return f"PostGIS office {who}{where}/{p.get('dbname', '')}"

    def keyring_user(self) -> str:
        """The keyring entry's user name for this office: ``USER@HOST:PORT/DB`` (libpq's
        defaults filled in: host ``localhost``, port 5432; the crew's login name when the URL has
        no user), under the service ``fieldapp-postgres`` (:data:`KEYRING_SERVICE`).

        >>> PostgisOffice("host=gis.example.org dbname=survey user=crew2").keyring_user()
        'crew2@gis.example.org:5432/survey'
        """
        import getpass

        p = self.params
        user = p.get("user") or os.environ.get("PGUSER") or getpass.getuser()
        return f"{user}@{p.get('host', 'localhost')}:{p.get('port', 5432)}/{p.get('dbname', '')}"

    def _keyring_password(self) -> str | None:
        """The password kept in the OS keyring for :meth:`keyring_user`, or None (no keyring
        package, no usable backend -- keyring's fail or null backend --, a locked keyring,
        ``FIELDAPP_NO_KEYRING`` set, no entry)."""
        if os.environ.get("FIELDAPP_NO_KEYRING"):
            return None
        try:
            import keyring
            from keyring.backends import fail
        except ImportError:
            return None
        with contextlib.suppress(Exception):  # no backend, locked keyring: as if none
            backend = keyring.get_keyring()
            if isinstance(backend, fail.Keyring) or "null" in type(backend).__module__.lower():
                return None
            return keyring.get_password(KEYRING_SERVICE, self.keyring_user())
        return None

    def connect(self, *, autocommit: bool = False) -> psycopg.Connection[Any]:
        """A new psycopg connection to the office database.

        Raises :class:`OfficeNotFound` naming the server when it cannot be reached or refuses
        the login.
        """
        import psycopg

        kwargs: dict[str, Any] = {"autocommit": autocommit,
                                  "connect_timeout": max(1, int(self.connect_timeout_s)),
                                  "application_name": "fieldapp sync"}
        try:
            return psycopg.connect(self.url, **kwargs)
        except psycopg.OperationalError as exc:
            if "password" in str(exc):
                password = self._keyring_password()
                if password is not None:
                    with contextlib.suppress(psycopg.OperationalError):
                        return psycopg.connect(self.url, password=password, **kwargs)
            raise OfficeNotFound(mask_password(
                f"cannot reach {self.describe()}: {_sentences(str(exc))}; nothing was synced"
            )) from exc

    @contextlib.contextmanager
    def _conn(self, site_id: str | None = None) -> Iterator[psycopg.Connection[Any]]:
        """The connection holding ``site_id``'s lock if this process holds it, else a new one."""
        held = self._held.get(site_id) if site_id else None
        if held is not None:
            yield held
            return
        with contextlib.closing(self.connect(autocommit=True)) as conn:
            yield conn

    @staticmethod
    def _has_registry(conn: psycopg.Connection[Any]) -> bool:
        found: bool = _scalar(conn.execute("SELECT to_regclass('fieldapp_office.sites') IS NOT NULL"))
        return found

    @contextlib.contextmanager
    def _refused_as(self, site_id: str, what: str) -> Iterator[None]:
        """A privilege the role lacks becomes a :class:`SyncError` in words (the transaction is
        rolled back: nothing was written)."""
        import psycopg

        try:
            yield
        except psycopg.errors.InsufficientPrivilege as exc:
            role = self.params.get("user", "this role")
            raise SyncError(f"crew role {role} may not {what} site {site_id} in {self.describe()}"
                            f" ({str(exc).splitlines()[0]}); nothing was written. Ask the office") from exc

    def check_available(self) -> None:
        """Refuse an unreachable server, or a database that is not a fieldapp office (no
        ``fieldapp_office`` tables) unless ``create``; raises :class:`OfficeNotFound`."""
        with contextlib.closing(self.connect(autocommit=True)) as conn:
            if not self._has_registry(conn) and not self.create:
                raise OfficeNotFound(
                    f"{self.describe()} is not a fieldapp office (no fieldapp_office tables);"
                    " nothing was synced. Check the URL; to start a new office there, use --init-office"
                )

    def initialize(self) -> list[tuple[str, str]]:
        """Make the database a fieldapp office (PostGIS, the ``fieldapp_office`` tables and
        functions) now, rather than at the first site's sync, or bring an existing office up to
        this version (``fieldapp sync --office URL --upgrade-office``): the lock and change-log
        functions (:mod:`fieldapp.sync.pgroles`) installed, each site's audit trigger replaced,
        each crew role's grants narrowed to what a sync needs, and each site's layers given
        fieldapp's QGIS style where they have no default style. Idempotent; one transaction.
        Needs the role that owns the office tables (and may create the extension, if PostGIS is
        not installed in the database yet). Returns the ``(site, crew role)`` pairs re-granted."""
        with contextlib.closing(self.connect()) as conn, conn.transaction():
            self._make_registry(conn)
            done = pgroles.secure_existing_sites(conn, pgedits.EDITS_TABLE)
            # office edits stamped and the photo views, for sites an older fieldapp made (issue 31)
            for site_id, listed in conn.execute("SELECT site_id, tables_json FROM fieldapp_office.sites").fetchall():
                tables = {t["name"]: pgsql.Table.from_json(t) for t in listed}
                for stmt in pgedits.upgrade_site_ddl(site_id, tables) + pgphotos.photo_view_ddl(site_id, tables):
                    conn.execute(stmt)
                template = _scalar(conn.execute("SELECT template FROM fieldapp_office.sites WHERE site_id = %s",
                                                (site_id,)))
                with tempfile.TemporaryDirectory(prefix="fieldapp-pg-") as work:
                    copy = Path(work) / "template.gpkg"
                    copy.write_bytes(bytes(template))
                    officestyles.write_pg_styles(conn, copy, site_id)    # the QGIS styles (issue 31)
            return done

    @staticmethod
    def _check_upgraded(conn: psycopg.Connection[Any], describe: str) -> None:
        """Raise :class:`SyncError` when the office predates the lock and change-log functions."""
        if _scalar(conn.execute("SELECT to_regprocedure(%s) IS NULL", (pgroles.MARKER_FUNCTION,))):
            raise SyncError(f"{describe} was made by an older fieldapp and lacks its lock and change-log"
                            " functions; nothing was synced. The office must run: fieldapp sync --office"
                            " URL --upgrade-office (as the role that owns the office tables)")

    @staticmethod
    def _make_registry(conn: psycopg.Connection[Any]) -> None:
        conn.execute("CREATE EXTENSION IF NOT EXISTS postgis")
        for ddl in _REGISTRY_DDL:
            conn.execute(ddl)

    def grant_site(self, role: str, site_id: str) -> None:
        """Assign ``site_id`` to the crew database role ``role`` (run by the office, as the
        owner of the office tables): it may then read and write that site's tables, see the
        site in ``--list`` (row-level security on ``fieldapp_office.sites``) and take its lock;
        other sites stay closed to it (no ``USAGE`` on their schemas). The crew needs no
        superuser and no right to create anything, and gets exactly what a sync needs
        (:func:`fieldapp.sync.pgroles.crew_grants`: no DELETE on the logs, no right on the
        lock-owner table; locks and log entries through the office's functions). Running it
        again narrows an older, wider grant."""
        check_site_id(site_id)
        with contextlib.closing(self.connect()) as conn, conn.transaction():
            self._check_upgraded(conn, self.describe())
            names = pgroles.site_table_names(conn, site_id)
            if not names:
                raise SyncError(f"site {site_id} does not exist in {self.describe()}; nothing was granted")
            for stmt in pgroles.crew_grants(role, site_id, names):
                conn.execute(stmt)

    # ---- sites ------------------------------------------------------------------------------
    def _site(self, conn: psycopg.Connection[Any], site_id: str, *,
              for_update: bool = False) -> dict[str, Any] | None:
        check_site_id(site_id)
        if not self._has_registry(conn):
            return None
        row = conn.execute(
            "SELECT created_version, schema_version, tables_json FROM fieldapp_office.sites"
            " WHERE site_id = %s" + (" FOR UPDATE" if for_update else ""), (site_id,)).fetchone()
        if row is None:
            refused = conn.execute(
                "SELECT current_user FROM pg_namespace WHERE nspname = %s"
                " AND NOT has_schema_privilege(oid, 'USAGE')", (site_id,)).fetchone()
            if refused:
                raise SyncError(
                    f"crew role {refused[0]} may not read or write site {site_id} in"
                    f" {self.describe()}: it is not assigned to this crew; nothing was written."
                    " Ask the office to assign the site (PostgisOffice.grant_site)")
            return None
        tables = {t["name"]: pgsql.Table.from_json(t) for t in row[2]}
        return {"created_version": row[0], "schema_version": row[1], "tables": tables}

    def _no_site(self, site_id: str) -> SyncError:
        return SyncError(f"site {site_id} does not exist in {self.describe()}")

    def _head_in(self, conn: psycopg.Connection[Any], site_id: str) -> int:
        from psycopg import sql

        q = sql.SQL("SELECT coalesce(max(seq), 0) FROM {}").format(sql.Identifier(site_id, CHANGES_TABLE))
        return int(_scalar(conn.execute(q)))

    def head(self, site_id: str) -> int | None:
        with self._conn(site_id) as conn:
            if self._site(conn, site_id) is None:
                return None
            return self._head_in(conn, site_id)

    def list_sites(self) -> list[tuple[str, str | None, int | None]]:
        """The office's sites as ``(site id, site name or None, head seq)``, by id."""
        from psycopg import sql

        self.check_available()
        out: list[tuple[str, str | None, int | None]] = []
        with contextlib.closing(self.connect(autocommit=True)) as conn:
            if not self._has_registry(conn):
                return []
            ids = [r[0] for r in conn.execute("SELECT site_id FROM fieldapp_office.sites ORDER BY site_id")]
            for site_id in ids:
                site = self._site(conn, site_id)
                assert site is not None     # listed in the registry just now
                name = None
                t = site["tables"].get("site")
                if t is not None and any(c.name == "name" for c in t.columns):
                    order = sql.SQL(" ORDER BY {}").format(sql.Identifier(t.pk[0].name)) if t.pk else sql.SQL("")
                    row = conn.execute(sql.SQL("SELECT name FROM {}{} LIMIT 1").format(
                        sql.Identifier(site_id, "site"), order)).fetchone()
                    name = row[0] if row and isinstance(row[0], str) else None
                out.append((site_id, name, self._head_in(conn, site_id)))
        return out

    # ---- lock ---------------------------------------------------------------------------------
    @contextlib.contextmanager
    def lock(self, site_id: str, owner: LockOwner, *, wait_s: float = 10.0) -> Iterator[None]:
        """Hold the site's lock for the sync, on a connection kept for it: a lease in
        ``fieldapp_office.lock_owners`` naming this connection's server process, taken through
        the office's ``fieldapp_office.take_site_lock`` (:mod:`fieldapp.sync.pgroles`; not an
        advisory lock, which any role may take on any key). The server frees it when the
        holder's connection ends (a killed laptop).

        Raises :class:`OfficeLocked` naming the holder after ``wait_s``; :class:`SyncError` when
        the role may not use the site or the office predates the lock functions (the office
        must run ``--upgrade-office``); :class:`OfficeNotFound` for a database that is not an
        office (unless ``create``)."""
        check_site_id(site_id)
        conn = self.connect(autocommit=True)
        try:
            if not self._has_registry(conn):
                if not self.create:
                    raise OfficeNotFound(f"{self.describe()} is not a fieldapp office (no fieldapp_office"
                                         " tables); nothing was synced. Check the URL; to start a new office"
                                         " there, use --init-office")
                with conn.transaction():
                    self._make_registry(conn)
            self._check_upgraded(conn, self.describe())
            self._site(conn, site_id)   # a site not assigned to this crew: refused in words
            deadline = time.monotonic() + wait_s
            while True:
                with self._refused_as(site_id, "lock"):
                    got = conn.execute(
                        "SELECT * FROM fieldapp_office.take_site_lock(%s, %s, %s, %s, %s, %s)",
                        (site_id, owner.host, owner.pid, owner.laptop_id, owner.started_utc, owner.token)).fetchone()
                assert got is not None      # the function always answers one row
                if got[0]:
                    break
                if time.monotonic() >= deadline:
                    raise OfficeLocked(self._locked_message(site_id, got[1:]))
                time.sleep(0.1)
            self._held[site_id] = conn
            try:
                site = self._site(conn, site_id)
                if site is not None:  # what the office edited in QGIS, logged for the laptops
                    pgedits.fold_office_edits(self, conn, site_id, site)
                yield
            finally:
                self._held.pop(site_id, None)
                with contextlib.suppress(Exception):  # the connection may be gone: so is the lock
                    if not conn.info.transaction_status == 0:  # IDLE
                        conn.rollback()
                    conn.execute("SELECT fieldapp_office.release_site_lock(%s)", (site_id,))
        finally:
            conn.close()

    def _locked_message(self, site_id: str, holder: tuple[Any, ...]) -> str:
        """``holder``: (host, pid, laptop, since) of the live holder, or Nones (being taken)."""
        host, pid, laptop, since = holder
        who = f"{host} (pid {pid}, laptop {laptop}) since {since}" if host is not None else "another laptop"
        return f"site {site_id} in {self.describe()} is being synced by {who}; try again when it has finished"

    def heartbeat(self, site_id: str, owner: LockOwner) -> None:
        conn = self._held.get(site_id)
        try:
            if conn is None:
                raise RuntimeError("not held")
            conn.execute("SELECT 1")
        except Exception as exc:
            raise OfficeLocked(f"lost the lock on site {site_id} in {self.describe()}: {exc}") from exc

    # ---- reading --------------------------------------------------------------------------------
    def log(self, site_id: str, after_seq: int = 0) -> list[LogEntry]:
        from psycopg import sql

        with self._conn(site_id) as conn:
            if self._site(conn, site_id) is None:
                raise self._no_site(site_id)
            rows = conn.execute(sql.SQL(
                "SELECT seq, changeset_id, laptop_id, synced_by, applied_utc, sha256, size_bytes"
                " FROM {} WHERE seq > %s ORDER BY seq").format(sql.Identifier(site_id, CHANGES_TABLE)),
                (after_seq,)).fetchall()
        entries = []
        for expected, row in enumerate(rows, start=after_seq + 1):
            entry = LogEntry(*row)
            if entry.seq != expected:
                raise InvalidOfficeData(f"office log of site {site_id} skips from seq {expected - 1} to {entry.seq}")
            if not cs.CHANGESET_ID_RE.match(entry.changeset_id or "") or not SHA256_RE.match(entry.sha256 or ""):
                raise InvalidOfficeData(f"office log of site {site_id}, seq {entry.seq}: bad changeset id or SHA-256")
            entries.append(entry)
        return entries

    def fetch_changeset(self, site_id: str, entry: LogEntry, dest: Path) -> None:
        from psycopg import sql

        with self._conn(site_id) as conn:
            row = conn.execute(sql.SQL("SELECT changeset FROM {} WHERE seq = %s AND changeset_id = %s").format(
                sql.Identifier(site_id, CHANGES_TABLE)), (entry.seq, entry.changeset_id)).fetchone()
        if row is None:
            raise InvalidOfficeData(
                f"changeset seq {entry.seq} ({entry.changeset_id}) is missing from {self.describe()}")
        Path(dest).write_bytes(bytes(row[0]))
        digest = sha256_of(Path(dest))
        if digest != entry.sha256 or Path(dest).stat().st_size != entry.size_bytes:
            Path(dest).unlink(missing_ok=True)
            raise InvalidOfficeData(
                f"changeset seq {entry.seq} in {self.describe()} has SHA-256 {digest}, but the office"
                f" log recorded {entry.sha256}: it was altered or damaged; refused")

    def schema(self, site_id: str) -> SiteSchema | None:
        from psycopg import sql

        with self._conn(site_id) as conn:
            site = self._site(conn, site_id)
            if site is None:
                return None
            head = self._head_in(conn, site_id)
            rows = conn.execute(sql.SQL(
                "SELECT schema_version, from_version, after_seq, migrated_utc, laptop_id, fieldapp_version"
                " FROM {} ORDER BY schema_version").format(
                    sql.Identifier(site_id, schemas.SCHEMA_LOG_TABLE))).fetchall()
            version = self._version_in(conn, site_id, site["tables"])
        changes = tuple(SchemaChange(*r) for r in rows)
        previous_v, previous_seq = 0, 0
        for c in changes:
            if not (c.from_version < c.schema_version and c.schema_version > previous_v
                    and previous_seq <= c.after_seq <= head):
                raise InvalidOfficeData(f"schema log of site {site_id} in {self.describe()} is not valid at {c!r}")
            previous_v, previous_seq = c.schema_version, c.after_seq
        return SiteSchema(version, changes)

    @staticmethod
    def _version_in(conn: psycopg.Connection[Any], site_id: str, tables: dict[str, pgsql.Table]) -> int | None:
        """:func:`fieldapp.sync.schemas.version_in` of the site's tables."""
        from psycopg import sql

        from fieldapp.store import schema as store_schema

        if schemas.META_TABLE not in tables:
            return None
        row = conn.execute(sql.SQL("SELECT value FROM {} WHERE key = %s").format(
            sql.Identifier(site_id, schemas.META_TABLE)), (schemas.VERSION_KEY,)).fetchone()
        if row is not None:
            try:
                return int(row[0])
            except (TypeError, ValueError):
                raise InvalidOfficeData(
                    f"site {site_id}: {schemas.META_TABLE}.{schemas.VERSION_KEY} is {row[0]!r}") from None
        version = 1
        for v in sorted(store_schema.ADDED_COLUMNS):
            names = {(t, c.name) for t, table in tables.items() for c in table.columns}
            if not all((layer.value, name) in names for layer, name in store_schema.ADDED_COLUMNS[v]):
                break
            version = v
        return version

    def fetch_master(self, site_id: str, dest: Path) -> None:
        """Write the site's master GeoPackage to ``dest``: its first GeoPackage with every logged
        changeset applied in order (migrated at the schema log's points), each log row carrying
        the SHA-256 and size the office recorded, as in a folder office's master."""
        from psycopg import sql

        dest = Path(dest)
        with self._conn(site_id) as conn:
            site = self._site(conn, site_id)
            if site is None:
                raise self._no_site(site_id)
            template = _scalar(conn.execute("SELECT template FROM fieldapp_office.sites WHERE site_id = %s",
                                            (site_id,)))
            dest.write_bytes(bytes(template))
            logged = self.schema(site_id)
            assert logged is not None   # the site is there (_site above)
            changes = list(logged.changes)
            version = site["created_version"]
            gd = cs.new_geodiff()
            with tempfile.TemporaryDirectory(prefix="fieldapp-pg-") as work:
                f = Path(work) / "change.geodiff"
                cur = conn.execute(sql.SQL("SELECT seq, changeset_id, sha256, size_bytes, changeset FROM {}"
                                           " ORDER BY seq").format(sql.Identifier(site_id, CHANGES_TABLE)))
                for seq, _changeset_id, sha, size, data in cur:
                    written_v = schemas.version_at(changes, seq) or version
                    if version is not None and written_v is not None and written_v != version:
                        schemas.migrate_file(dest, written_v)
                        version = written_v
                    f.write_bytes(bytes(data))
                    if sha256_of(f) != sha:
                        raise InvalidOfficeData(f"changeset seq {seq} of site {site_id} does not match its SHA-256")
                    gd.apply_changeset(str(dest), str(f))
                    with contextlib.closing(connect(dest)) as lite, lite:
                        record_changeset_file(lite, seq, sha, size)
            if version is not None and site["schema_version"] is not None and version < site["schema_version"]:
                schemas.migrate_file(dest, site["schema_version"])

    def tag_block(self, site_id: str, laptop_id: str, *, after: int | None = None) -> int | None:
        """The laptop's tag block (:meth:`OfficeStore.tag_block`), from the site's
        ``fieldapp_tag_blocks`` table (key by :func:`~fieldapp.sync.officestore.tag_block_key`,
        block, crew, time), a new one given the first time (caller holds the lock): above every
        block given and the block of the highest tag in the tree table."""
        from psycopg import sql

        table = sql.Identifier(site_id, TAG_BLOCKS_TABLE)
        key = tag_block_key(laptop_id, after)
        with self._refused_as(site_id, "take a tag block of"), self._conn(site_id) as conn, conn.transaction():
            got = conn.execute(sql.SQL("SELECT block FROM {} WHERE laptop_id = %s").format(table), (key,)).fetchone()
            if got is not None:
                block: int = got[0]
                return block
            given = [r[0] for r in conn.execute(sql.SQL("SELECT block FROM {}").format(table))]
            has_tag = conn.execute("SELECT 1 FROM information_schema.columns WHERE table_schema = %s"
                                   " AND table_name = 'tree' AND column_name = 'tag'", (site_id,)).fetchone()
            top = _scalar(conn.execute(sql.SQL("SELECT max(tag) FROM {}").format(
                sql.Identifier(site_id, "tree")))) if has_tag else None
            conn.execute(sql.SQL("INSERT INTO {} (laptop_id, block) VALUES (%s, %s)").format(table),
                         (key, next_free_block(given, int(top) if top is not None else None)))
            given_now: int = _scalar(conn.execute(
                sql.SQL("SELECT block FROM {} WHERE laptop_id = %s").format(table), (key,)))
            return given_now

    # ---- writing --------------------------------------------------------------------------------
    def create_site(self, site_id: str, schema_gpkg: Path, *, site_name: str = "") -> None:
        """Create the site's schema and tables from ``schema_gpkg`` (its rows too), in one
        transaction. Raises :class:`SyncError` when the site, or a schema of that name, exists;
        :class:`~fieldapp.sync.errors.VisitRefused` (nothing written) when ``schema_gpkg``, kept
        as the site's template for every checkout, holds a trigger, view, index, table or column
        fieldapp does not make (:func:`fieldapp.sync.schemacheck.check_schema`). Each feature
        table gets fieldapp's QGIS style as its default in ``public.layer_styles`` (made if
        missing, :mod:`fieldapp.sync.officestyles`)."""
        from psycopg import sql
        from psycopg.types.json import Jsonb

        check_site_id(site_id)
        check_schema(Path(schema_gpkg), what=f"the visit sent to create site {site_id}",
                     error=VisitRefused, done=f"Nothing was written to {self.describe()}")
        if site_id.lower() in _RESERVED or site_id.lower().startswith("pg_"):
            raise ValueError(f"site id {site_id!r} is a reserved PostgreSQL schema name; choose another")
        gd = cs.new_geodiff()
        with tempfile.TemporaryDirectory(prefix="fieldapp-pg-") as work:
            listing = Path(work) / "schema.json"
            gd.schema("sqlite", "", str(schema_gpkg), str(listing))
            tables = pgsql.tables_from_geodiff(json.loads(listing.read_text(encoding="utf-8"))["geodiff_schema"])
            dump = Path(work) / "rows.geodiff"
            gd.dump_data("sqlite", "", str(schema_gpkg), str(dump))
            rows = cs.read_entries(gd, dump) if gd.has_changes(str(dump)) else []
        # the QGIS styles of a first sync's copy stay in the template (every checkout gets them):
        # the office's own are in public.layer_styles; rows here would log as an office edit
        rows = [r for r in rows if r["table"] != officestyles.STYLES_TABLE]
        version = schemas.version_of(Path(schema_gpkg))
        with self._conn(site_id) as conn, conn.transaction():
            if not self._has_registry(conn):
                if not self.create:
                    raise OfficeNotFound(f"{self.describe()} is not a fieldapp office; use --init-office")
                self._make_registry(conn)
            if self._site(conn, site_id) is not None:
                raise SyncError(f"site {site_id} already exists in {self.describe()}")
            if conn.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", (site_id,)).fetchone():
                raise SyncError(f"{self.describe()} already has a schema {site_id!r} that is not a"
                                " fieldapp site; nothing was created")
            conn.execute(sql.SQL("CREATE SCHEMA {}").format(_site_sql(site_id)))
            for table in tables.values():
                for stmt in pgsql.create_table(site_id, table):
                    conn.execute(stmt)
            for stmt in (_bookkeeping_ddl(site_id) + pgedits.trigger_ddl(site_id, tables)
                         + pgphotos.photo_view_ddl(site_id, tables)):
                conn.execute(stmt)
            with conn.cursor() as cur:
                pgsql.apply_entries(cur, site_id, tables, rows, gd)
            # QGIS in the office opens the site's layers with the field's map (public.layer_styles)
            officestyles.write_pg_styles(conn, Path(schema_gpkg), site_id)
            conn.execute("INSERT INTO fieldapp_office.sites (site_id, created_version, schema_version,"
                         " tables_json, template) VALUES (%s, %s, %s, %s, %s)",
                         (site_id, version, version, Jsonb([t.to_json() for t in tables.values()]),
                          Path(schema_gpkg).read_bytes()))

    def apply(self, site_id: str, changeset: Path, entry: LogEntry, *, step: StepCallback | None = None,
              fast_forward: FastForward | None = None) -> None:
        """Apply ``changeset`` as ``entry`` in one transaction (see the module docstring); the
        office tables are always written from the changeset (``fast_forward`` is not used).

        Raises :class:`SyncError` when ``entry.seq`` is not head + 1, :class:`InvalidOfficeData`
        when the changeset does not match its SHA-256 / size, breaks the log rule or does not
        apply to the office's rows, :class:`VisitRefused` when its rows hold geometry off the
        site's CRS or far from the site (:mod:`fieldapp.sync.pgcrscheck`); nothing is changed then.
        """
        from psycopg import sql

        step = step or (lambda _name: None)
        size = Path(changeset).stat().st_size
        if sha256_of(changeset) != entry.sha256 or size != entry.size_bytes:
            raise InvalidOfficeData(f"changeset {changeset} does not match its SHA-256/size; refused")
        what = f"changeset {entry.changeset_id}"
        gd = cs.new_geodiff()
        with self._refused_as(site_id, "write"), self._conn(site_id) as conn, conn.transaction():
            site = self._site(conn, site_id)
            if site is None:
                raise self._no_site(site_id)
            head = self._head_in(conn, site_id)
            if entry.seq != head + 1:
                raise SyncError(f"{what} was prepared for seq {entry.seq} but the office is at seq {head}; sync again")
            # the lock holder's mark: the audit skips these rows, and the transaction commits only
            # with its change-log entry (finish_apply below; fieldapp.sync.pgroles)
            conn.execute("SELECT fieldapp_office.begin_apply(%s, %s)", (site_id, entry.seq))
            with tempfile.TemporaryDirectory(prefix="fieldapp-pg-") as work:
                cs.check_changeset(gd, Path(changeset), site["tables"], Path(work),
                                   expected_id=entry.changeset_id, what=what)
                entries = cs.read_entries(gd, Path(changeset))
            # the site CRS, layer srs_ids and coordinates against the site, as the folder office
            check_changeset_crs(conn, site_id, site["tables"], entries, what=what, error=VisitRefused)
            try:
                with conn.cursor() as cur:
                    pgsql.apply_entries(cur, site_id, site["tables"], entries, gd)
            except pgsql.ChangeDoesNotApply as exc:
                raise InvalidOfficeData(f"{what} does not apply cleanly to the tables of site {site_id}"
                                        f" in {self.describe()}: {exc}; nothing was changed") from exc
            step("office: changeset applied to the layer tables")
            log = sql.Identifier(site_id, LOG_TABLE)
            last = conn.execute(
                sql.SQL("SELECT seq, changeset_id FROM {} ORDER BY seq DESC LIMIT 1").format(log)).fetchone()
            n = _scalar(conn.execute(sql.SQL("SELECT count(*) FROM {}").format(log)))
            if tuple(last or ()) != (entry.seq, entry.changeset_id) or n != entry.seq:
                raise InvalidOfficeData(f"{what}: logs itself as {last!r} ({n} log rows), expected seq"
                                        f" {entry.seq} id {entry.changeset_id}; nothing was changed")
            conn.execute(sql.SQL("UPDATE {} SET sha256 = %s, size_bytes = %s WHERE seq = %s").format(log),
                         (entry.sha256, entry.size_bytes, entry.seq))
            conn.execute("SELECT fieldapp_office.finish_apply(%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                         (site_id, entry.seq, entry.changeset_id, entry.laptop_id, entry.synced_by,
                          entry.applied_utc, entry.sha256, entry.size_bytes, Path(changeset).read_bytes()))
        step("office: changeset committed")

    def migrate(self, site_id: str, change: SchemaChange, statements: list[str], *,
                check: Callable[[Path], None] | None = None, step: StepCallback | None = None) -> None:
        """Bring the site to ``change.schema_version``: the migration is run on a GeoPackage copy
        of the master (checked with ``check``), then the tables and columns it added are added
        to the office tables, the version row set and ``change`` logged, in one transaction.
        A table it adds gets the audit triggers of the others (:mod:`fieldapp.sync.pgedits`),
        and every crew granted the site is granted it (:func:`fieldapp.sync.pgroles.crew_grants`).
        Columns a migration removes or retypes, and rows it rewrites, are refused."""
        from psycopg import sql
        from psycopg.types.json import Jsonb

        step = step or (lambda _name: None)
        gd = cs.new_geodiff()
        with self._conn(site_id) as conn, tempfile.TemporaryDirectory(prefix="fieldapp-pg-") as work:
            copy = Path(work) / "master.gpkg"
            self.fetch_master(site_id, copy)
            _migrate_copy(copy, statements, change.schema_version)
            if check is not None:
                check(copy)
            listing = Path(work) / "schema.json"
            gd.schema("sqlite", "", str(copy), str(listing))
            new_tables = pgsql.tables_from_geodiff(json.loads(listing.read_text(encoding="utf-8"))["geodiff_schema"])
            with self._refused_as(site_id, "change the store schema (an office role must) of"), conn.transaction():
                if not _scalar(conn.execute("SELECT fieldapp_office.holds_site_lock(%s)", (site_id,))):
                    raise SyncError(f"the schema change of site {site_id} needs the site's lock; nothing was changed")
                # the office's own mark (crews may not write it): the audit skips the meta row
                conn.execute("INSERT INTO fieldapp_office.applying VALUES (pg_backend_pid(), pg_current_xact_id(),"
                             " %s, NULL)", (site_id,))
                site = self._site(conn, site_id)
                head = self._head_in(conn, site_id)
                if site is None or head != change.after_seq or site["schema_version"] != change.from_version:
                    raise SyncError(f"the office site {site_id} moved on since the migration was prepared; sync again")
                added: dict[str, pgsql.Table] = {}
                for name, table in new_tables.items():
                    old = site["tables"].get(name)
                    if old is None:
                        for stmt in pgsql.create_table(site_id, table):
                            conn.execute(stmt)
                        added[name] = table
                        continue
                    have = {c.name: c for c in old.columns}
                    for col in table.columns:
                        if col.name not in have:
                            conn.execute(pgsql.add_column(site_id, table, col))
                        elif have[col.name].kind != col.kind:
                            raise SchemaMismatch(
                                f"the schema change retypes column {name}.{col.name} of site"
                                f" {site_id}, which the PostGIS office cannot do; nothing was changed")
                # a new table is audited as the others (QGIS edits to it), and every crew
                # already granted the site may sync its rows (the grant covers the new tables)
                for stmt in pgedits.table_trigger_ddl(site_id, added) + pgphotos.photo_view_ddl(site_id, new_tables):
                    conn.execute(stmt)
                if added:
                    for role in pgroles.site_crews(conn, site_id):
                        for grant in pgroles.crew_grants(role, site_id, list(new_tables)):
                            conn.execute(grant)
                if schemas.META_TABLE in new_tables:
                    conn.execute(sql.SQL("UPDATE {} SET value = %s WHERE key = %s").format(
                        sql.Identifier(site_id, schemas.META_TABLE)), (str(change.schema_version), schemas.VERSION_KEY))
                conn.execute(sql.SQL("INSERT INTO {} VALUES (%s, %s, %s, %s, %s, %s)").format(
                    sql.Identifier(site_id, schemas.SCHEMA_LOG_TABLE)),
                    (change.schema_version, change.from_version, change.after_seq, change.migrated_utc,
                     change.laptop_id, change.fieldapp_version))
                conn.execute("UPDATE fieldapp_office.sites SET schema_version = %s, tables_json = %s"
                             " WHERE site_id = %s",
                             (change.schema_version, Jsonb([t.to_json() for t in new_tables.values()]), site_id))
                conn.execute("DELETE FROM fieldapp_office.applying WHERE backend_pid = pg_backend_pid()"
                             " AND xid = pg_current_xact_id()")
        step("office: tables migrated")


def _migrate_copy(copy: Path, statements: list[str], version: int) -> None:
    """Run a store migration's ``statements`` on a GeoPackage copy and set its version row."""
    from fieldapp.sync import gpkgsql

    with contextlib.closing(connect(copy)) as conn:
        conn.isolation_level = None
        gpkgsql.register(conn)
        conn.execute("BEGIN IMMEDIATE")
        try:
            for stmt in statements:
                conn.execute(stmt)
            conn.execute(f'UPDATE "{schemas.META_TABLE}" SET value = ? WHERE key = ?',
                         (str(version), schemas.VERSION_KEY))
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise


def _bookkeeping_ddl(site_id: str) -> list[psql.Composed]:
    """The change log and the schema log of a site."""
    from psycopg import sql

    return [
        sql.SQL("CREATE TABLE {} (seq bigint PRIMARY KEY, changeset_id text NOT NULL UNIQUE,"
                " laptop_id text NOT NULL, crew text NOT NULL DEFAULT current_user, synced_by text,"
                " applied_utc text NOT NULL, received_utc timestamptz NOT NULL DEFAULT now(),"
                " sha256 text NOT NULL, size_bytes bigint NOT NULL, changeset bytea NOT NULL)").format(
                    sql.Identifier(site_id, CHANGES_TABLE)),
        sql.SQL("CREATE TABLE {} (laptop_id text PRIMARY KEY, block integer NOT NULL UNIQUE"
                " CHECK (block >= 1), crew text NOT NULL DEFAULT current_user,"
                " given_utc timestamptz NOT NULL DEFAULT now())").format(sql.Identifier(site_id, TAG_BLOCKS_TABLE)),
        sql.SQL("CREATE TABLE {} (schema_version integer PRIMARY KEY, from_version integer NOT NULL,"
                " after_seq bigint NOT NULL, migrated_utc text NOT NULL, laptop_id text NOT NULL,"
                " fieldapp_version text)").format(sql.Identifier(site_id, schemas.SCHEMA_LOG_TABLE)),
    ]
