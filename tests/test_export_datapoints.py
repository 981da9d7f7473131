"""Wetland data points in every export format (issue 32): one ``data_point`` point layer with
the determination columns, as the rules reach them from the stored form."""

from __future__ import annotations

import csv
import json

import pytest

from tests.report.datapoint_visit import make_visit


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    from fieldapp.export import export_visit

    folder = tmp_path_factory.mktemp("dpexport")
    path = folder / "marsh.gpkg"
    make_visit(path)
    out = folder / "all"
    result = export_visit(path, out, "all")
    return {"out": out, "result": result}


def test_geojson_layer_has_the_determination(exported):
    data = json.loads((exported["out"] / "geojson" / "data_point.geojson").read_text(encoding="utf-8"))
    props = {f["properties"]["name"]: f["properties"] for f in data["features"]}
    assert sorted(props) == ["DP-1", "DP-10", "DP-2"]
    dp1 = props["DP-1"]
    assert (dp1["role"], dp1["pair_name"], dp1["boundary"]) == ("wetland", "DP-2", "Wetland A")
    assert (dp1["hydrophytic_vegetation"], dp1["hydric_soil"], dp1["wetland_hydrology"], dp1["wetland"]) == (1, 1, 1, 1)
    assert dp1["prevalence_index"] == pytest.approx(1.8) and dp1["dominance_pct"] == 100.0
    assert dp1["dominants"] == "tree: Acer rubrum; herb: Typha latifolia" and dp1["hydrology_primary"] == "A2"
    dp2 = props["DP-2"]
    assert (dp2["wetland"], dp2["hydric_soil"], dp2["wetland_hydrology"]) == (0, 0, 0)
    dp10 = props["DP-10"]
    assert dp10["wetland"] is None and "D2 (Geomorphic Position) is a secondary" in dp10["determination_problem"]
    # WGS 84 longitude/latitude near the sample site (90° W, 44.5° N)
    lon, lat = data["features"][0]["geometry"]["coordinates"]
    assert abs(lon + 90.0) < 0.01 and abs(lat - 44.5) < 0.01


def test_csv_shp_kml_dxf_carry_the_layer(exported):
    import ezdxf
    import pyogrio

    out = exported["out"]
    assert exported["result"].layers["data_point"] == 3
    with open(out / "csv" / "data_point.csv", encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["name"] for r in rows] == ["DP-1", "DP-2", "DP-10"] and rows[0]["wetland"] == "1"
    info = pyogrio.read_info(out / "shp" / "data_point.shp")
    assert info["features"] == 3 and "EPSG" in str(info["crs"])
    (kml,) = (out / "kml").glob("*.kml")
    text = kml.read_text(encoding="utf-8")
    assert "<name>DP-10</name>" in text and "<name>data_point</name>" in text
    (dxf,) = (out / "dxf").glob("*.dxf")
    msp = ezdxf.readfile(dxf).modelspace()
    inserts = msp.query('INSERT[layer=="data_point"]')
    assert len(inserts) == 3
    names = sorted(a.dxf.text for e in inserts for a in e.attribs if a.dxf.tag == "NAME")
    assert names == ["DP-1", "DP-10", "DP-2"]
