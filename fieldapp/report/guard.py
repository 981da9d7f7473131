"""Outputs never clobber a visit: shared by the report and the exports (plain Python, no Qt).

A report or an export reads one visit GeoPackage and writes other files. Whatever ``--force``
says, no file it writes may be

- the visit itself, by any name: the same path, a symbolic link to it, a hard link to it
  (``os.path.samefile``), or a path that resolves to it;
- one of the visit's SQLite sidecars (``-wal``, ``-shm``, ``-journal``): a stray file under
  such a name would be taken by SQLite for the visit's journal;
- any other fieldapp visit GeoPackage (``PRAGMA application_id`` is GeoPackage's and the file has
  fieldapp's metadata table, checked with :func:`fieldapp.store.inspect`), or a sidecar of one.

:func:`refuse_clobbering` raises the caller's own error class with a message naming the file;
:func:`refuse_existing` and :func:`output_folder` check the output place the same way for both
(an existing output without ``force``, a missing folder); :func:`os_error_words` words an
``OSError`` for the one-line CLI messages.

Files Windows holds open: a CSV open in Excel or a PDF open in a viewer cannot be replaced on
Windows (the program opened it without sharing; ``os.replace`` says "Access is denied"). Before
anything is written, :func:`refuse_held` tries to open each existing file the output is about to
replace for writing (nothing written) and refuses naming the file: "close tree.csv in the program
that has it open, then export again". :func:`held_words` words the same refusal for a replace
that fails later anyway (the file was opened between the check and the move). Off Windows a
file's being open never stops a replace, so nothing is tried there.
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypeAlias, TypeVar

__all__ = ["SIDECARS", "WINDOWS", "held_by_error", "held_file", "held_words", "is_visit_file", "os_error_words",
           "output_folder", "refuse_clobbering", "refuse_existing", "refuse_held"]

#: True on Windows, where a file another program holds open cannot be replaced (tests set it)
WINDOWS = os.name == "nt"
#: Windows' sharing and lock violations (``winerror``): another program has the file open
_HELD_WINERRORS = (32, 33)

#: SQLite's files beside a database (WAL, shared memory, rollback journal).
SIDECARS = ("-wal", "-shm", "-journal")
_SQLITE_MAGIC = b"SQLite format 3\x00"

#: a path as the callers give it (``str`` or ``pathlib.Path``)
StrPath: TypeAlias = "str | os.PathLike[str]"

_T = TypeVar("_T")


def _real(p: StrPath) -> str:
    return os.path.normcase(os.path.realpath(os.fspath(p)))


def _same_file(a: StrPath, b: StrPath) -> bool:
    """True when ``a`` and ``b`` name the same file: same inode (hard or symbolic links) or,
    when either does not exist yet, the same resolved path."""
    try:
        if os.path.samefile(a, b):
            return True
    except OSError:
        pass
    return _real(a) == _real(b)


def _guarded_names(visit_path: StrPath) -> list[tuple[str, str]]:
    """(name, what) of the visit and its sidecars, under the given name and the resolved one
    (SQLite names the sidecars after the resolved path of the database)."""
    bases = {os.path.abspath(os.fspath(visit_path)), os.path.realpath(os.fspath(visit_path))}
    return [(b + s, f"the visit's {s[1:]} sidecar" if s else "the visit file")
            for b in sorted(bases) for s in ("",) + SIDECARS]


def is_visit_file(path: StrPath) -> bool:
    """True if ``path`` is a fieldapp visit GeoPackage (also a damaged or newer one).

    GeoPackage's application id (``GPKG``, bytes 68..71 of the SQLite header) first, then
    :func:`fieldapp.store.inspect` tells ours from other GeoPackages; a file that is a
    GeoPackage but cannot be read well enough to tell counts as a visit (refusing is the safe
    side). Never raises; never changes the file.
    """
    from fieldapp.store import NotAVisitFile, StoreError, inspect
    from fieldapp.store.schema import APPLICATION_ID

    try:
        if not os.path.isfile(path):
            return False
        with open(path, "rb") as fh:
            head = fh.read(72)
    except OSError:
        return False
    if len(head) < 72 or not head.startswith(_SQLITE_MAGIC):
        return False
    if int.from_bytes(head[68:72], "big") != APPLICATION_ID:
        return False
    try:
        inspect(path)
    except NotAVisitFile:
        return False
    except (StoreError, OSError):
        return True
    return True


def _visit_or_sidecar_of_one(target: str) -> str | None:
    """The visit file ``target`` is, or is a sidecar of; None if neither."""
    if is_visit_file(target):
        return target
    for s in SIDECARS:
        if target.endswith(s) and is_visit_file(target[: -len(s)]):
            return target[: -len(s)]
    return None


def refuse_clobbering(visit_path: StrPath, targets: Iterable[StrPath], error: type[Exception]) -> None:
    """Raise ``error`` if writing any of ``targets`` would replace a visit (see module docstring).

    Parameters
    ----------
    visit_path : path-like
        The visit being read.
    targets : iterable of path-like
        Every file the caller is about to create or replace.
    error : exception class
        Raised with a one-line message naming the target (e.g. ``ReportRefused``).
    """
    guarded = _guarded_names(visit_path)
    for target in targets:
        t = os.fspath(target)
        for g, what in guarded:
            if _same_file(t, g):
                raise error(f"{t} is {what} ({visit_path}): refusing to write over it "
                            "(even with --force); choose another output")
        other = _visit_or_sidecar_of_one(t)
        if other is not None:
            what = "a fieldapp visit GeoPackage" if other == t else f"a sidecar of the visit {other}"
            raise error(f"{t} is {what}: refusing to write over it (even with --force); "
                        "choose another output")


def refuse_existing(out_path: Path, force: bool, error: type[Exception]) -> None:
    """Raise ``error`` ("OUT exists; use --force ...") when ``out_path`` exists and ``force`` is
    False; checked before anything is written and again just before the output is moved into
    place (it may have appeared meanwhile)."""
    if out_path.exists() and not force:
        raise error(f"{out_path} exists; use --force (force=True) to overwrite it")


def output_folder(out_path: Path, error: type[Exception]) -> Path:
    """The folder ``out_path`` is written in (``.`` for a bare file name); raise ``error``
    ("cannot write OUT: the folder ... does not exist") when there is no such folder."""
    folder = out_path.parent if str(out_path.parent) else Path(".")
    if not folder.is_dir():
        raise error(f"cannot write {out_path}: the folder {folder} does not exist")
    return folder


def _try_write_open(path: str) -> None:
    """Open ``path`` with the access replacing it needs and close it (nothing written):
    PermissionError / OSError with ``winerror`` 32 when Windows refuses, as it does for a file
    another program holds open without sharing (Excel's CSV, a viewer's PDF). On Windows that is
    ``CreateFile`` asking read, write and *delete* access (``os.replace`` over the file needs
    delete; a program sharing read and write but not delete passes a plain write open and
    still blocks the replace), sharing all; elsewhere a write open."""
    if sys.platform != "win32":
        with open(path, "r+b"):
            pass
        return
    import _winapi

    delete, share_all, normal = 0x00010000, 0x7, 0x80   # DELETE; FILE_SHARE_READ|WRITE|DELETE
    handle = _winapi.CreateFile(path, _winapi.GENERIC_READ | _winapi.GENERIC_WRITE | delete,
                                share_all, 0, _winapi.OPEN_EXISTING, normal, 0)
    _winapi.CloseHandle(handle)


def held_file(path: StrPath, *, windows: bool | None = None) -> str | None:
    """Why the existing file ``path`` cannot be replaced now, in words, or None.

    ``"held"``: another program has it open (Windows refused to open it for writing);
    ``"read-only"``: its read-only attribute is set. None for a missing path or a folder, and
    always off Windows (``windows`` default :data:`WINDOWS`), where neither stops a replace.
    Never raises; never changes the file.
    """
    if not (WINDOWS if windows is None else windows):
        return None
    p = os.fspath(path)
    if not os.path.isfile(p):
        return None
    if not os.access(p, os.W_OK):    # on Windows: the read-only attribute, exactly
        return "read-only"
    try:
        _try_write_open(p)
    except PermissionError:
        return "held"
    except OSError as exc:
        return "held" if getattr(exc, "winerror", None) in _HELD_WINERRORS else None
    return None


def held_words(path: StrPath, why: str, again: str) -> str:
    """The refusal for a file that cannot be replaced (``why`` from :func:`held_file`), naming
    it: "close tree.csv in the program that has it open, then export again"."""
    p = Path(path)
    if why == "read-only":
        return (f"{p} is read-only (the Read-only box of {p.name}'s Properties is ticked): untick"
                f" it or choose another name, then {again}")
    return f"{p} is open in another program: close {p.name} in the program that has it open, then {again}"


def refuse_held(targets: Iterable[StrPath], error: type[Exception], again: str, *,
                windows: bool | None = None) -> None:
    """Raise ``error`` ("close tree.csv in the program that has it open, then export again;
    nothing written") for the first of ``targets`` (files about to be replaced or removed) that
    cannot be replaced now (:func:`held_file`); call it before anything is written."""
    for t in targets:
        why = held_file(t, windows=windows)
        if why is not None:
            raise error(f"{held_words(t, why, again)}; nothing was written")


def held_by_error(exc: OSError, targets: Iterable[StrPath], *, windows: bool | None = None) -> str | None:
    """The one of ``targets`` an ``OSError`` of a replace or removal names when it says the
    file is held: Windows' sharing or lock violation (``winerror`` 32, 33), or on Windows
    (``windows``, default :data:`WINDOWS`) a PermissionError ("Access is denied", what
    ``os.replace`` says over a file open in Excel). None otherwise (off Windows a
    PermissionError is the folder's permissions, not a held file)."""
    windows = WINDOWS if windows is None else windows
    if not (getattr(exc, "winerror", None) in _HELD_WINERRORS
            or windows and isinstance(exc, PermissionError)):
        return None
    names = {os.path.normcase(os.path.abspath(os.fspath(t))): os.fspath(t) for t in targets}
    for f in (exc.filename2, exc.filename):
        if f is not None:
            hit = names.get(os.path.normcase(os.path.abspath(os.fspath(f))))
            if hit is not None:
                return hit
    return None


def os_error_words(exc: OSError) -> str:
    """One line for an OSError: why it failed (``strerror``), without temporary file names."""
    if exc.errno == errno.ENOSPC:
        return "the disk is full (no space left on the device)"
    return exc.strerror or str(exc) or type(exc).__name__


def run_office_command(prog: str, job: Callable[[], _T], *, exists: type[Exception],
                       expected: tuple[type[Exception], ...], nothing: str,
                       output: StrPath) -> tuple[int, _T | None]:
    """Run ``job()`` for an office command (``fieldapp report`` / ``fieldapp export``).

    Every failure becomes one line on stderr, never a traceback. Returns ``(status, value)``:
    ``(0, job())`` when it worked; 1 refused or failed; 130 interrupted (``value`` is None).
    ``exists`` is the "output exists" error (worded for the command line, without the Python
    ``force=True`` hint); ``expected`` the errors whose text is already user words; ``nothing``
    says what was not written (``"nothing written"``).
    """
    import logging

    try:
        return 0, job()
    except KeyboardInterrupt:
        print(f"{prog}: interrupted; {nothing}", file=sys.stderr)
        return 130, None
    except exists:
        print(f"{prog}: {output} exists; use --force to overwrite it", file=sys.stderr)
    except expected as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
    except OSError as exc:  # e.g. the visit cannot be read
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"{prog}: {where}{os_error_words(exc)}", file=sys.stderr)
    except Exception as exc:  # noqa: BLE001 - the office sees one line, never a traceback
        logging.getLogger(__name__).debug("%s failed", prog, exc_info=True)
        print(f"{prog}: failed ({type(exc).__name__}: {exc}); {nothing}", file=sys.stderr)
    return 1, None
