"""Issue 29 end to end from the visit: a stream's map, a wetland's permitted fill, the site's
in-fill facts (NR 151.125(1)(b), (1)(h), (4)(b)) reach the requests, the verdicts and the file."""

from __future__ import annotations

import pytest

from fieldapp.checks import requests_for_model
from fieldapp.checks.results import summary_words
from fieldapp.rules import evaluate
from fieldapp.survey.errors import InvalidValue
from fieldapp.survey.features import Layer, WaterFeature, WaterFeatureType
from tests.checks_sample import new_visit, square


@pytest.fixture
def visit():
    return new_visit()


def test_unmapped_stream_on_the_site_is_a_concentrated_flow_channel():
    v = new_visit()
    v.update_site(water_features=(
        WaterFeature("Mill Creek", WaterFeatureType.STREAM, mapped_on="usgs_7_5_minute", map_name="Decorah"),
        WaterFeature("Back ditch", WaterFeatureType.STREAM, mapped_on="none")))
    v.add_area("wetland", square(v, 0, 0, 100, 100), label="W1")
    req = requests_for_model(v)["protective_area"][1]
    assert req["input"]["features"][0] == {"type": "stream", "mapped_on": "usgs_7_5_minute", "map_name": "Decorah"}
    assert req["input"]["features"][1] == {"type": "stream", "mapped_on": "none"}
    res = evaluate(req)
    # the ditch is (1)(i) with no drainage area yet: the mapped creek's 50 ft governs
    assert res["feature_citations"][:2] == ["NR 151.125(1)(b)", "NR 151.125(1)(i)"]
    assert res["widths_ft"][:2] == [50.0, None]
    with pytest.raises(InvalidValue):
        v.update_site(water_features=(WaterFeature("x", WaterFeatureType.STREAM, mapped_on="topo"),))


def test_wetland_completely_filled_under_permit_has_no_protective_area(visit):
    w = visit.add_area("wetland", square(visit, 0, 0, 100, 100), label="W1", susceptibility="highly")
    visit.set_wetland_fill(w.uuid, "complete", " DNR IP-2024-117 ")
    req = requests_for_model(visit)[f"protective_area:{w.uuid}"][1]
    assert req["input"]["features"][0]["fill"] == "complete"
    assert req["input"]["features"][0]["fill_permit"] == "DNR IP-2024-117"
    res = evaluate(req)
    assert res["width_ft"] == 0.0 and res["citation"] == "NR 151.125(1)(h)"
    assert "DNR IP-2024-117" in summary_words("nr151.protective_area", res)
    with pytest.raises(InvalidValue):
        visit.set_wetland_fill(w.uuid, None, "GP 1")
    stand = visit.add_area("woodland_stand", square(visit, 200, 0, 50, 50))
    with pytest.raises(InvalidValue):
        visit.set_wetland_fill(stand.uuid, "complete", "GP 1")


@pytest.mark.parametrize(("area_ac", "status"), [(4.99, "exempt"), (5.0, "determined")])
def test_site_infill_area_decides_the_exemption(visit, area_ac, status):
    w = visit.add_area("wetland", square(visit, 0, 0, 100, 100), label="W1", susceptibility="other")
    visit.update_site(infill_area_ac=area_ac, infill_within_development=True)
    req = requests_for_model(visit)[f"protective_area:{w.uuid}"][1]
    assert req["input"]["infill"] == {"area_ac": area_ac, "within_existing_development": True}
    res = evaluate(req)
    assert res["status"] == status
    assert res["width_ft"] == (None if status == "exempt" else 50.0)


def test_the_new_facts_survive_the_visit_file(tmp_path):
    from fieldapp.store import create_visit, open_visit

    v = new_visit()
    v.update_site(infill_area_ac=3.5, infill_within_development=True,
                  water_features=(WaterFeature("Mill Creek", WaterFeatureType.STREAM, mapped_on="county_soil_survey",
                                               map_name="Winneshiek sheet 12"),))
    w = v.add_area("wetland", square(v, 0, 0, 100, 100), label="W1")
    v.set_wetland_fill(w.uuid, "partial", "COE 2023-55")
    p = tmp_path / "v.gpkg"
    create_visit(p, v).close()
    with open_visit(p) as store:
        site = store.visit.site
        assert (site.infill_area_ac, site.infill_within_development) == (3.5, True)
        assert site.water_features[0].mapped_on == "county_soil_survey"
        assert site.water_features[0].map_name == "Winneshiek sheet 12"
        a = store.visit.get(Layer.AREA, w.uuid)
        assert (a.fill, a.fill_permit) == ("partial", "COE 2023-55")


def test_overlap_and_development_limit_checks_from_the_drawn_polygons():
    from fieldapp.checks import Checks
    from tests.checks_sample import two_crown_stand

    v = new_visit()
    two_crown_stand(v)                                  # 0-100 x 0-100 ft, mature
    v.add_area("wetland", square(v, 60, 0, 100, 100), label="W1", standing_water=True,
               hydric_vegetation=True)                  # 10,000 sq ft: an ordinance wetland
    v.add_area("parcel", square(v, 0, 0, 200, 100), label="Lot 7")
    v.add_area("right_of_way", square(v, 0, 100, 200, 20), label="Elm St")
    v.add_area("disturbed", square(v, 0, 0, 10, 100), label="Pad")
    checks = Checks()
    checks.refresh(v)
    lap = checks.get("resources_overlap")
    assert lap is not None and lap.status == "determined"
    (o,) = lap.result["overlaps"]
    # 40 x 100 ft shared by the stand and the wetland (in grid ft: x k²): the wetland's 100 % governs
    assert o["labels"] == ["W1", "Stand 1"] and o["governing"] == ["wetland"]
    assert o["area_sqft"] == pytest.approx(4000.0, rel=1e-3)
    assert "W1 + Stand 1: 3,997 sq ft, wetland governs (100 % undisturbed" in summary_words(
        "resources.overlap", lap.result)  # grid sq ft: 4,000 x 0.9996²
    (limit,) = [c for c in checks.all() if c.check_id.startswith("development_limit:")]
    r = limit.result
    assert limit.title == "Development area limit, Lot 7 (city, Woodlands D)"
    # development area = pad 1,000 + right-of-way 4,000; mature stand 10,000, 75 % kept needs
    # 7,500; kept 10,000 - 1,000 = 9,000 (90 %); limit 24,000 - 7,500 = 16,500
    assert r["development_area_sqft"] == pytest.approx(5000.0, rel=1e-3)
    assert r["max_development_area_sqft"] == pytest.approx(16500.0, rel=1e-3)
    assert r["woodland"][0]["kept_pct"] == pytest.approx(90.0, rel=1e-6)
    assert r["complies"] is True


def test_the_edit_form_sets_a_wetland_fill_in_one_step(visit):
    from fieldapp.app.editing import FieldRefused, Selection, apply_form, form_fields

    class _Ctl:   # what apply_form reads of the visit controller
        model = visit

    w = visit.add_area("wetland", square(visit, 0, 0, 100, 100), label="W1", susceptibility="highly")
    sel = Selection(Layer.AREA, w.uuid)
    names = [f.name for f in form_fields(_Ctl, sel)]
    assert "fill" in names and "fill_permit" in names
    a = apply_form(_Ctl, sel, {"label": "W1 filled", "fill": "complete", "fill_permit": " GP 12 "})
    assert (a.label, a.fill, a.fill_permit) == ("W1 filled", "complete", "GP 12")
    visit.undo()
    assert visit.get(Layer.AREA, w.uuid).fill is None and visit.get(Layer.AREA, w.uuid).label == "W1"
    with pytest.raises(FieldRefused, match="needs Filled"):
        apply_form(_Ctl, sel, {"fill_permit": "GP 12"})
