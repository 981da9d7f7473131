"""fieldapp.survey.editing: every record corrected, deleted, undone and redone.

Site in UTM 16N on its central meridian (87° W), where grid north is true north and a
station's offset from the origin is its distance times the zone's scale factor (0.9996 on the
meridian: checked to 0.1 %).
"""

from __future__ import annotations

import math
import sqlite3

import pytest

from fieldapp.store import create_visit, open_visit
from fieldapp.survey import AreaKind, InvalidValue, Layer, StateError, Visit, WalkState
from fieldapp.survey.editing import subject_words
from fieldapp.survey.features import PointMethod

X0, Y0 = 500000.0, 4983000.0     # UTM 16N on the central meridian (87° W), about 45° N
FT = 0.3048


@pytest.fixture
def visit():
    return Visit.new("Edits", crs="EPSG:32616", who="crew@laptop")


def _transect(v, segments=((10.0, 5.0), (20.0, 10.0), (30.0, 2.0)), azimuth=90.0):
    t = v.add_transect(azimuth, origin=(X0, Y0), origin_elevation_ft=100.0)
    for seg, pct in segments:
        v.add_station(t.uuid, horizontal_ft=seg, slope_pct=pct)
    return t


def _offset_from_origin_ft(s) -> float:
    return math.hypot(s.x - X0, s.y - Y0) / FT


def test_editing_a_middle_station_moves_the_later_ones_and_undo_redo(visit):
    t = _transect(visit)
    s1, s2, s3 = visit.stations(t.uuid)
    assert [s.distance_ft for s in (s1, s2, s3)] == [10.0, 30.0, 60.0]
    # elevations carried from 100 ft: +0.5, +2.0, +0.6
    assert [round(s.elevation_ft, 6) for s in (s1, s2, s3)] == [100.5, 102.5, 103.1]
    visit.update_station(s2.uuid, horizontal_ft=25.0, slope_pct=-4.0)
    a, b, c = visit.stations(t.uuid)
    assert [s.distance_ft for s in (a, b, c)] == [10.0, 35.0, 65.0]
    assert (b.segment_ft, b.slope_pct, c.segment_ft) == (25.0, -4.0, 30.0)
    # station 2 now drops 1.0 ft (25 ft at -4 %) instead of rising 2.0: 99.5, then +0.6
    assert round(b.elevation_ft, 6) == 99.5 and round(c.elevation_ft, 6) == 100.1
    assert _offset_from_origin_ft(c) == pytest.approx(65.0 * 0.9996, rel=1e-3)
    assert visit.get(Layer.TRANSECT, t.uuid).geometry.coords[-1] == pytest.approx((c.x, c.y))
    visit.undo()
    assert [s.distance_ft for s in visit.stations(t.uuid)] == [10.0, 30.0, 60.0]
    assert visit.stations(t.uuid)[1].slope_pct == 10.0
    visit.redo()
    assert [s.distance_ft for s in visit.stations(t.uuid)] == [10.0, 35.0, 65.0]
    assert not visit.can_redo


def test_station_distance_interruption_and_refusals_keep_the_old_value(visit):
    t = _transect(visit)
    s1, s2, s3 = visit.stations(t.uuid)
    visit.update_station(s2.uuid, distance_ft=40.0, interruption=True)
    assert [s.distance_ft for s in visit.stations(t.uuid)] == [10.0, 40.0, 70.0]
    assert visit.get(Layer.STATION, s2.uuid).interruption is True
    undo_depth = len(visit._undo)
    for bad in (dict(slope_deg=90.0), dict(slope_pct=6000.0), dict(distance_ft=10.0),
                dict(horizontal_ft=-3.0), dict(horizontal_ft=0.0)):
        with pytest.raises(InvalidValue):
            visit.update_station(s2.uuid, **bad)
    assert [s.distance_ft for s in visit.stations(t.uuid)] == [10.0, 40.0, 70.0]
    assert visit.get(Layer.STATION, s2.uuid).slope_pct == 10.0
    assert len(visit._undo) == undo_depth


def test_turning_a_transect_moves_its_stations(visit):
    t = _transect(visit, azimuth=90.0)
    visit.update_transect(t.uuid, azimuth_deg=0.0, stipulated=True, label="T north")
    t2 = visit.get(Layer.TRANSECT, t.uuid)
    assert (t2.azimuth_true_deg, t2.stipulated, t2.label) == (0.0, True, "T north")
    last = visit.stations(t.uuid)[-1]
    assert last.x == pytest.approx(X0, abs=1e-6)          # due north on the central meridian
    assert (last.y - Y0) / FT == pytest.approx(60.0 * 0.9996, rel=1e-3)
    assert visit.undo_subject() == "transect T north"
    visit.undo()
    assert visit.redo_subject() == "transect T north"
    assert visit.stations(t.uuid)[-1].y == pytest.approx(Y0, abs=1e-6)


def test_offset_point_shot_again_and_averaged_point_refused(visit):
    p1 = visit.add_ohwm_offset_point((X0, Y0), 90.0, horizontal_ft=10.0)
    p2 = visit.add_ohwm_offset_point((X0, Y0), 0.0, horizontal_ft=10.0)
    new = visit.update_offset_point(p1.uuid, horizontal_ft=20.0)
    assert (new.x - X0) / FT == pytest.approx(20.0 * 0.9996, rel=1e-3)
    line = visit.get(Layer.OHWM_LINE, p1.line_uuid)
    assert line.geometry.coords[0] == pytest.approx((new.x, new.y))
    with pytest.raises(InvalidValue):
        visit.update_offset_point(p2.uuid, horizontal_ft=-1.0)
    assert visit.get(Layer.OHWM_POINT, p2.uuid).horizontal_distance_ft == 10.0
    averaged = visit._add_point(None, x=X0 + 9, y=Y0 + 9, method=PointMethod.AVERAGED)
    with pytest.raises(StateError, match="averaged"):
        visit.update_offset_point(averaged.uuid, horizontal_ft=3.0)


def test_deleting_any_ohwm_point_is_named_and_undone(visit):
    pts = [visit.add_ohwm_offset_point((X0, Y0), 10.0 * i, horizontal_ft=10.0) for i in range(6)]
    changes = visit.delete_record(Layer.OHWM_POINT, pts[5].uuid)
    assert subject_words(visit, changes) == "OHWM point 6"
    assert len(visit.get(Layer.OHWM_LINE, pts[0].line_uuid).geometry.coords) == 5
    assert visit.undo_subject() == "OHWM point 6"
    visit.undo()
    assert visit.redo_subject() == "OHWM point 6"
    assert len(visit.get(Layer.OHWM_LINE, pts[0].line_uuid).geometry.coords) == 6
    visit.redo()
    assert pts[5].uuid not in {p.uuid for p in visit.features(Layer.OHWM_POINT)}


def test_tree_edit_refusals_in_field_terms(visit):
    tree = visit.add_tree(x=X0, y=Y0, dbh_in=12.0, species_code="QURU")
    with pytest.raises(InvalidValue) as exc:
        visit.update_tree(tree.uuid, dbh_in=-3.0)
    assert exc.value.name == "dbh_in"
    with pytest.raises(InvalidValue, match="species"):
        visit.update_tree(tree.uuid, species_code="  ")
    assert visit.get(Layer.TREE, tree.uuid).species_code == "QURU"
    assert visit.get(Layer.TREE, tree.uuid).dbh_in == 12.0
    visit.update_tree(tree.uuid, species_code="", species_name="red oak")  # the name will do


def test_walk_loses_its_last_vertices_and_undo_puts_them_back(visit):
    w = visit.start_walk(AreaKind.WETLAND, label="W1", spacing_ft=None, interval_s=1.0)
    for x, y in [(0, 0), (30, 0), (30, 30), (60, 60), (0, 30)]:
        w.add_vertex(X0 + x, Y0 + y)
    gone = visit.remove_last_vertices(w.uuid, 2)
    assert [v.seq for v in gone] == [3, 4] and len(w.vertices()) == 3
    assert visit.undo_subject() == "2 boundary vertices"
    visit.undo()
    assert len(w.vertices()) == 5
    visit.redo()
    v = w.add_vertex(X0, Y0 + 30)
    assert v.seq == 5       # after the removed ones: an undo can never make two vertex 4s
    assert w.vertices()[-1] == (X0, Y0 + 30)


def test_reopen_a_closed_boundary_and_walk_on(visit):
    w = visit.start_walk(AreaKind.WETLAND, label="W1", spacing_ft=None, interval_s=1.0)
    for x, y in [(0, 0), (30, 0), (30, 30), (0, 30)]:
        w.add_vertex(X0 + x, Y0 + y)
    area = w.close(wetland_type="fresh meadow")
    again = visit.reopen_walk(w.uuid)
    assert area.uuid not in {a.uuid for a in visit.features(Layer.AREA)}
    assert again.state is WalkState.PAUSED
    again.resume()
    again.add_vertex(X0 - 30, Y0 + 15)
    area2 = again.close()
    assert (area2.label, area2.wetland_type) == ("W1", "fresh meadow")   # kept from the first close
    # 30 x 30 m square plus the triangle (30 m base, 30 m high) walked on: 900 + 450 m²
    assert area2.geometry.area == pytest.approx(1350.0)
    visit.rename(Layer.AREA, area2.uuid, "W1 east")
    assert visit.get(Layer.WALK, w.uuid).label == "W1 east"
    changes = visit.delete_record(Layer.AREA, area2.uuid)
    assert subject_words(visit, changes) == "wetland W1 east"
    assert not visit.features(Layer.WALK) and not visit.features(Layer.WALK_VERTEX)
    visit.undo()
    assert len(visit.features(Layer.WALK_VERTEX)) == 5 and visit.get(Layer.AREA, area2.uuid)


def test_lines_areas_notes_edit_and_delete(visit):
    line = visit.add_line("drainageway_centreline", [(X0, Y0), (X0 + 100, Y0)], label="D1")
    visit.update_feature(Layer.LINE, line.uuid, mapped_stream=True, tributary_area_ac=12.0)
    assert visit.get(Layer.LINE, line.uuid).mapped_stream is True
    with pytest.raises(InvalidValue):
        visit.update_feature(Layer.LINE, line.uuid, tributary_area_ac=-1.0)
    assert visit.get(Layer.LINE, line.uuid).tributary_area_ac == 12.0
    note = visit.add_note("flagged oak", x=X0, y=Y0)
    visit.update_note(note.uuid, text="flagged red oak", x=X0 + 1, y=Y0 + 2)
    assert (visit.get(Layer.NOTE, note.uuid).text, visit.get(Layer.NOTE, note.uuid).x) == ("flagged red oak", X0 + 1)
    with pytest.raises(InvalidValue):
        visit.update_note(note.uuid, text="   ")
    assert subject_words(visit, visit.delete_record(Layer.NOTE, note.uuid)) == "note “flagged red oak”"
    assert subject_words(visit, visit.delete_record(Layer.LINE, line.uuid)) == "drainageway centreline line D1"
    visit.undo(), visit.undo()
    assert visit.get(Layer.NOTE, note.uuid).text == "flagged red oak"
    assert visit.get(Layer.LINE, line.uuid).mapped_stream is True


def test_a_new_command_clears_redo(visit):
    tree = visit.add_tree(x=X0, y=Y0, dbh_in=12.0)
    visit.undo()
    assert visit.can_redo
    visit.add_tree(x=X0 + 1, y=Y0, dbh_in=8.0)
    assert not visit.can_redo and visit.redo() is None
    assert tree.uuid not in {t.uuid for t in visit.trees()}


def test_edits_deletes_undo_redo_are_in_the_file(tmp_path, visit):
    path = tmp_path / "edits.gpkg"
    store = create_visit(path, visit)
    t = _transect(visit)
    s2 = visit.stations(t.uuid)[1]
    pts = [visit.add_ohwm_offset_point((X0, Y0), 10.0 * i, horizontal_ft=10.0) for i in range(3)]
    visit.update_station(s2.uuid, slope_pct=-4.0)
    visit.delete_record(Layer.OHWM_POINT, pts[2].uuid)
    visit.delete_record(Layer.OHWM_POINT, pts[1].uuid)
    visit.undo()          # point 2 back
    visit.undo()          # point 3 back
    visit.redo()          # point 3 gone again
    store.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT slope_pct FROM station WHERE uuid = ?", (s2.uuid,)).fetchone()[0] == -4.0
        kept = {r[0] for r in conn.execute("SELECT uuid FROM ohwm_point")}
    conn.close()
    assert kept == {pts[0].uuid, pts[1].uuid}
    with open_visit(path) as again:
        assert again.visit.stations(t.uuid)[1].slope_pct == -4.0


def test_with_a_far_banks_line_each_ohwm_point_names_its_line(visit):
    """Seen walking the demo: the Records tab listed "OHWM point 1" twice (the far bank's line
    numbers its points from 1 too). One line: "OHWM point 6" as before; two: "... of <line>"."""
    from fieldapp.survey.editing import record_words

    near = visit.add_ohwm_offset_point((X0, Y0), 10.0, horizontal_ft=10.0)
    assert record_words(visit, Layer.OHWM_POINT, near) == "OHWM point 1"
    far_line = visit.add_ohwm_line("OHWM 1 far bank")
    far = visit.add_ohwm_offset_point((X0, Y0), 190.0, horizontal_ft=60.0, line_uuid=far_line.uuid)
    near_label = visit.get(Layer.OHWM_LINE, near.line_uuid).label
    assert record_words(visit, Layer.OHWM_POINT, far) == "OHWM point 1 of OHWM 1 far bank"
    assert record_words(visit, Layer.OHWM_POINT, near) == f"OHWM point 1 of {near_label}"
    assert near_label
