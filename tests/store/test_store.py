"""fieldapp.store: the visit GeoPackage, read back through GDAL (pyogrio) and SQLite."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from datetime import UTC, datetime

import pyogrio
import pytest

from fieldapp.store import (
    DamagedVisitFile,
    NewerVisitFile,
    NotAVisitFile,
    StoreClosed,
    VisitFileExists,
    WriteFailed,
    create_visit,
    open_visit,
)
from fieldapp.store.schema import SCHEMA_VERSION
from fieldapp.survey import AreaKind, InvalidValue, Layer, LineKind, Visit, WaterFeature, WaterFeatureType
from tests.gpkgtools import st_connect


@dataclass(frozen=True)
class Fix:
    lat_deg: float
    lon_deg: float
    quality: int = 1
    sats_used: int = 9
    hdop: float = 0.9
    horizontal_accuracy_m: float = 0.5
    vertical_accuracy_m: float = 0.9
    alt_hae_m: float = 250.0
    time_utc: datetime | None = datetime(2024, 6, 3, 15, 0, 0, 123000, tzinfo=UTC)
    t_monotonic_s: float = 0.0


EXPECTED_COUNTS = {
    "ohwm_line": 1, "ohwm_point": 2, "transect": 1, "station": 3, "tree": 2, "area_feature": 2,
    "line_feature": 1, "walk": 1, "walk_vertex": 4, "track_point": 5, "note": 1, "site": 1,
    "stake_point": 1, "photo": 1,
    "device_reading": 0,   # fill() types every value: no instrument sentence to keep
    "data_point": 2,
    "antenna_height": 2,   # the height since the start and the one changed to
}


def fill(visit: Visit) -> None:
    """One of everything (counts in EXPECTED_COUNTS)."""
    p = visit.average([Fix(45.0, -89.0), Fix(45.00001, -89.0)])
    a = visit.add_ohwm_point(p)
    visit.add_ohwm_offset_point(p, 90.0, horizontal_ft=80.0)
    t = visit.add_transect(0.0, ohwm_point_uuid=a.uuid, origin_elevation_ft=10.0)
    for h, s in [(30, 4), (60, 18), (120, 5)]:
        visit.add_station(t.uuid, horizontal_ft=h, slope_pct=s)
    visit.add_tree(x=p.x + 5, y=p.y + 5, dbh_in=14.5, crown_radius_ft=12, species_code="QURU")
    visit.add_tree(x=p.x + 9, y=p.y + 5, dbh_in=8, crown=[(p.x + 8, p.y + 4), (p.x + 10, p.y + 4), (p.x + 10, p.y + 6)])
    visit.add_area(AreaKind.IMPERVIOUS, [(p.x, p.y), (p.x + 10, p.y), (p.x + 10, p.y + 10)])
    visit.add_line(LineKind.SWALE, [(p.x, p.y), (p.x + 50, p.y + 5)], channel_width_ft=4)
    w = visit.start_walk(AreaKind.WETLAND, spacing_ft=3)
    for dx, dy in [(0, 0), (20, 0), (20, 20), (0, 20)]:
        w.feed_xy(p.x + dx, p.y + dy)
    w.close(susceptibility="highly", standing_water=True)
    wet = visit.add_data_point(role="wetland", x=p.x + 10, y=p.y + 10, form={"plot": "DP-1"},
                               determination={"wetland": True})
    up = visit.add_data_point(role="upland", fix=Fix(45.0003, -89.0))
    visit.pair_data_points(wet.uuid, up.uuid, w.uuid)
    visit.start_track()
    for i in range(5):
        visit.on_fix(Fix(45.0 + i * 1e-6, -89.0))
    note = visit.add_note("culvert under the drive")
    visit.set_antenna_height(5.0, "ft")
    visit.add_photos([_photo()], layer=Layer.NOTE, uuid=note.uuid)
    from shapely.geometry import LineString

    from fieldapp.survey.stake import Target, guide

    bank = Target("bank_line", "Bank line", LineString([(0, 0), (0, 100)]))
    visit.add_stake_point(fix=Fix(45.0, -89.0), target=bank, guidance=guide(bank, 0.2, 5, tolerance_ft=0.5))


def _photo():
    """A 64 x 48 px JPEG as read_photo gives it (no EXIF)."""
    import io

    from PIL import Image

    from fieldapp.survey.photos import Photo

    buf = io.BytesIO()
    Image.new("RGB", (64, 48), (90, 140, 60)).save(buf, "JPEG")
    return Photo(data=buf.getvalue(), content_type="image/jpeg", width=64, height=48,
                 thumbnail=buf.getvalue(), original_path="/media/card/DCIM/IMG_0001.JPG",
                 original_size=(64, 48), taken_camera=None, lat_deg=None, lon_deg=None,
                 direction_deg=None, resized=False)


@pytest.fixture
def new_visit():
    return Visit.new("Mill Creek lot", who="tester@laptop", priority_waterway=True, crew=["A. Aldo", "B. Leop"],
                     device_ids={"gnss": "F9P-123"},
                     water_features=[WaterFeature("Mill Creek", WaterFeatureType.STREAM)])


def test_every_layer_reads_back_through_gdal_with_crs_and_counts(tmp_path, new_visit):
    path = tmp_path / "visit.gpkg"
    store = create_visit(path, new_visit)
    fill(new_visit)  # the CRS (UTM 16N) is picked by the first fix after the file exists
    store.close()
    layers = dict(pyogrio.list_layers(path))
    # fieldapp_meta is the application's own key/value table, not registered in gpkg_contents
    # (a registered attributes table needs an INTEGER primary key, Requirement 119)
    # and the Related Tables mapping views, one per record table a photo can show
    from fieldapp.store.media import BASE_LAYERS, mapping_name

    views = {mapping_name(layer) for layer in BASE_LAYERS}
    assert set(layers) == set(EXPECTED_COUNTS) | views
    assert pyogrio.read_info(path, layer="note_photo")["features"] == 1
    assert pyogrio.read_info(path, layer="tree_photo")["features"] == 0
    for name, count in EXPECTED_COUNTS.items():
        info = pyogrio.read_info(path, layer=name)
        assert info["features"] == count, name
        if name in ("site", "walk", "photo", "device_reading", "antenna_height"):  # data_point: a point layer
            assert info["geometry_type"] is None
        else:
            assert info["crs"] == "EPSG:32616", name
    assert pyogrio.read_info(path, layer="area_feature")["geometry_type"] == "MultiPolygon"
    # attribute values through GDAL: DBH, dates with Z, child -> parent by uuid
    _, _, geom, fields = pyogrio.raw.read(path, layer="tree")
    tree_cols = list(pyogrio.read_info(path, layer="tree")["fields"])
    assert sorted(fields[tree_cols.index("dbh_in")]) == [8.0, 14.5]
    _, _, _, st_fields = pyogrio.raw.read(path, layer="station")
    st_cols = list(pyogrio.read_info(path, layer="station")["fields"])
    uuid_column = list(pyogrio.read_info(path, layer="transect")["fields"]).index("uuid")
    tr_uuid = pyogrio.raw.read(path, layer="transect")[3][uuid_column][0]
    assert set(st_fields[st_cols.index("transect_uuid")]) == {tr_uuid}
    conn = st_connect(path)
    assert conn.execute("PRAGMA application_id").fetchone()[0] == 0x47504B47
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 10400
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    created = conn.execute("SELECT created_utc FROM tree").fetchone()[0]
    assert created.endswith("Z") and created[10] == "T"
    assert conn.execute("SELECT t_utc FROM track_point LIMIT 1").fetchone()[0] == "2024-06-03T15:00:00.123Z"
    cols = {r[1]: r for r in conn.execute("PRAGMA table_info(note)")}
    assert cols["uuid"][2] == "TEXT" and cols["uuid"][3] == 1 and cols["fid"][5] == 1
    assert "AUTOINCREMENT" in conn.execute("SELECT sql FROM sqlite_master WHERE name = 'note'").fetchone()[0]
    # schema 7: the antenna_height table and site.antenna_height_unit; schema 6: the data_point
    # table; schema 5: the device_reading table; schema 4: the photo media table; schema 3: site
    # declination source, station magnetic azimuth and declination, correction age and mountpoint
    # of points, vertices, transects; retained area and tally complete of a stand; the stake_point
    # table
    version = conn.execute("SELECT value FROM fieldapp_meta WHERE key = 'schema_version'").fetchone()[0]
    assert version == str(SCHEMA_VERSION)
    assert conn.execute("SELECT antenna_height_unit FROM site").fetchone()[0] == "ft"
    assert conn.execute("SELECT height_m, unit FROM antenna_height ORDER BY created_utc").fetchall() == [
        (0.0, "m"), (1.524, "ft")]
    conn.close()


def test_clean_close_leaves_one_complete_file(tmp_path, new_visit):
    path = tmp_path / "a" / "visit.gpkg"
    path.parent.mkdir()
    store = create_visit(path, new_visit)
    fill(new_visit)
    assert (tmp_path / "a" / "visit.gpkg-wal").exists()  # live: WAL in use
    store.close()
    assert sorted(p.name for p in path.parent.iterdir()) == ["visit.gpkg"]
    copy = tmp_path / "copy.gpkg"
    shutil.copyfile(path, copy)  # the .gpkg alone
    reopened = open_visit(copy)
    try:
        for layer in Layer:
            assert reopened.visit.features(layer) == new_visit.features(layer), layer
    finally:
        reopened.close()


def test_a_big_visit_file_is_read_ahead_in_order_before_sqlite_opens_it(tmp_path, new_visit, monkeypatch):
    # Cold (the morning after) SQLite would fetch a day's visit a 4 KiB page at a time: the
    # store reads a big file (and its WAL) through first. Sizes here are the test's own.
    import fieldapp.store.gpkg as G

    path = tmp_path / "visit.gpkg"
    store = create_visit(path, new_visit)
    fill(new_visit)
    wal = path.with_name("visit.gpkg-wal")
    live = path.stat().st_size, wal.stat().st_size
    assert live[1] > 0
    monkeypatch.setattr(G, "READ_AHEAD_MIN_BYTES", 1)
    assert G._read_ahead(path) == live[0] + live[1]          # the file and its WAL, whole
    monkeypatch.setattr(G, "READ_AHEAD_MIN_BYTES", live[0] + live[1] + 1)
    assert G._read_ahead(path) == 0                           # small files are left to SQLite
    store.close()
    assert G._read_ahead(tmp_path / "none.gpkg") == 0         # nothing to read: no error here
    monkeypatch.setattr(G, "READ_AHEAD_MIN_BYTES", 1)
    seen = []
    real = G._read_ahead
    monkeypatch.setattr(G, "_read_ahead", lambda p: seen.append((p, real(p))) or seen[-1][1])
    open_visit(path).close()                                  # every open reads ahead first
    assert seen[0] == (path, path.stat().st_size)


def test_checkpoint_makes_the_file_complete_while_open(tmp_path, new_visit):
    path = tmp_path / "visit.gpkg"
    store = create_visit(path, new_visit)
    fill(new_visit)
    store.checkpoint()
    assert (tmp_path / "visit.gpkg-wal").stat().st_size == 0
    snapshot = tmp_path / "snap.gpkg"
    shutil.copyfile(path, snapshot)
    assert pyogrio.read_info(snapshot, layer="tree")["features"] == 2
    store.close()


def test_live_mirroring_updates_deletes_and_undo(tmp_path, new_visit):
    path = tmp_path / "visit.gpkg"
    store = create_visit(path, new_visit)
    fill(new_visit)
    tree = new_visit.trees()[0]
    new_visit.update_tree(tree.uuid, dbh_in=15.0)
    conn = st_connect(path)
    assert conn.execute("SELECT dbh_in FROM tree WHERE uuid = ?", (tree.uuid,)).fetchone()[0] == 15.0
    new_visit.delete_tree(tree.uuid)
    assert conn.execute("SELECT count(*) FROM tree WHERE uuid = ?", (tree.uuid,)).fetchone()[0] == 0
    new_visit.undo()  # the deleted tree comes back with its uuid
    assert conn.execute("SELECT dbh_in FROM tree WHERE uuid = ?", (tree.uuid,)).fetchone()[0] == 15.0
    t = new_visit.features(Layer.TRANSECT)[0]
    new_visit.delete(Layer.TRANSECT, t.uuid)  # cascades to its stations
    assert conn.execute("SELECT count(*) FROM station").fetchone()[0] == 0
    conn.close()
    store.close()
    with pytest.raises(StoreClosed):
        store.checkpoint()


def test_refused_input_writes_nothing(tmp_path, new_visit):
    path = tmp_path / "visit.gpkg"
    store = create_visit(path, new_visit)
    fill(new_visit)
    before = store.counts()
    for bad in (dict(dbh_in=float("nan")), dict(dbh_in=-2), dict(dbh_in=12, crown_radius_ft=float("inf"))):
        with pytest.raises(InvalidValue):
            new_visit.add_tree(x=500000.0, y=4983000.0, **bad)
    assert store.counts() == before
    store.close()


def test_failed_commit_rolls_back_the_whole_command(tmp_path, new_visit):
    path = tmp_path / "visit.gpkg"
    store = create_visit(path, new_visit)
    fill(new_visit)
    line = new_visit.features(Layer.OHWM_LINE)[0]
    conn = st_connect(path)
    conn.execute("DELETE FROM ohwm_line")  # sabotage: the line row vanishes under the app
    conn.commit()
    conn.close()
    points_before = store.counts()["ohwm_point"]
    with pytest.raises(WriteFailed):
        new_visit.add_ohwm_point(new_visit.average([Fix(45.0, -89.0)]), line_uuid=line.uuid)
    assert store.counts()["ohwm_point"] == points_before  # the point insert was rolled back too
    assert len(new_visit.children(Layer.OHWM_POINT, line.uuid)) == points_before
    store.close()


def test_existing_file_is_never_overwritten(tmp_path, new_visit):
    path = tmp_path / "visit.gpkg"
    path.write_bytes(b"precious")
    with pytest.raises(VisitFileExists):
        create_visit(path, new_visit)
    assert path.read_bytes() == b"precious"
    assert [p.name for p in tmp_path.iterdir()] == ["visit.gpkg"]


def test_not_ours_damaged_and_newer_files_refused_untouched(tmp_path, new_visit):
    text = tmp_path / "notes.gpkg"
    text.write_text("not a database")
    with pytest.raises(NotAVisitFile, match="not an SQLite"):
        open_visit(text)
    plain = tmp_path / "plain.gpkg"
    st_connect(plain).execute("CREATE TABLE t(x)").connection.close()
    with pytest.raises(NotAVisitFile, match="not a GeoPackage"):
        open_visit(plain)
    # a GeoPackage written by GDAL, not by us
    other = tmp_path / "other.gpkg"
    import numpy as np
    import shapely

    pyogrio.raw.write(other, geometry=np.array([shapely.to_wkb(shapely.Point(1, 2))], dtype=object),
                      field_data=[np.array([1])], fields=["a"], geometry_type="Point", crs="EPSG:4326",
                      driver="GPKG", layer="pts")
    with pytest.raises(NotAVisitFile, match="not a fieldapp visit"):
        open_visit(other)

    newer = tmp_path / "newer.gpkg"
    create_visit(newer, new_visit).close()
    conn = st_connect(newer)
    conn.execute("UPDATE fieldapp_meta SET value = '99' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    before = newer.read_bytes()
    with pytest.raises(NewerVisitFile, match="newer fieldapp"):
        open_visit(newer)
    assert newer.read_bytes() == before

    damaged = tmp_path / "damaged.gpkg"
    v2 = Visit.new("d", crs="EPSG:32616", who="t")
    st = create_visit(damaged, v2)
    for i in range(300):
        v2.add_note(f"note {i} " + "x" * 200)
    st.close()
    data = bytearray(damaged.read_bytes())
    page = 4096
    for off in range(page * 3, len(data) - page, page):  # scribble over interior pages
        data[off + 10: off + 400] = b"\xff" * 390
    damaged.write_bytes(bytes(data))
    before = damaged.read_bytes()
    with pytest.raises(DamagedVisitFile):
        open_visit(damaged)
    assert damaged.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("damaged")) == ["damaged.gpkg"]


def test_crs_in_us_survey_feet_is_registered(tmp_path):
    v = Visit.new("Iowa", crs=3417, who="t")
    path = tmp_path / "ia.gpkg"
    store = create_visit(path, v)
    x, y = v.frame.to_local(-93.6, 42.5)
    v.add_tree(x=float(x), y=float(y), dbh_in=10)
    store.close()
    assert pyogrio.read_info(path, layer="tree")["crs"] == "EPSG:3417"


@pytest.mark.skipif(os.name == "nt", reason="Windows itself refuses there: the Windows stage runs the real thing")
def test_a_new_visit_flushes_only_writable_handles_and_no_folder_as_windows_demands(tmp_path, new_visit, monkeypatch):
    """Windows' FlushFileBuffers refuses a read-only handle (PermissionError) and cannot open a
    folder: a new visit made under those rules (os.fsync refusing a read-only
    descriptor, os.open refusing a folder) is created, and its file was flushed."""
    import fcntl
    import os as os_mod

    real_fsync, real_open = os_mod.fsync, os_mod.open
    flushed: list[int] = []

    def fsync(fd):
        if fcntl.fcntl(fd, fcntl.F_GETFL) & os_mod.O_ACCMODE == os_mod.O_RDONLY:
            raise PermissionError(13, "Access is denied")
        flushed.append(fd)
        return real_fsync(fd)

    def open_(path, flags, *args, **kwargs):
        if os_mod.path.isdir(path):
            raise PermissionError(13, "Access is denied", str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os_mod, "fsync", fsync)
    monkeypatch.setattr(os_mod, "open", open_)
    monkeypatch.setattr("fieldapp.store.durable.WINDOWS", True)
    path = tmp_path / "visit.gpkg"
    store = create_visit(path, new_visit)
    monkeypatch.undo()
    store.close()
    assert flushed, "the new visit's file was never flushed"
    assert open_visit(path, readonly=True).visit.site.name == "Mill Creek lot"
