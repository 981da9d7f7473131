"""The one base of the device readers: :class:`DeviceReader` owns a
:class:`~devices.transport.PortReader` and its lifecycle; a subclass turns lines into readings.

:class:`~devices.nmea.GnssReader` (fixes) and
:class:`~devices.instruments.reader.InstrumentReader` (rangefinder, inclinometer and caliper
readings) are the two.  They share ``start`` / ``stop`` / ``with`` / ``running`` / ``settings``
and fill in hooks the port thread calls (python-can's one-base-class shape):

``_on_line(line, t_monotonic_s)`` or ``_on_lines(lines, t_monotonic_s)``
    Every framed line, or all the lines of one read in one call (class attribute
    ``lines_per_call``).
``_on_idle(t_monotonic_s)``
    A read found no data within the port's ``read_timeout_s``.
``_on_status(status)``
    A link-state report; the base passes it on to the ``on_status`` callback.
``_on_stopped()``
    After :meth:`DeviceReader.stop` joined the thread (deliver what is still pending).

An exception from a hook is counted (``stats.callback_errors``), logged and survived by the
port thread.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Self

from devices.framing import FramerFactory, LineFramer
from devices.transport import DeviceStatus, PortReader, SerialSettings

__all__ = ["DeviceReader"]


class DeviceReader:
    """A device on one port: its reader thread's lifecycle, with hooks for what the lines mean.

    Parameters
    ----------
    settings : SerialSettings
        The port.
    on_status : callable(DeviceStatus) -> None, optional
        Link-state reports (connecting, connected, disconnected, stopped), on the reader thread.
    framer_factory : callable() -> Framer
        Makes the framer (a fresh one per connection); default
        :class:`~devices.framing.LineFramer`.
    name : str
        Thread name suffix (``fieldapp-reader-<name>``).
    silence_timeout_s : float, optional
        Close and retry a link that yields no valid line for this long (see
        :class:`~devices.transport.PortReader`); None: never.
    """

    #: True: the port thread hands all the lines of one read to :meth:`_on_lines` in one call
    #: (cheaper per line for a fast stream); False: each line to :meth:`_on_line`.
    lines_per_call = False

    def __init__(
        self,
        settings: SerialSettings,
        on_status: Callable[[DeviceStatus], None] | None = None,
        *,
        framer_factory: FramerFactory = LineFramer,
        name: str = "port",
        silence_timeout_s: float | None = None,
    ) -> None:
        self._status_callback = on_status
        per_call = self.lines_per_call
        self._port = PortReader(
            settings,
            None if per_call else self._on_line,
            handle_lines=self._on_lines if per_call else None,
            on_status=self._on_status,
            framer_factory=framer_factory,
            name=name,
            on_idle=self._on_idle,
            silence_timeout_s=silence_timeout_s,
        )

    # -- lifecycle

    def start(self) -> Self:
        """Start the reader thread (once; a second start raises RuntimeError).  Returns self."""
        self._port.start()
        return self

    def stop(self, timeout_s: float = 5.0) -> bool:
        """Stop and join the reader thread, then :meth:`_on_stopped`; True when it ended in time."""
        ok = self._port.stop(timeout_s)
        self._on_stopped()
        return ok

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        """True while the reader thread is alive."""
        return self._port.running

    def write(self, data: bytes) -> int:
        """Write ``data`` to the device's port (any thread; see
        :meth:`~devices.transport.PortReader.write`); returns bytes written, 0 while unplugged."""
        return self._port.write(data)

    @property
    def settings(self) -> SerialSettings:
        """The port's settings."""
        return self._port.settings

    # -- hooks (reader thread)

    def _on_line(self, line: bytes, t_monotonic_s: float) -> None:
        """One framed line (when ``lines_per_call`` is False)."""
        raise NotImplementedError

    def _on_lines(self, lines: list[bytes], t_monotonic_s: float) -> None:
        """All the lines one read completed (when ``lines_per_call`` is True)."""
        raise NotImplementedError

    def _on_idle(self, t_monotonic_s: float) -> None:
        """A read found no data within ``read_timeout_s``; nothing by default."""

    def _on_status(self, status: DeviceStatus) -> None:
        """A link-state report: passed on to ``on_status``."""
        if self._status_callback is not None:
            self._status_callback(status)  # PortReader counts a raising callback

    def _on_stopped(self) -> None:
        """The thread has been stopped (called by :meth:`stop`, on the caller's thread)."""
