"""Device configuration: the one place that lists device kinds and protocols.

A device is a kind (``gnss``, ``rangefinder``, ``inclinometer``, ``caliper``), a protocol, and
a port URL with serial settings (:class:`DeviceConfig`). :func:`open_device` builds the reader
for it (not started; call ``start()``), importing the protocol's code only then.

Protocols (:data:`PROTOCOLS`):

=====================  ============  ==================================================
name                   kind          instrument / framing
=====================  ============  ==================================================
nmea                   gnss          any NMEA 0183 receiver (:class:`devices.nmea.GnssReader`)
trupulse               rangefinder   Laser Technology TruPulse ``$PLTIT`` (lines)
trupulse-200           rangefinder   TruPulse 200 (no compass: azimuth None)
laserace-trimble       rangefinder   Trimble LaserAce ``$PTNLA`` (lines)
laserace-mdl           rangefinder   MDL LaserAce ``$PMDLA`` (lines)
vertex                 rangefinder   Haglöf Vertex Laser Geo ``$PHGF,HVV`` (sentence scan,
                                     works for SPP lines and BLE fragments alike)
nmea-attitude          inclinometer  ``XDR`` / ``PASHR`` / ``PTNL,AVR`` / ``HPR`` (lines)
ascii-inclinometer     inclinometer  ``X=+00.430`` / ``Y=-00.084``; default 9600 8E1
digitech               caliper       Haglöf Digitech ``$PHGF,SPC/DIA/LEN`` (sentence scan)
=====================  ============  ==================================================

Errors: :class:`ValueError` for an unknown kind or protocol or a protocol of another kind;
:class:`devices.errors.PortUnavailable` (naming the port) from :func:`open_device` when the
port is missing or busy.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from devices.device_reader import DeviceReader
    from devices.transport import SerialSettings

KINDS: tuple[str, ...] = ("gnss", "rangefinder", "inclinometer", "caliper")


@dataclass(frozen=True)
class Protocol:
    """One protocol: its kind, the sentences it accepts, framing and default serial framing."""

    name: str
    kind: str
    description: str
    sentences: tuple[str, ...] = ()
    """:data:`devices.instruments.parser.SENTENCE_PARSERS` keys accepted (empty: NMEA receiver)."""
    line_parsers: tuple[str, ...] = ()
    """:data:`devices.instruments.parser.LINE_PARSERS` names tried for non-NMEA lines."""
    framer: str = "devices.transport:LineFramer"
    baudrate: int = 9600
    bytesize: int = 8
    parity: str = "N"
    stopbits: float = 1
    options: dict[str, Any] = field(default_factory=dict)
    """Defaults passed to the reader (``has_compass``, ``sends_length``)."""


_SCAN = "devices.instruments.scanner:SentenceScanner"
_PROTOCOL_LIST = [
    Protocol("nmea", "gnss", "NMEA 0183 GNSS receiver", baudrate=9600),
    Protocol("trupulse", "rangefinder", "Laser Technology TruPulse 360 ($PLTIT)",
             sentences=("PLTIT",), baudrate=4800),
    Protocol("trupulse-200", "rangefinder", "Laser Technology TruPulse 200, no compass",
             sentences=("PLTIT",), baudrate=4800, options={"has_compass": False}),
    Protocol("laserace-trimble", "rangefinder", "Trimble LaserAce ($PTNLA)",
             sentences=("PTNLA",), baudrate=4800),
    Protocol("laserace-mdl", "rangefinder", "MDL LaserAce ($PMDLA)",
             sentences=("PMDLA",), baudrate=4800),
    Protocol("vertex", "rangefinder", "Haglöf Vertex Laser Geo ($PHGF,HVV; BLE or SPP)",
             sentences=("PHGF,HVV",), framer=_SCAN),
    Protocol("nmea-attitude", "inclinometer", "NMEA tilt: XDR, PASHR, PTNL AVR, HPR",
             sentences=("XDR", "PASHR", "PTNL,AVR", "HPR")),
    Protocol("ascii-inclinometer", "inclinometer", "ASCII X=/Y= inclinometer (BEI), 8E1",
             line_parsers=("ascii-inclinometer",), parity="E"),
    Protocol("digitech", "caliper", "Haglöf Digitech caliper ($PHGF,SPC/DIA/LEN)",
             sentences=("PHGF,SPC", "PHGF,DIA", "PHGF,LEN"), framer=_SCAN),
]
PROTOCOLS: dict[str, Protocol] = {p.name: p for p in _PROTOCOL_LIST}
"""Every protocol by name."""


def protocols(kind: str | None = None) -> list[Protocol]:
    """The protocols of ``kind`` (all when ``None``). Raises ``ValueError`` for an unknown kind."""
    if kind is not None and kind not in KINDS:
        raise ValueError(f"device kind {kind!r} is not one of {', '.join(KINDS)}")
    return [p for p in _PROTOCOL_LIST if kind is None or p.kind == kind]


def register_protocol(protocol: Protocol) -> None:
    """Add (or replace) a protocol, e.g. another vendor's rangefinder."""
    if protocol.kind not in KINDS:
        raise ValueError(f"device kind {protocol.kind!r} is not one of {', '.join(KINDS)}")
    PROTOCOLS[protocol.name] = protocol
    _PROTOCOL_LIST[:] = [p for p in _PROTOCOL_LIST if p.name != protocol.name] + [protocol]


@dataclass(frozen=True)
class DeviceConfig:
    """One configured device.

    Parameters
    ----------
    kind : str
        One of :data:`KINDS`.
    protocol : str
        A :data:`PROTOCOLS` name of that kind.
    url : str
        Port name or pyserial URL (``/dev/ttyUSB0``, ``COM7``, ``socket://host:port``, a pty
        or simulator symlink path).
    baudrate, bytesize, parity, stopbits : optional
        Override the protocol's default serial framing.
    read_timeout_s : float
    options : dict
        Reader options over the protocol's (``has_compass``, ``sends_length``,
        ``species_table`` = path of a JSON :class:`devices.caliper.SpeciesTable`).
    name : str, optional
        Reader thread suffix (default: the kind).

    Raises
    ------
    ValueError
        Unknown kind or protocol, or a protocol of another kind.
    """

    kind: str
    protocol: str
    url: str
    baudrate: int | None = None
    bytesize: int | None = None
    parity: str | None = None
    stopbits: float | None = None
    read_timeout_s: float = 0.1
    options: dict[str, Any] = field(default_factory=dict)
    name: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"device kind {self.kind!r} is not one of {', '.join(KINDS)}")
        proto = PROTOCOLS.get(self.protocol)
        if proto is None:
            raise ValueError(
                f"protocol {self.protocol!r} unknown; {self.kind} protocols: "
                + ", ".join(p.name for p in protocols(self.kind))
            )
        if proto.kind != self.kind:
            raise ValueError(f"protocol {self.protocol!r} is for {proto.kind}, not {self.kind}")

    @property
    def protocol_spec(self) -> Protocol:
        return PROTOCOLS[self.protocol]

    def serial_settings(self) -> SerialSettings:
        """The :class:`devices.transport.SerialSettings` (protocol defaults + overrides)."""
        from devices.transport import SerialSettings

        p = self.protocol_spec
        return SerialSettings(
            url=self.url,
            baudrate=self.baudrate or p.baudrate,
            bytesize=self.bytesize or p.bytesize,
            parity=self.parity or p.parity,
            stopbits=self.stopbits or p.stopbits,
            read_timeout_s=self.read_timeout_s,
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DeviceConfig:
        """From a plain mapping (a settings file entry). Raises ``ValueError``/``TypeError``."""
        return cls(**data)


def _import(target: str) -> Any:
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


def open_device(
    config: DeviceConfig | dict[str, Any],
    on_reading: Callable[[Any], None],
    on_status: Callable[[Any], None] | None = None,
    *,
    check_port: bool = True,
) -> DeviceReader:
    """Build the reader for ``config`` (not started: call ``start()``, then ``stop()``).

    Parameters
    ----------
    config : DeviceConfig or dict
    on_reading : callable
        Receives frozen readings on the reader thread: :class:`devices.nmea.Fix` for gnss,
        :mod:`devices.readings` types for instruments.
    on_status : callable(DeviceStatus), optional
    check_port : bool
        Open and close the port once first, so a missing or busy port fails here (default).
        Without it the reader reports the port as disconnected and keeps retrying.

    Returns
    -------
    devices.instruments.reader.InstrumentReader or devices.nmea.GnssReader

    Raises
    ------
    PortUnavailable
        The port cannot be opened (missing, busy, permission); the message names it.
    ValueError
        Bad kind, protocol or serial setting.
    """
    if isinstance(config, dict):
        config = DeviceConfig.from_dict(config)
    settings = config.serial_settings()
    if check_port:
        from devices.transport import close_port, open_port

        close_port(open_port(settings))  # raises PortUnavailable naming the port
    proto = config.protocol_spec
    options = {**proto.options, **config.options}
    name = config.name or config.kind
    if config.kind == "gnss":
        from devices.nmea import GnssReader

        return GnssReader(settings, on_fix=on_reading, on_status=on_status, **options)
    from devices.instruments.parser import InstrumentParser
    from devices.instruments.reader import InstrumentReader

    species = options.pop("species_table", None)
    if isinstance(species, str):
        from devices.caliper import SpeciesTable

        species = SpeciesTable.load(species)
    parser = InstrumentParser(
        sentences=proto.sentences, line_parsers=proto.line_parsers
    )
    return InstrumentReader(
        settings,
        on_reading,
        on_status,
        parser=parser,
        framer_factory=_import(proto.framer),
        species=species,
        name=name,
        **options,
    )
