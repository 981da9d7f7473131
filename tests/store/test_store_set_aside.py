"""A visit file with a hand-damaged row opens in the app with the rest intact (issue 30, item 3):
the row, and the children of a damaged parent, are set aside and named in field words; they are
left in the file untouched, and the sync's read (no setting aside) still refuses the file."""

from __future__ import annotations

import sqlite3

import pytest

from fieldapp.app import visit as app_visit
from fieldapp.store import InvalidRecords, create_visit, open_visit
from fieldapp.store.setaside import damaged_words
from fieldapp.survey import Layer, Visit
from tests.gpkgtools import st_connect
from tests.store.test_store import EXPECTED_COUNTS, fill


def _visit_file(tmp_path):
    path = tmp_path / "Mill Creek lot.gpkg"
    v = Visit.new("Mill Creek lot", who="tester@laptop", crs="EPSG:32616")
    store = create_visit(path, v)
    fill(store.visit)
    store.close()
    return path


def _damage(path, sql):
    conn = st_connect(path)     # by hand, as QGIS or a script would (with the spatial functions)
    with conn:
        conn.execute(sql)
    conn.close()


def test_a_damaged_time_in_a_row_is_set_aside_and_the_rest_opens(tmp_path):
    path = _visit_file(tmp_path)
    _damage(path, "UPDATE tree SET modified_utc = '999-13-01T00:00:00.000Z' WHERE fid = 1")
    _damage(path, "UPDATE transect SET created_utc = 'last Tuesday' WHERE fid = 1")
    with pytest.raises(InvalidRecords):      # reports, exports and the sync still refuse it
        open_visit(path, readonly=True).close()
    before = sqlite3.connect(path).execute("SELECT * FROM tree WHERE fid = 1").fetchone()

    opened = app_visit.open_visit(path)           # as the app opens a visit
    try:
        model = opened.model
        # the damaged tree and transect, and the transect's 3 stations, are left out; all else is there
        assert len(model.features(Layer.TREE)) == EXPECTED_COUNTS["tree"] - 1
        assert model.features(Layer.TRANSECT) == [] and model.features(Layer.STATION) == []
        assert len(model.features(Layer.OHWM_POINT)) == EXPECTED_COUNTS["ohwm_point"]
        assert len(model.features(Layer.AREA)) == EXPECTED_COUNTS["area_feature"]
        assert len(model.track()) == EXPECTED_COUNTS["track_point"]
        aside = opened.store.set_aside
        assert sorted((p.table, p.fid, p.column) for p in aside) == [
            ("station", 1, "transect_uuid"), ("station", 2, "transect_uuid"),
            ("station", 3, "transect_uuid"), ("transect", 1, "created_utc"),
            ("tree", 1, "modified_utc")]
        words = app_visit.set_aside_words(opened)
        assert words.startswith("5 damaged rows set aside (left in the file as they are, not shown;"
                                " a sync refuses the visit until they are corrected, e.g. in QGIS): ")
        assert "Trees, row 1, modified_utc: timestamp '999-13-01T00:00:00.000Z' is not a time" in words
        assert "Transects, row 1, created_utc: timestamp 'last Tuesday' is not ISO 8601" in words
        assert "Transect stations, row 1, transect_uuid: its transect (fid 1) is damaged" in words
        # recording goes on into the rest of the visit
        model.add_note("culvert blocked")
    finally:
        opened.close()
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT * FROM tree WHERE fid = 1").fetchone() == before   # untouched
    assert conn.execute("SELECT count(*) FROM station").fetchone() == (3,)
    assert conn.execute("SELECT count(*) FROM note").fetchone() == (EXPECTED_COUNTS["note"] + 1,)
    conn.close()


def test_a_damaged_site_row_still_refuses_the_file(tmp_path):
    path = _visit_file(tmp_path)
    _damage(path, "UPDATE site SET created_utc = 'never' WHERE fid = 1")
    with pytest.raises(InvalidRecords, match="site row fid 1"):
        app_visit.open_visit(path)


def test_no_damaged_rows_no_words(tmp_path):
    path = _visit_file(tmp_path)
    opened = app_visit.open_visit(path)
    try:
        assert opened.store.set_aside == () and app_visit.set_aside_words(opened) == ""
    finally:
        opened.close()
    assert damaged_words([]) == ""
