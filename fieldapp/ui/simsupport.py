"""Simulated devices for ``--simulate`` and ``--replay``: the demo scenario's receiver,
rangefinder and caliper (from :mod:`devices.sim`) on pseudo-terminals with stable links, and
the *simulated surveyor* that walks the receiver to where each workflow happens.

The app opens the link paths exactly as it would open ``/dev/ttyUSB0``; it cannot tell the
simulators from hardware. The two buttons that *trigger* a simulated instrument (a shot, a
caliper squeeze) stand in for the trigger on the real device.

The simulated surveyor (:class:`SimulatedSurveyor`)
--------------------------------------------------
In the field the surveyor walks to a tree, a corner or the OHWM and the receiver follows. In
``--simulate`` the :class:`SimulatedSurveyor` plays that person: it only changes the GNSS
simulator's route (:meth:`devices.sim.gnss.GnssSim.walk_to`); the app still learns every
position from the simulator's NMEA over the pty, exactly as from a real receiver. It never
blocks the UI thread: a Qt timer polls for "arrived, and a usable fix stamped at or after the
arrival has reached the app", then does what the person would do there.

- Start: the simulated receiver stands on the OHWM at the transect origin.
- OHWM tab: walks to the scenario's OHWM points in turn (the transect origin first); press
  *Average point* when it says it is there. After a point is recorded it walks to the next.
  While it walks to an OHWM point, *Average point* is disabled with the reason ("walking to
  OHWM point 3…"), so no point is averaged from a moving receiver; an averaging under way is
  cancelled if it walks off (every panel with a ``walker_changed(walker)`` method is told
  whenever the surveyor starts, stops, pauses or arrives).
- Transect tab: walks to the transect origin and types the scenario's landward azimuth (when
  no transect is open); the rangefinder shots then follow the scripted profile.
- Tally, *Caliper (simulator)*: walks to the next scenario tree, waits for the fix there,
  types the tree's crown radius from the scenario (as a user would) and squeezes the caliper;
  it stays there until the tree is recorded (at most :data:`TREE_STAY_S`). A squeeze asked
  for while it is still walking is queued: it walks on to the following tree afterwards.
- Boundary, *Start walk* for a wetland (the scenario's wetland) or a woodland stand or grove
  (the scenario's stand): walks to the first corner, starts the walk there, goes round taking
  a vertex at each corner (vertices in between come from the walk's spacing) and stops back at
  the start; *Close boundary* then closes it at the scenario's area. Pause holds the walker,
  resume walks on, close stops it.

It walks at :data:`DEMO_SPEEDUP` times the scenario's walking speed (5 m/s for the demo: a
demo, not a pace); the fix noise is the receiver's as scripted.

Scripted fix quality
--------------------
The demo scenario's receiver goes *RTK float* from 15 to 30 s and drops out (no fix) from 40
to 45 s after the start, while the surveyor still stands at the first OHWM point, to show the
blue *RTK float* badge and the *STALE* fix with the record buttons disabled. Those events are
played in an interactive session only: offscreen (tests, screenshots) the receiver keeps its
steady fix, so nothing timed can disturb a test. ``FIELDAPP_SIM_EVENTS=1`` / ``=0`` forces
either way; :func:`start_demo` takes ``scripted_events`` too.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

_SIM_DIR: Path | None = None

DEMO_SPEEDUP = 5.0
"""The simulated surveyor walks this many times the scenario's ``speed_m_s`` (5 m/s on the
demo's 1 m/s: the walkthrough takes minutes, not a quarter of an hour)."""

TREE_STAY_S = 3.0
"""After squeezing the caliper at a tree the surveyor stays until the tree is recorded, at most
this many seconds (wall clock), before walking on to a queued tree."""


def scripted_events_wanted() -> bool:
    """Whether the demo receiver plays its scripted quality changes and dropouts:
    ``FIELDAPP_SIM_EVENTS`` (``1`` / ``0``) if set, else only on a real screen (not the
    ``offscreen`` or ``minimal`` Qt platform of tests and screenshots)."""
    env = os.environ.get("FIELDAPP_SIM_EVENTS")
    if env is not None and env.strip() != "":
        return env.strip().lower() not in ("0", "no", "false", "off")
    try:
        from PySide6.QtGui import QGuiApplication
    except ImportError:  # pragma: no cover - the UI always has Qt
        return False
    return QGuiApplication.platformName() not in ("offscreen", "minimal", "")


def sim_dir() -> Path:
    """A private folder for this process's pty links and the demo species table."""
    global _SIM_DIR
    if _SIM_DIR is None:
        _SIM_DIR = Path(tempfile.mkdtemp(prefix=f"fieldapp-sim-{os.getpid()}-"))
        atexit.register(shutil.rmtree, _SIM_DIR, True)
    return _SIM_DIR


def load_scenario(path: str | Path | None = None) -> dict:
    """The demo scenario (``devices/sim/scenarios/demo.json``) or the scenario at ``path``,
    validated by :func:`devices.sim.scenario.load_scenario`.

    Raises
    ------
    FileNotFoundError
        No such scenario.
    devices.sim.schema.ScenarioError
        (a ``ValueError``) Not JSON or not a valid scenario; the message names the file and
        the key path.
    """
    from devices.sim.scenario import load_scenario as load_validated

    return load_validated("demo" if path is None else path)


def species_table_path(scenario: dict) -> str | None:
    table = scenario.get("species_table")
    if not table:
        return None
    path = sim_dir() / "species.json"
    path.write_text(json.dumps(table), encoding="utf-8")
    return str(path)


def make_gnss(scenario: dict, *, waypoints: list | None = None, rate_hz: float | None = None,
              time_scale: float = 1.0, link: str = "gnss", **overrides: Any) -> Any:
    """A GNSS simulator walking the scenario's scripted path (or ``waypoints``)."""
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
               gnss_waypoints: list | None = None,
               scripted_events: bool | None = None) -> tuple[dict, list, dict]:
    """Start the demo's GNSS, rangefinder and caliper simulators.

    ``scripted_events`` : play the scenario's ``quality_schedule`` and ``dropouts`` (None:
    :func:`scripted_events_wanted`); False gives a steady fix of the scenario's ``quality``.

    Returns
    -------
    ports : dict
        ``{"gnss": path, "rangefinder": path, "caliper": path}`` to open.
    sims : list
        The started simulators (stop them when done).
    scenario : dict
    """
    scenario = scenario or load_scenario()
    if gnss_waypoints is None:
        # the simulated surveyor starts on the OHWM at the transect origin, standing
        gnss_waypoints = [start_position(scenario)]
    if scripted_events is None:
        scripted_events = scripted_events_wanted()
    steady = {} if scripted_events else {"quality_schedule": [], "dropouts": []}
    sims = []
    try:
        for make in (lambda: make_gnss(scenario, waypoints=gnss_waypoints, rate_hz=gnss_rate_hz,
                                       time_scale=time_scale, **steady),
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


# --------------------------------------------------------------------------- surveyor
def start_position(scenario: dict) -> list[float]:
    """Where the simulated surveyor starts: the transect origin, else the first OHWM point,
    else the scripted path's first waypoint ([lat, lon] degrees)."""
    if scenario.get("transect", {}).get("start"):
        return list(scenario["transect"]["start"])
    if scenario.get("ohwm"):
        return list(scenario["ohwm"][0])
    return list(scenario["devices"]["gnss"]["waypoints"][0])


def ohwm_tour(scenario: dict) -> list[list[float]]:
    """The scenario's OHWM points in the order the surveyor averages them: from the one
    nearest the transect origin on, then the ones before it."""
    points = [list(p) for p in scenario.get("ohwm", [])]
    if not points:
        return []
    sx, sy = start_position(scenario)
    k = min(range(len(points)),
            key=lambda i: (points[i][0] - sx) ** 2 + (points[i][1] - sy) ** 2)
    return points[k:] + points[:k]


def closed_ring(points: list) -> list[list[float]]:
    """``points`` ([lat, lon] ...) ending where they start."""
    ring = [list(p) for p in points]
    if ring and ring[0] != ring[-1]:
        ring.append(ring[0])
    return ring


def boundary_for(scenario: dict, kind: str) -> list[list[float]] | None:
    """The scenario boundary the surveyor walks for an area ``kind``: the wetland for
    ``wetland``, the stand for ``woodland_stand`` and ``grove``; None for other kinds."""
    key = {"wetland": "wetland", "woodland_stand": "stand", "grove": "stand"}.get(kind)
    ring = scenario.get(key, {}).get("boundary") if key else None
    return closed_ring(ring) if ring else None


@dataclass
class Step:
    """Walk to ``target`` ([lat, lon]); once a usable fix from there has reached the app,
    call ``on_there(fix)``. ``words`` names the place for the panel (``tree 3``)."""

    target: list[float]
    on_there: Callable[[Any], None]
    words: str
    stay: Callable[[], bool] | None = None
    """After ``on_there``: stay until this is true (at most :data:`TREE_STAY_S`)."""


class SimulatedSurveyor:
    """The person carrying the receiver in ``--simulate`` (see the module docstring).

    Parameters
    ----------
    window : fieldapp.ui.mainwindow.MainWindow
        Gives the fixes as the app received them (``usable_fix``, ``fix_count``), the tabs and
        the visit.
    gnss : devices.sim.gnss.GnssSim
        The running simulated receiver (only its route is changed).
    scenario : dict
        The validated scenario (OHWM points, transect, stand trees, boundaries).
    caliper : devices.sim.caliper.CaliperSim, optional
    speed_m_s : float, optional
        Walking speed, m/s of simulated time (default :data:`DEMO_SPEEDUP` x the scenario's
        ``devices.gnss.speed_m_s``).
    poll_ms : int
        How often the UI-thread timer looks for the arrival fix.
    """

    def __init__(self, window: Any, gnss: Any, scenario: dict, *, caliper: Any = None,
                 speed_m_s: float | None = None, poll_ms: int = 50) -> None:
        from PySide6.QtCore import QTimer

        self.w = window
        self.gnss = gnss
        self.caliper = caliper
        self.scenario = scenario
        spec_speed = float(scenario.get("devices", {}).get("gnss", {}).get("speed_m_s", 1.0))
        self.speed_m_s = speed_m_s or DEMO_SPEEDUP * (spec_speed or 1.0)
        self.trees = list(scenario.get("stand", {}).get("trees", []))
        self.ohwm = ohwm_tour(scenario)
        self.steps: list[Step] = []
        self.mode: str | None = None  # "ohwm", "transect", "tree", "boundary"
        self.paused = False
        self.words = ""
        self.next_tree: int | None = None
        self.retired = False
        self._gen = 0
        self._arrival_count: int | None = None
        self._ohwm_seen: int | None = None
        self._stay: tuple[Callable[[], bool], float] | None = None  # (done?, until monotonic)
        self.timer = QTimer(window)
        self.timer.setInterval(poll_ms)
        self.timer.timeout.connect(self._poll)
        self.timer.start()
        window.tabs.currentChanged.connect(self._tab_changed)

    # -------------------------------------------------------------- plumbing
    @property
    def busy(self) -> bool:
        """Walking somewhere (or paused on the way)."""
        return bool(self.steps)

    def say(self, text: str) -> None:
        """Tell the user what the simulated surveyor does (the current panel's state line)."""
        self.words = text
        state = getattr(self.w.tabs.currentWidget(), "state", None)
        if state is not None:
            state.setText(f"Simulated surveyor: {text}")

    def go(self, steps: list[Step], mode: str) -> None:
        """Replace whatever the surveyor was doing by ``steps``."""
        self._gen += 1
        self._stay = None
        self.steps = list(steps)
        self.mode = mode if steps else None
        self.paused = False
        self._walk_current()
        self._notify()

    def _notify(self) -> None:
        """Tell the panels (``walker_changed(self)``) that walking started, stopped or paused."""
        for panel in list(getattr(self.w, "panels", {}).values()):
            fn = getattr(panel, "walker_changed", None)
            if fn is not None:
                fn(self)

    @property
    def walking_to(self) -> str | None:
        """Where the surveyor is on the way to in words (``OHWM point 3``), else None."""
        return self.steps[0].words if self.steps else None

    def _walk_current(self) -> None:
        self._arrival_count = None
        if not self.steps:
            return
        step = self.steps[0]
        self.gnss.walk_to(step.target[0], step.target[1], speed_m_s=self.speed_m_s)
        self.say(f"walking to {step.words}…")

    def stop(self) -> None:
        """Stop walking and stand still."""
        self._gen += 1
        self._stay = None
        self.steps = []
        self.mode = None
        self.paused = False
        self.gnss.hold()
        self._notify()

    def pause(self) -> None:
        """Stand still; :meth:`resume` walks on to the same place."""
        if self.steps:
            self.paused = True
            self.gnss.hold()
            self._notify()

    def resume(self) -> None:
        if self.steps and self.paused:
            self.paused = False
            self._walk_current()
            self._notify()

    def _there_fix(self) -> Any:
        """A usable fix taken at or after the arrival epoch, or None yet."""
        if not self.gnss.arrived:
            return None
        fix = self.w.usable_fix()
        if fix is None:
            return None
        arrival = self.gnss.arrival_utc
        stamp = getattr(fix, "time_utc", None)
        if stamp is not None and arrival is not None:
            try:
                return fix if stamp >= arrival else None
            except TypeError:  # naive vs aware: fall back to counting fixes
                pass
        count = getattr(self.w, "fix_count", 0)
        if self._arrival_count is None:
            self._arrival_count = count
        return fix if count >= self._arrival_count + 2 else None

    def _staying(self) -> bool:
        """Still staying where the last step was done (see :attr:`Step.stay`)."""
        import time

        if self._stay is None:
            return False
        done, until = self._stay
        try:
            finished = bool(done())
        except Exception:  # noqa: BLE001 - a stay never stops the surveyor
            finished = True
        if finished or time.monotonic() >= until:
            self._stay = None
            if self.steps and not self.paused:
                self._walk_current()
                self._notify()
            elif not self.steps:
                self.mode = None
            return False
        return True

    def _poll(self) -> None:
        if self._staying():
            return
        if self.steps and not self.paused:
            fix = self._there_fix()
            if fix is None:
                return
            step = self.steps.pop(0)
            gen = self._gen
            try:
                step.on_there(fix)
            except Exception as exc:  # noqa: BLE001 - shown; the surveyor stops
                self.stop()
                self.say(f"stopped: {exc}")
                return
            if gen == self._gen:
                if step.stay is not None:
                    import time

                    self._stay = (step.stay, time.monotonic() + TREE_STAY_S)
                elif self.steps:
                    self._walk_current()
                else:
                    self.mode = None
                self._notify()
        elif not self.steps:
            self._watch_ohwm()

    # -------------------------------------------------------------- OHWM and transect
    def _panel_title(self, widget: Any = None) -> str:
        widget = widget if widget is not None else self.w.tabs.currentWidget()
        return str(getattr(widget, "title", ""))

    def _tab_changed(self, index: int) -> None:
        if self.retired or self.mode == "boundary" or self.w.visit is None:
            return  # a boundary walk goes on whatever tab is shown
        title = self._panel_title(self.w.tabs.widget(index))
        if title == "OHWM":
            self.to_next_ohwm()
        elif title == "Transect":
            self.to_transect_origin()

    def to_next_ohwm(self) -> None:
        """Walk to the scenario's next OHWM point (one per point already recorded)."""
        if not self.ohwm or self.w.visit is None:
            return
        n = len(self.w.visit.ohwm_points())
        self._ohwm_seen = n
        k = n % len(self.ohwm)
        self.go([Step(self.ohwm[k], lambda _fix: self.say(
            f"on the OHWM at point {k + 1} of the scenario: press Average point [A]."),
            f"OHWM point {k + 1}")], "ohwm")

    def _watch_ohwm(self) -> None:
        """After an OHWM point is recorded (OHWM tab shown), walk on to the next."""
        if self._panel_title() != "OHWM" or self.w.visit is None or self._ohwm_seen is None:
            return
        panel = self.w.tabs.currentWidget()
        if getattr(panel, "collecting", None) is not None:
            return
        if len(self.w.visit.ohwm_points()) > self._ohwm_seen:
            self.to_next_ohwm()

    def to_transect_origin(self) -> None:
        """Walk to the transect origin; type the scenario's landward azimuth."""
        transect = self.scenario.get("transect") or {}
        if not transect.get("start"):
            return
        panel = self.w.tabs.currentWidget()

        def there(_fix: Any) -> None:
            az = transect.get("azimuth_deg")
            spin = getattr(panel, "azimuth", None)
            if az is not None and spin is not None and not self.w.visit.current_transect:
                spin.setValue(float(az))
            self.say(f"at the transect origin: landward azimuth {az}°, press Start transect [N]"
                     " then shoot.")
        self.go([Step(list(transect["start"]), there, "the transect origin")], "transect")

    # -------------------------------------------------------------- tally
    def measure_next_tree(self, tally_panel: Any) -> None:
        """Walk to the next scenario tree, then type its crown radius and squeeze the caliper
        (:meth:`TallyPanel.expect_crown`). Asked while still walking to a tree (or staying at
        one until it is recorded), the tree after it is queued: the surveyor walks on to it
        once the current tree is recorded."""
        if not self.trees or self.caliper is None:
            return
        queue = self.mode == "tree" and bool(self.steps or self._stay)
        if self.next_tree is None:
            self.next_tree = len(self.w.visit.trees()) if self.w.visit is not None else 0
        i = self.next_tree % len(self.trees)
        self.next_tree += 1
        tree = self.trees[i]
        name = tree.get("common_name") or tree.get("label") or "tree"
        words = f"tree {tree.get('id', i + 1)} ({name}, {tree['dbh_in']:g} in)"
        before: list[int] = []

        def count() -> int:
            return len(self.w.visit.trees()) if self.w.visit is not None else 0

        def there(_fix: Any) -> None:
            from devices.sim.caliper import TallyTree

            before.append(count())
            crown = tree.get("crown_radius_ft")
            tally_panel.expect_crown(crown)
            self.caliper.squeeze(TallyTree.from_dict(tree))
            queued = len(self.steps)
            self.say(f"at {words}: caliper squeezed"
                     + (f", crown radius {crown:g} ft typed" if crown else "")
                     + (f"; {queued} more tree(s) queued." if queued else "."))

        def stay() -> bool:  # until the reading has become a tree (recorded here)
            return count() > before[0]

        if not tree.get("position"):
            there(None)
            return
        step = Step(list(tree["position"]), there, words, stay=stay)
        if queue:
            self.steps.append(step)
            if self._stay is None or len(self.steps) > 1:
                self.say(f"walking to {self.steps[0].words}… ({len(self.steps) - 1} more"
                         " tree(s) queued)")
            self._notify()
        else:
            self.go([step], "tree")

    # -------------------------------------------------------------- boundary
    def walk_boundary(self, ring: list[list[float]], start: Callable[[Any], None],
                      vertex: Callable[[Any], None]) -> None:
        """Walk to ``ring[0]`` and call ``start(fix)``; go round calling ``vertex(fix)`` at each
        corner; stop back at the start and ask for *Close boundary*."""
        n = len(ring) - 1
        steps = [Step(ring[0], start, "the first corner")]
        steps += [Step(ring[i], vertex, f"corner {i + 1} of {n}") for i in range(1, n)]
        steps.append(Step(ring[n], lambda _fix: self.say(
            "back at the start: press Close boundary [Ctrl+L]."), "the start again"))
        self.go(steps, "boundary")


def surveyor(window: Any) -> SimulatedSurveyor | None:
    """The window's :class:`SimulatedSurveyor` (made on first use), or None when the GNSS is
    not a route-following simulator (real receiver, replay) or there is no scenario."""
    session = getattr(window, "session", None)
    gnss = session.simulator("gnss") if session is not None else None
    if gnss is None or not hasattr(gnss, "walk_to") or session.scenario is None:
        return None
    current = getattr(window, "sim_surveyor", None)
    if current is not None and current.gnss is gnss:
        return current
    if current is not None:
        current.retired = True
        current.timer.stop()
    s = SimulatedSurveyor(window, gnss, session.scenario, caliper=session.simulator("caliper"))
    if window.visit is not None and s._panel_title() == "OHWM":
        s._ohwm_seen = len(window.visit.ohwm_points())  # standing at the first OHWM point
    window.sim_surveyor = s
    return s
