"""Long jobs (report, export, sync) off the UI thread, with a progress bar and a safe Cancel.

A :class:`BackgroundJob` runs one plain-Python callable on a daemon thread named
``fieldapp-job-<name>``; the callable receives ``progress(fraction, message)`` and a
:class:`CancelFlag`. Progress, the result and any error cross back to the GUI thread as queued Qt
signals (the job object lives in the GUI thread), so no widget is touched from the worker.

:class:`JobBar` is the strip the main window shows while a job runs: what is happening, a
progress bar, and a large Cancel button (Esc). Cancelling only *asks*: each job stops at its next
safe point (the report and export write under a temporary name; the sync honours the request
until its changeset is handed to the office, then finishes).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from fieldapp.sync.progress import CancelToken
from fieldapp.ui import theme


class CancelFlag(CancelToken):
    """Thread-safe cancel request: the sync's :class:`~fieldapp.sync.progress.CancelToken`
    (``cancel()``, ``cancelled``) with ``is_set()`` as on a ``threading.Event`` (report)."""

    def is_set(self) -> bool:
        return self.cancelled


class JobCancelled(Exception):
    """Raised inside a job's progress callback to stop a job that has no cancel argument."""


class BackgroundJob(QObject):
    """One job on a ``fieldapp-job-<name>`` daemon thread.

    Parameters
    ----------
    name : str
        Short name (``report``, ``export``, ``sync``) used in the thread name.
    fn : callable(progress, cancel) -> object
        The work; ``progress(fraction 0..1, message)`` may be called from the worker.

    Signals
    -------
    sigProgress(float, str)
    sigDone(object)
        The result (GUI thread).
    sigFailed(object)
        The exception (GUI thread); :class:`JobCancelled` or the job's own cancel error when
        cancelled.
    """

    sigProgress = Signal(float, str)
    sigDone = Signal(object)
    sigFailed = Signal(object)

    def __init__(self, name: str, fn: Callable[[Callable[[float, str], None], CancelFlag], Any],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self.fn = fn
        self.cancel_flag = CancelFlag()
        # not "thread": that is QObject.thread(), the Qt thread the job object lives in
        self.worker: threading.Thread | None = None
        self.result: Any = None
        self.error: BaseException | None = None
        self.finished = False

    def start(self) -> None:
        self.worker = threading.Thread(target=self._run, name=f"fieldapp-job-{self.name}",
                                       daemon=True)
        self.worker.start()

    def cancel(self) -> None:
        self.cancel_flag.cancel()

    def running(self) -> bool:
        return self.worker is not None and self.worker.is_alive()

    def wait(self, timeout_s: float | None = None) -> bool:
        """Join the worker (used when the window closes); True when it has ended."""
        if self.worker is None:
            return True
        self.worker.join(timeout_s)
        return not self.worker.is_alive()

    def _progress(self, fraction: float, message: str) -> None:
        self.sigProgress.emit(float(fraction), str(message))

    def _run(self) -> None:
        try:
            result = self.fn(self._progress, self.cancel_flag)
        except BaseException as exc:  # noqa: BLE001 - every failure is shown as a message
            self.error = exc
            self.sigFailed.emit(exc)
        else:
            self.result = result
            self.sigDone.emit(result)


class JobBar(QWidget):
    """What runs now, its progress and a large Cancel button (hidden when idle)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("jobBar")
        row = QHBoxLayout(self)
        row.setContentsMargins(4, 2, 4, 2)
        self.label = QLabel("")
        self.label.setObjectName("jobLabel")
        self.label.setStyleSheet("font-weight: bold;")
        self.label.setWordWrap(True)      # a long message never widens the window
        self.bar = QProgressBar()
        self.bar.setObjectName("jobProgress")
        self.bar.setRange(0, 1000)
        self.bar.setFormat("%p %")
        self.cancel_button = QPushButton("Cancel  [Esc]")
        self.cancel_button.setObjectName("jobCancel")
        self.cancel_button.setMinimumHeight(theme.BIG_BUTTON_HEIGHT_PX)
        self.cancel_button.setMinimumWidth(160)
        # Esc is dispatched by the window (the OHWM panel also uses it): see workflows._dispatch
        row.addWidget(self.label, 2)
        row.addWidget(self.bar, 3)
        row.addWidget(self.cancel_button)
        self.job: BackgroundJob | None = None
        self.title = ""
        self.cancel_button.clicked.connect(self.cancel)
        self.hide()

    def attach(self, job: BackgroundJob, title: str) -> None:
        self.job = job
        self.title = title
        self.label.setText(f"{title}: starting…")
        self.bar.setValue(0)
        self.cancel_button.setEnabled(True)
        self.cancel_button.setText("Cancel  [Esc]")
        job.sigProgress.connect(self.on_progress)
        self.show()

    def on_progress(self, fraction: float, message: str) -> None:
        self.bar.setValue(int(round(max(0.0, min(fraction, 1.0)) * 1000)))
        self.label.setText(f"{self.title}: {message}")

    def cancel(self) -> None:
        if self.job is not None and self.job.running():
            self.job.cancel()
            self.cancel_button.setEnabled(False)
            self.cancel_button.setText("Cancelling…")
            self.label.setText(f"{self.title}: cancelling at the next safe point…")

    def detach(self) -> None:
        self.job = None
        self.hide()


__all__ = ["BackgroundJob", "CancelFlag", "JobBar", "JobCancelled"]
