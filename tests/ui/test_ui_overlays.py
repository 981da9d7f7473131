"""The map's bank ✕ (fieldapp.app.overlays): drawn at the result's bank distance along the
transect azimuth from its origin whatever the basis, a stipulated bank (NR 341.035(2)(c)) with no
station included."""

from __future__ import annotations

import math

import pytest

from fieldapp.app.overlays import bank_point
from fieldapp.app.visit import open_visit

# a UTM 16N point (metres); the overlays are in site feet (international foot, 0.3048 m)
E0, N0 = 500_000.0, 4_800_000.0


def _ft(m: float) -> float:
    return m / 0.3048


@pytest.mark.parametrize("priority, azimuth, bank_ft", [
    (False, 90.0, 300.0),   # (2)(c)1.: 300 ft, due east
    (True, 0.0, 500.0),     # (2)(c)2.: 500 ft on a priority waterway, due north
])
def test_stipulated_bank_without_stations_gets_its_cross(tmp_path, qtbot, priority, azimuth,
                                                          bank_ft):
    v = open_visit(tmp_path / "v.gpkg", crs="EPSG:32616", priority_waterway=priority)
    try:
        t = v.model.add_transect(azimuth, origin=(E0, N0))
        v.current_transect_uuid = t.uuid
        v.set_stipulated(True)
        v.refresh_checks()
        result = v.bank_check().result
        assert (result["bank_ft"], result["basis"]) == (bank_ft, "stipulation")
        ov = v.overlays()
        # the ✕ is bank_ft from the origin along the azimuth, on the geodesic (pyproj)
        rx, ry = _geodesic_reference(E0, N0, azimuth, bank_ft)
        ex, ey = _ft(rx), _ft(ry)
        banks = [lab for lab in ov["labels"] if lab[2].startswith("bank")]
        assert len(banks) == 1
        x, y, text, _colour = banks[0]
        assert (x, y) == pytest.approx((ex, ey), abs=0.01)
        assert text == f"bank {bank_ft:.0f} ft"

        # and the map draws the red X there (labels starting "bank" get one)
        from fieldapp.ui.mapview import MapView

        view = MapView(redraw_hz=50)
        qtbot.addWidget(view)
        view.resize(600, 400)
        view.update_position(_ft(E0), _ft(N0), 1.0)
        view.set_labels(ov["labels"])
        view.redraw()
        xs, ys = view.bank_points.getData()
        assert len(xs) == 1
        # the map shows feet from its first position (the origin here)
        assert (xs[0], ys[0]) == pytest.approx((ex - _ft(E0), ey - _ft(N0)), abs=0.01)
    finally:
        v.close()


def _geodesic_reference(e, n, azimuth, ground_ft):
    """UTM 16N point ``ground_ft`` (international ft) from (e, n) on a true azimuth, worked with
    pyproj directly (inverse projection, Geod.fwd on WGS 84, forward projection)."""
    from pyproj import Geod, Transformer

    to_ll = Transformer.from_crs("EPSG:32616", "EPSG:4326", always_xy=True)
    lon, lat = to_ll.transform(e, n)
    lon2, lat2, _ = Geod(ellps="WGS84").fwd(lon, lat, azimuth, ground_ft * 0.3048)
    return to_ll.transform(lon2, lat2, direction="INVERSE")


def test_bank_point_is_the_geodesic_like_the_stations_and_report():
    from fieldapp.survey.visit import Visit

    # 200 km west of the central meridian (grid convergence about 1.7 degrees here): a flat
    # grid bearing would put a 500 ft bank more than 5 ft off the geodesic.
    e, n = 300_000.0, 4_800_000.0
    model = Visit.new("convergence", crs="EPSG:32616")
    t = model.add_transect(180.0, origin=(e, n))

    def ft(pts):
        return [(_ft(x), _ft(y)) for x, y in pts]

    x, y, text = bank_point(model, t, {"bank_ft": 500.0, "bank_ft_at_least": 500.0, "basis": "slope"}, ft)
    rx, ry = _geodesic_reference(e, n, 180.0, 500.0)
    assert text == "bank 500 ft"
    assert (x, y) == pytest.approx((_ft(rx), _ft(ry)), abs=0.01)  # within 0.01 ft of pyproj
    flat = (_ft(e), _ft(n) - 500.0)
    assert math.hypot(x - flat[0], y - flat[1]) > 5.0
    # one function: the station at 500 ft lands on the same spot
    assert ft([model.point_on_transect(t, 500.0)])[0] == pytest.approx((x, y), abs=1e-9)
    # not yet known: at the lower bound, labelled "≥"
    x, y, text = bank_point(model, t, {"bank_ft": None, "bank_ft_at_least": 75.0}, ft)
    rx, ry = _geodesic_reference(e, n, 180.0, 75.0)
    assert text == "bank ≥ 75 ft" and (x, y) == pytest.approx((_ft(rx), _ft(ry)), abs=0.01)
    assert bank_point(model, t, None, ft) is None
    assert bank_point(model, t, {"status": "error"}, ft) is None


def test_ticking_stipulated_in_the_app_draws_the_cross(qtbot, private_dirs):
    """End to end: OHWM point, transect at 350°, no station, Stipulated box ticked: the map's
    red X sits 300 ft from the OHWM point along 350° (NR 341.035(2)(c)1.), the profile shows
    its empty frame out to the bank (300 + 25 ft) with the hint."""
    from tests.ui.test_ui_workflows import average_point
    from tests.ui.ui_support import WAIT_MS, close_window, key, make_window

    w = make_window(qtbot, private_dirs, simulate=True)
    try:
        average_point(qtbot, w)
        key(qtbot, w, "Ctrl+2")
        panel = w.panels["transect"]
        panel.azimuth.setValue(350.0)
        key(qtbot, w, "N")
        qtbot.waitUntil(lambda: w.visit.current_transect is not None, timeout=WAIT_MS)
        assert panel.profile.empty_hint.isVisible()
        qtbot.waitUntil(panel.stipulated.isEnabled, timeout=WAIT_MS)
        panel.stipulated.click()
        qtbot.waitUntil(lambda: len(w.map.bank_points.getData()[0]) == 1, timeout=WAIT_MS)
        ox, oy = w.visit.overlays()["lines"]["transects"][0][0]  # the origin, site ft
        lx, ly = w.map._to_local([(ox, oy)])[0]
        xs, ys = w.map.bank_points.getData()
        # 300 ft along 350° true, on the geodesic as the stations: the map's mark is where the
        # model puts a station at 300 ft (grid convergence turns it off the flat 350° bearing)
        m = w.visit.model
        t = w.visit.current_transect
        f = m.frame
        sx, sy = m.point_on_transect(t, 300.0)
        bx, by = w.map._to_local([(float(f.to_ft(sx)), float(f.to_ft(sy)))])[0]
        assert (xs[0], ys[0]) == pytest.approx((bx, by), abs=1e-6)
        # and it is 300 ft away, give or take the grid scale factor (within 0.2 %)
        assert math.hypot(xs[0] - lx, ys[0] - ly) == pytest.approx(300.0, rel=2e-3)
        qtbot.waitUntil(lambda: panel.profile.ground_plot.getViewBox().viewRange()[0][1]
                        == pytest.approx(325.0), timeout=WAIT_MS)
        assert panel.profile.empty_hint.isVisible()
    finally:
        close_window(w)
