"""The registry of simulator types by name: one builder per simulator name.

Like pyserial's URL handlers (one handler module per ``<scheme>://``), each simulator name of a
scenario's ``devices`` entry (``{"simulator": "gnss", ...}``) has exactly one builder here
(:data:`SIMULATORS`, filled by :func:`register_simulator`). The command line
(:func:`devices.sim.scenario.start_scenario`) and the app's ``--simulate`` / ``--replay``
(:func:`devices.sim.factory.start_demo`, :func:`devices.sim.factory.start_replay`) build every
simulator through :func:`build_simulator`, so both get the same defaults:

- ``gnss``: the scripted ``waypoints`` (or ``start`` + ``legs``) at ``speed_m_s`` (default 1 m/s)
  and ``alt_m`` (default 250 m); every other option goes to :class:`~devices.sim.gnss.GnssSim`.
- ``rangefinder``: ``profile_ft`` (default the scenario transect's), ``targets_ft`` (default the
  transect's stations after the first, i.e. beyond the OHWM), ``azimuth_deg`` (default the
  transect's, else 0.0 degrees).
- ``caliper``: ``tally`` (default the scenario stand's trees).
- ``inclinometer``, ``replay``: their options as given.

This module imports no scenario code (the scenario schema reads :data:`SIMULATOR_KINDS` from
here), so scenarios, their schema and the app's demo devices (:mod:`devices.sim.factory`) all
sit above it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from devices.sim.base import Simulator

Builder = Callable[[str, dict[str, Any], dict[str, Any], dict[str, Any]], Simulator]
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
def _build_gnss(name: str, opts: dict[str, Any], scenario: dict[str, Any], common: dict[str, Any]) -> Simulator:
    from devices.sim.gnss import GnssPath, GnssSim

    speed = opts.pop("speed_m_s", 1.0)
    alt = opts.pop("alt_m", 250.0)
    if "legs" in opts:
        path = GnssPath.from_legs(opts.pop("start"), opts.pop("legs"), speed_m_s=speed, alt_m=alt)
    else:
        path = GnssPath(opts.pop("waypoints"), speed_m_s=speed, alt_m=alt)
    return GnssSim(path, **opts, **common)


@register_simulator("replay", "gnss", "nmea")
def _build_replay(name: str, opts: dict[str, Any], scenario: dict[str, Any], common: dict[str, Any]) -> Simulator:
    from devices.sim.replay import ReplaySim

    return ReplaySim(opts.pop("path"), **opts, **common)


@register_simulator("rangefinder", "rangefinder", "trupulse")
def _build_rangefinder(name: str, opts: dict[str, Any], scenario: dict[str, Any], common: dict[str, Any]) -> Simulator:
    from devices.sim.rangefinder import RangefinderSim

    transect = scenario.get("transect", {})
    profile = opts.pop("profile_ft", transect.get("profile_ft"))
    if profile is None:
        raise ValueError(f"rangefinder {name!r}: no profile_ft and no transect")
    opts.setdefault("targets_ft", transect.get("stations_ft", [None])[1:] or None)
    opts.setdefault("azimuth_deg", transect.get("azimuth_deg", 0.0))
    return RangefinderSim(profile, **opts, **common)


@register_simulator("caliper", "caliper", "digitech")
def _build_caliper(name: str, opts: dict[str, Any], scenario: dict[str, Any], common: dict[str, Any]) -> Simulator:
    from devices.sim.caliper import CaliperSim

    tally = opts.pop("tally", None) or scenario.get("stand", {}).get("trees")
    if not tally:
        raise ValueError(f"caliper {name!r}: no tally and no stand trees")
    return CaliperSim(tally, **opts, **common)


@register_simulator("inclinometer", "inclinometer", "ascii-inclinometer")
def _build_inclinometer(name: str, opts: dict[str, Any], scenario: dict[str, Any], common: dict[str, Any]) -> Simulator:
    from devices.sim.inclinometer import InclinometerSim

    return InclinometerSim(**opts, **common)


SIMULATOR_KINDS = {t.name: (t.device_kind, t.protocol) for t in SIMULATORS.values()}
"""Simulator name -> (device kind, default protocol)."""


def build_simulator(
    name: str, spec: dict[str, Any], scenario: dict[str, Any], *, endpoint: Any = None, link: Path | None = None
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
