"""The report's data-form page of one wetland determination data point (reportlab; no Qt, no store).

:func:`data_form_story` lays out one data point the way the Corps of Engineers' routine wetland
determination data form (the ENG Form 6116 series used with the Regional Supplements) does, so
a reviewer finds each field where they expect it:

- the header (project/site, sampling date, investigators, sampling point, position and
  datum, landform, subregion, soil map unit, NWI classification, the normal-circumstances and
  disturbed / problematic questions) and the **Summary of Findings** box;
- **Vegetation**: the four strata tables (species, absolute % cover, dominant?, indicator
  status, total cover and the 50 % / 20 % thresholds), the Dominance Test and Prevalence Index
  worksheets and the hydrophytic vegetation indicators with the form's footnote;
- **Hydrology**: the region's primary and secondary indicator checklists, the field
  observations (surface water, water table, saturation depths);
- **Soil**: the profile description table and the region's hydric soil and problematic-soil
  indicator checklists, the restrictive layer.

The sections come in the region's order: the Northcentral-Northeast form puts Hydrology on its
first page, then Vegetation, then Soil; the Midwest form Vegetation, then Soil and Hydrology.
Each section ends with the determination's own words of how its verdict was reached.

Input: a :class:`DataFormPage` -- the form as a dict in the ``wetland-form`` contract's shape
(``docs/wetland-form.md``) with the optional recorded details below, the
:class:`~fieldapp.rules.wetland_form.Determination` (None, with ``problem``, when the form
cannot be determined), and the point's name, role, position and pairing as words.

Recorded details read from the form dict (all optional; missing ones print as blanks):
``header`` {``project``, ``applicant``, ``city_county``, ``state``, ``section_township_range``,
``landform``, ``local_relief``, ``slope_pct``, ``subregion``, ``soil_map_unit``,
``nwi_classification``, ``typical_conditions`` (bool), ``disturbed`` {``vegetation``,
``soil``, ``hydrology``} (bools), ``normal_circumstances`` (bool)}; ``plot_sizes_ft``
{stratum: feet of radius} (or ``plot_sizes``, text or feet; else the supplement's);
``vegetation_remarks``; ``hydrology`` {``surface_water_in``,
``water_table_in``, ``saturation_in`` (inches below the surface, None = not present),
``remarks``}; ``soil`` {``profile`` [{``top_in``, ``bottom_in`` (or ``depth_in`` as text),
``matrix_color`` (or ``matrix``), ``matrix_pct``, ``redox_color`` (or ``redox``), ``redox_pct``,
``redox_type``, ``redox_loc``, ``texture``, ``remarks``}], ``restrictive_layer`` {``type``,
``depth_in``}, ``remarks``}; ``remarks``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from reportlab.lib import colors
from reportlab.lib.styles import ParagraphStyle
from reportlab.platypus import Flowable, KeepTogether, Paragraph, Spacer, Table, TableStyle

from fieldapp.rules.wetland_form import Determination
from fieldapp.rules.wetland_regions import REGIONS, STATUSES, STRATA, STRATUM_NAMES, Region

from .layout import FONT, Heading, esc, register_fonts

__all__ = ["DataFormPage", "data_form_story", "CHECKED", "UNCHECKED"]

CHECKED, UNCHECKED = "\u25a0", "\u25a1"   # ■ □: in DejaVu Sans and Arial alike
GRID = colors.HexColor("#7a7a7a")
SHADE = colors.HexColor("#e8eef5")
#: species rows in the strata tables above which the worksheets go below them, not beside
SIDE_BY_SIDE_ROWS = 26


@dataclass(frozen=True)
class DataFormPage:
    """One data point for its data-form page (see the module docstring)."""

    name: str
    form: Mapping[str, Any]
    determination: Determination | None
    role: str | None = None
    site: str = ""
    date: str = ""
    investigators: str = ""
    #: where it stands, in words: "43.073120 N, 89.401230 W (WGS 84); E 1234.5 ft, N 678.9 ft (site CRS)"
    position: str = ""
    datum: str = "WGS 84"
    #: the pairing in words: "upland pair: DP-2; supports the boundary of Wetland A"
    pairing: str = ""
    notes: str = ""
    #: why there is no determination (the form error), when ``determination`` is None
    problem: str = ""


_STYLES: dict[tuple[float, bool, str], ParagraphStyle] = {}
_ALIGN: dict[str, Literal[0, 1, 2]] = {"LEFT": 0, "CENTER": 1, "RIGHT": 2}


def _p(text: str, size: float = 7.5, bold: bool = False, align: str = "LEFT") -> Paragraph:
    """A cell paragraph of ``text`` (markup)."""
    key = (size, bold, align)
    if key not in _STYLES:
        register_fonts()
        _STYLES[key] = ParagraphStyle(f"dform{size}{bold}{align}", fontName=FONT + ("-Bold" if bold else ""),
                                      fontSize=size, leading=size * 1.2, splitLongWords=0,
                                      alignment=_ALIGN[align])
    return Paragraph(text, _STYLES[key])


def _box(rows: list[list[Any]], widths: Sequence[float], *, shade_first: bool = False,
         spans: Sequence[tuple[tuple[int, int], tuple[int, int]]] = (), grid: bool = True) -> Table:
    cmds: list[Any] = [("VALIGN", (0, 0), (-1, -1), "TOP"),
                       ("LEFTPADDING", (0, 0), (-1, -1), 2), ("RIGHTPADDING", (0, 0), (-1, -1), 2),
                       ("TOPPADDING", (0, 0), (-1, -1), 1), ("BOTTOMPADDING", (0, 0), (-1, -1), 1.5)]
    if grid:
        cmds.append(("GRID", (0, 0), (-1, -1), 0.4, GRID))
    else:
        cmds.append(("BOX", (0, 0), (-1, -1), 0.6, GRID))
    if shade_first:
        cmds.append(("BACKGROUND", (0, 0), (-1, 0), SHADE))
    for a, b in spans:
        cmds.append(("SPAN", a, b))
    t = Table(rows, colWidths=list(widths), splitInRow=0, hAlign="LEFT")
    t.setStyle(TableStyle(cmds))
    return t


def _yes_no(value: bool | None) -> str:
    if value is None:
        return f"Yes {UNCHECKED}&nbsp;&nbsp; No {UNCHECKED}&nbsp;&nbsp; (not decided)"
    return (f"Yes {CHECKED if value else UNCHECKED}&nbsp;&nbsp; "
            f"No {UNCHECKED if value else CHECKED}")


def _check(on: bool, text: str) -> str:
    return f"{CHECKED if on else UNCHECKED} {text}"


def _txt(value: Any, unit: str = "") -> str:
    if value is None or value == "":
        return ""
    if isinstance(value, bool):
        return "Yes" if value else "No"
    if isinstance(value, float):
        return f"{value:g}{unit}"
    return esc(f"{value}{unit}")


def _section_title(title: str, width: float) -> Table:
    t = Table([[_p(f"<b>{esc(title)}</b>", 9)]], colWidths=[width], hAlign="LEFT")
    t.setStyle(TableStyle([("BACKGROUND", (0, 0), (-1, -1), colors.HexColor("#d6dde6")),
                           ("LEFTPADDING", (0, 0), (-1, -1), 3), ("TOPPADDING", (0, 0), (-1, -1), 1.5),
                           ("BOTTOMPADDING", (0, 0), (-1, -1), 2)]))
    return t


def _how(det: Determination | None, key: str) -> str:
    if det is None:
        return ""
    return esc(det.how.get(key, ""))


# ----------------------------------------------------------------------------- header and summary

def _header(page: DataFormPage, region: Region | None, w: float) -> list[Flowable]:
    h = page.form.get("header") if isinstance(page.form.get("header"), Mapping) else {}
    assert isinstance(h, Mapping)
    dist = h.get("disturbed") if isinstance(h.get("disturbed"), Mapping) else {}
    assert isinstance(dist, Mapping)
    prob = page.form.get("problematic") if isinstance(page.form.get("problematic"), Mapping) else {}
    assert isinstance(prob, Mapping)
    point = esc(page.name) + (f" ({esc(page.role)})" if page.role else "")

    def lv(label: str, value: str) -> Paragraph:
        return _p(f"<b>{esc(label)}:</b> {value}")

    def yn(v: Any) -> str:
        return "" if v is None else ("Yes" if v else "No")

    rows: list[list[Any]] = [
        [lv("Project/Site", esc(h.get("project") or page.site)), lv("City/County", _txt(h.get("city_county"))),
         lv("Sampling Date", esc(page.date))],
        [lv("Applicant/Owner", _txt(h.get("applicant"))), lv("State", _txt(h.get("state"))),
         lv("Sampling Point", point)],
        [lv("Investigator(s)", esc(page.investigators)),
         lv("Section, Township, Range", _txt(h.get("section_township_range"))), ""],
        [lv("Landform (hillslope, terrace, etc.)", _txt(h.get("landform"))),
         lv("Local relief (concave, convex, none)", _txt(h.get("local_relief"))),
         lv("Slope (%)", _txt(h.get("slope_pct")))],
        [lv("Subregion (LRR or MLRA)", _txt(h.get("subregion"))), lv("Position", esc(page.position)),
         lv("Datum", esc(page.datum))],
        [lv("Soil Map Unit Name", _txt(h.get("soil_map_unit"))),
         lv("NWI classification", _txt(h.get("nwi_classification"))), ""],
        [lv("Are climatic / hydrologic conditions on the site typical for this time of year?",
            yn(h.get("typical_conditions")) + " (If no, explain in Remarks.)"), "", ""],
        [lv("Are Vegetation, Soil, or Hydrology significantly disturbed?",
            ", ".join(f"{k.title()} {yn(dist.get(k))}" for k in ("vegetation", "soil", "hydrology")
                      if dist.get(k) is not None) or ""),
         lv("Are \u201cNormal Circumstances\u201d present?", yn(h.get("normal_circumstances"))), ""],
        [lv("Are Vegetation, Soil, or Hydrology naturally problematic?",
            ", ".join(f"{k.title()} {'Yes' if prob.get(k) else 'No'}" for k in ("vegetation", "soil", "hydrology"))
            + " (If needed, explain any answers in Remarks.)"), "", ""],
        [lv("Pairing", esc(page.pairing) or "not paired"), "", ""],
    ]
    spans = [((1, 2), (2, 2)), ((1, 5), (2, 5)), ((0, 6), (2, 6)), ((1, 7), (2, 7)), ((0, 8), (2, 8)),
             ((0, 9), (2, 9))]
    title = "WETLAND DETERMINATION DATA FORM \u2013 " + (region.name if region else "region not set")
    sub = ("Routine determination, laid out after the Corps of Engineers' data form (ENG Form 6116 series) "
           + (f"for the {esc(region.citation)}" if region else ""))
    return [Heading(f"Data point {page.name}", 2), _p(f"<b>{esc(title)}</b>", 10.5), _p(sub, 6.5),
            Spacer(1, 2), _box(rows, [w * 0.42, w * 0.33, w * 0.25], spans=spans)]


def _summary(page: DataFormPage, w: float) -> list[Flowable]:
    det = page.determination
    veg = det.hydrophytic_vegetation if det else None
    soil = det.hydric_soil if det else None
    hyd = det.wetland_hydrology if det else None
    wet = det.wetland if det else None
    remarks = [esc(page.notes)] if page.notes else []
    if isinstance(page.form.get("remarks"), str) and page.form["remarks"]:
        remarks.append(esc(page.form["remarks"]))
    if det is None:
        remarks.append(f"<b>No determination:</b> {esc(page.problem or 'the form is not complete')}")
    else:
        remarks.append(_how(det, "wetland"))
    left = [[_p("<b>Hydrophytic Vegetation Present?</b>"), _p(_yes_no(veg))],
            [_p("<b>Hydric Soil Present?</b>"), _p(_yes_no(soil))],
            [_p("<b>Wetland Hydrology Present?</b>"), _p(_yes_no(hyd))]]
    right = [[_p("<b>Is the Sampled Area within a Wetland?</b>", 8)], [_p(_yes_no(wet), 9, bold=True)]]
    rows = [[_p("<b>SUMMARY OF FINDINGS</b>", 8), "", ""],
            [_box(left, [w * 0.3, w * 0.22], grid=False), "", _box(right, [w * 0.44], grid=False)],
            [_p("<b>Remarks:</b> " + "<br/>".join(r for r in remarks if r)), "", ""]]
    return [Spacer(1, 4), _box(rows, [w * 0.53, w * 0.01, w * 0.46], shade_first=True,
                               spans=[((0, 0), (2, 0)), ((0, 2), (2, 2))])]


# ----------------------------------------------------------------------------- vegetation

def _plot_size(page: DataFormPage, region: Region | None, stratum: str) -> str:
    v = None
    for key in ("plot_sizes_ft", "plot_sizes"):
        sizes = page.form.get(key)
        if isinstance(sizes, Mapping) and sizes.get(stratum) not in (None, ""):
            v = sizes[stratum]
            break
    if v is None and region is not None:
        v = region.plot_sizes_ft.get(stratum)
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return f"{v:g} ft radius"
    return esc(v) if v else ""


def _rows_of(form: Mapping[str, Any], stratum: str) -> list[tuple[str, float | str]]:
    """(species, cover) of a stratum; a cover that is not a number is kept as typed (text)."""
    veg = form.get("vegetation") if isinstance(form.get("vegetation"), Mapping) else {}
    assert isinstance(veg, Mapping)
    out = []
    for r in veg.get(stratum) or []:
        if isinstance(r, Mapping) and isinstance(r.get("species"), str):
            c = r.get("cover")
            out.append((r["species"].strip(), c if isinstance(c, (int, float)) and not isinstance(c, bool) else
                        str(c)))
    return out


def _strata_tables(page: DataFormPage, region: Region | None, w: float) -> list[Flowable]:
    det = page.determination
    inds = page.form.get("indicators") if isinstance(page.form.get("indicators"), Mapping) else {}
    assert isinstance(inds, Mapping)
    out: list[Flowable] = []
    cw = [w * 0.52, w * 0.16, w * 0.16, w * 0.16]
    for stratum in STRATA:
        rows = _rows_of(page.form, stratum)
        dominant = set(det.dominants.get(stratum, ())) if det else set()
        data: list[list[Any]] = [[
            _p(f"<b>{STRATUM_NAMES[stratum]}</b> (Plot size: {_plot_size(page, region, stratum)})"),
            _p("Absolute % Cover", 6.5, align="CENTER"), _p("Dominant Species?", 6.5, align="CENTER"),
            _p("Indicator Status", 6.5, align="CENTER")]]
        for i, (species, cover) in enumerate(rows, 1):
            status = inds.get(species)
            status_txt = esc(status) if isinstance(status, str) else "UPL*"
            data.append([_p(f"{i}. <i>{esc(species)}</i>"),
                         _p(f"{cover:g}" if isinstance(cover, (int, float)) else esc(cover), align="CENTER"),
                         _p(("Yes" if species in dominant else "No") if det else "\u2013", align="CENTER"),
                         _p(status_txt, align="CENTER")])
        if not rows:
            data.append([_p("1."), "", "", ""])
        total = sum(float(c) for _, c in rows if isinstance(c, (int, float)))
        data.append([_p(f"50% of total cover: {total * 0.5:g}&nbsp;&nbsp;&nbsp; 20% of total cover: {total * 0.2:g}",
                        6.5), _p(f"<b>{total:g}</b>", align="CENTER"), _p("= Total Cover", 6.5), ""])
        out += [_box(data, cw, shade_first=True, spans=[((2, len(data) - 1), (3, len(data) - 1))]), Spacer(1, 2)]
    if det and det.not_listed:
        out.append(_p("* not on the plant list in use: counted UPL, as the National Wetland Plant List rates a "
                      "species not listed in a region (unidentified plants likewise): "
                      + esc(", ".join(det.not_listed)), 6.5))
    return out


def _worksheets(page: DataFormPage, w: float) -> list[Flowable]:
    det = page.determination

    def n(v: Any) -> str:
        return "" if v is None else f"{v:g}" if isinstance(v, float) else str(v)

    dom: list[list[Any]] = [[_p("<b>Dominance Test worksheet:</b>"), ""],
           [_p("Number of Dominant Species That Are OBL, FACW, or FAC:"),
            _p(f"{n(det.hydrophytic_dominants) if det else ''} (A)", align="RIGHT")],
           [_p("Total Number of Dominant Species Across All Strata:"),
            _p(f"{n(det.dominant_count) if det else ''} (B)", align="RIGHT")],
           [_p("Percent of Dominant Species That Are OBL, FACW, or FAC:"),
            _p((f"{det.dominance_percent:.1f} %" if det and det.dominance_percent is not None else "")
               + " (A/B)", align="RIGHT")]]
    pi_rows: list[list[Any]] = [[_p("<b>Prevalence Index worksheet:</b>"), "", ""],
                                [_p("<u>Total % Cover of:</u>"), "", _p("<u>Multiply by:</u>")]]
    a_total = b_total = 0.0
    for st, k in STATUSES.items():
        a = det.cover_by_status.get(st, 0.0) if det else None
        if a is not None:
            a_total += a
            b_total += a * k
        pi_rows.append([_p(f"{st} species"), _p(n(a), align="RIGHT"),
                        _p(f"x {k} = {n(a * k) if a is not None else ''}")])
    pi_rows.append([_p("Column Totals:"), _p(f"{n(a_total) if det else ''} (A)", align="RIGHT"),
                    _p(f"{n(b_total) if det else ''} (B)")])
    pi_value = (f"{det.prevalence_index:.2f}" if det and det.prevalence_index is not None else "")
    pi_rows.append([_p(f"<b>Prevalence Index = B/A = {pi_value}</b>"), "", ""])
    form = page.form
    prob = form.get("problematic") if isinstance(form.get("problematic"), Mapping) else {}
    assert isinstance(prob, Mapping)
    ind: list[list[Any]] = [[_p("<b>Hydrophytic Vegetation Indicators:</b>")],
           [_p(_check(bool(det and det.rapid_test), "1 - Rapid Test for Hydrophytic Vegetation"))],
           [_p(_check(bool(det and det.dominance_passes), "2 - Dominance Test is &gt;50%"))],
           [_p(_check(bool(det and det.prevalence_passes), "3 - Prevalence Index is \u22643.0<super>1</super>"))],
           [_p(_check(bool(form.get("morphological_adaptations")), "4 - Morphological Adaptations<super>1</super> "
                      "(Provide supporting data in Remarks or on a separate sheet)"))],
           [_p(_check(bool(prob.get("vegetation")), "Problematic Hydrophytic Vegetation<super>1</super> (Explain)"))],
           [_p("<super>1</super>Indicators of hydric soil and wetland hydrology must be present, unless disturbed "
               "or problematic.", 6.5)],
           [_p("<b>Hydrophytic Vegetation Present?</b> "
               + _yes_no(det.hydrophytic_vegetation if det else None))],
           [_p("<i>How:</i> " + _how(det, "hydrophytic_vegetation"), 6.5)]]
    return [_box(dom, [w * 0.78, w * 0.22], grid=False), Spacer(1, 3),
            _box(pi_rows, [w * 0.45, w * 0.2, w * 0.35], grid=False), Spacer(1, 3),
            _box(ind, [w], grid=False)]


def _vegetation(page: DataFormPage, region: Region | None, w: float) -> list[Flowable]:
    title = _section_title("VEGETATION \u2013 Use scientific names of plants.", w)
    n_rows = sum(max(1, len(_rows_of(page.form, s))) + 2 for s in STRATA)
    remarks = page.form.get("vegetation_remarks")
    tail: list[Flowable] = [_p("<i>Dominants:</i> " + _how(page.determination, "dominants"), 6.5),
                            _p("<i>Dominance Test:</i> " + _how(page.determination, "dominance_test"), 6.5),
                            _p("<i>Prevalence Index:</i> " + _how(page.determination, "prevalence_index"), 6.5)]
    if isinstance(remarks, str) and remarks:
        tail.insert(0, _p("<b>Remarks:</b> " + esc(remarks)))
    if n_rows <= SIDE_BY_SIDE_ROWS:
        left, right = w * 0.57, w * 0.41
        outer = Table([[_strata_tables(page, region, left), "", _worksheets(page, right)]],
                      colWidths=[left, w * 0.02, right], hAlign="LEFT")
        outer.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"), ("LEFTPADDING", (0, 0), (-1, -1), 0),
                                   ("RIGHTPADDING", (0, 0), (-1, -1), 0)]))
        return [Spacer(1, 5), KeepTogether([title, Spacer(1, 2), outer]), Spacer(1, 2), *tail]
    strata = _strata_tables(page, region, w)
    return [Spacer(1, 5), KeepTogether([title, Spacer(1, 2), strata[0]]), *strata[1:],
            KeepTogether(_worksheets(page, w)), *tail]


# ----------------------------------------------------------------------------- hydrology

def _checklist(items: Mapping[str, str], checked: set[str]) -> list[Paragraph]:
    return [_p(_check(code in checked, f"{esc(name)} ({code})")) for code, name in items.items()]


def _columns(cells: list[list[Paragraph]], widths: Sequence[float]) -> Table:
    """Side-by-side checklist columns, each its own single-column table (a long item that wraps
    in one column does not push the others down)."""
    inner = []
    for col, cw in zip(cells, widths, strict=True):
        t = Table([[c] for c in col] or [[""]], colWidths=[cw], hAlign="LEFT")
        t.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"), ("LEFTPADDING", (0, 0), (-1, -1), 2),
                               ("RIGHTPADDING", (0, 0), (-1, -1), 1),
                               ("TOPPADDING", (0, 0), (-1, -1), 0.5), ("BOTTOMPADDING", (0, 0), (-1, -1), 0.5)]))
        inner.append(t)
    outer = Table([inner], colWidths=list(widths), hAlign="LEFT")
    outer.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"), ("LEFTPADDING", (0, 0), (-1, -1), 0),
                               ("RIGHTPADDING", (0, 0), (-1, -1), 0), ("TOPPADDING", (0, 0), (-1, -1), 0),
                               ("BOTTOMPADDING", (0, 0), (-1, -1), 0)]))
    return outer


def _hydrology(page: DataFormPage, region: Region | None, w: float) -> list[Flowable]:
    hyd = page.form.get("hydrology") if isinstance(page.form.get("hydrology"), Mapping) else {}
    assert isinstance(hyd, Mapping)
    primary = {str(c).strip().upper() for c in hyd.get("primary") or []}
    secondary = {str(c).strip().upper() for c in hyd.get("secondary") or []}
    out: list[Flowable] = [Spacer(1, 5)]
    first: list[Flowable] = [_section_title("HYDROLOGY", w), Spacer(1, 2), _p("<b>Wetland Hydrology Indicators:</b>")]
    if region is not None:
        prim = _checklist(region.primary, primary)
        half = (len(prim) + 1) // 2
        sec = _checklist(region.secondary, secondary)
        first.append(_columns([[_p("<u>Primary Indicators (minimum of one is required; check all that apply)</u>"),
                                *prim[:half]], [_p("&nbsp;<br/>&nbsp;"), *prim[half:]],
                               [_p("<u>Secondary Indicators (minimum of two required)</u>"), *sec]],
                              [w * 0.33, w * 0.33, w * 0.34]))
    out.append(KeepTogether(first))

    def obs(label: str, key: str) -> list[Any]:
        v = hyd.get(key)
        present = isinstance(v, (int, float)) and not isinstance(v, bool)
        typed = f" {esc(v)}" if isinstance(v, str) and v.strip() else ""   # kept as typed, not a number
        return [_p(label), _p(_yes_no(present if key in hyd else None).replace(" (not decided)", "")),
                _p(f"Depth (inches): {v:g}" if present else f"Depth (inches):{typed}")]

    rows = [[_p("<b>Field Observations:</b>"), "", ""],
            obs("Surface Water Present?", "surface_water_in"),
            obs("Water Table Present?", "water_table_in"),
            obs("Saturation Present? (includes capillary fringe)", "saturation_in")]
    out += [Spacer(1, 2), _box(rows, [w * 0.4, w * 0.3, w * 0.3], grid=False)]
    det = page.determination
    out.append(_p("<b>Wetland Hydrology Present?</b> " + _yes_no(det.wetland_hydrology if det else None)))
    if isinstance(hyd.get("remarks"), str) and hyd["remarks"]:
        out.append(_p("<b>Remarks:</b> " + esc(hyd["remarks"])))
    out.append(_p("<i>How:</i> " + _how(det, "wetland_hydrology"), 6.5))
    return out


# ----------------------------------------------------------------------------- soil

def _soil(page: DataFormPage, region: Region | None, w: float) -> list[Flowable]:
    soil = page.form.get("soil") if isinstance(page.form.get("soil"), Mapping) else {}
    assert isinstance(soil, Mapping)
    codes = {str(c).strip().upper() for c in soil.get("indicators") or []}
    head = ["Depth (inches)", "Matrix Color (moist)", "%", "Redox Color (moist)", "%", "Type<super>1</super>",
            "Loc<super>2</super>", "Texture", "Remarks"]
    rows: list[list[Any]] = [[_p(h, 6.5, bold=True, align="CENTER") for h in head]]
    for layer in soil.get("profile") or []:
        if not isinstance(layer, Mapping):
            continue
        top, bottom = layer.get("top_in"), layer.get("bottom_in")
        depth = (f"{_txt(top)}\u2013{_txt(bottom)}" if top is not None or bottom is not None
                 else _txt(layer.get("depth_in")))
        values = {**layer, "matrix_color": layer.get("matrix_color", layer.get("matrix")),
                  "redox_color": layer.get("redox_color", layer.get("redox"))}
        rows.append([_p(depth, align="CENTER")] + [_p(_txt(values.get(k)), align="CENTER") for k in
                    ("matrix_color", "matrix_pct", "redox_color", "redox_pct", "redox_type", "redox_loc")]
                    + [_p(_txt(layer.get("texture"))), _p(_txt(layer.get("remarks")))])
    while len(rows) < 4:
        rows.append([""] * len(head))
    widths = [w * f for f in (0.09, 0.13, 0.06, 0.13, 0.06, 0.07, 0.06, 0.16, 0.24)]
    out: list[Flowable] = [
        Spacer(1, 5),
        KeepTogether([_section_title("SOIL", w), Spacer(1, 2),
                      _p("<b>Profile Description:</b> (Describe to the depth needed to document the indicator or "
                         "confirm the absence of indicators.)"),
                      _box(rows, widths, shade_first=True)]),
        _p("<super>1</super>Type: C=Concentration, D=Depletion, RM=Reduced Matrix, MS=Masked Sand Grains.&nbsp;&nbsp;"
           "<super>2</super>Location: PL=Pore Lining, M=Matrix.", 6.5)]
    if region is not None:
        hyd = _checklist(region.hydric_soil, codes)
        half = (len(hyd) + 1) // 2
        prob = _checklist(region.problematic_soil, codes)
        out.append(_columns([[_p("<b>Hydric Soil Indicators:</b>"), *hyd[:half]], [_p("&nbsp;"), *hyd[half:]],
                             [_p("<b>Indicators for Problematic Hydric Soils<super>3</super>:</b>"), *prob,
                              _p("<super>3</super>Indicators of hydrophytic vegetation and wetland hydrology must be "
                                 "present, unless disturbed or problematic.", 6.5)]],
                            [w * 0.32, w * 0.32, w * 0.36]))
    rl = soil.get("restrictive_layer") if isinstance(soil.get("restrictive_layer"), Mapping) else {}
    assert isinstance(rl, Mapping)
    det = page.determination
    out.append(_box([[_p(f"<b>Restrictive Layer (if observed):</b> Type: {_txt(rl.get('type'))}&nbsp;&nbsp; "
                         f"Depth (inches): {_txt(rl.get('depth_in'))}"),
                      _p("<b>Hydric Soil Present?</b> " + _yes_no(det.hydric_soil if det else None))]],
                    [w * 0.6, w * 0.4], grid=False))
    if isinstance(soil.get("remarks"), str) and soil["remarks"]:
        out.append(_p("<b>Remarks:</b> " + esc(soil["remarks"])))
    out.append(_p("<i>How:</i> " + _how(det, "hydric_soil"), 6.5))
    return out


def data_form_story(page: DataFormPage, width: float) -> list[Flowable]:
    """The flowables of ``page``'s data form, ``width`` points wide (the caller starts a page
    before it; the form runs over as many pages as its rows need)."""
    key = page.form.get("region")
    region = REGIONS.get(key) if isinstance(key, str) else None
    story = _header(page, region, width) + _summary(page, width)
    sections = ((_hydrology, _vegetation, _soil) if region is None or region.key == "northcentral-northeast"
                else (_vegetation, _soil, _hydrology))
    for section in sections:
        story += section(page, region, width)
    return story
