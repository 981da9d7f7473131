"""The office sync tests' shared helpers: a site synced by three laptops, an office of either
kind, the master's snapshot, the visit gate narrowed to its generic part (fixtures using them are
in ``tests/sync/conftest.py``)."""

from __future__ import annotations

import contextlib
import itertools
import sqlite3
from pathlib import Path

import shapely

from fieldapp.sync import FolderOffice, checkout, engine, gpkgsql, sync
from fieldapp.sync.pgoffice import PostgisOffice
from tests.gpkgtools import st_connect
from tests.sync import sync_sample as S

LAYERS = ("transect", "station", "tree", "metadata", "fieldapp_sync_conflicts", "fieldapp_sync_log")


def basics_only(visit, *, known_sha256=None):
    """:func:`engine.check_visit_file` narrowed to :func:`engine.check_visit_basics`; vouches
    for nothing itself (returns no hash). A sync that received something still records the hash
    the finalize left (the narrowed ``check_received`` stood for the store's read), which this
    gate then ignores: ``known_sha256`` skips nothing here."""
    engine.check_visit_basics(visit)


def master(office, site: str = "site-a") -> Path:
    """The office's master GeoPackage: the folder office's file, or for the PostGIS office the
    GeoPackage a checkout would get (fetched into a fresh file each time)."""
    if isinstance(office, PostgisOffice):
        dest = office.test_dir / f"master-{next(_fetches)}.gpkg"
        office.fetch_master(site, dest)
        return dest
    return office.master_path(site)


_fetches = itertools.count()


def make_office(kind: str, tmp_path: Path, request):
    """A new, empty office: a folder, or a PostGIS database (fixture ``pg_url``)."""
    if kind == "folder":
        return FolderOffice(tmp_path / "office", create=True)
    office = PostgisOffice(request.getfixturevalue("pg_url"), create=True)
    office.test_dir = tmp_path
    return office


def pg_tables_match(office, m: Path, layers=("tree", "station", "transect", "fieldapp_sync_conflicts")) -> None:
    """The PostGIS office's layer tables hold exactly the rows of its master GeoPackage ``m``
    (every column; geometry compared as WKB by PostGIS / shapely)."""
    if not isinstance(office, PostgisOffice):
        return
    from psycopg import sql

    with contextlib.closing(office.connect()) as conn:
        for layer in layers:
            want = S.by_uuid(m, layer)
            cur = conn.execute(sql.SQL("SELECT * FROM {}").format(sql.Identifier("site-a", layer)))
            names = [d.name for d in cur.description]
            got = {}
            for row in cur.fetchall():
                r = dict(zip(names, row, strict=True))  # a row has a value for each column
                got[r["uuid"]] = r
            assert sorted(got) == sorted(want), layer
            for u, w in want.items():
                g = dict(got[u])
                if "geom" in w:
                    assert shapely.from_wkb(g.pop("geom")).equals_exact(
                        gpkgsql.to_shapely(w.pop("geom")), 0.0), (layer, u)
                assert {k: g[k] for k in w} == w, (layer, u)


def snapshot(path: Path) -> dict:
    """Everything a laptop and the office must agree on, keyed by uuid / key / seq."""
    out = {}
    with contextlib.closing(st_connect(path)) as conn:
        conn.row_factory = sqlite3.Row
        for layer in LAYERS:
            key = {"metadata": "key", "fieldapp_sync_log": "seq"}.get(layer, "uuid")
            out[layer] = {r[key]: dict(r) for r in conn.execute(f"SELECT * FROM {layer}")}
    return out


def make_site(office, tmp_path):
    a = S.make_visit(tmp_path / "a.gpkg", trees=3)
    sync(a, office)
    laptops = {"A": a}
    for name in "BC":
        laptops[name] = checkout(office, "site-a", tmp_path / f"{name.lower()}.gpkg")
    trees = sorted(S.by_uuid(a, "tree").items(), key=lambda kv: kv[1]["dbh_in"])
    return office, laptops, [u for u, _ in trees]  # t1 (10 in), t2 (11 in), t3 (12 in)


def edit(path: Path, *stmts, trees=()) -> None:
    with contextlib.closing(S.connect(path)) as conn, conn:
        for sql, args in stmts:
            conn.execute(sql, args)
