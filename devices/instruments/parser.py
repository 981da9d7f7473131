"""The instrument line parser: :class:`InstrumentParser` and the registries of sentence and line
parsers it looks a line up in (see :mod:`devices.instruments` for the overview).

Registries (the one place to add a vendor):

- :data:`SENTENCE_PARSERS` -- NMEA-style sentences by address (``"PLTIT"``), address plus first
  field (``"PHGF,HVV"``) or talker-less type (``"XDR"``); values ``"module:function"`` imported
  on first use. A parser is ``f(sentence: Sentence, raw: bytes, t: float) -> reading | None``.
- :data:`LINE_PARSERS` -- non-NMEA line formats tried in order for lines without ``$``; a
  parser is ``f(line: bytes, t: float) -> reading``, raising ``ValueError`` when it does not
  apply.
"""

from __future__ import annotations

import importlib
from collections import Counter
from collections.abc import Callable, Iterable
from typing import TypeVar

from devices.errors import ChecksumError
from devices.instruments.sentence import Sentence, split_sentence

__all__ = [
    "IGNORED_SENTENCES",
    "InstrumentParser",
    "LINE_PARSERS",
    "SENTENCE_PARSERS",
    "parse",
    "register_line_parser",
    "register_sentence_parser",
]

#: ``f(sentence, raw, t) -> reading | None``: a reading of :mod:`devices.readings` or a caliper
#: fragment of :mod:`devices.caliper` (typed ``object``: this module imports neither).
SentenceParser = Callable[[Sentence, bytes, float], object]
#: ``f(line, t) -> reading``; raises ``ValueError`` when the line is not its format.
LineParser = Callable[[bytes, float], object]
_P = TypeVar("_P", SentenceParser, LineParser)

SENTENCE_PARSERS: dict[str, str | SentenceParser] = {
    "PLTIT": "devices.instruments.laser:parse_pltit",
    "PTNLA": "devices.instruments.laser:parse_ptnla",
    "PMDLA": "devices.instruments.laser:parse_pmdla",
    "PHGF,HVV": "devices.instruments.laser:parse_hvv",
    "PHGF,SPC": "devices.caliper:parse_spc",
    "PHGF,DIA": "devices.caliper:parse_dia",
    "PHGF,LEN": "devices.caliper:parse_len",
    "XDR": "devices.instruments.attitude:parse_xdr",
    "PASHR": "devices.instruments.attitude:parse_pashr",
    "PTNL,AVR": "devices.instruments.attitude:parse_avr",
    "HPR": "devices.instruments.attitude:parse_hpr",
}
"""Sentence parsers by address key (see module docstring)."""

IGNORED_SENTENCES: frozenset[str] = frozenset({"OK"})
"""Addresses that are acknowledgements, not measurements (TruPulse ``$OK``)."""

LINE_PARSERS: dict[str, str | LineParser] = {
    "ascii-inclinometer": "devices.instruments.attitude:parse_ascii_axis",
}
"""Non-NMEA line parsers by name, tried in order."""


def register_sentence_parser(key: str, parser: str | SentenceParser) -> None:
    """Add or replace the parser for sentence ``key`` (``"PXYZ"``, ``"PXYZ,SUB"``, ``"XDR"``)."""
    SENTENCE_PARSERS[key] = parser


def register_line_parser(name: str, parser: str | LineParser) -> None:
    """Add or replace a non-NMEA line parser ``f(line, t) -> reading`` (raises ``ValueError``)."""
    LINE_PARSERS[name] = parser


def _resolve(table: dict[str, str | _P], key: str) -> _P:
    target = table[key]
    if isinstance(target, str):
        module, _, name = target.partition(":")
        found: _P = getattr(importlib.import_module(module), name)
        table[key] = found
        return found
    return target


def _lookup(sentence: Sentence) -> SentenceParser | None:
    addr = sentence.address
    keys = []
    if sentence.fields:
        keys.append(f"{addr},{sentence.fields[0]}")
    keys.append(addr)
    if len(addr) == 5 and not addr.startswith("P"):
        keys.append(addr[2:])  # talker sentence: XDR from APXDR, HPR from GNHPR
    for key in keys:
        if key in SENTENCE_PARSERS:
            return _resolve(SENTENCE_PARSERS, key)
    return None


class InstrumentParser:
    """Parses lines into readings and counts what it rejects.

    Parameters
    ----------
    sentences : iterable of str, optional
        Restrict to these :data:`SENTENCE_PARSERS` keys (default: all).
    line_parsers : iterable of str or callable, optional
        Non-NMEA parsers to try, by :data:`LINE_PARSERS` name or as callables (default: all
        registered).
    require_checksum : bool
        Refuse NMEA sentences without ``*HH`` (default True).

    Attributes
    ----------
    counts : collections.Counter
        ``accepted``, ``ignored`` and ``rejected_<reason>`` (``checksum``, ``malformed``,
        ``unknown``, ``value``).
    last_error : str or None
        Message of the most recent rejection.

    Examples
    --------
    >>> p = InstrumentParser()
    >>> p.parse(b"$PLTIT,HV,16.00,F,0.00,D,-1.20,D,16.00,F*49").slope_distance_ft
    16.0
    >>> p.parse(b"$PLTIT,HV,6.00,Y,0.00,D,7.20,D,6.10,Y*68") is None
    True
    >>> p.counts["rejected_checksum"]
    1
    """

    def __init__(
        self,
        sentences: Iterable[str] | None = None,
        line_parsers: Iterable[str | LineParser] | None = None,
        *,
        require_checksum: bool = True,
    ) -> None:
        self.allowed = None if sentences is None else frozenset(sentences)
        names = list(LINE_PARSERS) if line_parsers is None else list(line_parsers)
        self._line_parsers = [
            _resolve(LINE_PARSERS, n) if isinstance(n, str) else n for n in names
        ]
        self.require_checksum = require_checksum
        self.counts: Counter[str] = Counter()
        self.last_error: str | None = None

    def _reject(self, reason: str, message: str) -> None:
        self.counts[f"rejected_{reason}"] += 1
        self.last_error = message

    def parse(self, line: bytes, t_monotonic_s: float = 0.0) -> object:
        """One line (with or without line end) -> reading, or ``None`` (ignored or rejected).

        Returns
        -------
        RangefinderShot, InclinometerReading, InstrumentInfo, caliper fragment, or None
        """
        raw = line.rstrip(b"\r\n")
        if not raw.strip():
            return None
        if b"$" not in raw:
            errors = []
            for line_parser in self._line_parsers:
                try:
                    reading = line_parser(raw, t_monotonic_s)
                except ValueError as exc:
                    errors.append(str(exc))
                    continue
                self.counts["accepted"] += 1
                return reading
            self._reject("malformed" if errors else "unknown", "; ".join(errors) or repr(raw))
            return None
        try:
            sentence = split_sentence(raw, require_checksum=self.require_checksum)
        except ChecksumError as exc:
            self._reject("checksum", str(exc))
            return None
        except ValueError as exc:
            self._reject("malformed", str(exc))
            return None
        if sentence.address in IGNORED_SENTENCES:
            self.counts["ignored"] += 1
            return None
        parser = _lookup(sentence)
        if parser is None or (
            self.allowed is not None
            and not ({sentence.address, f"{sentence.address},{(sentence.fields or ('',))[0]}",
                      sentence.address[2:]} & self.allowed)
        ):
            self._reject("unknown", f"no parser for ${sentence.address}")
            return None
        clean = raw[raw.find(b"$"):]
        try:
            reading = parser(sentence, clean, t_monotonic_s)
        except ValueError as exc:
            self._reject("value", f"{exc} in {sentence.text!r}")
            return None
        except Exception as exc:  # a third-party parser (pynmea2) failing on odd input
            self._reject("value", f"{type(exc).__name__}: {exc} in {sentence.text!r}")
            return None
        if reading is None:
            self.counts["ignored"] += 1
            return None
        self.counts["accepted"] += 1
        return reading


def parse(line: bytes, t_monotonic_s: float = 0.0) -> object:
    """Parse one line with a throw-away :class:`InstrumentParser` (no counts kept).

    >>> parse(b"$PLTIT,HT,15.70,F*0E").height_ft
    15.7
    """
    return InstrumentParser().parse(line, t_monotonic_s)
