"""The one factory of simulated devices: a registry of simulator types by name.

Like pyserial's URL handlers (one handler module per ``<scheme>://``), each simulator name of a
scenario's ``devices`` entry (``{"simulator": "gnss", ...}``) has exactly one builder here
(:data:`SIMULATORS`, filled by :func:`register_simulator`). The command line
(:func:`devices.sim.scenario.start_scenario`) and the app's ``--simulate`` / ``--replay``
(:func:`start_demo`, :func:`start_replay`) build every simulator through
:func:`build_simulator`, so both get the same defaults:

- ``gnss``: the scripted ``waypoints`` (or ``start`` + ``legs``) at ``speed_m_s`` (default 1 m/s)
  and ``alt_m`` (default 250 m); every other option goes to :class:`~devices.sim.gnss.GnssSim`.
- ``rangefinder``: ``profile_ft`` (default the scenario transect's), ``targets_ft`` (default the
  transect's stations after the first, i.e. beyond the OHWM), ``azimuth_deg`` (default the
  transect's, else 0.0 degrees).
- ``caliper``: ``tally`` (default the scenario stand's trees).
- ``inclinometer``, ``replay``: their options as given.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from devices.sim.base import Simulator

Builder = Callable[[str, dict, dict, dict], Simulator]
"""``build(name, options, scenario, common)``: ``options`` without ``simulator``/``protocol``;
``common`` the ``endpoint``, ``link`` and ``name`` keywords every simulator takes."""


@dataclass(frozen=True)
class SimulatorType:
    """One registered simulator name."""

    name: str
    device_kind: str
    """The kind of device the app sees (``gnss``, ``rangefinder``, ``caliper`` ...)."""
    protocol: str
    """The protocol the app opens it with by default (``nmea``, ``trupulse`` ...)."""
    build: Builder


SIMULATORS: dict[str, SimulatorType] = {}
"""Simulator name -> its one :class:`SimulatorType` (registration order)."""


def register_simulator(name: str, device_kind: str, protocol: str) -> Callable[[Builder], Builder]:
    """Register ``build`` as the one builder of simulator ``name`` (a decorator).

    Raises
    ------
    ValueError
        ``name`` already has a builder (one handler per name).
    """

    def add(build: Builder) -> Builder:
        if name in SIMULATORS:
            raise ValueError(f"simulator {name!r} is already registered")
        SIMULATORS[name] = SimulatorType(name, device_kind, protocol, build)
        return build

    return add


@register_simulator("gnss", "gnss", "nmea")
def _build_gnss(name: str, opts: dict, scenario: dict, common: dict) -> Simulator:
    from devices.sim.gnss import GnssPath, GnssSim

    speed = opts.pop("speed_m_s", 1.0)
    alt = opts.pop("alt_m", 250.0)
    if "legs" in opts:
        path = GnssPath.from_legs(opts.pop("start"), opts.pop("legs"), speed_m_s=speed, alt_m=alt)
    else:
        path = GnssPath(opts.pop("waypoints"), speed_m_s=speed, alt_m=alt)
    return GnssSim(path, **opts, **common)


@register_simulator("replay", "gnss", "nmea")
def _build_replay(name: str, opts: dict, scenario: dict, common: dict) -> Simulator:
    from devices.sim.replay import ReplaySim

    return ReplaySim(opts.pop("path"), **opts, **common)


@register_simulator("rangefinder", "rangefinder", "trupulse")
def _build_rangefinder(name: str, opts: dict, scenario: dict, common: dict) -> Simulator:
    from devices.sim.rangefinder import RangefinderSim

    transect = scenario.get("transect", {})
    profile = opts.pop("profile_ft", transect.get("profile_ft"))
    if profile is None:
        raise ValueError(f"rangefinder {name!r}: no profile_ft and no transect")
    opts.setdefault("targets_ft", transect.get("stations_ft", [None])[1:] or None)
    opts.setdefault("azimuth_deg", transect.get("azimuth_deg", 0.0))
    return RangefinderSim(profile, **opts, **common)


@register_simulator("caliper", "caliper", "digitech")
def _build_caliper(name: str, opts: dict, scenario: dict, common: dict) -> Simulator:
    from devices.sim.caliper import CaliperSim

    tally = opts.pop("tally", None) or scenario.get("stand", {}).get("trees")
    if not tally:
        raise ValueError(f"caliper {name!r}: no tally and no stand trees")
    return CaliperSim(tally, **opts, **common)


@register_simulator("inclinometer", "inclinometer", "ascii-inclinometer")
def _build_inclinometer(name: str, opts: dict, scenario: dict, common: dict) -> Simulator:
    from devices.sim.inclinometer import InclinometerSim

    return InclinometerSim(**opts, **common)


SIMULATOR_KINDS = {t.name: (t.device_kind, t.protocol) for t in SIMULATORS.values()}
"""Simulator name -> (device kind, default protocol)."""


def build_simulator(
    name: str, spec: dict, scenario: dict, *, endpoint: Any = None, link: Path | None = None
) -> Simulator:
    """One simulator from its ``devices`` entry (not started).

    Parameters
    ----------
    name : str
        The device name (thread ``fieldapp-sim-<name>``; the link's file name).
    spec : dict
        The ``devices.<name>`` entry; ``simulator`` (default ``name``) picks the builder.
    scenario : dict
        The whole scenario (transect and stand defaults).

    Raises
    ------
    ValueError
        An unknown simulator name, or a rangefinder / caliper without data to play.
    """
    opts = dict(spec)
    sim_type = opts.pop("simulator", name)
    opts.pop("protocol", None)
    if sim_type not in SIMULATORS:
        raise ValueError(
            f"device {name!r}: simulator {sim_type!r} not one of {list(SIMULATOR_KINDS)}")
    common = {"endpoint": endpoint, "link": link, "name": name}
    return SIMULATORS[sim_type].build(name, opts, scenario, common)


def start_all(simulators: list[Simulator]) -> list[Simulator]:
    """Start ``simulators`` in order; on a failure stop those started and raise."""
    started: list[Simulator] = []
    try:
        for sim in simulators:
            started.append(sim.start())
    except BaseException:
        for sim in reversed(started):
            sim.stop()
        raise
    return started


# --------------------------------------------------------------------------- the app's devices
APP_DEVICES = ("gnss", "rangefinder", "caliper")
"""The scenario devices the app's ``--simulate`` starts (in this order)."""

_PROCESS_LINK_DIR: Path | None = None


def process_link_dir() -> Path:
    """A private folder of this process for the app's pty links and the demo species table
    (``<tmp>/fieldapp-sim-<pid>-XXXX``, removed when the process exits; never claimed with an
    owner file: a process may run several sessions, one after the other)."""
    global _PROCESS_LINK_DIR
    if _PROCESS_LINK_DIR is None:
        _PROCESS_LINK_DIR = Path(tempfile.mkdtemp(prefix=f"fieldapp-sim-{os.getpid()}-"))
        atexit.register(shutil.rmtree, _PROCESS_LINK_DIR, True)
    return _PROCESS_LINK_DIR


def app_gnss_spec(scenario: dict, *, waypoints: list | None = None,
                  rate_hz: float | None = None, time_scale: float = 1.0,
                  scripted_events: bool = True) -> dict:
    """The scenario's ``gnss`` entry as the app's ``--simulate`` plays it.

    Parameters
    ----------
    waypoints : list of [lat, lon], optional
        The route instead of the scripted one (default: standing at :func:`start_position`).
    rate_hz : float, optional
        Epochs per second (default the scenario's).
    time_scale : float
        Simulated seconds per wall-clock second.
    scripted_events : bool
        Play the ``quality_schedule`` and ``dropouts``; False gives a steady fix of the
        scenario's ``quality``.
    """
    from devices.sim.scenario import start_position

    spec = dict(scenario["devices"]["gnss"])
    for key in ("start", "legs"):
        spec.pop(key, None)
    spec["waypoints"] = waypoints if waypoints is not None else [start_position(scenario)]
    spec["time_scale"] = time_scale
    if rate_hz:
        spec["rate_hz"] = rate_hz
    if not scripted_events:
        spec["quality_schedule"], spec["dropouts"] = [], []
    return spec


def start_demo(scenario: dict | None = None, *, link_dir: Path | None = None,
                         time_scale: float = 1.0, gnss_rate_hz: float | None = None,
                         gnss_waypoints: list | None = None,
                         scripted_events: bool = True) -> tuple[dict, list, dict]:
    """Start the scenario's GNSS, rangefinder and caliper (:data:`APP_DEVICES`) on ptys linked
    in ``link_dir`` (default :func:`process_link_dir`), GNSS as :func:`app_gnss_spec`.

    Returns
    -------
    ports : dict
        ``{"gnss": path, "rangefinder": path, "caliper": path}`` to open.
    sims : list
        The started simulators (stop them when done).
    scenario : dict
        The validated scenario (default the shipped ``demo``).

    Raises
    ------
    devices.sim.schema.ScenarioError, ValueError, OSError
        An invalid scenario, or a pty that cannot be made (nothing is left running).
    """
    from devices.sim.scenario import load_scenario

    scenario = scenario or load_scenario("demo")
    folder = Path(link_dir) if link_dir is not None else process_link_dir()
    specs = {name: dict(scenario["devices"][name]) for name in APP_DEVICES}
    specs["gnss"] = app_gnss_spec(scenario, waypoints=gnss_waypoints, rate_hz=gnss_rate_hz,
                                  time_scale=time_scale, scripted_events=scripted_events)
    sims = start_all([build_simulator(name, specs[name], scenario, link=folder / name)
                      for name in APP_DEVICES])
    return {s.kind: s.port for s in sims}, sims, scenario


def start_replay(path: str, speed: float = 1.0, loop: bool = True,
                 link_dir: Path | None = None) -> tuple[str, Simulator]:
    """Play an NMEA log into a pty (:class:`devices.sim.replay.ReplaySim`, linked as
    ``replay`` in ``link_dir``, default :func:`process_link_dir`); returns (port, simulator)."""
    folder = Path(link_dir) if link_dir is not None else process_link_dir()
    sim = build_simulator("replay", {"path": path, "speed": speed, "loop": loop}, {},
                          link=folder / "replay")
    sim.start()
    return sim.port, sim


def write_species_table(scenario: dict, link_dir: Path | None = None) -> str | None:
    """Write the scenario's ``species_table`` as ``species.json`` in ``link_dir`` (default
    :func:`process_link_dir`) for the caliper reader; its path, or None without a table."""
    table = scenario.get("species_table")
    if not table:
        return None
    path = (Path(link_dir) if link_dir is not None else process_link_dir()) / "species.json"
    path.write_text(json.dumps(table), encoding="utf-8")
    return str(path)


def find(sims: list, kind: str) -> Any:
    """The simulator of ``kind`` (``gnss``, ``replay``, ``rangefinder``, ``caliper``), or None."""
    return next((s for s in sims if getattr(s, "kind", None) == kind), None)


def shoot(sim: Any, station_ft: float) -> Any:
    """Fire the simulated rangefinder from ``station_ft`` (horizontal ft from the OHWM) at the
    next scripted target beyond it; None when there is none."""
    targets = [t for t in sim.targets_ft if t > station_ft + 1e-6]
    if not targets:
        return None
    sim.set_station(station_ft)
    return sim.shoot(targets[0])


def squeeze(sim: Any) -> Any:
    """Squeeze the simulated caliper (the next tree of the tally)."""
    return sim.squeeze()
