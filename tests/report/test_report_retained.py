"""``fieldapp report --retained-ac``: 0 is a plan that retains nothing (its mitigation is
worked out), as a stand's own 0 is; only an absent option means no plan; a stand's own stored
figure wins over the option; the visit file is not changed by it."""

from __future__ import annotations

import hashlib
import json
import shutil

import pytest

from tests.report.test_report_visit import build_sample_visit

pypdf = pytest.importorskip("pypdf")

#: The sample's 200 x 200 ft stand: 40,000 sq ft on the grid, 40,032 on the ground (scale
#: factor 0.9996), 40,032 / 43,560 = 0.919009 ac (test_report_stand_record).
STAND_AC = 40000 / 0.9996 ** 2 / 43560


@pytest.fixture(scope="module")
def mature(tmp_path_factory):
    """The sample visit with one more deciduous tree at the stand's centre, DBH 20 in and a
    62 ft crown: pi 62^2 = 12,076 sq ft, over 30 % of the stand's 40,000 sq ft of crowns of
    trees of 10 in or more: mature woodland by canopy (City Woodlands A.2), 75 % protected
    (Woodlands C)."""
    from fieldapp.store import open_visit
    from fieldapp.survey import Layer

    path = tmp_path_factory.mktemp("retained") / "mill-creek.gpkg"
    build_sample_visit(path, conflict=False)
    with open_visit(path) as store:
        v = store.visit
        stand = next(a for a in v.features(Layer.AREA) if a.label == "Stand A")
        c = stand.geometry.centroid
        v.add_tree(x=c.x, y=c.y, dbh_in=20.0, species_code="QURU", leaf_habit="deciduous",
                   crown_radius_ft=62.0)
        v.update_feature(Layer.AREA, stand.uuid, tally_complete=True)
    return path


def _mitigation(pdf) -> list[dict]:
    results = json.loads(pypdf.PdfReader(pdf).attachments["results-all.json"][0])
    return [r for r in results if r.get("rule") == "woodland.mitigation"]


def _report(visit, out, *args):
    from fieldapp.report import main

    assert main([str(visit), "-o", str(out), *args]) == 0


def test_retained_0_is_a_plan_that_retains_nothing(mature, tmp_path):
    before = hashlib.sha256(mature.read_bytes()).hexdigest()
    _report(mature, tmp_path / "zero.pdf", "--retained-ac", "0")
    (res,) = _mitigation(tmp_path / "zero.pdf")
    # mature: 75 % to protect; 0 ac kept of 0.919009 ac: 0 % retained, not permitted;
    # mitigation 0.75 x 0.919009 = 0.689257 ac
    assert res["retained_pct"] == 0.0 and res["permitted"] is False
    assert res["mitigation_area_ac"] == pytest.approx(0.75 * STAND_AC, rel=1e-3)
    assert f"{0.75 * STAND_AC:.6f}" == "0.689257"
    assert hashlib.sha256(mature.read_bytes()).hexdigest() == before   # in memory only


def test_no_option_is_no_plan_and_a_positive_one_as_before(mature, tmp_path):
    _report(mature, tmp_path / "none.pdf")
    assert _mitigation(tmp_path / "none.pdf") == []                    # no plan: no verdict
    _report(mature, tmp_path / "half.pdf", "--retained-ac", "0.5")
    (res,) = _mitigation(tmp_path / "half.pdf")
    # 0.5 / 0.919009 = 54.41 % < 55 %: not permitted; (0.75 - 0.5441) x 0.919009 = 0.189257 ac
    assert res["retained_pct"] == pytest.approx(54.41, abs=0.01) and res["permitted"] is False
    assert res["mitigation_area_ac"] == pytest.approx(0.75 * STAND_AC - 0.5, rel=1e-3)


def test_the_stands_own_figure_wins_over_the_option(mature, tmp_path):
    from fieldapp.store import open_visit
    from fieldapp.survey import Layer

    own = tmp_path / "own.gpkg"
    shutil.copyfile(mature, own)
    with open_visit(own) as store:
        stand = next(a for a in store.visit.features(Layer.AREA) if a.label == "Stand A")
        store.visit.update_feature(Layer.AREA, stand.uuid, retained_area_ac=0.5)
    _report(own, tmp_path / "own.pdf", "--retained-ac", "0")
    (res,) = _mitigation(tmp_path / "own.pdf")
    assert res["retained_pct"] == pytest.approx(54.41, abs=0.01)


def test_help_says_0_is_a_plan(capsys):
    from fieldapp.report import main

    with pytest.raises(SystemExit):
        main(["--help"])
    words = " ".join(capsys.readouterr().out.split())
    assert "0 is a plan that retains nothing" in words
    assert "Without this option, only the stands' own figures are plans" in words
