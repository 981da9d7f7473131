"""The Report, Export and Sync buttons: each runs off the UI thread with a progress bar and Cancel.

- **Report** (Ctrl+R): :func:`fieldapp.report.build_report` to a PDF; the open store is
  checkpointed on the UI thread first and the tally's planned retained area is passed on.
- **Export** (Ctrl+E): :func:`fieldapp.export.export_visit` in one of
  :data:`fieldapp.export.FORMATS`, or all of them at once (a folder per format).
- **Sync** (Ctrl+Y): :func:`fieldapp.sync.sync` with a :class:`fieldapp.sync.FolderOffice`
  chosen once and remembered in the settings; recording is paused and the store closed while it
  runs (the sync changes the file underneath), then the visit is reopened. The per-layer counts
  are shown after, and conflicts in the Conflicts view.
- **Resolve** (the Conflicts view's Keep mine / Keep theirs / Other value… buttons):
  :func:`fieldapp.sync.resolve.resolve_conflict`, as ``fieldapp sync --resolve`` does, with the
  store closed and recording paused as for a sync; a refused value is said in field words and
  the visit is left as it was.

An existing output is never replaced without asking ("overwrite?" -> ``force=True``). Errors are
shown as a message in words, never as a traceback. The heavy modules (report, export, sync,
pyogrio, pypdf) are imported only when a button is used.

The ``ask_*`` / :meth:`OfficeActions.show_message` methods are the only places that open
dialogs, so a test can answer them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from fieldapp.app.recording import Recording
from fieldapp.app.settings import Settings
from fieldapp.app.wording import plural
from fieldapp.ui.jobs import BackgroundJob, JobBar, JobCancelled
from fieldapp.ui.theme import touch_rows

if TYPE_CHECKING:
    from fieldapp.app.visit import VisitController
    from fieldapp.ui.conflictsview import ConflictsView

log = logging.getLogger(__name__)

#: Export formats in words (fieldapp.export.FORMATS order); folder formats write one file per layer.
FORMAT_WORDS = {
    "geojson": "GeoJSON (EPSG:4326), a folder of .geojson files",
    "kml": "KML for Google Earth (one .kml file)",
    "shp": "ESRI Shapefile (site CRS), a folder of .shp files",
    "csv": "CSV with WKT geometry (EPSG:4326), a folder of .csv files",
    "dxf": "DXF for CAD (site CRS, one .dxf file)",
    "gpkg": "GeoPackage for QGIS (site CRS, one .gpkg file, styled)",
    "all": "Every format (GeoJSON, KML, Shapefile, CSV, DXF, GeoPackage), a folder each",
}
SINGLE_FILE = ("kml", "dxf", "gpkg")

#: The merge policy in words (README "Sync and merge policy"), shown in the Sync dialog.
POLICY_WORDS = (
    "<b>Merge policy</b> (last sync wins):<ul>"
    "<li>New features from several laptops never collide; all are kept.</li>"
    "<li>Different fields of one feature edited on two laptops: both edits are kept.</li>"
    "<li>The same field set to different values: the office keeps the value synced last; the"
    " other value is kept in the conflicts table (base, theirs, ours) and shown under"
    " <i>Conflicts</i>.</li>"
    "<li>An edit to a feature another laptop deleted: the delete stands and the edit is kept"
    " as a conflict record.</li>"
    "<li>Nothing is discarded silently: the sync ends with counts per layer.</li></ul>"
    "Recording pauses while the sync runs; the visit is reopened afterwards."
)


def error_words(exc: BaseException) -> str:
    """An exception as one sentence for a message box (its type only when it says nothing)."""
    from fieldapp.sync.offices import mask_password

    if isinstance(exc, OSError) and exc.errno is not None:
        # "[Errno 28] No space left on device: '/media/...'" in words, with the file if any
        from fieldapp.report.guard import os_error_words

        where = f"{mask_password(str(exc.filename))}: " if exc.filename else ""
        return f"{where}{os_error_words(exc)}"
    text = mask_password(str(exc).strip())        # never a PostgreSQL password on screen
    if isinstance(exc, FileNotFoundError) and not text:
        text = "file not found"
    return text or type(exc).__name__


def ok_cancel_buttons(dialog: QDialog, ok_text: str) -> QDialogButtonBox:
    """An ``ok_text`` button (the default: Enter) and Cancel, accepting / rejecting
    ``dialog``."""
    buttons = QDialogButtonBox()
    ok = buttons.addButton(ok_text, QDialogButtonBox.ButtonRole.AcceptRole)
    ok.setDefault(True)
    buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
    buttons.accepted.connect(dialog.accept)
    buttons.rejected.connect(dialog.reject)
    return buttons


class SyncDialog(QDialog):
    """Office folder (Change…), the merge policy in words, Sync now / Cancel."""

    def __init__(self, office_dir: str | None, visit_path: Path, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Sync with the office")
        lay = QVBoxLayout(self)
        lay.addWidget(QLabel(f"Visit: <b>{visit_path.name}</b>"))
        row = QHBoxLayout()
        row.addWidget(QLabel("Office folder or database"))
        self.folder = QLineEdit(office_dir or "")
        self.folder.setObjectName("officeFolder")
        self.folder.setPlaceholderText("a network share, USB drive, synced folder, or postgresql://crew@server/db")
        row.addWidget(self.folder, 1)
        change = QPushButton("Change…")
        change.clicked.connect(self._choose)
        row.addWidget(change)
        lay.addLayout(row)
        policy = QLabel(POLICY_WORDS)
        policy.setObjectName("mergePolicy")
        policy.setWordWrap(True)
        policy.setTextFormat(Qt.TextFormat.RichText)
        lay.addWidget(policy)
        lay.addWidget(ok_cancel_buttons(self, "Sync now"))
        self.resize(720, 420)

    def _choose(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Office folder", self.folder.text())
        if path:
            self.folder.setText(path)


class ExportDialog(QDialog):
    """Format and where to write it."""

    def __init__(self, visit_path: Path, parent: QWidget | None = None):
        from fieldapp.export import ALL, FORMATS

        super().__init__(parent)
        self.visit_path = visit_path
        self.setWindowTitle("Export the visit")
        form = QFormLayout(self)
        self.fmt = QComboBox()
        self.fmt.setObjectName("exportFormat")
        for f in (*FORMATS, ALL):
            self.fmt.addItem(FORMAT_WORDS.get(f, f), f)
        form.addRow("Format", self.fmt)
        row = QHBoxLayout()
        self.path = QLineEdit()
        self.path.setObjectName("exportPath")
        row.addWidget(self.path, 1)
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        row.addWidget(browse)
        form.addRow("Write to", row)
        form.addRow(ok_cancel_buttons(self, "Export"))
        self.fmt.currentIndexChanged.connect(self._default_path)
        self._default_path()
        self.resize(760, 200)

    def _default_path(self) -> None:
        self.path.setText(str(default_export_path(self.visit_path, self.fmt.currentData())))

    def _browse(self) -> None:
        fmt = self.fmt.currentData()
        if fmt in SINGLE_FILE:
            path, _ = QFileDialog.getSaveFileName(self, "Export to", self.path.text(),
                                                  f"{fmt.upper()} (*.{fmt})",
                                                  options=QFileDialog.Option.DontConfirmOverwrite)
        else:
            path = QFileDialog.getExistingDirectory(self, "Export into a new folder",
                                                    str(Path(self.path.text()).parent))
            if path:
                path = str(Path(path) / Path(self.path.text()).name)
        if path:
            self.path.setText(path)


def default_export_path(visit_path: Path, fmt: str) -> Path:
    stem = visit_path.stem
    if fmt == "all":
        return visit_path.with_name(f"{stem}_export")
    if fmt == "gpkg":   # never the visit's own name: the visit is a GeoPackage too
        return visit_path.with_name(f"{stem}_export.gpkg")
    return visit_path.with_name(f"{stem}.{fmt}" if fmt in SINGLE_FILE else f"{stem}_{fmt}")


class SyncResultDialog(QDialog):
    """Per-layer sent / received / merged / conflicts of one sync (non-modal)."""

    def __init__(self, report: Any, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Sync finished")
        lay = QVBoxLayout(self)
        totals = report.totals()
        head = (f"Synced with {report.office}; the office is now at change {report.office_seq}."
                + (" Nothing to send or receive." if report.no_op else ""))
        if report.resumed:
            head += f" Completed {plural(len(report.resumed), 'interrupted sync')}."
        label = QLabel(head)
        label.setWordWrap(True)
        lay.addWidget(label)
        rows = list(report.layers) + [totals]
        self.table = QTableWidget(len(rows), 5)
        self.table.setObjectName("syncCounts")
        touch_rows(self.table)
        self.table.setHorizontalHeaderLabels(["Layer", "Sent", "Received", "Merged",
                                              "Conflicts"])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        from fieldapp.app.layerwords import layer_tooltip, layer_words  # loads the store: not at start

        for r, c in enumerate(rows):
            # field words ("GNSS track"), the table name ("track_point") in the tooltip
            cells = ["All layers" if c.layer == "all" else layer_words(c.layer), c.sent,
                     c.received, c.merged, c.conflicts]
            for col, v in enumerate(cells):
                item = QTableWidgetItem(str(v))
                if col:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                elif c.layer != "all":
                    item.setToolTip(layer_tooltip(c.layer))
                if c.layer == "all":
                    f = item.font()
                    f.setBold(True)
                    item.setFont(f)
                self.table.setItem(r, col, item)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        lay.addWidget(self.table)
        # the conflict records that travelled: not records of the layers, so not in the totals
        self.conflict_records = QLabel(getattr(report, "conflict_records_words", lambda **_: "")(with_table=False))
        self.conflict_records.setObjectName("syncConflictRecords")
        self.conflict_records.setWordWrap(True)
        self.conflict_records.setVisible(bool(self.conflict_records.text()))
        lay.addWidget(self.conflict_records)
        policy = "last sync wins" if "last" in str(report.policy) else str(report.policy)
        note = QLabel(f"{plural(totals.conflicts, 'conflict')} recorded by this sync (policy: {policy});"
                      " see the Conflicts view." if totals.conflicts else
                      f"No conflicts recorded by this sync (policy: {policy}).")
        note.setWordWrap(True)
        lay.addWidget(note)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.show_conflicts = buttons.addButton("Show conflicts", QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.close)
        buttons.accepted.connect(self.close)
        lay.addWidget(buttons)
        # every layer's row in view without scrolling (up to a screenful)
        self.resize(720, min(860, 190 + 34 * len(rows)))


@dataclass(frozen=True)
class OfficeParts:
    """What the office actions are given (never the window): the visit being recorded, this
    run's settings, the job strip, and the window's services to them."""

    recording: Recording
    settings: Settings
    job_bar: JobBar
    parent: QWidget
    """The dialogs' and messages' parent (the main window, as a widget only)."""
    jobs_enabled: Callable[[bool], None]
    """Report / Export / Sync / visit switching on (True) or off while a job runs."""
    pause: Callable[[str], None]
    """Stop feeding the visit, the record buttons saying the reason (the store closes)."""
    resume: Callable[[], None]
    reopen: Callable[..., bool]
    """``reopen(path, current_transect=uuid | None, retained_ac=ac)``: open the visit again
    and show it; False (said in the banner, recording left paused) when it cannot be."""
    conflicts_changed: Callable[[], None]
    """Re-read the conflicts after a sync or a resolution (the tab carries the count)."""
    show_conflicts: Callable[[], None]
    conflicts_view: Callable[[], ConflictsView | None]
    """The Conflicts view if built (None before it is first shown)."""


class OfficeActions(QObject):
    """Report / Export / Sync of the open visit; one job at a time."""

    def __init__(self, parts: OfficeParts) -> None:
        super().__init__(parts.parent)
        self.parts = parts
        self.recording = parts.recording
        self.parent_widget = parts.parent
        self.job: BackgroundJob | None = None
        self.kind: str | None = None
        self.messages: list[tuple[str, str]] = []   # (title, text) shown, newest last
        self.last_result: Any = None
        self.last_sync_report: Any = None
        self.result_dialog: SyncResultDialog | None = None
        self._pending: dict[str, Any] = {}

    # ------------------------------------------------------------------ dialogs (patchable)
    def ask_report_path(self, default: Path) -> Path | None:
        path, _ = QFileDialog.getSaveFileName(self.parent_widget, "Save the site report", str(default),
                                              "PDF (*.pdf)",
                                              options=QFileDialog.Option.DontConfirmOverwrite)
        if not path:
            return None
        return Path(path if path.lower().endswith(".pdf") else path + ".pdf")

    def ask_export(self, visit_path: Path) -> tuple[str, Path] | None:
        dlg = ExportDialog(visit_path, self.parent_widget)
        if not dlg.exec() or not dlg.path.text().strip():
            return None
        return dlg.fmt.currentData(), Path(dlg.path.text().strip())

    def ask_office(self, current: str | None, visit_path: Path) -> Path | str | None:
        """The office the user chose: a folder ``Path``, or a PostgreSQL URL ``str``."""
        from fieldapp.sync.offices import is_postgres_url

        dlg = SyncDialog(current, visit_path, self.parent_widget)
        text = dlg.folder.text().strip() if dlg.exec() else ""
        if not text:
            return None
        return text if is_postgres_url(text) else Path(text)

    def ask_yes_no(self, title: str, text: str) -> bool:
        buttons = QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No
        return QMessageBox.question(self.parent_widget, title, text, buttons,
                                    QMessageBox.StandardButton.No) == QMessageBox.StandardButton.Yes

    def show_message(self, title: str, text: str, error: bool = False,
                     actions: tuple[tuple[str, Callable[[], Any]], ...] = ()) -> QMessageBox:
        """A non-modal message (the window stays usable); kept in :attr:`messages`. Each of
        ``actions`` (label, what it does) is a button beside OK that also closes the box
        (the report's *Open PDF* and *Show folder*)."""
        self.messages.append((title, text))
        box = QMessageBox(QMessageBox.Icon.Warning if error else QMessageBox.Icon.Information, title, text,
                          QMessageBox.StandardButton.Ok, self.parent_widget)
        for label, do in actions:
            button = box.addButton(label, QMessageBox.ButtonRole.ActionRole)
            button.clicked.connect(lambda _checked=False, do=do: do())
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.setModal(False)
        box.show()
        return box

    # ------------------------------------------------------------------ common
    def busy(self) -> bool:
        return self.job is not None

    def _visit(self) -> VisitController:
        """The open visit (the callers have checked there is one: :meth:`_can_start`).

        Raises
        ------
        RuntimeError
            No visit is open.
        """
        visit = self.recording.visit
        if visit is None:
            raise RuntimeError("no visit is open")
        return visit

    def _can_start(self, what: str) -> bool:
        if self.job is not None:
            self.show_message(what, f"Wait for the {self.kind} to finish (or cancel it) first.")
            return False
        if self.recording.visit is None:
            self.show_message(what, "Open or start a site visit first (Visit…, Ctrl+O).")
            return False
        return True

    def _run(self, kind: str, title: str, fn: Any) -> BackgroundJob:
        job = BackgroundJob(kind, fn, self)
        job.sigDone.connect(self._done)
        job.sigFailed.connect(self._failed)
        self.job = job
        self.kind = kind
        self.parts.job_bar.attach(job, title)
        self.parts.jobs_enabled(False)
        job.start()
        return job

    def _finish_job(self) -> tuple[str | None, dict[str, Any]]:
        kind, pending = self.kind, self._pending
        if self.job is not None:
            self.job.wait(5.0)
        self.job = None
        self.kind = None
        self._pending = {}
        self.parts.job_bar.detach()
        self.parts.jobs_enabled(True)
        return kind, pending

    def _done(self, result: Any) -> None:
        kind, pending = self._finish_job()
        self.last_result = result
        if kind == "report":
            from fieldapp.ui import openresult

            pdf = result["path"]
            self.show_message("Report", f"Site report written: {pdf}\n"
                                        f"{plural(result['pages'], 'page')},"
                                        f" {plural(result['verdicts'], 'verdict')},"
                                        " each rule request attached.",
                              actions=(("Open PDF", lambda: openresult.open_file(pdf)),
                                       ("Show folder", lambda: openresult.show_in_folder(pdf))))
        elif kind == "export":
            from fieldapp.export.words import export_layer_words

            # the layers in the crew's words ("Trees 4"), never the tables' names ("tree 4")
            counts = ", ".join(f"{export_layer_words(k)} {v}" for k, v in result.layers.items() if v)
            fmt = "every format" if result.format == "all" else result.format
            self.show_message("Export", f"Exported {fmt} ({result.crs}) to"
                                        f" {result.path}\n{counts or 'no features'}")
        elif kind == "sync":
            self._after_sync(pending, result, None)
        elif kind == "resolve":
            self._after_resolve(pending, result, None)

    def _failed(self, exc: BaseException) -> None:
        kind, pending = self._finish_job()
        if kind in ("sync", "resolve"):
            (self._after_sync if kind == "sync" else self._after_resolve)(pending, None, exc)
            return
        from fieldapp.export import ExportExists
        from fieldapp.report import ReportCancelled, ReportExists

        title = "Report" if kind == "report" else "Export"
        if isinstance(exc, (ReportExists, ExportExists)):
            out = pending["out"]
            if self.ask_yes_no(title, f"{out} exists. Overwrite it?"):
                if kind == "report":
                    self.start_report(out, force=True)
                else:
                    self.start_export(pending["fmt"], out, force=True)
            return
        if isinstance(exc, (ReportCancelled, JobCancelled)):
            self.show_message(title, f"{title} cancelled; nothing was written.")
            return
        log.warning("%s failed: %r", kind, exc)
        self.show_message(title, f"{title} failed: {error_words(exc)}", error=True)

    def cancel(self) -> None:
        if self.job is not None:
            self.parts.job_bar.cancel()

    def shutdown(self, timeout_s: float = 30.0) -> None:
        """The window closes: cancel the job and wait for its thread (bounded)."""
        job = self.job
        if job is not None:
            job.cancel()
            if not job.wait(timeout_s):
                log.warning("%s still running at exit", job.name)

    # ------------------------------------------------------------------ report
    def start_report(self, out_path: Path | None = None, *, force: bool = False) -> None:
        """Ask where (unless given), checkpoint the store, build the PDF off the UI thread."""
        if not self._can_start("Report"):
            return
        visit = self._visit()
        if out_path is None:
            out_path = self.ask_report_path(visit.path.with_name(f"{visit.path.stem}_report.pdf"))
            if out_path is None:
                return
        try:
            if visit.store is not None:
                visit.store.checkpoint()
        except Exception as exc:  # noqa: BLE001 - shown
            self.show_message("Report", f"Could not save the visit first: {error_words(exc)}",
                              error=True)
            return
        # the Tally tab's 0.00 ac is no plan typed (the app stores none with the stand)
        visit_path, retained_ac, out = visit.path, float(visit.retained_ac) or None, Path(out_path)

        def work(progress: Any, cancel: Any) -> Any:
            from fieldapp.report import build_report

            return build_report(visit_path, out, progress, cancel, force=force,
                                retained_ac=retained_ac)

        self._pending = {"out": out}
        self._run("report", "Site report", work)

    # ------------------------------------------------------------------ export
    def start_export(self, fmt: str | None = None, out_path: Path | None = None, *,
                     force: bool = False) -> None:
        """Ask the format and where (unless given); export off the UI thread."""
        if not self._can_start("Export"):
            return
        visit = self._visit()
        if fmt is None or out_path is None:
            answer = self.ask_export(visit.path)
            if answer is None:
                return
            fmt, out_path = answer
        try:
            if visit.store is not None:
                visit.store.checkpoint()
        except Exception as exc:  # noqa: BLE001
            self.show_message("Export", f"Could not save the visit first: {error_words(exc)}",
                              error=True)
            return
        visit_path, out = visit.path, Path(out_path)

        def work(progress: Any, cancel: Any) -> Any:
            from fieldapp.export import export_visit

            def step(fraction: float, message: str) -> None:
                # nothing is moved into place before the last step: stopping here leaves nothing
                if cancel.cancelled and fraction < 1.0:
                    raise JobCancelled("export cancelled")
                progress(fraction, message)

            return export_visit(visit_path, out, fmt, force=force, progress=step)

        self._pending = {"out": out, "fmt": fmt}
        self._run("export", f"Export ({fmt})", work)

    # ------------------------------------------------------------------ sync
    def start_sync(self, office_dir: Path | str | None = None) -> None:
        """Ask the office folder or PostgreSQL URL (remembered), pause recording, close the
        store, sync. A PostGIS office is reached only on the worker thread (a server that does
        not answer never blocks the window); it must already be a fieldapp office."""
        if not self._can_start("Sync"):
            return
        visit = self._visit()
        if visit.walk is not None:
            self.show_message("Sync", "A boundary walk is in progress: close it (Ctrl+L) before"
                                      " syncing.")
            return
        if office_dir is None:
            office_dir = self.ask_office(self.parts.settings.config.office_dir, visit.path)
            if office_dir is None:
                return
        from fieldapp.sync import FolderOffice, OfficeNotFound, is_postgres_url, open_office

        office_dir = str(office_dir) if is_postgres_url(office_dir) else Path(office_dir)
        create = False
        try:
            if isinstance(office_dir, Path):
                FolderOffice(office_dir).check_available()
            else:
                open_office(office_dir)  # refuses a URL holding a password, contacts nothing
        except OfficeNotFound as exc:
            if not isinstance(office_dir, Path):    # a PostGIS office: unreachable, or no office
                self.show_message("Sync", f"Office not usable: {error_words(exc)}", error=True)
                return
            if not office_dir.parent.is_dir():
                self.show_message("Sync", f"The folder {office_dir.parent} does not exist (is the"
                                          " drive connected?).", error=True)
                return
            if not self.ask_yes_no("Sync", f"{office_dir} is not a fieldapp office folder yet."
                                           "\nMake it a new office folder?"):
                return
            create = True
        except Exception as exc:  # noqa: BLE001
            self.show_message("Sync", f"Office not usable: {error_words(exc)}", error=True)
            return
        self.parts.settings.remember(office_dir=str(office_dir))

        state = self._close_visit_for("Sync", "the sync", office=office_dir)
        if state is None:
            return
        visit_path = visit.path

        def work(progress: Any, cancel: Any) -> Any:
            from fieldapp.sync import ConflictPolicy, sync

            return sync(visit_path, open_office(office_dir, create=create),
                        policy=ConflictPolicy.LAST_SYNC_WINS, progress=progress, cancel=cancel,
                        lock_wait_s=10)

        self._pending = state
        self._run("sync", "Sync", work)

    def _close_visit_for(self, title: str, what: str, **extra: Any) -> dict[str, Any] | None:
        """Pause recording and close the store (a sync or a resolution changes the file
        underneath); the state to reopen the visit with, or None (said why)."""
        visit = self._visit()
        state = {"path": visit.path, "transect": visit.current_transect_uuid,
                 "retained_ac": visit.retained_ac, **extra}
        self.parts.pause(f"{title} in progress")
        try:
            visit.close()                  # checkpoint and close: the .gpkg alone is complete
        except Exception as exc:  # noqa: BLE001
            self.parts.resume()
            self.show_message(title, f"Could not close the visit for {what}: {error_words(exc)}",
                              error=True)
            return None
        return state

    def _reopen(self, state: dict[str, Any]) -> None:
        reopened = self.parts.reopen(state["path"], current_transect=state.get("transect"),
                                       retained_ac=state.get("retained_ac", 0.0))
        if reopened:
            self.parts.resume()
        self.parts.conflicts_changed()

    # ------------------------------------------------------------------ resolve
    def ask_conflict_value(self, conflict: Any) -> str | None:
        """The value typed for Other value… (a tag clash: the new tag); None when cancelled."""
        from fieldapp.app.editing import FIELD_WORDS
        from fieldapp.ui.conflictsview import value_text

        if getattr(conflict.kind, "value", "") == "tag-clash":
            label = ("New tag number for this laptop's tree (check the tag nailed on it; the other"
                     " tree keeps its tag):")
            start = ""
        else:
            words, unit = FIELD_WORDS.get(conflict.field, (conflict.field, ""))
            label = (f"{words}{f' ({unit})' if unit else ''} to keep. This laptop:"
                     f" {value_text(conflict.ours)}; the office: {value_text(conflict.theirs)}.")
            start = value_text(conflict.ours)
        text, ok = QInputDialog.getText(self.parent_widget, "Resolve the conflict", label, text=start)
        return text.strip() if ok and text.strip() else None

    def start_resolve(self, conflict_id: str, choice: str) -> None:
        """Resolve conflict ``conflict_id`` with ``keep-mine``, ``keep-theirs`` or ``other``
        (asks the value) off the UI thread; the store is closed and reopened as for a sync."""
        if not self._can_start("Resolve"):
            return
        if self._visit().walk is not None:
            self.show_message("Resolve", "A boundary walk is in progress: close it (Ctrl+L)"
                                         " before resolving a conflict.")
            return
        view = self.parts.conflicts_view()
        conflict = next((c for c in (view.conflicts if view is not None else []) if c.uuid == conflict_id),
                        None)
        if choice == "other":
            value = self.ask_conflict_value(conflict) if conflict is not None else None
            if value is None:
                return
            choice = value
        state = self._close_visit_for("Resolve", "the resolution", choice=choice)
        if state is None:
            return
        visit_path = state["path"]

        def work(progress: Any, cancel: Any) -> Any:
            from fieldapp.sync.resolve import resolve_conflict

            progress(0.2, "trying the resolution on a copy of the visit")
            return resolve_conflict(visit_path, conflict_id, choice)

        self._pending = state
        self._run("resolve", "Resolve conflict", work)

    def _after_resolve(self, state: dict[str, Any], result: Any, exc: BaseException | None) -> None:
        """Reopen the visit, then say what was resolved, or why not in field words."""
        self._reopen(state)
        if exc is not None:
            from fieldapp.app.editing import resolution_refusal_words

            log.info("resolution refused: %r", exc)
            self.show_message("Resolve", f"Not resolved: {resolution_refusal_words(exc)}.\nThe"
                                         " visit was not changed.", error=True)
            return
        from fieldapp.app.layerwords import layer_words

        c, words = result
        what = f"{layer_words(c.layer)}, {c.field}" if c.field else layer_words(c.layer)
        self.show_message("Resolve", f"Conflict resolved ({what}): {words}.\nThe next sync"
                                     " (Ctrl+Y) sends it to the office and every laptop.")

    def _after_sync(self, state: dict[str, Any], report: Any, exc: BaseException | None) -> None:
        """Reopen the visit (always), resume recording, then say what happened."""
        self._reopen(state)
        if exc is not None:
            from fieldapp.sync import SyncCancelled

            if isinstance(exc, SyncCancelled):
                self.show_message("Sync", "Sync cancelled; the office was not changed. The next"
                                          " sync sends everything.")
            else:
                log.warning("sync failed: %r", exc)
                self.show_message("Sync", f"Sync failed: {error_words(exc)}\nNothing was lost:"
                                          " the next sync completes it.", error=True)
            return
        self.last_sync_report = report
        dlg = SyncResultDialog(report, self.parent_widget)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dlg.show_conflicts.clicked.connect(self.parts.show_conflicts)
        dlg.show_conflicts.clicked.connect(dlg.close)
        dlg.destroyed.connect(self._result_closed)
        self.result_dialog = dlg
        dlg.show()

    def _result_closed(self, *_: Any) -> None:
        self.result_dialog = None


__all__ = ["OfficeActions", "OfficeParts", "SyncDialog", "ExportDialog", "SyncResultDialog", "POLICY_WORDS",
           "FORMAT_WORDS", "default_export_path", "error_words"]
