"""Where fieldapp keeps things on this computer: visits, settings, the log (no Qt).

Everything goes in the user's *local* (never roaming, never synced) app-data folders, by
platformdirs with no author folder:

=================  ==========================================  =====================================
                   Windows                                     Linux
=================  ==========================================  =====================================
new visits         ``%LOCALAPPDATA%\\fieldapp\\visits``          ``~/.local/share/fieldapp/visits``
settings           ``%LOCALAPPDATA%\\fieldapp\\config.json``     ``~/.config/fieldapp/config.json``
log                ``%LOCALAPPDATA%\\fieldapp\\Logs\\fieldapp.log``  ``~/.local/state/fieldapp/log/fieldapp.log``
=================  ==========================================  =====================================

Not Documents: on Windows that folder is often redirected into OneDrive, and OneDrive syncing a
GeoPackage while fieldapp writes it (the file and its ``-wal``) makes conflict copies and corrupt
ones. ``FIELDAPP_DATA_DIR`` (or ``--data-dir``, or ``data_dir`` in the settings file),
``FIELDAPP_CONFIG_DIR`` and ``FIELDAPP_LOG_DIR`` move them.

Visits made by earlier versions stay where they were (``Documents\\fieldapp``): nothing is moved.
:func:`earlier_visits_dir` finds that folder when it holds visits, so the window can say where
they are and the Open visit dialog can start there; the last visit opened is remembered by its
full path and still opens at start. Settings an earlier version kept in
``%LOCALAPPDATA%\\fieldapp\\fieldapp`` (platformdirs' author folder) are read from there until the
first save writes the new file (:func:`earlier_config_dirs`).
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_NAME = "fieldapp"
ENV_PREFIX = "FIELDAPP_"
#: The visits folder inside the app-data folder.
VISITS_FOLDER = "visits"
#: The log file's name inside the log folder.
LOG_NAME = "fieldapp.log"


def _env_dir(name: str) -> Path | None:
    value = os.environ.get(ENV_PREFIX + name, "").strip()
    return Path(value) if value else None


def app_data_dir() -> Path:
    """The local app-data folder (``%LOCALAPPDATA%\\fieldapp``; ``~/.local/share/fieldapp``)."""
    return platformdirs.user_data_path(APP_NAME, appauthor=False, roaming=False)


def default_visits_dir() -> Path:
    """Where new visits go: ``FIELDAPP_DATA_DIR``, else ``visits`` in :func:`app_data_dir`."""
    return _env_dir("DATA_DIR") or app_data_dir() / VISITS_FOLDER


def config_dir() -> Path:
    """The folder of ``config.json``: ``FIELDAPP_CONFIG_DIR``, else the local config folder
    (``%LOCALAPPDATA%\\fieldapp``; ``~/.config/fieldapp``)."""
    return _env_dir("CONFIG_DIR") or platformdirs.user_config_path(APP_NAME, appauthor=False,
                                                                    roaming=False)


def earlier_config_dirs() -> list[Path]:
    """Folders an earlier fieldapp kept its settings in, when they differ from
    :func:`config_dir` (on Windows ``%LOCALAPPDATA%\\fieldapp\\fieldapp``; none on Linux, and
    none when ``FIELDAPP_CONFIG_DIR`` is set)."""
    if _env_dir("CONFIG_DIR") is not None:
        return []
    old = platformdirs.user_config_path(APP_NAME)      # appauthor None: the author folder too
    return [old] if old != config_dir() else []


def log_dir() -> Path:
    """The log folder: ``FIELDAPP_LOG_DIR``, else the local log folder
    (``%LOCALAPPDATA%\\fieldapp\\Logs``; ``~/.local/state/fieldapp/log``)."""
    return _env_dir("LOG_DIR") or platformdirs.user_log_path(APP_NAME, appauthor=False)


def log_file() -> Path:
    """The log file, ``fieldapp.log`` in :func:`log_dir` (older ones beside it, ``.1`` … ``.5``)."""
    return log_dir() / LOG_NAME


def documents_visits_dir() -> Path | None:
    """``fieldapp`` in the user's Documents folder, where visits went before (None when the
    platform names no Documents folder)."""
    try:
        return platformdirs.user_documents_path() / APP_NAME
    except Exception:  # noqa: BLE001 - a platform without one: there were no visits there
        return None


def holds_visits(folder: Path | None) -> bool:
    """True when ``folder`` holds at least one visit GeoPackage (``*.gpkg``, not recursive)."""
    if folder is None:
        return False
    try:
        return any(p.suffix.lower() == ".gpkg" and p.is_file() for p in folder.iterdir())
    except OSError:
        return False


def earlier_visits_dir(data_dir: str | Path) -> Path | None:
    """The Documents folder of an earlier version's visits, when the visits go to the default
    folder now and that one holds visits; else None.

    Parameters
    ----------
    data_dir : the visits folder in use (``AppConfig.data_dir``). A folder the user chose
        (``--data-dir``, ``FIELDAPP_DATA_DIR``) is theirs: then no earlier folder is offered.
    """
    if _env_dir("DATA_DIR") is not None or Path(data_dir) != default_visits_dir():
        return None
    old = documents_visits_dir()
    if old is None or old == Path(data_dir) or not holds_visits(old):
        return None
    return old


def open_dialog_folder(data_dir: str | Path, current_visit: str | Path | None = None) -> Path:
    """Where the Open visit dialog starts: the open visit's folder; else the visits folder, or
    the earlier versions' folder (:func:`earlier_visits_dir`) while the visits folder holds no
    visit yet."""
    if current_visit is not None:
        return Path(current_visit).parent
    old = earlier_visits_dir(data_dir)
    if old is not None and not holds_visits(Path(data_dir)):
        return old
    return Path(data_dir)


def onedrive_roots(environ: dict[str, str] | None = None) -> list[Path]:
    """The OneDrive folders Windows names in the environment (``OneDrive``,
    ``OneDriveConsumer``, ``OneDriveCommercial``); [] elsewhere."""
    env = os.environ if environ is None else environ
    seen: list[Path] = []
    for name in ("OneDrive", "OneDriveConsumer", "OneDriveCommercial"):
        value = env.get(name, "").strip()
        if value and Path(value) not in seen:
            seen.append(Path(value))
    return seen


def in_onedrive(path: str | Path, environ: dict[str, str] | None = None) -> bool:
    """True when ``path`` lies in a OneDrive folder (:func:`onedrive_roots`).

    >>> in_onedrive("/home/ann/OneDrive/Documents/fieldapp/a.gpkg",
    ...             {"OneDrive": "/home/ann/OneDrive"})
    True
    >>> in_onedrive("/home/ann/AppData/Local/fieldapp/visits/a.gpkg",
    ...             {"OneDrive": "/home/ann/OneDrive"})
    False
    """
    p = Path(os.path.normcase(os.path.abspath(path)))
    for root in onedrive_roots(environ):
        r = Path(os.path.normcase(os.path.abspath(root)))
        if p == r or r in p.parents:
            return True
    return False


def onedrive_warning(path: str | Path, environ: dict[str, str] | None = None) -> str | None:
    """What the window says of a visit at ``path`` in a OneDrive folder; None elsewhere."""
    if not in_onedrive(path, environ):
        return None
    return (f"This visit is in a OneDrive folder ({path}): OneDrive may copy it while fieldapp"
            " writes it, and the copy can be damaged. Start new visits in the visits folder"
            " (Visit ▸ New visit…, Ctrl+N); copy a finished visit to OneDrive")


__all__ = ["APP_NAME", "app_data_dir", "default_visits_dir", "config_dir", "earlier_config_dirs",
           "log_dir", "log_file", "documents_visits_dir", "holds_visits", "earlier_visits_dir",
           "open_dialog_folder", "onedrive_roots", "in_onedrive", "onedrive_warning"]
