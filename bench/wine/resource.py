"""Bench-only stand-in for POSIX ``resource`` in Windows python under wine (bench/bench_windows.py).

Windows has no ``resource`` module; ``bench/bench_ui_startup.py`` reads only
``getrusage(RUSAGE_SELF).ru_maxrss`` (KiB on Linux). Here that is the process's peak working set
(``GetProcessMemoryInfo``'s ``PeakWorkingSetSize``, bytes, given in KiB): the Windows figure
nearest to Linux's peak resident set. Never on the product's path: only bench_windows.py puts
``bench/wine`` on ``PYTHONPATH``, and only for the Windows python.
"""

from __future__ import annotations

import ctypes
from ctypes import wintypes
from typing import NamedTuple

RUSAGE_SELF = 0


class _Counters(ctypes.Structure):
    _fields_ = [("cb", wintypes.DWORD), ("PageFaultCount", wintypes.DWORD),
                ("PeakWorkingSetSize", ctypes.c_size_t), ("WorkingSetSize", ctypes.c_size_t),
                ("QuotaPeakPagedPoolUsage", ctypes.c_size_t), ("QuotaPagedPoolUsage", ctypes.c_size_t),
                ("QuotaPeakNonPagedPoolUsage", ctypes.c_size_t),
                ("QuotaNonPagedPoolUsage", ctypes.c_size_t), ("PagefileUsage", ctypes.c_size_t),
                ("PeakPagefileUsage", ctypes.c_size_t)]


class Usage(NamedTuple):
    """The one field the benches read."""

    ru_maxrss: float  # KiB, peak working set


def getrusage(who: int) -> Usage:
    """This process's peak working set in KiB; ``who`` must be :data:`RUSAGE_SELF`.

    Raises:
        ValueError: ``who`` is not RUSAGE_SELF.
        OSError: Windows refused the query.
    """
    if who != RUSAGE_SELF:
        raise ValueError("only RUSAGE_SELF is known here")
    counters = _Counters()
    counters.cb = ctypes.sizeof(counters)
    kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)  # type: ignore[attr-defined,unused-ignore]
    kernel32.GetCurrentProcess.restype = wintypes.HANDLE
    kernel32.K32GetProcessMemoryInfo.argtypes = [wintypes.HANDLE, ctypes.POINTER(_Counters), wintypes.DWORD]
    kernel32.K32GetProcessMemoryInfo.restype = wintypes.BOOL
    if not kernel32.K32GetProcessMemoryInfo(kernel32.GetCurrentProcess(), ctypes.byref(counters),
                                            counters.cb):
        raise ctypes.WinError(ctypes.get_last_error())  # type: ignore[attr-defined,unused-ignore]
    return Usage(counters.PeakWorkingSetSize / 1024)
