"""Bad scenarios, bad rates and shared link folders: a message naming the file and key (exit 2),
never a traceback, a flood or a silent default; two simulator runs never touch each other's links.

Every wait polls with a generous deadline (never a fixed sleep as an assertion).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from devices.sim.__main__ import main
from devices.sim.caliper import CaliperSim
from devices.sim.endpoint import PtyEndpoint
from devices.sim.gnss import GnssPath, GnssSim
from devices.sim.rangefinder import RangefinderSim
from devices.sim.replay import ReplaySim
from devices.sim.scenario import (
    OWNER_FILE,
    LinkDirBusy,
    ScenarioError,
    claim_link_dir,
    load_scenario,
    release_link_dir,
    start_scenario,
)
from devices.sim.schema import validate_scenario

REPO = Path(__file__).resolve().parents[3]
TIMEOUT_S = 30.0
TREE = {"species_number": 1, "dbh_in": 12.0}
PROFILE = [[0, 0], [40, 1.6]]


def wait_for(predicate, timeout_s: float = TIMEOUT_S) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return bool(predicate())


# --------------------------------------------------------------------------- 1. scenario files

# (file content, the message after "<file>: "); each one the tester found as a traceback or
# silently accepted.
BAD_SCENARIOS = [
    ("[]", "expected a JSON object with a 'devices' object, got a list"),
    ('"x"', "expected a JSON object with a 'devices' object, got a string"),
    ("null", "expected a JSON object with a 'devices' object, got null"),
    ("{}", "missing 'devices' object"),
    ('{"devices": []}', "devices: expected an object (device name -> options), got a list"),
    ('{"devices": {}}', "devices: no devices to simulate"),
    ('{"devices": {"gnss": "x"}}',
     'devices.gnss: expected an object ({"simulator": ...}), got a string'),
    ('{"devices": {"gnss": {}}}', "devices.gnss: missing 'waypoints' (or 'start' + 'legs')"),
    ('{"devices": {"gnss": {"waypoints": [[43.3, -91.8], [43.3, -91.7], "ab"]}}}',
     "devices.gnss.waypoints[2]: expected [lat, lon] numbers"),
    ('{"devices": {"gnss": {"waypoints": ["43.3,-91.8"]}}}',
     "devices.gnss.waypoints[0]: expected [lat, lon] numbers"),
    ('{"devices": {"gnss": {"waypoints": [[43.3, -91.8]], "rate_hz": NaN}}}',
     "devices.gnss.rate_hz: nan is not a finite number"),
    ('{"devices": {"gnss": {"waypoints": [[43.3, -91.8]], "rate_hz": 0}}}',
     "devices.gnss.rate_hz: 0 must be >= 1"),
    ('{"devices": {"gnss": {"waypoints": [[43.3, -91.8]], "protocol": "digitech"}}}',
     "devices.gnss.protocol: 'digitech' is not one of nmea"),
    ('{"bogus_key": 1, "devices": {"caliper": {"tally": [{"species_number": 1, "dbh_in": 9}]}}}',
     "bogus_key: unknown key (allowed: name, description, site, ohwm, transect, stand, "
     "wetland, species_table, devices)"),
    ('{"devices": {"rangefinder": {"profile_ft": [[0, 0], [40, 1.6]], "angle_deg": 350}}}',
     "devices.rangefinder.angle_deg: unknown key (allowed: simulator, protocol, profile_ft, "
     "targets_ft, station_ft, azimuth_deg, units, dialect, advance, interval_s, "
     "low_quality_rate, ble, seed, model, firmware)"),
    ('{"devices": {"rangefinder": {"profile_ft": [[0, 0], [40, 1.6], [40, 2]]}}}',
     "devices.rangefinder.profile_ft[2]: profile distances must increase strictly"),
    ('{"devices": {"rangefinder": {}}}',
     "devices.rangefinder: missing 'profile_ft' and the scenario has no transect profile_ft"),
    ('{"devices": {"caliper": {"tally": [{"dbh_in": 12.0}]}}}',
     "devices.caliper.tally[0]: missing 'species_number'"),
    ('{"devices": {"caliper": {"tally": [{"species_number": 1, "dbh_in": 12}], '
     '"interval_s": -1}}}', "devices.caliper.interval_s: -1 must be > 0"),
    ('{"devices": {"caliper": {}}}',
     "devices.caliper: missing 'tally' and the scenario has no stand trees"),
    ('{"devices": {"replay": {}}}', "devices.replay: missing 'path'"),
    ('{"devices": {"lidar": {}}}',
     "devices.lidar.simulator: 'lidar' is not one of gnss, replay, rangefinder, caliper, "
     "inclinometer (no 'simulator' key and the device name is not a simulator)"),
    # silently accepted before: an origin off the globe, a CRS that does not exist, an OHWM
    # that is not a line
    ('{"site": {"origin": [91, 181]}, "devices": {"replay": {"path": "x.nmea"}}}',
     "site.origin[0]: 91 must be <= 90"),
    ('{"site": {"origin": [45, 181]}, "devices": {"replay": {"path": "x.nmea"}}}',
     "site.origin[1]: 181 must be <= 180"),
    ('{"ohwm": "abc", "devices": {"replay": {"path": "x.nmea"}}}',
     "ohwm: expected a list of [lat, lon] points, got a string"),
    ('{"species_table": {"species": [{"caliper": 1}]}, '
     '"devices": {"replay": {"path": "x.nmea"}}}',
     "species_table: species entry 0: 'code'"),
]


@pytest.mark.parametrize("content, problem", BAD_SCENARIOS,
                         ids=[c[:40] for c, _ in BAD_SCENARIOS])
def test_bad_scenario_file_gives_file_and_key_and_exit_2(tmp_path, capsys, content, problem):
    path = tmp_path / "demo.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    assert str(info.value) == f"{path}: {problem}"
    assert isinstance(info.value, ValueError)
    # the CLI prints the same one line and exits 2 (a traceback would raise out of main)
    assert main(["--scenario", str(path), "--no-links", "--duration", "0.1"]) == 2
    err = capsys.readouterr().err
    assert err == f"fieldapp-sim: {path}: {problem}\n"


def test_crs_that_does_not_exist_or_is_projected_is_refused(tmp_path):
    path = tmp_path / "site.json"
    for crs, problem in [("EPSG:0", "'EPSG:0' is not a coordinate reference system"),
                         ("EPSG:26915", "'EPSG:26915' is not geographic")]:
        path.write_text(json.dumps({"site": {"crs": crs}, "devices": {"caliper": {
            "tally": [TREE]}}}), encoding="utf-8")
        with pytest.raises(ScenarioError) as info:
            load_scenario(path)
        assert (info.value.source, info.value.key_path) == (str(path), "site.crs")
        assert info.value.problem.startswith(problem), info.value.problem


def test_non_utf8_scenario_names_the_file(tmp_path, capsys):
    path = tmp_path / "latin1.json"
    path.write_bytes('{"site": {"name": "Rivière"}, "devices": {}}'.encode("latin-1"))
    assert main(["--scenario", str(path), "--no-links", "--duration", "0.1"]) == 2
    err = capsys.readouterr().err
    # "è" is 0xE8 in Latin-1; 23 characters of ASCII precede it ({"site": {"name": "Rivi)
    assert err.startswith(f"fieldapp-sim: {path}: not UTF-8 text ('utf-8' codec can't decode "
                          "byte 0xe8 in position 23"), err


def test_not_json_names_the_file(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"devices": ', encoding="utf-8")
    with pytest.raises(ScenarioError, match=rf"^{path}: not JSON: Expecting value"):
        load_scenario(path)


def test_shipped_demo_and_a_minimal_scenario_are_valid(tmp_path):
    demo = load_scenario("demo")  # validated while loading
    assert validate_scenario(demo) is demo
    path = tmp_path / "legs.json"
    path.write_text(json.dumps({"devices": {"gnss": {"start": [43.3, -91.8],
                                                      "legs": [[100, 90]]}}}), encoding="utf-8")
    assert load_scenario(path)["devices"]["gnss"]["legs"] == [[100, 90]]


def test_dict_scenario_and_overrides_are_validated_with_the_source_named():
    demo = load_scenario("demo")
    with pytest.raises(ScenarioError) as info:
        start_scenario(demo, only=["caliper"], source="site.json",
                       overrides={"caliper": {"interval_s": float("nan")}})
    assert str(info.value) == "site.json: devices.caliper.interval_s: nan is not a finite number"
    with pytest.raises(ScenarioError, match=r"^<scenario>: devices.caliper.tally\[0\]: "
                                            r"missing 'dbh_in'$"):
        start_scenario({"devices": {"caliper": {"tally": [{"species_number": 2}]}}})


# --------------------------------------------------------------------------- 2. rates


@pytest.mark.parametrize("interval_s", [-1.0, 0.0, 0, float("nan"), float("inf"), "2"])
def test_caliper_and_rangefinder_refuse_a_bad_interval(interval_s):
    # CaliperSim(interval_s=-1) used to re-arm with a negative interval and flood the port;
    # nan never fired. The check comes before any pty is made (nothing to close).
    with pytest.raises(ValueError, match="interval_s"):
        CaliperSim([TREE], interval_s=interval_s)
    with pytest.raises(ValueError, match="interval_s"):
        RangefinderSim(PROFILE, interval_s=interval_s)


def test_other_simulator_rates_must_be_finite(tmp_path):
    log = tmp_path / "one.nmea"
    log.write_text("$GPZDA,120000.00,01,01,2024,00,00*6B\n", encoding="ascii")
    with pytest.raises(ValueError, match="speed nan"):
        ReplaySim(log, speed=float("nan"))
    with pytest.raises(ValueError, match="speed nan m/s"):
        GnssPath([(43.3, -91.8)], speed_m_s=float("nan"))
    with pytest.raises(ValueError, match="waypoint 1 'ab' is not a"):
        GnssPath([(43.3, -91.8), "ab"])
    path = GnssPath([(43.3, -91.8)])
    for kw in ({"rate_hz": float("nan")}, {"rate_hz": 0}, {"time_scale": -1.0}):
        with pytest.raises(ValueError):
            GnssSim(path, **kw)


@pytest.mark.parametrize("flag, value, problem", [
    ("--caliper-every", "-1", "-1 must be a finite number > 0"),
    ("--caliper-every", "nan", "nan must be a finite number > 0"),
    ("--shoot-every", "0", "0 must be a finite number > 0"),
    ("--rate-hz", "0", "0 must be a finite number >= 1 and <= 20"),
    ("--rate-hz", "21", "21 must be a finite number >= 1 and <= 20"),
    ("--bad-rate", "1.5", "1.5 must be a finite number >= 0 and <= 1"),
    ("--speed", "-2", "-2 must be a finite number >= 0"),
    ("--duration", "inf", "inf must be a finite number > 0"),
    ("--rate-hz", "fast", "'fast' is not a number"),
])
def test_cli_refuses_bad_rates_with_exit_2(capsys, flag, value, problem):
    # before: --rate-hz 0 / --shoot-every 0 silently used the defaults, -1 flooded the port
    with pytest.raises(SystemExit) as info:
        main([flag, value, "--no-links", "--duration", "0.1"])
    assert info.value.code == 2
    assert f"argument {flag}: {problem}" in capsys.readouterr().err


def test_cli_passes_accepted_rates_to_the_simulators(tmp_path, monkeypatch):
    # the values reach the simulators (not dropped by a truthiness test as --rate-hz 0 was)
    import devices.sim.scenario as scenario

    seen = {}
    real = scenario.start_scenario

    def spy(data, **kw):
        run = real(data, **kw)
        seen.update({name: sim for name, sim in run.simulators.items()})
        return run

    monkeypatch.setattr(scenario, "start_scenario", spy)
    assert main(["--caliper-every", "0.25", "--shoot-every", "0.5", "--rate-hz", "1",
                 "--link-dir", str(tmp_path), "--duration", "0.1"]) == 0
    assert (seen["caliper"].interval_s, seen["rangefinder"].interval_s,
            seen["gnss"].rate_hz) == (0.25, 0.5, 1.0)


# --------------------------------------------------------------------------- 3. link folders


def test_second_run_in_the_same_folder_is_refused_and_leaves_the_links(tmp_path, capsys):
    links = tmp_path / "links"
    with start_scenario("demo", only=["caliper"], link_dir=links) as first:
        link = links / "caliper"
        target = os.readlink(link)
        assert (links / OWNER_FILE).read_text().strip() == str(os.getpid())
        with pytest.raises(LinkDirBusy, match=f"in use by simulator process {os.getpid()}"):
            start_scenario("demo", only=["caliper"], link_dir=links)
        assert main(["--only", "caliper", "--link-dir", str(links),
                     "--duration", "0.1"]) == 2
        assert f"{links} is in use by simulator process {os.getpid()}" in \
            capsys.readouterr().err
        # the first run's link is untouched and still leads to its live pty
        assert os.readlink(link) == target == first["caliper"].endpoint.slave_path
    assert not links.exists()  # released: its link, the owner file, the folder it made


def test_release_keeps_a_folder_the_user_made(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with start_scenario("demo", only=["caliper"], link_dir=tmp_path):
        assert (tmp_path / "caliper").is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
    with start_scenario("demo", only=["caliper"], link_dir=tmp_path / "made-by-the-run"):
        pass
    assert not (tmp_path / "made-by-the-run").exists()


def test_stale_owner_file_of_a_dead_process_is_replaced(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    (tmp_path / OWNER_FILE).write_text(dead.stdout)
    claim = claim_link_dir(tmp_path)
    assert claim.owner.read_text().strip() == str(os.getpid())
    release_link_dir(claim)
    assert list(tmp_path.iterdir()) == []  # owner file gone; the folder was not ours to remove


def test_endpoint_close_leaves_a_link_another_simulator_took(tmp_path):
    link = tmp_path / "gnss"
    endpoint = PtyEndpoint(link=link)
    other = tmp_path / "elsewhere"
    other.touch()
    os.remove(link)
    os.symlink(other, link)  # another run re-pointed the name
    endpoint.close()
    assert os.readlink(link) == str(other)


def _sigint_as_at_a_terminal() -> None:
    """In the child before exec: Ctrl-C's default action. A test run started in the background
    of a non-interactive shell inherits SIGINT *ignored* (POSIX), and Python then never raises
    KeyboardInterrupt: the SIGINT below would be lost and the simulator run its full --duration."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_two_cli_processes_keep_their_own_links(tmp_path, monkeypatch, capsys):
    """The tester's case: a second run, then its exit, must not break the first one's links."""
    env = {**os.environ, "TMPDIR": str(tmp_path), "PYTHONPATH": str(REPO)}
    first = subprocess.Popen(
        [sys.executable, "-m", "devices.sim", "--only", "caliper", "--duration", "120"],
        cwd=REPO, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, preexec_fn=_sigint_as_at_a_terminal)
    shared = tmp_path / f"fieldapp-sim-{os.getuid()}"
    link = shared / "caliper"
    try:
        assert wait_for(lambda: link.is_symlink() or first.poll() is not None)
        assert first.poll() is None, first.stderr.read()
        target = os.readlink(link)
        monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
        assert main(["--only", "caliper", "--duration", "0.1"]) == 0
        out, err = capsys.readouterr()
        own = tmp_path / f"fieldapp-sim-{os.getuid()}-{os.getpid()}"
        assert f"caliper      {own}/caliper  " in out
        assert f"{shared} is in use by simulator process {first.pid}" in err
        # the second run has exited: its folder is gone, the first one's link is intact
        assert not own.exists()
        assert os.readlink(link) == target and os.path.exists(link)
        first.send_signal(signal.SIGINT)
        first.wait(TIMEOUT_S)
        assert first.returncode == 0
        assert not shared.exists()  # the first run removed its own links and owner file
    finally:
        if first.poll() is None:
            first.kill()
            first.wait(TIMEOUT_S)
        first.stderr.close()


def test_kill_stops_the_cli_like_ctrl_c_and_removes_its_links(tmp_path):
    # ``kill PID`` (SIGTERM): once left the links and the owner file dangling until the next run
    env = {**os.environ, "TMPDIR": str(tmp_path), "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "devices.sim", "--only", "caliper", "--duration", "120"],
        cwd=REPO, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE)
    shared = tmp_path / f"fieldapp-sim-{os.getuid()}"
    try:
        assert wait_for(lambda: (shared / "caliper").is_symlink() or proc.poll() is not None)
        assert proc.poll() is None, proc.stderr.read()
        proc.terminate()
        assert proc.wait(TIMEOUT_S) == 0, proc.stderr.read().decode(errors="replace")
        assert not shared.exists()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()


def test_stop_after_an_interrupted_thread_start_does_not_raise():
    # Ctrl-C / kill inside Thread.start() (the simulators starting): stop() used to raise
    # "cannot join thread before it is started" from the cleanup, so the CLI exited 1 with a
    # traceback instead of removing its links
    import threading

    from devices.sim.base import _join

    never = threading.Thread(target=lambda: None)
    t0 = time.monotonic()
    _join(never, 0.2)                      # never started: gives up at the timeout, no error
    assert 0.15 <= time.monotonic() - t0 < 5
    started = threading.Thread(target=time.sleep, args=(0.05,))
    started.start()
    _join(started, 5.0)
    assert not started.is_alive()
