"""The office report reads what the field stored with the woodland stand (schema 3): the
retained area typed in the Tally tab (no --retained-ac needed: the same verdict as in the
field) and whether the tally is complete (until then the class is provisional)."""

from __future__ import annotations

import unicodedata

import pytest

from tests.report.sample_visit import build_sample_visit

pypdf = pytest.importorskip("pypdf")


def report_text(path) -> str:
    reader = pypdf.PdfReader(path)
    return unicodedata.normalize("NFKC", " ".join(" ".join(p.extract_text()
                                                             for p in reader.pages).split()))


def set_stand(visit_path, **fields):
    from fieldapp.store import open_visit
    from fieldapp.survey import Layer

    with open_visit(visit_path) as store:
        stand = next(a for a in store.visit.features(Layer.AREA) if a.label == "Stand A")
        store.visit.update_feature(Layer.AREA, stand.uuid, **fields)


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    folder = tmp_path_factory.mktemp("stand")
    visit = folder / "mill-creek.gpkg"
    build_sample_visit(visit, conflict=False)
    return folder, visit


def test_the_stands_stored_retained_area_gives_the_field_verdict(sample, qapp):
    from fieldapp.report import build_report

    folder, visit = sample
    passed = build_report(visit, folder / "passed.pdf", retained_ac=0.5)
    set_stand(visit, retained_area_ac=0.5)
    stored = build_report(visit, folder / "stored.pdf")            # no retained area passed
    assert stored["verdicts"] == passed["verdicts"] == 9   # the wetland's data points row too
    a, b = report_text(folder / "passed.pdf"), report_text(folder / "stored.pdf")
    # 0.5 of the stand's 0.919 ac (test_report: 40,032 sq ft ground) = 54.4 % retained
    assert f"{100 * 0.5 / (40000 / 0.9996 ** 2 / 43560):.1f}" == "54.4"
    assert "Retained 54.4 %" in a and "Retained 54.4 %" in b


def test_a_stand_whose_tally_is_not_complete_is_provisional_in_the_report(sample, qapp):
    from fieldapp.report import build_report

    folder, visit = sample
    set_stand(visit, tally_complete=False)
    build_report(visit, folder / "open.pdf", force=True)
    t = report_text(folder / "open.pdf")
    assert "Woodland class: provisional — 4 trees so far, class none from them" in t
    assert "Woodland class: none" not in t
