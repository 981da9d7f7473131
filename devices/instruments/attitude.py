"""Tilt / attitude parsers: NMEA ``XDR`` angular transducers, ``$PASHR``, ``$PTNL,AVR``,
``$--HPR``, and the vendor ASCII inclinometer (``X=+00.430`` / ``Y=-00.084``).

The standard sentences go through pynmea2 (``XDR``, Ashtech ``PASHR``, Trimble ``PTNL,AVR``);
Unicore ``HPR`` is not in pynmea2 and is split here. XDR transducer ids are mapped explicitly
(:data:`XDR_ANGLE_IDS`); an XDR with no mapped angular transducer is not a tilt reading.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import pynmea2

from devices.instruments.sentence import Sentence, opt_float
from devices.readings import InclinometerReading

XDR_ANGLE_IDS: dict[str, str] = {
    "PTCH": "pitch",
    "PITCH": "pitch",
    "ROLL": "roll",
    "HEEL": "roll",
    "YAW": "heading",
    "HEAD": "heading",
}
"""XDR transducer id (type ``A``, unit ``D``) -> reading field. Ids seen in gpsd's test logs
(pypilot ``PTCH``/``ROLL``, TNT Revolution ``PITCH``/``ROLL``)."""


def parse_xdr(s: Sentence, raw: bytes, t: float) -> InclinometerReading | None:
    """NMEA ``$--XDR`` with angular transducers (type ``A``, unit ``D``); ``None`` if none mapped."""
    msg = pynmea2.parse(s.text, check=False)
    values: dict[str, float] = {}
    for i in range(msg.num_transducers):
        tr = msg.get_transducer(i)
        field = XDR_ANGLE_IDS.get(tr.id.strip().upper())
        if tr.type != "A" or field is None:
            continue
        if tr.units not in ("D", ""):
            raise ValueError(f"XDR {tr.id} unit {tr.units!r} is not D")
        value = opt_float(tr.value, f"XDR {tr.id}")
        if value is not None:
            values[field] = value
    if not values:
        return None
    return InclinometerReading(
        pitch_deg=values.get("pitch"),
        roll_deg=values.get("roll"),
        heading_deg=values.get("heading"),
        protocol="nmea-xdr",
        raw=raw,
        t_monotonic_s=t,
    )


def parse_pashr(s: Sentence, raw: bytes, t: float) -> InclinometerReading | None:
    """Ashtech / RT300 ``$PASHR`` attitude: heading, roll, pitch (pynmea2 ``ASHRATT``)."""
    msg = pynmea2.parse(s.text, check=False)
    if not isinstance(msg, pynmea2.ash.ASHRATT):
        return None
    return InclinometerReading(
        pitch_deg=msg.pitch,
        roll_deg=msg.roll,
        heading_deg=msg.true_heading,
        protocol="nmea-pashr",
        raw=raw,
        t_monotonic_s=t,
    )


def parse_avr(s: Sentence, raw: bytes, t: float) -> InclinometerReading | None:
    """Trimble ``$PTNL,AVR``: yaw -> heading, tilt -> pitch, roll (pynmea2 ``TNLAVR``)."""
    msg = pynmea2.parse(s.text, check=False)
    return InclinometerReading(
        pitch_deg=opt_float(msg.tilt_angle, "AVR tilt"),
        roll_deg=opt_float(msg.roll_angle, "AVR roll"),
        heading_deg=opt_float(msg.yaw_angle, "AVR yaw"),
        protocol="nmea-avr",
        raw=raw,
        t_monotonic_s=t,
    )


def parse_hpr(s: Sentence, raw: bytes, t: float) -> InclinometerReading:
    """Unicore ``$--HPR,<utc>,<heading>,<pitch>,<roll>,<quality>,...``."""
    f = list(s.fields) + [""] * 4
    return InclinometerReading(
        pitch_deg=opt_float(f[2], "HPR pitch"),
        roll_deg=opt_float(f[3], "HPR roll"),
        heading_deg=opt_float(f[1], "HPR heading"),
        protocol="nmea-hpr",
        raw=raw,
        t_monotonic_s=t,
    )


_AXIS_RE = re.compile(r"^\s*([A-Za-z])\s*=\s*([+-]?\d+(?:\.\d+)?)\s*$")


class AsciiAxisParser:
    """Vendor ASCII inclinometer lines ``<AXIS>=<signed degrees>``, one axis per line.

    Example of a non-NMEA device (BEI RS232 inclinometer, 9600 baud 8E1, ``X=+00.430`` then
    ``Y=-00.084``). ``axis_map`` says which axis is pitch and which is roll for the way the
    sensor is mounted.

    Parameters
    ----------
    axis_map : mapping of str to ``"pitch"`` or ``"roll"``
        Default ``{"X": "pitch", "Y": "roll"}``.
    protocol : str

    Examples
    --------
    >>> AsciiAxisParser()(b"X=+00.430\\r\\n", 0.0).pitch_deg
    0.43
    """

    def __init__(
        self, axis_map: Mapping[str, str] | None = None, protocol: str = "ascii-inclinometer"
    ) -> None:
        self.axis_map = dict(axis_map or {"X": "pitch", "Y": "roll"})
        bad = {v for v in self.axis_map.values()} - {"pitch", "roll"}
        if bad:
            raise ValueError(f"axis_map targets {sorted(bad)} are not 'pitch' or 'roll'")
        self.protocol = protocol

    def __call__(self, line: bytes, t: float) -> InclinometerReading:
        """Parse one line; raises ``ValueError`` for anything but ``<mapped axis>=<number>``."""
        try:
            text = line.decode("ascii")
        except UnicodeDecodeError as exc:
            raise ValueError(f"non-ASCII bytes in {line[:40]!r}") from exc
        m = _AXIS_RE.match(text)
        if not m:
            raise ValueError(f"{line[:40]!r} is not an AXIS=value line")
        axis, value = m.group(1).upper(), float(m.group(2))
        field = self.axis_map.get(axis)
        if field is None:
            raise ValueError(f"axis {axis!r} is not mapped (known: {sorted(self.axis_map)})")
        if not -90.0 <= value <= 90.0:
            raise ValueError(f"{axis} tilt {value} deg is outside -90..90")
        return InclinometerReading(
            pitch_deg=value if field == "pitch" else None,
            roll_deg=value if field == "roll" else None,
            protocol=self.protocol,
            raw=line.rstrip(b"\r\n"),
            t_monotonic_s=t,
        )


parse_ascii_axis = AsciiAxisParser()
"""Default ASCII inclinometer parser (X = pitch, Y = roll)."""
