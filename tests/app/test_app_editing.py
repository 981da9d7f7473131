"""fieldapp.app.editing: the edit form's fields and one-command saves, refusals in field words,
the record a map click picks, the Records rows, delete / undo / redo words (no Qt)."""

from __future__ import annotations

import pytest

from fieldapp.app import editing as E
from fieldapp.app.lines import LineDraft
from fieldapp.app.visit import VisitController
from fieldapp.survey import InvalidValue, Layer, Visit
from fieldapp.survey.errors import StateError

X0, Y0 = 500000.0, 4983000.0   # UTM 16N


@pytest.fixture
def visit(tmp_path):
    return VisitController(Visit.new("Edits", crs="EPSG:32616"), tmp_path / "v.gpkg")


@pytest.mark.parametrize("exc, words", [
    (InvalidValue("dbh_in", "0.0 outside [0.1, 500.0]"), "DBH must be between 0.1 and 500 in (not 0 in)"),
    (InvalidValue("horizontal_ft", "-3.0 outside (0.0, 5000.0]"),
     "Segment length must be more than 0 and at most 5000 ft (not -3 ft)"),
    (InvalidValue("slope_deg", "95.0 outside [-89.0, 89.0]"), "Slope must be within ±89° (not 95°)"),
    (InvalidValue("tributary_area_ac", "-1.0 outside [0.0, inf]"), "Tributary area must be at least 0 ac (not -1 ac)"),
    (InvalidValue("label", "must not be empty"), "Label must not be empty"),
    (StateError("the boundary is not closed"), "the boundary is not closed"),
])
def test_refusals_in_field_words(exc, words):
    assert E.refusal_words(exc) == words


def test_station_form_saves_one_command_and_distance_wins(visit):
    m = visit.model
    t = m.add_transect(90.0, origin=(X0, Y0))
    for seg in (10.0, 20.0):
        m.add_station(t.uuid, horizontal_ft=seg, slope_pct=5.0)
    s1 = m.stations(t.uuid)[0]
    sel = E.Selection(Layer.STATION, s1.uuid)
    values = {f.name: f.value for f in E.form_fields(visit, sel)}
    assert values == {"segment_ft": 10.0, "distance_ft": 10.0, "slope_pct": 5.0, "interruption": False}
    depth = len(m._undo)
    E.apply_form(visit, sel, {**values, "distance_ft": 15.0, "segment_ft": 99.0, "interruption": True})
    assert [s.distance_ft for s in m.stations(t.uuid)] == [15.0, 35.0]
    assert len(m._undo) == depth + 1                    # one correction, one Ctrl+Z
    assert E.undo(visit) == "Undone: station 1 of T1 has its earlier values — Ctrl+Shift+Z does it again"
    with pytest.raises(E.FieldRefused, match="Slope must be a number"):
        E.parse_field(E.form_fields(visit, sel)[2], "steep")


def test_click_picks_the_point_before_the_line_and_the_smallest_area(visit):
    m = visit.model
    f = m.frame
    p = m.add_ohwm_offset_point((X0, Y0), 0.0, horizontal_ft=0.0)
    line = m.add_line("swale", [(X0 - 10, Y0), (X0 + 10, Y0)])
    big = m.add_area("wetland", [(X0 - 100, Y0 - 100), (X0 + 100, Y0 - 100), (X0 + 100, Y0 + 100),
                                 (X0 - 100, Y0 + 100)])
    small = m.add_area("wetland", [(X0 + 40, Y0 + 40), (X0 + 60, Y0 + 40), (X0 + 60, Y0 + 60), (X0 + 40, Y0 + 60)])
    ft = lambda x, y: (float(f.to_ft(x)), float(f.to_ft(y)))  # noqa: E731
    assert E.nearest_record(visit, *ft(X0 + 0.5, Y0), 5.0) == E.Selection(Layer.OHWM_POINT, p.uuid)
    assert E.nearest_record(visit, *ft(X0 + 8, Y0 + 0.5), 5.0) == E.Selection(Layer.LINE, line.uuid)
    assert E.nearest_record(visit, *ft(X0 + 50, Y0 + 50), 5.0) == E.Selection(Layer.AREA, small.uuid)
    assert E.nearest_record(visit, *ft(X0 - 50, Y0 + 50), 5.0) == E.Selection(Layer.AREA, big.uuid)
    words = [w for _, w, _ in E.record_rows(visit)]
    assert words[:2] == ["OHWM point 1", "OHWM line OHWM 1"] and "Swale line" in words


def test_delete_words_and_nothing_to_undo(visit):
    assert E.undo(visit) == "Nothing to undo" and E.redo(visit) == "Nothing to redo"
    pts = [visit.model.add_ohwm_offset_point((X0, Y0 + i), 0.0, horizontal_ft=0.0) for i in range(6)]
    assert E.delete_words(visit, E.Selection(Layer.OHWM_POINT, pts[5].uuid)) == \
        "Deleted OHWM point 6 — Ctrl+Z brings it back"
    assert E.undo(visit).startswith("Undone: OHWM point 6 is back")
    assert E.redo(visit).startswith("Redone: OHWM point 6 is removed")


def test_a_drawn_line_is_one_command_with_its_attributes(visit):
    f = visit.model.frame
    d = LineDraft(visit, "drainageway_centreline", drawing=True)
    for x in (0.0, 50.0, 100.0):
        d.vertex_at_ft(float(f.to_ft(X0 + x)), float(f.to_ft(Y0)))
    assert d.remove_last() and len(d.vertices) == 2
    line = d.finish(label="D1", mapped_stream=True, tributary_area_ac=3.0)
    assert (line.label, line.mapped_stream, line.tributary_area_ac) == ("D1", True, 3.0)
    # 50 m drawn on the central meridian: 50 / 0.3048 / 0.9996 ground ft
    assert f.length_ft(line.geometry) == pytest.approx(50 / 0.3048 / 0.9996, rel=1e-4)
    with pytest.raises(InvalidValue):
        LineDraft(visit, "swale", drawing=True).finish()     # no vertices: refused
