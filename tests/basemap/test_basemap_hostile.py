"""``fieldapp basemap fetch`` against hostile tile servers on loopback: an endless tile (plain and
chunked), a tile announced as 1.5 GB, a server trickling a tile's body or its headers a byte at a
time, and damaged tiles (a PNG whose compressed data is corrupt under valid checksums, a JPEG cut
in half). Each is refused in words, with memory bounded by the tile limit, within the tile's
deadline, and nothing of it is stored."""

from __future__ import annotations

import io
import random
import socket
import sqlite3
import struct
import threading
import time
import tracemalloc
import zlib
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from PIL import Image

from fieldapp.basemap.fetch import MAX_TILE_BYTES, FetchFailed, fetch, main

BOX = (-179.9, 1.0, -179.8, 2.0)      # one tile at zoom 1: (1, 0, 0)
GB_1_5 = 1_610_612_736


class Hostile:
    """A TCP server on 127.0.0.1 answering every request with ``behave(conn, server)`` after
    reading the request's headers; ``sent`` counts the body bytes it got out."""

    def __init__(self, behave: Callable[[socket.socket, Hostile], None]) -> None:
        self.behave = behave
        self.stop = threading.Event()
        self.sent = 0
        self.requests = 0
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.1)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/{{z}}/{{x}}/{{y}}.png"
        self.threads = [threading.Thread(target=self._accept, daemon=True)]
        self.threads[0].start()

    def _accept(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except (TimeoutError, OSError):
                continue
            t = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            self.threads.append(t)
            t.start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(5)
            got = b""
            try:
                while b"\r\n\r\n" not in got:
                    chunk = conn.recv(4096)
                    if not chunk:
                        return
                    got += chunk
                self.requests += 1
                self.behave(conn, self)
            except OSError:
                pass            # the client hung up: what a refusal looks like from here

    def close(self) -> None:
        self.stop.set()
        self.sock.close()
        for t in self.threads:
            t.join(10)


ZEROS = bytes(64 * 1024)


def endless(conn: socket.socket, server: Hostile) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nConnection: close\r\n\r\n")
    while not server.stop.is_set():
        conn.sendall(ZEROS)
        server.sent += len(ZEROS)


def endless_chunked(conn: socket.socket, server: Hostile) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nTransfer-Encoding: chunked\r\n\r\n")
    frame = b"%x\r\n" % len(ZEROS) + ZEROS + b"\r\n"
    while not server.stop.is_set():
        conn.sendall(frame)
        server.sent += len(ZEROS)


def huge(conn: socket.socket, server: Hostile) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: %d\r\n\r\n" % GB_1_5)
    while not server.stop.is_set() and server.sent < GB_1_5:
        conn.sendall(ZEROS)
        server.sent += len(ZEROS)


def trickle_body(conn: socket.socket, server: Hostile) -> None:
    """Every byte well within any read timeout, the tile never done."""
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 100000\r\n\r\n")
    while not server.stop.is_set():
        conn.sendall(b"\x89")
        server.sent += 1
        time.sleep(0.2)


def trickle_headers(conn: socket.socket, server: Hostile) -> None:
    """The status line, then one header that never ends, a byte at a time."""
    conn.sendall(b"HTTP/1.1 200 OK\r\nX-Slow: ")
    while not server.stop.is_set():
        conn.sendall(b"a")
        time.sleep(0.2)


def run_bounded(url: str, tmp_path, **kw):
    """fetch(url) into tmp_path; (the FetchFailed, tracemalloc peak bytes, seconds taken)."""
    tracemalloc.start()
    t0 = time.monotonic()
    try:
        with pytest.raises(FetchFailed) as info:
            fetch(url, BOX, (1, 1), tmp_path / "site.mbtiles", rate_per_s=1000, retries=1,
                  sleep=lambda s: None, **kw)
        seconds = time.monotonic() - t0
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return info.value, peak, seconds


def stored(tmp_path) -> int:
    with sqlite3.connect(tmp_path / "site.mbtiles.part") as conn:
        return int(conn.execute("SELECT count(*) FROM tiles").fetchone()[0])


def no_timer_left() -> bool:
    return not [t for t in threading.enumerate() if isinstance(t, threading.Timer) and t.is_alive()]


@pytest.mark.parametrize("behave", [endless, endless_chunked], ids=["plain", "chunked"])
def test_an_endless_tile_is_cut_at_the_limit_with_memory_bounded(tmp_path, behave):
    server = Hostile(behave)
    try:
        exc, peak, _ = run_bounded(server.url, tmp_path)
    finally:
        server.close()
    assert "went on sending past 4 MB for one tile" in str(exc) and "not a map tile" in str(exc)
    assert server.requests == 1                     # not retried: it is not a busy server
    assert peak < 3 * MAX_TILE_BYTES, peak          # the tile is streamed, never read whole
    assert stored(tmp_path) == 0 and not (tmp_path / "site.mbtiles").exists()
    assert no_timer_left()


def test_a_tile_announced_as_1_5_gb_is_refused_before_reading_it(tmp_path):
    server = Hostile(huge)
    try:
        exc, peak, _ = run_bounded(server.url, tmp_path)
    finally:
        server.close()
    assert "announced a tile of 1.5 GB, above the 4 MB a tile may be" in str(exc)
    assert peak < 3 * MAX_TILE_BYTES, peak
    assert stored(tmp_path) == 0


def test_the_command_says_what_the_server_did_and_exits_1(tmp_path, capsys):
    server = Hostile(huge)
    try:
        status = main(["fetch", "--bbox=-179.9,1,-179.8,2", "--zoom", "1", "--url", server.url,
                       "-o", str(tmp_path / "site.mbtiles"), "-q"])
    finally:
        server.close()
    err = capsys.readouterr().err
    assert status == 1
    assert "stopped: " in err and "announced a tile of 1.5 GB" in err and "Traceback" not in err


@pytest.mark.parametrize("behave", [trickle_body, trickle_headers], ids=["body", "headers"])
def test_a_server_trickling_a_byte_at_a_time_is_stopped_at_the_tile_deadline(tmp_path, behave):
    """The read timeout (30 s) never trips, since a byte comes every 0.2 s: the tile's 1.5 s
    deadline ends it. (Without it the fetch waits for ever.)"""
    server = Hostile(behave)
    try:
        exc, _, seconds = run_bounded(server.url, tmp_path, timeout_s=30.0, tile_deadline_s=1.5)
    finally:
        server.close()
    text = str(exc)
    assert "1.5 s" in text and "stalling or far too slow" in text, text
    if behave is trickle_body:
        assert "the server sent " in text and " bytes of this tile in 1.5 s" in text
    assert seconds < 25.0, seconds          # the deadline, not the 30 s read timeout, nor for ever
    assert server.requests == 1 and stored(tmp_path) == 0
    assert no_timer_left()


def redirect_with_endless_body(conn: socket.socket, server: Hostile) -> None:
    """The first request: a redirect to another path whose own body never ends (urllib reads a
    redirect's body whole); the second: the tile."""
    if server.requests == 1:
        conn.sendall(b"HTTP/1.1 302 Found\r\nLocation: /moved/1/0/0.png\r\nConnection: close\r\n\r\n")
        while not server.stop.is_set():
            conn.sendall(ZEROS)
            server.sent += len(ZEROS)
    else:
        body = good_png()
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: %d\r\n"
                     b"Connection: close\r\n\r\n%s" % (len(body), body))


def test_a_redirect_with_an_endless_body_is_followed_without_reading_it(tmp_path):
    server = Hostile(redirect_with_endless_body)
    tracemalloc.start()
    try:
        result = fetch(server.url, BOX, (1, 1), tmp_path / "site.mbtiles", rate_per_s=1000, tile_deadline_s=20)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        server.close()
    assert (result.fetched, server.requests) == (1, 2)
    assert peak < 3 * MAX_TILE_BYTES, peak
    with sqlite3.connect(result.path) as conn:
        assert [bytes(d) for (d,) in conn.execute("SELECT tile_data FROM tiles")] == [good_png()]


def test_a_redirect_to_anything_but_a_web_address_is_refused(tmp_path):
    def to_ftp(conn: socket.socket, server: Hostile) -> None:
        conn.sendall(b"HTTP/1.1 301 Moved\r\nLocation: ftp://127.0.0.1/t.png\r\nContent-Length: 0\r\n\r\n")

    server = Hostile(to_ftp)
    try:
        exc, _, _ = run_bounded(server.url, tmp_path)
    finally:
        server.close()
    assert "HTTP 301" in str(exc) and "a redirect to ftp://127.0.0.1/t.png, not a web address" in str(exc)


# ------------------------------------------------------------------ damaged tiles (item 7)
def noise(fmt: str) -> bytes:
    rng = random.Random(7)
    im = Image.frombytes("RGB", (256, 256), rng.randbytes(256 * 256 * 3))
    buf = io.BytesIO()
    im.save(buf, fmt)
    return buf.getvalue()


def corrupt_idat(png: bytes) -> bytes:
    """``png`` with 64 bytes of its compressed pixels flipped and every checksum made right again:
    Pillow opens and verifies it, only decoding fails."""
    out, i = bytearray(png[:8]), 8
    while i < len(png):
        (n,) = struct.unpack(">I", png[i:i + 4])
        kind, data = png[i + 4:i + 8], bytearray(png[i + 8:i + 8 + n])
        if kind == b"IDAT":
            for k in range(n // 2, n // 2 + 64):
                data[k] ^= 0x5A
        out += struct.pack(">I", n) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        i += 12 + n
    return bytes(out)


def good_png() -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (256, 256), (10, 120, 30)).save(buf, "PNG")
    return buf.getvalue()


@pytest.mark.parametrize("damaged,kind", [(lambda: corrupt_idat(noise("PNG")), "PNG"),
                                          (lambda: noise("JPEG")[:9000], "JPEG")],
                         ids=["png-corrupt-data", "jpeg-cut"])
def test_a_damaged_tile_is_not_stored(tmp_path, damaged, kind):
    bad = damaged()
    with Image.open(io.BytesIO(bad)) as im:     # what let it through before: it opens and verifies
        im.verify()
    # zoom 2 over this box: tiles (2, 0, 1) then (2, 0, 2) ... the second one is damaged
    box, zooms = (-179.9, -60.0, -179.8, 60.0), (2, 2)
    served: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - http.server name
            served.append(self.path)
            body = bad if len(served) == 2 else good_png()
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{httpd.server_port}/{{z}}/{{x}}/{{y}}.png"
    out = tmp_path / "site.mbtiles"
    try:
        with pytest.raises(FetchFailed, match=f"the tile is a damaged {kind} that does not decode .*not stored"):
            fetch(url, box, zooms, out, rate_per_s=1000)
    finally:
        httpd.shutdown()
        httpd.server_close()
    with sqlite3.connect(tmp_path / "site.mbtiles.part") as conn:
        rows = [bytes(d) for (d,) in conn.execute("SELECT tile_data FROM tiles")]
    assert rows == [good_png()]                 # the good first tile kept, the damaged one not
    assert not out.exists()
