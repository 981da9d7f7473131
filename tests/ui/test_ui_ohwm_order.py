"""An OHWM line joins its points in the order taken: points taken out of order along the bank
make a line that runs back over itself; the OHWM tab says so, naming the legs by point."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from tests.store.test_store import Fix
from tests.ui.ui_support import close_window, make_window

# along the bank west to east: A (-91.0000), B (-90.9990), C (-90.9980), D (-90.9970), about
# 80 m apart; a crew that takes B, C, D and then walks back for A draws D -> A over B -> C
A, B, C, D = (Fix(45.0, -91.0 + 0.001 * k) for k in range(4))


def take(vc, fixes):
    for f in fixes:
        vc.model.add_ohwm_point(vc.model.average([f, f], min_epochs=2))


def test_ohwm_points_in_order_draw_no_warning_and_out_of_order_name_the_legs(tmp_path):
    from fieldapp.app.visit import open_visit

    vc = open_visit(tmp_path / "in_order.gpkg", crs="EPSG:32615")
    take(vc, [A, B, C, D])
    assert vc.ohwm_order_warning() is None
    vc.close()
    vc = open_visit(tmp_path / "out_of_order.gpkg", crs="EPSG:32615")
    take(vc, [B, C, D, A])           # legs: 1-2 (B-C), 2-3 (C-D), 3-4 (D back to A)
    assert vc.ohwm_order_warning() == (
        "Warning: the OHWM line runs back over itself: from point 3 to 4 it meets the line from"
        " point 1 to 2. The line joins the points in the order taken: take them in order along"
        " the bank (Records, Ctrl+T, to correct or delete one)")
    vc.close()


def test_the_ohwm_tab_shows_the_warning_until_the_stray_point_is_taken_back(qtbot, private_dirs):
    w = make_window(qtbot, private_dirs)
    try:
        qtbot.waitUntil(lambda: w.startup_done and w.visit is not None, timeout=20_000)
        panel = w.panels["ohwm"]
        take(w.visit, [B, C, D])
        qtbot.waitUntil(lambda: panel.table.rowCount() == 3, timeout=5_000)
        assert panel.order_warning.isHidden()
        take(w.visit, [A])
        qtbot.waitUntil(lambda: not panel.order_warning.isHidden(), timeout=5_000)
        assert panel.order_warning.text().startswith(
            "Warning: the OHWM line runs back over itself: from point 3 to 4")
        w.visit.model.undo()             # the stray point taken back: the line is in order
        qtbot.waitUntil(panel.order_warning.isHidden, timeout=5_000)
    finally:
        close_window(w)
