"""Correcting records from the window, without Qt: the selection, the edit form's fields,
delete / undo / redo in words, the record nearest a map click, refusals in field words.

The window (:mod:`fieldapp.ui.editing`) shows one selected record at a time, whichever way it
was picked (map click, the Records table, a panel's table); everything here works on the open
:class:`fieldapp.app.visit.VisitController` and its model's undoable commands
(:class:`fieldapp.survey.editing.EditCommands`). Positions handed in and out are site feet,
as the map draws them.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from fieldapp.app.devicenames import device_changes, device_fields
from fieldapp.app.sitefacts import site_fact_changes, site_fact_fields
from fieldapp.rules.shown import slope_pct_text
from fieldapp.survey.drainage import LAND_USES
from fieldapp.survey.editing import record_words, subject_words
from fieldapp.survey.features import Action, Layer, PointMethod

__all__ = ["FieldSpec", "Selection", "form_fields", "apply_form", "parse_field", "refusal_words",
           "resolution_refusal_words", "record_rows", "nearest_record", "selection_shapes", "delete_words", "undo",
           "redo", "EDITABLE_LAYERS"]

#: The layers the Records table lists (the raw track and a walk's vertices are not records
#: one corrects one by one).
EDITABLE_LAYERS = (Layer.OHWM_POINT, Layer.OHWM_LINE, Layer.TRANSECT, Layer.STATION, Layer.TREE,
                   Layer.AREA, Layer.LINE, Layer.WALK, Layer.NOTE, Layer.DATA_POINT)

#: field -> (words, unit) for forms and refusals
FIELD_WORDS = {
    "dbh_in": ("DBH", "in"), "crown_radius_ft": ("Crown radius", "ft"),
    "species_code": ("Species code", ""), "species_name": ("Species", ""),
    "horizontal_ft": ("Segment length", "ft"), "segment_ft": ("Segment length", "ft"),
    "distance_ft": ("Distance from the OHWM", "ft"), "slope_pct": ("Slope", "%"),
    "slope_deg": ("Slope", "°"), "inclination_deg": ("Inclination", "°"),
    "azimuth_deg": ("Azimuth", "°"), "azimuth_true_deg": ("Azimuth", "° true"),
    "horizontal_distance_ft": ("Horizontal distance", "ft"), "label": ("Label", ""),
    "text": ("Note", ""), "notes": ("Notes", ""), "tributary_area_ac": ("Tributary area", "ac"),
    "channel_width_ft": ("Channel width", "ft"), "mapped_stream": ("Mapped stream", ""),
    "wetland_type": ("Wetland type", ""), "interruption": ("Complete interruption", ""),
    "stipulated": ("Stipulated bank", ""), "count": ("Vertices", ""), "tag": ("Tag", ""),
    "fill": ("Filled", ""), "fill_permit": ("Fill permit", ""),
    "name": ("Name", ""), "infill_area_ac": ("In-fill development area", "ac"),
}


@dataclass(frozen=True)
class Selection:
    """One selected record: its layer and uuid."""

    layer: Layer
    uuid: str


@dataclass
class FieldSpec:
    """One field of the edit form.

    ``kind``: ``text``, ``multiline``, ``number`` (typed, parsed by :func:`parse_field`),
    ``bool``, ``tristate`` (yes / no / not checked yet: True, False, None) or ``choice``
    (``choices`` of (value, words)). ``value`` is the record's current value.
    """

    name: str
    label: str
    kind: str
    value: Any
    unit: str = ""
    choices: list[Any] = field(default_factory=list)
    tip: str = ""


def _v(x: Any) -> Any:
    return getattr(x, "value", x)


def _num(name: str, value: Any, label: str | None = None, tip: str = "") -> FieldSpec:
    words, unit = FIELD_WORDS.get(name, (name, ""))
    return FieldSpec(name, label or words, "number", value, unit, tip=tip)


#: The site uses in words, for the form's choice (None: not entered).
LAND_USE_WORDS = [(None, "not entered"), *((u, u) for u in LAND_USES)]

#: The tooltip of a line's tributary stations field.
TRIBUTARY_STATIONS_TIP = ("Tributary area at stations down the line, ft from its first point (the upstream end)"
                          " : acres, e.g. 0:2; 200:6 -- only the reach below 5 acres' point is a drainageway"
                          " (Decorah resource protection, Drainageways A.2)")


def site_fields(site: Any) -> list[FieldSpec]:
    """The site's editable fields (:class:`fieldapp.app.editing.FieldSpec`): zoning district, use,
    then the NR 151.125 in-fill area and each stream's map (:mod:`fieldapp.app.sitefacts`)."""
    return [FieldSpec("zoning_district", "Zoning district", "text", site.zoning_district or "",
                      tip="e.g. A-1, R-2 (Decorah resource protection, General A)"),
            FieldSpec("land_use", "Use of the site", "choice", site.land_use, choices=list(LAND_USE_WORDS),
                      tip="Agricultural uses in an A-1 district are outside the chapter (General A);"
                          " farming is exempt from the erosion plan (Erosion control F)"),
            *site_fact_fields(site, FieldSpec), *device_fields(site, FieldSpec)]


def site_row(site: Any) -> tuple[Selection, str, str]:
    """The site's Records row: (selection, words, details)."""
    district = site.zoning_district or "district not entered"
    use = site.land_use or "use not entered"
    return Selection(Layer.SITE, site.uuid), f"Site {site.name}", f"{district}, {use}"


def form_fields(visit: Any, sel: Selection) -> list[FieldSpec]:
    """The editable fields of the selected record, with their current values (site units
    never appear: lengths in ft, slopes in percent, angles in degrees)."""
    rec = visit.model.get(sel.layer, sel.uuid)
    L = sel.layer
    if L is Layer.OHWM_POINT:
        if rec.method is PointMethod.OFFSET and rec.standing_x is not None:
            return [_num("azimuth_true_deg", rec.azimuth_true_deg),
                    _num("horizontal_distance_ft", rec.horizontal_distance_ft)]
        return []
    if L is Layer.STATION:
        return [_num("segment_ft", rec.segment_ft, tip="From the previous station (or the OHWM)"),
                _num("distance_ft", rec.distance_ft, tip="Later stations move with it"),
                _num("slope_pct", rec.slope_pct, tip="Rising landward is positive; within ±89°"),
                FieldSpec("interruption", "Complete interruption here", "bool", rec.interruption)]
    if L is Layer.TRANSECT:
        return [FieldSpec("label", "Label", "text", rec.label),
                _num("azimuth_true_deg", rec.azimuth_true_deg, tip="Its stations turn with it"),
                FieldSpec("stipulated", "Stipulated bank, NR 341.035(2)(c)", "bool", rec.stipulated)]
    if L is Layer.TREE:
        return [FieldSpec("tag", "Tag", "number", rec.tag, tip="The number on the tree's aluminium tag"),
                FieldSpec("species_code", "Species code", "text", rec.species_code),
                FieldSpec("species_name", "Species", "text", rec.species_name),
                _num("dbh_in", rec.dbh_in), _num("crown_radius_ft", rec.crown_radius_ft),
                FieldSpec("leaf_habit", "Leaf habit", "choice", _v(rec.leaf_habit),
                          choices=[("deciduous", "deciduous"), ("evergreen", "evergreen")]),
                FieldSpec("status", "Status", "choice", _v(rec.status),
                          choices=[("live", "live"), ("dead", "dead"), ("removed", "removed")]),
                FieldSpec("notes", "Notes", "multiline", rec.notes)]
    if L is Layer.AREA:
        out = [FieldSpec("label", "Label", "text", rec.label)]
        if _v(rec.kind) == "wetland":
            out += [FieldSpec("wetland_type", "Wetland type", "text", rec.wetland_type or ""),
                    FieldSpec("susceptibility", "Susceptibility", "choice", _v(rec.susceptibility),
                              choices=[(None, "from wetland type"), ("highly", "highly susceptible"),
                                       ("less", "less susceptible"), ("other", "other")]),
                    FieldSpec("standing_water", "Periodic standing water", "tristate", rec.standing_water),
                    FieldSpec("hydric_vegetation", "Hydric vegetation", "tristate", rec.hydric_vegetation),
                    FieldSpec("fill", "Filled", "choice", rec.fill,
                              choices=[(None, "not filled"), ("complete", "completely, under permit"),
                                       ("partial", "partly, under permit")],
                              tip="NR 151.125(1)(h): a wetland filled under all applicable permits"),
                    FieldSpec("fill_permit", "Fill permit", "text", rec.fill_permit or "",
                              tip="The permit reference the fill was placed under")]
        return out + [FieldSpec("notes", "Notes", "multiline", rec.notes)]
    if L is Layer.LINE:
        out = [FieldSpec("label", "Label", "text", rec.label)]
        if _v(rec.kind) == "drainageway_centreline":
            out += [FieldSpec("mapped_stream", "On the USGS quadrangle or county soil map", "tristate",
                              rec.mapped_stream, tip="Decorah resource protection, Drainageways A.1"),
                    _num("channel_width_ft", rec.channel_width_ft)]
        out += [_num("tributary_area_ac", rec.tributary_area_ac),
                FieldSpec("tributary_stations", "Tributary area down the line (ft:ac; ...)", "text",
                          getattr(rec, "tributary_stations", None) or "", tip=TRIBUTARY_STATIONS_TIP),
                FieldSpec("notes", "Notes", "multiline", rec.notes)]
        return out
    if L in (Layer.OHWM_LINE, Layer.WALK):
        return [FieldSpec("label", "Label", "text", rec.label)]
    if L is Layer.SITE:
        return site_fields(rec)
    if L is Layer.NOTE:
        return [FieldSpec("text", "Note", "multiline", rec.text)]
    if L is Layer.DATA_POINT:       # its form is typed on the Plot tab
        return [FieldSpec("name", "Name", "text", rec.name), FieldSpec("notes", "Notes", "multiline", rec.notes)]
    return []


class FieldRefused(ValueError):
    """A typed value that is not a number; the message is in field words."""


def parse_field(spec: FieldSpec, text: Any) -> Any:
    """The value of a form field as typed: a number field's text as float (empty -> None),
    others as given. Raises :class:`FieldRefused` ("DBH must be a number, not 'abc'")."""
    if spec.kind != "number":
        return text
    s = str(text).strip().replace(",", "")
    if s in ("", "–", "-"):
        return None
    try:
        value = float(s)
    except ValueError:
        raise FieldRefused(f"{spec.label} must be a number, not {text!r}") from None
    if not math.isfinite(value):
        raise FieldRefused(f"{spec.label} must be a finite number, not {text!r}")
    return value


def apply_form(visit: Any, sel: Selection, values: dict[str, Any]) -> Any:
    """Apply the changed fields ``values`` ({name: new value}) to the record as ONE undoable
    command; returns the new record (the old one if nothing changed).

    Raises the model's InvalidValue / StateError (the record keeps its previous value);
    :func:`refusal_words` puts them in field words.
    """
    m = visit.model
    old = {f.name: f.value for f in form_fields(visit, sel)}
    changed = {k: v for k, v in values.items() if k in old and v != old[k]}
    if not changed:
        return m.get(sel.layer, sel.uuid)
    L = sel.layer
    if L is Layer.STATION:
        kw: dict[str, Any] = {}
        if "distance_ft" in changed:
            kw["distance_ft"] = changed["distance_ft"]
        elif "segment_ft" in changed:
            kw["horizontal_ft"] = changed["segment_ft"]
        if "slope_pct" in changed:
            kw["slope_pct"] = changed["slope_pct"]
        if "interruption" in changed:
            kw["interruption"] = changed["interruption"]
        for k in ("horizontal_ft", "distance_ft", "slope_pct"):
            if k in kw and kw[k] is None:
                raise FieldRefused(f"{FIELD_WORDS[k][0]} must be given")
        return m.update_station(sel.uuid, **kw)
    if L is Layer.TRANSECT:
        if changed.get("azimuth_true_deg", 0.0) is None:
            raise FieldRefused("Azimuth (true) must be given")
        return m.update_transect(sel.uuid, azimuth_deg=changed.get("azimuth_true_deg"),
                                 stipulated=changed.get("stipulated"), label=changed.get("label"))
    if L is Layer.OHWM_POINT:
        return m.update_offset_point(sel.uuid, azimuth_deg=changed.get("azimuth_true_deg"),
                                     horizontal_ft=changed.get("horizontal_distance_ft"))
    if L is Layer.NOTE:
        return m.update_note(sel.uuid, text=changed.get("text"))
    if L is Layer.SITE:
        if "zoning_district" in changed:
            changed["zoning_district"] = str(changed["zoning_district"] or "").strip() or None
        changed.update(device_changes(m.site, changed))       # the instruments' names (first:
        changed.update(site_fact_changes(m.site, changed))    # NR 151.125(4)(b), (1)(b): "x:i")
        return m.update_site(**changed)
    if L is Layer.LINE and "tributary_stations" in changed:
        changed["tributary_stations"] = str(changed["tributary_stations"] or "").strip() or None
    if L is Layer.DATA_POINT:
        return m.update_data_point(sel.uuid, **changed)
    if set(changed) == {"label"}:
        return m.rename(L, sel.uuid, changed["label"])
    if L is Layer.TREE:
        if "tag" in changed:
            tag = changed["tag"]
            if tag is None or tag != int(tag) or tag < 1:
                raise FieldRefused(f"Tag must be a whole number from 1, not {_g(str(tag))}")
            changed["tag"] = int(tag)
        if "dbh_in" in changed and changed["dbh_in"] is None:
            raise FieldRefused("DBH must be given")
        if changed.get("crown_radius_ft", 1.0) in (None, 0.0):
            changed["crown_radius_ft"] = None
        return m.update_tree(sel.uuid, **changed)
    if L is Layer.AREA and "wetland_type" in changed:
        changed["wetland_type"] = changed["wetland_type"].strip() or None
    if L is Layer.AREA and ("fill" in changed or "fill_permit" in changed):   # NR 151.125(1)(h)
        changed["fill"] = changed.get("fill", old["fill"])
        changed["fill_permit"] = str(changed.get("fill_permit", old["fill_permit"]) or "").strip() or None
        if changed["fill"] is None and changed["fill_permit"]:
            raise FieldRefused("Fill permit needs Filled: completely or partly, under permit")
    return m.update_feature(L, sel.uuid, **changed)


_RANGE = re.compile(r"^(?P<v>.+?) outside (?P<open>[\[(])(?P<lo>[^,]+), (?P<hi>[^\]]+)\]$")


def _g(x: str) -> str:
    try:
        return f"{float(x):g}"
    except ValueError:
        return x


def refusal_words(exc: BaseException) -> str:
    """A refused edit in field words: ``dbh_in: -3.0 outside [0.1, 500.0]`` ->
    ``DBH must be between 0.1 and 500 in (not -3 in)``.

    >>> from fieldapp.survey.errors import InvalidValue
    >>> refusal_words(InvalidValue("dbh_in", "-3.0 outside [0.1, 500.0]"))
    'DBH must be between 0.1 and 500 in (not -3 in)'
    >>> refusal_words(InvalidValue("slope_pct", "6000.0 % is steeper than ±89.0°"))
    'Slope must be within ±89° (not 6000 %)'
    """
    name = getattr(exc, "name", None)
    if name is None:
        return str(exc)
    msg = str(exc)
    msg = msg[len(name) + 2:] if msg.startswith(f"{name}: ") else msg
    words, unit = FIELD_WORDS.get(name.split(" ")[0], (name.replace("_", " "), ""))
    u = f" {unit}" if unit and unit != "°" else unit
    if name.startswith("slope"):
        got = re.match(r"^(-?[\d.e+]+)", msg)
        shown = f" (not {_g(got.group(1))}{u})" if got else ""
        return f"Slope must be within ±89°{shown}"
    r = _RANGE.match(msg)
    if r:
        lo, hi, v = _g(r["lo"]), _g(r["hi"]), _g(r["v"])
        if hi == "inf":
            more = "more than" if r["open"] == "(" else "at least"
            return f"{words} must be {more} {lo}{u} (not {v}{u})"
        if r["open"] == "(":
            return f"{words} must be more than {lo} and at most {hi}{u} (not {v}{u})"
        return f"{words} must be between {lo} and {hi}{u} (not {v}{u})"
    if msg.startswith("must not be empty"):
        return f"{words} must not be empty{msg[len('must not be empty'):]}"
    return f"{words}: {msg}"


def resolution_refusal_words(exc: BaseException) -> str:
    """A refused conflict resolution (:class:`fieldapp.sync.resolve.ResolutionRefused`, or any
    error) in field words, for the Conflicts view's message.

    >>> from fieldapp.sync.resolve import ResolutionRefused
    >>> resolution_refusal_words(ResolutionRefused("dbh_in", "-5.0 outside [0.1, 500.0]", "-5", ""))
    'DBH must be between 0.1 and 500 in (not -5 in)'
    >>> resolution_refusal_words(ResolutionRefused("dbh_in", "takes a number", "twenty", ""))
    "DBH takes a number in inches, not 'twenty'"
    """
    name, reason = getattr(exc, "name", None), getattr(exc, "reason", None)
    if not isinstance(name, str) or not isinstance(reason, str):
        return str(exc).strip() or type(exc).__name__
    words, unit = FIELD_WORDS.get(name, (name.replace("_", " ").capitalize(), ""))
    if reason.startswith("takes a"):
        unit = {"in": "inches", "ft": "feet", "%": "percent", "°": "degrees", "ac": "acres"}.get(unit, unit)
        return f"{words} {reason}{f' in {unit}' if unit else ''}, not {getattr(exc, 'value', '')!r}"

    class _Refused(ValueError):
        pass

    refused = _Refused(f"{name}: {reason}")
    refused.name = name  # type: ignore[attr-defined]
    return refusal_words(refused)


# ------------------------------------------------------------------ the Records table
def _details(visit: Any, layer: Layer, rec: Any) -> str:
    m = visit.model
    if layer is Layer.OHWM_POINT:
        if rec.method is PointMethod.OFFSET:
            mag = f" ({rec.azimuth_mag_deg:.1f}° magnetic)" if rec.azimuth_mag_deg is not None else ""
            return f"offset {rec.horizontal_distance_ft or 0:.2f} ft at {rec.azimuth_true_deg or 0:.1f}° true{mag}"
        return f"averaged, {rec.sample_count} epochs"
    if layer is Layer.STATION:
        return (f"{rec.distance_ft:.1f} ft from the OHWM, {slope_pct_text(rec.slope_pct)} %"
                + (", complete interruption" if rec.interruption else ""))
    if layer is Layer.TRANSECT:
        n = len(m.children(Layer.STATION, rec.uuid))
        return f"azimuth {rec.azimuth_true_deg:.1f}° true, {n} station{'s' if n != 1 else ''}" + (
            ", stipulated" if rec.stipulated else "")
    if layer is Layer.TREE:
        return f"{rec.dbh_in:.1f} in {rec.species_name or rec.species_code or '(species?)'}, {_v(rec.status)}"
    if layer is Layer.AREA:
        return f"{m.frame.area_sqft(rec.geometry) / 43560.0:.3f} ac"
    if layer is Layer.LINE:
        extra = ""
        if _v(rec.kind) == "drainageway_centreline":
            extra = {True: ", mapped stream", False: ", not a mapped stream",
                     None: ", map not checked"}[rec.mapped_stream]
        if rec.tributary_area_ac is not None:
            extra += f", tributary {rec.tributary_area_ac:g} ac"
        return f"{m.frame.length_ft(rec.geometry):.0f} ft{extra}"
    if layer is Layer.WALK:
        return f"{_v(rec.state)}, {len(m.children(Layer.WALK_VERTEX, rec.uuid))} vertices"
    if layer is Layer.NOTE:
        return "at a position" if rec.x is not None else "no position"
    if layer is Layer.OHWM_LINE:
        return f"{len(m.children(Layer.OHWM_POINT, rec.uuid))} points"
    if layer is Layer.DATA_POINT:
        decided = {None: "form not decided", True: "wetland", False: "not wetland"}[rec.wetland]
        pair = m.get(Layer.DATA_POINT, rec.pair_uuid).name if rec.pair_uuid in m._data[Layer.DATA_POINT] else None
        return f"{decided}, " + (f"paired with {pair}" if pair else "not paired")
    return ""


def record_rows(visit: Any) -> list[tuple[Selection, str, str]]:
    """Every record one can correct, as (selection, name in words, details), by layer; the site
    last (its zoning district and use, General A of the city chapter)."""
    m = visit.model
    out = []
    for layer in EDITABLE_LAYERS:
        recs = m.features(layer)
        if layer is Layer.OHWM_POINT:
            recs = visit.ohwm_points()
        elif layer is Layer.STATION:
            recs = [s for t in m.features(Layer.TRANSECT) for s in m.children(Layer.STATION, t.uuid)]
        elif layer is Layer.WALK:
            areas = {a.uuid for a in m.features(Layer.AREA)}
            recs = [w for w in recs if w.area_uuid is None or w.area_uuid not in areas]
        for rec in recs:
            words = record_words(m, layer, rec)
            out.append((Selection(layer, rec.uuid), words[:1].upper() + words[1:], _details(visit, layer, rec)))
    return [*out, site_row(m.site)]


# ------------------------------------------------------------------ the map
def nearest_record(visit: Any, x_ft: float, y_ft: float, tolerance_ft: float) -> Selection | None:
    """The record a map click at (x_ft, y_ft) picks: the nearest point record (OHWM point,
    station, tree, note, data point) within ``tolerance_ft``, else the nearest line (line feature,
    transect) or area outline within it, else the smallest area containing the click."""
    import shapely
    from shapely.geometry import Point

    m = visit.model
    if not m.has_frame:
        return None
    f = m.frame
    x, y = float(f.from_ft(x_ft)), float(f.from_ft(y_ft))
    tol = float(f.from_ft(tolerance_ft))
    click = Point(x, y)
    best: tuple[float, Selection] | None = None
    for layer in (Layer.OHWM_POINT, Layer.STATION, Layer.TREE, Layer.NOTE, Layer.DATA_POINT):
        for rec in m.features(layer):
            if rec.x is None:
                continue
            d = math.hypot(rec.x - x, rec.y - y)
            if d <= tol and (best is None or d < best[0]):
                best = (d, Selection(layer, rec.uuid))
    if best is not None:
        return best[1]
    for layer in (Layer.LINE, Layer.TRANSECT, Layer.AREA):
        for rec in m.features(layer):
            g = rec.geometry
            if g is None:
                continue
            d = float(shapely.distance(g.boundary if layer is Layer.AREA else g, click))
            if d <= tol and (best is None or d < best[0]):
                best = (d, Selection(layer, rec.uuid))
    if best is not None:
        return best[1]
    inside = [a for a in m.features(Layer.AREA) if a.geometry.covers(click)]
    if inside:
        return Selection(Layer.AREA, min(inside, key=lambda a: a.geometry.area).uuid)
    return None


def selection_shapes(visit: Any, sel: Selection | None) -> dict[str, Any]:
    """What the map highlights for the selection: {"points": [(x_ft, y_ft)], "lines": [[...]]}."""
    out: dict[str, Any] = {"points": [], "lines": []}
    m = visit.model
    if sel is None or not m.has_frame:
        return out
    try:
        rec = m.get(sel.layer, sel.uuid)
    except KeyError:
        return out
    f = m.frame

    def ft(pts: Any) -> list[Any]:
        return [(float(f.to_ft(px)), float(f.to_ft(py))) for px, py in pts]

    if getattr(rec, "x", None) is not None:
        out["points"] = ft([(rec.x, rec.y)])
    geom = getattr(rec, "geometry", None)
    if geom is not None:
        import shapely

        parts = shapely.get_parts(geom)
        for p in parts:
            if p.geom_type == "Polygon":
                out["lines"].append(ft(p.exterior.coords))
            elif p.geom_type == "LineString":
                out["lines"].append(ft(p.coords))
    if sel.layer is Layer.WALK:
        verts = [(v.x, v.y) for v in m.children(Layer.WALK_VERTEX, sel.uuid)]
        if verts:
            out["lines"].append(ft(verts))
    return out


# ------------------------------------------------------------------ commands in words
def delete_words(visit: Any, sel: Selection) -> str:
    """Delete the selected record (one undoable command) and say so:
    ``Deleted OHWM point 6 — Ctrl+Z brings it back``."""
    if sel.layer is Layer.SITE:
        raise FieldRefused("The site cannot be deleted; correct its fields with Edit (F4)")
    if sel.layer is Layer.TREE:       # through the tally's delete: its Undo delete button knows
        words = record_words(visit.model, Layer.TREE, visit.model.get(Layer.TREE, sel.uuid))
        visit.delete_tree(sel.uuid)
        return f"Deleted {words} — Ctrl+Z brings it back"
    changes = visit.model.delete_record(sel.layer, sel.uuid)
    _forget_missing_walk(visit)        # the walk in progress may have gone with it
    return f"Deleted {subject_words(visit.model, changes)} — Ctrl+Z brings it back"


def undo(visit: Any) -> str:
    """Undo the last command; the status-line words (``Undone: deleted OHWM point 6 ...``)."""
    m = visit.model
    return _step(visit, m.undo_subject, m.undo, "Nothing to undo", "Undone", "Ctrl+Shift+Z does it again")


def redo(visit: Any) -> str:
    """Redo the last undone command; the status-line words."""
    m = visit.model
    return _step(visit, m.redo_subject, m.redo, "Nothing to redo", "Redone", "Ctrl+Z undoes it")


def _step(visit: Any, subject: Any, run: Any, nothing: str, done: str, back: str) -> str:
    """Undo or redo (``run``) what ``subject()`` names; its words, or ``nothing``."""
    what = subject()
    if what is None:
        return nothing
    changes = run()
    _forget_missing_walk(visit)        # the walk in progress may have gone with it
    return f"{done}: {what} {_verb(changes)} — {back}"


def _verb(changes: Any) -> str:
    acts = {ch.action for ch in changes or ()}
    if acts == {Action.ADDED} or (Action.ADDED in acts and Action.REMOVED not in acts
                                  and any(ch.layer is not Layer.OHWM_LINE and ch.action is Action.ADDED
                                          for ch in changes)):
        return "is back"
    if Action.REMOVED in acts and Action.ADDED not in acts:
        return "is removed"
    return "has its earlier values"


def _forget_missing_walk(visit: Any) -> None:
    """After an undo / redo: the controller's walk in progress is the model's (an undone close
    opens the walk again, an undone start removes it) and a closed area gone is not shown."""
    from fieldapp.survey.features import WalkState

    m = visit.model
    if visit.walk is not None:
        try:
            if visit.walk.record.state is WalkState.CLOSED:
                visit.walk = None
        except KeyError:
            visit.walk = None
    if visit.walk is None:
        walks = m.open_walks()
        if walks:
            visit.walk = walks[-1]
    last = visit.last_closed_area
    if last is not None and last["uuid"] not in {a.uuid for a in m.features(Layer.AREA)}:
        visit.last_closed_area = None
