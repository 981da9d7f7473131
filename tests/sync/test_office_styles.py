"""The office sees the field's map (issue 31, item 4): a new site's master -- a folder office's
GeoPackage, a PostGIS office's ``public.layer_styles`` -- gets fieldapp's QGIS style for each
layer, and a ``layer_styles`` table is accepted in a visit or master only when it holds exactly
those styles: a crafted style with an action (QGIS runs it as Python) is refused through the
real sync CLI, on every way in."""

from __future__ import annotations

import contextlib
import hashlib
import sqlite3
import xml.etree.ElementTree as ET
from pathlib import Path

import pyogrio
import pytest
from pyogrio.raw import read

from fieldapp.sync import FolderOffice
from fieldapp.sync.cli import main as sync_main
from fieldapp.sync.files import connect
from fieldapp.sync.laptop import site_id_of
from fieldapp.sync.officestyles import (
    TABLE_CATEGORIES,
    TABLE_COLOURS,
    foreign_styles,
    styles_for,
    write_office_styles,
)
from fieldapp.sync.schemacheck import foreign_entries
from tests.gpkgtools import st_connect
from tests.sync.test_sync_schema_attack import make_visit

FEATURE_TABLES = {"ohwm_line", "ohwm_point", "transect", "station", "tree", "area_feature", "line_feature",
                  "walk_vertex", "track_point", "note", "stake_point", "data_point"}
#: QGIS runs an action of type 1 as Python when the office clicks it (or a layer's map tip)
EVIL_ACTION = ('<attributeactions><actionsetting type="1" name="open" shortTitle="open"'
               ' action="import os; os.system(\'calc.exe\')" capture="0" isEnabledOnlyWhenEditable="0"/>'
               "</attributeactions>")


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def styles(path: Path) -> dict[str, dict[str, object]]:
    """``layer_styles`` read with GDAL, as QGIS reads it: {layer: row}."""
    meta, _, _, fields = read(str(path), layer="layer_styles")
    rows = [dict(zip(meta["fields"], values, strict=True)) for values in zip(*fields, strict=True)]
    out = {str(r["f_table_name"]): r for r in rows}
    assert len(out) == len(rows)
    return out


def inject_action(path: Path, layer: str = "tree") -> None:
    with contextlib.closing(st_connect(path)) as conn, conn:
        conn.execute("UPDATE layer_styles SET styleQML = replace(styleQML, '<layerGeometryType>', ?)"
                     " WHERE f_table_name = ?", (EVIL_ACTION + "<layerGeometryType>", layer))


@pytest.fixture
def folder_site(tmp_path):
    """A folder office made by the real CLI from a two-tree visit: (office dir, site, visit)."""
    visit = make_visit(tmp_path / "a.gpkg")
    office = tmp_path / "office"
    assert sync_main(["--init-office", "--office", str(office), "-q", str(visit)]) == 0
    return office, site_id_of(visit), visit


def test_folder_master_opens_in_gdal_with_one_style_per_layer(folder_site):
    office, site, _ = folder_site
    master = FolderOffice(office).master_path(site)
    assert "layer_styles" in {name for name, _ in pyogrio.list_layers(master)}
    got = styles(master)
    assert set(got) == FEATURE_TABLES
    assert all(r["useAsDefault"] and r["styleName"] == "fieldapp" and r["styleSLD"] == "" for r in got.values())
    tree = ET.fromstring(got["tree"]["styleQML"].split(">", 1)[1])   # after the DOCTYPE
    renderer = tree.find("renderer-v2")
    assert renderer is not None and renderer.get("type") == "categorizedSymbol" and renderer.get("attr") == "status"
    assert [c.get("value") for c in renderer.iter("category")] == ["live", "dead", "removed"]
    colours = [o.get("value") for o in renderer.iter("Option") if o.get("name") == "color"]
    assert colours == ["46,125,50,255", "141,110,99,255", "192,22,27,255"]
    assert tree.find("labeling/settings/text-style").get("fieldName") == "tag"
    area = ET.fromstring(got["area_feature"]["styleQML"].split(">", 1)[1])
    assert area.find("renderer-v2").get("attr") == "kind"
    assert "wetland" in [c.get("value") for c in area.iter("category")]
    for row in got.values():      # symbols and labels only
        qml = str(row["styleQML"])
        assert "attributeactions" not in qml and "macros" not in qml and "isExpression=\"1\"" not in qml
    with contextlib.closing(connect(master, readonly=True)) as conn:
        assert foreign_entries(conn) == []


def test_checkout_keeps_the_styles_and_syncs(folder_site, tmp_path):
    office, site, _ = folder_site
    crew2 = tmp_path / "crew2.gpkg"
    assert sync_main(["--office", str(office), "--checkout", site, "-q", str(crew2)]) == 0
    assert set(styles(crew2)) == FEATURE_TABLES
    with contextlib.closing(st_connect(crew2)) as conn, conn:
        conn.execute("UPDATE tree SET dbh_in = 14.5 WHERE tag = (SELECT min(tag) FROM tree)")
    assert sync_main(["--office", str(office), "-q", str(crew2)]) == 0
    master = FolderOffice(office).master_path(site)
    with contextlib.closing(sqlite3.connect(master)) as conn:
        assert 14.5 in [r[0] for r in conn.execute("SELECT dbh_in FROM tree")]
    assert set(styles(master)) == FEATURE_TABLES


def test_a_style_with_an_action_is_refused_by_the_sync_cli(folder_site, tmp_path, capsys):
    """A checked-out visit whose tree style gained a Python action: the sync refuses it by
    name and the master keeps its bytes; so does --init-office of a visit carrying one."""
    office, site, _ = folder_site
    crew2 = tmp_path / "crew2.gpkg"
    assert sync_main(["--office", str(office), "--checkout", site, "-q", str(crew2)]) == 0
    master = FolderOffice(office).master_path(site)
    before = sha(master)
    inject_action(crew2)
    with contextlib.closing(st_connect(crew2)) as conn, conn:
        conn.execute("UPDATE tree SET dbh_in = 30.0")
    capsys.readouterr()
    assert sync_main(["--office", str(office), "-q", str(crew2)]) == 1
    err = capsys.readouterr().err
    assert "'tree' in table \"layer_styles\"" in err and "Nothing was synced" in err
    assert sha(master) == before
    # a new visit bringing its own styles table into a new office
    other = make_visit(tmp_path / "b.gpkg")
    write_office_styles(other)
    inject_action(other, "note")
    assert sync_main(["--init-office", "--office", str(tmp_path / "office2"), "-q", str(other)]) == 1
    assert "'note' in table \"layer_styles\"" in capsys.readouterr().err
    assert not (tmp_path / "office2" / site_id_of(other)).exists()


def test_only_fieldapps_own_styles_pass(tmp_path):
    visit = make_visit(tmp_path / "v.gpkg")
    assert write_office_styles(visit) == len(FEATURE_TABLES)
    with contextlib.closing(connect(visit, readonly=True)) as conn:
        assert foreign_entries(conn) == [] and foreign_styles(conn) == []
    with contextlib.closing(st_connect(visit)) as conn, conn:   # a second style for the tree
        conn.execute("INSERT INTO layer_styles (f_table_catalog, f_table_schema, f_table_name, f_geometry_column,"
                     " styleName, styleQML, styleSLD, useAsDefault, description, owner, ui) SELECT"
                     " f_table_catalog, f_table_schema, f_table_name, f_geometry_column, 'mine', styleQML,"
                     " styleSLD, 0, description, owner, ui FROM layer_styles WHERE f_table_name = 'tree'")
        conn.execute("UPDATE layer_styles SET ui = '<ui/>' WHERE f_table_name = 'note'")
    with contextlib.closing(connect(visit, readonly=True)) as conn:
        found = foreign_entries(conn)
    assert len(found) == 2 and "'note'" in found[0] and "'tree'" in found[1]
    # the table made another way (a trigger-free but different make) is refused as a whole
    v2 = make_visit(tmp_path / "v2.gpkg")
    with contextlib.closing(st_connect(v2)) as conn, conn:
        conn.execute("CREATE TABLE layer_styles (id INTEGER PRIMARY KEY, styleqml TEXT)")
    with contextlib.closing(connect(v2, readonly=True)) as conn:
        assert foreign_entries(conn) == ['table "layer_styles" (not made as QGIS and fieldapp make it)']


def test_office_colours_are_the_exports():
    """The office draws each table in the colour the exports draw its layer (KML, DXF)."""
    from fieldapp.export.kmlstyle import TREE_RGB, layer_rgb

    export_layer = {"area_feature": "foundation", "line_feature": "note"}   # their fallback: dark grey
    for table, rgb in TABLE_COLOURS.items():
        assert layer_rgb(export_layer.get(table, table), None) == rgb, table
    assert {v: rgb for v, _, rgb in TABLE_CATEGORIES["tree"][1]} == TREE_RGB
    for v, _, rgb in TABLE_CATEGORIES["area_feature"][1]:
        assert layer_rgb(v, None) == rgb, v
    for v, _, rgb in TABLE_CATEGORIES["line_feature"][1]:
        assert layer_rgb(v if v == "drainageway_centreline" else f"{v}_line", None) == rgb, v


def test_postgis_office_gets_a_default_style_per_layer(pg_url, tmp_path):
    import psycopg

    visit = make_visit(tmp_path / "visit.gpkg")
    assert sync_main(["--init-office", "--office", pg_url, "-q", str(visit)]) == 0
    site = site_id_of(visit)
    with psycopg.connect(pg_url) as conn:
        rows = conn.execute("SELECT f_table_catalog, f_table_name, f_geometry_column, useasdefault,"
                            " styleqml::text FROM public.layer_styles WHERE f_table_schema = %s", (site,)).fetchall()
        db = conn.info.dbname
    assert {r[1] for r in rows} == FEATURE_TABLES and len(rows) == len(FEATURE_TABLES)
    assert all(r[0] == db and r[2] == "geom" and r[3] is True for r in rows)
    with contextlib.closing(connect(visit, readonly=True)) as conn:
        want = styles_for(conn)
    tree = next(r for r in rows if r[1] == "tree")
    assert 'attr="status"' in tree[4] and "46,125,50,255" in tree[4]
    assert len(want) == len(rows)
    # a site an older fieldapp made: --upgrade-office adds them, keeping a default the office chose
    with psycopg.connect(pg_url) as conn:
        conn.execute("DELETE FROM public.layer_styles WHERE f_table_schema = %s", (site,))
        conn.execute("INSERT INTO public.layer_styles (f_table_catalog, f_table_schema, f_table_name,"
                     " f_geometry_column, stylename, styleqml, useasdefault) VALUES (%s, %s, 'tree', 'geom',"
                     " 'office', XMLPARSE(DOCUMENT '<qgis/>'), true)", (db, site))
    assert sync_main(["--office", pg_url, "--upgrade-office", "-q"]) == 0
    assert sync_main(["--office", pg_url, "--upgrade-office", "-q"]) == 0      # once only
    with psycopg.connect(pg_url) as conn:
        again = conn.execute("SELECT f_table_name, stylename FROM public.layer_styles WHERE f_table_schema = %s",
                             (site,)).fetchall()
    assert sorted(again) == sorted([("tree", "office")] + [(t, "fieldapp") for t in FEATURE_TABLES - {"tree"}])
