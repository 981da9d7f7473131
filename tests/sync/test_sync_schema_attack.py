"""A crafted visit does not poison the office (issue 30, item 1).

The attack, mounted for real: a store visit with an extra SQLite trigger that rewrites every
tree's DBH to 99 on insert or update. Taken in, it would be copied into the folder master or the
PostGIS template and run in the office and in every later checkout. It is refused, by name, on
every way into the office: ``--init-office``, a first sync, a normal sync from a clean checkout
(the laptop gate, and the office's fast-forward with that gate bypassed), the PostGIS template.
GDAL's own triggers (a GeoPackage QGIS opened) are still accepted.
"""

from __future__ import annotations

import contextlib
import hashlib
import sqlite3
from pathlib import Path

import pytest

from fieldapp.store import create_visit
from fieldapp.survey.visit import Visit
from fieldapp.sync import FolderOffice, VisitRefused, checkout, engine, sync
from fieldapp.sync.cli import main as sync_main
from fieldapp.sync.files import connect
from fieldapp.sync.schemacheck import foreign_entries
from tests.gpkgtools import st_connect

X0, Y0 = 500000.0, 4983000.0  # UTM 16N
DBH_TRIGGERS = (
    "CREATE TRIGGER dbh_rewrite AFTER INSERT ON tree BEGIN"
    " UPDATE tree SET dbh_in = 99 WHERE fid = NEW.fid; END",
    "CREATE TRIGGER dbh_rewrite_upd AFTER UPDATE OF species_code ON tree BEGIN"
    " UPDATE tree SET dbh_in = 99 WHERE fid = NEW.fid; END",
)


def make_visit(path: Path, trees: int = 2) -> Path:
    visit = Visit.new("Mill Creek lot", crs="EPSG:32616", who="a@laptop-a")
    store = create_visit(path, visit)
    for i in range(trees):
        visit.add_tree(x=X0 + 5 * i, y=Y0, dbh_in=10.0 + i, species_code="ACSA")
    store.close()
    return path


def poison(path: Path) -> None:
    """Add the DBH-rewriting triggers by hand, as an attacker with sqlite3 would."""
    with contextlib.closing(st_connect(path)) as conn, conn:
        for sql in DBH_TRIGGERS:
            conn.execute(sql)


def dbhs(path: Path) -> list[float]:
    with contextlib.closing(sqlite3.connect(path)) as conn:
        return [r[0] for r in conn.execute("SELECT dbh_in FROM tree ORDER BY tag")]


def triggers(path: Path) -> set[str]:
    with contextlib.closing(sqlite3.connect(path)) as conn:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_trigger_is_a_real_attack(tmp_path):
    """Without the check, the trigger does what it says: every edited tree's DBH becomes 99."""
    visit = make_visit(tmp_path / "v.gpkg")
    poison(visit)
    with contextlib.closing(st_connect(visit)) as conn, conn:
        conn.execute("UPDATE tree SET species_code = 'QURU'")
    assert dbhs(visit) == [99.0, 99.0]


def test_init_office_refuses_the_visit_naming_the_trigger(tmp_path, capsys):
    visit = make_visit(tmp_path / "visit.gpkg")
    poison(visit)
    before = sha(visit)
    office = tmp_path / "office"
    status = sync_main(["--init-office", "--office", str(office), "-q", str(visit)])
    err = capsys.readouterr().err
    assert status == 1
    assert '"dbh_rewrite" on table tree' in err and '"dbh_rewrite_upd" on table tree' in err
    assert not office.exists()                  # no master, no marker, no folder
    assert sha(visit) == before


def test_office_refuses_a_poisoned_first_sync_even_past_the_laptop_gate(tmp_path, monkeypatch):
    """A modified client that skips the visit check: create_site itself refuses the template."""
    monkeypatch.setattr(engine, "check_visit_file", lambda visit, **_: None)
    visit = make_visit(tmp_path / "visit.gpkg")
    poison(visit)
    office = FolderOffice(tmp_path / "office", create=True)
    with pytest.raises(VisitRefused, match=r'trigger "dbh_rewrite" on table tree'):
        sync(visit, office)
    assert not (tmp_path / "office" / "sites").exists() or not any(
        (tmp_path / "office" / "sites").rglob("master.gpkg"))


@pytest.fixture
def office_and_checkout(tmp_path):
    office = FolderOffice(tmp_path / "office", create=True)
    a = make_visit(tmp_path / "a.gpkg")
    sync(a, office)
    site = engine.site_id_of(a)
    b = checkout(office, site, tmp_path / "b.gpkg")
    return office, site, b


def test_sync_from_a_clean_checkout_with_a_trigger_added_is_refused(office_and_checkout):
    office, site, b = office_and_checkout
    master = office.master_path(site)
    master_sha = sha(master)
    poison(b)
    with contextlib.closing(st_connect(b)) as conn, conn:   # an edit, so there is something to send
        conn.execute("UPDATE tree SET dbh_in = 12.5 WHERE tag = (SELECT min(tag) FROM tree)")
    with pytest.raises(VisitRefused, match=r'trigger "dbh_rewrite" on table tree') as info:
        sync(b, office)
    assert "Nothing was synced" in str(info.value)
    assert sha(master) == master_sha and not {"dbh_rewrite", "dbh_rewrite_upd"} & triggers(master)


def test_fast_forward_refuses_the_laptops_file_past_the_laptop_gate(office_and_checkout, monkeypatch):
    """Nothing pulled: the laptop's result would become the master as it is (fast-forward).
    With the laptop gate bypassed, the office compares the result's schema with its master's
    and refuses the trigger; the master keeps its bytes."""
    office, site, b = office_and_checkout
    master = office.master_path(site)
    master_sha = sha(master)
    poison(b)
    with contextlib.closing(st_connect(b)) as conn, conn:
        conn.execute("UPDATE tree SET dbh_in = 12.5 WHERE tag = (SELECT min(tag) FROM tree)")
    monkeypatch.setattr(engine, "check_visit_file", lambda visit, **_: None)
    with pytest.raises(VisitRefused, match=r'dbh_rewrite.*the master is unchanged'):
        sync(b, office)
    assert sha(master) == master_sha and not {"dbh_rewrite", "dbh_rewrite_upd"} & triggers(master)


def test_each_kind_of_foreign_entry_is_named(tmp_path):
    visit = make_visit(tmp_path / "v.gpkg")
    with contextlib.closing(st_connect(visit)) as conn, conn:
        conn.execute("CREATE VIEW big_trees AS SELECT * FROM tree WHERE dbh_in > 20")
        conn.execute("CREATE INDEX tree_dbh ON tree (dbh_in)")
        conn.execute("CREATE TABLE layer_styles (id INTEGER PRIMARY KEY, styleqml TEXT)")
        conn.execute("ALTER TABLE tree ADD COLUMN macro TEXT")
        # a trigger that borrows an R-tree trigger's name but writes the tree table
        conn.execute("CREATE TRIGGER rtree_tree_geom_update9 AFTER UPDATE ON tree BEGIN"
                     " UPDATE tree SET dbh_in = 99 WHERE fid = NEW.fid; END")
    with contextlib.closing(connect(visit, readonly=True)) as conn:
        found = foreign_entries(conn)
    assert found == [
        "column tree.macro",
        'view "big_trees"',
        'index "tree_dbh" on table tree',
        'table "layer_styles" (not made as QGIS and fieldapp make it)',
        'trigger "rtree_tree_geom_update9" on table tree (updates tree)',
    ]


def test_gdal_triggers_of_a_visit_qgis_opened_are_accepted(tmp_path):
    """GDAL's GeoPackage 1.4 R-tree triggers (update5-7), feature-count triggers and
    gpkg_tile_matrix check triggers -- a GeoPackage GDAL itself wrote -- pass; so does a store
    visit with GDAL's feature count added."""
    from tests.sync.sync_sample import make_visit as gdal_visit

    generic = gdal_visit(tmp_path / "gdal.gpkg")
    assert {"rtree_tree_geom_update7", "trigger_insert_feature_count_tree"} <= triggers(generic)
    with contextlib.closing(connect(generic, readonly=True)) as conn:
        assert foreign_entries(conn) == []
    visit = make_visit(tmp_path / "v.gpkg")
    with contextlib.closing(st_connect(visit)) as conn, conn:
        conn.execute("CREATE TABLE gpkg_ogr_contents (table_name TEXT NOT NULL PRIMARY KEY,"
                     " feature_count INTEGER DEFAULT NULL)")
        conn.execute('CREATE TRIGGER "trigger_insert_feature_count_tree" AFTER INSERT ON "tree"'
                     " BEGIN UPDATE gpkg_ogr_contents SET feature_count = feature_count + 1"
                     " WHERE lower(table_name) = lower('tree'); END;")
    with contextlib.closing(connect(visit, readonly=True)) as conn:
        assert foreign_entries(conn) == []


def test_postgis_template_refuses_the_poisoned_visit(pg_url, tmp_path):
    """The PostGIS office keeps the first visit's schema as the template of every checkout:
    ``--init-office`` there refuses the trigger and creates nothing."""
    import psycopg

    from fieldapp.sync.pgoffice import PostgisOffice

    visit = make_visit(tmp_path / "visit.gpkg")
    poison(visit)
    assert sync_main(["--init-office", "--office", pg_url, "-q", str(visit)]) == 1
    monkey_office = PostgisOffice(pg_url, create=True)
    empty = tmp_path / "schema.gpkg"
    make_visit(empty, trees=0)
    poison(empty)
    with pytest.raises(VisitRefused, match=r'"dbh_rewrite" on table tree'):
        monkey_office.create_site("site-x", empty)
    with psycopg.connect(pg_url) as conn:
        schemas = {r[0] for r in conn.execute("SELECT nspname FROM pg_namespace")}
        sites = []
        if conn.execute("SELECT to_regclass('fieldapp_office.sites')").fetchone()[0] is not None:
            sites = conn.execute("SELECT site_id FROM fieldapp_office.sites").fetchall()
    assert sites == [] and "site-x" not in schemas
