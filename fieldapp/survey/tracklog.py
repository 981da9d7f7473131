"""The raw GNSS track held as columns: the receiver's log, not records the user edits.

A day at 10 Hz is 288,000 fixes. Held as one :class:`~fieldapp.survey.features.TrackPoint`
object each, they cost seconds to build on every open, report and export and ~100 MB of
memory; held as numpy columns (:class:`TrackLog`) they load with one SELECT, are checked
vectorised (:func:`suspect_rows`) and are appended one by one in amortised constant time, so
recording one more fix costs the same at the first fix and the 288,000th.

Columns (each ``len(log)`` long, in the order the fixes were recorded; ``log.columns()``):

==================  ==============  ===================================================
column              dtype           meaning (None in the record is)
==================  ==============  ===================================================
``uuid``            object (str)    the record's id
``created_utc``     datetime64[ms]  when it was recorded (UTC)
``modified_utc``    datetime64[ms]
``created_by``      object (str)    who recorded it
``t_utc``           datetime64[ms]  the fix's time (NMEA RMC/ZDA/GGA time; NaT)
``x``, ``y``        float64         site CRS position
``lon_deg``,        float64         WGS 84 degrees
``lat_deg``
``alt_hae_m``       float64         height above the ellipsoid, m (NaN)
``quality``         int16           GGA fix quality, field 6 (-1)
``sats_used``       int16           satellites used, GGA field 7 (-1)
``hdop``            float64         HDOP, GGA field 8 (NaN)
``h_accuracy_m``    float64         horizontal accuracy, m (NaN)
==================  ==============  ===================================================

``TrackLog`` also answers the few mapping calls the :class:`~fieldapp.survey.visit.Visit`
makes of a layer's table (``len``, ``in``, ``[uuid]``, ``values()``), so a track point is
still a record wherever one is asked for by its uuid.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import numpy as np

from ..geo import SiteFrame
from .features import TrackPoint
from .validation import INT_LIMITS, NUMBER_LIMITS

__all__ = ["TrackLog", "suspect_rows", "FLOAT_COLUMNS", "INT_COLUMNS", "TIME_COLUMNS"]

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
#: float columns and whether the record allows None (NaN here)
FLOAT_COLUMNS = {"x": False, "y": False, "lon_deg": False, "lat_deg": False, "alt_hae_m": True,
                 "hdop": True, "h_accuracy_m": True}
INT_COLUMNS = ("quality", "sats_used")          # None is -1
TIME_COLUMNS = {"created_utc": False, "modified_utc": False, "t_utc": True}   # None is NaT
TEXT_COLUMNS = ("uuid", "created_by")
NAT = np.datetime64("NaT", "ms")


def _ms(dt: datetime | None) -> np.datetime64:
    if dt is None:
        return NAT
    return np.datetime64(int((dt - EPOCH) // timedelta(milliseconds=1)), "ms")


def _dt(v: np.datetime64) -> datetime | None:
    if np.isnat(v):
        return None
    return EPOCH + timedelta(milliseconds=int(v.astype(np.int64)))


def _new_columns(n: int) -> dict[str, np.ndarray]:
    cols: dict[str, np.ndarray] = {name: np.empty(n, dtype=object) for name in TEXT_COLUMNS}
    cols.update({name: np.full(n, NAT) for name in TIME_COLUMNS})
    cols.update({name: np.full(n, np.nan) for name in FLOAT_COLUMNS})
    cols.update({name: np.full(n, -1, dtype=np.int16) for name in INT_COLUMNS})
    return cols


class TrackLog:
    """The track's fixes as columns (see the module docstring), appended in constant time.

    Examples
    --------
    >>> from datetime import datetime, timezone
    >>> t = datetime(2024, 6, 3, 13, 0, 0, 100000, tzinfo=timezone.utc)
    >>> tp = TrackPoint(uuid="00000000-0000-4000-8000-000000000001", created_utc=t, modified_utc=t,
    ...                 created_by="crew@laptop", t_utc=t, x=500.0, y=20.5, lon_deg=-87.0,
    ...                 lat_deg=45.0, quality=4, hdop=0.6)
    >>> log = TrackLog()
    >>> log.append(tp)
    >>> len(log), log.columns()["quality"].tolist(), log.record(0) == tp
    (1, [4], True)
    >>> log[tp.uuid] == tp, tp.uuid in log
    (True, True)
    """

    def __init__(self, columns: dict[str, np.ndarray] | None = None) -> None:
        self._load(columns)

    def _load(self, columns: dict[str, np.ndarray] | None) -> None:
        """Hold ``columns`` (copied, with room to grow), or none."""
        if columns is None:
            self._cols, self._n = _new_columns(256), 0
        else:
            n = len(columns["uuid"])
            self._cols = _new_columns(max(256, n + n // 4))
            for name, arr in columns.items():
                self._cols[name][:n] = arr
            self._n = n
        self._index: dict[str, int] | None = None

    # ---------------------------------------------------------------- columns
    def __len__(self) -> int:
        return self._n

    def columns(self) -> dict[str, np.ndarray]:
        """Every column, ``len(self)`` long (views: do not write into them)."""
        return {name: arr[:self._n] for name, arr in self._cols.items()}

    def append(self, tp: TrackPoint) -> None:
        """Add one fix at the end (amortised O(1): the columns double when full)."""
        n = self._n
        if n == len(self._cols["uuid"]):
            grown = _new_columns(2 * n)
            for name, arr in self._cols.items():
                grown[name][:n] = arr
            self._cols = grown
        c = self._cols
        c["uuid"][n], c["created_by"][n] = tp.uuid, tp.created_by
        c["created_utc"][n], c["modified_utc"][n] = _ms(tp.created_utc), _ms(tp.modified_utc)
        c["t_utc"][n] = _ms(tp.t_utc)
        for name in FLOAT_COLUMNS:
            v = getattr(tp, name)
            c[name][n] = math.nan if v is None else v
        for name in INT_COLUMNS:
            v = getattr(tp, name)
            c[name][n] = -1 if v is None else v
        if self._index is not None:
            self._index[tp.uuid] = n
        self._n = n + 1

    def record(self, i: int) -> TrackPoint:
        """Fix ``i`` (0 = the first recorded) as a :class:`TrackPoint`."""
        if not -self._n <= i < self._n:
            raise IndexError(f"track point {i} of {self._n}")
        i %= self._n
        c = self._cols
        kw = {name: c[name][i] for name in TEXT_COLUMNS}
        kw.update({name: _dt(c[name][i]) for name in TIME_COLUMNS})
        for name in FLOAT_COLUMNS:
            v = float(c[name][i])
            kw[name] = None if math.isnan(v) else v
        for name in INT_COLUMNS:
            v = int(c[name][i])
            kw[name] = None if v < 0 else v
        return TrackPoint(**kw)

    def records(self) -> list[TrackPoint]:
        """Every fix as a record (slow for a long track: read :meth:`columns` instead)."""
        return [self.record(i) for i in range(self._n)]

    __iter__ = lambda self: iter(self.records())  # noqa: E731

    # ---------------------------------------------------------------- the Visit's table calls
    def _where(self) -> dict[str, int]:
        if self._index is None:
            self._index = {u: i for i, u in enumerate(self._cols["uuid"][:self._n])}
        return self._index

    def __contains__(self, uuid: object) -> bool:
        return uuid in self._where()

    def __getitem__(self, uuid: str) -> TrackPoint:
        return self.record(self._where()[uuid])

    def get(self, uuid: str, default: TrackPoint | None = None) -> TrackPoint | None:
        i = self._where().get(uuid)
        return default if i is None else self.record(i)

    def __setitem__(self, uuid: str, tp: TrackPoint) -> None:
        i = self._where().get(uuid) if self._index is not None or self._n else None
        if i is None:
            self.append(tp)
            return
        self.pop(uuid)        # a changed fix (never from the app): kept at the end
        self.append(tp)

    def pop(self, uuid: str, default: TrackPoint | None = None) -> TrackPoint | None:
        i = self._where().get(uuid)
        if i is None:
            return default
        tp = self.record(i)
        keep = np.ones(self._n, dtype=bool)
        keep[i] = False
        self._load({name: arr[keep] for name, arr in self.columns().items()})
        return tp

    def values(self) -> list[TrackPoint]:
        return self.records()


def suspect_rows(cols: dict[str, np.ndarray], nulls: dict[str, np.ndarray],
                 frame: SiteFrame | None = None) -> np.ndarray:
    """Rows the vectorised check cannot vouch for (True), to be checked one by one with
    :func:`fieldapp.survey.validation.validate`, which says what is wrong in its own words.

    ``cols`` are the float and int columns of :data:`FLOAT_COLUMNS` / :data:`INT_COLUMNS`
    (NaN / any value where ``nulls[name]`` is True for a NULL); the limits are the model's
    (:data:`~fieldapp.survey.validation.NUMBER_LIMITS`, ``INT_LIMITS``); with ``frame`` the x/y
    pair must lie inside the site CRS's area of use (:meth:`fieldapp.geo.SiteFrame.outside`).
    A row passing here passes ``validate``; a row failing here may still pass it (it is then
    accepted by ``validate``, with the same values).

    >>> c = {"x": np.array([1.0, np.nan]), "y": np.array([2.0, 3.0]), "hdop": np.array([0.6, -1.0])}
    >>> suspect_rows(c, {"x": np.array([False, True])}).tolist()
    [False, True]
    """
    n = len(next(iter(cols.values())))
    bad = np.zeros(n, dtype=bool)
    with np.errstate(invalid="ignore"):
        for name, a in cols.items():
            null = nulls.get(name, np.zeros(n, dtype=bool))
            if name in FLOAT_COLUMNS:
                a = np.asarray(a, dtype=float)
                ok = np.isfinite(a)
                lim = NUMBER_LIMITS.get(name)
                if lim is not None:
                    lo, hi, low_open = lim
                    ok &= ((a > lo) if low_open else (a >= lo)) & (a <= hi)
                bad |= ~ok & ~(null & FLOAT_COLUMNS[name])
            else:
                lo, hi = INT_LIMITS.get(name, (-math.inf, math.inf))
                bad |= ~null & ((a < lo) | (a > hi))
        if frame is not None and "x" in cols and not bad.all():
            fine = ~bad
            out = np.zeros(n, dtype=bool)
            out[fine] = frame.outside(np.asarray(cols["x"])[fine], np.asarray(cols["y"])[fine])
            bad |= out
    return bad
