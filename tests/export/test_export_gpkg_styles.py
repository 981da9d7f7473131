"""The GeoPackage export opens styled in QGIS (issue 31, item 4): one ``layer_styles`` row per
layer, the default, whose QGIS style draws trees and verdicts by status in the KML's and DXF's
colours and labels each feature with its name; read back with GDAL (as QGIS reads it) and an
XML parser; the file is a valid GeoPackage; the styles hold no actions."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pyogrio
import pytest
from pyogrio.raw import read

from fieldapp.export.kmlstyle import STATUS_RGB, TREE_RGB
from tests.gpkgtools import st_connect
from tests.report.sample_visit import build_sample_visit


@pytest.fixture(scope="module")
def gpkg(tmp_path_factory):
    from fieldapp.export import export_visit

    folder = tmp_path_factory.mktemp("gpkgstyle")
    path = folder / "visit.gpkg"
    build_sample_visit(path, conflict=False)
    out = folder / "visit_export.gpkg"
    result = export_visit(path, out, "gpkg")
    meta, _, _, fields = read(str(out), layer="layer_styles")
    rows = [dict(zip(meta["fields"], values, strict=True)) for values in zip(*fields, strict=True)]
    return {"out": out, "result": result, "styles": {r["f_table_name"]: r for r in rows}, "rows": rows}


def _qml(gpkg, layer):
    return ET.fromstring(gpkg["styles"][layer]["styleQML"].split("'SYSTEM'>", 1)[1])


def _rgb(rgb):
    return f"{rgb[0]},{rgb[1]},{rgb[2]},255"


def test_every_layer_has_its_default_style_and_gdal_reads_them(gpkg):
    layers = dict(pyogrio.list_layers(gpkg["out"]))
    assert "layer_styles" in layers
    assert gpkg["result"].crs == "EPSG:3070"
    assert set(gpkg["styles"]) == set(gpkg["result"].layers) and len(gpkg["rows"]) == len(gpkg["styles"])
    with st_connect(gpkg["out"]) as conn:
        geom_cols = dict(conn.execute("SELECT table_name, column_name FROM gpkg_geometry_columns"))
    for name, row in gpkg["styles"].items():
        assert row["useAsDefault"] in (1, True) and row["styleName"] == "fieldapp"
        assert row["f_geometry_column"] == geom_cols[name]
        q = _qml(gpkg, name)
        assert q.get("labelsEnabled") == "1"
        assert q.find("labeling/settings/text-style").get("fieldName") == "name"
        assert q.find("attributeactions") is None and "macro" not in row["styleQML"].lower()
    for name, n in gpkg["result"].layers.items():
        assert pyogrio.read_info(gpkg["out"], layer=name)["features"] == n


def test_the_gdal_offices_have_lists_every_layer_and_the_styles(gpkg):
    """Debian's ogrinfo (GDAL 3.6, as QGIS LTR) opens the export: every layer and layer_styles."""
    import os
    import shutil
    import subprocess

    if os.name == "nt":
        pytest.skip("Debian's ogrinfo reads the file in the Linux stage of .ci/run")
    ogrinfo = shutil.which("ogrinfo")
    if ogrinfo is None:
        (pytest.fail if os.environ.get("CI") else pytest.skip)("ogrinfo (gdal-bin) is not installed")
    run = subprocess.run([ogrinfo, "-q", "-so", str(gpkg["out"])], capture_output=True, text=True, check=True)
    listed = {line.split(": ", 1)[1].split(" (")[0] for line in run.stdout.splitlines() if ": " in line}
    assert listed == set(gpkg["result"].layers) | {"layer_styles"}


def test_trees_and_verdicts_are_drawn_by_status(gpkg):
    tree = _qml(gpkg, "tree")
    r = tree.find("renderer-v2")
    assert r.get("type") == "categorizedSymbol" and r.get("attr") == "status"
    cats = {c.get("value"): c.get("symbol") for c in r.iter("category")}
    assert list(cats) == ["live", "dead", "removed"]
    colours = {s.get("name"): s.find("layer/Option/Option[@name='color']").get("value") for s in r.iter("symbol")}
    assert colours[cats["live"]] == _rgb(TREE_RGB["live"]) and colours[cats["dead"]] == _rgb(TREE_RGB["dead"])
    bank = _qml(gpkg, "bank_point").find("renderer-v2")
    cats = {c.get("value"): c.get("symbol") for c in bank.iter("category")}
    colours = {s.get("name"): s.find("layer/Option/Option[@name='color']").get("value") for s in bank.iter("symbol")}
    assert colours[cats["determined"]] == _rgb(STATUS_RGB["determined"])
    assert colours[cats["needs_data"]] == _rgb(STATUS_RGB["needs_data"])


def test_kinds_are_single_symbols_in_their_colours(gpkg):
    wet = _qml(gpkg, "wetland").find("renderer-v2")
    assert wet.get("type") == "singleSymbol"
    (sym,) = wet.iter("symbol")
    assert sym.get("type") == "fill" and sym.find("layer").get("class") == "SimpleFill"
    assert sym.find("layer/Option/Option[@name='color']").get("value").endswith(",64")   # see-through
    line = _qml(gpkg, "ohwm_line").find("renderer-v2/symbols/symbol/layer")
    assert line.get("class") == "SimpleLine"
    assert line.find("Option/Option[@name='line_color']").get("value") == "0,0,255,255"   # OHWM blue


def test_the_dialog_never_proposes_the_visits_own_name():
    from pathlib import Path

    from fieldapp.ui.officeactions import default_export_path

    assert default_export_path(Path("/x/mill-creek.gpkg"), "gpkg") == Path("/x/mill-creek_export.gpkg")
