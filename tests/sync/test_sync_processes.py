"""One check of whether a process still runs, for the office lock, adopt and export folders."""

from __future__ import annotations

import os
import subprocess
import sys

from fieldapp.store.processes import pid_alive


def test_this_process_runs_a_reaped_child_does_not_and_no_pid_is_no_process():
    assert pid_alive(os.getpid())
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert not pid_alive(child.pid)
    assert not pid_alive(0) and not pid_alive(-5)
