"""fieldapp.survey: the visit model (plain Python, no Qt, no devices import)."""

from __future__ import annotations

import math
import subprocess
import sys
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest
from shapely.geometry import Polygon

from fieldapp.checks import requests as R
from fieldapp.survey import (
    Action,
    AreaKind,
    InvalidValue,
    Layer,
    LeafHabit,
    North,
    NotEnoughEpochs,
    SelfCrossing,
    StateError,
    TreeStatus,
    Visit,
    WalkState,
)
from fieldapp.survey.gnss import QualityGate


@dataclass(frozen=True)
class Fix:
    """Stand-in with the attribute names of devices.nmea.Fix."""

    lat_deg: float | None
    lon_deg: float | None
    quality: int = 1
    sats_used: int | None = 10
    hdop: float | None = 0.8
    horizontal_accuracy_m: float | None = 0.6
    vertical_accuracy_m: float | None = 1.2
    alt_hae_m: float | None = 300.0
    time_utc: datetime | None = None
    t_monotonic_s: float | None = None


@dataclass(frozen=True)
class Shot:
    horizontal_distance_ft: float | None = None
    slope_distance_ft: float | None = None
    inclination_deg: float | None = None
    slope_pct: float | None = None
    azimuth_deg: float | None = None
    reading_id: str | None = None


T0 = datetime(2024, 6, 3, 15, 0, 0, tzinfo=UTC)


def clock():
    t = [T0]

    def tick():
        t[0] += timedelta(milliseconds=250)
        return t[0]

    return tick


@pytest.fixture
def visit():
    return Visit.new("Mill Creek lot", crs="EPSG:32616", who="tester@laptop", clock=clock(),
                     priority_waterway=False)


def test_model_does_not_import_qt_or_devices():
    code = (
        "import sys, fieldapp.survey, fieldapp.geo\n"
        "bad = [n for n in sys.modules if n.split('.')[0] in ('PySide6', 'pyqtgraph', 'devices')]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_averaging_skips_and_counts_bad_epochs():
    v = Visit.new("x", who="t", clock=clock())  # no CRS yet: the first usable fix picks it
    good = [Fix(45.0, -89.0), Fix(45.00002, -89.0), Fix(45.0, -89.00002), Fix(45.00002, -89.00002)]
    bad = [Fix(None, None), Fix(45.1, -89.1, quality=0), Fix(45.1, -89.1, hdop=12.0),
           Fix(45.1, -89.1, sats_used=2), Fix(45.1, -89.1, quality=6)]
    p = v.average([bad[0], good[0], bad[1], good[1], bad[2], good[2], bad[3], good[3], bad[4]],
                  min_epochs=4)
    assert v.site.crs == "EPSG:32616"  # 89 W is zone 16
    assert p.sample_count == 4 and p.rejected_count == 5
    assert p.rejected_reasons == {"no_position": 1, "quality": 2, "hdop": 1, "sats": 1}
    # the mean of the four good corners is their centre; bad epochs (0.1 deg away) did not move it
    cx, cy = v.frame.to_local(-89.00001, 45.00001)
    assert p.x == pytest.approx(cx, abs=0.01) and p.y == pytest.approx(cy, abs=0.01)
    # std dev: corners are +-0.00001 deg = +-1.11 m north, +-0.79 m east (x cos 45); sample sd
    # of four values +-a is a*sqrt(4/3)
    assert p.std_dev_y_m == pytest.approx(1.1113 * math.sqrt(4 / 3), rel=0.01)
    assert p.std_dev_x_m == pytest.approx(0.7871 * math.sqrt(4 / 3), rel=0.01)
    assert p.worst_fix_quality == 1 and p.h_accuracy_m == pytest.approx(0.6)
    assert p.ground_hae_m == pytest.approx(300.0)
    pt = v.add_ohwm_point(p)
    assert pt.sample_count == 4 and pt.rejected_count == 5 and pt.seq == 0


def test_averaging_worst_quality_and_too_few_epochs(visit):
    p = visit.average([Fix(45.0, -89.0, quality=4), Fix(45.0, -89.0, quality=2), Fix(45.0, -89.0, quality=5)])
    assert p.worst_fix_quality == 2  # DGPS is worse than RTK fixed/float
    with pytest.raises(NotEnoughEpochs) as e:
        visit.average([Fix(45.0, -89.0), Fix(None, None)], min_epochs=2)
    assert e.value.accepted == 1 and e.value.rejected == 1


def test_antenna_height_is_subtracted(visit):
    visit.update_site(antenna_height_m=1.8)
    assert visit.average([Fix(45.0, -89.0, alt_hae_m=250.0)]).ground_hae_m == pytest.approx(248.2)


def test_offset_point_known_answer(visit):
    # Stand on zone 16's central meridian (87 W) at 45 N; shoot magnetic 80 deg with declination
    # +10 (east) = true 90; slope distance 100 ft at +30 deg -> horizontal 86.6025 ft = 26.3965 m.
    # Due east on the CM the grid dx is ground x k0 (0.9996) and dy ~ 0.
    visit.update_site(declination_deg=10.0)
    sx, sy = visit.frame.to_local(-87.0, 45.0)
    pt = visit.add_ohwm_offset_point(
        (sx, sy), shot=Shot(slope_distance_ft=100.0, inclination_deg=30.0, azimuth_deg=80.0, reading_id="rf-7"),
        north=North.MAGNETIC,
    )
    hd_m = 100.0 * math.cos(math.radians(30)) * 0.3048
    assert pt.x - sx == pytest.approx(hd_m * 0.9996, abs=1e-4)
    assert abs(pt.y - sy) < 1e-3
    assert pt.azimuth_true_deg == 90.0 and pt.horizontal_distance_ft == pytest.approx(86.60254, abs=1e-5)
    assert pt.method.value == "offset" and pt.reading_id == "rf-7"
    assert (pt.standing_x, pt.standing_y) == (sx, sy)


def test_transect_segments_feed_the_bank_rule(visit):
    # rules-contract example 1: 30 ft @ 4 %, 60 ft @ 18 %, 120 ft @ 5 %.
    a = visit.add_ohwm_point(visit.average([Fix(45.0, -89.0)]))
    t = visit.add_transect(270.0, ohwm_point_uuid=a.uuid, origin_elevation_ft=100.0)
    visit.add_station(t.uuid, horizontal_ft=30, slope_pct=4)
    # 60 ft horizontal at 18 %: slope distance 60 x sqrt(1 + 0.18^2) = 60.9783 ft
    visit.add_station(t.uuid, slope_distance_ft=60 * math.sqrt(1 + 0.18**2), slope_pct=18)
    # a shot at atan(0.05) looking landward, horizontal given by the instrument
    s3 = visit.add_station(t.uuid, shot=Shot(horizontal_distance_ft=120.0,
                                             inclination_deg=math.degrees(math.atan(0.05)), reading_id="r3"))
    inp = R.bank_input(visit, t.uuid)
    assert inp["priority"] is False and "interruption_at_ft" not in inp
    got = [(s["horizontal_ft"], s["slope_pct"]) for s in inp["segments"]]
    assert got == [pytest.approx((30.0, 4.0)), pytest.approx((60.0, 18.0)), pytest.approx((120.0, 5.0))]
    assert s3.distance_ft == pytest.approx(210.0) and s3.reading_id == "r3"
    # elevations carried by slope: 100 + 1.2 + 10.8 + 6.0
    st = R.stations_input(visit, t.uuid)
    assert [round(s["distance_ft"], 6) for s in st] == [0, 30, 90, 210]
    assert st[-1]["elevation_ft"] == pytest.approx(118.0)
    # station 2 is 90 ft (27.432 m) west of the origin on the ground
    s2 = visit.stations(t.uuid)[1]
    ground_ft = visit.frame.to_ft(math.hypot(s2.x - a.x, s2.y - a.y)) / visit.frame.scale_factor(a.x, a.y)
    assert ground_ft == pytest.approx(90.0, abs=1e-3)
    visit.set_interruption(s2.uuid)
    assert R.bank_input(visit, t.uuid)["interruption_at_ft"] == pytest.approx(90.0)


def test_shot_toward_water_flips_sign(visit):
    t = visit.add_transect(0.0, origin=(500000.0, 4983000.0))
    s = visit.add_station(t.uuid, horizontal_ft=10, inclination_deg=-10.0, toward_water=True)
    assert s.slope_pct == pytest.approx(100 * math.tan(math.radians(10)))


def test_deleting_a_middle_station_restacks_distances(visit):
    t = visit.add_transect(0.0, origin=(500000.0, 4983000.0))
    s1 = visit.add_station(t.uuid, horizontal_ft=10, slope_pct=1)
    visit.add_station(t.uuid, horizontal_ft=20, slope_pct=2)
    visit.delete(Layer.STATION, s1.uuid)
    assert [s.distance_ft for s in visit.stations(t.uuid)] == [20.0]
    visit.undo()
    assert [s.distance_ft for s in visit.stations(t.uuid)] == [10.0, 30.0]


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(horizontal_ft=10, slope_deg=89.5), "slope_deg"),
        (dict(horizontal_ft=10, slope_pct=-6000), "slope_pct"),  # -89.05 deg
        (dict(horizontal_ft=10, slope_pct=float("nan")), "slope_pct"),
        (dict(horizontal_ft=-5, slope_pct=3), "horizontal_ft"),
        (dict(horizontal_ft=0, slope_pct=3), "horizontal_ft"),
        (dict(slope_pct=3), "horizontal_ft"),
        (dict(horizontal_ft=10, inclination_deg=90.0), "inclination_deg"),
    ],
)
def test_impossible_station_refused_nothing_written(visit, kwargs, name):
    t = visit.add_transect(0.0, origin=(500000.0, 4983000.0))
    events = []
    visit.subscribe(events.append)
    with pytest.raises(InvalidValue) as e:
        visit.add_station(t.uuid, **kwargs)
    assert e.value.name == name and name in str(e.value)
    assert visit.stations(t.uuid) == [] and events == []


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(dbh_in=-3), "dbh_in"),
        (dict(dbh_in=0), "dbh_in"),
        (dict(dbh_in=900), "dbh_in"),
        (dict(dbh_in=float("nan")), "dbh_in"),
        (dict(dbh_in=None), "dbh_in"),
        (dict(dbh_in=12, crown_radius_ft=-1), "crown_radius_ft"),
        (dict(dbh_in=12, leaf_habit="needle"), "leaf_habit"),
        (dict(dbh_in=12, crown=[(0, 0), (1, 1), (0, 0)]), "crown"),
    ],
)
def test_impossible_tree_refused(visit, kwargs, name):
    with pytest.raises(InvalidValue) as e:
        visit.add_tree(x=500000.0, y=4983000.0, **kwargs)
    assert e.value.name == name
    assert visit.trees() == []


def test_tree_from_caliper_reading_and_recoverable_delete(visit):
    @dataclass(frozen=True)
    class Caliper:
        dbh_in: float
        species_number: int
        species_label: str
        reading_id: str

    events = []
    visit.subscribe(events.append)
    t = visit.add_tree(x=500010.0, y=4983000.0, caliper=Caliper(14.2, 3, "Quercus rubra", "cal-1"),
                       species_code="QURU", crown_radius_ft=12)
    assert (t.dbh_in, t.species_name, t.caliper_reading_id, t.tag) == (14.2, "Quercus rubra", "cal-1", 1)
    assert t.created_by == "tester@laptop" and t.created_utc.tzinfo is not None
    visit.delete_tree(t.uuid)
    assert visit.trees() == [] and visit.deleted_trees() == [t]
    visit.restore(t.uuid)
    assert visit.trees() == [t]
    visit.delete_tree(t.uuid)
    visit.undo()  # undo the second delete
    assert visit.trees() == [t]
    assert [e[0].action for e in events] == [Action.ADDED, Action.REMOVED, Action.ADDED, Action.REMOVED, Action.ADDED]
    u = visit.update_tree(t.uuid, status="removed")
    assert u.status is TreeStatus.REMOVED and u.modified_utc > t.modified_utc and u.uuid == t.uuid


def test_listener_error_does_not_break_commands(visit):
    visit.subscribe(lambda changes: 1 / 0)
    n = visit.add_note("soil pit at the oak")
    assert visit.features(Layer.NOTE) == [n]


def test_journal_failure_leaves_model_unchanged(visit):
    class Broken:
        def apply(self, changes):
            raise OSError("disk full")

    visit.attach_journal(Broken())
    with pytest.raises(OSError):
        visit.add_tree(x=500000.0, y=4983000.0, dbh_in=10)
    assert visit.trees() == []


def test_crs_cannot_change_after_geometry(visit):
    visit.add_note("x", x=500000.0, y=4983000.0)
    with pytest.raises(StateError):
        visit.set_crs(3070)


def test_polygon_with_too_few_vertices_refused(visit):
    with pytest.raises(InvalidValue, match="3 distinct"):
        visit.add_area(AreaKind.IMPERVIOUS, [(0, 0), (10, 0), (10, 0), (0, 0)])
    with pytest.raises(InvalidValue, match="geometry y"):
        visit.add_area(AreaKind.IMPERVIOUS, [(0, 0), (10, float("nan")), (10, 10)])
    with pytest.raises(InvalidValue, match="not valid"):
        visit.add_area(AreaKind.IMPERVIOUS, [(0, 0), (10, 10), (10, 0), (0, 10)])
    assert visit.features(Layer.AREA) == []


def test_walked_boundary_by_distance_pause_resume_and_live_area(visit):
    w = visit.start_walk(AreaKind.WETLAND, spacing_ft=10.0)
    x0, y0 = 500000.0, 4983000.0
    # walk a 30 m square in 1 m steps; a vertex every >= 10 ft (3.048 m): steps 0,4,8,...
    path = [(x0 + i, y0) for i in range(31)] + [(x0 + 30, y0 + i) for i in range(1, 31)] \
        + [(x0 + 30 - i, y0 + 30) for i in range(1, 31)] + [(x0, y0 + 30 - i) for i in range(1, 30)]
    for i, (x, y) in enumerate(path):
        if i == 70:
            w.pause()
        if i == 75:
            w.resume()
        w.feed_xy(x, y)
    verts = w.vertices()
    assert verts[0] == (x0, y0) and (x0 + 4, y0) in verts
    # paused for path[70:75]: without the pause one of any 5 consecutive 1 m steps is a vertex
    assert not set(path[70:75]) & set(verts)
    k = visit.frame.scale_factor(x0 + 15, y0 + 15)
    assert w.perimeter_ft == pytest.approx(visit.frame.length_ft(Polygon(verts).exterior), rel=1e-9)
    assert 0 < w.area_sqft <= 900 / 0.3048**2 / k**2 + 1e-6
    area = w.close(hydric_vegetation=True, standing_water=False)
    assert visit.get(Layer.WALK, w.uuid).state is WalkState.CLOSED
    assert area.walk_uuid == w.uuid and area.hydric_vegetation is True
    assert R.wetland_size_input(visit, area.uuid)["area_sqft"] == pytest.approx(w.area_sqft)


def test_walk_by_time_interval(visit):
    w = visit.start_walk(AreaKind.DISTURBED, spacing_ft=None, interval_s=5.0)
    for t in range(0, 21):
        w.feed_xy(500000.0 + t * 0.1, 4983000.0 + (t % 2), t_s=float(t))
    assert len(w.vertices()) == 5  # t = 0, 5, 10, 15, 20


def test_self_crossing_detected_and_repair_keeps_every_lobe(visit):
    w = visit.start_walk(AreaKind.WOODLAND_STAND, spacing_ft=1.0)
    x0, y0 = 500000.0, 4983000.0
    for dx, dy in [(0, 0), (100, 100), (100, 0), (0, 100)]:  # a bow-tie
        w.add_vertex(x0 + dx, y0 + dy)
    assert w.crossings() == [(x0 + 50, y0 + 50)]
    with pytest.raises(SelfCrossing) as e:
        w.close()
    assert len(e.value.repaired.geoms) == 2 and e.value.repaired.area == pytest.approx(5000.0)
    assert visit.features(Layer.AREA) == []  # nothing written without the user's say
    area = w.close(repair=True)
    assert area.geometry.area == pytest.approx(5000.0)  # both triangles, 2 x 2500 m^2


def test_track_records_usable_fixes_only(visit):
    visit.start_track()
    got = [visit.on_fix(Fix(45.0 + i * 1e-6, -89.0, quality=q)) for i, q in enumerate([1, 0, 4, 1])]
    assert [g is not None for g in got] == [True, False, True, True]
    assert len(visit.track()) == 3
    visit.stop_track()
    assert visit.on_fix(Fix(45.0, -89.0)) is None
    assert visit.undo() is None  # track points are not undoable commands


def test_gate_settings():
    g = QualityGate(max_h_accuracy_m=1.0)
    assert g.reason(Fix(45.0, -89.0, horizontal_accuracy_m=2.5)) == "accuracy"
    assert g.reason(Fix(45.0, -89.0, quality=8)) == "quality"  # simulated is not a measurement


def test_woodland_input_from_a_stand(visit):
    x0, y0 = 500000.0, 4983000.0
    stand = visit.add_area(AreaKind.WOODLAND_STAND, [(x0, y0), (x0 + 100, y0), (x0 + 100, y0 + 100), (x0, y0 + 100)])
    grove = visit.add_area(AreaKind.GROVE, [(x0, y0), (x0 + 50, y0), (x0 + 50, y0 + 50), (x0, y0 + 50)])
    for i in range(8):
        visit.add_tree(x=x0 + 5 + 5 * i, y=y0 + 10, dbh_in=18.0, leaf_habit=LeafHabit.DECIDUOUS, species_name="oak")
    visit.add_tree(x=x0 + 70, y=y0 + 70, dbh_in=25.0, leaf_habit="evergreen", crown_radius_ft=20)
    inp = R.woodland_input(visit, stand.uuid, grove.uuid)
    assert set(inp) == {"canopy_10in_pct", "deciduous_share_pct", "canopy_3in_pct", "trees"}
    assert len(inp["trees"]) == 8 and inp["trees"][0] == {"dbh_in": 18.0, "leaf_habit": "deciduous", "species": "oak"}
    assert inp["deciduous_share_pct"] == pytest.approx(0.0)  # only the pine has a crown
    assert len(visit.grove_candidates(grove.uuid)) == 8
