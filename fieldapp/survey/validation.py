"""Record validation: the rules every survey record meets, from a command or from a file.

One set of rules for every record, whether a :class:`~fieldapp.survey.visit.Visit` command
builds it or :mod:`fieldapp.store` loads it from a GeoPackage (the store validates each row
with :func:`validate` and refuses the file naming the row). Kept apart from the visit so the
store reads the rules without the commands, and so the visit holds model data and commands.

:func:`validate` never changes a record: a record whose fields need coercing (an ``int`` for
a float field, ``1`` for a bool, ``"live"`` for an enum) comes back as a corrected copy
(``dataclasses.replace``); one that needs none comes back as itself.

Parents and references
----------------------
:data:`PARENTS` is the one map of the child layers (station, OHWM point, walk vertex) to the
field naming their parent and the parent's layer; :data:`REFERENCE_FIELD` the optional
references whose target may be gone (only their form is a rule).

Examples
--------
>>> PARENTS[Layer.STATION]
ParentRef(field='transect_uuid', layer=<Layer.TRANSECT: 'transect'>)
>>> ms(datetime(2024, 6, 3, 15, 0, 0, 123456, tzinfo=UTC)).microsecond
123000
"""

from __future__ import annotations

import math
import re
import typing
from collections.abc import Callable
from dataclasses import fields, replace
from datetime import UTC, date, datetime
from enum import Enum
from typing import Any, NamedTuple, TypeVar, overload

import numpy as np
import shapely
from shapely.geometry import LineString, MultiPolygon, Polygon

from ..geo import GeoError, OutsideAreaOfUse, SiteFrame
from . import antenna
from . import values as V
from .boundary import distinct_vertices
from .drainage import LAND_USES
from .errors import InvalidValue
from .features import (
    AreaFeature,
    Feature,
    Layer,
    LineFeature,
    OhwmLine,
    PhotoRecord,
    Site,
    Susceptibility,
    Transect,
    Tree,
    WaterFeature,
    WaterFeatureType,
)

__all__ = [
    "ParentRef", "PARENTS", "REFERENCE_FIELD", "NUMBER_LIMITS", "INT_LIMITS", "TEXT_LIMITS",
    "NOT_EMPTY", "UUID_FIELDS", "XY_PAIRS", "validate", "check_point_fields", "ms",
    "enum_value", "polygon", "line", "validated_site",
]

E = TypeVar("E", bound=Enum)
F = TypeVar("F", bound=Feature)


class ParentRef(NamedTuple):
    """How a child record names its parent: the child's ``field`` and the parent's ``layer``."""

    field: str
    layer: Layer


# Child layers -> the field naming their parent and the parent's layer (children reference
# parents by uuid).
PARENTS: dict[Layer, ParentRef] = {
    Layer.OHWM_POINT: ParentRef("line_uuid", Layer.OHWM_LINE),
    Layer.STATION: ParentRef("transect_uuid", Layer.TRANSECT),
    Layer.WALK_VERTEX: ParentRef("walk_uuid", Layer.WALK),
}
# Optional references to another record: (layer, field) -> layer referred to. Unlike a child's
# parent these may name a record deleted since (deleting an OHWM line keeps its transects,
# deleting a walk keeps the area it drew), so only their form is a rule, not their target.
REFERENCE_FIELD = {
    (Layer.TRANSECT, "line_uuid"): Layer.OHWM_LINE,
    (Layer.AREA, "walk_uuid"): Layer.WALK,
    (Layer.WALK, "area_uuid"): Layer.AREA,
}


@overload
def ms(dt: datetime) -> datetime: ...
@overload
def ms(dt: None) -> None: ...
@overload
def ms(dt: datetime | None) -> datetime | None: ...
def ms(dt: datetime | None) -> datetime | None:
    """A UTC time truncated to milliseconds (the store's resolution), None passes."""
    if dt is None:
        return None
    if dt.tzinfo is None:
        raise InvalidValue("time_utc", f"naive datetime {dt!r}; times must be tz-aware UTC")
    dt = dt.astimezone(UTC)
    return dt.replace(microsecond=dt.microsecond // 1000 * 1000)



def enum_value(cls: type[E], value: object, name: str) -> E:
    """``cls(value)``, or InvalidValue naming ``name`` and the allowed values."""
    try:
        return cls(value)
    except ValueError as exc:
        raise InvalidValue(name, f"{value!r} is not one of {[m.value for m in cls]}") from exc



def _check_coords(name: str, geom: shapely.Geometry, frame: SiteFrame | None = None) -> None:
    xy = shapely.get_coordinates(geom)
    if not (len(xy) and (xy == xy).all() and abs(xy).max() < float("inf")):
        raise InvalidValue(name, "has NaN, infinite or no coordinates")
    if frame is not None:
        _check_area_of_use(frame, "x", "y", xy[:, 0], xy[:, 1], vertex_of=name)


def _vertices(name: str, geometry: Any, what: str) -> list[tuple[float, float]]:
    """``geometry`` given as (x, y) pairs, each finite; InvalidValue naming ``name`` otherwise
    (``Any``: whatever the caller gave, refused in words unless it is such pairs)."""
    try:
        return [(V.finite(f"{name} x", x), V.finite(f"{name} y", y)) for x, y in geometry]
    except (TypeError, ValueError) as exc:
        if isinstance(exc, InvalidValue):
            raise
        raise InvalidValue(name, f"must be a {what} or a list of (x, y)") from exc


def polygon(name: str, geometry: object, frame: SiteFrame | None = None) -> Polygon | MultiPolygon:
    """A valid Polygon/MultiPolygon with ≥ 3 distinct vertices per ring, or InvalidValue.

    With ``frame``: every vertex inside the CRS's area of use and at least ``MIN_AREA_SQFT``
    (1 sq ft) of ground area.
    """
    if isinstance(geometry, (Polygon, MultiPolygon)):
        geom = geometry
    else:
        pts = _vertices(name, geometry, "polygon")
        if len(distinct_vertices(pts)) < 3 or len(set(pts)) < 3:
            raise InvalidValue(name, f"a polygon needs at least 3 distinct vertices, got {len(set(pts))}")
        geom = Polygon(pts)
    _check_coords(name, geom, frame)
    for poly in shapely.get_parts(geom):
        if len(set(map(tuple, shapely.get_coordinates(poly.exterior)))) < 3:
            raise InvalidValue(name, "a polygon needs at least 3 distinct vertices")
    if not geom.is_valid:
        raise InvalidValue(name, f"polygon is not valid ({shapely.is_valid_reason(geom)})")
    if geom.area <= 0:
        raise InvalidValue(name, "polygon has no area (collinear vertices)")
    if frame is not None:
        area = frame.area_sqft(geom)
        if area < V.MIN_AREA_SQFT:
            raise InvalidValue(name, f"polygon of {area:.3g} sq ft is degenerate "
                                     f"(at least {V.MIN_AREA_SQFT:g} sq ft)")
    return geom


def line(name: str, geometry: object, frame: SiteFrame | None = None) -> LineString:
    """A LineString of ≥ 2 distinct vertices (a LineString or (x, y) pairs), or InvalidValue.

    With ``frame``: every vertex inside the CRS's area of use.
    """
    geom = geometry if isinstance(geometry, LineString) else None
    if geom is None:
        if geometry is None or isinstance(geometry, shapely.Geometry):
            raise InvalidValue(name, f"must be a line, got {getattr(geometry, 'geom_type', geometry)!r}")
        pts = _vertices(name, geometry, "line")
        if len(set(pts)) < 2:
            raise InvalidValue(name, "a line needs at least 2 distinct vertices")
        geom = LineString(pts)
    _check_coords(name, geom, frame)
    if geom.length <= 0:
        raise InvalidValue(name, "a line needs at least 2 distinct vertices")
    return geom


def validated_site(site: Site, **fields: Any) -> Site:
    """A copy of ``site`` with ``fields`` checked and set (InvalidValue for a bad value or a
    field the site does not have; ``Any``: each field is checked for its own type here)."""
    checked: dict[str, Any] = {}
    for key, value in fields.items():
        if key == "name":
            checked[key] = V.text("name", value, allow_empty=False)
        elif key == "crew":
            checked[key] = tuple(V.text("crew", c, allow_empty=False) for c in value)
        elif key == "device_ids":
            items = value.items() if isinstance(value, dict) else value
            checked[key] = tuple((V.text("device_ids", k), V.text("device_ids", v)) for k, v in items)
        elif key == "priority_waterway":
            checked[key] = V.boolean("priority_waterway", value)
        elif key == "water_features":
            wf = []
            for w in value:
                if not isinstance(w, WaterFeature):
                    raise InvalidValue("water_features", f"expected WaterFeature, got {w!r}")
                _check_mapped_on(w)
                wf.append(replace(w, type=enum_value(WaterFeatureType, w.type, "water_features.type"),
                                  susceptibility=None if w.susceptibility is None else
                                  enum_value(Susceptibility, w.susceptibility, "water_features.susceptibility")))
            checked[key] = tuple(wf)
        elif key == "antenna_height_m":
            checked[key] = V.in_range("antenna_height_m", value, 0.0, 10.0)
        elif key == "declination_deg":
            checked[key] = V.in_range("declination_deg", value, -180.0, 180.0)
        elif key == "notes":
            checked[key] = V.text("notes", value, max_len=V.MAX_TEXT_LEN, multiline=True)
        elif key == "infill_area_ac":
            checked[key] = None if value is None else V.in_range("infill_area_ac", value, 0.0, 1e9)
        elif key == "infill_within_development":
            checked[key] = None if value is None else V.boolean("infill_within_development", value)
        elif key == "antenna_height_unit":
            checked[key] = None if value is None else antenna.checked_unit(value)
        elif key == "declination_source":
            checked[key] = None if value is None else V.text("declination_source", value)
        elif key == "zoning_district":
            checked[key] = (V.text("zoning_district", value).strip() or None) if value is not None else None
        elif key == "land_use":
            if value is not None and value not in LAND_USES:
                raise InvalidValue("land_use", f"must be one of {', '.join(LAND_USES)}, got {value!r}")
            checked[key] = value
        elif key == "visit_date":
            if not isinstance(value, date):
                raise InvalidValue("visit_date", f"must be a date, got {value!r}")
            checked[key] = value
        else:
            raise InvalidValue(key, "is not a site field")
    return replace(site, **checked)


#: A stream's ``mapped_on`` (NR 151.125(1)(b)): the map showing it, or ``none``.
MAPPED_ON = ("usgs_7_5_minute", "county_soil_survey", "none")
#: A wetland's ``fill`` (NR 151.125(1)(h)).
FILL_STATES = ("complete", "partial")


def _check_mapped_on(w: WaterFeature) -> None:
    """A water feature's map (InvalidValue): ``mapped_on`` one of :data:`MAPPED_ON` or None,
    ``map_name`` short text or None."""
    if w.mapped_on is not None and w.mapped_on not in MAPPED_ON:
        raise InvalidValue("water_features.mapped_on", f"must be one of {', '.join(MAPPED_ON)}, got {w.mapped_on!r}")
    V.optional_text("water_features.map_name", w.map_name)
    if w.drainage_area_ac is not None:
        V.in_range("water_features.drainage_area_ac", w.drainage_area_ac, 0.0, 1e9)


# ------------------------------------------------------------------ record validation
_INF = math.inf
# field -> (low, high, low_open); a field not listed only has to be finite.
NUMBER_LIMITS: dict[str, tuple[float, float, bool]] = {
    "dbh_in": (V.MIN_DBH_IN, V.MAX_DBH_IN, False),
    "dbh_height_ft": (0.0, 20.0, True),
    "crown_radius_ft": (0.0, V.MAX_CROWN_RADIUS_FT, True),
    "segment_ft": (0.0, V.MAX_HORIZONTAL_FT, True),
    "horizontal_distance_ft": (0.0, V.MAX_HORIZONTAL_FT, False),
    "slope_distance_ft": (0.0, V.MAX_HORIZONTAL_FT, True),
    "distance_ft": (0.0, _INF, True),
    "inclination_deg": (-V.MAX_SLOPE_DEG, V.MAX_SLOPE_DEG, False),
    "azimuth_true_deg": (0.0, 360.0, False),
    "azimuth_mag_deg": (0.0, 360.0, False),
    "lon_deg": (-180.0, 180.0, False),
    "lat_deg": (-90.0, 90.0, False),
    "std_dev_x_m": (0.0, _INF, False),
    "std_dev_y_m": (0.0, _INF, False),
    "std_dev_h_m": (0.0, _INF, False),
    "h_accuracy_m": (0.0, _INF, False),
    "v_accuracy_m": (0.0, _INF, False),
    "hdop": (0.0, _INF, False),
    "correction_age_s": (0.0, _INF, False),
    "antenna_height_m": (0.0, 10.0, False),
    "height_m": (0.0, 10.0, False),
    "declination_deg": (-180.0, 180.0, False),
    "spacing_ft": (0.0, V.MAX_HORIZONTAL_FT, True),
    "interval_s": (0.0, 86_400.0, True),
    "channel_width_ft": (0.0, V.MAX_HORIZONTAL_FT, False),
    "tributary_area_ac": (0.0, _INF, False),
    "retained_area_ac": (0.0, _INF, False),
    "infill_area_ac": (0.0, _INF, False),
    "elevation_ft": (-30_000.0, 30_000.0, False),
    "origin_elevation_ft": (-30_000.0, 30_000.0, False),
    "alt_hae_m": (-10_000.0, 10_000.0, False),
    "ground_hae_m": (-10_000.0, 10_000.0, False),
    "offset_ft": (-V.MAX_HORIZONTAL_FT, V.MAX_HORIZONTAL_FT, False),
    "tolerance_ft": (0.0, 100.0, True),
    "direction_deg": (0.0, 360.0, False),
}
INT_LIMITS: dict[str, tuple[float, float]] = {
    "seq": (0, _INF), "tag": (0, _INF), "sample_count": (0, _INF), "rejected_count": (0, _INF),
    "quality": (0, 9), "worst_fix_quality": (0, 9), "sats_used": (0, 255),
    "width": (1, 100_000), "height": (1, 100_000),
}
# field -> (max length, multiline); other text fields: MAX_NAME_LEN, single line.
TEXT_LIMITS: dict[str, tuple[int, bool]] = {
    "species_code": (V.MAX_CODE_LEN, False),
    "notes": (V.MAX_TEXT_LEN, True), "text": (V.MAX_TEXT_LEN, True),
    "crs": (V.MAX_TEXT_LEN, True),  # an authority code or, for a custom CRS, its WKT
    "caption": (V.MAX_TEXT_LEN, True), "original_path": (V.MAX_TEXT_LEN, False),
    "form_json": (V.MAX_TEXT_LEN, True),  # a data point's data form (JSON text)
}
NOT_EMPTY = {"uuid", "created_by", "name", "text", "line_uuid", "transect_uuid", "walk_uuid"}
# ids: the record's own and its references to other records; canonical UUID text (V.uuid_text)
UUID_FIELDS = frozenset({"uuid", "line_uuid", "transect_uuid", "walk_uuid", "area_uuid",
                         "record_uuid", "boundary_uuid", "pair_uuid"})
# coordinate pairs checked against the site CRS's area of use
XY_PAIRS = (("x", "y"), ("origin_x", "origin_y"), ("standing_x", "standing_y"))


def _plan(cls: type) -> list[tuple[str, str, Any, bool]]:
    """(field, kind, type, nullable) per field of a record class, from its annotations."""
    hints = typing.get_type_hints(cls)
    plan = []
    for fld in fields(cls):
        tp = hints[fld.name]
        args = typing.get_args(tp)
        nullable = bool(args) and type(None) in args
        if nullable:
            tp = next(a for a in args if a is not type(None))
        origin = typing.get_origin(tp)
        if tp is bool:
            kind = "bool"
        elif tp is int:
            kind = "int"
        elif tp is float:
            kind = "float"
        elif tp is str:
            kind = "str"
        elif tp is datetime:
            kind = "datetime"
        elif tp is date:
            kind = "date"
        elif isinstance(tp, type) and issubclass(tp, Enum):
            kind = "enum"
        elif origin is tuple:
            kind = "tuple"
        elif tp is bytes:
            kind = "bytes"
        else:
            kind = "geometry"
        plan.append((fld.name, kind, tp, nullable))
    return plan


_PLANS: dict[type, list[tuple[str, str, Any, bool, Callable[[object], bool]]]] = {}
_UUID_FORM = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _plain(name: str, kind: str, tp: Any) -> Callable[[object], bool]:
    """A predicate true only for a non-None value that :func:`_checked_value` returns as it is
    (``_SAME``) without raising: the common case, tested in one expression. Anything else -- a
    value to coerce, refuse or word -- goes through :func:`_checked_value` as before, so this
    only decides how fast a right value passes, never whether a value passes."""
    if kind == "float" and name != "slope_pct":
        lo, hi, low_open = NUMBER_LIMITS.get(name, (-_INF, _INF, False))
        if low_open:
            return lambda v: type(v) is float and lo < v <= hi and -_INF < v < _INF
        return lambda v: type(v) is float and lo <= v <= hi and -_INF < v < _INF
    if kind == "int":
        lo, hi = INT_LIMITS.get(name, (-_INF, _INF))
        return lambda v: type(v) is int and lo <= v <= hi
    if kind == "bool":
        return lambda v: type(v) is bool
    if kind == "str" and name in UUID_FIELDS:   # V.uuid_text's canonical form, exactly
        return lambda v: type(v) is str and _UUID_FORM.fullmatch(v) is not None
    if kind == "str" and name == "fill":        # a wetland's fill, NR 151.125(1)(h)
        return lambda v: v in FILL_STATES
    if kind == "str":                           # V.text's fast path
        max_len = TEXT_LIMITS.get(name, (V.MAX_NAME_LEN, False))[0]
        if name in NOT_EMPTY:
            return lambda v: type(v) is str and len(v) <= max_len and v.isprintable() and bool(v.strip())
        return lambda v: type(v) is str and len(v) <= max_len and v.isprintable()
    if kind == "datetime":
        return lambda v: type(v) is datetime and v.tzinfo is not None
    if kind == "date":
        return lambda v: type(v) is date
    if kind == "enum":
        return lambda v: type(v) is tp
    if kind == "bytes":
        return lambda v: type(v) is bytes and len(v) > 0
    if kind == "tuple":                         # its items are not checked here
        return lambda v: v is not None
    if kind == "geometry":                      # checked by _check_geometry
        return lambda v: True
    return lambda v: False


def validate(f: F, frame: SiteFrame | None = None, *, check_points: bool = True) -> F:
    """Refuse an impossible record; returns it, or a corrected copy when a field is coerced.

    The rules every record meets, from a command or from a file: types are strict (see
    :mod:`fieldapp.survey.values`), numbers finite and within :data:`NUMBER_LIMITS` /
    :data:`INT_LIMITS`, text within :data:`TEXT_LIMITS` without control characters, ids
    (:data:`UUID_FIELDS`: ``uuid`` and the references to other records) canonical UUID text
    (:func:`fieldapp.survey.values.uuid_text`), times tz-aware, enums valid, geometry valid
    (polygons: ≥ 3 distinct vertices and at least ``MIN_AREA_SQFT`` on the ground), and with
    ``frame`` every coordinate inside the site CRS's area of use
    (:meth:`fieldapp.geo.SiteFrame.check_xy`). ``check_points=False`` leaves the x/y pairs'
    area-of-use check to the caller (the store checks a whole table at once with
    :meth:`~fieldapp.geo.SiteFrame.outside`, then each refused row with ``check_xy``).

    The record is never changed (records are frozen): numbers coerced to float / int, 0/1 to
    bool, a value to its enum, and a missing optional text to ``""`` come back in a copy made
    with :func:`dataclasses.replace`; a record needing none of that is returned as itself.

    Raises
    ------
    InvalidValue
        ``.name`` is the field refused (``x``/``y`` for a position, the geometry field for a
        vertex, whose index the message gives).

    Examples
    --------
    >>> from datetime import datetime, timezone
    >>> from fieldapp.survey.features import Note
    >>> t = datetime(2024, 6, 3, tzinfo=timezone.utc)
    >>> n = Note(uuid="00000000-0000-4000-8000-000000000001", created_utc=t, modified_utc=t,
    ...          created_by="crew@laptop", text="flagged", x=1, y=2.0)
    >>> fixed = validate(n)
    >>> fixed is n, type(fixed.x), type(n.x)
    (False, <class 'float'>, <class 'int'>)
    >>> validate(fixed) is fixed
    True
    """
    corrected = _corrections(f)
    if corrected:
        f = replace(f, **corrected)
    if isinstance(f, Site):
        _validate_site_fields(f)
        return f
    if frame is not None and check_points:
        check_point_fields(f, frame)
    _check_geometry(f, frame)
    if isinstance(f, PhotoRecord):
        _check_photo(f)
    return f


#: What a photo's fields may hold (a file written by another program is read through these).
PHOTO_TYPES = ("image/jpeg", "image/png")
PHOTO_PLACED_BY = (None, "exif gps", "track")
PHOTO_TABLES = ("site", "ohwm_line", "ohwm_point", "transect", "station", "tree", "area_feature",
                "line_feature", "walk", "note", "stake_point")


def _check_photo(p: PhotoRecord) -> None:
    """A photo's image type, its record named by table and uuid together (or neither), and
    how it was placed; InvalidValue naming the field."""
    if p.content_type not in PHOTO_TYPES:
        raise InvalidValue("content_type", f"{p.content_type!r} is not one of {list(PHOTO_TYPES)}")
    if (p.record_table is None) != (p.record_uuid is None):
        raise InvalidValue("record_uuid", "a photo names its record by table and uuid together")
    if p.record_table is not None and p.record_table not in PHOTO_TABLES:
        raise InvalidValue("record_table", f"{p.record_table!r}: photos show one of {list(PHOTO_TABLES)}")
    if p.placed_by not in PHOTO_PLACED_BY:
        raise InvalidValue("placed_by", f"{p.placed_by!r} is not one of {list(PHOTO_PLACED_BY)}")


def _corrections(f: Feature) -> dict[str, Any]:
    """The checked fields of ``f`` whose value must change ({field: corrected value})."""
    cls = type(f)
    plan = _PLANS.get(cls)
    if plan is None:
        plan = _PLANS[cls] = [(*p, _plain(*p[:3])) for p in _plan(cls)]
    out: dict[str, Any] = {}
    for name, kind, tp, nullable, plain in plan:
        v = getattr(f, name)
        if plain(v):
            continue
        if v is None:
            if nullable or kind == "geometry":
                continue
            if kind == "str" and name not in NOT_EMPTY:
                out[name] = ""
                continue
            raise InvalidValue(name, "is required")
        x = _checked_value(name, kind, tp, v)
        if x is not _SAME:
            out[name] = x
    return out


_SAME = object()  # _checked_value: the value is right as it is


def _checked_value(name: str, kind: str, tp: Any, v: object) -> object:
    """The value a non-None field ``name`` of ``kind`` must hold, or ``_SAME``; InvalidValue."""
    if kind == "float":
        x = V.finite(name, v)
        lim = NUMBER_LIMITS.get(name)
        if lim is not None:
            x = V.in_range(name, x, lim[0], lim[1], low_open=lim[2])
        if name == "slope_pct":
            V.slope_pct_from(x, None)
        return x if type(v) is not float else _SAME
    if kind == "int":
        lo, hi = INT_LIMITS.get(name, (-_INF, _INF))
        x = V.integer(name, v, lo, hi)
        return x if type(v) is not int else _SAME
    if kind == "bool":
        x = V.boolean(name, v)
        return x if type(v) is not bool else _SAME
    if kind == "str":
        if name in UUID_FIELDS:
            V.uuid_text(name, v)
        elif name == "fill" and v not in FILL_STATES:
            raise InvalidValue(name, f"must be one of {', '.join(FILL_STATES)} or none, got {v!r}")
        else:
            max_len, multiline = TEXT_LIMITS.get(name, (V.MAX_NAME_LEN, False))
            V.text(name, v, allow_empty=name not in NOT_EMPTY, max_len=max_len, multiline=multiline)
    elif kind == "datetime":
        if not isinstance(v, datetime) or v.tzinfo is None:
            raise InvalidValue(name, f"must be a tz-aware UTC datetime, got {v!r}")
    elif kind == "date":
        if not isinstance(v, date) or isinstance(v, datetime):
            raise InvalidValue(name, f"must be a date, got {v!r}")
    elif kind == "enum":
        x = enum_value(tp, v, name)
        return x if x is not v else _SAME
    elif kind == "bytes":
        if not isinstance(v, bytes) or not v:
            raise InvalidValue(name, f"must be the image's bytes, got {type(v).__name__}")
    return _SAME


def _check_geometry(f: Feature, frame: SiteFrame | None) -> None:
    """A record's polygon or line geometry valid (and with ``frame`` inside its area of use)."""
    if isinstance(f, Tree):
        if f.crown is not None:
            polygon("crown", f.crown, frame)
    elif isinstance(f, AreaFeature):
        polygon("geometry", f.geometry, frame)
    elif isinstance(f, (LineFeature, OhwmLine, Transect)):
        if f.geometry is not None or isinstance(f, LineFeature):
            line("geometry", f.geometry, frame)


def check_point_fields(f: Feature, frame: SiteFrame) -> None:
    """The x/y pairs of a record inside the site CRS's area of use (InvalidValue naming x or y)."""
    for nx, ny in XY_PAIRS:
        if hasattr(f, nx) and getattr(f, nx) is not None and getattr(f, ny) is not None:
            _check_area_of_use(frame, nx, ny, getattr(f, nx), getattr(f, ny))


def _check_area_of_use(frame: SiteFrame, nx: str, ny: str, x: float | np.ndarray, y: float | np.ndarray,
                       vertex_of: str | None = None) -> None:
    try:
        frame.check_xy(x, y)
    except OutsideAreaOfUse as exc:
        if vertex_of is not None:
            where = "" if exc.index is None else f"vertex {exc.index}: "
            raise InvalidValue(vertex_of, f"{where}{exc}") from exc
        name = nx if exc.axis == "x" else ny if exc.axis == "y" else f"{nx}/{ny}"
        words = str(exc)
        if exc.axis in ("x", "y") and words.startswith(f"{exc.axis} "):
            words = words[len(exc.axis) + 1:]     # "x: 5.1e6 is outside ...", not "x: x 5.1e6 ..."
        raise InvalidValue(name, words) from exc


def _validate_site_fields(site: Site) -> None:
    if not isinstance(site.crew, tuple) or not all(isinstance(c, str) for c in site.crew):
        raise InvalidValue("crew", f"must be a list of names, got {site.crew!r}")
    for c in site.crew:
        V.text("crew", c, allow_empty=False)
    pairs = site.device_ids
    if not isinstance(pairs, tuple) or not all(isinstance(p, tuple) and len(p) == 2 for p in pairs):
        raise InvalidValue("device_ids", f"must be (role, id) pairs, got {pairs!r}")
    for k, v in pairs:
        V.text("device_ids", k), V.text("device_ids", v)
    if not isinstance(site.water_features, tuple):
        raise InvalidValue("water_features", f"must be a list, got {site.water_features!r}")
    for w in site.water_features:
        if not isinstance(w, WaterFeature):
            raise InvalidValue("water_features", f"expected WaterFeature, got {w!r}")
        V.text("water_features.name", w.name)
        enum_value(WaterFeatureType, w.type, "water_features.type")
        if w.susceptibility is not None:
            enum_value(Susceptibility, w.susceptibility, "water_features.susceptibility")
        V.optional_text("water_features.wetland_type", w.wetland_type)
        _check_mapped_on(w)
    if site.crs is not None:
        try:
            SiteFrame(site.crs)
        except GeoError as exc:
            raise InvalidValue("crs", str(exc)) from exc

