"""The window's Sync button against a PostGIS office (issue 17): the URL typed in the Sync
dialog's office field, the sync run on the worker thread, the counts shown, the URL remembered.
Needs PostgreSQL + PostGIS (``tests/conftest.py``: ``pg_url``; FAILS under CI without it)."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from tests.ui.ui_support import key, wait_job_done


def test_sync_button_with_a_postgresql_url(qtbot, sample_window, pg_url, monkeypatch):
    from fieldapp.sync import PostgisOffice

    w, path, _info = sample_window
    office = PostgisOffice(pg_url)
    office.initialize()  # made an office by the office (or `fieldapp sync --init-office`)
    monkeypatch.setattr(w.office, "ask_office", lambda current, visit_path: pg_url)
    asked = []
    monkeypatch.setattr(w.office, "ask_yes_no", lambda t, q: asked.append(q) or True)
    key(qtbot, w, "Ctrl+Y")
    wait_job_done(qtbot, w)
    report = w.office.last_sync_report
    assert report is not None, w.office.messages
    counts = {c.layer: c for c in report.layers}
    # the sample visit's 4 trees, 2 transects, 6 stations all sent; nothing asked
    assert (counts["tree"].sent, counts["transect"].sent, counts["station"].sent) == (4, 2, 6)
    assert asked == [] and w.config.office_dir == pg_url
    (site,) = office.list_sites()
    assert site[2] == 1 and not w.visit.store.closed and w.paused_reason is None


def test_sync_button_refuses_a_url_with_a_password(qtbot, sample_window, monkeypatch):
    w, _path, _info = sample_window
    monkeypatch.setattr(w.office, "ask_office",
                        lambda current, visit_path: "postgresql://crew2:hunter2@gis.example.org/survey")
    w.office.start_sync()
    title, text = w.office.messages[-1]
    assert "holds a password" in text and "hunter2" not in text
    assert w.paused_reason is None and not w.visit.store.closed
