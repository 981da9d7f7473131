"""Convert a folder office of format 1 (``sites/<site id>/``, the lock inside) to format 2
(``sites/<site name>/`` with ``site-id`` inside, the lock in ``locks/<id>``): ``fieldapp sync
--office PATH --upgrade-office`` (issue 35 item 15).

The order keeps every laptop safe at every moment, whatever fieldapp it runs:

1. Under each site's format-1 lock (``sites/<id>/lock``, the one every laptop takes in a
   format-1 office) its id is written into its folder (``site-id``), durably. Nothing else
   changes: a format-1 laptop ignores the file.
2. The marker ``fieldapp-office.json`` is written as format 2, durably, with
   ``"converting_from": 1``. From here a laptop on a fieldapp that knows only format 1 refuses
   the office ("format version 2, newer than this fieldapp understands (1); update fieldapp")
   before it locks or writes anything, instead of making a renamed site again; a format-2
   laptop finds each site by the id inside its folder, whatever the folder is called.
3. Each site folder still named by its id is renamed after the site, holding both its locks
   (``locks/<id>``: format-2 laptops; ``sites/<id>/lock``: a sync begun before step 2 is
   waited for). One folder rename: the site is in its old folder or its new one, never half
   moved, never in two. A rename Windows refuses (a file in the folder open in QGIS or
   Explorer on another computer) leaves that site where it is, says so, and the conversion
   goes on with the others; the office syncs meanwhile.
4. When no folder is left to rename, the marker is written last, durably, without
   ``converting_from``. A run that stopped anywhere (killed, a refused rename) is finished by
   running ``--upgrade-office`` again: every step is done again or skipped as done.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

from fieldapp.store.durable import fsync_dir
from fieldapp.sync import sitefolders
from fieldapp.sync.errors import OfficeLocked, SyncError
from fieldapp.sync.files import replace_durably, temp_path_for
from fieldapp.sync.office import DEEPEST, OFFICE_FORMAT, OFFICE_MARKER, FolderOffice
from fieldapp.sync.officestore import LockOwner, check_site_id

__all__ = ["CONVERTER", "Conversion", "convert_office"]

#: the "laptop" a conversion's lock files name (a waiting laptop's message shows it)
CONVERTER = "office conversion (fieldapp sync --upgrade-office)"
#: the marker key saying a conversion was begun and is not finished
CONVERTING_KEY = "converting_from"


@dataclass
class Conversion:
    """What :func:`convert_office` did: sites moved ``(id, name, folder)``, sites left where
    they are ``(id, name, why in field words)``, and whether the office is now format 2 with
    every folder named by its site."""

    office: str
    moved: list[tuple[str, str, str]] = field(default_factory=list)
    left: list[tuple[str, str, str]] = field(default_factory=list)
    was_format: int = 1

    @property
    def done(self) -> bool:
        return not self.left

    def format(self) -> str:
        """The lines the command prints (the left sites first, each with what to do)."""
        lines = [f"site {name or site_id} stays in sites/{site_id}: {why}" for site_id, name, why in self.left]
        lines += [f"site {name} ({site_id}) moved to sites/{folder}" for site_id, name, folder in self.moved]
        if self.left:
            lines.append(f"{self.office}: {len(self.left)} site folder(s) not renamed yet; the office"
                         " syncs as it is meanwhile. Run fieldapp sync --office PATH --upgrade-office"
                         " again to finish")
        elif self.moved or self.was_format < 2:
            lines.append(f"{self.office} is up to date: site folders named by the site (format 2);"
                         " laptops on an older fieldapp must be updated before they sync")
        else:
            lines.append(f"{self.office} is up to date: site folders are named by the site (format 2)")
        return "\n".join(lines)


def _marker(office: FolderOffice) -> dict[str, object]:
    office.check_available()                 # exists, is an office, format not newer than ours
    data = json.loads((office.root / OFFICE_MARKER).read_text(encoding="utf-8"))
    return dict(data)


def _write_marker(office: FolderOffice, data: dict[str, object]) -> None:
    marker = office.root / OFFICE_MARKER
    temp = temp_path_for(marker)
    temp.write_text(json.dumps(data), encoding="utf-8")
    replace_durably(temp, marker)


class _Gone(Exception):
    """The site folder to lock is no longer there (another run of the conversion renamed it)."""


@contextlib.contextmanager
def _locked(office: FolderOffice, path: Path, owner: LockOwner, wait_s: float,
            where: Callable[[], Path] | None = None) -> Iterator[None]:
    """Hold the lock file ``path`` as :meth:`FolderOffice.lock` does (a stale one broken, a live
    one waited for ``wait_s``); released at ``where()`` (the folder may have moved meanwhile).

    Raises :class:`OfficeLocked` naming who holds it when it stays held."""
    deadline = time.monotonic() + wait_s
    payload = json.dumps(asdict(owner)).encode()
    while True:
        if path.parent.name == "locks":
            path.parent.mkdir(exist_ok=True)
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileNotFoundError:       # a site folder another run renamed: never made again
            raise _Gone(path.parent) from None
        except FileExistsError:
            info = office._read_lock(path)
            if info is None:
                continue
            if office._is_stale(path, info):
                office._break(path, info)
                continue
            if time.monotonic() >= deadline:
                raise OfficeLocked(
                    f"a laptop is syncing ({info.get('host', '?')}, pid {info.get('pid', '?')},"
                    f" since {info.get('started_utc', '?')}); nothing more was converted. Run"
                    " --upgrade-office again when it has finished") from None
            time.sleep(0.1)
            continue
        try:
            os.write(fd, payload)
            os.fsync(fd)
        finally:
            os.close(fd)
        break
    try:
        yield
    finally:
        held = where() if where is not None else path
        info = office._read_lock(held)
        if info and info.get("token") == owner.token:
            held.unlink(missing_ok=True)


def _id_folders(sites: Path) -> list[Path]:
    """The folders under ``sites`` laid out by format 1: named by a valid site id, holding a
    master, and no other site's id inside (their own id written or not)."""
    out = []
    for entry in sorted(sites.iterdir()) if sites.is_dir() else []:
        if entry.is_symlink() or not entry.is_dir() or not (entry / "master.gpkg").is_file():
            continue
        try:
            check_site_id(entry.name)
        except ValueError:
            continue
        if sitefolders.read_site_id(entry) in (None, entry.name):
            out.append(entry)
    return out


def _write_site_id(folder: Path, site_id: str) -> None:
    if sitefolders.read_site_id(folder) == site_id:
        return
    path = folder / sitefolders.SITE_ID_FILE
    temp = temp_path_for(path)
    temp.write_text(site_id + "\n", encoding="utf-8")
    replace_durably(temp, path)


def _rename_to_free_name(sites: Path, folder: Path, site_name: str) -> Path:
    """Rename ``folder`` to the free folder name of ``site_name`` (``Name (2)``... when taken,
    also in another case) in one ``os.rename``; never onto another folder. Raises ``OSError``
    when the system refuses (Windows: a file in it is open), the folder unchanged."""
    room = sitefolders.room_for_name(sites, DEEPEST)
    taken = {p.name.casefold() for p in sites.iterdir()}
    for n in range(1, 1000):
        suffix = "" if n == 1 else f" ({n})"
        target = sites / (sitefolders.folder_name(site_name, max(8, room) - len(suffix)) + suffix)
        if target.name.casefold() in taken:
            continue
        if os.name == "nt":
            try:
                os.rename(folder, target)       # Windows refuses an existing target
            except FileExistsError:
                continue
        else:
            try:
                os.mkdir(target)                # the name reserved: a new site cannot take it
            except FileExistsError:
                continue
            try:
                os.rename(folder, target)       # replaces the empty folder just made
            except BaseException:
                with contextlib.suppress(OSError):
                    target.rmdir()
                raise
        fsync_dir(sites)
        return target
    raise SyncError(f"no free folder name for site {site_name!r} in {sites}")


def _remove_own_stale_locks(office: FolderOffice, sites: Path) -> None:
    """Remove the lock files a killed conversion left: in ``locks/`` (a laptop on another
    computer would wait ten minutes for them) and in renamed folders (no format-2 laptop reads
    them). Only its own, and only when their process is gone."""
    folders = sorted(sites.iterdir()) if sites.is_dir() else []
    locks = office.root / "locks"
    held = sorted(locks.iterdir()) if locks.is_dir() and not locks.is_symlink() else []
    for lock in [entry / "lock" for entry in folders if entry.is_dir() and not entry.is_symlink()] + held:
        if lock.is_symlink() or not lock.is_file():
            continue
        info = office._read_lock(lock)
        if info and info.get("laptop_id") == CONVERTER and office._is_stale(lock, info):
            lock.unlink(missing_ok=True)


def _why(exc: OSError) -> str:
    """Why a rename was refused, in field words, with what to do."""
    if isinstance(exc, PermissionError) or getattr(exc, "winerror", None) in (5, 32, 33):
        return ("a file in its folder is open (QGIS, a file manager or a laptop on another computer?)."
                " Close it and run --upgrade-office again")
    return f"the folder could not be renamed ({exc.strerror or exc}). Run --upgrade-office again"


def _rename_site(office: FolderOffice, folder: Path, owner: LockOwner, wait_s: float,
                 report: Conversion) -> None:
    """Step 3 for one site folder named by its id: under both its locks, its id written inside
    (a site a format-1 laptop made during step 1), the folder renamed after the site; the
    outcome added to ``report`` (moved, or left with why)."""
    site_id = folder.name
    where = [folder]
    with _locked(office, office.root / "locks" / site_id, owner, wait_s), \
            _locked(office, folder / "lock", owner, wait_s, where=lambda: where[0] / "lock"):
        if folder not in _id_folders(folder.parent):    # renamed meanwhile by another run
            return
        _write_site_id(folder, site_id)
        name = sitefolders.site_name_in(folder / "master.gpkg")
        if sitefolders.folder_name(name) == site_id:     # its name is its id: named already
            return
        if not name.strip():
            report.left.append((site_id, "", "its name cannot be read from its master"
                                " (damaged?); it syncs by its id"))
            return
        try:
            where[0] = _rename_to_free_name(office.root / "sites", folder, name)
        except OSError as exc:
            report.left.append((site_id, name, _why(exc)))
            return
    report.moved.append((site_id, name, where[0].name))


def convert_office(office: FolderOffice, *, wait_s: float = 10.0,
                   progress: Callable[[str], None] | None = None) -> Conversion:
    """Convert ``office`` to format 2 (this module's steps 1-4); a format-2 office is finished
    or left as it is. Returns what was done; a site whose folder could not be renamed is in
    :attr:`Conversion.left`, with the marker's ``converting_from`` kept for the next run.

    Raises :class:`~fieldapp.sync.errors.OfficeNotFound` or
    :class:`~fieldapp.sync.errors.InvalidOfficeData` (a missing office, a newer format),
    :class:`OfficeLocked` when a laptop's sync holds a site longer than ``wait_s`` seconds
    (what was converted stays so; the next run goes on)."""
    say = progress or (lambda _line: None)
    data = _marker(office)
    report = Conversion(office.describe(), was_format=int(str(data.get("version", 1))))
    sites = office.root / "sites"
    owner = LockOwner.here(CONVERTER)
    if report.was_format < 2:
        for folder in _id_folders(sites):                                   # step 1
            with contextlib.suppress(_Gone), _locked(office, folder / "lock", owner, wait_s):
                _write_site_id(folder, folder.name)
                say(f"site {folder.name}: its id written in its folder")
        _write_marker(office, {**OFFICE_FORMAT, CONVERTING_KEY: 1})          # step 2
        say("office marked format 2: laptops on an older fieldapp now refuse it")
    for folder in _id_folders(sites):                                       # step 3
        with contextlib.suppress(_Gone):
            _rename_site(office, folder, owner, wait_s, report)
        if report.moved and report.moved[-1][0] == folder.name:
            say(f"site {report.moved[-1][1]} moved to sites/{report.moved[-1][2]}")
    _remove_own_stale_locks(office, sites)
    with contextlib.suppress(OSError):
        (office.root / "locks").rmdir()                 # empty: no laptop is syncing
    if not report.left and CONVERTING_KEY in _marker(office):               # step 4
        _write_marker(office, dict(OFFICE_FORMAT))
    return report
