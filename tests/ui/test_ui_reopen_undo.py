"""Issue 35 item 16 through the real window: ``fieldapp --simulate`` offers the last demo
visit again; after a sync (the visit reopened, its undo history empty) nothing offers
"Ctrl+Z brings it back"."""

from __future__ import annotations

import dataclasses

import pytest

pytest.importorskip("pytestqt")

from tests.ui.ui_support import WAIT_MS, wait_job_done


def test_simulate_offers_the_last_demo_visit_again(sample_window, monkeypatch, private_dirs):
    from fieldapp.app import visit as visit_mod

    w, _path, _info = sample_window
    data = private_dirs / "data"
    older, last = data / "demo_2026-06-01_093000.gpkg", data / "demo_2026-06-02_080000.gpkg"
    older.write_bytes(b"")
    last.write_bytes(b"")
    cfg = dataclasses.replace(w.config, simulate=True, visit=None, data_dir=str(data))
    monkeypatch.setattr(w.settings, "config", cfg)
    monkeypatch.setattr(visit_mod, "dialogs_allowed", lambda config, platform: True)
    asked = []
    monkeypatch.setattr(w, "ask_reopen_visit", lambda path: asked.append(path) or True)
    assert visit_mod.initial_visit_target(w) == (last, None)
    assert asked == [last]
    # No: a new demo visit; --new-visit: not asked
    monkeypatch.setattr(w, "ask_reopen_visit", lambda path: False)
    new, _ = visit_mod.initial_visit_target(w)
    assert new.name.startswith("demo_") and new not in (older, last)
    monkeypatch.setattr(w.settings, "config", dataclasses.replace(cfg, new_visit=True))
    monkeypatch.setattr(w, "ask_reopen_visit", lambda path: pytest.fail("asked"))
    assert visit_mod.initial_visit_target(w)[0] not in (older, last)


def _demo_file_with_a_fix(path, lat, lon):
    """A file with just the table and the one stored fix the check reads."""
    import sqlite3

    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE track_point (fid INTEGER PRIMARY KEY, lat_deg REAL, lon_deg REAL)")
        conn.execute("INSERT INTO track_point (lat_deg, lon_deg) VALUES (?, ?)", (lat, lon))
    conn.close()


def test_a_demo_visit_walked_before_the_demo_moved_is_not_offered(sample_window, monkeypatch,
                                                                 private_dirs):
    """The demo moved from the Upper Iowa River (43.3035 N, 91.786 W) to the Kickapoo; a demo
    visit walked there lies 98 km away (Geod, WGS 84): a new demo visit, and the banner says why."""
    from devices.sim.demo_scenario import ORIGIN
    from fieldapp.app import visit as visit_mod

    w, _path, _info = sample_window
    data = private_dirs / "data"
    data.mkdir(parents=True, exist_ok=True)
    iowa = data / "demo_2026-06-02_080000.gpkg"
    _demo_file_with_a_fix(iowa, 43.30350, -91.78600)
    cfg = dataclasses.replace(w.config, simulate=True, visit=None, data_dir=str(data))
    monkeypatch.setattr(w.settings, "config", cfg)
    monkeypatch.setattr(visit_mod, "dialogs_allowed", lambda config, platform: True)
    monkeypatch.setattr(w, "ask_reopen_visit", lambda path: pytest.fail("offered an Iowa demo visit"))
    banners = []
    monkeypatch.setattr(w, "show_banner", banners.append)
    new, _ = visit_mod.initial_visit_target(w)
    assert new != iowa and new.name.startswith("demo_")
    assert banners == [f"The last demo visit ({iowa.name}) was walked 98 km from today's demo site"
                       " (43.3035, -91.7860): a new demo visit was started; that file is kept as it was"]
    # one walked at today's site (the scenario's origin, 200 ft off) is offered as before
    here = data / "demo_2026-06-03_080000.gpkg"
    _demo_file_with_a_fix(here, ORIGIN[0] + 0.00055, ORIGIN[1])
    asked = []
    monkeypatch.setattr(w, "ask_reopen_visit", lambda path: asked.append(path) or True)
    assert visit_mod.initial_visit_target(w) == (here, None) and asked == [here]


def test_reopen_question_names_the_visit(tmp_path):
    from fieldapp.ui.reopen import reopen_question

    p = tmp_path / "demo_2026-06-02_080000.gpkg"
    p.write_bytes(b"")
    q = reopen_question(p)
    assert q.startswith("Reopen the last demo visit demo_2026-06-02_080000.gpkg (last changed ")
    assert "No starts a new, empty demo visit" in q


def test_after_a_sync_nothing_offers_an_undo_that_is_gone(qtbot, sample_window, monkeypatch):
    w, path, _info = sample_window
    tally = w.panels["tally"]
    w.tabs.setCurrentWidget(tally)
    qtbot.waitUntil(lambda: tally.table.rowCount() == 4, timeout=WAIT_MS)
    tally.table.selectRow(0)
    tally.delete_selected()
    assert "Ctrl+Z brings it back" in tally.state.text()
    w.statusBar().showMessage("Deleted tree 1 — Ctrl+Z brings it back")
    office = path.parent.parent / "office"
    monkeypatch.setattr(w.office, "ask_office", lambda current, visit_path: office)
    monkeypatch.setattr(w.office, "ask_yes_no", lambda t, q: True)
    w.office.start_sync()
    wait_job_done(qtbot, w)
    assert w.office.last_sync_report is not None, w.office.messages
    assert not w.visit.can_undo_delete()
    assert "Ctrl+Z" not in tally.state.text(), tally.state.text()
    assert tally.state.text().startswith("Tree ") and "deleted." in tally.state.text()
    message = w.statusBar().currentMessage()
    assert "Ctrl+Z" not in message and "no longer undoable" in message, message


def test_the_readmes_new_visit_option_is_the_apps(tmp_path, monkeypatch):
    """README: "Run again, it offers the last demo visit (No, or ``--new-visit``, starts a new
    empty one)": the option the README names is accepted (it was refused as unknown), as is
    ``--new``."""
    import re
    from pathlib import Path

    from fieldapp.ui.app import build_config, build_parser

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    assert "`--new-visit`" in readme
    monkeypatch.setenv("FIELDAPP_CONFIG_DIR", str(tmp_path / "cfg"))
    for option in ("--new-visit", "--new"):
        assert build_config(["--simulate", option, "--no-settings-file"]).new_visit is True
    assert not build_config(["--simulate", "--no-settings-file"]).new_visit
    assert re.search(r"--new, --new-visit", build_parser().format_help())
