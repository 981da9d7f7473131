"""Simulated GNSS receiver: walks a scripted path and sends NMEA 0183 at 1-20 Hz.

- Path: waypoints (lat, lon in degrees, WGS 84) or distance/bearing legs from a start point,
  walked at ``speed_m_s`` (geodesics by :class:`pyproj.Geod`); at the end it stands still.
- The route can be changed while the simulator runs (:meth:`GnssSim.set_route`,
  :meth:`GnssSim.walk_to`, :meth:`GnssSim.hold`, thread-safe): the simulated person turns
  where they stand now and walks the new waypoints at the path's speed (or a given one);
  :attr:`GnssSim.arrived` and :attr:`GnssSim.arrival_utc` say when they got there.
- Sentences: any of GGA RMC GSA GSV GST VTG ZDA, built with pynmea2.
- Noise matches the fix quality: RTK fixed ~1 cm, RTK float ~15 cm, DGPS ~50 cm, autonomous
  ~2 m (1-sigma horizontal; vertical 1.7x), as a first-order Gauss-Markov wander; GST reports
  the same sigmas.
- With ``rtk=RtkTimes(...)`` it behaves like a receiver fed corrections: it reads the RTCM 3 the
  app writes to its port (:class:`~devices.sim.rtk.RtkEngine`) and goes from its base quality
  (autonomous / DGPS) to RTK float and fixed as they flow, and back as they stop; GGA field 13
  then carries the real correction age and field 14 the RTCM station id.
- A schedule of quality changes and dropouts (``nofix``: sentences with no position, ``silent``:
  nothing at all), and optional bad sentences (wrong checksum, truncation, noise bytes) at a
  rate. Everything random comes from one seeded :class:`random.Random`.
"""

from __future__ import annotations

import datetime as dt
import itertools
import math
import random
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pynmea2
from pyproj import Geod

from devices.sim.base import Simulator
from devices.sim.rtk import RtkEngine, RtkTimes

SENTENCES = ("GGA", "RMC", "GSA", "GSV", "GST", "VTG", "ZDA")
_GEOD = Geod(ellps="WGS84")


@dataclass(frozen=True)
class Quality:
    """A fix quality: GGA quality code, horizontal 1-sigma in metres, RMC/VTG mode letter."""

    name: str
    gga: int
    sigma_h_m: float
    mode: str
    tau_s: float


QUALITIES: dict[str, Quality] = {
    q.name: q
    for q in (
        Quality("autonomous", 1, 2.0, "A", 30.0),
        Quality("dgps", 2, 0.5, "D", 20.0),
        Quality("rtk_fixed", 4, 0.01, "R", 5.0),
        Quality("rtk_float", 5, 0.15, "F", 10.0),
    )
}
"""Fix qualities by name (GGA field 6: 1 GPS, 2 DGPS, 4 RTK fixed, 5 RTK float)."""


class GnssPath:
    """A walked path: position at a time since start.

    Parameters
    ----------
    waypoints : sequence of (lat_deg, lon_deg)
    speed_m_s : float
    alt_m : float
        Orthometric height (GGA field 9).

    Examples
    --------
    >>> p = GnssPath.from_legs((43.3, -91.79), [(100.0, 90.0)], speed_m_s=1.0)
    >>> round(p.length_m, 6), [round(v, 6) for v in p.position(50.0)[:2]]
    (100.0, [43.3, -91.789384])
    """

    def __init__(
        self, waypoints: Sequence[Sequence[float]], speed_m_s: float = 1.0, alt_m: float = 250.0
    ) -> None:
        if len(waypoints) < 1:
            raise ValueError("a path needs at least one waypoint")
        if not (math.isfinite(speed_m_s) and speed_m_s >= 0):
            raise ValueError(f"speed {speed_m_s} m/s is negative or not finite")
        if not math.isfinite(alt_m):
            raise ValueError(f"altitude {alt_m} m is not finite")
        points = []
        for i, point in enumerate(waypoints):
            try:
                if isinstance(point, (str, bytes)):
                    raise TypeError(point)
                lat, lon = (float(v) for v in point)
            except (TypeError, ValueError):
                raise ValueError(f"waypoint {i} {point!r} is not a (lat, lon) pair") from None
            if not (-90 <= lat <= 90 and -180 <= lon <= 180):
                raise ValueError(f"waypoint {i} ({lat}, {lon}) is not a latitude/longitude")
            points.append((lat, lon))
        self.waypoints = points
        self.speed_m_s = speed_m_s
        self.alt_m = alt_m
        self._legs: list[tuple[float, float, float, float]] = []  # (start lat, lon, azimuth, length)
        for (la0, lo0), (la1, lo1) in itertools.pairwise(self.waypoints):
            az, _, dist = _GEOD.inv(lo0, la0, lo1, la1)
            self._legs.append((la0, lo0, az % 360.0, dist))
        self.length_m = sum(leg[3] for leg in self._legs)

    @classmethod
    def from_legs(
        cls, start: Sequence[float], legs: Sequence[Sequence[float]], **kw: Any
    ) -> GnssPath:
        """From a start (lat, lon) and (distance_m, bearing_deg) legs."""
        pts = [tuple(start)]
        for dist, bearing in legs:
            lon, lat, _ = _GEOD.fwd(pts[-1][1], pts[-1][0], bearing, dist)
            pts.append((lat, lon))
        return cls(pts, **kw)

    def position(self, t_s: float) -> tuple[float, float, float, float]:
        """(lat_deg, lon_deg, course_deg, speed_m_s) at ``t_s`` seconds after the start."""
        along = max(0.0, t_s) * self.speed_m_s
        for la0, lo0, az, dist in self._legs:
            if along <= dist:
                lon, lat, _ = _GEOD.fwd(lo0, la0, az, along)
                return lat, lon, az, self.speed_m_s
            along -= dist
        lat, lon = self.waypoints[-1]
        course = self._legs[-1][2] if self._legs else 0.0
        return lat, lon, course, 0.0


@dataclass(frozen=True)
class Epoch:
    """What the simulator sent for one epoch (the truth and the noisy fix), for tests."""

    utc: dt.datetime
    true_lat: float
    true_lon: float
    lat: float | None
    lon: float | None
    quality: str
    sentences: tuple[bytes, ...]


def _ddmm(value: float, is_lat: bool) -> tuple[str, str]:
    hemi = ("N" if value >= 0 else "S") if is_lat else ("E" if value >= 0 else "W")
    value = abs(value)
    deg = int(value)
    minutes = (value - deg) * 60.0
    if round(minutes, 7) >= 60.0:
        deg, minutes = deg + 1, 0.0
    width = 2 if is_lat else 3
    return f"{deg:0{width}d}{minutes:010.7f}", hemi


# a fixed sky: (prn, elevation_deg, azimuth_deg, snr_db)
_SKY = [(2, 64, 45, 44), (5, 41, 120, 41), (12, 22, 300, 36), (13, 55, 210, 43),
        (15, 18, 160, 33), (18, 33, 70, 39), (20, 70, 280, 46), (24, 12, 20, 30),
        (25, 47, 250, 42), (29, 28, 335, 38)]


class GnssSim(Simulator):
    """A receiver on a pty (or socket) walking ``path``.

    Parameters
    ----------
    path : GnssPath
    rate_hz : float
        1..20 epochs per second.
    sentences : sequence of str
        Subset of :data:`SENTENCES`, sent in this order each epoch.
    quality : str
        Initial :data:`QUALITIES` name.
    quality_schedule : sequence of {"at_s": float, "quality": str}
    dropouts : sequence of {"at_s": float, "duration_s": float, "mode": "nofix"|"silent"}
    bad_rate : float
        Probability 0..1 that a sentence is corrupted (kind chosen at random: checksum,
        truncated, noise).
    seed : int, optional
    start_utc : datetime, optional
        UTC of the first epoch (default: now, to the epoch).
    talker : str
        Talker id (``GN`` multi-constellation, ``GP``).
    time_scale : float
        Simulated seconds per real second along the path (default 1).
    rtk : RtkTimes, optional
        Read RTCM 3 from the port and derive the quality from it (``quality`` is then the base
        quality without corrections, ``"autonomous"`` or ``"dgps"``; the schedule is not used).
    """

    kind = "gnss"

    def __init__(
        self,
        path: GnssPath,
        *,
        rate_hz: float = 1.0,
        sentences: Sequence[str] = ("GGA", "RMC", "GSA", "GST", "VTG", "ZDA"),
        quality: str = "rtk_fixed",
        quality_schedule: Sequence[Mapping[str, Any]] = (),
        dropouts: Sequence[Mapping[str, Any]] = (),
        bad_rate: float = 0.0,
        seed: int | None = None,
        start_utc: dt.datetime | None = None,
        talker: str = "GN",
        time_scale: float = 1.0,
        rtk: RtkTimes | None = None,
        **kw: Any,
    ) -> None:
        if not 1.0 <= rate_hz <= 20.0:
            raise ValueError(f"rate_hz {rate_hz} outside 1..20")
        bad = [s for s in sentences if s not in SENTENCES]
        if bad:
            raise ValueError(f"sentences {bad} not among {', '.join(SENTENCES)}")
        if not 0.0 <= bad_rate <= 1.0:
            raise ValueError(f"bad_rate {bad_rate} outside 0..1")
        if not (math.isfinite(time_scale) and time_scale > 0):
            raise ValueError(f"time_scale {time_scale} must be a finite number > 0")
        for q in [quality, *(e["quality"] for e in quality_schedule)]:
            if q not in QUALITIES:
                raise ValueError(f"quality {q!r} not one of {', '.join(QUALITIES)}")
        self.rtk = RtkEngine(quality, rtk) if rtk is not None else None
        self.path = path
        self.rate_hz = rate_hz
        self.sentences = tuple(sentences)
        self.quality = quality
        self.quality_schedule = sorted(quality_schedule, key=lambda e: e["at_s"])
        self.dropouts = list(dropouts)
        self.bad_rate = bad_rate
        self.talker = talker
        self.time_scale = time_scale
        self._rng = random.Random(seed)
        now = dt.datetime.now(dt.UTC).replace(microsecond=0)
        self.start_utc = start_utc or now
        self._n = 0
        self._t_start: float | None = None
        self._noise = [0.0, 0.0, 0.0]  # north, east, up (m)
        self._route_lock = threading.Lock()
        self._route_t0_s = 0.0  # path time at which ``path`` was started
        self._arrival_utc: dt.datetime | None = None
        self.epochs: list[Epoch] = []
        self.keep_epochs = 10000
        super().__init__(**kw)

    # -- route (thread-safe; called from the app or a test while the thread sends)

    def _now_s(self) -> float:
        """Path time (simulated seconds) of the next epoch to be built."""
        return self._n / self.rate_hz * self.time_scale

    def _route_end_s(self) -> float:
        p = self.path
        if p.length_m <= 0:
            return self._route_t0_s
        if p.speed_m_s <= 0:
            return math.inf
        return self._route_t0_s + p.length_m / p.speed_m_s

    def position_at(self, t_s: float) -> tuple[float, float, float, float]:
        """(lat_deg, lon_deg, course_deg, speed_m_s) of the true position at path time ``t_s``
        (simulated seconds since the first epoch), on the current route."""
        with self._route_lock:
            return self.path.position(t_s - self._route_t0_s)

    def position_now(self) -> tuple[float, float]:
        """(lat_deg, lon_deg): where the simulated person stands at the next epoch (truth)."""
        return self.position_at(self._now_s())[:2]

    def set_route(self, waypoints: Sequence[Sequence[float]],
                  speed_m_s: float | None = None) -> GnssPath:
        """Walk ``waypoints`` (lat, lon degrees) from where the person stands now.

        Takes effect at the next epoch; the walk starts at the current true position, so the
        track has no jump. An empty list stands still (:meth:`hold`).

        Parameters
        ----------
        waypoints : sequence of (lat_deg, lon_deg)
        speed_m_s : float, optional
            Walking speed, m/s of path time (default: the current path's speed).

        Returns
        -------
        GnssPath
            The new path (its first waypoint is the current position).

        Raises
        ------
        ValueError
            A waypoint that is not a latitude/longitude pair, or a negative or non-finite
            speed (nothing changes then).
        """
        with self._route_lock:
            t_now = self._now_s()
            lat, lon = self.path.position(t_now - self._route_t0_s)[:2]
            speed = self.path.speed_m_s if speed_m_s is None else speed_m_s
            path = GnssPath([(lat, lon), *waypoints], speed_m_s=speed, alt_m=self.path.alt_m)
            self.path = path
            self._route_t0_s = t_now
            self._arrival_utc = None
            return path

    def walk_to(self, lat_deg: float, lon_deg: float,
                speed_m_s: float | None = None) -> GnssPath:
        """Walk in a straight line (geodesic) to ``(lat_deg, lon_deg)`` and stop there."""
        return self.set_route([(lat_deg, lon_deg)], speed_m_s)

    def hold(self) -> GnssPath:
        """Stand still where the person is now."""
        return self.set_route([])

    @property
    def arrived(self) -> bool:
        """True once an epoch has been built at the end of the current route."""
        return self._arrival_utc is not None

    @property
    def arrival_utc(self) -> dt.datetime | None:
        """UTC time stamp of the first epoch at the end of the current route (the NMEA time a
        reader sees), or None while still walking."""
        return self._arrival_utc

    # -- model

    def quality_at(self, t_s: float) -> str:
        q = self.quality
        for entry in self.quality_schedule:
            if entry["at_s"] <= t_s:
                q = entry["quality"]
        return q

    def dropout_at(self, t_s: float) -> str | None:
        for d in self.dropouts:
            if d["at_s"] <= t_s < d["at_s"] + d["duration_s"]:
                return str(d.get("mode", "nofix"))
        return None

    def _step_noise(self, q: Quality, dt_s: float) -> None:
        a = math.exp(-dt_s / q.tau_s)
        b = math.sqrt(1.0 - a * a)
        sig = (q.sigma_h_m / math.sqrt(2), q.sigma_h_m / math.sqrt(2), 1.7 * q.sigma_h_m)
        for i in range(3):
            # re-scale the state if the quality (and so sigma) changed
            self._noise[i] = max(-4 * sig[i], min(4 * sig[i], self._noise[i]))
            self._noise[i] = a * self._noise[i] + b * self._rng.gauss(0.0, sig[i])

    def epoch(self, n: int) -> Epoch:
        """Build epoch ``n`` (advances the noise state; call in order)."""
        t_s = n / self.rate_hz * self.time_scale
        utc = self.start_utc + dt.timedelta(seconds=n / self.rate_hz)
        with self._route_lock:
            lat, lon, course, speed = self.path.position(t_s - self._route_t0_s)
            if self._arrival_utc is None and t_s >= self._route_end_s():
                self._arrival_utc = utc
        qname = self.rtk.quality() if self.rtk is not None else self.quality_at(t_s)
        q = QUALITIES[qname]
        self._step_noise(q, 1.0 / self.rate_hz)
        north, east, up = self._noise
        m_per_deg_lat = 111_132.954 - 559.822 * math.cos(2 * math.radians(lat))
        m_per_deg_lon = 111_412.84 * math.cos(math.radians(lat))
        nlat = lat + north / m_per_deg_lat
        nlon = lon + east / m_per_deg_lon
        drop = self.dropout_at(t_s)
        if drop == "silent":
            return Epoch(utc, lat, lon, None, None, "none", ())
        fix = drop is None
        groups = [self._build(s, utc, nlat, nlon, up, course, speed, q, fix) for s in self.sentences]
        out = [self._maybe_corrupt(line) for group in groups for line in group]
        return Epoch(utc, lat, lon, nlat if fix else None, nlon if fix else None,
                     qname if fix else "none", tuple(out))

    def _build(self, kind: str, utc: dt.datetime, lat: float, lon: float, up: float, course: float,
               speed: float, q: Quality, fix: bool) -> list[bytes]:
        t = self.talker
        hms = utc.strftime("%H%M%S.") + f"{utc.microsecond // 10000:02d}"
        la, lah = _ddmm(lat, True) if fix else ("", "")
        lo, loh = _ddmm(lon, False) if fix else ("", "")
        kn = speed * 3600 / 1852
        sats = str(len(_SKY)) if fix else "00"
        hdop = f"{0.8 if q.gga >= 4 else 1.2:.1f}" if fix else ""
        fields: tuple[str, ...]
        if kind == "GGA":
            alt = f"{self.path.alt_m + up:.3f}" if fix else ""
            age, sid = self._correction_fields(q) if fix else ("", "")
            fields = (hms, la, lah, lo, loh, str(q.gga if fix else 0), sats, hdop,
                      alt, "M" if fix else "", "-31.400" if fix else "", "M" if fix else "",
                      age, sid)
            msgs = [pynmea2.GGA(t, "GGA", fields)]
        elif kind == "RMC":
            fields = (hms, "A" if fix else "V", la, lah, lo, loh,
                      f"{kn:.3f}" if fix else "", f"{course:.2f}" if fix and speed else "",
                      utc.strftime("%d%m%y"), "", "", q.mode if fix else "N")
            msgs = [pynmea2.RMC(t, "RMC", fields)]
        elif kind == "GSA":
            prns = [str(s[0]) for s in _SKY[:12]] if fix else []
            prns += [""] * (12 - len(prns))
            fields = ("A", "3" if fix else "1", *prns, "1.5" if fix else "", hdop,
                      "1.1" if fix else "")
            msgs = [pynmea2.GSA(t, "GSA", fields)]
        elif kind == "GSV":
            msgs = []
            total = (len(_SKY) + 3) // 4
            for i in range(total):
                chunk = _SKY[i * 4 : i * 4 + 4]
                sat_fields = [str(v) for sat in chunk for v in sat]
                msgs.append(pynmea2.GSV("GP", "GSV", (str(total), str(i + 1), str(len(_SKY)),
                                                      *sat_fields)))
        elif kind == "GST":
            if fix:
                s = q.sigma_h_m / math.sqrt(2)
                fields = (hms, f"{q.sigma_h_m:.3f}", f"{s:.3f}", f"{s:.3f}", "0.0",
                          f"{s:.3f}", f"{s:.3f}", f"{1.7 * q.sigma_h_m:.3f}")
            else:
                fields = (hms, "", "", "", "", "", "", "")
            msgs = [pynmea2.GST(t, "GST", fields)]
        elif kind == "VTG":
            fields = (f"{course:.2f}" if fix and speed else "", "T", "", "M",
                      f"{kn:.3f}" if fix else "", "N", f"{speed * 3.6:.3f}" if fix else "", "K",
                      q.mode if fix else "N")
            msgs = [pynmea2.VTG(t, "VTG", fields)]
        else:  # ZDA
            fields = (hms, f"{utc.day:02d}", f"{utc.month:02d}", f"{utc.year:04d}", "00", "00")
            msgs = [pynmea2.ZDA(t, "ZDA", fields)]
        return [(str(m) + "\r\n").encode("ascii") for m in msgs]

    def _correction_fields(self, q: Quality) -> tuple[str, str]:
        """GGA fields 13 and 14: age of corrections (s) and reference station id."""
        if self.rtk is None:
            return ("1.0", "0001") if q.gga in (2, 4, 5) else ("", "")
        age = self.rtk.correction_age_s()
        if q.gga not in (4, 5) or age is None:
            return "", ""
        return f"{age:.1f}", f"{(self.rtk.station_id or 0) % 10000:04d}"

    def _maybe_corrupt(self, sentence: bytes) -> bytes:
        if not self.bad_rate or self._rng.random() >= self.bad_rate:
            return sentence
        kind = self._rng.choice(("checksum", "truncated", "noise"))
        body = sentence.rstrip(b"\r\n")
        if kind == "checksum":
            wrong = (int(body[-2:], 16) ^ 0x5A) & 0xFF
            return body[:-2] + f"{wrong:02X}".encode() + b"\r\n"
        if kind == "truncated":
            return body[: self._rng.randint(6, max(7, len(body) - 4))] + b"\r\n"
        return bytes(self._rng.randrange(128, 256) for _ in range(12)) + b"\r\n"

    # -- simulator hooks

    def _on_input(self, data: bytes) -> None:
        if self.rtk is not None:
            self.rtk.feed(data)

    def stop(self, timeout_s: float = 5.0) -> bool:
        ok = super().stop(timeout_s)
        if self.rtk is not None:
            self.rtk.close()
        return ok

    def _next_due(self) -> float | None:
        if self._t_start is None:
            self._t_start = time.monotonic()
        return self._t_start + self._n / self.rate_hz

    def _tick(self, now: float) -> None:
        t0 = self._t_start
        assert t0 is not None  # set by _next_due, which the run loop asks before every tick
        late = now - (t0 + self._n / self.rate_hz)
        if late > 2.0:  # starved of CPU: skip ahead instead of flooding
            skip = int(late * self.rate_hz)
            for _ in range(skip):
                self.epoch(self._n)
                self._n += 1
        ep = self.epoch(self._n)
        self._n += 1
        if ep.sentences:
            self.send(b"".join(ep.sentences))
        self.epochs.append(ep)
        if len(self.epochs) > self.keep_epochs:
            del self.epochs[: len(self.epochs) // 2]
