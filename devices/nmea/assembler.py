"""Grouping NMEA lines into epochs: :class:`EpochAssembler` (bytes in, :class:`~devices.nmea.fix.Fix` out).

Pure, no threads, no clock: ``feed(line, t_monotonic_s) -> list[Fix]``.  Counts every rejected
line by kind (:class:`NmeaStats`) and never raises.  :func:`iter_stream_fixes` runs one over a
file or standard input.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import IO

import pynmea2

from devices.errors import BadSentence
from devices.framing import MAX_LINE_BYTES, LineFramer, is_checksummed_nmea
from devices.nmea.cycle import CycleLearner
from devices.nmea.epoch import (
    _FIELD_ERRORS,
    _POSITION_SET,
    ZDA_JOIN_S,
    HeldGst,
    _build_fix,
    _Epoch,
    _Fields,
    _Sentence,
)
from devices.nmea.fix import BadKind, Fix
from devices.nmea.sentences import (
    _USED_TYPES,
    PROPRIETARY_USED,
    _is_printable,
    _parse,
    _seconds,
    _time_of_day,
    _tod_diff_s,
)

__all__ = [
    "NmeaStats",
    "EpochAssembler",
    "iter_stream_fixes",
    "STALE_EPOCH_WINDOW_S",
    "RESYNC_EPOCHS",
    "RECENT_LINES",
    "MAX_EPOCH_LINES",
    "GST_HOLD_EPOCHS",
]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class NmeaStats:
    """Counts of what an :class:`EpochAssembler` received.

    Attributes
    ----------
    good : int
        Lines that passed the checksum and parsed, fields included (used or not).
    used : int
        Good lines that contributed to a fix.
    comments : int
        ``#`` lines (log-file headers), skipped.
    ignored : int
        Known proprietary lines not used, neither good nor bad: ``$P…`` sentences other than
        Garmin's ``$PGRMZ`` / ``$PGRME`` (``$PSTM…``, ``$PTAX``, ``$PGRMM``...; these are in
        ``good`` too), an INS's ``$INS…`` sentences with a good checksum, NovAtel ``#…A``
        ASCII logs.
    fixes : int
        Fixes emitted.
    bad : dict
        :class:`BadKind` value -> count, every kind present (zero or more).
        Each counts lines, except ``time_backwards``, which counts epochs
        (their lines stay counted in ``good``).
    early_closes : int
        Epochs closed at the learned cycle ender (see :class:`EpochAssembler`).
    late_lines : int
        Good lines that came after the learned cycle ender of their epoch, once its fix was
        delivered: not used, and that ender is not trusted again.
    """

    good: int = 0
    used: int = 0
    comments: int = 0
    ignored: int = 0
    fixes: int = 0
    bad: Mapping[str, int] = field(default_factory=lambda: {k.value: 0 for k in BadKind})
    early_closes: int = 0
    late_lines: int = 0

    @property
    def total_bad(self) -> int:
        """Sum of all bad kinds."""
        return sum(self.bad.values())


# index of the UTC time field in each timed sentence (GLL has it after the position)
_TOD_INDEX = {"GGA": 0, "GNS": 0, "RMC": 0, "GLL": 4, "GST": 0, "ZDA": 0}
#: An epoch up to this far behind the newest fix (seconds) is late, not a reset: dropped.
STALE_EPOCH_WINDOW_S = 600.0
#: Consecutive late epochs, each after the one before, after which the receiver's new time is followed.
RESYNC_EPOCHS = 3
#: Most lines one epoch holds: a line beyond it closes the epoch and opens the next (a stream with
#: no epoch boundary, e.g. time-less GSV without end, cannot grow the assembler without limit;
#: real epochs hold at most some 100 lines, GSV of four systems and their signals included).
MAX_EPOCH_LINES = 400
#: Epochs a receiver's last GST accuracy is held for when an epoch brings none (of the same fix
#: quality): a receiver sending GST every other epoch shows a steady accuracy, marked as held.
GST_HOLD_EPOCHS = 3
#: Good lines remembered by their exact bytes, so a verbatim repeat is not parsed again (about
#: ten epochs of a typical receiver; far shorter than any test or benchmark log).
RECENT_LINES = 128


#: A NovAtel ASCII log: ``#<NAME>A,<header>;<data>*<8 hex digits of CRC-32>``.
_NOVATEL_ASCII_RE = re.compile(rb"#[A-Z0-9_]+A,[^;]*;.*\*[0-9A-Fa-f]{8}\Z")


#: When an epoch is: ``(time_utc or None, time of day)``.
_Stamp = tuple[dt.datetime | None, dt.time]


def _behind_s(a: _Stamp, b: _Stamp) -> float:
    """Seconds epoch ``a`` is behind epoch ``b``; each a ``(time_utc or None, time of day)``.

    Full datetimes when both have a date, else the times of day across midnight.
    """
    if a[0] is not None and b[0] is not None:
        return (b[0] - a[0]).total_seconds()
    return _tod_diff_s(b[1], a[1])


class EpochAssembler:
    """Groups the sentences of one epoch into one :class:`Fix`.  Pure: no threads, no clock.

    An epoch is every sentence between two changes of the UTC time of day of
    the epoch sentences (GGA, GNS, RMC, GLL, GST).  Sentences without a time
    (GSA, GSV, VTG) join the epoch in progress.  The fix of an epoch is emitted
    when the next epoch's first timed sentence arrives, or by :meth:`flush`
    (end of input, or a gap in the stream), or at once on the line that ends
    the receiver's cycle, once that is learned (below).  An epoch is emitted
    only if it held a position sentence (GGA, GNS, RMC, GLL), valid or not, so
    "no fix" epochs are reported too.  One fix per receiver epoch.

    **The cycle ender** (gpsd's idea).  Waiting for the next epoch costs a
    whole epoch of latency (0.1 s at 10 Hz, 1 s at 1 Hz), so the assembler
    learns which sentence ends the receiver's cycle and closes the epoch on it.
    A sentence is identified by its talker and type, the count of it so far in
    the epoch, and for GSV the signal id and whether it is the last page (for
    GSA, the system id): ``GNZDA``, ``GPRMC``, ``GLGSV last page``.  When an
    epoch is over (the next one began, or a flush), every sentence in it but
    the last was *followed*.  The last one is learned as an ender once it has
    ended :data:`CYCLE_LEARN_EPOCHS` epochs holding a position and has not
    been followed for :data:`CYCLE_LEARN_S` seconds of epoch times (the UTC
    times in the sentences, not a clock), counted from the first epoch: so a
    sentence sent only every few seconds after the would-be ender (SiRF's GSV
    every 5 s) shows up first, and that ender is never learned.  GSA, GNS and
    GSV pages other than the last are never enders (see
    :func:`~devices.nmea.cycle._may_end_cycle`).  When a learned ender joins an epoch holding a
    position sentence, the fix is emitted on that line; the epoch, as grouped,
    is the one the next-epoch close would have given.  Those closes stay as
    the fallback: an ender that does not come (a corrupted line, a receiver set
    up anew) only delays the fix to the next epoch or the idle flush, and the
    new last sentence is learned once it has gone CYCLE_LEARN_S unfollowed.
    Should the receiver send more of an epoch after its learned ender (its
    sentence set changed), the fix is out already: those lines are counted in
    ``late_lines`` and not used (never a second fix for the same epoch), and
    that ender is not trusted again.  :meth:`forget_cycle` starts learning
    afresh (the reader calls it on every connect).  Epoch times more than
    :data:`CYCLE_GAP_S` apart are not counted as watched, so below 0.2 Hz
    epochs close the old way only.

    **ZDA is time-only: it never opens an epoch.**  Receivers stamp it with the
    moment it is sent, which need not be the solution's time (a Trimble R1
    sends ZDA 22:56:51.02 between GGA/RMC/GST of 22:56:51.00), so it joins the
    epoch in progress.  Only when that epoch already holds a timed ZDA, or its
    time is 1 s or more away from the ZDA's (:data:`ZDA_JOIN_S`, across
    midnight), does the ZDA close it; the ZDA then waits in the next epoch,
    whose time comes from its first epoch sentence (which, likewise, closes
    an epoch holding only a ZDA 1 s or more away).  An epoch with no timed
    epoch sentence (a no-fix GGA with empty fields) takes the ZDA's time.

    **Dates.**  The date reference is a (date, time of day) pair: the RMC date
    with the RMC's epoch time, or the ZDA date with the ZDA's own time (so a
    ZDA of 00:00:00.0 on the 2nd joining an epoch of 23:59:59.9 dates that
    epoch the 1st).  The RMC of the epoch wins.  An epoch without its own RMC
    date takes the date of the latest reference, moved a day forward or back
    when the times of day differ by more than 12 h (midnight); before any date
    is seen ``time_utc`` is None.

    **Time going backwards.**  A fix is delivered only if its time is after the
    newest fix delivered (full datetimes when both are dated, else times of
    day across midnight).  An epoch 0 to :data:`STALE_EPOCH_WINDOW_S` (10 min)
    behind it (a late epoch, or the same epoch again) is counted as
    ``time_backwards`` (one per epoch) and dropped.  A larger jump back is a
    receiver reset or a new session and is accepted at once; so is the
    :data:`RESYNC_EPOCHS`-th of consecutive dropped epochs whose times advance
    among themselves (a clock stepped back by less than the window: the
    receiver runs on the new time, and we follow it after two epochs).

    **Impossible values.**  A sentence holding a field that cannot be read or
    whose value is impossible (a DOP below 0 or above :data:`MAX_DOP`,
    satellites outside 0..:data:`MAX_SATS`, a negative GST sigma or speed,
    a course outside 0..360, geoid separation beyond
    :data:`MAX_GEOID_SEP_M`, altitude outside :data:`ALT_MSL_RANGE_M`, a
    negative correction age, a date or time that is not one) is dropped
    whole and counted once as ``malformed_field``: a GGA with HDOP -0.9 gives
    no position, quality, satellites or HDOP at all, rather than a fix
    claiming an accuracy it cannot back.  The fix then takes each value from
    the next sentence that has it (RMC position, GSA HDOP...).  A DOP of 0 is
    read as "not given", and a magnetic variation above 180 deg (Trimble's
    999.9) as unknown.

    Fields are read lazily when the epoch closes, in order of precedence
    (position: GGA, GNS, RMC, GLL; the first readable sentence of a type
    wins).  A malformed field is counted (``malformed_field``) when it is
    read; a sentence superseded by a better one of the same epoch (a second
    talker's GGA, a GLL beside a GGA) is checked for checksum and structure
    only.  The time field is always read on arrival (it decides the epoch).

    Parameters
    ----------
    antenna_height_m : float
        Antenna height above the ground mark, metres (>= 0), stamped on every
        fix (change it with the attribute of the same name).

    Examples
    --------
    >>> a = EpochAssembler()
    >>> a.feed(b"$GPGGA,120000.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*67", 1.0)
    []
    >>> [f.lat_deg for f in a.flush()]
    [48.1173]
    """

    def __init__(self, antenna_height_m: float = 0.0) -> None:
        if not (0.0 <= antenna_height_m < 100.0):
            raise ValueError(f"antenna_height_m {antenna_height_m!r} outside 0..100 m")
        self.antenna_height_m = float(antenna_height_m)
        self._epoch = _Epoch()
        self._last_date: dt.date | None = None
        self._last_date_tod: dt.time | None = None
        # (time_utc, time of day) of the newest fix emitted; of the last epoch dropped as behind it,
        # and how many dropped in a row advanced on each other
        self._newest: _Stamp | None = None
        self._behind: _Stamp | None = None
        self._behind_run = 0
        # (GST fields, fix quality, epochs held so far) of the last GST, while it may be held
        self._held_gst: HeldGst | None = None
        self._bad: Counter[str] = Counter()
        self._good = self._used = self._comments = self._fixes = self._ignored = 0
        self._tod_text: str | None = None
        self._tod: dt.time | None = None
        # The last RECENT_LINES good lines (exact bytes) -> their _Sentence.  Receivers repeat
        # GSA / GSV / VTG lines verbatim from epoch to epoch; an identical line has the same
        # (already verified) checksum and the same fields, so it is not parsed again.
        self._recent: dict[bytes, _Sentence] = {}
        # What is learned of the receiver's cycle (see the class notes); its enders are looked up
        # on every line.  The epoch closed at an ender (until the next sentence shows whether more
        # of it comes); counts of early closes and of late lines.
        self._cycle = CycleLearner()
        self._enders = self._cycle.enders
        self._early: _Epoch | None = None
        self._early_closes = 0
        self._late_lines = 0

    # -- counts

    @property
    def stats(self) -> NmeaStats:
        """Snapshot of the counters."""
        return NmeaStats(
            good=self._good,
            used=self._used,
            comments=self._comments,
            ignored=self._ignored,
            fixes=self._fixes,
            bad={k.value: self._bad.get(k.value, 0) for k in BadKind},
            early_closes=self._early_closes,
            late_lines=self._late_lines,
        )

    def count_bad(self, kind: BadKind | str, n: int = 1) -> None:
        """Add ``n`` to a bad-kind counter (framers report dropped runaway lines here)."""
        self._bad[BadKind(kind).value] += n

    # -- input

    def feed(self, line: bytes, t_monotonic_s: float) -> list[Fix]:
        """Take one framed line; return the fixes completed by it (usually none or one).

        Never raises: a rejected line is counted by :class:`BadKind` and skipped.
        """
        try:
            return self._feed(line, t_monotonic_s)
        except Exception as exc:  # noqa: BLE001 - nothing escapes; count as malformed
            log.debug("unexpected failure on %r: %s", line[:100], exc)
            self._bad[BadKind.MALFORMED_FIELD.value] += 1
            return []

    def feed_many(self, lines: Iterable[bytes], t_monotonic_s: float) -> list[Fix]:
        """:meth:`feed` every line with the same receive time."""
        out: list[Fix] = []
        for line in lines:
            out.extend(self.feed(line, t_monotonic_s))
        return out

    def _feed(self, line: bytes, t: float) -> list[Fix]:
        line = line.strip()
        sentence = self._recent.get(line)
        if sentence is None:
            if not line:
                return []
            sentence = self._check(line)
            if sentence is None:
                return []
        self._good += 1
        kind = sentence.kind
        if kind is None:
            if sentence.label:  # "P": a proprietary sentence ($PSTM..., $PTAX, $PGRMM...)
                self._ignored += 1
            return []  # good but not a sentence we use (TXT, HDT, proprietary...)
        tod = sentence.tod
        early = self._early
        ep = early if early is not None else self._epoch  # (after an early close, _epoch is empty)
        # Does the sentence open the next epoch after ep?  (Inline, one copy: it runs for every line.)
        # Not untimed; a ZDA when ep has a ZDA time or a time ZDA_JOIN_S or more away; another when
        # its time differs from ep's, or, while ep has only a ZDA's time, is ZDA_JOIN_S or more away.
        if tod is None:
            # a time-less epoch (cold start) ends where its position sentence comes round again,
            # and no epoch grows past MAX_EPOCH_LINES (bounded memory on any input)
            opens = (ep.tod is None and kind in _POSITION_SET and sentence.label in ep.seen) or (
                len(ep.types) >= MAX_EPOCH_LINES)
        elif kind == "ZDA":
            opens = ep.zda_tod is not None or (ep.tod is not None and abs(_tod_diff_s(tod, ep.tod)) >= ZDA_JOIN_S)
        elif ep.tod is None:
            # a timed sentence after the time-less position sentences of a no-fix epoch opens
            # its own epoch (pynmea2 #94: the first fix after a cold start is not absorbed)
            opens = ep.has_position or (
                ep.zda_tod is not None and abs(_tod_diff_s(tod, ep.zda_tod)) >= ZDA_JOIN_S)
        else:
            opens = tod != ep.tod
        late = False
        if early is not None:
            if not opens:
                # more of an epoch delivered at its learned ender: the fix is out; the line joins the
                # closed epoch (for the learner), unused, and the ender is not trusted again
                ender = early.last_key
                if ender is not None:  # (always: the epoch was delivered at its ender)
                    self._cycle.ban(ender, sentence.label)
                self._late_lines += 1
                late = True
            else:
                self._early = None
                self._cycle.learn(early)
                ep = self._epoch
                opens = False  # the epoch in progress is empty: the sentence opens it
        out: list[Fix] = []
        if opens:
            fix = self._close()
            if fix is not None:
                out.append(fix)
            ep = self._epoch
        # add the sentence to ep (inline); a timed one gives ep its time of day if it has none yet
        if tod is not None:
            if kind == "ZDA":
                if ep.zda_tod is None:
                    ep.zda_tod = tod
            elif ep.tod is None:
                ep.tod = tod
        bucket = ep.msgs.get(kind)
        if bucket is None:
            ep.msgs[kind] = [sentence]
            if kind in _POSITION_SET:
                ep.has_position = True
        else:
            bucket.append(sentence)
        ep.types.append(sentence.label)
        ep.raw.append(sentence.text)
        ep.t_last = t
        base = ep.last = sentence.cycle_key
        seen = ep.seen
        n = seen[base] = seen.get(base, 0) + 1
        if late:
            return []
        counts = self._enders.get(base)
        if counts is not None and n in counts and ep.has_position:
            # the sentence that ends the receiver's cycle: the epoch is complete now
            self._early_closes += 1
            fix = self._close(early=True)
            if fix is not None:
                out.append(fix)
        return out

    # -- the cycle ender (see the class notes)

    @property
    def cycle_enders(self) -> tuple[str, ...]:
        """The learned last sentences of the receiver's cycle, in words (``"GNZDA"``, ``"GPRMC"``,
        ``"GLGSV signal 1 last page"``, ``"GPVTG (number 2)"`` for the second VTG of an epoch);
        empty while none is learned."""
        return self._cycle.words

    def forget_cycle(self) -> None:
        """Forget what was learned of the receiver's cycle (it was (re)connected: it may be another
        receiver, or one set up differently).  Epochs close at the next epoch or a gap until an
        ender is learned again."""
        self._early = None
        self._cycle.forget()

    def _check(self, line: bytes) -> _Sentence | None:
        """A new stripped, non-empty line: the good sentence in it, or None (counted as bad)."""
        if line[0] == 0x23:  # "#"
            if _NOVATEL_ASCII_RE.match(line):
                self._ignored += 1  # a NovAtel ASCII log (#BESTPOSA,...;...*crc32)
            else:
                self._comments += 1
            return None
        if line.startswith(b"$INS") and is_checksummed_nmea(line):
            self._ignored += 1  # an INS's own sentence interleaved with the receiver's
            return None
        if len(line) > MAX_LINE_BYTES:
            self._bad[BadKind.OVERLONG.value] += 1
            return None
        # a sentence start inside the line: the head was cut off (collision / resync)
        start = max(line.rfind(b"$"), line.rfind(b"!"))
        if start > 0:
            head = line[:start]
            self._bad[(BadKind.TRUNCATED if _is_printable(head) else BadKind.BINARY_NOISE).value] += 1
            line = line[start:]
        try:
            msg, text = _parse(line)
        except BadSentence as exc:
            self._bad[exc.kind] += 1
            return None
        if isinstance(msg, pynmea2.TalkerSentence):
            kind = msg.sentence_type
        elif isinstance(msg, pynmea2.ProprietarySentence):
            kind = PROPRIETARY_USED.get(type(msg).__name__)  # $PGRMZ, $PGRME; others ignored
        else:
            kind = None
        tod = None
        if kind not in _USED_TYPES:
            kind = None
        else:
            index = _TOD_INDEX.get(kind)
            data = msg.data
            if index is not None and index < len(data):
                tod_text = data[index].strip()
                if tod_text:
                    if tod_text == self._tod_text:
                        tod = self._tod
                    else:
                        try:
                            tod = _time_of_day(tod_text)
                        except _FIELD_ERRORS:
                            self._bad[BadKind.MALFORMED_FIELD.value] += 1
                            return None
                        self._tod_text, self._tod = tod_text, tod
        sentence = _Sentence(msg, text, kind, tod)
        recent = self._recent
        if len(recent) >= RECENT_LINES:
            del recent[next(iter(recent))]  # the oldest
        recent[line] = sentence
        return sentence

    def flush(self) -> list[Fix]:
        """Close the epoch in progress (end of input, or a gap in the stream)."""
        if self._early is not None:
            early, self._early = self._early, None
            self._cycle.learn(early)
        fix = self._close()
        return [fix] if fix is not None else []

    @property
    def pending_since_s(self) -> float | None:
        """Receive time of the last line of the epoch in progress, None when empty."""
        return self._epoch.t_last if self._epoch.types else None

    def _close(self, early: bool = False) -> Fix | None:
        ep, self._epoch = self._epoch, _Epoch()
        if not ep.types:
            return None
        if early:
            self._early = ep  # learnt from once the next sentence shows nothing more came
        else:
            self._cycle.learn(ep)
        fields = _Fields(ep)
        try:
            fix = self._fix_of(ep, fields)
        finally:
            self._used += fields.used
            if fields.malformed:  # good-looking sentences with an unreadable field
                self._good -= fields.malformed
                self._bad[BadKind.MALFORMED_FIELD.value] += fields.malformed
        if fix is None:
            return None
        if not self._is_newest(fix):
            self._bad[BadKind.TIME_BACKWARDS.value] += 1
            log.debug("epoch %s not after the newest fix %s: dropped", fix.time_of_day_utc, self._newest)
            return None
        self._fixes += 1
        return fix

    def _fix_of(self, ep: _Epoch, fields: _Fields) -> Fix | None:
        """The fix of a closed epoch (None without a readable position sentence); moves the date
        reference on (see the class notes)."""
        rmc = fields.get("RMC")
        rmc_date = rmc["_date"] if rmc is not None else None
        if ep.zda_tod is not None:  # a ZDA's date goes with the ZDA's own time
            zda = fields.get("ZDA")
            if zda is not None and zda["_date"] is not None and zda["_tod"] is not None:
                self._last_date, self._last_date_tod = zda["_date"], zda["_tod"]
        if rmc_date is not None and ep.tod is not None:
            self._last_date, self._last_date_tod = rmc_date, ep.tod
        tod = ep.tod if ep.tod is not None else ep.zda_tod
        date = rmc_date if rmc_date is not None else self._date_for(tod)
        if not ep.has_position:
            return None
        gst = fields.get("GST")
        held = self._held_gst if gst is None else None
        fix = _build_fix(ep, fields, rmc, date, tod, self.antenna_height_m, held)
        if fix is None:
            return None
        if gst is not None and gst.get("sigma_lat_m") is not None:
            self._held_gst = (gst, fix.quality, 0)  # fresh: held for the next epochs
        elif held is not None and fix.gst_held_epochs and fix.gst_held_epochs < GST_HOLD_EPOCHS:
            self._held_gst = (held[0], held[1], fix.gst_held_epochs)
        else:
            self._held_gst = None  # held long enough, another quality, or a fix without GST
        return fix

    def _is_newest(self, fix: Fix) -> bool:
        """Whether ``fix`` may be delivered after the newest one (see the class notes); remembers it."""
        if fix.time_of_day_utc is None:
            return True
        this = (fix.time_utc, fix.time_of_day_utc)
        if self._newest is not None:
            behind = _behind_s(this, self._newest)
            if 0.0 <= behind <= STALE_EPOCH_WINDOW_S:
                advancing = self._behind is not None and _behind_s(this, self._behind) < 0.0
                self._behind_run = self._behind_run + 1 if advancing else 1
                self._behind = this
                if self._behind_run < RESYNC_EPOCHS:
                    return False
        self._newest, self._behind, self._behind_run = this, None, 0
        return True

    def _date_for(self, tod: dt.time | None) -> dt.date | None:
        """The date of an epoch at ``tod`` without its own RMC date, from the date reference."""
        if self._last_date is None or tod is None or self._last_date_tod is None:
            return None
        date = self._last_date
        diff = _seconds(tod) - _seconds(self._last_date_tod)
        if diff < -43200:  # time of day went back by more than 12 h: past midnight
            date += dt.timedelta(days=1)
        elif diff > 43200:  # a late sentence from before midnight
            date -= dt.timedelta(days=1)
        return date


def iter_stream_fixes(stream: IO[bytes], assembler: EpochAssembler, framer: LineFramer | None = None,
                      chunk_bytes: int = 65536) -> Iterator[Fix]:
    """Read a binary stream to its end, yielding fixes (used for files and stdin)."""
    framer = framer or LineFramer()
    read = getattr(stream, "read1", stream.read)
    while True:
        data = read(chunk_bytes)
        if not data:
            break
        t = time.monotonic()
        for line in framer.feed(data):
            yield from assembler.feed(line, t)
    yield from assembler.feed_many(framer.feed(b"\n"), time.monotonic())
    yield from assembler.flush()


