"""The window keeps the visit's ``.gpkg`` whole: regular folds, a clean stop, *Copy visit to…*.

- every :data:`fieldapp.app.keepsafe.FOLD_EVERY_S` s the open visit's ``-wal`` is folded into
  its ``.gpkg`` (:func:`fieldapp.app.keepsafe.fold_wal`, never waits);
- a stop signal (SIGTERM from logout, shutdown or ``kill``; Ctrl+C; the terminal closed;
  Ctrl+Break on Windows) closes the window as its close button does: devices stopped, a job
  cancelled, the visit checkpointed and closed, so the ``.gpkg`` alone holds every record; one
  line on the console says so, exit status 0 (1 if the visit could not be closed);
- the session end of the operating system (Windows logoff or shutdown: Qt's
  ``commitDataRequest``, then ``aboutToQuit`` with the process ended right after) checkpoints,
  then closes the visit;
- *Copy visit to…* (Visit menu) asks for a file and writes a consistent single-file copy
  (:func:`fieldapp.app.keepsafe.copy_visit`) on a worker thread while recording goes on; an
  existing file is refused, never replaced.

The stop signals are taken only by the app's own run (:meth:`KeepSafe.watch_stop_signals`, from
:func:`fieldapp.ui.app.main`), not by a window a test builds.
"""

from __future__ import annotations

import datetime as dt
import logging
import sys
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QFileDialog

from fieldapp.app import keepsafe
from fieldapp.app.wording import plural
from fieldapp.ui.jobs import BackgroundJob

log = logging.getLogger(__name__)

#: How often (ms) the GUI thread looks for a noted stop signal (Qt's loop runs no Python on
#: its own, so a noted signal would otherwise wait for the next event).
STOP_POLL_MS = 200


class KeepSafe(QObject):
    """The window's part of :mod:`fieldapp.app.keepsafe` (``window.keepsafe``).

    Attributes
    ----------
    copy_job : BackgroundJob or None
        The copy being made.
    stop_signals : keepsafe.StopSignals or None
        Set by :meth:`watch_stop_signals`.
    exit_status : int or None
        After a stop by a signal: 0 when the visit was closed whole, 1 when not.
    """

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self.w = window
        self.copy_job: BackgroundJob | None = None
        self.stop_signals: keepsafe.StopSignals | None = None
        self.exit_status: int | None = None
        self.fold_timer = QTimer(self)
        self.fold_timer.setInterval(int(keepsafe.FOLD_EVERY_S * 1000))
        self.fold_timer.timeout.connect(self.fold)
        self.fold_timer.start()
        self._stop_timer = QTimer(self)
        self._stop_timer.setInterval(STOP_POLL_MS)
        self._stop_timer.timeout.connect(self._look_for_stop)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.commitDataRequest.connect(self._session_ending)
            app.aboutToQuit.connect(self._about_to_quit)
        self.copy_action = QAction("Copy visit to…", window)
        self.copy_action.setObjectName("copyVisitAction")
        self.copy_action.setToolTip("Save one complete copy of this visit (a single .gpkg, e.g."
                                    " on a USB stick), also while recording")
        self.copy_action.triggered.connect(lambda _checked=False: self.start_copy())
        menu = window.visit_menu
        actions = menu.actions()
        # after New / Open visit, before the folders
        menu.insertAction(actions[2] if len(actions) > 2 else None, self.copy_action)

    # ------------------------------------------------------------------ regular folds
    def fold(self) -> bool:
        """Fold the open visit's ``-wal`` into its ``.gpkg`` (cheap; never waits)."""
        return keepsafe.fold_wal(self.w.visit)

    # ------------------------------------------------------------------ stop by a signal
    def watch_stop_signals(self) -> None:
        """Take SIGTERM, SIGINT, SIGHUP (SIGBREAK on Windows) for this window's run."""
        if self.stop_signals is None:
            self.stop_signals = keepsafe.StopSignals().install()
            self._stop_timer.start()

    def release_stop_signals(self) -> None:
        if self.stop_signals is not None:
            self.stop_signals.restore()
        self._stop_timer.stop()

    def _look_for_stop(self) -> None:
        stop = self.stop_signals
        if stop is None or stop.requested is None or self.exit_status is not None:
            return
        self._stop_timer.stop()
        self.stop_now(stop.name)

    def stop_now(self, why: str) -> int:
        """Close as the close button does, say on the console whether the ``.gpkg`` alone holds
        every record, and end the event loop; the exit status (0 whole, 1 not)."""
        visit = self.w.visit
        if self.copy_job is not None:
            self.copy_job.wait(60.0)        # a copy being made finishes first (seconds)
        self.w.close()                      # devices, a job, the visit closed (closeEvent)
        if visit is None:
            line, status = f"fieldapp: stopped by {why}; no visit was open", 0
        else:
            self._close_visit()
            wal = visit.path.with_name(visit.path.name + "-wal")
            closed = visit.store is None or bool(getattr(visit.store, "closed", True))
            records = plural(visit.records_stored, "record")
            if closed and not wal.exists():
                line = (f"fieldapp: stopped by {why}; visit {visit.path.name} closed, {records}"
                        f" stored, all in {visit.path.name}")
                status = 0
            else:
                line = (f"fieldapp: stopped by {why}; visit {visit.path.name} could not be"
                        f" closed: its newest records are in {wal.name}, keep it beside the"
                        " .gpkg (fieldapp folds it in when the visit is next opened)")
                status = 1
        log.info("%s", line)
        print(line, file=sys.stderr, flush=True)
        self.exit_status = status
        app = QApplication.instance()
        if app is not None:
            app.exit(status)
        return status

    # ------------------------------------------------------------------ session end
    def _session_ending(self, _manager: Any) -> None:
        """Windows logoff / shutdown asks first (WM_QUERYENDSESSION): fold everything into the
        ``.gpkg`` now; the logoff may still be cancelled, so the visit stays open."""
        visit = self.w.visit
        store = getattr(visit, "store", None)
        if store is not None and not store.closed:
            try:
                store.checkpoint()
            except Exception:  # noqa: BLE001 - the -wal keeps the records; logged
                log.exception("checkpoint at the session end")

    def _about_to_quit(self) -> None:
        """The event loop ends (also right before Windows ends the process at logoff): wait for
        a copy being made, close the visit (idempotent after the window's own close)."""
        if self.copy_job is not None:
            self.copy_job.wait(60.0)
        self._close_visit()

    def _close_visit(self) -> None:
        visit = self.w.visit
        if visit is None:
            return
        try:
            visit.close()
        except Exception:  # noqa: BLE001 - logged; the -wal keeps the records
            log.exception("closing the visit")

    # ------------------------------------------------------------------ Copy visit to…
    def ask_copy_target(self, default: Path) -> Path | None:
        """The file to copy the visit to (a test answers it instead of the dialog)."""
        name, _ = QFileDialog.getSaveFileName(
            self.w, "Copy visit to", str(default), "Site visit (*.gpkg)",
            options=QFileDialog.Option.DontConfirmOverwrite)   # copy_visit refuses, never replaces
        if not name:
            return None
        path = Path(name)
        return path if path.suffix.lower() == ".gpkg" else path.with_name(path.name + ".gpkg")

    def start_copy(self, target: Path | None = None) -> BackgroundJob | None:
        """Ask where (unless given), copy the open visit there on a worker thread; the result
        or refusal is said in a message (``window.office.show_message``)."""
        say = self.w.office.show_message
        visit = self.w.visit
        if visit is None:
            say("Copy visit", "Open or start a site visit first (Visit…, Ctrl+O).")
            return None
        if self.copy_job is not None:
            say("Copy visit", "A copy is being made; wait for it to finish.")
            return None
        if self.w.office.busy() and self.w.office.kind in ("sync", "resolve"):
            say("Copy visit", "Wait for the sync to finish first: it changes the visit file.")
            return None
        if target is None:
            stamp = dt.datetime.now().strftime("%Y-%m-%d_%H%M")
            target = self.ask_copy_target(visit.path.with_name(f"{visit.path.stem}_copy_{stamp}.gpkg"))
            if target is None:
                return None
        source, out = visit.path, Path(target)
        job = BackgroundJob("copy", lambda _progress, _cancel: keepsafe.copy_visit(source, out), self)
        job.sigDone.connect(self._copied)
        job.sigFailed.connect(self._copy_failed)
        self.copy_job = job
        job.start()
        return job

    def _copied(self, copy: keepsafe.VisitCopy) -> None:
        self._end_copy()
        self.w.office.show_message(
            "Copy visit", f"Visit copied to {copy.path}: {plural(copy.records, 'record')},"
                          f" {copy.size_bytes / 1e6:.1f} MB, one file complete on its own."
                          " Recording goes on in the visit here.")

    def _copy_failed(self, exc: BaseException) -> None:
        self._end_copy()
        if isinstance(exc, keepsafe.CopyRefused):
            self.w.office.show_message("Copy visit", f"Not copied: {exc}", error=True)
            return
        from fieldapp.ui.officeactions import error_words

        log.warning("copy of the visit failed: %r", exc)
        self.w.office.show_message("Copy visit", f"The copy failed, nothing was left at the"
                                                 f" target: {error_words(exc)}", error=True)

    def _end_copy(self) -> None:
        if self.copy_job is not None:
            self.copy_job.wait(5.0)
        self.copy_job = None


def install_keepsafe(window: Any) -> KeepSafe:
    """Add :class:`KeepSafe`'s Visit menu entry to the window; returns it (the window keeps it
    as ``window.keepsafe``: :meth:`fieldapp.ui.mainwindow.MainWindow.keep_keepsafe`)."""
    return KeepSafe(window)
