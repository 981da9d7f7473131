"""The PostGIS office's password (issue 17, item 1): from the OS keyring (a fake in-memory
keyring backend), PGPASSFILE or PGPASSWORD -- never on the command line --, for a libpq URL and a
``key=value`` connection string alike; and no message ever repeats a password.

The test cluster (tests/sync/pgcluster.py, .ci/run) asks a password of one role only,
``fieldapp_pw_crew`` (scram-sha-256 on the socket); every other role is trusted."""

from __future__ import annotations

import os

import keyring
import psycopg
import pytest

from fieldapp.sync import OfficeNotFound, PostgisOffice, open_office
from fieldapp.sync.cli import main as cli_main
from fieldapp.sync.offices import is_postgres_url, mask_password
from fieldapp.sync.pgoffice import KEYRING_SERVICE
from tests.app.test_app_corrections import MemoryKeyring
from tests.sync.pgcluster import PASSWORD_ROLE, ensure_password_role

PASSWORD = "Tamarack-41-swamp"


@pytest.fixture
def memory_keyring():
    before = keyring.get_keyring()
    kr = MemoryKeyring()
    keyring.set_keyring(kr)
    yield kr
    keyring.set_keyring(before)


@pytest.fixture
def crew(pg_url, monkeypatch):
    """(URL, key=value string) of the password role on a fresh database; no password in the
    environment, no pgpass file."""
    from psycopg.conninfo import conninfo_to_dict

    monkeypatch.delenv("PGPASSWORD", raising=False)
    monkeypatch.delenv("FIELDAPP_NO_KEYRING", raising=False)
    monkeypatch.setenv("PGPASSFILE", os.devnull)
    ensure_password_role(pg_url, PASSWORD)
    p = conninfo_to_dict(pg_url)
    url = f"postgresql://{PASSWORD_ROLE}@/{p['dbname']}?host={p['host']}"
    kv = f"host={p['host']} dbname={p['dbname']} user={PASSWORD_ROLE}"
    try:  # the server must ask this role for a password, or these tests prove nothing
        psycopg.connect(url, connect_timeout=10).close()
    except psycopg.OperationalError as exc:
        assert "password" in str(exc)
    else:
        pytest.fail(f"the test server does not ask {PASSWORD_ROLE} for a password: its pg_hba.conf lacks"
                    " the line tests/sync/pgcluster.py and .ci/run add")
    return url, kv


def whoami(office):
    with office.connect(autocommit=True) as conn:
        return conn.execute("SELECT current_user").fetchone()[0]


@pytest.mark.parametrize("form", ["url", "key=value"])
def test_password_from_the_os_keyring(crew, memory_keyring, form):
    where = crew[0] if form == "url" else crew[1]
    office = open_office(where)
    assert isinstance(office, PostgisOffice) and is_postgres_url(where)
    host = office.params["host"]
    dbname = office.params["dbname"]
    assert office.keyring_user() == f"{PASSWORD_ROLE}@{host}:5432/{dbname}"
    with pytest.raises(OfficeNotFound, match="no password supplied"):
        whoami(office)                                    # nothing kept yet
    memory_keyring.set_password(KEYRING_SERVICE, office.keyring_user(), PASSWORD)
    assert whoami(office) == PASSWORD_ROLE


def test_the_app_keeps_the_office_password_where_the_sync_looks(crew, memory_keyring):
    from fieldapp.app import secrets

    where = secrets.store_office_password(crew[1], PASSWORD)
    assert where.startswith("OS keyring (MemoryKeyring), as fieldapp_pw_crew@")
    assert memory_keyring.store == {(KEYRING_SERVICE, PostgisOffice(crew[1]).keyring_user()): PASSWORD}
    assert whoami(open_office(crew[0])) == PASSWORD_ROLE   # the URL form finds the same entry
    with pytest.raises(ValueError, match="holds a password"):
        secrets.store_office_password(crew[0].replace("@", f":{PASSWORD}@", 1), PASSWORD)


def test_no_keyring_the_app_refuses_to_keep_it_elsewhere(crew, monkeypatch):
    from fieldapp.app import secrets

    monkeypatch.setenv("FIELDAPP_NO_KEYRING", "1")
    with pytest.raises(OSError, match="PGPASSFILE"):
        secrets.store_office_password(crew[0], PASSWORD)


def test_a_wrong_keyring_password_is_refused_and_never_repeated(crew, memory_keyring):
    office = open_office(crew[1])
    memory_keyring.set_password(KEYRING_SERVICE, office.keyring_user(), "not-the-password")
    with pytest.raises(OfficeNotFound) as err:
        whoami(office)
    assert "not-the-password" not in str(err.value) and f"cannot reach {office.describe()}" in str(err.value)


def test_password_from_pgpassword_and_from_pgpassfile(crew, monkeypatch, tmp_path):
    url, kv = crew
    monkeypatch.setenv("PGPASSWORD", PASSWORD)
    assert whoami(open_office(url)) == PASSWORD_ROLE
    monkeypatch.delenv("PGPASSWORD")
    dbname = open_office(url).params["dbname"]
    passfile = tmp_path / "pgpass"
    passfile.write_text(f"*:*:{dbname}:{PASSWORD_ROLE}:{PASSWORD}\n")
    passfile.chmod(0o600)
    monkeypatch.setenv("PGPASSFILE", str(passfile))
    assert whoami(open_office(kv)) == PASSWORD_ROLE


@pytest.mark.parametrize("where", [
    f"postgresql://crew2:{PASSWORD}@gis.example.org/survey",
    f"postgresql://crew2@gis.example.org/survey?password={PASSWORD}",
    f"host=gis.example.org dbname=survey user=crew2 password={PASSWORD}",
    f"host=gis.example.org dbname=survey user=crew2 password='{PASSWORD}'",
])
def test_a_password_given_is_refused_and_never_repeated(where, capsys):
    assert is_postgres_url(where)
    with pytest.raises(ValueError, match="holds a password") as err:
        open_office(where)
    assert PASSWORD not in str(err.value)
    assert cli_main(["--office", where, "--list"]) == 1
    out = capsys.readouterr()
    assert "holds a password" in out.err and PASSWORD not in out.err + out.out


def test_a_malformed_connection_string_is_refused_without_its_password(capsys):
    where = f"host=gis.example.org password={PASSWORD} dbname"   # "dbname" lacks its "="
    with pytest.raises(ValueError) as err:
        PostgisOffice(where)
    assert PASSWORD not in str(err.value) and "password=***" in str(err.value)
    assert mask_password(f"postgres://u:{PASSWORD}@h/db") == "postgres://u:***@h/db"


def test_a_folder_is_not_a_connection_string(tmp_path):
    odd = tmp_path / "office=2026"      # a folder whose name has "="
    odd.mkdir()
    assert not is_postgres_url(odd) and not is_postgres_url("/mnt/share/office")
    assert not is_postgres_url(r"\\server\share\office")


@pytest.mark.skipif(os.name == "nt", reason="a folder as libpq host is a Unix-domain socket folder;"
                    " libpq on Windows takes a C:\\ path for a host name")
def test_no_server_message_is_one_line_of_sentences(tmp_path):
    office = PostgisOffice(f"host={tmp_path} port=1 dbname=nodb user=nobody", connect_timeout_s=2)
    with pytest.raises(OfficeNotFound) as err:
        office.check_available()
    text = str(err.value)
    assert "\n" not in text and "No such file or directory. Is the server running locally" in text
    assert text.startswith(f"cannot reach PostGIS office nobody@{tmp_path}:1/nodb: ")
