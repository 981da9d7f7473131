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
# GeoPackageBinary header (GeoPackage 1.4 §2.1.3): magic "GP", version 0, flags byte 4; little
# / big endian with no envelope (WKB from byte 8) or an XY envelope (from byte 40). Anything
# else goes row by row.
_WKB_AT = {0: 8, 1: 8, 2: 40, 3: 40}
#: the storage types each column may hold on the fast path (other types: row by row)
_NUMBER_TYPES = frozenset({float, int, type(None)})
_INT_TYPES = frozenset({int, type(None)})
_TIME_TYPES = frozenset({str, type(None)})


def _off_type(values, allowed: frozenset) -> np.ndarray | None:
    """Rows whose value's type is not in ``allowed``; None when there is none (the usual case,
    found with one C-level pass over the types)."""
    if set(map(type, values)) <= allowed:
        return None
    return np.fromiter((type(v) not in allowed for v in values), bool, len(values))


def _wkb_of(blobs, suspect: np.ndarray) -> np.ndarray:
    """The WKB part of each GeoPackageBinary point (an object array, None where the header is
    not one of :data:`_WKB_AT`'s, those rows marked ``suspect``)."""
    n = len(blobs)
    if _off_type(blobs, frozenset({bytes})) is None and min(map(len, blobs)) >= 8:
        heads = np.frombuffer(b"".join([b[:4] for b in blobs]), dtype=np.uint8).reshape(n, 4)
        at = np.select([heads[:, 3] <= 1, heads[:, 3] <= 3], [8, 40], -1)
        at[(heads[:, 0] != 71) | (heads[:, 1] != 80) | (heads[:, 2] != 0)] = -1
        if (at == 8).all():
            return np.array([b[8:] for b in blobs], dtype=object)
    else:
        at = np.array([_WKB_AT.get(b[3], -1) if type(b) is bytes and len(b) >= 8 and b[:3] == b"GP\0"
                       else -1 for b in blobs])
    suspect |= at < 0
    return np.array([b[k:] if k >= 0 else None for b, k in zip(blobs, at.tolist())], dtype=object)


def _off_form(texts: list, form: str, codes: np.ndarray | None = None) -> np.ndarray:
    """True where a text is not exactly of ``form`` (see :data:`_UTC_FORM`), vectorised over the
    characters: ``texts`` as a fixed-width unicode array viewed as code points (``codes``, that
    view, when the caller has made it with :func:`_code_points`)."""
    w = len(form)
    if codes is None:
        codes = _code_points(texts, w + 1)
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


def _code_points(texts, width: int) -> np.ndarray:
    """``texts`` as an (n, width) array of code points, each cut or padded with 0 to ``width``;
    None and non-text become their str() here ("None", "5"), which is never of a form."""
    return np.array(texts, dtype=f"U{width}").view(np.uint32).reshape(len(texts), width)


def _times(texts, suspect: np.ndarray, nullable: bool) -> np.ndarray:
    """ISO 8601 UTC text (canonical where not ``suspect``) → datetime64[ms]; NaT for NULL.
    Marks ``suspect`` the rows not of :data:`_UTC_FORM` (and NULLs where not ``nullable``).
    The text is parsed by numpy from a fixed-width array, its ``Z`` cut off."""
    null = np.equal(np.array(texts, dtype=object), None)
    w = len(_UTC_FORM) - 1
    codes = _code_points(texts, w + 2)
    suspect |= _off_form(texts, _UTC_FORM, codes) & ~(null & nullable)
    off = _off_type(texts, _TIME_TYPES)
    if off is not None:
        suspect |= off
    out = np.full(len(texts), np.datetime64("NaT", "ms"))
    fine = ~suspect & ~null
    if not fine.any():
        return out
    try:   # the code points up to the Z, read back as text: 2024-05-01T14:03:07.250
        out[fine] = np.ascontiguousarray(codes[fine, :w]).view(f"U{w}").ravel().astype("datetime64[ms]")
    except ValueError:  # a canonical-looking but impossible date (2024-02-30): row by row
        for i in np.nonzero(fine)[0]:
            try:
                out[i] = np.datetime64(texts[i][:-1], "ms")
            except ValueError:
                suspect[i] = True
    return out


def _floats(values, suspect: np.ndarray, allowed: frozenset = _NUMBER_TYPES) -> tuple[np.ndarray, np.ndarray]:
    """A REAL (or, with ``allowed`` :data:`_INT_TYPES`, INTEGER) column as floats (NaN for NULL)
    and where it is NULL; a value of another storage type (text in a REAL column, a real in an
    INTEGER one) is NaN here and its row marked ``suspect``."""
    off = _off_type(values, allowed)
    if off is None:
        arr = np.array(values, dtype=float)
        return arr, np.isnan(arr)
    suspect |= off
    null = np.fromiter((v is None for v in values), bool, len(values))
    arr = np.fromiter((v if type(v) in allowed and v is not None else np.nan for v in values), float, len(values))
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
    raw = dict(zip(["fid", "uuid", "created_utc", "modified_utc", "created_by", "geom", *names],
                   zip(*rows)))
    fids = np.array(raw["fid"], dtype=np.int64)
    suspect = np.zeros(len(fids), dtype=bool)
    for name in ("uuid", "created_by"):
        off = _off_type(raw[name], frozenset({str}))
        if off is not None:
            suspect |= off
    geoms = shapely.from_wkb(_wkb_of(raw.pop("geom"), suspect), on_invalid="ignore")
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
            cols[name], nulls[name] = _floats(raw[name], suspect)
    for name in INT_COLUMNS:
        arr, nulls[name] = _floats(raw[name], suspect, _INT_TYPES)
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
        f"SELECT fid, uuid, created_utc, modified_utc, created_by, geom, {', '.join(names)}"
        f" FROM {layer.value} ORDER BY fid")
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
