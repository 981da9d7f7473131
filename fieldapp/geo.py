"""Local coordinates for a site: the projected CRS, which foot, lengths and areas on the ground.

Fixes arrive as WGS84 longitude/latitude. Every length, area and buffer is worked in one
projected CRS chosen per site (:class:`SiteFrame`): by default the UTM zone of the first usable fix
(:func:`utm_zone`, with the Norway and Svalbard exceptions), or any projected EPSG code the user
picks (Wisconsin Transverse Mercator ``EPSG:3070``, Iowa North in US survey feet ``EPSG:3417`` …).
shapely is Cartesian and unit-less, so geometry in this module and in :mod:`fieldapp.survey` is
always in the site CRS's own unit; :class:`SiteFrame` converts to feet and says which foot.

Ground, not grid
----------------
A projected CRS distorts scale a little (UTM: 0.9996 on the central meridian, up to ~1.001 at
a zone edge). Lengths and areas reported here are reduced to the ellipsoid ("grid to ground")
with the point scale factor from PROJ at the feature's centroid
(``pyproj.Proj.get_factors``): length / k, area / k². For a walked polygon this agrees with
pyproj's geodesic area (``Geod.geometry_area_perimeter``) to about 1e-6.

Which foot
----------
Lengths are in feet, areas in square feet and acres (43,560 sq ft), labelled with the foot:
international (0.3048 m) unless the CRS's own unit is the US survey foot (1200/3937 m), in which
case the US survey foot is used so numbers match the plats. :class:`Measure` carries the label.

Errors
------
``GeoError`` (base, also a ``ValueError``)
    ``UnsuitableCRS``   geographic, Web Mercator, polar (no UTM zone) or unknown CRS;
    ``NonFiniteCoordinate``  a transform produced inf/NaN (the point is never stored);
    ``OutsideAreaOfUse``  an x, y far outside the CRS's area of use (:meth:`SiteFrame.check_xy`).

Area of use
-----------
A projected CRS is only meaningful near the area it was defined for (``CRS.area_of_use``, from
the EPSG database). :meth:`SiteFrame.check_xy` refuses a site-CRS coordinate outside that area
widened by :data:`AREA_OF_USE_MARGIN_DEG` (5°) of latitude and longitude on every side, projected
into the CRS (``Transformer.transform_bounds``, densified) — a generous margin: a site a few
hundred km outside the CRS's zone still passes, while 1e12 or 1e30 (no lon/lat at all) does not.
A CRS without an area of use gets only the inverse-transform check (finite lon/lat).
"""

from __future__ import annotations

import enum
import functools
import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from functools import cached_property
from typing import TYPE_CHECKING, Any, NoReturn, overload

import numpy as np
import numpy.typing as npt
import shapely

if TYPE_CHECKING:
    import pyproj
    from pyproj import CRS, Geod
    from pyproj.database import CRSInfo

    #: The WGS84 ellipsoid's geodesics, made at first use (the module ``__getattr__`` below).
    WGS84: Geod

# pyproj (with the urllib, ssl and email modules it brings) is imported when a CRS is first
# needed, not with this module: the window shows before any visit's CRS is read.

__all__ = [
    "FOOT_INTERNATIONAL_M",
    "FOOT_US_SURVEY_M",
    "SQFT_PER_ACRE",
    "Foot",
    "Measure",
    "GeoError",
    "UnsuitableCRS",
    "NonFiniteCoordinate",
    "OutsideAreaOfUse",
    "AREA_OF_USE_MARGIN_DEG",
    "utm_zone",
    "utm_crs",
    "SiteFrame",
    "geodesic_area_m2",
    "WGS84",
    "wisconsin_counties",
    "wisconsin_place_words",
]

FOOT_INTERNATIONAL_M = 0.3048
FOOT_US_SURVEY_M = 1200.0 / 3937.0
SQFT_PER_ACRE = 43560.0


#: Coordinates as arrays of floats (numpy), as :meth:`SiteFrame.to_local` takes and gives them.
Coords = npt.NDArray[np.float64]


@functools.lru_cache(maxsize=1)
def _wgs84() -> Geod:
    """The WGS84 ellipsoid's geodesics (``pyproj.Geod``): the module attribute ``WGS84``."""
    from pyproj import Geod

    return Geod(ellps="WGS84")


def __getattr__(name: str) -> Geod:
    if name == "WGS84":     # made at first use (pyproj is imported then)
        return _wgs84()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

# Degrees of latitude/longitude added on every side of a CRS's area of use before coordinates
# in it are refused (see "Area of use" in the module docstring).
AREA_OF_USE_MARGIN_DEG = 5.0

# Web Mercator and its aliases: conformal, but its scale is sec(lat) (x1.41 at 45 N); areas in it
# are never what we report, so it is refused as a site CRS.
_WEB_MERCATOR_METHODS = {"Popular Visualisation Pseudo Mercator"}
_WEB_MERCATOR_CODES = {3857, 3785, 900913, 102100, 102113}


class GeoError(ValueError):
    """Base of this module's errors."""


class UnsuitableCRS(GeoError):
    """The CRS cannot be a site CRS (geographic, Web Mercator, unknown, or no UTM zone)."""


class NonFiniteCoordinate(GeoError):
    """A transform gave an infinite or NaN coordinate; the point must not be stored."""


class OutsideAreaOfUse(GeoError):
    """A site-CRS coordinate lies far outside the CRS's area of use (it has no sensible lon/lat).

    Attributes
    ----------
    axis : str
        ``"x"`` or ``"y"`` (the coordinate at fault), or ``"x/y"`` when the inverse transform
        fails for the pair.
    index : int or None
        Index of the offending vertex when an array of coordinates was checked.
    """

    def __init__(self, message: str, axis: str, index: int | None = None) -> None:
        super().__init__(message)
        self.axis = axis
        self.index = index


class Foot(enum.Enum):
    """Which foot a length is in. ``value`` is the label used in reports and the store."""

    INTERNATIONAL = "international"
    US_SURVEY = "us_survey"

    @property
    def metres(self) -> float:
        """Length of this foot in metres (0.3048, or 1200/3937 for the US survey foot)."""
        return FOOT_INTERNATIONAL_M if self is Foot.INTERNATIONAL else FOOT_US_SURVEY_M

    @property
    def label(self) -> str:
        """``"international ft"`` or ``"US survey ft"``."""
        return "international ft" if self is Foot.INTERNATIONAL else "US survey ft"


@dataclass(frozen=True)
class Measure:
    """A length or area with its unit and foot, e.g. ``Measure(100.0, "ft", Foot.INTERNATIONAL)``.

    ``unit`` is one of ``"ft"``, ``"sqft"``, ``"ac"``. ``float(m)`` gives the number.

    >>> str(Measure(12.5, "ft", Foot.US_SURVEY))
    '12.5 ft (US survey ft)'
    """

    value: float
    unit: str
    foot: Foot

    def __float__(self) -> float:
        return float(self.value)

    def __str__(self) -> str:
        return f"{self.value:g} {self.unit} ({self.foot.label})"


def utm_zone(lat_deg: float, lon_deg: float) -> tuple[int, bool]:
    """UTM zone number and hemisphere for a WGS84 position.

    The rule (NGA.SIG.0012_2.0.0_UTMUPS, "The Universal Grids", §2; also DMA TM 8358.2):
    zone = floor((lon + 180) / 6) + 1, so a point exactly on a zone edge belongs to the zone
    east of it, and lon = 180 is zone 60. Exceptions: band V (56° ≤ lat < 64°) with
    3° ≤ lon < 12° is zone 32 (southwest Norway); band X (72° ≤ lat < 84°) uses zones
    31 (0°-9°), 33 (9°-21°), 35 (21°-33°) and 37 (33°-42°) (Svalbard).
    UTM covers 80° S to 84° N; the polar caps use UPS and are refused here.

    Parameters
    ----------
    lat_deg, lon_deg : float
        WGS84 latitude (-80 ≤ lat < 84) and longitude (-180 ≤ lon ≤ 180) in degrees.

    Returns
    -------
    (zone, north) : (int, bool)
        Zone 1..60 and True for the northern hemisphere (lat ≥ 0).

    Raises
    ------
    UnsuitableCRS
        Latitude outside UTM (polar) or non-finite / out-of-range input.

    Examples
    --------
    >>> utm_zone(45.0, -122.5)
    (10, True)
    >>> utm_zone(60.0, 5.0)   # Norway: 32V, not 31V
    (32, True)
    >>> utm_zone(78.0, 10.0)  # Svalbard: 33X
    (33, True)
    """
    if not (math.isfinite(lat_deg) and math.isfinite(lon_deg)):
        raise UnsuitableCRS(f"lat_deg/lon_deg must be finite, got {lat_deg!r}, {lon_deg!r}")
    if not -180.0 <= lon_deg <= 180.0:
        raise UnsuitableCRS(f"lon_deg {lon_deg!r} outside -180..180")
    if not -80.0 <= lat_deg < 84.0:
        raise UnsuitableCRS(
            f"lat_deg {lat_deg!r} is outside UTM (80 S to 84 N, polar areas use UPS); "
            "choose a site CRS by EPSG code"
        )
    zone = min(int(math.floor((lon_deg + 180.0) / 6.0)) + 1, 60)
    if 56.0 <= lat_deg < 64.0 and 3.0 <= lon_deg < 12.0:
        zone = 32
    elif 72.0 <= lat_deg < 84.0 and 0.0 <= lon_deg < 42.0:
        if lon_deg < 9.0:
            zone = 31
        elif lon_deg < 21.0:
            zone = 33
        elif lon_deg < 33.0:
            zone = 35
        else:
            zone = 37
    return zone, lat_deg >= 0.0


def utm_crs(lat_deg: float, lon_deg: float) -> CRS:
    """The WGS 84 / UTM CRS for a position, looked up in the PROJ (EPSG) database.

    The zone comes from :func:`utm_zone`; the CRS object is the EPSG one found with
    ``pyproj.database.query_crs_info`` by its name ("WGS 84 / UTM zone 10N" is EPSG:32610).

    >>> utm_crs(45.0, -122.5).to_epsg()
    32610
    """
    from pyproj import CRS

    zone, north = utm_zone(lat_deg, lon_deg)
    codes = _UTM_CODES if _UTM_CODES is not None else _fill_utm_codes()
    try:
        return CRS.from_epsg(codes[(zone, north)])
    except KeyError as exc:  # pragma: no cover - the EPSG database has all 120
        raise UnsuitableCRS(f"no EPSG code for UTM zone {zone}{'N' if north else 'S'}") from exc


_UTM_CODES: dict[tuple[int, bool], int] | None = None


def _fill_utm_codes() -> dict[tuple[int, bool], int]:
    """Build (zone, north) -> EPSG code from the PROJ database, once; returns it."""
    global _UTM_CODES
    from pyproj.database import query_crs_info
    from pyproj.enums import PJType

    codes: dict[tuple[int, bool], int] = {}
    for info in query_crs_info(auth_name="EPSG", pj_types=PJType.PROJECTED_CRS):
        if info.deprecated or not info.name.startswith("WGS 84 / UTM zone "):
            continue
        tail = info.name.removeprefix("WGS 84 / UTM zone ")
        if tail[:-1].isdigit() and tail[-1] in "NS":
            codes[(int(tail[:-1]), tail[-1] == "N")] = int(info.code)
    _UTM_CODES = codes
    return codes


def geodesic_area_m2(lon_deg: Iterable[float], lat_deg: Iterable[float]) -> float:
    """Absolute ellipsoidal (WGS84) area in m² of a ring given in degrees (pyproj ``Geod``)."""
    area, _ = _wgs84().polygon_area_perimeter(list(lon_deg), list(lat_deg))
    return abs(area)


class SiteFrame:
    """The projected CRS of one site with its cached transformers and foot.

    Parameters
    ----------
    crs : anything ``pyproj.CRS.from_user_input`` takes
        ``"EPSG:32610"``, ``3070``, a WKT string, a ``CRS``. Must be projected, with the same
        linear unit on both horizontal axes, and not Web Mercator.

    Raises
    ------
    UnsuitableCRS
        Unknown, geographic, Web Mercator, or mixed-unit CRS.

    Attributes
    ----------
    crs : pyproj.CRS
    unit_m : float
        Metres per CRS unit (1.0 for UTM, 1200/3937 for a US survey foot state plane).
    foot : Foot
        The foot lengths are reported in.

    Examples
    --------
    >>> f = SiteFrame("EPSG:3417")     # Iowa North, US survey feet
    >>> f.foot.value
    'us_survey'
    >>> round(f.to_ft(1.0), 12)        # one CRS unit is one US survey foot
    1.0
    """

    def __init__(self, crs: Any) -> None:
        import pyproj
        from pyproj import CRS, Transformer

        try:
            site_crs = CRS.from_user_input(crs)
        except pyproj.exceptions.CRSError as exc:
            raise UnsuitableCRS(f"unknown CRS {crs!r}: {exc}") from exc
        if not site_crs.is_projected:
            raise UnsuitableCRS(f"site CRS must be projected, {site_crs.name!r} is not")
        op = site_crs.coordinate_operation
        if site_crs.to_epsg() in _WEB_MERCATOR_CODES or (
            op is not None and op.method_name in _WEB_MERCATOR_METHODS
        ):
            raise UnsuitableCRS(
                f"{site_crs.name!r} is Web Mercator: its scale is sec(latitude), so lengths and "
                "areas in it are wrong; choose UTM or a state/county CRS"
            )
        axes = [a for a in site_crs.axis_info if a.direction.lower() in ("east", "north")]
        factors = {a.unit_conversion_factor for a in axes}
        if len(axes) != 2 or len(factors) != 1:
            raise UnsuitableCRS(f"{site_crs.name!r} lacks east/north axes in one linear unit")
        self.crs: CRS = site_crs
        self.unit_m = float(factors.pop())
        unit_names = {a.unit_name for a in axes}
        self.foot = Foot.US_SURVEY if unit_names == {"US survey foot"} else Foot.INTERNATIONAL
        self._forward = Transformer.from_crs(CRS.from_epsg(4326), site_crs, always_xy=True)
        self._inverse = Transformer.from_crs(site_crs, CRS.from_epsg(4326), always_xy=True)

    # -- identity -----------------------------------------------------------------------------
    @cached_property
    def srs_id(self) -> int | None:
        """EPSG code when the CRS has one (used as the GeoPackage ``srs_id``), else None."""
        return self.crs.to_epsg()

    @property
    def name(self) -> str:
        return self.crs.name

    def __repr__(self) -> str:
        return f"SiteFrame({self.crs.to_string()!r}, foot={self.foot.value})"

    @classmethod
    def for_position(cls, lat_deg: float, lon_deg: float) -> SiteFrame:
        """The default frame: the UTM zone of this position (:func:`utm_crs`)."""
        return cls(utm_crs(lat_deg, lon_deg))

    # -- transforms ---------------------------------------------------------------------------
    @overload
    def to_local(self, lon_deg: float, lat_deg: float) -> tuple[float, float]: ...
    @overload
    def to_local(self, lon_deg: Coords, lat_deg: Coords) -> tuple[Coords, Coords]: ...

    def to_local(self, lon_deg: float | Coords, lat_deg: float | Coords) -> tuple[Any, Any]:
        """WGS84 lon/lat (degrees, scalars or arrays) → site CRS x, y (CRS units).

        Raises
        ------
        NonFiniteCoordinate
            Non-finite input or output (e.g. a position far outside the CRS's area).
        """
        x, y = self._forward.transform(lon_deg, lat_deg, errcheck=False)
        if type(x) is float and type(y) is float:      # one point (pyproj's scalars): no arrays
            finite = math.isfinite(x) and math.isfinite(y)
        else:
            finite = bool(np.all(np.isfinite(x)) and np.all(np.isfinite(y)))
        if not finite:
            raise NonFiniteCoordinate(
                f"lon/lat ({lon_deg!r}, {lat_deg!r}) has no finite position in {self.crs.name!r}"
            )
        return x, y

    @overload
    def to_lonlat(self, x: float, y: float) -> tuple[float, float]: ...
    @overload
    def to_lonlat(self, x: Coords, y: Coords) -> tuple[Coords, Coords]: ...

    def to_lonlat(self, x: float | Coords, y: float | Coords) -> tuple[Any, Any]:
        """Site CRS x, y → WGS84 lon, lat in degrees.  Raises ``NonFiniteCoordinate``."""
        lon, lat = self._inverse.transform(x, y, errcheck=False)
        if not (np.all(np.isfinite(lon)) and np.all(np.isfinite(lat))):
            raise NonFiniteCoordinate(f"x/y ({x!r}, {y!r}) has no finite lon/lat")
        return lon, lat

    # -- area of use ---------------------------------------------------------------------------
    @cached_property
    def bounds(self) -> tuple[float, float, float, float] | None:
        """(xmin, ymin, xmax, ymax) in CRS units: the area of use widened by
        :data:`AREA_OF_USE_MARGIN_DEG`, projected; None when the CRS has no area of use.

        Sides that do not project to a finite value are left open (±inf).
        """
        aou = self.crs.area_of_use
        if aou is None:
            return None
        m = AREA_OF_USE_MARGIN_DEG
        south, north = max(aou.south - m, -90.0), min(aou.north + m, 90.0)
        west, east = aou.west - m, aou.east + m
        # width in longitude (an area crossing the antimeridian has west > east)
        span = (aou.east - aou.west) % 360.0 + 2 * m if aou.west > aou.east else east - west
        if span >= 360.0:
            west, east = -180.0, 180.0
        else:
            west = (west + 180.0) % 360.0 - 180.0
            east = (east + 180.0) % 360.0 - 180.0
            if east == -180.0:
                east = 180.0
        import pyproj

        try:
            xmin, ymin, xmax, ymax = self._forward.transform_bounds(
                west, south, east, north, densify_pts=41, errcheck=False
            )
        except pyproj.exceptions.ProjError:  # pragma: no cover - PROJ could not bound it
            return None
        def fix(v: float, inf: float) -> float:
            return v if math.isfinite(v) else inf

        return (fix(xmin, -math.inf), fix(ymin, -math.inf), fix(xmax, math.inf), fix(ymax, math.inf))

    def outside(self, x: npt.ArrayLike, y: npt.ArrayLike) -> npt.NDArray[np.bool_]:
        """Boolean mask of the coordinates :meth:`check_xy` would refuse (vectorised)."""
        xa = np.atleast_1d(np.asarray(x, dtype=float))
        ya = np.atleast_1d(np.asarray(y, dtype=float))
        bad = ~(np.isfinite(xa) & np.isfinite(ya))
        b = self.bounds
        if b is not None:
            bad |= ~((xa >= b[0]) & (xa <= b[2]) & (ya >= b[1]) & (ya <= b[3]))
        ok = ~bad
        if ok.any():
            lon, lat = self._inverse.transform(xa[ok], ya[ok], errcheck=False)
            lon, lat = np.asarray(lon), np.asarray(lat)
            bad[ok] = ~(np.isfinite(lon) & np.isfinite(lat) & (np.abs(lat) <= 90.0))
        mask: npt.NDArray[np.bool_] = bad
        return mask

    def check_xy(self, x: float | npt.ArrayLike, y: float | npt.ArrayLike) -> None:
        """Refuse site-CRS coordinates far outside the CRS's area of use.

        Parameters
        ----------
        x, y : float or array of float
            Coordinates in CRS units (already known to be finite).

        Raises
        ------
        OutsideAreaOfUse
            A coordinate outside :attr:`bounds`, or an x, y whose inverse transform is not a
            finite lon/lat. ``.axis`` names ``x`` or ``y``; ``.index`` the vertex for arrays.
        """
        b = self.bounds
        if type(x) is float and type(y) is float:   # one point (a fix, ten a second): no arrays
            if b is not None:
                for axis, v, lo, hi in (("x", x, b[0], b[2]), ("y", y, b[1], b[3])):
                    if not lo <= v <= hi:
                        self._refuse_outside(axis, v, lo, hi, None)
            lon, lat = self._inverse.transform(x, y, errcheck=False)
            if not (math.isfinite(lon) and math.isfinite(lat) and abs(lat) <= 90.0):
                self._refuse_no_lonlat(x, y, None)
            return
        xa = np.atleast_1d(np.asarray(x, dtype=float))
        ya = np.atleast_1d(np.asarray(y, dtype=float))
        scalar = np.ndim(x) == 0
        if b is not None:
            for axis, vals, lo, hi in (("x", xa, b[0], b[2]), ("y", ya, b[1], b[3])):
                bad = np.nonzero(~((vals >= lo) & (vals <= hi)))[0]
                if len(bad):
                    i = int(bad[0])
                    self._refuse_outside(axis, float(vals[i]), lo, hi, None if scalar else i)
        lon, lat = self._inverse.transform(xa, ya, errcheck=False)
        lon, lat = np.asarray(lon), np.asarray(lat)
        bad = np.nonzero(~(np.isfinite(lon) & np.isfinite(lat) & (np.abs(lat) <= 90.0)))[0]
        if len(bad):
            i = int(bad[0])
            self._refuse_no_lonlat(float(xa[i]), float(ya[i]), None if scalar else i)

    def _refuse_outside(self, axis: str, v: float, lo: float, hi: float, index: int | None) -> NoReturn:
        raise OutsideAreaOfUse(
            f"{axis} {v!r} is outside the area of use of {self.crs.name!r} ({axis} {lo:.0f} to "
            f"{hi:.0f} {self._unit_name}, with a {AREA_OF_USE_MARGIN_DEG:g}° margin)", axis, index)

    def _refuse_no_lonlat(self, x: float, y: float, index: int | None) -> NoReturn:
        raise OutsideAreaOfUse(f"x/y ({x!r}, {y!r}) has no lon/lat in {self.crs.name!r}", "x/y", index)

    @cached_property
    def _unit_name(self) -> str:
        return self.crs.axis_info[0].unit_name

    # -- units --------------------------------------------------------------------------------
    def to_ft(self, length_crs: float) -> float:
        """A grid length in CRS units → feet of :attr:`foot` (no scale-factor reduction)."""
        return length_crs * self.unit_m / self.foot.metres

    def from_ft(self, length_ft: float) -> float:
        """Feet of :attr:`foot` → CRS units."""
        return length_ft * self.foot.metres / self.unit_m

    def from_ground_ft(self, length_ft: float, at: shapely.Geometry) -> float:
        """A ground length in feet of :attr:`foot` → grid length in CRS units at ``at``: the
        width to buffer a feature by so that its edge lies ``length_ft`` away on the ground.

        :meth:`from_ft` times the point scale factor at the centroid of ``at`` (the inverse of
        :meth:`length_ft`): a 75 ft protective area drawn 75 grid-feet wide near a UTM zone's edge
        (k ≈ 1.001) would stand about 0.9 in short of 75 ft on the ground.
        """
        return self.from_ft(length_ft) * self._k_at(at)

    def scale_factor(self, x: float, y: float) -> float:
        """Point scale factor k at x, y (grid length = k × ground length); ``sqrt(areal_scale)``."""
        lon, lat = self.to_lonlat(x, y)
        return math.sqrt(self._proj.get_factors(lon, lat).areal_scale)

    @cached_property
    def _proj(self) -> pyproj.Proj:
        import pyproj

        return pyproj.Proj(self.crs)

    def _k_at(self, geom: shapely.Geometry) -> float:
        c = shapely.centroid(geom)
        if c.is_empty:
            return 1.0
        return self.scale_factor(c.x, c.y)

    def length_ft(self, geom: shapely.Geometry) -> float:
        """Ground length (ft of :attr:`foot`) of a shapely geometry in site CRS units.

        Grid length reduced by the scale factor at the centroid. A polygon gives its perimeter.
        """
        grid = float(shapely.length(geom))
        if grid == 0.0:
            return 0.0
        return self.to_ft(grid) / self._k_at(geom)

    def area_sqft(self, geom: shapely.Geometry) -> float:
        """Ground area (sq ft of :attr:`foot`) of a shapely geometry in site CRS units.

        Grid area reduced by k² at the centroid; agrees with ``Geod`` area to ~1e-6 for sites.
        """
        grid = float(shapely.area(geom))
        if grid == 0.0:
            return 0.0
        return grid * (self.unit_m / self.foot.metres) ** 2 / self._k_at(geom) ** 2

    def area_ac(self, geom: shapely.Geometry) -> float:
        """Ground area in acres (43,560 sq ft of :attr:`foot`)."""
        return self.area_sqft(geom) / SQFT_PER_ACRE

    def length(self, geom: shapely.Geometry) -> Measure:
        """:meth:`length_ft` labelled with its foot."""
        return Measure(self.length_ft(geom), "ft", self.foot)

    def area(self, geom: shapely.Geometry) -> Measure:
        """:meth:`area_sqft` labelled with its foot."""
        return Measure(self.area_sqft(geom), "sqft", self.foot)

    def acres(self, geom: shapely.Geometry) -> Measure:
        """:meth:`area_ac` labelled with its foot."""
        return Measure(self.area_ac(geom), "ac", self.foot)

    # -- geodesic helpers -----------------------------------------------------------------------
    def forward(self, x: float, y: float, azimuth_true_deg: float, ground_ft: float) -> tuple[float, float]:
        """The point ``ground_ft`` (ft of :attr:`foot`) from (x, y) on a true azimuth.

        Solved on the WGS84 ellipsoid (``Geod.fwd``, the direct geodesic problem), so grid
        convergence and scale are handled; returns site CRS x, y.
        """
        lon, lat = self.to_lonlat(x, y)
        lon2, lat2, _ = _wgs84().fwd(lon, lat, azimuth_true_deg, ground_ft * self.foot.metres)
        return self.to_local(lon2, lat2)

    def geodesic_area_sqft(self, geom: shapely.Geometry) -> float:
        """Ellipsoidal area (pyproj ``Geod``) of a site-CRS polygon, sq ft of :attr:`foot`."""
        ll = shapely.transform(geom, lambda xy: np.column_stack(self.to_lonlat(xy[:, 0], xy[:, 1])))
        area, _ = _wgs84().geometry_area_perimeter(ll)
        return abs(area) / self.foot.metres**2


# --------------------------------------------------------------------------- magnetic declination
def wmm_declination(lat_deg: float, lon_deg: float, on: date, height_m: float = 0.0) -> tuple[float, str]:
    """Magnetic declination at a place and date from the World Magnetic Model (``pygeomag``).

    Parameters
    ----------
    lat_deg, lon_deg : float
        WGS 84 latitude and longitude, degrees (north / east positive).
    on : datetime.date
        The day (the model's secular variation moves declination by up to ~0.2° a year).
    height_m : float
        Height above the WGS 84 ellipsoid, metres.

    Returns
    -------
    (declination_deg, model) : (float, str)
        Degrees east of true north (east positive: true azimuth = magnetic + declination), and
        the model used, e.g. ``"WMM-2025"``.

    Raises
    ------
    ValueError
        A position or date the model does not cover (before 2010, or after the newest model's
        five-year life), in words; the declination must then be entered by hand.

    Examples
    --------
    NOAA's published WMM2020 test value: 2020.5, 6 km, 36° S 137° W -> 20.16° E.

    >>> d, model = wmm_declination(-36.0, -137.0, date(2020, 7, 2), 6000.0)
    >>> round(d, 2), model
    (20.16, 'WMM-2020')
    """
    from pygeomag import GeoMag, decimal_year_from_date

    lat, lon = float(lat_deg), float(lon_deg)
    if not (math.isfinite(lat) and math.isfinite(lon)) or abs(lat) > 90 or abs(lon) > 180:
        raise ValueError(f"no declination for position {lat_deg}, {lon_deg}")
    year = decimal_year_from_date(on)
    try:
        geo_mag = GeoMag(base_year=year)
        result = geo_mag.calculate(glat=lat, glon=lon, alt=float(height_m) / 1000.0, time=year)
    except Exception as exc:  # noqa: BLE001 - pygeomag raises plain Exceptions for the date range
        raise ValueError(f"the World Magnetic Model has no declination for {on.isoformat()} "
                         f"({exc}); enter it by hand") from exc
    if not math.isfinite(result.d):
        raise ValueError(f"the World Magnetic Model gave no declination at {lat}, {lon}")
    return float(result.d), str(geo_mag.model or "WMM")


# -- finding a site CRS by name or code -------------------------------------------------------
_FOOT_WORDS = (("us survey feet", "ftus"), ("us survey foot", "ftus"), ("survey feet", "ftus"),
               ("survey foot", "ftus"), ("us feet", "ftus"), ("usft", "ftus"), ("us ft", "ftus"))


@functools.lru_cache(maxsize=1)
def _projected_crs_list() -> tuple[CRSInfo, ...]:
    """Every non-deprecated EPSG projected CRS in PROJ's database (``pyproj.database``; about
    5,300, read once: ~1 s)."""
    from pyproj.database import query_crs_info
    from pyproj.enums import PJType

    return tuple(query_crs_info(auth_name="EPSG", pj_types=PJType.PROJECTED_CRS, allow_deprecated=False))


def find_projected_crs(text: str, *, near: tuple[float, float] | None = None,
                       limit: int = 50) -> list[tuple[str, str]]:
    """Projected CRSs of PROJ's database matching ``text`` as (code, name) pairs.

    Every word of ``text`` must occur in the name (case-insensitive), or ``text`` is the code
    (``8159``, ``EPSG:8159``); "US survey feet" / "usft" match the ``(ftUS)`` of the names.
    With ``near`` = (lat, lon) the CRSs whose area of use holds that point come first. At most
    ``limit`` results; none for an empty ``text``. Web Mercator is left out (not a site CRS).
    Returns e.g. ``[("EPSG:7599", "NAD83(2011) / WISCRS Dane (ftUS)"), ...]``.

    >>> find_projected_crs("wiscrs dane us survey feet")[0]
    ('EPSG:7599', 'NAD83(2011) / WISCRS Dane (ftUS)')
    >>> find_projected_crs("EPSG:32616")
    [('EPSG:32616', 'WGS 84 / UTM zone 16N')]
    """
    q = " ".join(str(text).lower().split())
    if not q:
        return []
    for phrase, short in _FOOT_WORDS:
        q = q.replace(phrase, short)
    code = q.removeprefix("epsg:").strip()
    rows = _projected_crs_list()
    if code.isdigit():
        hits = [r for r in rows if r.code == code]
    else:
        words = q.split()
        hits = [r for r in rows if all(w in r.name.lower() for w in words)]
    hits = [r for r in hits if int(r.code) not in _WEB_MERCATOR_CODES]
    if near is not None:
        lat, lon = near

        def holds(r: CRSInfo) -> bool:
            a = r.area_of_use
            return a is not None and a.south <= lat <= a.north and a.west <= lon <= a.east

        hits.sort(key=lambda r: not holds(r))
    return [(f"EPSG:{r.code}", r.name) for r in hits[:limit]]


@functools.lru_cache(maxsize=64)
def wisconsin_counties(lat_deg: float, lon_deg: float) -> tuple[str, ...]:
    """The Wisconsin counties whose county coordinate system (WISCRS, PROJ's database) holds the
    position (WGS84 degrees), named as the systems name them (``("Vernon",)``; two or more where
    one system serves several counties, ``("Adams", "Juneau")``, or near a county line, since
    PROJ's areas of use are boxes); () outside Wisconsin.

    >>> wisconsin_counties(43.592, -90.642), wisconsin_counties(43.3035, -91.786)
    (('Vernon',), ())
    """
    from pyproj.aoi import AreaOfInterest
    from pyproj.database import query_crs_info
    from pyproj.enums import PJType

    found = query_crs_info(auth_name="EPSG", pj_types=PJType.PROJECTED_CRS, contains=True,
                           area_of_interest=AreaOfInterest(lon_deg, lat_deg, lon_deg, lat_deg))
    names: list[str] = []
    for info in found:
        head = "NAD83(2011) / WISCRS "
        if info.deprecated or not info.name.startswith(head) or not info.name.endswith(" (ftUS)"):
            continue
        for part in info.name[len(head):-len(" (ftUS)")].replace(" and ", ", ").split(", "):
            if part and part not in names:
                names.append(part)
    return tuple(sorted(names))


def wisconsin_place_words(lat_deg: float, lon_deg: float) -> str | None:
    """Where the position is, for the rule sets' sentence: ``"Vernon County, Wisconsin"``,
    ``"Adams or Juneau County, Wisconsin"`` (:func:`wisconsin_counties`); None outside
    Wisconsin."""
    counties = wisconsin_counties(lat_deg, lon_deg)
    if not counties:
        return None
    return (", ".join(counties[:-1]) + " or " if len(counties) > 1 else "") \
        + f"{counties[-1]} County, Wisconsin"
