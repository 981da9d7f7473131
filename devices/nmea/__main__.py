"""``python -m devices.nmea SOURCE`` (the ``fieldapp-nmea`` command): a receiver or a log as JSON.

Prints one JSON object per epoch (gpsd TPV names where they exist, see
:func:`~devices.nmea.fix.fix_to_json`) and a ``SUMMARY`` line counting good and bad sentences.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from devices.console import tolerant_console
from devices.nmea.assembler import EpochAssembler, NmeaStats, iter_stream_fixes
from devices.nmea.fix import BadKind, fix_to_json
from devices.nmea.reader import GnssReader
from devices.transport import BAUD_MAX, BAUD_MIN, DeviceStatus, LineFramer, LinkState, SerialSettings

__all__ = ["main", "source_kind"]

_T = TypeVar("_T", int, float)
#: Writes one JSON object as a line of standard output.
Emit = Callable[[dict[str, object]], None]


def _summary(stats: NmeaStats, extra_overlong: int = 0) -> dict[str, object]:
    bad = dict(stats.bad)
    bad[BadKind.OVERLONG.value] += extra_overlong
    return {"class": "SUMMARY", "good": stats.good, "used": stats.used, "fixes": stats.fixes,
            "comments": stats.comments, "bad": bad, "bad_total": sum(bad.values())}



#: Windows port names (``COM7``, ``\\\\.\\COM12``): ports, though no file of that name exists.
_WINDOWS_PORT_RE = re.compile(r"(?i)^(\\\\\.\\)?COM\d+$")


def source_kind(source: str) -> str:
    """How the command line reads SOURCE: ``"stdin"``, ``"file"`` or ``"port"``.

    ``-`` is standard input; a URL (``socket://...``), a Windows ``COMn`` name, a path under
    ``/dev``, or an existing path that is not a regular file or directory (a device node, a pty,
    a symbolic link to one, even dangling while the receiver is unplugged) is a port; an existing
    regular file is a file.

    Raises
    ------
    FileNotFoundError
        Any other path that does not exist ("no such file").
    IsADirectoryError
        A directory.
    """
    if source == "-":
        return "stdin"
    if "://" in source or _WINDOWS_PORT_RE.match(source):
        return "port"
    path = Path(source)
    if path.is_dir():
        raise IsADirectoryError(f"{source}: is a directory")
    if path.is_file():
        return "file"
    if path.exists() or path.is_symlink() or path.as_posix().startswith("/dev/"):
        return "port"
    raise FileNotFoundError(f"{source}: no such file (and not a port: not under /dev, not a URL)")


def _arg_baud(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"baud rate {text!r} is not a whole number") from None
    if not BAUD_MIN <= value <= BAUD_MAX:
        raise argparse.ArgumentTypeError(f"baud rate {value} outside {BAUD_MIN}..{BAUD_MAX}")
    return value


def _checked(kind: Callable[[str], _T], ok: Callable[[_T], bool], message: str) -> Callable[[str], _T]:
    """An argparse ``type``: ``kind(text)`` when it reads and passes ``ok``, else
    :class:`argparse.ArgumentTypeError` with ``message`` (``{text!r}`` is the argument)."""

    def parse(text: str) -> _T:
        try:
            value: _T | None = kind(text)
        except ValueError:
            value = None
        if value is None or not ok(value):
            raise argparse.ArgumentTypeError(message.format(text=text))
        return value

    return parse


_arg_seconds = _checked(float, lambda v: math.isfinite(v) and v > 0,
                        "duration {text!r} must be a finite number of seconds > 0")
_arg_count = _checked(int, lambda v: v >= 1, "count {text!r} must be a whole number >= 1")
_arg_antenna_height = _checked(float, lambda v: math.isfinite(v) and 0.0 <= v < 100.0,
                               "antenna height {text!r} must be a number of metres, 0..100")


def main(argv: list[str] | None = None) -> int:
    """``python -m devices.nmea SOURCE [--baud N]``: print one JSON object per epoch.

    SOURCE is a file, ``-`` for standard input, or a port / pyserial URL (see
    :func:`source_kind`).  For a port, reading goes on until ``--count``
    fixes or ``--duration`` seconds (or Ctrl-C).  The last line is a
    ``SUMMARY`` object with the number of good sentences and of each bad kind.

    A port that cannot be opened ends the run at its first failed open, with a
    message naming the port, unless ``--wait`` (retry until it appears) or
    ``--duration`` (retry until then) is given.  Bad arguments (a missing file,
    a directory, a baud rate outside 4800..921600, a height outside 0..100 m,
    a duration that is not a finite positive number) are refused before
    anything is read.  ``--baud`` is checked always and ignored for files.

    Exit status: 0; 2 for bad arguments or a port that could not be used at
    all; 1 when standard output was closed early (``... | head -2``: the rest
    is dropped quietly, as Python's own guidance on SIGPIPE recommends).
    """
    tolerant_console()
    try:
        return _main(argv)
    except BrokenPipeError:
        # the reader of our output went away: no traceback, and none at exit when Python flushes
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        return 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fieldapp-nmea",
        description="View a GNSS receiver or an NMEA log as JSON: one object per epoch (position,"
                    " fix quality, satellites), then a SUMMARY line counting good and bad sentences."
                    " Also run as: python -m devices.nmea SOURCE.")
    parser.add_argument("source", help="log file, '-' for stdin, or a port / pyserial URL")
    parser.add_argument("--baud", type=_arg_baud, default=None,
                        help=f"baud rate {BAUD_MIN}..{BAUD_MAX} "
                             "(default: auto-baud on serial ports; ignored for files)")
    parser.add_argument("--antenna-height-m", type=_arg_antenna_height, default=0.0,
                        help="antenna height above the ground mark, 0..100 m")
    parser.add_argument("--count", type=_arg_count, default=None, help="stop after this many fixes (ports)")
    parser.add_argument("--duration", type=_arg_seconds, default=None, help="stop after this many seconds (ports)")
    parser.add_argument("--wait", action="store_true",
                        help="keep retrying a port that cannot be opened (default: give up at the first failure)")
    return parser


def _main(argv: list[str] | None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    out = sys.stdout

    def emit(obj: dict[str, object]) -> None:
        out.write(json.dumps(obj, separators=(",", ":")) + "\n")

    try:
        kind = source_kind(args.source)
    except OSError as exc:
        parser.error(str(exc))
    if kind != "port":
        return _read_stream(args, parser, kind, emit)
    return _read_port(args, parser, emit)


def _read_stream(args: argparse.Namespace, parser: argparse.ArgumentParser, kind: str, emit: Emit) -> int:
    """A file or standard input, to its end."""
    assembler = EpochAssembler(args.antenna_height_m)
    framer = LineFramer()
    try:
        stream = sys.stdin.buffer if kind == "stdin" else open(args.source, "rb")
    except OSError as exc:
        parser.error(f"{args.source}: {exc.strerror or exc}")
    try:
        for fix in iter_stream_fixes(stream, assembler, framer):
            emit(fix_to_json(fix))
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()
    emit(_summary(assembler.stats, framer.dropped_frames))
    sys.stdout.flush()
    return 0


def _read_port(args: argparse.Namespace, parser: argparse.ArgumentParser, emit: Emit) -> int:
    """A port, until ``--count`` fixes, ``--duration``, Ctrl-C, or its first failed open."""
    out = sys.stdout
    try:
        settings = SerialSettings(args.source, baudrate=args.baud or 9600, autobaud=args.baud is None)
    except ValueError as exc:
        parser.error(str(exc))
    statuses: list[DeviceStatus] = []
    give_up = not (args.wait or args.duration is not None)
    connected = threading.Event()
    failed: list[DeviceStatus] = []

    def on_status(s: DeviceStatus) -> None:
        if failed:
            return  # giving up: the reader's retry and its stop are not news
        statuses.append(s)
        if s.state is LinkState.CONNECTED:
            connected.set()
        elif s.state is LinkState.DISCONNECTED and give_up and not connected.is_set():
            failed.append(s)  # the first open failed: give up (reported below, not "retrying")
            return
        print(f"# {s.state.value}: {s.message}", file=sys.stderr)

    reader = GnssReader(settings, on_status=on_status, antenna_height_m=args.antenna_height_m, name="cli")
    deadline = None if args.duration is None else time.monotonic() + args.duration
    n = 0
    last = None
    try:
        with reader:
            while args.count is None or n < args.count:
                if failed or (deadline is not None and time.monotonic() >= deadline):
                    break
                fix = reader.wait_fix(0.2, newer_than=last)
                if fix is not None:
                    last = fix
                    n += 1
                    emit(fix_to_json(fix))
                    out.flush()
    except KeyboardInterrupt:
        pass
    link = statuses[-1].message if statuses else None
    if failed:
        link = failed[0].message.rpartition("; retrying in")[0] or failed[0].message
        print(f"{parser.prog}: cannot open {args.source}: {link} (give --wait to keep retrying)", file=sys.stderr)
    st = reader.stats()
    summary = _summary(st.nmea, st.reader.dropped_frames)
    summary["link"] = link
    emit(summary)
    out.flush()
    return 0 if st.reader.connects else 2


if __name__ == "__main__":
    raise SystemExit(main())
