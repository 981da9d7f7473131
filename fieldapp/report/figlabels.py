"""Where a figure's labels go: inside the figure, never on each other.

The report's figures are pictures in the PDF, so a label cut by the plot's edge ("bank ≥ 90.0
ft (needs data)" printed as "banl") or drawn over another ("12 % threshold" over "18.0 %")
cannot be fixed by the reader. Each label has a few places it may go, best first (right of its
mark, then left; above its segment, then below); :func:`place` takes the first one that,
moved inside the bounds (a label is slid in whole, never cut), meets no label placed before it.
A label that must print (the bank, the base distance, the threshold) then tries every height
inside the bounds before it gives up. Rectangles are ``(left, top, right, bottom)`` in device
pixels (y down); no Qt, as for the window's labels (:mod:`fieldapp.ui.maplabels`).
"""

from __future__ import annotations

__all__ = ["Rect", "place", "inside", "overlap"]

Rect = tuple[float, float, float, float]


def inside(box: Rect, bounds: Rect) -> bool:
    """Whether ``box`` lies wholly within ``bounds`` (within 1e-6 px)."""
    e = 1e-6
    return (box[0] >= bounds[0] - e and box[1] >= bounds[1] - e and box[2] <= bounds[2] + e
            and box[3] <= bounds[3] + e)


def overlap(a: Rect, b: Rect, gap: float = 0.0) -> bool:
    """Whether ``a`` and ``b`` come closer than ``gap`` pixels (touching at 0 gap is not
    overlapping)."""
    return a[0] < b[2] + gap and b[0] < a[2] + gap and a[1] < b[3] + gap and b[1] < a[3] + gap


def _slid_in(left: float, top: float, w: float, h: float, bounds: Rect) -> Rect | None:
    """The box of size ``w`` x ``h`` at (left, top), moved the least to lie within ``bounds``;
    None when it is larger than the bounds."""
    if w > bounds[2] - bounds[0] + 1e-6 or h > bounds[3] - bounds[1] + 1e-6:
        return None
    left = min(max(left, bounds[0]), bounds[2] - w)
    top = min(max(top, bounds[1]), bounds[3] - h)
    return (left, top, left + w, top + h)


def place(size: tuple[float, float], candidates: list[tuple[float, float]], bounds: Rect,
          taken: list[Rect], gap: float = 0.0, must: bool = False) -> Rect | None:
    """The box of a label ``size`` = (width, height) px: the first of ``candidates`` (top-left
    corners, best first), slid inside ``bounds``, that meets no box of ``taken`` (within
    ``gap`` px); with ``must``, then every height in the bounds (steps of a fifth of the
    label's height) at each candidate's left edge, nearest first. The box chosen is appended
    to ``taken``. None (nothing appended) when no place is free, or the label is larger than
    the bounds.
    """
    w, h = size
    tries: list[Rect] = []
    for left, top in candidates:
        box = _slid_in(left, top, w, h, bounds)
        if box is not None:
            tries.append(box)
    if must and tries:
        step = max(h / 5.0, 1.0)
        n = int((bounds[3] - bounds[1]) / step) + 1
        for box in list(tries):
            want = box[1]
            ys = sorted((bounds[1] + k * step for k in range(n)), key=lambda y: abs(y - want))
            tries += [b for y in ys if (b := _slid_in(box[0], y, w, h, bounds)) is not None]
    for box in tries:
        if not any(overlap(box, t, gap) for t in taken):
            taken.append(box)
            return box
    return None
