"""The NTRIP caster password, kept out of the settings file (no Qt).

:func:`store_password` puts it in the OS keyring through the ``keyring`` package (Windows
Credential Manager, macOS Keychain, the Secret Service on Linux) when one is available; else in
``secrets.json`` beside the settings file, readable by this user only (mode 0600 on POSIX; on
Windows the per-user config folder is already private to the user). :func:`where_kept` says which,
in words the Devices dialog shows.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from types import ModuleType
from typing import Any

from fieldapp.app.config import config_dir

log = logging.getLogger(__name__)

SERVICE = "fieldapp-ntrip"
FALLBACK_NAME = "secrets.json"


def _keyring() -> ModuleType | None:
    """The keyring module when a real (not the fail or null) backend is available, else None."""
    if os.environ.get("FIELDAPP_NO_KEYRING"):
        return None
    try:
        import keyring
        from keyring.backends import fail

        backend = keyring.get_keyring()
        if isinstance(backend, fail.Keyring) or "null" in type(backend).__module__.lower():
            return None
        return keyring
    except Exception:  # noqa: BLE001 - no keyring: the fallback file
        return None


def where_kept() -> str:
    """Where a password would be kept, in words."""
    kr = _keyring()
    if kr is not None:
        return f"OS keyring ({type(kr.get_keyring()).__name__})"
    return f"{fallback_file()} (readable by this user only)"


def fallback_file() -> Path:
    return config_dir() / FALLBACK_NAME


def _read_fallback() -> dict[str, Any]:
    """The fallback file's passwords; while it is missing, those of the file an earlier version
    kept beside its settings (:func:`fieldapp.app.paths.earlier_config_dirs`), which the next
    :func:`store_password` then writes into the current file."""
    path = fallback_file()
    if not path.exists():
        from fieldapp.app.paths import earlier_config_dirs

        path = next((d / FALLBACK_NAME for d in earlier_config_dirs()
                     if (d / FALLBACK_NAME).is_file()), path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def store_password(key: str, password: str) -> str:
    """Keep ``password`` for ``key`` (the caster URL without password); returns where (words).

    Raises
    ------
    OSError
        Neither the keyring nor the fallback file could be written.
    """
    kr = _keyring()
    if kr is not None:
        try:
            kr.set_password(SERVICE, key, password)
            return where_kept()
        except Exception as exc:  # noqa: BLE001 - a locked or broken keyring: the file
            log.warning("keyring refused the caster password (%s); using the file", exc)
    path = fallback_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    data = _read_fallback()
    data[key] = password
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(data, fh)
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)
    return f"{path} (readable by this user only)"


def load_password(key: str) -> str | None:
    """The password kept for ``key``, or None."""
    kr = _keyring()
    if kr is not None:
        try:
            pw: str | None = kr.get_password(SERVICE, key)
            if pw is not None:
                return pw
        except Exception:  # noqa: BLE001
            pass
    kept = _read_fallback().get(key)
    return kept if isinstance(kept, str) else None  # a hand-edited file's non-text is no password


def store_office_password(office: str, password: str) -> str:
    """Keep the PostGIS office's password in the OS keyring, where the sync looks it up
    (service ``fieldapp-postgres``, user ``USER@HOST:PORT/DB``:
    :meth:`fieldapp.sync.pgoffice.PostgisOffice.keyring_user`); returns where (words).

    ``office`` is the libpq URL or ``key=value`` connection string, without the password.

    Raises
    ------
    ValueError
        ``office`` is not a PostgreSQL URL or connection string, or holds a password.
    OSError
        No OS keyring (never a file: put the password in PGPASSFILE, ``~/.pgpass``, instead).
    """
    from fieldapp.sync.pgoffice import KEYRING_SERVICE, PostgisOffice

    user = PostgisOffice(office).keyring_user()
    kr = _keyring()
    if kr is None:
        raise OSError("no OS keyring on this computer: put the office password in PGPASSFILE"
                      " (~/.pgpass, readable by this user only) instead")
    try:
        kr.set_password(KEYRING_SERVICE, user, password)
    except Exception as exc:  # noqa: BLE001 - a locked keyring: said, never written elsewhere
        raise OSError(f"the OS keyring refused the office password ({type(exc).__name__})") from None
    return f"{where_kept()}, as {user}"
