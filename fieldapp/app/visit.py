"""The open site visit as the UI sees it: the survey model, its store, its checks (no Qt).

A thin adapter: the survey model (:class:`fieldapp.survey.visit.Visit`) is the single source of
truth; the store (:mod:`fieldapp.store`, when present) is attached as the model's journal, so
every recorded item is committed to the visit's GeoPackage before it appears on screen;
:mod:`fieldapp.checks` turns the model into rule requests. The panels call the commands here
(the "current transect", "current walk" are UI state, not model state).

Coordinates: the model holds site-CRS units; the map and rule requests use feet
(``frame.to_ft``, grid feet of the site's foot).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import fieldapp.app.paths as paths
from fieldapp import checks as checks_mod
from fieldapp.app.wording import plural, stand_name
from fieldapp.store.paths import safe_file_name

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

log = logging.getLogger(__name__)

KIND_WORDS = {"wetland": "wetland", "woodland_stand": "woodland stand", "grove": "grove",
              "impervious": "impervious surface", "disturbed": "disturbed area",
              "foundation": "foundation", "drive": "drive", "parking": "parking",
              "septic_field": "septic field", "utility_trench": "utility trench",
              "swale": "swale", "floodplain": "floodplain", "parcel": "parcel", "right_of_way": "right-of-way",
              "steep_soil": "Sr / SsF land over 30 %"}


#: two legs of an OHWM line this close (ft) count as one running back over the other
OHWM_NEAR_FT = 3.0


def _value(v: Any) -> Any:
    return getattr(v, "value", v)


def fix_hae_m(fix: Any) -> float | None:
    """A fix's antenna height above the ellipsoid (m): MSL altitude + geoid separation."""
    alt, sep = getattr(fix, "alt_msl_m", None), getattr(fix, "geoid_sep_m", None)
    return None if alt is None else alt + (sep or 0.0)


class VisitController:
    """One open visit.

    Parameters
    ----------
    model : fieldapp.survey.visit.Visit
    path : Path
        The visit's GeoPackage.
    store : object, optional
        The open store (attached as the model's journal).
    """

    def __init__(self, model: Any, path: Path, store: Any = None) -> None:
        self.model = model
        self.path = Path(path)
        self.store = store
        self.name = getattr(model.site, "name", self.path.stem)
        self.records_stored = 0
        self.change_listeners: list[Callable[[bool], None]] = []
        self.checks = checks_mod.Checks()
        self.current_transect_uuid: str | None = None
        self.walk: Any = None
        self.last_closed_area: dict[str, Any] | None = None
        self.retained_ac = 0.0
        self._tree_deletes: list[str] = []
        self.walk_warning: str | None = None
        # where the declination is worked out (the first usable fix: lat, lon, height above
        # the ellipsoid m); why the model could not give one
        self._declination_at: tuple[Any, ...] | None = None
        # (frame, (lat, lon), (x_ft, y_ft))
        self._last_projected: tuple[Any, tuple[float, float], tuple[float, float]] | None = None
        self._ohwm_warning: tuple[Any, str | None] = (None, None)     # (OHWM points as drawn, its words)
        self.declination_problem: str | None = None
        self._crowns: Any = None        # the map's tree crowns, kept (overlays.TreeCrowns)
        model.subscribe(self._on_changes)
        model.start_track()

    # -------------------------------------------------------------- model events
    def _on_changes(self, changes: tuple[Any, ...]) -> None:
        if self.model.journal is not None:     # records added (a site's CRS set is no record)
            self.records_stored += sum(1 for ch in changes if _value(ch.action) == "added")
        only_track = all(_value(ch.layer) == "track_point" for ch in changes)
        for fn in self.change_listeners:
            fn(only_track)

    @property
    def priority_waterway(self) -> bool:
        return bool(self.model.site.priority_waterway)

    # -------------------------------------------------------------- coordinates
    def project(self, lat_deg: float, lon_deg: float) -> tuple[float, float] | None:
        """WGS84 degrees -> site feet (x_ft, y_ft); None before the site CRS is known."""
        if not self.model.has_frame:
            return None
        f = self.model.frame
        last = self._last_projected
        if last is not None and last[0] is f and last[1] == (lat_deg, lon_deg):
            return last[2]      # the same fix again (the map, then stake-out): one projection
        x, y = f.to_local(lon_deg, lat_deg)
        xy = float(f.to_ft(x)), float(f.to_ft(y))
        self._last_projected = (f, (lat_deg, lon_deg), xy)
        return xy

    def track_ft(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """The stored GNSS track in site feet, in time order: two float arrays (x_ft, y_ft),
        empty before the site CRS is known. Fixes without a time (NaT) come last; fixes of one
        time stay in the order they were recorded. Read from the track's columns
        (:attr:`fieldapp.survey.visit.Visit.track_log`), not a record per fix."""
        import numpy as np

        cols = self.model.track_log.columns() if self.model.has_frame else {}
        if not len(cols.get("x", ())):
            return np.empty(0), np.empty(0)
        order = np.argsort(cols["t_utc"], kind="stable")      # numpy sorts NaT last
        f = self.model.frame
        x_ft: NDArray[np.float64] = f.to_ft(cols["x"][order])
        y_ft: NDArray[np.float64] = f.to_ft(cols["y"][order])
        return x_ft, y_ft

    def unproject(self, x_ft: float, y_ft: float) -> tuple[float, float] | None:
        """Site feet -> WGS84 (lat_deg, lon_deg); None before the site CRS is known."""
        if not self.model.has_frame:
            return None
        f = self.model.frame
        lon, lat = f.to_lonlat(f.from_ft(x_ft), f.from_ft(y_ft))
        return float(lat), float(lon)

    def site_coords(self, x_ft: float, y_ft: float) -> tuple[float, float, str] | None:
        """Site feet -> (easting, northing, unit) in the site CRS's own unit (``m`` for UTM,
        ``ftUS`` for a state plane or county system in US survey feet, ``ft``), as the report
        prints them; None before the site CRS is known."""
        if not self.model.has_frame:
            return None
        from fieldapp.report.content import crs_unit_symbol

        f = self.model.frame
        return float(f.from_ft(x_ft)), float(f.from_ft(y_ft)), crs_unit_symbol(f)

    def ft(self, x: float, y: float) -> tuple[float, float]:
        f = self.model.frame
        return float(f.to_ft(x)), float(f.to_ft(y))

    def fix_usable_for_average(self, fix: Any) -> bool:
        return bool(self.model.gate.usable(fix))

    def fix_skip_reason(self, fix: Any) -> str | None:
        """Why the quality gate skips ``fix`` for averaging, in words with the values
        (``"0 satellites, fewer than 4"``), or None when it is usable."""
        why: str | None = self.model.gate.explain(fix)
        return why

    # -------------------------------------------------------------- track
    def on_fix(self, fix: Any) -> None:
        """Every fix: the frame from the first usable one (automatic: the county's WISCRS in US
        survey feet in Wisconsin, :func:`fieldapp.app.localcrs.usual_crs`; else the UTM zone),
        the raw track, walks in progress."""
        if not self.model.gate.usable(fix):
            return
        try:
            if not self.model.has_frame:    # automatic: the county's system where an office expects one
                from fieldapp.app.localcrs import usual_crs

                code = usual_crs(fix.lat_deg, fix.lon_deg)
                if code is not None:
                    self.model.set_crs(code)
            self.model.ensure_frame(fix)
            tp = self.model.on_fix(fix)
        except Exception as exc:  # noqa: BLE001 - shown in the banner by the window
            log.warning("fix not recorded: %s", exc)
            raise
        if tp is not None:      # its site position is the map's next question (project)
            f = self.model.frame
            self._last_projected = (f, (fix.lat_deg, fix.lon_deg), (float(f.to_ft(tp.x)), float(f.to_ft(tp.y))))
        if self._declination_at is None:
            self._declination_at = (fix.lat_deg, fix.lon_deg, fix_hae_m(fix))
            if self.model.site.declination_source != "entered":
                self.set_declination(None)

    # -------------------------------------------------------------- magnetic declination
    def set_declination(self, entered_deg: float | None) -> None:
        """Declination (degrees, east positive) applied to magnetic azimuths: ``entered_deg``
        typed by the user (an override), or None for the World Magnetic Model's at the site's
        first usable fix and the visit date (:func:`fieldapp.geo.wmm_declination`).

        Raises
        ------
        ValueError
            An override outside -180..180 degrees (nothing changes).
        """
        if entered_deg is not None:
            self.model.set_declination(entered_deg, "entered")
            self.declination_problem = None
            return
        if self._declination_at is None:
            return  # no position yet: the first usable fix sets it
        from fieldapp.geo import wmm_declination

        lat, lon, hae = self._declination_at
        try:
            deg, model = wmm_declination(lat, lon, self.model.site.visit_date, hae or 0.0)
        except ValueError as exc:
            self.declination_problem = str(exc)
            log.warning("%s", exc)
            return
        self.declination_problem = None
        self.model.set_declination(round(deg, 2), model)

    def declination_words(self) -> str:
        """The declination in use, in words: ``"-1.18° (west), WMM-2025 for 2026-12-01"``."""
        site = self.model.site
        deg, source = site.declination_deg, site.declination_source
        side = "east" if deg > 0 else "west" if deg < 0 else "none"
        head = f"{deg:+.2f}° ({side})"
        if source == "entered":
            return f"{head}, entered"
        if source:
            return f"{head}, {source} for {site.visit_date.isoformat()}"
        return f"{head}, not set yet" + (f": {self.declination_problem}"
                                        if self.declination_problem else " (needs a fix)")

    def true_azimuth(self, magnetic_deg: float) -> float:
        """A magnetic azimuth (a rangefinder's compass) turned true with the site declination."""
        from fieldapp.survey.gnss import North, true_azimuth

        return true_azimuth(magnetic_deg, North.MAGNETIC, self.model.site.declination_deg)

    # -------------------------------------------------------------- OHWM
    def ohwm_points(self) -> list[Any]:
        from fieldapp.survey.features import Layer

        return sorted(self.model.features(Layer.OHWM_POINT), key=lambda p: (p.line_uuid, p.seq))

    def ohwm_order_warning(self) -> str | None:
        """:func:`fieldapp.app.wording.ohwm_order_words` of the visit's OHWM points, or None;
        worked out again only when they change (every panel refreshes at each record: a
        tally's squeezes do not run the legs' pairs again)."""
        from fieldapp.app.wording import ohwm_order_words

        points = self.ohwm_points()
        key = tuple((p.line_uuid, p.seq, p.x, p.y) for p in points)
        if self._ohwm_warning[0] != key:
            near = OHWM_NEAR_FT / self.model.frame.to_ft(1.0) if points else 0.0
            self._ohwm_warning = (key, ohwm_order_words(points, near))
        return self._ohwm_warning[1]

    def add_averaged_point(self, fixes: list[Any], n_required: int) -> Any:
        """An averaged point on the near bank's line (:mod:`fieldapp.app.ohwmbanks`)."""
        from fieldapp.app.ohwmbanks import near_line_uuid

        pos = self.model.average(fixes, min_epochs=n_required)
        return self.model.add_ohwm_point(pos, near_line_uuid(self.model))

    def add_offset_point(self, standing_fix: Any, azimuth_deg: float, horizontal_ft: float, *,
                         magnetic_deg: float | None = None, far_bank: bool = False) -> Any:
        """An offset OHWM point shot from ``standing_fix``: ``azimuth_deg`` true, or, when
        ``magnetic_deg`` is given (the rangefinder's compass), that one with the site's
        declination applied (both kept on the point); on the far bank's own line when
        ``far_bank``, else on the near bank's."""
        from fieldapp.app.ohwmbanks import far_line_uuid, near_line_uuid
        from fieldapp.survey.gnss import North

        line = far_line_uuid(self.model) if far_bank else near_line_uuid(self.model)
        if magnetic_deg is not None:
            return self.model.add_ohwm_offset_point(standing_fix, magnetic_deg, north=North.MAGNETIC,
                                                    horizontal_ft=horizontal_ft, line_uuid=line)
        return self.model.add_ohwm_offset_point(standing_fix, azimuth_deg,
                                                horizontal_ft=horizontal_ft, line_uuid=line)

    # -------------------------------------------------------------- transect
    @property
    def current_transect(self) -> Any:
        if self.current_transect_uuid is None:
            return None
        from fieldapp.survey.features import Layer

        try:
            return self.model.get(Layer.TRANSECT, self.current_transect_uuid)
        except Exception:  # noqa: BLE001 - deleted
            return None

    def start_transect(self, ohwm_point_uuid: str, azimuth_deg: float) -> Any:
        t = self.model.add_transect(azimuth_deg, ohwm_point_uuid=ohwm_point_uuid)
        self.current_transect_uuid = t.uuid
        self._notify()
        return t

    def stations(self) -> list[Any]:
        t = self.current_transect
        return self.model.stations(t.uuid) if t is not None else []

    def current_distance_ft(self) -> float:
        st = self.stations()
        return st[-1].distance_ft if st else 0.0

    def add_station(self, reading: Any = None, **kw: Any) -> Any:
        t = self.current_transect
        if t is None:
            raise ValueError("start a transect first")
        if reading is not None:  # its sentence kept (the station's reading_id names it); its
            kw["shot"] = reading  # magnetic azimuth is kept with the declination applied
        return self.model.add_station(t.uuid, **kw)

    def mark_interruption(self) -> Any:
        st = self.stations()
        if not st:
            raise ValueError("no station to mark")
        return self.model.set_interruption(st[-1].uuid, not st[-1].interruption)

    def remove_last_station(self) -> None:
        from fieldapp.survey.features import Layer

        st = self.stations()
        if not st:
            raise ValueError("no station to remove")
        self.model.delete(Layer.STATION, st[-1].uuid)

    def set_stipulated(self, stipulated: bool) -> Any:
        """Mark (or clear) a stipulated bank at the current transect, NR 341.035(2)(c): the
        landowner stipulates the slope continues (300 ft, 500 ft on a priority waterway).
        Stored at once; the transect's bank check is evaluated again (``Visit.set_stipulated``).

        Raises
        ------
        ValueError
            No transect started.
        """
        t = self.current_transect
        if t is None:
            raise ValueError("start a transect first")
        return self.model.set_stipulated(t.uuid, bool(stipulated))

    def bank_check(self, transect_uuid: str | None = None) -> Any:
        uuid = transect_uuid or self.current_transect_uuid
        return self.checks.get(f"bank:{uuid}") if uuid else None

    # -------------------------------------------------------------- tally
    def trees(self) -> list[Any]:
        return list(self.model.trees())

    def add_tree(self, fix: Any, *, reading: Any = None, **kw: Any) -> Any:
        if reading is not None:
            kw["caliper"] = reading
        return self.model.add_tree(fix=fix, **kw)

    def update_tree(self, uuid: str, **fields: Any) -> Any:
        return self.model.update_tree(uuid, **fields)

    def delete_tree(self, uuid: str) -> Any:
        tree = self.model.delete_tree(uuid)
        self._tree_deletes.append(uuid)
        return tree

    def can_undo_delete(self) -> bool:
        return bool(self._tree_deletes)

    def undo_delete_tree(self) -> Any:
        while self._tree_deletes:
            uuid = self._tree_deletes.pop()
            try:
                return self.model.restore(uuid)
            except Exception:  # noqa: BLE001 - already restored by other means
                continue
        return None

    def set_retained_ac(self, value: float) -> None:
        """The retained woodland area (acres) the plan keeps: stored with the current stand
        (:meth:`current_stand`), so a reopened visit and the office report read it too; with
        no stand walked yet it is stored on the first stand when it is walked
        (:meth:`refresh_checks`)."""
        self.retained_ac = float(value)
        stand = self.current_stand()
        if stand is not None and stand.retained_area_ac != (float(value) or None):
            from fieldapp.survey.features import Layer

            self.model.update_feature(Layer.AREA, stand.uuid,
                                      retained_area_ac=float(value) or None)
        self._notify()

    def current_stand(self) -> Any:
        """The woodland stand the tally is about (the last one walked), or None."""
        stands = self.areas("woodland_stand")
        return stands[-1] if stands else None

    def stand_retained_ac(self) -> float:
        """The current stand's stored retained area (acres), else this session's value."""
        stand = self.current_stand()
        own = stand.retained_area_ac if stand is not None else None
        return float(own) if own is not None else float(self.retained_ac)

    def set_tally_complete(self, complete: bool) -> None:
        """Mark the current stand's tally complete (its woodland verdicts stop being
        provisional) or open again. Raises ValueError when no stand is walked yet."""
        from fieldapp.survey.features import Layer

        stand = self.current_stand()
        if stand is None:
            raise ValueError("walk the woodland stand first (Boundary tab)")
        if stand.tally_complete != bool(complete):
            self.model.update_feature(Layer.AREA, stand.uuid, tally_complete=bool(complete))
        self._notify()

    def areas(self, kind: str | None = None) -> list[Any]:
        from fieldapp.survey.features import Layer

        out = self.model.features(Layer.AREA)
        return [a for a in out if kind is None or _value(a.kind) == kind]

    def stand_summary_text(self) -> str:
        """The running stand summary in words (per-acre figures need a walked stand)."""
        trees = self.trees()
        stands = self.areas("woodland_stand")
        if not stands:
            return (f"{plural(len(trees), 'tree')} tallied. Walk the stand boundary (Boundary tab) for"
                    " stems and basal area per acre, canopy cover and the woodland class.")
        stand = stands[-1]
        try:
            m = self.model.stand_measures(stand.uuid)
        except Exception as exc:  # noqa: BLE001
            return f"Stand figures unavailable: {exc}"
        lines = [f"{stand_name(stand.label)} {m.stand_area_ac:.2f} ac: {plural(m.stems, 'stem')},"
                 f" {m.stems_per_ac:.1f} stems/ac, basal area {m.basal_area_sqft_per_ac:.1f}"
                 f" sq ft/ac",
                 f"Canopy ≥10 in {m.canopy_10in_pct:.1f} %, ≥3 in {m.canopy_3in_pct:.1f} %,"
                 f" deciduous share "
                 + (f"{m.deciduous_share_pct:.1f} %" if m.deciduous_share_pct is not None
                    else "–")]
        wc = self.checks.get(f"woodland:{stand.uuid}")
        if wc is not None and wc.status == "provisional":
            r = wc.result
            lines.append(f"Woodland class: provisional — {plural(r.get('trees_so_far', 0), 'tree')}"
                         f" so far (class {str(r.get('class', '?')).upper()} from them); tick"
                         " Tally complete once every tree of the stand is recorded")
        elif wc is not None and wc.status == "needs_data":
            lines.append(f"Woodland class: not determined yet — next step:"
                         f" {wc.result.get('next_step', 'more data')}")
        elif wc is not None:
            r = wc.result
            why = {"canopy": "by canopy cover", "grove": "by a grove of large deciduous trees"}
            lines.append(f"Woodland class: {str(r.get('class', '?')).upper()}"
                         f" ({why.get(str(r.get('basis')), 'no canopy or grove basis')})"
                         f" — {r.get('citation', '')}")
        mc = self.checks.get(f"mitigation:{stand.uuid}")
        if mc is not None and mc.status not in ("error", "needs_data"):
            r = mc.result
            p = r.get("plantings") or {}
            lines.append(("Provisional: " if mc.status == "provisional" else "")
                         + f"Retained {r.get('retained_pct', 0):.1f} %: "
                         + ("permitted" if r.get("permitted") else "NOT permitted")
                         + (f"; mitigation {r.get('mitigation_area_ac', 0):.2f} ac, plantings "
                            + ", ".join(f"{v} × {_planting_words(k)}" for k, v in p.items())
                            if r.get("mitigation_required") else "; no mitigation"))
        elif mc is not None:  # no retained area yet, or one the rule refuses: say which
            lines.append(f"Woodland protection: {checks_mod.summary_words(mc.rule, mc.result)}")
        return "\n".join(lines)

    # -------------------------------------------------------------- boundary walk
    def start_walk(self, kind: str, label: str, spacing_ft: float, fix: Any) -> Any:
        self.model.ensure_frame(fix)
        self.walk = self.model.start_walk(kind, label=label, spacing_ft=spacing_ft)
        self.walk_warning = None
        self.walk.feed(fix)
        self._notify()
        return self.walk

    def walk_state(self) -> str | None:
        return _value(self.walk.state) if self.walk is not None else None

    def walk_vertex(self, fix: Any) -> Any:
        x, y = self.model.frame.to_local(fix.lon_deg, fix.lat_deg)
        return self.walk.add_vertex(float(x), float(y), getattr(fix, "time_utc", None))

    def walk_feed(self, fix: Any) -> None:
        """Walks are fed by the model's ``on_fix`` (called for every fix)."""

    def pause_walk(self) -> None:
        self.walk.pause()
        self._notify()

    def resume_walk(self) -> None:
        self.walk.resume()
        self._notify()

    def close_walk(self, attributes: dict[str, Any]) -> Any:
        from fieldapp.survey.errors import SelfCrossing

        attrs = {k: v for k, v in attributes.items() if v is not None or k == "label"}
        kind = _value(self.walk.record.kind)
        if kind != "wetland":
            attrs = {"label": attrs.get("label", "")}
        try:
            area = self.walk.close(**attrs)
            warning = None
        except SelfCrossing as exc:
            area = self.walk.close(repair=True, **attrs)
            warning = (f"Boundary crossed itself at {plural(len(exc.crossings), 'place')}; closed with"
                       f" every lobe kept ({len(exc.repaired.geoms)} lobes).")
        sqft = self.model.area_sqft(area.uuid)
        self.last_closed_area = {"uuid": area.uuid, "kind_words": KIND_WORDS.get(kind, kind),
                                 "label": area.label, "area_sqft": sqft,
                                 "area_ac": sqft / 43560.0, "warning": warning}
        self.walk = None
        self._notify()
        return area

    def walk_info(self) -> dict[str, Any] | None:
        w = self.walk
        if w is None:
            return None
        crossings = w.crossings()
        kind = _value(w.record.kind)
        sqft = w.area_sqft
        return {"kind_words": KIND_WORDS.get(kind, kind), "state": _value(w.state),
                "vertices": len(w.vertices()), "area_sqft": sqft, "area_ac": sqft / 43560.0,
                "perimeter_ft": w.perimeter_ft,
                "warning": (f"Warning: the boundary crosses itself at {plural(len(crossings), 'place')};"
                            " closing keeps every lobe." if crossings else None)}

    def area_verdict_text(self, area_uuid: str | None) -> str:
        """The wetland's size verdict and protective-area width, in words."""
        if area_uuid is None:
            return ""
        lines = []
        ws = self.checks.get(f"wetland:{area_uuid}")
        if ws is not None:
            r = ws.result
            if ws.status == "error":
                lines.append(f"Wetland size: error {r.get('message')}")
            else:
                lines.append(("Ordinance wetland: YES" if r.get("is_ordinance_wetland") else
                              "Ordinance wetland: no")
                             + f" — {r.get('required_undisturbed_pct', 0):.0f} % undisturbed"
                             f" required ({r.get('citation', '')})")
            if ws.cites:        # the data points behind the boundary (fieldapp.checks.support)
                lines.append(f"Delineation: {ws.cites}")
        pa = self.checks.get(f"protective_area:{area_uuid}")
        if pa is not None:
            r = pa.result
            if pa.status == "determined":
                lines.append(f"Protective area {r.get('width_ft', 0):.1f} ft wide"
                             f" ({r.get('citation', '')})")
            else:
                lines.append(f"Protective area: {checks_mod.summary_words(pa.request['rule'], r)}"
                             + (f" — {r.get('next_step')}" if r.get("next_step") else ""))
        return "\n".join(lines)

    # -------------------------------------------------------------- checks
    def refresh_checks(self) -> bool:
        """Rebuild the rule requests from the model; evaluate what changed. A retained area
        typed before the stand was walked is stored with the stand now it exists."""
        stand = self.current_stand() if self.retained_ac > 0 else None
        if stand is not None and stand.retained_area_ac is None:
            from fieldapp.survey.features import Layer

            self.model.update_feature(Layer.AREA, stand.uuid, retained_area_ac=self.retained_ac)
        return bool(self.checks.refresh(self.model, retained_ac=self.retained_ac))

    def _notify(self) -> None:
        for fn in self.change_listeners:
            fn(False)

    # -------------------------------------------------------------- map geometry
    def overlays(self) -> dict[str, Any]:
        """Everything the map draws besides the live position, in site feet."""
        import fieldapp.app.overlays as overlays

        if self._crowns is None:
            self._crowns = overlays.TreeCrowns()
        return overlays.build(self, self._crowns)

    # -------------------------------------------------------------- closing
    def close(self) -> None:
        """Checkpoint and close the store (the .gpkg alone is then complete)."""
        if self.store is not None:
            close = getattr(self.store, "close", None)
            if callable(close):
                close()


def new_visit_path(data_dir: str | Path, name: str | None = None) -> Path:
    """``DATA_DIR/<name>_<YYYY-MM-DD_HHMMSS>.gpkg``; ``name`` made a file name Windows accepts and
    kept readable (:func:`fieldapp.store.paths.safe_file_name`)."""
    stamp = dt.datetime.now().strftime("%Y-%m-%d_%H%M%S")
    safe = safe_file_name(name or "", fallback="visit")
    return Path(data_dir) / f"{safe}_{stamp}.gpkg"


def last_visit_named(data_dir: str | Path, name: str) -> Path | None:
    """The newest visit :func:`new_visit_path` made for ``name`` in ``data_dir``
    (``demo_2026-06-01_093000.gpkg``; by the time in its name), or None."""
    safe = safe_file_name(name, fallback="visit")
    found = sorted(Path(data_dir).glob(f"{safe}_????-??-??_??????.gpkg")) \
        if Path(data_dir).is_dir() else []
    return found[-1] if found else None


def open_visit(path: Path, *, name: str | None = None, priority_waterway: bool = False,
               crew: str | list[str] = "", antenna_height_m: float = 0.0, antenna_height_unit: str = "m",
               water_features: list[Any] | tuple[Any, ...] = (), crs: str | None = None,
               notes: str = "") -> VisitController:
    """Open the visit at ``path`` or create it (store attached when :mod:`fieldapp.store` is
    available). The keyword settings apply to a new visit only (``crs`` None: the UTM zone of
    the first fix; ``water_features`` as :class:`fieldapp.survey.features.WaterFeature`)."""
    from fieldapp.survey.visit import Visit

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    store_mod: ModuleType | None
    try:
        from fieldapp import store as store_mod
    except ImportError:
        store_mod = None
    if store_mod is not None:   # a visit creation killed in this folder left its temporary file
        from fieldapp.store.staletemps import clear_stale_creations

        clear_stale_creations(path.parent)
    if store_mod is not None and path.exists():
        # a damaged row (a time that is not a time, a value QGIS let through) is set aside and
        # named, never the reason the whole day's visit cannot be opened (show_opened says it)
        store = store_mod.open_visit(path, set_aside=True)   # with its tag block (store.tagblock)
        return VisitController(store.visit, path, store)
    crew_list = [crew] if isinstance(crew, str) and crew else list(crew or [])
    model = Visit.new(name or path.stem, crew=crew_list, priority_waterway=priority_waterway,
                      antenna_height_m=antenna_height_m, antenna_height_unit=antenna_height_unit,
                      water_features=tuple(water_features),
                      crs=crs, notes=notes)
    new_store = None
    if store_mod is not None:
        new_store = store_mod.create_visit(path, model)
    return VisitController(model, path, new_store)


def dialogs_allowed(config: Any, platform_name: str) -> bool:
    """Whether start-up may ask questions: not on the ``offscreen`` / ``minimal`` Qt platform
    (``platform_name``, from the UI: tests, screenshots), not a smoke run, not with
    ``FIELDAPP_NO_DIALOGS`` set."""
    import os

    if os.environ.get("FIELDAPP_NO_DIALOGS") or config.quit_after_s is not None:
        return False
    return platform_name not in ("offscreen", "minimal")


def ask_new_visit(window: Any) -> Any:
    """Ask for a new visit with the UI's New visit dialog (``window.ask_new_visit_spec()``,
    :func:`fieldapp.ui.newvisit.ask_new_visit`); the
    :class:`~fieldapp.ui.newvisit.NewVisitSpec`, or None when cancelled."""
    return window.ask_new_visit_spec()


def water_feature_objects(features: list[dict[str, Any]]) -> list[Any]:
    """The New visit dialog's water features (dicts of ``name``, ``type``, ``susceptibility``,
    ``wetland_type``, ``mapped_on``, ``map_name``) as :class:`fieldapp.survey.features.WaterFeature`.

    Raises
    ------
    ValueError
        An unknown water feature type or susceptibility.
    """
    from fieldapp.survey.features import Susceptibility, WaterFeature, WaterFeatureType

    return [WaterFeature(name=f["name"], type=WaterFeatureType(f["type"]),
                         susceptibility=Susceptibility(f["susceptibility"])
                         if f.get("susceptibility") else None,
                         wetland_type=f.get("wetland_type"), mapped_on=f.get("mapped_on"),
                         map_name=f.get("map_name"), drainage_area_ac=f.get("drainage_area_ac")) for f in features]


def open_from_spec(spec: Any) -> VisitController:
    """Create the visit a New visit dialog described (with the basemap fetched for it, kept in
    the visit's layers sidecar, :mod:`fieldapp.basemap.layers`)."""
    visit = open_visit(spec.path, name=spec.name, priority_waterway=spec.priority_waterway,
                       crew=spec.crew, antenna_height_m=spec.antenna_height_m,
                       antenna_height_unit=getattr(spec, "antenna_height_unit", "m"),
                       water_features=water_feature_objects(spec.water_features), crs=spec.crs)
    if getattr(spec, "infill_area_ac", None) is not None:   # NR 151.125(4)(b)
        visit.model.update_site(infill_area_ac=spec.infill_area_ac,
                                infill_within_development=bool(spec.infill_within_development))
    if getattr(spec, "basemap", None) is not None:
        from fieldapp.basemap import layers

        layers.set_basemap(spec.path, spec.basemap)
    return visit


def switch_to(window: Any, visit: VisitController) -> None:
    """Close the open visit, show ``visit`` and remember it as the last one."""
    old = window.visit
    if old is not None and old is not visit:
        try:
            old.close()
        except Exception:  # noqa: BLE001 - closing must go on
            log.exception("closing the previous visit")
    window.map.clear_track()
    window.set_visit(visit)
    cfg = window.config
    if not (cfg.simulate or cfg.replay or cfg.quit_after_s is not None):
        window.remember_setting(last_visit=str(visit.path))


def create_from_dialog(window: Any, spec: Any = None) -> VisitController | None:
    """Visit ▸ New visit…: ask (unless ``spec`` is given), create, show."""
    spec = spec if spec is not None else ask_new_visit(window)
    if spec is None:
        return None
    try:
        visit = open_from_spec(spec)
    except Exception as exc:  # noqa: BLE001 - shown in words
        window.office.show_message("New visit", f"The visit could not be created: {exc}",
                                   error=True)
        return None
    switch_to(window, visit)
    return visit


def choose_and_open(window: Any, path: str | Path | None = None) -> VisitController | None:
    """Visit ▸ Open visit…: the UI's file dialog (``window.ask_visit_path(start_folder)``)
    unless ``path`` is given, then open and show."""
    if path is None:
        start = str(paths.open_dialog_folder(window.config.data_dir,
                                             window.visit.path if window.visit else None))
        path = window.ask_visit_path(start)
        if not path:
            return None
    path = Path(path)
    if not path.exists():
        window.office.show_message("Open visit", f"No visit at {path}.", error=True)
        return None
    if window.visit is not None and Path(window.visit.path).resolve() == path.resolve():
        already: VisitController = window.visit
        return already
    try:
        visit = open_visit(path)
    except Exception as exc:  # noqa: BLE001 - a damaged or foreign file: said, never changed
        window.office.show_message("Open visit", f"{path.name} could not be opened: {exc}",
                                   error=True)
        return None
    switch_to(window, visit)
    return visit


#: Why nothing records after Cancel in the start-up New visit dialog.
NO_VISIT = "No visit open: Visit ▸ New visit… (Ctrl+N) or Open visit… (Ctrl+O)"


def open_initial_visit(window: Any) -> None:
    """Open ``--visit``; with ``--simulate`` / ``--replay`` a new demo visit; else the last visit,
    or (``--new``, or no last visit) the New visit dialog when dialogs are allowed, else a new
    visit in the data folder. All on the calling (GUI) thread: :func:`initial_visit_target`,
    :func:`open_target`, then :func:`show_opened` or :func:`show_open_failed`."""
    target = initial_visit_target(window)
    if target is not None:
        open_and_show(window, *target)


def open_and_show(window: Any, path: Path, spec: Any) -> None:
    """Open the visit at ``path`` (from ``spec`` when given) on this (GUI) thread and show it,
    or say why it could not be opened."""
    try:
        visit = open_target(window.config, path, spec)
    except Exception as exc:  # noqa: BLE001 - a damaged or foreign file is never overwritten
        show_open_failed(window, path, exc)
        return
    show_opened(window, path, visit)


def initial_visit_target(window: Any) -> tuple[Path, Any] | None:
    """(path, New visit spec or None) of the visit to open at start (see
    :func:`open_initial_visit`); asks the New visit dialog here (GUI thread). None when the
    dialog was cancelled (no visit, no file made; the window says so)."""
    cfg = window.config
    if cfg.visit:
        return Path(cfg.visit), None
    if cfg.simulate or cfg.replay:
        # the demo visit of the last run is offered again (it was a new empty one each time)
        last = last_visit_named(cfg.data_dir, "demo") if cfg.simulate and not cfg.new_visit \
            else None
        if last is not None and (moved := _demo_moved_words(last)):
            log.info("%s", moved)
            window.show_banner(moved)
            last = None
        if last is not None and dialogs_allowed(cfg, window.platform_name()) \
                and window.ask_reopen_visit(last):
            return last, None
        return new_visit_path(cfg.data_dir, "demo" if cfg.simulate else "replay"), None
    if cfg.last_visit and Path(cfg.last_visit).exists() and not cfg.new_visit:
        return Path(cfg.last_visit), None
    spec = None
    if dialogs_allowed(cfg, window.platform_name()):
        spec = ask_new_visit(window)
        if spec is None:            # Cancel: no visit, and no file made behind the user
            window.show_banner(NO_VISIT)
            window.pause_recording(NO_VISIT)
            return None
    return (spec.path if spec is not None else new_visit_path(cfg.data_dir, "visit")), spec


def open_target(cfg: Any, path: Path, spec: Any) -> VisitController:
    """The visit at ``path`` opened (made from ``spec`` when given) with its checks built: the
    long part of opening a day's visit (the store's checks, every row, the model, the checks),
    safe on a worker thread (it touches no widget). Raises what :func:`open_visit` raises."""
    if spec is not None:
        visit = open_from_spec(spec)
    else:
        visit = open_visit(path, name=path.stem, priority_waterway=cfg.priority_waterway,
                           crew=cfg.crew, antenna_height_m=cfg.antenna_height_m,
                           notes=demo_site_notes() if cfg.simulate else "")
    try:
        visit.refresh_checks()
    except Exception:  # noqa: BLE001 - the window builds them again and shows why they failed
        log.exception("checks at open")
    return visit


def _demo_moved_words(last: Path) -> str:
    """Why the last demo visit is not offered again (:mod:`fieldapp.app.demosite`), or ""."""
    try:
        from devices.sim.demo_scenario import ORIGIN
    except ImportError:         # an installed app without the simulators: nothing to compare
        return ""
    from fieldapp.app.demosite import elsewhere_words

    return elsewhere_words(last, ORIGIN)


def demo_site_notes() -> str:
    """A new demo visit's site notes: the scenario's (``site.notes``, which rule sets the demo
    checks at its Wisconsin site and that the local chapter was chosen for the demo); "" when
    the scenario cannot be read (the simulators then say why)."""
    try:
        from devices.sim.scenario import load_scenario

        return str(load_scenario("demo")["site"].get("notes", ""))
    except Exception:  # noqa: BLE001 - the notes are words, never a reason not to open
        log.exception("demo scenario's site notes")
        return ""


def show_opened(window: Any, path: Path, visit: VisitController) -> None:
    """Show the opened ``visit`` in ``window`` (GUI thread) and remember it as the last visit."""
    window.set_visit(visit)
    log.info("visit %s opened", path)
    unlocked = getattr(visit.store, "unlocked_reason", None)
    if damaged := set_aside_words(visit):
        log.warning("%s: %s", path, damaged)
        window.show_banner(f"Visit opened without its damaged rows: {damaged}")
    elif unlocked:        # recording goes on; the crew should know another window could too
        window.show_banner(f"Visit opened without its lock: {unlocked}. Another fieldapp window"
                           " could record into it too: keep it open in one window only")
    elif (words := paths.onedrive_warning(path)) or getattr(window, "onedrive_said", False):
        if words:
            log.warning("%s", words)
        window.show_banner(words or "")     # said for this visit; cleared for the next one
        window.note_onedrive_warning(bool(words))
    cfg = window.config
    if not (cfg.simulate or cfg.replay or cfg.quit_after_s is not None):
        window.remember_setting(last_visit=str(path))


def set_aside_words(visit: VisitController) -> str:
    """The damaged rows the store left out when it opened ``visit``, in field words (layer and
    row, :func:`fieldapp.store.setaside.damaged_words`); "" when there are none."""
    from fieldapp.store.setaside import damaged_words

    return damaged_words(getattr(visit.store, "set_aside", ()))


def show_open_failed(window: Any, path: Path, exc: BaseException) -> None:
    """Say why the visit at ``path`` could not be opened (GUI thread); recording stays blocked."""
    words = f"Could not open the visit {path}: {exc}"
    log.error("%s", words)  # also on the console: a --quit-after run says why it FAILED
    window.show_banner(words)
    window.pause_recording(NO_VISIT)   # record buttons say why, instead of losing a reading


def _planting_words(key: str) -> str:
    """A mitigation planting key in words (``canopy_2_5in_or_6ft_evergreen`` ->
    ``canopy 2.5 in or 6 ft evergreen``)."""
    import re

    words = key.replace("_or_", " or ").replace("_", " ")
    words = re.sub(r"(\d) (\d)", r"\1.\2", words)      # 2 5in -> 2.5in
    return re.sub(r"(\d)(in|ft)\b", r"\1 \2", words)
