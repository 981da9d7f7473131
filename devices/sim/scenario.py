"""Scenario files: which simulators to start and what they play.

A scenario is JSON (``devices/sim/scenarios/<name>.json`` or any path) with site data
(``ohwm``, ``transect``, ``stand``, ``wetland``, ``species_table``) and a ``devices`` object:
one entry per simulated device, ``{"simulator": "gnss" | "rangefinder" | "caliper" |
"inclinometer" | "replay", ...options}``. Rangefinder options default to the scenario's
``transect`` (profile, stations as targets, azimuth); caliper options to the ``stand`` trees.
Each simulator is built by the one registry, :func:`devices.sim.builders.build_simulator`
(one builder per simulator name). Every scenario (file, dict, or with command-line overrides) passes
:func:`devices.sim.schema.validate_scenario`; problems raise :class:`ScenarioError` naming the
file and key path. Pty links go in a folder claimed by one run at a time
(:func:`claim_link_dir`); a run removes only its own links.

:func:`start_scenario` starts them and returns a :class:`ScenarioRun` with each device's port
and a ready :class:`devices.registry.DeviceConfig`.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from devices.sim.base import Simulator
from devices.sim.builders import SIMULATOR_KINDS, build_simulator
from devices.sim.schema import ScenarioError, validate_scenario

if TYPE_CHECKING:
    from devices.caliper import SpeciesTable
    from devices.registry import DeviceConfig


def scenario_names() -> list[str]:
    """Names of the scenarios shipped in ``devices/sim/scenarios``."""
    folder = resources.files("devices.sim") / "scenarios"
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".json"))


def load_scenario(name_or_path: str | Path = "demo") -> dict[str, Any]:
    """A shipped scenario by name (default ``"demo"``) or a JSON file by path, validated.

    Raises
    ------
    FileNotFoundError
        Neither a shipped name nor an existing file.
    ScenarioError
        (a ``ValueError``) Not UTF-8, not JSON, or not a valid scenario
        (:func:`devices.sim.schema.validate_scenario`); the message names the file and the
        key path.
    """
    path = Path(name_or_path)
    if not path.is_file():
        shipped = resources.files("devices.sim") / "scenarios" / f"{name_or_path}.json"
        if not shipped.is_file():
            raise FileNotFoundError(
                f"scenario {name_or_path!r} is not a file nor one of {scenario_names()}"
            )
        raw = shipped.read_bytes()
        source = str(shipped)
    else:
        raw = path.read_bytes()
        source = str(path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ScenarioError(source, "", f"not UTF-8 text ({exc})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScenarioError(source, "", f"not JSON: {exc}") from None
    return validate_scenario(data, source)


# --------------------------------------------------------------------------- where things are
def start_position(scenario: dict[str, Any]) -> list[float]:
    """Where the simulated surveyor starts: the transect origin, else the first OHWM point,
    else the scripted path's first waypoint ([lat, lon] degrees)."""
    if scenario.get("transect", {}).get("start"):
        return list(scenario["transect"]["start"])
    if scenario.get("ohwm"):
        return list(scenario["ohwm"][0])
    return list(scenario["devices"]["gnss"]["waypoints"][0])


def ohwm_tour(scenario: dict[str, Any]) -> list[list[float]]:
    """The scenario's OHWM points ([lat, lon] degrees, listed along the bank) in the order the
    surveyor averages them: from the one nearest :func:`start_position` to the farther end of
    the list (the side with more points; toward the list's end on a tie), one after another
    along the bank. The line joins its points in the order taken, so the points on the other
    side are left out: going back for them would run the line back over itself."""
    points = [list(p) for p in scenario.get("ohwm", [])]
    if not points:
        return []
    sx, sy = start_position(scenario)
    k = min(range(len(points)),
            key=lambda i: (points[i][0] - sx) ** 2 + (points[i][1] - sy) ** 2)
    ahead, back = points[k:], points[:k + 1][::-1]
    return ahead if len(ahead) >= len(back) else back


def closed_ring(points: Iterable[Iterable[float]]) -> list[list[float]]:
    """``points`` ([lat, lon] ...) ending where they start."""
    ring = [list(p) for p in points]
    if ring and ring[0] != ring[-1]:
        ring.append(ring[0])
    return ring


def boundary_for(scenario: dict[str, Any], kind: str) -> list[list[float]] | None:
    """The scenario boundary (closed ring, [lat, lon] degrees) walked for an area ``kind``: the
    wetland for ``wetland``, the stand for ``woodland_stand`` and ``grove``; None for other
    kinds or when the scenario has none."""
    key = {"wetland": "wetland", "woodland_stand": "stand", "grove": "stand"}.get(kind)
    ring = scenario.get(key, {}).get("boundary") if key else None
    return closed_ring(ring) if ring else None


def default_link_dir() -> Path:
    """``<tmp>/fieldapp-sim-<uid>``: where the CLI puts stable port links.

    One simulator run at a time holds it (:func:`claim_link_dir`); the CLI falls back to
    :func:`private_link_dir` when another live run does.
    """
    uid = os.getuid() if hasattr(os, "getuid") else os.getpid()
    return Path(tempfile.gettempdir()) / f"fieldapp-sim-{uid}"


def private_link_dir() -> Path:
    """``<tmp>/fieldapp-sim-<uid>-<pid>``: this process's own link folder."""
    return default_link_dir().with_name(f"{default_link_dir().name}-{os.getpid()}")


OWNER_FILE = ".fieldapp-sim.pid"
"""Name of the file in a link folder holding the process id of the run that owns the links."""


class LinkDirBusy(OSError):
    """The link folder's links belong to another simulator process that is still running.

    Attributes
    ----------
    folder : Path
    pid : int
        The owner's process id.
    """

    def __init__(self, folder: Path, pid: int) -> None:
        self.folder, self.pid = folder, pid
        super().__init__(
            f"link folder {folder} is in use by simulator process {pid} (still running); "
            f"stop it or choose another --link-dir (a stale {OWNER_FILE} from a dead process "
            "is replaced automatically)"
        )


def _process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    if os.name != "posix":  # os.kill(pid, 0) would terminate it on Windows; no ptys there
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


@dataclass(frozen=True)
class LinkDirClaim:
    """This process's hold on a link folder (from :func:`claim_link_dir`)."""

    owner: Path
    """The owner file ``<folder>/.fieldapp-sim.pid``."""
    created_folder: bool
    """The claim made the folder (so releasing removes it when empty)."""


def claim_link_dir(folder: str | Path) -> LinkDirClaim:
    """Make ``folder`` and claim it for this process's links.

    Writes ``<folder>/.fieldapp-sim.pid`` atomically (a hard link of a written temp file, so a
    concurrent run never sees it half-written). An owner file of a process that has ended is
    replaced.

    Returns
    -------
    LinkDirClaim
        Pass it to :func:`release_link_dir`.

    Raises
    ------
    LinkDirBusy
        A live process (this one included, for a second run) owns the folder.
    OSError
        The folder cannot be made or written.
    """
    folder = Path(folder)
    created = not folder.exists()
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    owner = folder / OWNER_FILE
    tmp = folder / f".{OWNER_FILE}.{os.getpid()}.{threading.get_ident()}.tmp"
    tmp.write_text(f"{os.getpid()}\n", encoding="ascii")
    try:
        for _ in range(5):
            try:
                os.link(tmp, owner)
                return LinkDirClaim(owner, created)
            except FileExistsError:
                pass
            try:
                pid = int(owner.read_text(encoding="ascii").strip())
            except FileNotFoundError:
                continue  # released meanwhile: try again
            except (OSError, ValueError):
                pid = None  # garbage: not a live owner
            if pid is not None and _process_alive(pid):
                raise LinkDirBusy(folder, pid)
            with contextlib.suppress(FileNotFoundError):
                owner.unlink()
        raise LinkDirBusy(folder, -1)
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()


def release_link_dir(claim: LinkDirClaim) -> None:
    """Remove the owner file if it is still this process's, then the folder if the claim made
    it and it is empty (another run's links are never touched)."""
    with contextlib.suppress(OSError, ValueError):
        if int(claim.owner.read_text(encoding="ascii").strip()) == os.getpid():
            claim.owner.unlink()
    if claim.created_folder:
        with contextlib.suppress(OSError):
            claim.owner.parent.rmdir()


@dataclass
class ScenarioRun:
    """Started simulators of one scenario. Stop with :meth:`stop` (or use ``with``)."""

    scenario: dict[str, Any]
    simulators: dict[str, Simulator] = field(default_factory=dict)
    link_claim: LinkDirClaim | None = None
    """This run's hold on its link folder (None without links)."""

    @property
    def ports(self) -> dict[str, str]:
        """Device name -> the port the app opens (pty path or link, or ``socket://``)."""
        return {name: sim.port for name, sim in self.simulators.items()}

    def protocol(self, name: str) -> str:
        spec = self.scenario["devices"][name]
        sim_type = spec.get("simulator", name)
        if "protocol" in spec:
            return str(spec["protocol"])
        if sim_type == "rangefinder" and spec.get("dialect") == "vertex":
            return "vertex"
        if sim_type == "inclinometer" and spec.get("dialect") == "xdr":
            return "nmea-attitude"
        return SIMULATOR_KINDS[sim_type][1]

    def device_configs(self) -> dict[str, DeviceConfig]:
        """Device name -> :class:`devices.registry.DeviceConfig` pointing at the simulator."""
        from devices.registry import DeviceConfig

        out: dict[str, DeviceConfig] = {}
        for name, sim in self.simulators.items():
            spec = self.scenario["devices"][name]
            kind = SIMULATOR_KINDS[spec.get("simulator", name)][0]
            options: dict[str, Any] = {}
            if kind == "caliper" and spec.get("sends_length"):
                options["sends_length"] = True
            out[name] = DeviceConfig(kind=kind, protocol=self.protocol(name), url=sim.port,
                                     options=options, name=name)
        return out

    def species_table(self) -> SpeciesTable:
        """The scenario's :class:`devices.caliper.SpeciesTable` (empty when it has none)."""
        from devices.caliper import SpeciesTable

        data = self.scenario.get("species_table")
        return SpeciesTable.from_dict(data, "scenario") if data else SpeciesTable()

    def __getitem__(self, name: str) -> Simulator:
        return self.simulators[name]

    def stop(self) -> None:
        """Stop every simulator, remove its links, release the link folder (idempotent)."""
        for sim in reversed(list(self.simulators.values())):
            sim.stop()
        claim, self.link_claim = self.link_claim, None
        if claim is not None:
            release_link_dir(claim)

    def __enter__(self) -> ScenarioRun:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start_scenario(
    scenario: str | Path | dict[str, Any] = "demo",
    *,
    only: list[str] | None = None,
    endpoint: str | None = None,
    link_dir: str | Path | None = None,
    overrides: dict[str, dict[str, Any]] | None = None,
    source: str = "<scenario>",
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
        the ``/dev/pts/N`` path). The folder is claimed for this run (:func:`claim_link_dir`)
        and released by :meth:`ScenarioRun.stop`, which removes only this run's links.
    overrides : dict, optional
        Per-device option overrides (``{"gnss": {"rate_hz": 10}}``), validated like the file.
    source : str
        Name for messages when ``scenario`` is a dict (e.g. the file it came from).

    Returns
    -------
    ScenarioRun
        Started; ``run.ports`` gives the paths. A failure stops what was started and raises.

    Raises
    ------
    ScenarioError
        (a ``ValueError``) An invalid scenario or override, naming ``source`` and the key.
    ValueError
        A device in ``only`` that the scenario does not have.
    LinkDirBusy
        (an ``OSError``) Another live run owns ``link_dir``.
    OSError
        A pty or link cannot be made.
    """
    if isinstance(scenario, dict):
        data = validate_scenario(scenario, source)
    else:
        data = load_scenario(scenario)
        source = str(scenario)
    names = list(data["devices"]) if only is None else list(only)
    unknown = [n for n in names if n not in data["devices"]]
    if unknown:
        raise ValueError(f"devices {unknown} not in scenario (has {list(data['devices'])})")
    specs = {name: {**data["devices"][name], **(overrides or {}).get(name, {})}
             for name in names}
    # the overrides (command-line flags) pass the same checks as the file
    validate_scenario({**data, "devices": specs}, source)
    run = ScenarioRun(data)
    try:
        if link_dir is not None:
            run.link_claim = claim_link_dir(link_dir)
        for name in names:
            link = Path(link_dir) / name if link_dir is not None else None
            try:
                sim = build_simulator(name, specs[name], data, endpoint=endpoint, link=link)
            except ValueError as exc:
                raise ScenarioError(source, f"devices.{name}", str(exc)) from exc
            run.simulators[name] = sim
            sim.start()
    except BaseException:
        run.stop()
        raise
    return run
