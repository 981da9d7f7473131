"""Start time and live-view CPU on Linux and under Windows CPython in wine, side by side (issue 33).

``python bench/bench_windows.py [RUNS] [SECONDS] [--visit=PATH] [--bytecode]
[--only=startup|stream] [--serial=com|tcp] [--wine-dir=DIR]`` runs, on this Linux machine,
``bench/bench_ui_startup.py 1 --visit=... [--bytecode]`` (RUNS rounds) and
``bench/bench_ui_stream.py SECONDS`` (default 3 rounds, 30 s) with the same arguments natively
(this Python) and under wine with the Windows CPython 3.12 the CI stage uses (``.ci/windows``),
Linux then Windows. It prints each bench's own output, then the figures side by side with
Windows / Linux:

- window shown and usable, visit ready, first fix on screen (the visit given, or one recorded
  here by ``fieldapp --simulate``), the bare PySide6 + pyqtgraph window: seconds from the start
  of the bench's child script, as bench_ui_startup.py measures them; the median of RUNS rounds
  of ``bench_ui_startup.py 1`` (each its own warm-up and one run), Linux and Windows in turn so
  that the load of the shared machine hits both alike; and the interpreter's own start
  (``python -c pass``, median of RUNS), which that figure leaves out;
- the app's CPU while streaming at 10 Hz from the demo simulators (in another process), the
  bare window's, the map's draws and paints a second, the idle window, the fix-to-screen
  latency; plus, under wine, the CPU of the wineserver over the same streaming window: work
  done for the run's wine processes (the app's among them) that no Windows process's own CPU
  time counts.

The Windows app reads the simulators as a laptop reads a receiver: with ``--serial=com`` (the
default) the simulators run here on ptys as in the Linux run, and wine maps ``COM11``-``COM13``
of the prefix to those ptys (pyserial's Windows code opens them: ``CreateFile``, overlapped
``ReadFile``); with ``--serial=tcp`` the stream bench starts them itself under wine, where
Windows has no ptys, on ``socket://`` ports (as the CI stage's ``fieldapp --simulate`` does):
TCP, not the serial path, and the simulators' wine calls add to the wineserver's CPU.

**A relative figure only.** wine is not Windows: process creation, file and socket calls go
through wine's translation and its server, and the Linux run's Python may be another version.
Qt's platform is ``offscreen`` in both runs (under wine, Qt's native ``windows`` platform aborts:
exit status 3, no window; ``minimal`` shows and grabs a window as ``offscreen`` does, but the
benches ask for ``offscreen``): painting is software rendering into an image in both, and no GPU
or Windows compositor is measured. The QGIS reference exists only in the Linux run (PyQGIS is
Debian's; the Windows run has none). Quote ``uptime`` beside the figures: the machine is shared.

Wine set-up, as ``.ci/windows`` does it (see /work/shared/windows-under-wine.md): the wine
prefix and the Windows python are copied once from the CI stage's cache
(``~/.cache/fieldapp-ci/windows``, under its lock; run ``bash .ci/windows`` once if it is empty)
into DIR (default ``~/.cache/fieldapp-bench/windows``), so the bench never changes the CI
stage's cache; Xvfb, a persistent wineserver and ``wineboot`` are started first (their start is
in no figure) and ended at the end. The Windows python gets ``bench/wine`` (``os.getloadavg``,
``resource.getrusage`` for Windows; bench-only) and ``.ci/win`` (the CI harness start-up) on
``PYTHONPATH``.

Exit status 0 when both runs printed their figures; 1 (said which) otherwise.
"""

from __future__ import annotations

import ast
import fcntl
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CI_CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "fieldapp-ci" / "windows"
PYTHON_DIR = "python-3.12.9"
#: s: the bound on one bench run (the wine start-up runs take about 10 s each on 2 cores)
RUN_BOUND_S = 900

#: how the Windows app reads the simulators, by --serial
PORT_WORDS = {"com": "COM ports (wine maps them to the simulators' ptys)", "tcp": "socket:// ports"}
#: (label, bench, pattern of the figure in that bench's output, unit)
FIGURES: list[tuple[str, str, str, str]] = [
    ("interpreter start (python -c pass)", "python", r"^python -c pass: ([\d.]+)", "s"),
    ("bare PySide6+pyqtgraph window shown", "startup", r"^bare PySide6\+pyqtgraph window: ([\d.]+) s", "s"),
    ("fieldapp window shown, usable", "startup", r"^fieldapp window shown, usable[^:]*: ([\d.]+) s", "s"),
    ("fieldapp visit ready", "startup", r"^fieldapp visit ready[^:]*: ([\d.]+) s", "s"),
    ("fieldapp first fix on screen", "startup", r"^fieldapp first fix on screen[^:]*: ([\d.]+) s", "s"),
    ("fieldapp peak memory (RSS / working set)", "startup", r"^fieldapp peak RSS: ([\d.]+) MiB", "MiB"),
    ("live view: app CPU, % of a core", "stream", r"^CPU of the app's process ([\d.]+) %", "%"),
    ("live view: bare window CPU, % of a core", "stream",
     r"bare PySide6 \+ pyqtgraph window, one point at 10 Hz, same run: ([\d.]+) %", "%"),
    ("live view: QGIS GNSS canvas CPU (Linux only)", "stream", r"QGIS [^\n]*same run: ([\d.]+) %", "%"),
    ("live view: wineserver CPU (wine only)", "stream", r"^wineserver: ([\d.]+) %", "%"),
    ("map draws a second", "stream", r"^the map drew the position ([\d.]+) times", "/s"),
    ("map paints a second", "stream", r"^the map drew the position [\d.]+ times a second and painted ([\d.]+)", "/s"),
    ("idle window CPU, % of a core", "stream", r"^the same window idle[^:]*: ([\d.]+) %", "%"),
    ("fix-to-screen latency, median", "stream", r"^fix-to-screen latency: median ([\d.]+) ms", "ms"),
    ("fix-to-screen latency, p95", "stream", r"^fix-to-screen latency: [^\n]*p95 ([\d.]+) ms", "ms"),
]


def winpath(path: Path) -> str:
    """``/a/b`` as the Windows python names it through wine's ``Z:`` drive (``Z:\\a\\b``)."""
    return "Z:" + str(path).replace("/", "\\")


class Wine:
    """Xvfb, a persistent wineserver and the Windows python in a prefix of the bench's own.

    Raises (at construction):
        SystemExit: no wine, no Xvfb, no cached prefix or python to copy, or wine did not start.
    """

    def __init__(self, wine_dir: Path) -> None:
        self.wine = shutil.which("wine64") or ("/usr/lib/wine/wine64" if Path("/usr/lib/wine/wine64").exists() else "")
        self.server = ("/usr/lib/wine/wineserver64" if Path("/usr/lib/wine/wineserver64").exists()
                       else shutil.which("wineserver") or "")
        if not self.wine or not self.server or not shutil.which("Xvfb"):
            raise SystemExit("bench_windows: needs wine64, wineserver and Xvfb (run `bash .ci/windows` once:"
                             " it installs them)")
        self.dir = wine_dir
        self.prefix = wine_dir / "prefix"
        self.python = wine_dir / PYTHON_DIR / "python.exe"
        self._copy_from_ci_cache()
        self._display_file = wine_dir / "display"
        self._display_file.write_text("", encoding="ascii")
        with self._display_file.open("w", encoding="ascii") as display:
            self.xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(display.fileno()), "-screen", "0", "1280x1024x24",
                                          "-nolisten", "tcp"], pass_fds=(display.fileno(),),
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(100):
            if self._display_file.read_text(encoding="ascii").strip():
                break
            time.sleep(0.1)
        else:
            self.xvfb.kill()
            raise SystemExit("bench_windows: Xvfb did not start")
        display_no = ":" + self._display_file.read_text(encoding="ascii").strip()
        # wine drops QT_* from the Linux environment: FIELDAPP_WINE_QT_* is restored by
        # .ci/win/sitecustomize.py (run by bench/wine/sitecustomize.py); the rest of the Linux
        # environment stays out, as in the CI stage
        self.env = {"HOME": str(Path.home()), "USER": os.environ.get("USER", "root"), "PATH": "/usr/bin:/bin",
                    "LANG": "C.UTF-8", "DISPLAY": display_no, "WINEPREFIX": str(self.prefix),
                    "WINEDEBUG": "-all", "WINEDLLOVERRIDES": "mscoree,mshtml=", "WINESERVER": self.server,
                    "TZ": "UTC", "FIELDAPP_WINE_QT_QPA_PLATFORM": "offscreen",
                    "PYTHONPATH": ";".join(winpath(p) for p in (ROOT / "bench" / "wine", ROOT / ".ci" / "win", ROOT))}
        # bytecode as the Linux run has it (with PYTHONDONTWRITEBYTECODE in the shell, fieldapp
        # is compiled from source at every start in both runs; --bytecode: from bytecode in both)
        for name in ("PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED"):
            if os.environ.get(name):
                self.env[name] = os.environ[name]
        # the server and wine's services started now, their output nowhere: a service started
        # during a run would hold that run's output pipe open
        subprocess.run([self.server, "-p"], env=self.env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False)
        boot = subprocess.run([self.wine, "wineboot"], env=self.env, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, timeout=300)
        if boot.returncode != 0:
            self.close()
            raise SystemExit(f"bench_windows: wineboot failed (exit {boot.returncode}) in {self.prefix}")

    def _copy_from_ci_cache(self) -> None:
        """The CI stage's prefix and Windows python, copied once (under the stage's lock)."""
        if (self.prefix / ".fieldapp-ci-ok").exists() and self.python.exists():
            return
        if not ((CI_CACHE / "prefix" / ".fieldapp-ci-ok").exists() and (CI_CACHE / PYTHON_DIR / "python.exe").exists()):
            raise SystemExit(f"bench_windows: no wine prefix and Windows python in {CI_CACHE} to copy:"
                             " run `bash .ci/windows` once")
        print(f"bench_windows: copying the CI stage's wine prefix and Windows python into {self.dir} (once)",
              flush=True)
        self.dir.mkdir(parents=True, exist_ok=True)
        with (CI_CACHE / ".lock").open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)     # not while the CI stage changes them
            for name in ("prefix", PYTHON_DIR):
                shutil.rmtree(self.dir / name, ignore_errors=True)
                shutil.copytree(CI_CACHE / name, self.dir / name, symlinks=True)
        # the CI stage's UNC share and N: drive point into its own temp folders
        for link in ("n:", "unc"):
            target = self.prefix / "dosdevices" / link
            if target.is_symlink() or target.is_file():
                target.unlink()
            elif target.is_dir():
                shutil.rmtree(target)

    def python_cmd(self, *args: str) -> list[str]:
        """The command line running the Windows python with ``args``."""
        return [self.wine, str(self.python), *args]

    def server_pid(self) -> int | None:
        """The Linux process id of this prefix's wineserver, or None."""
        for proc in Path("/proc").glob("[0-9]*"):
            try:
                if Path(os.readlink(proc / "exe")).name.startswith("wineserver") and \
                        f"WINEPREFIX={self.prefix}".encode() in (proc / "environ").read_bytes().split(b"\0"):
                    return int(proc.name)
            except OSError:
                continue
        return None

    def close(self) -> None:
        """End this prefix's wine processes and Xvfb."""
        subprocess.run([self.server, "-k"], env=self.env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False, timeout=60)
        self.xvfb.terminate()
        self.xvfb.wait(30)


def cpu_s(pid: int) -> float:
    """CPU seconds (user + system) of Linux process ``pid`` so far.

    Raises:
        OSError: no such process.
    """
    fields = Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run(tag: str, cmd: list[str], env: dict[str, str], on_line: Callable[[str], None] | None = None) -> str:
    """Run ``cmd`` (its output through a pipe: the Windows python needs one), echo its output
    lines with ``tag`` (each also to ``on_line``, as it comes) and return the output ('\\r'
    dropped).

    Raises:
        SystemExit: the command ran past RUN_BOUND_S.
    """
    lines: list[str] = []
    proc = subprocess.Popen(cmd, env=env, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    assert proc.stdout is not None
    out = proc.stdout

    def read() -> None:
        for raw in out:
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            lines.append(line)
            if on_line:
                on_line(line)
            print(f"  [{tag}] {line}", flush=True)
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        proc.wait(RUN_BOUND_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise SystemExit(f"bench_windows: {tag}: still running after {RUN_BOUND_S} s, ended") from None
    # a Windows process started during the run (a wine service) may hold the pipe: 10 s, then
    # what arrived is all there is
    reader.join(10)
    if proc.returncode != 0:
        lines.append(f"(exit status {proc.returncode})")
    return "\n".join(lines)


def stream_sim_args() -> list[str]:
    """``SIM_ARGS`` of bench/bench_ui_stream.py (the demo simulators' flags), read from its source.

    Raises:
        SystemExit: the bench no longer sets SIM_ARGS to a literal.
    """
    tree = ast.parse((ROOT / "bench" / "bench_ui_stream.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "SIM_ARGS" for t in node.targets):
            return [str(a) for a in ast.literal_eval(node.value)]
    raise SystemExit("bench_windows: bench/bench_ui_stream.py sets no SIM_ARGS")


class ComPorts:
    """The demo simulators on ptys (this Linux Python, as in the Linux run), each behind a COM
    port of the wine prefix (``dosdevices/com11`` -> ``/dev/pts/N``): the Windows app opens
    ``COM11`` with pyserial's Windows code (``serialwin32``: ``CreateFile``, overlapped
    ``ReadFile``), as on a laptop with a USB or Bluetooth receiver, and the simulators' own CPU is
    no wine process's.

    Raises (at construction):
        SystemExit: the simulators did not start.
    """

    FIRST = 11

    def __init__(self, prefix: Path, seconds: float) -> None:
        self.sim = subprocess.Popen(
            [sys.executable, "-m", "devices.sim", *stream_sim_args(), "--no-links", "--duration", str(seconds + 300)],
            stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, cwd=ROOT)
        assert self.sim.stdout is not None
        self.links: list[Path] = []
        ports: list[str] = []
        while len(ports) < 3:
            line = self.sim.stdout.readline()
            if not line:
                self.close()
                raise SystemExit("bench_windows: the simulators did not start")
            m = re.match(r"(\w+)\s+(/dev/\S+)\s+\(kind \w+, protocol (\w+)\)", line)
            if m:
                com = f"com{self.FIRST + len(ports)}"
                link = prefix / "dosdevices" / com
                link.unlink(missing_ok=True)
                link.symlink_to(m.group(2))
                self.links.append(link)
                ports.append(f"{m.group(1)}={com.upper()}:{m.group(3)}")
        self.env_value = ";".join(ports)

    def close(self) -> None:
        """Stop the simulators, remove the COM links."""
        self.sim.terminate()
        self.sim.wait(30)
        for link in self.links:
            link.unlink(missing_ok=True)


class ServerCpu:
    """The wineserver's CPU over the stream bench's measured window, from outside (Linux /proc).

    Under Windows the stream bench prints its "QGIS reference: not run" line just before it
    starts its clock; the window is taken as that moment and ``seconds`` after it.
    """

    START = re.compile(r"^QGIS reference: not run")

    def __init__(self, pid: int | None, seconds: float) -> None:
        self.pid, self.seconds = pid, seconds
        self.start: tuple[float, float] | None = None
        self.figure: str = ""

    def on_line(self, line: str) -> None:
        if self.pid is None or self.start is not None or not self.START.match(line):
            return
        self.start = (time.monotonic(), cpu_s(self.pid))
        threading.Timer(self.seconds, self._end).start()

    def _end(self) -> None:
        assert self.pid is not None and self.start is not None
        try:
            t0, c0 = self.start
            pct = 100 * (cpu_s(self.pid) - c0) / (time.monotonic() - t0)
        except OSError:
            self.figure = "wineserver: not measured (it ended during the window)"
            return
        self.figure = (f"wineserver: {pct:.1f} % of one core over the {self.seconds:.0f} s streaming window"
                       " (its work for every wine process of the run: the app, the bare window and, with"
                       " --serial=tcp, the simulators)")

    def said(self) -> str:
        """The figure as a bench line, or why there is none."""
        if self.pid is None:
            return "wineserver: not measured (no wineserver process found for the prefix)"
        if self.start is None:
            return "wineserver: not measured (the stream bench printed no 'QGIS reference: not run' line)"
        return self.figure or "wineserver: not measured (the run ended before the window did)"


def interpreter_start(cmd: list[str], env: dict[str, str], runs: int) -> str:
    """``python -c pass`` wall time, median of ``runs`` after one warm-up, as a bench line."""
    times = []
    for k in range(runs + 1):
        t0 = time.perf_counter()
        subprocess.run([*cmd, "-c", "pass"], env=env, cwd=ROOT, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=True, timeout=300)
        if k:
            times.append(time.perf_counter() - t0)
    return f"python -c pass: {statistics.median(times):.3f} s (median of {runs})"


def figure(text: str, pattern: str) -> float | None:
    """The median of the figure over every time ``text`` prints it (one a round), or None."""
    found = [float(v) for v in re.findall(pattern, text, re.MULTILINE)]
    return statistics.median(found) if found else None


def cell(value: float | None, unit: str) -> str:
    """A figure in its unit for the table ('-' when not printed)."""
    if value is None:
        return "-"
    return f"{value:.3f} {unit}" if unit == "s" else f"{value:.1f} {unit}"


def record_visit(tmp: Path) -> Path:
    """A visit with a track, recorded by ``fieldapp --simulate`` (5 s) on Linux.

    Raises:
        SystemExit: the simulated run failed.
    """
    visit = tmp / "bench-visit.gpkg"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", FIELDAPP_CONFIG_DIR=str(tmp), FIELDAPP_DATA_DIR=str(tmp))
    done = subprocess.run([sys.executable, "-m", "fieldapp", "--simulate", "--quit-after", "5", "--visit", str(visit)],
                          env=env, cwd=ROOT, capture_output=True, text=True, timeout=300)
    if done.returncode != 0 or not visit.exists():
        raise SystemExit("bench_windows: could not record a visit with fieldapp --simulate:"
                         f" {done.stdout}{done.stderr}")
    return visit


def main() -> int:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    opts = {a[2:].partition("=")[0]: a[2:].partition("=")[2] for a in sys.argv[1:] if a.startswith("--")}
    runs = args[0] if args else "3"
    bytecode = ["--bytecode"] if "bytecode" in opts else []
    seconds = args[1] if len(args) > 1 else "30"
    only = opts.get("only", "")
    serial = opts.get("serial") or "com"
    if serial not in ("com", "tcp"):
        raise SystemExit(f"bench_windows: --serial={serial}: com or tcp")
    if only not in ("", "startup", "stream"):
        raise SystemExit(f"bench_windows: --only={only}: startup or stream")
    wine_dir = Path(opts.get("wine-dir") or Path.home() / ".cache" / "fieldapp-bench" / "windows")
    tmp = Path(tempfile.mkdtemp(prefix="bench-windows-"))
    outputs: dict[tuple[str, str], str] = {}
    print(f"uptime: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}", flush=True)
    wine = Wine(wine_dir)
    try:
        linux_env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
        linux_py = [sys.executable]
        win_py = wine.python_cmd()
        outputs["linux", "python"] = interpreter_start(linux_py, linux_env, int(runs))
        outputs["windows", "python"] = interpreter_start(win_py, wine.env, int(runs))
        if only in ("", "startup"):
            visit = Path(opts["visit"]) if opts.get("visit") else record_visit(tmp)
            copies = {side: tmp / f"{side}-{visit.name}" for side in ("linux", "windows")}
            for copy in copies.values():                # each side opens its own copy
                shutil.copyfile(visit, copy)
            startup = {"linux": ([*linux_py, "bench/bench_ui_startup.py", "1", f"--visit={copies['linux']}",
                                  *bytecode], linux_env),
                       "windows": ([*win_py, "bench\\bench_ui_startup.py", "1",
                                    f"--visit={winpath(copies['windows'])}", *bytecode], wine.env)}
            # RUNS rounds, Linux and Windows in turn: the machine's load (shared) hits both alike
            for k in range(int(runs)):
                for side, (cmd, env) in startup.items():
                    said = run(f"{side} startup {k + 1}/{runs}", cmd, env)
                    outputs[side, "startup"] = outputs.get((side, "startup"), "") + said + "\n"
        if only in ("", "stream"):
            outputs["linux", "stream"] = run("linux stream", [*linux_py, "bench/bench_ui_stream.py", seconds],
                                             linux_env)
            server = ServerCpu(wine.server_pid(), float(seconds))
            com = ComPorts(wine.prefix, float(seconds)) if serial == "com" else None
            env = dict(wine.env, FIELDAPP_BENCH_PORTS=com.env_value) if com else wine.env
            try:
                outputs["windows", "stream"] = run("windows stream", [*win_py, "bench\\bench_ui_stream.py", seconds],
                                                   env, on_line=server.on_line) + "\n" + server.said()
            finally:
                if com:
                    com.close()
    finally:
        wine.close()
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"\nuptime: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")
    wine_version = subprocess.run([wine.wine, "--version"], capture_output=True, text=True).stdout.strip()
    print(f"Windows CPython 3.12.9 under {wine_version}"
          f" (QT_QPA_PLATFORM=offscreen) beside Linux {sys.version.split()[0]}, same machine, one after the other;"
          f" startup: median of {runs} rounds, stream: {seconds} s with the Windows app on"
          f" {PORT_WORDS[serial]}."
          " A relative figure only (wine is not Windows).")
    print(f"{'figure':46s} {'Linux':>10s} {'Windows':>10s} {'Win/Linux':>9s}")
    missing = []
    for label, bench, pattern, unit in FIGURES:
        if only and bench not in (only, "python"):
            continue
        lin = figure(outputs.get(("linux", bench), ""), pattern)
        win = figure(outputs.get(("windows", bench), ""), pattern)
        if lin is None and win is None:
            if "only" not in label:
                missing.append(label)
            continue
        ratio = f"{win / lin:.2f}" if lin and win is not None else "-"
        print(f"{label:46s} {cell(lin, unit):>10s} {cell(win, unit):>10s} {ratio:>9s}")
    if missing:
        print(f"not printed by a run: {'; '.join(missing)} (see that run's output above)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
