"""Whether a process still runs on this computer: for a lock or a working folder whose maker may
have been killed (the office lock, ``--adopt-copy``'s working folders, an export's temporary
folder)."""

from __future__ import annotations

import os
import re
import sys
import time


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` runs on this computer; never signals it. True when it cannot be
    told (e.g. another user's process on Windows): a live run's files are never taken as dead."""
    if pid <= 0:
        return False
    if sys.platform == "win32":     # os.kill(pid, 0) would end the process on Windows
        import ctypes

        k = ctypes.windll.kernel32
        h = k.OpenProcess(0x1000, False, pid)   # PROCESS_QUERY_LIMITED_INFORMATION
        if not h:
            return k.GetLastError() != 87          # ERROR_INVALID_PARAMETER: no such process
        try:
            code = ctypes.c_ulong()
            return not k.GetExitCodeProcess(h, ctypes.byref(code)) or code.value == 259  # STILL_ACTIVE
        finally:
            k.CloseHandle(h)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def stale_entries(folder: str | os.PathLike[str], pattern: re.Pattern[str], *, folders: bool,
                  hours: float) -> list[os.DirEntry[str]]:
    """The entries of ``folder`` a killed run left: the name matches ``pattern`` whole (its
    group 1, when it matched, the maker's pid), a folder (``folders``) or a regular file, never a
    link, and either its maker gone (:func:`pid_alive`; never this process) or last changed over
    ``hours`` ago. Used for a killed export's folders and a killed creation's files. An
    unreadable folder gives none; nothing is removed here."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    stale = []
    for e in entries:
        m = pattern.fullmatch(e.name)
        if m is None or e.is_symlink():
            continue
        if not (e.is_dir(follow_symlinks=False) if folders else e.is_file(follow_symlinks=False)):
            continue
        try:
            old = time.time() - e.stat(follow_symlinks=False).st_mtime > hours * 3600
        except OSError:
            continue
        pid = m.group(1)
        if old or (pid is not None and int(pid) != os.getpid() and not pid_alive(int(pid))):
            stale.append(e)
    return stale
