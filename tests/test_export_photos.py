"""Exports carry the photos: the image files in ``photos/`` beside the data, a relative link in
each feature that has photos, and the ``photo`` layer (every format: geojson, csv, shp, kml,
dxf)."""

from __future__ import annotations

import pyogrio
import pytest
import shapely
from pyogrio.raw import read

from fieldapp.app.photos import attach_files
from fieldapp.export import export_visit
from fieldapp.store import open_visit
from fieldapp.survey import Layer
from tests.photo_sample import jpeg
from tests.report.sample_visit import build_sample_visit


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    folder = tmp_path_factory.mktemp("export-photos")
    path = folder / "mill-creek.gpkg"
    build_sample_visit(path, conflict=False)
    cam = folder / "DCIM"
    cam.mkdir()
    with open_visit(path) as store:
        v = store.visit
        tree = sorted(v.features(Layer.TREE), key=lambda t: t.tag)[0]
        two = attach_files(v, [jpeg(cam / "IMG_0001.JPG", direction=300.0), jpeg(cam / "IMG 0002.jpg")],
                           layer=Layer.TREE, uuid=tree.uuid).kept
        site = attach_files(v, [jpeg(cam / "site.jpg", size=(200, 100))], layer=Layer.SITE).kept
        lon, lat = v.frame.to_lonlat(tree.x + 30.0, tree.y)
        alone = attach_files(v, [jpeg(cam / "seep.jpg", gps=(float(lat), float(lon)))]).kept
        name = v.site.name
    return {"path": path, "folder": folder, "tree": tree, "tree_photos": two, "site": site,
            "alone": alone, "site_name": name}


def _links(s):
    return [f"photos/{'IMG_0001' if i == 0 else 'IMG_0002'}_{p.uuid[:8]}.jpg"
            for i, p in enumerate(s["tree_photos"])]


@pytest.mark.parametrize("fmt", ["geojson", "csv", "shp"])
def test_folder_formats_write_the_photos_and_a_link_in_each_feature(sample, fmt):
    out = sample["folder"] / f"out-{fmt}"
    r = export_visit(sample["path"], out, fmt)
    assert r.layers["photo"] == 4
    ext = {"geojson": "geojson", "csv": "csv", "shp": "shp"}[fmt]
    meta, _, _, fields = read(str(out / f"tree.{ext}"), encoding="UTF-8")   # not the code page
    cols = list(meta["fields"])
    by_uuid = dict(zip(fields[cols.index("uuid")], fields[cols.index("photos")], strict=True))
    assert by_uuid[sample["tree"].uuid] == ";".join(_links(sample))
    assert sum(bool(v) for v in by_uuid.values()) == 1     # the other trees have none
    for p, link in zip(sample["tree_photos"], _links(sample), strict=True):
        assert (out / link).read_bytes() == p.data         # relative to the data files
    assert len(list((out / "photos").iterdir())) == 4
    meta, _, geoms, fields = read(str(out / f"photo.{ext}"), encoding="UTF-8")
    cols = list(meta["fields"])
    rows = {u: i for i, u in enumerate(fields[cols.index("uuid")])}
    i = rows[sample["alone"][0].uuid]
    assert fields[cols.index("placed_by")][i] == "exif gps"
    assert (out / fields[cols.index("link")][i]).read_bytes() == sample["alone"][0].data
    j = rows[sample["site"][0].uuid]
    assert fields[cols.index("name")][j] == f"Site “{sample['site_name']}”"
    if fmt == "shp":          # in the site CRS (m): the lone photo 30 m east of the tree, to
        pt = shapely.from_wkb(geoms[i])     # the 1 cm of EXIF seconds written to 0.0001"
        assert (pt.x, pt.y) == (pytest.approx(sample["tree"].x + 30.0, abs=0.01),
                                pytest.approx(sample["tree"].y, abs=0.01))


@pytest.mark.parametrize("fmt", ["kml", "dxf"])
def test_one_file_formats_write_the_photos_beside_the_file(sample, fmt):
    out = sample["folder"] / f"one-{fmt}" / f"visit.{fmt}"
    out.parent.mkdir()
    r = export_visit(sample["path"], out, fmt)
    assert sorted(p.name for p in (out.parent / "photos").iterdir()) == sorted(
        link.rsplit("/", 1)[-1] for link in _links(sample)
        + [f"site_{sample['site'][0].uuid[:8]}.jpg", f"seep_{sample['alone'][0].uuid[:8]}.jpg"])
    assert set(r.files) >= {out, out.parent / _links(sample)[0]}
    if fmt == "kml":
        meta, _, _, fields = read(str(out), layer="tree")
        cols = list(meta["fields"])
        assert ";".join(_links(sample)) in list(fields[cols.index("photos")])
        assert pyogrio.read_info(out, layer="photo")["features"] == 4
    else:
        import ezdxf

        doc = ezdxf.readfile(out)
        tagged = [e.get_xdata("FIELDAPP") for e in doc.modelspace().query("POINT[layer=='tree']")]
        texts = [str(v) for x in tagged for _, v in x]
        assert f"photos={';'.join(_links(sample))}" in texts


def test_export_into_an_existing_folder_keeps_its_other_files(sample):
    out = sample["folder"] / "existing"
    (out / "photos").mkdir(parents=True)
    (out / "photos" / "keep.jpg").write_bytes(b"mine")
    export_visit(sample["path"], out, "geojson", force=True)
    assert (out / "photos" / "keep.jpg").read_bytes() == b"mine"
    assert (out / _links(sample)[0]).is_file()


def test_photos_exported_before_are_not_replaced_without_force(sample):
    # a second KML into the same folder would rewrite photos/ silently; a file named "photos"
    # gave "File exists"
    from fieldapp.export import ExportExists, ExportRefused

    folder = sample["folder"] / "twice"
    folder.mkdir()
    export_visit(sample["path"], folder / "monday.kml", "kml")
    with pytest.raises(ExportExists, match=r"photos were exported here before\): nothing written; --force"):
        export_visit(sample["path"], folder / "tuesday.kml", "kml")
    assert sorted(p.name for p in folder.iterdir()) == ["monday.kml", "photos"]
    export_visit(sample["path"], folder / "tuesday.kml", "kml", force=True)
    assert (folder / "tuesday.kml").is_file()
    other = sample["folder"] / "photos-file"
    other.mkdir()
    (other / "photos").write_text("not a folder")
    with pytest.raises(ExportRefused, match="photos is a file: the photos go in a folder"):
        export_visit(sample["path"], other / "site.dxf", "dxf")
    assert sorted(p.name for p in other.iterdir()) == ["photos"]


def test_the_photo_layer_says_whether_its_time_is_utc_or_the_cameras_own_clock(tmp_path):
    import json

    from PIL import Image

    from fieldapp.store import create_visit
    from fieldapp.survey.visit import Visit

    path = tmp_path / "v.gpkg"
    visit = Visit.new("Mill Creek lot 7", crs="EPSG:3070", who="ann@laptop-1")
    store = create_visit(path, visit)
    local = jpeg(tmp_path / "IMG_0412.JPG", when="2026:06:01 09:58:15")
    zoned = tmp_path / "IMG_0413.JPG"
    exif = Image.Exif()
    exif[0x8769] = {36867: "2026:06:01 09:58:15", 36881: "-05:00"}
    Image.new("RGB", (64, 48)).save(zoned, "JPEG", exif=exif.tobytes())
    attach_files(visit, [local, zoned], layer=Layer.SITE)
    store.close()
    export_visit(path, tmp_path / "gj", "geojson")
    doc = json.loads((tmp_path / "gj" / "photo.geojson").read_text(encoding="utf-8"))
    got = sorted((f["properties"]["link"].split("/")[1][:8], f["properties"]["taken_utc"],
                  f["properties"]["taken_clock"]) for f in doc["features"])
    # no zone, no clock offset: the camera's 09:58:15 as it wrote it; -05:00: 14:58:15 UTC
    assert got == [("IMG_0412", "2026-06-01T09:58:15.000Z", "camera local time (no zone)"),
                   ("IMG_0413", "2026-06-01T14:58:15.000Z", "UTC")]
