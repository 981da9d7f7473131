"""The DXF opens in CAD on the data and reads there (issue 31 items 1 and 2): header extents and
the active viewport on what is drawn (they were unset: CAD opened at 0,0, the site off screen),
a layer per feature kind with its own colour and linetype (everything was one colour), trees on
a layer per status as symbol blocks whose attributes hold tag, DBH and species, lines and
polygons carrying their attributes as XDATA and a label, a title block with site, CRS, units and
dates; ezdxf's audit finds nothing. Read back with ezdxf, as a CAD user's file would be."""

from __future__ import annotations

import random

import ezdxf
import pytest

from fieldapp.export import export_visit
from fieldapp.export.dxf import LAYER_STYLE, TREE_STATUS_STYLE
from fieldapp.store import open_visit
from fieldapp.survey import Layer
from tests.report.test_report_visit import build_sample_visit


def _trees(path):
    from fieldapp.report.content import load_visit

    return {t.uuid: t for t in load_visit(path).features(Layer.TREE)}


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    folder = tmp_path_factory.mktemp("dxf-demo")
    path = folder / "mill-creek.gpkg"
    build_sample_visit(path, conflict=False)
    out = folder / "mill-creek.dxf"
    r = export_visit(path, out, "dxf")
    return path, out, r


@pytest.fixture(scope="module")
def dense(tmp_path_factory):
    """The demo visit and 200 more trees within a 30 m square, a third of them dead or removed."""
    folder = tmp_path_factory.mktemp("dxf-dense")
    path = folder / "dense.gpkg"
    build_sample_visit(path, conflict=False)
    rnd = random.Random(31)
    with open_visit(path) as store:
        v = store.visit
        t0 = next(iter(v.features(Layer.TREE)))
        for k in range(200):
            v.add_tree(x=t0.x + rnd.uniform(0, 30.0), y=t0.y + rnd.uniform(0, 30.0),
                       dbh_in=round(rnd.uniform(3.0, 30.0), 1), species_code="QURU",
                       species_name="northern red oak", status=("live", "dead", "removed")[k % 3])
    out = folder / "dense.dxf"
    r = export_visit(path, out, "dxf")
    return path, out, r


def _data_points(path):
    import shapely

    from fieldapp.report.content import load_visit
    from fieldapp.store import schema as S

    v = load_visit(path)
    out = []
    for layer in (Layer.TREE, Layer.AREA, Layer.TRANSECT, Layer.OHWM_POINT, Layer.STATION):
        for f in v.features(layer):
            g = S.geometry_of(layer, f)
            if g is not None:
                out += [tuple(c) for c in shapely.get_coordinates(g)]
    return out


@pytest.mark.parametrize("which", ["demo", "dense"])
def test_extents_and_the_active_viewport_cover_the_data(which, request):
    path, out, _ = request.getfixturevalue(which)
    doc = ezdxf.readfile(out)
    (x0, y0, _), (x1, y1, _) = doc.header["$EXTMIN"], doc.header["$EXTMAX"]
    pts = _data_points(path)
    assert len(pts) > 10
    for x, y in pts:
        assert x0 <= x <= x1 and y0 <= y <= y1, (x, y)
    # not a world: the extents are the site's, within 3 times its size
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    assert (x1 - x0) < 3 * (max(xs) - min(xs)) + 1 and (y1 - y0) < 3 * (max(ys) - min(ys)) + 1
    (vport,) = doc.viewports.get("*Active")
    cx, cy = vport.dxf.center.x, vport.dxf.center.y
    assert x0 < cx < x1 and y0 < cy < y1
    assert vport.dxf.height >= (y1 - y0)            # the whole drawing shows at open
    assert vport.dxf.height * vport.dxf.aspect_ratio >= (x1 - x0)
    msp = doc.modelspace()
    assert (msp.dxf.extmin.x, msp.dxf.extmin.y, msp.dxf.extmax.x, msp.dxf.extmax.y) == (x0, y0, x1, y1)


def test_each_feature_kind_has_its_layer_colour_and_linetype(demo):
    _, out, r = demo
    doc = ezdxf.readfile(out)
    want = {"ohwm_line": (5, "DASHDOT"), "bank_line": (4, "DASHED"), "transect": (6, "CENTER"),
            "protective_area": (1, "DASHED"), "development_envelope": (2, "PHANTOM"),
            "wetland": LAYER_STYLE["wetland"], "woodland_stand": LAYER_STYLE["woodland_stand"],
            "foundation": LAYER_STYLE["foundation"], "tree_live": (3, "Continuous")}
    for name, (colour, linetype) in want.items():
        layer = doc.layers.get(name)
        assert (layer.color, layer.dxf.linetype) == (colour, linetype), name
        assert linetype in doc.linetypes, linetype
    colours = {doc.layers.get(n).color for n in ("ohwm_line", "bank_line", "transect", "protective_area",
                                                 "development_envelope", "tree_live")}
    assert len(colours) == 6                         # not one colour for everything
    msp = doc.modelspace()
    for name in r.layers:                            # every entity takes its layer's colour
        for e in msp.query(f'*[layer=="{name}"]'):
            assert e.dxf.color == 256, (name, e.dxftype())


def test_a_tree_is_a_block_whose_attributes_hold_its_tag_dbh_and_species(demo):
    path, out, _ = demo
    trees = _trees(path)
    doc = ezdxf.readfile(out)
    refs = doc.modelspace().query('INSERT[layer=="tree_live"]')
    assert len(refs) == len(trees) == 4
    for ref in refs:
        a = {at.dxf.tag: at.dxf.text for at in ref.attribs}
        t = trees[a["UUID"]]
        assert a["TAG"] == str(t.tag) and float(a["DBH_IN"]) == pytest.approx(t.dbh_in)
        assert (a["SPECIES_CODE"], a["SPECIES_NAME"], a["STATUS"]) == ("ACSA", "sugar maple", "live")
        assert (ref.dxf.insert.x, ref.dxf.insert.y) == pytest.approx((t.x, t.y), abs=1e-6)
        shown = [at.dxf.tag for at in ref.attribs if not at.is_invisible]
        assert shown == ["TAG"]                     # the tag on the drawing, the rest in the editor


def test_dense_trees_go_on_their_status_layer(dense):
    path, out, r = dense
    trees = _trees(path)
    doc = ezdxf.readfile(out)
    msp = doc.modelspace()
    for status, (layer, colour) in TREE_STATUS_STYLE.items():
        refs = msp.query(f'INSERT[layer=="{layer}"]')
        assert len(refs) == sum(1 for t in trees.values() if t.status.value == status), status
        assert doc.layers.get(layer).color == colour
        for ref in refs:
            a = {at.dxf.tag: at.dxf.text for at in ref.attribs}
            assert a["STATUS"] == status and trees[a["UUID"]].tag == int(a["TAG"])
    assert r.layers["tree"] == 204 and len(msp.query('POINT[layer=="tree"]')) == 204
    assert not doc.audit().has_errors


def test_lines_and_polygons_carry_their_attributes_and_a_label(demo):
    _, out, _ = demo
    msp = ezdxf.readfile(out).modelspace()
    (bank,) = msp.query('LWPOLYLINE[layer=="bank_line"]')
    x = [str(v) for _, v in bank.get_xdata("FIELDAPP")]
    assert "status=needs_data" in x and "citation=NR 341.035(1)" in x and "name=Bank line" in x
    pas = msp.query('LWPOLYLINE[layer=="protective_area"]')
    xs = [[str(v) for _, v in e.get_xdata("FIELDAPP")] for e in pas]
    assert all(any(s.startswith("verdict=") for s in x) for x in xs)
    assert any("width_ft=26" in x for x in xs)
    labels = {t.dxf.text for t in msp.query('TEXT[layer=="transect"]')}
    assert labels == {"T1", "T2"}
    assert {t.dxf.text for t in msp.query('TEXT[layer=="bank_line"]')} == {"Bank line"}


def test_title_block_names_site_crs_units_and_dates(demo):
    _, out, _ = demo
    msp = ezdxf.readfile(out).modelspace()
    texts = [t.dxf.text for t in msp.query('TEXT[layer=="title_block"]')]
    assert "Site: Mill Creek lot 7" in texts
    assert any(t.startswith("CRS: EPSG:3070 (") for t in texts)
    assert "Units: metres" in texts and "Visit date: 2024-05-14" in texts
    assert "Crew: A. Surveyor, B. Forester" in texts
    assert any(t.startswith("Exported: 20") for t in texts)
    assert "Trees, live (tree_live)" in texts and "Transects (transect)" in texts
    legend = ezdxf.readfile(out).modelspace().query('*[layer=="legend"]')
    assert {(e.dxf.color, e.dxf.linetype) for e in legend if e.dxftype() == "LINE"} >= {(6, "CENTER"), (4, "DASHED")}


def test_the_file_passes_ezdxfs_audit(demo):
    _, out, _ = demo
    doc = ezdxf.readfile(out)
    auditor = doc.audit()
    assert not auditor.has_errors and not auditor.has_fixes, [e.message for e in auditor.errors + auditor.fixes]
