"""Paths as Windows and the libraries below us need them (plain Python; the store and the sync
use it, the sync may import the store, never the reverse).

The users run Windows 10/11 and keep the office on a network share (``\\\\server\\share``, a
mapped drive such as ``N:``); we develop on Linux. Every function here takes ``windows`` (default
:data:`WINDOWS`, i.e. ``os.name == "nt"``) so the Windows rules are tested on Linux too.

- :func:`sqlite_uri`: the ``file:`` URI SQLite documents for a path (``file:///C:/x/v.gpkg``,
  ``file:////server/share/v.gpkg`` for a share; ``%``, ``?``, ``#``, spaces and non-ASCII
  percent-encoded, RFC 3986). ``Path.resolve().as_uri()`` gives ``file://server/share/...`` for a
  share, which SQLite refuses ("invalid uri authority"), and ``resolve()`` turns a mapped ``N:``
  into the share's UNC name: the drive letter is kept here (``os.path.abspath``).
- :func:`long_path`: the ``\\\\?\\`` form (``\\\\?\\C:\\...``, ``\\\\?\\UNC\\server\\share\\...``)
  for libraries that refuse a plain share path or a path over :data:`MAX_PATH` (pygeodiff: under
  wine it refuses ``\\\\server\\share\\a.gpkg`` and opens ``\\\\?\\UNC\\server\\share\\a.gpkg``).
- :func:`is_remote`: a path on another machine (a share, a network drive; on Linux an NFS, SMB
  or sshfs mount), where SQLite's WAL must not be used (its shared-memory index does not work
  across machines).
- :func:`check_path_length`: refuses a path Windows' classic limit (:data:`MAX_PATH`) would
  break, naming the limit.

Long paths, the choice: pygeodiff is always given the ``\\\\?\\`` form (it needs it for a share
anyway, and the form lifts the limit). SQLite's Windows build (``SQLITE_WIN32_MAX_PATH_CHARS``,
260), GDAL and the PDF writer are given plain paths, so a folder office whose deepest file
(``sites/<id>/history/.tmp-<id>-<seq>-<id>.geodiff``) would reach 260 characters is refused
before anything is written, with a message naming the limit
(:meth:`fieldapp.sync.office.FolderOffice.site_dir`), rather than failing half-way.
- :func:`safe_file_name`: a site name or other typed text made into a file or folder name
  Windows accepts (no reserved device names, no ``: * ? " < > | \\ /``, no control characters,
  no trailing dot or space), kept readable ("Łąka – Wisła" stays as it is);
  :func:`is_reserved_name` tells whether a name is one Windows reserves.
- :func:`can_write_file`, :func:`can_write_folder`: a real attempt (open for append, make and
  remove a temporary file), as ``os.access`` does not see Windows' access lists.
"""

from __future__ import annotations

import ntpath
import os
import posixpath
import re
import sys
import tempfile
import unicodedata
from typing import TypeAlias
from urllib.parse import quote

__all__ = ["StrPath", "WINDOWS", "MAX_PATH", "DRIVE_REMOTE", "REMOTE_FS_TYPES", "PathTooLong", "sqlite_uri",
           "long_path", "is_remote", "check_path_length", "safe_file_name", "is_reserved_name",
           "can_write_file", "can_write_folder"]

#: a path as the store and the sync take one: text or a ``pathlib.Path``
StrPath: TypeAlias = str | os.PathLike[str]
#: True on Windows: the default of every ``windows`` parameter here.
WINDOWS = os.name == "nt"
#: Windows' classic path limit (``MAX_PATH``, 260 UTF-16 units including the final NUL): a path
#: of 260 characters or more fails in programs (and libraries) that are not long-path aware.
MAX_PATH = 260
#: ``GetDriveTypeW``'s answer for a network drive.
DRIVE_REMOTE = 4
#: Linux file system types (``/proc/self/mounts``) that live on another machine.
REMOTE_FS_TYPES = frozenset({"nfs", "nfs4", "cifs", "smb3", "smbfs", "fuse.sshfs", "afs",
                             "ceph", "fuse.glusterfs"})
#: where Linux lists its mounts (a module constant so tests can point it at a file)
MOUNTS = "/proc/self/mounts"

_RESERVED = frozenset({"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"}
                      | {f"{dev}{n}" for dev in ("COM", "LPT") for n in "123456789\u00b9\u00b2\u00b3"})
_FORBIDDEN = re.compile(r'[<>:"/\\|?*\x00-\x1f\x7f]')


class PathTooLong(ValueError):
    """A path longer than Windows' :data:`MAX_PATH` where the product cannot use a long path."""


def _win(windows: bool | None) -> bool:
    return WINDOWS if windows is None else bool(windows)


def _strip_long_prefix(p: str) -> str:
    r"""``\\?\C:\x`` -> ``C:\x``; ``\\?\UNC\server\share`` -> ``\\server\share`` (Windows form)."""
    if p[:8].upper() == "\\\\?\\UNC\\":
        return "\\\\" + p[8:]
    if p.startswith("\\\\?\\") or p.startswith("\\\\.\\"):
        return p[4:]
    return p


def _win_abspath(path: StrPath) -> str:
    r"""The absolute Windows form of ``path`` (``\`` separators), without the ``\\?\`` prefix and
    without resolving a mapped drive to its share (``os.path.abspath``, never ``realpath``)."""
    p = _strip_long_prefix(os.fspath(path).replace("/", "\\"))
    return ntpath.abspath(p) if os.name == "nt" or ntpath.isabs(p) else ntpath.normpath(p)


def sqlite_uri(path: StrPath, *, windows: bool | None = None, **params: object) -> str:
    r"""The ``file:`` URI of ``path`` for ``sqlite3.connect(uri, uri=True)``, with ``params`` as
    its query (``mode="ro"``, ``immutable=1``; in the order given).

    >>> sqlite_uri(r"C:\x\v.gpkg", windows=True, mode="ro")
    'file:///C:/x/v.gpkg?mode=ro'
    >>> sqlite_uri(r"\\server\share\v.gpkg", windows=True)
    'file:////server/share/v.gpkg'
    >>> sqlite_uri("/data/a b#1?%.gpkg", windows=False, mode="ro", immutable=1)
    'file:///data/a%20b%231%3F%25.gpkg?mode=ro&immutable=1'

    Windows (SQLite's "URI filenames", §3.1): a drive path is ``file:///C:/...``, a share
    ``file:////server/share/...`` (the authority empty, the path ``//server/share/...``); the
    drive letter of a mapped drive is kept. Everything but RFC 3986's unreserved characters,
    ``/`` and ``:`` is percent-encoded as UTF-8, so ``%``, ``?``, ``#``, spaces and non-ASCII
    names ("Łąka") reach SQLite as they are. A relative path is made absolute against the
    current folder first.
    """
    if _win(windows):
        p = _win_abspath(path).replace("\\", "/")
        if not p.startswith("/"):   # C:/x -> /C:/x
            p = "/" + p
    else:
        p = posixpath.abspath(os.fspath(path))
        if p.startswith("//"):      # POSIX may keep a leading '//': never an authority
            p = "/" + p.lstrip("/")
    uri = "file://" + quote(p, safe="/:", encoding="utf-8")
    if params:
        uri += "?" + "&".join(f"{quote(str(k), safe='')}={quote(str(v), safe='')}"
                              for k, v in params.items())
    return uri


def long_path(path: StrPath, *, windows: bool | None = None) -> str:
    r"""``path`` in Windows' long-path form, for a library that opens files through Win32 and
    refuses a share or a path over :data:`MAX_PATH` (pygeodiff); unchanged (as ``str``) off
    Windows.

    >>> long_path(r"\\server\share\a.gpkg", windows=True)
    '\\\\?\\UNC\\server\\share\\a.gpkg'
    >>> long_path("C:/x/../y/a.gpkg", windows=True)
    '\\\\?\\C:\\y\\a.gpkg'
    >>> long_path("/tmp/a.gpkg", windows=False)
    '/tmp/a.gpkg'

    The path is made absolute and normalised first (the ``\\?\`` form turns off Windows' own
    normalisation: no ``/``, ``.`` or ``..`` may be left in it). A relative path that cannot be
    made absolute (a Windows path checked on Linux) is returned normalised, unprefixed.
    """
    if not _win(windows):
        return os.fspath(path)
    p = _win_abspath(path)
    if p.startswith("\\\\"):
        return "\\\\?\\UNC\\" + p[2:]
    if ntpath.isabs(p) and ntpath.splitdrive(p)[0]:
        return "\\\\?\\" + p
    return p


def _drive_type(root: str) -> int:
    """``GetDriveTypeW(root)`` (``root`` like ``N:\\``); 0 (unknown) off Windows."""
    if sys.platform != "win32":     # (os.name != "nt"; mypy reads this form per platform)
        return 0
    import ctypes

    return int(ctypes.windll.kernel32.GetDriveTypeW(ctypes.c_wchar_p(root)))


def _mounts() -> list[tuple[str, str]]:
    """``(mount point, file system type)`` of every mount Linux lists (none if unreadable)."""
    out = []
    try:
        with open(MOUNTS, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                parts = line.split()
                if len(parts) >= 3:   # the mount point's spaces etc. are octal escapes (\040)
                    point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), parts[1])
                    out.append((point, parts[2]))
    except OSError:
        pass
    return out


def is_remote(path: StrPath, *, windows: bool | None = None) -> bool:
    r"""True when ``path`` is on another machine: SQLite's WAL must not be used there.

    Windows: a share path (``\\server\share\...``, ``\\?\UNC\...``) or a drive whose
    ``GetDriveTypeW`` is :data:`DRIVE_REMOTE` (a mapped network drive). Linux: the file system
    holding ``path`` (or its nearest existing folder) is one of :data:`REMOTE_FS_TYPES` in
    ``/proc/self/mounts``. Never raises: what cannot be told counts as local.
    """
    if _win(windows):
        p = _win_abspath(path)
        if p.startswith("\\\\"):
            return True
        drive = ntpath.splitdrive(p)[0]
        if len(drive) == 2 and drive[1] == ":":
            try:
                return _drive_type(drive + "\\") == DRIVE_REMOTE
            except (OSError, AttributeError, ValueError):
                return False
        return False
    p = os.path.realpath(os.fspath(path))
    best, kind = "", ""
    for point, fstype in _mounts():
        inside = p == point or p.startswith(point.rstrip("/") + "/")
        if inside and len(point) >= len(best):
            best, kind = point, fstype
    return kind in REMOTE_FS_TYPES


def check_path_length(path: StrPath, what: str, *, windows: bool | None = None) -> None:
    r"""Refuse ``path`` when Windows' classic limit would break it: :class:`PathTooLong` naming
    ``what`` ("the office folder") and the limit when its absolute form has :data:`MAX_PATH`
    (260) characters or more; nothing off Windows.

    The product's own Python file work copes with long paths; SQLite, GDAL and the PDF writer
    are handed plain paths, so a path they may get is checked here before anything is written.
    """
    if not _win(windows):
        return
    p = _win_abspath(path)
    if len(p) >= MAX_PATH:
        raise PathTooLong(
            f"{what} is too deep for Windows: a path in it would be {len(p)} characters long,"
            f" over Windows' limit of {MAX_PATH - 1}. Nothing was written; move it to a shorter"
            r" folder (for example N:\fieldapp-office rather than deep inside the share)")


def is_reserved_name(name: str) -> bool:
    """True when Windows reserves ``name`` as a device (``CON``, ``PRN``, ``AUX``, ``NUL``,
    ``COM1``-``COM9``, ``LPT1``-``LPT9``, any case, with or without an extension, with spaces
    before the extension)."""
    base = name.split(".", 1)[0].rstrip(" ").upper()
    return base in _RESERVED


def safe_file_name(text: str, *, fallback: str = "visit", max_chars: int = 80,
                   max_bytes: int = 200) -> str:
    """``text`` (a site name, a name the user typed) as a file or folder name Windows accepts.

    >>> safe_file_name("Łąka – Wisła")
    'Łąka – Wisła'
    >>> safe_file_name("CON"), safe_file_name("lpt1.gpkg"), safe_file_name('a:b*c?"<>|/\\\\d. ')
    ('_CON', '_lpt1.gpkg', 'a_b_c_______d')
    >>> safe_file_name("  ...  ")
    'visit'

    ``: * ? " < > | \\ /`` and control characters become ``_``; leading and trailing spaces,
    and trailing dots, go (Windows drops them: ``site.`` and ``site`` would be one file); a
    reserved device name (:func:`is_reserved_name`) gets ``_`` in front; at most ``max_chars``
    characters (a path stays under :data:`MAX_PATH`) and ``max_bytes`` bytes in UTF-8 (Linux
    refuses a name over 255 bytes: 80 Chinese characters are 240, 80 emoji 320; 200 leaves room
    for a visit's ``_YYYY-MM-DD_HHMMSS.gpkg`` and SQLite's ``-journal``); empty -> ``fallback``.
    Other characters,
    letters of any script and dashes included, are kept (NFC-composed).
    """
    name = _FORBIDDEN.sub("_", unicodedata.normalize("NFC", str(text)))
    name = name.strip(" ").rstrip(". ")[:max_chars]
    while len(name.encode("utf-8", "surrogatepass")) > max_bytes:
        name = name[:-1]
    name = name.rstrip(". ")
    if not name.strip("_ ."):
        name = fallback
    if is_reserved_name(name):
        name = "_" + name
    return name


def can_write_file(path: StrPath) -> bool:
    """True when ``path`` (an existing file) can be opened for writing now: it is opened for
    append and closed, nothing written (its bytes and time stay). ``os.access`` does not see
    Windows' access lists; this does, and a file another program holds open without sharing."""
    try:
        fd = os.open(os.fspath(path), os.O_WRONLY | os.O_APPEND | getattr(os, "O_BINARY", 0))
    except OSError:
        return False
    os.close(fd)
    return True


def can_write_folder(folder: StrPath) -> bool:
    """True when a file can be made in ``folder`` now: a temporary file is made and removed."""
    try:
        fd, name = tempfile.mkstemp(prefix=".fieldapp-probe-", suffix=".tmp", dir=os.fspath(folder))
    except OSError:
        return False
    os.close(fd)
    try:
        os.unlink(name)
    except OSError:
        pass
    return True
