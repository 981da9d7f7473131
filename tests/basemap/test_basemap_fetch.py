"""``fieldapp basemap fetch`` against generated tiles served on loopback: the tiles of the box,
polite (User-Agent), refused above the limit, interrupted and resumed to the same tiles, and
the MBTiles file opens as a basemap whose pixels are the served tiles'."""

from __future__ import annotations

import io
import sqlite3
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import mercantile
import pytest
from PIL import Image

from fieldapp.basemap.fetch import FetchFailed, FetchRefused, fetch, main, tiles_for
from fieldapp.cli import main as cli_main

BBOX = (-89.41, 43.07, -89.38, 43.09)


def colour(z, x, y):
    return (x * 37 % 256, y * 59 % 256, z * 11 % 256)


def tile_png(z, x, y) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (256, 256), colour(z, x, y)).save(buf, "PNG")
    return buf.getvalue()


class TileServer:
    """Generated PNG tiles on 127.0.0.1; ``fail_after`` answers 500 to every request past that
    many tiles (a server going away part way); ``requests`` logs (path, User-Agent)."""

    def __init__(self):
        self.requests = []
        self.fail_after = None
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - http.server name
                server.requests.append((self.path, self.headers.get("User-Agent")))
                ok = [p for p, _ in server.requests]
                if server.fail_after is not None and len(ok) > server.fail_after:
                    self.send_error(500, "gone")
                    return
                if self.path == "/notimage/1/0/0.png":
                    body = b"<html>sign in</html>"
                else:
                    path = self.path.partition("?")[0]       # an API key in the query is ignored
                    z, x, y = (int(v) for v in path.strip("/").removesuffix(".png").split("/"))
                    body = tile_png(z, x, y)
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_port}/{{z}}/{{x}}/{{y}}.png"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    s = TileServer()
    yield s
    s.close()


def tiles_in(path):
    with sqlite3.connect(path) as conn:
        return {(z, x, r): bytes(d) for z, x, r, d in conn.execute("SELECT * FROM tiles")}


def test_fetches_every_tile_of_the_box_politely_and_gdal_reads_it(tmp_path, server):
    out = tmp_path / "site.mbtiles"
    seen = []
    result = fetch(server.url, BBOX, (14, 15), out, rate_per_s=1000, progress=lambda d, t: seen.append(d))
    expected = tiles_for(BBOX, (14, 15))
    assert result.total == len(expected) == result.fetched and result.kept == 0
    assert seen == list(range(1, len(expected) + 1))
    got = tiles_in(out)
    # TMS rows (MBTiles 1.3): row = 2^z - 1 - y
    assert set(got) == {(t.z, t.x, (1 << t.z) - 1 - t.y) for t in expected}
    assert all(ua.startswith("fieldapp/") for _, ua in server.requests)
    assert not (tmp_path / "site.mbtiles.part").exists()

    from fieldapp.basemap import open_basemap, render

    info = open_basemap(out)
    assert info.driver == "MBTiles" and info.crs == "EPSG:3857"
    # around the box's middle, rendered in Web Mercator metres at zoom 15's pixel size: the
    # colour of the zoom-15 tile there (GDAL clips the file to its metadata bounds, the box)
    lon, lat = (BBOX[0] + BBOX[2]) / 2, (BBOX[1] + BBOX[3]) / 2
    t = mercantile.tile(lon, lat, 15)
    cx, cy = mercantile.xy(lon, lat)
    img = render(out, "EPSG:3857", (cx - 20, cy - 20, cx + 20, cy + 20), 8, 8, info)
    assert tuple(int(v) for v in img[4, 4, :3]) == colour(t.z, t.x, t.y) and img[4, 4, 3] == 255


def test_interrupted_then_resumed_gives_the_same_tiles(tmp_path, server):
    whole = tmp_path / "whole.mbtiles"
    fetch(server.url, BBOX, (14, 15), whole, rate_per_s=1000)
    n = len(server.requests)
    server.requests.clear()
    server.fail_after = 3
    out = tmp_path / "site.mbtiles"
    with pytest.raises(FetchFailed, match="HTTP 500"):
        fetch(server.url, BBOX, (14, 15), out, rate_per_s=1000, retries=1, sleep=lambda s: None)
    assert not out.exists() and len(tiles_in(tmp_path / "site.mbtiles.part")) == 3
    server.fail_after = None
    server.requests.clear()
    result = fetch(server.url, BBOX, (14, 15), out, rate_per_s=1000)
    assert (result.kept, result.fetched) == (3, n - 3) and len(server.requests) == n - 3
    assert tiles_in(out) == tiles_in(whole)


def test_refusals_fetch_nothing(tmp_path, server):
    out = tmp_path / "site.mbtiles"
    n = len(tiles_for(BBOX, (14, 17)))
    with pytest.raises(FetchRefused, match=f"{n:,} tiles at zoom 14-17 .* above the limit of 50"):
        fetch(server.url, BBOX, (14, 17), out, max_tiles=50)
    with pytest.raises(FetchRefused, match="lacks"):
        fetch("http://127.0.0.1/tiles.png", BBOX, (14, 14), out)
    assert server.requests == [] and not out.exists() and not (tmp_path / "site.mbtiles.part").exists()
    bad = server.url.replace("{z}/{x}/{y}", "notimage/{z}/{x}/{y}")
    with pytest.raises(FetchFailed, match="not an image"):
        fetch(bad, (-179.9, 1, -179.8, 2), (1, 1), out, rate_per_s=1000)
    assert not out.exists()


def test_command_line_progress_and_exit_status(tmp_path, server, capsys):
    out = tmp_path / "site.mbtiles"
    args = ["basemap", "fetch", "--bbox=" + ",".join(map(str, BBOX)), "--zoom", "14-15", "--url",
            server.url, "-o", str(out), "--rate", "10"]
    assert cli_main(args) == 0
    cap = capsys.readouterr()
    n = len(tiles_for(BBOX, (14, 15)))
    assert f"{n}/{n} tiles" in cap.err and f"{out}: {n} tiles ({n} fetched now, 0 from an earlier run)" in cap.out
    assert cli_main(args) == 2          # it exists now
    assert "exists" in capsys.readouterr().err
    assert main(["fetch", "--bbox=1,2,3", "--zoom", "1", "--url", server.url, "-o", str(out)]) == 2
    assert "west,south,east,north" in capsys.readouterr().err


def test_the_tile_count_is_known_before_any_tile_is_listed(tmp_path):
    """A world box at zoom 0-20 is refused at once (it listed 1.5 trillion tiles first, and grew
    past 2 GB); the count equals the tiles listed on small boxes."""
    import mercantile

    from fieldapp.basemap.fetch import FetchRefused, fetch, tile_count

    for bbox, zooms in (((-91.8, 43.3, -91.7, 43.4), (10, 15)), ((-180.0, -85.0, 180.0, 85.0), (0, 4)),
                        ((-89.41, 43.07, -89.40, 43.08), (16, 18))):
        listed = len(list(mercantile.tiles(*bbox, zooms=list(range(zooms[0], zooms[1] + 1)))))
        assert tile_count(bbox, zooms) == listed, (bbox, zooms)
    # zoom 0..20 over the whole Web Mercator square (to 85.0511° N/S): sum of 4^z = (4^21 - 1) / 3
    world = (-180.0, -85.0511287798, 180.0, 85.0511287798)
    assert tile_count(world, (0, 20)) == (4 ** 21 - 1) // 3
    with pytest.raises(FetchRefused, match=r"1,466,015,503,701 tiles at zoom 0-20"):
        fetch("https://t/{z}/{x}/{y}.png", world, (0, 20), tmp_path / "w.mbtiles")
    with pytest.raises(FetchRefused, match="the folder .* does not exist"):
        fetch("https://t/{z}/{x}/{y}.png", (-91.8, 43.3, -91.79, 43.31), (14, 14),
              tmp_path / "nowhere" / "b.mbtiles")
    with pytest.raises(FetchRefused, match="is not a tile URL"):
        fetch("http://[::1/{z}/{x}/{y}.png", (-91.8, 43.3, -91.79, 43.31), (14, 14), tmp_path / "c.mbtiles")
    with pytest.raises(FetchRefused, match="--max-tiles must be"):
        fetch("https://t/{z}/{x}/{y}.png", (-91.8, 43.3, -91.79, 43.31), (14, 14), tmp_path / "d.mbtiles",
              max_tiles=-5)


def test_a_refused_connection_is_said_as_such_not_as_no_network(tmp_path):
    # a port nobody listens on: the cause the user can act on is the server or the port
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(FetchFailed, match="refused the connection: is the tile server running") as info:
        fetch(f"http://127.0.0.1:{port}/{{z}}/{{x}}/{{y}}.png", (-89.41, 43.07, -89.40, 43.08),
              (10, 10), tmp_path / "site.mbtiles", retries=0)
    assert "no network" not in str(info.value)


def test_subdomain_and_tms_placeholders_are_filled_and_secrets_never_shown(tmp_path):
    from fieldapp.basemap.fetch import fill, masked_url

    t = mercantile.Tile(x=3, y=5, z=4)
    assert fill("https://{s}.tile.example.org/{z}/{x}/{y}.png", t) == \
        "https://c.tile.example.org/4/3/5.png"           # (3 + 5) % 3 = 2 -> "c"
    assert fill("https://tms.example.org/{z}/{x}/{-y}.png", t) == \
        "https://tms.example.org/4/3/10.png"            # 2**4 - 1 - 5
    assert masked_url("https://crew:S3cretPW@tiles.example.org/{z}/{x}/{y}.png?apikey=S3cretKEY&v=2") \
        == "https://crew:***@tiles.example.org/{z}/{x}/{y}.png?apikey=***&v=***"
    with pytest.raises(FetchRefused, match=r"\{key\} is not a placeholder") as info:
        fetch("https://tiles.example.org/{z}/{x}/{y}.png?k={key}&pw=S3cretPW", (-89.41, 43.07, -89.40, 43.08),
              (10, 10), tmp_path / "a.mbtiles")
    assert "S3cretPW" not in str(info.value)
    for rate in (float("inf"), float("nan"), 0.0):
        with pytest.raises(FetchRefused, match="--rate must be"):
            fetch("https://tiles.example.org/{z}/{x}/{y}.png", (-89.41, 43.07, -89.40, 43.08),
                  (10, 10), tmp_path / "b.mbtiles", rate_per_s=rate)
    for rate in ("inf", "1e9", "11"):
        assert main(["fetch", "--bbox=-89.41,43.07,-89.40,43.08", "--zoom", "10", "--rate", rate, "--url",
                     "https://tiles.example.org/{z}/{x}/{y}.png", "-o", str(tmp_path / "c.mbtiles")]) == 2


def test_the_mbtiles_keeps_no_api_key_and_a_resume_still_matches(tmp_path, server):
    out = tmp_path / "site.mbtiles"
    url = server.url + "?apikey=S3cretKEY"
    fetch(url, BBOX, (14, 14), out, rate_per_s=1000)
    with sqlite3.connect(out) as conn:
        meta = dict(conn.execute("SELECT name, value FROM metadata"))
    assert "S3cretKEY" not in repr(meta)
    assert meta["fieldapp_url"].endswith("?apikey=***")
