"""Two syncs of one visit at once (the app's Sync button and a CLI run): the second is refused
at once by the visit's lock (VisitRefused: before the office's site lock, which it used to wait
for), and never empties the scratch folder of the one running (it used to, before taking the
lock), which then finishes."""

from __future__ import annotations

import pytest

from fieldapp.sync import FolderOffice, VisitRefused, sync
from tests.sync import sync_sample as S
from tests.sync.sync_site import edit, make_site

# the visit gate narrowed to its generic part for GDAL-made visits (tests/sync/conftest.py)
pytestmark = pytest.mark.usefixtures("generic_visits")


def test_a_second_sync_of_the_same_visit_waits_and_leaves_the_first_alone(tmp_path):
    office = FolderOffice(tmp_path / "office", create=True)
    _, lap, (t1, _t2, _t3) = make_site(office, tmp_path)
    a = lap["A"]
    edit(a, ("UPDATE tree SET dbh_in = 20 WHERE uuid = ?", (t1,)))
    seen = []

    def progress(fraction, message):
        if message.startswith("merging") and not seen:
            work = a.with_name(a.name + ".sync") / "work"
            before = sorted(p.name for p in work.iterdir())
            with pytest.raises(VisitRefused, match="open in another fieldapp window or program"
                               r".*nothing was synced"):
                sync(a, office, lock_wait_s=0.2)
            seen.append((before, sorted(p.name for p in work.iterdir())))

    report = sync(a, office, progress=progress)
    (before, after), = seen
    assert "snapshot.gpkg" in before and after == before     # the running sync's copies are intact
    assert report.totals().sent == 1 and S.by_uuid(office.master_path("site-a"), "tree")[t1]["dbh_in"] == 20
