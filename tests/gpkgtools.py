"""Test helpers for GeoPackage files: a plain sqlite3 connection with the ST_ functions the
R-tree triggers call (as GDAL and QGIS register them), and GDAL's validator."""

from __future__ import annotations

import os
import sqlite3
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from fieldapp.store.spatial import register_st_functions

#: GDAL's GeoPackage validator (Debian python3-gdal), run with the system Python.
VALIDATOR = Path("/usr/lib/python3/dist-packages/osgeo_utils/samples/validate_gpkg.py")
SYSTEM_PYTHON = Path("/usr/bin/python3")


def st_connect(*args, **kwargs) -> sqlite3.Connection:
    """``sqlite3.connect(*args, **kwargs)`` with ST_IsEmpty, ST_MinX ... registered."""
    return register_st_functions(sqlite3.connect(*args, **kwargs))


def validate_gpkg(path: Path) -> None:
    """Run GDAL's ``validate_gpkg.py`` on ``path``; fail with its output unless it passes.

    Without the validator the test skips, except under CI (``CI=true``), where it fails: CI
    installs python3-gdal (``.ci/run``). On Windows it skips (the Linux stage validates).
    """
    if os.name == "nt":  # (under wine the Linux paths resolve through Z:, but that is no Windows test)
        pytest.skip("GDAL's GeoPackage validator is Debian's python3-gdal: the Linux stage of .ci/run"
                    " validates this file; everything before this point in the test passed on Windows")
    if not (VALIDATOR.is_file() and SYSTEM_PYTHON.is_file()):
        msg = f"GDAL's GeoPackage validator is missing ({VALIDATOR}; apt-get install python3-gdal)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(msg)
        pytest.skip(msg)
    run = subprocess.run([str(SYSTEM_PYTHON), str(VALIDATOR), str(path)], capture_output=True, text=True,
                         timeout=600, env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert run.returncode == 0, f"validate_gpkg.py {path}: {run.stdout}{run.stderr}"


def need_debian_gdal_tool(available: Callable[[], bool], what: str) -> None:
    """Skip (with ``what`` said) when a Debian GDAL tool is missing, except under CI on Linux,
    where it fails: ``.ci/run`` installs python3-gdal and gdal-bin. On Windows it skips before
    ``available`` is asked (it may run a Linux program): the Linux stage runs it."""
    if os.name == "nt":
        pytest.skip(f"{what} is Debian's: the Linux stage of .ci/run runs this check")
    if not available():
        msg = f"{what} is missing (apt-get install python3-gdal gdal-bin)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(msg)
        pytest.skip(msg)


def drop_added_after(path: Path, version: int) -> None:
    """Make ``path`` (a new visit, nothing in the later tables) what schema ``version`` wrote as far
    as the versions after it go: their tables (R-tree index, GeoPackage rows) and appended
    columns dropped, newest first, per :data:`fieldapp.store.schema.ADDED_TABLES` /
    ``ADDED_COLUMNS``; the file's schema_version set to ``version``."""
    from fieldapp.store import schema as S

    conn = st_connect(path)
    try:
        for v in sorted({*S.ADDED_TABLES, *S.ADDED_COLUMNS}, reverse=True):
            if v <= version:
                continue
            for layer, col in reversed(S.ADDED_COLUMNS.get(v, ())):
                conn.execute(f'ALTER TABLE "{layer.value}" DROP COLUMN "{col}"')
            for layer in S.ADDED_TABLES.get(v, ()):
                t = layer.value
                conn.execute(f'DROP TABLE IF EXISTS "rtree_{t}_geom"')
                conn.execute(f'DROP TABLE "{t}"')
                for meta in ("gpkg_extensions", "gpkg_geometry_columns", "gpkg_contents"):
                    conn.execute(f"DELETE FROM {meta} WHERE table_name = ?", (t,))
        conn.execute("UPDATE fieldapp_meta SET value = ? WHERE key = 'schema_version'", (str(version),))
        conn.commit()
    finally:
        conn.close()
