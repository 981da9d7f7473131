"""Tally workflow: caliper readings arrive as rows at the current position; edit, delete with
undo; crown radius typed or shot; a running stand summary with the woodland class and why."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
)

from fieldapp.app import tallyreview
from fieldapp.app.devicefeed import DeviceFeed
from fieldapp.app.recording import Recording
from fieldapp.app.wording import plural
from fieldapp.ui.notices import Notices
from fieldapp.ui.recordgate import RecordGate
from fieldapp.ui.theme import touch_rows
from fieldapp.ui.workflows.base import (
    WorkflowPanel,
    add_field,
    big_button,
    field_grid,
    moving_reason,
    state_label,
)

if TYPE_CHECKING:
    from fieldapp.ui.simsupport import SimulatedSurveyor

COLUMNS = ("Tag", "Species", "DBH in", "Leaf habit", "Crown radius ft")
EDITABLE = {1: "species_name", 2: "dbh_in", 3: "leaf_habit", 4: "crown_radius_ft"}
#: The widest text of each fixed-width column (tag, DBH up to 500.0 in, leaf habit, crown
#: radius).
WIDEST = {0: "99999", 2: "500.0", 3: "deciduous", 4: "200.0"}


#: Why Record tree [T] is off once the caliper is in use (its readings record their own trees).
CALIPER_REASON = "type a DBH to tally a tree by hand (a caliper reading records its tree at once)"

class TallyPanel(WorkflowPanel):
    """Tree tally of the current stand."""

    title = "Tally"

    def __init__(self, *, recording: Recording, devices: DeviceFeed, gate: RecordGate,
                 notices: Notices, shown: Callable[[], Any],
                 surveyor: Callable[[], SimulatedSurveyor | None],
                 parent: Any = None) -> None:
        super().__init__(recording=recording, gate=gate, notices=notices, parent=parent)
        self.devices = devices
        self._shown = shown
        self._surveyor = surveyor
        lay = self.body_layout
        self.state = state_label("Squeeze the caliper at a tree, or type it.")
        self.state.setObjectName("tallyState")
        lay.addWidget(self.state)

        # Tree fields (labels above), then the record buttons: compact on a 1366 px screen
        g = field_grid()
        self.species = QLineEdit()
        self.species.setObjectName("speciesEdit")
        self.species.setPlaceholderText("e.g. red oak")
        self.dbh = QDoubleSpinBox()
        self.dbh.setObjectName("dbhSpin")
        self.dbh.setRange(0.0, 500.0)
        self.dbh.setDecimals(1)
        self.dbh.setSuffix(" in")
        self.habit = QComboBox()
        self.habit.setObjectName("habitCombo")
        self.habit.addItems(["deciduous", "evergreen"])
        self.crown = QDoubleSpinBox()
        self.crown.setObjectName("crownSpin")
        self.crown.setRange(0.0, 200.0)
        self.crown.setDecimals(1)
        self.crown.setSuffix(" ft")
        self.crown.setToolTip("Crown radius: typed, or the horizontal distance of a rangefinder"
                              " shot to the drip line")
        self.tag = QSpinBox()
        self.tag.setObjectName("tagSpin")
        self.tag.setRange(1, 9_999_999)
        self.tag.setToolTip("The number on the tree's aluminium tag: the next one counted on from"
                            " your last tree; type another to start from the crew's own number")
        self.tag.valueChanged.connect(self._tag_typed)
        #: the Tag field was typed since the last tree (its number is used, not the next one)
        self.tag_typed = False
        # two rows: fields with 40 px spin-box arrows fit a 640 px panel side by side
        add_field(g, 2, 0, "Tag", self.tag)
        add_field(g, 0, 0, "Species", self.species)
        add_field(g, 0, 1, "Leaf", self.habit)
        add_field(g, 1, 0, "DBH", self.dbh)
        add_field(g, 1, 1, "Crown radius", self.crown)
        g.setColumnStretch(0, 1)
        lay.addLayout(g)

        buttons = QGridLayout()
        buttons.setSpacing(6)
        self.add_button = big_button("Record tree", "T", "Record a tree at the current position")
        self.add_button.setObjectName("addTree")
        self.squeeze_button = big_button("Caliper (simulator)", "C",
                                         "Ask the simulated caliper for the next tree")
        self.squeeze_button.setObjectName("squeezeButton")
        self.squeeze_button.setVisible(False)
        self.delete_button = big_button("Delete tree", "Del", "Delete the selected tree row")
        self.delete_button.setObjectName("deleteTree")
        self.undo_button = big_button("Undo delete", "Ctrl+Z")
        self.undo_button.setObjectName("undoDelete")
        # why Record tree is off, in view under it (a gloved or touch user cannot hover for
        # the tooltip); its line is kept while hidden, so the buttons below never move
        self.add_reason = QLabel("")
        self.add_reason.setObjectName("recordTreeReason")
        self.add_reason.setProperty("role", "reason")
        self.add_reason.setWordWrap(True)
        keep = self.add_reason.sizePolicy()
        keep.setRetainSizeWhenHidden(True)
        self.add_reason.setSizePolicy(keep)
        buttons.addWidget(self.add_button, 0, 0)
        buttons.addWidget(self.squeeze_button, 0, 1)
        buttons.addWidget(self.add_reason, 1, 0, 1, 2)
        buttons.addWidget(self.delete_button, 2, 0)
        buttons.addWidget(self.undo_button, 2, 1)
        lay.addLayout(buttons)

        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("tallyTable")
        touch_rows(self.table)
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        hdr = self.table.horizontalHeader()
        # widths fitted once to the widest text a column can hold, not re-measured over
        # thousands of rows at every squeeze (ResizeToContents did: 0.1 s at 4,000 trees)
        hdr.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        hdr.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        cell, head = self.table.fontMetrics(), hdr.fontMetrics()
        for c, widest in WIDEST.items():
            hdr.resizeSection(c, 24 + max(cell.horizontalAdvance(widest),
                                          head.horizontalAdvance(COLUMNS[c])))
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.setMinimumHeight(150)
        self.table.itemChanged.connect(self._cell_edited)
        lay.addWidget(self.table, 1)

        row = QHBoxLayout()
        retained_label = QLabel("Retained woodland area (plan)")
        row.addWidget(retained_label)
        self.retained = QDoubleSpinBox()
        self.retained.setObjectName("retainedSpin")
        self.retained.setRange(0.0, 10000.0)
        self.retained.setDecimals(2)
        self.retained.setSuffix(" ac")
        self.retained.setToolTip("Woodland area the plan keeps (for protection and mitigation)")
        self.retained.valueChanged.connect(lambda v: self.visit and self.visit.set_retained_ac(v))
        retained_label.setBuddy(self.retained)
        row.addWidget(self.retained)
        self.complete = QCheckBox("Tally complete")
        self.complete.setObjectName("tallyComplete")
        self.complete.setToolTip("Tick once every tree of the stand is recorded: until then the"
                                 " woodland class is provisional (from the trees so far)."
                                 " Stored with the stand.")
        self.complete.clicked.connect(self.set_complete)
        row.addStretch(1)
        lay.addLayout(row)
        lay.addWidget(self.complete)
        self.summary = QLabel("")
        self.summary.setObjectName("standSummary")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(self.summary)

        self.pending: list[Any] = []     # caliper readings waiting for a usable fix ...
        self._pending_in: Any = None     # ... squeezed in this visit: (file path, name)
        self.expected_crowns: deque[float | None] = deque()
        self._rows: list[Any] = []
        self.bind("T", self.add_typed_tree, self.add_button)
        self.bind("C", self.squeeze, self.squeeze_button)
        self.bind("Del", self.delete_selected, self.delete_button)
        self.bind("Ctrl+Z", self.undo_delete, self.undo_button)
        gate.register(self.add_button)
        self._walking_reason = ""
        self._caliper_used = False       # a caliper reading came: the DBH is not typed here
        self._refusal = ""               # the key legend's refusal of T, until T is live
        self.dbh.valueChanged.connect(self._update_add_ok)
        self._update_add_ok()
        devices.on_usable_changed(lambda *_: self._show_add_reason())
        recording.on_shown(self._visit_shown)
        devices.on_reading("caliper", self.on_caliper)
        devices.on_reading("rangefinder", self.on_shot)
        devices.on_started(self._devices_started)
        devices.on_fix(self._flush_pending)

    def _devices_started(self) -> None:
        self.squeeze_button.setVisible(self.devices.simulator("caliper") is not None)
        if self.devices.simulating:
            self._surveyor()             # simulate mode: the simulated surveyor walks

    def focus_first(self) -> None:
        self.add_button.setFocus()

    def walker_changed(self, walker: Any) -> None:
        """Simulate mode: while the simulated surveyor walks, Record tree [T] waits (a tree
        is recorded where the receiver stands), with the reason."""
        moving = walker.busy and not walker.paused
        self._walking_reason = f"walking to {walker.walking_to}…" if moving else ""
        self._update_add_ok()

    def _update_add_ok(self, *_: Any) -> None:
        """Record tree [T] records the typed DBH: off, with the reason, while it reads 0.0 in
        (a tree is never tallied without its diameter) or the simulated surveyor walks."""
        why = self._walking_reason or ("" if self.dbh.value() > 0 else
                                       "type the DBH first (it reads 0.0 in)")
        self.gate.set_extra_ok(self.add_button, False if why else None, why)
        self._show_add_reason()

    def _visit_shown(self, visit: Any) -> None:
        """A visit shown (a new one has the DBH back at 0.0 in, set without a signal): Record
        tree and its reason as the form now is, the caliper's readings not yet seen; the
        readings still waiting for a fix in another visit dropped (:meth:`_drop_pending`)."""
        self._drop_pending(visit)
        self._caliper_used = False
        self._update_add_ok()

    def _drop_pending(self, visit: Any) -> None:
        """Another visit shown: the caliper readings still waiting for a usable fix were
        squeezed at the last visit's trees, so they are dropped, with what and why on the
        state line and in the key legend ("Caliper reading 12.3 in not recorded: the visit
        changed before a usable fix came (it was squeezed in Site A)."), never recorded in
        ``visit``. The same visit shown again (its file reopened after a sync) keeps them;
        readings squeezed while no visit was open wait for the first one shown."""
        if not self.pending:
            return
        path = getattr(visit, "path", None)
        held = self._pending_in
        if held is None or (path is not None and _same_file(path, held[0])):
            self._pending_in = held or _visit_id(visit)
            return
        dropped, self.pending, self._pending_in = self.pending, [], None
        self.expected_crowns.clear()       # the simulated surveyor's crowns for those trees
        text = dropped_words([r.dbh_in for r in dropped], held[1])
        self.state.setText(text)
        self.notices.key_refusal(text)

    def _show_add_reason(self) -> None:
        """The panel's own reason for Record tree [T] being off, shown under it ("Record tree
        is off: type the DBH first (it reads 0.0 in)"), hidden once the DBH is typed; once a
        caliper reading came it says the caliper records its own trees (T is for a typed DBH):
        while T is off the reason is always on screen (gloved and touch users cannot hover).
        T becoming live also ends the key legend's refusal of it."""
        live = self.add_button.isEnabled()
        why = "" if live else self._walking_reason or (
            "" if self.dbh.value() > 0 else
            CALIPER_REASON if self._caliper_used else "type the DBH first (it reads 0.0 in)")
        self.add_reason.setText(f"Record tree is off: {why}" if why else "")
        self.add_reason.setVisible(bool(why))
        if live and self._refusal and self.notices.key_hint() == self._refusal:
            self.notices.key_refusal("")
        if live:
            self._refusal = ""

    def key_refused(self, key: str, button: QPushButton) -> None:
        super().key_refused(key, button)
        if button is self.add_button:
            self._refusal = self.notices.key_hint()   # cleared from the legend once T is live

    # -------------------------------------------------------------- commands
    def add_typed_tree(self) -> None:
        fix = self.devices.usable_fix()
        if fix is None:
            return
        why = moving_reason(fix)
        if why:            # a tree is recorded where it stands, not from a walking receiver
            self.notices.key_refusal(f"Tree not recorded: {why}.")
            self.state.setText(f"Tree not recorded: {why}.")
            return
        self._record(fix, dbh_in=self.dbh.value(), species_code="",
                     species_name=self.species.text().strip(),
                     leaf_habit=self.habit.currentText(),
                     crown_radius_ft=self.crown.value() or None, reading=None)

    def _tag_typed(self, _value: int) -> None:
        self.tag_typed = True

    def show_next_tag(self) -> None:
        """The Tag field shows the tag the next tree gets (unless the crew typed one)."""
        if self.visit is not None and not self.tag_typed:
            with QSignalBlocker(self.tag):
                self.tag.setValue(self.visit.model.next_tag())

    def _record(self, fix: Any, **kw: Any) -> None:
        if self.tag_typed:                  # the crew's own number; the next ones count on from it
            kw["tag"] = self.tag.value()
        try:
            tree = self.visit.add_tree(fix, **kw)
        except Exception as exc:  # noqa: BLE001
            self.error("Tree refused", exc)
            return
        self.tag_typed = False
        self.show_next_tag()
        self.notices.clear_refusal()              # e.g. a caliper reading after a refused one
        self.state.setText(f"Tree {tree.tag} recorded: {tree.dbh_in:.1f} in "
                           f"{tree.species_name or tree.species_code or '(species?)'}")

    def on_caliper(self, reading: Any) -> None:
        """A caliper reading becomes a tree at the current fix (held until a fix is usable)."""
        if not self._caliper_used:
            self._caliper_used = True
            self._show_add_reason()
        fix = self.devices.usable_fix()
        if fix is None:
            if not self.pending:
                self._pending_in = _visit_id(self.visit)
            self.pending.append(reading)
            self.state.setText(f"{plural(len(self.pending), 'caliper reading')} waiting for a usable fix"
                               f" ({self.devices.problem}).")
            return
        self._record_reading(fix, reading)

    def expect_crown(self, crown_radius_ft: float | None) -> None:
        """The simulated surveyor typed ``crown_radius_ft`` for the caliper reading it is about
        to send: shown in the crown field, and used for that reading (in arrival order)."""
        if crown_radius_ft:
            self.crown.setValue(crown_radius_ft)
        self.expected_crowns.append(crown_radius_ft)

    def _record_reading(self, fix: Any, reading: Any) -> None:
        habit = getattr(reading, "leaf_habit", None) or self.habit.currentText()
        crown = (self.expected_crowns.popleft() if self.expected_crowns
                 else self.crown.value()) or None
        self._record(fix, dbh_in=reading.dbh_in,
                     species_code=getattr(reading, "species_code", None) or "",
                     species_name=(getattr(reading, "common_name", None)
                                   or getattr(reading, "species_label", "") or ""),
                     leaf_habit=getattr(habit, "value", habit),
                     crown_radius_ft=crown, reading=reading)

    def _flush_pending(self, _fix: Any) -> None:
        if self.pending and self.devices.usable_fix() is not None:
            pending, self.pending, self._pending_in = self.pending, [], None
            for r in pending:
                self._record_reading(self.devices.latest_fix, r)

    def on_shot(self, shot: Any) -> None:
        if self._shown() is self and getattr(shot, "horizontal_distance_ft", None):
            self.crown.setValue(shot.horizontal_distance_ft)
            self.state.setText(f"Crown radius {shot.horizontal_distance_ft:.1f} ft from the shot.")

    def squeeze(self) -> None:
        """Simulator button: the simulated surveyor walks to the next scenario tree and
        squeezes the caliper there (no surveyor: squeeze where the receiver is)."""
        sim = self.devices.simulator("caliper")
        if sim is None:
            return
        from devices.sim.factory import squeeze

        walker = self._surveyor()
        if walker is not None and walker.trees:
            walker.measure_next_tree(self)
        else:
            squeeze(sim)

    def expected_trees(self) -> int | None:
        """How many trees stand inside the current stand when that is known: the demo
        scenario's trees (``stand.trees[].position``, lat / lon) inside it; else None."""
        scenario = self.devices.scenario
        trees = (scenario or {}).get("stand", {}).get("trees") if isinstance(scenario, dict) else None
        stand = self.visit.current_stand() if self.visit is not None else None
        if not trees or stand is None or stand.geometry is None or not self.visit.model.has_frame:
            return None
        import shapely

        frame = self.visit.model.frame
        points = [shapely.Point(*frame.to_local(t["position"][1], t["position"][0]))
                  for t in trees if t.get("position")]
        return sum(1 for p in points if stand.geometry.covers(p)) or None

    def selected_tree(self) -> Any:
        rows = {i.row() for i in self.table.selectedItems()}
        if not rows and self.table.currentRow() >= 0:
            rows = {self.table.currentRow()}
        return self._rows[min(rows)] if rows and min(rows) < len(self._rows) else None

    def delete_selected(self) -> None:
        tree = self.selected_tree()
        if tree is None:
            self.error("Select a tree row to delete.")
            return
        self.visit.delete_tree(tree.uuid)
        self.undo_button.setEnabled(self.visit.can_undo_delete())  # at once, not at the refresh
        self.state.setText(f"Tree {tree.tag} deleted (Ctrl+Z brings it back).")

    def set_complete(self, checked: bool) -> None:
        """Tally complete ticked or cleared: stored with the current stand. Ticked while the
        tally looks incomplete (:func:`fieldapp.app.tallyreview.tally_gaps`), the crew is told
        what is missing and asked first; No leaves it open."""
        if checked and self.visit is not None:
            gaps = tallyreview.tally_gaps(self.visit, self.expected_trees())
            if gaps:
                answer = QMessageBox.warning(
                    self, "Tally complete?", tallyreview.review_words(self.visit, gaps),
                    QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                    QMessageBox.StandardButton.No)
                if answer != QMessageBox.StandardButton.Yes:
                    with QSignalBlocker(self.complete):
                        self.complete.setChecked(False)
                    self.state.setText("Tally left open: " + "; ".join(gaps) + ".")
                    return
                self.state.setText("Tally marked complete although " + "; ".join(gaps) + ".")
        try:
            self.visit.set_tally_complete(checked)
        except Exception as exc:  # noqa: BLE001 - refused; the box shows the stored value
            self.error("Tally complete not recorded", exc)
            self.refresh()
            return
        self.notices.clear_refusal()

    def undo_delete(self) -> None:
        tree = self.visit.undo_delete_tree()
        if tree is not None:
            self.state.setText(f"Tree {tree.tag} restored.")

    def _cell_edited(self, item: QTableWidgetItem) -> None:
        field = EDITABLE.get(item.column())
        if field is None or item.row() >= len(self._rows):
            return
        tree = self._rows[item.row()]
        text = item.text().strip()
        try:
            value: Any = float(text) if field in ("dbh_in", "crown_radius_ft") else text
            if field == "crown_radius_ft" and text in ("", "–"):
                value = None
            self.visit.update_tree(tree.uuid, **{field: value})
        except Exception as exc:  # noqa: BLE001 - refused, old value shown again
            self.error("Edit refused", exc)
            with QSignalBlocker(self.table):
                self._write_row(item.row(), tree)   # the old value shown again
            return
        self.notices.clear_refusal()

    # -------------------------------------------------------------- view
    def _write_row(self, r: int, t: Any) -> None:
        cells = [str(t.tag), t.species_name or t.species_code, f"{t.dbh_in:.1f}",
                 getattr(t.leaf_habit, "value", str(t.leaf_habit)),
                 f"{t.crown_radius_ft:.1f}" if t.crown_radius_ft else "–"]
        for c, text in enumerate(cells):
            item = QTableWidgetItem(text)
            if c not in EDITABLE:
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
            self.table.setItem(r, c, item)

    def refresh(self) -> None:
        v = self.visit
        if v is None:
            return
        trees = v.trees()
        old, self._rows = self._rows, list(trees)
        with QSignalBlocker(self.table):  # unblocked again even if a row fails
            self.table.setRowCount(len(trees))
            for r in _rows_to_write(old, self._rows):
                self._write_row(r, self._rows[r])
        if trees and len(trees) > len(old):
            self.table.scrollToBottom()
        self.undo_button.setEnabled(v.can_undo_delete())
        self.delete_button.setEnabled(bool(trees))
        self._update_add_ok()       # e.g. a new visit set the DBH back to 0.0 without a signal
        stand = v.current_stand()
        with QSignalBlocker(self.retained):        # the stand's stored value, not a new edit
            self.retained.setValue(v.stand_retained_ac())
        self.complete.setEnabled(stand is not None)
        self.complete.setChecked(bool(stand is not None and stand.tally_complete))
        self.show_next_tag()
        self.summary.setText(self.recording.tag_words() + v.stand_summary_text())


def _visit_id(visit: Any) -> tuple[Any, str] | None:
    """(file path, name) of ``visit``; None when no visit is open (or it has no file)."""
    path = getattr(visit, "path", None)
    return None if path is None else (path, str(getattr(visit, "name", "") or path))


def _same_file(a: Any, b: Any) -> bool:
    """Whether the visit files ``a`` and ``b`` are one file (a visit reopened after a sync)."""
    from pathlib import Path

    try:
        return Path(a).resolve() == Path(b).resolve()
    except (OSError, RuntimeError):
        return Path(a) == Path(b)


def dropped_words(dbh_in: list[float], visit_name: str) -> str:
    """What a visit change did to the caliper readings waiting for a usable fix (DBH in
    inches, in squeeze order), squeezed in the visit ``visit_name``: "Caliper reading 12.3 in
    not recorded: the visit changed before a usable fix came (it was squeezed in Site A)."
    or "2 caliper readings (12.3 in, 8.0 in) not recorded: ... (they were squeezed in ...)."."""
    why = "not recorded: the visit changed before a usable fix came"
    if len(dbh_in) == 1:
        return f"Caliper reading {dbh_in[0]:.1f} in {why} (it was squeezed in {visit_name})."
    each = ", ".join(f"{d:.1f} in" for d in dbh_in)
    return (f"{len(dbh_in)} caliper readings ({each}) {why} (they were squeezed in"
            f" {visit_name}).")


def _rows_to_write(old: list[Any], new: list[Any]) -> range | list[int]:
    """Rows of the tally table whose tree is not the one shown (trees are immutable records:
    an edited tree is a new object). A squeeze appends one row: one row is written, not the
    whole tally; a delete rewrites the rows after it.

    >>> a, b, c, d = object(), object(), object(), object()
    >>> list(_rows_to_write([a, b], [a, b, c])), _rows_to_write([a, b, c], [a, d, c])
    ([2], [1])
    >>> list(_rows_to_write([a, b, c], [a, c]))
    [1]
    """
    if len(old) == len(new):
        return [i for i, (o, n) in enumerate(zip(old, new, strict=True)) if o is not n]
    same = 0
    for o, n in zip(old, new, strict=False):      # a tree added or deleted: lengths differ
        if o is not n:
            break
        same += 1
    return range(same, len(new))
