"""Precision stays (issue 31, item 3): every export, read back as its receiver reads it
(GDAL for the GeoPackages -- the visit and the export --, GeoJSON, KML, CSV and Shapefile;
ezdxf for the DXF) and brought
back into the site's CRS, puts every vertex of every feature within 1 mm of the stored
geometry: on the sample visit and on a dense one (200 trees in a stand)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import shapely
from pyogrio.raw import read

from tests.report.sample_visit import build_sample_visit

MM = 0.001  # metres: EPSG:3070's unit

#: Where each format of ``all`` is written, and whether it holds WGS 84 lon/lat (else the site CRS).
FORMATS = {"geojson": ("geojson", True), "kml": ("kml", True), "csv": ("csv", True),
           "shp": ("shp", False), "gpkg": ("gpkg", False)}


@pytest.fixture(scope="module", params=["sample", "dense"])
def exported(request, tmp_path_factory):
    from fieldapp.export import derived_records, export_visit, layer_records
    from fieldapp.report.content import load_visit

    folder = tmp_path_factory.mktemp(f"precision-{request.param}")
    path = folder / "visit.gpkg"
    info = build_sample_visit(path, conflict=False, trees=200 if request.param == "dense" else None)
    visit = load_visit(path)
    stored = {d.name: d for d in layer_records(visit) + derived_records(visit, path)}
    out = folder / "all"
    export_visit(path, out, "all")
    return {"frame": info["frame"], "stored": stored, "out": out, "path": path}


def _read(path: Path, layer: str | None = None) -> tuple[dict[str, Any], list[Any]]:
    """A layer as GDAL reads it: {field: values}, geometries (shapely; None kept)."""
    meta, _, wkb, fields = read(str(path), layer=layer)
    geoms = [None if b is None else shapely.from_wkb(b) for b in wkb]
    return dict(zip(meta["fields"], fields, strict=True)), geoms


def _stored_geoms(data: Any) -> list[Any]:
    return [g for g in list(data.geometries) if g is not None and not g.is_empty]


def _uuid_index(data: Any) -> int | None:
    names = [c for c, _ in data.columns]
    return names.index("uuid") if "uuid" in names else None


def _to_site(geoms: list[Any], frame: Any) -> list[Any]:
    """lon/lat geometries (WGS 84) projected into the site CRS by PROJ."""
    def fwd(xy: np.ndarray) -> np.ndarray:
        x, y = frame.to_local(xy[:, 0], xy[:, 1])
        return np.column_stack([np.asarray(x, float), np.asarray(y, float)])
    return [shapely.transform(g, fwd) for g in geoms]


def _worst(stored: list[Any], got: list[Any]) -> float:
    """The largest distance (site units) between a vertex of one and the nearest vertex of the
    other, feature by feature (Hausdorff on the vertices: ring direction and start may change)."""
    assert len(stored) == len(got)
    return max((shapely.hausdorff_distance(a, b) for a, b in zip(stored, got, strict=True)), default=0.0)


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_gdal_formats_keep_every_vertex_within_a_millimetre(exported, fmt):
    folder, lonlat = FORMATS[fmt]
    base = exported["out"] / folder
    checked = 0
    for name, data in exported["stored"].items():
        stored = _stored_geoms(data)
        if not stored:
            continue
        if fmt in ("kml", "gpkg"):      # one file, a layer each
            (one,) = base.glob(f"*.{fmt}")
            _, geoms = _read(one, name)
        else:
            (src,) = [p for p in base.iterdir() if p.stem == name and p.suffix in (".geojson", ".csv", ".shp")]
            _, geoms = _read(src)
        got = [g for g in geoms if g is not None and not g.is_empty]
        if lonlat:
            got = _to_site(got, exported["frame"])
        worst = _worst(stored, got)
        assert worst < MM, f"{fmt} {name}: {worst * 1000:.3f} mm"
        checked += len(stored)
    assert checked >= 20


def test_geopackage_the_office_opens_keeps_the_stored_geometry(exported):
    """The visit GeoPackage as GDAL reads it (what QGIS opens): the stored geometry itself."""
    stored = exported["stored"]["tree"]
    fields, geoms = _read(exported["path"], "tree")
    by_uuid = dict(zip(fields["uuid"], geoms, strict=True))
    k = _uuid_index(stored)
    assert k is not None
    for row, g in zip(stored.rows, stored.geometries, strict=True):
        assert shapely.hausdorff_distance(by_uuid[row[k]], g) < MM


def _dxf_vertices(e: Any) -> list[tuple[float, float]]:
    t = e.dxftype()
    if t == "POINT":
        return [(e.dxf.location.x, e.dxf.location.y)]
    if t == "INSERT":
        return [(e.dxf.insert.x, e.dxf.insert.y)]
    if t == "LWPOLYLINE":
        return [(p[0], p[1]) for p in e.get_points()]
    if t == "LINE":
        return [(e.dxf.start.x, e.dxf.start.y), (e.dxf.end.x, e.dxf.end.y)]
    if t == "POLYLINE":
        return [(v.dxf.location.x, v.dxf.location.y) for v in e.vertices]
    return []


def test_dxf_keeps_every_vertex_within_a_millimetre(exported):
    import ezdxf

    (path,) = Path(exported["out"] / "dxf").glob("*.dxf")
    msp = ezdxf.readfile(path).modelspace()
    layers = {e.dxf.layer for e in msp}
    checked = 0
    for name, data in exported["stored"].items():
        stored = _stored_geoms(data)
        mine = sorted(la for la in layers if la == name or la.startswith(name + "-") or la.startswith(name + "_"))
        if not stored:
            continue
        assert mine, f"no DXF layer for {name}: {sorted(layers)}"
        got = np.array([v for e in msp if e.dxf.layer in mine for v in _dxf_vertices(e)], float)
        want = np.concatenate([shapely.get_coordinates(g) for g in stored])
        assert len(got), name
        # every stored vertex has a DXF vertex within 1 mm (its labels are TEXT, not compared)
        d = np.sqrt(((want[:, None, :] - got[None, :, :]) ** 2).sum(axis=2)).min(axis=1)
        assert d.max() < MM, f"dxf {name}: {d.max() * 1000:.3f} mm"
        checked += len(stored)
    assert checked >= 20
