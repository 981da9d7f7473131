"""Loading the raw track: a few strings and one SELECT into columns, checked vectorised.

The track table holds the receiver's log (288,000 rows for a day at 10 Hz), read into a
:class:`~fieldapp.survey.tracklog.TrackLog` rather than a record per row
(:func:`fieldapp.store.load._read_rows`, which costs seconds for a day's track). What costs
time is each value crossing from SQLite into a Python object, not SQLite reading the rows, so
the text columns (uuid, the three times), the whole numbers and the points come from one
aggregate over the table (:data:`_AGGREGATE`: each column one string or blob, with its storage
types), checked and converted by numpy byte by byte; only the REAL columns come row by row (no
exact text form of a REAL in SQLite). The rules are those of the per-record path: a row is
accepted here only when its storage types, the canonical UUID and time text, a GeoPackageBinary
point header and :func:`fieldapp.survey.tracklog.suspect_rows` (finite numbers within the
model's limits, inside the CRS's area of use) vouch for every field. A column the aggregate
cannot read so (a value of another type or width, several creators, a point with an envelope)
is read by value as before; every row not vouched for is read again by itself through the
per-record path, which accepts it (the same values) or refuses it with its own message, so a
damaged row is named exactly as before.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

import numpy as np
import shapely

from ..geo import SiteFrame
from ..survey import values as V
from ..survey.errors import InvalidValue
from ..survey.features import Feature, Layer, TrackPoint
from ..survey.tracklog import FLOAT_COLUMNS, INT_COLUMNS, TIME_COLUMNS, TrackLog, suspect_rows
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
_NUMBER_TYPES: frozenset[type] = frozenset({float, int, type(None)})
_INT_TYPES: frozenset[type] = frozenset({int, type(None)})
_TIME_TYPES: frozenset[type] = frozenset({str, type(None)})

#: a column's values as SQLite gives them: any storage type (NULL, int, float, text, blob), which
#: the checks here look at one by one
SqlValues: TypeAlias = Sequence[Any]
#: per column, the aggregate's (joined text or blob, non-NULL count, every value of its type)
#: (``created_by``: its count, min and max); SQLite values
Aggregate: TypeAlias = dict[str, tuple[Any, ...]]


def _off_type(values: SqlValues, allowed: frozenset[type]) -> np.ndarray | None:
    """Rows whose value's type is not in ``allowed``; None when there is none (the usual case,
    found with one C-level pass over the types)."""
    if set(map(type, values)) <= allowed:
        return None
    return np.fromiter((type(v) not in allowed for v in values), bool, len(values))


def _wkb_of(blobs: SqlValues, suspect: np.ndarray) -> np.ndarray:
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
    return np.array([b[k:] if k >= 0 else None for b, k in zip(blobs, at.tolist(), strict=True)], dtype=object)


def _off_form(texts: SqlValues, form: str, codes: np.ndarray | None = None) -> np.ndarray:
    """True where a text is not exactly of ``form`` (see :data:`_UTC_FORM`), vectorised over the
    characters: ``texts`` as a fixed-width unicode array viewed as code points (``codes``, that
    view, when the caller has made it with :func:`_code_points`)."""
    w = len(form)
    if codes is None:
        codes = _code_points(texts, w + 1)
    bad: np.ndarray = codes[:, w] != 0
    # numpy's fixed-width text drops trailing NUL characters: "...Z\0" is not of the form
    bad |= np.fromiter((type(t) is str and len(t) != w for t in texts), bool, len(texts))
    for j, ch in enumerate(form):
        c = codes[:, j]
        if ch == "9":
            bad |= (c < 48) | (c > 57)
        elif ch == "f":
            bad |= ~(((c >= 48) & (c <= 57)) | ((c >= 97) & (c <= 102)))
        else:
            bad |= c != ord(ch)
    return bad


def _code_points(texts: SqlValues, width: int) -> np.ndarray:
    """``texts`` as an (n, width) array of code points, each cut or padded with 0 to ``width``;
    None and non-text become their str() here ("None", "5"), which is never of a form."""
    return np.array(texts, dtype=f"U{width}").view(np.uint32).reshape(len(texts), width)


def _times(texts: SqlValues, suspect: np.ndarray, nullable: bool) -> np.ndarray:
    """ISO 8601 UTC text (canonical where not ``suspect``) → datetime64[ms]; NaT for NULL.
    Marks ``suspect`` the rows not of :data:`_UTC_FORM` (and NULLs where not ``nullable``).
    The text is parsed by numpy from a fixed-width array, its ``Z`` cut off."""
    null = np.equal(np.array(texts, dtype=object), None)  # type: ignore[call-overload]  # == None per element: numpy's stubs take no None
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
        for i in np.nonzero(fine)[0].tolist():
            try:
                out[i] = np.datetime64(texts[i][:-1], "ms")
            except ValueError:
                suspect[i] = True
    return out


def _floats(values: SqlValues, suspect: np.ndarray,
            allowed: frozenset[type] = _NUMBER_TYPES) -> tuple[np.ndarray, np.ndarray]:
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


def _text_suspects(values: SqlValues, suspect: np.ndarray) -> None:
    """``created_by``: each distinct value checked once with the model's own text rule."""
    bad = set()
    for v in set(v for v in values if isinstance(v, str)):
        try:
            V.text("created_by", v, allow_empty=False)
        except InvalidValue:
            bad.add(v)
    if bad:
        suspect |= np.fromiter((v in bad for v in values), bool, len(values))


CHUNK_ROWS = 32_768  # rows of the number columns turned into arrays at a time: the Python
                     # objects of a day's track at once would be ~100 MB at the peak

#: the REAL columns, read with one SELECT (each value crosses into Python: SQLite has no exact
#: text form of a REAL); the INTEGER ones come as text from the aggregate
NUMBER_COLUMNS = [n for n in FLOAT_COLUMNS if n not in ("x", "y")]
_TEXTS = {"uuid": (len(_UUID_FORM), False), **{n: (len(_UTC_FORM), nullable)
                                               for n, nullable in TIME_COLUMNS.items()}}
_POINT_BYTES = 29   # GeoPackageBinary header of 8 bytes (no envelope) + WKB 2D point of 21

# One aggregate over the table, in its rowid order (a scan of the table itself, NOT INDEXED: no
# index chosen for the order; group_concat(fid) shows the order and is checked): each text
# column as one string, its values joined by "," (a NULL is left out: counted by count() where
# the model allows one; elsewhere it makes the string one value short, so read by value),
# the points as one blob. SQLite orders NULL < numbers < text < blob: a column's max below x''
# holds no blob (a number is never as wide as the text forms); a min from x'' on, only blobs; an
# INTEGER column's max below '' holds only numbers (a REAL there is refused by the int parse).
# The max length of the points with their total (checked by the reader) makes every one 29.
_AGGREGATE = ("SELECT count(*), group_concat(fid)"
              + "".join(f", group_concat({n}, ','), count({n if nullable else '*'}), max(+{n}) < x''"
                        for n, (_, nullable) in _TEXTS.items())
              + "".join(f", group_concat({n}, ','), count({n}), max(+{n}) < ''" for n in INT_COLUMNS)
              + ", count(created_by), min(created_by), max(created_by)"
              + f", count(geom), min(+geom) >= x'' AND max(length(geom)) = {_POINT_BYTES}"
              + ", CAST(group_concat(geom, '') AS BLOB) FROM {source}")
# The same in fewer aggregate steps a row (each one costs about as much as a value fetched):
# every storage-type check of every column in one min() of their AND (a NULL makes a term NULL,
# left out by min(): a NULL where the model allows none is caught by the counts instead); only
# when that is not 1 does the aggregate above say which column is off.
_CHECKS = " AND ".join([f"+{n} < x''" for n in _TEXTS]
                       + [f"+{n} < ''" for n in (*INT_COLUMNS, *NUMBER_COLUMNS)]
                       + ["created_by IS NOT NULL", "geom IS NOT NULL", "+geom >= x''",
                          f"length(geom) = {_POINT_BYTES}"])
_QUICK = ("SELECT count(*), group_concat(fid)"
          + "".join(f", group_concat({n}, ',')" + (f", count({n})" if nullable else "")
                    for n, (_, nullable) in _TEXTS.items())
          + "".join(f", group_concat({n}, ','), count({n})" for n in INT_COLUMNS)
          + f", min(created_by), max(created_by), CAST(group_concat(geom, '') AS BLOB), min({_CHECKS})"
          + " FROM {source}")
_SOURCE = "track_point NOT INDEXED"
_ORDERED = "(SELECT * FROM track_point ORDER BY fid)"   # if the scan was not in fid order


def _form_lut(form: str) -> tuple[np.ndarray, np.ndarray]:
    """(lut, pattern) for :func:`_off_bytes`: ``lut`` maps each byte a "9" (or "f") position
    allows to that letter and every other byte to itself; ``pattern`` is ``form`` as bytes."""
    lut = np.arange(256, dtype=np.uint8)
    kinds = "0123456789abcdef" if "f" in form else "0123456789"
    lut[np.frombuffer(kinds.encode(), np.uint8)] = ord("f" if "f" in form else "9")
    assert not ("f" in form and "9" in form), form     # one kind of wildcard a form
    return lut, np.frombuffer(form.encode(), np.uint8)


_FORM_LUTS = {form: _form_lut(form) for form in (_UTC_FORM, _UUID_FORM)}


def _off_bytes(codes: np.ndarray, form: str) -> np.ndarray:
    """True where a row of ASCII bytes (n, len(form)) is not exactly of ``form`` (see
    :data:`_UTC_FORM`): each byte mapped to its kind, each row compared with the form.

    First, for the whole array at once: the bytes at the form's fixed positions are its own,
    and with the wildcard bytes deleted (``bytes.translate``) what is left is just those, row
    after row; then no row is off (the usual case), without a table look-up per byte."""
    lut, pattern = _FORM_LUTS[form]
    fixed = np.nonzero((pattern != ord("9")) & (pattern != ord("f")))[0]
    wild = "0123456789abcdef" if "f" in form else "0123456789"
    if (codes[:, fixed] == pattern[fixed]).all() \
            and codes.tobytes().translate(None, wild.encode()) == pattern[fixed].tobytes() * len(codes):
        return np.zeros(len(codes), dtype=bool)
    off: np.ndarray = (np.take(lut, codes) != pattern).any(axis=1)
    return off


def _joined(text: str | None, count: int, width: int) -> np.ndarray | None:
    """The ``count`` values of a ``group_concat(column, ',')`` as an (count, width) array of ASCII
    bytes (a non-ASCII character is a "?", never of a form); None unless every value is exactly
    ``width`` characters without a comma (then the commas are exactly at every width + 1)."""
    if count == 0:
        return np.zeros((0, width), dtype=np.uint8)
    if text is None or len(text) != count * (width + 1) - 1 or text.count(",") != count - 1:
        return None
    codes = np.frombuffer(text.encode("ascii", "replace") + b",", dtype=np.uint8).reshape(count, width + 1)
    if (codes[:, width] != ord(",")).any():
        return None
    return codes[:, :width]


def _utc_of(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows of :data:`_UTC_FORM` bytes → (datetime64[ms], off): off where a row is not of the
    form or not a real time (year 0, 30 February, hour 24: what ``datetime.fromisoformat``
    refuses; numpy's ISO parser refuses the same, but for year 0)."""
    off = _off_bytes(codes, _UTC_FORM) | (codes[:, :4] == ord("0")).all(axis=1)
    out = np.full(len(codes), np.datetime64("NaT", "ms"))
    text = np.ascontiguousarray(codes[~off, :-1] if off.any() else codes[:, :-1])
    text = text.view(f"S{codes.shape[1] - 1}").ravel()
    try:   # the text up to the Z: 2024-05-01T14:03:07.250
        out[~off] = text.astype("datetime64[ms]")
    except ValueError:  # a canonical-looking but impossible date (2024-02-30): row by row
        for i, t in zip(np.nonzero(~off)[0], text.tolist(), strict=True):
            try:
                out[i] = np.datetime64(t.decode(), "ms")
            except ValueError:
                off[i] = True
    return out, off


def _points_of(blob: bytes, n: int, suspect: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """x, y of ``n`` GeoPackageBinary points of :data:`_POINT_BYTES` each, back to back.

    Only the one form the app writes is taken here: header "GP", version 0, flags 0 or 1 (no
    envelope, not empty), then WKB byte order 1 (little endian) and type 1 (2D Point), checked
    byte for byte. Such a point's x and y are the little-endian doubles at bytes 13 and 21 of
    its 29 (OGC WKB: byte order, uint32 type, then the coordinates), read straight from the
    blob as one strided view: no Python object a row (shapely's parse of 288,000 slices cost
    0.1-0.15 s of a day's open). An empty point (NaN, NaN) is NaN here as through shapely, and
    refused by :func:`suspect_rows`. Every other row is marked ``suspect`` (NaN here) and read
    on the per-record path.
    """
    rows = np.frombuffer(blob, dtype=np.uint8).reshape(n, _POINT_BYTES)
    head = np.array([71, 80, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0], dtype=np.uint8)
    mask = np.array([255, 255, 255, 254, 0, 0, 0, 0, 255, 255, 255, 255, 255], dtype=np.uint8)
    bad = ((rows[:, :13] & mask) != (head & mask)).any(axis=1)
    xy = np.ndarray((n, 2), dtype="<f8", buffer=blob, offset=13, strides=(_POINT_BYTES, 8))
    x, y = xy[:, 0].astype(np.float64), xy[:, 1].astype(np.float64)     # copies, native order
    x[bad] = y[bad] = np.nan
    suspect |= bad
    return x, y


def _present(conn: sqlite3.Connection, name: str, fids: np.ndarray, count: int) -> np.ndarray | None:
    """Where ``name`` is not NULL (the rows group_concat did not leave out), or None when that
    does not make ``count`` rows."""
    if count == len(fids):
        return np.ones(len(fids), dtype=bool)
    null_fids = [f for f, in conn.execute(f"SELECT fid FROM track_point WHERE {name} IS NULL")]
    have = ~np.isin(fids, np.array(null_fids, dtype=np.int64))
    return have if have.sum() == count else None


def _read_int_column(conn: sqlite3.Connection, name: str, fids: np.ndarray, suspect: np.ndarray, agg: Aggregate,
                     nulls: dict[str, np.ndarray]) -> np.ndarray:
    """An INTEGER column as int16 (-1 for NULL) from the aggregate's text, or, where a value is
    not a whole number there, from its own SELECT value by value; ``suspect`` marked for a value
    of another storage type or beyond int16 (the model's limits: :func:`suspect_rows`)."""
    text, count, numbers = agg[name]
    n = len(fids)
    have, arr = None, None
    if numbers or count == 0:
        have = _present(conn, name, fids, count)
    if have is not None:
        try:
            got = np.fromstring(text, dtype=np.int64, sep=",") if count else np.zeros(0, np.int64)
        except ValueError:      # a REAL (4.5) or a number beyond int64 somewhere
            got = None
        if got is not None and len(got) == count:
            arr = np.full(n, -1, dtype=np.int64)
            arr[have] = got
            nulls[name] = ~have
    if arr is None:
        values = [v for v, in conn.execute(f"SELECT {name} FROM track_point ORDER BY fid")]
        floats, nulls[name] = _floats(values, suspect, _INT_TYPES)
        arr = np.where(nulls[name], -1, np.nan_to_num(floats))
    suspect |= ~nulls[name] & ((arr < -1) | (arr > np.iinfo(np.int16).max))
    return np.where(nulls[name] | suspect, -1, arr).astype(np.int16)


def _read_text_column(conn: sqlite3.Connection, name: str, fids: np.ndarray, suspect: np.ndarray,
                      agg: Aggregate) -> np.ndarray:
    """A text column (``uuid`` or a time) from the aggregate, or, where the aggregate's string is
    not of fixed-width values of the right type, from its own SELECT checked value by value."""
    width, nullable = _TEXTS[name]
    text, count, typed = agg[name]
    codes = _joined(text, count, width) if typed or count == 0 else None
    n = len(fids)
    have = _present(conn, name, fids, count) if codes is not None else None
    if have is None or codes is None:     # a value of another type or width somewhere: this column by value
        values = [v for v, in conn.execute(f"SELECT {name} FROM track_point ORDER BY fid")]
        if name == "uuid":
            off = _off_type(values, frozenset({str}))
            if off is not None:
                suspect |= off
            suspect |= _off_form(values, _UUID_FORM)
            return np.array(values, dtype=object)
        return _times(values, suspect, nullable)
    if name == "uuid":
        suspect |= _off_bytes(codes, _UUID_FORM)
        return np.array(text.split(","), dtype=object)
    out = np.full(n, np.datetime64("NaT", "ms"))
    out[have], off = _utc_of(codes)
    suspect[have] |= off
    if not nullable:
        suspect |= ~have
    return out


def _read_floats(conn: sqlite3.Connection, suspect: np.ndarray, cols: dict[str, np.ndarray],
                 nulls: dict[str, np.ndarray], numbers: bool) -> None:
    """The REAL columns of :data:`NUMBER_COLUMNS` into ``cols`` (NaN for NULL), ``suspect``
    marked for a value of another storage type; :data:`CHUNK_ROWS` rows at a time. With
    ``numbers`` (the aggregate found only numbers and NULLs there) each batch is one array."""
    n = len(suspect)
    for name in NUMBER_COLUMNS:
        cols[name], nulls[name] = np.empty(n), np.zeros(n, dtype=bool)
    cur = conn.execute(f"SELECT {', '.join(NUMBER_COLUMNS)} FROM track_point ORDER BY fid")
    at = 0
    while rows := cur.fetchmany(CHUNK_ROWS):
        k = slice(at, at + len(rows))
        if numbers:
            block = np.array(rows, dtype=float).reshape(len(rows), len(NUMBER_COLUMNS))
            for j, name in enumerate(NUMBER_COLUMNS):
                cols[name][k] = block[:, j]
                nulls[name][k] = np.isnan(block[:, j])
            at += len(rows)
            continue
        for name, values in zip(NUMBER_COLUMNS, zip(*rows, strict=True), strict=True):
            sus = suspect[k]
            cols[name][k], nulls[name][k] = _floats(values, sus)
            suspect[k] = sus
        at += len(rows)
        del rows
    if at != n:     # pragma: no cover - one snapshot: the two statements see the same rows
        raise RuntimeError(f"track_point read {at} rows of numbers for {n} rows")


def _aggregate(conn: sqlite3.Connection) -> tuple[np.ndarray, Aggregate, bool]:
    """(fids, per column (joined text, non-NULL count, every value of its type), whether the REAL
    columns hold numbers (or NULL) only) of
    :data:`_QUICK` (or, when a column is off, :data:`_AGGREGATE`), in fid order (the table
    scan's order, checked; else the sorted rows)."""
    for source in (_SOURCE, _ORDERED):
        row = conn.execute(_QUICK.format(source=source)).fetchone()
        n, fid_text = row[0], row[1]
        fids = (np.fromstring(fid_text, dtype=np.int64, sep=",") if n
                else np.zeros(0, dtype=np.int64))
        if len(fids) == n and (np.diff(fids) > 0).all():
            break
    else:       # pragma: no cover - group_concat out of the rows' order even when sorted
        raise RuntimeError("track_point could not be read in fid order")
    agg: Aggregate = {}
    if row[-1] == 1:        # every column of its storage type: the quick aggregate's strings
        i = 2
        for name, (_, nullable) in _TEXTS.items():
            agg[name] = (row[i], row[i + 1], True) if nullable else (row[i], n, True)
            i += 2 if nullable else 1
        for name in INT_COLUMNS:
            agg[name] = row[i], row[i + 1], True
            i += 2
        agg["created_by"] = n, row[i], row[i + 1]
        geom = n, True, row[i + 2]
        numbers = True       # the REAL columns hold numbers (or NULL) only
    else:
        row = conn.execute(_AGGREGATE.format(source=source)).fetchone()
        i = 2
        for name in (*_TEXTS, *INT_COLUMNS):
            agg[name] = row[i], row[i + 1], bool(row[i + 2])
            i += 3
        agg["created_by"] = tuple(row[i:i + 3])
        geom = row[i + 3], bool(row[i + 4]), row[i + 5]
        numbers = False
    # group_concat passes a blob's bytes through as text only in a UTF-8 file (as GeoPackage
    # files are); in a UTF-16 one they would be re-encoded: the points are then read by value
    utf8 = conn.execute("PRAGMA encoding").fetchone()[0] == "UTF-8"
    agg["geom"] = geom[0], geom[1] and utf8, geom[2]
    return fids, agg, numbers


def _read_creators(conn: sqlite3.Connection, suspect: np.ndarray, agg: Aggregate) -> np.ndarray:
    """``created_by``: one text value for the whole track (the usual case) checked once with
    the model's own text rule; else the column by value, each distinct value checked once."""
    n = len(suspect)
    count, low, high = agg["created_by"]
    if count == n and isinstance(low, str) and low == high:    # min = max: every row is it
        if not _creator_ok(low):
            suspect[:] = True
        return np.full(n, low, dtype=object)
    values = [v for v, in conn.execute("SELECT created_by FROM track_point ORDER BY fid")]
    off = _off_type(values, frozenset({str}))
    if off is not None:
        suspect |= off
    _text_suspects(values, suspect)
    return np.array(values, dtype=object)


def _creator_ok(value: str) -> bool:
    try:
        V.text("created_by", value, allow_empty=False)
    except InvalidValue:
        return False
    return True


def _read_geoms(conn: sqlite3.Connection, suspect: np.ndarray, agg: Aggregate) -> tuple[np.ndarray, np.ndarray]:
    """x, y of every row from the aggregate's blob of points (:func:`_points_of`); where a geom
    is not such a blob (another type, size or NULL), the column by value through shapely."""
    n = len(suspect)
    count, fixed, blob = agg["geom"]
    if n and count == n and fixed and blob is not None and len(blob) == n * _POINT_BYTES:
        return _points_of(blob, n, suspect)
    blobs = [b for b, in conn.execute("SELECT geom FROM track_point ORDER BY fid")]
    geoms = shapely.from_wkb(_wkb_of(blobs, suspect), on_invalid="ignore")
    point = (shapely.get_type_id(geoms) == 0) & ~shapely.is_empty(geoms)
    suspect |= ~point
    x, y = np.full(n, np.nan), np.full(n, np.nan)
    x[point], y[point] = shapely.get_x(geoms[point]), shapely.get_y(geoms[point])
    return x, y


def _read_track(conn: sqlite3.Connection, frame: SiteFrame | None, problems: list[RecordProblem],
                read_rows: Callable[..., list[tuple[int, Feature]]]) -> tuple[TrackLog, list[int]]:
    """The track table as a :class:`TrackLog` and its fids; refused rows go to ``problems``.

    ``read_rows(conn, layer, frame, problems, fids)`` is the per-record reader
    (:func:`fieldapp.store.load._read_rows`), used for the rows the vectorised check does not
    vouch for. Inside the caller's snapshot. The text columns and the points come from one
    aggregate (:data:`_AGGREGATE`: a few strings instead of a Python value per field), the
    REAL columns from one SELECT (:func:`_read_floats`).
    """
    layer = Layer.TRACK
    fids, agg, numbers = _aggregate(conn)
    n = len(fids)
    if n == 0:
        return TrackLog(), []
    suspect = np.zeros(n, dtype=bool)
    cols: dict[str, np.ndarray] = {name: _read_text_column(conn, name, fids, suspect, agg)
                                   for name in _TEXTS}
    cols["created_by"] = _read_creators(conn, suspect, agg)
    cols["x"], cols["y"] = _read_geoms(conn, suspect, agg)
    nulls: dict[str, np.ndarray] = {}
    for name in INT_COLUMNS:
        cols[name] = _read_int_column(conn, name, fids, suspect, agg, nulls)
    del agg
    _read_floats(conn, suspect, cols, nulls, numbers)
    suspect |= suspect_rows({c: cols[c] for c in (*FLOAT_COLUMNS, *INT_COLUMNS)}, nulls, frame)
    keep = ~suspect
    if suspect.any():
        again = read_rows(conn, layer, frame, problems, [int(f) for f in fids[suspect]])
        accepted = TrackLog()
        for _, rec in again:
            assert isinstance(rec, TrackPoint)     # read_rows of the track makes TrackPoints
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
