"""The tally table and the map's crowns follow the tally row by row (a squeeze writes one row)."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from tests.ui.ui_support import WAIT_MS, close_window

X0, Y0 = 500_000.0, 4_983_000.0


def _window(qtbot, tmp_path, n_trees: int):
    from fieldapp.app import config as C
    from fieldapp.store import create_visit
    from fieldapp.survey import AreaKind, LeafHabit, Visit
    from fieldapp.ui import app as appmod

    v = Visit.new("tally", crs="EPSG:32616", who="t")
    v.add_area(AreaKind.WOODLAND_STAND, [(X0, Y0), (X0 + 60, Y0), (X0 + 60, Y0 + 60),
                                         (X0, Y0 + 60)], label="A")
    for i in range(n_trees):
        v.add_tree(x=X0 + 5 + i, y=Y0 + 30, dbh_in=10.0 + i, crown_radius_ft=6.0,
                   leaf_habit=LeafHabit.EVERGREEN if i % 2 else LeafHabit.DECIDUOUS)
    path = tmp_path / "data" / "tally.gpkg"
    path.parent.mkdir(parents=True)
    create_visit(path, v).close()
    cfg = C.build({"data_dir": str(path.parent), "visit": str(path)}, use_file=False)
    w = appmod.create_window(cfg, start_devices=False)
    w.show()
    qtbot.waitUntil(lambda: w.startup_done and w.visit is not None, timeout=WAIT_MS)
    w.refresh_timer.stop()
    w.refresh_from_model()
    return w


def _rows(table) -> list[list[str]]:
    return [[table.item(r, c).text() for c in range(table.columnCount())]
            for r in range(table.rowCount())]


def test_table_and_crowns_follow_squeezes_edits_refusals_and_deletes(qtbot, private_dirs):
    w = _window(qtbot, private_dirs, 5)
    try:
        tally = w.panels["tally"]
        table = tally.table
        assert [r[0] for r in _rows(table)] == ["1", "2", "3", "4", "5"]
        assert _rows(table)[1] == ["2", "", "11.0", "evergreen", "6.0"]
        first_items = [table.item(r, 0) for r in range(5)]

        # a squeeze: one row written; the rows already shown are the same items
        w.visit.add_tree(None, x=X0 + 40, y=Y0 + 40, dbh_in=22.5, crown_radius_ft=8.0)
        w.refresh_timer.stop()
        w.refresh_from_model()
        assert _rows(table)[-1] == ["6", "", "22.5", "deciduous", "8.0"]
        assert [table.item(r, 0) for r in range(5)] == first_items

        # an edit refused (a DBH in words) shows the old value again
        table.item(2, 2).setText("twelve")
        assert table.item(2, 2).text() == "12.0"
        # an accepted edit rewrites that row only
        table.item(3, 2).setText("30")
        w.refresh_timer.stop()
        w.refresh_from_model()
        assert _rows(table)[3][2] == "30.0" and table.item(0, 0) is first_items[0]

        # a delete in the middle: the rows after it move up
        w.visit.delete_tree(w.visit.trees()[1].uuid)
        w.refresh_timer.stop()
        w.refresh_from_model()
        assert [r[0] for r in _rows(table)] == ["1", "3", "4", "5", "6"]
        assert [r[2] for r in _rows(table)] == ["10.0", "12.0", "30.0", "14.0", "22.5"]

        # the map: a crown per tree, in the paths of their colours (the stand's class)
        w.map.redraw()
        assert w.map.trees.count == 5
        drawn = sum(p.elementCount() for p in w.map.trees.paths().values())
        assert drawn == 5 * 13   # an ellipse is a move and 4 x 3 curve points in a QPainterPath
    finally:
        close_window(w)
