"""fieldapp.geo: site CRS, UTM zones, feet, ground lengths and areas."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest
from pyproj import CRS
from pyproj.aoi import AreaOfInterest
from pyproj.database import query_utm_crs_info
from shapely.geometry import Polygon

from fieldapp.geo import (
    FOOT_US_SURVEY_M,
    WGS84,
    Foot,
    NonFiniteCoordinate,
    SiteFrame,
    UnsuitableCRS,
    geodesic_area_m2,
    utm_crs,
    utm_zone,
)


def snyder_tm(lat_deg, lon_deg, lon0_deg, k0=0.9996, a=6378137.0, f=1 / 298.257223563,
              false_e=500000.0, false_n=0.0):
    """Transverse Mercator forward, Snyder (1987) "Map Projections: A Working Manual",
    USGS PP 1395, eqs. 8-9 to 8-15 and 3-21. An independent implementation of the series
    (not PROJ's Poder/Engsager algorithm); good to well under a centimetre within ~1 degree of
    the central meridian."""
    e2 = f * (2 - f)
    ep2 = e2 / (1 - e2)
    phi, lam, lam0 = map(math.radians, (lat_deg, lon_deg, lon0_deg))
    N = a / math.sqrt(1 - e2 * math.sin(phi) ** 2)
    T = math.tan(phi) ** 2
    C = ep2 * math.cos(phi) ** 2
    A = (lam - lam0) * math.cos(phi)
    M = a * ((1 - e2 / 4 - 3 * e2**2 / 64 - 5 * e2**3 / 256) * phi
             - (3 * e2 / 8 + 3 * e2**2 / 32 + 45 * e2**3 / 1024) * math.sin(2 * phi)
             + (15 * e2**2 / 256 + 45 * e2**3 / 1024) * math.sin(4 * phi)
             - (35 * e2**3 / 3072) * math.sin(6 * phi))
    x = k0 * N * (A + (1 - T + C) * A**3 / 6 + (5 - 18 * T + T**2 + 72 * C - 58 * ep2) * A**5 / 120)
    y = k0 * (M + N * math.tan(phi) * (A**2 / 2 + (5 - T + 9 * C + 4 * C**2) * A**4 / 24
                                       + (61 - 58 * T + T**2 + 600 * C - 330 * ep2) * A**6 / 720))
    return false_e + x, false_n + y


def test_utm_10n_point_matches_snyder_series():
    # Near Portland, OR: zone 10 (central meridian 123 W). Expected value from Snyder's series
    # above, computed in the test, not by PROJ.
    lat, lon = 45.52, -122.68
    frame = SiteFrame.for_position(lat, lon)
    assert frame.crs.to_epsg() == 32610
    x, y = frame.to_local(lon, lat)
    ex, ey = snyder_tm(lat, lon, -123.0)
    assert abs(x - ex) < 0.005 and abs(y - ey) < 0.005
    # and a hand-checkable sanity figure: ~25 km east of the CM, ~5,041 km north
    # (0.32 deg x cos(45.52) x 111.3 km x 0.9996 ~ 24.97 km; meridian arc to 45.52 N ~ 5,042.8 km
    # x 0.9996 ~ 5,040.8 km)
    assert 524_900 < x < 525_100 and 5_040_300 < y < 5_041_300


@pytest.mark.parametrize(
    "lat, lon, zone, north",
    [
        (45.0, -120.0, 11, True),  # exactly on the 120 W edge -> zone east of it
        (45.0, -120.000001, 10, True),
        (0.0, 0.0, 31, True),  # equator counts as north
        (-0.000001, 0.0, 31, False),
        (-33.87, 151.21, 56, False),  # Sydney 56H
        (10.0, 180.0, 60, True),  # antimeridian
        (10.0, -180.0, 1, True),
        (60.0, 5.0, 32, True),  # Norway: 32V, not 31V
        (60.0, 2.99, 31, True),
        (64.0, 5.0, 31, True),  # band W, no exception
        (55.99, 5.0, 31, True),  # band U, no exception
        (78.0, 8.99, 31, True),  # Svalbard 31X
        (78.0, 9.0, 33, True),  # 33X
        (78.0, 20.99, 33, True),
        (78.0, 21.0, 35, True),  # 35X
        (78.0, 33.0, 37, True),  # 37X
        (78.0, 41.99, 37, True),
        (78.0, 42.0, 38, True),  # east of the exception
        (71.99, 10.0, 32, True),  # band W below X: ordinary zone 32
    ],
)
def test_utm_zone_edges_and_exceptions(lat, lon, zone, north):
    assert utm_zone(lat, lon) == (zone, north)
    code = utm_crs(lat, lon).to_epsg()
    assert code == (32600 if north else 32700) + zone


def test_ordinary_zone_agrees_with_epsg_area_of_use():
    # Away from edges and exceptions the zone is the only WGS 84 UTM CRS whose EPSG area of use
    # contains the point.
    for lat, lon in [(45.0, -89.5), (-20.0, 47.0), (10.0, 100.5)]:
        infos = query_utm_crs_info(datum_name="WGS 84", area_of_interest=AreaOfInterest(lon, lat, lon, lat))
        assert [int(i.code) for i in infos] == [utm_crs(lat, lon).to_epsg()]


@pytest.mark.parametrize("lat", [84.0, 89.0, -80.01, float("nan")])
def test_polar_or_nan_has_no_utm_zone(lat):
    with pytest.raises(UnsuitableCRS):
        utm_zone(lat, 10.0)


def _square_lonlat(lat0, lon0, side_m):
    """Corners of a side_m square walked on the ellipsoid (north, east, south legs)."""
    lon, lat = [lon0], [lat0]
    for az in (0.0, 90.0, 180.0):
        x, y, _ = WGS84.fwd(lon[-1], lat[-1], az, side_m)
        lon.append(x)
        lat.append(y)
    return lon, lat


@pytest.mark.parametrize("lon0", [-123.0, -120.2, -125.9])  # on the CM and near both edges
def test_100m_square_at_45n_within_005pct_of_geodesic(lon0):
    lon, lat = _square_lonlat(45.0, lon0, 100.0)
    frame = SiteFrame("EPSG:32610")
    x, y = frame.to_local(lon, lat)
    square = Polygon(zip(x, y, strict=True))
    geodesic_m2 = geodesic_area_m2(lon, lat)
    assert abs(geodesic_m2 - 10_000) < 5  # the walked figure is ~1 ha
    area_m2 = frame.area_sqft(square) * 0.3048**2
    assert abs(area_m2 / geodesic_m2 - 1) < 0.0005
    # grid area alone would be off by k^2 (0.08 % on the CM): the reduction matters
    assert frame.foot is Foot.INTERNATIONAL
    assert frame.geodesic_area_sqft(square) == pytest.approx(geodesic_m2 / 0.3048**2, rel=1e-9)


def test_walked_polygon_area_agrees_with_geod_in_state_plane_us_feet():
    # Iowa North (ftUS), EPSG:3417: coordinates in US survey feet, reports in US survey feet.
    lon, lat = _square_lonlat(42.5, -93.6, 250.0)
    lon, lat = lon + [lon[0] + 0.001], lat + [lat[0] - 0.0005]  # an irregular pentagon-ish ring
    frame = SiteFrame(3417)
    assert frame.foot is Foot.US_SURVEY
    assert frame.unit_m == pytest.approx(FOOT_US_SURVEY_M, rel=1e-15)
    x, y = frame.to_local(lon, lat)
    poly = Polygon(zip(x, y, strict=True)).buffer(0)
    ll = frame.to_lonlat(*np.array(poly.exterior.coords).T)
    geodesic_ussqft = geodesic_area_m2(*ll) / FOOT_US_SURVEY_M**2
    assert frame.area_sqft(poly) == pytest.approx(geodesic_ussqft, rel=0.001)
    assert frame.area(poly).foot is Foot.US_SURVEY
    assert "US survey ft" in str(frame.length(poly))


def test_wisconsin_transverse_mercator_is_metres_international_feet():
    frame = SiteFrame("EPSG:3070")
    assert frame.unit_m == 1.0 and frame.foot is Foot.INTERNATIONAL
    # 1 m grid line on the WTM central meridian (90 W, k0 0.9996): 1/0.9996 m on the ground
    x, y = frame.to_local(-90.0, 44.0)
    from shapely.geometry import LineString

    ft = frame.length_ft(LineString([(x, y), (x, y + 1.0)]))
    assert ft == pytest.approx(1 / 0.9996 / 0.3048, rel=1e-6)


def test_web_mercator_is_never_a_site_crs():
    with pytest.raises(UnsuitableCRS, match="Web Mercator"):
        SiteFrame(3857)
    # Why: at 45 N the Web Mercator area of a 100 m square is about twice the true area.
    lon, lat = _square_lonlat(45.0, -123.0, 100.0)
    from pyproj import Transformer

    x, y = Transformer.from_crs(4326, 3857, always_xy=True).transform(lon, lat)
    assert Polygon(zip(x, y, strict=True)).area / geodesic_area_m2(lon, lat) == pytest.approx(2.0, rel=0.01)
    # what we report for the same square (UTM) is the true one
    frame = SiteFrame.for_position(45.0, -123.0)
    ux, uy = frame.to_local(lon, lat)
    assert frame.area_sqft(Polygon(zip(ux, uy, strict=True))) * 0.3048**2 == pytest.approx(10_000, rel=0.0005)


@pytest.mark.parametrize("crs", [4326, "EPSG:4269", "not a crs"])
def test_geographic_or_unknown_crs_refused(crs):
    with pytest.raises(UnsuitableCRS):
        SiteFrame(crs)


def test_non_finite_projection_is_an_error():
    frame = SiteFrame("EPSG:32610")
    with pytest.raises(NonFiniteCoordinate):
        frame.to_local(float("nan"), 45.0)
    with pytest.raises(NonFiniteCoordinate):
        frame.to_local(-123.0, 95.0)  # no such latitude: PROJ returns inf


def test_forward_due_east_on_the_central_meridian():
    # 100 international ft due east from the CM at 45 N: grid dx = 30.48 m * k0 (0.9996) and
    # dy ~ 0 (the geodesic's northing change is d^2 tan(lat)/2N ~ 7e-5 m).
    frame = SiteFrame("EPSG:32610")
    x0, y0 = frame.to_local(-123.0, 45.0)
    x1, y1 = frame.forward(x0, y0, 90.0, 100.0)
    assert x1 - x0 == pytest.approx(30.48 * 0.9996, abs=1e-4)
    assert abs(y1 - y0) < 1e-3


def test_frame_caches_transformers():
    frame = SiteFrame(CRS.from_epsg(32610))
    assert frame._forward is frame._forward
    assert frame.srs_id == 32610


def test_area_of_use_bounds_and_refusal_in_wisconsin_transverse_mercator():
    # EPSG:3070's area of use is Wisconsin, lon -92.89..-86.25, lat 42.48..47.31 (EPSG database).
    # Widened by 5 deg: lon -97.89..-81.25, lat 37.48..52.31. Its projected bounding box must hold
    # the widened corners (SW and NE) and a point in Madison; 1e12 / 1e30 have no lon/lat at all,
    # and Maine (lon -70, ~16 deg east of Wisconsin, x ~ 2.1e6 m) is far outside.
    from fieldapp.geo import AREA_OF_USE_MARGIN_DEG, OutsideAreaOfUse

    frame = SiteFrame("EPSG:3070")
    assert AREA_OF_USE_MARGIN_DEG == 5.0
    xmin, ymin, xmax, ymax = frame.bounds
    for lon, lat in [(-97.89, 37.48), (-81.25, 52.31), (-89.4, 43.07)]:
        x, y = frame.to_local(lon, lat)
        assert xmin - 1e-6 <= x <= xmax + 1e-6 and ymin - 1e-6 <= y <= ymax + 1e-6
        frame.check_xy(x, y)  # accepted
    x_me, y_me = frame.to_local(-70.0, 45.0)
    with pytest.raises(OutsideAreaOfUse) as e:
        frame.check_xy(x_me, y_me)
    assert e.value.axis == "x"
    with pytest.raises(OutsideAreaOfUse, match="area of use") as e:
        frame.check_xy(1e30, 1e30)
    assert e.value.axis == "x" and "1e+30" in str(e.value) and "np." not in str(e.value)
    with pytest.raises(OutsideAreaOfUse) as e:
        frame.check_xy(560_000.0, 1e12)
    assert e.value.axis == "y"
    # arrays: the first bad vertex is named by index
    with pytest.raises(OutsideAreaOfUse) as e:
        frame.check_xy([560_000.0, 560_000.0, 1e12], [447_000.0, 447_100.0, 447_000.0])
    assert e.value.index == 2 and e.value.axis == "x"


def test_area_of_use_one_point_as_floats_or_numpy_alike():
    # A fix's x, y come as Python floats (checked without arrays, ten a second); numpy scalars
    # and one-element lists take the array path: the same refusal, in the same words.
    from fieldapp.geo import OutsideAreaOfUse

    frame = SiteFrame("EPSG:3070")
    x, y = (float(v) for v in frame.to_local(-89.4, 43.07))       # Madison: accepted
    frame.check_xy(x, y)
    frame.check_xy(np.float64(x), np.float64(y))
    for bad in [(float("nan"), y), (x, float("inf")), (1e30, y), (x, -1e12)]:
        said = []
        for form in (lambda v: v, np.float64, lambda v: [v]):
            with pytest.raises(OutsideAreaOfUse) as e:
                frame.check_xy(form(bad[0]), form(bad[1]))
            said.append((str(e.value), e.value.axis))
            assert e.value.index == (0 if isinstance(form(1.0), list) else None)
        assert said[0] == said[1] == said[2], said
        assert said[0][1] == ("x" if bad[1] == y else "y")


def test_area_of_use_across_the_antimeridian():
    # UTM 60N (lon 174..180) widened by 5 deg crosses 180: a point at lon 179.9 and one at
    # lon -178 (2 deg past the antimeridian, inside the margin) are both accepted.
    frame = SiteFrame("EPSG:32660")
    for lon in (179.9, -178.0):
        x, y = frame.to_local(lon, 50.0)
        frame.check_xy(x, y)


def test_pyproj_is_imported_when_a_crs_is_first_needed():
    """The model imports without pyproj (the window shows before a visit's CRS is read); the
    first site frame and the WGS84 geodesics bring it, with the same figures."""
    code = (
        "import sys, fieldapp.survey, fieldapp.geo as geo\n"
        "assert 'pyproj' not in sys.modules, 'pyproj at import'\n"
        "f = geo.SiteFrame('EPSG:32616')\n"
        "assert 'pyproj' in sys.modules\n"
        "az, _, d = geo.WGS84.inv(-89.0, 45.0, -89.0, 45.1)\n"
        "print(round(az, 9), round(d, 3), f.srs_id)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout.split()
    # due north along a meridian; 0.1 degree of latitude at 45.05 N on WGS84: the meridian
    # radius a(1 - e²) / (1 - e² sin²φ)^1.5 = 6,367,438 m, times 0.1 π / 180 = 11,113.3 m
    assert float(out[0]) == 0.0 and float(out[1]) == pytest.approx(11113.3, abs=0.5)
    assert out[2] == "32616"


def test_a_buffer_width_in_ground_feet_stands_that_far_away_on_the_ground():
    """248.5 km east of UTM 15N's central meridian (k = 0.9996 (1 + (E'/R)^2 / 2) = 1.00036) a
    75 ft protective area drawn 75 grid-ft wide would stand 0.027 ft (1/3 in) short on the
    ground; ``from_ground_ft`` gives the grid width whose edge is 75.000 ft away on the
    ellipsoid."""
    from shapely.geometry import Point

    frame = SiteFrame(32615)                          # UTM 15N at 89.9 W: 3.1 degrees east of 93 W
    x, y = frame.to_local(-89.9, 44.0)
    centre = Point(float(x), float(y))
    k = frame.scale_factor(centre.x, centre.y)
    assert float(x) - 500_000 == pytest.approx(248_544, abs=1)
    assert k == pytest.approx(0.9996 * (1 + (248_544 / 6_381_000) ** 2 / 2), abs=5e-6)
    width = frame.from_ground_ft(75.0, centre)
    assert width == pytest.approx(75.0 * 0.3048 * k, rel=1e-12)
    # the buffer's edge due east, measured on the ellipsoid
    lon, lat = frame.to_lonlat(centre.x + width, centre.y)
    from pyproj import Geod

    _, _, metres = Geod(ellps="WGS84").inv(-89.9, 44.0, float(lon), float(lat))
    assert metres / 0.3048 == pytest.approx(75.0, abs=0.002)
    # the plain unit conversion (no scale factor) falls short by 0.027 ft
    assert 75.0 - frame.from_ft(75.0) / k / 0.3048 == pytest.approx(0.027, abs=0.001)
