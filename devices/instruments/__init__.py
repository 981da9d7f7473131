"""Field instrument sentences: laser rangefinders, inclinometers, the tree caliper.

Parsing is pure and kept apart from the port: ``InstrumentParser().parse(line, t)`` takes one
line of bytes and returns a reading (:mod:`devices.readings`, or a caliper fragment from
:mod:`devices.caliper`), ``None`` for a line that carries no measurement (``$OK``), and counts
every rejected line by reason in :attr:`InstrumentParser.counts` instead of raising.

Registries (the one place to add a vendor, in :mod:`devices.instruments.parser`):

- :data:`SENTENCE_PARSERS` -- NMEA-style sentences by address (``"PLTIT"``), address plus first
  field (``"PHGF,HVV"``) or talker-less type (``"XDR"``); values ``"module:function"`` imported
  on first use. A parser is ``f(sentence: Sentence, raw: bytes, t: float) -> reading | None``.
- :data:`LINE_PARSERS` -- non-NMEA line formats tried in order for lines without ``$``; a
  parser is ``f(line: bytes, t: float) -> reading``, raising ``ValueError`` when it does not
  apply.

Errors (from :mod:`devices.errors`): the low-level :func:`split_sentence` raises
``ChecksumError`` / ``ValueError``; :class:`InstrumentParser` catches them and counts.
"""

from __future__ import annotations

from devices.instruments.parser import LINE_PARSERS, InstrumentParser, parse, register_line_parser
from devices.instruments.scanner import SentenceScanner
from devices.instruments.sentence import nmea_checksum, split_sentence, with_checksum

__all__ = [
    "InstrumentParser",
    "LINE_PARSERS",
    "SentenceScanner",
    "nmea_checksum",
    "parse",
    "register_line_parser",
    "split_sentence",
    "with_checksum",
]
