"""``fieldapp basemap fetch``: prepare an MBTiles basemap before the trip, while online.

::

    fieldapp basemap fetch --bbox=-89.41,43.07,-89.38,43.09 --zoom 14-18 \\
        --url 'https://tiles.example.org/{z}/{x}/{y}.png' -o site.mbtiles

The XYZ tiles covering the box (WGS84 degrees west,south,east,north) at each zoom level
(``mercantile``) are fetched one by one with a User-Agent naming fieldapp, at most ``--rate``
requests per second (default 2, at most 10), retrying a busy server (HTTP 429 / 5xx) with a growing pause;
each answer must be an image that decodes whole (Pillow), of at most 4 MB (:data:`MAX_TILE_BYTES`,
read a chunk at a time), arriving within 60 s (:data:`TILE_DEADLINE_S`, retries included): a
server that sends more, sends too slowly or sends a damaged tile stops the fetch with what it did,
and that tile is not stored. More tiles than ``--max-tiles`` (default 5000) is refused
before anything is fetched. Tiles are written to ``OUT.part`` (an MBTiles SQLite file, TMS rows as
the MBTiles 1.3 spec says) as they come; an interrupted fetch (Ctrl-C, lost network) keeps them,
and the same command again fetches only the tiles still missing. When every tile is there the
file is moved to ``OUT``. In the field nothing is fetched: the map reads ``OUT`` offline.

The URL may hold ``{z}``, ``{x}``, ``{y}`` (or ``{-y}``, a TMS server's row) and ``{s}`` (the
subdomains a, b, c in turn). A password or API key in it is never printed, and the file keeps
the URL with them masked (``***``) beside the whole URL's SHA-256, which a resume must match:
the MBTiles goes to every crew laptop. A ``user:password@`` in an https:// URL is sent as HTTP
Basic authentication to that server only (never after a redirect to another); in an http:// URL
it is refused (anyone on the network could read it).

Exit status: 0 done; 1 interrupted or failed (``OUT.part`` kept for a resume); 2 refused (bad
arguments, too many tiles, an ``OUT`` that exists, a ``.part`` of another URL or box).
"""

from __future__ import annotations

import argparse
import hashlib
import http.client
import io
import math
import os
import re
import socket
import sqlite3
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import IO, Protocol
from urllib.parse import urlsplit

__all__ = ["fetch", "FetchRefused", "FetchFailed", "tiles_for", "bbox_around", "main", "USER_AGENT"]

#: A bounding box (west, south, east, north), degrees.
BBox = tuple[float, float, float, float]


class TileXYZ(Protocol):
    """An XYZ tile as :mod:`mercantile` gives it (mercantile ships no types)."""

    @property
    def x(self) -> int: ...
    @property
    def y(self) -> int: ...
    @property
    def z(self) -> int: ...


USER_AGENT = "fieldapp/0.1 basemap fetch (offline field maps; one tile at a time)"
RETRY_STATUS = {429, 500, 502, 503, 504}


class FetchRefused(ValueError):
    """Nothing was fetched: the request is impossible or above the limit (message in words)."""


class FetchFailed(RuntimeError):
    """The fetch stopped part way; the tiles so far are kept in ``OUT.part`` for a resume."""


@dataclass(frozen=True)
class FetchResult:
    """``path`` written, ``total`` tiles, ``fetched`` this run, ``kept`` from an earlier run."""

    path: Path
    total: int
    fetched: int
    kept: int


def parse_bbox(text: str) -> tuple[float, float, float, float]:
    """``"W,S,E,N"`` in WGS84 degrees; FetchRefused when it is not a box on the Earth."""
    try:
        w, s, e, n = (float(v) for v in text.split(","))
    except ValueError:
        raise FetchRefused(f"--bbox {text!r}: give west,south,east,north in degrees") from None
    if not (-180 <= w < e <= 180 and -85.06 <= s < n <= 85.06):
        raise FetchRefused(f"--bbox {text!r}: west < east within -180..180, south < north "
                           "within -85..85 (Web Mercator's limit)")
    return w, s, e, n


def parse_zoom(text: str) -> tuple[int, int]:
    """``"14-18"`` or ``"16"``; FetchRefused outside 0..22."""
    try:
        lo, _, hi = text.partition("-")
        a, b = int(lo), int(hi or lo)
    except ValueError:
        raise FetchRefused(f"--zoom {text!r}: give A-B, e.g. 14-18") from None
    if not 0 <= a <= b <= 22:
        raise FetchRefused(f"--zoom {text!r}: levels 0..22, lowest first")
    return a, b


def tile_count(bbox: tuple[float, float, float, float], zooms: tuple[int, int]) -> int:
    """How many XYZ tiles :func:`tiles_for` gives, counted from the corner tiles of each zoom
    (``mercantile.tile``) without listing them: a world box at zoom 20 is refused at once."""
    import mercantile

    w, s, e, n = bbox
    eps = 1e-9      # as mercantile.tiles: a box edge on a tile edge does not take the next tile
    total = 0
    for z in range(zooms[0], zooms[1] + 1):
        ul = mercantile.tile(w + eps, min(n, 85.051129) - eps, z)
        lr = mercantile.tile(e - eps, max(s, -85.051129) + eps, z)
        total += (lr.x - ul.x + 1) * (lr.y - ul.y + 1)
    return total


def tiles_for(bbox: tuple[float, float, float, float], zooms: tuple[int, int]) -> list[TileXYZ]:
    """The XYZ tiles (``mercantile.Tile``) covering ``bbox`` at zoom ``zooms[0]..zooms[1]``."""
    import mercantile

    return list(mercantile.tiles(*bbox, zooms=list(range(zooms[0], zooms[1] + 1))))


def _open_part(part: Path, url: str, bbox: BBox, zooms: tuple[int, int]) -> sqlite3.Connection:
    conn = sqlite3.connect(part)
    conn.execute("CREATE TABLE IF NOT EXISTS metadata (name TEXT, value TEXT)")
    conn.execute("CREATE TABLE IF NOT EXISTS tiles (zoom_level INTEGER, tile_column INTEGER,"
                 " tile_row INTEGER, tile_data BLOB)")
    conn.execute("CREATE UNIQUE INDEX IF NOT EXISTS tile_index ON tiles (zoom_level, tile_column, tile_row)")
    meta = dict(conn.execute("SELECT name, value FROM metadata"))
    want = {"fieldapp_url": masked_url(url),
            # the URL without its user:password@: a hash of the password on every laptop is a
            # guessing target; the server and path decide the tiles, not the password
            "fieldapp_url_sha256": hashlib.sha256(credentials(url)[0].encode()).hexdigest(),
            "bounds": ",".join(f"{v:.7f}" for v in bbox),
            "minzoom": str(zooms[0]), "maxzoom": str(zooms[1])}
    if meta:
        other = {k: meta.get(k) for k in want if meta.get(k) != want[k]}
        if other:
            conn.close()
            raise FetchRefused(f"{part} holds an earlier fetch of another URL, box or zoom "
                               f"({', '.join(f'{k}={v}' for k, v in other.items())}); remove it or "
                               "repeat that fetch's arguments")
    else:
        host = urlsplit(url).netloc.rpartition("@")[2]   # the server, never its user name or password
        rows = dict(want, name=Path(str(part).removesuffix(".part")).stem, type="baselayer",
                    version="1.0", description=f"fetched by fieldapp from {host}",
                    attribution=host, date=date.today().isoformat(), format="png")
        rows["center"] = f"{(bbox[0] + bbox[2]) / 2:.7f},{(bbox[1] + bbox[3]) / 2:.7f},{zooms[0]}"
        conn.executemany("INSERT INTO metadata (name, value) VALUES (?, ?)", rows.items())
        conn.commit()
    return conn


#: The placeholders a tile URL may hold: XYZ ``{y}``, TMS ``{-y}`` (row from the south) and the
#: ``{s}`` subdomain (a, b, c in turn, as Leaflet and QGIS fill it).
PLACEHOLDERS = {"z": "{z}", "x": "{x}", "y": "{y}", "-y": "{-y}", "s": "{s}"}

#: The fastest ``--rate`` the command takes (requests per second): well-kept servers ask for a few.
MAX_RATE_PER_S = 10.0


def fill(url: str, tile: TileXYZ) -> str:
    """``url`` with the placeholders of :data:`PLACEHOLDERS` filled for ``tile`` (an XYZ tile)."""
    values = {"{z}": tile.z, "{x}": tile.x, "{y}": tile.y, "{-y}": (1 << tile.z) - 1 - tile.y,
              "{s}": "abc"[(tile.x + tile.y) % 3]}
    for key, value in values.items():
        url = url.replace(key, str(value))
    return url


def masked_url(url: str) -> str:
    """``url`` for messages and the MBTiles metadata: a password in it and every query value
    (an API key) shown as ``***``."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return re.sub(r"(://[^/@:]*:)[^/@]*@", r"\1***@", url)
    netloc = parts.netloc
    if parts.password is not None:
        netloc = netloc.replace(f":{parts.password}@", ":***@", 1)
    query = re.sub(r"=([^&]*)", "=***", parts.query)
    return parts._replace(netloc=netloc, query=query).geturl()


def credentials(url: str) -> tuple[str, str | None]:
    """(``url`` without the ``user:password@`` it may hold, the HTTP Basic ``Authorization``
    header value for them, or None). The name and password are percent-decoded (``%40`` is
    ``@``), as a browser reads them; the header goes only to the URL's own host
    (:class:`_Redirect`). Never logged or printed: messages show :func:`masked_url`.

    >>> credentials("https://crew:pa%40ss@tiles.example.org/{z}/{x}/{y}.png")
    ('https://tiles.example.org/{z}/{x}/{y}.png', 'Basic Y3JldzpwYUBzcw==')
    >>> credentials("https://tiles.example.org/{z}/{x}/{y}.png")
    ('https://tiles.example.org/{z}/{x}/{y}.png', None)
    """
    import base64
    from urllib.parse import unquote

    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url, None
    userinfo, _, hostport = parts.netloc.rpartition("@")
    user, _, password = userinfo.partition(":")
    token = base64.b64encode(f"{unquote(user)}:{unquote(password)}".encode()).decode("ascii")
    return parts._replace(netloc=hostport).geturl(), f"Basic {token}"


#: The most one tile may be (bytes). A 256 px map tile is 5-100 KB and a 512 px orthophoto JPEG
#: rarely 1 MB: a server sending more is broken or hostile, and is stopped at this many bytes.
MAX_TILE_BYTES = 4 * 1024 * 1024

#: The longest one tile may take (s), from its first request to its last byte, retries included.
#: The read timeout alone does not bound a tile: a server sending a byte a second never trips it.
TILE_DEADLINE_S = 60.0

#: The largest tile (pixels a side) decoded: map tiles are 256 or 512 px.
MAX_TILE_PX = 4096

_CHUNK = 64 * 1024


class _TileRefused(Exception):
    """What the server did, in words; the tile is not retried."""


class _Expired(Exception):
    """The tile's deadline passed while reading its body; ``args[0]``: the bytes read by then."""


def _size(n: int) -> str:
    """Bytes in words: ``"1.5 GB"``, ``"4 MB"``, ``"12 KB"``, ``"7 bytes"``."""
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n} bytes"


class _Watch:
    """The deadline of one tile: at ``deadline`` (``time.monotonic()``) a timer thread shuts down
    the sockets the tile's requests opened, which ends a read blocked on a trickling server (the
    socket's own timeout restarts with every byte). ``expired`` tells the reader why it stopped."""

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self.expired = False
        self._socks: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(max(0.0, deadline - time.monotonic()), self._expire)
        self._timer.daemon = True

    def __enter__(self) -> _Watch:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()
        self._timer.join()

    def add(self, sock: socket.socket) -> None:
        with self._lock:
            self._socks.append(sock)
            late = self.expired
        if late:
            self._shut(sock)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            socks = list(self._socks)
        for sock in socks:
            self._shut(sock)

    @staticmethod
    def _shut(sock: socket.socket) -> None:
        try:   # the plain socket's shutdown, also under TLS (SSLSocket's would drop its state mid-read)
            socket.socket.shutdown(sock, socket.SHUT_RDWR)
        except OSError:
            pass   # already closed


def _watched(watch: _Watch) -> urllib.request.OpenerDirector:
    """An opener (proxies and redirects as ``urlopen``'s) whose connections ``watch`` can end."""

    class HTTP(http.client.HTTPConnection):
        def connect(self) -> None:
            super().connect()
            watch.add(self.sock)

    class HTTPS(http.client.HTTPSConnection):
        def connect(self) -> None:
            super().connect()
            watch.add(self.sock)

    class HTTPHandler(urllib.request.HTTPHandler):
        def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
            return self.do_open(HTTP, req)

    class HTTPSHandler(urllib.request.HTTPSHandler):
        def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
            return self.do_open(HTTPS, req)

    return urllib.request.build_opener(HTTPHandler, HTTPSHandler, _Redirect)


class _Redirect(urllib.request.HTTPRedirectHandler):
    """urllib's redirects, but the redirect's own body is closed unread (urllib reads it whole,
    and a hostile server can make it endless), only to an http(s) address, and the URL's
    password (the ``Authorization`` header) never to another server or scheme."""

    def redirect_request(self, req: urllib.request.Request, fp: IO[bytes], code: int, msg: str,
                         headers: http.client.HTTPMessage, newurl: str) -> urllib.request.Request | None:
        if urlsplit(newurl).scheme not in ("http", "https"):
            raise urllib.error.HTTPError(newurl, code, f"{msg} (a redirect to {masked_url(newurl)}, not a "
                                         "web address)", headers, io.BytesIO())
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        old_url, new_url = urlsplit(req.full_url), urlsplit(newurl)
        if new is not None and (new_url.scheme, new_url.netloc) != (old_url.scheme, old_url.netloc):
            new.remove_header("Authorization")  # the password goes to the URL's own server only
        return new

    def http_error_302(self, req: urllib.request.Request, fp: IO[bytes], code: int, msg: str,
                       headers: http.client.HTTPMessage) -> http.client.HTTPResponse | None:
        fp.close()
        new: http.client.HTTPResponse | None = super().http_error_302(req, io.BytesIO(), code, msg, headers)
        return new

    http_error_301 = http_error_303 = http_error_307 = http_error_308 = http_error_302


def _read_tile(resp: http.client.HTTPResponse, watch: _Watch, limit: int) -> bytes:
    """The body of ``resp``, at most ``limit`` bytes, read a chunk at a time (never whole)."""
    announced = resp.headers.get("Content-Length", "").strip()
    if announced.isdigit() and int(announced) > limit:
        raise _TileRefused(f"the server announced a tile of {_size(int(announced))}, above the "
                           f"{_size(limit)} a tile may be: that is not a map tile (a wrong URL, or a "
                           "broken server); nothing of it was read")
    data = bytearray()
    while chunk := resp.read1(_CHUNK):
        data += chunk
        if len(data) > limit:
            raise _TileRefused(f"the server went on sending past {_size(limit)} for one tile (a map "
                               "tile is well under 1 MB): stopped reading it; that is not a map tile "
                               "(a wrong URL, or a broken server)")
        if watch.expired:
            break
    if watch.expired:
        raise _Expired(len(data))
    if announced.isdigit() and len(data) < int(announced):
        raise ConnectionError(f"the server closed the connection after {_size(len(data))} of the "
                              f"{_size(int(announced))} it announced for this tile")
    return bytes(data)


def _get(url: str, timeout_s: float, retries: int, pause: Callable[[float], None],
         deadline_s: float = TILE_DEADLINE_S, limit: int = MAX_TILE_BYTES) -> bytes:
    """One tile's bytes, at most ``limit`` bytes within ``deadline_s`` seconds (retries
    included; each socket read waits at most ``timeout_s``). Raises FetchFailed saying what the
    server did: after ``retries`` busy answers, past the deadline, above the limit, or any
    other error."""
    shown = masked_url(url)
    plain, auth = credentials(url)
    headers = {"User-Agent": USER_AGENT} if auth is None else {"User-Agent": USER_AGENT, "Authorization": auth}
    with _Watch(time.monotonic() + deadline_s) as watch:
        opener = _watched(watch)
        for attempt in range(retries + 1):
            req = urllib.request.Request(plain, headers=headers)
            left = watch.deadline - time.monotonic()
            try:
                with opener.open(req, timeout=max(0.001, min(timeout_s, left))) as resp:
                    return _read_tile(resp, watch, limit)
            except _TileRefused as exc:
                raise FetchFailed(f"{shown}: {exc}") from None
            except _Expired as exc:
                raise FetchFailed(f"{shown}: the server sent {_size(exc.args[0])} of this tile in "
                                  f"{deadline_s:g} s: it is stalling or far too slow (a tile takes a "
                                  "second or two); try again later, or another server") from None
            except urllib.error.HTTPError as exc:
                exc.close()                 # its body unread: an error page is not needed
                if exc.code in (401, 403):
                    raise FetchFailed(f"{shown}: {_refused_words(exc.code, exc.reason, auth is not None)}") from None
                if exc.code not in RETRY_STATUS or attempt == retries:
                    raise FetchFailed(f"{shown}: the server answered HTTP {exc.code} {exc.reason}") from None
                why = f"the server answered HTTP {exc.code} {exc.reason}"
            except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
                if watch.expired:
                    raise FetchFailed(f"{shown}: the server did not answer for this tile within "
                                      f"{deadline_s:g} s: it is stalling or far too slow (a tile takes "
                                      "a second or two); try again later, or another server") from None
                why = _why(exc, timeout_s)
                if attempt == retries:
                    raise FetchFailed(f"{shown}: {why}") from None
            wait = min(2.0 ** attempt, 30.0)
            if time.monotonic() + wait >= watch.deadline:
                raise FetchFailed(f"{shown}: {why}; gave up on this tile after {attempt + 1} tries "
                                  f"(a tile has {deadline_s:g} s)") from None
            pause(wait)
    raise FetchFailed(url)  # pragma: no cover - the loop returns or raises


def _refused_words(code: int, reason: str, with_password: bool) -> str:
    """A 401 / 403 answer in words: the name and password in the URL not accepted, or the
    server asking for them (a URL may carry them: ``https://USER:PASSWORD@host/...``)."""
    if with_password:
        return (f"the server answered HTTP {code} {reason}: it did not accept the user name and password "
                "in the URL (mistyped, expired, or not allowed these tiles)")
    if code == 401:
        return (f"the server answered HTTP {code} {reason}: it asks for a user name and password; put "
                "them in the URL as https://USER:PASSWORD@host/... (never printed or stored)")
    return f"the server answered HTTP {code} {reason}: these tiles are not open to fieldapp (an API key?)"


def _why(exc: OSError | http.client.HTTPException, timeout_s: float) -> str:
    """A failed request in words: the cause the user can act on, not every failure as "no network"."""
    reason = getattr(exc, "reason", exc)
    if isinstance(reason, socket.gaierror):
        return f"the host name cannot be looked up ({reason.strerror or reason}): no network, or a mistyped URL?"
    if isinstance(reason, ConnectionRefusedError):
        return "the server refused the connection: is the tile server running, and the port right?"
    if isinstance(reason, (TimeoutError, socket.timeout)):
        return f"no answer within {timeout_s:g} s: the network is slow or down"
    return f"{getattr(reason, 'strerror', None) or reason}"


def _image_format(data: bytes, url: str) -> str:
    """The format (``"png"``, ``"jpg"`` ...) of the tile ``data``, decoded whole (Pillow) so a
    truncated or damaged image is never stored. Raises FetchFailed saying what is wrong."""
    from PIL import Image, UnidentifiedImageError

    shown = masked_url(url)
    try:
        with Image.open(io.BytesIO(data)) as im:
            fmt = (im.format or "").lower()
            im.verify()                 # the PNG checksums
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, Image.DecompressionBombError) as exc:
        raise FetchFailed(f"{shown}: the answer is not an image ({exc}); is the URL a tile server?") from None
    try:
        with Image.open(io.BytesIO(data)) as im:
            if max(im.size) > MAX_TILE_PX:
                raise FetchFailed(f"{shown}: the tile is {im.size[0]} x {im.size[1]} px, not a map tile "
                                  f"(256 or 512 px; at most {MAX_TILE_PX}): not stored")
            im.load()                   # every pixel: a cut-off or corrupt tile fails here
    except (OSError, SyntaxError, ValueError, EOFError, Image.DecompressionBombError) as exc:
        raise FetchFailed(f"{shown}: the tile is a damaged {fmt.upper() or 'image'} that does not decode "
                          f"({exc}): not stored; the server sent it broken, run the same fetch again "
                          "to retry it") from None
    return "jpg" if fmt == "jpeg" else fmt


def fetch(url: str, bbox: BBox, zooms: tuple[int, int], out: str | os.PathLike[str], *,
          max_tiles: int = 5000, rate_per_s: float = 2.0,
          retries: int = 3, timeout_s: float = 30.0, tile_deadline_s: float = TILE_DEADLINE_S,
          max_tile_bytes: int = MAX_TILE_BYTES,
          progress: Callable[[int, int], None] | None = None,
          sleep: Callable[[float], None] = time.sleep,
          cancel: Callable[[], bool] | None = None) -> FetchResult:
    """Fetch the tiles of ``bbox`` at ``zooms`` from ``url`` (``{z}``, ``{x}``, ``{y}``) into the
    MBTiles file ``out``; see the module docstring. ``progress(done, total)`` after each tile;
    ``cancel()`` is asked before each tile (True stops with FetchFailed, ``out.part`` kept).
    Each tile is at most ``max_tile_bytes`` and must arrive within ``tile_deadline_s`` seconds
    (retries included); each socket read waits at most ``timeout_s`` seconds.

    Raises FetchRefused (nothing fetched) or FetchFailed (``out.part`` kept for a resume).
    """
    shown = masked_url(url)
    names = set(re.findall(r"\{([^{}]*)\}", url))
    if not {"z", "x"} <= names or not names & {"y", "-y"}:
        raise FetchRefused(f"--url {shown!r} lacks {{z}}, {{x}} or {{y}} (or {{-y}} for a TMS"
                           " server)")
    if names - set(PLACEHOLDERS):
        raise FetchRefused(f"--url {shown!r}: {', '.join(sorted('{' + n + '}' for n in names - set(PLACEHOLDERS)))}"
                           f" is not a placeholder fieldapp fills (it knows {', '.join(PLACEHOLDERS.values())})")
    try:
        scheme = urlsplit(url).scheme
    except ValueError as exc:       # e.g. "Invalid IPv6 URL"
        raise FetchRefused(f"--url {shown!r} is not a tile URL ({exc})") from exc
    if scheme not in ("http", "https"):
        raise FetchRefused(f"--url {shown!r}: an http:// or https:// tile URL")
    if scheme == "http" and credentials(url)[1] is not None:
        raise FetchRefused(f"--url {shown!r} holds a user name and password: fieldapp sends them only "
                           "over https:// (over http:// anyone on the network can read them); use the "
                           "server's https:// address")
    if not (isinstance(max_tiles, int) and max_tiles >= 1):
        raise FetchRefused("--max-tiles must be a whole number of tiles, 1 or more")
    if not (math.isfinite(rate_per_s) and rate_per_s > 0):
        raise FetchRefused("--rate must be a number of requests per second above 0")
    out = Path(out)
    if out.exists():
        raise FetchRefused(f"{out} exists; choose another name or remove it")
    count = tile_count(bbox, zooms)
    if count > max_tiles:
        raise FetchRefused(f"{count:,} tiles at zoom {zooms[0]}-{zooms[1]} over this box is "
                           f"above the limit of {max_tiles:,} (--max-tiles): choose a smaller box "
                           "or fewer zoom levels")
    tiles = tiles_for(bbox, zooms)
    part = out.with_name(out.name + ".part")
    if not out.parent.is_dir():
        raise FetchRefused(f"cannot write {out}: the folder {out.parent} does not exist")
    try:
        conn = _open_part(part, url, bbox, zooms)
    except sqlite3.Error as exc:
        raise FetchRefused(f"cannot write {part}: {exc} (a read-only or full disk?)") from exc
    try:
        have = {(z, x, (1 << z) - 1 - r) for z, x, r in
                conn.execute("SELECT zoom_level, tile_column, tile_row FROM tiles")}
        kept = sum(1 for t in tiles if (t.z, t.x, t.y) in have)
        done, fetched, last = kept, 0, 0.0
        fmt = None
        for t in tiles:
            if (t.z, t.x, t.y) in have:
                continue
            if cancel is not None and cancel():
                raise FetchFailed(f"cancelled after {done} of {len(tiles)} tiles")
            wait = last + 1.0 / rate_per_s - time.monotonic()
            if wait > 0:
                sleep(wait)
            last = time.monotonic()
            tile_url = fill(url, t)
            data = _get(tile_url, timeout_s, retries, sleep, tile_deadline_s, max_tile_bytes)
            this = _image_format(data, tile_url)      # every tile must be an image
            fmt = fmt or this
            conn.execute("INSERT INTO tiles VALUES (?, ?, ?, ?)", (t.z, t.x, (1 << t.z) - 1 - t.y, data))
            conn.commit()
            fetched += 1
            done += 1
            if progress is not None:
                progress(done, len(tiles))
        if fmt:
            conn.execute("UPDATE metadata SET value = ? WHERE name = 'format'", (fmt,))
            conn.commit()
    finally:
        conn.close()
    os.replace(part, out)
    return FetchResult(out, len(tiles), fetched, kept)


def bbox_around(lat_deg: float, lon_deg: float, radius_ft: float) -> tuple[float, float, float, float]:
    """The WGS84 box (west, south, east, north) reaching ``radius_ft`` (international ft) from a
    point north, east, south and west along geodesics (pyproj ``Geod.fwd``).

    >>> from pyproj import Geod
    >>> w, s, e, n = bbox_around(43.07, -89.4, 1000.0)
    >>> round(Geod(ellps="WGS84").inv(-89.4, s, -89.4, n)[2] / 0.3048, 6)   # ft, south to north
    2000.0
    """
    from pyproj import Geod

    g = Geod(ellps="WGS84")
    r = radius_ft * 0.3048
    lons, lats, _ = g.fwd([lon_deg] * 4, [lat_deg] * 4, [0.0, 90.0, 180.0, 270.0], [r] * 4)
    return float(lons[3]), float(lats[2]), float(lons[1]), float(lats[0])


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="fieldapp basemap", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    f = sub.add_parser("fetch", help="fetch XYZ tiles into an MBTiles file (resumable)")
    f.add_argument("--bbox", required=True,
                   help="west,south,east,north in WGS84 degrees; with a negative west longitude"
                        " write it with '=': --bbox=-91.8,43.3,-91.7,43.4")
    f.add_argument("--zoom", required=True, help="zoom levels A-B, e.g. 14-18")
    f.add_argument("--url", required=True, help="tile URL with {z}, {x}, {y} (or {-y}, TMS) and optionally {s}")
    f.add_argument("-o", "--output", required=True, type=Path, help="the .mbtiles file to write")
    f.add_argument("--max-tiles", type=int, default=5000, help="refuse more tiles than this (5000)")
    f.add_argument("--rate", type=float, default=2.0, help="requests per second at most (2; 10 at the most)")
    f.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    return p


def _bar(done: int, total: int) -> None:
    width = 30
    n = int(width * done / max(total, 1))
    sys.stderr.write(f"\r[{'#' * n}{'.' * (width - n)}] {done}/{total} tiles")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def main(argv: Sequence[str] | None = None) -> int:
    """``fieldapp basemap fetch ...``; returns the exit status (see the module docstring)."""
    args = _parser().parse_args(argv)
    try:
        if not args.rate <= MAX_RATE_PER_S:     # NaN and inf too
            raise FetchRefused(f"--rate {args.rate:g}: at most {MAX_RATE_PER_S:g} requests per"
                               " second (tile servers ban faster clients)")
        bbox, zooms = parse_bbox(args.bbox), parse_zoom(args.zoom)
        result = fetch(args.url, bbox, zooms, args.output, max_tiles=args.max_tiles,
                       rate_per_s=args.rate, progress=None if args.quiet else _bar)
    except FetchRefused as exc:
        print(f"fieldapp basemap: {exc}", file=sys.stderr)
        return 2
    except FetchFailed as exc:
        print(f"\nfieldapp basemap: stopped: {exc}; the tiles so far are kept in "
              f"{args.output}.part: run the same command again to fetch the rest", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"\nfieldapp basemap: interrupted; the tiles so far are kept in {args.output}.part: "
              "run the same command again to fetch the rest", file=sys.stderr)
        return 1
    print(f"{result.path}: {result.total} tiles ({result.fetched} fetched now, {result.kept} "
          "from an earlier run)")
    return 0
