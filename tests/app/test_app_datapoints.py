"""fieldapp.app.datapoints / plantlist and fieldapp.checks.support: data points placed, their
forms determined with the loaded list's statuses, paired across a walked wetland, and the
wetland's Checks rows (support, and the city / NR 151.125 verdicts citing the points)."""

from __future__ import annotations

import json

import pytest

from fieldapp.app.datapoints import DataPointDesk, empty_form
from fieldapp.app.plantlist import PlantList, from_rows
from fieldapp.app.visit import VisitController
from fieldapp.checks import check_words, summary_words
from fieldapp.rules import evaluate
from fieldapp.survey import AreaKind, Layer, Visit

X0, Y0 = 500000.0, 4983000.0   # UTM 16N

#: a clearly-labelled TEST list (statuses as the contract's example has them), not a real list
PLANTS = from_rows([("Acer rubrum", "red maple", "FAC"), ("Typha latifolia", "broadleaf cattail", "OBL"),
                    ("Poa pratensis", "Kentucky bluegrass", "FACU"),
                    ("Solidago canadensis", "Canada goldenrod", "FACU")], "test list")


@pytest.fixture
def visit(tmp_path):
    return VisitController(Visit.new("Marsh", crs="EPSG:32616"), tmp_path / "v.gpkg")


def walk_wetland(visit) -> str:
    """A 200 x 200 ft wetland (site metres) from (X0, Y0); its walk uuid."""
    w = visit.model.start_walk(AreaKind.WETLAND, spacing_ft=3, label="Wetland A")
    for dx, dy in [(0, 0), (61, 0), (61, 61), (0, 61)]:
        w.feed_xy(X0 + dx, Y0 + dy)
    w.close()
    visit.refresh_checks()
    return w.uuid


def wet_form():
    f = empty_form("DP-1", "northcentral-northeast")
    f["vegetation"]["tree"] = [{"species": "Acer rubrum", "cover": 40}]
    f["vegetation"]["herb"] = [{"species": "Typha latifolia", "cover": 60}]
    f["hydrology"]["primary"], f["hydrology"]["secondary"] = ["A2"], ["D2"]
    f["hydrology"]["water_table_in"] = 6
    f["soil"]["indicators"] = ["F6"]
    f["soil"]["profile"] = [{"depth_in": "0-8", "matrix": "10YR 2/1", "redox": "7.5YR 4/6 10%", "texture": "Loam"}]
    return f


def up_form():
    f = empty_form("DP-2", "northcentral-northeast")
    f["vegetation"]["herb"] = [{"species": "Poa pratensis", "cover": 70},
                               {"species": "Solidago canadensis", "cover": 20}]
    return f


def ft(visit, x, y):
    return visit.model.frame.to_ft(x), visit.model.frame.to_ft(y)


def test_picker_search_scientific_common_and_recent_first():
    plants = PlantList(list(PLANTS.plants), "test")
    assert [p.scientific for p in plants.search("cattail")] == ["Typha latifolia"]
    assert [p.scientific for p in plants.search("typ lat")] == ["Typha latifolia"]
    assert [p.scientific for p in plants.search("a")][:2] == ["Acer rubrum", "Poa pratensis"]
    plants.picked("Solidago canadensis")
    assert plants.search("")[0].scientific == "Solidago canadensis"
    assert plants.search("a")[0].scientific == "Solidago canadensis"      # recent first


def test_plant_list_is_kept_and_read_back(tmp_path):
    p = tmp_path / "plantlist.json"
    plants = PlantList(list(PLANTS.plants), "NWPL 2020 NCNE.csv", ["Typha latifolia"])
    plants.save(p)
    back = PlantList.load_saved(p)
    assert back.plants == plants.plants and back.recent == ["Typha latifolia"] and back.status("acer RUBRUM") == "FAC"
    p.write_text("{not json", encoding="utf-8")
    assert len(PlantList.load_saved(p)) == 0       # unreadable: an empty list, the crew loads it again


def test_two_paired_points_support_the_boundary_and_the_verdicts_cite_them(visit):
    walk = walk_wetland(visit)
    desk = DataPointDesk(visit, PlantList(list(PLANTS.plants), "test"))
    area = visit.model.features(Layer.AREA)[0]
    (sup,) = [c for c in visit.checks.all() if c.check_id == f"wetland_support:{area.uuid}"]
    assert sup.status == "needs_data" and "no data points paired" in summary_words("", sup.result)

    wet = desk.place("wetland", at_ft=ft(visit, X0 + 30, Y0 + 30))
    up = desk.place("upland", at_ft=ft(visit, X0 + 80, Y0 + 30))
    assert (wet.name, up.name) == ("DP-1", "DP-2")
    new, out = desk.save_form(wet.uuid, wet_form())
    assert out.determination is not None and out.determination.wetland is True
    assert (new.hydrophytic_vegetation, new.hydric_soil, new.wetland_hydrology, new.wetland) == (True, True, True, True)
    stored = json.loads(new.form_json)
    assert stored["indicators"] == {"Acer rubrum": "FAC", "Typha latifolia": "OBL"}   # the visit stands alone
    assert stored["hydrology"]["water_table_in"] == 6 and stored["soil"]["profile"][0]["matrix"] == "10YR 2/1"
    new_up, out_up = desk.save_form(up.uuid, up_form())
    assert out_up.determination is not None and new_up.wetland is False and new_up.hydrophytic_vegetation is False
    assert desk.plants.search("")[0].scientific == "Solidago canadensis"     # the last species typed

    desk.pair(up.uuid, wet.uuid, walk)
    sup = visit.checks.get(f"wetland_support:{area.uuid}")
    # one pair across the east side (200 ft, 61 m): the other three sides have no pair
    assert sup.status == "needs_data" and sup.result["support"] == "partial"
    assert summary_words("", sup.result) == (
        "Partly supported (202 of 801 ft) by DP-1 (wetland, inside), DP-2 (upland, outside): the south"
        " 199 ft, the north 200 ft and the west 200 ft of Wetland A have no pair")
    city = visit.checks.get(f"wetland:{area.uuid}")
    assert city.cites == "boundary supported in part (202 of 801 ft) by DP-1 (wetland, inside), DP-2 (upland, outside)"
    assert check_words(city) == summary_words(city.rule, city.result) + "; " + city.cites
    assert evaluate(city.request) == city.result        # the rule's result as it gave it: reproducible
    pa = visit.checks.get(f"protective_area:{area.uuid}")
    assert pa.cites == city.cites
    # the Boundary tab's verdict of the wetland says it too
    assert f"Delineation: {city.cites}" in visit.area_verdict_text(area.uuid).splitlines()
    # the map: each point marked by its side, a dashed line across the boundary to its pair
    ov = visit.overlays()
    marks = [(text, colour) for _x, _y, text, colour in ov["labels"] if "DP-" in text]
    assert marks == [("DP-1 wetland", "#00639a"), ("DP-2 upland", "#8a4b00")]
    # each drawn as a marker too (a filled diamond wetland, an open one upland): always shown
    assert ov["markers"] == {"data_wetland": [pytest.approx(ft(visit, X0 + 30, Y0 + 30))],
                             "data_upland": [pytest.approx(ft(visit, X0 + 80, Y0 + 30))]}
    (line,) = ov["lines"]["data_pairs"]
    assert line == [pytest.approx(ft(visit, X0 + 30, Y0 + 30)), pytest.approx(ft(visit, X0 + 80, Y0 + 30))]
    # the three sides without a pair, drawn dashed: the south side but its east 1.6 ft (within 100 ft
    # of the crossing 98.4 ft up the east side), the north, the west
    south, north, west = ov["lines"]["unsupported"]
    assert south == [pytest.approx(ft(visit, X0, Y0)), pytest.approx(ft(visit, X0 + 61, Y0), abs=1.7)]
    assert north == [pytest.approx(ft(visit, X0 + 61, Y0 + 61)), pytest.approx(ft(visit, X0, Y0 + 61))]
    assert west == [pytest.approx(ft(visit, X0, Y0 + 61)), pytest.approx(ft(visit, X0, Y0))]

    # the upland point moved inside the boundary: contradicted
    desk.update(up.uuid, x=X0 + 40, y=Y0 + 40)
    sup = visit.checks.get(f"wetland_support:{area.uuid}")
    assert sup.status == "needs_data"
    assert "DP-2 is the upland point but stands inside the boundary" in summary_words("", sup.result)
    assert visit.checks.get(f"wetland:{area.uuid}").cites == (
        "boundary not supported by data points (DP-1 (wetland, inside), DP-2 (upland, inside))")
    visit.model.undo()
    visit.refresh_checks()
    assert visit.checks.get(f"wetland_support:{area.uuid}").result["support"] == "partial"

    # deleting the upland point leaves DP-1 without a partner
    desk.delete(up.uuid)
    sup = visit.checks.get(f"wetland_support:{area.uuid}")
    assert "DP-1 has no partner across this boundary" in summary_words("", sup.result)


def test_a_form_the_rules_refuse_is_kept_undecided(visit):
    desk = DataPointDesk(visit, PlantList())
    dp = desk.place("wetland", at_ft=ft(visit, X0, Y0))
    f = wet_form()
    f["hydrology"]["primary"] = ["D2"]          # a secondary indicator under primary
    new, out = desk.save_form(dp.uuid, f)
    assert out.determination is None and "D2 (Geomorphic Position) is a secondary indicator" in out.problem
    assert new.wetland is None and json.loads(new.form_json)["hydrology"]["primary"] == ["D2"]
    # nothing on the list: the species keep no status and count as not listed (UPL)
    assert json.loads(new.form_json)["indicators"] == {}


def test_records_tab_lists_renames_and_deletes_a_data_point_with_undo(visit):
    from fieldapp.app import editing as E

    walk = walk_wetland(visit)
    desk = DataPointDesk(visit, PlantList(list(PLANTS.plants), "test"))
    wet = desk.place("wetland", at_ft=ft(visit, X0 + 30, Y0 + 30))
    up = desk.place("upland", at_ft=ft(visit, X0 + 80, Y0 + 30))
    desk.save_form(wet.uuid, wet_form())
    desk.pair(wet.uuid, up.uuid, walk)
    rows = {words: details for sel, words, details in E.record_rows(visit) if sel.layer is Layer.DATA_POINT}
    assert rows == {"Wetland data point DP-1": "wetland, paired with DP-2",
                    "Upland data point DP-2": "form not decided, paired with DP-1"}
    sel = E.Selection(Layer.DATA_POINT, up.uuid)
    assert E.nearest_record(visit, *ft(visit, X0 + 80.5, Y0 + 30), tolerance_ft=5.0) == sel
    E.apply_form(visit, sel, {"name": "DP-2 upland edge", "notes": "old field"})
    assert visit.model.get(Layer.DATA_POINT, up.uuid).name == "DP-2 upland edge"
    assert E.undo(visit).startswith("Undone: upland data point DP-2 upland edge")
    assert visit.model.get(Layer.DATA_POINT, up.uuid).name == "DP-2"


def test_a_pair_on_each_side_supports_the_whole_boundary_and_a_contradicting_pair_is_named(visit):
    """Per stretch: one good pair leaves three sides without a pair; a pair across each side
    supports all of it; a pair whose wetland point's form says not wetland contradicts it."""
    walk = walk_wetland(visit)
    desk = DataPointDesk(visit, PlantList(list(PLANTS.plants), "test"))
    area = visit.model.features(Layer.AREA)[0]
    sides = [((30.5, 10), (30.5, -20)), ((51, 30.5), (80, 30.5)), ((30.5, 51), (30.5, 80)), ((10, 30.5), (-20, 30.5))]
    for k, ((wx, wy), (ux, uy)) in enumerate(sides):
        wet = desk.place("wetland", at_ft=ft(visit, X0 + wx, Y0 + wy))
        up = desk.place("upland", at_ft=ft(visit, X0 + ux, Y0 + uy))
        desk.save_form(wet.uuid, wet_form())
        desk.save_form(up.uuid, up_form())
        desk.pair(up.uuid, wet.uuid, walk)
        sup = visit.checks.get(f"wetland_support:{area.uuid}")
        if k == 0:
            assert sup.result["unsupported_stretches"] == [
                "the east 200 ft (200 to 400 ft along the boundary from its first walked point)",
                "the north 200 ft (400 to 601 ft along the boundary from its first walked point)",
                "the west 200 ft (601 to 801 ft along the boundary from its first walked point)"]
    assert sup.status == "determined" and sup.result["supported_ft"] == sup.result["boundary_ft"]
    assert sup.result["unsupported_stretches"] == []
    assert visit.checks.get(f"wetland:{area.uuid}").cites.startswith("boundary supported by DP-1 (wetland, inside)")
    # DP-7 (the west wetland point) re-determined not wetland: the west pair no longer supports
    dp7 = next(d for d in visit.model.features(Layer.DATA_POINT) if d.name == "DP-7")
    desk.save_form(dp7.uuid, up_form() | {"plot": "DP-7"})
    sup = visit.checks.get(f"wetland_support:{area.uuid}")
    assert summary_words("", sup.result) == (
        "Contradicted: DP-7's form says not wetland on the wetland side; the west 200 ft of Wetland A has no pair")


def test_a_new_region_carries_the_kept_form_over_and_undo_brings_it_back(visit):
    desk = DataPointDesk(visit, PlantList(list(PLANTS.plants), "test"))
    dp = desk.place("wetland", at_ft=ft(visit, X0, Y0))
    f = wet_form()
    f["hydrology"]["secondary"] = ["D2", "B16"]     # Moss Trim Lines: not on the Midwest form
    f["soil"]["indicators"] = ["F6", "F19"]         # Piedmont Floodplain Soils: not either
    desk.save_form(dp.uuid, f)
    moved = desk.update(dp.uuid, region="midwest")
    form = json.loads(moved.form_json)
    assert (moved.region.value, form["region"]) == ("midwest", "midwest")
    assert form["hydrology"]["primary"] == ["A2"] and form["hydrology"]["secondary"] == ["D2"]
    assert form["soil"]["indicators"] == ["F6"] and moved.wetland is True
    assert form["soil"]["profile"] == wet_form()["soil"]["profile"]     # the rest of the form kept
    visit.model.undo()                              # one command: region and form together
    back = desk.get(dp.uuid)
    assert back.region.value == "northcentral-northeast"
    assert json.loads(back.form_json)["soil"]["indicators"] == ["F6", "F19"]
