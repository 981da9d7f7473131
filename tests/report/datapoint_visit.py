"""A small visit with wetland data points (issue 32), for the report and export tests: wetland
"Wetland A" (200 x 200 ft), DP-1 (wetland) inside and DP-2 (upland) outside, paired across it,
and DP-10 whose stored form the rules refuse (a secondary indicator under primary)."""

from __future__ import annotations

from datetime import date

from fieldapp.geo import SiteFrame
from fieldapp.store import create_visit
from fieldapp.survey import Visit
from tests.report.sample_visit import FT, LAT0, LON0, _clock

WET_FORM = {"region": "northcentral-northeast",
            "indicators": {"Typha latifolia": "OBL", "Acer rubrum": "FAC", "Poa pratensis": "FACU"},
            "vegetation": {"tree": [{"species": "Acer rubrum", "cover": 40}],
                           "herb": [{"species": "Typha latifolia", "cover": 60}]},
            "hydrology": {"primary": ["A2"], "water_table_in": 6}, "soil": {"indicators": ["F6"]}}
UP_FORM = {"region": "northcentral-northeast", "indicators": {"Poa pratensis": "FACU"},
           "vegetation": {"herb": [{"species": "Poa pratensis", "cover": 90}]},
           "hydrology": {"secondary": ["D2"]}, "soil": {"indicators": []}}


#: what the rules determine from WET_FORM and UP_FORM (kept in the columns, as the app does)
WET_DETERMINATION = {"hydrophytic_vegetation": True, "hydric_soil": True, "wetland_hydrology": True, "wetland": True}
UP_DETERMINATION = {"hydrophytic_vegetation": False, "hydric_soil": False, "wetland_hydrology": False,
                    "wetland": False}


def make_visit(path):
    frame = SiteFrame("EPSG:3070")
    visit = Visit.new("Marsh lot", date(2024, 5, 14), crew=["A. Delineator"], crs="EPSG:3070",
                      antenna_height_m=1.8, who="ann@laptop-1", clock=_clock())
    store = create_visit(path, visit)
    x0, y0 = (float(v) for v in frame.to_local(LON0, LAT0))
    w = 200.0 * FT
    wet = visit.add_area("wetland", [(x0, y0), (x0 + w, y0), (x0 + w, y0 + w), (x0, y0 + w)], label="Wetland A",
                         susceptibility="less")
    inside = visit.add_data_point(role="wetland", x=x0 + 10, y=y0 + 10, form=WET_FORM, name="DP-1",
                                  determination=WET_DETERMINATION)
    outside = visit.add_data_point(role="upland", x=x0 - 10, y=y0 + 10, form=UP_FORM, name="DP-2",
                                   determination=UP_DETERMINATION)
    # a third, whose stored form the rules refuse (a secondary indicator under primary)
    visit.add_data_point(role="upland", x=x0 - 20, y=y0, form={**UP_FORM, "hydrology": {"primary": ["D2"]}},
                         name="DP-10")
    visit.pair_data_points(inside.uuid, outside.uuid, wet.uuid)
    store.close()
    return visit
