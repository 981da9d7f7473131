"""Reference layers: a parcels GeoPackage in EPSG:4326 read into a UTM site where the same
coordinates project; a Shapefile too; unreadable or CRS-less files refused in words."""

from __future__ import annotations

import numpy as np
import pyogrio
import pytest
import shapely
from shapely.geometry import Polygon

from fieldapp.basemap.reference import ReferenceLayerError, read_reference
from fieldapp.geo import SiteFrame

RING = [(-89.001, 45.0), (-89.0, 45.0), (-89.0, 45.001), (-89.001, 45.001)]


def write(path, crs="EPSG:4326", driver="GPKG"):
    geom = np.array([shapely.to_wkb(Polygon(RING))], dtype=object)
    pyogrio.raw.write(path, geom, [], [], crs=crs, geometry_type="Polygon", driver=driver,
                      layer="parcels")
    return path


@pytest.mark.parametrize("name,driver", [("parcels.gpkg", "GPKG"), ("parcels.shp", "ESRI Shapefile")])
def test_parcels_land_where_their_coordinates_project(tmp_path, name, driver):
    ref = read_reference(write(tmp_path / name, driver=driver), "EPSG:32616")
    frame = SiteFrame("EPSG:32616")
    (g,) = ref.geometries
    expected = Polygon([tuple(float(v) for v in frame.to_local(lon, lat)) for lon, lat in RING])
    # the same ring (a Shapefile stores it clockwise: compare normalised)
    assert shapely.normalize(g).equals_exact(shapely.normalize(expected), 1e-6)
    assert len(ref.lines) == 1 and len(ref.lines[0]) == 5


def test_unreadable_or_crs_less_layers_are_refused(tmp_path):
    junk = tmp_path / "parcels.gpkg"
    junk.write_bytes(b"SQLite format 3\x00" + b"\x00" * 200)
    with pytest.raises(ReferenceLayerError, match="not a vector layer GDAL can read"):
        read_reference(junk, "EPSG:32616")
    shp = write(tmp_path / "nocrs.shp", driver="ESRI Shapefile")
    shp.with_suffix(".prj").unlink()
    with pytest.raises(ReferenceLayerError, match="no coordinate reference system"):
        read_reference(shp, "EPSG:32616")
    with pytest.raises(ReferenceLayerError, match="does not exist"):
        read_reference(tmp_path / "none.gpkg", "EPSG:32616")
