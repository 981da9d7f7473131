"""Corrections from an NTRIP caster to the GNSS receiver (RTK), with pygnssutils' client.

A caster is named gpsd's way, ``ntrip://user:password@host:port/MOUNT`` (``ntrips://`` for
HTTPS; ``?v=1`` for an NTRIP 1.0 caster, NTRIP 2.0 otherwise); :meth:`Caster.parse` reads it.

:class:`NtripClient` runs one supervisor thread ``fieldapp-ntrip`` around pygnssutils'
:class:`~pygnssutils.GNSSNTRIPClient` (which speaks the protocol: request, authentication,
chunked transfer, RTCM 3 framing, GGA upload). Every RTCM 3 frame it receives is handed to a
``write`` callable -- :meth:`devices.device_reader.DeviceReader.write` of the receiver's own
reader (the same serial / Bluetooth / socket link the NMEA comes in on) or of a second port
(:func:`corrections_port`). It sends the receiver's position as GGA every ``gga_interval_s``
(VRS networks need it), reconnects with a bounded exponential backoff, and never blocks its
caller: start, stop and status return at once. Failures are reported in words
(:class:`CorrectionStatus`): a wrong password, an unknown mountpoint, a caster that closes the
connection, one that sends bytes that are not RTCM 3; the caster's own text in them is made
printable and short (:func:`caster_text`). Ending an attempt shuts its socket and joins
pygnssutils' reader, so a caster that misbehaves for hours leaves one reader thread at most.

:func:`fetch_sourcetable` lists a caster's mountpoints on a thread, nearest to a position first.

No Qt and nothing of fieldapp here. pygnssutils is imported on the client's thread, when it
first connects (it takes a noticeable fraction of a second to import on a field laptop).
"""

from __future__ import annotations

import collections
import contextlib
import enum
import logging
import queue
import socket
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from devices.transport import PortReader, SerialSettings

__all__ = ["Caster", "Mountpoint", "NtripState", "CorrectionStatus", "NtripClient",
           "fetch_sourcetable", "parse_sourcetable", "corrections_port", "caster_text",
           "RTCM3_PREAMBLE"]

log = logging.getLogger(__name__)

RTCM3_PREAMBLE = 0xD3
#: Bytes received from a caster after its answer with no RTCM 3 frame among them (since the
#: start, or since the last frame) before it counts as garbage (above pygnssutils' 4096-byte
#: read, which it parses after receiving; an RTCM 3 frame is at most 1029 bytes).
GARBAGE_BYTES = 16384
#: The most a caster may send before its stream starts (its answer, or a source table), bytes:
#: pygnssutils keeps a source table whole in memory (a big public caster's is under 1 MB).
ANSWER_MAX_BYTES = 4 * 1024 * 1024
#: Longest piece of a caster's own text (its answer, a mountpoint name) put in a message, chars.
CASTER_TEXT_CHARS = 60
#: Seconds to wait for pygnssutils' reader to end once its socket is shut: between attempts
#: (beyond its connect timeout, which a shut socket may not cut short on every system) and
#: when the client is stopped.
READER_JOIN_S = 5.0
STOP_JOIN_S = 2.0
#: The bytes/s figure averages over this window, seconds.
RATE_WINDOW_S = 5.0


# --------------------------------------------------------------------------- caster's own text


def caster_text(raw: bytes | str, limit: int = CASTER_TEXT_CHARS) -> str:
    """A caster's own words (an answer line, a mountpoint name, an error naming its
    certificate) made safe to show: decoded as UTF-8 (bad bytes as U+FFFD), control and
    other unprintable characters as ``?``, line breaks and runs of blanks as one space,
    ``<``/``>`` as ``‹``/``›`` (a Qt label would take them as markup), cut to ``limit``
    characters with ``…``; ``"nothing readable"`` when nothing is left.

    Examples
    --------
    >>> caster_text(b"HTTP/1.1 999 \\x1b[31mred\\r\\n<b>x</b>\\x00")
    'HTTP/1.1 999 ?[31mred ‹b›x‹/b›?'
    >>> caster_text("x" * 100, limit=10)
    'xxxxxxxxx…'
    >>> caster_text(b"\\r\\n ")
    'nothing readable'
    """
    text = raw.decode("utf-8", errors="replace") if isinstance(raw, (bytes, bytearray)) else str(raw)
    text = text[:limit * 4]  # enough to fill ``limit`` after blanks fold
    out = []
    for ch in text:
        if ch.isspace():
            out.append(" ")
        elif ch == "<":
            out.append("‹")
        elif ch == ">":
            out.append("›")
        else:
            out.append(ch if ch.isprintable() else "?")
    shown = " ".join("".join(out).split())
    if len(shown) > limit:
        shown = shown[:limit - 1] + "…"
    return shown or "nothing readable"


# --------------------------------------------------------------------------- caster address


@dataclass(frozen=True)
class Caster:
    """An NTRIP caster and mountpoint.

    Parameters
    ----------
    host : str
    port : int
        TCP port, 1..65535 (2101 by default, the NTRIP registered port).
    mountpoint : str
        The stream (``""``: only the source table can be asked for).
    user, password : str
        HTTP Basic credentials (the password is never in :meth:`url` nor in ``repr``).
    https : bool
        TLS (``ntrips://``).
    version : {"2.0", "1.0"}
        NTRIP protocol version.

    Examples
    --------
    >>> c = Caster.parse("ntrip://surveyor:s3cret@rtk.example.org:2101/WIDOT1")
    >>> c.host, c.port, c.mountpoint, c.user, c.password, c.version, c.https
    ('rtk.example.org', 2101, 'WIDOT1', 'surveyor', 's3cret', '2.0', False)
    >>> c.url()
    'ntrip://surveyor@rtk.example.org:2101/WIDOT1'
    >>> Caster.parse("ntrips://caster.example.org/MP?v=1").port
    2101
    """

    host: str
    port: int = 2101
    mountpoint: str = ""
    user: str = ""
    password: str = field(default="", repr=False)
    https: bool = False
    version: str = "2.0"

    def __post_init__(self) -> None:
        if not self.host or any(c in self.host for c in "/@ "):
            raise ValueError(f"caster host {self.host!r} is not a host name")
        if not isinstance(self.port, int) or not 1 <= self.port <= 65535:
            raise ValueError(f"caster port {self.port!r} outside 1..65535")
        if self.version not in ("1.0", "2.0"):
            raise ValueError(f"NTRIP version {self.version!r} is not 1.0 or 2.0")

    @classmethod
    def parse(cls, url: str, password: str | None = None) -> Caster:
        """Read ``ntrip://[user[:password]@]host[:port][/MOUNT][?v=1]`` (``ntrips://``: HTTPS).

        ``password``, when given, takes the place of one in the URL (the app keeps it in the
        OS keyring, not in the URL it saves).

        Raises
        ------
        ValueError
            Not an ``ntrip://`` / ``ntrips://`` URL, no host, a port that is not 1..65535, a
            version other than 1 or 2; the message shows the expected form.
        """
        form = "ntrip://user:password@host:port/MOUNT"
        text = (url or "").strip()
        try:
            parts = urllib.parse.urlsplit(text)
            port = parts.port
        except ValueError as exc:
            raise ValueError(f"caster {text!r}: {exc} (expected {form})") from None
        if parts.scheme.lower() not in ("ntrip", "ntrips"):
            raise ValueError(f"caster {text!r} is not an NTRIP URL (expected {form})")
        if not parts.hostname:
            raise ValueError(f"caster {text!r} names no host (expected {form})")
        query = urllib.parse.parse_qs(parts.query)
        v = (query.get("v") or query.get("version") or ["2"])[0]
        version = {"1": "1.0", "1.0": "1.0", "2": "2.0", "2.0": "2.0"}.get(v)
        if version is None:
            raise ValueError(f"caster {text!r}: NTRIP version {v!r} is not 1 or 2")
        pw = urllib.parse.unquote(parts.password or "") if password is None else password
        return cls(host=parts.hostname, port=port or 2101,
                   mountpoint=urllib.parse.unquote(parts.path.lstrip("/")),
                   user=urllib.parse.unquote(parts.username or ""), password=pw,
                   https=parts.scheme.lower() == "ntrips", version=version)

    def url(self, with_password: bool = False) -> str:
        """The caster as a URL; the password only when asked for."""
        cred = urllib.parse.quote(self.user, safe="") if self.user else ""
        if with_password and self.password:
            cred += ":" + urllib.parse.quote(self.password, safe="")
        at = f"{cred}@" if cred else ""
        tail = "?v=1" if self.version == "1.0" else ""
        scheme = "ntrips" if self.https else "ntrip"
        return f"{scheme}://{at}{self.host}:{self.port}/{urllib.parse.quote(self.mountpoint)}{tail}"

    def with_mountpoint(self, mountpoint: str) -> Caster:
        return Caster(self.host, self.port, mountpoint, self.user, self.password, self.https,
                      self.version)

    @property
    def where(self) -> str:
        """``host:port`` for messages."""
        return f"{self.host}:{self.port}"


# --------------------------------------------------------------------------- source table


@dataclass(frozen=True)
class Mountpoint:
    """One ``STR`` row of a caster's source table (NTRIP 2.0 §2.3, RTCM 10410.1 table 5).

    ``needs_gga`` is the NMEA field (1: the caster wants the rover's GGA, a VRS);
    ``distance_km`` the great-circle distance from the position asked about, None without one.
    """

    name: str
    identifier: str = ""
    format: str = ""
    format_details: str = ""
    nav_system: str = ""
    network: str = ""
    country: str = ""
    lat_deg: float | None = None
    lon_deg: float | None = None
    needs_gga: bool = False
    distance_km: float | None = None


def _float(text: str) -> float | None:
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def parse_sourcetable(rows: list[list[str]], near: tuple[float, float] | None = None) -> list[Mountpoint]:
    """Mountpoints from pygnssutils' parsed ``STR`` rows (fields after ``STR``), nearest to
    ``near`` = (lat_deg, lon_deg) first, then by name; without ``near`` by name.

    Examples
    --------
    >>> rows = [["FAR", "Far", "RTCM 3.2", "1005", "2", "GPS", "NET", "USA", "46.0", "-90.0", "0"],
    ...         ["NEAR", "Near", "RTCM 3.2", "1005", "2", "GPS", "NET", "USA", "43.1", "-89.4", "1"]]
    >>> [(m.name, m.needs_gga, round(m.distance_km)) for m in parse_sourcetable(rows, (43.0, -89.4))]
    [('NEAR', True, 11), ('FAR', False, 337)]
    """
    from pygnssutils.helpers import get_mp_distance

    out = []
    for row in rows:
        row = list(row) + [""] * (11 - len(row))
        dist = get_mp_distance(near[0], near[1], row) if near is not None else None
        out.append(Mountpoint(row[0], row[1], row[2], row[3], row[5], row[6], row[7],
                              _float(row[8]), _float(row[9]), row[10].strip() == "1",
                              None if dist is None else float(dist)))
    return sorted(out, key=lambda m: (m.distance_km is None, m.distance_km or 0.0, m.name))


# --------------------------------------------------------------------------- status


class NtripState(enum.Enum):
    """Where the corrections stand."""

    WAITING = "waiting"  # for a fix to send the caster as GGA
    CONNECTING = "connecting"
    STREAMING = "streaming"
    DISCONNECTED = "disconnected"  # failed or dropped; retrying after the backoff
    STOPPED = "stopped"


@dataclass(frozen=True)
class CorrectionStatus:
    """A snapshot of the corrections: state, words, counts.

    Attributes
    ----------
    state : NtripState
    message : str
        Why, in words (``"caster rtk.example.org:2101 refused user 'bob': wrong user name or
        password (HTTP 401)"``).
    mountpoint : str
    bytes_total : int
        RTCM 3 bytes written to the receiver since start.
    bytes_per_s : float
        RTCM 3 bytes per second over the last :data:`RATE_WINDOW_S` s.
    messages : int
        RTCM 3 frames written.
    last_rtcm_monotonic_s : float or None
        :func:`time.monotonic` of the last frame written.
    t_monotonic_s : float
        When this snapshot was taken.
    """

    state: NtripState
    message: str
    mountpoint: str
    bytes_total: int = 0
    bytes_per_s: float = 0.0
    messages: int = 0
    last_rtcm_monotonic_s: float | None = None
    t_monotonic_s: float = 0.0

    def age_s(self, now_monotonic_s: float | None = None) -> float | None:
        """Seconds since the last correction was written to the receiver (None before one)."""
        if self.last_rtcm_monotonic_s is None:
            return None
        now = time.monotonic() if now_monotonic_s is None else now_monotonic_s
        return max(0.0, now - self.last_rtcm_monotonic_s)


# --------------------------------------------------------------------------- pygnssutils glue


class _CountingSocket:
    """The caster socket as pygnssutils reads it: counts the bytes, ends the attempt when the
    caster closes the connection (pygnssutils' reader would otherwise spin on the closed socket
    until its inactivity timeout), and reads as closed once the attempt is over (pygnssutils'
    frame search never looks at its stop signal while bytes keep coming: an end of stream is
    what gets it out)."""

    def __init__(self, sock: Any, attempt: _Attempt) -> None:
        self._sock = sock
        self._attempt = attempt

    def recv(self, n: int, *args: Any) -> bytes:
        if self._attempt.ended:
            return b""
        data: bytes = self._sock.recv(n, *args)
        if self._attempt.ended:
            return b""
        self._attempt.on_received(data)
        return data

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)


_CLIENT_CLASS: type | None = None


def _client_class() -> type:
    """pygnssutils' client with its socket held by the attempt (:meth:`_Attempt.adopt`) and
    counted (:class:`_CountingSocket`), and the end of its thread signalled (made on first
    use: pygnssutils is imported then)."""
    global _CLIENT_CLASS
    if _CLIENT_CLASS is None:
        import ssl

        import pygnssutils.gnssntripclient as pgc

        class _Client(pgc.GNSSNTRIPClient):  # type: ignore[misc]  # pygnssutils ships no types
            def __init__(self, attempt: _Attempt, **kw: Any) -> None:
                self._fieldapp_attempt = attempt
                super().__init__(app=attempt, **kw)

            def _open_connection(self, settings: dict[str, Any]) -> Any:
                # pygnssutils' own steps (IPv4 address, connect with its timeout, TLS against
                # its CA bundle), with the socket handed to the attempt before the connect, so
                # that ending the attempt can cut a connect, a TLS handshake or a read short
                attempt = self._fieldapp_attempt
                host = settings["server"]
                address = (socket.gethostbyname(host), int(settings["port"]))
                sock: Any = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                try:
                    attempt.adopt(sock)
                    sock.settimeout(self._timeout)
                    sock.connect(address)
                    if int(settings["https"]):
                        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
                        context.load_verify_locations(pgc.findcacerts())
                        if int(settings.get("selfsign", 0)):
                            context.load_verify_locations(self._tlscrtpath)
                            context.check_hostname = False
                        sock = context.wrap_socket(sock, server_hostname=host)
                except BaseException:
                    sock.close()
                    raise
                return _CountingSocket(sock, attempt)

            def _read_thread(self, *args: Any) -> None:
                # pygnssutils sets the stop event before it reports why; say when it has said it
                me = threading.current_thread()
                me.name = "fieldapp-ntrip-reader"
                self._fieldapp_attempt.reader = me
                try:
                    super()._read_thread(*args)
                finally:
                    self._fieldapp_attempt.finished.set()

        _CLIENT_CLASS = _Client
    return _CLIENT_CLASS


def _make_client(attempt: _Attempt, timeout_s: float) -> Any:
    """A pygnssutils client, without the log handler it adds to pyrtcm's and pyspartn's loggers
    on every construction (one more per reconnect otherwise)."""
    loggers = [logging.getLogger(n) for n in ("pyrtcm", "pyspartn")]
    before = [(lg, list(lg.handlers), lg.level) for lg in loggers]
    try:
        return _client_class()(attempt, retries=0, retryinterval=1,
                               timeout=max(1, round(timeout_s)), verbosity=-1)
    finally:
        for lg, handlers, level in before:
            lg.handlers[:] = handlers
            lg.setLevel(level)


class _Sink(queue.Queue[Any]):
    """pygnssutils' output: it ``put``\\ s ``(raw, parsed)`` for every RTCM frame (and the source
    table as a list, and the GGA it sent); we write the RTCM on instead of queueing."""

    def __init__(self, attempt: _Attempt) -> None:
        super().__init__()
        self._attempt = attempt

    def put(self, item: Any, block: bool = True, timeout: float | None = None) -> None:
        raw = item[0] if isinstance(item, tuple) else item
        if isinstance(raw, list):
            self._attempt.on_sourcetable(raw)
        elif isinstance(raw, (bytes, bytearray)) and raw[:1] == bytes((RTCM3_PREAMBLE,)):
            self._attempt.on_rtcm(bytes(raw))


class _Attempt:
    """One connection attempt: pygnssutils' hooks (``dialog().set_controls``,
    ``get_coordinates``) and what came of it."""

    def __init__(self, owner: Any, caster: Caster) -> None:
        self.owner = owner
        self.caster = caster
        self.done = threading.Event()  # pygnssutils' stop event: set by it or by stop()
        self.finished = threading.Event()  # pygnssutils' thread has ended
        self.ended = False  # stop() was called: what the reader still says is not the reason
        self.reader: threading.Thread | None = None  # pygnssutils' thread, once it runs
        self._sock_lock = threading.Lock()
        self._sock_handle: socket.socket | None = None  # our own descriptor of its socket
        self.received = 0
        self.received_streaming = 0  # after the answer's header
        self.since_rtcm = 0  # bytes received in the stream since the last RTCM 3 frame
        self.head = b""  # the start of the caster's answer (for words when it is not NTRIP)
        self.rtcm_bytes = 0
        self.streaming = False
        self.closed_by_caster = False
        self.failure: str | None = None
        self.sourcetable: list[list[str]] | None = None
        self.t_start = time.monotonic()
        self.t_activity = self.t_start
        self.t_first_rtcm: float | None = None
        self.client: Any = None
        self.sink = _Sink(self)

    # pygnssutils calls these (its "calling app" interface)
    def dialog(self, _name: str) -> _Attempt:
        return self

    def set_controls(self, _status: bool, msgt: tuple[object, ...]) -> None:
        text = str(msgt[0]) if msgt else ""
        if text.startswith("Streaming"):
            self.streaming = True
            self.owner._on_streaming(self)
        elif text != "Sourcetable retrieved" and self.failure is None and not self.ended:
            self.failure = text[:1000]

    def get_coordinates(self) -> dict[str, object]:
        coordinates: dict[str, object] = self.owner._coordinates()
        return coordinates

    # our hooks
    def on_received(self, data: bytes) -> None:
        if not data:
            self.closed_by_caster = True
            if self.streaming:  # pygnssutils would spin on the closed socket until its timeout
                self.stop()
            return  # before the answer's end pygnssutils concludes itself (HTTP 401...)
        if len(self.head) < 512:
            self.head += data[:512 - len(self.head)]
        self.received += len(data)
        if self.streaming:
            self.received_streaming += len(data)
            self.since_rtcm += len(data)
            if self.since_rtcm > GARBAGE_BYTES:
                self.failure = self.failure or "garbage"
                self.stop()
        elif self.received > ANSWER_MAX_BYTES:
            self.failure = self.failure or "answer too long"
            self.stop()

    def on_rtcm(self, raw: bytes) -> None:
        self.since_rtcm = 0
        self.rtcm_bytes += len(raw)
        self.t_activity = time.monotonic()
        if self.t_first_rtcm is None:
            self.t_first_rtcm = self.t_activity
        self.owner._on_rtcm(raw, self.t_activity)

    def on_sourcetable(self, rows: list[list[str]]) -> None:
        if self.ended:  # cut short (too long, too slow): what was parsed is not the table
            return
        self.sourcetable = rows
        self.stop()

    def adopt(self, sock: socket.socket) -> None:
        """Keep a descriptor of pygnssutils' socket (a duplicate: shutting it down shuts the
        connection, closing it closes only ours) so that :meth:`stop` can end its reads.

        Raises
        ------
        OSError
            The attempt is already over (pygnssutils then ends its thread).
        """
        with self._sock_lock:
            if self.ended:
                raise OSError("connection attempt stopped")
            self._sock_handle = sock.dup()

    def stop(self) -> None:
        """End the attempt: pygnssutils' stop event, and its socket shut down, so that a
        connect, a TLS handshake or a read it is blocked in returns (its frame search only
        looks at the stop event when a read comes back empty). Returns at once."""
        with self._sock_lock:
            self.ended = True
            handle = self._sock_handle
        if self.client is not None:
            self.client.stop()
        self.done.set()
        if handle is not None:
            with contextlib.suppress(OSError):
                handle.shutdown(socket.SHUT_RDWR)

    def end(self, join_s: float) -> bool:
        """:meth:`stop`, then wait up to ``join_s`` seconds for pygnssutils' thread to end and
        close our descriptor of its socket. True when the thread has ended."""
        deadline = time.monotonic() + join_s
        if self.done.is_set() and not self.ended:
            # pygnssutils ended it itself (it sets its stop event before it says why): its
            # last words come before its thread ends
            self.finished.wait(join_s)
        self.stop()
        ended = self.finished.wait(max(0.0, deadline - time.monotonic()))
        reader = self.reader
        if ended and reader is not None:
            reader.join(max(0.0, deadline - time.monotonic()))
            ended = not reader.is_alive()
        with self._sock_lock:
            handle, self._sock_handle = self._sock_handle, None
        if handle is not None:
            handle.close()
        return ended

    @property
    def reader_alive(self) -> bool:
        """pygnssutils' thread of this attempt is still running."""
        reader = self.reader
        return not self.finished.is_set() or (reader is not None and reader.is_alive())

    def run(self, gga_interval_s: float | None, timeout_s: float) -> None:
        c = self.caster
        self.client = _make_client(self, timeout_s)
        self.client.run(server=c.host, port=c.port, https=c.https, mountpoint=c.mountpoint,
                        version=c.version, ntripuser=c.user or "anon", ntrippassword=c.password,
                        ggainterval=-1 if gga_interval_s is None else max(1, round(gga_interval_s)),
                        ggamode=0, output=self.sink, stopevent=self.done)

    def words(self, timeout_s: float) -> str:
        """What ended this attempt, in words."""
        return describe_failure(self, timeout_s)


def describe_failure(a: _Attempt, timeout_s: float) -> str:
    """The end of an attempt in field words (the caster, the mountpoint, what to check).

    Whatever the caster itself wrote (its answer line, mountpoint names, the name in its
    certificate) passes through :func:`caster_text`: printable, at most
    :data:`CASTER_TEXT_CHARS` characters a piece, never markup.
    """
    c = a.caster
    where = f"caster {c.where}"
    text = a.failure or ""
    answer = caster_text(a.head.split(b"\n", 1)[0])
    if a.sourcetable is not None and c.mountpoint:
        names = [caster_text(row[0], 20) for row in a.sourcetable if row]
        listed = ", ".join(names[:8]) + (" ..." if len(names) > 8 else "")
        return (f"mountpoint {c.mountpoint!r} is not on {where} (it sent its source table "
                f"instead: {listed or 'no mountpoints'})")
    if text == "answer too long":
        return (f"{where} sent more than {ANSWER_MAX_BYTES // (1024 * 1024)} MB without "
                f"starting corrections (not an NTRIP caster?); it answered '{answer}'")
    if text == "garbage" or (a.rtcm_bytes == 0 and a.received_streaming > 0 and "Timeout" in text):
        return (f"{where} sent {a.received} bytes that are not RTCM 3 corrections on "
                f"{c.mountpoint!r} (wrong mountpoint format, or not an NTRIP caster)")
    if "401" in text:
        return f"{where} refused user {c.user or 'anon'!r}: wrong user name or password (HTTP 401)"
    if "403" in text:
        return f"{where} forbids mountpoint {c.mountpoint!r} to user {c.user or 'anon'!r} (HTTP 403)"
    if "404" in text:
        return f"mountpoint {c.mountpoint!r} is not on {where} (HTTP 404)"
    if text.startswith("Connection failed"):
        return f"{where} answered {caster_text(text.removeprefix('Connection failed'))}"
    if a.closed_by_caster:
        got = f" after {a.rtcm_bytes} bytes of corrections" if a.rtcm_bytes else ""
        return f"{where} closed the connection{got}"
    if "ConnectionRefused" in text:
        return f"{where} refused the connection (no caster listening on that port)"
    if "gaierror" in text:
        return f"caster host {c.host!r} not found (no network, or a mistyped name)"
    if "Timeout" in text or "timed out" in text:
        return f"no corrections from {where} for {timeout_s:g} s"
    if "SSL" in text or "certificate" in text:
        return f"{where}: the HTTPS connection failed ({caster_text(text, 120)})"
    if "ValueError" in text or "IndexError" in text or "KeyError" in text:
        # pygnssutils could not read the answer (its error quotes the caster's bytes)
        said = f" (it answered '{answer}')" if a.head else ""
        return f"{where} does not answer like an NTRIP caster{said}"
    return f"{where}: {caster_text(text) if text else 'connection ended'}"


# --------------------------------------------------------------------------- the client


class NtripClient:
    """Corrections from one caster mountpoint, written to the receiver, on a daemon thread.

    Parameters
    ----------
    caster : Caster
        With a mountpoint.
    write : callable(bytes) -> int
        Takes each RTCM 3 frame (e.g. ``GnssReader.write``: the receiver's own port).
        Called on the client's thread; it must not block for long.
    position : callable() -> fix or None, optional
        The receiver's newest fix (anything with ``lat_deg``, ``lon_deg``, ``alt_msl_m``,
        ``geoid_sep_m``, ``quality``, ``sats_used``, ``hdop``, ``dgps_age_s``), sent to the
        caster as GGA.
    gga_interval_s : float or None
        Seconds between GGA sentences to the caster (default 10; None: never). With an
        interval, the client waits for a fix before it connects.
    on_status : callable(CorrectionStatus) -> None, optional
        Every state change, on the client's thread.
    backoff_min_s, backoff_max_s : float
        Reconnect delay doubles from min up to max after every failed attempt (back to min
        after an attempt that delivered corrections for at least ``backoff_max_s``).
    inactivity_s : float
        No RTCM for this long ends an attempt (and it is retried).

    Raises
    ------
    ValueError
        No mountpoint, or a backoff that is not an increasing positive range.
    """

    def __init__(self, caster: Caster, write: Callable[[bytes], int], *,
                 position: Callable[[], Any] | None = None, gga_interval_s: float | None = 10.0,
                 on_status: Callable[[CorrectionStatus], None] | None = None,
                 backoff_min_s: float = 1.0, backoff_max_s: float = 60.0,
                 inactivity_s: float = 10.0, name: str = "ntrip") -> None:
        if not caster.mountpoint:
            raise ValueError(f"caster {caster.where}: choose a mountpoint (the Devices dialog "
                             "lists them)")
        if not 0 < backoff_min_s <= backoff_max_s:
            raise ValueError(f"backoff {backoff_min_s}..{backoff_max_s} s is not an increasing "
                             "positive range")
        self.caster = caster
        self._write = write
        self._position = position
        self.gga_interval_s = gga_interval_s
        self._on_status = on_status
        self.backoff_min_s = backoff_min_s
        self.backoff_max_s = backoff_max_s
        self.inactivity_s = inactivity_s
        self.name = name
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._attempt: _Attempt | None = None
        self._last_attempt: _Attempt | None = None
        self._state = NtripState.STOPPED
        self._message = "not started"
        self._bytes = 0
        self._messages = 0
        self._last_rtcm: float | None = None
        self._first_rtcm: float | None = None
        self._window: collections.deque[tuple[float, int]] = collections.deque()  # (t, RTCM bytes)
        self.attempts = 0

    # -- lifecycle

    def start(self) -> NtripClient:
        """Start the thread (once). Returns at once."""
        if self._thread is not None:
            raise RuntimeError(f"NTRIP client {self.name} already started")
        self._thread = threading.Thread(target=self._run, name=f"fieldapp-{self.name}", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout_s: float = 5.0) -> bool:
        """Stop: the attempt's socket is shut and its reader joined (up to :data:`STOP_JOIN_S`
        s), then the client's thread is joined (up to ``timeout_s`` s). True when the client's
        thread ended in time and left no reader running (a reader still in a connect that the
        system does not cut short ends at its own timeout; :attr:`reader_running` says)."""
        self._stop.set()
        with self._lock:
            attempt = self._attempt
        if attempt is not None:
            attempt.stop()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout_s)
        return (thread is None or not thread.is_alive()) and not self.reader_running

    @property
    def reader_running(self) -> bool:
        """pygnssutils' reader of the current or last attempt is still running."""
        with self._lock:
            attempt = self._attempt or self._last_attempt
        return attempt is not None and attempt.reader_alive

    close = stop

    def __enter__(self) -> NtripClient:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def status(self, now_monotonic_s: float | None = None) -> CorrectionStatus:
        """A snapshot: state, message, bytes, bytes/s, time of the last correction."""
        now = time.monotonic() if now_monotonic_s is None else now_monotonic_s
        with self._lock:
            while self._window and self._window[0][0] < now - RATE_WINDOW_S:
                self._window.popleft()
            # over the window, or the time since the first correction when that is shorter
            span = RATE_WINDOW_S if self._first_rtcm is None else min(
                RATE_WINDOW_S, max(1.0, now - self._first_rtcm))
            rate = sum(n for _, n in self._window) / span
            return CorrectionStatus(self._state, self._message, self.caster.mountpoint,
                                    self._bytes, rate, self._messages, self._last_rtcm, now)

    # -- hooks from the attempt (pygnssutils' thread)

    def _on_rtcm(self, raw: bytes, t: float) -> None:
        try:
            self._write(raw)
        except Exception:  # noqa: BLE001 - a bad writer must not end the corrections
            log.exception("writing corrections failed")
        with self._lock:
            self._bytes += len(raw)
            self._messages += 1
            self._last_rtcm = t
            if self._first_rtcm is None:
                self._first_rtcm = t
            self._window.append((t, len(raw)))

    def _on_streaming(self, attempt: _Attempt) -> None:
        c = self.caster
        self._report(NtripState.STREAMING, f"corrections from {c.mountpoint} at {c.where}")

    def _coordinates(self) -> dict[str, object]:
        fix = self._position() if self._position is not None else None
        lat = getattr(fix, "lat_deg", None)
        lon = getattr(fix, "lon_deg", None)
        if lat is None or lon is None:
            return {"lat": "", "lon": ""}  # pygnssutils sends no GGA then
        quality = int(getattr(fix, "quality", 1) or 1)
        fix_word = {4: "RTK FIXED", 5: "RTK FLOAT", 0: "NO FIX"}.get(quality, "3D")
        return {"lat": lat, "lon": lon, "alt": getattr(fix, "alt_msl_m", None) or 0.0,
                "sep": getattr(fix, "geoid_sep_m", None) or 0.0, "fix": fix_word,
                "sip": getattr(fix, "sats_used", None) or 0, "hdop": getattr(fix, "hdop", None) or 0.0,
                "diffage": getattr(fix, "dgps_age_s", None) or 0, "diffstation": 0}

    # -- thread body

    def _report(self, state: NtripState, message: str) -> None:
        with self._lock:
            self._state, self._message = state, message
        if state is not NtripState.STREAMING:
            log.info("NTRIP %s: %s", self.caster.mountpoint, message)
        if self._on_status is not None:
            try:
                self._on_status(self.status())
            except Exception:  # noqa: BLE001
                log.exception("NTRIP status callback failed")

    def _has_fix(self) -> bool:
        return self._coordinates().get("lat") != ""

    def _run(self) -> None:
        delay = self.backoff_min_s
        try:
            while not self._stop.is_set():
                if self.gga_interval_s is not None and not self._has_fix():
                    if self._state is not NtripState.WAITING:
                        self._report(NtripState.WAITING, "waiting for a fix to send the caster")
                    self._stop.wait(0.5)
                    continue
                self._wait_for_last_reader()
                if self._stop.is_set():
                    break
                attempt = self._attempt_once()
                if self._stop.is_set():
                    break
                if attempt.t_first_rtcm is not None and (
                        attempt.t_activity - attempt.t_first_rtcm >= self.backoff_max_s):
                    delay = self.backoff_min_s  # it streamed a while: a new outage, retry soon
                words = attempt.words(self.inactivity_s)
                self._report(NtripState.DISCONNECTED, f"{words}; retrying in {delay:g} s")
                if self._stop.wait(delay):
                    break
                delay = min(delay * 2, self.backoff_max_s)
        except Exception as exc:  # noqa: BLE001 - report, never die silently
            log.exception("NTRIP client crashed")
            self._report(NtripState.STOPPED, f"NTRIP client crashed: {exc}")
            return
        self._report(NtripState.STOPPED, "corrections stopped")

    def _attempt_once(self) -> _Attempt:
        attempt = _Attempt(self, self.caster)
        with self._lock:
            self._attempt = attempt
        self.attempts += 1
        self._report(NtripState.CONNECTING, f"connecting to {self.caster.mountpoint} at "
                                            f"{self.caster.where}")
        try:
            attempt.run(self.gga_interval_s, self.inactivity_s)
        except Exception as exc:  # noqa: BLE001 - pygnssutils' ParameterError and the like
            attempt.failure = f"{type(exc).__name__}: {exc}"
            attempt.done.set()
            attempt.finished.set()
        # pygnssutils ends an attempt itself on every error; this watchdog also ends one that
        # delivers nothing (a caster that answers and then stays silent)
        while not attempt.done.wait(0.2):
            if self._stop.is_set():
                break
            if time.monotonic() - attempt.t_activity > self.inactivity_s + 2.0:
                attempt.failure = attempt.failure or "Timeout"
                break
        # its socket shut and its thread joined, so that a caster that misbehaves for hours
        # leaves one reader at most (on stop: briefly, stop() returns at once)
        if not attempt.end(STOP_JOIN_S if self._stop.is_set() else READER_JOIN_S):
            log.warning("NTRIP %s: pygnssutils' reader of caster %s did not end within %g s of "
                        "its socket being shut", self.caster.mountpoint, self.caster.where,
                        STOP_JOIN_S if self._stop.is_set() else READER_JOIN_S)
        with self._lock:
            self._attempt = None
            self._last_attempt = attempt
        return attempt

    def _wait_for_last_reader(self) -> None:
        """Before a new attempt: the last one's reader has ended (it normally has; a reader
        stuck past :data:`READER_JOIN_S` is waited for, said, never doubled)."""
        last = self._last_attempt
        if last is None or not last.reader_alive:
            return
        self._report(NtripState.DISCONNECTED, f"waiting for the last connection to caster "
                                              f"{self.caster.where} to end")
        while last.reader_alive and not self._stop.wait(0.5):
            pass


# --------------------------------------------------------------------------- helpers


def fetch_sourcetable(caster: Caster, on_done: Callable[[list[Mountpoint]], None],
                      on_error: Callable[[str], None], *, near: tuple[float, float] | None = None,
                      timeout_s: float = 15.0) -> threading.Thread:
    """List ``caster``'s mountpoints on a ``fieldapp-ntrip-table`` thread (never blocks).

    Calls ``on_done(mountpoints)`` (nearest to ``near`` = (lat_deg, lon_deg) first) or
    ``on_error(words)`` on that thread.
    """

    class _Owner:
        def _on_streaming(self, attempt: _Attempt) -> None:
            attempt.stop()

        def _coordinates(self) -> dict[str, object]:
            return {"lat": "", "lon": ""}

        def _on_rtcm(self, raw: bytes, t: float) -> None:
            pass

    def work() -> None:
        attempt = _Attempt(_Owner(), caster.with_mountpoint(""))
        try:
            attempt.run(None, timeout_s)
            ended = attempt.done.wait(timeout_s)
        except Exception as exc:  # noqa: BLE001
            attempt.failure = f"{type(exc).__name__}: {exc}"
            ended = True
            attempt.finished.set()
        if not attempt.end(READER_JOIN_S):
            log.warning("pygnssutils' reader of caster %s did not end within %g s of its socket "
                        "being shut", caster.where, READER_JOIN_S)
        if attempt.sourcetable is not None:
            on_done(parse_sourcetable(attempt.sourcetable, near))
        elif not ended:
            on_error(f"no source table from caster {caster.where} within {timeout_s:g} s")
        else:
            on_error(attempt.words(timeout_s))

    thread = threading.Thread(target=work, name="fieldapp-ntrip-table", daemon=True)
    thread.start()
    return thread


def corrections_port(url: str, baudrate: int = 115200) -> PortReader:
    """A second port for a receiver that takes RTCM apart from its NMEA port: a started
    :class:`~devices.transport.PortReader` (reconnecting like any port) whose
    :meth:`~devices.transport.PortReader.write` takes the corrections; what the port sends
    back is discarded."""
    reader = PortReader(SerialSettings(url=url, baudrate=baudrate), lambda line, t: None,
                        name="rtcm")
    with contextlib.suppress(RuntimeError):
        reader.start()
    return reader
