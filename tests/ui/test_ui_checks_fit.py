"""Issue 35 item 13: at 1366 x 768 the checks panel (under the workflow panel, about 640 px
wide) shows every row's text whole: a short verdict and citation, wrapped on at most two
lines, no word cut; the whole summary and citation are the row's tooltips and in the
details."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QStyle

from tests.ui.ui_support import WAIT_MS, key


def cell_fits(table, row: int, col: int) -> tuple[bool, int, int]:
    """The cell's text wrapped at word boundaries in its column (less the item's text
    margins, as QStyledItemDelegate draws it) is no wider than the column and no taller than
    the row: (fits, text width px, text height px)."""
    item = table.item(row, col)
    margin = 2 * (table.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None,
                                            table) + 1)
    room = table.columnWidth(col) - margin
    box = QFontMetrics(item.font()).boundingRect(QRect(0, 0, room, 10_000),
                                                 Qt.TextFlag.TextWordWrap, item.text())
    return (box.width() <= room and box.height() <= table.rowHeight(row) - 2,
            box.width(), box.height())


def test_every_checks_row_is_readable_whole_at_1366x768(sample_window, qtbot, themed, tmp_path):
    from fieldapp.checks import check_words

    w, _path, _info = sample_window
    w.resize(1366, 768)
    qtbot.waitUntil(lambda: (w.width(), w.height()) == (1366, 768), timeout=WAIT_MS)
    panel = w.checks_panel
    table = panel.table
    qtbot.waitUntil(lambda: table.rowCount() >= 8, timeout=WAIT_MS)
    key(qtbot, w, "Ctrl+K")                 # unfold the checks: the first row and its details
    qtbot.waitUntil(lambda: panel.details.toPlainText() != "", timeout=WAIT_MS)
    qtbot.wait(50)
    assert table.width() < 700, table.width()      # the narrow panel of the report
    by_rule = {}
    for r in range(table.rowCount()):
        for c in range(table.columnCount()):
            fits, width, height = cell_fits(table, r, c)
            assert fits, (table.item(r, c).text(), width, height, table.columnWidth(c),
                          table.rowHeight(r))
        check = panel.checks[r]
        by_rule.setdefault(check.rule, []).append(r)
        # the whole summary and citation stay with the row
        assert table.item(r, 2).toolTip().startswith(check_words(check))
        assert table.item(r, 3).toolTip() == check.result.get("citation", "")
    # what the sample visit's rows say (the cells' whole text)
    texts = {table.item(r, 2).text() for r in range(table.rowCount())}
    assert {"Bank 90.0 ft (slope)", "Bank at least 90.0 ft; walk 5.0 ft further",
            "Width 50.0 ft (stream); see the note", "Ordinance wetland: yes",
            "Not supported", "Class none (no basis)"} <= texts, texts
    cites = {table.item(r, 3).text() for r in range(table.rowCount())}
    assert {"NR 341.035(1)(a)", "Woodlands D.2", "Corps manual (1987)"} <= cites, cites
    # three verdict rows in view with the details open; the details say the whole verdict
    view = table.viewport().rect()
    shown = [r for r in range(table.rowCount())
             if view.contains(table.visualRect(table.model().index(r, 0)))]
    assert len(shown) >= 3, (shown, panel.split.sizes())
    first = panel.checks[table.currentRow() if table.currentRow() >= 0 else 0]
    assert f"Verdict: {check_words(first)}" in panel.details.toPlainText()
    w.grab().save(str(tmp_path / "checks-1366x768.png"))


def test_a_larger_font_after_the_panel_is_built_sizes_the_rows_again(sample_window, qtbot, themed):
    """Seen in a full run: rows measured for an earlier, smaller font (40 px) cut the second
    line of the theme's font (2 lines = 40 px). A font change re-measures them."""
    from PySide6.QtGui import QFont

    w, _path, _info = sample_window
    table = w.checks_panel.table
    qtbot.waitUntil(lambda: table.rowCount() >= 8, timeout=WAIT_MS)
    font = QFont(table.font())
    font.setPointSizeF(font.pointSizeF() * 1.5)
    table.setFont(font)
    spacing = QFontMetrics(font).lineSpacing()
    assert table.verticalHeader().defaultSectionSize() >= 2 * spacing + 6
    assert all(table.rowHeight(r) >= 2 * spacing + 6 for r in range(table.rowCount()))
