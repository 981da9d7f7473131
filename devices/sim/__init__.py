"""Simulated field devices: each writes the instrument's real bytes to a pseudo-terminal (or a
TCP socket), so the app opens it exactly like hardware.

Simulators (all have ``start()``, ``stop()``, ``port``, ``unplug()``/``replug()`` and are
context managers; each runs one daemon thread ``fieldapp-sim-<name>``):

- :class:`~devices.sim.gnss.GnssSim` -- walks a path, GGA RMC GSA GSV GST VTG ZDA at 1-20 Hz.
- :class:`~devices.sim.replay.ReplaySim` -- plays an NMEA log by its time stamps.
- :class:`~devices.sim.rangefinder.RangefinderSim` -- TruPulse / Vertex shots on a terrain
  profile (``shoot()``).
- :class:`~devices.sim.caliper.CaliperSim` -- Digitech SPC + DIA per tree (``squeeze()``).
- :class:`~devices.sim.inclinometer.InclinometerSim` -- ASCII ``X=``/``Y=`` (8E1) or XDR.

One factory: :func:`~devices.sim.factory.build_simulator` (one builder per simulator name,
:data:`~devices.sim.factory.SIMULATORS`); the app's ``--simulate`` devices:
:func:`~devices.sim.factory.start_demo`.

Scenarios: :func:`~devices.sim.scenario.start_scenario` (``"demo"`` ships in
``devices/sim/scenarios``). Command line: ``python -m devices.sim`` / ``fieldapp-sim``.

Submodules are imported lazily (attribute access), so ``import devices.sim`` is cheap.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "Simulator": "devices.sim.base",
    "PtyEndpoint": "devices.sim.endpoint",
    "TcpEndpoint": "devices.sim.endpoint",
    "GnssSim": "devices.sim.gnss",
    "GnssPath": "devices.sim.gnss",
    "ReplaySim": "devices.sim.replay",
    "RangefinderSim": "devices.sim.rangefinder",
    "TerrainProfile": "devices.sim.rangefinder",
    "CaliperSim": "devices.sim.caliper",
    "TallyTree": "devices.sim.caliper",
    "InclinometerSim": "devices.sim.inclinometer",
    "SIMULATORS": "devices.sim.factory",
    "build_simulator": "devices.sim.factory",
    "register_simulator": "devices.sim.factory",
    "start_demo": "devices.sim.factory",
    "ScenarioRun": "devices.sim.scenario",
    "start_scenario": "devices.sim.scenario",
    "load_scenario": "devices.sim.scenario",
    "scenario_names": "devices.sim.scenario",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'devices.sim' has no attribute {name!r}")
