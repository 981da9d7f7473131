"""Schema versions: a visit written by schema 1 opens, read-only as it is, and for recording
after a migration to schema 3 (2: ``transect.stipulated``, ``line_feature.mapped_stream``; 3:
``correction_age_s`` and ``correction_mount`` of OHWM points, transects and walk vertices); a
schema 2 file migrates to 3.

``data/visit_schema1.gpkg`` was written by fieldapp at schema 1 (commit 27ca639, by
``data/make_visit_schema1.py`` run from a checkout of that commit): site "Schema 1 lot" in
EPSG:32616, transect T1 with segments 30 ft at 4 %, 60 ft at 18 %, 120 ft at 5 %, a drainageway
centreline "Creek" (8 ft channel, 300 ft) and a swale "S1" (6 ac), three trees tagged 1-3.
"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from pathlib import Path

import pyogrio
import pytest

from fieldapp.checks import requests_for_model
from fieldapp.rules import evaluate
from fieldapp.store import DamagedVisitFile, NewerVisitFile, WriteFailed, create_visit, inspect, open_visit
from fieldapp.store import schema as S
from fieldapp.survey import Layer, Visit
from tests.gpkgtools import drop_added_after, st_connect

V1 = Path(__file__).resolve().parents[1] / "data" / "visit_schema1.gpkg"


@pytest.fixture
def v1(tmp_path):
    p = tmp_path / "old.gpkg"
    shutil.copyfile(V1, p)
    return p


def sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def table_info(path: Path, table: str) -> list[tuple]:
    """(name, type, notnull, default, pk) of every column, in order."""
    conn = st_connect(path)
    try:
        return [r[1:] for r in conn.execute(f'PRAGMA table_info("{table}")')]
    finally:
        conn.close()


def meta_version(path: Path) -> str:
    conn = st_connect(path)
    try:
        return conn.execute("SELECT value FROM fieldapp_meta WHERE key = 'schema_version'").fetchone()[0]
    finally:
        conn.close()


def by_label(visit, layer):
    return {f.label: f for f in visit.features(layer)}


def test_the_fixture_is_a_schema_1_file():
    # guard: the file really lacks the schema 2 columns (else nothing below tests a migration)
    assert meta_version(V1) == "1"
    assert "stipulated" not in [c[0] for c in table_info(V1, "transect")]
    assert "mapped_stream" not in [c[0] for c in table_info(V1, "line_feature")]


def test_schema_1_file_opens_read_only_unchanged_with_the_defaults(v1):
    before = sha(v1)
    assert inspect(v1)["schema_version"] == "1"
    with open_visit(v1, readonly=True) as store:
        v = store.visit
        t = by_label(v, Layer.TRANSECT)["T1"]
        assert t.stipulated is False
        lines = by_label(v, Layer.LINE)
        assert lines["Creek"].mapped_stream is None and lines["S1"].mapped_stream is None
        assert sorted(tr.tag for tr in v.trees()) == [1, 2, 3]
        assert len(store.read_records(Layer.TRANSECT)) == 1
        reqs = requests_for_model(v)
        # contract example 1: 30 ft at 4 %, 60 ft at 18 %, 120 ft at 5 % -> bank 90 ft (slope)
        bank = evaluate(reqs[f"bank:{t.uuid}"][1])
        assert "stipulated" not in reqs[f"bank:{t.uuid}"][1]["input"]
        assert bank["bank_ft"] == pytest.approx(90.0) and bank["basis"] == "slope"
        creek = reqs[f"drainageway:{lines['Creek'].uuid}"][1]
        assert "mapped_stream" not in creek["input"] and evaluate(creek)["status"] == "needs_data"
    assert sha(v1) == before  # read-only: not migrated, not touched
    assert not Path(str(v1) + "-wal").exists()


def test_opening_for_recording_migrates_to_the_columns_of_a_new_file(v1, tmp_path):
    fresh = tmp_path / "new.gpkg"
    create_visit(fresh, Visit.new("new", crs="EPSG:32616", who="t")).close()
    with open_visit(v1) as store:
        assert meta_version(v1) == str(S.SCHEMA_VERSION)
        t = by_label(store.visit, Layer.TRANSECT)["T1"]
        assert t.stipulated is False
    # same columns, same order, types, NOT NULL and defaults as a table made new at schema 3
    # (ADD COLUMN appends: the sync compares column lists between copies of a visit)
    for layer in Layer:
        assert table_info(v1, layer.value) == table_info(fresh, layer.value), layer
    assert table_info(v1, "transect")[-3:] == [("stipulated", "BOOLEAN", 1, "0", 0),
                                               ("correction_age_s", "REAL", 0, None, 0),
                                               ("correction_mount", "TEXT", 0, None, 0)]
    assert table_info(v1, "line_feature")[-2:] == [("mapped_stream", "BOOLEAN", 0, None, 0),
                                                   ("tributary_stations", "TEXT", 0, None, 0)]
    # the rows already there took the defaults, read straight from SQLite
    conn = st_connect(v1)
    assert conn.execute("SELECT stipulated FROM transect").fetchall() == [(0,)]
    assert conn.execute("SELECT count(*) FROM line_feature WHERE mapped_stream IS NULL").fetchone() == (2,)
    assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    conn.close()
    # GDAL reads the new fields
    assert "mapped_stream" in list(pyogrio.read_info(v1, layer="line_feature")["fields"])
    assert "stipulated" in list(pyogrio.read_info(v1, layer="transect")["fields"])


def test_migrated_file_records_the_new_fields_and_keeps_them(v1):
    with open_visit(v1) as store:
        v = store.visit
        t = by_label(v, Layer.TRANSECT)["T1"]
        creek = by_label(v, Layer.LINE)["Creek"]
        v.set_stipulated(t.uuid)
        v.set_mapped_stream(creek.uuid, True)
    with open_visit(v1, readonly=True) as store:
        v = store.visit
        assert by_label(v, Layer.TRANSECT)["T1"].stipulated is True
        assert by_label(v, Layer.LINE)["Creek"].mapped_stream is True
        reqs = requests_for_model(v)
        bank = evaluate(reqs[f"bank:{t.uuid}"][1])
        # stipulated on a non-priority waterway: 300 ft, NR 341.035(2)(c)1.
        assert bank["bank_ft"] == pytest.approx(300.0) and bank["citation"] == "NR 341.035(2)(c)1."
        d = evaluate(reqs[f"drainageway:{creek.uuid}"][1])
        # mapped stream, 8 ft channel: 8 + 100 = 108 ft wide; the line is 91.44 grid metres at
        # scale factor 0.9996 (zone 16's central meridian): 300 / 0.9996 = 300.12 ground ft;
        # 108 x 300.12 = 32,412.97 sq ft
        assert d["status"] == "determined" and d["total_width_ft"] == pytest.approx(108.0)
        assert d["area_sqft"] == pytest.approx(108.0 * 300.0 / 0.9996, rel=1e-5)


def test_migration_happens_once(v1):
    open_visit(v1).close()
    columns = {layer: table_info(v1, layer.value) for layer in Layer}
    open_visit(v1).close()  # already schema 3: nothing to add (ADD COLUMN twice would fail)
    assert meta_version(v1) == str(S.SCHEMA_VERSION)
    assert {layer: table_info(v1, layer.value) for layer in Layer} == columns
    assert [c[0] for c in table_info(v1, "transect")].count("stipulated") == 1


def test_a_failed_migration_leaves_the_file_as_it_was(v1, monkeypatch):
    # the second statement fails after the first added its column: one transaction, rolled back
    good = S.migration_sql(1)
    monkeypatch.setattr(S, "migration_sql", lambda version: good[:1] + ['ALTER TABLE "nosuch" ADD COLUMN x'])
    before = sha(v1)
    with pytest.raises(WriteFailed, match=f"could not bring .* to schema {S.SCHEMA_VERSION} .*the file is unchanged"):
        open_visit(v1)
    assert sha(v1) == before
    monkeypatch.undo()
    with open_visit(v1) as store:  # and it migrates once the cause is gone
        assert by_label(store.visit, Layer.TRANSECT)["T1"].stipulated is False
    assert meta_version(v1) == str(S.SCHEMA_VERSION)


SCHEMA_3_SQL = [f'ALTER TABLE "{table}" ADD COLUMN "{col}" {sql}'
                for table in ("ohwm_point", "transect", "walk_vertex")
                for col, sql in (("correction_age_s", "REAL"), ("correction_mount", "TEXT"))] + [
    'ALTER TABLE "site" ADD COLUMN "declination_source" TEXT',
    'ALTER TABLE "station" ADD COLUMN "azimuth_mag_deg" REAL',
    'ALTER TABLE "station" ADD COLUMN "declination_deg" REAL',
    'ALTER TABLE "area_feature" ADD COLUMN "retained_area_ac" REAL',
    'ALTER TABLE "area_feature" ADD COLUMN "tally_complete" BOOLEAN NOT NULL DEFAULT 0']


def test_migration_sql_adds_exactly_the_columns_of_each_version():
    from fieldapp.store import media

    def chunk(v: int) -> list[str]:
        """The statements schema ``v`` alone adds (migration_sql(v - 1) ends with migration_sql(v))."""
        before, after = S.migration_sql(v - 1), S.migration_sql(v)
        assert before[len(before) - len(after):] == after
        return before[:len(before) - len(after)]

    assert S.SCHEMA_VERSION == max([*S.ADDED_COLUMNS, *S.ADDED_TABLES]) == 9
    assert S.migration_sql(S.SCHEMA_VERSION) == []
    # schema 9 (issue 29): in-fill facts of the site, a wetland's fill and permit
    assert chunk(9) == ['ALTER TABLE "site" ADD COLUMN "infill_area_ac" REAL',
                        'ALTER TABLE "site" ADD COLUMN "infill_within_development" BOOLEAN',
                        'ALTER TABLE "area_feature" ADD COLUMN "fill" TEXT',
                        'ALTER TABLE "area_feature" ADD COLUMN "fill_permit" TEXT']
    # schema 8: the city chapter's scope (site district and use) and a swale's tributary stations
    assert chunk(8) == ['ALTER TABLE "site" ADD COLUMN "zoning_district" TEXT',
                        'ALTER TABLE "site" ADD COLUMN "land_use" TEXT',
                        'ALTER TABLE "line_feature" ADD COLUMN "tributary_stations" TEXT']
    # schema 7: site.antenna_height_unit, an offset point's magnetic azimuth and declination,
    # then the antenna_height table (attributes)
    v7 = chunk(7)
    assert v7[:3] == ['ALTER TABLE "site" ADD COLUMN "antenna_height_unit" TEXT',
                      'ALTER TABLE "ohwm_point" ADD COLUMN "azimuth_mag_deg" REAL',
                      'ALTER TABLE "ohwm_point" ADD COLUMN "declination_deg" REAL']
    assert v7[3].startswith('CREATE TABLE "antenna_height"') and len(v7) == 5
    assert v7[4].startswith("INSERT INTO gpkg_contents") and "'attributes'" in v7[4]
    # schema 6: the data_point table (a point layer: contents and geometry column rows)
    assert [q.split(" (")[0] for q in chunk(6)] == ['CREATE TABLE "data_point"', "INSERT INTO gpkg_contents",
                                                   "INSERT INTO gpkg_geometry_columns"]
    later = S.migration_sql(5)
    v5 = chunk(5)
    # schema 5: the device_reading table (attributes: no geometry column row)
    assert v5[0].startswith('CREATE TABLE "device_reading"') and len(v5) == 2
    assert v5[1].startswith("INSERT INTO gpkg_contents") and "'attributes'" in v5[1]
    v4 = chunk(4)
    # schema 4: the photo media table (attributes: no geometry column row), then the Related
    # Tables Extension (relations table, mapping views, their gpkg_contents / extensions rows)
    assert v4[0].startswith('CREATE TABLE "photo"')
    assert v4[1].startswith("INSERT INTO gpkg_contents") and "'attributes'" in v4[1]
    assert v4[2:] == media.related_tables_sql()
    v3 = chunk(3)
    assert S.migration_sql(1) == [
        'ALTER TABLE "transect" ADD COLUMN "stipulated" BOOLEAN NOT NULL DEFAULT 0',
        'ALTER TABLE "line_feature" ADD COLUMN "mapped_stream" BOOLEAN',
    ] + v3 + v4 + v5 + later
    assert v3[:len(SCHEMA_3_SQL)] == SCHEMA_3_SQL
    # then the schema 3 table, with its GeoPackage rows
    assert v3[len(SCHEMA_3_SQL)].startswith('CREATE TABLE "stake_point"')
    assert [q.split(" (")[0] for q in v3[len(SCHEMA_3_SQL) + 1:]] == ["INSERT INTO gpkg_contents",
                                                                    "INSERT INTO gpkg_geometry_columns"]
    # the added columns are the last fields of their record, in version order (ADD COLUMN appends)
    for layer in Layer:
        added = [name for v in sorted(S.ADDED_COLUMNS) for lay, name in S.ADDED_COLUMNS[v] if lay is layer]
        if added:
            assert [c.name for c in S.columns(layer)][-len(added):] == added, layer


def test_a_schema_2_file_migrates_to_the_declination_columns(tmp_path):
    # a schema 2 file: a new visit without the schema 3 columns, its meta at 2
    from fieldapp.survey.features import Layer as L

    p = tmp_path / "v2.gpkg"
    visit = Visit.new("two", crs="EPSG:32616", who="t")
    create_visit(p, visit).close()
    new_columns = {layer: table_info(p, layer.value) for layer in (L.SITE, L.STATION)}
    schema_2_copy(p)
    assert "declination_source" not in [c[0] for c in table_info(p, "site")]
    with open_visit(p) as store:  # opened for recording: migrated to 3 (and on to 4)
        assert store.visit.site.declination_source is None
        assert store.visit.site.declination_deg == 0.0
    assert meta_version(p) == str(S.SCHEMA_VERSION)
    assert {layer: table_info(p, layer.value) for layer in (L.SITE, L.STATION)} == new_columns


def schema_5_copy(path: Path) -> None:
    """Make ``path`` (a new visit, no records in the later tables) what schema 5 wrote: without
    every column and table a later schema added (the data_point table, ...)."""
    drop_added_after(path, 5)


def schema_4_copy(path: Path) -> None:
    """Make ``path`` (a new visit, no device readings) what schema 4 wrote: without the
    device_reading table and its gpkg_contents row."""
    schema_5_copy(path)
    conn = st_connect(path)
    conn.execute('DROP TABLE "device_reading"')
    conn.execute("DELETE FROM gpkg_contents WHERE table_name = 'device_reading'")
    conn.execute("UPDATE fieldapp_meta SET value = '4' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()


def schema_3_copy(path: Path) -> None:
    """Make ``path`` (a new visit, no photos) what schema 3 wrote: without the photo table
    and the Related Tables Extension (its relations table, mapping views and their rows)."""
    from fieldapp.store import media

    schema_4_copy(path)
    conn = st_connect(path)
    views = [media.mapping_name(layer) for layer in media.BASE_LAYERS]
    for v in views:
        conn.execute(f'DROP VIEW "{v}"')
    conn.execute("DROP TABLE gpkgext_relations")
    conn.execute('DROP TABLE "photo"')
    for t in views + ["photo", "gpkgext_relations"]:
        for meta in ("gpkg_extensions", "gpkg_contents"):
            conn.execute(f"DELETE FROM {meta} WHERE table_name = ?", (t,))
    conn.execute("UPDATE fieldapp_meta SET value = '3' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()


def schema_2_copy(path: Path) -> None:
    """Make ``path`` (a new visit) what schema 2 wrote: schema 3 only appended its columns."""
    schema_3_copy(path)
    conn = st_connect(path)
    for layer, col in reversed(S.ADDED_COLUMNS[3]):
        conn.execute(f'ALTER TABLE "{layer.value}" DROP COLUMN "{col}"')
    for layer in S.ADDED_TABLES[3]:     # the new table, its R-tree index and GeoPackage rows
        t = layer.value
        conn.execute(f'DROP TABLE IF EXISTS "rtree_{t}_geom"')
        conn.execute(f'DROP TABLE "{t}"')
        for meta in ("gpkg_extensions", "gpkg_geometry_columns", "gpkg_contents"):
            conn.execute(f"DELETE FROM {meta} WHERE table_name = ?", (t,))
    conn.execute("UPDATE fieldapp_meta SET value = '2' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()


def test_a_schema_2_file_migrates_to_3_and_keeps_corrections(tmp_path):
    from fieldapp.survey.features import PointMethod

    p = tmp_path / "v2.gpkg"
    fresh = tmp_path / "v3.gpkg"
    create_visit(fresh, Visit.new("x", crs="EPSG:32616", who="t")).close()
    with create_visit(p, Visit.new("x", crs="EPSG:32616", who="t")) as store:
        line = store.visit.add_ohwm_line(label="L")
        store.visit._add_point(line.uuid, x=500000.0, y=4800000.0, method=PointMethod.AVERAGED)
    schema_2_copy(p)
    assert inspect(p)["schema_version"] == "2"
    with open_visit(p, readonly=True) as store:  # read as it is: no corrections
        (pt,) = store.visit.features(Layer.OHWM_POINT)
        assert pt.correction_age_s is None and pt.correction_mount is None
    with open_visit(p) as store:
        assert meta_version(p) == str(S.SCHEMA_VERSION)
        (pt,) = store.visit.features(Layer.OHWM_POINT)
        store.visit._add_point(pt.line_uuid, x=500010.0, y=4800000.0, method=PointMethod.AVERAGED,
                               correction_age_s=1.5, correction_mount="WIDOT1")
    for layer in Layer:
        assert table_info(p, layer.value) == table_info(fresh, layer.value), layer
    with open_visit(p, readonly=True) as store:
        pts = sorted(store.visit.features(Layer.OHWM_POINT), key=lambda q: q.seq)
        assert [(q.correction_age_s, q.correction_mount) for q in pts] == [(None, None), (1.5, "WIDOT1")]


def test_a_schema_3_file_lacking_a_schema_2_column_is_refused_untouched(tmp_path):
    p = tmp_path / "broken.gpkg"
    create_visit(p, Visit.new("x", crs="EPSG:32616", who="t")).close()
    schema_3_copy(p)
    conn = st_connect(p)
    conn.execute("ALTER TABLE transect DROP COLUMN stipulated")
    conn.commit()
    conn.close()
    before = sha(p)
    with pytest.raises(DamagedVisitFile, match=r"schema 3\) lacks columns \['transect.stipulated'\]"):
        open_visit(p)
    assert sha(p) == before


def test_a_schema_1_file_lacking_a_schema_1_column_is_refused(v1):
    conn = st_connect(v1)
    conn.execute("ALTER TABLE tree DROP COLUMN species_code")
    conn.commit()
    conn.close()
    with pytest.raises(DamagedVisitFile, match=r"lacks columns \['tree.species_code'\]"):
        inspect(v1)


def test_newer_schema_still_refused(v1):
    conn = sqlite3.connect(v1)
    conn.execute("UPDATE fieldapp_meta SET value = ? WHERE key = 'schema_version'", (str(S.SCHEMA_VERSION + 1),))
    conn.commit()
    conn.close()
    with pytest.raises(NewerVisitFile, match=f"schema {S.SCHEMA_VERSION + 1}"):
        open_visit(v1)


def schema_2_file(path: Path) -> str:
    """A schema 2 visit with one woodland stand "Oaks" (made new, then the two schema 3 columns
    dropped and the version set back, as a schema 2 fieldapp wrote it); the stand's uuid."""
    v = Visit.new("two", crs="EPSG:32616", who="t")
    v.ensure_frame()
    x0, y0 = 500_000.0, 4_800_000.0
    ring = [(x0, y0), (x0 + 60, y0), (x0 + 60, y0 + 60), (x0, y0 + 60)]
    stand = v.add_area("woodland_stand", ring, label="Oaks")
    create_visit(path, v).close()
    schema_2_copy(path)
    return stand.uuid


def test_a_schema_2_file_migrates_to_3_and_keeps_the_stands_retained_area(tmp_path):
    p = tmp_path / "two.gpkg"
    uuid = schema_2_file(p)
    assert meta_version(p) == "2"
    with open_visit(p, readonly=True) as store:      # read as it is: the defaults
        a = store.visit.get(Layer.AREA, uuid)
        assert (a.retained_area_ac, a.tally_complete) == (None, False)
    with open_visit(p) as store:
        assert meta_version(p) == str(S.SCHEMA_VERSION)
        store.visit.update_feature(Layer.AREA, uuid, retained_area_ac=1.25, tally_complete=True)
    assert table_info(p, "area_feature")[-4:-2] == [("retained_area_ac", "REAL", 0, None, 0),
                                                   ("tally_complete", "BOOLEAN", 1, "0", 0)]
    conn = st_connect(p)
    assert conn.execute("SELECT label, retained_area_ac, tally_complete FROM area_feature"
                        ).fetchall() == [("Oaks", 1.25, 1)]
    conn.close()
    with open_visit(p, readonly=True) as store:
        a = store.visit.get(Layer.AREA, uuid)
        assert (a.retained_area_ac, a.tally_complete) == (1.25, True)


def test_a_negative_retained_area_is_refused_and_the_stand_keeps_its_value(tmp_path):
    from fieldapp.survey.errors import InvalidValue

    p = tmp_path / "two.gpkg"
    uuid = schema_2_file(p)
    with open_visit(p) as store:
        store.visit.update_feature(Layer.AREA, uuid, retained_area_ac=0.5)
        with pytest.raises(InvalidValue, match="retained_area_ac"):
            store.visit.update_feature(Layer.AREA, uuid, retained_area_ac=-1.0)
        assert store.visit.get(Layer.AREA, uuid).retained_area_ac == 0.5


# ------------------------------------------------------------------ schema 2 -> 3: stake points
@pytest.fixture
def v2(v1):
    """The schema 1 file brought to schema 2 exactly (the sync's migration to a given version:
    the schema 2 columns, no stake_point table)."""
    from fieldapp.sync.schemas import migrate_file

    assert migrate_file(v1, 2)
    assert meta_version(v1) == "2"
    return v1


def test_a_schema_2_file_opens_read_only_without_stake_points_untouched(v2):
    before = sha(v2)
    with open_visit(v2, readonly=True) as store:
        assert store.visit.stake_points() == []
        assert store.counts()["stake_point"] == 0
    assert sha(v2) == before


def test_schema_2_to_3_adds_the_stake_point_table_as_a_new_file_has_it(v2, tmp_path):
    from shapely.geometry import LineString

    from fieldapp.survey.stake import Target, guide
    from tests.store.test_store import Fix

    fresh = tmp_path / "new.gpkg"
    create_visit(fresh, Visit.new("new", crs="EPSG:32616", who="t")).close()
    with open_visit(v2) as store:
        assert meta_version(v2) == str(S.SCHEMA_VERSION)
        v = store.visit
        t = by_label(v, Layer.TRANSECT)["T1"]
        x, y = t.origin_x, t.origin_y
        f = v.frame
        lon, lat = f.to_lonlat(x, y)
        ft = (f.to_ft(x), f.to_ft(y))
        line = Target("bank_line", "Bank line", LineString([(ft[0] + 0.3, ft[1] - 50), (ft[0] + 0.3, ft[1] + 50)]))
        v.add_stake_point(fix=Fix(float(lat), float(lon)), target=line,
                          guidance=guide(line, *ft, tolerance_ft=0.5))
    assert table_info(v2, "stake_point") == table_info(fresh, "stake_point")
    info = pyogrio.read_info(v2, layer="stake_point")
    assert info["features"] == 1 and info["crs"] == "EPSG:32616" and info["geometry_type"] == "Point"
    with open_visit(v2, readonly=True) as store:
        (sp,) = store.visit.stake_points()
        # the fix stood 0.3 ft left of a line running north: offset -0.3 ft (left is negative)
        assert sp.offset_ft == pytest.approx(-0.3, abs=1e-6) and sp.superseded is False
        assert sp.quality == 1 and sp.target_key == "bank_line"


# ------------------------------------------------------------------ schema 3 -> 4: photos
def _tiny_photo():
    from tests.store.test_store import _photo

    return _photo()


def test_a_schema_3_file_migrates_to_4_with_the_photo_media_table_and_relations(tmp_path):
    from tests.gpkgtools import validate_gpkg

    fresh = tmp_path / "new.gpkg"
    create_visit(fresh, Visit.new("new", crs="EPSG:32616", who="t")).close()
    p = tmp_path / "three.gpkg"
    v = Visit.new("three", crs="EPSG:32616", who="t")
    tree = v.add_tree(x=500_000.0, y=4_800_000.0, dbh_in=11.0, species_code="QURU")
    create_visit(p, v).close()
    schema_3_copy(p)
    assert inspect(p)["schema_version"] == "3"
    before = sha(p)
    with open_visit(p, readonly=True) as store:     # read as it is: no photos, untouched
        assert store.visit.features(Layer.PHOTO) == [] and store.counts()["photo"] == 0
    assert sha(p) == before
    with open_visit(p) as store:
        assert meta_version(p) == str(S.SCHEMA_VERSION)
        (rec,) = store.visit.add_photos([_tiny_photo()], layer=Layer.TREE, uuid=tree.uuid)
    assert table_info(p, "photo") == table_info(fresh, "photo")
    conn = st_connect(p)
    # the same relations, extension rows and mapping views as a new file
    q = ("SELECT base_table_name, base_primary_column, related_table_name, related_primary_column,"
         " relation_name, mapping_table_name FROM gpkgext_relations ORDER BY mapping_table_name")
    rel = conn.execute(q).fetchall()
    ext = ("SELECT table_name, extension_name, definition, scope FROM gpkg_extensions"
           " WHERE extension_name = 'gpkg_related_tables' ORDER BY table_name")
    exts = conn.execute(ext).fetchall()
    assert ("tree", "fid", "photo", "fid", "media", "tree_photo") in rel and len(rel) == 11
    assert ("gpkgext_relations", "gpkg_related_tables", "http://www.geopackage.org/18-000.html",
            "read-write") in exts and len(exts) == 12
    tree_fid = conn.execute("SELECT fid FROM tree").fetchone()[0]
    photo_fid = conn.execute("SELECT fid FROM photo").fetchone()[0]
    assert conn.execute("SELECT base_id, related_id FROM tree_photo").fetchall() == [(tree_fid, photo_fid)]
    conn.close()
    conn = st_connect(fresh)
    assert conn.execute(q).fetchall() == rel and conn.execute(ext).fetchall() == exts
    conn.close()
    validate_gpkg(p)
    info = pyogrio.read_info(p, layer="photo")
    assert info["features"] == 1 and "data" in list(info["fields"])
    with open_visit(p, readonly=True) as store:
        (back,) = store.visit.photos_of(Layer.TREE, tree.uuid)
        assert back.data == rec.data and back.original_path == "/media/card/DCIM/IMG_0001.JPG"


def test_a_schema_1_file_migrates_to_4_and_passes_the_validator(v1):
    from tests.gpkgtools import validate_gpkg

    with open_visit(v1) as store:
        t = by_label(store.visit, Layer.TRANSECT)["T1"]
        store.visit.add_photos([_tiny_photo()], layer=Layer.TRANSECT, uuid=t.uuid)
    validate_gpkg(v1)
    assert pyogrio.read_info(v1, layer="transect_photo")["features"] == 1
