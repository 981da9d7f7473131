"""Exports the office's tools accept: GeoJSON per RFC 7946 (checked from the RFC's text), KML
placemark names and typed numbers, the Shapefile field-name map and long values written whole,
the derived layers with their verdicts, and a full disk failing every format with nothing left."""

from __future__ import annotations

import contextlib
import csv
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pyogrio
import pytest
from pyogrio.raw import read

from fieldapp.export import ExportWriteFailed, export_visit

REPO = Path(__file__).resolve().parents[1]
E0, N0 = 520000.0, 447400.0  # EPSG:3070 (Wisconsin Transverse Mercator, metres)
LONG_NOTE = "Culvert outlet scoured; " * 14  # 336 characters, more than a dBASE field's 254 bytes


@pytest.fixture(scope="module")
def visit_path(tmp_path_factory):
    from fieldapp.store import create_visit
    from fieldapp.survey.visit import Visit

    path = tmp_path_factory.mktemp("office") / "office.gpkg"
    visit = Visit.new("Mill Creek lot 7", crs="EPSG:3070", who="ann@laptop-1")
    store = create_visit(path, visit)
    # a wetland walked clockwise (north first, then east...) with a clockwise-walked hole
    outer = [(E0, N0), (E0, N0 + 60), (E0 + 80, N0 + 60), (E0 + 80, N0)]
    visit.add_area("wetland", outer, label="W1", susceptibility="highly")
    visit.add_line("drainageway_centreline", [(E0 - 50, N0 - 100), (E0 + 150, N0 - 100)], label="Mill Creek",
                   channel_width_ft=8.0, mapped_stream=True)
    visit.add_tree(x=E0 + 10, y=N0 + 10, dbh_in=14.0, species_code="ACSA")
    visit.add_note(LONG_NOTE, x=E0 + 5, y=N0 + 5)
    store.close()
    return path


def _ring_area(ring):
    """Shoelace area in lon/lat degrees²: positive for counter-clockwise (RFC 7946 §3.1.6)."""
    return sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(ring, ring[1:], strict=False)) / 2.0


def _decimals(v: float, text: str) -> int:
    return 0 if "." not in text else len(text.split(".")[1].rstrip())


def test_geojson_is_rfc_7946(visit_path, tmp_path):
    out = tmp_path / "gj"
    export_visit(visit_path, out, "geojson")
    raw = (out / "wetland.geojson").read_text(encoding="utf-8")
    doc = json.loads(raw)
    # §4: no "crs" member; coordinates are WGS 84 longitude, latitude
    assert "crs" not in doc
    (feat,) = doc["features"]
    polys = feat["geometry"]["coordinates"]
    for poly in polys:
        exterior, *holes = poly
        # §3.1.6: exterior rings counter-clockwise, holes clockwise (the boundary was walked clockwise)
        assert _ring_area(exterior) > 0
        assert all(_ring_area(h) < 0 for h in holes)
        for lon, lat in exterior:
            assert -180 <= lon <= 180 and -90 <= lat <= 90
            assert -91 < lon < -89 and 44 < lat < 45  # central Wisconsin
    # §11.2: precision: at most 9 decimals in any coordinate
    import re

    numbers = re.findall(r"-?\d+\.\d+", raw.split('"coordinates"', 1)[1])
    assert numbers and max(len(n.split(".")[1]) for n in numbers) <= 9


def _nine_decimals(v: float) -> str:
    """``v`` degrees as GDAL writes 9 decimals: 0.1 mm, trailing zeros dropped."""
    return f"{v:.9f}".rstrip("0").rstrip(".")


def test_csv_coordinates_have_the_geojson_precision(visit_path, tmp_path):
    """The CSV's WKT at 9 decimals of a degree, as the GeoJSON (was 13: 0.01 micrometre)."""
    import re

    from pyproj import Transformer

    export_visit(visit_path, tmp_path / "csv", "csv")
    export_visit(visit_path, tmp_path / "gj", "geojson")
    # the tree at E0 + 10, N0 + 10 (EPSG:3070 metres): lon / lat by PROJ, to 9 decimals
    lon, lat = Transformer.from_crs("EPSG:3070", "EPSG:4326", always_xy=True).transform(
        E0 + 10, N0 + 10)
    with open(tmp_path / "csv" / "tree.csv", encoding="utf-8", newline="") as fh:
        (row,) = list(csv.DictReader(fh))
    assert row["_WKT_EPSG_4326_POINT"] == f"POINT ({_nine_decimals(lon)} {_nine_decimals(lat)})"
    (feat,) = json.loads((tmp_path / "gj" / "tree.geojson").read_text())["features"]
    assert feat["geometry"]["coordinates"] == [float(_nine_decimals(lon)),
                                               float(_nine_decimals(lat))]
    # every vertex of the wetland is the GeoJSON's, number for number
    number = r"-?\d+(?:\.\d+)?"
    with open(tmp_path / "csv" / "wetland.csv", encoding="utf-8", newline="") as fh:
        (row,) = list(csv.DictReader(fh))
    in_csv = re.findall(number, row["_WKT_EPSG_4326_MULTIPOLYGON"])
    raw = (tmp_path / "gj" / "wetland.geojson").read_text(encoding="utf-8")
    in_geojson = re.findall(number, raw.split('"coordinates"', 1)[1])
    assert max(_decimals(0, n) for n in in_csv) == 9
    # four corners and the ring's closing one; its west side is on E 520000 m, the false
    # easting of Wisconsin Transverse Mercator, whose central meridian is 90° W: -90 exactly
    assert len(in_csv) == 2 * 5 and in_csv.count("-90") == 3
    assert set(map(float, in_csv)) == set(map(float, in_geojson))


def test_kml_placemarks_have_names_and_typed_numbers(visit_path, tmp_path):
    out = tmp_path / "v.kml"
    export_visit(visit_path, out, "kml")
    root = ET.parse(out).getroot()
    ns = {"k": "http://www.opengis.net/kml/2.2"}
    names = [p.findtext("k:name", namespaces=ns) for p in root.iter("{http://www.opengis.net/kml/2.2}Placemark")]
    assert all(names) and "W1" in names and "Tree 1" in names and "Mill Creek" in names
    types = {f.get("name"): f.get("type") for s in root.iter("{http://www.opengis.net/kml/2.2}Schema")
             if s.get("id") == "tree.schema" for f in s}
    assert types["dbh_in"] == "double" and types["tag"] == "int"


def test_shapefile_field_map_and_long_values_written_whole(visit_path, tmp_path):
    out = tmp_path / "shp"
    r = export_visit(visit_path, out, "shp")
    with open(out / "field_names.csv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    fields = {(x["layer"], x["shapefile_field"]): x["field"] for x in rows}
    # every dBASE name the .dbf really has, with the full name and its unit
    for layer in ("tree", "note", "wetland"):
        dbf = list(pyogrio.read_info(out / f"{layer}.shp")["fields"])
        assert [fields[(layer, f)] for f in dbf][:2] == ["name", "uuid"]
    assert fields[("tree", "crown_radi")] == "crown_radius_ft"
    # the note is longer than a Shapefile field: written whole beside it, and the user is told
    with open(out / "long_values.csv", encoding="utf-8") as fh:
        (row,) = [x for x in csv.DictReader(fh) if x["field"] == "text"]
    assert row["layer"] == "note" and row["value"] == LONG_NOTE
    assert any("long_values.csv" in n for n in r.notes)
    meta, _, _, values = read(str(out / "note.shp"))
    text = values[list(meta["fields"]).index("text")][0]
    assert text.endswith("(whole text in long_values.csv)") and len(text.encode("utf-8")) <= 254


@pytest.mark.parametrize("fmt", ["geojson", "shp", "csv", "kml", "dxf"])
def test_derived_layers_carry_verdict_and_citation(visit_path, tmp_path, fmt):
    out = tmp_path / (f"d.{fmt}" if fmt in ("kml", "dxf") else f"d-{fmt}")
    r = export_visit(visit_path, out, fmt)
    # a highly susceptible wetland: 75 ft (NR 151.125(1)(e)); a mapped stream with an 8 ft
    # channel: 4 + 50 = 54 ft each side of the centreline (Drainageways A.1)
    assert r.layers["protective_area"] == 1 and r.layers["drainageway_area"] == 1
    if fmt in ("dxf",):
        return
    src = out if fmt == "kml" else out / ({"geojson": "protective_area.geojson", "shp": "protective_area.shp",
                                            "csv": "protective_area.csv"}[fmt])
    meta, _, geoms, values = read(str(src), layer="protective_area" if fmt == "kml" else None)
    cols = list(meta["fields"])
    cite = values[cols.index("citation")][0]
    assert cite == "NR 151.125(1)(e)" and values[cols.index("status")][0] == "determined"
    width = values[cols.index("width_ft")][0]
    assert float(width) == 75.0
    src = out if fmt == "kml" else out / ({"geojson": "drainageway_area.geojson", "shp": "drainageway_area.shp",
                                            "csv": "drainageway_area.csv"}[fmt])
    meta, _, geoms, values = read(str(src), layer="drainageway_area" if fmt == "kml" else None)
    cols = list(meta["fields"])
    assert values[cols.index("citation")][0] == "Decorah resource protection, Drainageways A.1, C"
    assert float(values[cols.index("half_width" if fmt == "shp" else "half_width_ft")][0]) == 54.0


def test_drainageway_area_is_the_centreline_buffered_by_the_half_width(visit_path, tmp_path):
    import shapely

    out = tmp_path / "s"
    export_visit(visit_path, out, "shp")
    _, _, geoms, _ = read(str(out / "drainageway_area.shp"))
    g = shapely.from_wkb(geoms[0])
    # 200 m of centreline (EPSG:3070 metres), 54 ground ft = 16.4592 m each side, flat ends; on
    # WTM's central meridian (90 W) a ground metre is 0.9996 grid metres wide
    assert g.area == pytest.approx(200.0 * 2 * 54 * 0.3048 * 0.9996, rel=1e-7)


@contextlib.contextmanager
def _small_tmpfs(where: Path, free_bytes: int):
    """A 64 KiB tmpfs at ``where`` with ``free_bytes`` left; skips where it cannot be mounted
    (not root, or no CAP_SYS_ADMIN in a container)."""
    if os.name == "nt":
        pytest.skip("a full disk is a small tmpfs mounted with Linux's mount: the Linux stage runs this")
    where.mkdir()
    run = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(where)],
                         capture_output=True, text=True)
    if run.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here to fill ({run.stderr.strip() or 'mount failed'})")
    try:
        st = os.statvfs(where)
        filler = where / "filler.bin"
        filler.write_bytes(b"\0" * (st.f_bavail * st.f_frsize - free_bytes))
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


@pytest.mark.parametrize("fmt", ["geojson", "shp", "csv", "kml", "dxf"])
def test_full_disk_fails_every_format_with_nothing_left(visit_path, tmp_path, fmt):
    with _small_tmpfs(tmp_path / "small", 12 * 1024) as disk:
        out = disk / ("v." + fmt if fmt in ("kml", "dxf") else "out")
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        run = subprocess.run([sys.executable, "-m", "fieldapp", "export", str(visit_path), "--format", fmt,
                              "-o", str(out)], capture_output=True, text=True, env=env, timeout=600)
        assert run.returncode != 0, run.stdout
        assert "disk is full" in run.stderr, run.stderr
        assert "Traceback" not in run.stderr
        assert sorted(p.name for p in disk.iterdir()) == ["filler.bin"]  # no partial output
        with pytest.raises(ExportWriteFailed, match="disk is full"):
            export_visit(visit_path, out, fmt)
        assert sorted(p.name for p in disk.iterdir()) == ["filler.bin"]
