"""The checks panel: every applicable verdict with status, a short value and citation
(fieldapp.checks.verdicts; the whole of each in the row's tooltip and the details),
interpretation and inputs; clicking a row shows what went in and came out in words
(fieldapp.ui.checkwords); the details' context menu copies the rule request JSON (what
``fieldapp rules evaluate`` takes).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QObject, QSignalBlocker, Qt
from PySide6.QtGui import QAction, QBrush, QColor, QFont
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
from fieldapp.checks.verdicts import citation_words, verdict_words
from fieldapp.ui import theme
from fieldapp.ui.checkwords import details_text, interpretation_lines

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
        # a short verdict per row (fieldapp.checks.verdicts), wrapped on at most two lines so
        # no word is cut in the ~640 px the panel has at 1366 x 768 (issue 35 item 13); the
        # whole summary and citation are the row's tooltips and in the details. Rows a gloved
        # finger can pick (theme.TOUCH_PX); MIN_ROWS_SHOWN of them stay in view with the
        # details open
        self.table.setWordWrap(True)
        self.table.setTextElideMode(Qt.TextElideMode.ElideNone)
        self._size_rows()
        self.table.installEventFilter(self)     # a new font measures the rows again
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        hdr = self.table.horizontalHeader()
        hdr.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        hdr.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        hdr.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        hdr.setSectionResizeMode(3, QHeaderView.ResizeMode.Interactive)
        self.table.setColumnWidth(0, 140)
        self.table.setColumnWidth(3, 145)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # the scroll bar always there: the verdict column's width (it stretches) does not change
        # when opening the details makes the rows scroll, so a verdict wrapped on two lines is
        # never pushed onto a third that the row cuts (seen on a loaded machine)
        self.table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.table.itemSelectionChanged.connect(self._show_selected)
        split.addWidget(self.table)
        self.details = QPlainTextEdit()
        self.details.setObjectName("checkDetails")
        self.details.setReadOnly(True)
        self.details.setPlaceholderText("Select a check to see what went into it, how the rule"
                                        " was read and what came out")
        copy = QAction("Copy the rule request (JSON for 'fieldapp rules evaluate')", self.details)
        copy.triggered.connect(self.copy_request)
        self.details.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        self.details.addAction(copy)
        self.copy_request_action = copy
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

    def _size_rows(self) -> None:
        """Every row two lines of the table's font tall (theme.TOUCH_PX at least): measured
        again when the checks are shown, as the theme (font, tap size) may change after."""
        vh = self.table.verticalHeader()
        vh.setMinimumSectionSize(theme.TOUCH_PX)
        vh.setDefaultSectionSize(max(theme.TOUCH_PX, 2 * self.table.fontMetrics().lineSpacing() + 6))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt name
        """The table's new font or style sheet (the theme, high contrast, a display scale)
        measures the rows again: rows sized for the old font would cut the new one's second
        line."""
        if watched is self.table and event.type() in (
                QEvent.Type.FontChange, QEvent.Type.StyleChange, QEvent.Type.ApplicationFontChange):
            self._size_rows()
        return super().eventFilter(watched, event)

    def showEvent(self, event: Any) -> None:  # noqa: N802 - Qt name
        super().showEvent(event)
        self._size_rows()

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 - Qt name
        super().resizeEvent(event)
        if not self._details_grown and self.table.selectedItems():
            self._grow_details()        # a check selected while the tabs were folded

    def unfolded(self) -> None:
        """The tabs were unfolded (fieldapp.ui.fold): the verdict rows and the details share
        the new room again (:meth:`_grow_details`), whatever they had folded."""
        self._details_grown = False
        self._size_rows()
        if self.table.selectedItems():
            self._grow_details()

    def copy_request(self) -> str:
        """Put the selected check's rule request (JSON) on the clipboard; returns it ("" when
        no check with a request is selected)."""
        from PySide6.QtGui import QGuiApplication

        c = next((c for c in self.checks if c.check_id == self._selected_id), None)
        if c is None or not c.has_request:
            return ""
        text = c.request_json()
        QGuiApplication.clipboard().setText(text)
        return text

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
        self._size_rows()
        with QSignalBlocker(self.table):  # unblocked again even if a row fails
            self.table.setRowCount(len(checks))
            for row, c in enumerate(checks):
                st = c.status
                citation = str(c.result.get("citation", ""))
                cells = (c.title.split(" (")[0], status_words(st), verdict_words(c),
                         citation_words(citation))
                tips = (c.title, status_words(st), check_words(c), citation)
                for col, text in enumerate(cells):
                    item = QTableWidgetItem(text)
                    item.setData(Qt.ItemDataRole.UserRole, c.check_id)
                    item.setToolTip(tips[col])
                    if col == 1:
                        bg, fg = STATUS_COLOURS.get(st, ("#5c5c5c", "#ffffff"))
                        item.setBackground(QBrush(QColor(bg)))
                        item.setForeground(QBrush(QColor(fg)))
                        f = item.font()
                        f.setBold(True)
                        item.setFont(f)
                    if col == 2 and c.result.get("next_step"):
                        item.setToolTip(f"{tips[col]}\nNext step: {c.result['next_step']}")
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
        total = sum(self.split.sizes())
        frame = 2 * self.table.frameWidth() + 2
        head = self.table.horizontalHeader().height() + frame
        heights = [self.table.rowHeight(r) for r in range(self.table.rowCount())]
        keep = head + sum(sorted(heights, reverse=True)[:MIN_ROWS_SHOWN])
        if total < keep + self.details.minimumHeight():
            return          # folded under the workflow panel (fieldapp.ui.fold): when opened
        self._details_grown = True
        rows_px = head + sum(heights)
        table_px = int(max(min(rows_px, 0.45 * total), keep, 0.25 * total))
        table_px = min(table_px, total - self.details.minimumHeight())
        self.split.setSizes([table_px, total - table_px])


def any_in(checks: list[Check], rule: str) -> list[Check]:
    return [c for c in checks if c.rule == rule]


__all__ = ["ChecksPanel", "details_text", "any_in", "interpretation_lines"]
