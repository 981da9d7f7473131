"""Schema versions: a visit written by schema 1 opens, read-only as it is, and for recording
after a migration to schema 2 (``transect.stipulated``, ``line_feature.mapped_stream``).

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
    conn = sqlite3.connect(path)
    try:
        return [r[1:] for r in conn.execute(f'PRAGMA table_info("{table}")')]
    finally:
        conn.close()


def meta_version(path: Path) -> str:
    conn = sqlite3.connect(path)
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
        assert meta_version(v1) == "3"
        t = by_label(store.visit, Layer.TRANSECT)["T1"]
        assert t.stipulated is False
    # same columns, same order, types, NOT NULL and defaults as a table made new at schema 2
    # (ADD COLUMN appends: the sync compares column lists between copies of a visit)
    for layer in Layer:
        assert table_info(v1, layer.value) == table_info(fresh, layer.value), layer
    assert table_info(v1, "transect")[-1] == ("stipulated", "BOOLEAN", 1, "0", 0)
    assert table_info(v1, "line_feature")[-1] == ("mapped_stream", "BOOLEAN", 0, None, 0)
    # the rows already there took the defaults, read straight from SQLite
    conn = sqlite3.connect(v1)
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
    assert meta_version(v1) == "3"
    assert {layer: table_info(v1, layer.value) for layer in Layer} == columns
    assert [c[0] for c in table_info(v1, "transect")].count("stipulated") == 1


def test_a_failed_migration_leaves_the_file_as_it_was(v1, monkeypatch):
    # the second statement fails after the first added its column: one transaction, rolled back
    good = S.migration_sql(1)
    monkeypatch.setattr(S, "migration_sql", lambda version: good[:1] + ['ALTER TABLE "nosuch" ADD COLUMN x'])
    before = sha(v1)
    with pytest.raises(WriteFailed, match="could not bring .* to schema 3 .*the file is unchanged"):
        open_visit(v1)
    assert sha(v1) == before
    monkeypatch.undo()
    with open_visit(v1) as store:  # and it migrates once the cause is gone
        assert by_label(store.visit, Layer.TRANSECT)["T1"].stipulated is False
    assert meta_version(v1) == "3"


def test_migration_sql_adds_exactly_the_schema_2_and_3_columns():
    assert S.SCHEMA_VERSION == 3
    schema3 = [
        'ALTER TABLE "area_feature" ADD COLUMN "retained_area_ac" REAL',
        'ALTER TABLE "area_feature" ADD COLUMN "tally_complete" BOOLEAN NOT NULL DEFAULT 0',
    ]
    assert S.migration_sql(1) == [
        'ALTER TABLE "transect" ADD COLUMN "stipulated" BOOLEAN NOT NULL DEFAULT 0',
        'ALTER TABLE "line_feature" ADD COLUMN "mapped_stream" BOOLEAN',
    ] + schema3
    assert S.migration_sql(2) == schema3
    assert S.migration_sql(3) == []
    # the columns added to a table are its last fields, in the order added (ADD COLUMN appends)
    added: dict = {}
    for version in sorted(S.ADDED_COLUMNS):
        for layer, name in S.ADDED_COLUMNS[version]:
            added.setdefault(layer, []).append(name)
    for layer, names in added.items():
        assert [c.name for c in S.columns(layer)][-len(names):] == names


def test_a_schema_2_file_lacking_a_schema_2_column_is_refused_untouched(tmp_path):
    p = tmp_path / "broken.gpkg"
    create_visit(p, Visit.new("x", crs="EPSG:32616", who="t")).close()
    conn = sqlite3.connect(p)
    conn.execute("ALTER TABLE transect DROP COLUMN stipulated")
    conn.commit()
    conn.close()
    before = sha(p)
    with pytest.raises(DamagedVisitFile, match=r"schema 3\) lacks columns \['transect.stipulated'\]"):
        open_visit(p)
    assert sha(p) == before


def test_a_schema_1_file_lacking_a_schema_1_column_is_refused(v1):
    conn = sqlite3.connect(v1)
    conn.execute("ALTER TABLE tree DROP COLUMN species_code")
    conn.commit()
    conn.close()
    with pytest.raises(DamagedVisitFile, match=r"lacks columns \['tree.species_code'\]"):
        inspect(v1)


def test_newer_schema_still_refused(v1):
    conn = sqlite3.connect(v1)
    conn.execute("UPDATE fieldapp_meta SET value = '4' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    with pytest.raises(NewerVisitFile, match="schema 4"):
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
    conn = sqlite3.connect(path)
    conn.execute("ALTER TABLE area_feature DROP COLUMN tally_complete")
    conn.execute("ALTER TABLE area_feature DROP COLUMN retained_area_ac")
    conn.execute("UPDATE fieldapp_meta SET value = '2' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    return stand.uuid


def test_a_schema_2_file_migrates_to_3_and_keeps_the_stands_retained_area(tmp_path):
    p = tmp_path / "two.gpkg"
    uuid = schema_2_file(p)
    assert meta_version(p) == "2"
    with open_visit(p, readonly=True) as store:      # read as it is: the defaults
        a = store.visit.get(Layer.AREA, uuid)
        assert (a.retained_area_ac, a.tally_complete) == (None, False)
    with open_visit(p) as store:
        assert meta_version(p) == "3"
        store.visit.update_feature(Layer.AREA, uuid, retained_area_ac=1.25, tally_complete=True)
    assert table_info(p, "area_feature")[-2:] == [("retained_area_ac", "REAL", 0, None, 0),
                                                 ("tally_complete", "BOOLEAN", 1, "0", 0)]
    conn = sqlite3.connect(p)
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
