"""Loading the raw track: one SELECT into columns, checked vectorised, refusals in the model's words.

The track table holds the receiver's log (288,000 rows for a day at 10 Hz), read into a
:class:`~fieldapp.survey.tracklog.TrackLog` rather than a record per row
(:func:`fieldapp.store.load._read_rows`, which costs seconds for a day's track). The rules are
the same: a row is accepted here only when SQL (storage types, canonical UUID and time text,
a GeoPackageBinary point header) and :func:`fieldapp.survey.tracklog.suspect_rows` (finite
numbers within the model's limits, inside the CRS's area of use) vouch for every field. Every
other row is read again by itself through the per-record path, which accepts it (the same
values) or refuses it with its own message, so a damaged row is named exactly as before.
"""

from __future__ import annotations

import sqlite3

import numpy as np
import shapely

from ..geo import SiteFrame
from ..survey import values as V
from ..survey.errors import InvalidValue
from ..survey.features import Layer
from ..survey.tracklog import FLOAT_COLUMNS, INT_COLUMNS, TIME_COLUMNS, TrackLog, suspect_rows
from . import schema as S
from .errors import RecordProblem

__all__ = ["_read_track"]

# utc_text's form, 2024-05-01T14:03:07.250Z, and the canonical UUID (8-4-4-4-12 lowercase hex):
# any other (still valid) spelling goes row by row. "9" marks a digit, "f" a lowercase hex digit.
_UTC_FORM = "9999-99-99T99:99:99.999Z"
_UUID_FORM = "ffffffff-ffff-ffff-ffff-ffffffffffff"
# GeoPackageBinary header (GeoPackage 1.4 §2.1.3): flags byte 4; little / big endian, no
# envelope (WKB from byte 9) or an XY envelope (from byte 41). Anything else: row by row.
_WKB_START = ("CASE WHEN typeof(geom) = 'blob' AND substr(geom, 1, 3) = X'475000' THEN"
              " CASE hex(substr(geom, 4, 1)) WHEN '00' THEN 9 WHEN '01' THEN 9 WHEN '02' THEN 41"
              " WHEN '03' THEN 41 END END")


def _suspect_sql() -> str:
    """An SQL expression true for a row whose stored types need a closer look."""
    parts = ["typeof(uuid) != 'text'", "typeof(created_by) != 'text'", "typeof(geom) != 'blob'"]
    parts += [f"typeof({n}) NOT IN ('text', 'null')" for n in TIME_COLUMNS]
    parts += [f"typeof({n}) NOT IN ('real', 'integer', 'null')" for n in FLOAT_COLUMNS if n not in "xy"]
    parts += [f"typeof({n}) NOT IN ('integer', 'null')" for n in INT_COLUMNS]
    return " OR ".join(parts)


def _off_form(texts: list, form: str) -> np.ndarray:
    """True where a text is not exactly of ``form`` (see :data:`_UTC_FORM`), vectorised over the
    characters: ``texts`` as a fixed-width unicode array viewed as code points."""
    n, w = len(texts), len(form)
    codes = np.array([t if isinstance(t, str) else "" for t in texts], dtype=f"U{w + 1}")
    codes = codes.view(np.uint32).reshape(n, w + 1)
    bad = codes[:, w] != 0
    for j, ch in enumerate(form):
        c = codes[:, j]
        if ch == "9":
            bad |= (c < 48) | (c > 57)
        elif ch == "f":
            bad |= ~(((c >= 48) & (c <= 57)) | ((c >= 97) & (c <= 102)))
        else:
            bad |= c != ord(ch)
    return bad


def _times(texts: list, suspect: np.ndarray, nullable: bool) -> np.ndarray:
    """ISO 8601 UTC text (canonical where not ``suspect``) → datetime64[ms]; NaT for NULL.
    Marks ``suspect`` the rows not of :data:`_UTC_FORM` (and NULLs where not ``nullable``)."""
    null = np.fromiter((t is None for t in texts), bool, len(texts))
    suspect |= _off_form(texts, _UTC_FORM) & ~(null & nullable)
    out = np.full(len(texts), np.datetime64("NaT", "ms"))
    fine = np.nonzero(~suspect & ~null)[0]
    try:
        out[fine] = np.array([texts[i][:-1] for i in fine], dtype="datetime64[ms]")
    except ValueError:  # a canonical-looking but impossible date (2024-02-30): row by row
        for i in fine:
            try:
                out[i] = np.datetime64(texts[i][:-1], "ms")
            except ValueError:
                suspect[i] = True
    return out


def _floats(values: list) -> tuple[np.ndarray, np.ndarray]:
    null = np.fromiter((v is None for v in values), bool, len(values))
    # a value of the wrong storage type (text in a REAL column) is NaN here: SQL marked its row
    arr = np.fromiter((v if isinstance(v, (int, float)) else np.nan for v in values), float, len(values))
    return arr, null


def _text_suspects(values: list, suspect: np.ndarray) -> None:
    """``created_by``: each distinct value checked once with the model's own text rule."""
    bad = set()
    for v in set(v for v in values if isinstance(v, str)):
        try:
            V.text("created_by", v, allow_empty=False)
        except InvalidValue:
            bad.add(v)
    if bad:
        suspect |= np.fromiter((v in bad for v in values), bool, len(values))


CHUNK_ROWS = 32_768  # rows turned into columns at a time: the Python objects of a day's
                     # track at once would be ~200 MB at the peak


def _columns_of(rows: list, names: list[str], frame: SiteFrame | None):
    """(fids, columns, suspect) of a batch of rows of :func:`_read_track`'s SELECT."""
    raw = dict(zip(["fid", "uuid", "created_utc", "modified_utc", "created_by", "wkb", *names, "suspect"],
                   map(list, zip(*rows))))
    fids = np.array(raw["fid"], dtype=np.int64)
    suspect = np.array(raw["suspect"], dtype=bool)
    geoms = shapely.from_wkb(np.array(raw.pop("wkb"), dtype=object), on_invalid="ignore")
    point = (shapely.get_type_id(geoms) == 0) & ~shapely.is_empty(geoms)
    suspect |= ~point
    cols: dict[str, np.ndarray] = {"uuid": np.array(raw["uuid"], dtype=object),
                                   "created_by": np.array(raw["created_by"], dtype=object)}
    _text_suspects(raw["created_by"], suspect)
    suspect |= _off_form(raw["uuid"], _UUID_FORM)
    for name, nullable in TIME_COLUMNS.items():
        cols[name] = _times(raw[name], suspect, nullable)
    nulls = {}
    cols["x"], cols["y"] = np.full(len(fids), np.nan), np.full(len(fids), np.nan)
    cols["x"][point], cols["y"][point] = shapely.get_x(geoms[point]), shapely.get_y(geoms[point])
    for name in FLOAT_COLUMNS:
        if name not in ("x", "y"):
            cols[name], nulls[name] = _floats(raw[name])
    for name in INT_COLUMNS:
        arr, nulls[name] = _floats(raw[name])
        cols[name] = np.where(nulls[name] | suspect, -1, np.nan_to_num(arr)).astype(np.int16)
        suspect |= ~nulls[name] & ((arr < -1) | (arr > np.iinfo(np.int16).max))
    suspect |= suspect_rows({n: cols[n] for n in (*FLOAT_COLUMNS, *INT_COLUMNS)}, nulls, frame)
    return fids, cols, suspect


def _read_track(conn: sqlite3.Connection, frame: SiteFrame | None, problems: list[RecordProblem],
                read_rows) -> tuple[TrackLog, list[int]]:
    """The track table as a :class:`TrackLog` and its fids; refused rows go to ``problems``.

    ``read_rows(conn, layer, frame, problems, fids)`` is the per-record reader
    (:func:`fieldapp.store.load._read_rows`), used for the rows the vectorised check does not
    vouch for. Inside the caller's snapshot; read :data:`CHUNK_ROWS` rows at a time.
    """
    layer = Layer.TRACK
    names = [c.name for c in S.columns(layer)]
    cur = conn.execute(
        f"SELECT fid, uuid, created_utc, modified_utc, created_by, substr(geom, {_WKB_START}),"
        f" {', '.join(names)}, {_suspect_sql()} FROM {layer.value} ORDER BY fid")
    parts = []
    while rows := cur.fetchmany(CHUNK_ROWS):
        parts.append(_columns_of(rows, names, frame))
        del rows
    if not parts:
        return TrackLog(), []
    fids = np.concatenate([p[0] for p in parts])
    cols = {n: np.concatenate([p[1][n] for p in parts]) for n in parts[0][1]}
    suspect = np.concatenate([p[2] for p in parts])
    del parts
    keep = ~suspect
    if suspect.any():
        again = read_rows(conn, layer, frame, problems, [int(f) for f in fids[suspect]])
        accepted = TrackLog()
        for _, rec in again:
            accepted.append(rec)
        at = {fid: i for i, (fid, _) in enumerate(again)}
        got = accepted.columns()
        for i in np.nonzero(suspect)[0]:
            j = at.get(int(fids[i]))
            if j is not None:
                for name in cols:
                    cols[name][i] = got[name][j]
                keep[i] = True
    return TrackLog({n: a[keep] for n, a in cols.items()}), fids[keep].tolist()
