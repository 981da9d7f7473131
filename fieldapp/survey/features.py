"""The records of a site visit: frozen dataclasses, one per layer.

Every feature carries ``uuid`` (text, UUID4), ``created_utc`` / ``modified_utc`` (tz-aware UTC)
and ``created_by`` ("user@laptop"). Coordinates ``x``, ``y`` are in the site CRS's unit
(:class:`fieldapp.geo.SiteFrame`); lengths named ``*_ft`` are international feet as the
instruments measure them (0.3048 m) unless a name says otherwise.

Features are immutable; the :class:`fieldapp.survey.Visit` replaces them on update, which keeps
undo simple and makes them safe to hand to another thread.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any


class Layer(str, enum.Enum):
    """A kind of record; the value is the GeoPackage table name."""

    SITE = "site"
    OHWM_LINE = "ohwm_line"
    OHWM_POINT = "ohwm_point"
    TRANSECT = "transect"
    STATION = "station"
    TREE = "tree"
    AREA = "area_feature"
    LINE = "line_feature"
    WALK = "walk"
    WALK_VERTEX = "walk_vertex"
    TRACK = "track_point"
    NOTE = "note"
    STAKE_POINT = "stake_point"
    PHOTO = "photo"
    DEVICE_READING = "device_reading"
    DATA_POINT = "data_point"
    ANTENNA_HEIGHT = "antenna_height"


class WaterFeatureType(str, enum.Enum):
    """NR 151.125 protective-area feature types (rules-contract ``nr151.protective_area``)."""

    OUTSTANDING_RESOURCE_WATER = "outstanding_resource_water"
    EXCEPTIONAL_RESOURCE_WATER = "exceptional_resource_water"
    STREAM = "stream"
    LAKE = "lake"
    WETLAND = "wetland"
    CONCENTRATED_FLOW_CHANNEL = "concentrated_flow_channel"


class Susceptibility(str, enum.Enum):
    """Wetland susceptibility class, NR 151.125(1)(e)/(f)."""

    HIGHLY = "highly"
    LESS = "less"
    OTHER = "other"


class LeafHabit(str, enum.Enum):
    DECIDUOUS = "deciduous"
    EVERGREEN = "evergreen"


class Instrument(str, enum.Enum):
    """The instrument a kept device reading came from (:class:`DeviceReading`)."""

    CALIPER = "caliper"
    RANGEFINDER = "rangefinder"


class DataPointRole(str, enum.Enum):
    """Which side of a wetland boundary a data point stands on (:class:`DataPoint`)."""

    WETLAND = "wetland"
    UPLAND = "upland"


class WetlandRegion(str, enum.Enum):
    """The Regional Supplement to the Corps of Engineers Wetland Delineation Manual whose data
    form and indicator lists a data point uses (Wisconsin lies in both)."""

    NORTHCENTRAL_NORTHEAST = "northcentral-northeast"   # v2.0, ERDC/EL TR-12-1 (2012)
    MIDWEST = "midwest"                                 # v2.0, ERDC/EL TR-10-16 (2010)


class TreeStatus(str, enum.Enum):
    LIVE = "live"
    DEAD = "dead"
    REMOVED = "removed"


class PointMethod(str, enum.Enum):
    """How an OHWM point was fixed."""

    AVERAGED = "averaged"
    OFFSET = "offset"


class AreaKind(str, enum.Enum):
    """Polygon kinds (layer ``area_feature``)."""

    WETLAND = "wetland"
    WOODLAND_STAND = "woodland_stand"
    GROVE = "grove"
    IMPERVIOUS = "impervious"
    DISTURBED = "disturbed"
    FOUNDATION = "foundation"
    DRIVE = "drive"
    PARKING = "parking"
    SEPTIC_FIELD = "septic_field"
    UTILITY_TRENCH = "utility_trench"
    SWALE = "swale"
    #: Land designated floodplain (F-1 district): excepted from Drainageways A.1 / A.2.
    FLOODPLAIN = "floodplain"
    #: Issue 29 (city chapter): the parcel boundary and street rights-of-way (Woodlands D, D.1,
    #: D.4) and Steep Rock / Steep Sandy Land over 30 % (Erosion control D, for General D).
    PARCEL = "parcel"
    RIGHT_OF_WAY = "right_of_way"
    STEEP_SOIL = "steep_soil"


class LineKind(str, enum.Enum):
    """Line kinds (layer ``line_feature``)."""

    DRAINAGEWAY_CENTRELINE = "drainageway_centreline"
    SWALE = "swale"
    UTILITY_TRENCH = "utility_trench"
    DRIVE = "drive"


class WalkState(str, enum.Enum):
    WALKING = "walking"
    PAUSED = "paused"
    CLOSED = "closed"


@dataclass(frozen=True, kw_only=True, slots=True)
class Feature:
    """Common identity and audit fields."""

    uuid: str
    created_utc: datetime
    modified_utc: datetime
    created_by: str


@dataclass(frozen=True, slots=True)
class WaterFeature:
    """A water feature of the site with its NR 151 type (stored inside the site row)."""

    name: str
    type: WaterFeatureType
    susceptibility: Susceptibility | None = None
    wetland_type: str | None = None
    #: Streams (NR 151.125(1)(b), issue 29): the map that shows it (``usgs_7_5_minute``,
    #: ``county_soil_survey``, or ``none``: on neither) and the map's name; None: not checked.
    mapped_on: str | None = None
    map_name: str | None = None
    #: A channel on neither map: its drainage area, acres (NR 151.125(1)(i)); None: not known.
    drainage_area_ac: float | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class Site(Feature):
    """The visit's site: who, when, where, and the settings that shape the rules.

    ``priority_waterway`` feeds ``nr341.bank`` ``priority``; ``crs`` is an authority string
    (``"EPSG:32610"``) or None until the first usable fix picks the UTM zone;
    ``declination_deg`` (east positive) turns magnetic bearings into true ones;
    ``declination_source`` says where it came from: the World Magnetic Model for the site and
    date (``"WMM-2025"``), ``"entered"`` (the user's override), or None (not set: 0.0 unless
    typed before schema 3). ``antenna_height_m`` is the antenna height now (the history is in
    :class:`AntennaHeight` records); ``antenna_height_unit`` the unit it was entered in
    (:data:`ANTENNA_UNITS`; None: metres, or a file older than schema 7).
    ``zoning_district`` (``"A-1"``, ``"R-2"`` ...) and ``land_use``
    (``agricultural``, ``residential``, ``nonresidential``, ``other``; store schema 8, None: not
    entered) say whether the city chapter applies at all (General A: agricultural uses in an
    A-1 district are outside it) and whether Erosion control F exempts the site.
    """

    name: str
    visit_date: date
    crew: tuple[str, ...] = ()
    device_ids: tuple[tuple[str, str], ...] = ()
    priority_waterway: bool = False
    water_features: tuple[WaterFeature, ...] = ()
    crs: str | None = None
    antenna_height_m: float = 0.0
    declination_deg: float = 0.0
    notes: str = ""
    declination_source: str | None = None
    antenna_height_unit: str | None = None
    zoning_district: str | None = None
    land_use: str | None = None
    #: NR 151.125(4)(b) (schema 9): the in-fill development area, acres, and whether it lies
    #: within existing development; None: not given (no in-fill question asked).
    infill_area_ac: float | None = None
    infill_within_development: bool | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class OhwmLine(Feature):
    """An ordinary high-water mark line; ``geometry`` (LineString) follows its points' order."""

    label: str = ""
    water_feature: str | None = None
    geometry: Any = None


@dataclass(frozen=True, kw_only=True, slots=True)
class OhwmPoint(Feature):
    """A point on an OHWM line, averaged from epochs or shot by offset.

    GNSS metadata as in :class:`fieldapp.survey.gnss.AveragedPosition` (for an offset point:
    of the standing position). Offset points also keep the shot: standing position, true
    azimuth, horizontal distance (ft) and the rangefinder reading id. ``correction_age_s``
    (seconds, the largest among the epochs) and ``correction_mount`` (NTRIP mountpoint): the RTK
    corrections behind it (store schema 3; None in older files and without corrections). Kept
    last, as :attr:`Transect.stipulated`. ``azimuth_mag_deg`` and ``declination_deg`` (schema 7):
    an offset shot's azimuth as the rangefinder's compass measured it (magnetic) and the
    declination applied to make ``azimuth_true_deg``; None when the azimuth was typed true.
    """

    line_uuid: str
    seq: int
    x: float
    y: float
    method: PointMethod
    ground_hae_m: float | None = None
    sample_count: int = 0
    rejected_count: int = 0
    std_dev_x_m: float | None = None
    std_dev_y_m: float | None = None
    std_dev_h_m: float | None = None
    worst_fix_quality: int | None = None
    h_accuracy_m: float | None = None
    v_accuracy_m: float | None = None
    hdop: float | None = None
    fix_time_utc: datetime | None = None
    standing_x: float | None = None
    standing_y: float | None = None
    azimuth_true_deg: float | None = None
    horizontal_distance_ft: float | None = None
    reading_id: str | None = None
    correction_age_s: float | None = None
    correction_mount: str | None = None
    azimuth_mag_deg: float | None = None
    declination_deg: float | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class Transect(Feature):
    """A bank transect: origin on the OHWM and a landward true azimuth.

    ``geometry`` is the LineString from the origin to the last station (None before one).
    ``stipulated``: the landowner stipulates the bank distance here, NR 341.035(2)(c) (300 ft,
    500 ft on a priority waterway); it feeds ``nr341.bank`` ``stipulated`` (store schema 2;
    False in a schema 1 file). Kept last so the store's column order matches a schema 1 table
    with the column added (``ALTER TABLE ... ADD COLUMN`` appends). ``correction_age_s`` (s) and
    ``correction_mount``: the corrections of the origin's OHWM point, which is the origin of the
    stations (store schema 3).
    """

    label: str
    line_uuid: str | None
    origin_x: float
    origin_y: float
    azimuth_true_deg: float
    origin_elevation_ft: float | None = None
    geometry: Any = None
    stipulated: bool = False
    correction_age_s: float | None = None
    correction_mount: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class Station(Feature):
    """A station on a transect: the landward end of the segment from the previous station.

    ``distance_ft`` is the horizontal distance from the OHWM (cumulative), ``segment_ft`` the
    horizontal length of the segment ending here and ``slope_pct`` its slope (positive when the
    ground rises landward, per rules-contract *Stations*). ``interruption`` marks a complete
    interruption at this station (NR 341.035(1)(c); never inferred). A rangefinder shot's
    magnetic azimuth (degrees) is kept in ``azimuth_mag_deg`` with the declination applied to it
    (``declination_deg``, east positive: true = magnetic + declination).
    """

    transect_uuid: str
    seq: int
    distance_ft: float
    segment_ft: float
    slope_pct: float
    x: float
    y: float
    slope_distance_ft: float | None = None
    inclination_deg: float | None = None
    elevation_ft: float | None = None
    reading_id: str | None = None
    interruption: bool = False
    azimuth_mag_deg: float | None = None
    declination_deg: float | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class Tree(Feature):
    """A tallied tree. DBH in inches at ``dbh_height_ft`` (4.5 ft breast height by default).

    Crown: ``crown_radius_ft`` (a circle) or ``crown`` (a shapely Polygon in site CRS units).
    """

    tag: int
    x: float
    y: float
    dbh_in: float
    species_code: str = ""
    species_name: str = ""
    leaf_habit: LeafHabit = LeafHabit.DECIDUOUS
    dbh_height_ft: float = 4.5
    crown_radius_ft: float | None = None
    crown: Any = None
    caliper_reading_id: str | None = None
    status: TreeStatus = TreeStatus.LIVE
    notes: str = ""


@dataclass(frozen=True, kw_only=True, slots=True)
class AreaFeature(Feature):
    """A polygon by kind (wetland, woodland stand, grove, impervious, …).

    ``geometry`` is a valid Polygon or MultiPolygon in site CRS units. Wetland attributes
    (``wetland_type``, ``susceptibility``, ``standing_water``, ``hydric_vegetation``) feed
    ``wetland.size`` and ``nr151.protective_area``. ``walk_uuid`` names the walk that drew it.

    Woodland stands (store schema 3; None / False in older files, kept last as
    :attr:`Transect.stipulated`): ``retained_area_ac`` is the woodland area (acres) the plan
    keeps, read by the stand's ``woodland.mitigation`` check (Decorah resource protection,
    Woodlands C); ``tally_complete`` is True once the crew has marked every tree of the stand
    recorded: until then the stand's woodland verdicts are provisional.
    """

    kind: AreaKind
    geometry: Any
    label: str = ""
    wetland_type: str | None = None
    susceptibility: Susceptibility | None = None
    standing_water: bool | None = None
    hydric_vegetation: bool | None = None
    walk_uuid: str | None = None
    notes: str = ""
    retained_area_ac: float | None = None
    tally_complete: bool = False
    #: Wetlands, NR 151.125(1)(h) (schema 9): ``complete`` or ``partial`` fill, and the permit
    #: reference it was placed under; None: not filled.
    fill: str | None = None
    fill_permit: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class LineFeature(Feature):
    """A line by kind (drainageway centreline, swale, utility trench, drive edge).

    ``mapped_stream`` (drainageway centrelines): whether the stream is shown on the USGS 7.5-minute
    quadrangle or the county soil survey map (Decorah resource protection, Drainageways A.1); None
    until the surveyor has checked. It feeds ``drainageway`` ``mapped_stream`` (store schema 2;
    None in a schema 1 file). Kept last, as :attr:`Transect.stipulated`.
    ``tributary_stations`` (swales and unmapped channels; store schema 8): the tributary area at
    stations down the line, as text ``"0:2; 200:6"`` (ft from the line's first point, its
    upstream end : acres), normalised by :func:`fieldapp.survey.drainage.parse_tributary_stations`;
    it feeds ``drainageway`` ``tributary_stations`` (Drainageways A.2: only the reach downstream
    of the 5-acre point is a drainageway).
    """

    kind: LineKind
    geometry: Any
    label: str = ""
    channel_width_ft: float | None = None
    tributary_area_ac: float | None = None
    notes: str = ""
    mapped_stream: bool | None = None
    tributary_stations: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class Walk(Feature):
    """A boundary being walked (see :class:`fieldapp.survey.boundary.BoundaryWalk`)."""

    kind: AreaKind
    label: str = ""
    state: WalkState = WalkState.WALKING
    spacing_ft: float | None = 10.0
    interval_s: float | None = None
    area_uuid: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class WalkVertex(Feature):
    """One streamed vertex of a walk, committed as it is taken; ``correction_age_s`` (s) and
    ``correction_mount`` of the fix it was taken from (store schema 3)."""

    walk_uuid: str
    seq: int
    x: float
    y: float
    t_utc: datetime | None = None
    correction_age_s: float | None = None
    correction_mount: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class TrackPoint(Feature):
    """One usable fix of the raw track: projected x, y plus the fix as received."""

    t_utc: datetime | None
    x: float
    y: float
    lon_deg: float
    lat_deg: float
    alt_hae_m: float | None = None
    quality: int | None = None
    sats_used: int | None = None
    hdop: float | None = None
    h_accuracy_m: float | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class Note(Feature):
    """A free note, optionally at a position."""

    text: str
    x: float | None = None
    y: float | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class StakePoint(Feature):
    """A flag put on the ground during stake-out (store schema 3).

    ``x``, ``y`` (site CRS) are where the antenna stood when "Flag here" was pressed, with the
    fix's quality (GGA field 6), HDOP and horizontal accuracy (m). ``target_key`` names the
    stake-out target (``bank_line``, ``bank:<transect uuid>``, ``buffer:<check key>:<n>``,
    ``point:<layer>:<uuid>`` ...; see :mod:`fieldapp.survey.stake`), ``target_label`` says it
    in words, ``target_signature`` fingerprints the target's geometry when flagged.
    ``offset_ft`` is the signed grid distance (ft of the site's foot) from the target: for a
    line, positive right of its direction of digitising; for a closed edge, positive outside;
    for a point, the distance (>= 0). ``tolerance_ft`` is the crew's "on the line" tolerance.
    ``superseded`` is True once the verdict behind the target moved the target (a station
    edited, a wetland re-walked): the flag stands on a line that is no longer the answer.
    """

    x: float
    y: float
    target_key: str
    target_label: str
    target_signature: str
    offset_ft: float
    tolerance_ft: float
    quality: int | None = None
    hdop: float | None = None
    h_accuracy_m: float | None = None
    fix_time_utc: datetime | None = None
    superseded: bool = False
    notes: str = ""


@dataclass(frozen=True, kw_only=True, slots=True)
class PhotoRecord(Feature):
    """A photo kept in the visit (store schema 4: the OGC Related Tables Extension's media
    table ``photo``; see :mod:`fieldapp.store.media`).

    ``data`` is the stored image (the original's bytes within the crew's size cap, else a
    resized JPEG) of ``content_type`` (``image/jpeg`` or ``image/png``), ``width`` x ``height``
    pixels; ``thumbnail`` a JPEG, long side 256 px. ``record_table`` / ``record_uuid`` name the
    record it documents (a layer's table name and that record's uuid; the site too), or are both
    None for a photo placed on its own at ``x``, ``y`` (site CRS) ``placed_by`` ``"exif gps"`` or
    ``"track"`` (its EXIF time on the GNSS track). The link is by uuid, never by the row's
    integer key, which a sync may renumber. ``taken_utc`` is the EXIF time corrected by the
    camera clock offset (UTC); ``direction_deg`` the true direction the camera faced (EXIF
    GPSImgDirection) or None; ``original_path`` the file it was read from; ``lat_deg`` /
    ``lon_deg`` its EXIF GPS position (WGS84 degrees) or None.
    """

    data: bytes
    content_type: str
    width: int
    height: int
    original_path: str = ""
    record_table: str | None = None
    record_uuid: str | None = None
    taken_utc: datetime | None = None
    direction_deg: float | None = None
    caption: str = ""
    x: float | None = None
    y: float | None = None
    placed_by: str | None = None
    thumbnail: bytes | None = None
    lat_deg: float | None = None
    lon_deg: float | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class DeviceReading(Feature):
    """The sentences an instrument sent for one reading that became a record (store schema 5).

    A tree recorded from the caliper names its reading (by uuid) in ``Tree.caliper_reading_id``,
    a station shot with the rangefinder in ``Station.reading_id``: the record's
    values can then be worked out again from what the instrument sent. ``raw`` is the bytes as
    received, line ends left off (a caliper tree's sentences joined by ``b"\\n"``);
    ``received_utc`` the time the (diameter) sentence came in, UTC; ``protocol`` the parser
    that read it (``"digitech"``, ``"trupulse"``, ...). Kept when its record is deleted.
    """

    device: Instrument
    protocol: str
    received_utc: datetime
    raw: bytes


@dataclass(frozen=True, kw_only=True, slots=True)
class DataPoint(Feature):
    """A wetland determination data point: one plot of the Corps' routine determination data
    form (ENG Form 6116 series with the Regional Supplements), store schema 6.

    ``x``, ``y`` (site CRS) where it stands, with the fix's quality (GGA field 6), HDOP and
    horizontal accuracy (m) when placed at the GNSS position (None when placed on the map).
    ``name`` is the plot's name on the form ("DP-1"); ``role`` the side of the boundary it
    stands for; ``boundary_uuid`` the wetland area (``area_feature``) or walk whose boundary
    it supports (None = not paired yet); ``pair_uuid`` the data point on the other side.
    ``form_json`` is the plot in the ``wetland-form`` contract's input shape (``plot``,
    ``region``, ``indicators`` -- the statuses of the species used, so the visit stands alone --
    ``vegetation``, ``hydrology``, ``soil``, ``problematic``) plus the form's recorded details
    the rules do not read (plot sizes, depths, soil profile), JSON text. The determination is
    also kept as plain columns the office reads in QGIS: ``hydrophytic_vegetation``,
    ``hydric_soil``, ``wetland_hydrology``, ``wetland`` (None = not decidable yet).
    """

    x: float
    y: float
    name: str
    role: DataPointRole
    region: WetlandRegion = WetlandRegion.NORTHCENTRAL_NORTHEAST
    boundary_uuid: str | None = None
    pair_uuid: str | None = None
    form_json: str = "{}"
    hydrophytic_vegetation: bool | None = None
    hydric_soil: bool | None = None
    wetland_hydrology: bool | None = None
    wetland: bool | None = None
    quality: int | None = None
    hdop: float | None = None
    h_accuracy_m: float | None = None
    fix_time_utc: datetime | None = None
    notes: str = ""


#: Units an antenna height is entered in: name -> metres per unit.
ANTENNA_UNITS = {"m": 1.0, "ft": 0.3048, "us_ft": 1200.0 / 3937.0}


@dataclass(frozen=True, kw_only=True, slots=True)
class AntennaHeight(Feature):
    """The visit's antenna height from ``created_utc`` on (store schema 7): one row per height
    once it changed (the visit's first, dated at the site's creation, then each change), so
    every fix of the day can be matched to the height the pole had when it was taken.
    ``height_m`` in metres; ``unit`` the unit it was entered in (``"m"``, ``"ft"``
    international, ``"us_ft"`` US survey), shown in it again.
    The site keeps the current one (:attr:`Site.antenna_height_m`, ``antenna_height_unit``).
    """

    height_m: float
    unit: str = "m"


FEATURE_CLASSES: dict[Layer, type] = {
    Layer.SITE: Site,
    Layer.OHWM_LINE: OhwmLine,
    Layer.OHWM_POINT: OhwmPoint,
    Layer.TRANSECT: Transect,
    Layer.STATION: Station,
    Layer.TREE: Tree,
    Layer.AREA: AreaFeature,
    Layer.LINE: LineFeature,
    Layer.WALK: Walk,
    Layer.WALK_VERTEX: WalkVertex,
    Layer.TRACK: TrackPoint,
    Layer.NOTE: Note,
    Layer.STAKE_POINT: StakePoint,
    Layer.PHOTO: PhotoRecord,
    Layer.DEVICE_READING: DeviceReading,
    Layer.DATA_POINT: DataPoint,
    Layer.ANTENNA_HEIGHT: AntennaHeight,
}
LAYER_OF: dict[type, Layer] = {cls: layer for layer, cls in FEATURE_CLASSES.items()}


class Action(str, enum.Enum):
    ADDED = "added"
    UPDATED = "updated"
    REMOVED = "removed"


@dataclass(frozen=True, slots=True)
class Change:
    """One change to the model: ``new`` after, ``old`` before (None for add / remove)."""

    action: Action
    layer: Layer
    new: Any = None
    old: Any = None

    @property
    def feature(self) -> Any:
        """The feature as it is now (``old`` for a removal)."""
        return self.old if self.action is Action.REMOVED else self.new

    def inverse(self) -> Change:
        if self.action is Action.ADDED:
            return Change(Action.REMOVED, self.layer, None, self.new)
        if self.action is Action.REMOVED:
            return Change(Action.ADDED, self.layer, self.old, None)
        return Change(Action.UPDATED, self.layer, self.old, self.new)

