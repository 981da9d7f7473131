"""Fix it on the spot: select any record on the map or in a table, edit it, delete it, undo and
redo (``Ctrl+Z`` / ``Ctrl+Shift+Z``), every step named in the status line.

:func:`install_editing` adds to the window: the *Records* tab (every record one can correct,
``Ctrl+T``), the edit form (``F4``, or Enter / double-click in the table), ``Del`` for the
selection, undo / redo of the last command whatever the panel, ``Backspace`` for the last
vertex of a boundary being walked, and a click on the map selecting the nearest record. A
selection made one way is shown the others: the map highlights it, the Records table and the
panel table listing it (OHWM points, tally) select its row. The commands and words are
:mod:`fieldapp.app.editing` (no Qt).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import pyqtgraph as pg
from PySide6.QtCore import QSignalBlocker, Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QStatusBar,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from fieldapp.app import editing as E
from fieldapp.app.corrections import Corrections
from fieldapp.app.recording import Recording
from fieldapp.survey.features import Layer
from fieldapp.ui import theme
from fieldapp.ui.mapview import set_points
from fieldapp.ui.theme import touch_rows

if TYPE_CHECKING:
    from PySide6.QtGui import QAction

    from fieldapp.ui.mapview import MapView

log = logging.getLogger(__name__)

CLICK_TOLERANCE_PX = 24          # a gloved fingertip on the map
TRISTATE = [(None, "not checked yet"), (True, "yes"), (False, "no")]


class EditForm(QDialog):
    """The edit form of one record: its fields, Save / Cancel, and for a closed boundary
    *Re-open to walk on*. A refused value is said in the form (field words) and nothing is
    changed; the form stays open to correct it."""

    def __init__(self, editor: Editor, sel: E.Selection) -> None:
        super().__init__(editor.lower_tabs.window())
        self.editor, self.sel = editor, sel
        visit = editor.recording.visit
        words = editor.corrections.words(sel)
        self.setWindowTitle(f"Edit {words}")
        self.setObjectName("editForm")
        lay = QVBoxLayout(self)
        title = QLabel(f"<b>{words[:1].upper() + words[1:]}</b>")
        lay.addWidget(title)
        form = QFormLayout()
        lay.addLayout(form)
        self.specs = E.form_fields(visit, sel)
        self.inputs: dict[str, Any] = {}
        for spec in self.specs:
            w = self._input(spec)
            w.setObjectName(f"edit_{spec.name}")
            if spec.tip:
                w.setToolTip(spec.tip)
            self.inputs[spec.name] = w
            form.addRow(f"{spec.label}{' (' + spec.unit + ')' if spec.unit else ''}", w)
        # what each field showed when the form opened: only a field the user changed is saved
        # (a number is shown rounded, 10.7087 for a DBH of 10.7086614…: saving what is shown
        # would change the record, move its modified time and send it at the next sync)
        self.shown = {name: _shown(w) for name, w in self.inputs.items()}
        if not self.specs:
            lay.addWidget(QLabel("Nothing to correct here: it was averaged from the receiver."
                                 "\nDelete it (Del) and record it again."))
        self.error = QLabel("")
        self.error.setObjectName("editError")
        self.error.setProperty("role", "reason")
        self.error.setStyleSheet("color: #b00000; font-weight: bold;")
        self.error.setWordWrap(True)
        self.error.hide()
        lay.addWidget(self.error)
        row = QHBoxLayout()
        self.reopen_button = QPushButton("Re-open to walk on")
        self.reopen_button.setObjectName("reopenWalk")
        self.reopen_button.setMinimumHeight(theme.TOUCH_PX + 4)
        self.walk_uuid = editor.corrections.walk_to_reopen(sel)
        self.reopen_button.setVisible(self.walk_uuid is not None)
        self.reopen_button.clicked.connect(self.reopen)
        self.save_button = QPushButton("Save")
        self.save_button.setObjectName("saveEdit")
        self.save_button.setDefault(True)
        self.save_button.setMinimumHeight(theme.TOUCH_PX + 4)
        self.save_button.clicked.connect(self.save)
        cancel = QPushButton("Cancel")
        cancel.setMinimumHeight(theme.TOUCH_PX + 4)
        cancel.clicked.connect(self.reject)
        row.addWidget(self.reopen_button)
        photos = editor.photos()        # the Photos tab (fieldapp.ui.photos), once built
        if photos is not None:
            self.photos_button = QPushButton("Attach photos…")
            self.photos_button.setObjectName("formAttachPhotos")
            self.photos_button.setMinimumHeight(theme.TOUCH_PX + 4)
            self.photos_button.setToolTip(f"Photos of {words} from image files (Ctrl+Shift+P)")
            self.photos_button.clicked.connect(lambda: photos.attach(sel.layer, sel.uuid))
            row.addWidget(self.photos_button)
        row.addStretch(1)
        row.addWidget(self.save_button)
        row.addWidget(cancel)
        lay.addLayout(row)
        # never narrower than its buttons: a closed boundary's four cut "Re-open to walk on" and
        # "Attach photos…" (an explicit minimum width overrides the layout's own)
        self.setMinimumWidth(max(420, lay.minimumSize().width()))

    @staticmethod
    def _input(spec: E.FieldSpec) -> QWidget:
        if spec.kind == "bool":
            box = QCheckBox()
            box.setChecked(bool(spec.value))
            return box
        if spec.kind in ("tristate", "choice"):
            combo = QComboBox()
            choices = TRISTATE if spec.kind == "tristate" else spec.choices
            for value, words in choices:
                combo.addItem(words, value)
            values = [v for v, _ in choices]
            combo.setCurrentIndex(values.index(spec.value) if spec.value in values else 0)
            return combo
        if spec.kind == "multiline":
            lines = QPlainTextEdit(spec.value or "")
            lines.setFixedHeight(80)
            return lines
        text = "" if spec.value is None else (f"{spec.value:g}" if isinstance(spec.value, float) else str(spec.value))
        line = QLineEdit(text)
        line.setMinimumHeight(36)
        return line

    def values(self) -> dict[str, Any]:
        """The fields the user changed since the form opened, {name: value} (numbers parsed;
        raises FieldRefused in field words); a field left as shown is not in it, so the record
        keeps its stored value (full precision)."""
        out: dict[str, Any] = {}
        for spec in self.specs:
            w = self.inputs[spec.name]
            if _shown(w) == self.shown[spec.name]:
                continue
            if isinstance(w, QCheckBox):
                out[spec.name] = w.isChecked()
            elif isinstance(w, QComboBox):
                out[spec.name] = w.currentData()
            elif isinstance(w, QPlainTextEdit):
                out[spec.name] = w.toPlainText()
            else:
                out[spec.name] = E.parse_field(spec, w.text())
        return out

    def save(self) -> None:
        """Save the fields the user changed as one undoable command and close; with nothing
        changed nothing is written (the record, its modified time and the undo list stay)."""
        try:
            changed = self.values()
            if not changed:
                self.editor.say(f"Nothing changed in {self._words()}: nothing saved")
                self.accept()
                return
            E.apply_form(self.editor.recording.visit, self.sel, changed)
        except Exception as exc:  # noqa: BLE001 - refused: said in field words, nothing changed
            self.error.setText(f"Not saved: {E.refusal_words(exc)}. The record keeps its previous values.")
            self.error.show()
            return
        self.editor.say(f"Saved the correction to {self._words()} — Ctrl+Z undoes it")
        self.accept()

    def _words(self) -> str:
        return self.editor.corrections.words(self.sel)

    def reopen(self) -> None:
        visit = self.editor.recording.visit
        if visit is None or self.walk_uuid is None:
            return
        if visit.walk is not None:
            self.error.setText("Close or delete the boundary being walked first.")
            self.error.show()
            return
        try:
            self.editor.corrections.reopen_walk(self.walk_uuid)
        except Exception as exc:  # noqa: BLE001
            self.error.setText(f"Not re-opened: {E.refusal_words(exc)}")
            self.error.show()
            return
        self._fill_boundary_panel(self.walk_uuid)
        self.editor.select(None)
        self.editor.say("Boundary re-opened and paused at its last vertex: Resume [R] on the"
                        " Boundary tab to walk on — Ctrl+Z undoes it")
        self.accept()


    def _fill_boundary_panel(self, walk_uuid: str) -> None:
        """The Boundary tab's fields from the re-opened area, so closing it again keeps its
        label and wetland attributes (the panel's fields are what Close boundary records)."""
        panel: Any = self.editor.panels.get("boundary")
        if panel is None:
            return
        had = self.editor.corrections.reopened(walk_uuid)
        if panel.kind.findData(had.kind) >= 0:
            panel.kind.setCurrentIndex(panel.kind.findData(had.kind))
        panel.label.setText(had.label)
        panel.wetland_type.setCurrentText(had.wetland_type)
        panel.susceptibility.setCurrentIndex(max(panel.susceptibility.findData(had.susceptibility), 0))
        panel.standing_water.setChecked(had.standing_water)
        panel.hydric.setChecked(had.hydric_vegetation)
        panel.fill.setCurrentIndex(max(panel.fill.findData(had.fill), 0))   # NR 151.125(1)(h)
        panel.fill_permit.setText(had.fill_permit)


def _shown(w: QWidget) -> Any:
    """What an edit-form input shows (compared with what it showed when the form opened)."""
    if isinstance(w, QCheckBox):
        return w.isChecked()
    if isinstance(w, QComboBox):
        return w.currentIndex()
    if isinstance(w, QPlainTextEdit):
        return w.toPlainText()
    if isinstance(w, QLineEdit):
        return w.text()
    raise TypeError(f"no edit-form input: {type(w).__name__}")


class RecordsView(QWidget):
    """The Records tab: every record one can correct, the selection, Edit / Delete / Undo /
    Redo buttons with their keys."""

    def __init__(self, editor: Editor) -> None:
        super().__init__()
        self.editor = editor
        self.setObjectName("recordsView")
        lay = QHBoxLayout(self)          # the table, its buttons in a column beside it
        lay.setContentsMargins(4, 4, 4, 4)
        column = QWidget()
        column.setObjectName("recordButtons")
        buttons = QVBoxLayout(column)
        buttons.setContentsMargins(0, 0, 0, 0)
        self.edit_button = QPushButton("Edit…  [F4]")
        self.edit_button.setObjectName("editRecord")
        self.delete_button = QPushButton("Delete  [Del]")
        self.delete_button.setObjectName("deleteRecord")
        self.undo_button = QPushButton("Undo  [Ctrl+Z]")
        self.undo_button.setObjectName("undoEdit")
        self.redo_button = QPushButton("Redo  [Ctrl+⇧+Z]")
        self.redo_button.setToolTip("Redo (Ctrl+Shift+Z)")
        self.redo_button.setObjectName("redoEdit")
        for b, fn in ((self.edit_button, editor.edit_selected), (self.delete_button, editor.delete_selected),
                      (self.undo_button, editor.undo), (self.redo_button, editor.redo)):
            b.setMinimumHeight(theme.TOUCH_PX)
            b.clicked.connect(fn)
            buttons.addWidget(b)
        buttons.addStretch(1)
        self.table = QTableWidget(0, 2)
        self.table.setObjectName("recordsTable")
        touch_rows(self.table)
        self.table.setHorizontalHeaderLabels(["Record", "Details"])
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        # both columns share the width, long words elided (the whole in the tooltip): no
        # sideways scrolling in a narrow pane
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.itemSelectionChanged.connect(self._picked)
        self.table.itemDoubleClicked.connect(lambda _i: editor.edit_selected())
        lay.addWidget(self.table, 1)
        # the buttons scroll when the tab is low (a 1024 x 600 tablet), never cut off
        from fieldapp.ui.workflows.base import PanelScroll

        self.buttons_scroll = PanelScroll(column)
        self.buttons_scroll.setObjectName("recordButtonsScroll")
        lay.addWidget(self.buttons_scroll)
        self.rows: list[E.Selection] = []
        self.dirty = True       # the model changed while the tab was hidden

    def showEvent(self, event: Any) -> None:  # noqa: N802 - Qt name
        super().showEvent(event)
        if self.dirty:
            self.refresh()

    def keyPressEvent(self, event: Any) -> None:  # noqa: N802 - Qt name
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.editor.edit_selected()
            return
        super().keyPressEvent(event)

    def refresh(self) -> None:
        self.dirty = False
        visit = self.editor.recording.visit
        rows = E.record_rows(visit) if visit is not None else []
        self.rows = [sel for sel, _, _ in rows]
        with QSignalBlocker(self.table):
            self.table.setRowCount(len(rows))
            for r, (_sel, words, details) in enumerate(rows):
                for c, text in enumerate((words, details)):
                    item = QTableWidgetItem(text)
                    item.setToolTip(f"{words}: {details}")
                    self.table.setItem(r, c, item)
        self.show_selection(self.editor.selection)
        self.undo_button.setEnabled(self.editor.corrections.can_undo)
        self.redo_button.setEnabled(self.editor.corrections.can_redo)
        has = self.editor.selection is not None
        self.edit_button.setEnabled(has)
        self.delete_button.setEnabled(has)

    def show_selection(self, sel: E.Selection | None) -> None:
        with QSignalBlocker(self.table):
            if sel in self.rows:
                self.table.selectRow(self.rows.index(sel))
                item = self.table.item(self.rows.index(sel), 0)
                if item is not None:
                    self.table.scrollToItem(item)
            else:
                self.table.clearSelection()
        self.edit_button.setEnabled(sel is not None)
        self.delete_button.setEnabled(sel is not None)

    def _picked(self) -> None:
        rows = {i.row() for i in self.table.selectedItems()}
        if rows and min(rows) < len(self.rows):
            self.editor.select(self.rows[min(rows)], source=self)


class Editor:
    """The window's selection and correction commands (see the module docstring)."""

    def __init__(self, *, corrections: Corrections, map: MapView, workflows: QTabWidget,
                 lower_tabs: QTabWidget, status: QStatusBar,
                 add_action: Callable[..., QAction],
                 panel_actions: Mapping[str, QAction], panels: Mapping[str, QWidget],
                 model_changed: Callable[[bool], None], activate: Callable[[], None],
                 photos: Callable[[], Any]) -> None:
        self.corrections = corrections
        self.recording: Recording = corrections.recording
        self.map = map
        self.workflows = workflows
        self.lower_tabs = lower_tabs
        self.panels = panels
        self.photos = photos
        self._model_changed = model_changed
        self._activate = activate
        self.selection: E.Selection | None = None
        self.selection_listeners: list[Any] = []     # fn(selection) after each select()
        self.form: EditForm | None = None
        self.records = RecordsView(self)
        lower_tabs.addTab(self.records, "Records [Ctrl+T]")
        add_action("Records", "Ctrl+T", self.show_records, tip="Every record, to correct")
        add_action("Edit selected", "F4", self.edit_selected, tip="Edit the selected record")
        add_action("Redo", "Ctrl+Shift+Z", self.redo, tip="Do again what Ctrl+Z undid")
        # Ctrl+Z and Del are also workflow keys: their one window action is pointed here
        # (two actions on one key would be ambiguous and neither would fire)
        for key, fn in (("Ctrl+Z", self.undo), ("Del", self.delete_key),
                        ("Backspace", self.remove_last_vertex)):
            act = panel_actions.get(key)
            if act is None:
                add_action(key, key, fn)
            else:
                act.triggered.disconnect()
                act.triggered.connect(lambda _checked=False, f=fn: f())
        self.status = status
        self.status.setObjectName("editStatus")
        self.status.setSizeGripEnabled(False)
        pi = map.plot.getPlotItem()
        self.mark_points = pg.ScatterPlotItem(size=30, symbol="o", brush=pg.mkBrush(0, 0, 0, 0),
                                              pen=pg.mkPen("#ff00cc", width=4))
        self.mark_lines = pg.PlotDataItem(pen=pg.mkPen("#ff00cc", width=5), connect="finite")
        for item, z in ((self.mark_lines, 30), (self.mark_points, 31)):
            item.setZValue(z)
            pi.addItem(item)
        set_points(self.mark_points, [], [])     # hidden until something is selected
        map.plot.scene().sigMouseClicked.connect(self._map_clicked)
        # take a click before selection (a note placed, a line drawn)
        self.map_click_handlers: list[Any] = [p.map_clicked for p in panels.values()
                                              if hasattr(p, "map_clicked")]
        self._timer = QTimer(lower_tabs)
        self._timer.setSingleShot(True)
        self._timer.setInterval(30)
        self._timer.timeout.connect(self.refresh)
        self.recording.on_shown(self._visit_shown)
        # another workflow shown: nothing stays selected out of sight for Del to take
        workflows.currentChanged.connect(self._tab_changed)
        self._hook_panel_tables()

    # -------------------------------------------------------------- wiring
    def _visit_shown(self, visit: Any) -> None:
        self.selection = None
        if visit is not None:
            visit.change_listeners.append(lambda _only_track: None if _only_track else self._timer.start())
        self.refresh()

    def _tab_changed(self, _index: int) -> None:
        if self.selection is not None:
            self.select(None)
            self.status.clearMessage()

    def _hook_panel_tables(self) -> None:
        for name, panel in self.panels.items():
            self._hook_table(name, panel)

    def panel_built(self, name: str, panel: Any) -> None:
        """A workflow panel built after the editor (:mod:`fieldapp.ui.workflows` builds the
        tabs not shown at start later): its map clicks and its table's selection."""
        if hasattr(panel, "map_clicked"):
            self.map_click_handlers.append(panel.map_clicked)
        self._hook_table(name, panel)

    def _hook_table(self, name: str, panel: Any) -> None:
        if name == "ohwm":
            panel.table.itemSelectionChanged.connect(lambda: self._panel_picked(
                panel.table, Layer.OHWM_POINT,
                lambda: self.recording.visit.ohwm_points() if self.recording.visit else []))
        elif name == "tally":
            panel.table.itemSelectionChanged.connect(lambda: self._panel_picked(
                panel.table, Layer.TREE, lambda: panel._rows))

    def _panel_picked(self, table: QTableWidget, layer: Layer, records: Any) -> None:
        rows = {i.row() for i in table.selectedItems()}
        recs = records() if self.recording.visit is not None else []
        if rows and min(rows) < len(recs):
            self.select(E.Selection(layer, recs[min(rows)].uuid), source=table)

    def _panel_rows(self) -> list[Any]:
        panels: Mapping[str, Any] = self.panels
        visit = self.recording.visit
        out = []
        if "ohwm" in panels and visit is not None:
            out.append((panels["ohwm"].table, Layer.OHWM_POINT, visit.ohwm_points()))
        if "tally" in panels:
            out.append((panels["tally"].table, Layer.TREE, panels["tally"]._rows))
        return out

    # -------------------------------------------------------------- selection
    def select(self, sel: E.Selection | None, source: Any = None) -> None:
        """Select ``sel`` (None: nothing) everywhere it is shown but ``source``."""
        self.selection = sel
        if source is not self.records:
            if self.records.dirty and sel is not None:
                self.records.refresh()      # its row is there to select
            self.records.show_selection(sel)
        for table, layer, recs in self._panel_rows():
            if table is source:
                continue
            with QSignalBlocker(table):
                uuids = [r.uuid for r in recs]
                if sel is not None and sel.layer is layer and sel.uuid in uuids:
                    table.selectRow(uuids.index(sel.uuid))
                else:
                    table.clearSelection()
        self._mark()
        for fn in list(self.selection_listeners):
            fn(sel)

    def _mark(self) -> None:
        visit = self.recording.visit
        shapes = E.selection_shapes(visit, self.selection) if visit is not None else {"points": [], "lines": []}
        m = self.map
        pts = m._to_local(shapes["points"]) if shapes["points"] else []
        set_points(self.mark_points, [p[0] for p in pts], [p[1] for p in pts])
        from fieldapp.ui.mapview import _nan_join

        x, y = _nan_join([m._to_local(line) for line in shapes["lines"]])
        self.mark_lines.setData(x, y, connect="finite")

    def refresh(self) -> None:
        """After a model change: the selection still there (else none), the table, the mark."""
        if self.selection is not None and self.recording.visit is not None \
                and not self.corrections.exists(self.selection):
            self.selection = None
        if self.records.isVisible():
            self.records.refresh()
        else:
            self.records.dirty = True       # rebuilt when shown (a long tally costs nothing)
        self._mark()

    def _map_clicked(self, event: Any) -> None:
        if event.button() != Qt.MouseButton.LeftButton or self.recording.visit is None:
            return
        vb = self.map.plot.getPlotItem().getViewBox()
        if not vb.sceneBoundingRect().contains(event.scenePos()):
            return
        p = vb.mapSceneToView(event.scenePos())
        ox, oy = self.map.origin or (0.0, 0.0)
        x_ft, y_ft = p.x() + ox, p.y() + oy
        for handler in list(self.map_click_handlers):
            if handler(x_ft, y_ft):
                return
        (x0, x1), _ = vb.viewRange()
        tol = CLICK_TOLERANCE_PX * (x1 - x0) / max(vb.width(), 1.0)
        self.click_at(x_ft, y_ft, tol)

    def click_at(self, x_ft: float, y_ft: float, tolerance_ft: float) -> E.Selection | None:
        """Select the record nearest (x_ft, y_ft) in site feet (None: clear the selection)."""
        sel = E.nearest_record(self.recording.visit, x_ft, y_ft, tolerance_ft)
        self.select(sel)
        if sel is not None:
            self.say(f"Selected {self.corrections.words(sel)}: F4 edits it, Del deletes it")
        return sel

    # -------------------------------------------------------------- commands
    def say(self, text: str) -> None:
        """The status line (stays until the next message)."""
        self.status.showMessage(text)

    def _run(self, fn: Any, what: str) -> None:
        if self.recording.visit is None:
            return
        try:
            text = fn(self.recording.visit)
        except Exception as exc:  # noqa: BLE001 - refused: said, nothing changed
            self.say(f"{what} refused: {E.refusal_words(exc)}")
            return
        self.say(text)
        self._model_changed(False)
        self.refresh()

    def undo(self) -> None:
        self._run(E.undo, "Undo")

    def redo(self) -> None:
        self._run(E.redo, "Redo")

    def delete_selected(self) -> None:
        sel = self.selection
        if sel is None:
            self.say("Select a record first (click it on the map or in a table)")
            return
        self.select(None)
        self._run(lambda v: E.delete_words(v, sel), "Delete")

    def delete_key(self) -> None:
        """Del: the selection; with none, the shown panel's own Del (if any)."""
        if self.selection is not None:
            self.delete_selected()
            return
        panel: Any = self.workflows.currentWidget()
        fn = getattr(panel, "keys", {}).get("Del")
        if fn is not None:
            fn()
        else:
            self.delete_selected()

    def remove_last_vertex(self) -> None:
        """Backspace: the last vertex of the line being drawn on the shown panel (Lines), else
        of the boundary being walked (one undoable command)."""
        panel: Any = self.workflows.currentWidget()
        if getattr(panel, "draft", None) is not None:
            panel.keys["Backspace"]()
            return
        visit = self.recording.visit
        if visit is None or visit.walk is None:
            self.say("No boundary is being walked")
            return
        self._run(lambda _v: self.corrections.remove_last_vertex(), "Remove vertex")

    def edit_selected(self) -> EditForm | None:
        """Open the edit form of the selection (F4); returns it (None: nothing selected)."""
        if self.selection is None or self.recording.visit is None:
            self.say("Select a record first (click it on the map or in a table)")
            return None
        self.form = EditForm(self, self.selection)
        self.form.finished.connect(self._form_closed)
        self.form.open()
        return self.form

    def _form_closed(self, _result: int) -> None:
        self._activate()                # the keys go to the window again at once
        self._model_changed(False)
        self.refresh()

    def show_records(self) -> None:
        self.lower_tabs.setCurrentWidget(self.records)
        self.records.table.setFocus()


def install_editing(window: Any) -> Editor:
    """Add the Records tab, the edit keys and map selection to ``window`` (after the workflow
    panels); returns the :class:`Editor` (the window keeps it as ``window.editor``)."""
    editor = Editor(
        corrections=Corrections(window.recording), map=window.map, workflows=window.tabs,
        lower_tabs=window.lower_tabs, status=window.statusBar(), add_action=window._action,
        panel_actions=window.panel_actions, panels=window.panels,
        model_changed=window._model_changed, activate=window.activateWindow,
        photos=lambda: getattr(window, "photos", None))
    return editor
