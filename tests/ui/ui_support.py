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


#: The modifier keys, in the order they are pressed (released in the reverse order).
_MODIFIER_KEYS = ((Qt.Key.Key_Control, Qt.KeyboardModifier.ControlModifier),
                  (Qt.Key.Key_Shift, Qt.KeyboardModifier.ShiftModifier),
                  (Qt.Key.Key_Alt, Qt.KeyboardModifier.AltModifier),
                  (Qt.Key.Key_Meta, Qt.KeyboardModifier.MetaModifier))


def key(qtbot, window, sequence: str):
    """Press a key sequence on the window (shortcut dispatch, as a user would).

    The modifier keys go down first, then the key, then the modifiers come up in the reverse
    order, each release carrying the modifiers still held after it: the application's
    ``QGuiApplication.keyboardModifiers()`` (the modifiers of the last key event) is back to
    none when this returns. ``QTest.keyClick`` left Shift "held" there for the rest of the
    process, and a later test's ``QTableWidget.selectRow`` then extended a selection from no
    anchor and selected nothing (``test_ui_photos`` then ``test_ui_editing``: the editor's
    selection stayed None).
    """
    from PySide6.QtGui import QKeySequence

    ks = QKeySequence(sequence)[0]
    down = [(k, flag) for k, flag in _MODIFIER_KEYS if ks.keyboardModifiers() & flag]
    held = Qt.KeyboardModifier.NoModifier
    for k, flag in down:
        QTest.simulateEvent(window, True, k, held, "", False)
        held |= flag
    char = QTest.keyToAscii(ks.key())           # the text QTest.keyClick gives the key
    text = char if char and char != "\x00" else ""
    QTest.simulateEvent(window, True, ks.key(), held, text, False)
    QTest.simulateEvent(window, False, ks.key(), held, text, False)
    for k, flag in reversed(down):
        held &= ~flag
        QTest.simulateEvent(window, False, k, held, "", False)


def wait_fix(qtbot, window):
    qtbot.waitUntil(lambda: window.usable_fix() is not None, timeout=WAIT_MS)


def wait_job_done(qtbot, w):
    """Wait for the window's office job (report, export, sync) to end; its progress bar is hidden."""
    qtbot.waitUntil(lambda: not w.office.busy(), timeout=WAIT_MS * 2)
    assert not w.job_bar.isVisible()


__all__ = ["make_window", "close_window", "key", "wait_fix", "wait_job_done", "WAIT_MS", "Qt"]


def save_shot(widget, name: str) -> None:
    """Save ``widget``'s picture as ``name`` in the folder ``FIELDAPP_SHOTS`` names (none
    saved when it is not set)."""
    import os

    where = os.environ.get("FIELDAPP_SHOTS")
    if where:
        widget.grab().save(os.path.join(where, name))
