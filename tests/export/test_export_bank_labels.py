"""Two transects with the same label (the crew typed it twice, or "T2" came again after T1 was
deleted): each bank point in the export carries its own transect's bank distance and verdict,
not the other's (the bank points were matched to their checks by label)."""

from __future__ import annotations

import pytest

from fieldapp.export import derived_records
from fieldapp.report.content import load_visit
from fieldapp.survey.features import Layer
from tests.report.test_report_visit import build_sample_visit


@pytest.mark.parametrize("shared", ["T1", "T2"])
def test_bank_points_of_transects_sharing_a_label_keep_their_own_verdict(tmp_path, shared):
    path = tmp_path / "v.gpkg"
    build_sample_visit(path, conflict=False)
    visit = load_visit(path)
    for t in visit.features(Layer.TRANSECT):
        visit.update_feature(Layer.TRANSECT, t.uuid, label=shared)
    bank = next(d for d in derived_records(visit, path) if d.name == "bank_point")
    names = bank.columns.index(("name", "str"))
    rows = sorted(bank.rows, key=lambda r: r[names])
    # T1 over the steep bank: 90 ft, determined; T2 stopped short: at least 90 ft, needs data
    assert [(r[0], r[1], r[2], r[3], r[4]) for r in rows] == [
        (f"{shared} bank 90.0 ft", shared, 90.0, 0, "determined"),
        (f"{shared} bank at least 90.0 ft", shared, 90.0, 1, "needs_data"),
    ]
