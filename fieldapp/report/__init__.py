"""The site report: a PDF the office signs, with every verdict reproducible.

``fieldapp report VISIT.gpkg -o report.pdf [--force] [--retained-ac A]`` on the command line;
:func:`build_report` for the app's Report button (run it on a worker thread; it reports progress
and can be cancelled).

The PDF is laid out with reportlab's Platypus (rows never split, words never broken, headings
kept with their content, a bookmark per section); the map and the profiles are drawn with
Qt's QPainter into print-resolution images. It holds: site and crew, the units note (CRS,
which foot), a map of every feature with the bank line, protective areas and development
envelope, scale bar and north arrow, each transect's profile,
the stand table, wetlands, every verdict with citation, interpretations, inputs and result,
GNSS quality per recorded point, the sync conflicts, the notes in full, the photos
(:mod:`.photos`) and a certification block. Each verdict's rule request is then
attached to the PDF as a JSON file (pypdf), so ``fieldapp rules evaluate FILE.json`` reproduces
it; ``requests-all.json`` and ``results-all.json`` hold them all, in the same order. A check
still awaiting data (e.g. a woodland stand with no tree recorded) has no rule request: it is in
the PDF with its next step, and nothing is attached for it.

Pieces: :mod:`.content` (what the report says; no Qt), :mod:`.drawing` (map and profiles),
:mod:`.layout`, :mod:`.sections`, :mod:`.photos` (Platypus type, tables and sections),
:mod:`.document` (pages and PDF).

Errors (``ReportError`` base)
-----------------------------
``ReportExists``     the output file exists and ``force`` is False (nothing written);
``ReportRefused``    the output would replace the visit itself (also through a link), one of
                     its ``-wal``/``-shm`` sidecars or any other fieldapp visit GeoPackage, or
                     it is a folder: refused even with ``force`` (:mod:`.guard`); on Windows
                     also an existing output open in a PDF viewer or read-only ("close
                     report.pdf in the program that has it open, then make the report again"),
                     before anything is written;
``ReportWriteFailed`` the PDF could not be written (folder missing, permission denied, disk
                     full: "the disk is full"; the ``OSError`` is chained); nothing is left
                     behind (written under a temporary name beside it, then renamed);
``ReportCancelled``  the cancel token was set (nothing written).
A visit file that is not ours or is damaged raises the store's own errors
(:class:`fieldapp.store.StoreError`), and a missing one ``FileNotFoundError``.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .guard import StrPath, os_error_words

if TYPE_CHECKING:
    from PySide6.QtGui import QGuiApplication

    from fieldapp.survey.visit import Visit

    from .content import ReportContent

__all__ = ["ReportError", "ReportExists", "ReportRefused", "ReportWriteFailed", "ReportCancelled",
           "RetainedAreaTooLarge", "ReportSummary", "build_report", "main"]

log = logging.getLogger(__name__)

ProgressCallback = Callable[[float, str], None]

_UMASK_LOCK = threading.Lock()
#: the offscreen QGuiApplication :func:`_ensure_gui_app` made (kept for the process's life)
_GUI_APP: QGuiApplication | None = None


#: what the user does after closing the PDF another program holds (:func:`.guard.refuse_held`)
AGAIN = "make the report again"


def current_umask() -> int:
    """The process umask (e.g. ``0o022``), for giving a file made by :mod:`tempfile` (0600, folders
    0700) the mode an ordinary ``open()`` would give it before it is renamed into place.

    Read from ``/proc/self/status`` where there is one (no change to the process state);
    otherwise set and restored under a lock (``os.umask`` has no read-only form)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    with _UMASK_LOCK:
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


class ReportError(Exception):
    """Base of the report's errors."""


class ReportExists(ReportError, FileExistsError):
    """The output file exists and overwriting was not asked for."""


class ReportRefused(ReportError):
    """The output would replace a visit file (or a sidecar of one), or it is a folder, or (Windows)
    the existing output is open in another program or read-only."""


class ReportWriteFailed(ReportError):
    """The PDF could not be written (the OSError is the cause); nothing was left behind."""


class ReportCancelled(ReportError):
    """The report was cancelled; no file was written."""


class RetainedAreaTooLarge(ReportError, ValueError):
    """The plan's retained area (``--retained-ac``) is more than a woodland stand it is for;
    the message names the stand and its area (acres). ``fieldapp report`` exits 2."""


class ReportSummary(dict[str, Any]):
    """What :func:`build_report` wrote: ``path``, ``pages``, ``verdicts``, ``attachments``."""


def _is_cancelled(cancel: object) -> bool:
    if cancel is None:
        return False
    for attr in ("cancelled", "is_set"):
        v = getattr(cancel, attr, None)
        if v is not None:
            return bool(v() if callable(v) else v)
    return bool(cancel()) if callable(cancel) else False


def _ensure_gui_app() -> None:
    """Qt's fonts need a QGuiApplication; make an offscreen one when there is none."""
    global _GUI_APP
    from PySide6.QtGui import QGuiApplication

    if QGuiApplication.instance() is not None:
        return
    if threading.current_thread() is not threading.main_thread():
        raise ReportError("the report needs a QGuiApplication; create it on the main thread first")
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    _GUI_APP = QGuiApplication([sys.argv[0] if sys.argv else "fieldapp"])


def build_report(visit_path: StrPath, out_path: StrPath, progress: ProgressCallback | None = None,
                 cancel: object = None, *, force: bool = False, retained_ac: float | None = None,
                 now: datetime | None = None) -> ReportSummary:
    """Write the site report of the visit at ``visit_path`` to ``out_path`` (PDF).

    Safe on a worker thread (a ``QGuiApplication`` must exist; the CLI makes one). In the app,
    checkpoint the open store first (``store.checkpoint()``) so the file holds every record; the
    visit is read into memory and the file is not changed otherwise.

    Parameters
    ----------
    visit_path : path-like
        The visit GeoPackage.
    out_path : path-like
        The PDF to write. Written under a temporary name and moved into place at the end, so a
        failed or cancelled report leaves nothing behind.
    progress : callable(fraction: float, message: str), optional
        Called from the calling thread, fraction 0..1.
    cancel : object, optional
        Cancellation token: anything with a ``cancelled`` attribute (``fieldapp.sync.CancelToken``),
        an ``is_set()`` method (``threading.Event``) or a callable returning True to stop.
    force : bool
        Overwrite an existing ``out_path``.
    retained_ac : float, optional
        The plan's retained woodland area (acres, ``--retained-ac``) for each woodland stand
        with none of its own stored (the Tally tab's "Retained woodland area (plan)"): 0 is a
        plan that retains nothing, whose mitigation (City Woodlands C) matters most. None:
        no plan beyond the stands' own figures (a stand's own figure always wins).

    Returns
    -------
    ReportSummary
        ``{"path", "pages", "verdicts", "attachments"}``.

    Raises
    ------
    ReportExists, ReportRefused, ReportWriteFailed, ReportCancelled, FileNotFoundError,
    fieldapp.store.StoreError
    ValueError
        ``retained_ac`` is negative, NaN or infinite.
    RetainedAreaTooLarge
        ``retained_ac`` is more than the area of a woodland stand it applies to (one without
        its own figure), past the 0.005 ac rounding of a figure typed to 0.01 ac.
    """
    from .content import gather, load_visit

    if retained_ac is not None:
        retained_ac = float(retained_ac)
        if not math.isfinite(retained_ac) or retained_ac < 0:
            raise ValueError(f"retained_ac must be a finite number of acres >= 0, got {retained_ac!r}")
    out = Path(out_path)
    out_dir = _check_output(visit_path, out, force)

    def step(fraction: float, message: str) -> None:
        if _is_cancelled(cancel):
            raise ReportCancelled("report cancelled")
        if progress is not None:
            progress(min(max(fraction, 0.0), 1.0), message)

    step(0.0, "reading the visit")
    visit = load_visit(visit_path)
    if retained_ac is not None:
        _plan_for_stands(visit, retained_ac)
    step(0.1, "checks, stand tables, map")
    content = gather(visit, visit_path, now=now)
    step(0.3, "drawing")
    _ensure_gui_app()
    pages, names = _write_report(visit_path, out, out_dir, content, step, force)
    if progress is not None:
        progress(1.0, "done")
    return ReportSummary(path=str(out), pages=pages, verdicts=len(content.checks),
                         attachments=names + ["requests-all.json", "results-all.json"])


def _check_output(visit_path: StrPath, out_path: Path, force: bool) -> Path:
    """Refuse an output that would replace a visit or is a folder, or exists without ``force``;
    the folder the report goes in (:class:`ReportWriteFailed` when it does not exist)."""
    from .guard import output_folder, refuse_clobbering, refuse_existing, refuse_held

    refuse_clobbering(visit_path, [out_path], ReportRefused)
    if out_path.is_dir():
        raise ReportRefused(f"{out_path} is a folder; give the report's file name (e.g. {out_path / 'report.pdf'})")
    refuse_existing(out_path, force, ReportExists)
    folder = output_folder(out_path, ReportWriteFailed)
    refuse_held([out_path], ReportRefused, AGAIN)   # a PDF open in a viewer: before any work
    return folder


def _write_report(visit_path: StrPath, out_path: Path, out_dir: Path, content: ReportContent, step: ProgressCallback,
                  force: bool) -> tuple[int, list[str]]:
    """Draw the PDF and attach the rule requests under temporary names in ``out_dir``, then
    move it into place as ``out_path``; nothing is left behind on failure.

    Returns (pages, per-verdict attachment names). Raises :class:`ReportRefused` or
    :class:`ReportExists` when the output became a visit or appeared meanwhile,
    :class:`ReportWriteFailed` for an ``OSError``.
    """
    from .document import write_pdf
    from .guard import held_by_error, held_words, refuse_clobbering, refuse_existing, refuse_held

    tmps: list[str] = []
    try:
        for suffix in (".rl.pdf", ".tmp"):
            fd, name = tempfile.mkstemp(prefix=f".{out_path.name}.", suffix=suffix, dir=out_dir)
            os.close(fd)
            tmps.append(name)
        laid_tmp, final_tmp = tmps
        pages = write_pdf(content, laid_tmp, step=step)
        step(0.92, "attaching the rule requests")
        names = _attach_requests(laid_tmp, final_tmp, content)
        os.chmod(final_tmp, 0o666 & ~current_umask())  # mkstemp made it 0600
        step(0.99, "saving")
        refuse_clobbering(visit_path, [out_path], ReportRefused)  # appeared meanwhile?
        refuse_existing(out_path, force, ReportExists)
        refuse_held([out_path], ReportRefused, AGAIN)     # opened in a viewer meanwhile?
        os.replace(final_tmp, out_path)
    except ReportError:
        raise
    except OSError as exc:
        held = held_by_error(exc, [out_path])          # opened between the check and the move
        why = held_words(out_path, "held", AGAIN) if held else os_error_words(exc)
        raise ReportWriteFailed(f"cannot write {out_path}: {why}") from exc
    finally:
        for t in tmps:
            try:
                os.unlink(t)
            except FileNotFoundError:
                pass
    return pages, names


def _attach_requests(laid_pdf: str, out_file: str, content: ReportContent) -> list[str]:
    """Copy the PDF Platypus wrote (``laid_pdf``, with its bookmarks) to ``out_file`` with every
    rule request attached as JSON, then ``requests-all.json`` and ``results-all.json``; flushed
    to disk. Returns the per-verdict attachment names (a check awaiting data has no request to
    attach)."""
    from pypdf import PdfReader, PdfWriter

    from fieldapp.rules.contract import json_bytes

    from .sections import attached_checks

    writer = PdfWriter(clone_from=PdfReader(laid_pdf))
    writer.page_mode = "/UseOutlines"
    # PDF 1.4: the attachments' name tree and the catalogue's /Lang need it (reportlab wrote 1.3)
    writer.pdf_header = b"%PDF-1.4"
    # created when the report says it was generated (the footer's time), in UTC
    stamp = f"D:{content.generated_utc:%Y%m%d%H%M%S}+00'00'"
    writer.add_metadata({"/CreationDate": stamp, "/ModDate": stamp})
    attached = attached_checks(content)
    names = [name for name, _ in attached]
    for name, check in attached:
        writer.add_attachment(name, (json.dumps(check.request, indent=2) + "\n").encode())
    writer.add_attachment("requests-all.json", (json.dumps(content.requests(), indent=2) + "\n").encode())
    # the same bytes as ``fieldapp rules evaluate requests-all.json`` prints, on every platform
    writer.add_attachment("results-all.json", json_bytes([c.result for _, c in attached], indent=2))
    with open(out_file, "wb") as fh:
        writer.write(fh)
        fh.flush()
        os.fsync(fh.fileno())
    return names


def _plan_for_stands(visit: Visit, retained_ac: float) -> None:
    """``retained_ac`` (acres, 0 included) as the own retained area of each woodland stand of
    ``visit`` that has none, as the app stores a typed plan with its stand; in memory only
    (``visit`` is the detached copy :func:`build_report` read; the file is not changed).

    Raises :class:`RetainedAreaTooLarge` (before anything is changed) when ``retained_ac`` is
    more than such a stand's ground area, past the rounding of a figure typed to 0.01 ac
    (:data:`fieldapp.checks.RETAINED_ROUNDING_AC`): a typo (6 for 0.6) is never read as
    "the whole stand retained, permitted".
    """
    from fieldapp.checks.requests import RETAINED_ROUNDING_AC, check_name
    from fieldapp.survey import Layer

    stands = [a for a in visit.features(Layer.AREA)
              if getattr(a.kind, "value", a.kind) == "woodland_stand"]
    planned = [a for a in stands if a.retained_area_ac is None]
    if getattr(visit, "has_frame", True):
        for n, a in enumerate(stands, start=1):
            area = visit.frame.area_ac(a.geometry)
            if a.retained_area_ac is None and retained_ac > area + RETAINED_ROUNDING_AC:
                name = check_name("Woodland stand", a.label, n)
                raise RetainedAreaTooLarge(
                    f"the retained area {retained_ac:g} ac (--retained-ac) is more than {name}"
                    f" holds ({area:,.2f} ac): a plan cannot retain more woodland than the stand;"
                    f" give at most {area:,.2f} ac")
    for a in planned:
        visit.update_feature(Layer.AREA, a.uuid, retained_area_ac=retained_ac)


def acres(text: str) -> float:
    """argparse type: a finite area in acres, >= 0 (``nan``, ``inf``, ``1e999``, ``-5`` refused)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of acres") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number of acres")
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r}: acres cannot be negative")
    return value


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="fieldapp report",
                                description="Write the site report (PDF) of a visit GeoPackage.")
    p.add_argument("visit", metavar="VISIT.gpkg")
    p.add_argument("-o", "--output", required=True, metavar="REPORT.pdf")
    p.add_argument("--force", action="store_true", help="overwrite the output file if it exists")
    p.add_argument("--retained-ac", type=acres, default=None, metavar="ACRES",
                   help="the plan's retained woodland area (acres) for each woodland stand"
                        " without its own (typed in the Tally tab); 0 is a plan that retains"
                        " nothing (its mitigation is worked out); more than a stand's area is"
                        " refused (exit 2). Without this option, only the stands' own figures"
                        " are plans (a mature or young stand without one: its protection check"
                        " needs data)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """``fieldapp report VISIT.gpkg -o report.pdf``; exit 0 done, 1 refused or failed, 2 usage
    (a ``--retained-ac`` above a stand's area included), 130 interrupted. Every failure is one
    line on stderr, never a traceback."""
    args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    from fieldapp.store.errors import StoreError

    from .guard import run_office_command

    refused: list[Exception] = []

    def job() -> ReportSummary:
        try:
            return build_report(args.visit, args.output, force=args.force, retained_ac=args.retained_ac)
        except RetainedAreaTooLarge as exc:   # a bad option value: a usage error (exit 2)
            refused.append(exc)
            raise

    status, summary = run_office_command(
        "fieldapp report", job,
        exists=ReportExists, expected=(StoreError, ReportError, ValueError),
        nothing="no report written", output=args.output)
    if status:
        return 2 if refused else status
    assert summary is not None    # status 0: the job returned
    pages, verdicts = summary["pages"], summary["verdicts"]
    print(f"{summary['path']}: {pages} page{'' if pages == 1 else 's'}, {verdicts}"
          f" verdict{'' if verdicts == 1 else 's'} (rule requests attached)")
    return 0
