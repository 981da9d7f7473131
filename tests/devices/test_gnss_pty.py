"""GnssReader over a real pseudo-terminal: fixes arrive, unplug/replug resumes, split sentences;
``python -m devices.nmea`` on ports that are missing, refused, or appear later.

The "receiver" is the pty master, written by the test; the reader opens a stable symlink in
tmp_path pointing at the slave, as socat's ``link=`` would. A replug is a fresh pty behind the same
symlink. Waits poll with generous timeouts; nothing asserts on elapsed time.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import queue
import select
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pynmea2
import pytest

from devices.nmea import FixQuality, GnssReader
from devices.transport import LinkState, SerialSettings, open_handles

WAIT_S = 20.0
UTC = dt.UTC


def sentence(body: str) -> bytes:
    return f"${body}*{pynmea2.NMEASentence.checksum(body):02X}\r\n".encode()


def epoch_bytes(second: int) -> bytes:
    """One 1 Hz epoch (RMC + GGA + GSA) at 12:00:<second> on 1 Jul 2024, ~2 m apart."""
    t = f"1200{second:02d}.00"
    lat = f"4807.{38 + second:03d}"  # 48 deg 07.0xx' N
    return (
        sentence(f"GNRMC,{t},A,{lat},N,01131.000,E,0.5,45.0,010724,,,A,V")
        + sentence(f"GNGGA,{t},{lat},N,01131.000,E,1,09,0.8,545.4,M,46.9,M,,")
        + sentence("GNGSA,A,3,01,02,03,04,05,06,07,08,09,,,,1.5,0.8,1.2,1")
    )


class FakeReceiver:
    """A pty pair behind a symlink; ``replug()`` swaps in a fresh pty."""

    def __init__(self, link: Path):
        self.link = link
        self.master = self.slave = None
        self.plug()

    def plug(self):
        self.master, self.slave = os.openpty()
        tmp = self.link.with_suffix(".new")
        os.symlink(os.ttyname(self.slave), tmp)
        os.replace(tmp, self.link)  # re-point atomically, like socat link=

    def unplug(self):
        os.close(self.master)
        os.close(self.slave)
        self.master = self.slave = None

    def write(self, data: bytes):
        os.write(self.master, data)


@pytest.fixture
def receiver(tmp_path):
    r = FakeReceiver(tmp_path / "gnss0")
    yield r
    if r.master is not None:
        r.unplug()


def wait_status(statuses: queue.Queue, state: LinkState):
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        try:
            s = statuses.get(timeout=0.1)
        except queue.Empty:
            continue
        if s.state is state:
            return s
    raise AssertionError(f"no {state} within {WAIT_S} s")


def reader_threads():
    return [t for t in threading.enumerate() if t.name.startswith("fieldapp-reader-")]


def test_fixes_arrive_and_resume_after_replug(receiver):
    statuses: queue.Queue = queue.Queue()
    fixes: list = []
    gnss = GnssReader(SerialSettings(str(receiver.link), read_timeout_s=0.05), on_fix=fixes.append,
                      on_status=statuses.put, antenna_height_m=1.8, name="pty")
    with gnss:
        wait_status(statuses, LinkState.CONNECTED)
        receiver.write(epoch_bytes(0) + epoch_bytes(1))
        fix = gnss.wait_fix(WAIT_S)
        assert fix is not None
        # wait for the second epoch (closed by the idle gap after it)
        fix = fix if fix.time_utc.second == 1 else gnss.wait_fix(WAIT_S, newer_than=fix)
        assert fix.time_utc == dt.datetime(2024, 7, 1, 12, 0, 1, tzinfo=UTC)
        assert fix.lat_deg == pytest.approx(48 + 7.039 / 60) and fix.lon_deg == pytest.approx(11 + 31 / 60)
        assert fix.quality is FixQuality.AUTONOMOUS and fix.sats_used == 9 and fix.vdop == 1.2
        assert fix.antenna_height_m == 1.8 and fix.ground_alt_msl_m == pytest.approx(543.6)
        assert gnss.usable_fix(fix.t_monotonic_s + 0.5)[1] == (True, "ok")
        first_thread = reader_threads()
        assert [t.name for t in first_thread] == ["fieldapp-reader-pty"]

        receiver.unplug()  # the receiver is pulled out mid-stream
        wait_status(statuses, LinkState.DISCONNECTED)
        receiver.plug()  # ... and plugged back in: a fresh pty behind the same path
        wait_status(statuses, LinkState.CONNECTED)
        receiver.write(epoch_bytes(5))
        later = gnss.wait_fix(WAIT_S, newer_than=fix)
        while later is not None and later.time_utc.second != 5:
            later = gnss.wait_fix(WAIT_S, newer_than=later)
        assert later is not None and later.lat_deg == pytest.approx(48 + 7.043 / 60)
        assert reader_threads() == first_thread  # the same single thread, no restart
        stats = gnss.stats()
        assert stats.reader.reconnects == 1 and stats.reader.read_errors == 1
        assert sum(stats.bad.values()) == 0
        # stale: the newest fix, judged 3 s after it arrived
        assert gnss.usable_fix(later.t_monotonic_s + 3.0)[1] == (False, "stale: 3.0 s old (limit 2.0 s)")
    assert gnss.stats().last_status.state is LinkState.STOPPED
    assert open_handles() == []
    assert [f.time_utc.second for f in fixes] == [0, 1, 5]


def test_sentence_in_two_chunks_120_ms_apart_gives_one_fix(receiver):
    statuses: queue.Queue = queue.Queue()
    fixes: list = []
    line = sentence("GPGGA,120001.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
    gnss = GnssReader(SerialSettings(str(receiver.link), read_timeout_s=0.05), on_fix=fixes.append,
                      on_status=statuses.put, name="chunks")
    with gnss:
        wait_status(statuses, LinkState.CONNECTED)
        receiver.write(line[:30])
        time.sleep(0.12)  # the gap between the chunks (part of the scenario, not an assertion)
        receiver.write(line[30:])
        fix = gnss.wait_fix(WAIT_S)
        assert fix is not None and fix.lat_deg == pytest.approx(48 + 7.038 / 60)
        stats = gnss.stats()
    assert len(fixes) == 1
    assert stats.nmea.good == 1 and sum(stats.bad.values()) == 0


def test_bad_lines_on_the_wire_are_counted_and_the_stream_goes_on(receiver):
    statuses: queue.Queue = queue.Queue()
    gnss = GnssReader(SerialSettings(str(receiver.link), read_timeout_s=0.05), on_status=statuses.put, name="bad")
    with gnss:
        wait_status(statuses, LinkState.CONNECTED)
        receiver.write(b"\xb5b\x01\x07\x5c\x00\xff\r\n" + b"$GPTXT," + b"x" * 1500 + b"\r\n" + epoch_bytes(3))
        fix = gnss.wait_fix(WAIT_S)
        assert fix is not None and fix.time_utc.second == 3
        bad = gnss.stats().bad
    assert bad["binary_noise"] == 1 and bad["overlong"] == 1


def test_an_older_epoch_on_the_wire_is_counted_not_delivered(receiver):
    # 12:00:21, then a late 12:00:19, then 12:00:22: the late epoch must not become the newest fix
    statuses: queue.Queue = queue.Queue()
    fixes: list = []
    gnss = GnssReader(SerialSettings(str(receiver.link), read_timeout_s=0.05), on_fix=fixes.append,
                      on_status=statuses.put, name="late")
    with gnss:
        wait_status(statuses, LinkState.CONNECTED)
        receiver.write(epoch_bytes(21) + epoch_bytes(19) + epoch_bytes(22))
        fix = gnss.wait_fix(WAIT_S)
        while fix is not None and fix.time_utc.second != 22:
            fix = gnss.wait_fix(WAIT_S, newer_than=fix)
        assert fix is not None and gnss.latest_fix() is fix
        stats = gnss.stats()
    assert [f.time_utc.second for f in fixes] == [21, 22]
    assert stats.bad["time_backwards"] == 1 and stats.fixes_delivered == 2


def test_fix_arrives_on_the_cycle_ender_before_the_next_epoch_is_written(receiver):
    # Epochs 12:00:00..11 (RMC GGA GSA GST ZDA) are written at once: ZDA, which ends every cycle,
    # is learned when epoch 10 closes (10 s of epoch times watched, see EpochAssembler), so epoch
    # 11 can only be delivered on its ZDA: the idle flush is off (an hour) and epoch 12 is not
    # written until epoch 11's fix is in hand. Nothing waits on time here; WAIT_S only bounds it.
    statuses: queue.Queue = queue.Queue()
    fixes: list = []
    gnss = GnssReader(SerialSettings(str(receiver.link), read_timeout_s=0.05), on_fix=fixes.append,
                      on_status=statuses.put, idle_flush_s=3600.0, name="ender")

    def cycle(second: int) -> bytes:
        t = f"1200{second:02d}.00"
        return epoch_bytes(second) + sentence(f"GNGST,{t},0.9,1.2,0.8,45.0,1.1,1.0,2.1") + sentence(
            f"GNZDA,{t},01,07,2024,00,00")

    with gnss:
        wait_status(statuses, LinkState.CONNECTED)
        receiver.write(b"".join(cycle(k) for k in range(12)))
        fix = gnss.wait_fix(WAIT_S)
        while fix is not None and fix.time_utc.second != 11:
            fix = gnss.wait_fix(WAIT_S, newer_than=fix)
        assert fix is not None, [f.time_utc.second for f in fixes]
        assert fix.sentences == ("GNRMC", "GNGGA", "GNGSA", "GNGST", "GNZDA") and fix.sigma_alt_m == 2.1
        stats = gnss.stats()
        receiver.write(cycle(12))  # only now: epoch 11 did not wait for it
        fix12 = gnss.wait_fix(WAIT_S, newer_than=fix)
    assert stats.nmea.early_closes == 1 and stats.nmea.late_lines == 0 and sum(stats.bad.values()) == 0
    assert fix12 is not None and fix12.time_utc.second == 12  # delivered on its ZDA too
    assert [f.time_utc.second for f in fixes] == list(range(13))


# ------------------------------------------------------------------ command line on ports

ROOT = Path(__file__).resolve().parents[2]


def run_cli(*argv: str, timeout_s: float = 60.0) -> subprocess.CompletedProcess:
    """``python -m devices.nmea ARGV`` in a child process (a hang fails the test, not the run)."""
    return subprocess.run([sys.executable, "-m", "devices.nmea", *argv], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout_s)


def closed_tcp_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("source", ["/dev/fieldapp-test-no-such-port", "socket://127.0.0.1:{port}"])
def test_cli_port_that_cannot_be_opened_fails_fast(source):
    # without --wait (or --duration) the first failed open ends the run; it used to retry for ever
    source = source.format(port=closed_tcp_port())
    done = run_cli(source)
    assert done.returncode == 2
    assert f"cannot open {source}" in done.stderr and "--wait" in done.stderr
    assert "Traceback" not in done.stderr and done.stderr.count("# connecting") == 1
    summary = json.loads(done.stdout.splitlines()[-1])
    assert summary["class"] == "SUMMARY" and summary["fixes"] == 0 and source in summary["link"]


def test_cli_wait_keeps_retrying_until_the_port_appears(tmp_path):
    # --wait on a stable link that dangles while the receiver is unplugged (socat link=); the
    # receiver is plugged in once the CLI has reported a failed open, and the CLI gets its fix
    link = tmp_path / "gnss0"
    os.symlink(tmp_path / "absent", link)
    proc = subprocess.Popen([sys.executable, "-m", "devices.nmea", str(link), "--wait", "--count", "1",
                             "--baud", "9600"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    receiver = None
    try:
        err_lines = []
        deadline = time.monotonic() + WAIT_S
        while not any(line.startswith("# disconnected") for line in err_lines):
            assert time.monotonic() < deadline and proc.poll() is None, err_lines
            ready, _, _ = select.select([proc.stderr], [], [], 0.1)
            if ready:
                err_lines.append(proc.stderr.readline())
        receiver = FakeReceiver(link)  # re-points the link at a fresh pty
        second = 0
        while proc.poll() is None and time.monotonic() < deadline + WAIT_S:
            receiver.write(epoch_bytes(second % 60))  # until the CLI has opened the port and read a fix
            second += 1
            time.sleep(0.2)  # pacing of the simulated receiver, not an assertion
        out, err = proc.communicate(timeout=WAIT_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        if receiver is not None:
            receiver.unplug()
    assert proc.returncode == 0, err
    tpv, summary = [json.loads(line) for line in out.splitlines()]
    assert tpv["class"] == "TPV" and tpv["time"].startswith("2024-07-01T12:00:")
    assert summary["class"] == "SUMMARY" and summary["fixes"] >= 1
