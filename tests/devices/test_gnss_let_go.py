"""A port that is not a receiver is let go (issue 15 item 9): a link that yields no valid NMEA
for the set time is closed and retried like an unplug, and a talking receiver is kept."""

from __future__ import annotations

import time

import pynmea2
import pytest

from devices.nmea import GnssReader
from devices.sim.endpoint import PtyEndpoint, TcpEndpoint, pty_available
from devices.transport import SerialSettings

WAIT_S = 60.0  # generous: the machine is shared and loaded


def gga(second: int) -> bytes:
    body = f"GPGGA,1200{second % 60:02d}.00,4240.000,N,08920.000,W,1,08,0.9,300.0,M,-33.0,M,,"
    return f"${body}*{pynmea2.NMEASentence.checksum(body):02X}\r\n".encode()


def endpoint(kind: str):
    if kind == "pty":
        if not pty_available():
            pytest.skip("no pseudo-terminals here")
        return PtyEndpoint()
    return TcpEndpoint()


def write_until(ep, data_of, condition, timeout_s: float = WAIT_S) -> None:
    """Keep writing ``data_of(i)`` (a program talking on the line) until ``condition()``."""
    deadline = time.monotonic() + timeout_s
    i = 0
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        ep.write(data_of(i))
        i += 1
        time.sleep(0.02)  # pacing of the talker, not synchronisation: we wait on condition()


@pytest.mark.parametrize("kind", ["tcp", "pty"])
def test_a_terminal_talking_no_nmea_is_let_go_and_retried(kind):
    ep = endpoint(kind)
    statuses = []
    reader = GnssReader(SerialSettings(ep.url), on_status=statuses.append, no_nmea_timeout_s=0.4)
    try:
        reader.start()
        # another program's terminal: a shell prompt and echoed text, never a sentence
        write_until(ep, lambda i: b"user@laptop:~$ ls\r\nDocuments  Downloads\r\n",
                    lambda: reader.stats().reader.silent_closes >= 2)
        stats = reader.stats()
        assert stats.reader.connects >= 2  # closed, then opened again, like an unplug
        assert stats.fixes_delivered == 0
        words = [s.message for s in statuses if "no valid NMEA" in (s.message or "")]
        assert words and words[0] == (
            f"{ep.url} disconnected: no valid NMEA for 0.4 s (not a receiver, or not talking): "
            "port let go; retrying in 0.1 s")
        # the receiver comes back on that port: read and kept
        write_until(ep, gga, lambda: reader.stats().fixes_delivered >= 5)
        assert reader.latest_fix().lat_deg == pytest.approx(42.6666667)
    finally:
        reader.stop()
        ep.close()


def test_a_receiver_sending_nmea_is_not_let_go():
    ep = TcpEndpoint()
    reader = GnssReader(SerialSettings(ep.url), no_nmea_timeout_s=3.0)
    try:
        reader.start()
        write_until(ep, gga, lambda: reader.stats().fixes_delivered >= 1)
        start = time.monotonic()
        # NMEA every 20 ms for longer than the timeout: never let go
        write_until(ep, gga, lambda: time.monotonic() - start > 4.0)
        stats = reader.stats()
        assert stats.reader.silent_closes == 0 and stats.reader.connects == 1
    finally:
        reader.stop()
        ep.close()


def test_no_nmea_timeout_must_be_positive():
    with pytest.raises(ValueError, match="silence_timeout_s 0 must be > 0"):
        GnssReader(SerialSettings("loop://"), no_nmea_timeout_s=0)
