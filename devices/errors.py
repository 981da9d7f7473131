"""Exceptions raised by :mod:`devices`.

One tree for the whole package, so callers can catch as narrowly or as broadly
as they need::

    DeviceError                 anything a field device or its link did wrong
    ├── PortUnavailable         a port could not be opened (missing, busy,
    │                           permission, unreachable); the message names it
    └── BadSentence             one received sentence is unusable; ``kind``
        │                       says why (a :class:`devices.nmea.BadKind` value)
        └── ChecksumError       the ``*hh`` checksum does not match the sentence

Bad arguments (a baud rate out of range, an unknown parity) raise
:class:`ValueError`, not a :class:`DeviceError`.  Errors raised while handling
a lower-level exception are chained with ``from``.

Reader threads never let these escape: they count a :class:`BadSentence` by
kind and skip it, and turn a :class:`PortUnavailable` into a
``DISCONNECTED`` status report followed by a retry.
"""

from __future__ import annotations

__all__ = ["DeviceError", "PortUnavailable", "BadSentence", "ChecksumError"]


class DeviceError(Exception):
    """Base class of every error raised by :mod:`devices`."""


class PortUnavailable(DeviceError):
    """A serial port (or URL) could not be opened.

    Parameters
    ----------
    port : str
        The port name or pyserial URL as configured (``/dev/ttyUSB0``,
        ``COM7``, ``socket://127.0.0.1:10110``).
    reason : str
        One word for the UI: ``"missing"``, ``"busy"``, ``"permission"``,
        ``"unreachable"`` or ``"error"``.
    detail : str
        The operating system's or pyserial's own words.
    """

    def __init__(self, port: str, reason: str, detail: str = "") -> None:
        self.port = port
        self.reason = reason
        self.detail = detail
        text = f"port {port} unavailable ({reason})"
        if detail:
            text += f": {detail}"
        super().__init__(text)


class BadSentence(DeviceError):
    """One received sentence cannot be used.

    Parameters
    ----------
    kind : str
        Why, as a short name (the value of a :class:`devices.nmea.BadKind`):
        ``"checksum"``, ``"truncated"``, ``"binary_noise"``, ``"overlong"``,
        ``"unknown_sentence"`` or ``"malformed_field"``.
    line : bytes
        The offending line as received (without its terminator).
    detail : str
        What exactly was wrong, for logs.
    """

    def __init__(self, kind: str, line: bytes = b"", detail: str = "") -> None:
        self.kind = kind
        self.line = line
        self.detail = detail
        shown = line[:100].decode("ascii", "backslashreplace")
        super().__init__(f"{kind}: {detail} in {shown!r}" if detail else f"{kind}: {shown!r}")


class ChecksumError(BadSentence):
    """The NMEA ``*hh`` checksum does not match the XOR of the sentence body."""

    def __init__(self, line: bytes = b"", detail: str = "") -> None:
        super().__init__("checksum", line, detail)
