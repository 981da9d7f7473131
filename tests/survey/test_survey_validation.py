"""The model refuses impossible values with InvalidValue naming the field (tester's findings).

Coordinates without a lon/lat, yes/no fields given as text, numbers given as text, and the
documented limits of fieldapp.survey.values (DBH >= 0.1 in, <= 5,000 ft per station or shot,
polygons >= 1 sq ft, species codes <= 64 characters, names <= 200, no control characters).
"""

from __future__ import annotations

import pytest

from fieldapp.survey import AreaKind, InvalidValue, Layer, Visit
from fieldapp.survey import values as V


@pytest.fixture
def wtm():
    """A visit in Wisconsin Transverse Mercator (EPSG:3070) with a point near Madison."""
    v = Visit.new("Madison lot", crs="EPSG:3070", who="t")
    x0, y0 = (float(c) for c in v.frame.to_local(-89.4, 43.07))
    return v, x0, y0


def square(x0, y0, side):
    return [(x0, y0), (x0 + side, y0), (x0 + side, y0 + side), (x0, y0 + side)]


def refused(call, name):
    with pytest.raises(InvalidValue) as e:
        call()
    assert e.value.name == name, (e.value.name, str(e.value))
    return e.value


# ---------------------------------------------------------------- 1. coordinates with no lon/lat
def test_tree_far_outside_the_crs_is_refused_naming_x_or_y(wtm):
    v, x0, y0 = wtm
    err = refused(lambda: v.add_tree(x=1e30, y=1e30, dbh_in=10), "x")
    assert "area of use" in str(err) and "np." not in str(err)
    refused(lambda: v.add_tree(x=x0, y=1e12, dbh_in=10), "y")
    refused(lambda: v.add_note("far", x=1e12, y=y0), "x")
    refused(lambda: v.add_transect(0.0, origin=(x0, 1e12)), "origin_y")
    assert len(v) == 0


def test_area_ring_far_outside_the_crs_is_refused_naming_the_vertex(wtm):
    v, x0, y0 = wtm
    ring = [(x0, y0), (1e12, y0), (1e12, 1e12), (x0, 1e12)]
    err = refused(lambda: v.add_area("wetland", ring), "geometry")
    assert "vertex 1" in str(err)  # the first vertex outside is (1e12, y0)
    refused(lambda: v.add_tree(x=x0, y=y0, dbh_in=10, crown=[(1e12, 0), (1e12 + 5, 0), (1e12, 5)]), "crown")
    walk = v.start_walk(AreaKind.WETLAND, spacing_ft=1)
    refused(lambda: walk.add_vertex(1e12, y0), "x")
    assert v.features(Layer.AREA) == [] and v.trees() == [] and walk.vertices() == []


def test_a_site_just_outside_its_crs_zone_is_still_accepted(wtm):
    v, _, _ = wtm
    # Duluth, MN (lon -92.1, lat 46.8) and the Upper Peninsula (lon -85.5) are outside
    # Wisconsin but well within the 5 degree margin: a crew may pick WTM for a border site.
    for lon, lat in [(-92.1, 46.8), (-85.5, 46.3)]:
        x, y = v.frame.to_local(lon, lat)
        v.add_tree(x=float(x), y=float(y), dbh_in=10)
    assert len(v.trees()) == 2


# ---------------------------------------------------------------- 2. strict types
def test_yes_no_fields_must_be_bool(wtm):
    v, x0, y0 = wtm
    ring = square(x0, y0, 20.0)
    refused(lambda: v.add_area("wetland", ring, standing_water="no"), "standing_water")
    refused(lambda: v.add_area("wetland", ring, hydric_vegetation=1), "hydric_vegetation")
    a = v.add_area("wetland", ring, standing_water=False, hydric_vegetation=True)
    assert a.standing_water is False and a.hydric_vegetation is True
    refused(lambda: v.update_feature(Layer.AREA, a.uuid, standing_water="yes"), "standing_water")
    assert v.get(Layer.AREA, a.uuid).standing_water is False
    t = v.add_transect(0.0, origin=(x0, y0))
    refused(lambda: v.add_station(t.uuid, horizontal_ft=30, slope_pct=3, interruption="no"), "interruption")
    refused(lambda: v.add_station(t.uuid, horizontal_ft=30, slope_pct=3, toward_water="no"), "toward_water")
    st = v.add_station(t.uuid, horizontal_ft=30, slope_pct=3)
    refused(lambda: v.set_interruption(st.uuid, "no"), "interruption")
    assert v.get(Layer.STATION, st.uuid).interruption is False
    with pytest.raises(InvalidValue) as e:
        Visit.new("x", priority_waterway="no")
    assert e.value.name == "priority_waterway"


def test_numbers_must_be_real_numbers_not_text_or_bool(wtm):
    v, x0, y0 = wtm
    refused(lambda: v.add_tree(x=x0, y=y0, dbh_in="12"), "dbh_in")
    refused(lambda: v.add_tree(x=x0, y=y0, dbh_in=True), "dbh_in")
    refused(lambda: v.add_tree(x=str(x0), y=y0, dbh_in=12), "x")
    refused(lambda: v.add_tree(x=x0, y=y0, dbh_in=12, crown_radius_ft="10"), "crown_radius_ft")
    t = v.add_transect(0.0, origin=(x0, y0))
    refused(lambda: v.add_station(t.uuid, horizontal_ft="30", slope_pct=3), "horizontal_ft")
    refused(lambda: v.add_station(t.uuid, horizontal_ft=30, slope_pct="3"), "slope_pct")
    assert v.trees() == [] and v.stations(t.uuid) == []
    tree = v.add_tree(x=x0, y=y0, dbh_in=12)  # an int is a real number: stored as 12.0
    assert tree.dbh_in == 12.0 and type(tree.dbh_in) is float


# ---------------------------------------------------------------- 5. documented limits
def test_dbh_limits(wtm):
    v, x0, y0 = wtm
    assert V.MIN_DBH_IN == 0.1 and V.MAX_DBH_IN == 500.0
    refused(lambda: v.add_tree(x=x0, y=y0, dbh_in=1e-9), "dbh_in")
    refused(lambda: v.add_tree(x=x0, y=y0, dbh_in=0.099), "dbh_in")
    assert v.add_tree(x=x0, y=y0, dbh_in=0.1).dbh_in == 0.1


def test_station_and_shot_distance_limits(wtm):
    v, x0, y0 = wtm
    assert V.MAX_HORIZONTAL_FT == 5000.0
    t = v.add_transect(0.0, origin=(x0, y0))
    refused(lambda: v.add_station(t.uuid, horizontal_ft=1e300, slope_pct=3), "horizontal_ft")
    refused(lambda: v.add_station(t.uuid, horizontal_ft=5000.5, slope_pct=3), "horizontal_ft")
    refused(lambda: v.add_station(t.uuid, slope_distance_ft=1e300, slope_pct=3), "slope_distance_ft")
    assert v.add_station(t.uuid, horizontal_ft=5000.0, slope_pct=3).segment_ft == 5000.0
    refused(lambda: v.add_ohwm_offset_point((x0, y0), 90.0, horizontal_ft=1e300), "horizontal_ft")


def test_degenerate_polygons_below_one_square_foot_are_refused(wtm):
    v, x0, y0 = wtm
    assert V.MIN_AREA_SQFT == 1.0
    # legs of 1e-9 m: 5e-19 m^2 -- a slip, not a feature
    err = refused(lambda: v.add_area("impervious", [(x0, y0), (x0 + 1e-9, y0), (x0, y0 + 1e-9)]), "geometry")
    assert "sq ft" in str(err)
    # a 0.2 m square is 0.04 m^2 = 0.43 sq ft (/ k^2, k = 0.9996): refused
    refused(lambda: v.add_area("impervious", square(x0, y0, 0.2)), "geometry")
    # a 0.5 m square is 0.25 m^2 = 2.69 sq ft: accepted
    a = v.add_area("impervious", square(x0, y0, 0.5))
    assert v.area_sqft(a.uuid) == pytest.approx(0.25 / 0.3048**2 / 0.9996**2, rel=1e-3)
    refused(lambda: v.add_tree(x=x0, y=y0, dbh_in=12, crown=square(x0, y0, 0.2)), "crown")


def test_text_limits_and_control_characters(wtm):
    v, x0, y0 = wtm
    assert (V.MAX_CODE_LEN, V.MAX_NAME_LEN) == (64, 200)
    refused(lambda: v.add_tree(x=x0, y=y0, dbh_in=12, species_code="QU\x00RU"), "species_code")
    refused(lambda: v.add_tree(x=x0, y=y0, dbh_in=12, species_code="Q" * 10_000), "species_code")
    refused(lambda: v.add_tree(x=x0, y=y0, dbh_in=12, species_name="oak\x1b[31m"), "species_name")
    refused(lambda: v.add_tree(x=x0, y=y0, dbh_in=12, species_name="o" * 201), "species_name")
    refused(lambda: v.add_tree(x=x0, y=y0, dbh_in=12, species_code=12), "species_code")
    refused(lambda: v.add_note("bad \x00 byte"), "text")
    t = v.add_tree(x=x0, y=y0, dbh_in=12, species_code="Q" * 64, species_name="Quercus rubra – red oak",
                   notes="two stems\nforked at 6 ft\tcheck")
    assert len(t.species_code) == 64
    assert v.add_note("line one\nline two").text == "line one\nline two"
