"""Which office an ``--office`` value names: a folder, or a PostgreSQL / PostGIS database.

>>> is_postgres_url("postgresql://crew2@gis.example.org:5432/survey?sslmode=require")
True
>>> is_postgres_url("host=gis.example.org dbname=survey user=crew2")
True
>>> is_postgres_url("/mnt/share/office")
False
"""

from __future__ import annotations

import os
import re

from fieldapp.sync.masking import mask_password
from fieldapp.sync.officestore import OfficeStore

__all__ = ["is_postgres_url", "mask_password", "office_arg", "open_office", "shell_arg"]


def is_postgres_url(where: str | os.PathLike[str]) -> bool:
    """Whether ``where`` names a PostgreSQL database rather than a folder: a libpq URL
    (``postgresql://`` or ``postgres://``) or a libpq ``key=value`` connection string
    (``"host=gis dbname=survey user=crew2"``, read with psycopg's ``conninfo_to_dict``; a
    folder path is not one)."""
    text = str(where)
    if text.startswith(("postgresql://", "postgres://")):
        return True
    if "=" not in text or os.path.exists(text):
        return False
    from psycopg.conninfo import conninfo_to_dict

    try:
        return bool(conninfo_to_dict(text))
    except Exception:  # noqa: BLE001 - psycopg.ProgrammingError: not a connection string
        return False


def shell_arg(text: str | os.PathLike[str]) -> str:
    """``text`` as one argument of a command to paste: in double quotes when it holds a space or
    a character a shell reads (cmd.exe, PowerShell and sh all take ``"..."``).

    >>> shell_arg("/media/usb/office")
    '/media/usb/office'
    >>> shell_arg("/media/usb/crew B/dayB.gpkg")
    '"/media/usb/crew B/dayB.gpkg"'
    """
    text = str(text)
    return f'"{text}"' if not text or re.search(r"[\s&|<>^;'\"()$`*?!%#~]", text) else text


def office_arg(office: OfficeStore) -> str:
    """The ``--office`` value naming ``office`` in a command to paste: its folder, or its
    PostgreSQL URL (never holding a password: :func:`open_office` refuses one), quoted as
    :func:`shell_arg` does; ``PATH`` when it cannot be told."""
    where = getattr(office, "root", None) or getattr(office, "url", None)
    return shell_arg(mask_password(str(where))) if where else "PATH"


def open_office(where: str | os.PathLike[str], *, create: bool = False) -> OfficeStore:
    """The office at ``where``: :class:`~fieldapp.sync.pgoffice.PostgisOffice` for a PostgreSQL
    URL (``ValueError`` if it holds a password), else
    :class:`~fieldapp.sync.office.FolderOffice` for a folder. Nothing is contacted yet."""
    if is_postgres_url(where):
        from fieldapp.sync.pgoffice import PostgisOffice

        return PostgisOffice(str(where), create=create)
    scheme = re.match(r"([A-Za-z][A-Za-z0-9+.-]+)://", str(where))
    if scheme:          # "http://server/office" would be taken as a folder named "http:"
        shown = re.sub(r"(://[^/@:]*:)[^/@]*@", r"\1***@", str(where))    # user:password@
        raise ValueError(f"{shown}: an office is a folder (a path, or a mounted"
                         f" share) or a postgresql:// URL, not a {scheme.group(1)}:// address")
    from fieldapp.sync.office import FolderOffice

    return FolderOffice(where, create=create)
