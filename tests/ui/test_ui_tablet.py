"""The window on a Windows tablet (issue 28): at 1280 x 720 and 1024 x 600 logical px, with a
device-pixel ratio of 1.5 and 2, everything a crew needs is reachable.

Offscreen Qt takes the device-pixel ratio from ``QT_SCALE_FACTOR`` once, before the
QApplication exists, so each ratio is checked by ``tests/ui/tablet_sizes.py`` in a pytest
process of its own.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("scale", ["1.5", "2"])
def test_main_window_fits_a_tablet_at_each_scale(scale, tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", QT_SCALE_FACTOR=scale,
               FIELDAPP_CONFIG_DIR=str(tmp_path / "cfg"))
    env.pop("FIELDAPP_TABLET_SHOTS", None)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "tests/ui/tablet_sizes.py"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-6000:]
    assert "1 passed" in out, out[-3000:]          # run, not skipped
