"""A visit's .gpkg holds every record on its own: after a stop by SIGTERM, between regular folds,
and in a copy made while another connection records (issue 35, item 2)."""

from __future__ import annotations

import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from fieldapp.app.keepsafe import CopyRefused, copy_visit, fold_wal
from fieldapp.app.visit import open_visit

REPO = Path(__file__).resolve().parents[2]
T0 = datetime(2026, 6, 1, 14, 0, tzinfo=UTC)


@dataclass(frozen=True)
class _Fix:
    """A usable RTK fix, as the receiver's reader hands it on."""

    lat_deg: float
    lon_deg: float
    time_utc: datetime | None
    quality: int = 4
    sats_used: int = 14
    hdop: float = 0.7
    horizontal_accuracy_m: float = 0.02
    vertical_accuracy_m: float | None = None
    alt_hae_m: float = 251.0


def Fix(i: int) -> _Fix:  # noqa: N802 - reads as the fix it makes
    """Fix number ``i``: a step north every second."""
    return _Fix(44.5 + i * 1e-6, -89.5, T0 + timedelta(seconds=i))


def _rows_alone(gpkg: Path, folder: Path) -> dict[str, int]:
    """Rows per layer of ``gpkg`` copied byte for byte WITHOUT its -wal/-shm (a USB-stick copy)."""
    alone = folder / gpkg.name
    folder.mkdir()
    shutil.copyfile(gpkg, alone)
    with sqlite3.connect(f"file:{alone}?mode=ro&immutable=1", uri=True) as conn:
        names = [r[0] for r in conn.execute("SELECT table_name FROM gpkg_contents")]
        return {n: conn.execute(f'SELECT count(*) FROM "{n}"').fetchone()[0] for n in names}


def test_sigterm_to_the_running_app_leaves_every_record_it_reported_in_the_gpkg_alone(tmp_path):
    # logout or shutdown sends SIGTERM: the .gpkg copied without its -wal once held 4,195 of
    # 4,370 fixes. Now the window closes the visit as its close button does, and says so.
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", TMPDIR=str(tmp_path),
               FIELDAPP_CONFIG_DIR=str(tmp_path / "cfg"), FIELDAPP_DATA_DIR=str(tmp_path / "d"))
    proc = subprocess.Popen([sys.executable, "-m", "fieldapp", "--simulate"], cwd=REPO, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        wal: list[Path] = []
        # records are being stored: the -wal grows (a stat only, no reader on the live file)
        while time.monotonic() < deadline and proc.poll() is None:
            wal = list((tmp_path / "d").glob("*.gpkg-wal"))
            if wal and wal[0].stat().st_size > 200_000:
                break
            time.sleep(0.2)
        assert proc.poll() is None and wal, proc.stderr.read() if proc.stderr else ""
        assert list(tmp_path.glob("fieldapp-sim-*"))          # the simulators' port links
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    (gpkg,) = (tmp_path / "d").glob("*.gpkg")
    line = err.strip().splitlines()[-1]
    m = re.fullmatch(rf"fieldapp: stopped by SIGTERM; visit {re.escape(gpkg.name)} closed,"
                     rf" (\d+) records stored, all in {re.escape(gpkg.name)}", line)
    assert m, err
    reported = int(m.group(1))
    assert reported > 0
    assert not [p.name for p in gpkg.parent.iterdir() if p != gpkg]   # no -wal, no -shm left
    rows = _rows_alone(gpkg, tmp_path / "usb")
    # the demo visit starts with its site row; every record the run stored came after it
    assert sum(rows.values()) - rows["site"] >= reported
    assert rows["track_point"] > 0
    assert not list(tmp_path.glob("fieldapp-sim-*"))      # the simulators' folder went too


def test_a_fold_puts_the_records_of_the_wal_into_the_gpkg_alone(tmp_path):
    vc = open_visit(tmp_path / "v.gpkg")
    try:
        for i in range(40):
            vc.on_fix(Fix(i))
        wal = tmp_path / "v.gpkg-wal"
        assert wal.stat().st_size > 0
        before = _rows_alone(vc.path, tmp_path / "before")["track_point"]
        assert before < 40                                   # the newest fixes: only in the -wal
        assert fold_wal(vc) is True
        assert _rows_alone(vc.path, tmp_path / "after")["track_point"] == 40
    finally:
        vc.close()
    assert fold_wal(vc) is False                             # closed: nothing to fold, no error
    assert fold_wal(None) is False


def test_copy_made_while_another_connection_records_is_one_whole_file(tmp_path):
    pyogrio = pytest.importorskip("pyogrio")
    vc = open_visit(tmp_path / "v.gpkg")
    stop, n = threading.Event(), [0]

    def record() -> None:       # the surveyor goes on walking: a fix committed every few ms
        while not stop.is_set():
            vc.on_fix(Fix(n[0]))
            n[0] += 1

    for _ in range(30):
        vc.on_fix(Fix(n[0]))
        n[0] += 1
    (tmp_path / "usb").mkdir()
    writer = threading.Thread(target=record)
    writer.start()
    try:
        while n[0] < 80:
            time.sleep(0.01)
        at_start = n[0]
        copy = copy_visit(vc.path, tmp_path / "usb" / "copy.gpkg")
        at_end = n[0]
    finally:
        stop.set()
        writer.join()
    try:
        assert copy.path == tmp_path / "usb" / "copy.gpkg"
        assert sorted(p.name for p in (tmp_path / "usb").iterdir()) == ["copy.gpkg"]  # one file
        with open(copy.path, "rb") as fh:
            header = fh.read(20)
        assert header[18:20] == b"\x01\x01"                  # rollback journal: needs no -wal
        info = pyogrio.read_info(copy.path, layer="track_point")
        assert at_start <= info["features"] <= at_end        # one snapshot, taken while writing
        with sqlite3.connect(copy.path) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            site = conn.execute("SELECT count(*) FROM site").fetchone()[0]
        assert copy.records == info["features"] + site
        assert n[0] > at_start                               # the writer was never blocked
    finally:
        vc.close()


def test_copy_never_replaces_a_file_nor_the_visit_itself(tmp_path):
    vc = open_visit(tmp_path / "v.gpkg")
    try:
        vc.on_fix(Fix(0))
        there = tmp_path / "there.gpkg"
        there.write_bytes(b"yesterday's copy")
        with pytest.raises(CopyRefused, match="already exists; nothing was overwritten"):
            copy_visit(vc.path, there)
        assert there.read_bytes() == b"yesterday's copy"
        for target in (vc.path, tmp_path / "v.gpkg-wal"):
            with pytest.raises(CopyRefused):
                copy_visit(vc.path, target)
        with pytest.raises(CopyRefused, match="name it .gpkg"):
            copy_visit(vc.path, tmp_path / "copy.txt")
        assert sorted(p.name for p in tmp_path.iterdir()) == [
            "there.gpkg", "v.gpkg", "v.gpkg-shm", "v.gpkg-wal"]     # nothing left behind
    finally:
        vc.close()
