"""The start-up visit opens on a worker thread: the window stays live meanwhile (a day's visit
takes seconds to open), recording is blocked with the reason, and a visit that cannot be opened
is refused in the banner as before."""

from __future__ import annotations

import threading
import time

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import QTimer

from tests.ui.ui_support import WAIT_MS, close_window, make_window


def test_the_window_stays_live_while_the_visit_opens(qtbot, private_dirs, monkeypatch):
    from fieldapp.app import visit as visit_mod

    release = threading.Event()
    opened_on: list[str] = []
    real = visit_mod.open_target

    def slow_open(cfg, path, spec):
        opened_on.append(threading.current_thread().name)
        assert release.wait(WAIT_MS / 1000)        # a long open, held until the test lets go
        return real(cfg, path, spec)

    made = private_dirs / "data" / "test.gpkg"           # a visit made before (a new one opens
    made.parent.mkdir(parents=True, exist_ok=True)       # at once), opened as a day's visit is
    visit_mod.open_visit(made).close()
    monkeypatch.setattr(visit_mod, "open_target", slow_open)
    monkeypatch.setattr("fieldapp.ui.app.BACKGROUND_OPEN_BYTES", 0)
    w = make_window(qtbot, private_dirs)
    try:
        qtbot.waitUntil(lambda: bool(opened_on), timeout=WAIT_MS)
        # while it opens: the GUI thread turns its event loop (timers fire) ...
        ticks = []
        timer = QTimer()
        timer.timeout.connect(lambda: ticks.append(time.monotonic()))
        timer.start(20)
        qtbot.waitUntil(lambda: len(ticks) >= 5, timeout=WAIT_MS)
        timer.stop()
        assert opened_on == ["fieldapp-job-open"]
        # ... nothing can be recorded, and the window says why
        assert w.visit is None and not w.startup_done
        assert w.paused_reason == "Opening visit test…"
        assert "Opening visit test" in w.visit_label.text()
        release.set()
        qtbot.waitUntil(lambda: w.startup_done and w.visit is not None, timeout=WAIT_MS)
        assert w.paused_reason is None
        assert "Visit: test" in w.visit_label.text()
    finally:
        release.set()
        close_window(w)


@pytest.mark.parametrize("background", [True, False])
def test_a_visit_that_cannot_be_opened_is_refused_in_the_banner(qtbot, private_dirs, monkeypatch,
                                                                background):
    if background:
        monkeypatch.setattr("fieldapp.ui.app.BACKGROUND_OPEN_BYTES", 0)
    bad = private_dirs / "data" / "not_a_visit.gpkg"
    bad.parent.mkdir(parents=True, exist_ok=True)
    bad.write_text("this is a shopping list, not a GeoPackage\n")
    before = bad.read_bytes()
    w = make_window(qtbot, private_dirs, visit=str(bad))
    try:
        qtbot.waitUntil(lambda: w.startup_done, timeout=WAIT_MS)
        assert w.visit is None
        assert w.banner.text().startswith(f"Could not open the visit {bad}")
        assert w.paused_reason is not None and w.paused_reason.startswith("No visit open")
        assert "no visit" in w.visit_label.text()
        assert bad.read_bytes() == before           # a foreign file is never overwritten
    finally:
        close_window(w)
