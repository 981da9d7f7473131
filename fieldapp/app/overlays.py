"""Map overlays from the open visit, in site feet: OHWM, transects, bank line, trees, polygons,
protective-area buffers, development-area envelope (no Qt; shapely for buffers)."""

from __future__ import annotations

import math
from typing import Any

CLASS_COLOURS = {"mature": "#1b7a1b", "young": "#8fd18f", "none": "#c8c8c8", "grove": "#0f5c0f"}
"""Tree and canopy colours by canopy class (the map's legend)."""


def _v(x: Any) -> Any:
    return getattr(x, "value", x)


def _rings(geom: Any) -> list[Any]:
    if geom is None or geom.is_empty:
        return []
    if geom.geom_type == "Polygon":
        return [list(geom.exterior.coords)] + [list(i.coords) for i in geom.interiors]
    if hasattr(geom, "geoms"):
        return [r for g in geom.geoms for r in _rings(g)]
    return []


def bank_point(model: Any, transect: Any, result: dict[str, Any] | None, ft: Any) -> tuple[float, float, str] | None:
    """Where the map's bank ✕ of ``transect`` goes: (x_ft, y_ft, label) or None.

    At the result's ``bank_ft`` whenever it is known, whatever the basis (slope, base distance,
    stipulation NR 341.035(2)(c), interruption), else at ``bank_ft_at_least`` labelled "≥";
    placed by the survey model's :meth:`point_on_transect` (the geodesic along the true azimuth,
    as the stations and the report), then in site feet by ``ft`` (site-CRS points -> feet).
    None with no result or no distance yet.
    """
    if not result:
        return None
    bank_ft = result.get("bank_ft")
    at_least = bank_ft is None
    d = result.get("bank_ft_at_least") if at_least else bank_ft
    if d is None or not math.isfinite(float(d)) or float(d) <= 0.0:
        return None
    d = float(d)
    x, y = ft([model.point_on_transect(transect, d)])[0]
    return x, y, f"bank {'≥ ' if at_least else ''}{d:.0f} ft"


def build(visit: Any, crowns: TreeCrowns | None = None) -> dict[str, Any]:
    """{"lines": {name: [[(x_ft, y_ft), ...], ...]}, "polygons": {kind: [ring...]},
    "trees": [(x_ft, y_ft, crown_ft, colour)],
    "labels": [(x_ft, y_ft, text, colour)], "markers": {"data_wetland" | "data_upland":
    [(x_ft, y_ft)]}}. Empty before the site CRS is known. ``crowns``
    keeps the trees' crowns between calls (:class:`TreeCrowns`; a new one without)."""
    m = visit.model
    out: dict[str, Any] = {"lines": {k: [] for k in ("ohwm", "transects", "bank", "buffers", "envelope",
                                           "boundary_live", "features", "data_pairs",
                                           "unsupported")},
                 "polygons": {}, "trees": [], "labels": [],
                 "markers": {"data_wetland": [], "data_upland": []}}
    if not m.has_frame:
        return out
    f = m.frame

    def ft(pts: Any) -> list[tuple[float, float]]:
        return [(float(f.to_ft(x)), float(f.to_ft(y))) for x, y in pts]

    by_line: dict[str, list[tuple[float, float]]] = {}
    for p in visit.ohwm_points():
        by_line.setdefault(p.line_uuid, []).append((p.x, p.y))
    out["lines"]["ohwm"] = [ft(pts) for pts in by_line.values()]
    _add_transects(out, visit, ft)
    out["trees"] = (crowns or TreeCrowns()).crowns(visit)
    _add_areas(out, visit, ft)
    _add_ohwm_buffers(out, visit, ft, list(by_line.values()))
    _add_envelope(out, visit, ft)
    _add_lines_and_notes(out, visit, ft)
    _add_data_points(out, visit, ft)
    if visit.walk is not None:
        verts = visit.walk.vertices()
        if verts:
            out["lines"]["boundary_live"] = [ft(verts + [verts[0]])]
    return out


def _add_transects(out: dict[str, Any], visit: Any, ft: Any) -> None:
    """Transect lines (origin and stations) and the bank ✕ of each, joined as the bank line."""
    from fieldapp.survey.features import Layer

    m = visit.model
    bank_pts = []
    for t in m.features(Layer.TRANSECT):
        stations = m.stations(t.uuid)
        out["lines"]["transects"].append(ft([(t.origin_x, t.origin_y)] +
                                            [(s.x, s.y) for s in stations]))
        check = visit.checks.get(f"bank:{t.uuid}")
        point = bank_point(m, t, check.result if check is not None else None, ft)
        if point is not None:
            x, y, text = point
            bank_pts.append((x, y))
            out["labels"].append((x, y, text, "#cc0000"))
    if len(bank_pts) >= 2:
        out["lines"]["bank"] = [bank_pts]


class TreeCrowns:
    """The map's tree crowns of one visit, kept between refreshes: a squeeze works out the new
    tree's crown only, not the whole tally's again.

    :meth:`crowns` gives ``[(x_ft, y_ft, crown_radius_ft, colour)]`` for every tree in the
    order tallied: the crown radius (ft) as recorded, else half the DBH in inches as ft, at
    least 1.5 ft; coloured by the canopy class of the woodland stand the tree stands in (the
    stand's ``woodland:`` check), else by size (:data:`CLASS_COLOURS`). While the stands, their
    classes and the trees already drawn stay the same (trees are immutable records: an edited
    tree is a new object), the trees added since are appended to the list drawn before (a new
    list: the map sees the change); anything else works the whole tally out again (one
    vectorised ``covers`` per stand).
    """

    def __init__(self) -> None:
        self._key: list[Any] = []
        self._trees: list[Any] = []
        self._crowns: list[Any] = []

    def crowns(self, visit: Any) -> list[Any]:
        """The crowns of ``visit`` (a :class:`~fieldapp.app.visit.VisitController` with a site
        CRS), as above; the same list object again while nothing drawn changed."""
        m = visit.model
        trees = m.trees()
        stands = []
        for a in visit.areas("woodland_stand"):
            c = visit.checks.get(f"woodland:{a.uuid}")
            if c is not None:
                stands.append((a.geometry, c.result.get("class") or "none"))
        key = [m.frame, *stands]
        n = len(self._trees)
        if key == self._key and len(trees) >= n and trees[:n] == self._trees:
            if len(trees) > n:
                self._crowns = self._crowns + _crowns_of(trees[n:], m.frame, stands)
        else:
            self._crowns = _crowns_of(trees, m.frame, stands)
        self._key, self._trees = key, trees
        return self._crowns


def _crowns_of(trees: list[Any], frame: Any, stands: list[Any]) -> list[Any]:
    """``[(x_ft, y_ft, crown_ft, colour)]`` of ``trees`` (vectorised over the trees)."""
    import numpy as np
    import shapely

    if not trees:
        return []
    n = len(trees)
    x = np.fromiter((t.x for t in trees), float, n)
    y = np.fromiter((t.y for t in trees), float, n)
    dbh = np.fromiter((t.dbh_in for t in trees), float, n)
    colours = np.where(dbh < 10, CLASS_COLOURS["none"], "#4caf50").astype(object)
    pts = shapely.points(x, y) if stands else None
    for geometry, cls in stands:
        inside = shapely.covers(geometry, pts)
        colours[inside] = [CLASS_COLOURS.get(cls, col) for col in colours[inside]]
    xf, yf = frame.to_ft(x), frame.to_ft(y)
    crown = [t.crown_radius_ft or max(t.dbh_in * 1.0, 3.0) * 0.5 for t in trees]
    return list(zip(xf.tolist(), yf.tolist(), crown, colours.tolist(), strict=True))  # one of each per tree


def _add_areas(out: dict[str, Any], visit: Any, ft: Any) -> None:
    """Area polygons by kind, and each area's protective-area buffer with its width label."""
    f = visit.model.frame
    for a in visit.areas():
        rings = [ft(r) for r in _rings(a.geometry)]
        out["polygons"].setdefault(_v(a.kind), []).extend(rings)
        pa = visit.checks.get(f"protective_area:{a.uuid}")
        if pa is not None and pa.result.get("width_ft"):
            buf = a.geometry.buffer(f.from_ground_ft(pa.result["width_ft"], a.geometry), quad_segs=8)
            out["lines"]["buffers"].extend(ft(r) for r in _rings(buf))
            b = buf.bounds  # label on the buffer's top edge
            out["labels"].append((float(f.to_ft((b[0] + b[2]) / 2)), float(f.to_ft(b[3])),
                                  f"protective area {pa.result['width_ft']:g} ft", "#cc0000"))


def _add_ohwm_buffers(out: dict[str, Any], visit: Any, ft: Any, ohwm_lines: list[Any]) -> None:
    """The protective-area buffer of the OHWM lines (site-CRS points)."""
    pa = visit.checks.get("protective_area")
    if pa is not None and pa.result.get("width_ft") and ohwm_lines:
        from shapely.geometry import LineString

        f = visit.model.frame
        for pts in ohwm_lines:
            if len(pts) >= 2:
                line = LineString(pts)
                buf = line.buffer(f.from_ground_ft(pa.result["width_ft"], line))
                out["lines"]["buffers"].extend(ft(r) for r in _rings(buf))


def _add_envelope(out: dict[str, Any], visit: Any, ft: Any) -> None:
    """The development-area envelope: foundations buffered 20 ft, drives, parking, septic
    fields and utility trenches 5 ft, united."""
    dev = visit.checks.get("development_area")
    if dev is not None:
        from shapely.ops import unary_union

        from fieldapp.survey.features import Layer

        f = visit.model.frame
        limits = {"foundation": 20.0, "drive": 5.0, "parking": 5.0, "septic_field": 5.0,
                  "utility_trench": 5.0}
        parts = [a.geometry.buffer(f.from_ground_ft(limits[_v(a.kind)], a.geometry), quad_segs=8)
                 for a in visit.areas() if _v(a.kind) in limits]
        # drive edges and trenches drawn as lines: 5 ft along the line, never closed (D.2.b)
        parts += [ln.geometry.buffer(f.from_ground_ft(5.0, ln.geometry), quad_segs=8)
                  for ln in visit.model.features(Layer.LINE) if _v(ln.kind) in ("drive", "utility_trench")]
        if parts:
            out["lines"]["envelope"] = [ft(r) for r in _rings(unary_union(parts))]


#: Map colours of wetland determination data points by side.
DATA_POINT_COLOURS = {"wetland": "#00639a", "upland": "#8a4b00"}


def _add_data_points(out: dict[str, Any], visit: Any, ft: Any) -> None:
    """Wetland data points as markers by side (``markers``: data_wetland, a filled diamond;
    data_upland, an open one: always drawn) with their name and side as a label beside (which
    may give way where labels crowd), a dashed line from each wetland point to the upland point
    it is paired with, and the stretches of a wetland boundary its pairs do not support
    (``unsupported``)."""
    from fieldapp.survey.features import Layer

    m = visit.model
    points = {d.uuid: d for d in m.features(Layer.DATA_POINT)}
    for d in points.values():
        role = _v(d.role)
        x, y = ft([(d.x, d.y)])[0]
        out["markers"]["data_wetland" if role == "wetland" else "data_upland"].append((x, y))
        out["labels"].append((x, y, f"{d.name} {role}", DATA_POINT_COLOURS.get(role, "#444444")))
        other = points.get(d.pair_uuid) if d.pair_uuid else None
        if other is not None and role == "wetland":
            out["lines"]["data_pairs"].append(ft([(d.x, d.y), (other.x, other.y)]))
    # the stretches of each wetland boundary no good pair supports, once a pair supports some
    # of it (fieldapp.checks.segments): drawn dashed over the boundary
    if points:
        from fieldapp.checks.support import support_of
        from fieldapp.survey.features import AreaFeature

        for area in m.features(Layer.AREA):
            if isinstance(area, AreaFeature) and _v(area.kind) == "wetland":
                for seg in support_of(m, area).segments:
                    out["lines"]["unsupported"] += [ft(st.coords) for st in seg.unsupported]


def _add_lines_and_notes(out: dict[str, Any], visit: Any, ft: Any) -> None:
    """Line features (drainageway centrelines, swales ...) with their label, and notes with
    a position as a ✎ label."""
    from fieldapp.survey.features import Layer

    m = visit.model
    for line in m.features(Layer.LINE):
        pts = ft(line.geometry.coords)
        out["lines"]["features"].append(pts)
        words = _v(line.kind).replace("_", " ")
        if _v(line.kind) in ("drive", "utility_trench"):
            words += " (drawn as a line)"  # buffered along the line, D.2.b
        mid = pts[len(pts) // 2]
        out["labels"].append((mid[0], mid[1], line.label or words, "#006e6e"))
    for note in m.features(Layer.NOTE):
        if note.x is not None:
            x, y = ft([(note.x, note.y)])[0]
            first = note.text.strip().splitlines()[0] if note.text.strip() else ""
            out["labels"].append((x, y, "✎ " + (first[:24] + ("…" if len(first) > 24 else "")), "#5a3d00"))
