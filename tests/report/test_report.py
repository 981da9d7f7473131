"""The site report PDF: its text holds every verdict, citation and number; its attached rule
requests re-evaluate to the same results; every page renders; bad input gets a clear message."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import unicodedata
from pathlib import Path

import pytest

from tests.gpkgtools import st_connect
from tests.report.sample_visit import K0, build_sample_visit

pypdf = pytest.importorskip("pypdf")

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def report(tmp_path_factory, qapp):
    from fieldapp.report import build_report

    folder = tmp_path_factory.mktemp("report")
    visit = folder / "mill-creek.gpkg"
    info = build_sample_visit(visit)
    out = folder / "report.pdf"
    seen = []
    summary = build_report(visit, out, progress=lambda f, m: seen.append((f, m)))
    reader = pypdf.PdfReader(out)
    # NFKC folds the typesetter's ligatures (ﬁ -> fi) back into letters
    text = unicodedata.normalize("NFKC", " ".join(" ".join(p.extract_text() for p in reader.pages).split()))
    return dict(info, visit=visit, out=out, summary=summary, progress=seen, reader=reader, text=text)


def test_text_holds_each_verdict_citation_and_numbers(report):
    t = report["text"]
    assert "Site report: Mill Creek lot 7" in t
    assert "A. Surveyor, B. Forester" in t and "R12i 6012" in t
    # bank T1: contract example 30 @ 4 %, 60 @ 18 %, 120 @ 5 % -> 90 ft, NR 341.035(1)(a)
    assert "Bank T1 (NR 341.035)" in t and "Bank 90.0 ft (slope)" in t
    # bank T2 stops 45 ft into the gentle run: at least 90 ft, more than 50 - 45 = 5 ft to walk
    assert "Bank at least 90.0 ft; keep walking: more than 50 ft below 12 % needed" in t
    assert "shoot beyond 140 ft (more than 5.0 ft further)" in t
    assert t.count("NR 341.035(1)(a)") >= 4  # glance table and detail, both transects
    # wetland 260 x 520 ft, less susceptible: average width 260 ft, protective area 10 % = 26 ft
    assert "Width 26.0 ft (governed by wetland)" in t and "NR 151.125(1)(f)" in t
    # ground area = 260 * 520 / 0.9996^2 = 135,308.2 sq ft (WTM k0 on the central meridian)
    assert f"{260 * 520 / K0**2:,.1f}" == "135,308.2" and "135,308.2" in t
    # foundation 30 x 30 ft: 900 + 4*30*20 + pi*20^2 = 4,556.6 sq ft envelope (Woodlands D.2)
    assert "Envelope 4,556.6 sq ft" in t and "Decorah resource protection, Woodlands D.2" in t
    assert "Ordinance wetland: yes; undisturbed 100.0 %" in t
    # the interpretations relied on are named
    assert "anchor-last-trigger" in t and "average-wetland-width" in t and "round-buffer" in t
    # status words
    assert "determined" in t and "needs data" in t
    assert report["summary"]["verdicts"] == 8     # 7 rule checks and the wetland's data points row


def test_stand_table_by_two_inch_class(report):
    t = report["text"]
    # stand 200 ft x 200 ft grid = 40,000 / 0.9996^2 = 40,032.0 sq ft ground = 0.919 ac
    ac = 40000 / K0**2 / 43560
    assert f"{ac:.3f}" == "0.919" and "= 0.919 ac" in t
    # class 10-12: DBH 10 and 11 -> 2 stems, 2/ac = 2.2 /ac, BA 0.005454 (100 + 121) / ac = 1.31
    assert f"10–12 2 {2 / ac:.1f} {0.005454 * 221 / ac:.2f}" == "10–12 2 2.2 1.31"
    assert "10–12 2 2.2 1.31" in t
    # 14-16: one stem (14 in), BA 0.005454*196/ac = 1.16; 24-26: one stem, 0.005454*576/ac = 3.42
    assert "14–16 1 1.1 1.16" in t and "24–26 1 1.1 3.42" in t
    # all: 4 stems 4.4 /ac, BA 0.005454 * (100 + 121 + 196 + 576) / ac = 5.89
    assert f"{0.005454 * 993 / ac:.2f}" == "5.89" and "All 4 4.4 5.89" in t
    # canopy: 4 disjoint crowns of 10 ft radius: 4*pi*100 / 40,000 = 3.1 %
    assert "trees ≥ 10 in 3.1 %" in t
    assert "Woodland class: none" in t


def test_gnss_conflicts_and_units(report):
    t = report["text"]
    assert "RTK fixed" in t and "4 RTK fixed" not in t and "10 (2)" in t  # 10 epochs used, 2 no-fix epochs rejected
    assert "Epochs used (rejected)" in t
    assert " RTK fixed WIDOT1, 1.4 s" in t  # the corrections under the worst fix
    assert "1.800 m" in t  # antenna height (m)
    # the conflict names the tree and the column as the crew knows them
    assert "Sync conflicts" in t and "Tree 1 DBH (in) same-field" in t and "10.4" in t
    assert "NAD83 / Wisconsin Transverse Mercator (EPSG:3070)" in t
    assert "international ft (0.3048 m)" in t


def test_attached_requests_reproduce_the_verdicts(report, tmp_path):
    from fieldapp.rules import evaluate

    attachments = report["reader"].attachments
    names = report["summary"]["attachments"]
    assert set(names) <= set(attachments)
    results = json.loads(attachments["results-all.json"][0])
    requests = json.loads(attachments["requests-all.json"][0])
    singles = [n for n in names if n.startswith("request-")]
    assert len(singles) == len(results) == len(requests) == 7
    for name, req, res in zip(singles, requests, results, strict=True):
        one = json.loads(attachments[name][0])
        assert one == req
        assert evaluate(one) == res
    # and through the command line, as the office would
    f = tmp_path / singles[0]
    f.write_bytes(attachments[singles[0]][0])
    run = subprocess.run([sys.executable, "-m", "fieldapp", "rules", "evaluate", str(f)],
                         capture_output=True, text=True, cwd=REPO, timeout=120)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == [results[0]]
    assert results[0]["bank_ft"] == pytest.approx(90.0)


def test_progress_is_reported_to_the_end(report):
    fractions = [f for f, _ in report["progress"]]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0 and len(fractions) > 5


def test_every_page_renders(report):
    """Rasterise every page with PDFium (pypdfium2) and check each has drawn content."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(str(report["out"]))
    try:
        assert len(pdf) == len(report["reader"].pages) == report["summary"]["pages"]
        for i in range(len(pdf)):
            pixels = pdf[i].render(scale=40 / 72, grayscale=True).to_numpy()
            dark = int((pixels[::2, ::2] < 200).sum())
            assert dark > 200, f"page {i + 1} looks blank"
    finally:
        pdf.close()


def test_never_overwrites_without_force(report, tmp_path):
    from fieldapp.report import ReportExists, build_report

    out = tmp_path / "r.pdf"
    out.write_bytes(b"signed copy")
    with pytest.raises(ReportExists):
        build_report(report["visit"], out)
    assert out.read_bytes() == b"signed copy"
    build_report(report["visit"], out, force=True)
    assert out.read_bytes().startswith(b"%PDF")


def test_cancel_leaves_nothing(report, tmp_path):
    from fieldapp.report import ReportCancelled, build_report

    token = threading.Event()

    def progress(fraction, message):
        if fraction >= 0.5:
            token.set()

    with pytest.raises(ReportCancelled):
        build_report(report["visit"], tmp_path / "r.pdf", progress=progress, cancel=token)
    assert os.listdir(tmp_path) == []


def test_builds_on_a_worker_thread(report, tmp_path):
    from fieldapp.report import build_report

    out = {}

    def work():
        out["summary"] = build_report(report["visit"], tmp_path / "w.pdf")

    t = threading.Thread(target=work, name="fieldapp-test-report", daemon=True)
    t.start()
    t.join(timeout=240)
    assert not t.is_alive() and out["summary"]["pages"] == report["summary"]["pages"]


@pytest.mark.parametrize("kind", ["text", "sqlite", "truncated"])
def test_bad_visit_file_gets_a_clear_message(report, tmp_path, kind):
    bad = tmp_path / "bad.gpkg"
    if kind == "text":
        bad.write_text("not a geopackage\n")
        expect = "not a GeoPackage"
    elif kind == "sqlite":

        with st_connect(bad) as conn:
            conn.execute("CREATE TABLE t (x)")
        conn.close()
        expect = "not a GeoPackage"
    else:
        bad.write_bytes(Path(report["visit"]).read_bytes()[:8192])
        expect = "damaged"
    run = subprocess.run([sys.executable, "-m", "fieldapp", "report", str(bad), "-o", str(tmp_path / "r.pdf")],
                         capture_output=True, text=True, cwd=REPO, timeout=240,
                         env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
    assert run.returncode == 1
    assert expect in run.stderr and "Traceback" not in run.stderr
    assert not (tmp_path / "r.pdf").exists()
