"""Simulator base class: one daemon thread ``fieldapp-sim-<name>`` per simulated device.

Like a python-can bus backend, the base does the shared work (thread, pacing, input from the
app, stop, context manager, unplug/replug) and each device overrides only :meth:`_next_due`,
:meth:`_tick` and :meth:`_on_input`.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from pathlib import Path

from devices.sim.endpoint import Endpoint, PtyEndpoint, TcpEndpoint, pty_available

log = logging.getLogger(__name__)


def check_interval_s(name: str, value: float | None) -> float | None:
    """A timer interval in seconds: None (timer off) or a finite number > 0.

    Raises
    ------
    ValueError
        Zero, negative, NaN, infinite or not a number, with ``name`` and the value.
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name} {value!r} is not a number of seconds")
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} {value} must be a finite number of seconds > 0 "
                         "(None: no timer)")
    return float(value)


def make_endpoint(
    endpoint: Endpoint | str | None = None, link: str | Path | None = None, parity: str = "N"
) -> Endpoint:
    """An endpoint from an instance, ``"pty"`` or ``"tcp"``/``"socket"``.

    The default (None) is a pty where :func:`~devices.sim.endpoint.pty_available`, else (Windows,
    or ``FIELDAPP_SIM_PTY=0``) a TCP server on loopback; ``link`` only applies to a pty.

    Raises
    ------
    ValueError
        An unknown ``endpoint``.
    OSError
        ``"pty"`` asked for where there are none, or the port cannot be opened.
    """
    if isinstance(endpoint, Endpoint):
        return endpoint
    if endpoint is None:
        endpoint = "pty" if pty_available() else "tcp"
    if endpoint == "pty":
        return PtyEndpoint(link=link, parity=parity)
    if endpoint in ("tcp", "socket"):
        return TcpEndpoint()
    raise ValueError(f"endpoint {endpoint!r} is not 'pty', 'tcp' or an Endpoint")


class Simulator:
    """A simulated device writing real bytes to an endpoint.

    Parameters
    ----------
    endpoint : Endpoint, "pty" or "tcp"
    link : path, optional
        Stable symlink for a pty endpoint.
    name : str
        Thread name suffix: ``fieldapp-sim-<name>``.

    Attributes
    ----------
    port : str
        What the app opens (pty path / link, or ``socket://127.0.0.1:N``).
    """

    kind = "device"
    poll_s = 0.02

    def __init__(
        self,
        endpoint: Endpoint | str | None = None,
        *,
        link: str | Path | None = None,
        name: str | None = None,
        parity: str = "N",
    ) -> None:
        self.name = name or self.kind
        self.endpoint = make_endpoint(endpoint, link, parity)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._write_lock = threading.Lock()
        self.bytes_sent = 0
        self.error: BaseException | None = None

    @property
    def port(self) -> str:
        return self.endpoint.url

    # -- lifecycle

    def start(self) -> Simulator:
        """Start the simulator thread (once). Returns self."""
        if self._thread is not None:
            raise RuntimeError(f"simulator {self.name} already started")
        self._t0 = time.monotonic()
        self._thread = threading.Thread(
            target=self._run, name=f"fieldapp-sim-{self.name}", daemon=True
        )
        self._thread.start()
        return self

    def stop(self, timeout_s: float = 5.0) -> bool:
        """Stop the thread and close the endpoint. Idempotent. True when the thread ended."""
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            _join(thread, timeout_s)
        self.endpoint.close()
        return thread is None or not thread.is_alive()

    def __enter__(self) -> Simulator:
        return self.start() if self._thread is None else self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def unplug(self) -> None:
        """Pull the cable: the port disappears until :meth:`replug`."""
        self.endpoint.unplug()

    def replug(self) -> None:
        """Plug it back in (a new pty behind the same link)."""
        self.endpoint.replug()

    # -- output

    def send(self, data: bytes, wait_s: float = 0.2, lossless: bool = False) -> int:
        """Write ``data`` to the port now (thread-safe). Returns bytes written."""
        with self._write_lock:
            n = self.endpoint.write(data, wait_s, lossless)
            self.bytes_sent += n
            return n

    # -- subclass hooks

    def _next_due(self) -> float | None:
        """Monotonic time of the next timed output, or None."""
        return None

    def _tick(self, now: float) -> None:
        """Produce the timed output due at ``now``."""

    def _on_input(self, data: bytes) -> None:
        """Bytes the app wrote to the port."""

    # -- thread body

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                due = self._next_due()
                now = time.monotonic()
                wait = self.poll_s if due is None else max(0.0, min(self.poll_s, due - now))
                data = self.endpoint.read(wait)
                if data:
                    self._on_input(data)
                if due is not None and time.monotonic() >= due and not self._stop.is_set():
                    self._tick(time.monotonic())
        except BaseException as exc:  # noqa: BLE001 - report, never die silently
            self.error = exc
            log.exception("simulator %s crashed", self.name)


class IntervalTriggered:
    """Mixin for a :class:`Simulator` that can also trigger itself every ``interval_s``
    seconds (wall clock; None: only when asked), like a rangefinder shooting or a caliper
    sending a tree on a timer. The subclass sets ``interval_s`` and ``_due = None`` and
    defines :meth:`_trigger`."""

    interval_s: float | None
    _due: float | None

    def _next_due(self) -> float | None:
        if self.interval_s is None:
            return None
        if self._due is None:
            self._due = time.monotonic() + self.interval_s
        return self._due

    def _tick(self, now: float) -> None:
        self._due = now + self.interval_s if self.interval_s else None
        self._trigger()

    def _trigger(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError


def _join(thread: threading.Thread, timeout_s: float) -> None:
    """``thread.join(timeout_s)``, also for a thread whose ``start()`` was interrupted (Ctrl-C or
    kill while the simulators start): ``join`` then raises RuntimeError until the thread has
    announced itself, so wait for that within the same timeout."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            thread.join(max(0.0, deadline - time.monotonic()))
            return
        except RuntimeError:  # "cannot join thread before it is started"
            if time.monotonic() >= deadline:
                return
            time.sleep(0.01)
