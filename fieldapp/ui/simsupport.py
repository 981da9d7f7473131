"""Simulated devices for ``--simulate`` and ``--replay``: the demo scenario's receiver,
rangefinder and caliper (from :mod:`devices.sim`) on pseudo-terminals with stable links.

The app opens the link paths exactly as it would open ``/dev/ttyUSB0``; it cannot tell the
simulators from hardware. The two buttons that *trigger* a simulated instrument (a shot, a
caliper squeeze) stand in for the trigger on the real device.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

_SIM_DIR: Path | None = None


def sim_dir() -> Path:
    """A private folder for this process's pty links and the demo species table."""
    global _SIM_DIR
    if _SIM_DIR is None:
        _SIM_DIR = Path(tempfile.mkdtemp(prefix=f"fieldapp-sim-{os.getpid()}-"))
        atexit.register(shutil.rmtree, _SIM_DIR, True)
    return _SIM_DIR


def load_scenario(path: str | Path | None = None) -> dict:
    """The demo scenario (``devices/sim/scenarios/demo.json``) or ``path``."""
    if path is None:
        import devices.sim

        path = Path(devices.sim.__path__[0]) / "scenarios" / "demo.json"
    return json.loads(Path(path).read_text(encoding="utf-8"))


def species_table_path(scenario: dict) -> str | None:
    table = scenario.get("species_table")
    if not table:
        return None
    path = sim_dir() / "species.json"
    path.write_text(json.dumps(table), encoding="utf-8")
    return str(path)


def make_gnss(scenario: dict, *, waypoints: list | None = None, rate_hz: float | None = None,
              time_scale: float = 1.0, link: str = "gnss", **overrides: Any) -> Any:
    """A GNSS simulator walking the scenario's path (or ``waypoints``)."""
    from devices.sim.gnss import GnssPath, GnssSim

    spec = dict(scenario["devices"]["gnss"])
    path = GnssPath(waypoints or spec["waypoints"], speed_m_s=spec.get("speed_m_s", 1.0),
                    alt_m=spec.get("alt_m", 250.0))
    kw = {k: spec[k] for k in ("sentences", "quality", "quality_schedule", "dropouts", "seed")
          if k in spec}
    kw.update(overrides)
    return GnssSim(path, rate_hz=rate_hz or spec.get("rate_hz", 1.0), time_scale=time_scale,
                   link=str(sim_dir() / link), **kw)


def make_rangefinder(scenario: dict, link: str = "rangefinder") -> Any:
    from devices.sim.rangefinder import RangefinderSim

    spec = scenario["devices"]["rangefinder"]
    t = scenario["transect"]
    return RangefinderSim(t["profile_ft"], targets_ft=[s for s in t["stations_ft"] if s > 0],
                          azimuth_deg=t.get("azimuth_deg"), units=spec.get("units", "F"),
                          dialect=spec.get("dialect", "trupulse"), seed=spec.get("seed"),
                          link=str(sim_dir() / link))


def make_caliper(scenario: dict, link: str = "caliper") -> Any:
    from devices.sim.caliper import CaliperSim

    return CaliperSim(scenario["stand"]["trees"], link=str(sim_dir() / link))


def start_demo(scenario: dict | None = None, *, time_scale: float = 1.0,
               gnss_rate_hz: float | None = None,
               gnss_waypoints: list | None = None) -> tuple[dict, list, dict]:
    """Start the demo's GNSS, rangefinder and caliper simulators.

    Returns
    -------
    ports : dict
        ``{"gnss": path, "rangefinder": path, "caliper": path}`` to open.
    sims : list
        The started simulators (stop them when done).
    scenario : dict
    """
    scenario = scenario or load_scenario()
    sims = []
    try:
        for make in (lambda: make_gnss(scenario, waypoints=gnss_waypoints, rate_hz=gnss_rate_hz,
                                       time_scale=time_scale),
                     lambda: make_rangefinder(scenario), lambda: make_caliper(scenario)):
            sims.append(make().start())
    except Exception:
        for s in sims:
            s.stop()
        raise
    ports = {s.kind: s.port for s in sims}
    return ports, sims, scenario


def start_replay(path: str, speed: float = 1.0, loop: bool = True) -> tuple[str, Any]:
    """Play an NMEA log into a pty (``devices.sim.replay``); returns (port, simulator)."""
    from devices.sim.replay import ReplaySim

    sim = ReplaySim(path, speed=speed, loop=loop, link=str(sim_dir() / "replay"))
    sim.start()
    return sim.port, sim


def find(sims: list, kind: str) -> Any:
    """The simulator of ``kind`` (``gnss``, ``replay``, ``rangefinder``, ``caliper``)."""
    return next((s for s in sims if getattr(s, "kind", None) == kind), None)


def shoot(sim: Any, station_ft: float) -> Any:
    """Fire the simulated rangefinder from ``station_ft`` at the next scripted target."""
    targets = [t for t in sim.targets_ft if t > station_ft + 1e-6]
    if not targets:
        return None
    sim.set_station(station_ft)
    return sim.shoot(targets[0])


def squeeze(sim: Any) -> Any:
    """Squeeze the simulated caliper (the next tree of the tally)."""
    return sim.squeeze()
