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


def test_on_windows_the_shell_opens_the_pdf_and_selects_it_in_explorer(tmp_path, monkeypatch):
    import os
    import subprocess
    import sys

    from fieldapp.ui import openresult

    pdf = tmp_path / "site report.pdf"
    pdf.write_bytes(b"%PDF-1.4\n")
    calls = []
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(os, "startfile", lambda p: calls.append(("startfile", p)), raising=False)
    monkeypatch.setattr(subprocess, "Popen", lambda args: calls.append(("popen", args)))
    assert openresult.open_file(pdf) and openresult.show_in_folder(pdf)
    assert calls == [("startfile", str(pdf)), ("popen", ["explorer", f"/select,{pdf}"])]
