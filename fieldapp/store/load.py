"""Loading a visit file: every row read into a model record and checked with the model's rules.

Split from :mod:`fieldapp.store.gpkg` (which opens, creates and writes the file) along the
read seam: :func:`_read_rows` turns one table into records, each checked with
:func:`fieldapp.survey.validation.validate` (the x/y pairs of a whole table at once with
:meth:`fieldapp.geo.SiteFrame.outside`); :func:`_load` reads every table in one snapshot and adds
the file-wide checks (:func:`_orphans`: every child's parent row exists; :func:`_duplicates`:
no uuid twice). A bad row becomes a :class:`~fieldapp.store.errors.RecordProblem`; the file is
refused as :class:`~fieldapp.store.errors.InvalidRecords` naming every one.
"""

from __future__ import annotations

import contextlib
import enum
import gc
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import fields
from pathlib import Path

import numpy as np

from ..geo import SiteFrame
from ..survey.errors import InvalidValue
from ..survey.features import FEATURE_CLASSES, Feature, Layer, Site
from ..survey.tracklog import TrackLog
from ..survey.validation import PARENTS, XY_PAIRS, check_point_fields, validate
from . import schema as S
from .errors import DamagedVisitFile, InvalidRecords, RecordProblem
from .setaside import set_aside_rows
from .trackload import _read_track

__all__ = ["_read_layer", "_read_rows", "_load"]


def _column_of(layer: Layer, field: str) -> str:
    """The table column holding a model field (``x``/``y``/``geometry`` live in ``geom``)."""
    if layer in S.GEOMETRY and field in ("x", "y", "geometry"):
        return "geom"
    if field == "crown":
        return S.CROWN_COLUMN
    return field


def _read_layer(conn: sqlite3.Connection, layer: Layer, frame: SiteFrame | None = None,
                problems: list[RecordProblem] | None = None) -> list[Feature]:
    """All rows of ``layer`` as model records in fid order, each checked with the model's rules.

    A row that cannot be read or that :func:`fieldapp.survey.validation.validate` refuses is added to
    ``problems`` (and left out of the result); without a ``problems`` list the first one raises
    :class:`InvalidRecords`.
    """
    return [rec for _, rec in _read_rows(conn, layer, frame, problems)]


def _read_rows(conn: sqlite3.Connection, layer: Layer, frame: SiteFrame | None = None,
               problems: list[RecordProblem] | None = None,
               fids: list[int] | None = None) -> list[tuple[int, Feature]]:
    """As :func:`_read_layer`, as ``(fid, record)`` pairs; only the rows ``fids`` when given."""
    cls = FEATURE_CLASSES[layer]
    # a file of an older schema (read before, or without, its migration) lacks the columns
    # added since: those fields take the model's default (inspect checked the rest are there)
    present = {r[1] for r in conn.execute(f'PRAGMA table_info("{layer.value}")')}
    if not present and layer in S.tables_added_after(0):
        return []       # a file of a schema before this table (inspect checked the version)
    added = S.added_after(0)
    cols = [c for c in S.columns(layer) if c.name in present or (layer, c.name) not in added]
    names = list(S.COMMON) + (["geom"] if layer in S.GEOMETRY else []) + [c.name for c in cols]
    quoted = ", ".join(f'"{n}"' for n in names)
    out: list[tuple[int, Feature]] = []
    own = problems is None
    found: list[RecordProblem] = [] if problems is None else problems     # this call's refusals go here
    model_fields = {f.name for f in fields(cls)}
    where = "" if fids is None else f" WHERE fid IN ({', '.join(str(int(f)) for f in fids)})"
    rows = conn.execute(f'SELECT fid, {quoted} FROM "{layer.value}"{where} ORDER BY fid').fetchall()
    geoms = S.parse_gpkg_blobs([r[5] for r in rows]) if layer in S.GEOMETRY else None
    start = 5 if layer in S.GEOMETRY else 4
    convert = [(c.field, c.name, _converter(c)) for c in cols]
    for k, (fid, *row) in enumerate(rows):
        uuid = row[0] if isinstance(row[0], str) else None
        kw = {"uuid": row[0], "created_by": row[3]}
        refusals: list[tuple[str, str]] = []       # (column, message) of this row's refused values
        for i, name in enumerate(("created_utc", "modified_utc"), start=1):
            try:
                kw[name] = S.parse_utc(row[i])
            except ValueError as exc:
                refusals.append((name, str(exc)))
        if geoms is not None:
            try:
                geom = geoms[k]
                if isinstance(geom, ValueError):
                    raise geom
                kw.update(S.geometry_fields(layer, geom))
            except ValueError as exc:
                refusals.append(("geom", str(exc)))
        for (field, name, conv), v in zip(convert, row[start:], strict=True):
            try:
                kw[field] = conv(v)
            except ValueError as exc:
                refusals.append((name, str(exc)))
        if not refusals:
            try:
                rec = validate(cls(**{k: v for k, v in kw.items() if k in model_fields}), frame,
                               check_points=False)
            except InvalidValue as exc:
                refusals.append((_column_of(layer, exc.name.split(" ")[0].split("/")[0]), str(exc)))
            except (TypeError, ValueError) as exc:  # pragma: no cover - a field the schema lacks
                refusals.append(("?", str(exc)))
            else:
                out.append((fid, rec))
        for column, message in refusals:            # each named by this row's own fid and uuid
            found.append(RecordProblem(layer.value, fid, uuid, column, message))
    if frame is not None and out:
        # the x/y pairs of the whole table in one vectorised check; each refused row then by itself
        bad = np.zeros(len(out), dtype=bool)
        for nx, ny in XY_PAIRS:
            if nx in model_fields:
                xy = np.array([(getattr(r, nx), getattr(r, ny)) if getattr(r, nx) is not None
                               and getattr(r, ny) is not None else (np.nan, np.nan) for _, r in out], float)
                have = ~np.isnan(xy[:, 0])
                if have.any():
                    bad[have] |= frame.outside(xy[have, 0], xy[have, 1])
        refused: set[int] = set()
        for i in np.nonzero(bad)[0].tolist():
            fid, rec = out[i]
            try:
                check_point_fields(rec, frame)
            except InvalidValue as exc:
                refused.add(i)
                column = _column_of(layer, exc.name.split("/")[0])
                found.append(RecordProblem(layer.value, fid, rec.uuid, column, str(exc)))
        out = [pair for i, pair in enumerate(out) if i not in refused]
    if own and found:
        raise InvalidRecords(str(found[0]), found)
    return out


def _converter(col: S.Column) -> Callable[[object], object]:
    """``S.from_sql(col, value)`` as a one-argument function, the common value (a float in a
    REAL column, text in a plain TEXT column, a stored enum value) passed without the general
    dispatch; anything else goes through ``from_sql``, which accepts or refuses it."""
    tp = col.pytype
    if tp is float:
        return lambda v: v if type(v) is float else S.from_sql(col, v)
    if tp is str and col.field not in ("crew", "device_ids", "water_features"):
        return lambda v: v if type(v) is str else S.from_sql(col, v)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        members = {m.value: m for m in tp}
        return lambda v: members.get(v) or S.from_sql(col, v) if type(v) in (str, int) else S.from_sql(col, v)
    return lambda v: S.from_sql(col, v)


def _orphans(conn: sqlite3.Connection, problems: list[RecordProblem]) -> None:
    """Children (stations, OHWM points, walk vertices) whose parent uuid names no parent row.

    One indexed anti-join per child table (the parent's ``uuid`` is UNIQUE, so indexed). A
    child whose reference is NULL or not a UUID was already refused by the model's rules and is
    not named twice. Inside :func:`_load`'s snapshot.
    """
    named = {(p.table, p.fid) for p in problems}
    for child, (pf, parent) in PARENTS.items():
        rows = conn.execute(
            f'SELECT c.fid, c.uuid, c."{pf}" FROM "{child.value}" AS c WHERE NOT EXISTS '
            f'(SELECT 1 FROM "{parent.value}" AS p WHERE p.uuid = c."{pf}") ORDER BY c.fid'
        )
        for fid, uuid, ref in rows:
            if (child.value, fid) in named:
                continue
            problems.append(RecordProblem(
                child.value, fid, uuid if isinstance(uuid, str) else None, pf,
                f"refers to {parent.value} {S._short(ref)}, which is not in the file "
                f"(a {child.value} belongs to an existing {parent.value})"))


def _duplicates(rows: list[tuple[Layer, int, str]], problems: list[RecordProblem]) -> None:
    """Every uuid once in the whole file: a row whose uuid an earlier row (any table) has.

    Each table's ``uuid`` is UNIQUE in SQL; this also catches one uuid in two tables (a
    hand-made or merged file), which the model would hold as two records but a sync, an
    export or a reference by uuid could confuse. One set over the accepted rows (about
    10 ms per 100,000 rows), so it is done on every load.
    """
    seen: dict[str, tuple[str, int]] = {}
    for layer, fid, uuid in rows:
        first = seen.setdefault(uuid, (layer.value, fid))
        if first != (layer.value, fid):
            problems.append(RecordProblem(layer.value, fid, uuid, "uuid",
                                          f"the same uuid as {first[0]} row fid {first[1]}"))


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Python's cyclic garbage collector held off while a file's rows become objects: a day's
    track is millions of new tuples, none in a cycle, and each collection the allocations
    trigger walks all of them (a third of the load time). Turned back on, as it was, after."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _load(conn: sqlite3.Connection, path: Path,
          set_aside: list[RecordProblem] | None = None) -> tuple[Site, list[Feature], TrackLog]:
    """(site, records, track) read in one snapshot and checked row by row; raises InvalidRecords.

    With a ``set_aside`` list, damaged rows (and their children) are left out instead and their
    problems added to it (:mod:`fieldapp.store.setaside`); a damaged site row still raises.

    ``track`` is the raw track as columns (:func:`fieldapp.store.trackload._read_track`, the
    same rules checked vectorised), not among ``records``. Beyond each row's own rules: every
    child's parent row exists (:func:`_orphans`) and no uuid is used twice in the file
    (:func:`_duplicates`).
    """
    problems: list[RecordProblem] = []
    conn.execute("BEGIN")
    try:
        with _gc_paused():
            site_rows = _read_rows(conn, Layer.SITE, None, problems)
            sites = [rec for _, rec in site_rows if isinstance(rec, Site)]     # (every one is)
            if not problems and len(sites) != 1:
                raise DamagedVisitFile(f"{path} has {len(sites)} site rows, expected 1")
            frame = None
            if sites and sites[0].crs:
                frame = SiteFrame(sites[0].crs)  # validate() already accepted it
            rows = [(layer, fid, rec) for layer in Layer if layer not in (Layer.SITE, Layer.TRACK)
                    for fid, rec in _read_rows(conn, layer, frame, problems)]
            track, track_fids = _read_track(conn, frame, problems, _read_rows)
            _orphans(conn, problems)
            others = ([(Layer.SITE, fid, rec.uuid) for fid, rec in site_rows]
                      + [(layer, fid, rec.uuid) for layer, fid, rec in rows])
            track_uuids = track.columns()["uuid"]
            distinct = set(track_uuids.tolist())
            if len(distinct) == len(track_uuids) and distinct.isdisjoint(u for _, _, u in others):
                _duplicates(others, problems)      # the track's uuids clash with nothing: not listed
            else:
                track_rows = zip([Layer.TRACK] * len(track), track_fids, track_uuids, strict=True)
                _duplicates(others + list(track_rows), problems)
            records = [rec for _, _, rec in rows]
    finally:
        conn.execute("COMMIT")
    if problems and set_aside is not None and not any(p.table == Layer.SITE.value for p in problems):
        records, track = set_aside_rows(problems, rows, track, track_fids)
        set_aside.extend(problems)
        problems = []
    if problems:
        shown = "; ".join(str(p) for p in problems[:10])
        more = f" (and {len(problems) - 10} more)" if len(problems) > 10 else ""
        raise InvalidRecords(
            f"{path} holds {len(problems)} row(s) this version refuses, so it was not opened and "
            f"nothing in it was changed; correct them (e.g. in QGIS) and open it again: {shown}{more}",
            problems,
        )
    return sites[0], records, track
