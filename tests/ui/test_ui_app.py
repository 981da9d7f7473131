"""The app starts and quits cleanly with no devices; --quit-after smoke; --replay of a real log."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytest.importorskip("pytestqt")

from tests.ui.ui_support import WAIT_MS, close_window, make_window


def test_starts_and_quits_cleanly_without_devices(qtbot, private_dirs):
    w = make_window(qtbot, private_dirs)
    try:
        qtbot.waitUntil(lambda: w.startup_done and w.visit is not None, timeout=WAIT_MS)
        qtbot.waitUntil(lambda: "No receiver" in w.status_strip.problem_label.text(),
                        timeout=WAIT_MS)
        assert w.record_buttons and all(not b.isEnabled() for b in w.record_buttons)
        assert w.status_strip.device_labels["gnss"].text() == "GNSS: none"
        assert w.visit.path.exists()            # the new visit's GeoPackage
    finally:
        close_window(w)


def _run_app(args, tmp_path, timeout_s=180):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen",
               FIELDAPP_CONFIG_DIR=str(tmp_path / "cfg"), FIELDAPP_DATA_DIR=str(tmp_path / "d"))
    return subprocess.run([sys.executable, "-m", "fieldapp", *args], env=env,
                          capture_output=True, text=True, timeout=timeout_s)


def test_quit_after_without_devices_says_no_receiver_and_exits_0(tmp_path):
    proc = _run_app(["--quit-after", "1"], tmp_path)
    # the visit opened: no receiver attached is said, and is no failure (nor a crash)
    assert proc.returncode == 0, proc.stderr
    made = sorted((tmp_path / "d").glob("visit_*.gpkg"))
    assert len(made) == 1
    lines = [line for line in proc.stderr.splitlines() if "propagateSizeHints" not in line]
    assert lines == [f"fieldapp: visit {made[0].name} opened, 0 records stored; no receiver"
                     " attached (no --simulate, --replay or --gnss-url), so no fixes -> ok"]


def test_quit_after_with_a_replay_that_cannot_start_says_so_in_one_line(tmp_path):
    proc = _run_app(["--replay", str(tmp_path / "nope.log"), "--quit-after", "1"], tmp_path)
    assert proc.returncode == 1, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if "propagateSizeHints" not in line]
    (made,) = (tmp_path / "d").glob("replay_*.gpkg")
    assert lines == [
        f"ERROR fieldapp.app.session: Replay of {tmp_path / 'nope.log'} could not start:"
        f" no NMEA log at {tmp_path / 'nope.log'}",
        f"fieldapp: visit {made.name} opened, 0 fixes received, 0 records stored"
        " -> FAILED: 1 device not started",
    ]


def test_quit_after_with_a_visit_that_cannot_open_says_why(tmp_path):
    junk = tmp_path / "junk.gpkg"
    junk.write_text("not a visit\n")
    proc = _run_app(["--visit", str(junk), "--quit-after", "1"], tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert (f"ERROR fieldapp.app.visit: Could not open the visit {junk}: {junk} is not a"
            " GeoPackage (not an SQLite database)") in proc.stderr.splitlines()
    assert proc.stderr.splitlines()[-1] == ("fieldapp: visit not opened, 0 records stored; no"
                                            " receiver attached (no --simulate, --replay or"
                                            " --gnss-url), so no fixes -> FAILED: the visit did"
                                            " not open")
    assert junk.read_text() == "not a visit\n"  # never overwritten


@pytest.mark.slow
def test_quit_after_with_simulators_stores_records(tmp_path):
    proc = _run_app(["--simulate", "--quit-after", "8"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "-> ok" in proc.stderr
    assert " fixes received, " in proc.stderr and "FAILED" not in proc.stderr


def test_replay_of_real_log_moves_position_and_fills_status(qtbot, private_dirs, shared_dir):
    log = shared_dir / "data" / "nmea" / "gpsd-ublox-zed-f9p-nmea.log"
    w = make_window(qtbot, private_dirs, replay=str(log), replay_speed=5.0)
    try:
        qtbot.waitUntil(lambda: w.map.position is not None, timeout=WAIT_MS)
        first = w.map.position
        qtbot.waitUntil(lambda: w.map.position != first, timeout=WAIT_MS)
        strip = w.status_strip
        assert strip.device_state("gnss") == "connected"
        assert strip.sats_label.text().startswith("Sats ") and strip.sats_label.text() != "Sats –"
        assert strip.hdop_label.text().startswith("HDOP ") and "–" not in strip.hdop_label.text()
        assert strip.accuracy_label.text().startswith("H ±")
        assert strip.quality_label.text() not in ("", "no fix")
        assert "Reader statistics" in strip.device_labels["gnss"].toolTip()
    finally:
        close_window(w)
