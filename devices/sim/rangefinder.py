"""Simulated laser rangefinder: answers each shot with the HV sentence for a target on a
scripted terrain profile.

The profile is a list of (horizontal distance from the OHWM, ground elevation) pairs in feet;
the ground between them is straight. A shot goes from the current station to a target, both
at the same height above ground (a crew sights a rod at eye height), so the inclination is the
ground slope between them. With ``advance`` (default) the station moves to each target after
the shot, walking the transect leap-frog fashion.

Triggers: :meth:`RangefinderSim.shoot` (the app or a test), a timer (``interval_s``), a key in
the CLI, or the app writing the TruPulse remote-fire command ``$GO`` to the port (``$ID``
answers ``$PLTIT,ID``; other ``$`` commands answer ``$OK``).

Dialects: ``trupulse`` (``$PLTIT,HV``, distances to 0.1 unit with the target-quality digit,
angles to 0.01 deg), ``vertex`` (``$PHGF,HVV``, 0.1 unit and 0.1 deg; ``ble=True`` sends it
in 20-byte fragments without line ends, the way BLE notifies arrive).
"""

from __future__ import annotations

import bisect
import itertools
import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from devices.instruments.sentence import with_checksum
from devices.readings import LengthUnit
from devices.sim.base import IntervalTriggered, Simulator, check_interval_s

DIALECTS = ("trupulse", "vertex")


@dataclass(frozen=True)
class ScriptedShot:
    """The true geometry of one simulated shot (before the instrument rounds it)."""

    station_ft: float
    target_ft: float
    horizontal_distance_ft: float
    vertical_distance_ft: float
    slope_distance_ft: float
    inclination_deg: float
    slope_pct: float
    azimuth_deg: float | None
    sentence: bytes


class TerrainProfile:
    """Ground elevation along a transect, linear between (distance_ft, elevation_ft) vertices.

    Raises
    ------
    ValueError
        Fewer than 2 vertices, or distances not strictly increasing.

    Examples
    --------
    >>> p = TerrainProfile([(0, 0), (40, 1.6), (120, 16.8)])
    >>> round(p.elevation_ft(80), 3), round(p.slope_pct(60, 100), 2)
    (9.2, 19.0)
    """

    def __init__(self, vertices: Sequence[Sequence[float]]) -> None:
        pts = [(float(d), float(e)) for d, e in vertices]
        if len(pts) < 2:
            raise ValueError("a terrain profile needs at least 2 (distance, elevation) pairs")
        if any(b[0] <= a[0] for a, b in itertools.pairwise(pts)):
            raise ValueError("profile distances must increase strictly")
        self.vertices = pts
        self._d = [p[0] for p in pts]

    @property
    def start_ft(self) -> float:
        return self._d[0]

    @property
    def end_ft(self) -> float:
        return self._d[-1]

    def elevation_ft(self, distance_ft: float) -> float:
        """Ground elevation at ``distance_ft`` (clamped to the profile's ends)."""
        d = min(max(distance_ft, self._d[0]), self._d[-1])
        i = max(1, min(bisect.bisect_left(self._d, d), len(self._d) - 1))
        (d0, e0), (d1, e1) = self.vertices[i - 1], self.vertices[i]
        return e0 + (e1 - e0) * (d - d0) / (d1 - d0)

    def slope_pct(self, from_ft: float, to_ft: float) -> float:
        """Mean slope between two distances, percent (rise over run, signed)."""
        return 100.0 * (self.elevation_ft(to_ft) - self.elevation_ft(from_ft)) / (to_ft - from_ft)


class RangefinderSim(IntervalTriggered, Simulator):
    """A TruPulse or Vertex answering shots on a terrain profile.

    Parameters
    ----------
    profile : TerrainProfile or sequence of (distance_ft, elevation_ft)
    targets_ft : sequence of float, optional
        Distances of the scripted targets in order (default: the profile's vertices after
        the first). After the last, the script starts again from ``station_ft``.
    station_ft : float
        Starting station (default: the profile's start, the OHWM).
    azimuth_deg : float or None
        Transect azimuth (the compass reading when shooting landward); None for an instrument
        without compass (TruPulse 200 sends 0.00).
    units : "F", "Y" or "M"
    dialect : "trupulse" or "vertex"
    advance : bool
        Move the station to each target after the shot.
    interval_s : float, optional
        Shoot on a timer, seconds (finite, > 0); None: only on demand.
    low_quality_rate : float
        Probability that a TruPulse shot carries the low-quality digit (1).
    ble : bool
        Vertex: send in 20-byte fragments, no line end, some with a glued legacy prefix.
    seed : int, optional
    endpoint, link, name : see :class:`~devices.sim.base.Simulator`.
    """

    kind = "rangefinder"

    def __init__(
        self,
        profile: TerrainProfile | Sequence[Sequence[float]],
        *,
        targets_ft: Sequence[float] | None = None,
        station_ft: float | None = None,
        azimuth_deg: float | None = 0.0,
        units: str = "F",
        dialect: str = "trupulse",
        advance: bool = True,
        interval_s: float | None = None,
        low_quality_rate: float = 0.0,
        ble: bool = False,
        seed: int | None = None,
        model: str = "TP360",
        firmware: str = "2.10",
        **kw: Any,
    ) -> None:
        if dialect not in DIALECTS:
            raise ValueError(f"dialect {dialect!r} is not one of {', '.join(DIALECTS)}")
        interval_s = check_interval_s("interval_s", interval_s)
        if not 0.0 <= low_quality_rate <= 1.0:
            raise ValueError(f"low_quality_rate {low_quality_rate} outside 0..1")
        self.profile = profile if isinstance(profile, TerrainProfile) else TerrainProfile(profile)
        self.units = LengthUnit(units.upper())
        self.dialect = dialect
        self.targets_ft = list(targets_ft if targets_ft is not None else self.profile._d[1:])
        self.start_station_ft = self.profile.start_ft if station_ft is None else float(station_ft)
        self.station_ft = self.start_station_ft
        self.azimuth_deg = azimuth_deg
        self.advance = advance
        self.interval_s = interval_s
        self.low_quality_rate = low_quality_rate
        self.ble = ble
        self.model, self.firmware = model, firmware
        self._rng = random.Random(seed)
        self._next_target = 0
        self._due: float | None = None
        self._inbuf = b""
        self.shots: list[ScriptedShot] = []
        super().__init__(**kw)

    # -- geometry and sentences

    def geometry(self, station_ft: float, target_ft: float) -> ScriptedShot:
        """The true shot from ``station_ft`` to ``target_ft`` (sentence left empty)."""
        hd = abs(target_ft - station_ft)
        if hd <= 0:
            raise ValueError("target and station are the same point")
        dz = self.profile.elevation_ft(target_ft) - self.profile.elevation_ft(station_ft)
        az = self.azimuth_deg
        if az is not None and target_ft < station_ft:
            az = (az + 180.0) % 360.0
        return ScriptedShot(
            station_ft=station_ft,
            target_ft=target_ft,
            horizontal_distance_ft=hd,
            vertical_distance_ft=dz,
            slope_distance_ft=math.hypot(hd, dz),
            inclination_deg=math.degrees(math.atan2(dz, hd)),
            slope_pct=100.0 * dz / hd,
            azimuth_deg=az,
            sentence=b"",
        )

    def sentence_for(self, shot: ScriptedShot, low_quality: bool = False) -> bytes:
        """The bytes the instrument sends for ``shot`` in this dialect and unit."""
        u = self.units
        hd, sd = u.from_ft(shot.horizontal_distance_ft), u.from_ft(shot.slope_distance_ft)
        az = 0.0 if shot.azimuth_deg is None else shot.azimuth_deg
        if self.dialect == "trupulse":
            flag = "1" if low_quality else "0"
            body = (
                f"PLTIT,HV,{hd:.1f}{flag},{u.value},{az:.2f},D,{shot.inclination_deg:.2f},D,"
                f"{sd:.1f}{flag},{u.value}"
            )
            return with_checksum(body)
        vd = u.from_ft(shot.vertical_distance_ft)
        body = (
            f"PHGF,HVV,{hd:.1f},{u.value},{az:.1f},D,{shot.inclination_deg:.1f},D,"
            f"{sd:.1f},{u.value},{vd:.1f},{u.value},0.0,CM,"
        )
        return with_checksum(body)

    # -- triggers

    def shoot(self, target_ft: float | None = None) -> ScriptedShot:
        """Fire one shot now: to ``target_ft`` or the next scripted target.

        Returns the true geometry with the sentence sent. Thread-safe.
        """
        with self._write_lock:
            if target_ft is None:
                if self._next_target >= len(self.targets_ft):
                    self._next_target = 0
                    self.station_ft = self.start_station_ft
                target_ft = self.targets_ft[self._next_target]
                self._next_target += 1
            shot = self.geometry(self.station_ft, float(target_ft))
            low = self.dialect == "trupulse" and self._rng.random() < self.low_quality_rate
            data = self.sentence_for(shot, low)
            shot = ScriptedShot(**{**shot.__dict__, "sentence": data.rstrip(b"\r\n")})
            if self.advance:
                self.station_ft = shot.target_ft
            self.shots.append(shot)
        self._send_sentence(data)
        return shot

    def _send_sentence(self, data: bytes) -> None:
        if self.dialect == "vertex" and self.ble:
            data = data.rstrip(b"\r\n")
            if self._rng.random() < 0.5:
                data = b"22  22  15  182614" + data  # legacy prefix seen in real VLGEO2 notifies
            for i in range(0, len(data), 20):
                self.send(data[i : i + 20])
                time.sleep(0.002)
        else:
            self.send(data)

    def set_station(self, station_ft: float) -> None:
        """Move the instrument to ``station_ft`` along the transect."""
        self.station_ft = float(station_ft)

    def identify(self) -> None:
        """Send the identification reply (``$PLTIT,ID,<model>,<firmware>,``)."""
        self.send(with_checksum(f"PLTIT,ID,{self.model},{self.firmware},"))

    # -- simulator hooks

    def _trigger(self) -> None:
        self.shoot()

    def _on_input(self, data: bytes) -> None:
        if self.dialect != "trupulse":
            return
        self._inbuf = (self._inbuf + data)[-256:]
        while b"\n" in self._inbuf or b"\r" in self._inbuf:
            cut = min(i for i in (self._inbuf.find(b"\r"), self._inbuf.find(b"\n")) if i >= 0)
            command, self._inbuf = self._inbuf[:cut].strip(), self._inbuf[cut + 1 :]
            if not command.startswith(b"$"):
                continue
            verb = command[1:].split(b",")[0].split(b"*")[0].upper()
            if verb == b"GO":
                self.shoot()
            elif verb == b"ID":
                self.identify()
            else:
                self.send(b"$OK\r\n")
