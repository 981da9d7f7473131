"""Office site folders named by the site (issue 35 item 15), the site id kept inside.

A folder office of format version 2 (:data:`fieldapp.sync.office.OFFICE_FORMAT`) keeps each
site in ``sites/<site name>/`` (``Mill Creek``; a second site of that name ``Mill Creek (2)``)
with its id in ``sites/<site name>/site-id``; its lock is ``locks/<site id>``, apart from the
folder, because a sync locks the site before it knows the site's name (the folder is made when
the site is created, under that lock). Offices of version 1 keep ``sites/<site id>/`` with the
lock inside and are read and written as before (:class:`fieldapp.sync.office.FolderOffice`):
renaming their folders would make a laptop still on version 1 create the site a second time.

Folder names are Windows-safe (:func:`fieldapp.store.paths.safe_file_name`: no ``: * ? " < >
| \\ /``, no reserved device name such as ``CON``, no trailing dot or space) and at most
:data:`MAX_NAME_CHARS` characters, fewer when the office folder is deep (Windows' path limit).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

from fieldapp.store.paths import MAX_PATH, safe_file_name
from fieldapp.sync.errors import InvalidOfficeData, SyncError
from fieldapp.sync.files import replace_durably, temp_path_for
from fieldapp.sync.officestore import check_site_id

__all__ = ["MAX_NAME_CHARS", "SITE_ID_FILE", "find_site_folder", "folder_name", "make_site_folder",
           "is_unconverted", "read_site_id", "site_name_in"]

#: the longest site folder name (characters)
MAX_NAME_CHARS = 60
#: the file in a site's folder that holds its id
SITE_ID_FILE = "site-id"


def folder_name(site_name: str, max_chars: int = MAX_NAME_CHARS) -> str:
    """``site_name`` as a Windows-safe folder name of at most ``max_chars`` characters (no
    leading dot either: hidden on Linux); ``site`` when nothing is left.

    >>> folder_name("Mill Creek: north bank."), folder_name("CON"), folder_name(" .. ")
    ('Mill Creek_ north bank', '_CON', 'site')
    """
    name = safe_file_name(site_name, fallback="site", max_chars=max_chars, max_bytes=180)
    name = name.lstrip(".")
    return safe_file_name(name, fallback="site", max_chars=max_chars, max_bytes=180)


def site_name_in(gpkg: Path) -> str:
    """The site's name in GeoPackage ``gpkg``'s ``site`` table ("" when there is none: the
    folder is then named ``site``)."""
    from fieldapp.sync.files import connect

    try:
        with contextlib.closing(connect(Path(gpkg), readonly=True)) as conn:
            row = conn.execute("SELECT name FROM site ORDER BY fid LIMIT 1").fetchone()
    except (sqlite3.Error, OSError):
        return ""
    return str(row[0]) if row and row[0] else ""


def read_site_id(folder: Path) -> str | None:
    """The site id kept in ``folder`` (:data:`SITE_ID_FILE`), or None when there is none or it
    is not a valid id (a folder being made, or not a site's)."""
    path = folder / SITE_ID_FILE
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > 256:
            return None
        return check_site_id(path.read_text(encoding="utf-8").strip())
    except (OSError, ValueError, UnicodeDecodeError):
        return None


def is_unconverted(folder: Path) -> bool:
    """True for a site folder laid out by format 1 in an office being converted: named by a
    valid site id, a master inside, no ``site-id`` file."""
    try:
        check_site_id(folder.name)
    except ValueError:
        return False
    return (folder.is_dir() and not folder.is_symlink() and (folder / "master.gpkg").is_file()
            and not (folder / SITE_ID_FILE).exists())


def find_site_folder(sites: Path, site_id: str) -> Path | None:
    """The folder under ``sites`` holding ``site_id`` (None: no such site yet).

    Raises :class:`InvalidOfficeData` when two folders hold the same id (a site folder copied
    in the file manager): which one the laptops should write to cannot be told. A symbolic
    link holding the id is returned, for the office's path check to refuse (never skipped:
    the site would be made again beside it). A folder named by the id, holding a master and no
    ``site-id``, is the site's too: one of a format-1 office being converted
    (:mod:`fieldapp.sync.officeconvert`) that a format-1 laptop made meanwhile."""
    if not sites.is_dir():
        return None
    found = [e for e in sorted(sites.iterdir()) if e.is_dir() and read_site_id(e) == site_id]
    if not found and is_unconverted(sites / site_id):
        found = [sites / site_id]
    if len(found) > 1:
        raise InvalidOfficeData(
            f"site {site_id} is in {len(found)} folders of the office ({', '.join(p.name for p in found)});"
            " nothing was synced. Keep the one the office works in and move the copies out of"
            f" {sites}")
    return found[0] if found else None


def room_for_name(sites: Path, deepest: Path) -> int:
    """How many characters a site folder's name may have so that ``deepest`` in it stays under
    Windows' path limit (:data:`MAX_PATH`), at most :data:`MAX_NAME_CHARS`."""
    used = len(str(sites.absolute())) + 1 + len(str(deepest)) + 1
    return max(0, min(MAX_NAME_CHARS, MAX_PATH - 1 - used))


def make_site_folder(sites: Path, site_name: str, site_id: str, deepest: Path) -> Path:
    """Make the folder of a new site under ``sites``, named by ``site_name`` (``Name (2)``... when
    taken, also by a name differing only in case), with ``site_id`` written in it durably; the
    caller holds the site's lock. Raises :class:`SyncError` when no name fits (the office folder
    is too deep for Windows)."""
    check_site_id(site_id)
    room = room_for_name(sites, deepest)
    if room < 8:
        raise SyncError(f"the office folder {sites.parent} is too deep for Windows to hold a site"
                        " folder; nothing was written. Move the office to a shorter folder")
    sites.mkdir(parents=True, exist_ok=True)
    for n in range(1, 1000):
        suffix = "" if n == 1 else f" ({n})"
        name = folder_name(site_name, room - len(suffix)) + suffix
        folder = sites / name
        try:
            os.mkdir(folder)        # exclusive: two new sites of one name get two folders
        except FileExistsError:
            continue
        try:
            path = folder / SITE_ID_FILE
            temp = temp_path_for(path)
            temp.write_text(site_id + "\n", encoding="utf-8")
            replace_durably(temp, path)
        except BaseException:
            for p in (folder / SITE_ID_FILE, *folder.glob("*")):
                with contextlib.suppress(OSError):
                    p.unlink()
            with contextlib.suppress(OSError):
                folder.rmdir()
            raise
        return folder
    raise SyncError(f"no free folder name for site {site_name!r} in {sites}; nothing was written")
