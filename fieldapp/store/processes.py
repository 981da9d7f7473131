"""Whether a process still runs on this computer: for a lock or a working folder whose maker may
have been killed (the office lock, ``--adopt-copy``'s working folders, an export's temporary
folder)."""

from __future__ import annotations

import os
import sys


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
