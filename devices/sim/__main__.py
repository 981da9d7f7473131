"""``python -m devices.sim`` / ``fieldapp-sim``: start simulated devices and print their ports.

Examples
--------
``python -m devices.sim`` starts the demo scenario (GNSS, rangefinder, caliper) on ptys with
stable links in ``<tmp>/fieldapp-sim-<uid>/`` (when another run holds that folder:
``<tmp>/fieldapp-sim-<uid>-<pid>/``) and runs until Ctrl-C. Type a command and Enter:
``s`` shoot the rangefinder, ``c`` squeeze the caliper, ``u NAME`` / ``r NAME`` unplug / replug
a device, ``q`` quit.

``python -m devices.sim --replay LOG --speed 5 --loop`` plays a log as the GNSS receiver.

An invalid scenario file or flag prints one message naming the file and key (or the flag) and
exits with status 2.
"""

from __future__ import annotations

import argparse
import math
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from devices.console import tolerant_console

if TYPE_CHECKING:
    from devices.sim.scenario import ScenarioRun


def _number(lo: float, hi: float = math.inf, *, zero_ok: bool = False) -> Callable[[str], float]:
    """An argparse type: a finite number in [lo, hi] (``lo`` excluded unless ``zero_ok``)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        low_ok = value >= lo if zero_ok else value > lo
        if not math.isfinite(value) or not low_ok or value > hi:
            low = f">= {lo:g}" if zero_ok else f"> {lo:g}"
            rng = f"{low}" if hi == math.inf else f"{low} and <= {hi:g}"
            raise argparse.ArgumentTypeError(f"{text} must be a finite number {rng}")
        return value

    return parse


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="fieldapp-sim",
        description="Start simulated devices (GNSS receiver, rangefinder, caliper) and print their"
                    " ports; runs until Ctrl-C. Also run as: python -m devices.sim.")
    p.add_argument("--scenario", default="demo", help="shipped name or JSON path (default demo)")
    p.add_argument("--only", help="comma-separated device names to start")
    p.add_argument("--tcp", action="store_true", help="serve on socket:// instead of ptys")
    p.add_argument("--link-dir", help="folder for stable port links (default: a temp folder)")
    p.add_argument("--no-links", action="store_true", help="print /dev/pts paths, no links")
    p.add_argument("--rate-hz", type=_number(1, 20, zero_ok=True),
                   help="GNSS epochs per second (1-20)")
    p.add_argument("--bad-rate", type=_number(0, 1, zero_ok=True),
                   help="GNSS corrupted-sentence probability (0-1)")
    p.add_argument("--shoot-every", type=_number(0), help="rangefinder shot interval, s (> 0)")
    p.add_argument("--caliper-every", type=_number(0), help="caliper tree interval, s (> 0)")
    p.add_argument("--dialect", choices=("trupulse", "vertex"), help="rangefinder dialect")
    p.add_argument("--units", choices=("F", "Y", "M"), help="rangefinder units")
    p.add_argument("--replay", help="NMEA log to play as the GNSS receiver")
    p.add_argument("--speed", type=_number(0, zero_ok=True), default=1.0,
                   help="replay speed (0 = as fast as possible)")
    p.add_argument("--loop", action="store_true", help="loop the replay")
    p.add_argument("--list", action="store_true", help="list shipped scenarios and exit")
    p.add_argument("--duration", type=_number(0), help="stop after this many seconds (> 0)")
    return p


def _overrides(args: argparse.Namespace, devices: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The per-device option overrides the flags ask for (``--rate-hz`` ...); ``--replay``
    replaces the scenario's GNSS receivers by a replay of the log (``devices`` is changed)."""
    overrides: dict[str, dict[str, Any]] = {}
    for name, spec in devices.items():
        kind = spec.get("simulator", name)
        o: dict[str, Any] = {}
        if kind == "gnss":
            if args.rate_hz is not None:
                o["rate_hz"] = args.rate_hz
            if args.bad_rate is not None:
                o["bad_rate"] = args.bad_rate
        elif kind == "rangefinder":
            if args.shoot_every is not None:
                o["interval_s"] = args.shoot_every
            if args.dialect:
                o["dialect"] = args.dialect
                o.pop("protocol", None)
                spec.pop("protocol", None)
            if args.units:
                o["units"] = args.units
        elif kind == "caliper" and args.caliper_every is not None:
            o["interval_s"] = args.caliper_every
        overrides[name] = o
    if args.replay:
        gnss_names = [n for n, s in devices.items() if s.get("simulator", n) == "gnss"]
        for n in gnss_names:
            devices.pop(n)
            overrides.pop(n, None)
        devices["gnss"] = {"simulator": "replay", "path": args.replay,
                           "speed": args.speed or None, "loop": args.loop}
    return overrides


def _start(args: argparse.Namespace, data: dict[str, Any], overrides: dict[str, Any], source: str) -> ScenarioRun:
    """Start the scenario; links in ``--link-dir`` (default the shared temp folder, or this
    process's own one when another live run holds it).

    Raises
    ------
    LinkDirBusy
        The folder the user chose is held by another live run.
    OSError, ValueError
        An invalid scenario or flag, or a pty that cannot be made.
    """
    from devices.sim.endpoint import pty_available
    from devices.sim.scenario import (
        LinkDirBusy,
        default_link_dir,
        private_link_dir,
        start_scenario,
    )

    only = args.only.split(",") if args.only else None
    tcp = args.tcp or not pty_available()  # Windows: no ptys, the simulators serve socket://
    link_dir = None if (args.no_links or tcp) else (args.link_dir or default_link_dir())

    def start(folder: str | Path | None) -> ScenarioRun:
        return start_scenario(data, only=only, endpoint="tcp" if tcp else None,
                              link_dir=folder, overrides=overrides, source=source)

    try:
        return start(link_dir)
    except LinkDirBusy as exc:
        if args.link_dir or link_dir is None:
            raise  # a folder the user chose: refuse rather than take another's links
        link_dir = private_link_dir()
        print(f"fieldapp-sim: {exc.folder} is in use by simulator process {exc.pid}; "
              f"links in {link_dir}", file=sys.stderr, flush=True)
        return start(link_dir)


def _command(run: ScenarioRun, word: str, rest: str) -> None:
    """One typed command: ``s`` shoot, ``c`` caliper tree, ``u``/``r NAME`` unplug/replug."""
    if word == "s":
        for sim in run.simulators.values():
            if hasattr(sim, "shoot"):
                shot = sim.shoot()
                print(f"shot {shot.sentence.decode()}", flush=True)
    elif word == "c":
        for sim in run.simulators.values():
            if hasattr(sim, "squeeze"):
                tree = sim.squeeze()
                print(f"tree {tree}", flush=True)
    elif word in ("u", "r") and rest in run.simulators:
        sim = run.simulators[rest]
        sim.unplug() if word == "u" else sim.replug()
        print(f"{rest} {'unplugged' if word == 'u' else 'replugged'}", flush=True)


def _serve_ports(run: ScenarioRun, args: argparse.Namespace) -> None:
    """Print the ports and serve until ``q``, ``--duration`` or a stop."""
    for name, config in run.device_configs().items():
        print(f"{name:12s} {config.url}  (kind {config.kind}, protocol {config.protocol})",
              flush=True)
    interactive = sys.stdin is not None and sys.stdin.isatty()
    if interactive:
        print("commands: s = shoot, c = caliper tree, u/r NAME = unplug/replug, q = quit",
              flush=True)
    done = threading.Event()
    if interactive:
        threading.Thread(target=_read_commands, args=(run, done), name="fieldapp-sim-cli",
                         daemon=True).start()
    done.wait(args.duration)


def _read_commands(run: ScenarioRun, done: threading.Event) -> None:
    """Run typed commands until ``q`` (sets ``done``) or the end of input."""
    for line in sys.stdin:
        word, _, rest = line.strip().partition(" ")
        if word == "q":
            done.set()
            return
        try:
            _command(run, word, rest)
        except Exception as exc:  # noqa: BLE001 - keep the CLI alive
            print(f"error: {exc}", file=sys.stderr, flush=True)
    # end of input (not a terminal): keep running until Ctrl-C or --duration


def main(argv: list[str] | None = None) -> int:
    """Run the simulator CLI; returns the exit status."""
    from devices.sim.scenario import load_scenario, scenario_names

    tolerant_console()
    args = _parser().parse_args(argv)
    if args.list:
        print("\n".join(scenario_names()))
        return 0
    try:
        data = load_scenario(args.scenario)
    except (OSError, ValueError) as exc:
        print(f"fieldapp-sim: {exc}", file=sys.stderr)
        return 2
    overrides = _overrides(args, data["devices"])
    # Ctrl-C (or kill, SIGTERM) at any moment, even while the ports are being made: the stop is
    # held until the run is inside ``with run`` (_StopSignals), so whatever was started is
    # stopped and its links removed on the way out
    with _StopSignals() as stop:
        try:
            return _serve(args, data, overrides, stop)
        except KeyboardInterrupt:
            return 0


def _serve(args: argparse.Namespace, data: dict[str, Any], overrides: dict[str, Any],
           stop: _StopSignals | None = None) -> int:
    """Start the scenario, print its ports, and serve until ``q``, ``--duration`` or Ctrl-C."""
    try:
        run = _start(args, data, overrides, str(args.scenario))
    except (OSError, ValueError) as exc:
        print(f"fieldapp-sim: {exc}", file=sys.stderr)
        return 2
    with run:
        if stop is None:
            _serve_ports(run, args)
        else:
            try:
                stop.arm()      # from here a stop raises KeyboardInterrupt; ``with run`` cleans up
                _serve_ports(run, args)
            finally:
                stop.disarm()   # run.stop() is not interrupted: a stop now is only noted
    return 0


class _StopSignals:
    """Ctrl-C (SIGINT) and ``kill PID`` (SIGTERM; SIGHUP when the terminal closes) stop the CLI
    the same way, and never half-way through making a port.

    Python's own Ctrl-C, like a handler raising at once, raised KeyboardInterrupt wherever the
    main thread was: between a pty's link being made and the simulator being entered in the run
    (or between ``start_scenario`` returning and ``with run``), so nothing stopped that
    simulator and its link and the folder ``<tmp>/fieldapp-sim-<uid>`` were left behind (a
    test killing the CLI as soon as the link appeared saw it under load). Here a stop asked for
    before :meth:`arm` is only noted; :meth:`arm` (first thing inside ``with run``) raises it
    then, and a stop after that raises once, where ``with run`` stops everything. A second
    signal during the clean-up is noted, not raised, so the clean-up finishes.

    SIGINT is taken only when it has Python's default handler (a process started in the
    background of a shell inherits SIGINT ignored and keeps it so). Outside the main thread
    (``main()`` called from a worker) no handler can be set: signals are left alone.
    """

    def __init__(self) -> None:
        self.requested: int | None = None
        self._armed = False
        self._previous: dict[int, Any] = {}

    def _handler(self, signum: int, _frame: FrameType | None) -> None:
        self.requested = signum
        if self._armed:
            self._armed = False     # raised once: a second signal lets the clean-up finish
            raise KeyboardInterrupt

    def arm(self) -> None:
        """From now on a stop raises KeyboardInterrupt; one asked for already raises now."""
        if self.requested is not None:
            raise KeyboardInterrupt
        self._armed = True

    def disarm(self) -> None:
        """From now on a stop is only noted (the clean-up runs to its end)."""
        self._armed = False

    def __enter__(self) -> _StopSignals:
        hup = getattr(signal, "SIGHUP", None)
        wanted = [signal.SIGTERM]
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            wanted.append(signal.SIGINT)
        if hup is not None and signal.getsignal(hup) is signal.SIG_DFL:   # not under nohup
            wanted.append(hup)
        for signum in wanted:
            try:
                self._previous[signum] = signal.signal(signum, self._handler)
            except ValueError:  # not the main thread: leave the signals alone
                break
        return self

    def __exit__(self, *exc: object) -> None:
        self._armed = False
        for signum, previous in self._previous.items():
            signal.signal(signum, previous)
        self._previous.clear()


if __name__ == "__main__":
    raise SystemExit(main())
