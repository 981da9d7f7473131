"""Issue 35 item 16: the report's message offers *Open PDF* and *Show folder*, which hand the
PDF to the system (os.startfile / explorer on Windows, Qt's desktop services elsewhere)."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtWidgets import QApplication, QMessageBox

from tests.ui.ui_support import wait_job_done


def test_report_message_opens_the_pdf_and_its_folder(qtbot, sample_window, monkeypatch):
    from fieldapp.ui import openresult

    w, path, _ = sample_window
    out = path.with_name("site-report.pdf")
    monkeypatch.setattr(w.office, "ask_report_path", lambda default: out)
    opened = []
    monkeypatch.setattr(openresult, "open_file", lambda p: opened.append(("file", p)) or True)
    monkeypatch.setattr(openresult, "show_in_folder",
                        lambda p: opened.append(("folder", p)) or True)
    w.office.start_report()
    wait_job_done(qtbot, w)
    assert w.office.messages[-1][0] == "Report" and out.is_file()
    box = next(b for b in QApplication.topLevelWidgets()
               if isinstance(b, QMessageBox) and b.isVisible() and b.windowTitle() == "Report")
    buttons = {b.text(): b for b in box.buttons()}
    assert {"Open PDF", "Show folder"} <= set(buttons), list(buttons)
    buttons["Open PDF"].click()
    assert opened == [("file", str(out))] or opened == [("file", out)]


def test_open_file_refuses_a_missing_file(tmp_path):
    from fieldapp.ui.openresult import open_file

    assert open_file(tmp_path / "gone.pdf") is False
