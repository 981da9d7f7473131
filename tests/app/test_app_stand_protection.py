"""The Tally tab's stand summary says the stand's protection check when it is not a verdict:
needs data with what to enter (no retained area yet), or the refusal of a retained area larger
than the stand (tryout5 M2, M3); never nothing."""

from __future__ import annotations

from fieldapp.app.visit import VisitController
from fieldapp.survey.features import Layer
from fieldapp.survey.visit import Visit
from tests.checks_sample import clock, two_crown_stand


def _controller(tmp_path):
    model = Visit.new("Mill Creek lot", crs="EPSG:32616", who="tester@laptop", clock=clock())
    return VisitController(model, tmp_path / "v.gpkg"), two_crown_stand(model)


def test_no_plan_says_what_to_enter_and_a_too_large_one_is_refused(tmp_path):
    v, stand = _controller(tmp_path)
    v.refresh_checks()
    text = v.stand_summary_text()
    assert "Woodland class: MATURE" in text
    # two_crown_stand: 10,000 sq ft = 0.23 ac
    assert ("Woodland protection: Needs data: enter the area to be retained (ac, at most the"
            " stand's 0.23 ac)") in text
    v.model.update_feature(Layer.AREA, stand.uuid, retained_area_ac=6.0)
    v.refresh_checks()
    text = v.stand_summary_text()
    assert "Woodland protection: Error: the retained area (6 ac) is more than" in text
    assert "Retained 100.0 %" not in text and "permitted" not in text


def test_stems_per_acre_read_as_the_report_gives_them(tmp_path):
    """Two stems on 10,000 sq ft (0.2296 ac): 8.7 stems/ac, one decimal as in the report (the
    Tally tab said "9 stems/ac" where the report said "8.7 trees/ac")."""
    v, _stand = _controller(tmp_path)
    v.refresh_checks()
    assert "Stand 1 0.23 ac: 2 stems, 8.7 stems/ac, basal area" in v.stand_summary_text()
