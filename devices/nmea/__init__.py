"""NMEA 0183 from a GNSS receiver into immutable position fixes.

Layers, each usable alone (one module each):

:func:`parse_sentence` (:mod:`devices.nmea.sentences`)
    bytes of one line -> a :mod:`pynmea2` sentence, or a
    :class:`~devices.errors.BadSentence` naming the :class:`BadKind`.  Pure.  The same module
    holds the field readers of each sentence type.
:class:`EpochAssembler` (:mod:`devices.nmea.assembler`)
    Pure, no threads, no clock: ``feed(line, t_monotonic_s) -> list[Fix]``.
    Groups the sentences of one epoch (same UTC time of day, :mod:`devices.nmea.epoch`) into one
    :class:`Fix` (:mod:`devices.nmea.fix`), counts every rejected line by kind and never raises.
    Learns which sentence ends the receiver's cycle and delivers the fix on it
    (:class:`~devices.nmea.cycle.CycleLearner`).
:class:`GnssReader` (:mod:`devices.nmea.reader`)
    A :class:`~devices.device_reader.DeviceReader` (one port-reading thread) feeding an
    :class:`EpochAssembler`;
    keeps only the newest fix (a consumer is never more than one epoch behind,
    however slowly it reads) and the statistics for the UI.
:func:`main` (:mod:`devices.nmea.__main__`)
    ``python -m devices.nmea SOURCE`` prints one JSON object per epoch (gpsd
    TPV names where they exist) and a summary.

Sources of the fields (NMEA 0183 v4.11; talkers GP GN GL GA GB BD GQ):

- GGA: time, latitude, longitude, quality (0-8), satellites used, HDOP,
  altitude above MSL, geoid separation, age of corrections, base station id.
- GNS: as GGA, with a mode character per constellation (used for quality when
  there is no GGA).
- RMC: time, date, status A/V, position, speed (knots), course, magnetic
  variation, mode indicator (2.3+), navigational status (4.1+).
- GLL: position and status when nothing better is sent.
- VTG: speed and course when there is no RMC.
- GSA: fix mode 1/2/3, satellites used, PDOP/HDOP/VDOP, system id (4.1+).
- GSV: satellites in view; a trailing signal id (4.1+) is not a satellite.
- GST: 1-sigma latitude / longitude / altitude errors in metres.
- ZDA: date, with its own time of day; it never opens an epoch (see
  :class:`EpochAssembler`).

A sentence with an impossible value (a negative HDOP or sigma, a course of
720 deg, an RMC date ``2303``...) is counted as ``malformed_field`` and not
used at all; an epoch whose time is not after the newest fix's is counted as
``time_backwards`` and not delivered (details in :class:`EpochAssembler`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from devices.nmea.assembler import EpochAssembler, iter_stream_fixes
from devices.nmea.cycle import CYCLE_LEARN_EPOCHS, CYCLE_LEARN_S, CycleLearner
from devices.nmea.fix import UERE_M, VDOP_PER_HDOP, BadKind, Fix, FixMode, FixQuality, fix_to_json
from devices.nmea.reader import GnssReader
from devices.nmea.sentences import parse_gsv, parse_sentence

if TYPE_CHECKING:
    from devices.nmea.__main__ import main

# What other packages and the tests import from here; the rest is imported from its module.
__all__ = [
    "BadKind",
    "CYCLE_LEARN_EPOCHS",
    "CYCLE_LEARN_S",
    "CycleLearner",
    "EpochAssembler",
    "Fix",
    "FixMode",
    "FixQuality",
    "GnssReader",
    "UERE_M",
    "VDOP_PER_HDOP",
    "fix_to_json",
    "iter_stream_fixes",
    "main",
    "parse_gsv",
    "parse_sentence",
]


def __getattr__(name: str) -> object:
    # The command line lives in devices.nmea.__main__ and is imported only when asked for:
    # importing it here would make ``python -m devices.nmea`` find it already imported (runpy
    # warns of that).
    if name == "main":
        from devices.nmea import __main__ as cli

        return cli.main
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | {"main"})
