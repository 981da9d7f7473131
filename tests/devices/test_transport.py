"""devices.transport: settings, opening ports by URL, line framing, the reader thread.

Reader tests run over real backends: a TCP socket (``socket://``), a pseudo-terminal, and a
pyserial URL handler registered for the test (``fakegnss://``) whose bytes depend on the baud rate,
to prove auto-baud. Waits poll with generous timeouts; nothing asserts on elapsed time.
"""

from __future__ import annotations

import os
import queue
import socket
import sys
import threading
import time
import types

import pytest
import serial

from devices.errors import DeviceError, PortUnavailable
from devices.transport import (
    AUTOBAUD_RATES,
    LineFramer,
    LinkState,
    PortReader,
    SerialSettings,
    close_port,
    is_checksummed_nmea,
    list_ports_async,
    open_handles,
    open_port,
)

GGA = b"$GPGGA,120001.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*66"
WAIT_S = 20.0  # generous: the test machine is shared and loaded


def wait_for(predicate, timeout_s: float = WAIT_S, what: str = "condition"):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.01)
    raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")


# ------------------------------------------------------------------ settings


@pytest.mark.parametrize(
    "kwargs, word",
    [
        ({"baudrate": 4799}, "baudrate"),
        ({"baudrate": 921601}, "baudrate"),
        ({"bytesize": 9}, "bytesize"),
        ({"parity": "X"}, "parity"),
        ({"stopbits": 3}, "stopbits"),
        ({"read_timeout_s": 0}, "read_timeout_s"),
    ],
)
def test_settings_refuse_bad_values_naming_them(kwargs, word):
    with pytest.raises(ValueError, match=word):
        SerialSettings("/dev/ttyUSB0", **kwargs)


def test_settings_defaults_and_limits():
    s = SerialSettings("COM7", baudrate=4800, parity="e")
    assert (s.baudrate, s.bytesize, s.parity, s.stopbits, s.autobaud) == (4800, 8, "E", 1, False)
    assert SerialSettings("x", baudrate=921600).baudrate == 921600
    assert SerialSettings("socket://127.0.0.1:10110").baud_matters is False
    assert SerialSettings("/dev/ttyUSB0").baud_matters is True


# ------------------------------------------------------------------ open_port


def test_missing_port_names_the_port(tmp_path):
    path = str(tmp_path / "ttyNOPE")
    with pytest.raises(PortUnavailable) as info:
        open_port(SerialSettings(path))
    assert isinstance(info.value, DeviceError)
    assert info.value.reason == "missing" and path in str(info.value)
    assert isinstance(info.value.__cause__, serial.SerialException)


def test_unreachable_socket_names_the_port():
    with socket.socket() as s:  # a port nobody listens on: bind, then close
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"socket://127.0.0.1:{port}"
    with pytest.raises(PortUnavailable) as info:
        open_port(SerialSettings(url, read_timeout_s=1))
    assert info.value.reason == "unreachable" and url in str(info.value)


def test_busy_port_is_reported_busy():
    master, slave = os.openpty()
    path = os.ttyname(slave)
    try:
        first = open_port(SerialSettings(path))
        try:
            with pytest.raises(PortUnavailable) as info:
                open_port(SerialSettings(path))
            assert info.value.reason == "busy" and path in str(info.value)
        finally:
            close_port(first)
    finally:
        os.close(slave)
        os.close(master)


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file permissions")
def test_permission_denied_is_reported(tmp_path):
    path = tmp_path / "ttyLOCKED"
    path.write_bytes(b"")
    path.chmod(0)
    with pytest.raises(PortUnavailable) as info:
        open_port(SerialSettings(str(path)))
    assert info.value.reason == "permission"


def test_open_handles_registry():
    h = open_port(SerialSettings("loop://"))
    assert "loop://" in open_handles()
    close_port(h)
    assert "loop://" not in open_handles()
    close_port(h)  # twice is harmless


# ------------------------------------------------------------------ framing


def test_framer_line_ends_and_split_sentences():
    f = LineFramer()
    assert f.feed(b"$A*00\r\n$B*00\n$C*00\r$D") == [b"$A*00", b"$B*00", b"$C*00"]
    assert f.feed(b"*00\r") == [b"$D*00"]
    assert f.feed(b"\n") == []  # the LF of a CRLF split across reads is not an empty line
    assert f.feed(b"") == []
    out = []
    for byte in GGA + b"\r\n":  # one byte per read
        out += f.feed(bytes([byte]))
    assert out == [GGA]


def test_framer_drops_runaway_line_and_resyncs_on_dollar():
    f = LineFramer(max_line_bytes=100)
    assert f.feed(b"$GPTXT," + b"x" * 150) == []  # no terminator, over the cap
    assert f.dropped_frames == 1 and f.dropped_bytes == 157
    assert f.feed(b"yyyy" * 10 + GGA[:20]) == []  # still junk, then a start
    assert f.feed(GGA[20:] + b"\r\n") == [GGA]
    assert f.dropped_bytes == 157 + 40


def test_framer_drops_complete_overlong_line():
    f = LineFramer(max_line_bytes=100)
    assert f.feed(b"$" + b"z" * 200 + b"\r\n" + GGA + b"\n") == [GGA]
    assert f.dropped_frames == 1


def test_framer_runaway_with_later_start_keeps_the_sentence():
    f = LineFramer(max_line_bytes=100)
    assert f.feed(b"$" + b"q" * 120 + GGA + b"\r\n") == [GGA]


def test_is_checksummed_nmea():
    assert is_checksummed_nmea(GGA)
    assert not is_checksummed_nmea(GGA[:-1] + b"7")
    assert not is_checksummed_nmea(b"\xb5b\x01\x07")


# ------------------------------------------------------------------ reader over a TCP socket


class NmeaServer:
    """A one-client-at-a-time TCP server the test drives (a receiver behind a TCP bridge)."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(4)
        self.sock.settimeout(WAIT_S)
        self.url = f"socket://127.0.0.1:{self.sock.getsockname()[1]}"

    def accept(self) -> socket.socket:
        conn, _ = self.sock.accept()
        return conn

    def close(self):
        self.sock.close()


@pytest.fixture
def server():
    s = NmeaServer()
    yield s
    s.close()


def test_reader_over_socket_reconnects_and_survives_a_raising_callback(server):
    lines: queue.Queue = queue.Queue()
    statuses: list = []
    thread_ids = set()

    def handle_line(line, t):
        thread_ids.add(threading.get_ident())
        if line.startswith(b"$BOOM"):
            raise RuntimeError("consumer bug")
        lines.put((line, t))

    reader = PortReader(
        SerialSettings(server.url, read_timeout_s=0.05), handle_line, statuses.append, name="sock",
        backoff_min_s=0.02, backoff_max_s=0.1,
    )
    def connected(n):
        # pyserial's socket open() discards what is already pending: send only once connected
        return lambda: [s.state for s in statuses].count(LinkState.CONNECTED) >= n

    with reader:
        conn = server.accept()
        wait_for(connected(1), what="CONNECTED")
        conn.sendall(b"$BOOM*00\r\n" + GGA + b"\r\n")
        line, t = lines.get(timeout=WAIT_S)
        assert line == GGA and t <= time.monotonic()
        conn.close()  # unplug
        wait_for(lambda: any(s.state is LinkState.DISCONNECTED for s in statuses), what="DISCONNECTED")
        conn = server.accept()  # the reader came back by itself
        wait_for(connected(2), what="second CONNECTED")
        conn.sendall(GGA + b"\n")
        assert lines.get(timeout=WAIT_S)[0] == GGA
        assert reader.running
        stats = reader.stats
        assert stats.callback_errors == 1 and stats.reconnects == 1 and stats.connects == 2
        assert stats.lines == 3
        assert [t.name for t in threading.enumerate()].count("fieldapp-reader-sock") == 1
        conn.close()
    assert len(thread_ids) == 1
    assert statuses[-1].state is LinkState.STOPPED and statuses[-1].message == "stopped by caller"
    states = [s.state for s in statuses]
    assert states[:2] == [LinkState.CONNECTING, LinkState.CONNECTED]
    assert LinkState.DISCONNECTED in states and states.count(LinkState.STOPPED) == 1
    assert not reader.running and open_handles() == []


def test_reader_socket_skips_autobaud(server):
    lines: queue.Queue = queue.Queue()
    settings = SerialSettings(server.url, baudrate=4800, autobaud=True, read_timeout_s=0.05)
    with PortReader(settings, lambda b, t: lines.put(b), name="sock-ab") as reader:
        conn = server.accept()
        wait_for(lambda: reader.stats.state is LinkState.CONNECTED, what="CONNECTED")
        conn.sendall(GGA + b"\r\n")
        assert lines.get(timeout=WAIT_S) == GGA
        assert reader.stats.baudrate == 4800
        conn.close()


class _ReadSpy:
    """A pyserial handle that records (size, timeout) of every read and passes it on."""

    def __init__(self, handle):
        self.handle, self.reads = handle, []

    @property
    def timeout(self):
        return self.handle.timeout

    @timeout.setter
    def timeout(self, value):
        self.handle.timeout = value

    def read(self, size=1):
        self.reads.append((size, self.handle.timeout))
        return self.handle.read(size)


def test_socket_read_takes_what_has_arrived_without_waiting_out_the_timeout(server):
    """pyserial's socket read(4096) waits the whole read timeout for 4096 bytes, so a line over
    TCP reached the app up to read_timeout_s late: the reader waits (with the timeout) only for
    the first byte, then takes the rest with timeout 0, and puts the timeout back."""
    settings = SerialSettings(server.url, read_timeout_s=5.0)
    reader = PortReader(settings, lambda b, t: None, name="sock-chunk")
    handle = open_port(settings)
    try:
        conn = server.accept()
        conn.sendall(GGA + b"\r\n")
        spy = _ReadSpy(handle)
        data = reader._read_chunk(spy)
        while not data.endswith(b"\n"):          # loopback may hand a line over in two parts
            data += reader._read_chunk(spy)
        assert data == GGA + b"\r\n"
        assert spy.reads[:2] == [(1, 5.0), (4096, 0)]
        assert handle.timeout == 5.0
        conn.close()
    finally:
        close_port(handle)


# ------------------------------------------------------------------ reader: missing port, backoff, return


def test_missing_port_backoff_is_bounded_and_reader_resumes_when_port_appears(tmp_path):
    link = tmp_path / "gnss"
    statuses: queue.Queue = queue.Queue()
    lines: queue.Queue = queue.Queue()
    reader = PortReader(
        SerialSettings(str(link), read_timeout_s=0.05), lambda b, t: lines.put(b), statuses.put,
        name="missing", backoff_min_s=0.01, backoff_max_s=0.04,
    )
    master = slave = None
    with reader:
        messages = []
        while len(messages) < 5:
            s = statuses.get(timeout=WAIT_S)
            if s.state is LinkState.DISCONNECTED:
                assert "missing" in s.message and str(link) in s.message
                messages.append(s.message.rsplit("retrying in ", 1)[1])
        # doubling from 0.01 s, capped at 0.04 s: no busy loop, no unbounded wait
        assert messages == ["0.01 s", "0.02 s", "0.04 s", "0.04 s", "0.04 s"]
        master, slave = os.openpty()
        os.symlink(os.ttyname(slave), link)  # the device is plugged in
        wait_for(lambda: reader.stats.state is LinkState.CONNECTED, what="CONNECTED")
        os.write(master, GGA + b"\r\n")
        assert lines.get(timeout=WAIT_S) == GGA
    os.close(slave)
    os.close(master)
    assert reader.stats.open_failures >= 5


# ------------------------------------------------------------------ auto-baud over a fake URL handler


class _FakeGnssSerial(serial.SerialBase):
    """Talks NMEA only at 38400 Bd; at any other rate returns line noise, as a UART would."""

    opened_at: list[int] = []

    def open(self):
        self.is_open = True
        type(self).opened_at.append(self.baudrate)

    def close(self):
        self.is_open = False

    def _reconfigure_port(self, force_update=False):
        pass

    @property
    def in_waiting(self):
        return 0

    def read(self, size=1):
        time.sleep(0.002)
        if self.baudrate == 38400:
            return GGA + b"\r\n"
        return bytes([0xF0, 0x0F, 0x24, 0x7E, 0x0D, 0x0A]) * 4  # '$' and CRLF among the noise

    def write(self, data):
        return len(data)

    def reset_input_buffer(self):
        pass


@pytest.fixture
def fakegnss_url():
    pkg = types.ModuleType("fieldapp_test_urls")
    pkg.__path__ = []
    mod = types.ModuleType("fieldapp_test_urls.protocol_fakegnss")
    mod.Serial = _FakeGnssSerial
    sys.modules[pkg.__name__] = pkg
    sys.modules[mod.__name__] = mod
    serial.protocol_handler_packages.append(pkg.__name__)
    _FakeGnssSerial.opened_at = []
    yield "fakegnss://receiver"
    serial.protocol_handler_packages.remove(pkg.__name__)
    del sys.modules[mod.__name__], sys.modules[pkg.__name__]


def test_autobaud_keeps_the_first_rate_with_valid_nmea(fakegnss_url):
    lines: queue.Queue = queue.Queue()
    settings = SerialSettings(fakegnss_url, baudrate=9600, autobaud=True)
    with PortReader(settings, lambda b, t: lines.put(b), name="ab", autobaud_window_s=0.3) as reader:
        assert lines.get(timeout=WAIT_S) == GGA
        assert reader.stats.baudrate == 38400
    tried = _FakeGnssSerial.opened_at
    # configured rate first, then the list in order, up to the one that works; nothing after it
    expected = [9600] + [r for r in AUTOBAUD_RATES if r != 9600]
    assert tried == expected[: expected.index(38400) + 1]


def test_autobaud_gives_up_and_reports_then_retries(fakegnss_url, monkeypatch):
    monkeypatch.setattr(_FakeGnssSerial, "read", lambda self, size=1: (time.sleep(0.002), b"\xff" * 8)[1])
    statuses: queue.Queue = queue.Queue()
    settings = SerialSettings(fakegnss_url, autobaud=True)
    with PortReader(settings, lambda b, t: None, statuses.put, name="ab-none", autobaud_window_s=0.02,
                    backoff_min_s=0.01, backoff_max_s=0.02):
        while True:
            s = statuses.get(timeout=WAIT_S)
            if s.state is LinkState.DISCONNECTED:
                break
    assert "auto-baud found no NMEA" in s.message
    assert sorted(set(_FakeGnssSerial.opened_at)) == sorted(AUTOBAUD_RATES)


# ------------------------------------------------------------------ a line that refuses its framing (termios.error)
# termios.error is not an OSError: pyserial's posix backend lets it through from tcsetattr, e.g.
# when a Linux 6.18 pty opened a second time refuses parity E with EINVAL. It used to kill the
# reader thread ("reader crashed: error: (22, 'Invalid argument')").

try:
    import termios
except ImportError:  # Windows: no termios, and pyserial's win32 backend raises SerialException
    termios = None
needs_termios = pytest.mark.skipif(termios is None, reason="termios is POSIX only")


class _RefusingSerial(serial.SerialBase):
    """Refuses its framing (termios.error EINVAL, as tcsetattr does) on the first ``refusals`` opens,
    then talks NMEA; ``read_failures`` reads after that raise termios.error too."""

    refusals = 0
    read_failures = 0
    opens = 0

    def open(self):
        cls = type(self)
        cls.opens += 1
        if cls.opens <= cls.refusals:
            raise termios.error(22, "Invalid argument")
        self.is_open = True

    def close(self):
        self.is_open = False

    def _reconfigure_port(self, force_update=False):
        pass

    @property
    def in_waiting(self):
        return 0

    def read(self, size=1):
        time.sleep(0.002)
        cls = type(self)
        if cls.read_failures > 0:
            cls.read_failures -= 1
            raise termios.error(5, "Input/output error")
        return GGA + b"\r\n"


@pytest.fixture
def refusing_url():
    pkg = types.ModuleType("fieldapp_test_refusing")
    pkg.__path__ = []
    mod = types.ModuleType("fieldapp_test_refusing.protocol_refusing")
    mod.Serial = _RefusingSerial
    sys.modules[pkg.__name__] = pkg
    sys.modules[mod.__name__] = mod
    serial.protocol_handler_packages.append(pkg.__name__)
    _RefusingSerial.opens, _RefusingSerial.refusals, _RefusingSerial.read_failures = 0, 0, 0
    yield "refusing://receiver"
    serial.protocol_handler_packages.remove(pkg.__name__)
    del sys.modules[mod.__name__], sys.modules[pkg.__name__]


@needs_termios
def test_open_port_turns_termios_error_into_port_unavailable(refusing_url):
    _RefusingSerial.refusals = 1
    with pytest.raises(PortUnavailable) as info:
        open_port(SerialSettings(refusing_url, parity="E"))
    # the port is named, and errno 22 with its words (str(termios.error) is a bare tuple)
    assert str(info.value) == (
        "port refusing://receiver unavailable (error): "
        "configuring the line failed (termios error 22: Invalid argument)")
    assert isinstance(info.value.__cause__, termios.error)
    close_port(open_port(SerialSettings(refusing_url, parity="E")))  # second open: accepted


def test_open_port_turns_any_other_exception_into_port_unavailable(monkeypatch):
    def broken(url, **kwargs):
        raise RuntimeError("handler bug")

    monkeypatch.setattr(serial, "serial_for_url", broken)
    with pytest.raises(PortUnavailable) as info:
        open_port(SerialSettings("/dev/ttyFAKE0"))
    assert str(info.value) == "port /dev/ttyFAKE0 unavailable (error): handler bug"
    assert isinstance(info.value.__cause__, RuntimeError)


@needs_termios
def test_pty_at_8e1_opened_twice_never_lets_termios_error_out():
    # Linux 6.18 refuses parity E on the second open of a pty (EINVAL); other kernels accept it.
    # Either way open_port returns a handle or raises PortUnavailable naming the pty.
    master, slave = os.openpty()
    path = os.ttyname(slave)
    try:
        for _ in range(2):
            try:
                handle = open_port(SerialSettings(path, parity="E"))
            except PortUnavailable as exc:
                assert path in str(exc) and "termios error 22" in str(exc)
            else:
                close_port(handle)
    finally:
        os.close(slave)
        os.close(master)


@needs_termios
def test_reader_survives_termios_error_on_open_and_read_and_reports_it(refusing_url):
    _RefusingSerial.refusals = 3  # three opens refused, then it works
    _RefusingSerial.read_failures = 1  # and the first read after that fails too
    statuses: queue.Queue = queue.Queue()
    lines: queue.Queue = queue.Queue()
    reader = PortReader(SerialSettings(refusing_url, parity="E"), lambda b, t: lines.put(b), statuses.put,
                        name="refusing", backoff_min_s=0.01, backoff_max_s=0.02)
    with reader:
        assert lines.get(timeout=WAIT_S) == GGA  # it came through all of that by itself
        assert reader.running
    seen = []
    while not statuses.empty():
        seen.append(statuses.get())
    down = [s.message for s in seen if s.state is LinkState.DISCONNECTED]
    # three refused opens, reported with the port and the reason, backoff 0.01 doubling to 0.02 s
    assert down[:3] == [
        f"port refusing://receiver unavailable (error): configuring the line failed "
        f"(termios error 22: Invalid argument); retrying in {d} s" for d in ("0.01", "0.02", "0.02")]
    # then one connection whose first read failed
    assert down[3] == ("refusing://receiver disconnected: configuring the line failed "
                       "(termios error 5: Input/output error); retrying in 0.01 s")
    assert seen[-1].state is LinkState.STOPPED and seen[-1].message == "stopped by caller"
    stats = reader.stats
    assert (stats.open_failures, stats.read_errors, stats.connects) == (3, 1, 2)


@needs_termios
def test_reader_survives_a_raising_framer(refusing_url):
    made = []

    class BrokenOnce(LineFramer):
        def feed(self, data):
            if len(made) == 1:
                raise RuntimeError("framer bug")
            return super().feed(data)

    def factory():
        made.append(1)
        return BrokenOnce()

    statuses: queue.Queue = queue.Queue()
    lines: queue.Queue = queue.Queue()
    with PortReader(SerialSettings(refusing_url), lambda b, t: lines.put(b), statuses.put,
                    framer_factory=factory, name="framer-bug", backoff_min_s=0.01) as reader:
        assert lines.get(timeout=WAIT_S) == GGA  # from the second connection's framer
        assert reader.running
    seen = []
    while not statuses.empty():
        seen.append(statuses.get())
    assert [s.message for s in seen if s.state is LinkState.DISCONNECTED] == [
        "refusing://receiver disconnected: framer bug; retrying in 0.01 s"]
    assert reader.stats.read_errors == 1 and len(made) == 2


@needs_termios
def test_handle_lines_gets_each_read_as_one_batch_and_survives_a_raising_callback(refusing_url):
    batches: queue.Queue = queue.Queue()
    calls = []

    def handle_lines(lines, t):
        calls.append(t)
        if len(calls) == 1:
            raise RuntimeError("consumer bug")
        batches.put(list(lines))

    with PortReader(SerialSettings(refusing_url), None, handle_lines=handle_lines, name="batch") as reader:
        assert batches.get(timeout=WAIT_S) == [GGA]  # the fake sends one GGA per read
    assert reader.stats.callback_errors == 1 and reader.stats.lines >= 2
    with pytest.raises(ValueError, match="exactly one"):
        PortReader(SerialSettings("loop://"), None)
    with pytest.raises(ValueError, match="exactly one"):
        PortReader(SerialSettings("loop://"), lambda b, t: None, handle_lines=lambda ls, t: None)


# ------------------------------------------------------------------ port listing


def test_list_ports_async_does_not_block_and_names_its_thread():
    got: queue.Queue = queue.Queue()
    thread = list_ports_async(got.put)
    assert thread.name == "fieldapp-portscan" and thread.daemon
    ports = got.get(timeout=WAIT_S)
    assert isinstance(ports, list)
    assert all(p.device for p in ports)
    thread.join(WAIT_S)


def test_list_ports_async_reports_errors(monkeypatch):
    import serial.tools.list_ports

    def broken():
        raise OSError("udev unavailable")

    monkeypatch.setattr(serial.tools.list_ports, "comports", broken)
    errors: queue.Queue = queue.Queue()
    thread = list_ports_async(lambda ports: None, on_error=errors.put)
    assert "udev" in str(errors.get(timeout=WAIT_S))
    thread.join(WAIT_S)


@pytest.mark.parametrize("url", ["socket://host", "socket://host:99999", "rfc2217://h", "SOCKET://h:x"])
def test_network_url_without_a_usable_port_is_refused_in_words(url):
    # pyserial's own failure for socket://host is a TypeError about '<=' and NoneType
    with pytest.raises(ValueError) as err:
        SerialSettings(url)
    scheme = url.partition("://")[0].lower()
    assert str(err.value) == f"{url}: give the host and port, {scheme}://HOST:PORT (port 1..65535)"
    assert SerialSettings("socket://127.0.0.1:2947").scheme == "socket"
