"""Report and export files follow the user's umask; the CLI's 'exists' refusal speaks user words."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.report.sample_visit import build_sample_visit


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("cli-output") / "mill-creek.gpkg"
    build_sample_visit(path, conflict=False)
    return path


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_current_umask_reads_without_changing_it(umask_022):
    from fieldapp.report import current_umask

    assert current_umask() == 0o022
    assert os.umask(0o022) == 0o022  # unchanged by the read


@pytest.mark.skipif(os.name == "nt", reason="Windows has no umask or mode bits: a new file takes its folder's ACL")
def test_export_modes_follow_umask_022(sample, tmp_path, umask_022):
    from fieldapp.export import export_visit

    # umask 022: a new folder is 0o777 & ~0o022 = 0o755, a new file 0o666 & ~0o022 = 0o644
    folder = tmp_path / "geojson"
    export_visit(sample, folder, "geojson")
    assert mode(folder) == 0o755
    files = list(folder.iterdir())
    assert files and {mode(f) for f in files} == {0o644}
    dxf = tmp_path / "site.dxf"
    export_visit(sample, dxf, "dxf")
    assert mode(dxf) == 0o644


@pytest.mark.skipif(os.name == "nt", reason="Windows has no umask or mode bits: a new file takes its folder's ACL")
def test_report_mode_follows_umask_022(qapp, sample, tmp_path, umask_022):
    from fieldapp.report import build_report

    out = tmp_path / "report.pdf"
    build_report(sample, out)
    assert mode(out) == 0o644  # 0o666 & ~0o022


def test_export_cli_exists_message_has_no_code(sample, tmp_path, capsys):
    from fieldapp.export import main

    out = tmp_path / "keep.dxf"
    out.write_text("drawing someone made")
    assert main([str(sample), "--format", "dxf", "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert err == f"fieldapp export: {out} exists; use --force to overwrite it\n"
    assert out.read_text() == "drawing someone made"


def test_report_cli_exists_message_has_no_code(qapp, sample, tmp_path, capsys):
    from fieldapp.report import main

    out = tmp_path / "keep.pdf"
    out.write_text("someone's report")
    assert main([str(sample), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert err == f"fieldapp report: {out} exists; use --force to overwrite it\n"
    assert out.read_text() == "someone's report"
