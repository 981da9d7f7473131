"""What the site report says, gathered from a visit (plain Python, no Qt).

:func:`load_visit` opens a visit GeoPackage through the store (its own checks refuse a file that
is not ours, damaged or newer) and :func:`gather` turns the survey model into
:class:`ReportContent`: the site, the checks (the same rule requests and results as the app's
checks panel, :mod:`fieldapp.checks`), transect profiles, stand tables, wetlands, GNSS quality
per recorded point, sync conflicts and the map geometry. :mod:`fieldapp.report.document` draws
it; :mod:`fieldapp.export` reuses :func:`load_visit`.

Units
-----
Map coordinates are *grid feet of the site's foot* (``frame.to_ft`` of the site CRS
coordinates), the same numbers the rule requests carry. Distances along transects are the
horizontal international feet the instruments measured. Areas are ground areas
(:meth:`fieldapp.geo.SiteFrame.area_sqft`).
"""

from __future__ import annotations

import logging
import math
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import shapely
from numpy.typing import NDArray
from shapely.geometry import LineString, Point
from shapely.geometry.base import BaseGeometry

from fieldapp import __version__
from fieldapp.checks.results import RULE_TITLES, Check, Checks
from fieldapp.geo import FOOT_INTERNATIONAL_M, SiteFrame
from fieldapp.rules.nr341 import bank_parameters
from fieldapp.rules.readings import READINGS
from fieldapp.survey.azimuths import shot_words
from fieldapp.survey.canopy import StandMeasures
from fieldapp.survey.features import Layer, Site
from fieldapp.survey.visit import Visit

if TYPE_CHECKING:
    from fieldapp.basemap import BasemapInfo
    from fieldapp.survey.features import StakePoint
    from fieldapp.sync.conflicts import Conflict

    from .guard import StrPath
    from .photos import PhotoEntry

__all__ = [
    "INTERPRETATIONS",
    "BANK_PARAMETERS",
    "bank_figures",
    "ReportContent",
    "TransectProfile",
    "StandSection",
    "WetlandRow",
    "GnssRow",
    "MapLayers",
    "StakeGroup",
    "load_visit",
    "gather",
    "natural_key",
]

log = logging.getLogger(__name__)

#: The readings taken where the text is silent, for the verdict pages: the rules' own table
#: (:data:`fieldapp.rules.readings.READINGS`; a result carries its own in ``interpretation_text``).
INTERPRETATIONS = READINGS

#: NR 341.035(1)(a) and (1)(b): priority waterway -> (base distance ft, slope threshold %), read
#: from the rule (:func:`fieldapp.rules.nr341.bank_parameters`); kept for old importers. The
#: profiles show the bank result's own figures (:func:`bank_figures`).
BANK_PARAMETERS = {p: (bank_parameters(p).base_ft, bank_parameters(p).threshold_pct)
                   for p in (False, True)}

_RULE_ORDER = ["nr341.bank", "nr341.graded_area", "nr151.protective_area", "wetland.size",
               "woodland.class", "woodland.mitigation", "development_area"]

GGA_QUALITY = {0: "no fix", 1: "autonomous", 2: "DGPS", 3: "PPS", 4: "RTK fixed",
               5: "RTK float", 6: "dead reckoning", 7: "manual", 8: "simulated"}


def bank_figures(check: Check | None, priority_waterway: bool) -> tuple[float, float]:
    """(base distance ft, slope threshold percent) of NR 341.035(1)(a)/(1)(b) for a transect's
    profile: its bank result's ``base_ft`` / ``threshold_pct``, or, with no result that has them
    (no check, awaiting data, an error), :func:`fieldapp.rules.nr341.bank_parameters`.

    >>> bank_figures(None, False)
    (75.0, 12.0)
    """
    params = bank_parameters(priority_waterway)
    result = check.result if check else {}
    return (result.get("base_ft", params.base_ft), result.get("threshold_pct", params.threshold_pct))


def natural_key(text: str) -> list[int | str]:
    """Sort key that puts ``T2`` before ``T10``."""
    return [int(p) if p.isdigit() else p.lower() for p in re.split(r"(\d+)", text or "")]


# --------------------------------------------------------------------------- loading
def load_visit(path: StrPath) -> Visit:
    """Load the visit stored at ``path`` into memory (a detached :class:`Visit`).

    Opened read-only through the store (``fieldapp.store.open_visit(path, readonly=True)``),
    whose own checks run first: the file's bytes are the same afterwards (no journal-mode
    switch, no ``-wal``/``-shm`` left beside it), a read-only file or folder is fine, and while
    the app has the visit open every committed record is seen (through its WAL).

    Raises
    ------
    FileNotFoundError
        No file at ``path``.
    fieldapp.store.StoreError
        ``NotAVisitFile``, ``DamagedVisitFile`` (``InvalidRecords``: a row the model refuses),
        ``NewerVisitFile`` or ``ReadOnlyVisitFile`` (the file cannot even be read); the file is
        untouched.
    """
    from fieldapp.store import open_visit

    store = open_visit(path, readonly=True)
    try:
        return store.visit
    finally:
        store.close()


# --------------------------------------------------------------------------- records
@dataclass(frozen=True)
class TransectProfile:
    """One transect for its profile plot.

    ``stations`` are ``(distance_ft, elevation_ft, slope_pct_of_segment_ending_here,
    interruption)``, starting with the OHWM at distance 0 (slope None there). Elevations are
    the measured ones when ``measured_elevations``, else relative to the OHWM (0), carried
    station to station by the segment slopes. ``base_ft`` (horizontal ft from the OHWM) and
    ``threshold_pct`` (slope, percent) are the bank's figures, NR 341.035(1)(a)/(1)(b)
    (:func:`bank_figures`).
    """

    label: str
    azimuth_true_deg: float
    stations: tuple[tuple[float, float, float | None, bool], ...]
    measured_elevations: bool
    priority: bool
    base_ft: float
    threshold_pct: float
    check: Check | None
    #: each compass-shot station: what was measured and applied (:func:`fieldapp.survey.azimuths.shot_words`)
    shots: tuple[str, ...] = ()

    @property
    def result(self) -> dict[str, Any]:
        return self.check.result if self.check else {}


@dataclass(frozen=True)
class StandSection:
    """A woodland stand: its measures (canopy, stand table) and the woodland-class check."""

    label: str
    measures: StandMeasures
    check: Check | None
    mitigation: Check | None


@dataclass(frozen=True)
class WetlandRow:
    """A wetland polygon with its areas and the results of its two checks."""

    label: str
    wetland_type: str | None
    susceptibility: str | None
    standing_water: bool | None
    hydric_vegetation: bool | None
    area_sqft: float
    area_ac: float
    size_check: Check | None
    protective_check: Check | None

    @property
    def average_width_ft(self) -> float | None:
        return (self.protective_check.result.get("average_width_ft")
                if self.protective_check else None)

    @property
    def protective_width_ft(self) -> float | None:
        return self.protective_check.result.get("width_ft") if self.protective_check else None


@dataclass(frozen=True)
class GnssRow:
    """GNSS quality of one recorded point (an OHWM point).

    ``seq`` is the model's (from 0 along its line); :attr:`number` is the point's number as the
    app shows it (from 1: "OHWM point 1").
    """

    line: str
    seq: int
    method: str
    x_ft: float
    y_ft: float
    worst_fix_quality: int | None
    h_accuracy_m: float | None
    v_accuracy_m: float | None
    std_dev_x_m: float | None
    std_dev_y_m: float | None
    hdop: float | None
    sample_count: int
    rejected_count: int
    antenna_height_m: float
    fix_time_utc: datetime | None
    #: The point in the site CRS's own unit (:attr:`crs_unit`: ``m``, ``ftUS`` or ``ft``) and
    #: as WGS 84 latitude / longitude, degrees.
    x_crs: float | None = None
    y_crs: float | None = None
    crs_unit: str = ""
    lat: float | None = None
    lon: float | None = None
    correction_age_s: float | None = None
    correction_mount: str | None = None

    @property
    def corrections_words(self) -> str:
        """``"WIDOT1, 1.2 s"`` (mountpoint, largest correction age), or ``"–"`` without."""
        if self.correction_age_s is None and not self.correction_mount:
            return "–"
        age = "" if self.correction_age_s is None else f"{self.correction_age_s:.1f} s"
        return ", ".join(w for w in (self.correction_mount or "", age) if w)

    @property
    def number(self) -> int:
        """The point's number as the app shows it: 1 for the first point of its line."""
        return self.seq + 1

    @property
    def quality_words(self) -> str:
        q = self.worst_fix_quality
        # the quality in words ("RTK fixed"), never with its GGA code ("4 RTK fixed")
        return "–" if q is None else GGA_QUALITY.get(q) or f"GGA quality {q}"


@dataclass(frozen=True)
class StakeGroup:
    """The stake points of one verdict: ``title`` (the check's, or "Bank line through the bank
    points", or "Recorded points"), ``check`` (None for those two) and the points in the order
    flagged (:class:`fieldapp.survey.features.StakePoint`: target, signed offset ft, fix
    quality, time, superseded)."""

    title: str
    check: Check | None
    points: tuple[StakePoint, ...]


@dataclass
class MapLayers:
    """Everything the map draws, in grid feet of the site's foot (shapely geometries)."""

    areas: list[tuple[str, str, BaseGeometry]] = field(default_factory=list)   # (kind, label, geom)
    lines: list[tuple[str, str, BaseGeometry]] = field(default_factory=list)   # (kind, label, geom)
    ohwm: list[tuple[str, BaseGeometry]] = field(default_factory=list)         # (label, LineString)
    ohwm_points: list[tuple[float, float]] = field(default_factory=list)
    #: (label, line from the origin through the stations or None without a station, stations)
    transects: list[tuple[str, LineString | None, list[tuple[float, float]]]] = field(default_factory=list)
    trees: list[tuple[float, float, float, float | None, bool]] = field(default_factory=list)
    track: LineString | None = None
    notes: list[tuple[float, float, str]] = field(default_factory=list)
    bank_points: list[tuple[str, float, float, bool]] = field(default_factory=list)
    #: the uuid of the transect of each of :attr:`bank_points`, in the same order (two
    #: transects may share a label)
    bank_transects: list[str] = field(default_factory=list)
    bank_line: LineString | None = None
    protective_areas: list[tuple[str, float, BaseGeometry]] = field(default_factory=list)
    envelope: BaseGeometry | None = None
    true_north_deg: float = 0.0  # angle of true north, clockwise from grid north (map up)
    #: (BasemapInfo, site CRS WKT, site CRS units per ft, opacity 0..1), bottom first
    basemaps: list[tuple[BasemapInfo, str, float, float]] = field(default_factory=list)

    def bounds(self) -> NDArray[np.float64] | None:
        """(min x, min y, max x, max y) grid ft of everything drawn; None when nothing is."""
        geoms: list[BaseGeometry | None] = [g for _, _, g in self.areas]
        geoms += [g for _, _, g in self.lines]
        geoms += [g for _, g in self.ohwm] + [g for _, g, _ in self.transects]
        geoms += [g for _, _, g in self.protective_areas]
        if self.envelope is not None:
            geoms.append(self.envelope)
        if self.track is not None:
            geoms.append(self.track)
        pts = self.ohwm_points + [(t[0], t[1]) for t in self.trees] + [(n[0], n[1]) for n in self.notes]
        pts += [(b[1], b[2]) for b in self.bank_points]
        if pts:
            geoms.append(shapely.multipoints(pts))
        drawn = [g for g in geoms if g is not None and not g.is_empty]
        if not drawn:
            return None
        return shapely.total_bounds(drawn)


@dataclass
class ReportContent:
    """Everything the report shows (see module docstring for units)."""

    path: Path
    visit: Visit
    generated_utc: datetime
    app_version: str
    checks: list[Check]
    transects: list[TransectProfile]
    stands: list[StandSection]
    wetlands: list[WetlandRow]
    gnss: list[GnssRow]
    track_summary: dict[str, Any]
    conflicts: list[Conflict]
    map: MapLayers
    tally_classes: list[tuple[float, int]]  # (class low in, stems), every live tree
    stakes: list[StakeGroup] = field(default_factory=list)
    #: photos for the photos section (:class:`fieldapp.report.photos.PhotoEntry`), in order
    photos: tuple[PhotoEntry, ...] = ()
    #: wetland data points, one data-form page each (:class:`fieldapp.report.wetland_page.DataFormPage`)
    data_points: list[Any] = field(default_factory=list)

    @property
    def site(self) -> Site:
        return self.visit.site

    @property
    def frame(self) -> SiteFrame | None:
        return self.visit.frame if self.visit.has_frame else None

    def units_note(self) -> str:
        """CRS and which foot, in words."""
        f = self.frame
        if f is None:
            return "No site CRS yet (no usable fix and no EPSG code chosen): nothing is positioned."
        code = f.srs_id
        crs = f"{f.name}" + (f" (EPSG:{code})" if code else "")
        unit = "metres" if abs(f.unit_m - 1.0) < 1e-12 else (
            "US survey feet" if f.foot.value == "us_survey" else f"units of {f.unit_m:g} m")
        # one statement of both units (issue 35 item 14: "grid feet" beside "coordinate unit
        # metre" read as a contradiction): the CRS's own unit, then how this report gives it
        converted = "" if unit != "metres" else (
            f" (its metres divided by {f.foot.metres:.10g})")
        return (f"Site CRS {crs}, whose coordinates are in {unit}. This report gives every "
                f"position and length in {f.foot.label} ({f.foot.metres:.10g} m): map and "
                f"rule-request coordinates are the site CRS's coordinates in that foot"
                f"{converted}, called grid feet; areas are ground areas in square feet and "
                "acres (43,560 sq ft) of that foot, reduced from the grid by the point scale "
                "factor. Transect distances are the horizontal international feet (0.3048 m) "
                "the instruments measure.")

    def requests(self) -> list[dict[str, Any]]:
        """The rule requests of the checks that have one (a check awaiting data has none)."""
        return [c.request for c in self.checks if c.has_request]


# --------------------------------------------------------------------------- gathering
def _value(v: Any) -> Any:
    return getattr(v, "value", v)


def _check_order(c: Check) -> tuple[int, list[int | str], str]:
    rule = c.rule
    rank = _RULE_ORDER.index(rule) if rule in _RULE_ORDER else len(_RULE_ORDER)
    return (rank, natural_key(c.title), c.check_id)


_Geom = TypeVar("_Geom", bound=BaseGeometry)


def _to_ft_geom(frame: SiteFrame, geom: _Geom) -> _Geom:
    """``geom`` (site CRS coordinates) in grid feet of the site's foot."""
    k = frame.to_ft(1.0)
    return shapely.transform(geom, lambda xy: xy * k)


def _photos(visit: Visit) -> tuple[PhotoEntry, ...]:
    """The visit's photos as the report's :class:`~fieldapp.report.photos.PhotoEntry` rows
    (site first, then by record, then the photos on their own)."""
    from fieldapp.store.photos import photo_entries

    from .photos import PhotoEntry

    return tuple(PhotoEntry(*row) for row in photo_entries(visit))


def grouped_shots(shots: list[tuple[float, str]]) -> tuple[str, ...]:
    """Compass-shot stations ``(distance ft, what was shot)`` as report lines, stations shot
    alike named together (ten stations shot along one bearing printed the same words ten
    times).

    >>> grouped_shots([(20.0, "shot at 350.0° magnetic"), (40.0, "shot at 350.0° magnetic"),
    ...                (60.0, "shot at 351.0° magnetic")])
    ('20.0 and 40.0 ft: shot at 350.0° magnetic', '60.0 ft: shot at 351.0° magnetic')
    """
    words: dict[str, list[float]] = {}
    for distance_ft, text in shots:
        words.setdefault(text, []).append(distance_ft)
    out = []
    for text, distances in words.items():
        names = [f"{d:.1f}" for d in distances]
        where = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        out.append(f"{where} ft: {text}")
    return tuple(out)


def gather(visit: Visit, path: StrPath, *, retained_ac: float = 0.0, conflicts: list[Conflict] | None = None,
           now: datetime | None = None) -> ReportContent:
    """Build :class:`ReportContent` from a loaded visit.

    Parameters
    ----------
    visit : Visit
    path : path-like
        The visit file (named in the report; its sync conflicts are read when ``conflicts``
        is None).
    retained_ac : float
        Planned retained woodland area (acres) for the mitigation check, as in the app.
    conflicts : list of fieldapp.sync.Conflict, optional
    now : datetime, optional
        Generation time (UTC), for reproducible tests.
    """
    path = Path(path)
    checks = Checks()
    checks.refresh(visit, retained_ac=retained_ac)
    all_checks = sorted(checks.all(), key=_check_order)
    by_id = {c.check_id: c for c in all_checks}
    if conflicts is None:
        conflicts = _read_conflicts(path)
    site = visit.site
    content = ReportContent(
        path=path, visit=visit, generated_utc=now or datetime.now(UTC),
        app_version=__version__, checks=all_checks, transects=[], stands=[], wetlands=[],
        gnss=[], track_summary={}, conflicts=list(conflicts), map=MapLayers(), tally_classes=[],
    )
    trees = visit.trees()
    live = [t for t in trees if _value(t.status) == "live"]
    classes: dict[int, int] = {}
    for t in live:
        c = int(math.floor(t.dbh_in / 2.0 + 1e-7))
        classes[c] = classes.get(c, 0) + 1
    content.tally_classes = [(2.0 * c, n) for c, n in sorted(classes.items())]
    content.photos = _photos(visit)
    from .datapoints import data_form_pages

    content.data_points = data_form_pages(visit, order_key=natural_key, quality_words=GGA_QUALITY,
                                          crs_unit=crs_unit_symbol(visit.frame) if visit.has_frame else "")
    _gnss(visit, content)
    if not visit.has_frame:
        return content
    frame = visit.frame
    # ---- transects
    for t in sorted(visit.features(Layer.TRANSECT), key=lambda t: natural_key(t.label)):
        check = by_id.get(f"bank:{t.uuid}")
        base_ft, thr = bank_figures(check, site.priority_waterway)
        sts = visit.stations(t.uuid)
        origin = t.origin_elevation_ft
        measured = origin is not None and all(s.elevation_ft is not None for s in sts)
        rows: list[tuple[float, float, float | None, bool]] = [
            (0.0, float(origin) if measured and origin is not None else 0.0, None, False)]
        e = rows[0][1]
        for s in sts:
            elevation = s.elevation_ft
            e = float(elevation) if measured and elevation is not None else e + s.segment_ft * s.slope_pct / 100.0
            rows.append((float(s.distance_ft), e, float(s.slope_pct), bool(s.interruption)))
        content.transects.append(TransectProfile(
            label=t.label, azimuth_true_deg=t.azimuth_true_deg, stations=tuple(rows),
            measured_elevations=measured, priority=bool(site.priority_waterway), base_ft=base_ft,
            threshold_pct=thr, check=check,
            shots=grouped_shots([(s.distance_ft, shot_words(s, t.azimuth_true_deg))
                                 for s in sts if s.azimuth_mag_deg is not None])))
    # ---- areas
    for a in visit.features(Layer.AREA):
        kind = _value(a.kind)
        if kind == "woodland_stand":
            content.stands.append(StandSection(
                label=a.label or "stand", measures=visit.stand_measures(a.uuid),
                check=by_id.get(f"woodland:{a.uuid}"), mitigation=by_id.get(f"mitigation:{a.uuid}")))
        elif kind == "wetland":
            content.wetlands.append(WetlandRow(
                label=a.label or "wetland", wetland_type=a.wetland_type,
                susceptibility=_value(a.susceptibility), standing_water=a.standing_water,
                hydric_vegetation=a.hydric_vegetation, area_sqft=frame.area_sqft(a.geometry),
                area_ac=frame.area_ac(a.geometry), size_check=by_id.get(f"wetland:{a.uuid}"),
                protective_check=by_id.get(f"protective_area:{a.uuid}")))
    content.stands.sort(key=lambda s: natural_key(s.label))
    content.wetlands.sort(key=lambda w: natural_key(w.label))
    _map(visit, frame, content, by_id)
    content.map.basemaps = _basemaps(path, frame)
    content.stakes = stake_groups(visit, by_id)
    return content


def _basemaps(path: Path, frame: SiteFrame) -> list[tuple[BasemapInfo, str, float, float]]:
    """The visit's basemaps (``NAME.gpkg.layers.json``) that open; one that does not is left
    out of the map with a warning in the log (the report is still written)."""
    from fieldapp.basemap import BasemapError, layers, open_basemap

    out = []
    for bpath, opacity in layers.basemaps(path):
        try:
            out.append((open_basemap(bpath), frame.crs.to_wkt(), frame.from_ft(1.0), opacity))
        except BasemapError as exc:
            log.warning("report map without its basemap: %s", exc)
    return out


def stake_groups(visit: Visit, by_id: dict[str, Check]) -> list[StakeGroup]:
    """The visit's stake points grouped under their verdict (:func:`fieldapp.survey.stake.verdict_of`),
    groups in the order of the checks, the bank line and the recorded points last."""
    from fieldapp.survey.stake import verdict_of

    groups: dict[str, list[StakePoint]] = {}
    for sp in visit.stake_points():
        groups.setdefault(verdict_of(sp.target_key), []).append(sp)
    out = [StakeGroup(rule_title(c), c, tuple(groups.pop(c.check_id)))
           for c in by_id.values() if c.check_id in groups]
    if "bank" in groups:
        out.append(StakeGroup("Bank line through the bank points (NR 341.035)", None, tuple(groups.pop("bank"))))
    if "" in groups:
        out.append(StakeGroup("Recorded points", None, tuple(groups.pop(""))))
    for key, pts in groups.items():    # a verdict gone since (its record deleted)
        out.append(StakeGroup(f"{key} (no verdict now)", None, tuple(pts)))
    return out


def _read_conflicts(path: Path) -> list[Conflict]:
    try:
        from fieldapp.sync.conflicts import read_conflicts

        return read_conflicts(path)
    except Exception as exc:  # noqa: BLE001 - a report without conflicts beats no report
        log.warning("sync conflicts of %s not read: %s", path, exc)
        return []


def crs_unit_symbol(frame: SiteFrame) -> str:
    """The site CRS's coordinate unit as a surveyor writes it: ``m``, ``ftUS`` or ``ft``."""
    if abs(frame.unit_m - 1.0) < 1e-12:
        return "m"
    return "ftUS" if frame.foot.value == "us_survey" else "ft"


def _gnss(visit: Visit, content: ReportContent) -> None:
    lines = {ln.uuid: (ln.label or "OHWM") for ln in visit.features(Layer.OHWM_LINE)}
    frame = visit.frame if visit.has_frame else None
    pts = sorted(visit.features(Layer.OHWM_POINT),
                 key=lambda p: (natural_key(lines.get(p.line_uuid, "")), p.seq))
    for p in pts:
        lon, lat = (float(v) for v in frame.to_lonlat(p.x, p.y)) if frame else (None, None)
        content.gnss.append(GnssRow(
            line=lines.get(p.line_uuid, "?"), seq=p.seq, method=_value(p.method),
            x_ft=frame.to_ft(p.x) if frame else p.x, y_ft=frame.to_ft(p.y) if frame else p.y,
            worst_fix_quality=p.worst_fix_quality, h_accuracy_m=p.h_accuracy_m,
            v_accuracy_m=p.v_accuracy_m, std_dev_x_m=p.std_dev_x_m, std_dev_y_m=p.std_dev_y_m,
            hdop=p.hdop, sample_count=p.sample_count, rejected_count=p.rejected_count,
            antenna_height_m=visit.antenna_height_at(p.created_utc), fix_time_utc=p.fix_time_utc,
            x_crs=p.x, y_crs=p.y, crs_unit=crs_unit_symbol(frame) if frame else "", lat=lat, lon=lon,
            correction_age_s=p.correction_age_s, correction_mount=p.correction_mount))
    cols = visit.track_log.columns()
    quality, hdop = cols["quality"], cols["hdop"]
    qualities: dict[str, int] = {}
    codes, first, counts = np.unique(quality, return_index=True, return_counts=True)
    for k in np.argsort(first):  # in the order first seen along the track; -1: none recorded
        q = int(codes[k])
        key = "–" if q < 0 else GGA_QUALITY.get(q) or f"GGA quality {q}"
        qualities[key] = qualities.get(key, 0) + int(counts[k])
    hdops = np.sort(hdop[~np.isnan(hdop)])
    content.track_summary = {
        "fixes": len(quality), "qualities": qualities,
        "median_hdop": float(hdops[len(hdops) // 2]) if len(hdops) else None,
        "max_hdop": float(hdops[-1]) if len(hdops) else None,
    }


def _map(visit: Visit, frame: SiteFrame, content: ReportContent, by_id: dict[str, Check]) -> None:
    m = content.map
    ft = frame.to_ft
    for a in visit.features(Layer.AREA):
        m.areas.append((_value(a.kind), a.label, _to_ft_geom(frame, a.geometry)))
    for ln in visit.features(Layer.LINE):
        m.lines.append((_value(ln.kind), ln.label, _to_ft_geom(frame, ln.geometry)))
    for ln in visit.features(Layer.OHWM_LINE):
        if ln.geometry is not None:
            m.ohwm.append((ln.label or "OHWM", _to_ft_geom(frame, ln.geometry)))
    m.ohwm_points = [(ft(p.x), ft(p.y)) for p in visit.features(Layer.OHWM_POINT)]
    for t in visit.features(Layer.TRANSECT):
        sts = visit.stations(t.uuid)
        geom = LineString([(ft(t.origin_x), ft(t.origin_y))] + [(ft(s.x), ft(s.y)) for s in sts]) \
            if sts else None
        m.transects.append((t.label, geom, [(ft(s.x), ft(s.y)) for s in sts]))
    for tr in visit.trees():
        r = None if tr.crown_radius_ft is None else tr.crown_radius_ft * FOOT_INTERNATIONAL_M / frame.foot.metres
        m.trees.append((ft(tr.x), ft(tr.y), float(tr.dbh_in), r, _value(tr.status) == "live"))
    cols = visit.track_log.columns()
    if len(cols["x"]) >= 2:
        m.track = _to_ft_geom(frame, LineString(np.column_stack([cols["x"], cols["y"]])))
    m.notes = [(ft(n.x), ft(n.y), n.text) for n in visit.features(Layer.NOTE) if n.x is not None]
    # ---- bank positions along each transect (horizontal international ft from the origin)
    ordered = []
    for t in visit.features(Layer.TRANSECT):
        c = by_id.get(f"bank:{t.uuid}")
        if c is None or c.status == "error":
            continue
        known = c.result.get("bank_ft")
        dist = known if known is not None else c.result.get("bank_ft_at_least")
        if dist is None:
            continue
        x, y = visit.point_on_transect(t, float(dist))  # the stations' and the map's function
        along = 0.0
        geom = visit.ohwm_geometry(t.line_uuid) if t.line_uuid else None
        if geom is not None:
            along = geom.project(Point(t.origin_x, t.origin_y))
        ordered.append((t.line_uuid or "", along, (t.label, ft(float(x)), ft(float(y)), known is not None),
                        t.uuid))
    ordered.sort(key=lambda o: (o[0], o[1]))
    m.bank_points = [o[2] for o in ordered]
    m.bank_transects = [o[3] for o in ordered]
    if len(m.bank_points) >= 2:
        m.bank_line = LineString([(b[1], b[2]) for b in m.bank_points])
    # ---- protective areas: each wetland's own width; the site's water features from the OHWM
    for a in visit.features(Layer.AREA):
        c = by_id.get(f"protective_area:{a.uuid}")
        width = c.result.get("width_ft") if c else None
        if width:
            g = _to_ft_geom(frame, a.geometry)
            m.protective_areas.append((a.label or "wetland", float(width), g.buffer(float(width)).difference(g)))
    c = by_id.get("protective_area")
    width = c.result.get("width_ft") if c else None
    if width:
        for label, g in m.ohwm:
            m.protective_areas.append((label, float(width), g.buffer(float(width))))
    # ---- development envelope: 20 ft round buffers of foundations, 5 ft of edges (D.2)
    c = by_id.get("development_area")
    if c is not None and c.status != "error":
        from fieldapp.rules.city_tables import EDGE_LIMIT_FT, FOUNDATION_LIMIT_FT

        inp = c.request["input"]
        parts = [shapely.Polygon(r).buffer(FOUNDATION_LIMIT_FT, quad_segs=16) for r in inp["foundations"]]
        for e in inp.get("edges", []):
            pts = e["coordinates"]
            g = shapely.LineString(pts) if len(pts) == 2 or (e["kind"] == "utility" and pts[0] != pts[-1]) \
                else shapely.Polygon(pts)
            parts.append(g.buffer(EDGE_LIMIT_FT, quad_segs=16))
        m.envelope = shapely.union_all(parts)
    # ---- true north: direction to a point 0.001 deg north of the map centre
    b = m.bounds()
    if b is not None:
        cx, cy = frame.from_ft((b[0] + b[2]) / 2), frame.from_ft((b[1] + b[3]) / 2)
        lon, lat = frame.to_lonlat(cx, cy)
        nx, ny = frame.to_local(lon, lat + 1e-3)
        m.true_north_deg = math.degrees(math.atan2(float(nx) - cx, float(ny) - cy))


def rule_title(check: Check) -> str:
    """Title of a check, falling back to the rule's title."""
    return check.title or RULE_TITLES.get(check.rule, check.check_id)


def declination_words(site: Site) -> str:
    """The site's magnetic declination for the report: ``"-1.18° (east positive), World
    Magnetic Model WMM-2025 for 2026-12-01"``, ``"… entered by the crew"``, or the bare figure
    for a visit from before schema 3 (where it came from was not recorded); ``"not set"`` when
    nobody set it (:func:`fieldapp.rules.shown.declination_set`): no magnetic bearing was
    turned, so no figure is claimed."""
    from fieldapp.rules.shown import NOT_SET, declination_set, declination_text

    source = getattr(site, "declination_source", None)
    if not declination_set(site.declination_deg, source):
        return f"{NOT_SET} (magnetic bearings taken as true)"
    head = f"{declination_text(site.declination_deg, source)} (east positive)"
    if source == "entered":
        return f"{head}, entered by the crew"
    if source:
        return f"{head}, World Magnetic Model {source} for {site.visit_date.isoformat()}"
    return head
