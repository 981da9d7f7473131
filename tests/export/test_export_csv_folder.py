"""The CSV export folder is one GDAL data source, on GDAL 3.6 (QGIS LTR, Debian 12: it refused
the folder when the per-layer ``.prj`` files, the manifest and ``photos/`` outnumbered the
``.csv`` files) and on the newest (pyogrio's own GDAL): every layer listed with its geometry type
and CRS, the office's manifest still there."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pyogrio
import pytest

from fieldapp.app.photos import attach_files
from fieldapp.export import MANIFEST, export_visit
from fieldapp.store import open_visit
from fieldapp.survey import Layer
from tests.gpkgtools import need_debian_gdal_tool
from tests.report.test_report_visit import build_sample_visit
from tests.survey.test_survey_photos import jpeg

#: the sample visit's layers and their geometry as GDAL names them (with a photo of a tree)
LAYERS = {"ohwm_line": "LineString", "ohwm_point": "Point", "transect": "LineString", "station": "Point",
          "tree": "Point", "woodland_stand": "MultiPolygon", "wetland": "MultiPolygon",
          "foundation": "MultiPolygon", "note": "Point", "bank_point": "Point", "bank_line": "LineString",
          "protective_area": "MultiPolygon", "development_envelope": "MultiPolygon", "photo": "Point"}

#: Debian's GDAL (python3-gdal), when installed: 3.6 on Debian 12
SYSTEM_PYTHON = Path("/usr/bin/python3")
LIST_LAYERS = """
import json, sys
from osgeo import gdal, ogr
gdal.UseExceptions()
ds = ogr.Open(sys.argv[1])
out = {"version": gdal.__version__, "driver": ds.GetDriver().GetName(), "layers": {}}
for i in range(ds.GetLayerCount()):
    lyr = ds.GetLayer(i)
    srs = lyr.GetSpatialRef()
    out["layers"][lyr.GetName()] = [ogr.GeometryTypeToName(lyr.GetGeomType()).replace(" ", ""),
                                    srs.GetAuthorityCode(None) if srs else None, lyr.GetFeatureCount()]
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def csv_folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("export-csv")
    path = folder / "mill-creek.gpkg"
    build_sample_visit(path, conflict=False)
    cam = folder / "DCIM"
    cam.mkdir()
    with open_visit(path) as store:
        v = store.visit
        tree = sorted(v.features(Layer.TREE), key=lambda t: t.tag)[0]
        attach_files(v, [jpeg(cam / "IMG_0001.JPG")], layer=Layer.TREE, uuid=tree.uuid)
    out = folder / "csv"
    r = export_visit(path, out, "csv")
    return out, r


def test_the_folder_holds_csv_files_the_manifest_and_photos_only(csv_folder):
    out, r = csv_folder
    names = sorted(p.name for p in out.iterdir())
    assert not [n for n in names if n.endswith(".prj")]
    others = [n for n in names if not n.endswith((".csv", ".csvt"))]
    assert others == [MANIFEST, "photos"]
    csvs = [n for n in names if n.endswith(".csv")]
    assert sorted(csvs) == sorted(f"{n}.csv" for n in LAYERS)
    assert len(csvs) > len(others)          # GDAL's rule: more .csv files than anything else
    manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    assert manifest["format"] == "fieldapp export"
    assert sorted(manifest["files"]) == sorted(n for n in names if n != "photos")
    assert r.layers["photo"] == 1 and r.layers["tree"] == 4


def test_newest_gdal_lists_every_layer_with_its_geometry_and_crs(csv_folder):
    out, r = csv_folder
    listed = {str(n): str(t) for n, t in pyogrio.list_layers(out)}
    assert listed == LAYERS
    for name in LAYERS:
        info = pyogrio.read_info(out, layer=name)
        assert info["crs"] == "EPSG:4326", name
        assert info["features"] == r.layers[name], name


def test_system_gdal_opens_the_folder_as_one_data_source(csv_folder):
    """On Debian 12 this is GDAL 3.6.2, the GDAL of QGIS LTR; before the fix ogr.Open(folder)
    returned None ("not recognized as a supported file format")."""
    need_debian_gdal_tool(lambda: SYSTEM_PYTHON.exists() and subprocess.run(
        [str(SYSTEM_PYTHON), "-c", "from osgeo import ogr"], capture_output=True).returncode == 0,
        "the system GDAL's Python bindings (Debian python3-gdal, GDAL 3.6 on Debian 12)")
    out, r = csv_folder
    run = subprocess.run([str(SYSTEM_PYTHON), "-c", LIST_LAYERS, str(out)], capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout)
    assert got["driver"] == "CSV"
    assert got["layers"] == {n: [t, "4326", r.layers[n]] for n, t in LAYERS.items()}, got["version"]


def test_ogrinfo_lists_every_layer_when_installed(csv_folder):
    ogrinfo = shutil.which("ogrinfo")
    need_debian_gdal_tool(lambda: ogrinfo is not None, "ogrinfo (Debian gdal-bin)")
    assert ogrinfo is not None
    out, _ = csv_folder
    run = subprocess.run([ogrinfo, "-ro", "-q", str(out)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    for name, geom in LAYERS.items():
        want = {"LineString": "Line String", "MultiPolygon": "Multi Polygon"}.get(geom, geom)
        assert f": {name} ({want})" in run.stdout, run.stdout
