"""Shared fixtures: headless Qt, the shared data folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"

# A script that wrote tests/data/visit_schema1.gpkg from a schema-1 checkout: not a test module.
collect_ignore = ["data/make_visit_schema1.py"]


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """``../shared`` beside the checkout; tests that need it skip with a clear message if absent."""
    if not SHARED.is_dir():
        pytest.skip(f"shared data folder not found at {SHARED}")
    return SHARED


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
# start, write theirs in a folder of their own, never in the developer's own log folder.
if not os.environ.get("FIELDAPP_LOG_DIR"):
    import atexit
    import shutil
    import tempfile

    _LOG_DIR = tempfile.mkdtemp(prefix="fieldapp-test-log-")
    os.environ["FIELDAPP_LOG_DIR"] = _LOG_DIR
    atexit.register(shutil.rmtree, _LOG_DIR, True)
