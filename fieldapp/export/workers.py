"""Every format at once in worker processes, and the temporary folders of killed exports.

GDAL holds the GIL while pyogrio writes a layer and the formats are independent, so ``export
--format all`` of a big visit (a day's 288,000 fixes) writes them in ``spawn`` worker processes
(``python -m fieldapp.export.workers JOB``, a fresh interpreter: no fork, as on Windows), the
layers passed once through a pickle file in the export's temporary folder. Progress and cancel
stay with the caller: its ``step`` is called while waiting
and whatever it raises (the app's cancel) stops the workers; the first format that fails stops
the others and its error is raised as if written in-process. Nothing is moved into place here.

An export writes into ``.OUT.<pid>.<random>.tmp`` beside OUT; one killed (power cut, SIGKILL)
leaves it behind. :func:`clear_stale` removes such folders of OUT whose process is gone (or
that are older than :data:`STALE_HOURS`) before the next export of OUT.
"""

from __future__ import annotations

import errno
import io
import os
import pickle
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from fieldapp.store.processes import stale_entries

if TYPE_CHECKING:
    from fieldapp.export.dxf import DxfTitle
    from fieldapp.export.model import _LayerData
    from fieldapp.geo import SiteFrame
    from fieldapp.report.guard import StrPath

__all__ = ["PARALLEL_MIN_FEATURES", "STALE_HOURS", "Spare", "clear_stale", "prestart", "tmp_prefix",
           "use_workers", "write_in_workers"]

#: below this many features in all (a visit without a long track) the formats are written
#: in-process: starting a worker costs more than it saves
PARALLEL_MIN_FEATURES = 50_000
#: a visit file this big likely has that many (a day's track is ~ 70 MB): its workers are
#: started before it is read
PRESTART_BYTES = 16 * 1024 * 1024
#: at most this many worker processes (each holds the visit's layers: ~150 MB for a day)
MAX_WORKERS = 3
#: a temporary folder this old is a killed export's even if its process number is in use again
STALE_HOURS = 6
#: the longest first, so that two workers finish together (CPU seconds for a day's visit, each
#: format written alone in one process, issue 33: DXF saved from templates, the GeoPackage's
#: track through Arrow, KML layers smallest first)
_COST = {"dxf": 3.9, "geojson": 3.1, "csv": 2.5, "shp": 1.9, "kml": 1.3, "gpkg": 1.0}
_PICKLE = ".layers.pickle"


def use_workers(layers: list[_LayerData], formats: tuple[str, ...]) -> bool:
    """Whether ``formats`` of ``layers`` are worth writing in worker processes."""
    return (len(formats) > 1 and (os.cpu_count() or 1) >= 2
            and sum(len(d.rows) for d in layers) >= PARALLEL_MIN_FEATURES)


def _groups(formats: list[str], n: int) -> list[list[str]]:
    """``formats`` shared among ``n`` workers so that the busiest has the least to do (every
    way tried: a handful of formats), each group in ``formats``' order."""
    from itertools import product

    best: tuple[int, ...] = ()
    best_load: float | None = None
    for way in product(range(n), repeat=len(formats)):
        load = [0.0] * n
        for f, k in zip(formats, way, strict=True):
            load[k] += _COST.get(f, 1.0)
        if best_load is None or max(load) < best_load - 1e-9:
            best, best_load = way, max(load)
    groups = [[f for f, k in zip(formats, best, strict=True) if k == b] for b in range(n)]
    return sorted((g for g in groups if g), key=lambda g: -sum(_COST.get(f, 1.0) for f in g))


def _run_job(job_file: str) -> int:
    """A worker: write the formats its job file names; its result (or error) pickled beside it."""
    from fieldapp.export.gdal import _write_layers

    job = Path(job_file)
    with open(job, "rb") as fh:
        # (formats, layers file, targets, frame, site CRS[, DXF title]): a job without a title
        # writes the DXF's title block with "not set"
        formats, layers_file, targets, frame, site_crs, *rest = pickle.load(fh)
    title = rest[0] if rest else None
    try:
        with open(layers_file, "rb") as fh:
            layers = pickle.load(fh)
        out: dict[str, tuple[dict[str, int], list[str]]] = {}
        for f in formats:
            counts: dict[str, int] = {}
            notes: list[str] = []
            _write_layers(list(layers), Path(targets[f]), f, frame, site_crs, counts, lambda x, m: None, notes,
                          title)
            out[f] = (counts, notes)
        answer: tuple[str, object] = ("done", out)
    except Exception as exc:  # noqa: BLE001 - handed to the parent, which raises it
        answer = ("failed", exc)
    try:
        data = pickle.dumps(answer)
    except Exception:  # noqa: BLE001 - an error that cannot be pickled goes as its words
        data = pickle.dumps(("failed", RuntimeError(f"{type(answer[1]).__name__}: {answer[1]}")))
    with open(job.with_suffix(".answer"), "wb") as fh:
        fh.write(data)
    return 0


def _answer(job: Path, proc: subprocess.Popen[bytes],
            formats: list[str]) -> dict[str, tuple[dict[str, int], list[str]]]:
    """The worker's ``{format: (counts, notes)}``; raises the error it handed back, or
    :class:`ExportWriteFailed` (``ENOSPC`` ``OSError`` on a full disk) when it left no answer."""
    try:
        with open(job.with_suffix(".answer"), "rb") as fh:
            state, value = pickle.load(fh)
    except (OSError, EOFError, pickle.UnpicklingError):
        err = _said(proc)
        from fieldapp.export.gdal import _disk_full
        from fieldapp.export.model import ExportWriteFailed

        if _disk_full(job.parent):     # not even its answer could be written
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)) from None

        raise ExportWriteFailed(f"the {', '.join(formats)} writer stopped (exit {proc.returncode})"
                                + (f": {err[-1]}" if err else "")) from None
    if state != "done":
        raise value
    written: dict[str, tuple[dict[str, int], list[str]]] = value
    return written


class Spare:
    """Worker processes started ahead (:func:`prestart`); :meth:`take` hands them to
    :func:`write_in_workers`, :meth:`close` ends those not taken (any number of times)."""

    def __init__(self, procs: list[subprocess.Popen[bytes]]) -> None:
        self.procs = procs

    def take(self, n: int) -> list[subprocess.Popen[bytes]]:
        got, self.procs = self.procs[:n], self.procs[n:]
        return got

    def close(self) -> None:
        procs, self.procs = self.procs, []
        for p in procs:
            _stop(p)


def _start() -> subprocess.Popen[bytes]:
    import tempfile

    err = tempfile.TemporaryFile()     # not a pipe: a worker saying much must not block on it
    # no console window flashing up per worker on Windows (the app has none)
    p = subprocess.Popen([sys.executable, "-m", "fieldapp.export.workers"], stdin=subprocess.PIPE,
                         stdout=subprocess.DEVNULL, stderr=err,
                         creationflags=getattr(subprocess, "CREATE_NO_WINDOW", 0))
    p.err_file = err  # type: ignore[attr-defined]
    return p


def _said(p: subprocess.Popen[bytes]) -> list[str]:
    """What worker ``p`` wrote on stderr (it has exited), by line."""
    err = getattr(p, "err_file", None)
    if err is None or err.closed:
        return []
    err.seek(0)
    said: bytes = err.read()
    return said.decode(errors="replace").strip().splitlines()


def _stop(p: subprocess.Popen[bytes]) -> None:
    """End worker ``p``: told there is no job, killed if it is working; waited for."""
    try:
        if p.stdin is not None and not p.stdin.closed:
            p.stdin.close()
    except OSError:
        pass
    if p.poll() is None:
        try:
            p.wait(0.5)
        except subprocess.TimeoutExpired:
            p.kill()
    p.wait()
    err = getattr(p, "err_file", None)   # set by _start
    if err is not None:
        err.close()


def _workers(n_formats: int) -> int:
    return min(MAX_WORKERS, os.cpu_count() or 1, n_formats)


def prestart(visit_path: StrPath, formats: tuple[str, ...]) -> Spare:
    """Start the workers an export of ``formats`` of a visit file this big will likely use, so
    that their start-up (the interpreter, numpy, GDAL) is done while the visit is read."""
    try:
        big = os.path.getsize(visit_path) >= PRESTART_BYTES
    except OSError:
        big = False
    if not (big and len(formats) > 1 and (os.cpu_count() or 1) >= 2):
        return Spare([])
    return Spare([_start() for _ in range(_workers(len(formats)))])


def write_in_workers(layers: list[_LayerData], targets: dict[str, Path], frame: SiteFrame, site_crs: str,
                     step: Callable[[float, str], None], scratch: Path,
                     spare: Spare | None = None,
                     title: DxfTitle | None = None) -> dict[str, tuple[dict[str, int], list[str]]]:
    """Write each format of ``targets`` ({format: its temporary file or folder}) in worker
    processes (``python -m fieldapp.export.workers JOB``: a fresh interpreter, as Windows
    starts one; the bundle runs ``-m`` for its own modules); ``{format: (counts, notes)}``.
    ``scratch`` (the export's temporary folder) holds the pickled layers and the jobs meanwhile.
    Raises the first failing format's error, or what ``step`` raises; either way every worker
    has stopped before this returns."""
    path = scratch / _PICKLE
    with open(path, "wb") as fh:
        pickle.dump(layers, fh, protocol=pickle.HIGHEST_PROTOCOL)
    groups = _groups(list(targets), _workers(len(targets)))
    ready = spare.take(len(groups)) if spare is not None else []
    procs: list[tuple[Path, subprocess.Popen[bytes], list[str]]] = []
    try:
        for k, formats in enumerate(groups):
            job = scratch / f".job{k}.pickle"
            with open(job, "wb") as fh:
                pickle.dump((formats, str(path), {f: str(targets[f]) for f in formats}, frame, site_crs, title),
                            fh)
            proc = ready.pop() if ready else _start()
            procs.append((job, proc, formats))
            assert proc.stdin is not None    # _start opened it (stdin=PIPE)
            proc.stdin.write(f"{job}\n".encode())
            proc.stdin.flush()          # kept open: its end tells the worker this process is gone
        out: dict[str, tuple[dict[str, int], list[str]]] = {}
        while True:
            for job, proc, formats in procs:
                if proc.poll() is not None and formats[0] not in out:
                    out.update(_answer(job, proc, formats))
            if len(out) == len(targets):
                return {f: out[f] for f in targets}
            left = [f for f in targets if f not in out]
            step(0.1 + 0.8 * len(out) / len(targets),
                 f"writing {', '.join(left)} ({len(out)} of {len(targets)} formats done)")
            try:
                next(p for _, p, fs in procs if fs[0] not in out).wait(0.25)
            except subprocess.TimeoutExpired:
                pass
    finally:
        for proc in ready:
            _stop(proc)
        for _, proc, _ in procs:
            if proc.poll() is None:
                proc.kill()
        for _, proc, _ in procs:
            _stop(proc)
        for f in [path, *scratch.glob(".job*")]:
            f.unlink(missing_ok=True)


def tmp_prefix(name: str) -> str:
    """The start of an export's temporary folder beside OUT ``name``: ``.name.<pid>.``."""
    return f".{name}.{os.getpid()}."


def clear_stale(parent: Path, name: str) -> list[Path]:
    """Remove the temporary folders killed exports of OUT ``name`` left in ``parent``: named
    ``.name.<pid>.<8 characters>.tmp`` (or ``.name.<8 characters>.tmp``, as older versions named
    them), a folder, not a link, and either its process gone or older than :data:`STALE_HOURS`.
    Nothing else is touched; a folder that cannot be removed is left. Returns those removed."""
    pat = re.compile(rf"\.{re.escape(name)}\.(?:(\d+)\.)?[A-Za-z0-9_]{{8}}\.tmp")
    removed: list[Path] = []
    for e in stale_entries(parent, pat, folders=True, hours=STALE_HOURS):
        shutil.rmtree(e.path, ignore_errors=True)
        if not os.path.exists(e.path):
            removed.append(Path(e.path))
    return removed


def _serve() -> int:
    """A worker started ahead (:func:`prestart`): its imports done, the job file's path comes on
    stdin; none (stdin closed) means it was not needed."""
    import fieldapp.export.gdal  # noqa: F401 - imported while the parent reads the visit

    # the parent writes the path in UTF-8 (write_in_workers); sys.stdin would decode it in the
    # console's code page on Windows (cp1252), and an export folder named for a site
    # "Łąka – Wisła" was a path the worker could not read ("'charmap' codec can't decode")
    line = sys.stdin.buffer.readline().decode("utf-8").strip()
    if isinstance(sys.stderr, io.TextIOWrapper):   # what the parent reads back (_said) as UTF-8
        sys.stderr.reconfigure(encoding="utf-8", errors="backslashreplace")
    if not line:
        return 0
    threading.Thread(target=_end_with_parent, daemon=True).start()
    try:
        return _run_job(line)
    finally:
        _JOB_DONE.set()


_JOB_DONE = threading.Event()


def _end_with_parent() -> None:
    """The export that started this worker holds its stdin open while it waits: the end of
    stdin (the export finished, or was killed) ends a worker still writing, so it never writes
    on for a process that is gone (a killed app's export used to run on for half a minute)."""
    try:
        while os.read(0, 1 << 16):      # the file descriptor itself: nothing closes it at exit
            pass
    except OSError:
        pass
    if not _JOB_DONE.is_set():
        os._exit(3)


if __name__ == "__main__":
    raise SystemExit(_serve())
