"""Shared fixtures: headless Qt, the shared data folder, private settings and visit folders, a
PostgreSQL / PostGIS database; the leak guard and the tests' log folder."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

REPO = Path(__file__).resolve().parents[1]
#: The shared test data (real NMEA captures, instrument samples; README "Shared test data"):
#: ``FIELDAPP_SHARED`` when set, else ``../shared`` beside the checkout.
SHARED = Path(os.environ.get("FIELDAPP_SHARED") or REPO.parent / "shared")
#: Why the shared data is missing, for the skips and the summary at the end of the run.
SHARED_MISSING = (f"the shared test data is missing: no folder {SHARED} (put the project's "
                  "'shared' folder beside the checkout, or set FIELDAPP_SHARED to it; README, "
                  "'Shared test data')")

# A script that wrote tests/data/visit_schema1.gpkg from a schema-1 checkout: not a test module.
collect_ignore = ["data/make_visit_schema1.py"]


def under_ci() -> bool:
    """Whether this run is CI's (``CI`` true / 1 / yes, or ``FIELDAPP_CI`` set, as .ci/run
    does): there a missing prerequisite fails its tests rather than skipping them."""
    return (os.environ.get("CI", "").lower() in ("true", "1", "yes")
            or bool(os.environ.get("FIELDAPP_CI")))


_shared_skips: list[str] = []


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The shared data folder (:data:`SHARED`). Missing, its tests skip and the run ends with
    a warning saying how many and where the data comes from; under CI (:func:`under_ci`)
    they fail instead: CI has the data and must never pass without running them."""
    if not SHARED.is_dir():
        if under_ci():
            pytest.fail(SHARED_MISSING + " (CI must have it)", pytrace=False)
        pytest.skip(SHARED_MISSING)
    return SHARED


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.skipped and SHARED_MISSING in str(report.longrepr):
        _shared_skips.append(report.nodeid)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """A plain clone skips the tests of the shared data: said at the end, loudly, not only in
    the ``s`` of the progress line."""
    if _shared_skips:
        terminalreporter.write_sep("!", f"{len(_shared_skips)} tests SKIPPED: shared test data "
                                   "missing", red=True, bold=True)
        terminalreporter.write_line(SHARED_MISSING, red=True)


@pytest.fixture
def private_dirs(tmp_path, monkeypatch):
    """Settings and visits in the test's own folder (never the user's)."""
    monkeypatch.setenv("FIELDAPP_CONFIG_DIR", str(tmp_path / "cfg"))
    monkeypatch.setenv("FIELDAPP_DATA_DIR", str(tmp_path / "data"))
    return tmp_path


# --------------------------------------------------------------------------- PostgreSQL
# The PostGIS office's tests (tests/sync) and the window's Sync button on it (tests/ui).


@pytest.fixture(scope="session")
def pg_server():
    """Superuser libpq URL of a PostgreSQL server with PostGIS (see ``tests/sync/pgcluster.py``:
    ``FIELDAPP_TEST_PG``, else a throwaway cluster; FAILS under CI when neither is possible)."""
    from tests.sync import pgcluster

    yield from pgcluster.server_url()


@pytest.fixture
def pg_url(pg_server):
    """A fresh, empty database with PostGIS for one test: its superuser libpq URL."""
    from tests.sync import pgcluster

    name, url = pgcluster.new_database(pg_server)
    yield url
    pgcluster.drop_database(pg_server, name)


# --------------------------------------------------------------------------- leak guard
# Every background thread we start is named "fieldapp-..." (TEAM.md); a test that leaves one
# alive, or leaves a port handle from devices.transport open, fails in teardown.

LEAK_GRACE_S = 3.0  # threads get this long to finish after the test (polled, not slept)


@pytest.fixture(autouse=True)
def _leak_guard():
    import sys
    import threading
    import time

    before = {t for t in threading.enumerate() if t.name.startswith("fieldapp-")}
    yield

    def leaked_threads():
        return [
            t for t in threading.enumerate()
            if t.name.startswith("fieldapp-") and t.is_alive() and t not in before
        ]

    deadline = time.monotonic() + LEAK_GRACE_S
    alive = leaked_threads()
    while alive and time.monotonic() < deadline:
        time.sleep(0.02)
        alive = leaked_threads()
    transport = sys.modules.get("devices.transport")
    ports = transport.open_handles() if transport is not None else []
    problems = []
    if alive:
        problems.append(f"threads left running: {sorted(t.name for t in alive)}")
    if ports:
        problems.append(f"ports left open: {ports}")
    if problems:
        pytest.fail("leak guard: " + "; ".join(problems))


# --------------------------------------------------------------------------- log folder
# fieldapp.cli.main writes fieldapp.log (fieldapp.app.logfile): tests, and the programs they
# start, write theirs in a folder of their own, never in the developer's own log folder. Under
# pytest-xdist the workers inherit the folder the controller made and each writes in its own
# subfolder (gw0, gw1, ...), so a test reading the log's end reads its own worker's lines.
if not os.environ.get("FIELDAPP_LOG_DIR"):
    import atexit
    import shutil
    import tempfile

    _LOG_DIR = tempfile.mkdtemp(prefix="fieldapp-test-log-")
    os.environ["FIELDAPP_LOG_DIR"] = _LOG_DIR
    os.environ["FIELDAPP_TEST_LOG_DIR"] = _LOG_DIR  # the folder these tests made (not the user's)
    atexit.register(shutil.rmtree, _LOG_DIR, True)
_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
if _WORKER.isalnum() and os.environ["FIELDAPP_LOG_DIR"] == os.environ.get("FIELDAPP_TEST_LOG_DIR"):
    os.environ["FIELDAPP_LOG_DIR"] = os.path.join(os.environ["FIELDAPP_LOG_DIR"], _WORKER)
    os.makedirs(os.environ["FIELDAPP_LOG_DIR"], exist_ok=True)
