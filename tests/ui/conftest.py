"""Fixtures of the UI tests: the app's theme for one test, the main window on the sample visit.
(``private_dirs`` is in ``tests/conftest.py``; the helpers are in ``tests/ui/ui_support.py``.)"""

from __future__ import annotations

import pytest

from tests.report.sample_visit import build_sample_visit
from tests.ui.ui_support import WAIT_MS, close_window, make_window


@pytest.fixture
def themed(qapp):
    """The app's theme (fieldapp.ui.theme.apply) for one test; the plain style again after."""
    from fieldapp.ui import theme

    before = (qapp.styleSheet(), qapp.palette(), qapp.font(), qapp.style().name())
    theme.apply(qapp)
    yield theme
    sheet, palette, font, style = before
    qapp.setStyleSheet(sheet)
    qapp.setPalette(palette)
    qapp.setFont(font)
    qapp.setStyle(style)


@pytest.fixture
def sample_window(qtbot, private_dirs):
    """The main window on the report tests' sample visit (``tests/report/sample_visit.py``) in
    the test's own folder: ``(window, visit path, build_sample_visit's info)``."""
    path = private_dirs / "data" / "mill-creek.gpkg"
    path.parent.mkdir(parents=True)
    info = build_sample_visit(path, conflict=False)
    w = make_window(qtbot, private_dirs, visit=str(path))
    qtbot.waitUntil(lambda: w.startup_done and w.visit is not None, timeout=WAIT_MS)
    yield w, path, info
    close_window(w)


@pytest.fixture
def utm16_window(qtbot, private_dirs):
    """The main window on a new visit in the test's own folder, its site CRS set to UTM 16N
    (EPSG:32616) so records can be added in metres at once."""
    w = make_window(qtbot, private_dirs)
    qtbot.waitUntil(lambda: w.startup_done and w.visit is not None, timeout=WAIT_MS)
    w.visit.model.set_crs("EPSG:32616")
    yield w
    close_window(w)
