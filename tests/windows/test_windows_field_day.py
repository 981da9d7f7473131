"""A field day on Windows CPython, end to end (issue 28, "CI proves it"): a new visit is made,
fixes are recorded into it, it is exported, and it is synced to a folder office on a mapped
network drive and on a UNC path; a site named "Łąka – Wisła" goes through the CLI with the
console on code page 1252; an export over a CSV that another program holds open (share mode 0,
as Excel does) is refused before anything is written.

.ci/windows runs these under Windows CPython (wine) and says where the network office is:
``FIELDAPP_WIN_MAPPED`` (e.g. ``N:\\office``) and ``FIELDAPP_WIN_UNC`` (e.g.
``\\\\fieldserver\\share\\office``); under ``CI=true`` on Windows a missing one FAILS. On Linux
the Windows-only tests skip (the reason is stated) and the rest run as they are.
"""

from __future__ import annotations

import csv
import os
import shutil
import sqlite3
import subprocess
import sys
import uuid
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

WINDOWS = os.name == "nt"
UNDER_CI = os.environ.get("CI", "").lower() in ("true", "1", "yes")
needs_windows = pytest.mark.skipif(
    not WINDOWS, reason="Windows only (drive letters, UNC paths, share modes): .ci/windows runs it"
                        " under Windows CPython")

T0 = datetime(2026, 6, 3, 15, 0, tzinfo=UTC)
FIXES = 5
SITE_NAME = "Łąka – Wisła"


@dataclass(frozen=True)
class Fix:
    """A receiver fix as :mod:`devices` delivers it (RTK fixed, 2 cm)."""
    lat_deg: float
    lon_deg: float
    time_utc: datetime
    quality: int = 4
    sats_used: int = 14
    hdop: float = 0.7
    horizontal_accuracy_m: float = 0.02
    vertical_accuracy_m: float | None = 0.03
    alt_hae_m: float = 251.0


def record_visit(path: Path, name: str = "Mill Creek lot", note: str | None = None) -> None:
    """A new visit at ``path`` (the app layer's :func:`open_visit`), FIXES fixes 1 s and about
    1.1 m apart recorded into its track and one tree stood at the last fix (and ``note`` there,
    when given); closed."""
    from fieldapp.app.lines import add_note_here
    from fieldapp.app.visit import open_visit

    vc = open_visit(path, name=name, crs="EPSG:32616", crew="crew@laptop-a")
    try:
        vc.model.start_track()
        fixes = [Fix(45.0 + i * 1e-5, -87.0, T0 + timedelta(seconds=i)) for i in range(FIXES)]
        for fix in fixes:
            vc.on_fix(fix)
        vc.add_tree(fixes[-1], dbh_in=14.5, species_code="ACSA")
        if note is not None:
            add_note_here(vc, note, fixes[-1])
    finally:
        vc.close()


def log_tail(lines: int = 40) -> str:
    """The end of the tests' fieldapp.log (tests/conftest.py's FIELDAPP_LOG_DIR): a failed
    command's traceback, which its console shows as one line."""
    log = Path(os.environ.get("FIELDAPP_LOG_DIR", ".")) / "fieldapp.log"
    return "\n".join(log.read_text(encoding="utf-8").splitlines()[-lines:]) if log.is_file() else ""


def rows(gpkg: Path, table: str) -> int:
    with closing(sqlite3.connect(gpkg)) as conn:
        return conn.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]


def run_cli(*args, encoding_env: dict | None = None) -> subprocess.CompletedProcess:
    """``python -m fieldapp ARGS`` with stdout/stderr as pipes (bytes); the environment less
    PYTHONUTF8 / PYTHONIOENCODING, plus ``encoding_env``."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONUTF8", "PYTHONIOENCODING")}
    env.update(encoding_env or {})
    return subprocess.run([sys.executable, "-m", "fieldapp", *map(str, args)], capture_output=True,
                          env=env, timeout=300, cwd=Path(__file__).resolve().parents[2])


# ---------------------------------------------------------------- new visit, export, sync
def field_day(laptop: Path, office_root: Path) -> None:
    """Record a visit on the laptop, export it as CSV, sync it to the office at
    ``office_root`` (a new folder office), and check a second laptop out of it."""
    from fieldapp.export import main as export_main
    from fieldapp.sync import FolderOffice, checkout
    from fieldapp.sync.cli import main as sync_main
    from fieldapp.sync.engine import site_id_of

    visit = laptop / "mill_creek.gpkg"
    record_visit(visit)
    assert rows(visit, "track_point") == FIXES and rows(visit, "tree") == 1

    out = laptop / "csv"
    assert export_main([str(visit), "--format", "csv", "-o", str(out)]) == 0
    with open(out / "track_point.csv", newline="", encoding="utf-8") as fh:
        assert len(list(csv.DictReader(fh))) == FIXES
    with open(out / "tree.csv", newline="", encoding="utf-8") as fh:
        (tree,) = csv.DictReader(fh)
    assert float(tree["dbh_in"]) == 14.5 and tree["species_code"] == "ACSA"

    assert sync_main(["--init-office", "--office", str(office_root), "-q", str(visit)]) == 0
    site_id = site_id_of(visit)
    office = FolderOffice(office_root)
    master = office.master_path(site_id)
    # the office keeps the path as given (a UNC path stays \\server\share\..., N: stays N:)
    assert str(master).lower().startswith(str(office_root).lower())
    assert rows(master, "track_point") == FIXES and rows(master, "tree") == 1
    copy_b = checkout(office, site_id, laptop / "laptop_b.gpkg")
    assert rows(copy_b, "tree") == 1 and rows(copy_b, "track_point") == FIXES
    # a second sync of the first laptop has nothing to send and still succeeds
    assert sync_main(["--office", str(office_root), "-q", str(visit)]) == 0


def test_field_day_with_a_local_office(tmp_path):
    field_day(tmp_path / "laptop", tmp_path / "office")


def network_office(variable: str) -> Path:
    """A fresh office folder under the network path the harness gave in ``variable``."""
    root = os.environ.get(variable)
    if not root:
        if UNDER_CI:
            pytest.fail(f"{variable} is not set: .ci/windows sets it to the network office to test")
        pytest.skip(f"{variable} is not set (a network folder, e.g. N:\\office or \\\\server\\share\\office)")
    return Path(root) / f"run-{uuid.uuid4().hex[:8]}"


@needs_windows
@pytest.mark.parametrize("variable", ["FIELDAPP_WIN_MAPPED", "FIELDAPP_WIN_UNC"],
                         ids=["mapped-drive", "unc-path"])
def test_field_day_with_an_office_on_the_network(tmp_path, variable):
    office_root = network_office(variable)
    office_root.parent.mkdir(parents=True, exist_ok=True)
    try:
        field_day(tmp_path / "laptop", office_root)
    finally:
        shutil.rmtree(office_root, ignore_errors=True)


# ---------------------------------------------------------------- code page 1252
def cp1252_console() -> dict:
    """Environment for a child whose stdout is a pipe in code page 1252: Windows' own when its
    ANSI code page is 1252 (English and Western European Windows); else, and on Linux, told so."""
    if WINDOWS:
        import locale

        if locale.getencoding() == "cp1252":
            return {}
    return {"PYTHONIOENCODING": "cp1252"}


#: a note with letters and signs cp1252 lacks (ą, ł, ≥, −, σ)
NOTE = "skarpa ≥ 30 % – źródło pod olchą, σ −0,2 m"


def test_site_named_with_polish_letters_through_the_cli_on_code_page_1252(tmp_path):
    env = cp1252_console()
    probe = subprocess.run([sys.executable, "-c", "import sys; print(sys.stdout.encoding)"],
                           capture_output=True, env={**os.environ, **env}, timeout=60)
    assert probe.stdout.decode().strip() == "cp1252"   # the premise: a cp1252 pipe

    folder = tmp_path / SITE_NAME
    folder.mkdir()
    visit = folder / f"{SITE_NAME}.gpkg"
    record_visit(visit, name=SITE_NAME, note=NOTE)
    office = tmp_path / f"biuro {SITE_NAME}"
    for args in (["sync", "--init-office", "--office", office, visit],
                 ["sync", "--office", office, "--list"],
                 ["export", visit, "--format", "csv", "-o", folder / "csv"],
                 ["export", visit, "--format", "kml", "-o", folder / f"{SITE_NAME}.kml"]):
        r = run_cli(*args, encoding_env=env)
        err = r.stderr.decode("cp1252", "replace")
        assert r.returncode == 0 and "Traceback" not in err, (args, err, log_tail())
        out = r.stdout.decode("cp1252")  # strict: the console reads every byte as cp1252
        assert "Traceback" not in out, (args, out)
    assert "Wis" in out or "Wis" in run_cli("sync", "--office", office, "--list",
                                            encoding_env=env).stdout.decode("cp1252")
    # the names and the note are kept whole in the files (UTF-8), whatever the console showed
    from fieldapp.sync import FolderOffice
    from fieldapp.sync.engine import site_id_of

    master = FolderOffice(office).master_path(site_id_of(visit))
    assert rows(master, "track_point") == FIXES
    assert NOTE in (folder / f"{SITE_NAME}.kml").read_text(encoding="utf-8")
    with open(folder / "csv" / "note.csv", newline="", encoding="utf-8") as fh:
        assert [row["text"] for row in csv.DictReader(fh)] == [NOTE]


# ---------------------------------------------------------------- a CSV open in Excel
HOLDER = r"""
import ctypes, sys
from ctypes import wintypes
k32 = ctypes.WinDLL("kernel32", use_last_error=True)
k32.CreateFileW.restype = wintypes.HANDLE
k32.CreateFileW.argtypes = [wintypes.LPCWSTR, wintypes.DWORD, wintypes.DWORD, wintypes.LPVOID,
                            wintypes.DWORD, wintypes.DWORD, wintypes.HANDLE]
GENERIC_READ, GENERIC_WRITE, OPEN_EXISTING = 0x80000000, 0x40000000, 3
h = k32.CreateFileW(sys.argv[1], GENERIC_READ | GENERIC_WRITE, 0, None, OPEN_EXISTING, 0x80, None)
if h in (None, wintypes.HANDLE(-1).value):
    print("error", ctypes.get_last_error(), flush=True)
    sys.exit(1)
print("held", flush=True)
sys.stdin.readline()
"""


def snapshot(folder: Path) -> dict:
    return {p.name: (p.read_bytes() if p.is_file() else None, p.stat().st_mtime_ns)
            for p in sorted(folder.iterdir())}


@needs_windows
def test_export_over_a_csv_open_in_another_program_is_refused_before_writing(tmp_path, capsys):
    from fieldapp.export import main as export_main

    visit = tmp_path / "visit.gpkg"
    record_visit(visit)
    out = tmp_path / "csv"
    assert export_main([str(visit), "--format", "csv", "-o", str(out)]) == 0
    # a newer visit, so a second export would change the files
    from fieldapp.app.visit import open_visit

    vc = open_visit(visit)
    try:
        vc.model.start_track()
        vc.on_fix(Fix(45.001, -87.0, T0 + timedelta(minutes=5)))
    finally:
        vc.close()
    names = sorted(p.name for p in out.iterdir())
    # the LAST file written: a check file by file would have replaced the others by then
    held = out / sorted(n for n in names if n.endswith(".csv"))[-1]
    before, beside = snapshot(out), sorted(p.name for p in tmp_path.iterdir())
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(held)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(OSError):   # the premise: Windows refuses a second writer
            open(held, "r+b").close()
        rc = export_main([str(visit), "--format", "csv", "-o", str(out), "--force"])
    finally:
        holder.communicate("\n", timeout=60)
    assert rc == 1
    assert f"close {held.name} in the program that has it open" in capsys.readouterr().err
    assert snapshot(out) == before                          # not one file replaced
    assert sorted(p.name for p in tmp_path.iterdir()) == beside   # no temporary folder left
