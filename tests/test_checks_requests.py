"""fieldapp.checks.requests: one builder per kind of check; the visit's rule inputs delegate.

Hand-worked: a transect of two stations (30 ft at 4 %, then 60 ft at 18 %, the second marked a
complete interruption) on a priority waterway gives ``segments`` of those two and
``interruption_at_ft`` 90 ft (30 + 60); a transect with no station appears only once stipulated.
"""

from __future__ import annotations

from fieldapp import checks
from fieldapp.checks import requests as R
from fieldapp.rules import city_tables
from fieldapp.survey import Layer, Visit

X0, Y0 = 500_000.0, 4_983_000.0


def visit():
    return Visit.new("Mill Creek lot", crs="EPSG:32616", who="tester@laptop", priority_waterway=True)


def test_bank_input_from_the_model_by_hand():
    v = visit()
    t = v.add_transect(0.0, origin=(X0, Y0))
    v.add_station(t.uuid, horizontal_ft=30.0, slope_pct=4.0)
    v.add_station(t.uuid, horizontal_ft=60.0, slope_pct=18.0, interruption=True)
    expected = {"priority": True,
                "segments": [{"horizontal_ft": 30.0, "slope_pct": 4.0},
                             {"horizontal_ft": 60.0, "slope_pct": 18.0}],
                "interruption_at_ft": 90.0}
    assert R.bank_input(v, t.uuid) == expected
    assert R.segments(v, t.uuid) == expected["segments"]
    assert R.stations_input(v, t.uuid) is None  # no origin elevation


def test_bank_checks_need_a_station_or_a_stipulation():
    v = visit()
    t = v.add_transect(0.0, origin=(X0, Y0), label="T1")
    assert R.bank_checks(v) == {}
    v.set_stipulated(t.uuid)
    assert R.bank_checks(v) == {f"bank:{t.uuid}": (
        "Bank T1 (NR 341.035)",
        {"rule": "nr341.bank", "input": {"priority": True, "segments": [], "stipulated": True}})}


def test_requests_for_model_is_the_union_of_the_check_builders_in_order():
    v = visit()
    t = v.add_transect(0.0, origin=(X0, Y0))
    v.add_station(t.uuid, horizontal_ft=30.0, slope_pct=4.0)
    wet = v.add_area("wetland", [(X0, Y0), (X0 + 30, Y0), (X0 + 30, Y0 + 30), (X0, Y0 + 30)])
    stand = v.add_area("woodland_stand", [(X0 + 100, Y0), (X0 + 130, Y0), (X0 + 130, Y0 + 30),
                                          (X0 + 100, Y0 + 30)])
    areas = v.features(Layer.AREA)
    by_kind = {**R.bank_checks(v), **R.wetland_checks(v, areas)}
    by_kind.update(R.support_checks(v, by_kind, R.check_name))      # the data points behind each wetland
    by_kind.update(R.woodland_checks(v, areas))
    got = R.requests_for_model(v)
    assert got == by_kind
    assert list(got) == [f"bank:{t.uuid}", f"wetland:{wet.uuid}", f"protective_area:{wet.uuid}",
                         f"wetland_support:{wet.uuid}", f"woodland:{stand.uuid}"]
    assert checks.requests_for_model is R.requests_for_model


def test_the_city_citation_is_the_rule_s():
    assert checks.CITE_CITY is city_tables.CITE
    v = visit()
    stand = v.add_area("woodland_stand", [(X0, Y0), (X0 + 30, Y0), (X0 + 30, Y0 + 30), (X0, Y0 + 30)])
    _, awaiting = R.woodland_checks(v, v.features(Layer.AREA))[f"woodland:{stand.uuid}"]
    assert awaiting.citation == f"{city_tables.CITE}, Woodlands A"
