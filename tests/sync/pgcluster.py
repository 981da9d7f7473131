"""A PostgreSQL / PostGIS server for the PostGIS office tests.

``FIELDAPP_TEST_PG`` (set by ``.ci/run``) is a libpq URL of a superuser on a running server
with PostGIS available; each test gets its own database made from a PostGIS template. Without it,
when the PostgreSQL binaries (Debian's ``/usr/lib/postgresql/N/bin``) and PostGIS are
installed, a throwaway cluster is started for the session under a temp dir on a unix socket
(no TCP port) and removed afterwards; as root it runs as the ``postgres`` user (initdb refuses
root). With neither, the tests FAIL under CI (``CI=true``) and skip elsewhere.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path

import pytest


def template_db() -> str:
    """The PostGIS template database of this test process: one per pytest-xdist worker
    (``PYTEST_XDIST_WORKER``, e.g. ``gw0``) on the one ``FIELDAPP_TEST_PG`` server, so one
    worker's session start (drop and remake) never pulls the template from under another's
    ``CREATE DATABASE ... TEMPLATE``, which also refuses a template another session is using."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    return f"fieldapp_test_template_{worker}" if worker.isalnum() else "fieldapp_test_template"


def _bindir() -> Path | None:
    """Debian's PostgreSQL with PostGIS, newest first; None on Windows (under wine Debian's
    binaries show through the Z: drive, but they are Linux programs: no cluster from them)."""
    if os.name == "nt":
        return None
    for d in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name),
                    reverse=True):
        major = Path(d).parent.name
        if (Path(d) / "initdb").exists() and Path(f"/usr/share/postgresql/{major}/extension/postgis.control").exists():
            return Path(d)
    return None


def _as_postgres() -> list[str]:
    return ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []


class Cluster:
    """A throwaway cluster: ``start()`` returns its superuser URL, ``stop()`` removes it."""

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.dir = Path(tempfile.mkdtemp(prefix="fieldapp-test-pg."))

    def _run(self, *args: str) -> None:
        subprocess.run([*_as_postgres(), *args], check=True, capture_output=True, timeout=300)

    def start(self) -> str:
        os.chmod(self.dir, 0o755)
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres", "postgres")
        data = self.dir / "data"
        self._run(str(self.bindir / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust",
                  "--no-sync", "-E", "UTF8")
        _password_role_hba(data / "pg_hba.conf")
        opts = (f"-c listen_addresses='' -c unix_socket_directories='{self.dir}' -c fsync=off"
                " -c max_connections=200")
        self._run(str(self.bindir / "pg_ctl"), "-D", str(data), "-l", str(self.dir / "log"), "-w",
                  "-t", "120", "-o", opts, "start")
        return f"postgresql://postgres@/postgres?host={self.dir}"

    def stop(self) -> None:
        try:
            self._run(str(self.bindir / "pg_ctl"), "-D", str(self.dir / "data"), "-m", "immediate",
                      "-w", "stop")
        except (subprocess.SubprocessError, OSError):
            pass
        shutil.rmtree(self.dir, ignore_errors=True)


#: The one role the cluster asks a password of (scram-sha-256 on the socket; every other role is
#: trusted): the password tests (tests/sync/test_sync_pg_passwords.py). .ci/run adds the same line.
PASSWORD_ROLE = "fieldapp_pw_crew"


def _password_role_hba(hba: Path) -> None:
    """Put the password role's line first in ``pg_hba.conf`` (the first matching line wins)."""
    text = hba.read_text()
    hba.write_text(f"local all {PASSWORD_ROLE} scram-sha-256\n" + text)


def _missing(why: str):
    if os.name == "nt":  # .ci/windows: no PostgreSQL under wine; the Linux stage of .ci/run runs these
        pytest.skip(f"PostgreSQL/PostGIS not available on Windows here ({why}); the Linux stage of"
                    " .ci/run runs the PostGIS office tests; set FIELDAPP_TEST_PG to run them")
    if os.environ.get("CI", "").lower() in ("true", "1", "yes"):
        pytest.fail(f"PostgreSQL/PostGIS is needed under CI and {why}; .ci/run installs and starts it")
    pytest.skip(f"PostgreSQL/PostGIS not available ({why}); set FIELDAPP_TEST_PG or install"
                " postgresql and postgresql-N-postgis-3")


def with_db(url: str, dbname: str) -> str:
    """``url`` (a libpq URL ``postgresql://user@host/db?params``) pointing at ``dbname``."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.scheme not in ("postgresql", "postgres"):
        raise ValueError(f"FIELDAPP_TEST_PG must be a postgresql:// URL, not {url!r}")
    return urlunsplit(parts._replace(path=f"/{dbname}"))


def server_url():
    """Session generator: the superuser URL of a server with a PostGIS template database."""
    try:
        import psycopg
    except ImportError:
        _missing("psycopg is not installed")
    url = os.environ.get("FIELDAPP_TEST_PG")
    cluster = None
    if not url:
        bindir = _bindir()
        if bindir is None:
            _missing("FIELDAPP_TEST_PG is not set and no PostgreSQL with PostGIS is installed")
        cluster = Cluster(bindir)
        try:
            url = cluster.start()
        except (subprocess.SubprocessError, OSError) as exc:
            cluster.stop()
            _missing(f"a throwaway cluster could not be started: {exc}")
    template = template_db()
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {template}")
            conn.execute(f"CREATE DATABASE {template}")
        with psycopg.connect(with_db(url, template), autocommit=True) as conn:
            conn.execute("CREATE EXTENSION postgis")
        yield url
    finally:
        if cluster is not None:
            cluster.stop()
        else:  # the shared server stays up: leave no template behind
            try:
                with psycopg.connect(url, autocommit=True) as conn:
                    conn.execute(f"DROP DATABASE IF EXISTS {template} WITH (FORCE)")
            except psycopg.Error:
                pass


def new_database(url: str) -> tuple[str, str]:
    """A fresh database with PostGIS, made from the template: ``(name, superuser URL)``."""
    import psycopg

    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name} TEMPLATE {template_db()}")
    return name, with_db(url, name)


def ensure_password_role(url: str, password: str) -> None:
    """Make :data:`PASSWORD_ROLE` (a login role, cluster-wide) with ``password``, if it is not
    there yet. Roles are shared by every database of the server, so pytest-xdist workers may
    make it at the same moment: the loser's "already exists" is the role being there."""
    import psycopg
    from psycopg import errors

    with psycopg.connect(url, autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (PASSWORD_ROLE,)).fetchone() is None:
            try:
                conn.execute(f"CREATE ROLE {PASSWORD_ROLE} LOGIN")
            except (errors.DuplicateObject, errors.UniqueViolation):
                pass  # another worker made it between the look and the CREATE
        conn.execute(f"ALTER ROLE {PASSWORD_ROLE} PASSWORD '{password}'")


def drop_database(url: str, name: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
