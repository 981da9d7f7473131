"""Fixtures of the sync tests: a site synced by three laptops (on a folder office, or on both
kinds of office), and the visit gate narrowed for GDAL-made visits. The PostgreSQL fixtures
(``pg_server``, ``pg_url``) are in ``tests/conftest.py``: the UI tests use them too."""

from __future__ import annotations

import pytest

from fieldapp.sync import FolderOffice, engine
from tests.sync.sync_site import basics_only, make_office, make_site


@pytest.fixture(scope="module")
def generic_visits():
    """For the modules that ask for it (``pytestmark = pytest.mark.usefixtures("generic_visits")``):
    the engine's tests there sync GDAL-made GeoPackages of the store's shape
    (``tests/sync/sync_sample.py``), which the store itself would refuse as visits (no
    ``fieldapp_meta``); so the sync's visit gate is narrowed to its generic part
    (:func:`check_visit_basics`: a sound, writable GeoPackage). The full gate
    (:func:`check_visit_file`, the store's own checks) is tested on real visits in
    ``test_sync_refusals.py`` and ``test_sync_store.py``. For the same reason the store's read
    of what arrives from the office (:func:`check_received`) is skipped here; it is tested on
    real visits in ``test_sync_received.py``."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(engine, "check_visit_file", basics_only)
        mp.setattr(engine, "check_received", lambda gpkg: None)
        yield


@pytest.fixture
def site(tmp_path):
    """Laptop A makes the visit (3 trees, 1 transect with 2 stations) and syncs it;
    laptops B and C check the site out. Returns (office, {name: visit path}, tree uuids)."""
    return make_site(FolderOffice(tmp_path / "office", create=True), tmp_path)


@pytest.fixture(params=["folder", "postgis"])
def any_site(request, tmp_path):
    """:func:`site` on a folder office and on a PostGIS office (same outcomes expected)."""
    return make_site(make_office(request.param, tmp_path, request), tmp_path)
