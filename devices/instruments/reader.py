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
from collections.abc import Callable

from devices.caliper import (
    CaliperAssembler,
    CaliperDiameter,
    CaliperLength,
    CaliperSpecies,
    SpeciesTable,
)
from devices.instruments import InstrumentParser
from devices.readings import InstrumentInfo, RangefinderShot
from devices.transport import DeviceStatus, FramerFactory, LineFramer, PortReader, SerialSettings

log = logging.getLogger(__name__)

MODELS_WITHOUT_COMPASS = frozenset({"TP200", "TP100"})
"""TruPulse models (``$PLTIT,ID`` model field) with no compass: their azimuth 0.00 means none."""


class InstrumentReader:
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
        self.settings = settings
        self.parser = parser or InstrumentParser()
        self.assembler = CaliperAssembler(species, sends_length=sends_length)
        self.length_wait_s = length_wait_s
        self.has_compass = has_compass
        self._on_reading = on_reading
        self._lock = threading.Lock()
        self._pending_since: float | None = None
        self.port_reader = PortReader(
            settings,
            self._handle_line,
            on_status=on_status,
            framer_factory=framer_factory,
            name=name,
            on_idle=self._on_idle,
        )

    # -- lifecycle (same shape as PortReader)

    def start(self) -> InstrumentReader:
        """Start the reader thread. Returns self."""
        self.port_reader.start()
        return self

    def stop(self, timeout_s: float = 5.0) -> bool:
        """Stop the thread, then deliver a caliper tree still waiting for its length."""
        ok = self.port_reader.stop(timeout_s)
        with self._lock:
            trees = self.assembler.flush()
        self._emit_all(trees)
        return ok

    def __enter__(self) -> InstrumentReader:
        """Start (unless already started); ``with`` stops it on exit."""
        return self if self.port_reader._thread is not None else self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        return self.port_reader.running

    @property
    def stats(self):
        """The port reader's :class:`~devices.transport.ReaderStats`."""
        return self.port_reader.stats

    @property
    def counts(self) -> Counter[str]:
        """Parser and caliper counts (accepted, rejected_<reason>, trees ...), a copy."""
        with self._lock:
            return Counter(self.parser.counts) + self.assembler.counts

    # -- thread side

    def _emit_all(self, readings) -> None:
        for reading in readings:
            self._on_reading(reading)

    def _handle_line(self, line: bytes, t: float) -> None:
        with self._lock:
            reading = self.parser.parse(line, t)
            out: list[object] = []
            if isinstance(reading, CaliperSpecies | CaliperDiameter | CaliperLength):
                out = self.assembler.feed(reading)
                self._pending_since = t if self.assembler._pending is not None else None
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

