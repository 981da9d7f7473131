"""The report of a visit whose woodland stand has no tree recorded yet: the stand's class and
its protection check wait for the tally (needs data, with the next step), with no rule request
attached for them; the attached requests still reproduce every verdict that has one. OHWM
points are numbered from 1, as in the app."""

from __future__ import annotations

import json
import unicodedata

import pytest

from tests.report.sample_visit import build_sample_visit

pypdf = pytest.importorskip("pypdf")

STEP = "record the trees of this stand (caliper tally)"


@pytest.fixture(scope="module")
def report(tmp_path_factory, qapp):
    from fieldapp.report import build_report

    folder = tmp_path_factory.mktemp("awaiting")
    visit = folder / "mill-creek.gpkg"
    # the sample visit (sample_visit.py) with its 200 ft stand drawn but no tree tallied
    build_sample_visit(visit, trees=0, conflict=False)
    out = folder / "report.pdf"
    summary = build_report(visit, out, retained_ac=0.5)
    reader = pypdf.PdfReader(out)
    text = unicodedata.normalize("NFKC", " ".join(" ".join(p.extract_text() for p in reader.pages).split()))
    return dict(visit=visit, summary=summary, reader=reader, text=text)


def test_an_untallied_stand_waits_for_its_trees(report):
    t = report["text"]
    # glance table: verdicts 6 and 7 (rule order: banks, protective areas, wetland, woodland
    # class, woodland mitigation, development area)
    assert (f"6 Woodland class Stand A (city) needs data Needs data: {STEP} Decorah resource"
            " protection, Woodlands A") in t
    assert f"7 Woodland protection Stand A (city) needs data Needs data: {STEP}" in t
    # the stand section says it is not determined, never "class none"
    assert f"Woodland class: not determined yet — next step: {STEP}" in t
    assert f"Woodland protection: Needs data: {STEP}" in t
    assert "Woodland class: none" not in t and "Class none" not in t
    # the detail says why nothing is attached
    assert "No rule request yet (nothing recorded that the rule reads)" in t
    # the sample's 8 checks (7 and its wetland's data points row), the stand's mitigation
    # (retained 0.5 ac) as the 9th
    assert report["summary"]["verdicts"] == 9


def test_only_checks_with_a_request_are_attached_and_they_reproduce(report):
    from fieldapp.rules import evaluate

    names = report["summary"]["attachments"]
    # numbered as the verdicts: 6 and 7 (awaiting data) have no request
    assert names == ["request-01-Bank-T1.json", "request-02-Bank-T2.json",
                     "request-03-Protective-area-W1.json",
                     "request-04-Protective-area-all-features.json",
                     "request-05-Ordinance-wetland-W1.json", "request-08-Development-area.json",
                     "requests-all.json", "results-all.json"]
    att = report["reader"].attachments
    requests = json.loads(att["requests-all.json"][0])
    results = json.loads(att["results-all.json"][0])
    assert len(requests) == len(results) == 6
    assert "woodland.class" not in [r["rule"] for r in requests]
    for name, req, res in zip(names[:6], requests, results, strict=True):
        assert json.loads(att[name][0]) == req
        assert evaluate(req) == res


def test_ohwm_points_are_numbered_from_1(report):
    from fieldapp.report.content import gather, load_visit

    c = gather(load_visit(report["visit"]), report["visit"])
    # the model counts from 0 along the line; the report, like the app, from 1
    assert [g.seq for g in c.gnss] == [0, 1, 2]
    assert [g.number for g in c.gnss] == [1, 2, 3]
    t = report["text"]
    # GNSS table rows: line "OHWM 1", point number, method
    assert "OHWM 1 1 averaged" in t and "OHWM 1 2 averaged" in t and "OHWM 1 3 averaged" in t
    assert "OHWM 1 0 averaged" not in t
    assert "Line Point Method" in t
