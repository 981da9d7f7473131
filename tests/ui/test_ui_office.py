"""The Report, Export and Sync buttons end to end (keys, worker thread, progress, messages),
and the Conflicts view. The visit is the report tests' sample (tests/report/sample_visit.py):
transect T1 over a steep bank, 30 ft @ 4 %, 60 ft @ 18 %, 120 ft @ 5 % -> bank 90 ft."""

from __future__ import annotations

import contextlib
import threading
import unicodedata
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")
pypdf = pytest.importorskip("pypdf")

from tests.gpkgtools import st_connect  # noqa: E402
from tests.report.sample_visit import build_sample_visit  # noqa: E402
from tests.ui.ui_support import WAIT_MS, close_window, key, make_window, wait_job_done  # noqa: E402


def job_threads():
    return [t for t in threading.enumerate() if t.name.startswith("fieldapp-job-")]


def dismiss_messages(qtbot, w):
    """Close the non-modal message boxes (as the user would) so the window has the keys."""
    from PySide6.QtWidgets import QApplication, QDialog

    for top in QApplication.topLevelWidgets():
        if isinstance(top, QDialog) and top.isVisible():
            top.close()
    w.activateWindow()
    qtbot.waitUntil(w.isActiveWindow, timeout=WAIT_MS)


def pdf_text(path):
    reader = pypdf.PdfReader(path)
    return unicodedata.normalize("NFKC", " ".join(" ".join(p.extract_text() for p in reader.pages)
                                                  .split()))


def test_report_button_writes_pdf_with_verdict_and_asks_before_overwrite(qtbot, sample_window,
                                                                         monkeypatch):
    w, path, _ = sample_window
    out = path.with_name("site-report.pdf")
    monkeypatch.setattr(w.office, "ask_report_path", lambda default: out)
    asked = []
    monkeypatch.setattr(w.office, "ask_yes_no", lambda t, q: asked.append(q) or True)
    w.visit.set_retained_ac(0.5)
    seen = []
    key(qtbot, w, "Ctrl+R")
    assert w.office.busy() and w.job_bar.isVisible()
    w.office.job.sigProgress.connect(lambda f, m: seen.append(f))
    assert [t.daemon for t in job_threads()] == [True]
    wait_job_done(qtbot, w)
    assert w.office.messages[-1][0] == "Report" and "written" in w.office.messages[-1][1]
    text = pdf_text(out)
    # T1: 30 @ 4 %, 60 @ 18 %, 120 @ 5 %: steep 30..90 ft inside 75 ft, then 120 ft below
    # 12 % -> bank 90 ft (rules-contract example), NR 341.035(1)(a)
    assert "Bank 90.0 ft (slope)" in text and "NR 341.035(1)(a)" in text
    assert "determined" in text
    assert seen == sorted(seen)                        # progress only moves forward
    # again: the file exists -> the user is asked, says yes -> overwritten (force=True)
    before = out.stat().st_mtime_ns
    dismiss_messages(qtbot, w)
    key(qtbot, w, "Ctrl+R")
    qtbot.waitUntil(lambda: bool(asked), timeout=WAIT_MS)
    assert "exists" in asked[0] and "Overwrite" in asked[0]
    wait_job_done(qtbot, w)
    assert out.stat().st_mtime_ns != before
    assert "Bank 90.0 ft (slope)" in pdf_text(out)


def test_report_button_with_no_retained_area_typed_gives_no_plan(qtbot, sample_window,
                                                                   monkeypatch):
    """The Tally tab's 0.00 ac is no plan typed: the report is asked for none (a report's
    retained area of 0 is a plan that retains nothing)."""
    import fieldapp.report as report_mod

    w, path, _ = sample_window
    real, asked = report_mod.build_report, []
    monkeypatch.setattr(report_mod, "build_report",
                        lambda *a, **kw: asked.append(kw["retained_ac"]) or real(*a, **kw))
    out = path.with_name("no-plan.pdf")
    monkeypatch.setattr(w.office, "ask_report_path", lambda default: out)
    w.visit.set_retained_ac(0.0)
    w.office.start_report()
    wait_job_done(qtbot, w)
    assert asked == [None]
    assert "Woodland protection" not in pdf_text(out)


def test_report_refused_overwrite_keeps_file(qtbot, sample_window, monkeypatch):
    w, path, _ = sample_window
    out = path.with_name("keep.pdf")
    out.write_bytes(b"old")
    monkeypatch.setattr(w.office, "ask_report_path", lambda default: out)
    monkeypatch.setattr(w.office, "ask_yes_no", lambda t, q: False)
    w.office.start_report()
    wait_job_done(qtbot, w)
    assert out.read_bytes() == b"old"


def test_report_cancel_writes_nothing(qtbot, sample_window, monkeypatch):
    w, path, _ = sample_window
    out = path.with_name("cancelled.pdf")
    monkeypatch.setattr(w.office, "ask_report_path", lambda default: out)
    w.office.start_report()
    w.office.cancel()                      # before the worker reaches its first step
    assert w.job_bar.cancel_button.text() == "Cancelling…" or not w.office.busy()
    wait_job_done(qtbot, w)
    assert not out.exists()
    assert not list(out.parent.glob(".cancelled.pdf.*"))     # no temporary left behind
    assert "cancelled" in w.office.messages[-1][1]


def test_export_button_writes_geojson_gdal_reopens(qtbot, sample_window, monkeypatch):
    from pyogrio import list_layers, read_info

    w, path, info = sample_window
    out = path.with_name("mill-creek_geojson")
    monkeypatch.setattr(w.office, "ask_export", lambda visit_path: ("geojson", out))
    key(qtbot, w, "Ctrl+E")
    wait_job_done(qtbot, w)
    title, text = w.office.messages[-1]
    assert title == "Export" and "EPSG:4326" in text, text
    trees = out / "tree.geojson"
    layer = list_layers(trees)[0][0]
    meta = read_info(trees, layer=layer)
    # the sample has 4 trees (DBH 10, 11, 14, 24 in) and 2 transects
    assert meta["features"] == info["counts"]["tree"] == 4
    assert read_info(out / "transect.geojson")["features"] == 2
    assert meta["crs"] == "EPSG:4326"
    # export again to the same folder: asked; "no" leaves it alone and says nothing was written
    monkeypatch.setattr(w.office, "ask_yes_no", lambda t, q: False)
    w.office.start_export()
    wait_job_done(qtbot, w)
    assert read_info(trees)["features"] == 4


def test_export_every_format_from_the_dialog(qtbot, sample_window, monkeypatch):
    """The Export dialog's last choice writes every format, a folder each, in one job."""
    from pyogrio import read_info

    from fieldapp.ui.officeactions import ExportDialog

    w, path, info = sample_window
    dlg = ExportDialog(path, w)
    dlg.fmt.setCurrentIndex(dlg.fmt.count() - 1)
    assert dlg.fmt.currentData() == "all" and dlg.fmt.currentText().startswith("Every format")
    assert Path(dlg.path.text()) == path.with_name(f"{path.stem}_export")
    out = path.with_name("all-formats")
    monkeypatch.setattr(w.office, "ask_export", lambda visit_path: (dlg.fmt.currentData(), out))
    dlg.deleteLater()
    w.office.start_export()
    wait_job_done(qtbot, w)
    title, text = w.office.messages[-1]
    assert title == "Export" and "Exported every format" in text, text
    # the layers in the crew's words, not the tables' names (issue 35 item 15)
    assert "Trees 4" in text and "tree 4" not in text and "_" not in text.split("\n", 1)[1], text
    assert sorted(p.name for p in out.iterdir()) == ["csv", "dxf", "geojson", "gpkg", "kml", "shp"]
    assert read_info(out / "shp" / "tree.shp")["features"] == info["counts"]["tree"] == 4
    assert (out / "kml" / f"{path.stem}.kml").is_file() and (out / "dxf" / f"{path.stem}.dxf").is_file()


def test_export_error_is_a_message_not_a_traceback(qtbot, sample_window, monkeypatch):
    w, path, _ = sample_window
    out = path.parent / "missing-folder" / "x.kml"
    w.office.start_export("kml", out)
    wait_job_done(qtbot, w)
    title, text = w.office.messages[-1]
    assert title == "Export" and text.startswith("Export failed:") and "does not exist" in text
    assert "Traceback" not in text


def rows(path, table):
    with contextlib.closing(st_connect(f"file:{path}?mode=ro", uri=True)) as conn:
        return conn.execute(f'SELECT uuid FROM "{table}" ORDER BY uuid').fetchall()


def test_sync_button_new_office_counts_and_reopens_visit(qtbot, sample_window, monkeypatch):
    w, path, info = sample_window
    office = path.parent.parent / "office"
    monkeypatch.setattr(w.office, "ask_office", lambda current, visit_path: office)
    asked = []
    monkeypatch.setattr(w.office, "ask_yes_no", lambda t, q: asked.append(q) or True)
    trees_before = sorted(t.uuid for t in w.visit.trees())
    old_controller = w.visit
    key(qtbot, w, "Ctrl+Y")
    assert "not a fieldapp office folder yet" in asked[0]      # a new office: asked first
    # recording is paused while the store is closed
    assert w.paused_reason == "Sync in progress"
    assert w.visit.store.closed
    wait_job_done(qtbot, w)
    report = w.office.last_sync_report
    assert report is not None, w.office.messages
    counts = {c.layer: c for c in report.layers}
    # the first sync of a new office sends every feature: 4 trees, 2 transects, 6 stations
    # (3 per transect), nothing received, merged or in conflict
    assert counts["tree"].sent == 4 and counts["transect"].sent == 2
    assert counts["station"].sent == 6
    assert report.totals().received == 0 and report.totals().conflicts == 0
    table = w.office.result_dialog.table
    assert table.item(table.rowCount() - 1, 0).text() == "All layers"
    # layers in field words, the GeoPackage table in the tooltip (fieldapp.app.layerwords)
    shown = {table.item(r, 0).text(): table.item(r, 0).toolTip()
             for r in range(table.rowCount() - 1)}
    assert "Trees" in shown and "“tree”" in shown["Trees"]
    assert "Transect stations" in shown and "“station”" in shown["Transect stations"]
    assert int(table.item([table.item(r, 0).text() for r in range(table.rowCount())]
                          .index("Transect stations"), 1).text()) == 6
    internal = {c.layer for c in report.layers}
    assert not internal & set(shown), shown                # no table name shown as such
    assert int(table.item(table.rowCount() - 1, 1).text()) == report.totals().sent
    # reopened: a new controller, a live store, same data, recording resumed
    assert w.visit is not old_controller and not w.visit.store.closed
    assert sorted(t.uuid for t in w.visit.trees()) == trees_before
    assert w.paused_reason is None
    assert len(rows(path, "tree")) == 4
    assert w.config.office_dir == str(office)                 # remembered
    from fieldapp.app import config as C
    assert C.read_file().get("office_dir") == str(office)
    # a second sync: nothing to send or receive
    dismiss_messages(qtbot, w)
    key(qtbot, w, "Ctrl+Y")
    wait_job_done(qtbot, w)
    assert w.office.last_sync_report is not report, w.office.messages
    assert w.office.last_sync_report.totals().sent == 0
    assert len(asked) == 1                                    # the office exists now


def test_sync_error_is_a_message_and_visit_reopened(qtbot, sample_window, monkeypatch):
    w, path, _ = sample_window
    office = path.parent / "not-there" / "office"             # parent missing: refused at once
    monkeypatch.setattr(w.office, "ask_office", lambda current, visit_path: office)
    w.office.start_sync()
    assert "does not exist" in w.office.messages[-1][1]
    assert w.paused_reason is None and not w.visit.store.closed


def test_conflicts_view_shows_records(qtbot, private_dirs):
    path = private_dirs / "data" / "c.gpkg"
    path.parent.mkdir(parents=True)
    build_sample_visit(path, conflict=True)
    w = make_window(qtbot, private_dirs, visit=str(path))
    try:
        qtbot.waitUntil(lambda: w.startup_done and w.visit is not None, timeout=WAIT_MS)
        assert w.conflicts_view is None                        # built on first show
        w.activateWindow()
        qtbot.waitUntil(w.isActiveWindow, timeout=WAIT_MS)
        key(qtbot, w, "Ctrl+J")
        view = w.conflicts_view
        assert view.table.rowCount() == 1
        cells = [view.table.item(0, c).text() for c in range(view.table.columnCount())]
        # the sample's record: tree dbh_in base 10.0, office 10.4, laptop 10.2, ours kept
        # the layer in field words, its table name in the tooltip
        assert cells[1] == "Trees" and cells[3] == "DBH (in)"
        assert "“tree”" in view.table.item(0, 1).toolTip()
        assert cells[5:9] == ["10.0", "10.4", "10.2", "ours"]
        assert cells[9] == "last-sync-wins"
        # an open same-field record: its three buttons in the first column
        assert sorted(view.buttons[view.conflicts[0].uuid]) == ["keep-mine", "keep-theirs", "other"]
        assert "1 conflict record, 1 unresolved" in view.summary.text()
    finally:
        close_window(w)


def test_an_os_error_is_said_in_words_without_its_errno():
    import errno

    from fieldapp.ui.officeactions import error_words

    full = OSError(errno.ENOSPC, "No space left on device", "/media/usb/office/master.gpkg")
    assert error_words(full) == ("/media/usb/office/master.gpkg: the disk is full (no space left"
                                 " on the device)")
    denied = PermissionError(errno.EACCES, "Permission denied", "/office")
    assert error_words(denied) == "/office: Permission denied"
    assert error_words(ValueError("slope must be within ±89°")) == "slope must be within ±89°"


def test_the_office_actions_are_given_the_app_layer_not_the_window():
    """Report / Export / Sync take OfficeParts (the visit, the settings, the job strip and the
    window's services as callables), never the window to reach through."""
    import inspect

    from fieldapp.ui import officeactions
    from fieldapp.ui.officeactions import OfficeActions, OfficeParts

    params = list(inspect.signature(OfficeActions.__init__).parameters)
    assert params == ["self", "parts"]
    assert inspect.get_annotations(OfficeActions.__init__)["parts"] == "OfficeParts"
    assert {"recording", "settings", "job_bar", "reopen"} <= set(OfficeParts.__dataclass_fields__)
    assert "self.w." not in inspect.getsource(officeactions)
