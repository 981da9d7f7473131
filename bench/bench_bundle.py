"""Benchmark of the installable app (issue 9): bundle size and start time beside the source install.

    python bench/bench_bundle.py                  # measure dist/fieldapp (build it first if absent)
    python bench/bench_bundle.py --build          # build a fresh bundle into a temp folder first
    python bench/bench_bundle.py --archive        # also the size of the .tar.gz a crew downloads

Figures printed:

- bundle size on disk (target <= 250 MB) and its biggest parts;
- start time: wall time from launch to exit of ``fieldapp --quit-after 0`` (window built and
  shown, event loop entered once, window closed), headless, no devices -- the bundled executable
  beside ``python -m fieldapp`` from this checkout; first run (cold caches) and the median of the
  rest. The app exits 1 here (no fixes arrive in 0 s), which is expected;
- the same for an office subcommand (``fieldapp rules evaluate``), which never loads Qt.

Needs PyInstaller in this environment for ``--build`` (``pip install -e '.[test]'``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EXE_NAME = "fieldapp.exe" if sys.platform.startswith("win") else "fieldapp"
CLI_NAME = "fieldapp-cli.exe" if sys.platform.startswith("win") else "fieldapp"  # console twin
TARGET_MB = 250.0


def headless_env(root: Path) -> dict[str, str]:
    """Qt offscreen; HOME, XDG folders and the visit folder under ``root``; no FIELDAPP_* settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("FIELDAPP_")}
    home = root / "home"
    for name, folder in {
        "HOME": home,
        "XDG_CONFIG_HOME": home / ".config",
        "XDG_DATA_HOME": home / ".local" / "share",
        "XDG_CACHE_HOME": home / ".cache",
        "XDG_RUNTIME_DIR": root / "runtime",
    }.items():
        folder.mkdir(parents=True, exist_ok=True)
        env[name] = str(folder)
    os.chmod(root / "runtime", 0o700)
    env["QT_QPA_PLATFORM"] = "offscreen"
    return env


def build(dist: Path, work: Path) -> Path:
    """Build the bundle from packaging/fieldapp.spec into ``dist``; return its folder."""
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "ERROR",
         "--distpath", str(dist), "--workpath", str(work), str(REPO / "packaging" / "fieldapp.spec")],
        cwd=REPO, check=True,
    )
    print(f"build: {time.perf_counter() - started:.0f} s")
    return dist / "fieldapp"


def tree_bytes(path: Path) -> int:
    """Bytes of the regular files under ``path`` (links not followed, each file counted once)."""
    if path.is_symlink():
        return 0  # PyInstaller links some libraries into place; the target is counted
    if path.is_file():
        return path.stat().st_size
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            file = Path(root, name)
            if not file.is_symlink():
                total += file.stat().st_size
    return total


def report_size(bundle: Path, archive: bool) -> None:
    total_mb = tree_bytes(bundle) / 1e6
    verdict = "within" if total_mb <= TARGET_MB else "OVER"
    print(f"\nbundle size: {total_mb:.1f} MB on disk ({verdict} the {TARGET_MB:.0f} MB target)")
    internal = bundle / "_internal"
    parts: dict[str, int] = {}
    for entry in internal.iterdir():
        # Group the wheels' vendored-library folders (numpy.libs ...) with their package.
        key = entry.name.removesuffix(".libs") if entry.is_dir() else "(shared libraries)" \
            if ".so" in entry.name or entry.suffix in (".dll", ".dylib") else "(other files)"
        parts[key] = parts.get(key, 0) + tree_bytes(entry)
    for name in bundle.iterdir():
        if name.name != "_internal":
            parts["(executable, desktop files)"] = parts.get("(executable, desktop files)", 0) + tree_bytes(name)
    print("biggest parts (MB):")
    for name, size in sorted(parts.items(), key=lambda kv: -kv[1])[:12]:
        print(f"  {size / 1e6:7.1f}  {name}")
    if archive:
        with tempfile.TemporaryDirectory() as tmp:
            target = Path(tmp) / "fieldapp.tar.gz"
            with tarfile.open(target, "w:gz", compresslevel=6) as tar:
                tar.add(bundle, arcname="fieldapp")
            print(f"download (.tar.gz, gzip -6): {target.stat().st_size / 1e6:.1f} MB")


def time_runs(command: list[str], env: dict[str, str], runs: int, expect: str | None) -> list[float]:
    """Wall seconds of ``runs`` launches of ``command``; raises if ``expect`` is not in the output."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
        times.append(time.perf_counter() - started)
        if expect is not None and expect not in done.stdout + done.stderr:
            raise RuntimeError(f"{command[0]} did not get as far as {expect!r}:\n"
                               f"{(done.stdout + done.stderr)[-3000:]}")
    return times


def describe(times: list[float]) -> str:
    rest = times[1:] or times
    return f"first {times[0]:.2f} s, median of next {len(rest)} {statistics.median(rest):.2f} s"


def report_start(bundle: Path, runs: int) -> None:
    exe = bundle / EXE_NAME
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        env = headless_env(root)
        visit = root / "bench.gpkg"
        app_args = ["--quit-after", "0", "--no-settings-file", "--visit", str(visit)]
        request = root / "request.json"
        request.write_text(json.dumps([{"rule": "nr341.graded_area",
                                        "input": {"horizontal_area_sqft": 8000.0, "slope_pct": 75.0}}]))
        rules_args = ["rules", "evaluate", str(request)]
        # The app prints "fieldapp: N fixes received, M records stored -> ..." when --quit-after fires.
        rows = [
            ("app, bundle", [str(exe), *app_args], "fixes received"),
            ("app, source", [sys.executable, "-m", "fieldapp", *app_args], "fixes received"),
            ("rules evaluate, bundle", [str(bundle / CLI_NAME), *rules_args], "surface_area_sqft"),
            ("rules evaluate, source", [sys.executable, "-m", "fieldapp", *rules_args], "surface_area_sqft"),
        ]
        print(f"\nstart to exit, headless, {runs} runs each:")
        for label, command, expect in rows:
            print(f"  {label:24s} {describe(time_runs(command, env, runs, expect))}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=Path, default=REPO / "dist" / "fieldapp",
                        help="the one-folder bundle to measure (default dist/fieldapp)")
    parser.add_argument("--build", action="store_true", help="build a fresh bundle into a temp folder")
    parser.add_argument("--runs", type=int, default=5, help="launches per start-time figure")
    parser.add_argument("--archive", action="store_true", help="also measure the .tar.gz size")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="fieldapp-bench-") as tmp:
        bundle = args.bundle
        if args.build or not (bundle / EXE_NAME).is_file():
            bundle = build(Path(tmp) / "dist", Path(tmp) / "work")
        report_size(bundle, args.archive)
        report_start(bundle, args.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
