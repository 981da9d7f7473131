"""Harness-only start-up of the Windows python that .ci/windows runs under wine 8.

Never part of the product: it lives in .ci/win/, which only the Windows stage puts on PYTHONPATH.
It undoes what wine does to the environment and stands in for Windows APIs that wine 8 lacks
or gets wrong (see /work/shared/windows-under-wine.md), so the tests see a Windows that behaves:

- ``FIELDAPP_WINE_QT_*`` -> ``QT_*``: wine drops ``QT_*`` variables on the way in.
- ``serial.tools.list_ports_windows``: pyserial's module fails to import under wine (no
  ``CM_MapCrToWin32Err`` in wine's cfgmgr32); a stub that lists no serial ports stands in.
- ``_winapi.CopyFile2`` (``shutil.copy2`` / ``copytree`` in 3.12): aborts the interpreter under
  wine 8; removed, so shutil takes its portable copy path (as on a Windows before 3.12).
- ``os.symlink``: wine 8's ``CreateSymbolicLinkW`` reports success and creates nothing; here it
  fails as on a Windows account without the symlink privilege (WinError 1314), which the tests
  must handle anyway.
- ``subprocess`` process creation: wine's ``CreateProcess`` now and then fails with WinError 1359
  ("Internal error") under load (seen once in a sync test's child); tried again, up to 3 times
  with a short pause, so the stage does not fail by chance. Windows itself does not do this.
"""

import os
import sys
import types

if os.name == "nt":
    _PREFIX = "FIELDAPP_WINE_QT_"
    for _name, _value in list(os.environ.items()):
        if _name.upper().startswith(_PREFIX):
            os.environ["QT_" + _name[len(_PREFIX):]] = _value

    _ports = types.ModuleType("serial.tools.list_ports_windows")
    _ports.__doc__ = "wine harness stub: no serial ports (pyserial's module needs cfgmgr32 calls wine lacks)"
    _ports.comports = lambda include_links=False: []
    _ports.iterate_comports = lambda: iter(())
    sys.modules["serial.tools.list_ports_windows"] = _ports

    import _winapi

    if hasattr(_winapi, "CopyFile2"):
        del _winapi.CopyFile2

    def _symlink(src, dst, target_is_directory=False, *, dir_fd=None):
        """wine 8 cannot make symlinks: fail like Windows without the symlink privilege."""
        err = OSError(22, "A required privilege is not held by the client", str(src), 1314, str(dst))
        raise err

    os.symlink = _symlink

    import time

    _create_process = _winapi.CreateProcess

    def _create_process_again(*args):
        """wine's CreateProcess "Internal error" (1359) is passing: try again (3 times at most).
        At this level (not Popen's): the child's pipe handles are still open for the retry."""
        for attempt in range(3):
            try:
                return _create_process(*args)
            except OSError as exc:
                if getattr(exc, "winerror", None) != 1359 or attempt == 2:
                    raise
                time.sleep(0.5 * (attempt + 1))

    _winapi.CreateProcess = _create_process_again
