"""A plain clone without the shared test data (issue 35 item 17): its tests skip and the run
ends saying so loudly, with where the data comes from; under CI they fail instead."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: one test of the shared data (a Masser caliper export from ../shared/data/devices)
SHARED_TEST = "tests/devices/test_caliper.py::test_masser_export"


def run_pytest(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items()
             if k not in ("CI", "FIELDAPP_CI", "PYTEST_XDIST_WORKER", "PYTEST_ADDOPTS")}
    clean.update(FIELDAPP_SHARED=str(tmp_path / "no-shared-here"), **env)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "no:xdist", SHARED_TEST], cwd=REPO, env=clean,
                          capture_output=True, text=True, encoding="utf-8", timeout=300)


def test_missing_shared_data_skips_loudly_with_where_it_comes_from(tmp_path):
    run = run_pytest(tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 skipped" in run.stdout
    assert "1 tests SKIPPED: shared test data missing" in run.stdout
    assert str(tmp_path / "no-shared-here") in run.stdout
    assert "FIELDAPP_SHARED" in run.stdout and "Shared test data" in run.stdout


def test_missing_shared_data_fails_under_ci(tmp_path):
    for env in ({"CI": "true"}, {"FIELDAPP_CI": "1"}):
        run = run_pytest(tmp_path, **env)
        assert run.returncode == 1, (env, run.stdout + run.stderr)
        assert "1 error" in run.stdout and "CI must have it" in run.stdout, env


def test_ci_script_runs_the_tests_as_ci():
    assert "export FIELDAPP_CI=1" in (REPO / ".ci" / "run").read_text(encoding="utf-8")


def test_readme_says_where_the_shared_data_comes_from():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "### Shared test data" in readme
    assert "FIELDAPP_SHARED" in readme and "SOURCES.md" in readme
