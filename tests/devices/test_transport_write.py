"""PortReader.write: corrections go out on the port being read, from another thread, without
disturbing the lines coming in; while the port is not open they are dropped and counted."""

from __future__ import annotations

import os
import threading
import time

import pynmea2
import pytest

from devices.sim.endpoint import PtyEndpoint
from devices.transport import LinkState, PortReader, SerialSettings


def wait_for(cond, timeout_s: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and not cond():
        time.sleep(0.01)
    return cond()


def gga(i: int) -> bytes:
    body = f"GPGGA,1200{i % 60:02d}.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"
    return f"${body}*{pynmea2.NMEASentence.checksum(body):02X}\r\n".encode()


@pytest.mark.skipif(os.name != "posix", reason="pty")
def test_write_while_reading_on_a_pty(tmp_path):
    ep = PtyEndpoint(link=tmp_path / "rx")
    lines = []
    states = []
    reader = PortReader(SerialSettings(ep.url), lambda b, t: lines.append(b),
                        on_status=lambda s: states.append(s.state), name="wr")
    got = bytearray()
    stop = threading.Event()

    def receiver():  # the "receiver": reads what the app writes, sends NMEA meanwhile
        i = 0
        while not stop.is_set():
            got.extend(ep.read(0.01))
            ep.write(gga(i))
            i += 1

    t = threading.Thread(target=receiver, daemon=True)
    with reader:
        t.start()
        assert wait_for(lambda: LinkState.CONNECTED in states and len(lines) > 5)
        frame = bytes(range(256)) * 4  # binary, like RTCM 3: every byte value, no line framing
        sent = sum(reader.write(frame) for _ in range(25))
        assert sent == 25 * 1024
        assert wait_for(lambda: len(got) >= 25 * 1024)
        n = len(lines)
        assert wait_for(lambda: len(lines) > n + 20)  # reading goes on
        stats = reader.stats
    stop.set()
    t.join(2)
    ep.close()
    assert bytes(got[: 25 * 1024]) == frame * 25  # every byte out, in order
    assert stats.bytes_written == 25 * 1024 and stats.writes_dropped == 0
    assert all(line.startswith(b"$GPGGA,") for line in lines)  # nothing garbled coming in


def test_write_while_not_connected_is_dropped_and_counted():
    reader = PortReader(SerialSettings("loop://"), lambda b, t: None, name="wr2")
    assert reader.write(b"\xd3\x00\x13" + bytes(22)) == 0  # not started: no port open
    assert reader.stats.writes_dropped == 25 and reader.stats.bytes_written == 0
    assert reader.write(b"") == 0


def test_loop_echo_of_a_write_is_read_back():
    lines = []
    with PortReader(SerialSettings("loop://"), lambda b, t: lines.append(b), name="wr3") as r:
        assert wait_for(lambda: r.stats.state is LinkState.CONNECTED)
        assert r.write(gga(1)) == len(gga(1))
        assert wait_for(lambda: lines)
    assert lines[0] == gga(1).rstrip(b"\r\n")
