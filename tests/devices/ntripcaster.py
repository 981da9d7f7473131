"""Casters on loopback for the NTRIP tests.

:class:`LoopbackCaster` is pygnssutils' own NTRIP caster (``gnssserver`` in NTRIP mode: its
:class:`~pygnssutils.socket_server.SocketServer`) serving RTCM 3 built with pyrtcm
(:mod:`devices.sim.rtk`): a 1005 station message and a 1004 GPS observables message per epoch.
Its one mountpoint is pygnssutils' ``pygnssutils``.

:class:`ScriptedCaster` plays a scripted answer on a raw socket (a caster that drops the
connection, one that sends garbage).
"""

from __future__ import annotations

import queue
import socket
import threading
import time
from collections.abc import Callable

from pygnssutils.globals import PYGPSMP
from pygnssutils.socket_server import ClientHandler, ClientHandlerTLS, SocketServer

from devices.sim.rtk import gps_observables_1004, station_1005, text_1029

MOUNT = PYGPSMP


class LoopbackCaster:
    """pygnssutils' NTRIP caster on 127.0.0.1, fed RTCM 3 at ``rate_hz`` epochs per second.

    ``filler_bytes``: each epoch also carries this many bytes of RTCM 1029 text (for a stream of a
    given byte rate). :meth:`pause` / :meth:`resume` stop and restart the corrections (the
    connection stays open, like a base station going quiet).
    """

    def __init__(self, *, version: str = "2.0", user: str = "surveyor", password: str = "s3cret",
                 rate_hz: float = 5.0, station_id: int = 42, filler_bytes: int = 0,
                 tls_pem: str | None = None) -> None:
        self.user, self.password, self.version = user, password, version
        self.rate_hz = rate_hz
        self.station_id = station_id
        self.filler_bytes = filler_bytes
        self._mq: queue.Queue = queue.Queue()
        tls = {"tlspempath": tls_pem} if tls_pem else {}
        self.scheme = "ntrips" if tls_pem else "ntrip"
        self.server = SocketServer(None, 1, 4, self._mq, ("127.0.0.1", 0),
                                   ClientHandlerTLS if tls_pem else ClientHandler,
                                   ntripversion=version, ntripuser=user, ntrippassword=password, **tls)
        self.port = self.server.server_address[1]
        self._feeding = threading.Event()
        self._feeding.set()
        self._stop = threading.Event()
        self.frames_sent = 0
        self._threads = [threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.1},
                                          name="test-caster", daemon=True),
                         threading.Thread(target=self._feed, name="test-caster-feed", daemon=True)]
        for t in self._threads:
            t.start()

    def url(self, mount: str = MOUNT, password: str | None = None, user: str | None = None) -> str:
        v = "?v=1" if self.version == "1.0" else ""
        pw = self.password if password is None else password
        return f"{self.scheme}://{user or self.user}:{pw}@127.0.0.1:{self.port}/{mount}{v}"

    def _feed(self) -> None:
        n = 0
        while not self._stop.is_set():
            if self._feeding.is_set():
                frames = [station_1005(self.station_id),
                          gps_observables_1004(self.station_id, n * 200)]
                left = self.filler_bytes
                while left > 0:
                    chunk = min(left, 255 - 10)
                    frames.append(text_1029("x" * chunk, self.station_id))
                    left -= chunk
                self._mq.put(b"".join(frames))
                self.frames_sent += len(frames)
                n += 1
            self._stop.wait(1.0 / self.rate_hz)

    def pause(self) -> None:
        self._feeding.clear()

    def resume(self) -> None:
        self._feeding.set()

    def close(self) -> None:
        self._stop.set()
        self._mq.put(None)
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> LoopbackCaster:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def self_signed_pem(folder) -> tuple[str, str]:
    """(PEM with key and certificate, certificate alone) for 127.0.0.1, valid for a day, made
    with ``cryptography``."""
    import datetime as dt
    import ipaddress
    from pathlib import Path

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = dt.datetime.now(dt.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - dt.timedelta(hours=1))
            .not_valid_after(now + dt.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_pem = cert.public_bytes(serialization.Encoding.PEM)
    key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    folder = Path(folder)
    (folder / "caster.pem").write_bytes(key_pem + cert_pem)
    (folder / "caster.crt").write_bytes(cert_pem)
    return str(folder / "caster.pem"), str(folder / "caster.crt")


class ScriptedCaster:
    """A TCP server on 127.0.0.1 that reads a request and hands the connection to
    ``script(conn, request)`` (which may send anything and close it)."""

    def __init__(self, script: Callable[[socket.socket, bytes], None]) -> None:
        self._script = script
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(4)
        self._sock.settimeout(0.2)
        self.port = self._sock.getsockname()[1]
        self.connections = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="test-scripted-caster", daemon=True)
        self._thread.start()

    def url(self, mount: str = "MOUNT") -> str:
        return f"ntrip://u:p@127.0.0.1:{self.port}/{mount}"

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                continue
            self.connections += 1
            threading.Thread(target=self._handle, args=(conn,), name="test-scripted-caster-conn",
                             daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        try:
            conn.settimeout(5)
            request = conn.recv(4096)
            self._script(conn, request)
        except OSError:
            pass
        finally:
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        self._sock.close()

    def __enter__(self) -> ScriptedCaster:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def drop_after_frames(n: int) -> Callable[[socket.socket, bytes], None]:
    """A caster script: answer ICY 200 OK, send ``n`` RTCM frames, close the connection."""

    def script(conn: socket.socket, _request: bytes) -> None:
        conn.sendall(b"ICY 200 OK\r\n\r\n")
        for i in range(n):
            conn.sendall(station_1005(3) + gps_observables_1004(3, i * 1000))
            time.sleep(0.05)

    return script


def garbage(conn: socket.socket, _request: bytes) -> None:
    """A caster script: a gnss/data answer followed by bytes that are not RTCM 3."""
    conn.sendall(b"HTTP/1.1 200 OK\r\nNtrip-Version: Ntrip/2.0\r\nContent-Type: gnss/data\r\n\r\n")
    for _ in range(100):  # 26 kB
        conn.sendall(b"$GPTXT,not rtcm at all, just text from a misconfigured caster*00\r\n" * 4)
        time.sleep(0.02)


def endless_text(conn: socket.socket, _request: bytes) -> None:
    """A caster script: ICY 200 OK, then plain text (no RTCM 3 start byte) for as long as the
    client reads."""
    conn.sendall(b"ICY 200 OK\r\n\r\n")
    text = b"$GPTXT,not rtcm at all, just text from a misconfigured caster*00\r\n" * 16
    while True:
        conn.sendall(text)


def endless_sourcetable(conn: socket.socket, _request: bytes) -> None:
    """A caster script: a source table that never ends (STR rows for as long as the client
    reads)."""
    conn.sendall(b"SOURCETABLE 200 OK\r\nContent-Type: gnss/sourcetable\r\n\r\n")
    rows = b"".join(b"STR;M%05d;x;RTCM 3.3;1005(10);2;GPS;NET;USA;43.0;-89.4;0;0;x;none;B;N;0;\r\n" % i
                    for i in range(100))
    while True:
        conn.sendall(rows)


def answer(raw: bytes) -> Callable[[socket.socket, bytes], None]:
    """A caster script: send ``raw`` as the whole answer, close the connection."""

    def script(conn: socket.socket, _request: bytes) -> None:
        conn.sendall(raw)

    return script
