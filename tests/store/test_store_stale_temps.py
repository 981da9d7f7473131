"""A visit creation killed with SIGKILL leaves its temporary file and journal; the next creation
in that folder, or the app opening a visit there, removes them (issue 30, item 8)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fieldapp.store import create_visit
from fieldapp.store.staletemps import STALE_HOURS, clear_stale_creations
from fieldapp.survey.visit import Visit

pytestmark = pytest.mark.skipif(
    sys.platform == "win32",
    reason="SIGKILL is POSIX; on Windows TerminateProcess is what kills, and the rule (pid gone)"
           " is the same code path",
)

# the child makes a visit and stops in the middle of a write transaction of the temporary file
# (its -journal on disk), says so, and waits to be killed
CHILD = r"""
import sys, time
from pathlib import Path
import fieldapp.store.gpkg as g
from fieldapp.survey.visit import Visit

real = g._initialise
def stall(conn, visit):
    real(conn, visit)
    conn.execute("BEGIN")
    conn.execute("CREATE TABLE half_made (a)")
    conn.execute("INSERT INTO half_made VALUES (zeroblob(200000))")
    print("stalled", flush=True)
    time.sleep(600)
g._initialise = stall
g.create_visit(Path(sys.argv[1]), Visit.new("killed", crs="EPSG:32616"))
"""


def killed_creation(folder: Path) -> list[Path]:
    """Run a creation of ``folder/killed.gpkg`` in a child, SIGKILL it mid-write; return what it
    left (the temporary file and its journal)."""
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(folder / "killed.gpkg")],
                             stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parents[2])
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "stalled"
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    left = sorted(p for p in folder.iterdir() if p.name.startswith(".killed.gpkg."))
    return left


def test_a_killed_creations_file_and_journal_are_removed_at_the_next_creation(tmp_path):
    left = killed_creation(tmp_path)
    assert [p.name.endswith(".tmp") for p in left] == [True, False]
    assert left[1].name == left[0].name + "-journal" and left[0].stat().st_size > 0
    assert not (tmp_path / "killed.gpkg").exists()
    keep = tmp_path / "notes.tmp"
    keep.write_text("mine")                         # not a visit creation's: never touched
    create_visit(tmp_path / "next.gpkg", Visit.new("next", crs="EPSG:32616")).close()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".killed")) == []
    assert keep.read_text() == "mine" and (tmp_path / "next.gpkg").is_file()


def test_the_app_opening_a_visit_clears_them_too(tmp_path):
    from fieldapp.app.visit import open_visit

    left = killed_creation(tmp_path)
    assert len(left) == 2
    open_visit(tmp_path / "later.gpkg", name="later", crs="EPSG:32616").close()
    assert not any(p.exists() for p in left)


def test_a_live_creation_is_left_alone_and_an_old_one_without_pid_goes(tmp_path):
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        live = tmp_path / f".busy.gpkg.{sleeper.pid}.abcd1234.tmp"
        live.write_bytes(b"x")
        mine = tmp_path / f".own.gpkg.{os.getpid()}.abcd1234.tmp"
        mine.write_bytes(b"x")
        legacy = tmp_path / ".old.gpkg.k2j4h5g6.tmp"     # earlier versions: no pid in the name
        legacy.write_bytes(b"x")
        fresh_legacy = tmp_path / ".new.gpkg.a1b2c3d4.tmp"
        fresh_legacy.write_bytes(b"x")
        hours_ago = time.time() - (STALE_HOURS + 1) * 3600
        os.utime(legacy, (hours_ago, hours_ago))
        assert clear_stale_creations(tmp_path) == [legacy]
        assert live.exists() and mine.exists() and fresh_legacy.exists()
    finally:
        sleeper.kill()
        sleeper.wait()
    assert clear_stale_creations(tmp_path) == [live]
