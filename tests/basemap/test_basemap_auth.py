"""A tile URL with ``user:password@`` (issue 31, item 12): sent as HTTP Basic authentication
over https to the URL's own server only, refused over http, a server refusing it said as such;
the password is never in a message, the MBTiles metadata or a log."""

from __future__ import annotations

import base64
import logging
import shutil
import sqlite3
import ssl
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from fieldapp.basemap.fetch import FetchFailed, FetchRefused, credentials, fetch
from tests.basemap.test_basemap_fetch import tile_png

BOX = (-89.41, 43.07, -89.40, 43.08)
PASSWORD = "S3cret:pw@x"          # a colon and an at sign, percent-encoded in the URL
QUOTED = "S3cret%3Apw%40x"


class AuthTileServer:
    """PNG tiles over https (a self-signed certificate for 127.0.0.1 the test trusts) to
    ``crew`` / :data:`PASSWORD` only; ``/elsewhere/...`` redirects to ``other`` (another port);
    ``seen`` logs (path, Authorization header)."""

    def __init__(self, cert: str, key: str, other: str | None = None):
        self.seen: list[tuple[str, str | None]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - http.server name
                auth = self.headers.get("Authorization")
                server.seen.append((self.path, auth))
                if self.path.startswith("/elsewhere/") and other:
                    self.send_response(302)
                    self.send_header("Location", other + self.path.removeprefix("/elsewhere"))
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                want = "Basic " + base64.b64encode(f"crew:{PASSWORD}".encode()).decode()
                if other is not None and auth != want:
                    self.send_response(401)
                    self.send_header("WWW-Authenticate", 'Basic realm="tiles"')
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                z, x, y = (int(v) for v in self.path.strip("/").removesuffix(".png").split("/")[-3:])
                body = tile_png(z, x, y)
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(cert, key)
        self.httpd.socket = ctx.wrap_socket(self.httpd.socket, server_side=True)
        self.base = f"https://127.0.0.1:{self.httpd.server_port}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def cert(tmp_path_factory):
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl makes the test server's certificate")
    d = tmp_path_factory.mktemp("tls")
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(d / "key.pem"),
                    "-out", str(d / "cert.pem"), "-days", "2", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
    return str(d / "cert.pem"), str(d / "key.pem")


@pytest.fixture
def servers(cert, monkeypatch):
    monkeypatch.setenv("SSL_CERT_FILE", cert[0])     # the client trusts the test's certificate
    other = AuthTileServer(*cert)                       # another host: serves anyone
    main = AuthTileServer(*cert, other=other.base)
    yield main, other
    main.close()
    other.close()


def test_basic_auth_from_the_url_fetches_and_the_password_is_kept_nowhere(tmp_path, servers, caplog):
    main, _ = servers
    url = main.base.replace("https://", f"https://crew:{QUOTED}@") + "/{z}/{x}/{y}.png"
    caplog.set_level(logging.DEBUG)
    out = tmp_path / "site.mbtiles"
    fetch(url, BOX, (10, 10), out, rate_per_s=1000)
    want = "Basic " + base64.b64encode(f"crew:{PASSWORD}".encode()).decode()
    assert main.seen and all(a == want for _, a in main.seen)
    with sqlite3.connect(out) as conn:
        meta = dict(conn.execute("SELECT name, value FROM metadata"))
        assert conn.execute("SELECT count(*) FROM tiles").fetchone()[0] >= 1
    assert QUOTED not in repr(meta) and PASSWORD not in repr(meta)
    assert meta["fieldapp_url"].startswith("https://crew:***@127.0.0.1:")
    assert meta["attribution"] == main.base.removeprefix("https://")
    # the resume check hashes the URL without the password (no guessing target on the laptops)
    import hashlib

    assert meta["fieldapp_url_sha256"] == hashlib.sha256(credentials(url)[0].encode()).hexdigest()
    assert QUOTED not in caplog.text and PASSWORD not in caplog.text


def test_a_wrong_password_is_said_as_such_and_not_shown(tmp_path, servers):
    main, _ = servers
    url = main.base.replace("https://", "https://crew:WrongPW@") + "/{z}/{x}/{y}.png"
    with pytest.raises(FetchFailed, match="did not accept the user name and password in the URL") as info:
        fetch(url, BOX, (10, 10), tmp_path / "a.mbtiles", retries=0)
    assert "WrongPW" not in str(info.value) and "crew:***@" in str(info.value)
    # no password at all: the server asks for one, and the message says how to give it
    with pytest.raises(FetchFailed, match=r"asks for a user name and password; put them in the URL"):
        fetch(main.base + "/{z}/{x}/{y}.png", BOX, (10, 10), tmp_path / "b.mbtiles", retries=0)


def test_the_password_never_follows_a_redirect_to_another_server(tmp_path, servers):
    main, other = servers
    url = main.base.replace("https://", f"https://crew:{QUOTED}@") + "/elsewhere/{z}/{x}/{y}.png"
    fetch(url, BOX, (10, 10), tmp_path / "c.mbtiles", rate_per_s=1000)
    assert main.seen and main.seen[0][1] is not None      # sent to the URL's own server
    assert other.seen and all(a is None for _, a in other.seen)


def test_a_password_over_plain_http_is_refused_with_the_reason(tmp_path):
    with pytest.raises(FetchRefused, match=r"sends them only over https://") as info:
        fetch("http://crew:S3cretPW@127.0.0.1:9/{z}/{x}/{y}.png", BOX, (10, 10), tmp_path / "d.mbtiles")
    assert "S3cretPW" not in str(info.value)
    assert not (tmp_path / "d.mbtiles.part").exists()


def test_credentials_are_split_from_the_url():
    assert credentials(f"https://crew:{QUOTED}@t.example.org/{{z}}/{{x}}/{{y}}.png") == (
        "https://t.example.org/{z}/{x}/{y}.png",
        "Basic " + base64.b64encode(f"crew:{PASSWORD}".encode()).decode())
    assert credentials("https://t.example.org:8443/{z}/{x}/{y}.png")[1] is None
