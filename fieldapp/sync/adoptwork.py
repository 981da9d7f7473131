"""Where ``--adopt-copy COPY NEW`` may write, and its working folder beside ``NEW``.

An adoption works in ``.NEW.<host>.<pid>.adopting/`` beside ``NEW`` (the copy's snapshot, the
checked-out laptop copy, its ``.sync`` folder: a few times the visit's size). A run killed
(SIGKILL, a power cut) leaves it behind; :func:`clear_stale` removes such folders of any NEW in
that folder, on the next adoption there, when their run is gone: this computer's (same host
name) with no process of that pid, or older than :data:`STALE_HOURS` (a run on another laptop
writing to a shared folder, or one of an older fieldapp, named ``.NEW.adopting``).
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import time
from pathlib import Path

from fieldapp.store.processes import pid_alive
from fieldapp.sync.errors import SyncError
from fieldapp.sync.officestore import OfficeStore

#: A working folder older than this (hours) is a dead run's whoever made it.
STALE_HOURS = 6

_NAME = re.compile(r"\.(?P<new>.+?)(?:\.(?P<host>[A-Za-z0-9-]+)\.(?P<pid>\d+))?\.adopting")


def _host() -> str:
    return re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname())[:63] or "host"


def work_folder(new: Path) -> Path:
    """This run's working folder for ``NEW``: ``.NEW.<host>.<pid>.adopting`` beside it."""
    return new.with_name(f".{new.name}.{_host()}.{os.getpid()}.adopting")


def clear_stale(folder: Path) -> list[Path]:
    """Remove the working folders dead adoptions left in ``folder`` (module docstring): a
    folder, not a link, named ``.NAME.<host>.<pid>.adopting`` of this host whose process is
    gone, or any ``.NAME[.<host>.<pid>].adopting`` older than :data:`STALE_HOURS`. Nothing else
    is touched; one that cannot be removed is left. Returns those removed."""
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    host, me = _host(), os.getpid()
    for e in entries:
        m = _NAME.fullmatch(e.name)
        if m is None or e.is_symlink() or not e.is_dir(follow_symlinks=False):
            continue
        try:
            old = time.time() - e.stat(follow_symlinks=False).st_mtime > STALE_HOURS * 3600
        except OSError:
            continue
        pid = int(m["pid"]) if m["pid"] else None
        dead = m["host"] == host and pid is not None and pid != me and not pid_alive(pid)
        if old or dead:
            shutil.rmtree(e.path, ignore_errors=True)
            if not os.path.exists(e.path):
                removed.append(Path(e.path))
    return removed


def check_new_place(office: OfficeStore, new: Path) -> None:
    """Refuse a ``NEW`` that cannot or must not be written, before anything is made: its folder
    missing, or inside the office folder (beside the site masters, where a laptop copy would be
    taken for office files).

    Raises :class:`SyncError` in words."""
    folder = new.parent
    if not folder.is_dir():
        raise SyncError(f"cannot make {new.name}: the folder {folder} for {new.name} does not exist"
                        " (or is not a folder); nothing was made")
    root = getattr(office, "root", None)
    if root is None:
        return
    root = Path(root).resolve()
    where = folder.resolve()
    if where == root or root in where.parents:
        raise SyncError(f"{new} is inside the office folder {root}: a laptop copy is kept outside it"
                        " (on the laptop); give NEW a place outside the office folder. Nothing was made")
