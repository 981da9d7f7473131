"""The Conflicts view: the visit's sync conflict records (``fieldapp.sync.read_conflicts``).

One row per record: layer, feature, field, what clashed, the base value both sides started
from, the office's value ("theirs"), this laptop's value ("ours"), which one was kept and under
which policy. Nothing here changes the records.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView, QHeaderView, QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget,
)

from fieldapp.app.layerwords import layer_tooltip, layer_words
from fieldapp.app.wording import plural

COLUMNS = ("Layer", "Feature", "Field", "Kind", "Base", "Theirs (office)", "Ours (laptop)",
           "Kept", "Policy")
KIND_WORDS = {"same-field": "same field, different values",
              "edit-vs-delete": "edited here, deleted at the office",
              "delete-vs-edit": "deleted here, edited at the office",
              "tag-clash": "tag also given to another tree: re-tag one"}


def value_text(value: Any, width: int = 60) -> str:
    """A conflict value for a table cell (geometry blobs as their WKT)."""
    if isinstance(value, dict) and "wkt" in value:
        value = value["wkt"]
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= width else text[: width - 1] + "…"


class ConflictsView(QWidget):
    """Table of conflict records of one visit GeoPackage."""

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
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.Interactive)
        self.table.horizontalHeader().setStretchLastSection(True)
        lay.addWidget(self.table, 1)
        self.conflicts: list = []

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
        self.table.setRowCount(len(self.conflicts))
        for r, c in enumerate(self.conflicts):
            kind = getattr(c.kind, "value", str(c.kind))
            feature = c.feature_uuid or str(c.feature_fid or "")
            cells = (layer_words(c.layer), feature[:8], c.field or "–",
                     KIND_WORDS.get(kind, kind), value_text(c.base), value_text(c.theirs),
                     value_text(c.ours), c.kept, c.policy)
            for col, text in enumerate(cells):
                item = QTableWidgetItem(str(text))
                item.setToolTip(feature if col == 1 else layer_tooltip(c.layer) if col == 0
                                else str(text))
                item.setData(Qt.UserRole, c.uuid)
                self.table.setItem(r, col, item)
        self.table.resizeColumnsToContents()
        unresolved = sum(1 for c in self.conflicts if c.resolved_utc is None)
        self.summary.setText(
            f"{plural(len(self.conflicts), 'conflict record')}, {unresolved} unresolved. Each keeps the"
            " base, the office's and this laptop's value; the kept value is in the visit."
            if self.conflicts else "No sync conflicts in this visit.")
        return len(self.conflicts)


__all__ = ["ConflictsView", "value_text", "COLUMNS"]
