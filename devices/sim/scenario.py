"""Scenario files: which simulators to start and what they play.

A scenario is JSON (``devices/sim/scenarios/<name>.json`` or any path) with site data
(``ohwm``, ``transect``, ``stand``, ``wetland``, ``species_table``) and a ``devices`` object:
one entry per simulated device, ``{"simulator": "gnss" | "rangefinder" | "caliper" |
"inclinometer" | "replay", ...options}``. Rangefinder options default to the scenario's
``transect`` (profile, stations as targets, azimuth); caliper options to the ``stand`` trees.

:func:`start_scenario` starts them and returns a :class:`ScenarioRun` with each device's port
and a ready :class:`devices.registry.DeviceConfig`.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from devices.sim.base import Simulator

SIMULATOR_KINDS = {  # simulator name -> (device kind, default protocol)
    "gnss": ("gnss", "nmea"),
    "replay": ("gnss", "nmea"),
    "rangefinder": ("rangefinder", "trupulse"),
    "caliper": ("caliper", "digitech"),
    "inclinometer": ("inclinometer", "ascii-inclinometer"),
}


def scenario_names() -> list[str]:
    """Names of the scenarios shipped in ``devices/sim/scenarios``."""
    folder = resources.files("devices.sim") / "scenarios"
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".json"))


def load_scenario(name_or_path: str | Path) -> dict:
    """A shipped scenario by name (``"demo"``) or a JSON file by path.

    Raises
    ------
    FileNotFoundError
        Neither a shipped name nor an existing file.
    ValueError
        Not valid JSON or no ``devices`` object.
    """
    path = Path(name_or_path)
    if not path.is_file():
        shipped = resources.files("devices.sim") / "scenarios" / f"{name_or_path}.json"
        if not shipped.is_file():
            raise FileNotFoundError(
                f"scenario {name_or_path!r} is not a file nor one of {scenario_names()}"
            )
        text = shipped.read_text(encoding="utf-8")
        source = str(shipped)
    else:
        text = path.read_text(encoding="utf-8")
        source = str(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{source}: not JSON: {exc}") from exc
    if not isinstance(data.get("devices"), dict):
        raise ValueError(f"{source}: no 'devices' object")
    return data


def build_simulator(
    name: str, spec: dict, scenario: dict, *, endpoint: Any = None, link: Path | None = None
) -> Simulator:
    """One simulator from its ``devices`` entry. Raises ``ValueError`` for unknown types."""
    opts = dict(spec)
    sim_type = opts.pop("simulator", name)
    opts.pop("protocol", None)
    common = {"endpoint": endpoint, "link": link, "name": name}
    if sim_type == "gnss":
        from devices.sim.gnss import GnssPath, GnssSim

        speed = opts.pop("speed_m_s", 1.0)
        alt = opts.pop("alt_m", 250.0)
        if "legs" in opts:
            path = GnssPath.from_legs(opts.pop("start"), opts.pop("legs"), speed_m_s=speed,
                                      alt_m=alt)
        else:
            path = GnssPath(opts.pop("waypoints"), speed_m_s=speed, alt_m=alt)
        return GnssSim(path, **opts, **common)
    if sim_type == "rangefinder":
        from devices.sim.rangefinder import RangefinderSim

        transect = scenario.get("transect", {})
        profile = opts.pop("profile_ft", transect.get("profile_ft"))
        if profile is None:
            raise ValueError(f"rangefinder {name!r}: no profile_ft and no transect")
        opts.setdefault("targets_ft", transect.get("stations_ft", [None])[1:] or None)
        opts.setdefault("azimuth_deg", transect.get("azimuth_deg", 0.0))
        return RangefinderSim(profile, **opts, **common)
    if sim_type == "caliper":
        from devices.sim.caliper import CaliperSim

        tally = opts.pop("tally", None) or scenario.get("stand", {}).get("trees")
        if not tally:
            raise ValueError(f"caliper {name!r}: no tally and no stand trees")
        return CaliperSim(tally, **opts, **common)
    if sim_type == "inclinometer":
        from devices.sim.inclinometer import InclinometerSim

        return InclinometerSim(**opts, **common)
    if sim_type == "replay":
        from devices.sim.replay import ReplaySim

        return ReplaySim(opts.pop("path"), **opts, **common)
    raise ValueError(f"device {name!r}: simulator {sim_type!r} not one of {list(SIMULATOR_KINDS)}")


def default_link_dir() -> Path:
    """``<tmp>/fieldapp-sim-<uid>``: where the CLI puts stable port links."""
    uid = os.getuid() if hasattr(os, "getuid") else os.getpid()
    return Path(tempfile.gettempdir()) / f"fieldapp-sim-{uid}"


@dataclass
class ScenarioRun:
    """Started simulators of one scenario. Stop with :meth:`stop` (or use ``with``)."""

    scenario: dict
    simulators: dict[str, Simulator] = field(default_factory=dict)

    @property
    def ports(self) -> dict[str, str]:
        """Device name -> the port the app opens (pty path or link, or ``socket://``)."""
        return {name: sim.port for name, sim in self.simulators.items()}

    def protocol(self, name: str) -> str:
        spec = self.scenario["devices"][name]
        sim_type = spec.get("simulator", name)
        if "protocol" in spec:
            return spec["protocol"]
        if sim_type == "rangefinder" and spec.get("dialect") == "vertex":
            return "vertex"
        if sim_type == "inclinometer" and spec.get("dialect") == "xdr":
            return "nmea-attitude"
        return SIMULATOR_KINDS[sim_type][1]

    def device_configs(self) -> dict:
        """Device name -> :class:`devices.registry.DeviceConfig` pointing at the simulator."""
        from devices.registry import DeviceConfig

        out = {}
        for name, sim in self.simulators.items():
            spec = self.scenario["devices"][name]
            kind = SIMULATOR_KINDS[spec.get("simulator", name)][0]
            options = {}
            if kind == "caliper" and spec.get("sends_length"):
                options["sends_length"] = True
            out[name] = DeviceConfig(kind=kind, protocol=self.protocol(name), url=sim.port,
                                     options=options, name=name)
        return out

    def species_table(self):
        """The scenario's :class:`devices.caliper.SpeciesTable` (empty when it has none)."""
        from devices.caliper import SpeciesTable

        data = self.scenario.get("species_table")
        return SpeciesTable.from_dict(data, "scenario") if data else SpeciesTable()

    def __getitem__(self, name: str) -> Simulator:
        return self.simulators[name]

    def stop(self) -> None:
        """Stop every simulator (idempotent)."""
        for sim in reversed(list(self.simulators.values())):
            sim.stop()

    def __enter__(self) -> ScenarioRun:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def start_scenario(
    scenario: str | Path | dict = "demo",
    *,
    only: list[str] | None = None,
    endpoint: str | None = None,
    link_dir: str | Path | None = None,
    overrides: dict[str, dict] | None = None,
) -> ScenarioRun:
    """Build and start a scenario's simulators.

    Parameters
    ----------
    scenario : name, path or dict
    only : list of str, optional
        Device names to start (default all).
    endpoint : "pty" (default) or "tcp"
    link_dir : path, optional
        Make a stable symlink ``<link_dir>/<device>`` for each pty (default: none; the port is
        the ``/dev/pts/N`` path).
    overrides : dict, optional
        Per-device option overrides (``{"gnss": {"rate_hz": 10}}``).

    Returns
    -------
    ScenarioRun
        Started; ``run.ports`` gives the paths. A failure stops what was started and raises.
    """
    data = scenario if isinstance(scenario, dict) else load_scenario(scenario)
    names = list(data["devices"]) if only is None else list(only)
    unknown = [n for n in names if n not in data["devices"]]
    if unknown:
        raise ValueError(f"devices {unknown} not in scenario (has {list(data['devices'])})")
    run = ScenarioRun(data)
    try:
        for name in names:
            spec = {**data["devices"][name], **(overrides or {}).get(name, {})}
            link = Path(link_dir) / name if link_dir is not None else None
            sim = build_simulator(name, spec, data, endpoint=endpoint, link=link)
            run.simulators[name] = sim
            sim.start()
    except BaseException:
        run.stop()
        raise
    return run
