"""Every format at once in worker processes (fieldapp.export.workers): the same files as
in-process, errors raised as in-process, cancel stops the workers, nothing left behind."""

from __future__ import annotations

import os
import re

import pytest

import fieldapp.export.workers as workers
from fieldapp.export import ExportWriteFailed, export_visit
from fieldapp.export.model import _LayerData
from tests.track_sample import visit_with_track


@pytest.fixture
def track_visit(tmp_path):
    path = tmp_path / "v.gpkg"
    visit_with_track(path)
    return path


def _files(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def test_workers_write_what_one_process_writes(track_visit, tmp_path, monkeypatch):
    one = export_visit(track_visit, tmp_path / "one", "all")
    monkeypatch.setattr(workers, "PARALLEL_MIN_FEATURES", 0)
    steps = []
    two = export_visit(track_visit, tmp_path / "two", "all", progress=lambda f, m: steps.append(m))
    assert any(m.startswith("writing ") for m in steps)       # it did go through the workers
    assert two.layers == one.layers and two.notes == one.notes
    assert _files(tmp_path / "two") == _files(tmp_path / "one")
    for name in _files(tmp_path / "one"):
        if name.endswith((".geojson", ".csv", ".csvt", ".dbf", ".shp", ".shx", ".prj")):
            skip = 4 if name.endswith(".dbf") else 0     # a .dbf's bytes 1-3 are the day written
            assert (tmp_path / "two" / name).read_bytes()[skip:] == (tmp_path / "one" / name).read_bytes()[skip:], name
    assert sorted(p.name for p in tmp_path.iterdir()) == ["one", "two", "v.gpkg"]


def test_a_worker_failing_fails_the_export_and_leaves_nothing(track_visit, tmp_path, monkeypatch):
    monkeypatch.setattr(workers, "PARALLEL_MIN_FEATURES", 0)
    real = _LayerData.__getstate__

    def poisoned(self):   # a geometry type GDAL does not know: the workers' writes fail
        state = real(self)
        if self.name == "track_point":
            state["geometry_type"] = "Pointy"
        return state

    monkeypatch.setattr(_LayerData, "__getstate__", poisoned)
    with pytest.raises(ExportWriteFailed, match=re.escape(f"cannot write {tmp_path / 'out'}: ") + ".*Pointy"):
        export_visit(track_visit, tmp_path / "out", "all")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["v.gpkg"]


def test_cancel_stops_the_workers_and_leaves_nothing(track_visit, tmp_path, monkeypatch):
    monkeypatch.setattr(workers, "PARALLEL_MIN_FEATURES", 0)

    class Cancelled(Exception):
        pass

    def step(f, m):
        if m.startswith("writing "):
            raise Cancelled

    with pytest.raises(Cancelled):
        export_visit(track_visit, tmp_path / "out", "all", progress=step)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["v.gpkg"]


def test_groups_share_the_formats():
    got = workers._groups(["geojson", "kml", "shp", "csv", "dxf"], 2)
    assert got == [["csv", "dxf"], ["geojson", "kml", "shp"]]     # 6.4 and 6.3 s of CPU of a day's visit
    assert workers._groups(["csv"], 3) == [["csv"]]


@pytest.mark.parametrize("used", [True, False])
def test_workers_started_ahead_are_used_or_ended(track_visit, tmp_path, monkeypatch, used):

    started = []
    real = workers._start

    def start():
        p = real()
        started.append(p)
        return p

    monkeypatch.setattr(workers, "_start", start)
    monkeypatch.setattr(workers, "PRESTART_BYTES", 0)
    monkeypatch.setattr(workers, "PARALLEL_MIN_FEATURES", 0 if used else 10**9)
    got = export_visit(track_visit, tmp_path / "out", "all")
    assert got.layers["track_point"] == 12
    n = min(workers.MAX_WORKERS, __import__("os").cpu_count() or 1, 5)
    assert len(started) == n                          # none started again when it was read
    assert all(p.poll() is not None for p in started)  # every one has ended
    # used: each wrote its formats and exited; not used: told so, or killed while still starting
    killed = 1 if os.name == "nt" else -9      # Popen.kill: TerminateProcess(1) / SIGKILL
    assert all(p.returncode == 0 if used else p.returncode in (0, killed) for p in started)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "v.gpkg"]


def _mounted_tmpfs(where, size_kib: int):
    import subprocess

    if os.name == "nt":
        pytest.skip("a full disk is a small tmpfs mounted with Linux's mount: the Linux stage runs this")
    where.mkdir()
    run = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_kib}k", "tmpfs", str(where)],
                         capture_output=True, text=True)
    if run.returncode != 0:
        if __import__("os").environ.get("CI") == "true":
            pytest.fail(f"cannot mount a small tmpfs under CI: {run.stderr.strip()}")
        pytest.skip(f"cannot mount a small tmpfs here ({run.stderr.strip() or 'mount failed'})")


@pytest.mark.parametrize("share", [0.02, 0.3, 0.7, 0.95])
def test_a_full_disk_fails_every_format_at_once_and_leaves_nothing(track_visit, tmp_path, monkeypatch, share):
    import os
    import subprocess

    monkeypatch.setattr(workers, "PARALLEL_MIN_FEATURES", 0)
    need = sum(p.stat().st_size for p in (lambda r: r.rglob("*"))(
        export_visit(track_visit, tmp_path / "whole", "all").path) if p.is_file())
    disk = tmp_path / "small"
    _mounted_tmpfs(disk, 4096)
    try:
        st = os.statvfs(disk)
        free = int(need * share)
        (disk / "filler.bin").write_bytes(b"\0" * (st.f_bavail * st.f_frsize - free))
        with pytest.raises(ExportWriteFailed, match=f"cannot write {disk / 'out'}: .*the disk is full"):
            export_visit(track_visit, disk / "out", "all")
        assert sorted(p.name for p in disk.iterdir()) == ["filler.bin"]      # nothing half-written
    finally:
        subprocess.run(["umount", "-l", str(disk)], capture_output=True)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="a named pipe holds the worker: POSIX")
def test_a_worker_ends_when_the_export_that_started_it_is_gone(tmp_path):
    """The export holds a worker's stdin open while it waits; when that ends (the app killed),
    a worker still writing ends too, instead of writing on for nobody."""
    import pickle

    layers = tmp_path / "layers.pickle"
    os.mkfifo(layers)               # no writer ever comes: the worker blocks reading its layers
    job = tmp_path / ".job0.pickle"
    with open(job, "wb") as fh:
        pickle.dump((["geojson"], str(layers), {"geojson": str(tmp_path / "out")}, None,
                     "EPSG:4326"), fh)
    p = workers._start()
    try:
        p.stdin.write(f"{job}\n".encode())
        p.stdin.flush()
        assert p.poll() is None     # at work (held by the pipe), not ended by itself
        p.stdin.close()             # the export is gone
        assert p.wait(timeout=120) == 3
    finally:
        if p.poll() is None:
            p.kill()
        p.wait()
        p.err_file.close()


@pytest.mark.parametrize("fmt", ["all", "geojson"])
def test_export_forced_into_the_top_of_a_drive(track_visit, tmp_path, fmt):
    """OUT is a mounted drive's top folder (a USB stick): beside it is another drive, so the
    temporary folder goes inside it and the files are moved, not refused as a cross-device
    link; nothing temporary is left on either drive."""
    import subprocess

    stick = tmp_path / "stick"
    _mounted_tmpfs(stick, 64 * 1024)
    try:
        (stick / "notes.txt").write_text("the crew's own file")
        got = export_visit(track_visit, stick, fmt, force=True)
        assert got.layers["track_point"] == 12
        names = sorted(p.name for p in stick.iterdir())
        if fmt == "all":
            assert names == ["csv", "dxf", "geojson", "gpkg", "kml", "notes.txt", "shp"]
            assert (stick / "geojson" / "track_point.geojson").is_file()
        else:
            assert "track_point.geojson" in names and "notes.txt" in names
        assert not [n for n in names if n.endswith(".tmp")]
        assert sorted(p.name for p in tmp_path.iterdir()) == ["stick", "v.gpkg"]
        assert (stick / "notes.txt").read_text() == "the crew's own file"
    finally:
        subprocess.run(["umount", "-l", str(stick)], capture_output=True)
