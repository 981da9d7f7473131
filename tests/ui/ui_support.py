"""Helpers for the UI tests: a main window on simulated devices in a private folder."""

from __future__ import annotations

import gc

from PySide6.QtCore import QCoreApplication, QEvent, Qt
from PySide6.QtTest import QTest

WAIT_MS = 60_000  # generous: the test machine is shared and loaded


def make_window(qtbot, tmp_path, *, waypoints=None, time_scale=1.0, rate_hz=5.0, **cli):
    """Create (not yet started) the window with ``cli`` settings; devices start on the loop."""
    from fieldapp.app import config as C
    from fieldapp.ui import app as appmod

    cfg = C.build({"data_dir": str(tmp_path / "data"),
                   "visit": str(tmp_path / "data" / "test.gpkg"), **cli}, use_file=False)
    window = appmod.create_window(cfg)
    window.session.sim_gnss_waypoints = waypoints
    window.session.sim_time_scale = time_scale
    window.session.sim_gnss_rate_hz = rate_hz
    window.show()
    return window


def close_window(window):
    """Stop devices and delete the window's Qt objects now (see app.dispose)."""
    from fieldapp.ui.app import dispose

    window.session.stop()
    dispose(window)
    QCoreApplication.sendPostedEvents(None, QEvent.DeferredDelete)
    gc.collect()


def key(qtbot, window, sequence: str):
    """Press a key sequence on the window (shortcut dispatch, as a user would)."""
    from PySide6.QtGui import QKeySequence

    ks = QKeySequence(sequence)[0]
    QTest.keyClick(window, ks.key(), ks.keyboardModifiers())


def wait_fix(qtbot, window):
    qtbot.waitUntil(lambda: window.usable_fix() is not None, timeout=WAIT_MS)


def wait_job_done(qtbot, w):
    """Wait for the window's office job (report, export, sync) to end; its progress bar is hidden."""
    qtbot.waitUntil(lambda: not w.office.busy(), timeout=WAIT_MS * 2)
    assert not w.job_bar.isVisible()


__all__ = ["make_window", "close_window", "key", "wait_fix", "wait_job_done", "WAIT_MS", "Qt"]
