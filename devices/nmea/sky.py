"""The sky of one epoch: every satellite in view (GSV) with whether the solution uses it (GSA).

:func:`sky_of` reads the GSV and GSA sentences of a :class:`~devices.nmea.fix.Fix` (its ``raw``
lines) into :class:`SkySatellite` rows for a sky plot and a table.  Systems are named from the
talker (``GP`` GPS, ``GL`` GLONASS, ``GA`` Galileo, ``GB``/``BD`` BeiDou, ``GQ`` QZSS, ``GI``
NavIC), from the GSA system id of NMEA 4.10 (1 GPS ... 6 NavIC), and for the combined ``GN``
talker from the NMEA PRN ranges (1-32 GPS, 33-64 SBAS, 65-96 GLONASS); PRNs 33-64 under ``GP``
are SBAS.  Field sources: NMEA 0183
v4.11 GSV (PRN, elevation, azimuth, SNR; trailing signal id) and GSA (fields 3-14, satellites
used; field 18, system id).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from devices.errors import DeviceError
from devices.nmea.sentences import _gsa_system_id, parse_gsv, parse_sentence

__all__ = ["SkySatellite", "sky_of", "SYSTEMS"]

#: Talker -> system name.
SYSTEMS = {"GP": "GPS", "GL": "GLONASS", "GA": "Galileo", "GB": "BeiDou", "BD": "BeiDou",
           "GQ": "QZSS", "QZ": "QZSS", "GI": "NavIC"}
#: NMEA 4.10 GSA system id -> system name.
_SYSTEM_IDS = {"1": "GPS", "2": "GLONASS", "3": "Galileo", "4": "BeiDou", "5": "QZSS", "6": "NavIC"}


@dataclass(frozen=True)
class SkySatellite:
    """One satellite in view.

    Attributes
    ----------
    system : str
        ``"GPS"``, ``"GLONASS"``, ``"Galileo"``, ``"BeiDou"``, ``"QZSS"``, ``"NavIC"``, ``"SBAS"``.
    prn : int
        Its number as the receiver sends it (GSV field 4 of each group).
    elevation_deg, azimuth_deg : float or None
        Above the horizon (0-90) and from true north (0-359), degrees; None when not sent.
    snr_dbhz : float or None
        Signal to noise, dB-Hz (the best of its signals); None when not tracked.
    used : bool
        Listed in the epoch's GSA as used in the solution.
    """

    system: str
    prn: int
    elevation_deg: float | None
    azimuth_deg: float | None
    snr_dbhz: float | None
    used: bool


def _system(talker: str, prn: int) -> str:
    name = SYSTEMS.get(talker)
    if name == "GPS" and 33 <= prn <= 64:
        return "SBAS"  # receivers send SBAS under the GP talker (NMEA PRNs 33-64)
    if name is not None:
        return name
    if 1 <= prn <= 32:
        return "GPS"
    if 33 <= prn <= 64:
        return "SBAS"
    if 65 <= prn <= 96:
        return "GLONASS"
    return talker or "?"


def sky_of(lines: Iterable[str]) -> list[SkySatellite]:
    """The satellites in view of one epoch's sentences (e.g. ``Fix.raw``), sorted by system
    and PRN; empty when the epoch has no GSV.  Lines that are not GSV / GSA or cannot be read
    are skipped.

    Examples
    --------
    >>> sky = sky_of(["$GPGSV,1,1,02,12,40,083,46,15,10,200,*72",
    ...               "$GPGSA,A,3,12,,,,,,,,,,,,1.8,1.0,1.5*3D"])
    >>> [(s.system, s.prn, s.elevation_deg, s.azimuth_deg, s.snr_dbhz, s.used) for s in sky]
    [('GPS', 12, 40.0, 83.0, 46.0, True), ('GPS', 15, 10.0, 200.0, None, False)]
    """
    seen: dict[tuple[str, int], SkySatellite] = {}
    used: set[tuple[str, int]] = set()
    for line in lines:
        kind = line[3:6]
        if kind not in ("GSV", "GSA"):
            continue
        try:
            msg = parse_sentence(line.encode("ascii"))
            if kind == "GSV":
                page = parse_gsv(msg)
            else:
                system_id = _gsa_system_id(msg.data)
                for text in msg.data[2:14]:
                    if text.strip():
                        prn = int(text)
                        name = _SYSTEM_IDS.get(system_id or "") or _system(msg.talker, prn)
                        if name == "GPS" and 33 <= prn <= 64:
                            name = "SBAS"  # listed with GPS's (system id 1) by u-blox
                        used.add((name, prn))
                continue
        except (DeviceError, ValueError, UnicodeError, AttributeError, IndexError):
            continue
        for sat in page.satellites:
            key = (_system(page.talker, sat.prn), sat.prn)
            old = seen.get(key)
            snr = sat.snr_dbhz
            if old is not None and old.snr_dbhz is not None and (snr is None or old.snr_dbhz >= snr):
                snr = old.snr_dbhz  # another signal of the same satellite: keep the best SNR
            seen[key] = SkySatellite(key[0], sat.prn, sat.elevation_deg, sat.azimuth_deg, snr, False)
    return sorted((SkySatellite(s.system, s.prn, s.elevation_deg, s.azimuth_deg, s.snr_dbhz,
                                (s.system, s.prn) in used) for s in seen.values()),
                  key=lambda s: (s.system, s.prn))
