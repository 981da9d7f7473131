"""The report as a paged Qt text document, written to PDF with ``QPdfWriter``.

One :class:`QTextDocument` holds the whole report (HTML sections); the map and the profiles are
inline objects (``QPyTextObject``) drawn as vectors by :mod:`fieldapp.report.drawing` when the
page is painted. The document is laid out for the PDF writer's resolution and painted page by
page with a running header and "page i of N" footer.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any, Callable

from PySide6.QtCore import QMarginsF, QRect, QRectF, QSizeF, Qt
from PySide6.QtGui import (QFont, QPageLayout, QPageSize, QPainter, QPdfWriter, QPyTextObject,
                           QTextBlockFormat, QTextCharFormat, QTextCursor, QTextDocument, QTextFormat,
                           QTextOption)

from fieldapp.checks import status_words, summary_words
from fieldapp.rules.nr341 import bank_parameters

from . import drawing
from .content import GGA_QUALITY, INTERPRETATIONS, ReportContent, declination_words, rule_title

__all__ = ["write_pdf", "attachment_names", "attached_checks", "fmt"]

RESOLUTION_DPI = 300
OBJECT_TYPE = QTextFormat.UserObject + 11
OBJECT_KEY = QTextFormat.UserProperty + 11
MARGINS_MM = QMarginsF(16, 16, 16, 16)
HEADER_MM = 7.0
FOOTER_MM = 7.0

CSS = """
body { font-size: 9pt; }
h1 { font-size: 16pt; margin-top: 0; margin-bottom: 4pt; }
h2 { font-size: 12.5pt; margin-top: 10pt; margin-bottom: 4pt; color: #10365c; }
h3 { font-size: 10.5pt; margin-top: 8pt; margin-bottom: 3pt; }
p { margin-top: 2pt; margin-bottom: 2pt; }
table { border-collapse: collapse; margin-top: 3pt; margin-bottom: 3pt; }
th { background-color: #e8eef4; font-weight: bold; text-align: left; }
td, th { border: 0.5px solid #8a8a8a; padding: 2px 4px; }
.num { text-align: right; white-space: nowrap; }
.nowrap { white-space: nowrap; }
.small { font-size: 7.5pt; color: #333333; }
.determined { color: #1b5e20; font-weight: bold; }
.needs_data { color: #b26a00; font-weight: bold; }
.exempt { color: #1565c0; font-weight: bold; }
.error { color: #b71c1c; font-weight: bold; }
.provisional { color: #5b2a86; font-weight: bold; }
"""


def fmt(v: Any, nd: int = 1, unit: str = "") -> str:
    """A value for the page: floats with ``nd`` decimals and thousands commas, booleans as
    yes/no, None as an en dash.

    >>> fmt(135308.2345, 1, " sq ft")
    '135,308.2 sq ft'
    """
    if v is None:
        return "–"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:,.{nd}f}{unit}"
    if isinstance(v, int):
        return f"{v:,}{unit}"
    return f"{v}{unit}"


def _e(text: Any) -> str:
    return html.escape(str(text))


def attached_checks(content: ReportContent) -> list[tuple[str, Any]]:
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


def attachment_names(content: ReportContent) -> list[str]:
    """File names of the per-verdict request attachments, in verdict order
    (:func:`attached_checks`)."""
    return [name for name, _ in attached_checks(content)]


def _names_by_check(content: ReportContent) -> list[str | None]:
    """The attachment name of each check in ``content.checks`` (None: no request)."""
    by_id = {c.check_id: name for name, c in attached_checks(content)}
    return [by_id.get(c.check_id) for c in content.checks]


class _Figures(QPyTextObject):
    """Inline figures: key -> (size in device pixels, draw(painter, w, h))."""

    def __init__(self) -> None:
        super().__init__()
        self.items: dict[str, tuple[QSizeF, Callable]] = {}

    def intrinsicSize(self, doc, pos, fmt_):  # noqa: N802 - Qt override
        return self.items[fmt_.property(OBJECT_KEY)][0]

    def drawObject(self, painter, rect, doc, pos, fmt_):  # noqa: N802 - Qt override
        size, draw = self.items[fmt_.property(OBJECT_KEY)]
        painter.save()
        painter.translate(rect.topLeft())
        draw(painter, size.width(), size.height())
        painter.restore()


# --------------------------------------------------------------------------- sections (HTML)
def _table(headers: list[str], rows: list[list[Any]], num_cols: set[int] = frozenset(),
           width: str = "100%") -> str:
    out = [f'<table width="{width}" cellspacing="0" cellpadding="2"><tr>']
    out += [f"<th>{_e(h)}</th>" for h in headers]
    out.append("</tr>")
    for r in rows:
        out.append("<tr>")
        for i, v in enumerate(r):
            cls = ' class="num" align="right"' if i in num_cols else ""
            out.append(f"<td{cls}>{v}</td>")
        out.append("</tr>")
    out.append("</table>")
    return "".join(out)


def _site_html(c: ReportContent) -> str:
    s = c.site
    devices = ", ".join(f"{k}: {v}" for k, v in s.device_ids) or "–"
    waters = "; ".join(
        f"{w.name} ({w.type.value}" + (f", {w.susceptibility.value}" if w.susceptibility else "")
        + (f", {w.wetland_type}" if w.wetland_type else "") + ")" for w in s.water_features) or "–"
    rows = [
        ["Site", _e(s.name)], ["Visit date", _e(s.visit_date.isoformat())],
        ["Crew", _e(", ".join(s.crew) or "–")], ["Devices", _e(devices)],
        ["Waterway", ("priority waterway" if s.priority_waterway else "not a priority waterway")
         + f" ({bank_parameters(s.priority_waterway).cite_base})"],
        ["Water features", _e(waters)],
        ["Antenna height", f"{s.antenna_height_m:.3f} m"],
        ["Magnetic declination", _e(declination_words(s))],
        ["Site record", _e(f"created {s.created_utc:%Y-%m-%d %H:%M} UTC by {s.created_by}")],
        ["Visit file", _e(c.path.name)],
        ["Report generated", _e(f"{c.generated_utc:%Y-%m-%d %H:%M:%S} UTC, fieldapp {c.app_version}")],
    ]
    if s.notes:
        rows.append(["Site notes", _e(s.notes)])
    body = _table(["", ""], rows, width="100%").replace("<tr><th></th><th></th></tr>", "")
    return (f"<h1>Site report: {_e(s.name)}</h1>{body}<h3>Units</h3><p>{_e(c.units_note())}</p>")


def _summary_html(c: ReportContent) -> str:
    if not c.checks:
        return "<h2>Verdicts</h2><p>No rule applies yet (nothing recorded that a rule reads).</p>"
    rows = []
    for i, k in enumerate(c.checks, 1):
        st = k.status
        rows.append([str(i), _e(rule_title(k)), f'<span class="{st}">{_e(status_words(st))}</span>',
                     _e(summary_words(k.rule, k.result)),
                     _e(k.result.get("citation", "–"))])
    return ("<h2>Verdicts at a glance</h2>" + _table(["#", "Check", "Status", "Result", "Citation"], rows)
            + '<p class="small">Each verdict is detailed below with its inputs, and its rule request is '
              "attached to this PDF as a JSON file: <i>fieldapp rules evaluate FILE.json</i> "
              "reproduces it (<i>requests-all.json</i> holds them all).</p>")


def _is_ring(v: Any) -> bool:
    return (isinstance(v, list) and len(v) >= 3 and all(
        isinstance(p, list) and len(p) == 2 and all(isinstance(n, (int, float)) for n in p) for p in v))


def _plain_text(v: Any) -> str:
    """A compact text for a request or result value (rings and long lists summarised)."""
    if isinstance(v, float):
        return fmt(v, 2)
    if isinstance(v, dict):
        return ", ".join(f"{k} {_plain_text(x)}" for k, x in v.items()) or "none"
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


def _input_lines(value: Any) -> list[str]:
    """Readable lines for a request input, one per key."""
    if not isinstance(value, dict):
        return [_e(_plain_text(value))]
    out = []
    for k, v in value.items():
        if isinstance(v, list) and v and all(isinstance(x, dict) for x in v) and len(v) <= 40:
            out.append(f"<b>{_e(k)}</b>:")
            out += [f"&nbsp;&nbsp;[{i}] {_e(_plain_text(x))}" for i, x in enumerate(v)]
        else:
            out.append(f"<b>{_e(k)}</b>: {_e(_plain_text(v))}")
    return out


_SHOWN_APART = {"rule", "status", "citation", "interpretations", "interpretation_text", "next_step", "note"}


def _result_lines(result: dict) -> list[str]:
    return [f"<b>{_e(k)}</b>: {_e(_plain_text(v))}" for k, v in result.items() if k not in _SHOWN_APART]


def _verdicts_html(c: ReportContent) -> str:
    out = ['<h2>Verdicts in detail</h2>']
    for i, (k, name) in enumerate(zip(c.checks, _names_by_check(c)), 1):
        r = k.result
        st = k.status
        out.append(f"<h3>{i}. {_e(rule_title(k))}</h3>")
        out.append(f'<p>Rule <b>{_e(k.rule)}</b> — status '
                   f'<span class="{st}">{_e(status_words(st))}</span> — citation '
                   f'<b>{_e(r.get("citation") or "–")}</b></p>')
        out.append(f"<p><b>Result</b>: {_e(summary_words(k.rule, r))}</p>")
        if st == "error":
            out.append(f"<p class='error'>{_e(r.get('key', ''))}: {_e(r.get('message', ''))}</p>")
        if r.get("next_step"):
            out.append(f"<p><b>Next step</b>: {_e(r['next_step'])}</p>")
        if r.get("note"):
            out.append(f"<p><b>Note</b>: {_e(r['note'])}</p>")
        if not k.has_request:
            # awaiting data: no rule has been asked, so no inputs, results or attachment
            out.append('<p class="small">No rule request yet (nothing recorded that the rule '
                       "reads), so nothing is attached for this check.</p>")
            continue
        interp = r.get("interpretations") or []
        texts = r.get("interpretation_text") or {}
        if interp:
            out.append("<p><b>Interpretations relied on</b>:</p><p>" + "<br/>".join(
                f"&nbsp;&nbsp;<i>{_e(x)}</i>: {_e(texts.get(x) or INTERPRETATIONS.get(x, ''))}"
                for x in interp) + "</p>")
        inputs = _input_lines(k.request.get("input", {}))
        if k.request.get("settings"):
            inputs += ["<b>settings</b>:"] + _input_lines(k.request["settings"])
        out.append(_table(["Inputs (rule request)", "Result values"],
                          [["<br/>".join(inputs), "<br/>".join(_result_lines(r))]]))
        out.append(f'<p class="small">Rule request attached as <i>{_e(name)}</i>.</p>')
    return "".join(out)


def _stakes_html(c: ReportContent) -> str:
    """The stake-out flags under their verdict: target, signed offset, within tolerance, fix
    quality, time, and whether the line was superseded since."""
    if not c.stakes:
        return ""
    out = ["<h2>Stake-out flags</h2>", '<p class="small">Offset: signed grid distance from the '
           "target (ft; a closed edge: + outside; a line: + right of its direction). A superseded "
           "flag stands on a line the verdict has since moved: restake it.</p>"]
    for g in c.stakes:
        out.append(f"<h3>{_e(g.title)}</h3>")
        rows = []
        for sp in g.points:
            within = "yes" if abs(sp.offset_ft) <= sp.tolerance_ft else "no"
            t = sp.fix_time_utc or sp.created_utc
            rows.append([_e(sp.target_label), f"{sp.offset_ft:+.2f}", f"{within} (±{sp.tolerance_ft:g})",
                         _e("–" if sp.quality is None else f"{sp.quality} {GGA_QUALITY.get(sp.quality, '')}"),
                         _e(t.strftime("%Y-%m-%d %H:%M:%S UTC")),
                         "<b>SUPERSEDED</b>" if sp.superseded else "current"])
        out.append(_table(["Target", "Offset ft", "Within tolerance", "Fix quality", "Time", "Line"],
                          rows, {1}))
    return "".join(out)


def _profile_intro(prof) -> str:
    r = prof.result
    k = prof.check
    verdict = (f"{_e(summary_words('nr341.bank', r))} — {_e(status_words(k.status))}, "
               f"{_e(r.get('citation', '–'))}") if k else "no verdict (no station)"
    return (f"<h3>Transect {_e(prof.label)} (azimuth {prof.azimuth_true_deg:.1f}° true)</h3>"
            f"<p>{verdict}</p>")


def _profile_table(prof) -> str:
    cuts = any(s[3] for s in prof.stations)
    rows = []
    for d, e, slope, cut in prof.stations:
        rows.append([fmt(d, 1), fmt(e, 2), "–" if slope is None else fmt(slope, 1)]
                    + (["complete interruption" if cut else ""] if cuts else []))
    return _table(["Distance from OHWM (ft)", "Elevation (ft)" if prof.measured_elevations
                   else "Elevation rel. OHWM (ft)", "Slope of segment ending here (%)"]
                  + (["Interruption"] if cuts else []), rows, {0, 1, 2})


def _stands_html(c: ReportContent) -> str:
    out = ['<h2>Tally and woodland</h2>']
    foot = c.frame.foot.label if c.frame else "ft"
    if not c.stands:
        out.append("<p>No woodland stand drawn: the tally by 2-inch DBH class is shown without per-acre "
                   "figures (they need a stand area).</p>")
        if c.tally_classes:
            out.append(_table(["DBH class (in)", "Live stems"],
                              [[f"{lo:g}–{lo + 2:g}", str(n)] for lo, n in c.tally_classes], {1}, "50%"))
        else:
            out.append("<p>No trees tallied.</p>")
        return "".join(out)
    for s in c.stands:
        m = s.measures
        r = s.check.result if s.check else {}
        out.append(f"<h3>Woodland stand {_e(s.label)}</h3>")
        out.append(
            f"<p>Area {fmt(m.stand_area_sqft, 0)} sq ft = {fmt(m.stand_area_ac, 3)} ac ({_e(foot)}); "
            f"{m.stems} live stems inside, {fmt(m.stems_per_ac, 1)} trees/ac, basal area "
            f"{fmt(m.basal_area_sqft_per_ac, 1)} sq ft/ac (BA = 0.005454 × DBH²).</p>"
            f"<p>Canopy cover: trees ≥ 10 in {fmt(m.canopy_10in_pct, 1)} %, trees ≥ 3 in "
            f"{fmt(m.canopy_3in_pct, 1)} %, deciduous share of the ≥ 10 in canopy "
            f"{fmt(m.deciduous_share_pct, 1)} %.</p>")
        if s.check and s.check.status == "needs_data":
            out.append(f"<p><b>Woodland class: not determined yet</b> — next step: "
                       f"{_e(r.get('next_step') or '–')} ({_e(r.get('citation') or '–')}).</p>")
        elif s.check and s.check.status == "error":
            # e.g. a measure the rule refuses: say so, with the rule's own message
            out.append(f"<p class='error'>Woodland class not determined: "
                       f"{_e(r.get('key', ''))}: {_e(r.get('message', ''))}</p>")
        elif s.check and s.check.status == "provisional":
            out.append(f"<p class='provisional'>Woodland class: provisional — "
                       f"{r.get('trees_so_far', 0)} trees so far, class "
                       f"{_e(r.get('class', '–'))} from them (the tally is not marked complete;"
                       f" {_e(r.get('citation', '–'))}).</p>")
        elif s.check:
            out.append(f"<p><b>Woodland class: {_e(r.get('class', '–'))}</b> (basis "
                       f"{_e(r.get('basis') or 'none')}; {_e(r.get('citation', '–'))}).</p>")
        if s.mitigation:
            lead = "Woodland protection: " if s.mitigation.status == "needs_data" else ""
            out.append(f"<p>{lead}{_e(summary_words('woodland.mitigation', s.mitigation.result))} "
                       f"({_e(s.mitigation.result.get('citation', '–'))}).</p>")
        rows = [[f"{k.low_in:g}–{k.high_in:g}", str(k.stems), fmt(k.stems_per_ac, 1),
                 fmt(k.basal_area_sqft_per_ac, 2)] for k in m.stand_table]
        rows.append(["<b>All</b>", f"<b>{m.stems}</b>", f"<b>{fmt(m.stems_per_ac, 1)}</b>",
                     f"<b>{fmt(m.basal_area_sqft_per_ac, 2)}</b>"])
        out.append(_table(["DBH class (in)", "Stems", "Trees per acre", "Basal area (sq ft/ac)"], rows,
                          {1, 2, 3}, "75%"))
    return "".join(out)


def _wetlands_html(c: ReportContent) -> str:
    out = ["<h2>Wetlands and protective areas</h2>"]
    if not c.wetlands:
        out.append("<p>No wetland polygon recorded.</p>")
    else:
        rows = []
        for w in c.wetlands:
            size = w.size_check.result if w.size_check else {}
            rows.append([_e(w.label), _e(w.wetland_type or "–"), _e(w.susceptibility or "–"),
                         fmt(w.area_sqft, 1), fmt(w.area_ac, 3), fmt(w.average_width_ft, 1),
                         fmt(w.protective_width_ft, 1), _e(fmt(size.get("is_ordinance_wetland")))])
        out.append(_table(["Wetland", "Type", "Susceptibility", "Area (sq ft)", "Area (ac)",
                           "Average width (ft)", "Protective area width (ft)", "Ordinance wetland"],
                          rows, {3, 4, 5, 6}))
    site_pa = next((k for k in c.checks if k.check_id == "protective_area"), None)
    if site_pa is not None:
        out.append(f"<p>All water features together: {_e(summary_words('nr151.protective_area', site_pa.result))}"
                   f" ({_e(site_pa.result.get('citation', '–'))}); widths per feature: "
                   + _e(", ".join(fmt(v, 1) for v in site_pa.result.get("widths_ft") or []) or "–") + " ft.</p>")
    return "".join(out)


def _gnss_html(c: ReportContent) -> str:
    out = ['<h2>GNSS quality per recorded point</h2>']
    if not c.gnss:
        out.append("<p>No GNSS point recorded (OHWM points carry the GNSS metadata).</p>")
    else:
        unit = c.gnss[0].crs_unit or "ft"
        nd = 3 if unit == "m" else 2
        crs = (c.frame.name + (f" (EPSG:{c.frame.srs_id})" if c.frame.srs_id else "")) if c.frame else "–"
        out.append(f"<p>Positions in the site CRS, {_e(crs)}, in its own unit ({_e(unit)}), and as WGS 84 "
                   f"latitude / longitude (degrees); antenna height {c.site.antenna_height_m:.3f} m.</p>")
        where = [[_e(g.line), str(g.number), _e(g.method),
                  fmt(g.x_crs if g.x_crs is not None else g.x_ft, nd),
                  fmt(g.y_crs if g.y_crs is not None else g.y_ft, nd),
                  "–" if g.lat is None else f"{g.lat:.8f}", "–" if g.lon is None else f"{g.lon:.8f}",
                  _e(f"{g.fix_time_utc:%H:%M:%S}") if g.fix_time_utc else "–"] for g in c.gnss]
        out.append(_table(["Line", "Point", "Method", f"Easting ({unit})", f"Northing ({unit})", "Latitude",
                           "Longitude", "Fix time (UTC)"], where, {1, 3, 4, 5, 6, 7}))
        quality = [[_e(g.line), str(g.number), _e(g.quality_words) + ("" if g.corrections_words == "–" else f"<br>{_e(g.corrections_words)}"),
                    fmt(g.h_accuracy_m, 3),
                    fmt(g.v_accuracy_m, 3), f"{fmt(g.std_dev_x_m, 3)}, {fmt(g.std_dev_y_m, 3)}", fmt(g.hdop, 2),
                    f"{g.sample_count} ({g.rejected_count})"] for g in c.gnss]
        out.append(_table(["Line", "Point", "Worst fix", "H accuracy (m)", "V accuracy (m)", "σx, σy (m)", "HDOP",
                           "Epochs used (rejected)"], quality, {1, 3, 4, 5, 6, 7}))
        out.append('<p class="small">Worst fix: the worst GGA fix quality among the epochs used. '
                   "Offset points show the standing position's quality. Accuracy as the receiver "
                   "reported it; σ: standard deviation of the averaged epochs. Under the worst fix, for a "
                   "point taken with RTK corrections: the NTRIP mountpoint and the largest age of "
                   "corrections among the epochs used.</p>")
    t = c.track_summary
    if t.get("fixes"):
        q = ", ".join(f"{k}: {v}" for k, v in sorted(t["qualities"].items()))
        out.append(f"<p>Raw track: {t['fixes']:,} fixes ({_e(q)}); median HDOP {fmt(t['median_hdop'], 2)}, "
                   f"worst {fmt(t['max_hdop'], 2)}.</p>")
    return "".join(out)


#: Field-name endings -> (unit words, decimals) for the conflicts table.
_UNITS = (("_in", "in", 1), ("_ft", "ft", 2), ("_sqft", "sq ft", 0), ("_ac", "ac", 3), ("_pct", "%", 1),
          ("_deg", "°", 1), ("_m", "m", 3))


def _column_words(name: str | None) -> tuple[str, int | None]:
    """A field name in words with its unit, and the decimals of that unit: ``dbh_in`` ->
    ("DBH (in)", 1)."""
    if not name:
        return "–", None
    for end, unit, nd in _UNITS:
        if name.endswith(end):
            stem = name[: -len(end)].replace("_", " ")
            return f"{'DBH' if stem == 'dbh' else stem.capitalize()} ({unit})", nd
    return ("Geometry (position)" if name == "geom" else name.replace("_", " ").capitalize()), None


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
    return _e(text if len(text) <= 60 else text[:57] + "...")


def feature_words(visit: Any, layer: str, uuid: str | None) -> str:
    """The feature as the crew knows it: "Tree 12", "OHWM point 3", "Transect T1", a label."""
    from fieldapp.survey import Layer

    try:
        lay = Layer(layer)
        f = visit.get(lay, uuid) if uuid else None
    except (ValueError, KeyError, LookupError):
        f, lay = None, None
    if f is None:
        return f"{layer.replace('_', ' ')} {(uuid or '')[:8]} (no longer in this visit)"
    if lay is Layer.TREE:
        return f"Tree {f.tag}"
    if lay is Layer.OHWM_POINT:
        return f"OHWM point {f.seq + 1}"
    if lay is Layer.STATION:
        t = visit.get(Layer.TRANSECT, f.transect_uuid)
        return f"Transect {t.label if t else '?'} station at {f.distance_ft:.1f} ft"
    if lay is Layer.NOTE:
        return f"Note '{str(f.text)[:30]}'"
    label = getattr(f, "label", "") or ""
    kind = getattr(f, "kind", None)
    words = {Layer.TRANSECT: "Transect", Layer.OHWM_LINE: "OHWM line"}.get(
        lay, str(getattr(kind, "value", kind) or lay.value).replace("_", " ").capitalize())
    return f"{words} {label}".strip()


def _conflicts_html(c: ReportContent) -> str:
    out = ["<h2>Sync conflicts</h2>"]
    if not c.conflicts:
        out.append("<p>No sync conflicts recorded in this visit file.</p>")
        return "".join(out)
    rows = []
    for k in c.conflicts:
        col, nd = _column_words(k.field)
        rows.append([_e(feature_words(c.visit, k.layer, k.feature_uuid)), _e(col),
                     _e(str(k.kind.value).replace("_", " ")), _value_words(k.base, nd),
                     _value_words(k.theirs, nd), _value_words(k.ours, nd), _e(k.kept),
                     f'<span class="nowrap">{_e(k.created_utc[:16].replace("T", " "))}</span>',
                     _e("resolved" if k.resolved_utc else "open")])
    out.append(_table(["Feature", "Column", "Kind", "Before both edits", "Office copy", "This laptop",
                       "Kept", "When (UTC)", "State"], rows))
    return "".join(out)


def _notes_html(c: ReportContent) -> str:
    """Every note in full, numbered as on the map, with its position (site CRS unit, lat/lon)."""
    from fieldapp.survey import Layer

    from .content import crs_unit_symbol

    notes = c.visit.features(Layer.NOTE)
    out = ["<h2>Notes</h2>"]
    if not notes:
        return "".join(out) + "<p>No notes recorded.</p>"
    frame = c.frame
    unit = crs_unit_symbol(frame) if frame else ""
    nd = 3 if unit == "m" else 2
    rows, n = [], 0
    for note in notes:
        if note.x is not None:
            n += 1
            lon, lat = (float(v) for v in frame.to_lonlat(note.x, note.y))
            where = (f'<span class="nowrap">{fmt(note.x, nd)} {unit} E, {fmt(note.y, nd)} {unit} N</span><br/>'
                     f'<span class="nowrap">{lat:.8f}, {lon:.8f}</span>')
            number = str(n)
        else:
            where, number = "no position", "–"
        rows.append([number, _e(note.text), where,
                     f'<span class="nowrap">{_e(f"{note.created_utc:%Y-%m-%d %H:%M}")} UTC</span>',
                     _e(note.created_by)])
    out.append(_table(["Map #", "Note", "Position (site CRS; lat, lon)", "Recorded", "By"], rows, {0}))
    return "".join(out)


def _certification_html(c: ReportContent) -> str:
    """The block the responsible surveyor or scientist fills in and signs."""
    line = "_" * 40
    rows = [["Name", line], ["Registration or licence number", line], ["Firm", line], ["Date", line],
            ["Signature", line]]
    body = _table(["", ""], rows, width="100%").replace("<tr><th></th><th></th></tr>", "")
    return ("<h2>Certification</h2><p>I certify that this report was prepared from field data collected "
            f"under my direction on {_e(c.site.visit_date.isoformat())} by {_e(', '.join(c.site.crew) or '–')}, "
            "and that the verdicts above follow from that data and the readings stated.</p>" + body)


# --------------------------------------------------------------------------- the PDF
def _pdf_writer(path: str, content: ReportContent) -> QPdfWriter:
    """The PDF writer: US letter, :data:`MARGINS_MM`, :data:`RESOLUTION_DPI`, title and creator."""
    writer = QPdfWriter(str(path))
    writer.setPageSize(QPageSize(QPageSize.Letter))
    writer.setPageMargins(MARGINS_MM, QPageLayout.Millimeter)
    writer.setResolution(RESOLUTION_DPI)
    writer.setTitle(f"Site report: {content.site.name}")
    writer.setCreator(f"fieldapp {content.app_version}")
    return writer


def no_ligatures(font: QFont) -> QFont:
    """Turn off ligatures ("fi" as one glyph), so the PDF's text is the words as written:
    a search for "Certification" or "profiles" finds them."""
    for tag in ("liga", "clig", "dlig"):
        font.setFeature(QFont.Tag(tag), 0)
    return font


class _ReportDocument:
    """The report's one text document, laid out for the writer's pages, built section by
    section (HTML) with inline figures (:class:`_Figures`).

    ``page`` is the paint rectangle in device pixels, ``body_h`` the height left for the body
    between header and footer (pixels), ``mm`` device pixels per millimetre.
    """

    def __init__(self, writer: QPdfWriter, page: QRect, body_h: float, mm: float) -> None:
        self.page, self.body_h, self.mm = page, body_h, mm
        self.doc = QTextDocument()
        self.doc.documentLayout().setPaintDevice(writer)
        self.doc.setPageSize(QSizeF(page.width(), body_h))
        self.doc.setDocumentMargin(0)
        font = QFont()
        font.setPointSizeF(9)
        no_ligatures(font)
        self.doc.setDefaultFont(font)
        self.doc.setDefaultStyleSheet(CSS)
        # a line breaks between words only, never inside a number, time or word
        opt = self.doc.defaultTextOption()
        opt.setWrapMode(QTextOption.WrapMode.WordWrap)
        self.doc.setDefaultTextOption(opt)
        self.figures = _Figures()
        self.doc.documentLayout().registerHandler(OBJECT_TYPE, self.figures)
        self.cur = QTextCursor(self.doc)
        self.first = True
        #: (level, text) of every h2 / h3 inserted, in order (the PDF's bookmarks)
        self.headings: list[tuple[int, str]] = []

    def section(self, html_text: str, new_page: bool = False) -> None:
        """Start a new block (a new page if asked) and insert the HTML there."""
        if not self.first:
            bf = QTextBlockFormat()
            if new_page:
                bf.setPageBreakPolicy(QTextFormat.PageBreak_AlwaysBefore)
            self.cur.insertBlock(bf, QTextCharFormat())
        self.first = False
        for level, inner in re.findall(r"<h([23])[^>]*>(.*?)</h\1>", html_text, flags=re.S):
            self.headings.append((int(level) - 1, html.unescape(re.sub(r"<[^>]+>", "", inner)).strip()))
        self.cur.insertHtml(html_text)

    def figure(self, key: str, height_mm: float, draw: Callable) -> None:
        """A figure the page's width and ``height_mm`` high, drawn by ``draw(painter, w, h)``."""
        self.figures.items[key] = (QSizeF(self.page.width() - 2, height_mm * self.mm), draw)
        self.cur.insertBlock(QTextBlockFormat(), QTextCharFormat())
        f = QTextCharFormat()
        f.setObjectType(OBJECT_TYPE)
        f.setProperty(OBJECT_KEY, key)
        self.cur.insertText("\ufffc", f)


def _add_sections(rd: _ReportDocument, content: ReportContent, names: list[str],
                  step: Callable[[float, str], None]) -> None:
    """Every section in order: site and verdicts, the map (a page of its own), the transect
    profiles (two to a page), stands and wetlands, verdicts in detail, GNSS and conflicts, and
    how to reproduce the verdicts from the attachments ``names``."""
    mm = rd.mm
    rd.section(_site_html(content) + _summary_html(content))
    # the map on a page of its own
    rd.section("<h2>Site map</h2>", new_page=True)
    lay = content.map
    map_h, scale = drawing.map_height_mm(lay, rd.page.width() / mm, rd.body_h / mm - 24)
    rd.figure("map", map_h, lambda p, w, h: drawing.draw_map(p, w, h, lay, mm, scale))
    step(0.35, "map")
    for i, prof in enumerate(content.transects):
        head = "<h2>Transect profiles (NR 341.035)</h2>" if i == 0 else ""
        rd.section(head + _profile_intro(prof), new_page=(i % 2 == 0))
        if len(prof.stations) > 1:
            rd.figure(f"profile{i}", 72, lambda p, w, h, prof=prof: drawing.draw_profile(p, w, h, prof, mm))
            rd.section(_profile_table(prof))
        else:
            rd.section("<p>No station yet.</p>")
    step(0.45, "profiles")
    rd.section(_stands_html(content), new_page=True)
    rd.section(_wetlands_html(content))
    rd.section(_verdicts_html(content), new_page=True)
    if content.stakes:
        rd.section(_stakes_html(content))
    rd.section(_gnss_html(content), new_page=True)
    rd.section(_conflicts_html(content))
    rd.section(_notes_html(content))
    rd.section("<h2>Reproducing the verdicts</h2><p>" + _e(
        "Every rule request above is attached to this PDF (" + ", ".join(names) + "; all of them in "
        "requests-all.json, the results as shown in results-all.json). Save an attachment and run "
        "'fieldapp rules evaluate FILE.json' to get the same result, or change one input to see "
        "what changes.") + "</p>")
    rd.section(_certification_html(content), new_page=True)


def _paint_pages(painter: QPainter, writer: QPdfWriter, rd: _ReportDocument, content: ReportContent,
                 step: Callable[[float, str], None]) -> int:
    """Paint the laid-out document page by page with the running header and the "page i of N"
    footer; returns the page count."""
    page, body_h, mm, doc = rd.page, rd.body_h, rd.mm, rd.doc
    n = doc.pageCount()
    header_font = no_ligatures(QFont())
    header_font.setPointSizeF(7.5)
    head = f"Site report: {content.site.name} · visit {content.site.visit_date.isoformat()}"
    foot = f"fieldapp {content.app_version} · generated {content.generated_utc:%Y-%m-%d %H:%M} UTC"
    for i in range(n):
        if i:
            writer.newPage()
        painter.save()
        painter.setFont(header_font)
        painter.drawText(QRectF(0, 0, page.width(), HEADER_MM * mm - 2 * mm),
                         Qt.AlignLeft | Qt.AlignTop, head)
        painter.drawText(QRectF(0, page.height() - FOOTER_MM * mm + 2 * mm, page.width(), FOOTER_MM * mm),
                         Qt.AlignLeft | Qt.AlignBottom, foot)
        painter.drawText(QRectF(0, page.height() - FOOTER_MM * mm + 2 * mm, page.width(), FOOTER_MM * mm),
                         Qt.AlignRight | Qt.AlignBottom, f"page {i + 1} of {n}")
        painter.translate(0, HEADER_MM * mm - i * body_h)
        # the last device pixel is left out: a block that starts on the next page touches it
        doc.drawContents(painter, QRectF(0, i * body_h, page.width(), body_h - 1.0))
        painter.restore()
        step(0.5 + 0.4 * (i + 1) / n, f"page {i + 1} of {n}")
    return n


#: A heading whose top is less than this far above the page's foot starts the next page
#: instead (Qt's own page break), so it is never stranded without its content.
KEEP_WITH_NEXT_MM = 30.0


def keep_headings_with_next(rd: _ReportDocument) -> int:
    """Give every h2 / h3 heading that would sit in the last :data:`KEEP_WITH_NEXT_MM` of a
    page a page break before it (``PageBreak_AlwaysBefore``), in order, the layout updating
    after each; returns how many were moved."""
    lay = rd.doc.documentLayout()
    wanted = {" ".join(t.split()) for _, t in rd.headings}
    room = KEEP_WITH_NEXT_MM * rd.mm
    moved = 0
    block = rd.doc.begin()
    while block.isValid():
        if " ".join(block.text().split()) in wanted and not block.blockFormat().pageBreakPolicy():
            y = lay.blockBoundingRect(block).top() % rd.body_h
            if y > 1.0 and rd.body_h - y < room:
                cur = QTextCursor(block)
                bf = block.blockFormat()
                bf.setPageBreakPolicy(QTextFormat.PageBreak_AlwaysBefore)
                cur.setBlockFormat(bf)
                moved += 1
        block = block.next()
    return moved


def outline_of(rd: _ReportDocument) -> list[tuple[int, str, int]]:
    """(level, heading text, 0-based page) of every section (h2, level 1) and subsection (h3,
    level 2) heading of the laid-out document, in order: the PDF's bookmarks."""
    out = []
    lay = rd.doc.documentLayout()
    todo = list(rd.headings)
    block = rd.doc.begin()
    while block.isValid() and todo:
        if " ".join(block.text().split()) == " ".join(todo[0][1].split()):
            level, text = todo.pop(0)
            page = int((lay.blockBoundingRect(block).top() + 0.5) // rd.body_h)
            out.append((level, text, page))
        block = block.next()
    return out


def write_pdf(content: ReportContent, path: str, *, step: Callable[[float, str], None],
              outline: list | None = None) -> int:
    """Write the report to ``path`` (PDF, US letter); returns the page count.

    ``step(fraction, message)`` is called as the work advances (and may raise to cancel);
    ``outline``, when given, gets the headings as :func:`outline_of` lists them.

    Raises
    ------
    OSError
        Qt could not open the PDF for writing.
    """
    names = attachment_names(content)
    writer = _pdf_writer(path, content)
    page = writer.pageLayout().paintRectPixels(RESOLUTION_DPI)
    mm = RESOLUTION_DPI / 25.4
    # whole device pixels: with a fractional page height Qt lays a page-break block a hair
    # above the page boundary, so the previous page painted it too (invisible, clipped, but
    # in the PDF's text: each heading twice)
    body_h = float(int(page.height() - (HEADER_MM + FOOTER_MM) * mm))
    painter = QPainter()
    if not painter.begin(writer):
        raise OSError("Qt could not open the PDF for writing")
    try:
        rd = _ReportDocument(writer, page, body_h, mm)
        _add_sections(rd, content, names, step)
        keep_headings_with_next(rd)
        step(0.5, "layout")
        if outline is not None:
            outline.extend(outline_of(rd))
        return _paint_pages(painter, writer, rd, content, step)
    finally:
        painter.end()
