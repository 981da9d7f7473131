"""One program at a time records into a visit (fieldapp/store/visitlock.py): a second window or
process opening it for recording is refused at once and the file is left as it was; reading is
never refused; a killed holder leaves no lock behind."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time

import pytest

from fieldapp.store import VisitInUse, create_visit, open_visit
from fieldapp.survey import Layer, Visit


@pytest.fixture(autouse=True)
def lock_dir(tmp_path, monkeypatch):
    d = tmp_path / "locks"
    monkeypatch.setenv("FIELDAPP_LOCK_DIR", str(d))
    return d


def sha(p):
    return hashlib.sha256(p.read_bytes()).hexdigest()


def test_a_second_open_for_recording_is_refused_and_reading_is_not(tmp_path):
    path = tmp_path / "visit.gpkg"
    first = create_visit(path, Visit.new("Mill Creek lot"))
    first.visit.add_note("culvert under the drive")
    first.checkpoint()
    before = sha(path)
    with pytest.raises(VisitInUse, match="open in another fieldapp window or program"):
        open_visit(path)
    with pytest.raises(VisitInUse):
        open_visit(tmp_path / "." / "visit.gpkg")           # another spelling, the same file
    assert sha(path) == before                              # refused: nothing written
    reader = open_visit(path, readonly=True)                # a report, an export: they only read
    assert [n.text for n in reader.visit.features(Layer.NOTE)] == ["culvert under the drive"]
    reader.close()
    first.close()
    second = open_visit(path)                               # closed there: opens here
    second.visit.add_note("second window")
    second.close()
    assert len(open_visit(path, readonly=True).visit.features(Layer.NOTE)) == 2


def test_a_second_open_through_a_symbolic_link_is_refused(tmp_path):
    path = tmp_path / "visit.gpkg"
    first = create_visit(path, Visit.new("Mill Creek lot"))
    try:
        (tmp_path / "link.gpkg").symlink_to(path)
    except OSError as exc:
        if getattr(exc, "winerror", None) != 1314:
            raise
        first.close()
        pytest.skip("Windows without the symlink privilege (developer mode off, not admin): no link to open")
    with pytest.raises(VisitInUse):
        open_visit(tmp_path / "link.gpkg")                  # through a link: the same file
    first.close()


def test_every_name_of_the_file_finds_its_lock_a_hard_link(tmp_path):
    path = tmp_path / "visit.gpkg"
    first = create_visit(path, Visit.new("Mill Creek lot"))    # made here: its file locked too
    os.link(path, tmp_path / "second-name.gpkg")
    with pytest.raises(VisitInUse):
        open_visit(tmp_path / "second-name.gpkg")          # a hard link: the same file
    first.close()
    open_visit(tmp_path / "second-name.gpkg").close()      # closed there: opens by the other name


@pytest.mark.skipif(os.name == "nt", reason="Windows refuses to delete or rename a file that is open"
                    " (sharing violation): a visit cannot be moved while it records there")
def test_every_name_of_the_file_finds_its_lock_a_rename_while_open(tmp_path):
    path = tmp_path / "visit.gpkg"
    first = create_visit(path, Visit.new("Mill Creek lot"))    # made here: its file locked too
    os.link(path, tmp_path / "second-name.gpkg")
    with pytest.raises(VisitInUse):
        open_visit(tmp_path / "second-name.gpkg")          # a hard link: the same file
    (tmp_path / "second-name.gpkg").unlink()
    renamed = tmp_path / "renamed.gpkg"
    os.replace(path, renamed)                               # moved while the window records
    with pytest.raises(VisitInUse):
        open_visit(renamed)
    os.replace(renamed, path)       # back (SQLite's -wal and -shm kept the old name meanwhile)
    first.close()
    open_visit(path).close()


def test_without_its_lock_the_store_says_why(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the lock folder would be")
    monkeypatch.setenv("FIELDAPP_LOCK_DIR", str(blocker / "locks"))
    store = create_visit(tmp_path / "visit.gpkg", Visit.new("Mill Creek lot"))
    assert store.unlocked_reason.startswith(f"its lock could not be taken in {blocker / 'locks'}")
    store.close()
    monkeypatch.setenv("FIELDAPP_LOCK_DIR", str(tmp_path / "locks"))
    store = open_visit(tmp_path / "visit.gpkg")
    assert store.unlocked_reason is None
    store.close()


def test_a_failed_open_leaves_no_lock(tmp_path):
    path = tmp_path / "visit.gpkg"
    path.write_bytes(b"SQLite format 3\x00" + b"\x00" * 200)   # damaged: refused by the store
    with pytest.raises(Exception) as refused:
        open_visit(path)
    assert not isinstance(refused.value, VisitInUse)
    path.unlink()
    create_visit(path, Visit.new("Mill Creek lot")).close()
    open_visit(path).close()                                # the refused open held nothing


HOLDER = """
import sys, time
from fieldapp.store import open_visit
store = open_visit(sys.argv[1])
print("recording", flush=True)
time.sleep(120)
"""


def test_another_process_is_refused_until_it_ends_however_it_ends(tmp_path, lock_dir):
    path = tmp_path / "visit.gpkg"
    create_visit(path, Visit.new("Mill Creek lot")).close()
    env = {**os.environ, "FIELDAPP_LOCK_DIR": str(lock_dir)}
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)], stdout=subprocess.PIPE,
                              text=True, env=env)
    try:
        assert holder.stdout.readline().strip() == "recording"
        with pytest.raises(VisitInUse):
            open_visit(path)
        holder.kill()       # a crash (SIGKILL; TerminateProcess on Windows): no close, no cleanup
        holder.wait(30)
    finally:
        holder.kill()
    deadline = time.monotonic() + 10
    while True:                                             # the OS drops the lock with the process
        try:
            store = open_visit(path)
            break
        except VisitInUse:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
    store.visit.add_note("after the crash")
    store.close()


def test_without_a_writable_lock_folder_the_visit_still_opens(tmp_path, monkeypatch, caplog):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the lock folder would be")
    monkeypatch.setenv("FIELDAPP_LOCK_DIR", str(blocker / "locks"))
    path = tmp_path / "visit.gpkg"
    with caplog.at_level("WARNING", logger="fieldapp.store.visitlock"):
        store = create_visit(path, Visit.new("Mill Creek lot"))
    assert "opened without a lock" in caplog.text            # recording is never refused for it
    store.visit.add_note("still recorded")
    store.close()
