"""Learning which sentence ends a receiver's cycle (gpsd's idea), so an epoch closes on it.

:class:`CycleLearner` watches each epoch once it is over (the order of its sentences) and learns
the last sentence of the receiver's cycle; :class:`~devices.nmea.assembler.EpochAssembler` closes
an epoch as soon as that sentence joins it instead of waiting for the next epoch (one epoch of
latency: 0.1 s at 10 Hz, 1 s at 1 Hz).  The rules are in the assembler's class notes.

A sentence is named by its *cycle key* (:func:`_cycle_key`): its talker and type, and for GSV the
signal id and whether it is the last page, for GSA the system id; an *ender key* is
``(cycle key, n)``, the n-th sentence of that cycle key in an epoch.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Mapping
from typing import Protocol

import pynmea2

from devices.nmea.sentences import _gsa_system_id, _gsv_body, _tod_diff_s

__all__ = ["CYCLE_LEARN_EPOCHS", "CYCLE_LEARN_S", "CYCLE_GAP_S", "MAX_CYCLE_KEYS", "CycleLearner"]

log = logging.getLogger(__name__)

#: Epochs a sentence must have ended (since it was last followed by another sentence of its epoch)
#: before it is taken as an ender of the receiver's cycle (see the EpochAssembler notes) ...
CYCLE_LEARN_EPOCHS = 2
#: ... and seconds of epoch times it must have gone without being followed (from the first epoch
#: watched): longer than the period of what receivers send less often than every epoch, so that
#: is seen following the would-be ender first (twice the 5 s of GSV on SiRF receivers; the BU-353
#: capture has it: 4 s here would cut one of its epochs short).
CYCLE_LEARN_S = 10.0
#: Epoch time steps longer than this (seconds) are not counted as watched (a gap, a reset).
CYCLE_GAP_S = 5.0
#: Most distinct cycle keys remembered; past it the learner starts afresh (bounded memory whatever
#: arrives: a real receiver has a few dozen, talkers x types x GSV signals).
MAX_CYCLE_KEYS = 256
#: NMEA 4.10 GSV signal ids are one hex digit; anything else is named ``signal ?`` in a key.
_SIGNAL_IDS = frozenset("0123456789ABCDEFabcdef")


class EpochOrder(Protocol):
    """What :meth:`CycleLearner.learn` reads of an epoch that is over (the assembler's
    ``devices.nmea.epoch._Epoch``; named here so this module does not import that one)."""

    @property
    def tod(self) -> dt.time | None:
        """Time of day of the sentences that opened the epoch (never a ZDA's)."""

    @property
    def zda_tod(self) -> dt.time | None:
        """Time of day of the epoch's first timed ZDA."""

    @property
    def has_position(self) -> bool:
        """Whether a sentence with a position joined the epoch."""

    @property
    def seen(self) -> Mapping[str, int]:
        """Cycle key -> how many sentences of it the epoch holds."""

    @property
    def last(self) -> str | None:
        """Cycle key of the epoch's newest sentence."""


def _may_end_cycle(cycle_key: str) -> bool:
    """Whether a sentence (its :func:`_cycle_key`) may be learned as the end of the receiver's cycle.

    Not a GSV page that is not the last (more pages follow), nor a GSA or GNS: receivers send one
    of those per constellation *used* (NMEA 0183 v4.10), a set that changes with the solution, so
    the last of them may be followed by another in a later epoch (the Trimble R1 capture sends
    GNGNS alone for a minute, then GNGNS, GPGNS, GLGNS, BDGNS).  GSV groups follow the
    constellations *in view*, which is stable once tracking.
    """
    kind = cycle_key[2:5]
    if kind == "GSV":
        return cycle_key.endswith(" last page")
    return kind not in ("GSA", "GNS")


def _ender_words(key: tuple[str, int]) -> str:
    """An ender key ``(cycle_key, n)`` in words: ``"GNZDA"``, ``"GPGGA (number 2)"``."""
    base, n = key
    return base if n == 1 else f"{base} (number {n})"


def _cycle_key(msg: pynmea2.NMEASentence, label: str, kind: str) -> str:
    """What a sentence is, for learning which one ends the receiver's cycle, in words: its label
    (``"GPRMC"``); for GSA with the system id (NMEA 4.1, ``"GNGSA system 4"``); for GSV with the
    signal id (NMEA 4.1) and whether it is the last page (page number = number of pages):
    ``"GLGSV signal 1 last page"``, ``"GPGSV page"``.  Never raises: a field that cannot be read
    is taken as text."""
    data = msg.data
    if kind == "GSV":
        head, _, signal = _gsv_body(data)
        head = [d.strip() for d in head[:2]]
        last = len(head) == 2 and head[0] != "" and head[0].lstrip("0") == head[1].lstrip("0")
        if signal and (len(signal) != 1 or signal not in _SIGNAL_IDS):
            signal = "?"  # not a signal id: one key for all, whatever the text
        return label + (f" signal {signal}" if signal else "") + (" last page" if last else " page")
    if kind == "GSA":
        system = _gsa_system_id(data)
        return label + (f" system {system}" if system else "")
    return label


class CycleLearner:
    """What is known of one receiver's cycle: which sentences end it (see
    :class:`~devices.nmea.assembler.EpochAssembler`).  Pure: no clock but the epochs' UTC times.

    Attributes
    ----------
    enders : dict
        Learned enders: cycle key -> the set of n whose n-th sentence of that key ends the
        cycle.  The assembler looks a key up here on every line; the dict is only ever changed
        in place, never replaced.
    """

    __slots__ = ("enders", "_followed_at", "_ended", "_banned", "_watched_s", "_watched_tod")

    def __init__(self) -> None:
        self.enders: dict[str, set[int]] = {}
        # for each cycle key the watched time (by n - 1) it was last followed by another sentence
        # of its epoch; how many epochs each ender key ended since; ender keys followed after an
        # early close (banned); receiver seconds of epochs watched, up to the epoch at _watched_tod
        self._followed_at: dict[str, list[float]] = {}
        self._ended: dict[tuple[str, int], int] = {}
        self._banned: set[tuple[str, int]] = set()
        self._watched_s = 0.0
        self._watched_tod: dt.time | None = None

    @property
    def words(self) -> tuple[str, ...]:
        """The learned enders in words, sorted (``"GNZDA"``, ``"GPVTG (number 2)"``)."""
        return tuple(sorted(_ender_words((base, n)) for base, counts in self.enders.items() for n in counts))

    def forget(self) -> None:
        """Forget everything learned (another receiver, or one set up anew)."""
        self.enders.clear()
        self._followed_at.clear()
        self._ended.clear()
        self._banned.clear()
        self._watched_s = 0.0
        self._watched_tod = None

    def learn(self, ep: EpochOrder) -> None:
        """An epoch is over (nothing more can join it): learn from the order of its sentences."""
        last = ep.last
        if last is None:
            return
        if ep.has_position:
            tod = ep.tod if ep.tod is not None else ep.zda_tod
            if tod is not None:
                if self._watched_tod is not None:
                    step = _tod_diff_s(tod, self._watched_tod)
                    if 0.0 < step <= CYCLE_GAP_S:
                        self._watched_s += step
                self._watched_tod = tod
        now = self._watched_s
        if len(self._followed_at) > MAX_CYCLE_KEYS:
            log.debug("more than %d kinds of sentence seen: cycle learning starts afresh",
                      MAX_CYCLE_KEYS)
            self.forget()
        # each sentence of the epoch but the last was followed by another: not an ender (now).  Of
        # a cycle key, that is its 1st..count-th (1st..(count-1)-th for the last sentence's key).
        seen = ep.seen
        followed_at, ended, enders = self._followed_at, self._ended, self.enders
        for base, count in seen.items():
            if base == last:
                count -= 1
                if not count:
                    continue
            times = followed_at.get(base)
            if times is None:
                followed_at[base] = [now] * count
            else:
                times[:count] = [now] * count
            if base in enders:
                self._distrust(base, count)
        if ended:
            for key in [k for k in ended if k[1] <= seen.get(k[0], 0) - (k[0] == last)]:
                del ended[key]
        if not ep.has_position:
            return  # not a receiver cycle (a stray ZDA or GSV): no ender to learn from it
        n = seen[last]
        key = (last, n)
        if n in enders.get(last, ()) or key in self._banned or not _may_end_cycle(last):
            return
        epochs = ended[key] = ended.get(key, 0) + 1
        last_times = followed_at.get(last)
        followed = last_times[n - 1] if last_times is not None and n <= len(last_times) else 0.0
        if epochs >= CYCLE_LEARN_EPOCHS and now - followed >= CYCLE_LEARN_S:
            enders.setdefault(last, set()).add(n)

    def _distrust(self, base: str, upto: int) -> None:
        """The 1st..``upto``-th sentence of cycle key ``base`` in an epoch were followed by another
        sentence of it: none of them ends the cycle."""
        counts = self.enders.get(base)
        if counts is not None:
            counts.difference_update(range(1, upto + 1))
            if not counts:
                del self.enders[base]

    def ban(self, key: tuple[str, int], follower: str) -> None:
        """The learned ender ``key`` was followed by ``follower`` (a label) after its epoch's fix
        was delivered: never trust it again (until :meth:`forget`)."""
        if key not in self._banned:  # (the next learn marks it followed)
            log.debug("cycle ender %s followed by %s: not trusted again", _ender_words(key), follower)
            self._banned.add(key)
            self._distrust(key[0], key[1])
