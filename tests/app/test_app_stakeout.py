"""Stake-out in the app: the simulated receiver walks toward the computed bank line of the
sample visit (tests/report/sample_visit.py: EPSG:3070, OHWM along y = y0, T1 at x0 - 30 m
with bank 90 ft, T2 at x0 + 30 m with bank at least 90 ft, both due north).

The reference distance is worked out apart from the app: the bank points placed by hand
(90 ft = 27.432 m on the ground due north of each origin: pyproj's geodesic on the GRS 80
ellipsoid, then projected, so grid convergence and the projection's scale are in them), the fix
projected with its own pyproj transformer, shapely's distance in metres over 0.3048 (EPSG:3070
is in metres; the site's foot is the international foot).
"""

from __future__ import annotations

import datetime as dt

import pytest
from pyproj import Geod, Transformer
from shapely.geometry import LineString, Point

from devices.nmea.assembler import EpochAssembler
from devices.sim.gnss import GnssPath, GnssSim
from fieldapp.app.stakeout import StakeOut, targets
from fieldapp.app.visit import open_visit
from fieldapp.geo import SiteFrame
from fieldapp.survey.features import Layer
from tests.report.sample_visit import LAT0, LON0, build_sample_visit

FT = 0.3048
TO_3070 = Transformer.from_crs(4326, 3070, always_xy=True)
X0, Y0 = TO_3070.transform(LON0, LAT0)
TO_4326 = Transformer.from_crs(3070, 4326, always_xy=True)
GRS80 = Geod(ellps="GRS80")


def north_of(x_m: float, y_m: float, ground_ft: float) -> tuple[float, float]:
    """The EPSG:3070 point ``ground_ft`` (international ft) on the ground due (true) north of
    (x_m, y_m)."""
    lon, lat = TO_4326.transform(x_m, y_m)
    lon2, lat2, _ = GRS80.fwd(lon, lat, 0.0, ground_ft * FT)
    return TO_3070.transform(lon2, lat2)


BANK_M = [north_of(X0 - 30.0, Y0, 90.0), north_of(X0 + 30.0, Y0, 90.0)]


@pytest.fixture
def controller(tmp_path):
    path = tmp_path / "site.gpkg"
    build_sample_visit(path, conflict=False)
    c = open_visit(path)
    c.refresh_checks()
    yield c
    c.close()


def walk(start_m, end_m, seconds, quality="rtk_float", seed=3):
    """Fixes of the simulated receiver walking from ``start_m`` to ``end_m`` (EPSG:3070 m), as
    the app gets them: NMEA from the simulator through the epoch assembler."""
    frame = SiteFrame("EPSG:3070")
    (lo0, la0), (lo1, la1) = frame.to_lonlat(*start_m), frame.to_lonlat(*end_m)
    length = Point(start_m).distance(Point(end_m))
    sim = GnssSim(GnssPath([(la0, lo0), (la1, lo1)], speed_m_s=length / seconds), rate_hz=1.0,
                  quality=quality, seed=seed, start_utc=dt.datetime(2024, 5, 14, 15, 0, tzinfo=dt.UTC))
    asm = EpochAssembler()
    fixes = []
    for n in range(int(seconds) + 3):
        e = sim.epoch(n)
        fixes += asm.feed_many(list(e.sentences), float(n))
    fixes += asm.flush()
    return [f for f in fixes if f.lat_deg is not None]


def test_the_sample_has_the_bank_line_and_the_other_targets(controller):
    keys = {t.key: t for t in targets(controller)}
    line = keys["bank_line"]
    assert line.kind == "line" and line.verdict == "bank"
    # the bank line is where the hand-placed bank points are (grid ft, within 1e-6 ft)
    for (x, y), (ex, ey) in zip(line.geometry.coords, BANK_M, strict=True):
        assert x == pytest.approx(ex / FT, abs=1e-6) and y == pytest.approx(ey / FT, abs=1e-6)
    kinds = {k.split(":")[0] for k in keys}
    assert {"bank_line", "bank", "protective_area", "envelope", "wetland", "point"} <= kinds
    assert all(t.kind == "edge" for k, t in keys.items() if k.startswith(("wetland", "envelope")))


def test_walking_to_the_bank_line_distance_each_fix_and_flag_on_the_line(controller):
    so = StakeOut(controller, tolerance_ft=0.5)
    so.refresh()
    so.choose("bank_line")
    ref_line = LineString(BANK_M)
    # from 60 ft south-east of the line's middle, walking north-west onto its middle
    start = (X0 + 10.0, Y0 + 90 * FT - 60 * FT)
    on_line = ((BANK_M[0][0] + BANK_M[1][0]) / 2, (BANK_M[0][1] + BANK_M[1][1]) / 2)
    fixes = walk(start, on_line, 40)
    assert len(fixes) >= 40
    seen = []
    for fix in fixes:
        g = so.on_fix(fix)
        x, y = TO_3070.transform(fix.lon_deg, fix.lat_deg)
        expected_ft = ref_line.distance(Point(x, y)) / FT
        assert g.distance_ft == pytest.approx(expected_ft, abs=0.01)
        seen.append(g)
    assert seen[0].distance_ft > 55.0 and not seen[0].on_line
    # south of a line digitised west to east is its right side: positive offset
    assert seen[0].offset_ft == pytest.approx(seen[0].distance_ft)
    # walking north-west toward a line due north of us: the bank is ahead-right, about 0 deg true
    assert seen[5].bearing_true_deg == pytest.approx(0.0, abs=1.5) or seen[5].bearing_true_deg > 358.5
    assert seen[5].turn == "right" and 5.0 < seen[5].turn_deg < 60.0
    last = seen[-1]
    assert last.on_line and last.distance_ft <= 0.5
    sp = so.flag(fixes[-1])
    assert abs(sp.offset_ft) <= 0.5 and sp.tolerance_ft == 0.5
    assert sp.target_key == "bank_line" and sp.quality == 5 and not sp.superseded
    assert controller.model.stake_points() == [sp]


def test_a_verdict_that_changes_moves_the_target_and_supersedes_the_flags(controller):
    so = StakeOut(controller)
    so.refresh()
    so.choose("bank_line")
    fixes = walk((X0, Y0 + 80 * FT), (X0, Y0 + 90 * FT), 5, quality="rtk_fixed")
    sp = so.flag(fixes[-1])
    before = so.target.geometry
    # the landowner stipulates T1's bank: 300 ft, NR 341.035(2)(c)1., the bank line moves
    t1 = next(t for t in controller.model.features(Layer.TRANSECT) if t.label == "T1")
    controller.model.set_stipulated(t1.uuid)
    controller.refresh_checks()
    changes = so.refresh()
    assert so.target.key == "bank_line" and not so.target.geometry.equals(before)
    assert so.target.geometry.coords[0][1] == pytest.approx(north_of(X0 - 30.0, Y0, 300.0)[1] / FT, abs=1e-6)
    assert [ch.new.uuid for ch in changes] == [sp.uuid]
    (now,) = controller.model.stake_points()
    assert now.superseded is True and now.offset_ft == sp.offset_ft
    assert so.refresh() == ()       # once: nothing more to mark
    # journalled: the file says so too
    from fieldapp.store import open_visit as store_open

    controller.store.checkpoint()
    with store_open(controller.path, readonly=True) as store:
        (stored,) = store.visit.stake_points()
        assert stored.superseded is True


def test_superseding_is_not_what_undo_takes_back(controller):
    so = StakeOut(controller)
    so.refresh()
    so.choose("bank_line")
    so.flag(walk((X0, Y0 + 80 * FT), (X0, Y0 + 90 * FT), 5, quality="rtk_fixed")[-1])
    t1 = next(t for t in controller.model.features(Layer.TRANSECT) if t.label == "T1")
    controller.model.set_stipulated(t1.uuid)
    controller.refresh_checks()
    so.refresh()
    assert controller.model.stake_points()[0].superseded
    # Ctrl+Z undoes the stipulation (the crew's edit), not the automatic mark
    undone = controller.model.undo()
    assert [ch.layer for ch in undone] == [Layer.TRANSECT]
    # ... and the bank line is back where the flag was put: the flag is current again
    controller.refresh_checks()
    so.refresh()
    assert not controller.model.stake_points()[0].superseded


def test_drainageway_buffer_edge_is_half_the_width_from_the_centreline(controller):
    # a mapped stream with an 8 ft channel: 50 ft beyond each embankment, 54 ft each side
    # (Decorah resource protection, Drainageways A.1); the edge ring lies 54 ft from the line
    m = controller.model
    line = m.add_line("drainageway_centreline", [(X0 + 100.0, Y0), (X0 + 100.0, Y0 + 200.0)],
                      label="Creek", channel_width_ft=8.0, mapped_stream=True)
    controller.refresh_checks()
    (edge,) = [t for t in targets(controller) if t.key.startswith(f"drainageway:{line.uuid}")]
    assert edge.kind == "edge" and edge.verdict == f"drainageway:{line.uuid}"
    centre = LineString([((X0 + 100.0) / FT, Y0 / FT), ((X0 + 100.0) / FT, (Y0 + 200.0) / FT)])
    # every vertex of the edge (the buffer's, on its arcs too) is 54 ft on the ground from the
    # centreline: 54 x 0.9996 grid ft on this central meridian (UTM k0)
    d = [centre.distance(Point(c)) for c in edge.geometry.coords]
    assert min(d) == pytest.approx(54.0 * 0.9996, abs=1e-6) and max(d) == pytest.approx(54.0 * 0.9996, abs=1e-6)
    assert "Drainageway buffer edge 54 ft — Creek" == edge.label


def test_following_only_the_flagged_targets_gives_what_the_full_list_gives(controller):
    """targets(visit, keys) builds just those targets, equal to the full list's; a point by
    its uuid; a key that no longer exists gives nothing."""
    everything = {t.key: t for t in targets(controller)}
    point = next(k for k in everything if k.startswith("point:"))
    ring = next(k for k in everything if k.startswith("protective_area:"))
    wanted = {"bank_line", point, ring, "point:tree:no-such-tree"}
    some = targets(controller, wanted)
    assert {t.key for t in some} == {"bank_line", point, ring}
    for t in some:
        full = everything[t.key]
        assert (t.label, t.signature, t.verdict) == (full.label, full.signature, full.verdict)
        assert t.geometry.equals(full.geometry)


def test_a_hidden_stake_out_supersedes_moved_flags_without_the_full_list(controller, monkeypatch):
    """refresh_staked: no flags and no target -> nothing built at all; a flag whose verdict
    moved is marked superseded and the chosen target follows it, building only its key."""
    import fieldapp.app.stakeout as so_mod

    so = StakeOut(controller)
    asked = []
    real = so_mod.targets
    monkeypatch.setattr(so_mod, "targets", lambda v, keys=None: (asked.append(keys), real(v, keys))[1])
    assert so.refresh_staked() == () and asked == []          # nothing flagged, nothing chosen
    so.refresh()
    so.choose("bank_line")
    sp = so.flag(walk((X0, Y0 + 80 * FT), (X0, Y0 + 90 * FT), 5, quality="rtk_fixed")[-1])
    before = so.target.geometry
    t1 = next(t for t in controller.model.features(Layer.TRANSECT) if t.label == "T1")
    controller.model.set_stipulated(t1.uuid)           # 300 ft bank: the bank line moves
    controller.refresh_checks()
    asked.clear()
    changes = so.refresh_staked()
    assert asked == [{"bank_line"}]
    assert [ch.new.uuid for ch in changes] == [sp.uuid] and controller.model.stake_points()[0].superseded
    assert not so.target.geometry.equals(before)
    assert so.target.geometry.coords[0][1] == pytest.approx(north_of(X0 - 30.0, Y0, 300.0)[1] / FT, abs=1e-6)
    assert so.rebuilds == 1                              # the full list only when asked for


def test_the_points_of_two_ohwm_lines_are_told_apart(controller):
    """Seen walking the demo: after a far-bank offset shot the stake-out list read "OHWM
    point 1, OHWM point 2, OHWM point 1" (each line numbers its points from 1): with two lines
    each point names its line ("OHWM point 1 of OHWM 1 far bank", as the Records tab says)."""
    before = [t.label for t in targets(controller) if t.key.startswith("point:ohwm_point")]
    assert before and all(label.startswith("OHWM point ") for label in before)   # one line: as before
    fix = walk((X0, Y0), (X0, Y0 + 2.0), 4, quality="rtk_fixed")[-1]
    controller.add_offset_point(fix, 180.0, 60.0, far_bank=True)
    lines = {ln.uuid: ln.label for ln in controller.model.features(Layer.OHWM_LINE)}
    assert len(lines) == 2
    labels = [t.label for t in targets(controller) if t.key.startswith("point:ohwm_point")]
    assert len(labels) == len(set(labels)) == len(before) + 1, labels
    far = [label for label in labels if label.startswith("OHWM point 1 of ") and label.endswith("far bank")]
    assert len(far) == 1 and far[0].removeprefix("OHWM point 1 of ") in lines.values(), labels
