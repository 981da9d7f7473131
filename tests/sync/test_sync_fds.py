"""A sync leaves no file open in the process (fd leak: each sync used to keep 2 deleted
``VISIT.gpkg.sync/work/tmp*.json`` files open -- ``tempfile.mkstemp``'s descriptors, never
closed, around pygeodiff's JSON listings).

Counted on Linux through ``/proc/self/fd``; skipped where there is no such folder. Real store
visits, edited through the model, so every sync runs the full visit check, the office's schema
read and pygeodiff's listings on both sides; the round covers a send, a receive, a same-field
conflict, a no-op and a cancelled sync.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fieldapp.store import create_visit
from fieldapp.store import open_visit as _store_open_visit
from fieldapp.store.tagblock import tag_range_of
from fieldapp.survey.features import Layer
from fieldapp.survey.visit import Visit
from fieldapp.sync import CancelToken, FolderOffice, SyncCancelled, checkout, sync


def open_visit(path, **kw):
    """The store's ``open_visit``, numbering new trees in the laptop copy's tag block as the app
    does (:func:`fieldapp.app.visit.open_visit`): laptops tallying offline never share a tag."""
    store = _store_open_visit(path, **kw)
    block = tag_range_of(path)
    if block is not None:
        store.visit.set_tag_block(*block)
    return store


PROC_FD = Path("/proc/self/fd")
pytestmark = pytest.mark.skipif(not PROC_FD.is_dir(), reason="needs /proc/self/fd (Linux)")

X0, Y0 = 500000.0, 4983000.0  # UTM 16N


def open_files() -> dict[str, str]:
    """``{fd: target}`` of this process's open descriptors (the listing's own fd drops out,
    its readlink fails once the listing is closed)."""
    out = {}
    for fd in os.listdir(PROC_FD):
        try:
            out[fd] = os.readlink(PROC_FD / fd)
        except OSError:
            pass
    return out


def round_of_syncs(a: Path, b: Path, office: FolderOffice, t1: str, i: int) -> None:
    """A sends an edit of t1 and a new tree; B edits t1 too (same field: a conflict), gets A's
    edits and sends its own; A receives; A syncs again with nothing to do; B starts a sync and
    cancels it before anything is sent."""
    with open_visit(a, who="a@laptop-a") as store:
        store.visit.update_feature(Layer.TREE, t1, dbh_in=20.0 + i)
        store.visit.add_tree(x=X0 + 10 + i, y=Y0, dbh_in=8.0, species_code="ACSA")
    sync(a, office)
    with open_visit(b, who="b@laptop-b") as store:
        store.visit.update_feature(Layer.TREE, t1, dbh_in=30.0 + i)
    assert sync(b, office).totals().conflicts == 1  # B's dbh_in and A's, from one base
    # A receives B's dbh_in of t1 (and the conflict record, said apart: not in the totals); from
    # the second round on, also the tree B added (and did not send: cancelled) the round before
    got = sync(a, office)
    assert (got.totals().received, got.conflict_records.received) == ((1 if i == 0 else 2), 1)
    assert sync(a, office).no_op
    with open_visit(b, who="b@laptop-b") as store:
        store.visit.add_tree(x=X0 + 20 + i, y=Y0, dbh_in=9.0, species_code="BBBB")
    token = CancelToken()

    def progress(fraction, message):
        if "preparing the changeset" in message:
            token.cancel()

    with pytest.raises(SyncCancelled):
        sync(b, office, progress=progress, cancel=token)


def test_syncs_leave_no_file_open(tmp_path):
    office = FolderOffice(tmp_path / "office", create=True)
    visit = Visit.new("Mill Creek lot", crs="EPSG:32616", who="a@laptop-a")
    a = tmp_path / "a.gpkg"
    store = create_visit(a, visit)
    t1 = visit.add_tree(x=X0, y=Y0, dbh_in=10.0, species_code="ACSA").uuid
    store.close()
    site = sync(a, office).site_id
    b = checkout(office, site, tmp_path / "b.gpkg")
    # One full round first, so that whatever a library opens once and keeps (PROJ's database,
    # GDAL's drivers) is already open when counting starts.
    round_of_syncs(a, b, office, t1, 0)
    before = open_files()

    for i in range(1, 4):
        round_of_syncs(a, b, office, t1, i)

    after = open_files()
    # Before the fix these 3 rounds (15 syncs) left 66 deleted tmp*.json files open, in the
    # laptops' work folders and the office's site folder; now none.
    new = sorted(target for fd, target in after.items() if before.get(fd) != target)
    assert new == []
    assert len(after) == len(before)
