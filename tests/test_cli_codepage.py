"""The office commands for a site named "Łąka – Wisła" as Windows runs them (issue 28).

Each command runs in a fresh interpreter whose console is a cp1252 or cp437 pipe
(``PYTHONIOENCODING``), whose libraries asking the locale get Windows' ANSI code page
(``locale.getpreferredencoding()`` -> cp1252, what pyogrio encodes a CSV's text in), and where a
text file opened without ``encoding=`` by the product is an error (``-X warn_default_encoding``,
PEP 597, EncodingWarning raised from ``fieldapp``/``devices`` code). All three carry on into the
export's worker processes (a ``sitecustomize`` on ``PYTHONPATH``). Before issue 28: the report
died printing its summary (UnicodeEncodeError), the CSV export failed ("'charmap' codec can't
encode"), and an export of all formats into a folder named for the site lost its workers (the
job's path read from stdin in cp1252: "'charmap' codec can't decode").
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import unicodedata
from pathlib import Path

import pytest

from tests.report.sample_visit import build_sample_visit

REPO = Path(__file__).resolve().parents[1]
SITE = "Łąka – Wisła"
NOTE = "Łąka – Wisła: slope ≥ 12 %, σ 0.3 ft, −2 ft"

SITECUSTOMIZE = textwrap.dedent('''\
    import locale, os, warnings
    # Windows: libraries asking the locale get the ANSI code page
    locale.getpreferredencoding = lambda do_setlocale=True: "cp1252"
    # a text file the product opens in the default encoding is an error
    warnings.filterwarnings("error", category=EncodingWarning, module=r"(fieldapp|devices)(\\.|$)")
    if os.environ.get("FIELDAPP_TEST_EXPORT_WORKERS"):   # export every format in workers
        import fieldapp.export.workers as w
        w.PARALLEL_MIN_FEATURES = 0
    ''')


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """A folder named for the site holding its visit ``Łąka – Wisła.gpkg`` and a Python start-up
    file making the interpreters it runs behave as Windows' do."""
    folder = tmp_path_factory.mktemp("codepage") / SITE
    (folder / "boot").mkdir(parents=True)
    (folder / "boot" / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
    build_sample_visit(folder / f"{SITE}.gpkg", conflict=False, site_name=SITE, note_text=NOTE)
    return folder


def run(site: Path, codepage: str, *args: str, workers: bool = False) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONIOENCODING=codepage, PYTHONWARNDEFAULTENCODING="1",
               PYTHONPATH=os.pathsep.join([str(site / "boot"), str(REPO)]), QT_QPA_PLATFORM="offscreen")
    env.pop("PYTHONUTF8", None)
    if workers:
        env["FIELDAPP_TEST_EXPORT_WORKERS"] = "1"
    return subprocess.run([sys.executable, "-m", "fieldapp", *args], cwd=site, env=env,
                          capture_output=True, timeout=300)


def _no_traceback(r: subprocess.CompletedProcess) -> None:
    assert r.returncode == 0, r.stderr.decode("utf-8", "replace")
    assert b"Traceback" not in r.stderr


@pytest.mark.parametrize("codepage", ["cp1252", "cp437"])
def test_report_of_the_site_prints_its_summary_in_the_console_code_page(site, codepage):
    import pypdf

    out = site / f"{SITE} {codepage}.pdf"
    r = run(site, codepage, "report", f"{SITE}.gpkg", "-o", out.name)
    _no_traceback(r)
    # the summary line in the console's code page, what it lacks as "?": "Ł" is in neither
    line = r.stdout.decode(codepage)
    pages = len(pypdf.PdfReader(out).pages)   # the fonts differ by system: the count is the file's
    assert line == f"{out.name.encode(codepage, 'replace').decode(codepage)}: {pages} pages, 8 verdicts" \
                   " (rule requests attached)\n".replace("\n", os.linesep)
    assert line.startswith("??ka ")
    reader = pypdf.PdfReader(out)
    text = unicodedata.normalize("NFKC", " ".join(p.extract_text() for p in reader.pages))
    assert SITE in text
    # the attached results: what `fieldapp rules evaluate` prints for the attached requests
    requests = site / f"requests {codepage}.json"
    requests.write_bytes(reader.attachments["requests-all.json"][0])
    again = run(site, codepage, "rules", "evaluate", requests.name)
    _no_traceback(again)
    assert again.stdout == reader.attachments["results-all.json"][0]


@pytest.mark.parametrize("codepage", ["cp1252", "cp437"])
def test_csv_export_of_the_site_holds_its_text_in_utf8(site, codepage):
    out = site / f"{SITE} csv {codepage}"
    r = run(site, codepage, "export", f"{SITE}.gpkg", "--format", "csv", "-o", out.name)
    _no_traceback(r)
    assert r.stdout.decode(codepage).startswith(f"{out.name.encode(codepage, 'replace').decode(codepage)} (csv, ")
    note = (out / "note.csv").read_bytes().decode("utf-8")
    assert f'"{NOTE}"' in note
    manifest = (out / "fieldapp-export.json").read_bytes()
    assert b"\r" not in manifest and "note.csv" in json.loads(manifest)["files"]


def test_export_of_every_format_in_workers_into_the_site_folder(site):
    out = site / f"{SITE} all"
    r = run(site, "cp1252", "export", f"{SITE}.gpkg", "--format", "all", "-o", out.name, workers=True)
    _no_traceback(r)
    for rel in ("csv/note.csv", "geojson/note.geojson", f"kml/{SITE}.kml"):  # the KML is named for the visit
        assert NOTE in (out / rel).read_bytes().decode("utf-8"), rel
    shp = out / "shp"
    assert (shp / "note.cpg").read_text(encoding="ascii").strip() == "UTF-8"
    assert NOTE.encode("utf-8") in (shp / "note.dbf").read_bytes()


@pytest.mark.parametrize("codepage", ["cp1252", "cp437"])
def test_rules_evaluate_prints_ascii_json_with_unix_line_ends(site, codepage, tmp_path):
    requests = site / f"rules {codepage}.json"
    requests.write_text(json.dumps([
        json.loads((REPO / "examples/rules/development_area.json").read_text(encoding="utf-8")),
        {"rule": "nr341.graded_area", "input": {"horizontal_area_sqft": 9000, "slope_pct": 50}},
    ]), encoding="utf-8")
    r = run(site, codepage, "rules", "evaluate", requests.name)
    _no_traceback(r)
    assert b"\r" not in r.stdout and r.stdout.isascii()
    area, graded = json.loads(r.stdout)
    assert area["envelope_area_sqft"] == 4556.63509
    assert "√(1 + (slope/100)²)" in graded["interpretation_text"]["surface-area"]
    # an error whose words hold "≥": exit 1, the result printed, no traceback
    bad = site / f"bad {codepage}.json"
    bad.write_text(json.dumps({"rule": "woodland.class", "input": {
        "canopy_10in_pct": 40, "deciduous_share_pct": 80, "canopy_3in_pct": 10, "trees": []}}),
        encoding="utf-8")
    r = run(site, codepage, "rules", "evaluate", bad.name)
    assert r.returncode == 1 and b"Traceback" not in r.stderr
    (err,) = json.loads(r.stdout)
    assert err["status"] == "error" and "≥ 10 in canopy" in err["message"]
    # a file that is not there, named in the console's code page
    r = run(site, codepage, "rules", "evaluate", f"{SITE}.json")
    assert r.returncode == 2 and b"Traceback" not in r.stderr
    assert r.stderr.decode(codepage).startswith("fieldapp rules evaluate: cannot read ")
