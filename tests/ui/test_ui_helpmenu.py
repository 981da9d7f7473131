"""Help ▾, Visit ▾ › Open visits folder, the About dialog and the crash message (pytest-qt)."""

from __future__ import annotations

import logging
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer

from fieldapp.app import logfile
from fieldapp.ui import helpmenu
from tests.ui.ui_support import WAIT_MS, close_window, make_window


class FakeDesktop:
    """Stands in for QDesktopServices: the URLs asked to be opened."""

    opened: list[str] = []

    @staticmethod
    def openUrl(url):  # noqa: N802 - Qt name
        FakeDesktop.opened.append(url.toLocalFile())
        return True


@pytest.fixture
def desktop(monkeypatch):
    FakeDesktop.opened = []
    monkeypatch.setattr(helpmenu, "QDesktopServices", FakeDesktop)
    return FakeDesktop.opened


@pytest.fixture
def logged(tmp_path):
    """The log file in ``tmp_path/log`` and the crash hooks, as fieldapp.cli.main sets them."""
    path = logfile.configure(directory=tmp_path / "log")
    logfile.install_crash_hooks()
    yield path
    logfile.set_notifier(None)
    logfile.uninstall_crash_hooks()
    logfile.unconfigure()


def test_menus_open_the_right_folders(qtbot, private_dirs, desktop, logged):
    w = make_window(qtbot, private_dirs)
    try:
        help_items = [a.text() for a in w.help_menu.actions() if a.text()]
        assert help_items == ["About fieldapp and where things are…", "Open visits folder",
                              "Open log folder", "Open settings folder"]
        assert "Open visits folder" in [a.text() for a in w.visit_menu.actions()]
        assert w.help_button.text() == "Help ▾"
        w.open_visits_action.trigger()
        w.open_log_action.trigger()
        w.open_settings_action.trigger()
        assert desktop == [str(private_dirs / "data"), str(logged.parent), str(private_dirs / "cfg")]
        assert (private_dirs / "data").is_dir()        # made before it was opened
    finally:
        close_window(w)


def test_a_tablet_finds_help_in_the_visit_menu(qtbot, private_dirs, desktop, logged):
    """At 1024 px wide the toolbar has no room for *Help ▾*: the same menu is in *Visit ▾*
    there, and back on the toolbar when the window is wide again."""
    w = make_window(qtbot, private_dirs)
    try:
        in_visit_menu = w.help_menu.menuAction() in w.visit_menu.actions()
        assert in_visit_menu
        w.fit_to_width(1366)
        assert w.help_tool_action.isVisible() and not w.help_menu.menuAction().isVisible()
        w.fit_to_width(1024)
        assert not w.help_tool_action.isVisible() and w.help_menu.menuAction().isVisible()
        assert w.help_menu.title() == "Help"
        w.fit_to_width(1366)
        assert w.help_tool_action.isVisible() and not w.help_menu.menuAction().isVisible()
    finally:
        close_window(w)


def test_about_dialog_names_each_folder_and_opens_it(qtbot, private_dirs, desktop, logged,
                                                     monkeypatch):
    """With the visits in the default folder and an earlier version's visits in Documents, the
    dialog names both (and the settings file and the log file) and a button opens each."""
    from fieldapp.app import paths

    documents = private_dirs / "Documents" / "fieldapp"
    documents.mkdir(parents=True)
    (documents / "bank_2025.gpkg").write_bytes(b"SQLite format 3\x00")
    monkeypatch.delenv("FIELDAPP_DATA_DIR")
    monkeypatch.setattr(paths, "app_data_dir", lambda: private_dirs / "local" / "fieldapp")
    monkeypatch.setattr(paths, "documents_visits_dir", lambda: documents)
    w = make_window(qtbot, private_dirs, data_dir=str(private_dirs / "local" / "fieldapp" / "visits"))
    try:
        assert "openEarlierVisits" in [a.objectName() for a in w.help_menu.actions()]
        dlg = helpmenu.AboutDialog(w.settings, w.recording, w)
        qtbot.addWidget(dlg)
        dlg.show()
        assert dlg.rows == {"Visits": private_dirs / "local" / "fieldapp" / "visits",
                            "Earlier visits": documents, "Settings": private_dirs / "cfg",
                            "Log": logged.parent}
        from PySide6.QtWidgets import QLabel, QPushButton

        texts = {lab.objectName(): lab.text() for lab in dlg.findChildren(QLabel)}
        assert str(logged) in texts["whereLog"]
        assert str(private_dirs / "cfg" / "config.json") in texts["whereSettings"]
        assert str(documents) in texts["whereEarliervisits"]
        dlg.findChild(QPushButton, "openLog").click()
        dlg.findChild(QPushButton, "openEarliervisits").click()
        assert desktop == [str(logged.parent), str(documents)]
        dlg.grab().save(str(private_dirs / "about.png"))
    finally:
        close_window(w)


def test_about_dialog_warns_of_the_visit_open_in_onedrive_without_a_window(qtbot, tmp_path,
                                                                           monkeypatch):
    """The dialog reads only the settings and the visit being recorded (no window): a visit
    open in OneDrive is warned of by its path; none open, or one in the visits folder, is not."""
    from PySide6.QtWidgets import QLabel

    from fieldapp.app.config import AppConfig
    from fieldapp.app.recording import Recording
    from fieldapp.app.settings import Settings
    from fieldapp.app.visit import open_visit

    cloud = tmp_path / "OneDrive"
    monkeypatch.setenv("OneDrive", str(cloud))
    settings = Settings(AppConfig(data_dir=str(tmp_path / "visits")))
    recording = Recording()

    def warning(rec: Recording) -> str | None:
        dlg = helpmenu.AboutDialog(settings, rec)
        qtbot.addWidget(dlg)
        assert dlg.rows["Visits"] == tmp_path / "visits"
        label = dlg.findChild(QLabel, "onedriveWarning")
        return None if label is None else label.text()

    assert warning(recording) is None
    bank = cloud / "Documents" / "bank.gpkg"
    recording.visit = open_visit(bank)
    try:
        text = warning(recording)
        assert text is not None and text.startswith(
            f"The visit open now, {bank}, is in a OneDrive folder.")
    finally:
        recording.visit.close()
    recording.visit = open_visit(tmp_path / "visits" / "local.gpkg")
    try:
        assert warning(recording) is None
    finally:
        recording.visit.close()


def test_new_visit_dialog_says_where_earlier_visits_are(qtbot, tmp_path, monkeypatch):
    from fieldapp.app import paths
    from fieldapp.ui.newvisit import NewVisitDialog

    documents = tmp_path / "OneDrive" / "Documents" / "fieldapp"
    documents.mkdir(parents=True)
    (documents / "old.gpkg").write_bytes(b"SQLite format 3\x00")
    monkeypatch.delenv("FIELDAPP_DATA_DIR", raising=False)
    monkeypatch.setattr(paths, "app_data_dir", lambda: tmp_path / "Local" / "fieldapp")
    monkeypatch.setattr(paths, "documents_visits_dir", lambda: documents)
    dlg = NewVisitDialog(tmp_path / "Local" / "fieldapp" / "visits")
    qtbot.addWidget(dlg)
    dlg.name.setText("Smith lot")
    where = dlg.where.text()
    assert where.startswith(f"Saved as {tmp_path / 'Local' / 'fieldapp' / 'visits'}")
    assert f"Visits of earlier versions stay in {documents} (not moved)" in where


@pytest.mark.qt_no_exception_capture
def test_crash_in_the_window_is_logged_and_shown_with_the_log_path(qtbot, private_dirs, desktop,
                                                                   logged):
    """An exception out of a slot (PySide6 hands it to sys.excepthook) and one in a worker
    thread: each traceback in the log, one message box naming the log file; the visit stays
    open and recording."""
    w = make_window(qtbot, private_dirs)
    notice = helpmenu.CrashNotice(w)
    logfile.set_notifier(notice.notify)
    try:
        qtbot.waitUntil(lambda: w.startup_done and w.visit is not None, timeout=WAIT_MS)
        visit = w.visit

        def slot() -> None:
            raise ValueError("azimuth 400° is not a bearing")

        QTimer.singleShot(0, slot)
        qtbot.waitUntil(lambda: notice.box is not None and notice.box.isVisible(), timeout=WAIT_MS)
        assert len(notice.shown) == 1
        assert str(logged) in notice.shown[0]
        assert "ValueError: azimuth 400° is not a bearing, in the window" in notice.shown[0]
        assert notice.box.text() == notice.shown[0]
        notice.box.grab().save(str(private_dirs / "crash.png"))

        t = threading.Thread(target=lambda: 1 / 0, name="fieldapp-test-crash")
        t.start()
        t.join()
        for handler in logging.getLogger().handlers:
            handler.flush()
        text = logged.read_text(encoding="utf-8")
        assert "uncaught exception in the window" in text
        assert "ValueError: azimuth 400° is not a bearing" in text and "in slot" in text
        assert "uncaught exception in thread fieldapp-test-crash" in text
        assert "ZeroDivisionError: division by zero" in text
        qtbot.wait(50)          # the thread's notice arrives while the first box is open...
        assert len(notice.shown) == 1                   # ...and is only logged
        # the visit is the same, its store open: nothing was closed by the hook
        assert w.visit is visit and not visit.store.closed
        notice.box.findChild(type(notice.box.buttons()[0]), "openLogFolder").click()
        assert desktop == [str(logged.parent)]
        qtbot.waitUntil(lambda: notice.box is None or not notice.box.isVisible(), timeout=WAIT_MS)
        # with no box open, a worker thread's crash is shown on the GUI thread
        t = threading.Thread(target=lambda: {}["species"], name="fieldapp-test-crash2")
        t.start()
        t.join()
        qtbot.waitUntil(lambda: len(notice.shown) == 2, timeout=WAIT_MS)
        assert "KeyError: 'species', in thread fieldapp-test-crash2" in notice.shown[1]
        assert notice.box.isVisible()
    finally:
        logfile.set_notifier(None)
        close_window(w)


def test_a_window_that_fails_to_start_says_where_the_log_is(qtbot, private_dirs, logged,
                                                            monkeypatch, capsys, themed):
    """Offscreen (no dialogs) a start-up failure is logged and said on the console, exit 1.
    (``themed``: the app's theme, which main applies, is taken off again for later tests.)"""
    from fieldapp.ui import app as appmod

    def broken(config, **_kw):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(appmod, "create_window", broken)
    assert appmod.main(["--no-settings-file", "--visit", str(private_dirs / "v.gpkg")]) == 1
    err = capsys.readouterr().err
    assert (f"fieldapp: unexpected error (OSError: [Errno 28] No space left on device, in "
            f"start-up); the details are in {logged}") in err
    assert "OSError: [Errno 28] No space left on device" in Path(logged).read_text(encoding="utf-8")


def test_a_visit_in_onedrive_is_warned_of_in_the_banner(qtbot, private_dirs, monkeypatch):
    cloud = private_dirs / "OneDrive"
    monkeypatch.setenv("OneDrive", str(cloud))
    w = make_window(qtbot, private_dirs, visit=str(cloud / "Documents" / "fieldapp" / "bank.gpkg"))
    try:
        qtbot.waitUntil(lambda: w.startup_done and w.visit is not None, timeout=WAIT_MS)
        assert w.banner.isVisible()
        assert w.banner.text().startswith(
            f"This visit is in a OneDrive folder ({cloud / 'Documents' / 'fieldapp' / 'bank.gpkg'})")
        from fieldapp.app.visit import open_visit, show_opened

        local = private_dirs / "data" / "local.gpkg"
        w.visit.close()
        show_opened(w, local, open_visit(local))        # the next visit, not in OneDrive
        assert not w.banner.isVisible() and w.banner.text() == ""
    finally:
        close_window(w)
