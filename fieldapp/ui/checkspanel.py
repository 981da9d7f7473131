"""The checks panel: every applicable verdict with status, value, citation, interpretation and
inputs; clicking a row shows the rule request as JSON (what ``fieldapp rules evaluate`` takes).
"""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QPlainTextEdit,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from fieldapp.checks import Check, check_words, status_words
from fieldapp.ui import theme

#: Verdict rows kept in view when the details are open (1366 x 768: issue 13).
MIN_ROWS_SHOWN = 3

STATUS_COLOURS = {"determined": ("#0a6b1f", "#ffffff"), "needs_data": ("#8a4b00", "#ffffff"),
                  "exempt": ("#0b4f8a", "#ffffff"), "error": ("#a10000", "#ffffff"),
                  "provisional": ("#5b2a86", "#ffffff")}   # a tally not complete: never green
COLUMNS = ("Check", "Status", "Value", "Citation")


class ChecksPanel(QWidget):
    """Table of checks; details and request JSON of the selected one."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        split = QSplitter(Qt.Orientation.Vertical)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("checksTable")
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        # one line per verdict, a row a gloved finger can pick (theme.TOUCH_PX): at 1366 x 768
        # at least MIN_ROWS_SHOWN rows stay in view with the details open (the whole text of
        # a cell is its tooltip, and in the details)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setMinimumSectionSize(theme.TOUCH_PX)
        self.table.verticalHeader().setDefaultSectionSize(theme.TOUCH_PX)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        hdr = self.table.horizontalHeader()
        hdr.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        hdr.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        hdr.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        hdr.setSectionResizeMode(3, QHeaderView.ResizeMode.Interactive)
        self.table.setColumnWidth(0, 170)
        self.table.setColumnWidth(3, 160)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.table.itemSelectionChanged.connect(self._show_selected)
        split.addWidget(self.table)
        self.details = QPlainTextEdit()
        self.details.setObjectName("checkDetails")
        self.details.setReadOnly(True)
        self.details.setPlaceholderText("Select a check to see its inputs, interpretation and the"
                                        " rule request (JSON)")
        mono = QFont("DejaVu Sans Mono")
        mono.setStyleHint(QFont.StyleHint.Monospace)
        mono.setPointSize(11)
        self.details.setFont(mono)
        split.addWidget(self.details)
        split.setObjectName("checksSplitter")
        split.setChildrenCollapsible(False)
        self.details.setMinimumHeight(60)
        split.setSizes([340, 80])
        lay.addWidget(split)
        self.split = split
        self._details_grown = False     # once per panel: later the user's splitter stands
        self.checks: list[Check] = []
        self._selected_id: str | None = None

    def clear_selection(self) -> None:
        """No check selected and no details shown (another visit)."""
        self._selected_id = None
        with QSignalBlocker(self.table):
            self.table.clearSelection()
        self.details.clear()

    def focus_table(self) -> None:
        self.table.setFocus()
        if self.table.rowCount() and not self.table.selectedItems():
            self.table.selectRow(0)

    def show_checks(self, checks: list[Check]) -> None:
        """Render ``checks`` (keeps the selection by id)."""
        self.checks = list(checks)
        selected = self._selected_id
        with QSignalBlocker(self.table):  # unblocked again even if a row fails
            self.table.setRowCount(len(checks))
            for row, c in enumerate(checks):
                st = c.status
                cells = (c.title.split(" (")[0], status_words(st), check_words(c),
                         str(c.result.get("citation", "")))
                for col, text in enumerate(cells):
                    item = QTableWidgetItem(text)
                    item.setData(Qt.ItemDataRole.UserRole, c.check_id)
                    item.setToolTip(text)
                    if col == 1:
                        bg, fg = STATUS_COLOURS.get(st, ("#5c5c5c", "#ffffff"))
                        item.setBackground(QBrush(QColor(bg)))
                        item.setForeground(QBrush(QColor(fg)))
                        f = item.font()
                        f.setBold(True)
                        item.setFont(f)
                    if col == 2 and c.result.get("next_step"):
                        item.setToolTip(str(c.result["next_step"]))
                    self.table.setItem(row, col, item)
                if c.check_id == selected:
                    self.table.selectRow(row)
        self._show_selected()

    def row_of(self, check_id: str) -> int:
        for i, c in enumerate(self.checks):
            if c.check_id == check_id:
                return i
        return -1

    def _show_selected(self) -> None:
        rows = {i.row() for i in self.table.selectedItems()}
        if not rows:
            return
        c = self.checks[min(rows)]
        self._selected_id = c.check_id
        self.details.setPlainText(details_text(c))
        self._grow_details()

    def _grow_details(self) -> None:
        """At the first selection give the details most of the room (a few lines were left at
        1366 x 768): the table keeps its header and at least :data:`MIN_ROWS_SHOWN` verdict
        rows (all of them when fewer, at least a quarter), the details the rest. Done once, so
        a splitter the user moved is left alone."""
        if self._details_grown:
            return
        self._details_grown = True
        total = sum(self.split.sizes())
        if total <= 0:
            return
        frame = 2 * self.table.frameWidth() + 2
        head = self.table.horizontalHeader().height() + frame
        heights = [self.table.rowHeight(r) for r in range(self.table.rowCount())]
        keep = head + sum(sorted(heights, reverse=True)[:MIN_ROWS_SHOWN])
        rows_px = head + sum(heights)
        table_px = int(max(min(rows_px, 0.45 * total), keep, 0.25 * total))
        table_px = min(table_px, total - self.details.minimumHeight())
        self.split.setSizes([table_px, total - table_px])


def details_text(c: Check) -> str:
    """Inputs, interpretation and the request JSON of one check, as text."""
    r = c.result
    words = interpretation_lines(r)
    lines = [f"{c.title}: {status_words(c.status)}",
             f"Citation: {r.get('citation', '–')}",
             "Interpretations relied on: " + ("–" if not words else "")]
    lines += [f"  • {w}" for w in words]
    if r.get("next_step"):
        lines.append(f"Next step: {r['next_step']}")
    if r.get("note"):
        lines.append(f"Note: {r['note']}")
    if r.get("message"):
        lines.append(f"Message: {r['message']}")
    if c.cites:
        lines.append(f"Wetland data points: {c.cites}")
    lines.append("")
    if c.has_request:
        lines.append("Rule request (fieldapp rules evaluate FILE.json):")
        lines.append(c.request_json())
    else:
        lines.append("Rule request: none yet (the rule runs once the data above is recorded)")
    lines.append("")
    lines.append("Result:")
    lines.append(json.dumps(r, indent=2))
    return "\n".join(lines)


def interpretation_lines(result: dict[str, Any]) -> list[str]:
    """The readings a result relied on, in words (never the bare ids): the result's own
    ``interpretation_text`` when the rules give it (a list, or a dict by id), else the
    report's sentence for each id of ``interpretations``
    (:data:`fieldapp.report.content.INTERPRETATIONS`)."""
    ids = [str(i) for i in result.get("interpretations") or []]
    text = result.get("interpretation_text")
    if isinstance(text, dict):
        return [str(text.get(i) or i) for i in ids] or [str(t) for t in text.values()]
    if isinstance(text, (list, tuple)) and text:
        return [str(t) for t in text]
    if isinstance(text, str) and text:
        return [text]
    from fieldapp.report.content import INTERPRETATIONS

    return [INTERPRETATIONS.get(i) or i.replace("-", " ") for i in ids]


def any_in(checks: list[Check], rule: str) -> list[Check]:
    return [c for c in checks if c.rule == rule]


__all__ = ["ChecksPanel", "details_text", "any_in", "interpretation_lines"]
