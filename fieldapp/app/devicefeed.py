"""The devices as the window's panels see them: the fixes and readings as they arrive, and
whether the latest fix may be recorded now.

:class:`DeviceFeed` wraps the running :class:`fieldapp.app.session.DeviceSession` (none until
the devices start, or in a test). The window feeds it on the GUI thread (a fix, a reading, the
devices started) and decides the fix's problem (its age, the receiver's state, recording
paused: :func:`fieldapp.ui.status.fix_problem`); the panels listen here and ask
:meth:`DeviceFeed.usable_fix`, never the window.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from devices.nmea.fix import Fix
    from fieldapp.app.session import DeviceSession

#: Why a fix cannot be recorded before the receiver sent one.
NO_FIX_YET = "No fix from the receiver yet"

FixListener = Callable[["Fix"], None]
#: Told whether a fix can be recorded now, and why not ("" when it can).
UsableListener = Callable[[bool, str], None]


class DeviceFeed:
    """Fixes and instrument readings for the panels, and the fix's usability.

    ``reading`` kinds are the device kinds of :mod:`devices.instruments.registry`
    (``"caliper"``, ``"rangefinder"``, ``"inclinometer"``).

    >>> feed = DeviceFeed()
    >>> got = []
    >>> feed.on_reading("caliper", got.append)
    >>> feed.reading("caliper", "12.3 in"); feed.reading("rangefinder", "40 ft")
    >>> got, feed.usable_fix(), feed.problem, feed.simulator("caliper"), feed.simulating
    (['12.3 in'], None, 'No fix from the receiver yet', None, False)
    """

    def __init__(self, session: DeviceSession | None = None) -> None:
        self.session = session
        self.latest_fix: Fix | None = None
        self.fix_count = 0
        """Fixes told to the listeners so far (:meth:`fix`)."""
        self.problem: str | None = NO_FIX_YET
        """Why the latest fix cannot be recorded now (None: it can). Set by the window."""
        self._fix_listeners: list[FixListener] = []
        self._reading_listeners: dict[str, list[Callable[[Any], None]]] = {}
        self._started_listeners: list[Callable[[], None]] = []
        self.has_started = False
        """Whether the devices have started (:meth:`started` was called)."""
        self._usable_listeners: list[UsableListener] = []

    # ------------------------------------------------------------------ what panels ask
    def usable_fix(self) -> Fix | None:
        """The latest fix if it can be recorded now, else None."""
        return self.latest_fix if self.problem is None else None

    def simulator(self, kind: str) -> Any:
        """The running simulator of device ``kind`` (``"caliper"`` ...), or None (real devices,
        no session yet)."""
        return self.session.simulator(kind) if self.session is not None else None

    @property
    def scenario(self) -> dict[str, Any] | None:
        """The simulators' scenario (``--simulate``), or None (real devices, no session yet)."""
        return self.session.scenario if self.session is not None else None

    @property
    def simulating(self) -> bool:
        """Whether any simulator runs (``--simulate``: the simulated surveyor walks)."""
        return self.session is not None and bool(self.session.simulators)

    def on_fix(self, fn: FixListener) -> None:
        """Call ``fn(fix)`` for every fix, usable or not, after the window has shown it."""
        self._fix_listeners.append(fn)

    def remove_fix_listener(self, fn: FixListener) -> None:
        """Stop calling ``fn`` (a closed dialog); nothing when it was not listening."""
        if fn in self._fix_listeners:
            self._fix_listeners.remove(fn)

    def listens_to_fix(self, fn: FixListener) -> bool:
        """Whether ``fn`` is called for each fix (:meth:`on_fix`, not removed since)."""
        return fn in self._fix_listeners

    def on_reading(self, kind: str, fn: Callable[[Any], None]) -> None:
        """Call ``fn(reading)`` for every reading of device ``kind``."""
        self._reading_listeners.setdefault(kind, []).append(fn)

    def on_started(self, fn: Callable[[], None]) -> None:
        """Call ``fn()`` once the devices have started (the simulators' ports are known)."""
        self._started_listeners.append(fn)

    def on_usable_changed(self, fn: UsableListener) -> None:
        """Call ``fn(usable, reason)`` whenever a fix becomes recordable or stops being so."""
        self._usable_listeners.append(fn)

    # ------------------------------------------------------------------ what the window feeds
    def fix(self, fix: Fix) -> None:
        """A fix has arrived and been shown: tell the fix listeners (:attr:`latest_fix` is the
        window's to set, before it draws the fix) and count it (:attr:`fix_count`)."""
        self.fix_count += 1
        for fn in list(self._fix_listeners):
            fn(fix)

    def reading(self, kind: str, reading: Any) -> None:
        """A reading of device ``kind`` has arrived: tell that kind's listeners."""
        for fn in list(self._reading_listeners.get(kind, [])):
            fn(reading)

    def started(self) -> None:
        """The devices have started: tell the listeners."""
        self.has_started = True
        for fn in list(self._started_listeners):
            fn()

    @property
    def started_listener_count(self) -> int:
        """How many listeners :meth:`on_started` has taken so far (for :meth:`catch_up`)."""
        return len(self._started_listeners)

    def catch_up(self, since: int) -> None:
        """Call the started listeners that came after the first ``since``, if the devices have
        started already: a panel built after the devices started learns it as the panels
        built before did.

        >>> feed = DeviceFeed(); got = []
        >>> feed.on_started(lambda: got.append(1)); feed.catch_up(0); got   # not started yet
        []
        >>> feed.started(); feed.on_started(lambda: got.append(2)); feed.catch_up(1); got
        [1, 2]
        """
        if self.has_started:
            for fn in list(self._started_listeners[since:]):
                fn()

    def usable_changed(self) -> None:
        """:attr:`problem` changed (the window has set it and its record buttons): tell the
        listeners."""
        for fn in list(self._usable_listeners):
            fn(self.problem is None, self.problem or "")
