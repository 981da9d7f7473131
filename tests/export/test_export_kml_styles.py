"""KML styles by kind and status (issue 31, item 4): every placemark names a shared style of
its layer and status, the style exists, and the colours say what the DXF and the report say
(trees by status, verdict layers by status, each kind its own colour); read with a KML (XML)
parser and with GDAL's ``ogrinfo``, as Google Earth and QGIS read it."""

from __future__ import annotations

import os
import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest

from fieldapp.export.kmlstyle import ICON, STATUS_RGB, TREE_RGB, kml_colour
from tests.report.sample_visit import build_sample_visit

K = "{http://www.opengis.net/kml/2.2}"


@pytest.fixture(scope="module")
def kml(tmp_path_factory):
    from fieldapp.export import export_visit
    from fieldapp.store import open_visit
    from fieldapp.survey import Layer

    folder = tmp_path_factory.mktemp("kmlstyle")
    path = folder / "visit.gpkg"
    build_sample_visit(path, conflict=False)
    with open_visit(path) as store:     # one tree dead: its own style
        tree = store.visit.features(Layer.TREE)[3]
        store.visit.update_feature(Layer.TREE, tree.uuid, status="dead")
    out = folder / "visit.kml"
    result = export_visit(path, out, "kml")
    root = ET.parse(out).getroot()
    styles = {s.get("id"): s for s in root.iter(f"{K}Style")}
    marks = {}
    for container in root.iter(f"{K}Document"):
        name = container.find(f"{K}name")
        for pm in container.findall(f"{K}Placemark"):
            marks.setdefault(name.text if name is not None else container.get("id"), []).append(pm)
    return {"out": out, "result": result, "styles": styles, "marks": marks, "tree": tree.uuid}


def _colour(style, what="IconStyle"):
    return style.find(f"{K}{what}/{K}color").text


def _url(pm):
    return pm.find(f"{K}styleUrl").text


def test_every_placemark_names_a_style_that_exists(kml):
    n = 0
    for layer, pms in kml["marks"].items():
        for pm in pms:
            sid = _url(pm).removeprefix("#")
            assert sid in kml["styles"], (layer, sid)
            assert sid.split(".")[0] == layer
            n += 1
    assert n == sum(kml["result"].layers.values())


def test_trees_and_verdicts_are_coloured_by_status(kml):
    trees = kml["marks"]["tree"]
    assert sorted(_url(pm) for pm in trees) == ["#tree.dead", "#tree.live", "#tree.live", "#tree.live"]
    assert _colour(kml["styles"]["tree.live"]) == kml_colour(TREE_RGB["live"]) == "ff327d2e"
    assert _colour(kml["styles"]["tree.dead"]) == kml_colour(TREE_RGB["dead"])
    assert kml["styles"]["tree.live"].find(f"{K}IconStyle/{K}Icon/{K}href").text == ICON
    # bank T1 determined (green), T2 needs data (orange): not the same pin
    banks = sorted(_url(pm) for pm in kml["marks"]["bank_point"])
    assert banks == ["#bank_point.determined", "#bank_point.needs_data"]
    assert _colour(kml["styles"]["bank_point.determined"]) == kml_colour(STATUS_RGB["determined"])
    assert _colour(kml["styles"]["bank_point.needs_data"]) == kml_colour(STATUS_RGB["needs_data"])
    assert _colour(kml["styles"]["bank_line.needs_data"], "LineStyle") == kml_colour(STATUS_RGB["needs_data"])


def test_each_kind_has_its_own_colour_and_polygons_are_filled_see_through(kml):
    s = kml["styles"]
    # the DXF's colours: OHWM blue (ACI 5), transects magenta (ACI 6), wetland ACI 130
    assert _colour(s["ohwm_line"], "LineStyle") == "ffff0000"
    assert _colour(s["transect"], "LineStyle") == "ffff00ff"
    assert s["ohwm_line"].find(f"{K}LineStyle/{K}width").text == "3"
    wet = s["wetland"]
    assert _colour(wet, "PolyStyle").startswith("40") and wet.find(f"{K}PolyStyle/{K}fill") is None
    assert len({_colour(s[k], "LineStyle") for k in ("ohwm_line", "transect", "wetland", "woodland_stand",
                                                      "foundation")}) == 5


def test_gdal_reads_the_styles_and_every_feature(kml):
    if os.name == "nt":
        pytest.skip("Debian's ogrinfo reads the KML in the Linux stage of .ci/run")
    ogrinfo = shutil.which("ogrinfo")
    if ogrinfo is None:
        (pytest.fail if os.environ.get("CI") else pytest.skip)("ogrinfo (gdal-bin) is not installed")
    run = subprocess.run([ogrinfo, "-q", str(kml["out"]), "tree"], capture_output=True, text=True, check=True)
    assert run.stdout.count("Style = @tree.live") == 3 and run.stdout.count("Style = @tree.dead") == 1
    import pyogrio

    for layer, n in kml["result"].layers.items():
        assert pyogrio.read_info(kml["out"], layer=layer)["features"] == n
