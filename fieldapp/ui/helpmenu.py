"""Where things are, in the window: the *Help ▾* menu, the About dialog, the crash message.

- *Visit ▾ › Open visits folder* and *Help ▾ › Open visits folder / Open log folder / Open
  settings folder* open the folder in the file manager (Explorer on Windows), made first if
  it is not there yet.
- *Help ▾ › About fieldapp and where things are…* (F1) names the visits folder, the folder of
  visits made by earlier versions (Documents, never moved), the settings file and the log file,
  each with a button that opens its folder, and warns when the visit open now is in OneDrive.
- :class:`CrashNotice` shows an uncaught exception (:mod:`fieldapp.app.logfile`) in a message
  box naming the log file, from whichever thread it came; the window carries on.

The paths come from :mod:`fieldapp.app.paths` and :mod:`fieldapp.app.logfile` (no Qt there).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, QUrl, Signal
from PySide6.QtGui import QAction, QDesktopServices
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QLabel,
    QMenu,
    QMessageBox,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from fieldapp.app import logfile, paths
from fieldapp.ui import theme

if TYPE_CHECKING:
    from fieldapp.app.recording import Recording
    from fieldapp.app.settings import Settings

log = logging.getLogger(__name__)


def log_folder() -> Path:
    """The folder of the log file in use (:func:`fieldapp.app.paths.log_dir` before any)."""
    current = logfile.current_log_file()
    return current.parent if current is not None else paths.log_dir()


def open_folder(parent: QWidget | None, folder: str | Path) -> bool:
    """Open ``folder`` in the file manager, making it first; False (and a message naming the
    folder) when it cannot be made or the desktop refuses to open it."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        QMessageBox.warning(parent, "Open folder", f"{folder} cannot be made: {exc}")
        return False
    if QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder))):
        return True
    QMessageBox.information(parent, "Open folder",
                            f"No file manager opened it. The folder is:\n{folder}")
    return False


def _plain_action(window: Any, text: str, tip: str, slot: Any) -> QAction:
    act = QAction(text, window)
    act.setToolTip(tip)
    act.triggered.connect(lambda _checked=False: slot())
    return act


@dataclass(frozen=True)
class HelpMenu:
    """What :func:`install_help_menu` made (the window keeps each under the same name)."""

    help_button: QToolButton
    help_menu: QMenu
    about_action: QAction
    open_visits_action: QAction
    open_log_action: QAction
    open_settings_action: QAction


def install_help_menu(window: Any) -> HelpMenu:
    """*Open visits folder* in ``window.visit_menu`` and the toolbar's *Help ▾* button (F1:
    the About dialog); returns them (the window keeps them). The same menu is a *Help*
    submenu of ``window.visit_menu``, hidden until a narrow window hides the button
    (:meth:`fieldapp.ui.mainwindow.MainWindow.fit_to_width`)."""
    visits = _plain_action(window, "Open visits folder", "Open the folder new visits are kept in",
                           lambda: open_folder(window, window.config.data_dir))
    window.visit_menu.addSeparator()
    window.visit_menu.addAction(visits)
    menu = QMenu(window)
    about = window._action("About fieldapp and where things are…", "F1",
                           lambda: AboutDialog(window.settings, window.recording, window).exec(),
                           tip="Where visits, settings and the log are kept")
    menu.addAction(about)
    menu.addSeparator()
    menu.addAction(visits)
    earlier = paths.earlier_visits_dir(window.config.data_dir)
    if earlier is not None:
        act = menu.addAction("Open visits of earlier versions (Documents)",
                             lambda: open_folder(window, earlier))
        act.setObjectName("openEarlierVisits")
    open_log = _plain_action(window, "Open log folder", "Open the folder of fieldapp.log",
                             lambda: open_folder(window, log_folder()))
    menu.addAction(open_log)
    open_settings = _plain_action(window, "Open settings folder", "Open the folder of config.json",
                                  lambda: open_folder(window, paths.config_dir()))
    menu.addAction(open_settings)
    button = theme.menu_button("helpButton", "Help ▾",
                               "Where visits, settings and the log are kept (F1)", menu)
    menu.setTitle("Help")
    window.visit_menu.addMenu(menu).setVisible(False)   # shown there on a narrow window
    return HelpMenu(help_button=button, help_menu=menu, about_action=about,
                    open_visits_action=visits, open_log_action=open_log,
                    open_settings_action=open_settings)


class AboutDialog(QDialog):
    """The version, and each folder fieldapp keeps things in with a button that opens it.

    ``settings`` gives the visits folder (``config.data_dir``); ``recording`` the visit open
    now, warned of when it is in a OneDrive folder; ``parent`` is the window it is shown over.
    """

    def __init__(self, settings: Settings, recording: Recording, parent: QWidget | None = None) -> None:
        from fieldapp import __version__

        super().__init__(parent)
        self.setWindowTitle("About fieldapp")
        lay = QVBoxLayout(self)
        lay.addWidget(QLabel(f"<b>fieldapp {__version__}</b>: field records for shoreland and "
                             "woodland site visits."))
        grid = QGridLayout()
        grid.setVerticalSpacing(10)
        grid.setHorizontalSpacing(12)
        self.rows: dict[str, Path] = {}
        data_dir = Path(settings.config.data_dir)
        self._row(grid, "Visits", data_dir, "New visits are kept here, on this computer only.")
        earlier = paths.earlier_visits_dir(data_dir)
        if earlier is not None:
            self._row(grid, "Earlier visits", earlier,
                      "Visits made by earlier versions of fieldapp, left where they were."
                      " Open them with Visit ▸ Open visit… (Ctrl+O).")
        config_file = paths.config_dir() / "config.json"
        self._row(grid, "Settings", config_file, "Devices, antenna height, the last visit.")
        self._row(grid, "Log", logfile.current_log_file() or paths.log_file(),
                  "What fieldapp did and any error, with the details to send when asking for help.")
        lay.addLayout(grid)
        visit = recording.visit
        if visit is not None and paths.in_onedrive(visit.path):
            warn = QLabel(f"The visit open now, {visit.path}, is in a OneDrive folder. OneDrive may"
                          " copy it while fieldapp writes it, and the copy can be damaged. Keep"
                          " visits in progress in the visits folder; put a copy in OneDrive when"
                          " the visit is done.")
            warn.setObjectName("onedriveWarning")
            warn.setWordWrap(True)
            warn.setStyleSheet("color: #8a3b00; font-weight: bold;")
            lay.addWidget(warn)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)

    def _row(self, grid: QGridLayout, title: str, path: Path, words: str) -> None:
        r = grid.rowCount()
        folder = path if title in ("Visits", "Earlier visits") else path.parent
        self.rows[title] = folder
        name = QLabel(f"<b>{title}</b>")
        grid.addWidget(name, r, 0, Qt.AlignmentFlag.AlignTop)
        text = QLabel(f"{path}<br><small>{words}</small>")
        text.setObjectName(f"where{title.replace(' ', '')}")
        text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        text.setWordWrap(True)
        text.setMinimumWidth(420)
        grid.addWidget(text, r, 1)
        button = QPushButton("Open folder")
        button.setObjectName(f"open{title.replace(' ', '')}")
        button.clicked.connect(lambda _c=False, f=folder: open_folder(self, f))
        grid.addWidget(button, r, 2, Qt.AlignmentFlag.AlignTop)


class CrashNotice(QObject):
    """Tells the user of a crash (:func:`fieldapp.app.logfile.set_notifier`): a message box
    naming the log file, with a button that opens its folder.

    :meth:`notify` may be called from any thread; the box is shown on this object's (the GUI)
    thread. One box at a time: a crash while one is open is only logged. The box is non-modal
    (the window stays usable) unless :attr:`modal` (at start-up, before the event loop runs).
    """

    sigCrash = Signal(object)

    def __init__(self, parent_window: QWidget | None = None) -> None:
        super().__init__()
        self.parent_window = parent_window
        self.modal = False
        self.box: QMessageBox | None = None
        self.shown: list[str] = []          # the texts shown (tests read them)
        self.sigCrash.connect(self._show)

    def notify(self, crash: logfile.Crash) -> None:
        self.sigCrash.emit(crash)

    def _show(self, crash: logfile.Crash) -> None:
        if self.box is not None and self.box.isVisible():
            return
        text = logfile.crash_words(crash)
        self.shown.append(text)
        box = QMessageBox(QMessageBox.Icon.Critical, "fieldapp: unexpected error", text,
                          QMessageBox.StandardButton.Ok, self.parent_window)
        box.setObjectName("crashBox")
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        if crash.log_path is not None:
            folder = crash.log_path.parent
            opener = box.addButton("Open log folder", QMessageBox.ButtonRole.ActionRole)
            opener.setObjectName("openLogFolder")
            opener.clicked.connect(lambda _c=False: open_folder(box, folder))
        self.box = box
        if self.modal:
            box.exec()
            return
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.destroyed.connect(lambda *_: setattr(self, "box", None))
        box.setModal(False)
        box.show()


__all__ = ["AboutDialog", "CrashNotice", "install_help_menu", "log_folder", "open_folder"]
