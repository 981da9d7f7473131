"""Photo commands: attach to a record or the site, place on their own by EXIF GPS or by EXIF
time on the track (with the camera clock offset), caption, detach, delete; each undoable."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest

from fieldapp.survey import InvalidValue, Layer, Visit
from fieldapp.survey.editing import subject_words
from fieldapp.survey.errors import NotFound
from fieldapp.survey.photos import camera_offset_s, read_photo
from tests.photo_sample import jpeg

T0 = datetime(2024, 5, 14, 15, 0, 0, tzinfo=UTC)
X0, Y0 = 500000.0, 4983000.0          # UTM 16N on the central meridian, about 45° N


@dataclass
class Fix:
    lat_deg: float
    lon_deg: float
    time_utc: datetime
    quality: int = 4
    sats_used: int = 14
    hdop: float = 0.6
    horizontal_accuracy_m: float = 0.02
    vertical_accuracy_m: float = 0.03
    alt_hae_m: float = 250.0
    t_monotonic_s: float = 0.0


@pytest.fixture
def visit():
    return Visit.new("Photos", crs="EPSG:32616", who="crew@laptop")


def test_photos_attached_to_a_tree_and_to_the_site_undo_and_redo(visit, tmp_path):
    tree = visit.add_tree(x=X0, y=Y0, dbh_in=14.0, species_code="QURU")
    a = read_photo(jpeg(tmp_path / "a.jpg", when="2024:05:14 10:00:00", direction=312.4))
    b = read_photo(jpeg(tmp_path / "b.jpg"))
    recs = visit.add_photos([a, b], layer=Layer.TREE, uuid=tree.uuid, caption="bark, north face")
    assert [(r.record_table, r.record_uuid) for r in recs] == [("tree", tree.uuid)] * 2
    # no offset: the camera time read as UTC; b has no EXIF time
    assert recs[0].taken_utc == datetime(2024, 5, 14, 10, 0, tzinfo=UTC)
    assert recs[0].direction_deg == pytest.approx(312.4) and recs[1].taken_utc is None
    assert recs[0].x is None and recs[0].placed_by is None and recs[0].caption == "bark, north face"
    assert [p.uuid for p in visit.photos_of(Layer.TREE, tree.uuid)] == [recs[0].uuid, recs[1].uuid]
    assert subject_words(visit, visit.next_undo()) == "photo a.jpg"
    (site_photo,) = visit.add_photos([b], layer=Layer.SITE)
    assert site_photo.record_uuid == visit.site.uuid
    assert visit.photos_of(Layer.SITE) == [site_photo]
    visit.undo()
    assert visit.photos_of(Layer.SITE) == []
    visit.undo()
    assert visit.photos_of(Layer.TREE, tree.uuid) == []
    visit.redo()
    assert len(visit.photos_of(Layer.TREE, tree.uuid)) == 2


def test_photos_on_their_own_placed_by_gps_else_by_time_on_the_track(visit, tmp_path):
    f = visit.frame
    lon0, lat0 = f.to_lonlat(X0, Y0)
    lon1, lat1 = f.to_lonlat(X0 + 90.0, Y0 + 30.0)
    visit.start_track()
    for i in range(10):   # 10 m east and 1/3 of that north every 10 s, straight
        t = i / 9.0
        visit.on_fix(Fix(lat0 + t * (lat1 - lat0), lon0 + t * (lon1 - lon0), T0 + timedelta(seconds=10 * i)))
    track = visit.track()
    assert len(track) == 10
    # the camera runs 5 h 2 min 10 s behind UTC: its clock photo says 09:57:50 at 15:00:00 UTC
    offset = camera_offset_s(datetime(2024, 5, 14, 9, 57, 50), T0)
    # taken at camera 09:58:15 = 15:00:25 UTC: halfway between the fixes at 20 s and 30 s
    timed = read_photo(jpeg(tmp_path / "t.jpg", when="2024:05:14 09:58:15"))
    gps = read_photo(jpeg(tmp_path / "g.jpg", gps=(45.0, -87.0), when="2024:05:14 09:58:15"))
    lost = read_photo(jpeg(tmp_path / "n.jpg"))
    p_t, p_g, p_n = visit.add_photos([timed, gps, lost], camera_offset_s=offset)
    assert p_t.placed_by == "track" and p_t.taken_utc == T0 + timedelta(seconds=25)
    assert p_t.x == pytest.approx((track[2].x + track[3].x) / 2, abs=1e-6)
    assert p_t.y == pytest.approx((track[2].y + track[3].y) / 2, abs=1e-6)
    ex, ey = f.to_local(-87.0, 45.0)
    assert p_g.placed_by == "exif gps" and (p_g.x, p_g.y) == (pytest.approx(ex, abs=1e-3), pytest.approx(ey, abs=1e-3))
    assert (p_n.x, p_n.y, p_n.placed_by) == (None, None, None)
    assert [p.uuid for p in visit.unattached_photos()] == [p_t.uuid, p_g.uuid, p_n.uuid]
    # attached to a note it drops its position; detached, it is placed again by its time
    note = visit.add_note("seep at the toe of slope", x=X0, y=Y0)
    visit.attach_photo(p_t.uuid, Layer.NOTE, note.uuid)
    on = visit.get(Layer.PHOTO, p_t.uuid)
    assert (on.record_table, on.x) == ("note", None)
    back = visit.detach_photo(p_t.uuid)
    assert back.record_table is None and back.placed_by == "track" and back.x == pytest.approx(p_t.x)
    visit.undo()
    assert visit.get(Layer.PHOTO, p_t.uuid).record_uuid == note.uuid


def test_caption_delete_and_a_deleted_record_keeps_its_photos(visit, tmp_path):
    tree = visit.add_tree(x=X0, y=Y0, dbh_in=9.0, species_code="ACSA")
    (p,) = visit.add_photos([read_photo(jpeg(tmp_path / "a.jpg"))], layer=Layer.TREE, uuid=tree.uuid)
    visit.set_photo_caption(p.uuid, "frost crack\nat 4 ft")
    assert visit.get(Layer.PHOTO, p.uuid).caption == "frost crack\nat 4 ft"
    visit.undo()
    assert visit.get(Layer.PHOTO, p.uuid).caption == ""
    visit.delete_tree(tree.uuid)
    assert visit.photos_of(Layer.TREE, tree.uuid)[0].uuid == p.uuid   # it still names the tree
    assert [q.uuid for q in visit.unattached_photos()] == [p.uuid]
    visit.undo()
    assert visit.unattached_photos() == []
    visit.delete_photo(p.uuid)
    with pytest.raises(NotFound):
        visit.get(Layer.PHOTO, p.uuid)
    visit.undo()
    assert visit.get(Layer.PHOTO, p.uuid).uuid == p.uuid


def test_refusals_leave_the_visit_as_it_was(visit, tmp_path):
    ph = read_photo(jpeg(tmp_path / "a.jpg"))
    with pytest.raises(InvalidValue, match="photos cannot be attached to a track_point"):
        visit.add_photos([ph], layer=Layer.TRACK, uuid="00000000-0000-4000-8000-000000000001")
    with pytest.raises(NotFound):
        visit.add_photos([ph], layer=Layer.TREE, uuid="00000000-0000-4000-8000-000000000001")
    with pytest.raises(InvalidValue, match="camera_offset_s"):
        visit.add_photos([ph], camera_offset_s=float("nan"))
    assert visit.features(Layer.PHOTO) == [] and not visit.can_undo


def test_a_photo_record_breaking_the_rules_is_refused_in_field_words(visit, tmp_path):
    from dataclasses import replace

    from fieldapp.survey.validation import validate

    (p,) = visit.add_photos([read_photo(jpeg(tmp_path / "a.jpg"))], layer=Layer.SITE)
    for fields, name in (({"content_type": "text/plain"}, "content_type"),
                         ({"record_uuid": None}, "record_uuid"),
                         ({"record_table": "track_point"}, "record_table"),
                         ({"placed_by": "guess"}, "placed_by"),
                         ({"data": b""}, "data"),
                         ({"direction_deg": 361.0}, "direction_deg")):
        with pytest.raises(InvalidValue) as err:
            validate(replace(p, **fields))
        assert err.value.name == name, fields
