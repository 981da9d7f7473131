"""A written layer file is proved whole without re-parsing a day's GeoJSON
(fieldapp.export.gdal._check_written): GDAL does not report a write that fails as it closes
the file (the disk filling just then), so every file cut short at its end must be caught."""

from __future__ import annotations

import numpy as np
import pytest
import shapely

from fieldapp.export.gdal import _check_written, _csv_ends_whole, _write_layers
from fieldapp.export.model import ExportWriteFailed, _ColumnRows, _LayerData


class _Frame:
    """Site CRS metres -> lon/lat: enough for the writers' reprojection."""

    def to_lonlat(self, x, y):
        return np.asarray(x) * 1e-5 - 87.0, np.asarray(y) * 1e-5 + 45.0


def _layers(n_bulk: int = 3000):
    cols = [("name", "str"), ("uuid", "str"), ("dbh_in", "float"), ("tag", "int"), ("remarks", "str")]
    rows = [[f"Tree {i}", f"uuid-{i:04d}", 10.0 + i / 10, i, None if i % 3 else f"note {i}"] for i in range(200)]
    rows[-1][-1] = 'two lines,\n"quoted"'       # the last record has a quoted line end in it
    trees = _LayerData("tree", "Point", [shapely.Point(1000 + i, 2000 + i) for i in range(200)], cols, rows)
    arrays = [np.full(n_bulk, "Track point", dtype=object),
              np.array([f"fix-{i:06d}" for i in range(n_bulk)], dtype=object),
              np.array([f"2024-06-03T13:{i // 600 % 60:02d}:{i // 10 % 60:02d}.{i % 10}00Z" for i in range(n_bulk)],
                       dtype=object), np.linspace(0.5, 2.5, n_bulk), np.arange(n_bulk) % 5]
    track = _LayerData("track_point", "Point", shapely.points(np.arange(n_bulk) * 0.3, np.arange(n_bulk) * 0.2),
                       [("name", "str"), ("uuid", "str"), ("t_utc", "str"), ("hdop", "float"),
                        ("quality", "int")],
                       _ColumnRows(arrays), arrays)
    return [trees, track]


@pytest.mark.parametrize("fmt", ["geojson", "csv", "shp", "kml"])
def test_every_written_file_passes(tmp_path, fmt):
    layers = _layers()
    target = tmp_path / "v.kml" if fmt == "kml" else tmp_path
    counts = {}
    _write_layers(layers, target, fmt, _Frame(), "EPSG:3070", counts, lambda x, m: None)
    assert counts == {"tree": 200, "track_point": 3000 if fmt != "kml" else 1}


def _cut(path, k):
    data = path.read_bytes()
    path.write_bytes(data[:len(data) - k])


@pytest.mark.parametrize("fmt,suffix", [("geojson", "geojson"), ("csv", "csv"), ("shp", "shp"),
                                        ("shp", "dbf"), ("shp", "shx")])
@pytest.mark.parametrize("layer", [0, 1])
@pytest.mark.parametrize("k", [1, 2, 5, 17, 60, 301, 4000])
def test_a_file_cut_short_at_its_end_fails(tmp_path, fmt, suffix, layer, k):
    layers = _layers()
    _write_layers(layers, tmp_path, fmt, _Frame(), "EPSG:3070", {}, lambda x, m: None)
    data = layers[layer]
    path = tmp_path / f"{data.name}.{suffix}"
    _cut(path, k)
    with pytest.raises(ExportWriteFailed, match=f"{data.name} could not be written"):
        _prove(tmp_path / f"{data.name}.{fmt}", data, fmt)


def _prove(path, data, fmt):
    if fmt == "csv":
        frame = _Frame()
        _csv_ends_whole(path, data, lambda g: shapely.transform(
            g, lambda xy: np.column_stack(frame.to_lonlat(xy[:, 0], xy[:, 1]))))
    _check_written(path, data, fmt)


@pytest.mark.parametrize("layer", [0, 1])
def test_a_csv_short_of_its_last_whole_record_fails(tmp_path, monkeypatch, layer):
    import fieldapp.export.gdal as gdal

    monkeypatch.setattr(gdal, "COUNT_BYTES", 0)        # as for a day's track: not counted
    layers = _layers()
    _write_layers(layers, tmp_path, "csv", _Frame(), "EPSG:3070", {}, lambda x, m: None)
    data = layers[layer]
    path = tmp_path / f"{data.name}.csv"
    _prove(path, data, "csv")                           # whole: passes
    text = path.read_bytes()
    cut = text[:text.rstrip(b"\r\n").rfind(b"\n", 0, len(text) - 40 if layer == 0 else None) + 1]
    path.write_bytes(cut)                               # lines end, one record short
    with pytest.raises(ExportWriteFailed, match="cut short"):
        _prove(path, data, "csv")
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


@pytest.mark.parametrize("k", [1, 2, 9, 80, 5000])
def test_a_kml_cut_short_fails(tmp_path, k):
    layers = _layers()
    path = tmp_path / "v.kml"
    _write_layers(layers, path, "kml", _Frame(), "EPSG:3070", {}, lambda x, m: None)
    _cut(path, k)
    for data in layers:
        with pytest.raises(ExportWriteFailed, match="could not be written to v.kml"):
            _check_written(path, data, "kml")
