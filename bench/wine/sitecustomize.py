"""Bench-only start-up of the Windows python under wine, run by bench/bench_windows.py.

First the CI stage's harness start-up (``.ci/win/sitecustomize.py``: ``QT_*`` restored from
``FIELDAPP_WINE_QT_*``, pyserial's port lister stubbed, wine 8's ``CopyFile2``/symlink/
``CreateProcess`` limits), then what the benches need that Windows lacks: ``os.getloadavg``
(the benches print the machine's load beside each figure) reads the Linux host's
``/proc/loadavg`` through wine's ``Z:`` drive, which is the load to quote. With ``resource.py``
beside it (``ru_maxrss`` as the peak working set). Never on the product's path.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

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
