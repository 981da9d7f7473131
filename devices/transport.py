"""Serial transport: open a port by URL, frame lines, read on a thread, reconnect.

Every port is opened with :func:`serial.serial_for_url`, so a USB receiver
(``/dev/ttyUSB0``, ``COM7``), Bluetooth SPP (``/dev/rfcomm0``, a Windows COM
port), a TCP bridge (``socket://127.0.0.1:10110``), a pseudo-terminal path or
``loop://`` are a settings change, not a code change.

Pieces
------
:class:`SerialSettings`
    Frozen port settings (URL, baud, framing, auto-baud, read timeout).
:func:`open_port`
    Opens a port, raising :class:`~devices.errors.PortUnavailable` naming it.
    Every handle it returns is kept in a registry until :func:`close_port`
    (tests use :func:`open_handles` to find leaks).
:class:`Framer`, :class:`LineFramer` (:mod:`devices.framing`, importable from here)
    Turn a byte stream into complete lines.  :class:`PortReader` takes a
    ``framer_factory`` so a device with another framing (e.g. a BLE stream of
    checksummed sentences without line ends) plugs in its own framer.
:class:`PortReader`
    One daemon thread ``fieldapp-reader-<name>`` that opens the port, reads,
    frames, hands each line with its monotonic receive time to a callback and
    reconnects with bounded exponential backoff after an unplug.  It reports
    its link state as frozen :class:`DeviceStatus` values; its last act is a
    ``STOPPED`` report saying why.  No exception while opening, configuring
    or reading a port (``termios.error`` included) ends the thread: each is a
    ``DISCONNECTED`` report with the message, then a retry.
:func:`list_ports_async`
    Lists serial ports on a ``fieldapp-portscan`` thread; never blocks.

Notes
-----
On Linux 6.18 a pseudo-terminal accepts parity E (``PARENB``) only on its
first open; later opens fail in ``tcsetattr`` with ``termios.error`` EINVAL,
which pyserial lets through (it is not an :class:`OSError`).
:func:`open_port` turns it into :class:`~devices.errors.PortUnavailable`.

On Linux, when the master side of a pseudo-terminal closes, reading the slave
fails with ``EIO`` (pyserial raises :class:`serial.SerialException`).  A
"replugged" simulator usually appears as a fresh pty behind the same stable
path (a symlink such as socat's ``link=``), so the reader always reopens the
configured path, never a resolved one.
"""

from __future__ import annotations

import enum
import errno
import logging
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field

import serial
import serial.tools.list_ports

try:  # POSIX only; pyserial's posix backend lets termios.error (not an OSError) through
    import termios

    _TERMIOS_ERRORS: tuple[type[BaseException], ...] = (termios.error,)
except ImportError:  # Windows
    _TERMIOS_ERRORS = ()

from devices.errors import PortUnavailable
from devices.framing import MAX_LINE_BYTES, Framer, FramerFactory, LineFramer, is_checksummed_nmea

__all__ = [
    "AUTOBAUD_RATES",
    "BAUD_MIN",
    "BAUD_MAX",
    "MAX_LINE_BYTES",
    "SerialSettings",
    "open_port",
    "close_port",
    "open_handles",
    "LinkState",
    "DeviceStatus",
    "Framer",
    "FramerFactory",
    "LineFramer",
    "ReaderStats",
    "PortReader",
    "PortInfo",
    "list_ports_async",
    "is_checksummed_nmea",
]

log = logging.getLogger(__name__)

BAUD_MIN = 4800
BAUD_MAX = 921600
#: Rates tried by auto-baud, most common GNSS defaults first.
AUTOBAUD_RATES: tuple[int, ...] = (9600, 4800, 38400, 115200, 19200, 57600, 230400, 460800, 921600)
#: URL schemes where a baud rate means nothing (auto-baud is skipped).
NO_BAUD_SCHEMES = frozenset({"socket", "loop"})

_PARITIES = frozenset("NEOMS")
_BYTESIZES = frozenset({5, 6, 7, 8})
_STOPBITS = frozenset({1, 1.5, 2})


# --------------------------------------------------------------------------- settings


@dataclass(frozen=True)
class SerialSettings:
    """How to open one serial port.

    Parameters
    ----------
    url : str
        Port name or pyserial URL: ``/dev/ttyUSB0``, ``COM7``,
        ``/dev/rfcomm0``, ``socket://host:port``, a pty path, ``loop://``.
    baudrate : int
        Bits per second, 4800..921600 (the NMEA 0183 default is 4800, most
        modern receivers ship at 9600 or 38400).
    bytesize : int
        Data bits, 5..8.
    parity : str
        ``"N"``, ``"E"``, ``"O"``, ``"M"`` or ``"S"``.
    stopbits : float
        1, 1.5 or 2.
    autobaud : bool
        Try :data:`AUTOBAUD_RATES` and keep the first that yields a valid
        checksummed NMEA line (skipped for ``socket://`` and ``loop://``).
    read_timeout_s : float
        Longest single blocking read, seconds (0 < t <= 5).  Also bounds how
        long :meth:`PortReader.stop` waits for the thread to notice.

    Raises
    ------
    ValueError
        A value out of range; the message names it.
    """

    url: str
    baudrate: int = 9600
    bytesize: int = 8
    parity: str = "N"
    stopbits: float = 1
    autobaud: bool = False
    read_timeout_s: float = 0.1

    def __post_init__(self) -> None:
        if not isinstance(self.url, str) or not self.url.strip():
            raise ValueError(f"port url must be a non-empty string, got {self.url!r}")
        if not isinstance(self.baudrate, int) or not BAUD_MIN <= self.baudrate <= BAUD_MAX:
            raise ValueError(f"baudrate {self.baudrate!r} outside {BAUD_MIN}..{BAUD_MAX}")
        if self.bytesize not in _BYTESIZES:
            raise ValueError(f"bytesize {self.bytesize!r} not one of 5, 6, 7, 8")
        if not isinstance(self.parity, str) or self.parity.upper() not in _PARITIES:
            raise ValueError(f"parity {self.parity!r} not one of N, E, O, M, S")
        if self.parity != self.parity.upper():
            object.__setattr__(self, "parity", self.parity.upper())
        if self.stopbits not in _STOPBITS:
            raise ValueError(f"stopbits {self.stopbits!r} not one of 1, 1.5, 2")
        if not 0 < self.read_timeout_s <= 5:
            raise ValueError(f"read_timeout_s {self.read_timeout_s!r} outside (0, 5] s")
        if self.scheme in _NETWORK_SCHEMES:
            # pyserial reads these as host:port and fails on a missing port with a TypeError
            # ("'<=' not supported between 'int' and 'NoneType'") that names nothing
            try:
                port = urllib.parse.urlsplit(self.url).port
            except ValueError:
                port = None
            if port is None:
                raise ValueError(f"{self.url}: give the host and port, {self.scheme}://HOST:PORT"
                                 f" (port 1..65535)")

    @property
    def scheme(self) -> str:
        """The URL scheme (``"socket"``, ``"loop"``...) or ``""`` for a device path."""
        head, sep, _ = self.url.partition("://")
        return head.lower() if sep else ""

    @property
    def baud_matters(self) -> bool:
        """False for URLs where a baud rate means nothing (a TCP socket, loop)."""
        return self.scheme not in NO_BAUD_SCHEMES


#: URL schemes pyserial opens as ``HOST:PORT`` over TCP.
_NETWORK_SCHEMES = frozenset({"socket", "rfc2217"})


# --------------------------------------------------------------------------- open / close

_handles_lock = threading.Lock()
_open_handles: dict[int, tuple[str, serial.SerialBase]] = {}


def _errno_of(exc: BaseException) -> int | None:
    """The OS error number of ``exc``: its ``errno``, or ``args[0]`` of a :class:`termios.error`."""
    code = getattr(exc, "errno", None)
    if code is None and isinstance(exc, _TERMIOS_ERRORS) and exc.args and isinstance(exc.args[0], int):
        code = exc.args[0]
    return code


def _describe(exc: BaseException) -> str:
    """The exception in words; a :class:`termios.error` (whose ``str`` is a bare tuple) is named."""
    if isinstance(exc, _TERMIOS_ERRORS) and len(exc.args) == 2:
        return f"configuring the line failed (termios error {exc.args[0]}: {exc.args[1]})"
    return str(exc) or type(exc).__name__


def _reason_for(exc: BaseException) -> str:
    code = _errno_of(exc)
    text = str(exc).lower()
    if code in (errno.ENOENT, errno.ENODEV, errno.ENXIO) or "no such file" in text or "filenotfound" in text:
        return "missing"
    if code in (errno.EBUSY, errno.EAGAIN, errno.EWOULDBLOCK) or "busy" in text or "lock" in text:
        return "busy"
    if code in (errno.EACCES, errno.EPERM) or "permission" in text or "access is denied" in text:
        return "permission"
    if code in (errno.ECONNREFUSED, errno.ETIMEDOUT, errno.EHOSTUNREACH) or "connect" in text:
        return "unreachable"
    return "error"


def open_port(settings: SerialSettings, baudrate: int | None = None) -> serial.SerialBase:
    """Open the port described by ``settings``.

    Parameters
    ----------
    settings : SerialSettings
        Port URL and framing.
    baudrate : int, optional
        Overrides ``settings.baudrate`` (used by auto-baud).

    Returns
    -------
    serial.SerialBase
        An open handle with ``timeout = settings.read_timeout_s``.  Close it
        with :func:`close_port` (it is registered until then).

    Raises
    ------
    PortUnavailable
        The port is missing, busy, not permitted or unreachable, or opening or
        configuring it failed in any other way (e.g. :class:`termios.error`
        EINVAL when the line refuses the framing: on Linux 6.18 a pty accepts
        parity E only on its first open); the message names the port and the
        reason, and the original exception is chained.  Nothing else escapes.
    """
    try:
        handle = serial.serial_for_url(
            settings.url,
            baudrate=baudrate or settings.baudrate,
            bytesize=settings.bytesize,
            parity=settings.parity,
            stopbits=settings.stopbits,
            timeout=settings.read_timeout_s,
            write_timeout=settings.read_timeout_s * 10,
            # a second reader on a device path is "busy", not garbled (None: pyserial's default)
            exclusive=True if not settings.scheme else None,
        )
    except Exception as exc:  # noqa: BLE001 - termios.error, a URL handler's bug...: all "unavailable"
        raise PortUnavailable(settings.url, _reason_for(exc), _describe(exc)) from exc
    with _handles_lock:
        _open_handles[id(handle)] = (settings.url, handle)
    return handle


def close_port(handle: serial.SerialBase | None) -> None:
    """Close a handle from :func:`open_port` and forget it; errors are logged, not raised."""
    if handle is None:
        return
    with _handles_lock:
        _open_handles.pop(id(handle), None)
    try:
        handle.close()
    except Exception as exc:  # noqa: BLE001 - closing a dead port must not raise
        log.debug("closing %s: %s", getattr(handle, "port", handle), exc)


def open_handles() -> list[str]:
    """URLs of handles opened by :func:`open_port` and not yet closed (leak guard)."""
    with _handles_lock:
        for key, (_, handle) in list(_open_handles.items()):
            if not getattr(handle, "is_open", False):
                del _open_handles[key]
        return [url for url, _ in _open_handles.values()]


# --------------------------------------------------------------------------- status


class LinkState(enum.Enum):
    """State of a reader's link to its port."""

    CONNECTING = "connecting"
    CONNECTED = "connected"
    DISCONNECTED = "disconnected"
    STOPPED = "stopped"


@dataclass(frozen=True)
class DeviceStatus:
    """One link-state report from a reader thread.

    Parameters
    ----------
    port : str
        The configured port URL.
    state : LinkState
        New state.
    message : str
        Why, in words for the UI (``"port /dev/ttyUSB0 unavailable (missing)"``).
    t_monotonic_s : float
        :func:`time.monotonic` when the state changed.
    """

    port: str
    state: LinkState
    message: str
    t_monotonic_s: float


# --------------------------------------------------------------------------- reader


@dataclass(frozen=True)
class ReaderStats:
    """Snapshot of a :class:`PortReader`'s counters."""

    bytes_read: int = 0
    lines: int = 0
    reads: int = 0
    connects: int = 0
    reconnects: int = 0
    read_errors: int = 0
    open_failures: int = 0
    callback_errors: int = 0
    dropped_frames: int = 0
    dropped_bytes: int = 0
    bytes_written: int = 0
    writes_dropped: int = 0
    write_errors: int = 0
    silent_closes: int = 0
    baudrate: int | None = None
    state: LinkState = LinkState.STOPPED


class _Stop(Exception):
    """Internal: stop requested while connecting."""


class PortReader:
    """Reads one port on a daemon thread, frames lines and hands them on.

    Parameters
    ----------
    settings : SerialSettings
        Port to read.
    handle_line : callable(line: bytes, t_monotonic_s: float) -> None
        Called on the reader thread for every framed line with the
        :func:`time.monotonic` time the read that completed it returned.
        Keep it quick.  An exception is counted (``stats.callback_errors``),
        logged and survived.
    on_status : callable(DeviceStatus) -> None, optional
        Link-state reports, on the reader thread.  Same error policy.
    handle_lines : callable(lines: list of bytes, t_monotonic_s: float) -> None, optional
        Takes the place of ``handle_line``: all the lines one read completed,
        in one call (cheaper per line for a fast stream).  An exception is
        counted once per call and survived.
    framer_factory : callable() -> Framer
        Makes the framer (a fresh one per connection).  Default
        :class:`LineFramer`.
    name : str
        Thread name suffix: the thread is ``fieldapp-reader-<name>``.
    probe : callable(line: bytes) -> bool, optional
        Auto-baud test of one framed line: True when it proves the rate right.
        Default :func:`is_checksummed_nmea`.
    on_idle : callable(t_monotonic_s: float) -> None, optional
        Called when a read returned no data within ``read_timeout_s`` (a gap in
        the stream; NMEA uses it to close an epoch early).
    backoff_min_s, backoff_max_s : float
        Reconnect delay doubles from ``backoff_min_s`` up to ``backoff_max_s``.
        Any failure to open, configure or read the port (or a framer that
        raises) is reported as ``DISCONNECTED`` with its message and retried
        after this delay; it never ends the thread.
    autobaud_window_s : float
        How long auto-baud listens at each rate.
    silence_timeout_s : float, optional
        A connected link that yields no line passing ``probe`` (valid NMEA) for this many
        seconds is closed and retried like an unplug (its path may now be another program's
        terminal); counted in ``stats.silent_closes``.  None (default): never.

    Examples
    --------
    >>> lines = []
    >>> with PortReader(SerialSettings("loop://"), lambda b, t: lines.append(b)) as r:
    ...     pass
    """

    def __init__(
        self,
        settings: SerialSettings,
        handle_line: Callable[[bytes, float], None] | None,
        on_status: Callable[[DeviceStatus], None] | None = None,
        framer_factory: FramerFactory = LineFramer,
        name: str = "port",
        probe: Callable[[bytes], bool] | None = None,
        on_idle: Callable[[float], None] | None = None,
        backoff_min_s: float = 0.1,
        backoff_max_s: float = 2.0,
        autobaud_window_s: float = 1.5,
        handle_lines: Callable[[list[bytes], float], None] | None = None,
        silence_timeout_s: float | None = None,
    ) -> None:
        if silence_timeout_s is not None and not silence_timeout_s > 0:
            raise ValueError(f"silence_timeout_s {silence_timeout_s!r} must be > 0 seconds (None: off)")
        self.silence_timeout_s = silence_timeout_s
        if (handle_line is None) == (handle_lines is None):
            raise ValueError("give exactly one of handle_line and handle_lines")
        if not 0 < backoff_min_s <= backoff_max_s:
            raise ValueError(f"backoff {backoff_min_s}..{backoff_max_s} s is not an increasing positive range")
        self.settings = settings
        self._handle_line = handle_line
        self._handle_lines = handle_lines
        self._on_status = on_status
        self._framer_factory = framer_factory
        self._probe = probe or is_checksummed_nmea
        self._on_idle = on_idle
        self.backoff_min_s = backoff_min_s
        self.backoff_max_s = backoff_max_s
        self.autobaud_window_s = autobaud_window_s
        self.name = name
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._handle: serial.SerialBase | None = None
        self._thread: threading.Thread | None = None
        self._counts = dict.fromkeys(
            ("bytes_read", "lines", "reads", "connects", "reconnects", "read_errors",
             "open_failures", "callback_errors", "dropped_frames", "dropped_bytes",
             "bytes_written", "writes_dropped", "write_errors", "silent_closes"), 0)
        self._write_lock = threading.Lock()  # one writer at a time; reads never take it
        self._baudrate: int | None = None
        self._state = LinkState.STOPPED
        self._framer: Framer | None = None

    # -- lifecycle

    def start(self) -> PortReader:
        """Start the reader thread (once).  Returns self."""
        if self._thread is not None:
            raise RuntimeError(f"reader {self.name} already started")
        self._thread = threading.Thread(target=self._run, name=f"fieldapp-reader-{self.name}", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout_s: float = 5.0) -> bool:
        """Ask the thread to stop and join it.

        Returns
        -------
        bool
            True when the thread has ended within ``timeout_s``.
        """
        self._stop.set()
        with self._lock:
            handle = self._handle
        if handle is not None and hasattr(handle, "cancel_read"):
            try:
                handle.cancel_read()
            except Exception:  # noqa: BLE001 - best effort wake-up
                pass
        thread = self._thread
        if thread is None:
            return True
        if thread is not threading.current_thread():
            thread.join(timeout_s)
        return not thread.is_alive()

    def __enter__(self) -> PortReader:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        """True while the reader thread is alive."""
        return self._thread is not None and self._thread.is_alive()

    @property
    def started(self) -> bool:
        """True once :meth:`start` was called (the thread may have ended since)."""
        return self._thread is not None

    @property
    def stats(self) -> ReaderStats:
        """A consistent snapshot of the counters."""
        with self._lock:
            counts = dict(self._counts)
            framer = self._framer
            if framer is not None:
                counts["dropped_frames"] += framer.dropped_frames
                counts["dropped_bytes"] += framer.dropped_bytes
            return ReaderStats(**counts, baudrate=self._baudrate, state=self._state)

    # -- writing (any thread)

    def write(self, data: bytes) -> int:
        """Write ``data`` to the port the thread is reading now (e.g. RTCM corrections to the
        receiver).  Any thread may call it; it never waits for the reader thread.

        The bytes go out on the same handle the reader reads from (pyserial reads and writes a
        port from two threads independently; reading is not paused or flushed).  While the
        port is not open the bytes are dropped and counted (``stats.writes_dropped``), as on a
        cable that is unplugged.  A write longer than the handle's write timeout
        (``10 x read_timeout_s``) or a failed one is counted (``stats.write_errors``) and its
        bytes dropped; the reader notices a dead port on its own.

        Returns
        -------
        int
            Bytes written (0 when dropped).
        """
        if not data:
            return 0
        with self._lock:
            handle = self._handle if self._state is LinkState.CONNECTED else None
        if handle is None:
            with self._lock:
                self._counts["writes_dropped"] += len(data)
            return 0
        try:
            with self._write_lock:
                n = handle.write(data)
        except Exception as exc:  # noqa: BLE001 - SerialTimeoutException, a port closed under us...
            with self._lock:
                self._counts["write_errors"] += 1
                self._counts["writes_dropped"] += len(data)
            log.debug("writing %d bytes to %s failed: %s", len(data), self.settings.url, exc)
            return 0
        n = len(data) if n is None else int(n)
        with self._lock:
            self._counts["bytes_written"] += n
        return n

    # -- thread body

    def _report(self, state: LinkState, message: str) -> None:
        with self._lock:
            self._state = state
        if state is not LinkState.CONNECTED:
            log.info("%s: %s", self.settings.url, message)
        if self._on_status is None:
            return
        try:
            self._on_status(DeviceStatus(self.settings.url, state, message, time.monotonic()))
        except Exception:  # noqa: BLE001 - a bad callback must not kill the reader
            with self._lock:
                self._counts["callback_errors"] += 1
            log.exception("status callback of %s failed", self.name)

    def _retire_framer(self) -> None:
        with self._lock:
            if self._framer is not None:
                self._counts["dropped_frames"] += self._framer.dropped_frames
                self._counts["dropped_bytes"] += self._framer.dropped_bytes
            self._framer = None

    def _deliver(self, lines: list[bytes], t: float) -> None:
        if not lines:
            return
        if self._handle_lines is not None:
            try:
                self._handle_lines(lines, t)
            except Exception:  # noqa: BLE001 - a bad callback must not kill the reader
                with self._lock:
                    self._counts["callback_errors"] += 1
                log.exception("lines callback of %s failed on %d lines", self.name, len(lines))
            with self._lock:
                self._counts["lines"] += len(lines)
            return
        handle_line = self._handle_line
        assert handle_line is not None  # __init__ takes exactly one of handle_line, handle_lines
        for line in lines:
            try:
                handle_line(line, t)
            except Exception:  # noqa: BLE001 - a bad callback must not kill the reader
                with self._lock:
                    self._counts["callback_errors"] += 1
                log.exception("line callback of %s failed on %r", self.name, line[:100])
        if lines:
            with self._lock:
                self._counts["lines"] += len(lines)

    def _run(self) -> None:
        reason = "stopped by caller"
        try:
            delay = self.backoff_min_s
            ever_connected = False
            while not self._stop.is_set():
                self._report(LinkState.CONNECTING, f"opening {self.settings.url}")
                try:
                    handle, first_lines = self._connect()
                except _Stop:
                    break
                except Exception as exc:  # noqa: BLE001 - PortUnavailable, or a framer/probe bug
                    self._close_handle()
                    with self._lock:
                        self._counts["open_failures"] += 1
                    if not isinstance(exc, PortUnavailable):
                        log.warning("connecting %s failed unexpectedly", self.settings.url, exc_info=True)
                        exc = PortUnavailable(self.settings.url, "error", _describe(exc))
                    self._report(LinkState.DISCONNECTED, f"{exc}; retrying in {delay:g} s")
                    if self._stop.wait(delay):
                        break
                    delay = min(delay * 2, self.backoff_max_s)
                    continue
                with self._lock:
                    self._counts["connects"] += 1
                    if ever_connected:
                        self._counts["reconnects"] += 1
                ever_connected = True
                delay = self.backoff_min_s
                self._report(LinkState.CONNECTED, f"connected to {self.settings.url} at {self._baudrate} Bd")
                self._deliver(first_lines, time.monotonic())
                why = self._read_until_error(handle)
                self._close_handle()
                self._retire_framer()
                if why is None:  # stop requested
                    break
                self._report(LinkState.DISCONNECTED,
                             f"{self.settings.url} disconnected: {why}; retrying in {delay:g} s")
                if self._stop.wait(delay):
                    break
                delay = min(delay * 2, self.backoff_max_s)
        except BaseException as exc:  # noqa: BLE001 - report, never die silently
            reason = f"reader crashed: {type(exc).__name__}: {exc}"
            log.exception("reader %s crashed", self.name)
        finally:
            self._close_handle()
            self._retire_framer()
            self._report(LinkState.STOPPED, reason)

    def _close_handle(self) -> None:
        with self._lock:
            handle, self._handle = self._handle, None
        close_port(handle)

    def _connect(self) -> tuple[serial.SerialBase, list[bytes]]:
        s = self.settings
        if not (s.autobaud and s.baud_matters):
            handle = open_port(s)
            with self._lock:
                self._handle = handle
                self._baudrate = s.baudrate
                self._framer = self._framer_factory()
            return handle, []
        rates = [self._baudrate or s.baudrate] + [r for r in AUTOBAUD_RATES]
        tried: list[int] = []
        for rate in rates:
            if rate in tried:
                continue
            tried.append(rate)
            if self._stop.is_set():
                raise _Stop
            handle = open_port(s, baudrate=rate)
            with self._lock:
                self._handle = handle
            framer = self._framer_factory()
            lines: list[bytes] = []
            ok = False
            deadline = time.monotonic() + self.autobaud_window_s
            try:
                while time.monotonic() < deadline and not self._stop.is_set():
                    data = self._read_chunk(handle)
                    if data:
                        with self._lock:
                            self._counts["bytes_read"] += len(data)
                        lines.extend(framer.feed(data))
                        if any(self._probe(line) for line in lines):
                            ok = True
                            break
            except Exception as exc:  # noqa: BLE001 - any read failure means this port is not usable now
                self._close_handle()
                raise PortUnavailable(s.url, "error", f"read failed during auto-baud: {_describe(exc)}") from exc
            if ok:
                with self._lock:
                    self._baudrate = rate
                    self._framer = framer
                # deliver from the first proven line on; what came before was at an unknown state
                first = next(i for i, line in enumerate(lines) if self._probe(line))
                return handle, lines[first:]
            self._close_handle()
        if self._stop.is_set():
            raise _Stop
        raise PortUnavailable(s.url, "error", f"auto-baud found no NMEA at {', '.join(map(str, tried))} Bd")

    def _read_chunk(self, handle: serial.SerialBase) -> bytes:
        """Whatever has arrived, waiting at most ``read_timeout_s`` for the first byte."""
        if self.settings.scheme == "socket":
            # pyserial's socket in_waiting is only 0/1 and its read(n) waits the whole timeout
            # for n bytes (a line delivered up to read_timeout_s late): wait for the first
            # byte, then take what else has arrived without waiting (timeout 0: one recv)
            first = handle.read(1)
            if not first:
                return first
            handle.timeout = 0
            try:
                return first + handle.read(4096)
            finally:
                handle.timeout = self.settings.read_timeout_s
        # every concrete pyserial class has in_waiting (posix, win32, the URL handlers); the
        # stubs' SerialBase does not declare it
        return handle.read(max(1, handle.in_waiting))  # type: ignore[attr-defined]

    def _read_until_error(self, handle: serial.SerialBase) -> str | None:
        """Read until stop (returns None) or an error (returns its description)."""
        framer = self._framer
        assert framer is not None
        silence, probe = self.silence_timeout_s, self._probe
        heard = time.monotonic()  # connected (auto-baud, if any, proved a line just now)
        while not self._stop.is_set():
            try:
                data = self._read_chunk(handle)
                t = time.monotonic()
                lines = framer.feed(data) if data else []
                if silence is not None:
                    if lines and any(map(probe, lines)):
                        heard = t
                    elif t - heard > silence:
                        with self._lock:
                            self._counts["silent_closes"] += 1
                        return (f"no valid NMEA for {silence:g} s (not a receiver, or not "
                                "talking): port let go")
            except Exception as exc:  # noqa: BLE001 - the thread must outlive any read failure
                # SerialException/OSError on unplug; TypeError/AttributeError from pyserial on a
                # handle closed under it; termios.error; a framer bug: reconnect with backoff
                if self._stop.is_set():
                    return None
                with self._lock:
                    self._counts["read_errors"] += 1
                if not isinstance(exc, (serial.SerialException, OSError, TypeError, AttributeError)):
                    log.warning("reading %s failed unexpectedly", self.settings.url, exc_info=True)
                return _describe(exc)
            if not data:
                if self._on_idle is not None:
                    try:
                        self._on_idle(t)
                    except Exception:  # noqa: BLE001
                        with self._lock:
                            self._counts["callback_errors"] += 1
                        log.exception("idle callback of %s failed", self.name)
                continue
            with self._lock:
                self._counts["bytes_read"] += len(data)
                self._counts["reads"] += 1
            self._deliver(lines, t)
        return None


# --------------------------------------------------------------------------- port listing


@dataclass(frozen=True)
class PortInfo:
    """One serial port found on this machine."""

    device: str
    description: str = ""
    hwid: str = ""
    extra: dict[str, str] = field(default_factory=dict, compare=False)


def list_ports_async(
    callback: Callable[[list[PortInfo]], None],
    on_error: Callable[[Exception], None] | None = None,
) -> threading.Thread:
    """List serial ports without blocking the caller.

    Runs :func:`serial.tools.list_ports.comports` on a daemon thread named
    ``fieldapp-portscan`` and calls ``callback(ports)`` there (sorted by
    device name).  On failure ``on_error(exc)`` is called if given, else the
    error is logged and ``callback([])`` is called.

    Returns
    -------
    threading.Thread
        The started thread (join it if you need to wait).
    """

    def scan() -> None:
        try:
            ports = [
                PortInfo(p.device, p.description or "", p.hwid or "")
                for p in serial.tools.list_ports.comports()
            ]
        except Exception as exc:  # noqa: BLE001
            if on_error is not None:
                on_error(exc)
                return
            log.warning("listing serial ports failed: %s", exc)
            ports = []
        callback(sorted(ports, key=lambda p: p.device))

    thread = threading.Thread(target=scan, name="fieldapp-portscan", daemon=True)
    thread.start()
    return thread
