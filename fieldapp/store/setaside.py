"""Opening a visit whose file holds damaged rows: those rows set aside, the rest opened.

A row the model refuses (:class:`~fieldapp.store.errors.RecordProblem`: a time that is not a
time, a DBH of "abc", a child naming no parent, a uuid used twice ...) is left in the file as it
is and out of the model; so is every child of such a row (the stations of a damaged transect,
the points of a damaged OHWM line, the vertices of a damaged walk), each named with why. Nothing
is written to those rows: a command never reaches them (the model does not hold them), and the
sync's own read (:func:`fieldapp.sync.visitcheck.check_visit`, without setting aside) refuses the
file naming them until they are corrected, so a damaged row never travels to the office.

Used by :func:`fieldapp.store.load._load` when the caller asked for it (the app's open,
:func:`fieldapp.app.visit.open_visit`); reports, exports and the sync still refuse such a file.
A damaged site row is never set aside: without it there is no visit to open.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..survey.features import Feature, Layer
from ..survey.tracklog import TrackLog
from ..survey.validation import PARENTS
from .errors import RecordProblem
from .layerwords import layer_words

__all__ = ["set_aside_rows", "damaged_words"]


def set_aside_rows(problems: list[RecordProblem], rows: Sequence[tuple[Layer, int, Feature]],
                   track: TrackLog, track_fids: Sequence[int]) -> tuple[list[Feature], TrackLog]:
    """(records, track) without the rows ``problems`` names and without the children of those
    rows (each child added to ``problems``, naming its damaged parent). ``rows`` are the
    accepted (layer, fid, record) of :func:`fieldapp.store.load._load`, ``track`` / ``track_fids``
    the accepted track and its fids."""
    bad = {(p.table, p.fid) for p in problems}
    gone: dict[str, dict[str, int]] = {}    # table -> {uuid: fid} of the rows set aside
    for p in problems:
        if p.uuid is not None:
            gone.setdefault(p.table, {}).setdefault(p.uuid, p.fid)
    changed = True
    while changed:      # a child of a child (none today) would be caught on the next pass
        changed = False
        for layer, fid, rec in rows:
            ref = PARENTS.get(layer)
            if ref is None or (layer.value, fid) in bad:
                continue
            parent_uuid = getattr(rec, ref.field)
            parent_fid = gone.get(ref.layer.value, {}).get(parent_uuid)
            if parent_fid is None:
                continue
            uuid = getattr(rec, "uuid", None)
            problems.append(RecordProblem(
                layer.value, fid, uuid, ref.field,
                f"its {ref.layer.value} (fid {parent_fid}) is damaged, so it is set aside with it"))
            bad.add((layer.value, fid))
            if isinstance(uuid, str):
                gone.setdefault(layer.value, {}).setdefault(uuid, fid)
            changed = True
    records = [rec for layer, fid, rec in rows if (layer.value, fid) not in bad]
    keep = np.array([(Layer.TRACK.value, int(f)) not in bad for f in track_fids], dtype=bool)
    if len(keep) and not keep.all():
        track = TrackLog({name: a[keep] for name, a in track.columns().items()})
    return records, track


def damaged_words(problems: Sequence[RecordProblem], limit: int = 5) -> str:
    """The rows set aside in field words, for the window's banner: ``1 damaged row set aside
    (left in the file as it is, not shown; a sync refuses the visit until it is corrected, e.g.
    in QGIS): Photos, row 1, taken_utc: timestamp '999-…' is not a time (…)``; "" for none."""
    if not problems:
        return ""
    n = len(problems)
    rows = "; ".join(f"{layer_words(p.table)}, row {p.fid}, {p.column}: {p.why}"
                     for p in problems[:limit])
    more = f" (and {n - limit} more)" if n > limit else ""
    it = "it is" if n == 1 else "they are"
    return (f"{n} damaged row{'s' if n != 1 else ''} set aside (left in the file as "
            f"{'it is' if n == 1 else 'they are'}, not shown; a sync refuses the visit until "
            f"{it} corrected, e.g. in QGIS): {rows}{more}")
