"""Before a tally is marked complete: what looks missing from it, in field words.

A woodland class determined from part of a stand is worse than none, so ticking *Tally complete*
first looks for signs of trees not yet tallied (:func:`tally_gaps`) and the window asks before
storing it. The signs, each only from what the visit holds:

- crown or grove areas drawn inside the stand with no tree record in them;
- part of the stand far from every tallied tree (:data:`GAP_FT`): a stand tallied on one side;
- the demo's stand, whose trees are known: fewer tallied than it holds.
"""

from __future__ import annotations

from typing import Any

from fieldapp.app.wording import plural

#: A point of the stand further than this from every tallied tree (ft) is in an untallied part.
GAP_FT = 66.0          # one chain: a tree every chain is already a sparse stand
#: Untallied share of the stand (percent) worth a warning.
GAP_PCT = 20.0


def tally_gaps(visit: Any, expected_trees: int | None = None) -> list[str]:
    """What looks missing from the current stand's tally (``visit``: a
    :class:`fieldapp.app.visit.VisitController`), one phrase each; [] when nothing does or
    no stand is walked. ``expected_trees``: how many trees the stand holds when known (the
    demo's scenario)."""
    import shapely


    stand = visit.current_stand()
    if stand is None or stand.geometry is None or not visit.model.has_frame:
        return []
    model = visit.model
    frame = model.frame
    poly = stand.geometry
    inside = [t for t in model.trees() if poly.covers(shapely.Point(t.x, t.y))]
    out: list[str] = []
    if expected_trees is not None and len(inside) < expected_trees:
        out.append(f"{len(inside)} of the stand's {expected_trees} trees are tallied")
    points = [shapely.Point(t.x, t.y) for t in inside]
    drawn = [a for a in visit.areas("grove") if a.geometry is not None and a.geometry.intersects(poly)]
    empty = [a for a in drawn if not any(a.geometry.covers(p) for p in points)]
    if empty:
        out.append(f"{plural(len(empty), 'crown or grove area')} drawn inside the stand with no tree"
                   f" record ({', '.join(a.label or 'unlabelled' for a in empty[:3])})")
    if poly.area > 0:
        reach = GAP_FT / float(frame.to_ft(1.0))     # site CRS units
        covered = shapely.union_all([p.buffer(reach) for p in points]) if points else None
        bare = poly if covered is None else poly.difference(covered)
        pct = 100.0 * bare.area / poly.area
        if pct >= GAP_PCT:
            out.append(f"{pct:.0f} % of the stand is more than {GAP_FT:.0f} ft from any tallied tree")
    return out


def review_words(visit: Any, gaps: list[str]) -> str:
    """The question asked before marking the tally complete with ``gaps``."""
    stand = visit.current_stand()
    n = visit.model.stand_tally(stand.uuid) if stand is not None else 0
    label = (getattr(stand, "label", "") or "the stand") if stand is not None else "the stand"
    return (f"{plural(n, 'tree')} tallied in {label}, but this looks incomplete:\n- "
            + "\n- ".join(gaps)
            + "\n\nA complete tally makes the woodland class final. Mark it complete anyway?")


__all__ = ["GAP_FT", "GAP_PCT", "review_words", "tally_gaps"]
