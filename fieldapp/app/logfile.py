"""The log file, and what a crash leaves behind (no Qt).

:func:`configure` (called once at start by :func:`fieldapp.cli.main`, for the window and the
office commands alike) sends the app's ``logging`` to ``fieldapp.log`` in the log folder
(:func:`fieldapp.app.paths.log_dir`; ``FIELDAPP_LOG_DIR`` moves it): UTF-8, 1 MB a file, the
five before it kept as ``fieldapp.log.1`` … ``.5``. ``fieldapp`` and ``devices`` log from INFO
(ports opened and lost, NTRIP, visits opened), everything else from WARNING; warnings also go to
the console when there is one (a windowed ``fieldapp.exe`` has none).

Two fieldapp windows may run at once and share the file: it is opened for appending only when a
line is written (``delay=True``), and a rollover Windows refuses because the other program
holds the file (WinError 32) is given up for :attr:`SharedRotatingFileHandler.RETRY_S` while the
lines go on into the current file, the older files left as they are.

:func:`install_crash_hooks` makes an uncaught exception, in the GUI thread (``sys.excepthook``:
PySide6 sends a slot's exception there) or in a worker thread (``threading.excepthook``), a
:class:`Crash`: its traceback goes to the log and the user is told where the file is, by the
notifier the window sets (:func:`set_notifier`: a message box) or else on the console (and in a
Windows message box when a windowed ``fieldapp.exe`` has no console). Nothing is closed: the
visit store commits every record as it is taken, so the visit open in the window keeps all of
them and the window carries on.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import re
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, TextIO

import fieldapp.app.paths as paths

log = logging.getLogger(__name__)

MAX_BYTES = 1_000_000
BACKUPS = 5
FILE_FORMAT = "%(asctime)s %(levelname)s [%(threadName)s] %(name)s: %(message)s"
#: The loggers whose INFO lines go to the file (the rest from WARNING).
OWN_LOGGERS = ("fieldapp", "devices")
#: The same crash (type, message, place) is logged with its traceback this many times; after
#: that once at each power of ten, in one line.
FULL_REPEATS = 3
_MARK = "_fieldapp_handler"

ExcInfo = tuple[type[BaseException], BaseException, "TracebackType | None"]


class SharedRotatingFileHandler(logging.handlers.RotatingFileHandler):
    """A UTF-8 rotating log file that another fieldapp may hold open at the same time.

    Parameters
    ----------
    path : the log file.
    max_bytes, backups : rolled over at ``max_bytes`` bytes, ``backups`` older files kept.

    The file is opened at the first line (``delay=True``). A rollover that fails with
    ``OSError`` (on Windows: the other program has the file open, so it cannot be renamed) is
    not tried again for :attr:`RETRY_S` seconds; the lines meanwhile go on into the current file,
    which may then grow past ``max_bytes``.
    """

    RETRY_S = 300.0

    def __init__(self, path: str | Path, max_bytes: int = MAX_BYTES, backups: int = BACKUPS) -> None:
        super().__init__(path, maxBytes=max_bytes, backupCount=backups, encoding="utf-8",
                         delay=True)
        self._retry_at = 0.0
        self.rollovers_refused = 0

    def shouldRollover(self, record: logging.LogRecord) -> bool:  # noqa: N802 - logging's name
        if time.monotonic() < self._retry_at:
            return False
        return bool(super().shouldRollover(record))

    def doRollover(self) -> None:  # noqa: N802 - logging's name
        """The current file becomes ``.1``, ``.1`` becomes ``.2`` … (the oldest goes).

        The current file is moved aside first (``fieldapp.log.rolling``): when Windows refuses
        that (the other fieldapp holds it), nothing else is touched. Python's own rollover
        shifted the older files first, so each refused try deleted one of them."""
        if self.stream:
            self.stream.close()
            self.stream = None          # FileHandler.emit opens it again for appending
        base = self.baseFilename
        aside = base + ".rolling"
        if not os.path.exists(aside):   # else left by a rollover killed half-way: it goes first
            try:
                self.rotate(base, aside)
            except OSError:
                self.rollovers_refused += 1
                self._retry_at = time.monotonic() + self.RETRY_S
                return
            if not os.path.exists(aside):
                return                  # nothing written yet (delay=True)
        try:
            for i in range(self.backupCount - 1, 0, -1):
                older = f"{base}.{i}"
                if os.path.exists(older):
                    os.replace(older, f"{base}.{i + 1}")
            os.replace(aside, f"{base}.1")
        except OSError:                 # an older file held (open in an editor): tried later
            self.rollovers_refused += 1
            self._retry_at = time.monotonic() + self.RETRY_S


class _ConsoleHandler(logging.StreamHandler[TextIO]):
    """Writes to the ``sys.stderr`` of the moment; nothing when there is none (a windowed
    ``fieldapp.exe``)."""

    def __init__(self, level: int) -> None:
        logging.Handler.__init__(self, level)

    # The base class's stream is an attribute set once; this one follows sys.stderr (read-only).
    @property
    def stream(self) -> TextIO:  # type: ignore[override]
        return sys.stderr

    def emit(self, record: logging.LogRecord) -> None:
        if sys.stderr is not None:
            super().emit(record)


@dataclass(frozen=True)
class Crash:
    """An uncaught exception, as the user is told of it.

    what : ``"ValueError: could not convert …"`` (type and message, at most 300 characters)
    where : ``"the window"``, ``"start-up"``, ``"thread fieldapp-gnss"`` …
    log_path : the log file holding its traceback; None when no log file could be written
    traceback_text : the traceback (for the console when there is no log file)
    """

    what: str
    where: str
    log_path: Path | None
    traceback_text: str


def crash_words(crash: Crash) -> str:
    """What the window says of a crash (the message box's text).

    >>> print(crash_words(Crash("KeyError: 'dbh_in'", "the window", Path("/u/fieldapp.log"), "")))
    fieldapp met an error it did not expect (KeyError: 'dbh_in', in the window).
    <BLANKLINE>
    What you recorded is kept: every record is saved as it is taken.
    <BLANKLINE>
    The details are in the log file:
    /u/fieldapp.log
    Send that file to whoever looks after fieldapp.
    """
    head = (f"fieldapp met an error it did not expect ({crash.what}, in {crash.where}).\n\n"
            "What you recorded is kept: every record is saved as it is taken.\n\n")
    if crash.log_path is None:
        return head + "No log file could be written, so the details are not kept."
    return (head + f"The details are in the log file:\n{crash.log_path}\n"
            "Send that file to whoever looks after fieldapp.")


def crash_line(crash: Crash) -> str:
    """What the console says of a crash (one line).

    >>> crash_line(Crash("OSError: disk full", "start-up", Path("/u/fieldapp.log"), ""))
    'fieldapp: unexpected error (OSError: disk full, in start-up); the details are in /u/fieldapp.log'
    """
    where = (f"the details are in {crash.log_path}" if crash.log_path is not None
             else "no log file could be written")
    return f"fieldapp: unexpected error ({crash.what}, in {crash.where}); {where}"


class _State:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.file: Path | None = None
        self.handler: SharedRotatingFileHandler | None = None
        self.notifier: Callable[[Crash], None] | None = None
        self.seen: dict[tuple[str, str], int] = {}  # (exception type, file:line or message) -> count
        self.hooks: tuple[Callable[..., Any], ...] = ()  # sys.excepthook, threading.excepthook replaced
        self.levels: dict[str, int] = {}


_state = _State()


def configure(console_format: str = "%(message)s", *, directory: str | Path | None = None) -> Path | None:
    """Send logging to the log file and warnings to the console; returns the log file, or None
    when its folder cannot be made or written (then the console only, and why is logged there).

    Parameters
    ----------
    console_format : the console's line format (the window's: ``"%(levelname)s %(name)s:
        %(message)s"``; the office commands keep Python's plain ``"%(message)s"``).
    directory : the log folder; None: :func:`fieldapp.app.paths.log_dir`.

    Calling it again replaces what an earlier call installed (never two files).
    """
    unconfigure()
    root = logging.getLogger()
    console = _ConsoleHandler(logging.WARNING)
    console.setFormatter(logging.Formatter(console_format))
    setattr(console, _MARK, True)
    root.addHandler(console)
    for name in OWN_LOGGERS:
        logger = logging.getLogger(name)
        _state.levels[name] = logger.level
        if logger.level == logging.NOTSET or logger.level > logging.INFO:
            logger.setLevel(logging.INFO)
    path = (Path(directory) if directory is not None else paths.log_dir()) / paths.LOG_NAME
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a", encoding="utf-8"):
            pass                          # writable: said now, not at every line
    except OSError as exc:
        log.warning("no log file: %s cannot be written (%s)", path, exc)
        return None
    handler = SharedRotatingFileHandler(path)
    handler.setFormatter(logging.Formatter(FILE_FORMAT))
    handler.setLevel(logging.INFO)
    setattr(handler, _MARK, True)
    root.addHandler(handler)
    _state.file, _state.handler = path, handler
    return path


def unconfigure() -> None:
    """Remove what :func:`configure` installed (its handlers closed, the levels it set undone)."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, _MARK, False):
            root.removeHandler(handler)
            handler.close()
    for name, level in _state.levels.items():
        logging.getLogger(name).setLevel(level)
    _state.levels.clear()
    _state.file, _state.handler = None, None


def current_log_file() -> Path | None:
    """The log file :func:`configure` set up (None before, or when none could be written)."""
    return _state.file


_SECRET_IN_URL = re.compile(r"(://[^/:@\s]*:)[^@/\s]*@")
_SECRET_PAIR = re.compile(r"(password\s*=\s*)('[^']*'|\S+)", re.IGNORECASE)


def redacted(arg: str) -> str:
    """``arg`` with any password in it (a URL's ``user:password@``, libpq's ``password=``)
    replaced by ``***``, fit for the log.

    >>> redacted("--ntrip=ntrip://ann:s3cret@caster.example:2101/RTCM3")
    '--ntrip=ntrip://ann:***@caster.example:2101/RTCM3'
    >>> redacted("host=office dbname=sites password='a b' user=ann")
    'host=office dbname=sites password=*** user=ann'
    """
    return _SECRET_PAIR.sub(r"\1***", _SECRET_IN_URL.sub(r"\1***@", arg))


def log_start(argv: list[str]) -> None:
    """One INFO line at start: version, Python, system, the command line (passwords hidden:
    :func:`redacted`) and the settings folder."""
    from fieldapp import __version__

    winver = getattr(sys, "getwindowsversion", None)   # no platform.platform(): WMI, slow
    system = f"Windows {winver().major}.{winver().minor} build {winver().build}" if winver else sys.platform
    log.info("fieldapp %s started (Python %s, %s, pid %d): %s; settings %s", __version__,
             sys.version.split()[0], system, os.getpid(), " ".join(map(redacted, argv)),
             paths.config_dir())


def set_notifier(notify: Callable[[Crash], None] | None) -> None:
    """Who tells the user of a crash (the window's message box), or None for the console.

    ``notify`` may be called from any thread (a worker thread's crash): it must hand the
    crash to its own thread itself."""
    _state.notifier = notify


def report_crash(exc_info: ExcInfo, where: str) -> Crash:
    """Log an uncaught exception with its traceback and tell the user (once per kind of crash);
    returns the :class:`Crash`.

    The same crash (its type and the line it came from, whatever its message says: a timer's
    slot failing each tick with the tick's value in the message) again and again is logged in
    full :data:`FULL_REPEATS` times, then in one line at the 10th, 100th … time, so the first
    traceback is not rotated out of the log; the user is told the first time only. A crash
    with no line to tell it by is told apart by its message. An exception whose message cannot
    be made (its ``__str__`` fails) is still logged and told.
    """
    exc_type, exc, tb = exc_info
    message = _message(exc)
    what = f"{exc_type.__name__}: {message}" if message else exc_type.__name__
    what = what if len(what) <= 300 else what[:299] + "…"
    frames = traceback.extract_tb(tb) if tb is not None else []
    place = f"{frames[-1].filename}:{frames[-1].lineno}" if frames else ""
    with _state.lock:
        key = (exc_type.__name__, place) if place else (exc_type.__name__, message[:200])
        count = _state.seen[key] = _state.seen.get(key, 0) + 1
    text = "".join(traceback.format_exception(exc_type, exc, tb))
    crash = Crash(what, where, _state.file, text)
    if count <= FULL_REPEATS:
        log.critical("uncaught exception in %s", where, exc_info=(exc_type, exc, tb))
    elif _is_power_of_ten(count):
        log.critical("uncaught exception in %s again (%d times so far): %s", where, count, what)
    if count == 1:
        _tell(crash)
    return crash


def _message(exc: BaseException) -> str:
    """``str(exc)``, or words saying it could not be made (a faulty ``__str__`` must not crash
    the crash hook: then nothing at all would be logged or told)."""
    try:
        return str(exc)
    except Exception:  # noqa: BLE001 - any failure of someone's __str__
        return "(its message could not be read)"


def _is_power_of_ten(n: int) -> bool:
    while n >= 10 and n % 10 == 0:
        n //= 10
    return n == 1


def _tell(crash: Crash) -> None:
    notify = _state.notifier
    if notify is not None:
        try:
            notify(crash)
            return
        except Exception:  # noqa: BLE001 - the window cannot say it: the console does
            log.exception("the crash could not be shown in the window")
    tell_user(crash_line(crash) if crash.log_path is not None
              else crash_line(crash) + "\n" + crash.traceback_text)


def tell_user(text: str) -> None:
    """Say ``text`` on the console; with no console (a windowed ``fieldapp.exe``) in a Windows
    message box instead, so a failure before the window exists is not silent."""
    if sys.stderr is not None:
        print(text, file=sys.stderr)
    elif sys.platform == "win32":
        _windows_message_box(text)


def _windows_message_box(text: str) -> None:  # pragma: no cover - Windows only
    import ctypes

    MB_ICONERROR = 0x10
    if sys.platform == "win32":  # ctypes.windll exists there only
        ctypes.windll.user32.MessageBoxW(None, text, "fieldapp", MB_ICONERROR)


def _sys_hook(exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
    if issubclass(exc_type, KeyboardInterrupt):
        sys.__excepthook__(exc_type, exc, tb)
        return
    report_crash((exc_type, exc, tb), "the window" if _state.notifier is not None else "fieldapp")


def _thread_hook(args: threading.ExceptHookArgs) -> None:
    if args.exc_type is SystemExit or args.exc_value is None:
        return
    name = args.thread.name if args.thread is not None else "a worker thread"
    report_crash((args.exc_type, args.exc_value, args.exc_traceback), f"thread {name}")


def install_crash_hooks() -> None:
    """``sys.excepthook`` and ``threading.excepthook`` → :func:`report_crash` (undone by
    :func:`uninstall_crash_hooks`)."""
    if not _state.hooks:
        _state.hooks = (sys.excepthook, threading.excepthook)
    sys.excepthook = _sys_hook
    threading.excepthook = _thread_hook


def uninstall_crash_hooks() -> None:
    """Put back the hooks :func:`install_crash_hooks` replaced."""
    if _state.hooks:
        if sys.excepthook is _sys_hook:
            sys.excepthook = _state.hooks[0]
        if threading.excepthook is _thread_hook:
            threading.excepthook = _state.hooks[1]
        _state.hooks = ()


__all__ = ["Crash", "SharedRotatingFileHandler", "configure", "unconfigure", "current_log_file",
           "log_start", "redacted", "set_notifier", "report_crash", "crash_words", "crash_line", "tell_user",
           "install_crash_hooks", "uninstall_crash_hooks", "MAX_BYTES", "BACKUPS"]
