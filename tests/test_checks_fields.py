"""The stipulated bank (NR 341.035(2)(c)) and the mapped stream (Drainageways A.1): recorded in
the model by undoable commands, stored, and passed to the rules by fieldapp.checks.

Site in UTM 16N at the central meridian (scale factor 0.9996), as in test_checks.py.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from shapely.geometry import LineString

from fieldapp.checks import requests as R
from fieldapp.checks import requests_for_model
from fieldapp.rules import evaluate
from fieldapp.store import create_visit, open_visit
from fieldapp.survey import Action, InvalidValue, Layer, Visit

X0, Y0 = 500_000.0, 4_983_000.0
K = 0.9996  # grid scale factor on zone 16's central meridian


def clock():
    t = [datetime(2024, 6, 3, 14, 0, tzinfo=UTC)]

    def now():
        t[0] += timedelta(seconds=1)
        return t[0]
    return now


def new_visit(**kw):
    return Visit.new("Mill Creek lot", crs="EPSG:32616", who="tester@laptop", clock=clock(), **kw)


@pytest.fixture
def visit():
    return new_visit()


def transect(visit, segments=((30, 4), (60, 18), (120, 5)), **kw):
    t = visit.add_transect(0.0, origin=(X0, Y0), **kw)
    for h, s in segments:
        visit.add_station(t.uuid, horizontal_ft=h, slope_pct=s)
    return t


def bank(visit, t):
    req = requests_for_model(visit)[f"bank:{t.uuid}"][1]
    return req, evaluate(req)


def feet(visit, ft):
    """Grid metres of ``ft`` ground feet here."""
    return visit.frame.from_ft(ft) * K


# --------------------------------------------------------------------------- stipulated bank
def test_a_stipulated_transect_gets_the_stipulated_bank_and_its_citation(visit):
    t = transect(visit)
    req, res = bank(visit, t)
    # guard: unstipulated it is the contract's first example, bank 90 ft by slope, (1)(a)
    assert "stipulated" not in req["input"]
    assert res["bank_ft"] == pytest.approx(90.0) and res["citation"] == "NR 341.035(1)(a)"
    visit.set_stipulated(t.uuid)
    req, res = bank(visit, t)
    assert req["input"]["stipulated"] is True
    # (2)(c)1.: on a non-priority waterway the stipulated bank is 300 ft
    assert res["status"] == "determined" and res["basis"] == "stipulation"
    assert res["bank_ft"] == pytest.approx(300.0)
    assert res["citation"] == "NR 341.035(2)(c)1."


def test_a_stipulated_transect_is_checked_before_any_station(visit):
    t = visit.add_transect(0.0, origin=(X0, Y0))
    assert f"bank:{t.uuid}" not in requests_for_model(visit)  # guard: no station, no check
    visit.set_stipulated(t.uuid)
    req, res = bank(visit, t)
    # the stipulation replaces the slope survey: 300 ft with no segments at all, (2)(c)1.
    assert req["input"]["segments"] == []
    assert res["status"] == "determined" and res["bank_ft"] == pytest.approx(300.0)
    assert res["citation"] == "NR 341.035(2)(c)1."


def test_priority_waterway_stipulation_is_500_ft():
    v = new_visit(priority_waterway=True)
    t = transect(v, stipulated=True)  # set when the transect is laid out
    assert t.stipulated is True
    _, res = bank(v, t)
    # (2)(c)2.: 500 ft on a priority waterway
    assert res["bank_ft"] == pytest.approx(500.0) and res["citation"] == "NR 341.035(2)(c)2."


def test_an_interruption_still_caps_a_stipulated_bank(visit):
    t = transect(visit)
    visit.set_stipulated(t.uuid)
    visit.set_interruption(visit.stations(t.uuid)[1].uuid)  # at 30 + 60 = 90 ft
    _, res = bank(visit, t)
    # interruption-caps: the complete interruption at 90 ft caps the 300 ft stipulation, (1)(c)
    assert res["bank_ft"] == pytest.approx(90.0) and res["basis"] == "interruption"
    assert res["citation"] == "NR 341.035(1)(c)"


def test_set_stipulated_is_one_undoable_command_with_an_event(visit):
    t = transect(visit)
    seen = []
    visit.subscribe(seen.append)
    new = visit.set_stipulated(t.uuid, True)
    (ch,) = seen[-1]
    assert (ch.action, ch.layer, ch.old.stipulated, ch.new.stipulated) == (Action.UPDATED, Layer.TRANSECT, False, True)
    assert new.modified_utc > t.modified_utc
    visit.undo()
    assert visit.get(Layer.TRANSECT, t.uuid).stipulated is False
    assert seen[-1][0].new.stipulated is False
    visit.set_stipulated(t.uuid)
    visit.set_stipulated(t.uuid, False)  # clearing it is the same command
    assert "stipulated" not in bank(visit, t)[0]["input"]


def test_set_stipulated_refuses_a_non_bool(visit):
    t = transect(visit)
    for bad in ("yes", 1, None):
        with pytest.raises(InvalidValue, match="stipulated"):
            visit.set_stipulated(t.uuid, bad)
    with pytest.raises(InvalidValue, match="stipulated"):
        visit.add_transect(0.0, origin=(X0, Y0), stipulated="no")
    assert visit.get(Layer.TRANSECT, t.uuid).stipulated is False


def test_bank_input_override_still_wins(visit):
    t = transect(visit)
    visit.set_stipulated(t.uuid)
    assert R.bank_input(visit, t.uuid, stipulated=False)["stipulated"] is False
    assert R.bank_input(visit, t.uuid)["stipulated"] is True


# --------------------------------------------------------------------------- mapped stream
def creek(visit, **kw):
    return visit.add_line("drainageway_centreline",
                          LineString([(X0, Y0 + 50), (X0 + feet(visit, 300), Y0 + 50)]),
                          channel_width_ft=8.0, label="Creek", **kw)


def drainageway(visit, line):
    req = requests_for_model(visit)[f"drainageway:{line.uuid}"][1]
    return req, evaluate(req)


def test_a_mapped_stream_is_a_determined_drainageway(visit):
    c = creek(visit)
    req, res = drainageway(visit, c)
    assert "mapped_stream" not in req["input"] and res["status"] == "needs_data"  # guard
    visit.set_mapped_stream(c.uuid, True)
    req, res = drainageway(visit, c)
    assert req["input"]["mapped_stream"] is True
    # Drainageways A.1 / C: half width 8/2 + 50 = 54 ft, total 8 + 100 = 108 ft; 300 ft long
    # -> 32,400 sq ft, at least 75 % = 24,300 sq ft open space
    assert res["status"] == "determined" and res["is_drainageway"] is True
    assert res["half_width_ft"] == pytest.approx(54.0) and res["total_width_ft"] == pytest.approx(108.0)
    assert res["area_sqft"] == pytest.approx(32_400.0, rel=1e-5)
    assert res["min_open_space_sqft"] == pytest.approx(24_300.0, rel=1e-5)
    assert res["citation"] == "Decorah resource protection, Drainageways A.1, C"


def test_an_unmapped_stream_is_checked_as_a_swale(visit):
    # issue 29, Drainageways A.2: a channel not on the maps is a drainageway when 5 acres or
    # more drain to it (25 ft each side of its centreline); it used to be "not a drainageway"
    c = creek(visit, mapped_stream=False)
    req, res = drainageway(visit, c)
    assert req["input"]["mapped_stream"] is False
    assert res["status"] == "needs_data" and "5 acres or more" in res["next_step"]
    visit.update_feature(Layer.LINE, c.uuid, tributary_area_ac=5.0)
    req, res = drainageway(visit, c)
    assert res["status"] == "determined" and res["is_drainageway"] is True
    assert res["total_width_ft"] == 50.0 and res["area_sqft"] == pytest.approx(15_000.0, rel=1e-5)
    assert res["citation"] == "Decorah resource protection, Drainageways A.2, C"
    visit.update_feature(Layer.LINE, c.uuid, tributary_area_ac=4.99)
    req, res = drainageway(visit, c)
    assert res["is_drainageway"] is False and res["total_width_ft"] == 0.0 and res["area_sqft"] == 0.0


def test_set_mapped_stream_undo_and_back_to_unknown(visit):
    c = creek(visit)
    visit.set_mapped_stream(c.uuid, True)
    visit.undo()
    assert visit.get(Layer.LINE, c.uuid).mapped_stream is None
    visit.set_mapped_stream(c.uuid, False)
    visit.set_mapped_stream(c.uuid, None)  # "not checked yet" again
    assert drainageway(visit, c)[1]["status"] == "needs_data"


def test_mapped_stream_only_on_a_drainageway_centreline(visit):
    swale = visit.add_line("swale", LineString([(X0, Y0), (X0 + feet(visit, 200), Y0)]),
                           tributary_area_ac=6.0)
    with pytest.raises(InvalidValue, match="mapped_stream: only a drainageway centreline"):
        visit.set_mapped_stream(swale.uuid, True)
    with pytest.raises(InvalidValue, match="mapped_stream"):
        visit.update_feature(Layer.LINE, swale.uuid, mapped_stream=True)
    with pytest.raises(InvalidValue, match="mapped_stream"):
        visit.add_line("swale", LineString([(X0, Y0), (X0 + 10, Y0)]), mapped_stream=True)
    with pytest.raises(InvalidValue, match="mapped_stream"):
        creek(visit, mapped_stream="yes")
    assert visit.get(Layer.LINE, swale.uuid).mapped_stream is None
    assert len(visit.features(Layer.LINE)) == 1


# --------------------------------------------------------------------------- stored
def test_both_fields_are_stored_and_read_back(tmp_path, visit):
    path = tmp_path / "v.gpkg"
    store = create_visit(path, visit)
    t = transect(visit)
    c = creek(visit)
    visit.set_stipulated(t.uuid)
    visit.set_mapped_stream(c.uuid, False)
    store.close()
    with open_visit(path, readonly=True) as ro:
        assert ro.visit.get(Layer.TRANSECT, t.uuid).stipulated is True
        assert ro.visit.get(Layer.LINE, c.uuid).mapped_stream is False
        assert evaluate(requests_for_model(ro.visit)[f"bank:{t.uuid}"][1])["bank_ft"] == pytest.approx(300.0)
