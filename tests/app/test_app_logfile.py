"""The log file and the crash hooks (fieldapp.app.logfile), without Qt."""

from __future__ import annotations

import logging
import sys
import threading

import pytest

from fieldapp import cli
from fieldapp.app import logfile


@pytest.fixture
def logdir(tmp_path):
    """The log set up in ``tmp_path/log`` with the crash hooks; all of it undone after."""
    path = logfile.configure(directory=tmp_path / "log")
    logfile.install_crash_hooks()
    told: list[logfile.Crash] = []
    logfile.set_notifier(told.append)
    yield path, told
    logfile.set_notifier(None)
    logfile.uninstall_crash_hooks()
    logfile.unconfigure()


def flush() -> None:
    for handler in logging.getLogger().handlers:
        handler.flush()


def test_log_file_is_utf8_with_the_apps_info_lines(logdir):
    path, _ = logdir
    assert path.name == "fieldapp.log" and path.parent.name == "log"
    logging.getLogger("fieldapp.survey").info("OHWM point at Rivière-aux-Écorces: 12 m³ — ✓ 北")
    logging.getLogger("devices.transport").info("COM7: opening")
    logging.getLogger("some.library").info("chatter from elsewhere")   # below WARNING: not kept
    flush()
    text = path.read_bytes().decode("utf-8")
    assert "fieldapp.survey: OHWM point at Rivière-aux-Écorces: 12 m³ — ✓ 北" in text
    assert "devices.transport: COM7: opening" in text
    assert "chatter from elsewhere" not in text


def test_configured_twice_is_one_file(tmp_path):
    try:
        logfile.configure(directory=tmp_path / "a")
        logfile.configure(directory=tmp_path / "b")
        files = [h for h in logging.getLogger().handlers
                 if isinstance(h, logfile.SharedRotatingFileHandler)]
        assert len(files) == 1 and files[0].baseFilename == str(tmp_path / "b" / "fieldapp.log")
    finally:
        logfile.unconfigure()
    assert not [h for h in logging.getLogger().handlers
                if isinstance(h, logfile.SharedRotatingFileHandler)]


def test_unwritable_folder_is_said_not_fatal(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    try:
        assert logfile.configure(directory=blocker / "log") is None
        assert logfile.current_log_file() is None
    finally:
        logfile.unconfigure()
    assert f"no log file: {blocker / 'log' / 'fieldapp.log'} cannot be written" in capsys.readouterr().err


def test_rotation_keeps_five_and_a_refused_rollover_carries_on(tmp_path, capsys):
    """1 MB x 5 by default; a rollover Windows refuses (another fieldapp holds the file:
    WinError 32) loses no line, prints no logging error, and is not tried at every line."""
    assert (logfile.MAX_BYTES, logfile.BACKUPS) == (1_000_000, 5)
    path = tmp_path / "fieldapp.log"
    handler = logfile.SharedRotatingFileHandler(path, max_bytes=2000, backups=5)
    assert handler.stream is None                       # opened at the first line only
    logger = logging.getLogger("fieldapp.test.rotation")
    logger.propagate = False
    logger.addHandler(handler)
    try:
        for i in range(200):
            logger.warning("line %03d %s", i, "x" * 80)
        assert sorted(p.name for p in tmp_path.iterdir()) == [
            "fieldapp.log", *(f"fieldapp.log.{n}" for n in range(1, 6))]

        def refused(source, dest):
            raise PermissionError(13, "The process cannot access the file because it is being"
                                      " used by another process", source)

        handler.rotate = refused
        before = path.stat().st_size
        for i in range(60):
            logger.warning("held %03d %s", i, "y" * 80)
        handler.flush()
        assert handler.rollovers_refused == 1           # given up for RETRY_S, not per line
        text = path.read_text(encoding="utf-8")
        assert "held 000" in text and "held 059" in text
        assert path.stat().st_size > before
        assert "Logging error" not in capsys.readouterr().err
    finally:
        logger.removeHandler(handler)
        handler.close()


def test_a_refused_rollover_keeps_every_older_log(tmp_path, monkeypatch):
    """Windows: another fieldapp holds fieldapp.log, so it cannot be renamed. Python's rollover
    shifted .4 -> .5 … .1 -> .2 (deleting .5) before it tried the current file: each refused
    try (every RETRY_S while both windows are open) threw away one older log, and after four
    only one was left, the crash a user had to send perhaps with them. Now the current file is
    moved first; when Windows refuses that, nothing else is touched."""
    import os

    path = tmp_path / "fieldapp.log"
    for n in range(1, 6):
        (tmp_path / f"fieldapp.log.{n}").write_text(f"older {n}\n", encoding="utf-8")
    handler = logfile.SharedRotatingFileHandler(path, max_bytes=2000, backups=5)
    handler.RETRY_S = 0.0                                 # every line tries again
    real_rename, real_replace = os.rename, os.replace

    def held(rename):
        def refuse(src, dst, *a, **k):
            if os.path.abspath(src) == str(path):
                raise PermissionError(13, "The process cannot access the file because it is"
                                          " being used by another process", str(src))
            return rename(src, dst, *a, **k)
        return refuse

    monkeypatch.setattr(os, "rename", held(real_rename))
    monkeypatch.setattr(os, "replace", held(real_replace))
    logger = logging.getLogger("fieldapp.test.heldrollover")
    logger.propagate = False
    logger.addHandler(handler)
    try:
        for i in range(100):
            logger.warning("held %03d %s", i, "y" * 80)
        handler.flush()
        assert handler.rollovers_refused > 4
        assert [(tmp_path / f"fieldapp.log.{n}").read_text(encoding="utf-8") for n in range(1, 6)] \
            == [f"older {n}\n" for n in range(1, 6)]
        text = path.read_text(encoding="utf-8")
        assert "held 000" in text and "held 099" in text
        monkeypatch.setattr(os, "rename", real_rename)    # the other fieldapp closed
        monkeypatch.setattr(os, "replace", real_replace)
        logger.warning("free %s", "z" * 80)
        handler.flush()
        assert "held 099" in (tmp_path / "fieldapp.log.1").read_text(encoding="utf-8")
        assert [(tmp_path / f"fieldapp.log.{n}").read_text(encoding="utf-8") for n in range(2, 6)] \
            == [f"older {n}\n" for n in range(1, 5)]
        assert "free" in path.read_text(encoding="utf-8")
        assert sorted(p.name for p in tmp_path.iterdir()) == [
            "fieldapp.log", *(f"fieldapp.log.{n}" for n in range(1, 6))]
    finally:
        logger.removeHandler(handler)
        handler.close()


def test_worker_thread_crash_is_logged_and_told(logdir):
    path, told = logdir

    def work() -> None:
        raise RuntimeError("tally row 7 has no species")

    t = threading.Thread(target=work, name="fieldapp-test-worker")
    t.start()
    t.join()
    flush()
    text = path.read_text(encoding="utf-8")
    assert "uncaught exception in thread fieldapp-test-worker" in text
    assert "Traceback (most recent call last)" in text and "in work" in text
    assert "RuntimeError: tally row 7 has no species" in text
    (crash,) = told
    assert crash.log_path == path and crash.where == "thread fieldapp-test-worker"
    words = logfile.crash_words(crash)
    assert str(path) in words and "RuntimeError: tally row 7 has no species" in words
    assert "What you recorded is kept" in words


def test_gui_thread_crash_repeating_is_told_once_and_logged_in_full_three_times(logdir):
    path, told = logdir
    for _ in range(12):
        try:
            {}["dbh_in"]
        except KeyError:
            sys.excepthook(*sys.exc_info())
    flush()
    text = path.read_text(encoding="utf-8")
    assert text.count("KeyError: 'dbh_in'") == 3 + 1    # three tracebacks, then the 10th in a line
    assert "again (10 times so far): KeyError: 'dbh_in'" in text
    assert len(told) == 1 and told[0].what == "KeyError: 'dbh_in'"


def test_a_crash_repeating_with_a_new_message_each_tick_is_still_one_crash(logdir):
    """A timer's slot failing each tick with the tick's value in the message (KeyError: 1, 2 …):
    each was a new crash, logged in full and told again (a new box each time the last one was
    closed), so the tracebacks pushed the first one out of the log. The same type from the same
    line is the same crash."""
    path, told = logdir
    for tick in range(12):
        try:
            {}[f"tick {tick}"]
        except KeyError:
            sys.excepthook(*sys.exc_info())
    flush()
    text = path.read_text(encoding="utf-8")
    assert text.count("Traceback (most recent call last)") == 3
    assert "again (10 times so far): KeyError: 'tick 9'" in text
    assert [c.what for c in told] == ["KeyError: 'tick 0'"]


def test_an_exception_whose_message_fails_is_logged_and_told(logdir):
    """A crash whose ``__str__`` itself raises: the hook must not fail too (Python would print
    "Error in sys.excepthook" and nothing would reach the log or the user)."""
    path, told = logdir

    class Garbled(Exception):
        def __str__(self):
            raise UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")

    try:
        raise Garbled()
    except Garbled:
        sys.excepthook(*sys.exc_info())
    flush()
    assert [c.what for c in told] == ["Garbled: (its message could not be read)"]
    assert "uncaught exception in the window" in path.read_text(encoding="utf-8")


def test_start_line_hides_passwords(logdir):
    path, _ = logdir
    logfile.log_start(["fieldapp", "--ntrip", "ntrip://ann:s3cret@caster.example:2101/RTCM3"])
    flush()
    text = path.read_text(encoding="utf-8")
    assert "fieldapp 0.1.0 started" in text and "ntrip://ann:***@caster.example:2101/RTCM3" in text
    assert "s3cret" not in text


def main(argv):                                      # a stand-in subcommand that fails
    raise ZeroDivisionError("slope of a zero-length transect")


def test_cli_crash_goes_to_the_log_and_stderr_names_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("FIELDAPP_LOG_DIR", str(tmp_path / "logs"))
    monkeypatch.setitem(cli.SUBCOMMANDS, "rules", __name__)
    hooks = (sys.excepthook, threading.excepthook)
    assert cli.main(["rules", "evaluate", "x.json"]) == 1
    log_path = tmp_path / "logs" / "fieldapp.log"
    err = capsys.readouterr().err
    assert (f"fieldapp: unexpected error (ZeroDivisionError: slope of a zero-length transect,"
            f" in rules); the details are in {log_path}") in err
    text = log_path.read_text(encoding="utf-8")
    assert "fieldapp rules evaluate x.json" in text and "Traceback" in text
    assert "ZeroDivisionError: slope of a zero-length transect" in text
    # nothing left behind in this process: hooks back, no fieldapp handler
    assert (sys.excepthook, threading.excepthook) == hooks
    assert logfile.current_log_file() is None
    assert not [h for h in logging.getLogger().handlers if getattr(h, "_fieldapp_handler", False)]


def test_no_console_on_windows_says_it_in_a_message_box(monkeypatch):
    """A windowed fieldapp.exe has no stderr: a failure before the window exists is shown in a
    Windows message box instead of vanishing."""
    shown = []
    monkeypatch.setattr(logfile, "_windows_message_box", shown.append)
    monkeypatch.setattr(sys, "stderr", None)
    monkeypatch.setattr(sys, "platform", "win32")
    logfile.tell_user("fieldapp: settings file C:\\x\\config.json is not readable JSON")
    monkeypatch.undo()
    assert shown == ["fieldapp: settings file C:\\x\\config.json is not readable JSON"]


def test_how_an_office_command_ended_is_in_the_log(tmp_path, monkeypatch, capsys):
    """A refused sync says one line on the console; the log (what a crew sends with a
    question) holds the refusal and the exit status too, and an unexpected failure's traceback."""
    from fieldapp.sync import cli as sync_cli

    monkeypatch.setenv("FIELDAPP_LOG_DIR", str(tmp_path / "logs"))
    visit = tmp_path / "v.gpkg"
    visit.write_bytes(b"")
    assert cli.main(["sync", "--office", str(tmp_path / "no-office"), str(visit)]) == 1
    err = capsys.readouterr().err
    text = (tmp_path / "logs" / "fieldapp.log").read_text(encoding="utf-8")
    assert err.startswith("fieldapp sync: ") and "fieldapp sync ended with exit status 1" in text

    def broken(_args):
        "Łąka".encode("cp1252")     # what a Windows code page does to a Polish site name

    monkeypatch.setattr(sync_cli, "_run", broken)
    assert cli.main(["sync", "--office", str(tmp_path / "no-office"), str(visit)]) == 1
    err = capsys.readouterr().err
    text = (tmp_path / "logs" / "fieldapp.log").read_text(encoding="utf-8")
    assert err.count("\n") == 1 and "Traceback" not in err and "'charmap' codec" in err
    assert "Traceback" in text and 'in broken\n    "Łąka".encode("cp1252")' in text
