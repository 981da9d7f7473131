"""A report over a PDF open in a viewer (issue 28, item 6): Windows refuses to replace it; the
report names the file and refuses before anything is written (Windows simulated as in
``tests/test_export_held.py``)."""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

import pytest

from fieldapp.report import ReportRefused, ReportWriteFailed, build_report, guard, main
from tests.report.sample_visit import build_sample_visit
from tests.report.test_report_guard import one_line, sha256


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    path = tmp_path_factory.mktemp("held") / "fresh.gpkg"
    build_sample_visit(path)
    return path


@pytest.fixture
def visit(fresh, tmp_path):
    path = tmp_path / "visit.gpkg"
    shutil.copyfile(fresh, path)
    return path


def test_pdf_open_in_a_viewer_is_refused_before_anything_is_written(qapp, visit, tmp_path, monkeypatch, capsys):
    out = tmp_path / "report.pdf"
    out.write_bytes(b"%PDF-1.4 the report the office has open\n")
    before = sha256(out)
    monkeypatch.setattr(guard, "WINDOWS", True)

    def share_mode_0(path):
        raise PermissionError(errno.EACCES, "Permission denied", path)

    monkeypatch.setattr(guard, "_try_write_open", share_mode_0)
    read = []
    monkeypatch.setattr("fieldapp.report.content.load_visit", lambda p: read.append(p))
    with pytest.raises(ReportRefused) as e:
        build_report(visit, out, force=True)
    assert str(e.value) == (f"{out} is open in another program: close report.pdf in the program"
                            " that has it open, then make the report again; nothing was written")
    assert read == [] and sha256(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.pdf", "visit.gpkg"]
    assert main([str(visit), "-o", str(out), "--force"]) == 1
    err = capsys.readouterr().err
    assert one_line(err) and "close report.pdf in the program that has it open" in err


def test_replace_refused_by_windows_names_the_pdf(qapp, visit, tmp_path, monkeypatch):
    out = tmp_path / "report.pdf"
    out.write_bytes(b"%PDF-1.4 old\n")
    monkeypatch.setattr(guard, "WINDOWS", True)
    real = os.replace

    def replace(src, dst):
        if Path(dst) == out:
            raise PermissionError(errno.EACCES, "Access is denied", str(src), None, str(dst))
        return real(src, dst)

    monkeypatch.setattr("fieldapp.report.os.replace", replace)
    with pytest.raises(ReportWriteFailed) as e:
        build_report(visit, out, force=True)
    assert str(e.value) == (f"cannot write {out}: {out} is open in another program: close report.pdf"
                            " in the program that has it open, then make the report again")
    assert out.read_bytes() == b"%PDF-1.4 old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.pdf", "visit.gpkg"]
