"""Office data is validated before use: tampered changesets, path traversal, links, bad masters.

Each test damages the office folder the way a bad actor or a bad disk could, and checks the sync
refuses with a message naming the problem, and that neither the laptop nor the office changed.
"""

from __future__ import annotations

import contextlib
import hashlib
import shutil

import pytest

from fieldapp.sync import FolderOffice, InvalidOfficeData, checkout, sync
from fieldapp.sync.office import LockOwner, LogEntry
from tests.gpkgtools import st_connect
from tests.links import symlink_or_skip
from tests.sync import sync_sample as S
from tests.sync.sync_site import master, snapshot

# the visit gate narrowed to its generic part for GDAL-made visits (tests/sync/conftest.py)
pytestmark = pytest.mark.usefixtures("generic_visits")


@pytest.fixture
def pulled(site):
    """A sends a new tree (office seq 2); B has not received it yet."""
    office, lap, _ = site
    with contextlib.closing(S.connect(lap["A"])) as conn, conn:
        S.add_tree(conn, 1.0, 2.0, 3.0, "X")
    sync(lap["A"], office)
    (history,) = [p for p in (office.site_dir("site-a") / "history").iterdir() if p.name.startswith("00000002-")]
    return office, lap, history


def _unchanged(lap_path, before_visit, base_before):
    assert snapshot(lap_path) == before_visit
    assert (lap_path.with_name(lap_path.name + ".sync") / "base.gpkg").read_bytes() == base_before


def test_tampered_changeset_is_refused(pulled):
    office, lap, history = pulled
    data = bytearray(history.read_bytes())
    data[-3] ^= 0x01  # one bit of one value changed; still a well-formed changeset
    history.write_bytes(bytes(data))
    before, base = snapshot(lap["B"]), (lap["B"].parent / "b.gpkg.sync" / "base.gpkg").read_bytes()
    with pytest.raises(InvalidOfficeData, match="SHA-256"):
        sync(lap["B"], office)
    _unchanged(lap["B"], before, base)


def test_changeset_that_logs_another_id_is_refused_even_with_matching_hash(pulled):
    # an attacker who also rewrites the hash in the master still cannot pass off another
    # changeset: the changeset must log itself with the seq/id the office log names
    office, lap, history = pulled
    first = next((office.site_dir("site-a") / "history").glob("00000001-*"))
    shutil.copyfile(first, history)
    digest = hashlib.sha256(history.read_bytes()).hexdigest()
    with contextlib.closing(st_connect(master(office))) as conn, conn:
        conn.execute("UPDATE fieldapp_sync_log SET sha256 = ?, size_bytes = ? WHERE seq = 2",
                     (digest, history.stat().st_size))
    with pytest.raises(InvalidOfficeData, match="changeset seq 2"):
        sync(lap["B"], office)


def test_path_traversal_changeset_name_is_refused(pulled, tmp_path):
    office, lap, history = pulled
    outside = tmp_path / "evil.geodiff"
    shutil.copyfile(history, outside)
    with contextlib.closing(st_connect(master(office))) as conn, conn:
        conn.execute("UPDATE fieldapp_sync_log SET changeset_id = ? WHERE seq = 2",
                     ("../../../../evil",))
    before = snapshot(lap["B"])
    with pytest.raises(InvalidOfficeData, match="not a 32-digit hex id"):
        sync(lap["B"], office)
    assert snapshot(lap["B"]) == before
    # and the office's own path builder refuses it too
    with pytest.raises(InvalidOfficeData):
        office.history_path("site-a", 2, "../../../../evil")


def test_symlink_escaping_the_office_is_refused(pulled, tmp_path):
    office, lap, history = pulled
    outside = tmp_path / "outside.geodiff"
    shutil.move(history, outside)
    symlink_or_skip(outside, history)  # same bytes, same hash: only the link gives it away
    with pytest.raises(InvalidOfficeData, match="symbolic link"):
        sync(lap["B"], office)


def test_site_folder_symlink_is_refused(tmp_path):
    office = FolderOffice(tmp_path / "office", create=True)
    a = S.make_visit(tmp_path / "a.gpkg")
    sync(a, office)
    elsewhere = tmp_path / "elsewhere"
    folder = office.site_dir("site-a")          # named by the site, its id inside
    shutil.move(folder, elsewhere)
    symlink_or_skip(elsewhere, folder, target_is_directory=True)
    with pytest.raises(InvalidOfficeData, match="symbolic link"):
        sync(a, office)


@pytest.mark.parametrize("site_id", ["../x", "..", ".hidden", "a/b", "a\\b", "", "x" * 101])
def test_unsafe_site_ids_are_refused(tmp_path, site_id):
    office = FolderOffice(tmp_path / "office")
    with pytest.raises(ValueError, match="not allowed"):
        office.site_dir(site_id)


def test_damaged_master_is_refused_for_checkout(site, tmp_path):
    office, _lap, _ = site
    m = master(office)
    data = bytearray(m.read_bytes())
    data[len(data) // 2 : len(data) // 2 + 4096] = b"\xff" * 4096  # a damaged page in the middle
    m.write_bytes(bytes(data))
    with pytest.raises(InvalidOfficeData, match="master GeoPackage"):
        checkout(office, "site-a", tmp_path / "d.gpkg")
    assert not (tmp_path / "d.gpkg").exists()


def test_office_apply_refuses_a_changeset_not_matching_its_entry(pulled):
    office, lap, history = pulled
    entry = LogEntry(3, "ab" * 16, "x", None, "2024-06-01T00:00:00Z", "0" * 64, history.stat().st_size)
    before = master(office).read_bytes()
    with office.lock("site-a", LockOwner.here()):
        with pytest.raises(InvalidOfficeData, match="SHA-256"):
            office.apply("site-a", history, entry)
        good_hash = LogEntry(3, "ab" * 16, "x", None, "t", hashlib.sha256(history.read_bytes()).hexdigest(),
                             history.stat().st_size)
        with pytest.raises(InvalidOfficeData, match="does not apply|logs itself"):
            office.apply("site-a", history, good_hash)
    assert master(office).read_bytes() == before
    assert not list((office.site_dir("site-a") / "history").glob("00000003-*"))


def test_office_newer_than_this_version_is_refused(tmp_path):
    office = FolderOffice(tmp_path / "office", create=True)
    a = S.make_visit(tmp_path / "a.gpkg")
    sync(a, office)
    (office.root / "fieldapp-office.json").write_text('{"format": "fieldapp-office", "version": 99}')
    with pytest.raises(InvalidOfficeData, match="newer than"):
        sync(a, office)
