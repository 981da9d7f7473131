"""Start the field app: ``fieldapp [--simulate] [--replay LOG] [--visit PATH] ...``.

Settings are merged once (defaults -> settings file -> ``FIELDAPP_*`` -> command line, see
:mod:`fieldapp.app.config`); the visit is opened and the devices start after the window is shown,
so the window is usable at once even when a port is slow to open.
"""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Any

log = logging.getLogger("fieldapp")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="fieldapp",
        description="Field app: GNSS, rangefinder and caliper at the site, rules checked on the"
                    " spot. With no arguments it opens the last site visit or offers a new one.")
    p.add_argument("--simulate", action="store_true", default=None,
                   help="start the demo scenario's simulated receiver, rangefinder and caliper")
    p.add_argument("--replay", metavar="LOG", help="use a recorded NMEA log as the receiver")
    p.add_argument("--replay-speed", type=float, metavar="X",
                   help="replay speed factor (default 1 = real time)")
    p.add_argument("--visit", metavar="PATH", help="site visit GeoPackage to open or create")
    p.add_argument("--new", "--new-visit", action="store_true", default=None, dest="new_visit",
                   help="start with the New visit dialog instead of the last visit (with"
                        " --simulate: a new, empty demo visit, not asked to reopen the last)")
    p.add_argument("--quit-after", type=float, metavar="SECONDS", dest="quit_after_s",
                   help="smoke test: quit after SECONDS (or once the visit has opened, if"
                        " later) and say what ran (the visit opened, fixes received, records"
                        " stored; no receiver attached is no failure);"
                        " exit 1 only if something failed: the visit did not open, a device"
                        " asked for did not start, the receiver sent no fix, or with --simulate"
                        " no record was stored")
    p.add_argument("--gnss-url", metavar="PORT", help="receiver port or pyserial URL")
    p.add_argument("--gnss-baud", type=int, metavar="BAUD")
    p.add_argument("--autobaud", action="store_true", default=None, dest="gnss_autobaud")
    p.add_argument("--ntrip", metavar="URL", dest="ntrip_caster",
                   help="RTK corrections from an NTRIP caster, ntrip://user:password@host:port/MOUNT"
                        " (written to the receiver's port)")
    p.add_argument("--rtcm-url", metavar="PORT", help="write the corrections to this port instead")
    p.add_argument("--rangefinder-url", metavar="PORT")
    p.add_argument("--rangefinder-protocol", metavar="NAME")
    p.add_argument("--caliper-url", metavar="PORT")
    p.add_argument("--caliper-protocol", metavar="NAME")
    p.add_argument("--antenna-height-m", type=float, metavar="M")
    p.add_argument("--max-fix-age-s", type=float, metavar="S")
    p.add_argument("--priority-waterway", action="store_true", default=None)
    p.add_argument("--data-dir", metavar="DIR", help="where new visits are created")
    p.add_argument("--no-settings-file", action="store_true",
                   help="ignore the saved settings file (defaults, environment, command line)")
    return p


def build_config(argv: list[str] | None) -> Any:
    from fieldapp.app import config as config_mod

    args = build_parser().parse_args(argv)
    cli = {k: v for k, v in vars(args).items() if k != "no_settings_file"}
    return config_mod.build(cli, use_file=not args.no_settings_file)


_GC: Any = None


def collect_garbage_in_gui_thread() -> None:
    """Run Python's cyclic garbage collection only on the GUI thread (once per process).

    Reader threads and office jobs (report, export, sync) allocate too; if automatic collection
    fires in one of them while it holds the last reference to a Qt wrapper, the QObject is
    destroyed off the GUI thread and Qt deadlocks or crashes (seen as a hang: a report job's
    ``gc_collect_main`` destroying a QObject while the GUI thread deleted a menu). pyqtgraph's
    ``GarbageCollector`` disables automatic collection and collects from a Qt timer instead.
    """
    global _GC
    if _GC is None:
        from pyqtgraph.util.garbage_collector import GarbageCollector

        _GC = GarbageCollector(interval=0.5)


def create_window(config: Any, *, start_devices: bool = True) -> Any:
    """Build the window, its bridge and device session (used by ``main`` and tests).

    The window is usable as soon as it is shown: once its first frame is painted
    (:func:`after_first_frame`) the visit (whose model brings in shapely and pyproj) is opened
    and shown, then the devices start (when ``start_devices``), so the first fix can be drawn;
    the workflow panels not shown at start are built one per turn of the event loop from then
    on (:func:`fieldapp.ui.workflows.finish_in_turns`; a tab opened before that, or a device
    reading, builds at once). ``window.startup_done`` turns True once all of that is done
    (whether or not the visit could be opened; a failure is shown in the banner),
    ``window.visit`` holds the visit.

    Returns the :class:`fieldapp.ui.mainwindow.MainWindow`; ``window.session`` holds the devices.
    """
    from fieldapp.app.session import DeviceSession
    from fieldapp.ui.bridge import DeviceBridge
    from fieldapp.ui.mainwindow import MainWindow
    from fieldapp.ui.simsupport import scripted_events_wanted
    from fieldapp.ui.wheelguard import install as install_wheel_guard
    from fieldapp.ui.workflows import install_workflows

    collect_garbage_in_gui_thread()
    bridge = DeviceBridge()
    session = DeviceSession(config, bridge, scripted_events=scripted_events_wanted)
    window = MainWindow(config, bridge, session)
    bridge.setParent(window)
    if config.high_contrast:           # remembered from the last run: the map too
        from fieldapp.ui.mapcontrast import apply_contrast

        apply_contrast(window.map, True)
    install_workflows(window)
    from fieldapp.ui.keepsafe import install_keepsafe

    window.keep_keepsafe(install_keepsafe(window))   # -wal folds, session end, Copy visit to…

    started: list[bool] = []
    pending = {"visit", "panels"}

    def done(part: str) -> None:
        pending.discard(part)
        if not pending:
            window.mark_started()

    def ready() -> None:
        from fieldapp.ui.workflows import finish_in_turns

        if started:
            return
        started.append(True)
        install_wheel_guard()           # (installed already when the frame was painted)
        window.mark_visit_opening()     # bench_ui_startup reads it
        # the tabs not shown at start, one per turn from the next one: the visit opens (and
        # the first fix is drawn) before them, not after
        finish_in_turns(window, lambda: done("panels"))
        open_in_background(window, devices_start)

    def devices_start() -> None:
        window.mark_devices_starting()
        if start_devices:
            session.start()
            if session.errors:
                window.show_banner("\n".join(session.errors))
            window.on_devices_started()
        done("visit")
    # the wheel scrolls, not edits (fieldapp.ui.wheelguard): installed as the window's first
    # frame is painted (no wheel can reach a field before it is seen), every field made so far
    # set then, later ones when polished; its filter does not see the ~6,700 events of building
    # and showing the window (issue 33). A window not painted: when ready() comes.
    after_first_frame(window, ready, before_paint=install_wheel_guard)
    return window


#: Visit files from this size (bytes; about half an hour of 10 Hz track) open on a worker
#: thread; a smaller or new one opens at once (a fraction of a second).
BACKGROUND_OPEN_BYTES = 8_000_000


def open_in_background(window: Any, then: Any) -> None:
    """Open the start-up visit on a worker thread, the window live meanwhile (a day's visit takes
    seconds: every row of 8 h of track is checked); ``then()`` once it is shown or refused. A
    new visit, or a file under :data:`BACKGROUND_OPEN_BYTES`, opens at once instead.

    The New visit dialog, if any, comes first (GUI thread). While the visit opens, recording is
    blocked with "Opening visit NAME…" and the visit label says so. A window closed meanwhile
    closes the visit when it arrives."""
    from fieldapp.app.visit import (
        initial_visit_target,
        open_and_show,
        open_target,
        show_open_failed,
        show_opened,
    )
    from fieldapp.ui.jobs import BackgroundJob

    try:
        target = initial_visit_target(window)
    except BaseException:
        then()
        raise
    if target is None:
        then()
        return
    path, spec = target
    try:
        small = (spec is not None or not path.exists()
                 or path.stat().st_size < BACKGROUND_OPEN_BYTES)
    except OSError:
        small = False
    if small:                       # opens in a blink: a thread would only add to it
        try:
            open_and_show(window, path, spec)
        finally:
            then()
        return
    reason = f"Opening visit {path.stem}…"
    window.pause_recording(reason)
    window.visit_label.setText(f"  {reason}  ")
    job = BackgroundJob("open", lambda _progress, _cancel: open_target(window.config, path, spec))
    window.keep_open_job(job)       # kept alive by the window; not its Qt child (see below)

    def opened(visit: Any) -> None:
        if getattr(window, "closing", False):
            visit.close()            # the window went while the visit opened
            return
        try:
            if window.paused_reason == reason:
                window.resume_recording()
            show_opened(window, path, visit)
        finally:
            then()                   # the devices start, and --quit-after's verdict comes

    def refused(exc: BaseException) -> None:
        if getattr(window, "closing", False):
            return
        try:
            show_open_failed(window, path, exc)     # blocks recording with its own reason
            window.visit_label.setText("  no visit  ")
        finally:
            then()

    job.sigDone.connect(opened)
    job.sigFailed.connect(refused)
    job.start()


def after_first_frame(window: Any, fn: Any, fallback_ms: int = 1000,
                      before_paint: Any = None) -> None:
    """Call ``fn`` on the event loop's turn after ``window``'s first frame is painted, or after
    ``fallback_ms`` if it is not painted by then (not shown, minimised); ``fn`` must do nothing
    the second time. ``before_paint()``, if given, is called as the first frame's paint begins.

    A zero timer set when the window is built runs before its first paint (Qt posts it ahead
    of the window's expose), so the visit opened, and the New visit dialog came up, before
    the window had been drawn once: the user saw the window only after all of it."""
    from PySide6.QtCore import QEvent, QObject, QTimer

    class FirstFrame(QObject):
        def eventFilter(self, obj: Any, event: Any) -> bool:  # noqa: N802 - Qt name
            if event.type() == QEvent.Type.Paint:
                obj.removeEventFilter(self)
                if before_paint is not None:
                    before_paint()
                QTimer.singleShot(0, window, fn)
            return False

    window.installEventFilter(FirstFrame(window))
    QTimer.singleShot(fallback_ms, window, fn)


def dispose(window: Any) -> None:
    """Delete the window's Qt objects now, not at interpreter exit (PySide6 6.12 can crash
    when Python's final garbage collection meets live pyqtgraph items)."""
    from PySide6.QtCore import QCoreApplication, QEvent

    window.close()
    window.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def main(argv: list[str] | None = None) -> int:
    """Run the app; return the exit status (2: the settings refused, 1: it failed to start).

    The log file and the crash hooks are set up by :func:`fieldapp.cli.main`; here the window's
    :class:`fieldapp.ui.helpmenu.CrashNotice` is made the one that tells the user of a crash (a
    message box naming the log file). A failure while the window is built is logged and shown
    the same way, in a box the user closes before the program ends.
    """
    from fieldapp.app import logfile

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        config = build_config(argv)
    except ValueError as exc:
        logfile.tell_user(f"fieldapp: {exc}")   # with no console (fieldapp.exe): a message box
        return 2

    from PySide6.QtGui import QGuiApplication
    from PySide6.QtWidgets import QApplication

    from fieldapp.ui.helpmenu import CrashNotice

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("fieldapp")
    notice = CrashNotice()
    logfile.set_notifier(notice.notify)
    try:
        return _run(app, config, notice)
    except Exception:  # noqa: BLE001 - logged with its traceback, shown, exit status 1
        from fieldapp.app.visit import dialogs_allowed

        if dialogs_allowed(config, QGuiApplication.platformName()):
            notice.modal = True         # closed by the user before the program ends
        else:
            logfile.set_notifier(None)  # a smoke run, offscreen: said on the console
        etype, value, tb = sys.exc_info()
        assert etype is not None and value is not None      # in an except block
        logfile.report_crash((etype, value, tb), "start-up" if notice.parent_window is None
                             else "the window")
        return 1
    finally:
        logfile.set_notifier(None)


def _run(app: Any, config: Any, notice: Any) -> int:
    """Build and show the window, run the event loop; the exit status."""
    from PySide6.QtCore import QTimer

    from fieldapp.ui import theme
    from fieldapp.ui.toolbar import app_icon

    app.setWindowIcon(app_icon())
    theme.apply(app, high_contrast=config.high_contrast)
    from fieldapp.ui.touchhelp import install_for_touch

    install_for_touch(app)        # tooltips by a press and hold (a touch screen has no hover)
    window = create_window(config)
    notice.parent_window = window
    window.show()
    window.keepsafe.watch_stop_signals()   # SIGTERM, Ctrl+C ...: the visit closed whole
    result = {"rc": 0}
    if config.quit_after_s is not None:
        def finish() -> None:
            from fieldapp.app.cli import SmokeRun, quit_after_verdict

            if not window.startup_done:     # the visit still opening: the verdict waits for it
                QTimer.singleShot(100, finish)
                return
            visit = window.visit
            line, result["rc"] = quit_after_verdict(SmokeRun(
                visit=visit.path.name if visit is not None else None, fixes=window.fix_count,
                records=visit.records_stored if visit is not None else 0,
                devices_not_started=len(window.session.errors),
                receiver=bool(config.simulate or config.replay or config.gnss_url),
                simulate=bool(config.simulate)))
            print(line, file=sys.stderr)
            window.close()
            app.quit()
        QTimer.singleShot(int(config.quit_after_s * 1000), finish)
    try:
        rc = app.exec()
    finally:
        window.keepsafe.release_stop_signals()
    window.session.stop()
    stopped = window.keepsafe.exit_status
    dispose(window)
    if stopped is not None:         # a stop signal: whether the visit was closed whole
        return int(stopped)
    return result["rc"] if config.quit_after_s is not None else rc
