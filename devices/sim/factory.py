"""The app's simulated devices: ``--simulate`` (:func:`start_demo`) and ``--replay``
(:func:`start_replay`), and the helpers the window and tests use with them.

Every simulator is built through the one registry of simulator names,
:func:`devices.sim.builders.build_simulator` (its defaults are described there); its names are
importable from here as well, as the app and the tests have always used them.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from devices.sim.base import Simulator
from devices.sim.builders import SIMULATOR_KINDS, SIMULATORS, build_simulator, register_simulator

if TYPE_CHECKING:
    from devices.sim.caliper import CaliperSim, TallyTree
    from devices.sim.rangefinder import RangefinderSim, ScriptedShot

__all__ = [
    "APP_DEVICES", "SIMULATORS", "SIMULATOR_KINDS", "app_gnss_spec", "build_simulator", "find",
    "process_link_dir", "register_simulator", "shoot", "squeeze", "start_all", "start_demo",
    "start_replay", "write_species_table",
]


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


def app_gnss_spec(scenario: dict[str, Any], *, waypoints: list[list[float]] | None = None,
                  rate_hz: float | None = None, time_scale: float = 1.0,
                  scripted_events: bool = True) -> dict[str, Any]:
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


def start_demo(scenario: dict[str, Any] | None = None, *, link_dir: Path | None = None,
                         time_scale: float = 1.0, gnss_rate_hz: float | None = None,
                         gnss_waypoints: list[list[float]] | None = None,
                         scripted_events: bool = True) -> tuple[dict[str, str], list[Simulator], dict[str, Any]]:
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


def write_species_table(scenario: dict[str, Any], link_dir: Path | None = None) -> str | None:
    """Write the scenario's ``species_table`` as ``species.json`` in ``link_dir`` (default
    :func:`process_link_dir`) for the caliper reader; its path, or None without a table."""
    table = scenario.get("species_table")
    if not table:
        return None
    path = (Path(link_dir) if link_dir is not None else process_link_dir()) / "species.json"
    path.write_text(json.dumps(table), encoding="utf-8")
    return str(path)


def find(sims: list[Simulator], kind: str) -> Any:
    """The simulator of ``kind`` (``gnss``, ``replay``, ``rangefinder``, ``caliper``), or None.

    Typed ``Any``: the callers use the methods of the kind they asked for (``shoot``,
    ``squeeze``), which :class:`Simulator` does not have."""
    return next((s for s in sims if getattr(s, "kind", None) == kind), None)


def shoot(sim: RangefinderSim, station_ft: float) -> ScriptedShot | None:
    """Fire the simulated rangefinder from ``station_ft`` (horizontal ft from the OHWM) at the
    next scripted target beyond it; None when there is none."""
    targets = [t for t in sim.targets_ft if t > station_ft + 1e-6]
    if not targets:
        return None
    sim.set_station(station_ft)
    return sim.shoot(targets[0])


def squeeze(sim: CaliperSim) -> TallyTree | None:
    """Squeeze the simulated caliper (the next tree of the tally)."""
    return sim.squeeze()
