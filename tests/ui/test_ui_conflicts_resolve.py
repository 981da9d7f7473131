"""Resolving a conflict from the Conflicts view (issue 17, item 10): a real same-field conflict
made by two laptops through a folder office -- laptop A sets the 10.0 in tree's DBH to 20 in,
laptop B to 21 in, A syncs first, B second, so B's record says theirs 20.0, ours 21.0 (kept,
last sync wins). B's crew presses a row button; the value and the resolved mark reach the
office and laptop A by ordinary syncs, as ``fieldapp sync --resolve`` does
(tests/sync/test_sync.py)."""

from __future__ import annotations

import contextlib
import threading

import pytest

pytest.importorskip("pytestqt")

from tests.gpkgtools import st_connect
from tests.report.sample_visit import build_sample_visit
from tests.ui.ui_support import WAIT_MS, close_window, make_window


def two_laptops_in_conflict(root):
    """Laptops A and B of one site in a folder office, B holding one open DBH conflict on the
    sample's 10.0 in tree (theirs 20.0, ours 21.0). Returns (office, a, b, tree uuid); the
    office's ``master`` is the site's master GeoPackage."""
    from fieldapp.sync import FolderOffice, checkout, sync

    data = root / "data"
    data.mkdir(parents=True, exist_ok=True)
    a, b = data / "a.gpkg", data / "b.gpkg"
    build_sample_visit(a, conflict=False)
    office = FolderOffice(root / "office", create=True)
    report = sync(a, office)
    checkout(office, report.site_id, b)
    with contextlib.closing(st_connect(a)) as conn:
        (tree,) = conn.execute("SELECT uuid FROM tree WHERE dbh_in = 10.0").fetchone()
    for path, dbh in ((a, 20.0), (b, 21.0)):
        with contextlib.closing(st_connect(path)) as conn, conn:
            conn.execute("UPDATE tree SET dbh_in = ? WHERE uuid = ?", (dbh, tree))
    sync(a, office)
    sync(b, office)
    office.master = office.master_path(report.site_id)
    return office, a, b, tree


def dbh_of(path, tree):
    with contextlib.closing(st_connect(path)) as conn:
        return conn.execute("SELECT dbh_in FROM tree WHERE uuid = ?", (tree,)).fetchone()[0]


def open_conflicts(qtbot, w):
    qtbot.waitUntil(lambda: w.startup_done and w.visit is not None, timeout=WAIT_MS)
    w.show_conflicts()
    view = w.conflicts_view
    qtbot.waitUntil(lambda: view.table.rowCount() == 1, timeout=WAIT_MS)
    return view


def wait_resolved(qtbot, w, n_messages):
    qtbot.waitUntil(lambda: not w.office.busy() and len(w.office.messages) > n_messages,
                    timeout=WAIT_MS * 2)
    return w.office.messages[-1][1]


def synced_everywhere(office, a, b, tree, want, resolution):
    """B then A sync: the master and both laptops hold ``want`` and the record resolved."""
    from fieldapp.sync import read_conflicts, sync

    sync(b, office)
    sync(a, office)
    for path in (a, b, office.master):
        assert dbh_of(path, tree) == want
        (r,) = read_conflicts(path)
        assert r.resolved_utc is not None and r.resolution.startswith(resolution)


@pytest.mark.parametrize("button, typed, want, words", [
    ("keep-mine", None, 21.0, "keep-mine: dbh_in = 21.0"),
    ("other", "19.5", 19.5, "19.5: dbh_in = 19.5"),
])
def test_row_buttons_resolve_on_a_worker_and_the_resolution_syncs(qtbot, private_dirs, monkeypatch,
                                                                  button, typed, want, words):
    office, a, b, tree = two_laptops_in_conflict(private_dirs)
    from fieldapp.sync import resolve as resolve_mod

    threads = []
    real = resolve_mod.resolve_conflict

    def spy(*args):
        threads.append(threading.current_thread().name)
        return real(*args)

    monkeypatch.setattr(resolve_mod, "resolve_conflict", spy)
    w = make_window(qtbot, private_dirs, visit=str(b))
    try:
        view = open_conflicts(qtbot, w)
        c = view.conflicts[0]
        assert (c.theirs, c.ours, c.kept) == (20.0, 21.0, "ours")
        btn = view.buttons[c.uuid][button]
        assert btn.height() >= 44 and btn.isVisible()       # a gloved finger's target
        asked = []
        monkeypatch.setattr(w.office, "ask_conflict_value", lambda conf: asked.append(conf.uuid) or typed)
        n = len(w.office.messages)
        qtbot.mouseClick(btn, qtbot_button())
        text = wait_resolved(qtbot, w, n)
        assert asked == ([c.uuid] if typed else [])
        assert threads == ["fieldapp-job-resolve"]           # not the UI thread
        assert text.startswith(f"Conflict resolved (Trees, dbh_in): {words}.")
        # the reopened visit holds the value; the row says how it was resolved, no buttons
        assert {t.uuid: t.dbh_in for t in w.visit.trees()}[tree] == want
        assert view.table.item(0, 0).text() == f"Resolved: {words}"
        assert view.table.cellWidget(0, 0) is None and view.buttons == {}
        assert "0 unresolved" in view.summary.text()
        assert w.paused_reason is None and not w.visit.store.closed
    finally:
        close_window(w)
    synced_everywhere(office, a, b, tree, want, words.split(":")[0])


def qtbot_button():
    from PySide6.QtCore import Qt

    return Qt.LeftButton


def test_refused_value_in_field_words_then_keep_theirs_from_the_keyboard(qtbot, private_dirs, monkeypatch):
    """Other value… with -5 is refused in field words and changes nothing; then Tab from the
    table reaches the row's buttons and Space presses Keep theirs (the office's 20.0)."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from fieldapp.sync import read_conflicts

    office, a, b, tree = two_laptops_in_conflict(private_dirs)
    w = make_window(qtbot, private_dirs, visit=str(b))
    try:
        view = open_conflicts(qtbot, w)
        c = view.conflicts[0]
        monkeypatch.setattr(w.office, "ask_conflict_value", lambda conf: "-5")
        n = len(w.office.messages)
        view.buttons[c.uuid]["other"].click()
        text = wait_resolved(qtbot, w, n)
        assert text == "Not resolved: DBH must be between 0.1 and 500 in (not -5 in).\nThe visit was not changed."
        assert dbh_of(b, tree) == 21.0 and read_conflicts(b)[0].resolved_utc is None
        # "twenty" for a number: refused in words too
        monkeypatch.setattr(w.office, "ask_conflict_value", lambda conf: "twenty")
        n = len(w.office.messages)
        view.buttons[c.uuid]["other"].click()
        assert wait_resolved(qtbot, w, n).startswith("Not resolved: DBH takes a number in inches, not 'twenty'.")
        # the keyboard: the table has the focus; Tab walks to the row's buttons
        w.activateWindow()
        qtbot.waitUntil(w.isActiveWindow, timeout=WAIT_MS)
        view.table.setFocus()
        qtbot.waitUntil(view.table.hasFocus, timeout=WAIT_MS)
        reached = []
        for _ in range(4):
            QTest.keyClick(w.focusWidget(), Qt.Key_Tab)
            reached.append(w.focusWidget().objectName())
            if reached[-1] == "resolve-keep-theirs":
                break
        assert reached == ["resolve-keep-mine", "resolve-keep-theirs"]
        n = len(w.office.messages)
        QTest.keyClick(w.focusWidget(), Qt.Key_Space)
        text = wait_resolved(qtbot, w, n)
        assert text.startswith("Conflict resolved (Trees, dbh_in): keep-theirs: dbh_in = 20.0."), text
        assert {t.uuid: t.dbh_in for t in w.visit.trees()}[tree] == 20.0
    finally:
        close_window(w)
    synced_everywhere(office, a, b, tree, 20.0, "keep-theirs")
