"""Bench-only start-up of the Windows python under wine, run by bench/bench_windows.py.

First the CI stage's harness start-up (``.ci/win/sitecustomize.py``: ``QT_*`` restored from
``FIELDAPP_WINE_QT_*``, pyserial's port lister stubbed, wine 8's ``CopyFile2``/symlink/
``CreateProcess`` limits), then what the benches need that Windows lacks: ``os.getloadavg``
(the benches print the machine's load beside each figure) reads the Linux host's
``/proc/loadavg`` through wine's ``Z:`` drive, which is the load to quote. With ``resource.py``
beside it (``ru_maxrss`` as the peak working set). And, where the stream bench reads COM
ports, wine 8's failed serial read at its timeout taken as Windows' empty read (below). Never
on the product's path.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from pathlib import Path
from typing import Any

_CI = Path(__file__).resolve().parents[2] / ".ci" / "win" / "sitecustomize.py"
_spec = importlib.util.spec_from_file_location("fieldapp_ci_win_sitecustomize", _CI)
if _spec is not None and _spec.loader is not None:
    _spec.loader.exec_module(importlib.util.module_from_spec(_spec))


def _host_loadavg() -> tuple[float, float, float]:
    """The Linux host's 1, 5 and 15 minute load (``Z:\\proc\\loadavg``).

    Raises:
        OSError: not under wine (no Linux ``/proc`` on the ``Z:`` drive).
    """
    one, five, fifteen = Path("Z:/proc/loadavg").read_text(encoding="ascii").split()[:3]
    return float(one), float(five), float(fifteen)


if os.name == "nt" and not hasattr(os, "getloadavg"):
    os.getloadavg = _host_loadavg

#: wine 8's error for a serial read that ended at its total timeout (ERROR_TIMEOUT)
_ERROR_TIMEOUT = 1460


def _serial_read_timeout_as_windows() -> None:
    """Under wine 8, an overlapped serial read that reaches its total timeout (COMMTIMEOUTS)
    fails in ``GetOverlappedResult`` with ERROR_TIMEOUT; on Windows it completes, with the
    bytes that came (none). (The read ends with STATUS_TIMEOUT, 0x102, an NT *success* status
    that Windows' ``GetOverlappedResult`` returns TRUE for; wine's kernelbase fails on any
    status but 0: ``return set_ntstatus( status )``.) pyserial then raises "GetOverlappedResult failed (... 1460)" where
    on Windows it returns ``b""``, and the app's reader reconnects (seen every few seconds at
    10 Hz with a 0.1 s read timeout: the GNSS cycle forgotten, fixes an epoch late, caliper and
    rangefinder readings lost). Here that failure is taken as Windows' completion.
    """
    win32: Any = importlib.import_module("serial.win32")  # (its stubs know no Windows calls)
    real = win32.GetOverlappedResult

    def get_overlapped_result(handle: Any, overlapped: Any, transferred: Any, wait: bool) -> int:
        ok: int = real(handle, overlapped, transferred, wait)
        if not ok and win32.GetLastError() == _ERROR_TIMEOUT:
            return 1
        return ok

    win32.GetOverlappedResult = get_overlapped_result


# only where the benches read COM ports (bench_windows.py --serial=com names them)
if os.name == "nt" and os.environ.get("FIELDAPP_BENCH_PORTS"):
    _serial_read_timeout_as_windows()
