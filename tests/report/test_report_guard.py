"""The report never writes over a visit (itself by any name, its sidecars, any other visit), its
--retained-ac is a finite area >= 0, an error verdict is shown rather than crashing, the visit
file is not changed by reading it (also when read-only), and every failure is one line on
stderr, never a traceback."""

from __future__ import annotations

import errno
import hashlib
import math
import os
import shutil
import subprocess
import tempfile
import unicodedata
from pathlib import Path

import pytest

from tests.gpkgtools import st_connect
from tests.links import symlink_or_skip
from tests.report.sample_visit import build_sample_visit

pypdf = pytest.importorskip("pypdf")


def sha256(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    path = tmp_path_factory.mktemp("guard") / "fresh.gpkg"
    build_sample_visit(path)
    return path


@pytest.fixture
def visit(fresh, tmp_path):
    """A private copy of the sample visit in an empty folder."""
    path = tmp_path / "visit.gpkg"
    shutil.copyfile(fresh, path)
    return path


def pdf_text(path) -> str:
    reader = pypdf.PdfReader(path)
    return unicodedata.normalize("NFKC", " ".join(" ".join(p.extract_text() for p in reader.pages).split()))


def run_main(argv, capsys):
    from fieldapp.report import main

    rc = main([str(a) for a in argv])
    err = capsys.readouterr().err
    return rc, err


def one_line(err: str) -> bool:
    return "Traceback" not in err and len(err.strip().splitlines()) == 1


# ------------------------------------------------------------------ 1. never over a visit
def _targets(visit: Path, tmp_path: Path, kind: str):
    hard = tmp_path / "hard-link.pdf"
    os.link(visit, hard)
    sym = tmp_path / "sym-link.pdf"
    if kind == "symbolic link":
        symlink_or_skip(visit, sym)
    sub = tmp_path / "sub"
    sub.mkdir()
    return {
        "same path": visit,
        "other spelling": sub / ".." / visit.name,
        "hard link": hard,
        "symbolic link": sym,
        "wal sidecar": Path(f"{visit}-wal"),
        "shm sidecar": Path(f"{visit}-shm"),
    }


@pytest.mark.parametrize("kind", ["same path", "other spelling", "hard link", "symbolic link",
                                  "wal sidecar", "shm sidecar"])
def test_report_refuses_to_write_over_its_own_visit_even_with_force(qapp, visit, tmp_path, kind, capsys):
    before = sha256(visit)
    out = _targets(visit, tmp_path, kind)[kind]
    rc, err = run_main([visit, "-o", out, "--force"], capsys)
    assert rc == 1 and one_line(err)
    assert "refusing to write over it" in err and "even with --force" in err
    assert sha256(visit) == before  # refused before the visit is even opened
    if "sidecar" in kind:
        assert not out.exists()  # no stray file SQLite would take for the visit's journal
    # nothing else left in the folder (no temporary PDFs)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["hard-link.pdf", "sub", "visit.gpkg"] + (["sym-link.pdf"] if kind == "symbolic link" else []))


def test_report_refuses_to_write_over_another_visit_even_with_force(qapp, visit, fresh, tmp_path, capsys):
    other = tmp_path / "yesterday.gpkg"
    shutil.copyfile(fresh, other)
    before = sha256(other)
    rc, err = run_main([visit, "-o", other, "--force"], capsys)
    assert rc == 1 and one_line(err) and "is a fieldapp visit GeoPackage" in err
    assert sha256(other) == before
    # ... and its sidecar names: "yesterday.gpkg-wal" would be replayed into that visit
    rc, err = run_main([visit, "-o", f"{other}-wal", "--force"], capsys)
    assert rc == 1 and "sidecar of the visit" in err and not Path(f"{other}-wal").exists()


def test_report_still_overwrites_an_ordinary_file_or_other_geopackage_when_forced(qapp, visit, tmp_path):
    """The guard is narrow: a non-visit SQLite/GeoPackage file is an ordinary file to --force."""

    from fieldapp.report import build_report

    gpkg = tmp_path / "someone-elses.gpkg"
    with st_connect(gpkg) as conn:
        conn.execute("PRAGMA application_id = 1196444487")  # 'GPKG', but no fieldapp metadata
        conn.execute("CREATE TABLE t (x)")
    conn.close()
    build_report(visit, gpkg, force=True)
    assert gpkg.read_bytes().startswith(b"%PDF")


# ------------------------------------------------------------------ 2. reading changes nothing
def test_report_leaves_the_visit_byte_identical(qapp, visit, tmp_path):
    from fieldapp.report import build_report

    before = sha256(visit)
    build_report(visit, tmp_path / "r.pdf")
    assert sha256(visit) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.pdf", "visit.gpkg"]  # no -wal/-shm left


class ReadOnly:
    """Make a file truly read-only: chmod 0444, and for root (who ignores modes) the Linux
    immutable attribute (``chattr +i``), undone on exit."""

    def __init__(self, path: Path):
        self.path = path
        self.immutable = False

    def __enter__(self):
        os.chmod(self.path, 0o444)
        if hasattr(os, "geteuid") and os.geteuid() == 0:   # (Windows: the read-only attribute holds)
            exe = shutil.which("chattr")
            run = subprocess.run([exe, "+i", str(self.path)], capture_output=True) if exe else None
            if run is None or run.returncode != 0:
                os.chmod(self.path, 0o644)
                pytest.skip("running as root and cannot make the file immutable (chattr +i)")
            self.immutable = True
        try:
            with open(self.path, "r+b"):
                pass
        except OSError:
            return self.path
        self.__exit__()
        pytest.skip("cannot make a read-only file here")

    def __exit__(self, *exc):
        if self.immutable:
            subprocess.run([shutil.which("chattr"), "-i", str(self.path)], check=True)
            self.immutable = False
        os.chmod(self.path, 0o644)


def test_report_of_a_read_only_visit(qapp, visit, tmp_path):
    from fieldapp.report import build_report

    before = sha256(visit)
    with ReadOnly(visit):
        summary = build_report(visit, tmp_path / "r.pdf")
    assert summary["verdicts"] == 8  # the sample's eight checks, as in test_report.py
    assert sha256(visit) == before
    # the sync conflict the sample holds is read from the read-only file too (test_report.py)
    t = pdf_text(tmp_path / "r.pdf")
    assert "same-field" in t and "10.4" in t


# ------------------------------------------------------------------ 3. --retained-ac
@pytest.mark.parametrize("value", ["-5", "nan", "1e999", "inf", "-inf", "five"])
def test_retained_acres_must_be_finite_and_not_negative(visit, tmp_path, value, capsys):
    from fieldapp.report import main

    with pytest.raises(SystemExit) as exc:
        main([str(visit), "-o", str(tmp_path / "r.pdf"), f"--retained-ac={value}"])
    assert exc.value.code == 2
    assert "--retained-ac" in capsys.readouterr().err
    assert not (tmp_path / "r.pdf").exists()


def test_retained_acres_accepted_and_checked_in_the_api(visit, tmp_path):
    from fieldapp.report import acres, build_report

    assert acres("0") == 0.0 and acres("2.5") == 2.5 and acres("1e3") == 1000.0
    for bad in (-5.0, math.nan, math.inf):
        with pytest.raises(ValueError, match="retained_ac"):
            build_report(visit, tmp_path / "r.pdf", retained_ac=bad)
    assert not (tmp_path / "r.pdf").exists()


# ------------------------------------------------------------------ 4. error verdicts
def test_error_verdict_is_shown_not_a_crash(qapp, visit, tmp_path, monkeypatch):
    """A stand whose canopy the woodland rule refuses (e.g. 100 % plus a rounding excess) gets an
    error verdict: the report says so, in the stand section and in the verdict's detail."""
    import fieldapp.rules
    from fieldapp.report import build_report

    real = fieldapp.rules.evaluate
    message = "canopy_10in_pct must be at most 100 %, got 100 %"

    def evaluate(request):
        if request.get("rule") == "woodland.class":
            return {"rule": "woodland.class", "status": "error", "key": "input.canopy_10in_pct",
                    "message": message}
        return real(request)

    monkeypatch.setattr(fieldapp.rules, "evaluate", evaluate)
    out = tmp_path / "r.pdf"
    summary = build_report(visit, out)
    t = pdf_text(out)
    assert f"Woodland class not determined: input.canopy_10in_pct: {message}" in t
    assert f"Error: {message}" in t  # glance table / detail (summary_words)
    assert summary["verdicts"] == 8  # the sample's eight checks (test_report.py), this one in error


def test_every_verdict_an_error_still_makes_a_report(qapp, visit, tmp_path, monkeypatch):
    import fieldapp.rules
    from fieldapp.report import build_report

    monkeypatch.setattr(fieldapp.rules, "evaluate",
                        lambda req: {"rule": req.get("rule"), "status": "error", "key": "input",
                                     "message": "refused for the test"})
    out = tmp_path / "r.pdf"
    summary = build_report(visit, out)
    assert summary["pages"] >= 1 and pdf_text(out).count("refused for the test") >= summary["verdicts"]


# ------------------------------------------------------------------ 5. one line, never a traceback
def test_missing_output_folder(qapp, visit, tmp_path, capsys):
    rc, err = run_main([visit, "-o", tmp_path / "nope" / "r.pdf"], capsys)
    assert rc == 1 and one_line(err) and "the folder" in err and "does not exist" in err


def test_output_is_a_folder(qapp, visit, tmp_path, capsys):
    rc, err = run_main([visit, "-o", tmp_path, "--force"], capsys)
    assert rc == 1 and one_line(err) and "is a folder" in err


def test_disk_full_while_writing(qapp, visit, tmp_path, capsys, monkeypatch):
    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    rc, err = run_main([visit, "-o", tmp_path / "r.pdf"], capsys)
    assert rc == 1 and one_line(err) and "disk is full" in err and "r.pdf" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["visit.gpkg"]  # temporaries removed


def test_permission_denied_for_the_output(qapp, visit, tmp_path, capsys, monkeypatch):
    def denied(*a, **k):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(tmp_path / ".r.pdf.x.tmp"))

    monkeypatch.setattr(tempfile, "mkstemp", denied)
    rc, err = run_main([visit, "-o", tmp_path / "r.pdf"], capsys)
    assert rc == 1 and one_line(err)
    assert f"cannot write {tmp_path / 'r.pdf'}: Permission denied" in err and ".tmp" not in err


def test_unexpected_failure_is_one_line(qapp, visit, tmp_path, capsys, monkeypatch):
    import fieldapp.report.content

    def broken(*a, **k):
        raise RuntimeError("something nobody foresaw")

    monkeypatch.setattr(fieldapp.report.content, "gather", broken)
    rc, err = run_main([visit, "-o", tmp_path / "r.pdf"], capsys)
    assert rc == 1 and one_line(err) and "something nobody foresaw" in err


@pytest.mark.parametrize("kind", ["missing", "not ours", "unreadable"])
def test_bad_visit_is_one_line(qapp, tmp_path, capsys, kind, monkeypatch):
    bad = tmp_path / "v.gpkg"
    expect = {"missing": "no visit file", "not ours": "not a GeoPackage", "unreadable": "Permission denied"}[kind]
    if kind != "missing":
        bad.write_text("notes\n")
    if kind == "unreadable":  # root reads anything: make open() itself say no
        real_open = open

        def no_read(path, *a, **k):
            if Path(path) == bad:
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
            return real_open(path, *a, **k)

        monkeypatch.setattr("builtins.open", no_read)
    rc, err = run_main([bad, "-o", tmp_path / "r.pdf"], capsys)
    assert rc == 1 and one_line(err) and expect in err


def test_a_full_disk_exits_non_zero_says_so_and_leaves_nothing(visit, tmp_path):
    """On a real full disk: a 64 KiB tmpfs with 12 KiB left (the report is far larger), the
    command run as the office runs it. Skips only where a tmpfs cannot be mounted (not root, no
    CAP_SYS_ADMIN); the monkeypatched case below runs everywhere."""
    import sys

    from fieldapp.report import ReportWriteFailed, build_report
    from tests.test_export_office import REPO, _small_tmpfs

    with _small_tmpfs(tmp_path / "small", 12 * 1024) as disk:
        out = disk / "report.pdf"
        env = {**os.environ, "PYTHONPATH": str(REPO), "QT_QPA_PLATFORM": "offscreen"}
        run = subprocess.run([sys.executable, "-m", "fieldapp", "report", str(visit), "-o", str(out)],
                             capture_output=True, text=True, env=env, timeout=600)
        assert run.returncode == 1, run.stdout
        assert f"cannot write {out}: the disk is full" in run.stderr, run.stderr
        assert "Traceback" not in run.stderr and one_line(run.stderr)
        assert sorted(p.name for p in disk.iterdir()) == ["filler.bin"]  # no partial or temporary file
        with pytest.raises(ReportWriteFailed, match="the disk is full") as caught:
            build_report(visit, out)
        assert caught.value.__cause__.errno == errno.ENOSPC
        assert sorted(p.name for p in disk.iterdir()) == ["filler.bin"]


def test_a_full_disk_while_the_pdf_is_laid_out(qapp, visit, tmp_path, capsys, monkeypatch):
    """Simulated ENOSPC (monkeypatched) where reportlab writes the laid-out PDF: the disk is
    full before the attachments are even added. Exit 1, "disk is full", nothing left."""
    from reportlab.pdfbase import pdfdoc

    def full(self, filename, canvas):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(pdfdoc.PDFDocument, "SaveToFile", full)
    rc, err = run_main([visit, "-o", tmp_path / "r.pdf"], capsys)
    assert rc == 1 and one_line(err) and f"cannot write {tmp_path / 'r.pdf'}: the disk is full" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["visit.gpkg"]
