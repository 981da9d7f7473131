"""Photos in the visit GeoPackage: kept through a reopen, the mapping views following the
records by uuid, GDAL reading the media table, a refused file writing nothing, and the
report's rows (:func:`fieldapp.store.photos.photo_entries`)."""

from __future__ import annotations

import hashlib
import io
from datetime import UTC, datetime

import pyogrio
import pytest
from PIL import Image

from fieldapp.app.config import AppConfig
from fieldapp.app.photos import attach_files
from fieldapp.store import create_visit, open_visit
from fieldapp.store.photos import photo_entries
from fieldapp.survey import Layer, Visit
from tests.gpkgtools import st_connect, validate_gpkg
from tests.photo_sample import jpeg

X0, Y0 = 500000.0, 4983000.0


def sha(p) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


@pytest.fixture
def stored(tmp_path):
    v = Visit.new("Mill Creek lot", crs="EPSG:32616", who="crew@laptop")
    store = create_visit(tmp_path / "v.gpkg", v)
    yield store
    store.close()


def test_photos_survive_a_reopen_and_gdal_reads_the_media_table(stored, tmp_path):
    v = stored.visit
    tree = v.add_tree(x=X0, y=Y0, dbh_in=14.0, species_code="QURU")
    big = jpeg(tmp_path / "big.jpg", size=(3000, 2000), when="2024:05:14 10:02:00", direction=312.0)
    out = attach_files(v, [big], layer=Layer.TREE, uuid=tree.uuid,
                       config=AppConfig(photo_max_px=1500, data_dir=str(tmp_path)))
    (kept,) = out.kept
    assert out.message == f"1 photo attached to tree {tree.tag}."
    assert (kept.width, kept.height) == (1500, 1000) and kept.original_path == str(big.resolve())
    stored.close()
    validate_gpkg(stored.path)
    info = pyogrio.read_info(stored.path, layer="photo")
    assert info["features"] == 1 and info["geometry_type"] is None
    _, _, _, fields = pyogrio.raw.read(stored.path, layer="photo")
    cols = list(info["fields"])
    assert fields[cols.index("content_type")][0] == "image/jpeg"
    with Image.open(io.BytesIO(fields[cols.index("data")][0])) as im:
        assert im.size == (1500, 1000)
    assert pyogrio.read_info(stored.path, layer="tree_photo")["features"] == 1
    with open_visit(stored.path, readonly=True) as again:
        (back,) = again.visit.photos_of(Layer.TREE, tree.uuid)
        assert back == kept


def test_the_mapping_view_follows_the_record_by_uuid_when_fids_change(stored, tmp_path):
    v = stored.visit
    t1 = v.add_tree(x=X0, y=Y0, dbh_in=10.0, species_code="ACSA")
    t2 = v.add_tree(x=X0 + 5, y=Y0, dbh_in=11.0, species_code="ACSA")
    (p,) = attach_files(v, [jpeg(tmp_path / "a.jpg")], layer=Layer.TREE, uuid=t2.uuid).kept
    stored.checkpoint()
    conn = st_connect(stored.path)
    # renumber the rows as a sync rebase may (new rows of another laptop took these fids)
    conn.execute("UPDATE tree SET fid = fid + 100")
    conn.execute("UPDATE photo SET fid = fid + 40")
    conn.commit()
    assert conn.execute("SELECT base_id, related_id FROM tree_photo").fetchall() == [
        (conn.execute("SELECT fid FROM tree WHERE uuid = ?", (t2.uuid,)).fetchone()[0],
         conn.execute("SELECT fid FROM photo WHERE uuid = ?", (p.uuid,)).fetchone()[0])]
    conn.close()
    v.delete_tree(t2.uuid)         # the record gone: no pair; the photo stays, naming it
    conn = st_connect(stored.path)
    assert conn.execute("SELECT count(*) FROM tree_photo").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM photo").fetchone()[0] == 1
    conn.close()
    v.undo()
    conn = st_connect(stored.path)
    assert conn.execute("SELECT count(*) FROM tree_photo").fetchone()[0] == 1
    conn.close()
    assert t1.uuid != t2.uuid


def test_a_non_image_or_truncated_file_is_refused_and_nothing_is_written(stored, tmp_path):
    v = stored.visit
    note = v.add_note("culvert")
    stored.checkpoint()
    before = sha(stored.path)
    text = tmp_path / "notes.jpg"
    text.write_text("field notes, not a photo")
    whole = jpeg(tmp_path / "whole.jpg", size=(800, 600)).read_bytes()
    cut = tmp_path / "cut.jpg"
    cut.write_bytes(whole[: len(whole) // 2])
    out = attach_files(v, [text, cut], layer=Layer.NOTE, uuid=note.uuid)
    assert out.kept == () and len(out.refused) == 2
    assert "notes.jpg is not a photo Pillow can read" in out.message and "cut.jpg" in out.message
    stored.checkpoint()
    assert sha(stored.path) == before and v.features(Layer.PHOTO) == []
    # one good file among bad ones: the good one kept, the bad one named
    out = attach_files(v, [text, tmp_path / "whole.jpg"], layer=Layer.NOTE, uuid=note.uuid)
    assert len(out.kept) == 1 and out.message.startswith("1 photo attached to note “culvert”. refused: notes.jpg")


def test_photo_entries_give_the_report_its_rows(stored, tmp_path):
    v = stored.visit
    v.add_tree(x=X0, y=Y0, dbh_in=9.0, species_code="ACSA")   # no photos: not listed
    tree = v.add_tree(x=X0 + 5, y=Y0, dbh_in=14.0, species_code="QURU")
    attach_files(v, [jpeg(tmp_path / "t.jpg", size=(1200, 900), when="2026:06:01 14:02:31",
                          direction=311.6)], layer=Layer.TREE, uuid=tree.uuid, caption="butt rot")
    attach_files(v, [jpeg(tmp_path / "s.jpg", size=(300, 200))], layer=Layer.SITE)
    attach_files(v, [jpeg(tmp_path / "g.jpg", gps=(45.0, -87.0))])
    rows = photo_entries(stored)
    assert [(r.feature, r.taken, r.direction, r.caption) for r in rows] == [
        ("Site “Mill Creek lot”", "—", "—", "s.jpg"),
        # no zone in its EXIF and no camera clock offset set: the camera's own clock
        (f"Tree tag {tree.tag}", "2026-06-01 14:02 camera local time (no zone)", "312° true",
         "t.jpg · butt rot"),
        ("Photo on its own (EXIF GPS)", "—", "—", "g.jpg"),
    ]
    sizes = []
    for r in rows:
        with Image.open(io.BytesIO(r.jpeg)) as im:
            assert im.format == "JPEG"
            sizes.append(im.size)
    assert sizes == [(300, 200), (400, 300), (400, 300)]   # 1200 x 900 and 640 x 480 cut to 400 px
    assert photo_entries(v) == rows       # a Visit does as well as its store
    assert datetime(2026, 6, 1, 14, 2, 31, tzinfo=UTC) == v.photos_of(Layer.TREE, tree.uuid)[0].taken_utc


def test_a_photo_row_another_program_broke_refuses_the_file_naming_it(stored, tmp_path):
    from fieldapp.store import InvalidRecords

    (p,) = attach_files(stored.visit, [jpeg(tmp_path / "a.jpg")], layer=Layer.SITE).kept
    stored.close()
    conn = st_connect(stored.path)
    conn.execute("UPDATE photo SET record_table = 'parcel' WHERE uuid = ?", (p.uuid,))
    conn.commit()
    conn.close()
    before = sha(stored.path)
    with pytest.raises(InvalidRecords) as err:
        open_visit(stored.path)
    (problem,) = err.value.problems
    assert (problem.table, problem.uuid, problem.column) == ("photo", p.uuid, "record_table")
    assert sha(stored.path) == before
