"""Visit ▸ Copy visit to… while the simulated surveyor records (issue 35, item 2)."""

from __future__ import annotations

import sqlite3

import pytest

pytest.importorskip("pytestqt")

from tests.ui.ui_support import WAIT_MS, close_window, make_window  # noqa: E402


def _menu_action(window, text):
    (act,) = [a for a in window.visit_menu.actions() if a.text() == text]
    return act


def test_copy_visit_from_the_visit_menu_while_recording_and_never_over_a_file(
        qtbot, private_dirs, monkeypatch):
    w = make_window(qtbot, private_dirs, simulate=True, time_scale=10.0)
    try:
        qtbot.waitUntil(lambda: w.visit is not None and w.visit.records_stored >= 20,
                        timeout=WAIT_MS)
        texts = [a.text() for a in w.visit_menu.actions()]
        assert texts[:3] == ["New visit…", "Open visit…", "Copy visit to…"]
        target = private_dirs / "usb" / "site-copy.gpkg"
        target.parent.mkdir()
        asked = []
        monkeypatch.setattr(w.keepsafe, "ask_copy_target",
                            lambda default: asked.append(default) or target)
        stored_before = w.visit.records_stored
        _menu_action(w, "Copy visit to…").trigger()
        qtbot.waitUntil(lambda: w.keepsafe.copy_job is None, timeout=WAIT_MS)
        title, text = w.office.messages[-1]
        assert title == "Copy visit" and text.startswith(f"Visit copied to {target}: "), text
        assert asked[0].parent == w.visit.path.parent and asked[0].suffix == ".gpkg"
        assert sorted(p.name for p in target.parent.iterdir()) == ["site-copy.gpkg"]
        with sqlite3.connect(f"file:{target}?mode=ro&immutable=1", uri=True) as conn:
            names = [r[0] for r in conn.execute("SELECT table_name FROM gpkg_contents")]
            rows = {n: conn.execute(f'SELECT count(*) FROM "{n}"').fetchone()[0] for n in names}
        assert sum(rows.values()) - rows["site"] >= stored_before     # all of them, from the -wal
        assert f"{sum(rows.values())} records" in text
        assert w.visit.store is not None and not w.visit.store.closed  # recording goes on
        qtbot.waitUntil(lambda: w.visit.records_stored > stored_before + 5, timeout=WAIT_MS)
        # the same name again: refused, the first copy left as it was
        kept = target.read_bytes()
        _menu_action(w, "Copy visit to…").trigger()
        qtbot.waitUntil(lambda: w.keepsafe.copy_job is None, timeout=WAIT_MS)
        title, text = w.office.messages[-1]
        assert text == (f"Not copied: {target} already exists; nothing was overwritten. Choose"
                        " another name, or delete that file first")
        assert target.read_bytes() == kept
    finally:
        close_window(w)
