"""The report's sections as Platypus flowables (no Qt): site, verdicts at a glance, stands,
wetlands, verdicts in detail, stake-out flags, GNSS quality, sync conflicts, notes and the
certification block. Each function takes the :class:`~fieldapp.report.content.ReportContent`
and the frame width (points) and returns a list of flowables; tables come from
:func:`fieldapp.report.layout.table` (rows never split, words never broken).
"""

from __future__ import annotations

from typing import Any

from reportlab.platypus import Flowable, Paragraph, Spacer, Table

from fieldapp.checks.results import Check, check_words, status_words, summary_words
from fieldapp.checks.words import field_words
from fieldapp.geo import Foot
from fieldapp.rules.nr341 import bank_parameters
from fieldapp.rules.rulesets import rule_sets_words
from fieldapp.rules.shown import NOT_SET, slope_pct_text
from fieldapp.survey.antenna import visit_history_words
from fieldapp.survey.features import Layer, Note, OhwmPoint, Station, Transect, Tree
from fieldapp.survey.place import site_place
from fieldapp.survey.visit import Visit

from .content import (
    GGA_QUALITY,
    INTERPRETATIONS,
    ReportContent,
    StandSection,
    TransectProfile,
    crs_unit_symbol,
    declination_words,
    rule_title,
)
from .layout import FONT, esc, fmt, heading, para, small, status_markup, table

__all__ = ["site_section", "summary_section", "verdicts_section", "stakes_section", "profile_intro",
           "profile_table", "stands_section", "wetlands_section", "gnss_section", "conflicts_section",
           "notes_section", "certification_section", "feature_words", "attached_checks"]


def attached_checks(content: ReportContent) -> list[tuple[str, Check]]:
    """(attachment file name, check) of every check with a rule request, in verdict order.

    The number in a name is the verdict's number in the report (``request-03-...`` is verdict
    3); a check awaiting data (no rule request yet) gets no attachment, so numbers may skip.
    """
    out = []
    for i, c in enumerate(content.checks, 1):
        if not c.has_request:
            continue
        slug = "".join(ch if ch.isalnum() else "-" for ch in rule_title(c).split("(")[0].strip())
        slug = "-".join(part for part in slug.split("-") if part)[:40]
        out.append((f"request-{i:02d}-{slug}.json", c))
    return out


def site_section(c: ReportContent, w: float) -> list[Flowable]:
    """Title, the site block (crew, devices, declination used...) and the units note."""
    s = c.site
    from .trees import devices_words

    devices = devices_words(c)
    waters = "; ".join(
        f"{x.name} ({x.type.value}" + (f", {x.susceptibility.value}" if x.susceptibility else "")
        + (f", {x.wetland_type}" if x.wetland_type else "") + ")" for x in s.water_features) or "–"
    rows = [
        ["Site", esc(s.name)], ["Visit date", esc(s.visit_date.isoformat())],
        ["Crew", esc(", ".join(s.crew) or NOT_SET)], ["Devices", esc(devices)],
        ["Waterway", ("priority waterway" if s.priority_waterway else "not a priority waterway")
         + f" ({esc(bank_parameters(s.priority_waterway).cite_base)})"],
        ["Water features", esc(waters)],
        ["Zoning district, use", esc(f"{s.zoning_district or 'district not entered'}, "
                                     f"{s.land_use or 'use not entered'} (Decorah resource protection, General A)")],
        ["Rules checked", esc(rule_sets_words(site_place(c.visit)))],
        ["Antenna height", esc(visit_history_words(c.visit))],
        ["Magnetic declination", esc(declination_words(s))],
        ["Site record", esc(f"created {s.created_utc:%Y-%m-%d %H:%M} UTC by {s.created_by}")],
        ["Visit file", esc(c.path.name)],
        ["Report generated", esc(f"{c.generated_utc:%Y-%m-%d %H:%M:%S} UTC, fieldapp {c.app_version}")],
    ]
    if s.notes:
        rows.append(["Site notes", esc(s.notes)])
    return [para(f"Site report: {esc(s.name)}", "h1"), table(None, rows, w),
            *heading("Units", 2, para(esc(c.units_note())))]


def summary_section(c: ReportContent, w: float) -> list[Flowable]:
    if not c.checks:
        return [*heading("Verdicts", 1, para("No rule applies yet (nothing recorded that a rule reads)."))]
    rows = [[str(i), esc(rule_title(k)), status_markup(k.status, status_words(k.status)),
             esc(check_words(k)), esc(k.result.get("citation", "–"))]
            for i, k in enumerate(c.checks, 1)]
    return [*heading("Verdicts at a glance", 1),
            table(["#", "Check", "Status", "Result", "Citation"], rows, w),
            small("Each verdict is detailed below with its inputs, and its rule request is attached to "
                  "this PDF as a JSON file: <i>fieldapp rules evaluate FILE.json</i> reproduces it "
                  "(<i>requests-all.json</i> holds them all).")]


def _is_ring(v: Any) -> bool:
    return (isinstance(v, list) and len(v) >= 3 and all(
        isinstance(p, list) and len(p) == 2 and all(isinstance(n, (int, float)) for n in p) for p in v))


def _plain_text(v: Any) -> str:
    """A compact text for a request or result value (rings and long lists summarised)."""
    if isinstance(v, float):
        return fmt(v, 2)
    if isinstance(v, dict):
        return ", ".join(f"{field_words(k)}: {_plain_text(x)}" for k, x in v.items()) or "none"
    if isinstance(v, list):
        if not v:
            return "none"
        if _is_ring(v):
            return f"polygon of {len(v)} vertices (grid ft, in the attached JSON)"
        if all(_is_ring(r) for r in v):
            return f"{len(v)} polygon(s) of " + ", ".join(str(len(r)) for r in v) + " vertices (in the attached JSON)"
        if len(v) > 40:
            return f"{len(v)} items (in the attached JSON)"
        if all(isinstance(x, dict) for x in v):
            return "; ".join(f"[{i}] {_plain_text(x)}" for i, x in enumerate(v))
        return ", ".join(_plain_text(x) for x in v)
    return fmt(v)


def _input_rows(value: Any, prefix: str = "") -> list[list[str]]:
    """(name, value) rows for a request input, one per key; a short list of records gives one
    row per record, so no row grows taller than a page."""
    if not isinstance(value, dict):
        return [[esc(prefix or "input"), esc(_plain_text(value))]]
    out = []
    for k, v in value.items():
        if isinstance(v, list) and v and all(isinstance(x, dict) for x in v) and len(v) <= 40:
            out += [[f"<b>{esc(prefix + field_words(k))}</b> [{i + 1}]", esc(_plain_text(x))]
                    for i, x in enumerate(v)]
        else:
            out.append([f"<b>{esc(prefix + field_words(k))}</b>", esc(_plain_text(v))])
    return out


_SHOWN_APART = {"rule", "status", "citation", "interpretations", "interpretation_text", "next_step", "note",
                "applicant_must_show"}


def checklist(r: dict[str, Any]) -> list[Flowable]:
    """What the applicant must show (Decorah resource protection, Drainageways D, E; Wetlands D, E;
    Erosion control C), one box to tick per item; nothing when the result lists none."""
    items = r.get("applicant_must_show") or []
    if not items:
        return []
    return [para("<b>The applicant must show</b> (checklist for the office; the app does not judge it):"),
            *(para(f"[&nbsp;&nbsp;] {esc(x)}") for x in items)]


def _verdict(i: int, k: Check, name: str | None, w: float) -> list[Flowable]:
    r, st = k.result, k.status
    intro = [para(f"Rule <b>{esc(k.rule)}</b> — status {status_markup(st, status_words(st))} — citation "
                  f"<b>{esc(r.get('citation') or '–')}</b>"),
             para(f"<b>Result</b>: {esc(check_words(k))}")]
    out = heading(f"{i}. {rule_title(k)}", 2, *intro)
    if st == "error":
        out.append(para(status_markup("error", f"{r.get('key', '')}: {r.get('message', '')}")))
    if r.get("next_step"):
        out.append(para(f"<b>Next step</b>: {esc(r['next_step'])}"))
    if r.get("note"):
        out.append(para(f"<b>Note</b>: {esc(r['note'])}"))
    out += checklist(r)
    if not k.has_request:
        # awaiting data: no rule has been asked, so no inputs, results or attachment
        why = r.get("awaiting") or "nothing recorded that the rule reads"
        return out + [small(f"No rule request yet ({esc(why)}), so nothing "
                            "is attached for this check.")]
    interp = r.get("interpretations") or []
    texts = r.get("interpretation_text") or {}
    if interp:
        out.append(para("<b>Interpretations relied on</b>:"))
        out += [para(f"<i>{esc(x)}</i>: {esc(texts.get(x) or INTERPRETATIONS.get(x, ''))}")
                for x in interp]
    rows = _input_rows(k.request.get("input", {}))
    if k.request.get("settings"):
        rows += _input_rows(k.request["settings"], "settings: ")
    out.append(table(["Input (rule request)", "Value"], rows, w))
    out.append(Spacer(1, 3))
    res = [[f"<b>{esc(field_words(key))}</b>", esc(_plain_text(v))] for key, v in r.items()
           if key not in _SHOWN_APART]
    if res:
        out.append(table(["Result", "Value"], res, w))
    out.append(small(f"Rule request attached as <i>{esc(name)}</i>."))
    return out


def verdicts_section(c: ReportContent, w: float) -> list[Flowable]:
    """Every verdict with status, citation, result, next step, interpretations, inputs."""
    by_id = {k.check_id: name for name, k in attached_checks(c)}
    out = heading("Verdicts in detail", 1)
    for i, k in enumerate(c.checks, 1):
        out += _verdict(i, k, by_id.get(k.check_id), w)
    return out


def stakes_section(c: ReportContent, w: float) -> list[Flowable]:
    """The stake-out flags under their verdict: target, signed offset, within tolerance, fix
    quality, time, and whether the line was superseded since."""
    if not c.stakes:
        return []
    out = heading("Stake-out flags", 1, small(
        "Offset: signed grid distance from the target (ft; a closed edge: + outside; a line: + right "
        "of its direction). A superseded flag stands on a line the verdict has since moved: restake it."))
    for g in c.stakes:
        rows = []
        for sp in g.points:
            within = "yes" if abs(sp.offset_ft) <= sp.tolerance_ft else "no"
            t = sp.fix_time_utc or sp.created_utc
            rows.append([esc(sp.target_label), f"{sp.offset_ft:+.2f}", f"{within} (±{sp.tolerance_ft:g})",
                         esc("–" if sp.quality is None
                             else GGA_QUALITY.get(sp.quality) or f"GGA quality {sp.quality}"),
                         esc(t.strftime("%Y-%m-%d %H:%M:%S UTC")),
                         "<b>SUPERSEDED</b>" if sp.superseded else "current"])
        out += heading(g.title, 2)
        out.append(table(["Target", "Offset ft", "Within tolerance", "Fix quality", "Time", "Line"],
                         rows, w, {1}))
    return out


def profile_intro(prof: TransectProfile) -> tuple[str, Paragraph]:
    """(subheading, its verdict paragraph) of a transect profile."""
    r, k = prof.result, prof.check
    verdict = (f"{esc(summary_words('nr341.bank', r))} — {esc(status_words(k.status))}, "
               f"{esc(r.get('citation', '–'))}") if k else "no verdict (no station)"
    if prof.shots:      # what the compass measured and the declination applied, station by station
        verdict += "<br/>Stations shot by compass: " + esc("; ".join(prof.shots)) + "."
    return f"Transect {prof.label} (landward azimuth {prof.azimuth_true_deg:.1f}° true, as typed)", para(verdict)


def profile_table(prof: TransectProfile, w: float) -> Table:
    cuts = any(s[3] for s in prof.stations)
    rows = [[fmt(d, 1), fmt(e, 2), "–" if slope is None else slope_pct_text(slope)]
            + (["complete interruption" if cut else ""] if cuts else [])
            for d, e, slope, cut in prof.stations]
    return table(["Distance from OHWM (ft)", "Elevation (ft)" if prof.measured_elevations
                  else "Elevation rel. OHWM (ft)", "Slope of segment ending here (%)"]
                 + (["Interruption"] if cuts else []), rows, w, {0, 1, 2})


def _stand_words(s: StandSection, foot: str) -> list[Flowable]:
    m = s.measures
    r = s.check.result if s.check else {}
    out: list[Flowable] = [para(f"Area {fmt(m.stand_area_sqft, 0)} sq ft = {fmt(m.stand_area_ac, 3)} ac ({esc(foot)}); "
                f"{m.stems} live stems inside, {fmt(m.stems_per_ac, 1)} stems/ac, basal area "
                f"{fmt(m.basal_area_sqft_per_ac, 1)} sq ft/ac (BA = 0.005454 × DBH²)."),
           para(f"Canopy cover: trees ≥ 10 in {fmt(m.canopy_10in_pct, 1)} %, trees ≥ 3 in "
                f"{fmt(m.canopy_3in_pct, 1)} %, deciduous share of the ≥ 10 in canopy "
                f"{fmt(m.deciduous_share_pct, 1)} %.")]
    if s.check and s.check.status == "needs_data":
        out.append(para(f"<b>Woodland class: not determined yet</b> — next step: "
                        f"{esc(r.get('next_step') or '–')} ({esc(r.get('citation') or '–')})."))
    elif s.check and s.check.status == "error":
        # e.g. a measure the rule refuses: say so, with the rule's own message
        out.append(para(status_markup("error", f"Woodland class not determined: {r.get('key', '')}: "
                                               f"{r.get('message', '')}")))
    elif s.check and s.check.status == "provisional":
        out.append(para(status_markup("provisional", (
            f"Woodland class: provisional — {r.get('trees_so_far', 0)} trees so far, class "
            f"{r.get('class', '–')} from them (the tally is not marked complete; {r.get('citation', '–')})."))))
    elif s.check:
        out.append(para(f"<b>Woodland class: {esc(r.get('class', '–'))}</b> (basis "
                        f"{esc(r.get('basis') or 'none')}; {esc(r.get('citation', '–'))})."))
    if s.mitigation:
        lead = "Woodland protection: " if s.mitigation.status == "needs_data" else ""
        out.append(para(f"{lead}{esc(summary_words('woodland.mitigation', s.mitigation.result))} "
                        f"({esc(s.mitigation.result.get('citation', '–'))})."))
    return out


def stands_section(c: ReportContent, w: float) -> list[Flowable]:
    """The tally by 2-inch DBH class, per stand with per-acre figures and the woodland class."""
    foot = c.frame.foot.label if c.frame else "ft"
    if not c.stands:
        out = heading("Tally and woodland", 1, para(
            "No woodland stand drawn: the tally by 2-inch DBH class is shown without per-acre "
            "figures (they need a stand area)."))
        if c.tally_classes:
            out.append(table(["DBH class (in)", "Live stems"],
                             [[f"{lo:g}–{lo + 2:g}", str(n)] for lo, n in c.tally_classes], w / 2, {1}))
        else:
            out.append(para("No trees tallied."))
        return out
    out = heading("Tally and woodland", 1)
    for s in c.stands:
        m = s.measures
        out += heading(f"Woodland stand {s.label}", 2, *_stand_words(s, foot))
        rows = [[f"{k.low_in:g}–{k.high_in:g}", str(k.stems), fmt(k.stems_per_ac, 1),
                 fmt(k.basal_area_sqft_per_ac, 2)] for k in m.stand_table]
        rows.append(["<b>All</b>", f"<b>{m.stems}</b>", f"<b>{fmt(m.stems_per_ac, 1)}</b>",
                     f"<b>{fmt(m.basal_area_sqft_per_ac, 2)}</b>"])
        out.append(table(["DBH class (in)", "Stems", "Trees per acre", "Basal area (sq ft/ac)"], rows,
                         0.75 * w, {1, 2, 3}))
    return out


def wetlands_section(c: ReportContent, w: float) -> list[Flowable]:
    out = heading("Wetlands and protective areas", 1)
    if not c.wetlands:
        out.append(para("No wetland polygon recorded."))
    else:
        rows = []
        for x in c.wetlands:
            size = x.size_check.result if x.size_check else {}
            rows.append([esc(x.label), esc(x.wetland_type or "–"), esc(x.susceptibility or "–"),
                         fmt(x.area_sqft, 1), fmt(x.area_ac, 3), fmt(x.average_width_ft, 1),
                         fmt(x.protective_width_ft, 1), esc(fmt(size.get("is_ordinance_wetland")))])
        out.append(table(["Wetland", "Type", "Susceptibility", "Area (sq ft)", "Area (ac)",
                          "Average width (ft)", "Protective area width (ft)", "Ordinance wetland"],
                         rows, w, {3, 4, 5, 6}))
    site_pa = next((k for k in c.checks if k.check_id == "protective_area"), None)
    if site_pa is not None:
        widths = ", ".join(fmt(v, 1) for v in site_pa.result.get("widths_ft") or []) or "–"
        out.append(para(f"All water features together: "
                        f"{esc(summary_words('nr151.protective_area', site_pa.result))} "
                        f"({esc(site_pa.result.get('citation', '–'))}); widths per feature: {esc(widths)} ft."))
    return out


def gnss_section(c: ReportContent, w: float) -> list[Flowable]:
    """Positions (site CRS unit, lat/lon, fix time) and quality of every GNSS point."""
    title = "GNSS quality per recorded point"
    if not c.gnss:
        out = heading(title, 1, para("No GNSS point recorded (OHWM points carry the GNSS metadata)."))
    else:
        unit = c.gnss[0].crs_unit or "ft"
        nd = 3 if unit == "m" else 2
        crs = (c.frame.name + (f" (EPSG:{c.frame.srs_id})" if c.frame.srs_id else "")) if c.frame else "–"
        out = heading(title, 1, para(
            f"Positions in the site CRS, {esc(crs)}, in its own unit ({esc(unit)}), and as WGS 84 latitude / "
            f"longitude (degrees); antenna height {esc(visit_history_words(c.visit))}."))
        where = [[esc(g.line), str(g.number), esc(g.method),
                  fmt(g.x_crs if g.x_crs is not None else g.x_ft, nd),
                  fmt(g.y_crs if g.y_crs is not None else g.y_ft, nd),
                  "–" if g.lat is None else f"{g.lat:.8f}", "–" if g.lon is None else f"{g.lon:.8f}",
                  esc(f"{g.fix_time_utc:%H:%M:%S}") if g.fix_time_utc else "–"] for g in c.gnss]
        out.append(table(["Line", "Point", "Method", f"Easting ({unit})", f"Northing ({unit})", "Latitude",
                          "Longitude", "Fix time (UTC)"], where, w, {1, 3, 4, 5, 6, 7}))
        out.append(Spacer(1, 4))
        # accuracy and σ in the report's foot (the Units paragraph: every length in it), not
        # the receiver's metres: "H accuracy (m)" beside feet everywhere else read as two units
        foot = c.frame.foot if c.frame else Foot.INTERNATIONAL
        lu = "ftUS" if foot is Foot.US_SURVEY else "ft"

        def ft(v_m: float | None) -> str:
            return fmt(None if v_m is None else v_m / foot.metres, 3)

        quality = [[esc(g.line), str(g.number), esc(g.quality_words)
                    + ("" if g.corrections_words == "–" else f"<br/>{esc(g.corrections_words)}"),
                    ft(g.h_accuracy_m), ft(g.v_accuracy_m),
                    f"{ft(g.std_dev_x_m)}, {ft(g.std_dev_y_m)}", fmt(g.hdop, 2),
                    f"{g.sample_count} ({g.rejected_count})"] for g in c.gnss]
        out.append(table(["Line", "Point", "Worst fix", f"H accuracy ({lu})", f"V accuracy ({lu})",
                          f"σx, σy ({lu})", "HDOP", "Epochs used (rejected)"], quality, w, {1, 3, 4, 5, 6, 7}))
        out.append(small("Worst fix: the worst GGA fix quality among the epochs used. Offset points show "
                         "the standing position's quality. Accuracy as the receiver reported it; σ: standard "
                         "deviation of the averaged epochs; both in "
                         f"{foot.label} ({foot.metres:.10g} m). Under the worst fix, for a point taken with "
                         "RTK corrections: the NTRIP mountpoint and the largest age of corrections among the "
                         "epochs used."))
    t = c.track_summary
    if t.get("fixes"):
        q = ", ".join(f"{k}: {v}" for k, v in sorted(t["qualities"].items()))
        out.append(para(f"Raw track: {t['fixes']:,} fixes ({esc(q)}); median HDOP {fmt(t['median_hdop'], 2)}, "
                        f"worst {fmt(t['max_hdop'], 2)}."))
    return out


#: Field-name endings -> (unit words, decimals) for the conflicts table.
_UNITS = (("_in", "in", 1), ("_ft", "ft", 2), ("_sqft", "sq ft", 0), ("_ac", "ac", 3), ("_pct", "%", 1),
          ("_deg", "°", 1), ("_m", "m", 3))


def _column_words(name: str | None) -> tuple[str, int | None]:
    """A field name in words with its unit, and the decimals of that unit: ``dbh_in`` ->
    ("DBH (in)", 1), ``hdop`` -> ("HDOP", None)."""
    from fieldapp.sync.conflictwords import name_words

    if not name:
        return "–", None
    for end, unit, nd in _UNITS:
        if name.endswith(end):
            return f"{name_words(name[: -len(end)])} ({unit})", nd
    return ("Geometry (position)" if name == "geom" else name_words(name)), None


def _value_words(v: Any, nd: int | None) -> str:
    if v is None:
        return "–"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, (int, float)) and nd is not None:
        return fmt(float(v), nd)
    if isinstance(v, float):
        return fmt(v, 3)
    text = str(v)
    return esc(text if len(text) <= 60 else text[:57] + "...")


def feature_words(visit: Visit, layer: str, uuid: str | None) -> str:
    """The feature as the crew knows it: "Tree 12", "OHWM point 3", "Transect T1", a label."""
    gone = f"{layer.replace('_', ' ')} {(uuid or '')[:8]} (no longer in this visit)"
    try:
        lay = Layer(layer)
        f = visit.get(lay, uuid) if uuid else None
    except (ValueError, KeyError, LookupError):
        return gone
    if f is None:
        return gone
    if isinstance(f, Tree):
        return f"Tree {f.tag}"
    if isinstance(f, OhwmPoint):
        return f"OHWM point {f.seq + 1}"
    if isinstance(f, Station):
        t = visit.get(Layer.TRANSECT, f.transect_uuid)
        return f"Transect {t.label if isinstance(t, Transect) else '?'} station at {f.distance_ft:.1f} ft"
    if isinstance(f, Note):
        return f"Note '{str(f.text)[:30]}'"
    label = getattr(f, "label", "") or ""
    kind = getattr(f, "kind", None)
    words = {Layer.TRANSECT: "Transect", Layer.OHWM_LINE: "OHWM line"}.get(
        lay, str(getattr(kind, "value", kind) or lay.value).replace("_", " ").capitalize())
    return f"{words} {label}".strip()


def conflicts_section(c: ReportContent, w: float) -> list[Flowable]:
    if not c.conflicts:
        return heading("Sync conflicts", 1, para("No sync conflicts recorded in this visit file."))
    from fieldapp.sync.conflicts import ConflictKind
    from fieldapp.sync.conflictwords import side_words

    rows = []
    for k in c.conflicts:
        col, nd = _column_words(k.field)
        sides = [_value_words(getattr(k, s), nd) if k.kind is ConflictKind.SAME_FIELD
                 else esc(side_words(k, s, 120)) for s in ("base", "theirs", "ours")]  # a tag clash, a delete
        rows.append([esc(feature_words(c.visit, k.layer, k.feature_uuid)), esc(col),
                     esc(str(k.kind.value).replace("_", " ")), *sides, esc(k.kept),
                     esc(k.created_utc[:16].replace("T", " ")), esc("resolved" if k.resolved_utc else "open")])
    return heading("Sync conflicts", 1) + [table(
        ["Feature", "Column", "Kind", "Before both edits", "Office copy", "This laptop", "Kept", "When (UTC)",
         "State"], rows, w)]


def notes_section(c: ReportContent, w: float) -> list[Flowable]:
    """Every note in full, numbered as on the map, with its position (site CRS unit, lat/lon)."""
    notes = c.visit.features(Layer.NOTE)
    if not notes:
        return heading("Notes", 1, para("No notes recorded."))
    frame = c.frame
    unit = crs_unit_symbol(frame) if frame else ""
    nd = 3 if unit == "m" else 2
    rows, n = [], 0
    for note in notes:
        if note.x is not None and note.y is not None:
            n += 1
            if frame is not None:
                lon, lat = (float(v) for v in frame.to_lonlat(note.x, note.y))
                where = f"{fmt(note.x, nd)} {unit} E, {fmt(note.y, nd)} {unit} N<br/>{lat:.8f}, {lon:.8f}"
            else:   # placed before the site CRS was known: no unit, no latitude / longitude
                where = f"{fmt(note.x, nd)} E, {fmt(note.y, nd)} N (no site CRS yet)"
            number = str(n)
        else:
            where, number = "no position", "–"
        rows.append([number, esc(note.text), where, esc(f"{note.created_utc:%Y-%m-%d %H:%M} UTC"),
                     esc(note.created_by)])
    return heading("Notes", 1) + [table(["Map #", "Note", "Position (site CRS; lat, lon)", "Recorded", "By"],
                                        rows, w, {0})]


#: The certification's crew when none was recorded: a line to write the names on (printed).
CREW_BLANK = "_" * 40 + " (crew)"


def certification_section(c: ReportContent, w: float) -> list[Flowable]:
    """The block the responsible surveyor or scientist fills in and signs: name, registration
    or licence number, firm, date and signature, each with room to write on a line."""
    from reportlab.lib import colors
    from reportlab.lib.units import mm
    from reportlab.platypus import Table, TableStyle

    # no crew recorded: a line to write the names on, not a dash that certifies nobody
    crew = esc(", ".join(c.site.crew)) if c.site.crew else CREW_BLANK
    words = para("I certify that this report was prepared from field data collected under my direction on "
                 f"{esc(c.site.visit_date.isoformat())} by {crew}, and that "
                 "the verdicts above follow from that data and the readings stated.")
    labels = ["Name", "Registration or licence number", "Firm", "Date", "Signature"]
    block = Table([[para(t), ""] for t in labels], colWidths=[60 * mm, w - 60 * mm],
                  rowHeights=[12 * mm] * 4 + [20 * mm], hAlign="LEFT")
    block.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "BOTTOM"), ("FONTNAME", (0, 0), (-1, -1), FONT),
                               ("LINEBELOW", (1, 0), (1, -1), 0.6, colors.black)]))
    return heading("Certification", 1, words, Spacer(1, 6), block)
