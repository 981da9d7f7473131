"""The KML's layers written smallest first (issue 33, goal 3: a day's export). GDAL's KML
writer reads the whole file again for each layer added, so the day's 4,000 trees were read six
more times for the small layers after them; written fewest features first and put back in the
visit's order when the styles are added, the file is the one written in the visit's order,
byte for byte."""

from __future__ import annotations

import re

from fieldapp.export import export_visit, gdal
from tests.report.test_report_visit import build_sample_visit
from tests.track_sample import visit_with_track


def _written(monkeypatch):
    names: list[str] = []
    real = gdal._write_ogr
    monkeypatch.setattr(gdal, "_write_ogr", lambda data, *a, **k: names.append(data.name) or real(data, *a, **k))
    return names


def test_layers_are_written_smallest_first_and_the_file_is_the_visit_orders(tmp_path, monkeypatch):
    path = tmp_path / "v.gpkg"
    build_sample_visit(path, conflict=False)
    names = _written(monkeypatch)
    sizes = export_visit(path, tmp_path / "small-first.kml", "kml").layers   # in the visit's order
    assert sorted(names) == sorted(sizes)
    assert [sizes[n] for n in names] == sorted(sizes.values())
    assert names != list(sizes)
    # as before: the visit's order, the track last
    monkeypatch.setattr(gdal, "_kml_write_order", lambda data: data.arrays is not None)
    export_visit(path, tmp_path / "visit-order.kml", "kml")
    text = (tmp_path / "small-first.kml").read_text(encoding="utf-8")
    assert text == (tmp_path / "visit-order.kml").read_text(encoding="utf-8")
    folders = [f for f in re.findall(r'<Document id="(\w+)">', text) if f != "root_doc"]
    assert folders == list(sizes)         # the visit's order in the file


def test_the_track_is_still_written_last(tmp_path, monkeypatch):
    path = tmp_path / "t.gpkg"
    visit_with_track(path, n=40)
    names = _written(monkeypatch)
    export_visit(path, tmp_path / "t.kml", "kml")
    assert names[-1] == "track_point"
    text = (tmp_path / "t.kml").read_text(encoding="utf-8")
    assert re.findall(r'<Document id="(\w+)">', text)[-1] == "track_point"
