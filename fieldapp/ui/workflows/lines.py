"""Lines and notes: walk or draw a drainageway centreline, swale, utility trench or drive edge
(with the mapped-stream flag and tributary area the drainageway check needs); put a note at
the current position or at a map click. Recorded lines and notes are corrected in the Records
tab (F4)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pyqtgraph as pg
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QGroupBox,
    QLabel,
    QLineEdit,
)

from fieldapp.app import editing as E
from fieldapp.app.devicefeed import DeviceFeed
from fieldapp.app.lines import LINE_KINDS, LineDraft, add_note_at, add_note_here
from fieldapp.app.recording import Recording
from fieldapp.ui.notices import Notices
from fieldapp.ui.recordgate import RecordGate
from fieldapp.ui.workflows.base import (
    ButtonColumns,
    WorkflowPanel,
    add_field,
    big_button,
    field_grid,
    state_label,
)

if TYPE_CHECKING:
    from fieldapp.ui.mapview import MapView

MAPPED = [(None, "not checked yet"), (True, "yes — on the USGS quad or soil map"), (False, "no")]


class LinesPanel(WorkflowPanel):
    """Walk or draw lines; notes."""

    title = "Lines"

    def __init__(self, *, recording: Recording, devices: DeviceFeed, gate: RecordGate, notices: Notices,
                 shown: Callable[[], Any], map: MapView, parent: Any = None) -> None:
        super().__init__(recording=recording, gate=gate, notices=notices, parent=parent)
        self.devices = devices
        self._shown = shown
        self._map = map
        lay = self.body_layout
        self.state = state_label("Walk or draw a drainageway or swale, or add a note.")
        self.state.setObjectName("linesState")
        lay.addWidget(self.state)

        what = QGroupBox("Line")
        g = field_grid()
        g.setContentsMargins(9, 4, 9, 9)
        what.setLayout(g)
        self.kind = QComboBox()
        self.kind.setObjectName("lineKind")
        for value, words in LINE_KINDS:
            self.kind.addItem(words, value)
        self.label = QLineEdit()
        self.label.setObjectName("lineLabel")
        self.label.setPlaceholderText("e.g. Drainageway 1")
        self.spacing = QDoubleSpinBox()
        self.spacing.setRange(1.0, 500.0)
        self.spacing.setValue(10.0)
        self.spacing.setSuffix(" ft")
        self.mapped = QComboBox()
        self.mapped.setObjectName("mappedStream")
        for mapped, mapped_words in MAPPED:
            self.mapped.addItem(mapped_words, mapped)
        # as wide as the grid gives it (the full words on any screen from 1024 px wide), never
        # the widest answer's width: the panel fits a 1024 x 600 tablet
        self.mapped.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.mapped.setMinimumContentsLength(16)
        self.mapped.setToolTip("Only a stream on the USGS 7.5-minute quadrangle or the county soil"
                               " survey map is a drainageway (Decorah resource protection, Drainageways A.1)")
        self.tributary = QLineEdit()
        self.tributary.setObjectName("tributaryArea")
        self.tributary.setPlaceholderText("ac, e.g. 12")
        self.tributary.setToolTip("Tributary area draining to the line, acres (swales: Drainageways A.2)")
        add_field(g, 0, 0, "Kind", self.kind)
        add_field(g, 0, 1, "Label", self.label)
        add_field(g, 0, 2, "Vertex every", self.spacing)
        self.mapped_label = add_field(g, 1, 0, "Mapped stream", self.mapped, span=2)
        add_field(g, 1, 2, "Tributary area (ac)", self.tributary)
        g.setColumnStretch(1, 1)
        lay.addWidget(what)
        self.kind.currentIndexChanged.connect(self._kind_changed)

        self.walk_button = big_button("Walk line", "W", "Take a vertex every so many feet walked")
        self.walk_button.setObjectName("walkLine")
        self.draw_button = big_button("Draw on map", "D", "Each click on the map is a vertex")
        self.draw_button.setObjectName("drawLine")
        self.vertex_button = big_button("Vertex here", "V")
        self.vertex_button.setObjectName("lineVertex")
        self.back_button = big_button("Remove last vertex", "Backspace")
        self.back_button.setObjectName("lineBack")
        self.finish_button = big_button("Finish line", "Ctrl+L")
        self.finish_button.setObjectName("finishLine")
        self.cancel_button = big_button("Discard", "Esc")
        self.cancel_button.setObjectName("discardLine")
        # two rows of three; three rows of two on a narrow panel (a 1024 px wide tablet)
        columns = ButtonColumns(3)
        for b in (self.walk_button, self.draw_button, self.vertex_button,
                  self.back_button, self.finish_button, self.cancel_button):
            columns.addWidget(b)
        lay.addLayout(columns)

        notes = QGroupBox("Note")
        ng = field_grid()
        ng.setContentsMargins(9, 4, 9, 9)
        notes.setLayout(ng)
        self.note_text = QLineEdit()
        self.note_text.setObjectName("noteText")
        self.note_text.setPlaceholderText("e.g. culvert under the drive, 18 in")
        # the group's title names the field: no label row of its own (the note's buttons stay
        # in view without scrolling in a 1366 x 768 window)
        self.note_text.setAccessibleName("Note")
        ng.addWidget(self.note_text, 0, 0, 1, 2)
        self.note_here_button = big_button("Note here", "M", "At the receiver's position")
        self.note_here_button.setObjectName("noteHere")
        self.note_click_button = big_button("Note at map click", "K", "The next click on the map places it")
        self.note_click_button.setObjectName("noteAtClick")
        ng.addWidget(self.note_here_button, 1, 0)
        ng.addWidget(self.note_click_button, 1, 1)
        lay.addWidget(notes)
        self.measures = QLabel("")
        self.measures.setObjectName("lineMeasures")
        self.measures.setProperty("role", "state")
        self.measures.setWordWrap(True)
        lay.addWidget(self.measures)
        lay.addStretch(1)

        self.draft: LineDraft | None = None
        self.note_pending = False
        self.bind("W", self.walk_line, self.walk_button)
        self.bind("D", self.draw_line, self.draw_button)
        self.bind("V", self.vertex_here, self.vertex_button)
        self.bind("Backspace", self.remove_last, self.back_button)
        self.bind("Ctrl+L", self.finish, self.finish_button)
        self.bind("Esc", self.discard, self.cancel_button)
        self.bind("M", self.note_here, self.note_here_button)
        self.bind("K", self.note_at_click, self.note_click_button)
        gate.register(self.walk_button)
        gate.register(self.vertex_button)
        devices.on_fix(self.on_fix)
        # the draft belongs to the visit closed: said, never recorded in the one shown now
        recording.on_shown(lambda _v: self.discard(
            why="the visit was closed (another visit shown, or a sync) before it was finished"))
        self.draft_item = pg.PlotDataItem(pen=pg.mkPen("#ff6600", width=3), symbol="o", symbolSize=8,
                                          symbolBrush="#ff6600")
        self.draft_item.setZValue(25)
        map.plot.getPlotItem().addItem(self.draft_item)
        self._kind_changed()
        self._update_buttons()

    # -------------------------------------------------------------- line
    def _kind_changed(self, _i: int = -1) -> None:
        stream = self.kind.currentData() == "drainageway_centreline"
        self.mapped.setVisible(stream)
        self.mapped_label.setVisible(stream)

    def _start(self, drawing: bool) -> None:
        if self.visit is None or self.draft is not None:
            return
        if drawing and not self.recording.has_frame:
            self.error("Drawing needs the site's coordinates: wait for a usable fix first.")
            return
        self.draft = LineDraft(self.visit, self.kind.currentData(), spacing_ft=self.spacing.value(),
                               drawing=drawing)
        fix = self.devices.usable_fix()
        if not drawing and fix is not None:
            self.draft.feed(fix)
        self.state.setText("Drawing: click each vertex on the map, then Finish line [Ctrl+L]." if drawing
                           else "Walking the line: a vertex every "
                                f"{self.spacing.value():g} ft; V marks a bend, Ctrl+L finishes.")
        self._changed()

    def walk_line(self) -> None:
        self._start(False)

    def draw_line(self) -> None:
        self._start(True)

    def on_fix(self, fix: Any) -> None:
        if self.draft is not None and self.devices.usable_fix() is not None and self.draft.feed(fix):
            self._changed()

    def vertex_here(self) -> None:
        fix = self.devices.usable_fix()
        if self.draft is None or fix is None:
            return
        self.draft.vertex_at_fix(fix)
        self._changed()

    def map_clicked(self, x_ft: float, y_ft: float) -> bool:
        """A map click (site feet): a vertex while drawing, the note when one waits; True
        when taken (the click then selects nothing)."""
        if self._shown() is not self or self.visit is None:
            return False
        if self.note_pending:
            self.note_pending = False
            self._add_note(lambda text: add_note_at(self.visit, text, x_ft, y_ft), "at the map click")
            return True
        if self.draft is not None and self.draft.state == "drawing":
            self.draft.vertex_at_ft(x_ft, y_ft)
            self._changed()
            return True
        return False

    def remove_last(self) -> None:
        if self.draft is not None and self.draft.remove_last():
            self.state.setText(f"Vertex {len(self.draft.vertices) + 1} taken back.")
            self._changed()

    def _number(self, edit: QLineEdit, words: str) -> float | None:
        spec = E.FieldSpec("n", words, "number", None)
        return E.parse_field(spec, edit.text())

    def finish(self) -> None:
        if self.draft is None:
            return
        try:
            line = self.draft.finish(label=self.label.text().strip(), mapped_stream=self.mapped.currentData(),
                                     tributary_area_ac=self._number(self.tributary, "Tributary area"))
        except Exception as exc:  # noqa: BLE001 - refused in field words; the draft stays
            self.error(f"Line not recorded: {E.refusal_words(exc)}")
            return
        words = dict(LINE_KINDS)[self.draft.kind]
        self.draft = None
        self.notices.show_banner("")
        length_ft = self.recording.length_ft(line.geometry)
        self.state.setText(f"Recorded {words} {line.label or ''} ({length_ft:.0f} ft)"
                           " — Ctrl+Z undoes it; F4 in Records corrects it.")
        self._changed()

    def discard(self, quiet: bool = False, why: str = "") -> None:
        """Esc: the line being walked or drawn (or the note waiting for its map click) is
        dropped; ``why`` given, the state line and the key legend say what was not recorded."""
        had = self.draft is not None or self.note_pending
        what = "Line" if self.draft is not None else "Note at a map click"
        self.draft = None
        self.note_pending = False
        if had and why:
            self.state.setText(f"{what} not recorded: {why}.")
            self.notices.key_refusal(self.state.text())
        elif had and not quiet:
            self.state.setText("Line discarded; nothing recorded.")
        if hasattr(self, "draft_item"):
            self._changed()

    # -------------------------------------------------------------- notes
    def _add_note(self, make: Any, where: str) -> None:
        text = self.note_text.text().strip()
        try:
            note = make(text)
        except Exception as exc:  # noqa: BLE001
            self.error(f"Note not recorded: {E.refusal_words(exc)}")
            return
        self.note_text.clear()
        self.state.setText(f"Note recorded {where if note.x is not None else 'without a position'}"
                           " — Ctrl+Z undoes it; F4 in Records edits it.")

    def note_here(self) -> None:
        if self.visit is None:
            return
        fix = self.devices.usable_fix()
        self._add_note(lambda text: add_note_here(self.visit, text, fix), "here")

    def note_at_click(self) -> None:
        if not self.recording.has_frame:
            self.error("A note at a map click needs the site's coordinates: wait for a usable fix.")
            return
        if not self.note_text.text().strip():
            self.error("Type the note first, then click where it goes.")
            return
        self.note_pending = True
        self.state.setText("Click on the map where the note goes (Esc: not now).")

    # -------------------------------------------------------------- view
    def _changed(self) -> None:
        d = self.draft
        pts = self._map._to_local(d.vertices_ft()) if d is not None and d.vertices else []
        self.draft_item.setData([p[0] for p in pts], [p[1] for p in pts])
        if d is not None:
            self.measures.setText(f"{len(d.vertices)} vertices, {d.length_ft():,.0f} ft")
        else:
            self.measures.setText("")
        self._update_buttons()

    def _update_buttons(self) -> None:
        d = self.draft
        self.gate.set_extra_ok(self.walk_button, d is None)
        self.gate.set_extra_ok(self.vertex_button, d is not None and d.state == "walking")
        self.draw_button.setEnabled(d is None)
        self.back_button.setEnabled(bool(d and d.vertices))
        self.finish_button.setEnabled(bool(d and len(d.vertices) >= 2))
        self.cancel_button.setEnabled(d is not None or self.note_pending)
        self.kind.setEnabled(d is None)

    def refresh(self) -> None:
        self._update_buttons()
