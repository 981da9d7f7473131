"""Map labels that never print over each other: at each zoom, a label that would overlap one
already placed is hidden (its mark, e.g. a bank's red X, stays), as QGIS's labelling does.

A label is also left out where it would cover another label's mark (three banks side by side
show one label, at the mark it does not cover). Each label may go in one of a few places, tried
best first: a bank's right of its X, then left; a note above its point, then below. Labels are
placed in priority order: the checks' own labels (a bank's horizontal distance, a protective
area's width) before notes (``✎ ...``), then in the order given. Panning moves every
label alike, so only a new zoom or new labels place them again.
"""

from __future__ import annotations

Rect = tuple[float, float, float, float]        # left, top, right, bottom (pixels)


def note_label(text: str) -> bool:
    """A crew's note on the map (placed after the checks' labels)."""
    return text.startswith("✎")


def placement_order(texts: list[str]) -> list[int]:
    """Indexes of ``texts`` in the order they are placed: checks' labels, then notes."""
    return sorted(range(len(texts)), key=lambda i: (note_label(texts[i]), i))


def _meet(a: Rect, b: Rect, gap_px: float) -> bool:
    return a[0] < b[2] + gap_px and b[0] < a[2] + gap_px and a[1] < b[3] + gap_px and b[1] < a[3] + gap_px


def shown_labels(rects: list[Rect], order: list[int], marks: list[Rect | None] | None = None,
                 gap_px: float = 2.0) -> list[bool]:
    """For each label rectangle, whether it is shown: placed greedily in ``order``, a label
    meeting (within ``gap_px``) one already placed, or another label's mark (``marks[i]``: the
    rectangle of label i's own symbol, e.g. a bank's X, or None), is left out."""
    chosen = placed_labels([[r] for r in rects], order, marks, gap_px)
    return [c is not None for c in chosen]


def placed_labels(candidates: list[list[Rect]], order: list[int],
                  marks: list[Rect | None] | None = None, gap_px: float = 2.0,
                  always: frozenset[int] = frozenset()) -> list[int | None]:
    """For each label, the index of the first of its ``candidates`` (rectangles of the places it
    may go, best first: e.g. right of its mark, then left) that meets no label placed before it
    in ``order`` (within ``gap_px``) and no other label's mark; None when none is free (the
    label is left out). A label in ``always`` (the map's "OHWM", always shown) takes its first
    place even when that is not free, and the labels after it keep clear of it (issue 35 item
    11: a note printed over "OHWM", which had been left out of the placing by a bank's X).

    >>> placed_labels([[(0, 0, 10, 10)], [(5, 5, 15, 15), (20, 0, 30, 10)]], [0, 1],
    ...               [None, (0, 0, 4, 4)], always=frozenset({0}))
    [0, 1]
    """
    marks = marks if marks is not None else [None] * len(candidates)
    placed: list[Rect] = []
    chosen: list[int | None] = [None] * len(candidates)
    for i in order:
        for k, rect in enumerate(candidates[i]):
            forced = i in always and k == len(candidates[i]) - 1
            if not forced and any(_meet(rect, r, gap_px) for r in placed):
                continue
            if not forced and any(m is not None and j != i and _meet(rect, m, 0.0)
                                  for j, m in enumerate(marks)):
                continue
            placed.append(rect)
            chosen[i] = k
            break
    return chosen
