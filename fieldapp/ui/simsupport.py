"""The *simulated surveyor* of ``--simulate``: the scripted person who walks the demo.

The simulated devices themselves (receiver, rangefinder, caliper on pseudo-terminals) come
from the one factory :mod:`devices.sim.factory` (started by :mod:`fieldapp.app.session`); the
app opens their links exactly as it would open ``/dev/ttyUSB0``. The two buttons that
*trigger* a simulated instrument (a shot, a caliper squeeze) stand in for the trigger on the
real device (:func:`devices.sim.factory.shoot`, :func:`devices.sim.factory.squeeze`).

The narrow interface
--------------------
The surveyor never reaches into widgets, nor the window. It reads the visit being recorded
(:class:`fieldapp.app.recording.Recording`) and the fixes as the app received them
(:class:`fieldapp.app.devicefeed.DeviceFeed`), finds the panels through a :class:`PanelShelf`
(the window's tabs: :class:`PanelTabs`) and talks to each through :class:`SurveyedPanel`
(implemented by :class:`fieldapp.ui.workflows.base.WorkflowPanel`): say what it does
(``surveyor_says``), tell it started/stopped/paused/arrived (``walker_changed``), "is an OHWM
point being averaged" (``averaging``), "type the landward azimuth" (``type_azimuth``) and, on
the Tally panel, "the crown radius typed for the caliper squeeze" (``expect_crown``).

The simulated surveyor (:class:`SimulatedSurveyor`)
--------------------------------------------------
In the field the surveyor walks to a tree, a corner or the OHWM and the receiver follows. In
``--simulate`` the :class:`SimulatedSurveyor` plays that person: it only changes the GNSS
simulator's route (:meth:`devices.sim.gnss.GnssSim.walk_to`); the app still learns every
position from the simulator's NMEA over the pty, exactly as from a real receiver. It never
blocks the UI thread: a Qt timer polls for "arrived, and a usable fix stamped at or after the
arrival has reached the app", then does what the person would do there.

- Start: the simulated receiver stands on the OHWM at the transect origin.
- OHWM tab: walks to the scenario's OHWM points in turn along the bank (the transect origin
  first, then on to the end of the bank with more points: ``ohwm_tour``); press
  *Average point* when it says it is there. After a point is recorded it walks to the next;
  after the scenario's last it stays put and says the Transect tab is next.
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
either way; :func:`devices.sim.factory.start_demo` takes ``scripted_events`` too.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from devices.sim.scenario import load_scenario, ohwm_tour

if TYPE_CHECKING:
    from PySide6.QtCore import QObject
    from PySide6.QtWidgets import QTabWidget

    from fieldapp.app.devicefeed import DeviceFeed
    from fieldapp.app.recording import Recording

__all__ = ["DEMO_SPEEDUP", "TREE_STAY_S", "PanelShelf", "PanelTabs", "SimulatedSurveyor", "Step",
           "SurveyedPanel", "load_scenario", "ohwm_tour", "scripted_events_wanted", "surveyor"]

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


class SurveyedPanel(Protocol):
    """What the surveyor asks of a workflow panel (every panel has all of it; the base class
    :class:`fieldapp.ui.workflows.base.WorkflowPanel` gives harmless defaults)."""

    title: str

    def surveyor_says(self, text: str) -> None:
        """Show ``text`` (what the simulated surveyor does) on the panel's state line."""

    def walker_changed(self, walker: Any) -> None:
        """The surveyor started, stopped, paused or arrived."""

    def averaging(self) -> bool:
        """An OHWM point is being averaged here (the surveyor does not walk on meanwhile)."""

    def type_azimuth(self, azimuth_deg: float) -> None:
        """Type ``azimuth_deg`` (degrees true) into the panel's azimuth field, if it has one."""

    def expect_crown(self, crown_radius_ft: float | None) -> None:
        """Tally: the crown radius (ft) typed for the caliper reading about to arrive."""


class PanelShelf(Protocol):
    """Where the surveyor finds the workflow panels (the window's tabs: :class:`PanelTabs`)."""

    def current(self) -> SurveyedPanel | None:
        """The workflow panel shown (None before the panels are installed)."""

    def every(self) -> Iterable[SurveyedPanel]:
        """Every workflow panel built so far."""

    def on_shown(self, fn: Callable[[SurveyedPanel], None]) -> None:
        """Call ``fn(panel)`` whenever another workflow panel is shown."""


class PanelTabs:
    """The window's workflow tabs as a :class:`PanelShelf`: ``tabs`` shows the panels,
    ``panels()`` gives them by name (read each time: the panels are built after the tabs)."""

    def __init__(self, tabs: QTabWidget, panels: Callable[[], Mapping[str, Any]]) -> None:
        self.tabs = tabs
        self._panels = panels

    def current(self) -> SurveyedPanel | None:
        panel: Any = self.tabs.currentWidget()      # a WorkflowPanel, or None before any
        return panel  # type: ignore[no-any-return]  # Qt gives a QWidget: every tab is a panel

    def every(self) -> Iterable[SurveyedPanel]:
        return list(self._panels().values())

    def on_shown(self, fn: Callable[[SurveyedPanel], None]) -> None:
        def shown(index: int) -> None:
            panel: Any = self.tabs.widget(index)
            fn(panel)

        self.tabs.currentChanged.connect(shown)


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
    recording : fieldapp.app.recording.Recording
        The visit being recorded (its OHWM points, transect and trees; may be none).
    feed : fieldapp.app.devicefeed.DeviceFeed
        The fixes as the app received them (``usable_fix``, ``fix_count``).
    shelf : PanelShelf
        The workflow panels (:class:`SurveyedPanel`): the one shown, all of them, a change.
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
    parent : QObject, optional
        Owns the poll timer (the window: the timer ends with it).
    """

    def __init__(self, recording: Recording, feed: DeviceFeed, shelf: PanelShelf, gnss: Any,
                 scenario: dict[str, Any], *, caliper: Any = None, speed_m_s: float | None = None,
                 poll_ms: int = 50, parent: QObject | None = None) -> None:
        from PySide6.QtCore import QTimer

        self.recording = recording
        self.feed = feed
        self.shelf = shelf
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
        self.timer = QTimer(parent)
        self.timer.setInterval(poll_ms)
        self.timer.timeout.connect(self._poll)
        self.timer.start()
        shelf.on_shown(self._panel_shown)

    # -------------------------------------------------------------- plumbing
    @property
    def busy(self) -> bool:
        """Walking somewhere (or paused on the way)."""
        return bool(self.steps)

    def say(self, text: str) -> None:
        """Tell the user what the simulated surveyor does (the current panel's state line)."""
        self.words = text
        panel = self.shelf.current()
        if panel is not None:
            panel.surveyor_says(text)

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
        for panel in list(self.shelf.every()):
            panel.walker_changed(self)

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
        fix = self.feed.usable_fix()
        if fix is None:
            return None
        arrival = self.gnss.arrival_utc
        stamp = getattr(fix, "time_utc", None)
        if stamp is not None and arrival is not None:
            try:
                return fix if stamp >= arrival else None
            except TypeError:  # naive vs aware: fall back to counting fixes
                pass
        count = self.feed.fix_count
        if self._arrival_count is None:
            self._arrival_count = count
        return fix if count >= self._arrival_count + 2 else None

    def _staying(self) -> bool:
        """Still staying where the last step was done (see :attr:`Step.stay`)."""
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
                    self._stay = (step.stay, time.monotonic() + TREE_STAY_S)
                elif self.steps:
                    self._walk_current()
                else:
                    self.mode = None
                self._notify()
        elif not self.steps:
            self._watch_ohwm()

    # -------------------------------------------------------------- OHWM and transect
    def _panel_title(self, panel: Any = None) -> str:
        panel = panel if panel is not None else self.shelf.current()
        return str(getattr(panel, "title", ""))

    def _panel_shown(self, panel: SurveyedPanel) -> None:
        if self.retired or self.mode == "boundary" or self.recording.visit is None:
            return  # a boundary walk goes on whatever tab is shown
        title = self._panel_title(panel)
        if title == "OHWM":
            self.to_next_ohwm()
        elif title == "Transect":
            self.to_transect_origin()

    def to_next_ohwm(self) -> None:
        """Walk to the scenario's next OHWM point (one per point already recorded)."""
        if not self.ohwm or self.recording.visit is None:
            return
        n = self._near_bank_points()
        self._ohwm_seen = n
        if n >= len(self.ohwm):     # every point of the scenario taken: the surveyor stays put
            self.go([], "ohwm")
            self.say(f"every OHWM point of the scenario is recorded ({n}): the Transect tab"
                     " (Ctrl+2) is next.")
            return
        k = n
        self.go([Step(self.ohwm[k], lambda _fix: self.say(
            f"on the OHWM at point {k + 1} of the scenario: press Average point [A]."),
            f"OHWM point {k + 1}")], "ohwm")

    def _watch_ohwm(self) -> None:
        """After an OHWM point is recorded (OHWM tab shown), walk on to the next."""
        if self._panel_title() != "OHWM" or self.recording.visit is None or self._ohwm_seen is None:
            return
        panel = self.shelf.current()
        if panel is not None and panel.averaging():
            return
        if self._near_bank_points() > self._ohwm_seen:
            self.to_next_ohwm()

    def _near_bank_points(self) -> int:
        """The OHWM points on this bank's line: a far-bank shot is taken from where the
        surveyor stands, and is no point of the bank it walks (it stayed at point 2, not went on
        to "point 4 of the scenario" with 2 of them recorded)."""
        from fieldapp.app.ohwmbanks import far_line_uuids

        visit = self.recording.visit
        if visit is None:
            return 0
        model = getattr(visit, "model", None)         # a stand-in visit may have no model
        far = far_line_uuids(model) if model is not None else set()
        return sum(1 for p in visit.ohwm_points() if getattr(p, "line_uuid", None) not in far)

    def walk_to(self, lat: float, lon: float, words: str) -> None:
        """Walk to (``lat``, ``lon``) (WGS84 degrees), e.g. a stake-out target (issue 35 item
        12: the demo's stake-out could not be tried); says ``words`` on arrival."""
        self.go([Step([float(lat), float(lon)], lambda _fix: self.say(
            f"at {words}: the stake-out panel says how far off the line."), words)], "stake")

    def to_transect_origin(self) -> None:
        """Walk to the transect origin; type the scenario's landward azimuth."""
        transect = self.scenario.get("transect") or {}
        if not transect.get("start"):
            return
        panel = self.shelf.current()

        def there(_fix: Any) -> None:
            if self.recording.visit is not None and self.recording.visit.current_transect:
                # the crew started the transect before the surveyor got here: the panel's
                # status line now shows the transect's own state (e.g. the bank verdict), which
                # "press Start transect" would overwrite with a stale instruction
                self.words = "at the transect origin: shoot the stations."
                return
            az = transect.get("azimuth_deg")
            if az is not None and panel is not None:
                panel.type_azimuth(float(az))
            self.say(f"at the transect origin: landward azimuth {az}°, press Start transect [N]"
                     " then shoot.")
        self.go([Step(list(transect["start"]), there, "the transect origin")], "transect")

    # -------------------------------------------------------------- tally
    def measure_next_tree(self, tally_panel: SurveyedPanel) -> None:
        """Walk to the next scenario tree, then type its crown radius and squeeze the caliper
        (:meth:`TallyPanel.expect_crown`). Asked while still walking to a tree (or staying at
        one until it is recorded), the tree after it is queued: the surveyor walks on to it
        once the current tree is recorded."""
        if not self.trees or self.caliper is None:
            return
        queue = self.mode == "tree" and bool(self.steps or self._stay)
        if self.next_tree is None:
            self.next_tree = len(self.recording.visit.trees()) if self.recording.visit is not None else 0
        i = self.next_tree % len(self.trees)
        self.next_tree += 1
        tree = self.trees[i]
        name = tree.get("common_name") or tree.get("label") or "tree"
        words = f"tree {tree.get('id', i + 1)} ({name}, {tree['dbh_in']:g} in)"
        before: list[int] = []

        def count() -> int:
            return len(self.recording.visit.trees()) if self.recording.visit is not None else 0

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


def surveyor(current: SimulatedSurveyor | None, recording: Recording, feed: DeviceFeed,
             shelf: PanelShelf, parent: QObject | None = None) -> SimulatedSurveyor | None:
    """The :class:`SimulatedSurveyor` to keep: ``current`` while it still walks the running
    simulated receiver, else a new one (``current`` retired, its timer stopped); None when the
    GNSS is not a route-following simulator (real receiver, replay, no devices yet) or there is
    no scenario. The caller (the window) keeps what it returns."""
    gnss = feed.simulator("gnss")
    scenario = feed.scenario
    if gnss is None or not hasattr(gnss, "walk_to") or scenario is None:
        return None
    if current is not None and current.gnss is gnss:
        return current
    if current is not None:
        current.retired = True
        current.timer.stop()
    s = SimulatedSurveyor(recording, feed, shelf, gnss, scenario, caliper=feed.simulator("caliper"),
                          parent=parent)
    if recording.visit is not None and s._panel_title() == "OHWM":
        s._ohwm_seen = len(recording.visit.ohwm_points())  # standing at the first OHWM point
    return s
