"""Fixtures of the sync tests: a PostgreSQL / PostGIS database for the PostGIS office."""

from __future__ import annotations

import pytest

from tests.sync import pgcluster


@pytest.fixture(scope="session")
def pg_server():
    """Superuser libpq URL of a PostgreSQL server with PostGIS (see ``tests/sync/pgcluster.py``:
    ``FIELDAPP_TEST_PG``, else a throwaway cluster; FAILS under CI when neither is possible)."""
    yield from pgcluster.server_url()


@pytest.fixture
def pg_url(pg_server):
    """A fresh, empty database with PostGIS for one test: its superuser libpq URL."""
    name, url = pgcluster.new_database(pg_server)
    yield url
    pgcluster.drop_database(pg_server, name)
