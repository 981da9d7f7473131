"""A line being walked or drawn (drainageway centreline, swale, utility trench, drive edge),
and notes at the current position or at a map click (no Qt).

A :class:`LineDraft` takes vertices from usable fixes every ``spacing_ft`` walked, at a corner
the walker marks, or at map clicks (drawing); :meth:`LineDraft.finish` records it as one
line feature of the visit (``Visit.add_line``: one undoable command, with its mapped-stream
flag and tributary area), so the checks it feeds (Decorah resource protection, Drainageways A.1 /
A.2) are evaluated at once. The draft lives in memory until then: a crash loses the line
walked so far, never anything recorded.
"""

from __future__ import annotations

import math
from typing import Any

from fieldapp.geo import FOOT_INTERNATIONAL_M

__all__ = ["LINE_KINDS", "LineDraft", "add_note_here", "add_note_at"]

#: (value, words) of the line kinds the Lines panel offers.
LINE_KINDS = [("drainageway_centreline", "drainageway centreline"), ("swale", "swale"),
              ("utility_trench", "utility trench"), ("drive", "drive edge")]


class LineDraft:
    """A line in progress on ``visit`` (a :class:`fieldapp.app.visit.VisitController`).

    ``state`` is ``walking`` (vertices from fixes), ``paused`` or ``drawing`` (vertices from
    map clicks only). Vertices are site-CRS (x, y).
    """

    def __init__(self, visit: Any, kind: str, *, spacing_ft: float = 10.0, drawing: bool = False) -> None:
        if kind not in dict(LINE_KINDS):
            raise ValueError(f"unknown line kind {kind!r}")
        if not (spacing_ft > 0 and math.isfinite(spacing_ft)):
            raise ValueError("Vertex every must be more than 0 ft")
        self.visit = visit
        self.kind = kind
        self.spacing_ft = float(spacing_ft)
        self.state = "drawing" if drawing else "walking"
        self.vertices: list[tuple[float, float]] = []

    def _xy(self, fix: Any) -> tuple[float, float]:
        m = self.visit.model
        frame = m.ensure_frame(fix)
        x, y = frame.to_local(fix.lon_deg, fix.lat_deg)
        return float(x), float(y)

    def feed(self, fix: Any) -> bool:
        """A usable fix while walking: a vertex once ``spacing_ft`` (international ft) from
        the last one (the first fix always). True when a vertex was taken."""
        if self.state != "walking" or not self.visit.model.gate.usable(fix):
            return False
        x, y = self._xy(fix)
        if self.vertices:
            lx, ly = self.vertices[-1]
            moved_ft = math.hypot(x - lx, y - ly) * self.visit.model.frame.unit_m / FOOT_INTERNATIONAL_M
            if moved_ft < self.spacing_ft:
                return False
        self.vertices.append((x, y))
        return True

    def vertex_at_fix(self, fix: Any) -> None:
        """A vertex here and now (a bend the walker marks)."""
        self.vertices.append(self._xy(fix))

    def vertex_at_ft(self, x_ft: float, y_ft: float) -> None:
        """A vertex at a map click, site feet."""
        f = self.visit.model.frame
        self.vertices.append((float(f.from_ft(x_ft)), float(f.from_ft(y_ft))))

    def remove_last(self) -> bool:
        """Take back the last vertex; False when there is none."""
        if not self.vertices:
            return False
        self.vertices.pop()
        return True

    def length_ft(self) -> float:
        """Ground length so far (ft of the site's foot)."""
        if len(self.vertices) < 2:
            return 0.0
        from shapely.geometry import LineString

        return float(self.visit.model.frame.length_ft(LineString(self.vertices)))

    def vertices_ft(self) -> list[tuple[float, float]]:
        if not self.vertices or not self.visit.model.has_frame:
            return []
        return [self.visit.ft(x, y) for x, y in self.vertices]

    def finish(self, *, label: str = "", mapped_stream: bool | None = None,
               tributary_area_ac: float | None = None, channel_width_ft: float | None = None) -> Any:
        """Record the line (one undoable command); returns the LineFeature.

        ``mapped_stream`` only for a drainageway centreline (ignored otherwise); tributary
        area (ac) for any kind. Raises the model's InvalidValue (fewer than 2 distinct
        vertices, a negative area ...); the draft is kept to correct.
        """
        drainageway = self.kind == "drainageway_centreline"
        return self.visit.model.add_line(
            self.kind, list(self.vertices), label=label,
            mapped_stream=mapped_stream if drainageway else None,
            tributary_area_ac=tributary_area_ac,
            channel_width_ft=channel_width_ft if drainageway else None)


def add_note_here(visit: Any, text: str, fix: Any) -> Any:
    """A note at the receiver's position (a usable fix), or with no position (``fix`` None)."""
    if fix is None:
        return visit.model.add_note(text)
    m = visit.model
    frame = m.ensure_frame(fix)
    x, y = frame.to_local(fix.lon_deg, fix.lat_deg)
    return m.add_note(text, x=float(x), y=float(y))


def add_note_at(visit: Any, text: str, x_ft: float, y_ft: float) -> Any:
    """A note at a map click (site feet)."""
    f = visit.model.frame
    return visit.model.add_note(text, x=float(f.from_ft(x_ft)), y=float(f.from_ft(y_ft)))
