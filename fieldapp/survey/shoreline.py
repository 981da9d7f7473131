"""Shoreline commands of the visit: OHWM lines and points, transects and stations.

The NR 341.035 bank survey: the ordinary high-water mark (OHWM) walked as averaged or offset
points, transects run landward from it on an azimuth, and stations shot along each transect
(horizontal distance ft, slope percent, interruptions, a stipulated bank). One part of
:class:`~fieldapp.survey.visit.Visit`, which composes this mixin: the commands build records
and hand them to the visit's ``_commit`` (validation, journal, memory, events, undo) exactly as
the visit's other commands do; they read the visit's site, frame, gate and clock.

Readings are read through :class:`~fieldapp.survey.readings.ShotLike` (a rangefinder shot)
and :class:`~fieldapp.survey.gnss.FixLike` (a GNSS fix).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import shapely
from shapely.geometry import LineString

from ..geo import FOOT_INTERNATIONAL_M
from . import values as V
from .core import VisitCore, new_of
from .devicelog import kept_reading
from .errors import InvalidValue
from .features import (
    Action,
    Change,
    Feature,
    Instrument,
    Layer,
    OhwmLine,
    OhwmPoint,
    PointMethod,
    Station,
    Transect,
)
from .gnss import (
    AveragedPosition,
    FixLike,
    North,
    average_fixes,
    correction_fields,
    horizontal_from_slope_ft,
    true_azimuth,
)
from .readings import ShotLike
from .readings import reading_id as _reading_id
from .validation import ms, validate

__all__ = ["ShorelineCommands", "doubles_back"]


def doubles_back(xy: list[tuple[float, float]], near: float = 0.0) -> tuple[int, int] | None:
    """Where a line through ``xy`` (in order) runs back over itself: ``(i, j)``, the first two
    legs (leg ``i`` runs from point ``i`` to ``i + 1``, 0-based; ``j > i``) that cross, touch or
    come within ``near`` (CRS units) of each other; two legs in a row count when the walk turns
    back onto the leg before (the next point within ``near`` of it, or the one before within
    ``near`` of the next leg). Points within ``near`` of the one before count as one. None when
    no legs do so (or under 3 points).

    An OHWM line joins its points in the order they were taken: points taken out of order
    along the bank make a line that runs back over itself (and a bank, protective area or
    stake-out line measured from the wrong places). Walking back, a point is never exactly on
    the legs before: ``near`` is the tolerance (the caller's: 3 ft for OHWM points).

    >>> doubles_back([(0, 0), (10, 0), (20, 0)]) is None
    True
    >>> doubles_back([(0, 0), (10, 0), (20, 0), (5, 0.5)], near=1.0)   # back along the first legs
    (0, 2)
    >>> doubles_back([(0, 0), (10, 0), (10, 10), (5, -5)])   # the third leg crosses the first
    (0, 2)
    >>> doubles_back([(0, 0), (10, 0), (4, 0.5)], near=1.0)  # turned straight back
    (0, 1)
    """
    keep = [0]
    for k in range(1, len(xy)):
        if math.dist(xy[k], xy[keep[-1]]) > near:
            keep.append(k)
    if len(keep) < 3:
        return None
    pts = [xy[k] for k in keep]
    legs = [LineString(pts[k:k + 2]) for k in range(len(pts) - 1)]
    for i, a in enumerate(legs):
        for j in range(i + 1, len(legs)):
            b = legs[j]
            if j == i + 1:
                back = (b.distance(shapely.Point(pts[i])) <= near
                        or a.distance(shapely.Point(pts[j + 1])) <= near)
            else:
                back = a.distance(b) <= near
            if back:                        # legs of the kept points -> of the points given
                return keep[i + 1] - 1, keep[j + 1] - 1
    return None


class ShorelineCommands(VisitCore):
    """OHWM and transect commands of a :class:`~fieldapp.survey.visit.Visit` (a mixin)."""

    def _follow_delete(self, layer: Layer, old: Feature) -> list[Change]:
        """A deleted OHWM point's line takes the points left; a deleted station's later stations
        close up on its transect (distances from the OHWM carried) and the transect follows."""
        if isinstance(old, OhwmPoint):
            return self._line_geometry_change(old.line_uuid, removing=old.uuid)
        if isinstance(old, Station):
            return self._station_restack(old.transect_uuid, removing=old.uuid)
        return super()._follow_delete(layer, old)

    # ---------------------------------------------------------------- OHWM
    def add_ohwm_line(self, label: str = "", water_feature: str | None = None) -> OhwmLine:
        """Start a new OHWM line (points are added with ``add_ohwm_point``)."""
        line = OhwmLine(**self._stamp(), label=V.text("label", label), water_feature=water_feature)
        return new_of(OhwmLine, self._commit([Change(Action.ADDED, Layer.OHWM_LINE, line)])[0])

    def _line_for(self, line_uuid: str | None) -> tuple[str, list[Change]]:
        if line_uuid is not None:
            self.get(Layer.OHWM_LINE, line_uuid)
            return line_uuid, []
        lines = self.features(Layer.OHWM_LINE)
        if lines:
            return lines[-1].uuid, []
        line = OhwmLine(**self._stamp(), label="OHWM 1")
        return line.uuid, [Change(Action.ADDED, Layer.OHWM_LINE, line)]

    def _line_geometry_change(self, line_uuid: str, *, adding: OhwmPoint | None = None, removing: str | None = None,
                              pending: OhwmLine | None = None) -> list[Change]:
        """The UPDATED change of a line whose points change (geometry follows point order)."""
        pts = [p for p in self.children(Layer.OHWM_POINT, line_uuid) if p.uuid != removing]
        if adding is not None:
            pts.append(adding)
        geom = LineString([(p.x, p.y) for p in pts]) if len(pts) >= 2 else None
        old = pending if pending is not None else self.record(OhwmLine, line_uuid)
        new = replace(old, geometry=geom, modified_utc=ms(self._clock()))
        if pending is not None:
            return [Change(Action.ADDED, Layer.OHWM_LINE, new)]
        return [Change(Action.UPDATED, Layer.OHWM_LINE, new, old)]

    def _add_point(self, line_uuid: str | None, **fields: Any) -> OhwmPoint:
        line_uuid, pre = self._line_for(line_uuid)
        pending = pre[0].new if pre else None
        seq = max((p.seq for p in self.children(Layer.OHWM_POINT, line_uuid)), default=-1) + 1
        pt = OhwmPoint(**self._stamp(), line_uuid=line_uuid, seq=seq, **fields)
        pt = validate(pt)
        return new_of(OhwmPoint, self._commit(self._line_geometry_change(line_uuid, adding=pt, pending=pending)
                                              + [Change(Action.ADDED, Layer.OHWM_POINT, pt)])[-1])

    def add_ohwm_point(self, position: AveragedPosition, line_uuid: str | None = None) -> OhwmPoint:
        """Add an averaged OHWM point (from :meth:`average`) to a line (default: the last one)."""
        return self._add_point(line_uuid, **_gnss_fields(position), method=PointMethod.AVERAGED)

    def average(self, fixes: Iterable[FixLike], *, min_epochs: int = 1) -> AveragedPosition:
        """Average usable epochs (visit gate, site antenna height) into a site-CRS position.

        The site CRS is picked from the first usable fix if not set. Raises NotEnoughEpochs.
        """
        fixes = list(fixes)
        if self._frame is None:
            first = next((f for f in fixes if self.gate.usable(f)), None)
            self.ensure_frame(first)
        return average_fixes(
            fixes, self.frame, min_epochs=min_epochs, gate=self.gate,
            antenna_height_m=self._site.antenna_height_m,
        )

    def add_ohwm_offset_point(
        self,
        standing: AveragedPosition | FixLike | tuple[float, float],
        azimuth_deg: float | None = None,
        *,
        north: North = North.TRUE,
        horizontal_ft: float | None = None,
        slope_distance_ft: float | None = None,
        inclination_deg: float | None = None,
        shot: ShotLike | None = None,
        reading_id: str | None = None,
        line_uuid: str | None = None,
    ) -> OhwmPoint:
        """Add an OHWM point shot from where the crew stands (offset point).

        Parameters
        ----------
        standing : AveragedPosition, a fix, or (x, y) in site CRS units
            Where the instrument stands.
        azimuth_deg : float
            Bearing to the target, degrees; with ``north=North.MAGNETIC`` the site's
            ``declination_deg`` (east positive) is added.
        horizontal_ft, or slope_distance_ft and inclination_deg, or shot
            Horizontal distance (international ft), or HD = SD·cos(inclination), or a
            rangefinder shot (``horizontal_distance_ft``/``slope_distance_ft``,
            ``inclination_deg``, ``azimuth_deg``).

        The target is solved on the ellipsoid (``Geod.fwd``) and projected.
        """
        gnss: dict[str, Any] = {}
        if isinstance(standing, AveragedPosition):
            sx, sy = standing.x, standing.y
            gnss = _gnss_fields(standing)
        elif isinstance(standing, tuple):
            sx, sy = self._xy(*standing)
        else:
            sx, sy = self._xy(fix=standing)
            gnss = dict(worst_fix_quality=int(standing.quality), sample_count=1,
                        hdop=standing.hdop, h_accuracy_m=standing.horizontal_accuracy_m,
                        fix_time_utc=ms(standing.time_utc), **correction_fields([standing]))
        if shot is not None:
            if azimuth_deg is None:
                azimuth_deg = shot.azimuth_deg
            horizontal_ft = horizontal_ft if horizontal_ft is not None else shot.horizontal_distance_ft
            slope_distance_ft = slope_distance_ft if slope_distance_ft is not None else shot.slope_distance_ft
            inclination_deg = inclination_deg if inclination_deg is not None else shot.inclination_deg
            reading_id = reading_id or _reading_id(shot)
        if azimuth_deg is None:
            raise InvalidValue("azimuth_deg", "an offset point needs an azimuth")
        az = true_azimuth(azimuth_deg, north, self._site.declination_deg)
        if North(north) is North.MAGNETIC:     # what was measured and what was applied
            gnss["azimuth_mag_deg"] = V.in_range("azimuth_deg", azimuth_deg, 0.0, 360.0)
            gnss["declination_deg"] = self._site.declination_deg
        if horizontal_ft is None:
            if slope_distance_ft is None or inclination_deg is None:
                raise InvalidValue("horizontal_ft", "give horizontal_ft, or slope_distance_ft and inclination_deg")
            horizontal_ft = horizontal_from_slope_ft(slope_distance_ft, inclination_deg)
        hd = V.in_range("horizontal_ft", horizontal_ft, 0.0, V.MAX_HORIZONTAL_FT)
        tx, ty = self.frame.forward(sx, sy, az, hd * FOOT_INTERNATIONAL_M / self.frame.foot.metres)
        gnss.pop("x", None), gnss.pop("y", None)
        return self._add_point(
            line_uuid, x=float(tx), y=float(ty), method=PointMethod.OFFSET,
            standing_x=sx, standing_y=sy, azimuth_true_deg=az, horizontal_distance_ft=hd,
            reading_id=reading_id, **gnss,
        )

    def ohwm_geometry(self, line_uuid: str | None = None) -> LineString | None:
        """The OHWM LineString (site CRS), None below two points."""
        lines = self.features(Layer.OHWM_LINE)
        if line_uuid is None:
            if not lines:
                return None
            line_uuid = lines[-1].uuid
        geometry: LineString | None = self.record(OhwmLine, line_uuid).geometry
        return geometry

    # ---------------------------------------------------------------- transects
    def add_transect(
        self,
        azimuth_deg: float,
        *,
        origin: tuple[float, float] | None = None,
        ohwm_point_uuid: str | None = None,
        line_uuid: str | None = None,
        north: North = North.TRUE,
        label: str = "",
        origin_elevation_ft: float | None = None,
        stipulated: bool = False,
    ) -> Transect:
        """A transect from the OHWM, landward on ``azimuth_deg``.

        The origin is an OHWM point, or ``origin`` (x, y) moved onto the nearest point of the
        OHWM line when there is one. ``origin_elevation_ft`` lets stations carry elevations.
        ``stipulated``: the bank distance is stipulated here (see :meth:`set_stipulated`).
        """
        az = true_azimuth(azimuth_deg, north, self._site.declination_deg)
        corrections: dict[str, Any] = {}
        if ohwm_point_uuid is not None:
            p = self.get(Layer.OHWM_POINT, ohwm_point_uuid)
            ox, oy, line_uuid = p.x, p.y, p.line_uuid
            corrections = dict(correction_age_s=p.correction_age_s, correction_mount=p.correction_mount)
        elif origin is not None:
            ox, oy = self._xy(*origin, name="origin")
            geom = self.ohwm_geometry(line_uuid)
            if geom is not None:
                snapped = geom.interpolate(geom.project(shapely.Point(ox, oy)))
                ox, oy = snapped.x, snapped.y
                if line_uuid is None:
                    line_uuid = self.features(Layer.OHWM_LINE)[-1].uuid
        else:
            raise InvalidValue("origin", "give origin (x, y) or ohwm_point_uuid")
        t = Transect(
            **self._stamp(), label=V.text("label", label) or f"T{len(self._data[Layer.TRANSECT]) + 1}",
            line_uuid=line_uuid, origin_x=float(ox), origin_y=float(oy), azimuth_true_deg=az,
            origin_elevation_ft=V.optional_finite("origin_elevation_ft", origin_elevation_ft),
            stipulated=V.boolean("stipulated", stipulated), **corrections,
        )
        return new_of(Transect, self._commit([Change(Action.ADDED, Layer.TRANSECT, t)])[0])

    def stations(self, transect_uuid: str) -> list[Station]:
        """Stations of a transect in order (landward)."""
        self.get(Layer.TRANSECT, transect_uuid)
        return self.children(Layer.STATION, transect_uuid)

    def add_station(
        self,
        transect_uuid: str,
        *,
        horizontal_ft: float | None = None,
        slope_pct: float | None = None,
        slope_deg: float | None = None,
        slope_distance_ft: float | None = None,
        inclination_deg: float | None = None,
        shot: ShotLike | None = None,
        toward_water: bool = False,
        elevation_ft: float | None = None,
        interruption: bool = False,
        reading_id: str | None = None,
    ) -> Station:
        """Add the next station: the segment from the previous station (or the OHWM).

        Give the segment's horizontal length (``horizontal_ft``, or ``slope_distance_ft`` which
        is reduced with the slope: HD = SD·cos(incl) = SD/√(1+(pct/100)²)) and its slope
        (``slope_pct``, ``slope_deg``, or ``inclination_deg``: pct = 100·tan), or a rangefinder
        ``shot``. Slope is positive when the ground rises landward; a shot taken looking back
        toward the water has ``toward_water=True`` and its inclination's sign is flipped.
        Elevation is taken as given, else carried from the previous one by the slope when the
        origin elevation is known.

        Raises
        ------
        InvalidValue
            Non-finite input, slope beyond ±89°, zero or negative horizontal length.
        """
        t = self.get(Layer.TRANSECT, transect_uuid)
        kept = None
        if shot is not None:
            horizontal_ft = horizontal_ft if horizontal_ft is not None else shot.horizontal_distance_ft
            slope_distance_ft = slope_distance_ft if slope_distance_ft is not None else shot.slope_distance_ft
            if inclination_deg is None and slope_pct is None and slope_deg is None:
                inclination_deg = shot.inclination_deg
                if inclination_deg is None:
                    slope_pct = shot.slope_pct
            if reading_id is None:      # the shot's sentence kept, the station naming it
                kept = kept_reading(shot, Instrument.RANGEFINDER, self._stamp(), self._clock())
                reading_id = kept.uuid if kept is not None else _reading_id(shot)
        if inclination_deg is not None and slope_pct is None and slope_deg is None:
            slope_deg = V.in_range("inclination_deg", inclination_deg, -V.MAX_SLOPE_DEG, V.MAX_SLOPE_DEG)
        pct = V.slope_pct_from(slope_pct, slope_deg)
        if V.boolean("toward_water", toward_water):
            pct = -pct
        if horizontal_ft is None:
            if slope_distance_ft is None:
                raise InvalidValue("horizontal_ft", "give horizontal_ft or slope_distance_ft")
            sd = V.in_range("slope_distance_ft", slope_distance_ft, 0.0, V.MAX_HORIZONTAL_FT, low_open=True)
            horizontal_ft = sd / math.sqrt(1.0 + (pct / 100.0) ** 2)
        seg = V.in_range("horizontal_ft", horizontal_ft, 0.0, V.MAX_HORIZONTAL_FT, low_open=True)
        prev = self.children(Layer.STATION, transect_uuid)
        last_d = prev[-1].distance_ft if prev else 0.0
        last_e = prev[-1].elevation_ft if prev else t.origin_elevation_ft
        if elevation_ft is None and last_e is not None:
            elevation_ft = last_e + seg * pct / 100.0
        dist = last_d + seg
        x, y = self._station_xy(t, dist)
        st = Station(
            **self._stamp(), transect_uuid=transect_uuid, seq=(prev[-1].seq + 1) if prev else 0,
            distance_ft=dist, segment_ft=seg, slope_pct=pct, x=x, y=y,
            slope_distance_ft=V.optional_finite("slope_distance_ft", slope_distance_ft),
            inclination_deg=V.optional_finite("inclination_deg", inclination_deg),
            elevation_ft=V.optional_finite("elevation_ft", elevation_ft),
            reading_id=reading_id, interruption=V.boolean("interruption", interruption),
            **self._shot_azimuth(shot),
        )
        changes = [Change(Action.ADDED, Layer.STATION, st)]
        changes += self._transect_geometry_change(t, [*prev, st])
        if kept is not None:
            changes.append(Change(Action.ADDED, Layer.DEVICE_READING, kept))
        return new_of(Station, self._commit(changes)[0])

    def _shot_azimuth(self, shot: ShotLike | None) -> dict[str, float]:
        """A shot's magnetic azimuth (degrees) and the site declination applied to it, for the
        station it makes (empty without a shot azimuth)."""
        az = getattr(shot, "azimuth_deg", None) if shot is not None else None
        if az is None:
            return {}
        return {"azimuth_mag_deg": V.in_range("azimuth_deg", float(az) % 360.0, 0.0, 360.0),
                "declination_deg": self._site.declination_deg}

    def point_on_transect(self, t: Transect, distance_ft: float) -> tuple[float, float]:
        """Site-CRS (x, y) of the point ``distance_ft`` horizontal ft (international foot, as
        the rules' distances) from the transect's origin along its true azimuth.

        The one place stations, the map's bank mark and the report's bank points are placed:
        solved on the ellipsoid (:meth:`fieldapp.geo.SiteFrame.forward`), so grid convergence
        and scale are handled.
        """
        x, y = self.frame.forward(t.origin_x, t.origin_y, t.azimuth_true_deg,
                                  distance_ft * FOOT_INTERNATIONAL_M / self.frame.foot.metres)
        return float(x), float(y)

    def _station_xy(self, t: Transect, distance_ft: float) -> tuple[float, float]:
        return self.point_on_transect(t, distance_ft)

    def _transect_geometry_change(self, t: Transect, stations: list[Station]) -> list[Change]:
        geom = LineString([(t.origin_x, t.origin_y), (stations[-1].x, stations[-1].y)]) if stations else None
        new = replace(t, geometry=geom, modified_utc=ms(self._clock()))
        return [Change(Action.UPDATED, Layer.TRANSECT, new, t)]

    def _station_restack(self, transect_uuid: str, removing: str) -> list[Change]:
        t = self.get(Layer.TRANSECT, transect_uuid)
        keep = [s for s in self.children(Layer.STATION, transect_uuid) if s.uuid != removing]
        changes, d, out = [], 0.0, []
        for s in keep:
            d += s.segment_ft
            if abs(d - s.distance_ft) > 1e-9:
                x, y = self._station_xy(t, d)
                new = replace(s, distance_ft=d, x=x, y=y, modified_utc=ms(self._clock()))
                changes.append(Change(Action.UPDATED, Layer.STATION, new, s))
                s = new
            out.append(s)
        return changes + self._transect_geometry_change(t, out)

    def set_interruption(self, station_uuid: str, interruption: bool = True) -> Station:
        """Mark (or clear) a complete interruption at a station (the surveyor decides)."""
        return self._update_as(Station, station_uuid, interruption=V.boolean("interruption", interruption))

    def set_stipulated(self, transect_uuid: str, stipulated: bool = True) -> Transect:
        """Mark (or clear) a stipulated bank at a transect, NR 341.035(2)(c).

        The landowner stipulates that the slope continues: the bank is 300 ft (1.), 500 ft on a
        priority waterway (2.), from the OHWM, still capped by a complete interruption
        ((1)(c)). One undoable command; listeners get an UPDATED change of the transect, and
        the transect's ``nr341.bank`` request (:func:`fieldapp.checks.requests.bank_input`) carries ``stipulated``.

        Raises
        ------
        NotFound
            No such transect.
        InvalidValue
            ``stipulated`` is not a bool.
        """
        return self._update_as(Transect, transect_uuid, stipulated=V.boolean("stipulated", stipulated))



def _gnss_fields(p: AveragedPosition) -> dict[str, Any]:
    return dict(
        x=p.x, y=p.y, ground_hae_m=p.ground_hae_m, sample_count=p.sample_count,
        rejected_count=p.rejected_count, std_dev_x_m=p.std_dev_x_m, std_dev_y_m=p.std_dev_y_m,
        std_dev_h_m=p.std_dev_h_m, worst_fix_quality=p.worst_fix_quality,
        h_accuracy_m=p.h_accuracy_m, v_accuracy_m=p.v_accuracy_m, hdop=p.hdop, fix_time_utc=ms(p.time_utc),
        correction_age_s=p.correction_age_s, correction_mount=p.correction_mount,
    )


