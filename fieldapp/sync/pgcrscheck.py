"""The PostGIS office checks a changeset's CRS and coordinates against the site before writing
its rows (issue 30, item 12), with the folder office's rules (:mod:`fieldapp.sync.crscheck`).

The PostGIS office writes a push's rows straight from the changeset, so the candidate checked is
the changeset's own rows: a ``site`` row naming another CRS than the office's site, a geometry
whose GeoPackage header names another ``srs_id`` than its layer, or coordinates outside the site
CRS's area of use or more than :data:`~fieldapp.sync.crscheck.SITE_REACH_M` from the extent of
what the office's layer tables already hold (longitude/latitude degrees in a UTM layer).
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from fieldapp.sync.crscheck import chunk_problem, site_bounds

if TYPE_CHECKING:
    import psycopg

    from fieldapp.sync.pgsql import Table

_SITE = "site"


def _office_crs(conn: psycopg.Connection[Any], site_id: str, tables: dict[str, Table]) -> str | None:
    """The CRS the office's ``site`` row names; None without one."""
    from psycopg import sql

    site = tables.get(_SITE)
    if site is None or not any(c.name == "crs" for c in site.columns):
        return None
    row = conn.execute(sql.SQL("SELECT crs FROM {} WHERE crs IS NOT NULL AND crs <> '' LIMIT 1").format(
        sql.Identifier(site_id, _SITE))).fetchone()
    return None if row is None else str(row[0])


def _office_extent(conn: psycopg.Connection[Any], site_id: str,
                   tables: dict[str, Table]) -> tuple[float, float, float, float] | None:
    """(xmin, ymin, xmax, ymax) of every geometry the site's layer tables hold; None when empty."""
    from psycopg import sql

    boxes = []
    for table in tables.values():
        for col in table.columns:
            if col.kind != "geometry":
                continue
            box = conn.execute(sql.SQL(
                "SELECT ST_XMin(e), ST_YMin(e), ST_XMax(e), ST_YMax(e) FROM (SELECT ST_Extent({}) AS e"
                " FROM {}) AS s").format(sql.Identifier(col.name), sql.Identifier(site_id, table.name))).fetchone()
            if box is not None and None not in box:
                boxes.append(tuple(float(v) for v in box))
    if not boxes:
        return None
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def problems(conn: psycopg.Connection[Any], site_id: str, tables: dict[str, Table],
             entries: list[dict[str, Any]]) -> list[str]:
    """What is wrong with the CRS or coordinates of ``entries`` (a changeset's rows,
    :func:`fieldapp.sync.changesets.read_entries`) against the office's site, in words (empty:
    nothing). Read in ``conn``'s transaction, before the rows are written."""
    from fieldapp.geo import SiteFrame

    new_crs = None
    site = tables.get(_SITE)
    for e in entries:
        if e["table"] == _SITE and site is not None and e["type"] != "delete":
            for ch in e["changes"]:
                if site.columns[ch["column"]].name == "crs" and ch.get("new"):
                    new_crs = str(ch["new"])
    theirs = _office_crs(conn, site_id, tables)
    if theirs is not None and new_crs is not None and new_crs != theirs:
        return [f"its site CRS is {new_crs!r}, the office's site is in {theirs!r}"]
    crs = theirs or new_crs
    if crs is None:
        return []
    try:
        frame = SiteFrame(crs)
    except Exception as exc:  # noqa: BLE001 - a CRS pyproj cannot read is refused in words
        return [f"its site CRS {crs!r} is not one fieldapp can read ({exc})"]
    rows: dict[tuple[str, str], list[tuple[int, object]]] = defaultdict(list)
    for e in entries:
        table = tables.get(e["table"])
        if table is None or e["type"] == "delete":
            continue
        values = {table.columns[ch["column"]].name: ch for ch in e["changes"]}
        fid = values.get("fid", {})
        key = fid.get("new", fid.get("old", "?"))
        for col in table.columns:
            blob = values.get(col.name, {}).get("new")
            if col.kind == "geometry" and blob is not None:
                rows[(table.name, col.name)].append((key, bytes(blob)))
    if not rows:
        return []
    found: list[str] = []
    bounds = site_bounds(frame, _office_extent(conn, site_id, tables))
    for (name, column), chunk in rows.items():
        srid = next(c.srid for c in tables[name].columns if c.name == column)
        if frame.srs_id is not None and srid != frame.srs_id:
            found.append(f"layer {name} is in srs_id {srid}, the site CRS is EPSG:{frame.srs_id}")
            continue
        why = chunk_problem(name, srid or 0, chunk, bounds, frame.crs.name)
        if why:
            found.append(why)
    return found


def check_changeset_crs(conn: psycopg.Connection[Any], site_id: str, tables: dict[str, Table],
                        entries: list[dict[str, Any]], *, what: str, error: type[Exception]) -> None:
    """Refuse ``entries`` when :func:`problems` finds anything (nothing is written then).

    Raises
    ------
    error
        "<what> holds geometry in the wrong CRS: ...; nothing was written to the office".
    """
    found = problems(conn, site_id, tables, entries)
    if found:
        raise error(f"{what} holds geometry in the wrong CRS: {'; '.join(found[:5])}. Nothing was"
                    " written to the office; a visit's geometry must be in its site's CRS")
