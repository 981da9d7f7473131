"""The Conflicts view: the visit's sync conflict records (``fieldapp.sync.read_conflicts``).

One row per record: layer, feature, field, what clashed, the base value both sides started
from, the office's value ("theirs"), this laptop's value ("ours"), which one was kept and under
which policy. Nothing here changes the records.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from fieldapp.app.wording import FIELD_WORDS, plural

COLUMNS = ("Resolve", "Layer", "Feature", "Field", "Kind", "Base", "Theirs (office)", "Ours (laptop)",
           "Kept", "Policy")
def field_words(field: str | None) -> str:
    """A conflict's column as the crew knows it: ``dbh_in`` -> "DBH (in)"; "–" for none."""
    if not field:
        return "–"
    from fieldapp.sync.conflictwords import name_words  # HDOP, Sats used

    words, unit = FIELD_WORDS.get(field, (name_words(field), ""))
    return f"{words} ({unit})" if unit else words


KIND_WORDS = {"same-field": "same field, different values",
              "edit-vs-delete": "edited here, deleted at the office",
              "delete-vs-edit": "deleted here, edited at the office",
              "tag-clash": "tag also given to another tree: re-tag one"}
#: Button height of the row buttons (gloved fingers; the job bar's Cancel is 48), at least:
#: more on a screen whose tap targets are larger (:func:`button_height`).
BUTTON_HEIGHT = 44


def button_height() -> int:
    """The row buttons' height (px): :data:`BUTTON_HEIGHT`, or the theme's tap target
    (:data:`fieldapp.ui.theme.TOUCH_PX`, 9 mm on the screen) plus 4 if more."""
    from fieldapp.ui import theme

    return max(BUTTON_HEIGHT, theme.TOUCH_PX + 4)


def value_text(value: Any, width: int = 60) -> str:
    """A conflict value for a table cell (geometry blobs as their WKT)."""
    if value is None:
        return "–"                 # no value (an adopted copy's record has no common base)
    if isinstance(value, dict) and "wkt" in value:
        value = value["wkt"]
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= width else text[: width - 1] + "…"


def _choice_tips(c: Any) -> tuple[str, str]:
    """Tooltips of Keep mine / Keep theirs: what each keeps, in words."""
    kind = getattr(c.kind, "value", str(c.kind))
    if kind == "tag-clash":
        return ("Both trees keep their tags (you checked the tags on the trees)",) * 2
    if kind in ("edit-vs-delete", "delete-vs-edit"):
        mine = "the delete stands" if c.ours is None else "restore this laptop's feature"
        theirs = "the delete stands" if c.theirs is None else "restore the office's feature"
        return f"Keep mine: {mine}", f"Keep theirs: {theirs}"
    return (f"Keep this laptop's value: {value_text(c.ours)}",
            f"Keep the office's value: {value_text(c.theirs)}")


class ConflictsView(QWidget):
    """Table of conflict records of one visit GeoPackage.

    Signals
    -------
    sigResolve(str, str)
        The record's uuid and the choice: ``"keep-mine"``, ``"keep-theirs"`` or ``"other"``
        (ask for a value). Emitted by the row buttons; nothing is changed here.
    """

    sigResolve = Signal(str, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.summary = QLabel("No sync yet.")
        self.summary.setObjectName("conflictsSummary")
        self.summary.setWordWrap(True)
        lay.addWidget(self.summary)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("conflictsTable")
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setTabKeyNavigation(False)      # Tab leaves the table for the row buttons
        self.table.verticalHeader().setDefaultSectionSize(button_height() + 8)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setStretchLastSection(True)
        lay.addWidget(self.table, 1)
        self.conflicts: list[Any] = []
        self.buttons: dict[str, dict[str, QPushButton]] = {}  # record uuid -> choice -> button

    def _row_buttons(self, c: Any) -> QWidget:
        """Keep mine / Keep theirs / Other value… of an open record (a delete conflict takes no
        typed value; a tag clash's value is a new tag)."""
        cell = QWidget()
        row = QHBoxLayout(cell)
        row.setContentsMargins(2, 2, 2, 2)
        row.setSpacing(4)
        kind = getattr(c.kind, "value", str(c.kind))
        mine_tip, theirs_tip = _choice_tips(c)
        mine, theirs = "Keep mine", "Keep theirs"
        if kind == "same-field":                   # the values on the buttons: no scrolling to see them
            mine, theirs = f"{mine}: {value_text(c.ours, 14)}", f"{theirs}: {value_text(c.theirs, 14)}"
        choices = [("keep-mine", mine, mine_tip), ("keep-theirs", theirs, theirs_tip)]
        if kind == "tag-clash":
            choices.append(("other", "Re-tag…", "Give this laptop's tree another tag number"))
        elif kind == "same-field":
            choices.append(("other", "Other value…", f"Type the value of {field_words(c.field)} to keep"))
        self.buttons[c.uuid] = {}
        for choice, text, tip in choices:
            b = QPushButton(text)
            b.setObjectName(f"resolve-{choice}")
            b.setToolTip(tip)
            b.setMinimumHeight(button_height())
            b.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
            b.setAutoDefault(True)                 # Enter presses the focused button too
            b.clicked.connect(lambda _=False, u=c.uuid, ch=choice: self.sigResolve.emit(u, ch))
            row.addWidget(b)
            self.buttons[c.uuid][choice] = b
        return cell

    def set_enabled_buttons(self, enabled: bool) -> None:
        """Enable / disable every row button (a job is running)."""
        for group in self.buttons.values():
            for b in group.values():
                b.setEnabled(enabled)

    def load(self, gpkg: Path | str | None) -> int:
        """Read the conflict records of ``gpkg``; returns how many there are."""
        self.conflicts = []
        if gpkg is not None and Path(gpkg).exists():
            from fieldapp.sync import read_conflicts

            try:
                self.conflicts = read_conflicts(gpkg)
            except Exception as exc:  # noqa: BLE001 - shown in words
                self.summary.setText(f"Conflicts could not be read: {exc}")
                self.table.setRowCount(0)
                return 0
        from fieldapp.app.layerwords import layer_tooltip, layer_words  # loads the store: not at start
        from fieldapp.sync.conflictwords import side_words

        self.table.setRowCount(0)                  # drops the old rows' buttons
        self.buttons = {}
        self.table.setRowCount(len(self.conflicts))
        for r, c in enumerate(self.conflicts):
            kind = getattr(c.kind, "value", str(c.kind))
            feature = c.feature_uuid or str(c.feature_fid or "")
            resolved = f"Resolved: {c.resolution}" if c.resolved_utc else ""
            # a tag clash, a delete: the sides in words
            sides = [value_text(getattr(c, s)) if kind == "same-field"
                     else side_words(c, s, uuid_chars=8) for s in ("base", "theirs", "ours")]
            cells = (resolved, layer_words(c.layer), feature[:8], field_words(c.field),
                     KIND_WORDS.get(kind, kind), *sides, c.kept, c.policy)
            for col, text in enumerate(cells):
                item = QTableWidgetItem(str(text))
                item.setToolTip(feature if col == 2 else layer_tooltip(c.layer) if col == 1
                                else f"Resolved {c.resolved_utc}: {c.resolution}" if col == 0 and resolved
                                else str(text))
                item.setData(Qt.ItemDataRole.UserRole, c.uuid)
                self.table.setItem(r, col, item)
            if not c.resolved_utc:
                self.table.setCellWidget(r, 0, self._row_buttons(c))
        self.table.resizeColumnsToContents()
        unresolved = sum(1 for c in self.conflicts if c.resolved_utc is None)
        self.summary.setText(
            f"{plural(len(self.conflicts), 'conflict record')}, {unresolved} unresolved. Each keeps the"
            " base, the office's and this laptop's value; the kept value is in the visit."
            + (" Resolve one with its buttons (Tab from the table): the next sync sends the"
               " resolution to the office and every laptop." if unresolved else "")
            if self.conflicts else "No sync conflicts in this visit.")
        return len(self.conflicts)


__all__ = ["ConflictsView", "value_text", "COLUMNS", "BUTTON_HEIGHT"]
