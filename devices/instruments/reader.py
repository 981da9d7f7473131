"""InstrumentReader: a :class:`devices.transport.PortReader` that turns lines into readings.

The port thread (``fieldapp-reader-<name>``) frames lines (or, for BLE streams, scans for
checksummed sentences), parses each with an :class:`~devices.instruments.InstrumentParser`,
assembles caliper fragments into one reading per tree, and calls ``on_reading`` with frozen
readings. Rejected lines are counted in :attr:`InstrumentReader.counts`, never raised.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

from devices.caliper import (
    CaliperAssembler,
    CaliperDiameter,
    CaliperLength,
    CaliperSpecies,
    SpeciesTable,
)
from devices.device_reader import DeviceReader
from devices.instruments.parser import InstrumentParser
from devices.readings import InstrumentInfo, RangefinderShot
from devices.transport import DeviceStatus, FramerFactory, LineFramer, PortReader, ReaderStats, SerialSettings

log = logging.getLogger(__name__)

MODELS_WITHOUT_COMPASS = frozenset({"TP200", "TP100"})
"""TruPulse models (``$PLTIT,ID`` model field) with no compass: their azimuth 0.00 means none."""


class InstrumentReader(DeviceReader):
    """Reads one instrument port on a daemon thread and delivers frozen readings.

    Parameters
    ----------
    settings : SerialSettings
    on_reading : callable(reading) -> None
        Called on the reader thread with each :class:`~devices.readings.RangefinderShot`,
        :class:`~devices.readings.InclinometerReading`, :class:`~devices.readings.CaliperReading`
        or :class:`~devices.readings.InstrumentInfo`. Keep it quick.
    on_status : callable(DeviceStatus) -> None, optional
    parser : InstrumentParser, optional
        Default: one accepting every registered sentence.
    framer_factory : callable, optional
        :class:`~devices.transport.LineFramer` (default) or
        :class:`~devices.instruments.SentenceScanner` for BLE streams.
    species : SpeciesTable, optional
        Caliper species mapping.
    sends_length : bool
        Caliper sends ``$PHGF,LEN`` after each diameter (wait for it, at most
        ``length_wait_s``).
    has_compass : bool or None
        False: azimuth is reported as ``None`` (TruPulse 200 sends 0.00). None (default):
        learnt from a ``$PLTIT,ID`` reply, compass assumed until then.
    name : str
        Thread name suffix (``fieldapp-reader-<name>``).
    """

    def __init__(
        self,
        settings: SerialSettings,
        on_reading: Callable[[object], None],
        on_status: Callable[[DeviceStatus], None] | None = None,
        *,
        parser: InstrumentParser | None = None,
        framer_factory: FramerFactory = LineFramer,
        species: SpeciesTable | None = None,
        sends_length: bool = False,
        length_wait_s: float = 0.5,
        has_compass: bool | None = None,
        name: str = "instrument",
    ) -> None:
        self.parser = parser or InstrumentParser()
        self.assembler = CaliperAssembler(species, sends_length=sends_length)
        self.length_wait_s = length_wait_s
        self.has_compass = has_compass
        self._on_reading = on_reading
        self._lock = threading.Lock()
        self._pending_since: float | None = None
        super().__init__(settings, on_status, framer_factory=framer_factory, name=name)

    # -- lifecycle (start, stop, running, settings: DeviceReader's)

    def __enter__(self) -> InstrumentReader:
        """Start (unless already started); ``with`` stops it on exit."""
        return self if self._port.started else self.start()

    @property
    def port_reader(self) -> PortReader:
        """The :class:`~devices.transport.PortReader` underneath."""
        return self._port

    @property
    def stats(self) -> ReaderStats:
        """The port reader's :class:`~devices.transport.ReaderStats`."""
        return self._port.stats

    @property
    def counts(self) -> Counter[str]:
        """Parser and caliper counts (accepted, rejected_<reason>, trees ...), a copy."""
        with self._lock:
            return Counter(self.parser.counts) + self.assembler.counts

    # -- thread side

    def _emit_all(self, readings: Iterable[object]) -> None:
        for reading in readings:
            self._on_reading(reading)

    def _on_stopped(self) -> None:
        """After stop: deliver a caliper tree still waiting for its length."""
        with self._lock:
            trees = self.assembler.flush()
        self._emit_all(trees)

    def _on_line(self, line: bytes, t: float) -> None:
        with self._lock:
            reading = self.parser.parse(line, t)
            out: Sequence[object] = []
            if isinstance(reading, CaliperSpecies | CaliperDiameter | CaliperLength):
                out = self.assembler.feed(reading)
                self._pending_since = t if self.assembler.waiting else None
            elif isinstance(reading, InstrumentInfo):
                if reading.model.upper() in MODELS_WITHOUT_COMPASS:
                    self.has_compass = False
                out = [reading]
            elif isinstance(reading, RangefinderShot):
                if self.has_compass is False and reading.azimuth_deg is not None:
                    reading = dataclasses.replace(reading, azimuth_deg=None)
                out = [reading]
            elif reading is not None:
                out = [reading]
        self._emit_all(out)

    def _on_idle(self, t: float) -> None:
        with self._lock:
            if self._pending_since is None or t - self._pending_since < self.length_wait_s:
                return
            self._pending_since = None
            trees = self.assembler.flush()
        self._emit_all(trees)

